"""The NNAPI backend from several threads at once (runtime/checks/thread_check.cpp, through
ExecuTorch's Module as an app or the runner calls it), built with ThreadSanitizer: four threads
each load their own program (float, 8-bit, dynamic, a llama with a KV cache) and run it with
inputs of their own, two more run the two methods of one program (Methods loaded from one Program: a Module is not thread-safe), while another
loads, runs and frees a program of two NNAPI subgraphs over and over. Every output is
bit-identical to the same executions on one thread, nothing crashes, no sanitizer report, no
deadlock (the check exits after its timeout; the test's own timeout backs it up).

The suite runs ITERATIONS executions per thread; scripts/thread_check.sh runs the full 200 under
ThreadSanitizer and under ASan + UBSan (figures in docs/sanitizers.md). Two threads sharing one
method are not run: ExecuTorch's Method is not thread-safe (docs/sanitizers.md).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from runtime_checks import run_sanitized, sanitizer_build, write_thread_manifest

pytestmark = pytest.mark.xdist_group("runtime_checks")

ITERATIONS = int(os.environ.get("EXECUTORCH_NNAPI_THREAD_ITERATIONS", "8"))
SANITIZER = os.environ.get("EXECUTORCH_NNAPI_THREAD_SANITIZER", "thread")
TIMEOUT = 900


def test_programs_on_their_own_threads_while_another_loads_and_frees(check_program, tmp_path):
    build = sanitizer_build(SANITIZER)
    programs = [(name, check_program(name, seed=s), "forward", "")
                for s, name in enumerate(["float", "int8", "dynamic", "llama"])]
    two_methods = check_program("two_methods", seed=4)
    cond = type(two_methods)("cond", two_methods.pte, check_program("control_flow", seed=5).runs)  # CondNet's inputs
    programs += [("two_methods.forward", two_methods, "forward", "one"), ("two_methods.cond", cond, "cond", "one")]
    manifest = write_thread_manifest(tmp_path / "threads.txt", programs, [check_program("two_subgraphs")], ITERATIONS,
                                     TIMEOUT)
    result = run_sanitized([build / "runtime" / "checks" / "nnapi_thread_check", manifest], build,
                           timeout=TIMEOUT + 600, check=False)
    assert result.returncode == 0, result.stdout + result.stderr[-3000:]
    for name, *_ in programs:
        assert f"thread {name}: {ITERATIONS} executions, {ITERATIONS} bit-identical" in result.stdout, result.stdout
    assert int(re.search(r"churn thread: (\d+) load", result.stdout).group(1)) >= 1, result.stdout
    print(result.stdout)


# Run in a process of its own: what went wrong with Python threads showed only when the process
# exited (runtime/method_selection.py, _executorch_calls).
_PYTHON_THREADS = """
import sys, threading
from pathlib import Path
import torch
from runtime_checks import make_program
from executorch_nnapi.runtime import load_method

programs = [make_program(name, Path(sys.argv[1]), seed=10 + s) for s, name in enumerate(["float", "dynamic"])]
expected = [[load_method(p.pte).execute(run)[0].clone() for run in p.runs] for p in programs]
results = {}

def work(i):
    method = load_method(programs[i].pte)
    runs = programs[i].runs
    results[i] = [method.execute(runs[k % len(runs)])[0].clone() for k in range(2 * len(runs))]

threads = [threading.Thread(target=work, args=(i,)) for i in range(len(programs))]
for t in threads:
    t.start()
for t in threads:
    t.join(timeout=300)
    assert not t.is_alive(), "a Python thread did not finish in 300 s (a deadlock?)"
for i, program in enumerate(programs):
    assert len(results[i]) == 2 * len(program.runs)
    assert all(torch.equal(got, expected[i][k % len(program.runs)]) for k, got in enumerate(results[i]))
print("identical")
"""


def test_python_threads_each_with_their_own_method(check_program, tmp_path):
    # ExecuTorch's pybindings hold the GIL through Method.execute (measured: another Python thread
    # barely runs meanwhile; docs/sanitizers.md), except where the host driver's Python runs inside
    # a call, so Python threads take turns. Each must get its own results, and the process must
    # exit cleanly.
    directory = check_program("float").pte.parent
    check_program("dynamic")
    tests_dir = str(Path(__file__).resolve().parents[1])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([tests_dir, os.environ.get("PYTHONPATH", "")])}
    script = tmp_path / "python_threads.py"  # a file: under -c the broken stream happened not to crash
    script.write_text(_PYTHON_THREADS)
    result = subprocess.run([sys.executable, str(script), str(directory)], capture_output=True, text=True,
                            timeout=600, env=env)
    assert result.returncode == 0 and "identical" in result.stdout, (result.returncode, result.stderr[-3000:])
