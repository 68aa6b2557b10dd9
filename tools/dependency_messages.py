"""The messages torch, torchao and ExecuTorch print on a normal ``executorch-nnapi`` run, each
known by where it is raised, and what the command line shows of them at each verbosity.

    with dependency_messages.shown_at(verbosity, runs_programs=True):
        ...  # the command

At the default verbosity the known messages below are dropped (nothing else is);
``-v`` (VERBOSE) shows them all; ``-q`` (QUIET) drops every warning and log record under ERROR.
Three kinds are known:

- Python warnings, matched by category, the module they are attributed to and the message;
- records of Python loggers, matched by logger name and format string. torchao logs one while
  it is imported, before the command line is parsed: the filter installed when this module is
  imported holds such records, and ``-v`` replays them;
- lines that ExecuTorch's C++ runtime writes to file descriptor 2 (ET_LOG), matched by the
  source file that logs them.
"""

from __future__ import annotations

import contextlib
import dataclasses
import io
import logging
import os
import re
import sys
import tempfile
import warnings
from typing import Callable, Iterator, Type

__all__ = ["QUIET", "NORMAL", "VERBOSE", "KNOWN_WARNINGS", "KNOWN_LOG_RECORDS", "KNOWN_NATIVE_LINES", "shown_at"]

QUIET, NORMAL, VERBOSE = -1, 0, 1


@dataclasses.dataclass(frozen=True)
class KnownWarning:
    """A Python warning: ``category`` raised from ``module`` (a regex of the module name the
    warning is attributed to) with a message starting with ``message`` (a regex)."""

    category: Type[Warning]
    module: str
    message: str
    why: str


@dataclasses.dataclass(frozen=True)
class KnownLogRecord:
    """A record of the logger ``logger`` whose format string starts with ``message`` (a regex)."""

    logger: str
    message: str
    why: str

    def matches(self, record: logging.LogRecord) -> bool:
        return record.name == self.logger and re.match(self.message, str(record.msg)) is not None


@dataclasses.dataclass(frozen=True)
class KnownNativeLines:
    """Lines a C++ library writes to file descriptor 2 while ``trigger`` runs, each starting
    with ``prefix`` (ET_LOG puts the source file first). ``trigger`` does, once, what the
    runtime would otherwise do lazily in the middle of a command."""

    prefix: str
    trigger: Callable[[], object]
    why: str


KNOWN_WARNINGS = (
    KnownWarning(UserWarning, r"executorch\.devtools\.inspector\._inspector_utils", r"The given buffer is not writable",
                 why="the Inspector wraps the ETDump's read-only bytes in tensors with torch.frombuffer and only "
                     "reads them (executorch-nnapi debug)"),
)

KNOWN_LOG_RECORDS = (
    KnownLogRecord("torch.utils._pytree", r"%s is an Enum subclass and is now natively supported",
                   why="torchao registers its KernelPreference enum as a pytree constant when imported "
                       "(by executorch_nnapi.quantizer), which this torch deprecates"),
)


def _create_executorch_threadpool() -> object:
    from executorch.extension.pybindings.portable_lib import _threadpool_get_thread_count

    return _threadpool_get_thread_count()  # creates the threadpool on its first call


KNOWN_NATIVE_LINES = (
    KnownNativeLines("[cpuinfo_utils.cpp:", _create_executorch_threadpool,
                     why="ExecuTorch's threadpool, created when a CPU kernel (XNNPACK, quantized ops) first runs, "
                         "logs how it counted the cores, at level Info, on a build that keeps Info logs"),
)


class _HeldRecords(logging.Filter):
    """Drops the known records of one logger, keeping them for a verbose run to replay."""

    def __init__(self, known: KnownLogRecord) -> None:
        super().__init__()
        self.known = known
        self.held: list[logging.LogRecord] = []

    def filter(self, record: logging.LogRecord) -> bool:
        if self.known.matches(record):
            self.held.append(record)
            return False
        return True


# Installed on import: the records come while the command line's own imports run.
_HOLDERS = [_HeldRecords(known) for known in KNOWN_LOG_RECORDS]
for _holder in _HOLDERS:
    logging.getLogger(_holder.known.logger).addFilter(_holder)


@contextlib.contextmanager
def _held_records_shown() -> Iterator[None]:
    """Replays the held records and lets new ones through while the block runs."""
    for holder in _HOLDERS:
        logger = logging.getLogger(holder.known.logger)
        logger.removeFilter(holder)
        records, holder.held = holder.held, []
        for record in records:
            logger.handle(record)
    try:
        yield
    finally:
        for holder in _HOLDERS:
            logging.getLogger(holder.known.logger).addFilter(holder)


@contextlib.contextmanager
def _all_but_errors_dropped() -> Iterator[None]:
    previous = logging.root.manager.disable
    logging.disable(logging.WARNING)
    warnings.simplefilter("ignore")
    try:
        yield
    finally:
        logging.disable(previous)


def _run_dropping_native_lines(known: KnownNativeLines) -> None:
    """Runs ``known.trigger`` with file descriptor 2 sent to a file and ``sys.stderr`` to a string
    (ExecuTorch's Python bindings log through ``sys.stderr``), then writes back every line but
    the known ones."""
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile() as native, contextlib.redirect_stderr(io.StringIO()) as python:
        os.dup2(native.fileno(), 2)
        try:
            known.trigger()
        finally:
            os.dup2(saved, 2)
            os.close(saved)
        native.seek(0)
        native_lines = native.read().decode(errors="replace").splitlines(keepends=True)
    kept = [line for line in native_lines + python.getvalue().splitlines(keepends=True)
            if not line.startswith(known.prefix)]
    sys.stderr.write("".join(kept))


@contextlib.contextmanager
def shown_at(verbosity: int, runs_programs: bool = False) -> Iterator[None]:
    """Runs the block with the dependencies' messages shown at ``verbosity`` (QUIET, NORMAL or
    VERBOSE); ``runs_programs``: the block runs .pte programs (ExecuTorch's runtime logs then).
    The process's warning filters and logging state are restored afterwards."""
    with contextlib.ExitStack() as stack:
        stack.enter_context(warnings.catch_warnings())
        if verbosity >= VERBOSE:
            stack.enter_context(_held_records_shown())
        else:
            for holder in _HOLDERS:
                holder.held.clear()
            for known in KNOWN_WARNINGS:
                warnings.filterwarnings("ignore", message=known.message, category=known.category, module=known.module)
            if runs_programs:
                for lines in KNOWN_NATIVE_LINES:
                    _run_dropping_native_lines(lines)
            if verbosity <= QUIET:
                stack.enter_context(_all_but_errors_dropped())
        yield
