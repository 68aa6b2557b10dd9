"""docs/benchmarks.md, written by the benchmarks: each script's ``--markdown`` replaces its own
section of the page (between its markers) with the table it just measured, under a stamp of
the run (the command line, the commit, the CPU, its cores and their load).

    import benchmark_page                      # first: the load average is read at import
    ...
    benchmark_page.add_markdown_option(parser)
    table = print_table(HEADER, rows)          # zoo_benchmark.print_table returns the lines
    benchmark_page.write_if_asked(args, "zoo", "torchvision models", NOTES, table)

A section is refreshed by re-running its command, never edited by hand.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib.metadata
import os
import pathlib
import platform
import re
import shlex
import subprocess
import sys
from typing import Sequence

__all__ = ["RunStamp", "START", "DEFAULT_PAGE", "add_markdown_option", "write_if_asked", "write_section"]

ROOT = pathlib.Path(__file__).resolve().parents[1]
DEFAULT_PAGE = ROOT / "docs" / "benchmarks.md"
# A run is stamped as made on a loaded machine when more than this share of the cores was busy
# (1-minute load average) as it started: its times then include waiting for a core.
LOADED_SHARE = 0.5

PAGE_HEADER = """# Benchmarks

Every section of this page is written by a script in `bench/` run with `--markdown`: the stamp
under each title says which command made it, at which commit, on which CPU and how loaded that
machine was when the run started. Re-run the command to refresh a section; do not edit the page
by hand (the next run would overwrite the edit). Times measured on a loaded machine include
waiting for a core: compare them only with times of the same run.
"""


def _git(*args: str) -> str:
    try:
        return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return ""


def _cpu_model() -> str:
    try:
        for line in pathlib.Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _version(distribution: str) -> str:
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


@dataclasses.dataclass(frozen=True)
class RunStamp:
    """Where and when a benchmark ran, taken as it started."""

    command: str
    commit: str
    uncommitted: bool
    cpu: str
    cores: int
    load_at_start: float
    versions: str

    @classmethod
    def now(cls) -> "RunStamp":
        relative = os.path.relpath(os.path.abspath(sys.argv[0]), ROOT) if sys.argv and sys.argv[0] else "?"
        return cls(command=shlex.join(["python", relative, *sys.argv[1:]]),
                   commit=_git("rev-parse", "--short=10", "HEAD") or "unknown",
                   # The page itself does not count: an earlier run may just have written it.
                   uncommitted=bool(_git("status", "--porcelain", "--untracked-files=no", "--", ".",
                                         f":!{DEFAULT_PAGE.relative_to(ROOT)}")),
                   cpu=_cpu_model(), cores=os.cpu_count() or 1, load_at_start=os.getloadavg()[0],
                   versions=", ".join(f"{name} {_version(name)}" for name in ("torch", "executorch")))

    @property
    def loaded(self) -> bool:
        """More than LOADED_SHARE of the cores were busy when the run started."""
        return self.load_at_start > LOADED_SHARE * self.cores

    def markdown(self) -> str:
        """The stamp as a quoted paragraph; a loaded machine is said so in bold."""
        commit = f"`{self.commit}`" + (" with uncommitted changes" if self.uncommitted else "")
        load = f"load average {self.load_at_start:.2f} at start (1 min), {os.getloadavg()[0]:.2f} at the end"
        lines = [f"> Written by `{self.command}`",
                 f"> at commit {commit}; {self.versions}.",
                 f"> {self.cpu}, {self.cores} cores; {load}."]
        if self.loaded:
            lines.append(f"> **Loaded machine: more than {LOADED_SHARE:g} x {self.cores} cores were busy when the run "
                         "started (other work was running); its times include waiting for a core.**")
        return "\n".join(lines)


START = RunStamp.now()
"""The stamp of this process's run, taken when this module is first imported."""


def add_markdown_option(parser: argparse.ArgumentParser) -> None:
    """``--markdown``: also write the table into docs/benchmarks.md (or ``--markdown-page``)."""
    parser.add_argument("--markdown", action="store_true",
                        help=f"also write the table into this script's section of {DEFAULT_PAGE.relative_to(ROOT)}, "
                             "replacing the section's last run")
    parser.add_argument("--markdown-page", type=pathlib.Path, default=DEFAULT_PAGE, metavar="PAGE",
                        help="with --markdown: the page to write instead")


def write_if_asked(args: argparse.Namespace, section: str, title: str, notes: str, table: Sequence[str]) -> None:
    """With ``--markdown``: ``write_section`` into the page of ``--markdown-page``."""
    if args.markdown:
        write_section(args.markdown_page, section, title, notes, table)


def _markers(section: str) -> tuple[str, str]:
    return f"<!-- bench:{section} begin -->", f"<!-- bench:{section} end -->"


def section_text(section: str, title: str, notes: str, table: Sequence[str], stamp: RunStamp = START) -> str:
    """One section: its markers, its title, the stamp, the notes (what the columns measure) and the table."""
    begin, end = _markers(section)
    parts = [begin, f"## {title}", stamp.markdown()]
    if notes.strip():
        parts.append(notes.strip())
    parts.append("\n".join(table))
    parts.append(end)
    return "\n\n".join(parts)


def write_section(page: pathlib.Path, section: str, title: str, notes: str, table: Sequence[str],
                  stamp: RunStamp = START) -> None:
    """Replaces ``section`` of ``page`` (between its markers) with this run's table, or appends
    the section if the page has none yet; creates the page if needed."""
    page = pathlib.Path(page)
    text = page.read_text() if page.exists() else PAGE_HEADER
    new = section_text(section, title, notes, table, stamp)
    begin, end = _markers(section)
    pattern = re.compile(re.escape(begin) + r".*?" + re.escape(end), re.DOTALL)
    if pattern.search(text):
        text = pattern.sub(lambda _: new, text, count=1)
    else:
        text = text.rstrip("\n") + "\n\n" + new
    page.write_text(text.rstrip("\n") + "\n")
    print(f"wrote the section '{section}' of {page}")
