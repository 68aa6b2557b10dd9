"""Shared set-up of the test suite.

The tests are grouped by the part they test: ``lowering/`` (builders, patterns, shape program,
blob writer; ``test_ops_<family>.py`` lower each op, run it on the host driver and compare with
eager), ``partitioners/``, ``quantizer/``, ``runtime/`` (the C++ backend, runner, options),
``host_driver/``, ``tools/`` (CLI, examples), ``models/`` (whole torchvision models), ``aarch64/``
(the aarch64 build of the backend and runner under qemu, compared with the x86 runner) and
``repository/`` (facts about the code itself: import layers, file sizes, codes shared by two parts).

The helpers shared across folders are modules of this directory, which pytest puts on
``sys.path`` because this conftest lives here: ``op_harness`` (lower a model, run a .pte),
``quantized_reference`` (quantize with NnapiQuantizer, SQNR, XNNPACK's int8 yardstick),
``integer_replay`` (layer-by-layer replay of NNAPI's integer arithmetic), ``litert_oracle``
(LiteRT's reference kernels), ``nnapi_client`` (the host shim's C API through ctypes),
``nnapi_rules`` and ``cli_models`` (small models named on the command line), ``runner_io`` (the
runner's input and output files), ``nnapi_server`` (the NNAPI server as a subprocess),
``aarch64_runners`` (the aarch64 runner under qemu and the x86 one through that server) and
``torch_overheads`` (torch.export's fixed costs taken out of the test processes).
"""

from __future__ import annotations

import gc
import os

import pytest
import torch

import torch_overheads

# scripts/dev.sh runs one pytest-xdist worker per core (-n auto). torch's default of one
# intra-op thread per core in every worker oversubscribes the machine: on 2 cores the model zoo
# took 73 s with 2 workers x 2 threads, 46 s with one thread each.
_WORKERS = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "0"))
if _WORKERS:
    torch.set_num_threads(max(1, (os.cpu_count() or 1) // _WORKERS))


# torch.export's fixed costs per lowering, cut without changing a result (torch_overheads.py).
torch_overheads.install()


@pytest.fixture(autouse=True)
def _delegate_modules_forgotten():
    """torch_overheads keeps each delegate's unlifted program for the passes of one lowering; a test
    hands its models' parameters back when it ends."""
    yield
    torch_overheads.forget_unlifted_delegate_programs()


@pytest.fixture(autouse=True)
def _host_driver_level_restored():
    """op_harness.run_pte (and some tests) set the host driver's feature level for their run; a
    worker then kept it for the next test, which failed when it needed a higher level (found by a
    fresh-clone run: test_method_selection after an API 27 run on the same worker)."""
    level = _host_level()
    yield
    if level is not None or _host_level() is not None:
        from executorch_nnapi import host_driver
        host_driver.get_driver().feature_level = 30 if level is None else level


def _host_level() -> int | None:
    """The installed host driver's feature level, None if no test has installed it yet."""
    from executorch_nnapi import host_driver
    try:
        return host_driver.get_driver().feature_level
    except RuntimeError:
        return None


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist's, which reads the groups into the node ids
def pytest_collection_modifyitems(config, items):
    """Marks the tests of long_tier.LONG ``long`` (scripts/dev.sh test deselects them), and puts the
    tests of a module that share one of its module-scoped fixtures on one pytest-xdist worker."""
    from long_tier import LONG

    for item in items:
        if item.nodeid.removeprefix("tests/") in LONG:
            item.add_marker(pytest.mark.long)
        _group_by_module_fixture(item)


def pytest_collection_finish(session) -> None:
    """Everything the collected tests import is loaded now (torch, ExecuTorch, this package:
    millions of objects that live as long as the process). Frozen, the garbage collector stops
    walking them in each full collection that the tests' own allocations trigger."""
    gc.collect()
    gc.freeze()


def _group_by_module_fixture(item) -> None:
    """With ``--dist loadgroup`` a module-scoped fixture is built once per worker that runs one of
    its tests: split over two workers, the 8-bit SSDlite of test_detectors_quantized.py (~95 s on
    a 2-core AVX2 machine) was built twice. A test that uses a module- or class-scoped fixture of its
    own module joins that module's group, unless it names a group itself."""
    if next(item.iter_markers("xdist_group"), None) is not None or not hasattr(item, "_fixtureinfo"):
        return
    module = item.nodeid.split("::")[0]
    for definitions in item._fixtureinfo.name2fixturedefs.values():
        if any(d.scope in ("module", "class") and d.baseid == module for d in definitions):
            item.add_marker(pytest.mark.xdist_group(module))
            return
