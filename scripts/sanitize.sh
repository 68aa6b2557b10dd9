#!/usr/bin/env bash
# The C++ runtime under sanitizers (docs/sanitizers.md).
#
#   scripts/sanitize.sh setup                  build both kinds (scripts/dev.sh setup installs clang)
#                                              (scripts/dev.sh setup runs it; best effort)
#   scripts/sanitize.sh build address|thread   configure and build build/sanitize-<kind>/ with clang:
#                                              backend, runner, host shim and the checks in
#                                              runtime/checks (incremental: a no-op when up to date)
#   scripts/sanitize.sh runner                 the runner on the four programs of
#                                              tests/runtime/test_sanitizers.py under both builds
#   scripts/sanitize.sh runtime-tests [ARGS]   tests/runtime (or ARGS) in a Python process running
#                                              the ASan + UBSan backend and shim (LD_PRELOAD of
#                                              clang's ASan runtime), LeakSanitizer on; ~30 min
#
# PYTHON (default: the venv's python, else python3) is the interpreter whose executorch, flatc and
# libpython the build uses; cmake 3.28+ and ninja come from its venv when there.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${EXECUTORCH_NNAPI_VENV:-$HOME/.cache/executorch-nnapi/venv}"
PYTHON="${PYTHON:-$VENV/bin/python}"
[[ -x "$PYTHON" ]] || PYTHON=python3
PATH="$(dirname "$PYTHON"):$VENV/bin:$PATH"
SUPPRESSIONS="$ROOT/runtime/checks/lsan_python.supp"

build() {
  local kind="$1" dir="$ROOT/build/sanitize-$1"
  mkdir -p "$ROOT/build"
  command -v clang++ >/dev/null || { echo "sanitize.sh: clang++ is missing (apt-get install clang)" >&2; exit 3; }
  if [[ ! -f "$dir/build.ninja" ]]; then
    cmake -S "$ROOT" -B "$dir" -G Ninja -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
      -DEXECUTORCH_NNAPI_SANITIZE="$kind" -DEXECUTORCH_NNAPI_BUILD_CHECKS=ON \
      -DPython3_EXECUTABLE="$PYTHON" >"$dir.configure.log" 2>&1 \
      || { cat "$dir.configure.log" >&2; exit 1; }
  fi
  cmake --build "$dir" -j "$(nproc)" >"$dir.build.log" 2>&1 || { tail -40 "$dir.build.log" >&2; exit 1; }
  echo "$dir"
}

runtime_tests() {
  local dir asan_runtime
  dir="$(build address)"
  asan_runtime="$(clang++ -print-file-name=libclang_rt.asan-x86_64.so)"
  cd "$ROOT"
  # The interpreter is not instrumented; only the backend and shim are. ASan's allocator stands
  # in for malloc everywhere, so the preload comes first.
  LD_PRELOAD="$asan_runtime" \
  ASAN_OPTIONS="detect_leaks=1:abort_on_error=0:halt_on_error=1:detect_odr_violation=0" \
  LSAN_OPTIONS="suppressions=$SUPPRESSIONS:print_suppressions=0" \
  UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1" \
  EXECUTORCH_NNAPI_BACKEND_LIBRARY="$dir/runtime/libexecutorch_nnapi_backend.so" \
  EXECUTORCH_NNAPI_HOST_SHIM="$dir/host_driver/libnnapi_host_shim.so" \
    "$PYTHON" -m pytest -q -n 0 -p no:cacheprovider "${@:-tests/runtime}" \
      --ignore=tests/runtime/test_cross_compile.py  # compiles for aarch64: runs no runtime code
}

setup() {
  command -v clang++ >/dev/null || { echo "== no clang: the sanitizer and fuzz tests will be skipped"; return 0; }
  echo "== building the runtime with sanitizers (build/sanitize-address, build/sanitize-thread)"
  build address >/dev/null
  build thread >/dev/null
}

runner() {
  build address >/dev/null
  build thread >/dev/null
  cd "$ROOT"
  EXECUTORCH_NNAPI_RUNNER_SANITIZERS="address thread" \
    "$PYTHON" -m pytest -q -n 0 -p no:cacheprovider tests/runtime/test_sanitizers.py "$@"
}

cmd="${1:-}"
shift || true
case "$cmd" in
  setup) setup ;;
  build) [[ "${1:-}" == address || "${1:-}" == thread ]] || { echo "usage: $0 build address|thread" >&2; exit 2; }
         build "$1" ;;
  runner) runner "$@" ;;
  runtime-tests) runtime_tests "$@" ;;
  *) echo "usage: $0 {setup|build address|thread|runner|runtime-tests [pytest args]}" >&2; exit 2 ;;
esac
