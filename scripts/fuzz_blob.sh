#!/usr/bin/env bash
# Fuzzes the delegate blob reader (runtime/checks/blob_fuzzer.cpp: what NnapiBackend::init does
# with a blob before its first NNAPI call) under ASan + UBSan with libFuzzer.
#
#   scripts/fuzz_blob.sh [SECONDS] [libFuzzer flags...]     default 60 seconds, all cores
#
# Starts from the seed corpus runtime/checks/blob_corpus/ (scripts/make_blob_corpus.py) and the
# crash reproducers runtime/checks/blob_crashes/; inputs that reach new code go to
# build/blob_fuzz_corpus/ (kept between runs, not in the repository). A crashing input is written
# to runtime/checks/blob_crashes/, where tests/runtime/test_blob_fuzzer.py replays it on every
# run of the suite: commit it with the fix. Prints the executions and the edges reached.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SECONDS_TO_RUN="${1:-60}"
shift || true
BUILD="$("$ROOT/scripts/sanitize.sh" build address)"
FUZZER="$BUILD/runtime/checks/nnapi_blob_fuzzer"
CORPUS="$ROOT/build/blob_fuzz_corpus"
CRASHES="$ROOT/runtime/checks/blob_crashes"
mkdir -p "$CORPUS"
JOBS="$(nproc)"
LOG="$ROOT/build/blob_fuzz.log"
# One process per core (-fork), each reporting into the log; -ignore_crashes=0: stop at the first.
ASAN_OPTIONS="detect_leaks=1:halt_on_error=1" UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1" \
  "$FUZZER" -max_total_time="$SECONDS_TO_RUN" -fork="$JOBS" -print_final_stats=1 \
  -artifact_prefix="$CRASHES/" "$@" "$CORPUS" "$ROOT/runtime/checks/blob_corpus" "$CRASHES" 2>"$LOG" \
  || { grep -E "ERROR|runtime error|#0 |#1 |#2 |Test unit written" "$LOG" | head -20; echo "crash: see $LOG" >&2; exit 1; }
# The fork mode's last progress line: "#<executions>: cov: ... time: <seconds>s ...".
grep -E "^#[0-9]+: cov: " "$LOG" | tail -1 \
  | sed -E 's/^#([0-9]+): .* exec\/s ([0-9]+) .* time: ([0-9]+)s.*/executions: \1 in \3 s (\2 per second at the end)/'
# The edges the corpus (old and new inputs) reaches, of all the instrumented ones.
"$FUZZER" -runs=0 "$CORPUS" "$ROOT/runtime/checks/blob_corpus" "$CRASHES" 2>&1 \
  | sed -nE 's/.*Loaded 1 PC tables \(([0-9]+) PCs\).*/\1/p; s/.*INITED cov: ([0-9]+) .*corp: ([0-9]+).*/\1 \2/p' \
  | paste -sd' ' | awk '{print "edges reached by the corpus: " $2 " of " $1 " instrumented (" $3 " inputs)"}'
