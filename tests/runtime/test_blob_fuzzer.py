"""The delegate blob reader's libFuzzer target (runtime/checks/blob_fuzzer.cpp: what
NnapiBackend::init does with a blob before its first NNAPI call), built with ASan + UBSan.

The seed corpus (runtime/checks/blob_corpus/: the blobs of the check programs) and every crash
reproducer kept in runtime/checks/blob_crashes/ replay without a report, and a short fuzzing run
finds no crash. A crash's input is written to runtime/checks/blob_crashes/ (named in the failure),
so that the replay keeps it as a regression test once committed with the fix. Longer runs:
scripts/fuzz_blob.sh SECONDS (figures in docs/sanitizers.md).
"""

from __future__ import annotations

import re

import pytest

from runtime_checks import ROOT, run_sanitized, sanitizer_build

pytestmark = pytest.mark.xdist_group("runtime_checks")

SEEDS = ROOT / "runtime" / "checks" / "blob_corpus"
CRASHES = ROOT / "runtime" / "checks" / "blob_crashes"
FUZZ_SECONDS = 10


@pytest.fixture(scope="module")
def fuzzer():
    build = sanitizer_build("address")
    return build, build / "runtime" / "checks" / "nnapi_blob_fuzzer"


def test_seed_corpus_and_crash_reproducers_replay_without_a_report(fuzzer):
    build, binary = fuzzer
    seeds, crashes = sorted(SEEDS.glob("*.blob")), sorted(CRASHES.glob("*.blob"))
    assert len(seeds) >= 6 and crashes
    # Given as files, libFuzzer runs each input once (and names each).
    result = run_sanitized([binary, *seeds, *crashes], build, timeout=120)
    assert result.stderr.count("Running: ") == len(seeds) + len(crashes)


def test_a_short_fuzzing_run_finds_no_crash(fuzzer, tmp_path):
    build, binary = fuzzer
    # libFuzzer's RSS limit reads the peak RSS (getrusage), which Linux carries across execve: a
    # child of this pytest worker (GBs after the model tests) would start "out of memory". The
    # malloc limit still stops any one allocation over 2 GB (how the arange bug showed); leaks are
    # LeakSanitizer's.
    result = run_sanitized([binary, f"-max_total_time={FUZZ_SECONDS}", "-print_final_stats=1",
                            "-rss_limit_mb=0", "-malloc_limit_mb=2048",
                            f"-artifact_prefix={CRASHES}/", tmp_path, SEEDS, CRASHES], build,
                           timeout=FUZZ_SECONDS + 120)
    executions = int(re.search(r"stat::number_of_executed_units: (\d+)", result.stderr).group(1))
    edges = int(re.findall(r" cov: (\d+)", result.stderr)[-1])
    print(f"blob fuzzer: {executions} executions in {FUZZ_SECONDS} s, {edges} edges")
    assert executions > 1000 and edges > 1000
