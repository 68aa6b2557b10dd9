"""A normal run of the command line prints nothing on stderr; -v shows the dependencies' known
warnings, -q only errors (tools/dependency_messages.py)."""

from __future__ import annotations

import json
import logging
import os
import pathlib
import re
import subprocess
import sys
import warnings

import pytest

from executorch_nnapi.tools import dependency_messages
from executorch_nnapi.tools.cli import main

TESTS = pathlib.Path(__file__).resolve().parents[1]
PYTREE_DEPRECATION = "<enum 'KernelPreference'> is an Enum subclass"


# Runs main() for each command line given in argv (a JSON list of lists), in this order, in a
# fresh interpreter (as the console script does), marking on stderr where each command starts.
_COMMANDS_IN_ONE_PROCESS = """
import json, sys
from executorch_nnapi.tools.cli import main
for argv in json.loads(sys.argv[1]):
    sys.stderr.write(f"<<{' '.join(argv)}>>\\n")
    sys.stderr.flush()
    if main(argv) != 0:
        raise SystemExit(f"{argv} failed")
"""


def _stderr_by_command(commands: list[list[str]]) -> tuple[str, dict[str, str]]:
    """(stdout, {command line: what it wrote on stderr, with the imports' for the first})."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(TESTS), os.environ.get("PYTHONPATH", "")])}
    result = subprocess.run([sys.executable, "-c", _COMMANDS_IN_ONE_PROCESS, json.dumps(commands)],
                            capture_output=True, text=True, stdin=subprocess.DEVNULL, env=env, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    parts = re.split(r"<<(.*)>>\n", result.stderr)
    imports, sections = parts[0], dict(zip(parts[1::2], parts[2::2]))
    sections[" ".join(commands[0])] = imports + sections[" ".join(commands[0])]
    return result.stdout, sections


def test_export_ops_and_debug_print_nothing_on_stderr(tmp_path):
    """In one fresh interpreter (imports, torchao's import-time deprecation, the threadpool's and
    the Inspector's first-time messages all happen once per process): -v ops shows the
    deprecation; then export (with a forward_cpu method on XNNPACK, whose threadpool logs when it
    is created), ops and debug (the Inspector warns about read-only buffers) print nothing on
    stderr."""
    pte, etrecord = str(tmp_path / "m.pte"), str(tmp_path / "m.etrecord")
    commands = [["-v", "ops"],
                ["export", "cli_models:small_cnn", "-o", pte, "--input-shape", "1,3,16,16", "--cpu-method", "xnnpack",
                 "--verify", "--etrecord", etrecord],
                ["ops"],
                ["debug", pte, "--etrecord", etrecord]]
    stdout, stderr = _stderr_by_command(commands)
    assert "| `aten.convolution.default` |" in stdout
    assert "verify: PASS" in stdout and "no divergent operation" in stdout
    assert PYTREE_DEPRECATION in stderr["-v ops"]
    assert {line: text for line, text in stderr.items() if line != "-v ops"} == {
        " ".join(argv): "" for argv in commands[1:]}


def test_quiet_export_prints_nothing_and_its_report_only_when_it_fails(tmp_path, capsys, monkeypatch):
    monkeypatch.syspath_prepend(str(TESTS))
    argv = ["export", "-q", "cli_models:with_erf", "-o", str(tmp_path / "e.pte"), "--input-shape", "1,3,8,8",
            "--verify"]
    assert main(argv) == 0
    assert capsys.readouterr() == ("", "")
    assert main(argv + ["--tolerance", "0"]) == 1  # a tolerance nothing meets: verify fails
    out, err = capsys.readouterr()
    assert out == "" and "verify: FAIL" in err and "aten.erf.default -- NNAPI has no erf operation" in err


def test_only_the_known_warnings_are_dropped():
    known = dependency_messages.KNOWN_WARNINGS[0]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with dependency_messages.shown_at(dependency_messages.NORMAL):
            warnings.warn_explicit(known.message, known.category, "_inspector_utils.py", 1,
                                   module="executorch.devtools.inspector._inspector_utils")
            warnings.warn_explicit(known.message, known.category, "elsewhere.py", 1, module="elsewhere")
            warnings.warn_explicit("something else", known.category, "_inspector_utils.py", 1,
                                   module="executorch.devtools.inspector._inspector_utils")
        with dependency_messages.shown_at(dependency_messages.VERBOSE):
            warnings.warn_explicit(known.message, known.category, "_inspector_utils.py", 1,
                                   module="executorch.devtools.inspector._inspector_utils")
        with dependency_messages.shown_at(dependency_messages.QUIET):
            warnings.warn_explicit("anything", UserWarning, "elsewhere.py", 1, module="elsewhere")
    assert [(str(w.message), w.filename) for w in caught] == [
        (known.message, "elsewhere.py"), ("something else", "_inspector_utils.py"),
        (known.message, "_inspector_utils.py")]


def test_known_log_records_are_held_and_replayed_with_verbose(caplog):
    known = dependency_messages.KNOWN_LOG_RECORDS[0]
    logger = logging.getLogger(known.logger)
    # The handler on the logger itself: torch's loggers do not always propagate to the root, where
    # pytest 8's caplog listens (pytest 9 put it on the named logger).
    logger.addHandler(caplog.handler)
    with caplog.at_level(logging.WARNING, logger=known.logger):
        logger.warning(known.message.replace("\\", "") + " (a test)", "<enum 'E'>")
        logger.warning("another warning of the same logger")
        assert [r.getMessage() for r in caplog.records] == ["another warning of the same logger"]
        with dependency_messages.shown_at(dependency_messages.VERBOSE):
            logger.warning(known.message.replace("\\", "") + " (while verbose)", "<enum 'F'>")
        logger.warning(known.message.replace("\\", "") + " (after)", "<enum 'G'>")
    assert [r.getMessage() for r in caplog.records] == [
        "another warning of the same logger",
        "<enum 'E'> is an Enum subclass and is now natively supported (a test)",
        "<enum 'F'> is an Enum subclass and is now natively supported (while verbose)"]
    logger.removeHandler(caplog.handler)
    with dependency_messages.shown_at(dependency_messages.NORMAL):
        pass  # a normal run forgets what was held
    assert not any(holder.held for holder in dependency_messages._HOLDERS)
