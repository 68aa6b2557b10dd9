"""Stages of long work: shown with their elapsed time on a terminal, nothing when piped."""

from __future__ import annotations

import io
import os
import pty
import re
import select
import subprocess
import sys
import time

import pytest

from executorch_nnapi.tools import progress as progress_module
from executorch_nnapi.tools.progress import Progress

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # tests/: cli_models.py
STAGE_DONE = re.compile(r"executorch-nnapi export: (\w+) +(\d+\.\d) s done")


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_stages_on_a_terminal_show_their_time_and_tick():
    stream = _Terminal()
    progress = Progress(stream, prefix="tool: ")
    with progress.stage("export"):
        time.sleep(progress_module.TICK_SECONDS * 2.5)
    progress.start("partition")
    progress.start("lower")  # ends partition
    progress.finish()
    text = stream.getvalue()
    lines = text.split("\n")
    assert [m.group(1) for m in re.finditer(r"tool: (\w+) +\d+\.\d s done", text)] == ["export", "partition", "lower"]
    assert lines[0].count("...") >= 2  # the export line was redrawn while it ran
    assert [name for name, _ in progress.timings] == ["export", "partition", "lower"]
    assert progress.timings[0][1] >= progress_module.TICK_SECONDS * 2.5
    assert progress.current is None


def test_a_stage_that_raises_ends_as_failed():
    stream = _Terminal()
    progress = Progress(stream)
    with pytest.raises(SystemExit):
        with progress.stage("export"):
            raise SystemExit("error: bad model")
    assert re.search(r"export +\d+\.\d s failed\n$", stream.getvalue())


def test_not_a_terminal_writes_nothing_but_keeps_the_timings(capsys):
    stream = io.StringIO()
    progress = Progress(stream)
    assert not progress.enabled
    with progress.stage("export"):
        progress.print("a line of the command's output")
    assert stream.getvalue() == ""
    assert capsys.readouterr().out == "a line of the command's output\n"
    assert [name for name, _ in progress.timings] == ["export"]


EXPORT = [sys.executable, "-m", "executorch_nnapi.tools.cli", "export", "cli_models:conv_exp_conv",
          "--input-shape", "1,3,16,16", "--quantize", "--calibration", "cli_models:calibration_inputs", "--verify"]


def _env() -> dict[str, str]:
    return dict(os.environ, PYTHONPATH=os.pathsep.join([HERE, os.environ.get("PYTHONPATH", "")]))


def _run_with_terminal_stderr(argv: list[str]) -> tuple[int, str, str]:
    """Runs ``argv`` with stderr on a pseudo-terminal and stdout piped: (code, stdout, terminal)."""
    leader, follower = pty.openpty()
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=follower, stdin=subprocess.DEVNULL, env=_env())
    os.close(follower)
    received = bytearray()
    while True:
        ready, _, _ = select.select([leader], [], [], 1.0)
        if ready:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # the child closed the terminal
                break
            if not chunk:
                break
            received += chunk
        elif process.poll() is not None:
            break
    stdout = process.stdout.read().decode()
    code = process.wait(timeout=600)
    os.close(leader)
    return code, stdout, received.decode(errors="replace")


def test_export_shows_its_stages_on_a_terminal(tmp_path):
    code, stdout, terminal = _run_with_terminal_stderr(EXPORT + ["-o", str(tmp_path / "q.pte")])
    assert code == 0, stdout + terminal
    stages = [m.group(1) for m in STAGE_DONE.finditer(terminal)]
    # The model is exported, quantized, exported again (convert_pt2e's), lowered, written and verified.
    assert stages == ["export", "quantize", "export", "partition", "lower", "serialize", "verify"]
    assert "\x1b[K" in terminal
    assert "verify: PASS" in stdout and "wrote " in stdout  # the command's own output is unchanged


def test_export_is_quiet_when_piped(tmp_path, capsys, monkeypatch):
    """In this process (a second interpreter's imports would be most of the time): pytest's capture
    is no terminal, as a pipe is not."""
    from executorch_nnapi.tools.cli import main

    monkeypatch.syspath_prepend(HERE)
    assert not sys.stderr.isatty()
    code = main(["export", "cli_models:small_cnn", "--input-shape", "1,3,16,16", "--verify",
                 "-o", str(tmp_path / "m.pte")])
    stdout, stderr = capsys.readouterr()
    assert code == 0, stdout + stderr
    assert "verify: PASS" in stdout
    assert STAGE_DONE.search(stderr) is None and "\x1b[K" not in stderr + stdout
