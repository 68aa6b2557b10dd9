"""Shared set-up of the test suite.

The tests are grouped by the part they test: ``lowering/`` (builders, patterns, shape program,
blob writer; ``test_ops_<family>.py`` lower each op, run it on the host driver and compare with
eager), ``partitioners/``, ``quantizer/``, ``runtime/`` (the C++ backend, runner, options),
``host_driver/``, ``tools/`` (CLI, examples), ``models/`` (whole torchvision models) and
``repository/`` (facts about the code itself: import layers, file sizes, codes shared by two parts).

The helpers shared across folders are modules of this directory, which pytest puts on
``sys.path`` because this conftest lives here: ``op_harness`` (lower a model, run a .pte),
``quantized_reference`` (quantize with NnapiQuantizer, SQNR, XNNPACK's int8 yardstick),
``integer_replay`` (layer-by-layer replay of NNAPI's integer arithmetic), ``litert_oracle``
(LiteRT's reference kernels), ``nnapi_client`` (the host shim's C API through ctypes),
``nnapi_rules`` and ``cli_models`` (small models named on the command line).
"""

import os

import torch

# scripts/dev.sh runs one pytest-xdist worker per core (-n auto). torch's default of one
# intra-op thread per core in every worker oversubscribes the machine: on 2 cores the model zoo
# took 73 s with 2 workers x 2 threads, 46 s with one thread each.
_WORKERS = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "0"))
if _WORKERS:
    torch.set_num_threads(max(1, (os.cpu_count() or 1) // _WORKERS))
