#!/usr/bin/env bash
# The thread check of tests/runtime/test_threads.py at full length: 200 executions per thread
# (float, 8-bit, dynamic, llama with a KV cache, two methods of one program) while another thread
# loads and frees a program, under ThreadSanitizer and then under ASan + UBSan.
#
#   scripts/thread_check.sh [ITERATIONS]      default 200
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${EXECUTORCH_NNAPI_VENV:-$HOME/.cache/executorch-nnapi/venv}"
PYTHON="${PYTHON:-$VENV/bin/python}"
cd "$ROOT"
for sanitizer in thread address; do
  echo "== $sanitizer"
  EXECUTORCH_NNAPI_THREAD_ITERATIONS="${1:-200}" EXECUTORCH_NNAPI_THREAD_SANITIZER="$sanitizer" \
    "$PYTHON" -m pytest -q -n 0 -s -p no:cacheprovider tests/runtime/test_threads.py \
    | grep -E "^(reference|thread|churn|timeout)|passed|failed"
done
