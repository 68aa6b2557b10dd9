"""Stages of long work (export, quantize, partition, lower, serialize, verify) with elapsed time.

On a terminal each stage shows one line on stderr that counts its seconds while it runs and
keeps its final time when it ends; when stderr is not a terminal (piped, redirected, a test's
capture) nothing is written, so the command's output stays what it was.

    progress = Progress()                 # enabled iff stderr is a terminal
    with progress.stage("export"):
        ep = torch.export.export(model, args)
    progress.start("partition")           # or move from stage to stage without a block
    ...
    progress.start("lower")               # ends "partition"
    progress.finish()
"""

from __future__ import annotations

import contextlib
import sys
import threading
import time
from typing import Iterator, Optional, TextIO

__all__ = ["Progress"]

TICK_SECONDS = 0.5


class Progress:
    """Shows the current stage and its elapsed time on a terminal (see the module docstring).

    Args:
        stream: where to write; default ``sys.stderr``.
        enabled: show the stages; default: whether ``stream`` is a terminal.
        prefix: put before each stage's name, e.g. the command's name.
    """

    def __init__(self, stream: Optional[TextIO] = None, enabled: Optional[bool] = None, prefix: str = "") -> None:
        self.stream = stream if stream is not None else sys.stderr
        if enabled is None:
            isatty = getattr(self.stream, "isatty", None)
            enabled = bool(isatty and isatty())
        self.enabled = enabled
        self.prefix = prefix
        self.timings: list[tuple[str, float]] = []
        """(stage, seconds) of each finished stage, kept whether or not it was shown."""
        self._stage: Optional[str] = None
        self._started = 0.0
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._ticker: Optional[threading.Thread] = None

    @property
    def current(self) -> Optional[str]:
        """The stage running now, or None."""
        return self._stage

    def start(self, stage: str) -> None:
        """Ends the current stage, if any, and starts ``stage``."""
        self.finish()
        with self._lock:
            self._stage, self._started = stage, time.perf_counter()
            self._write(final=False)
        if self.enabled:
            self._stop.clear()
            self._ticker = threading.Thread(target=self._tick, name="progress", daemon=True)
            self._ticker.start()

    def finish(self, failed: bool = False) -> None:
        """Ends the current stage (its line keeps its final time, and "failed" if it did);
        nothing if none runs."""
        if self._ticker is not None:
            self._stop.set()
            self._ticker.join()
            self._ticker = None
        with self._lock:
            if self._stage is None:
                return
            self.timings.append((self._stage, time.perf_counter() - self._started))
            self._write(final=True, failed=failed)
            self._stage = None

    @contextlib.contextmanager
    def stage(self, stage: str) -> Iterator[None]:
        """Runs the block as ``stage``; the stage ends with the block, also on an exception."""
        self.start(stage)
        try:
            yield
        except BaseException:
            self.finish(failed=True)
            raise
        self.finish()

    def print(self, *values: object) -> None:
        """``print(*values)`` to stdout without mixing it into the stage's line: the line is
        cleared first and redrawn on the next tick."""
        with self._lock:
            if self.enabled and self._stage is not None:
                self.stream.write("\r\x1b[K")
                self.stream.flush()
            print(*values, flush=True)

    def _tick(self) -> None:
        while not self._stop.wait(TICK_SECONDS):
            with self._lock:
                if self._stage is not None:
                    self._write(final=False)

    def _write(self, final: bool, failed: bool = False) -> None:
        if not self.enabled or self._stage is None:
            return
        elapsed = time.perf_counter() - self._started
        mark = ("failed" if failed else "done") if final else "..."
        # \r + erase-line rewrites the stage's line in place; the final write ends it.
        self.stream.write(f"\r\x1b[K{self.prefix}{self._stage:<10} {elapsed:6.1f} s {mark}" + ("\n" if final else ""))
        self.stream.flush()
