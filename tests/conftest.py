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


def pytest_collection_modifyitems(config, items):
    """Marks the tests of long_tier.LONG ``long`` (scripts/dev.sh test deselects them)."""
    from long_tier import LONG

    for item in items:
        if item.nodeid.removeprefix("tests/") in LONG:
            item.add_marker(pytest.mark.long)
