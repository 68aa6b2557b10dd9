#!/usr/bin/env bash
# One entry point for a fresh machine:
#   scripts/dev.sh demo   set up what it runs, export torchvision mobilenet_v2 to a .pte, run it on
#                         the host NNAPI driver, compare with eager and print the report
#   scripts/dev.sh test   set up and run the test suite
#   scripts/dev.sh conformance  Android's NNAPI conformance cases on the host driver
#   scripts/dev.sh tier-coverage  both test tiers under coverage: what the default tier alone misses
#   scripts/dev.sh setup  only set up (venv + build + install)
# The venv lives outside the checkout (EXECUTORCH_NNAPI_VENV, default
# ~/.cache/executorch-nnapi/venv) and is reused while requirements-dev.txt is unchanged.
# Beside it: ExecuTorch's aarch64 wheel, unpacked (EXECUTORCH_NNAPI_AARCH64_SDK), which the
# aarch64 build of the backend and runner links against (tests/aarch64/, scripts/run_aarch64.sh).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${EXECUTORCH_NNAPI_VENV:-$HOME/.cache/executorch-nnapi/venv}"
PYTHON="${PYTHON:-python3.11}"
command -v "$PYTHON" >/dev/null || PYTHON=python3
ET_VERSION="$(sed -n 's/^executorch==\([0-9.]*\).*/\1/p' "$ROOT/requirements-dev.txt")"
export EXECUTORCH_NNAPI_AARCH64_SDK="${EXECUTORCH_NNAPI_AARCH64_SDK:-$(dirname "$VENV")/executorch-$ET_VERSION-aarch64}"

# Debian's aarch64 cross compiler and Android's log header, for the Android compile check
# (tests/runtime/test_cross_compile.py, scripts/cross_compile_check.sh) and the aarch64 build,
# qemu-user, which runs that build (tests/aarch64/), clang, which builds the sanitizer builds and
# the blob fuzzer (tests/runtime/test_sanitizers.py, test_blob_fuzzer.py, test_threads.py), and
# Debian's chromium, the headless browser that loads the delegation picture
# (tests/tools/test_graph_page_browser.py), and ccache, which keeps the compiled objects of every
# build beside the venv (use_compiler_cache);
# best effort: without root or apt those tests are skipped with that reason.
install_system_packages() {
  local need_cross=1 need_chromium=1 need_qemu=1 need_clang=1 need_ccache=1
  command -v aarch64-linux-gnu-g++ >/dev/null && [[ -f /usr/include/android/android/log.h ]] && need_cross=0
  command -v chromium >/dev/null && need_chromium=0
  command -v qemu-aarch64 >/dev/null && need_qemu=0
  command -v clang++ >/dev/null && need_clang=0
  command -v ccache >/dev/null && need_ccache=0
  (( need_cross || need_chromium || need_qemu || need_clang || need_ccache )) || return 0
  [[ "$(id -u)" == 0 ]] && command -v apt-get >/dev/null || return 0
  apt-get update -qq >/dev/null || true
  if (( need_cross )); then
    echo "== installing g++-aarch64-linux-gnu and android-liblog-dev (apt)"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq g++-aarch64-linux-gnu android-liblog-dev >/dev/null \
      || echo "== apt install failed: the aarch64 compile check will be skipped"
  fi
  if (( need_qemu )); then
    echo "== installing qemu-user (apt)"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq qemu-user >/dev/null \
      || echo "== apt install failed: the aarch64 runs under qemu will be skipped"
  fi
  if (( need_clang )); then
    echo "== installing clang and llvm (apt), for the sanitizer builds and the blob fuzzer"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq clang llvm >/dev/null \
      || echo "== apt install failed: the sanitizer and fuzz tests will be skipped"
  fi
  if (( need_ccache )); then
    echo "== installing ccache (apt)"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq ccache >/dev/null \
      || echo "== apt install failed: every build compiles from scratch"
  fi
  if (( need_chromium )); then
    echo "== installing chromium (apt)"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null \
      || echo "== apt install failed: the headless browser check of the delegation picture will be skipped"
  fi
}

# A fresh clone compiles the backend, the aarch64 build and the two sanitizer builds: ~3 minutes of
# a 2-core machine, the same sources each time. With ccache installed, every CMake build (pip's
# too: CMake reads the launcher from the environment) reuses the objects of an earlier clone from
# the cache beside the venv. CCACHE_BASEDIR makes the clone's own paths relative, so clones in
# other directories hit; CCACHE_NOHASHDIR leaves the build directory out of the key.
use_compiler_cache() {
  command -v ccache >/dev/null || return 0
  export CCACHE_DIR="${CCACHE_DIR:-$(dirname "$VENV")/ccache}" CCACHE_BASEDIR="$ROOT" CCACHE_NOHASHDIR=1
  export CCACHE_MAXSIZE="${CCACHE_MAXSIZE:-2G}"
  export CMAKE_C_COMPILER_LAUNCHER=ccache CMAKE_CXX_COMPILER_LAUNCHER=ccache
}

