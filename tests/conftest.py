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
runner's input and output files), ``nnapi_server`` (the NNAPI server as a subprocess) and
``aarch64_runners`` (the aarch64 runner under qemu and the x86 one through that server).
"""

from __future__ import annotations

import os

import pytest
import torch

# scripts/dev.sh runs one pytest-xdist worker per core (-n auto). torch's default of one
# intra-op thread per core in every worker oversubscribes the machine: on 2 cores the model zoo
# took 73 s with 2 workers x 2 threads, 46 s with one thread each.
_WORKERS = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "0"))
if _WORKERS:
    torch.set_num_threads(max(1, (os.cpu_count() or 1) // _WORKERS))



def _reuse_the_composite_op_census() -> None:
    """torch.export's run_decompositions (two per lowering) walks every operator namespace for the
    CompositeImplicitAutograd ops it may keep, ~0.1 s each time on a 2-core AVX2 machine: a sixth of
    a small op test's lowering. Its answer changes only when an operator is registered (torch does
    not cache it for that reason), so the tests reuse it while the C++ registrations and the names
    in every ``torch.ops`` namespace are unchanged. Only the time differs: the same set comes back."""
    from torch._export import utils as export_utils
    from torch.export import decomp_utils, exported_program

    census = export_utils._collect_all_valid_cia_ops
    last: dict[str, object] = {}

    def registry_state() -> tuple:
        # aten's part is cached by torch itself; the other namespaces grow as their ops are used.
        namespaces = [name for name in torch.ops._dir if name != "aten"]
        return (tuple(torch._C._dispatch_get_registrations_for_dispatch_key("CompositeImplicitAutograd")),
                tuple((name, len(getattr(getattr(torch.ops, name), "_dir", ()))) for name in namespaces))

    def reused_census():
        state = registry_state()
        if last.get("state") != state:
            last["ops"] = census()
            last["state"] = registry_state()  # the census itself materialises operators
        return last["ops"]

    for module in (export_utils, exported_program, decomp_utils):
        module._collect_all_valid_cia_ops = reused_census


_reuse_the_composite_op_census()


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
