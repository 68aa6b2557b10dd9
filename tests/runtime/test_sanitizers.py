"""nnapi_executor_runner built with AddressSanitizer + UndefinedBehaviorSanitizer (backend, runner
and host shim instrumented; scripts/sanitize.sh build address) on a float, an 8-bit, a dynamic and
a control-flow program: no sanitizer report (LeakSanitizer included, with only the embedded
interpreter's allocations suppressed: runtime/checks/lsan_python.supp), and the outputs of the
Python runtime on the same inputs. A report fails the test with its first frame.

The suite runs the ASan + UBSan runner; EXECUTORCH_NNAPI_RUNNER_SANITIZERS="address thread" (what
scripts/sanitize.sh runner does) adds the ThreadSanitizer build's runner. scripts/sanitize.sh
runtime-tests runs the rest of tests/runtime in a Python process under the ASan build
(docs/sanitizers.md has the figures).
"""

from __future__ import annotations

import os

import pytest
import torch

from runtime_checks import (python_runtime_outputs, read_runner_outputs, run_sanitized, sanitizer_build,
                            sanitizer_report, write_inputs)

pytestmark = pytest.mark.xdist_group("runtime_checks")


SANITIZERS = os.environ.get("EXECUTORCH_NNAPI_RUNNER_SANITIZERS", "address").split()


@pytest.mark.parametrize("kind", SANITIZERS)
@pytest.mark.parametrize("name,run", [("float", 0), ("int8", 0), ("dynamic", 1), ("control_flow", 1)])
def test_runner_under_sanitizers(kind, check_program, tmp_path, name, run):
    build = sanitizer_build(kind)
    program = check_program(name)
    inputs = program.runs[run]  # dynamic: not the export's size; control flow: the else branch
    (input_args,) = write_inputs([inputs], tmp_path, name)
    out = tmp_path / "out"
    out.mkdir()
    argv = [build / "runtime" / "nnapi_executor_runner", "--model", program.pte, "--iters", "2",
            "--warmup", "1", "--output-dir", out]
    for arg in input_args:
        argv += ["--input", arg]
    result = run_sanitized(argv, build, timeout=600)
    assert "latency over 2 iterations" in result.stdout
    (expected,) = python_runtime_outputs(program, [inputs])
    got = read_runner_outputs(out)
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        torch.testing.assert_close(g, e, rtol=1e-5, atol=1e-6)


def test_a_sanitizer_report_is_named_with_its_first_frame():
    # The reports the checks look for, as the sanitizers print them.
    asan = ("=================================================================\n"
            "==123==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x602000000018 at pc 0x1 bp 0x2\n"
            "READ of size 4 at 0x602000000018 thread T0\n"
            "    #0 0x55d in executorch_nnapi::LoadedBlob::operand_dims(...) runtime/src/loaded_blob.cpp:57:9\n"
            "    #1 0x55e in main\n")
    assert sanitizer_report(asan) == ("AddressSanitizer: heap-buffer-overflow on address 0x602000000018 at pc 0x1 "
                                      "bp 0x2 | first frame: #0 0x55d in executorch_nnapi::LoadedBlob::operand_dims"
                                      "(...) runtime/src/loaded_blob.cpp:57:9")
    ubsan = "runtime/src/layout.cpp:40:12: runtime error: signed integer overflow: 2147483647 + 1\n    #0 0x1 in f\n"
    assert sanitizer_report(ubsan).startswith("runtime/src/layout.cpp:40:12: runtime error: signed integer overflow")
    tsan = "==================\nWARNING: ThreadSanitizer: data race (pid=7)\n  Write of size 4 at 0x1 by thread T2:\n" \
           "    #0 worker check.cpp:4:56 (a+0x1)\n"
    assert sanitizer_report(tsan) == "ThreadSanitizer: data race (pid=7) | first frame: #0 worker check.cpp:4:56 (a+0x1)"
    lsan = ("==9==ERROR: LeakSanitizer: detected memory leaks\n\nDirect leak of 8 byte(s)\n"
            "    #0 0x1 in operator new(unsigned long)\n    #1 0x2 in executorch_nnapi::load_blob(...) blob_reader.cpp:30\n")
    assert sanitizer_report(lsan) == ("LeakSanitizer: detected memory leaks | first frame: "
                                      "#1 0x2 in executorch_nnapi::load_blob(...) blob_reader.cpp:30")
    assert sanitizer_report("error: something else\n") is None