# What the demo runs: the venv and this package (the C++ backend, runner and host NNAPI driver).
setup_core() {
  local stamp="$VENV/.requirements.sha256"
  local want
  want="$(sha256sum "$ROOT/requirements-dev.txt" | cut -d' ' -f1)"
  if [[ ! -x "$VENV/bin/python" || ! -f "$stamp" || "$(cat "$stamp")" != "$want" ]]; then
    echo "== creating $VENV (torch + executorch: ~10 min the first time)"
    "$PYTHON" -m venv "$VENV"
    "$VENV/bin/python" -m pip install -q --upgrade pip
    "$VENV/bin/python" -m pip install -q -r "$ROOT/requirements-dev.txt"
    echo "$want" > "$stamp"
  fi
  use_compiler_cache
  echo "== building and installing executorch-nnapi"
  "$VENV/bin/python" -m pip install -q --no-build-isolation --no-deps "$ROOT"
}

# What the tests also need: the system packages (cross compiler, qemu, clang, chromium), the
# aarch64 build and the two sanitizer builds.
setup() {
  install_system_packages
  setup_core
  setup_aarch64
  PYTHON="$VENV/bin/python" "$ROOT/scripts/sanitize.sh" setup \
    || echo "== the sanitizer builds failed (scripts/sanitize.sh build address): their tests will fail"
}

# ExecuTorch's own aarch64 wheel (its runtime, kernels, XNNPACK, headers and CMake package),
# downloaded once and unpacked beside the venv, then the aarch64 backend, runner and forwarding
# NNAPI built against it. Only with the cross compiler and qemu (otherwise tests/aarch64 skip).
setup_aarch64() {
  command -v aarch64-linux-gnu-g++ >/dev/null && command -v qemu-aarch64 >/dev/null || return 0
  local sdk="$EXECUTORCH_NNAPI_AARCH64_SDK"
  if [[ ! -f "$sdk/executorch/lib/cmake/executorch/executorch-config.cmake" ]]; then
    echo "== fetching ExecuTorch $ET_VERSION's aarch64 wheel into $sdk"
    local download
    download="$(mktemp -d)"
    "$VENV/bin/python" -m pip download -q --no-deps --only-binary :all: --platform manylinux_2_28_aarch64 \
      --python-version 3.11 "executorch==$ET_VERSION" -d "$download"
    # Only the C++ part: libraries, headers, CMake package (not the Python modules).
    "$VENV/bin/python" - "$download"/executorch-*.whl "$sdk.partial" <<'PY'
import sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as wheel:
    wheel.extractall(sys.argv[2], [n for n in wheel.namelist()
                                   if n.startswith(("executorch/lib/", "executorch/include/", "executorch/share/"))])
PY
    rm -rf "$download" "$sdk"
    mv "$sdk.partial" "$sdk"
  fi
  echo "== building the aarch64 backend, runner and forwarding NNAPI (scripts/build_aarch64.sh)"
  "$ROOT/scripts/build_aarch64.sh" >/dev/null
}

cmd="${1:-test}"
shift || true
case "$cmd" in
  setup) setup ;;
  demo)
    setup_core
    out="${TMPDIR:-/tmp}/mobilenet_v2_nnapi.pte"
    "$VENV/bin/executorch-nnapi" export mobilenet_v2 -o "$out" --verify "$@"
    ;;
  test)
    setup
    cd "$ROOT"
    # One worker per core (pytest-xdist); "-n 0" as an argument runs in one process. loadgroup:
    # the tests of one whole model (xdist_group) share a worker, so the model is lowered once.
    # -m "not long": the whole-model checks of tests/long_tier.py repeat what others cover at a
    # smaller size; they run with "test-long" (the suite stays within CI's 20 minutes on 2 cores).
    "$VENV/bin/python" -m pytest -q -n auto --dist loadgroup --durations=20 -m "not long" "$@"
    ;;
  test-long)
    setup
    cd "$ROOT"
    "$VENV/bin/python" -m pytest -q -n auto --dist loadgroup --durations=20 -m long "$@"
    ;;
  conformance)
    # Android's NNAPI conformance cases on the host driver, every CTS instantiation; rewrites the
    # per-operation table of docs/op_support.md (tests/conformance/, docs/conformance.md).
    setup
    cd "$ROOT"
    "$VENV/bin/python" tests/conformance/run_conformance.py --instantiations all --markdown docs/op_support.md "$@"
    ;;
  tier-coverage)
    # Both tiers under coverage.py, one context per test, then what the default tier alone would
    # not run (scripts/tier_coverage.py; the evidence for tests/long_tier.py). ~1.5x the suite's time.
    setup
    "$VENV/bin/python" -m pip install -q -r "$ROOT/requirements-coverage.txt"
    out="$ROOT/build/tier-coverage"
    rm -rf "$out" && mkdir -p "$out"
    package="$("$VENV/bin/python" -c 'import pathlib, executorch_nnapi.lowering as l; print(pathlib.Path(l.__file__).parents[1])')"
    COVERAGE_FILE="$out/coverage" "$VENV/bin/python" -m pytest -q -n auto --dist loadgroup -p no:cacheprovider \
      --durations=0 --cov="$package" --cov-context=test --cov-report= "$@" > "$out/pytest.log" 2>&1 \
      || echo "== some tests failed: $out/pytest.log"
    "$VENV/bin/python" "$ROOT/scripts/tier_coverage.py" "$out/coverage" --durations "$out/pytest.log" | tee "$out/report.txt"
    ;;
  *) echo "usage: $0 {demo|test|test-long|tier-coverage|conformance|setup} [args...]" >&2; exit 2 ;;
esac
