#!/usr/bin/env bash
# Runs a .pte with the aarch64 build of the delegate, without a phone: ExecuTorch's own aarch64
# runtime and kernels (its wheel), our backend and nnapi_executor_runner built for aarch64, under
# qemu-aarch64. NNAPI is the forwarding libneuralnetworks.so, which the backend dlopens from the
# library path as on a phone; it forwards every call to the NNAPI server on this machine (the
# host driver). A server already listening is used; otherwise one is started for the run.
#
# usage: scripts/run_aarch64.sh MODEL.pte [nnapi_executor_runner args...]
#   e.g. scripts/run_aarch64.sh /tmp/mobilenet_v2_nnapi.pte --iters 5 --output-dir /tmp/out
# environment:
#   EXECUTORCH_NNAPI_SERVER              the server's socket (default executorch-nnapi.sock in
#                                        $XDG_RUNTIME_DIR, else in $TMPDIR/executorch-nnapi-<uid>/, a 0700 directory)
#   EXECUTORCH_NNAPI_HOST_FEATURE_LEVEL  the feature level of a server started here (default 30)
#   EXECUTORCH_NNAPI_SERVER_TIMEOUT_MS   how long an NNAPI call waits for the server (default 60000)
#   EXECUTORCH_NNAPI_VENV                the venv (default ~/.cache/executorch-nnapi/venv)
# Set up first with scripts/dev.sh setup (the venv, the aarch64 wheel, the aarch64 build).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${EXECUTORCH_NNAPI_VENV:-$HOME/.cache/executorch-nnapi/venv}"
BUILD="$ROOT/build/aarch64-linux-gnu"
# The server's own default (a private directory, made 0700 and checked; docs/forwarding_protocol.md).
SOCKET="${EXECUTORCH_NNAPI_SERVER:-$("$VENV/bin/python" -c 'from executorch_nnapi.host_driver.forwarding_server import default_socket_path; print(default_socket_path(create=True))')}"

[[ $# -ge 1 && -f "$1" ]] || { echo "usage: $0 MODEL.pte [nnapi_executor_runner args...]" >&2; exit 2; }
MODEL="$1"
shift
command -v qemu-aarch64 >/dev/null || { echo "qemu-aarch64 not found (apt-get install qemu-user)" >&2; exit 2; }
"$ROOT/scripts/build_aarch64.sh" "$BUILD" >/dev/null

server_pid=""
if ! "$VENV/bin/python" -c "import socket, sys; socket.socket(socket.AF_UNIX).connect(sys.argv[1])" "$SOCKET" 2>/dev/null; then
  log="$(mktemp)"
  # One torch thread unless told otherwise (mobilenet_v2 on a loaded 2-core machine: 0.1 s a run
  # with one, 1.5 s with torch's default).
  OMP_NUM_THREADS="${OMP_NUM_THREADS:-1}" \
    "$VENV/bin/python" -m executorch_nnapi.host_driver.forwarding_server --socket "$SOCKET" >"$log" 2>&1 &
  server_pid=$!
  trap 'kill "$server_pid" 2>/dev/null; wait "$server_pid" 2>/dev/null; rm -f "$log"' EXIT
  for _ in $(seq 1200); do   # importing torch takes a few seconds
    grep -q "listening on" "$log" && break
    kill -0 "$server_pid" 2>/dev/null || { cat "$log" >&2; exit 1; }
    sleep 0.1
  done
  grep -q "listening on" "$log" || { echo "the NNAPI server did not start:" >&2; cat "$log" >&2; exit 1; }
fi

guest_env=(-E "LD_LIBRARY_PATH=$BUILD/host_driver/forwarding" -E "EXECUTORCH_NNAPI_SERVER=$SOCKET")
[[ -n "${EXECUTORCH_NNAPI_SERVER_TIMEOUT_MS:-}" ]] \
  && guest_env+=(-E "EXECUTORCH_NNAPI_SERVER_TIMEOUT_MS=$EXECUTORCH_NNAPI_SERVER_TIMEOUT_MS")
status=0
qemu-aarch64 -L /usr/aarch64-linux-gnu "${guest_env[@]}" "$BUILD/runtime/nnapi_executor_runner" \
  --model "$MODEL" "$@" || status=$?
exit "$status"
