"""What the default test tier would lose by leaving tests to the long tier: per test, the lines of
this package (the installed ``executorch_nnapi``) that it runs and no test of the default tier runs.

The evidence behind tests/long_tier.py. ``scripts/dev.sh tier-coverage`` runs the whole suite
(both tiers) once under coverage.py with one context per test (pytest-cov's ``--cov-context=test``)
and then this script on the data:

    python scripts/tier_coverage.py DATA [--durations LOG] [--propose SECONDS]

- For each test of tests/long_tier.py: the lines only long tests run (none is the goal).
- With ``--durations`` (a pytest ``--durations=0`` log of a run of the default tier): the default
  tests of at least ``--propose`` seconds, slowest first, each with the lines it alone runs among
  the default tests left (a greedy pass: a test whose lines others still run could move to the
  long tier with them as its cover).

What it cannot see: C++ (the backend, the host driver's kernels), code run in a subprocess (the
CLI and example tests, the runner), and whether a result is checked; a line run is not a line
tested. It answers "would the default tier still run this code", nothing more.
"""

from __future__ import annotations

import argparse
import ast
import collections
import re
import sys
from pathlib import Path

import coverage

ROOT = Path(__file__).resolve().parents[1]


def test_of(context: str) -> str:
    """A pytest-cov context ("tests/x.py::test_y[p]@group|run") as a long_tier.LONG key ("x.py::test_y[p]"
    relative to tests/)."""
    nodeid = context.rsplit("|", 1)[0]
    nodeid = re.sub(r"@[^\[\]]*$", "", nodeid)   # pytest-xdist's loadgroup suffix
    return nodeid.removeprefix("tests/")


def body_lines(path: str) -> set[int]:
    """The lines of statements inside function bodies. A module's own lines (imports, definitions,
    class bodies, a def's line) run when it is imported, which is charged to whichever test of a
    worker imported it first: counted, they would make that test look like the only one to run them."""
    try:
        tree = ast.parse(Path(path).read_text())
    except (OSError, SyntaxError):
        return set()
    lines: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            body = node.body if isinstance(node.body, list) else [node.body]
            for statement in body:
                for inner in ast.walk(statement):
                    if isinstance(inner, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                        lines.update(d.lineno for d in inner.decorator_list)
                    elif hasattr(inner, "lineno"):
                        lines.add(inner.lineno)
    definitions = {n.lineno for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                                        ast.ClassDef))}
    return lines - definitions


def lines_by_test(data_file: str) -> dict[str, set[tuple[str, int]]]:
    """Test -> the (file, line) pairs of function bodies it ran, setup and teardown included."""
    data = coverage.CoverageData(basename=data_file)
    data.read()
    runs: dict[str, set[tuple[str, int]]] = collections.defaultdict(set)
    for path in data.measured_files():
        short = path.split("executorch_nnapi/", 1)[-1]
        bodies = body_lines(path)
        for line, contexts in data.contexts_by_lineno(path).items():
            if line not in bodies:
                continue
            for context in contexts:
                if context:
                    runs[test_of(context)].add((short, line))
    return runs


def durations(log: str) -> dict[str, float]:
    """Seconds per test (setup + call + teardown) from a ``--durations=0`` log."""
    seconds: dict[str, float] = collections.Counter()
    for line in Path(log).read_text().splitlines():
        m = re.match(r"^([0-9.]+)s (call|setup|teardown)\s+(\S.*)$", line.strip())
        if m:
            seconds[test_of(m.group(3))] += float(m.group(1))
    return seconds


def report(runs: dict[str, set], long: set[str], seconds: dict[str, float], propose: float) -> None:
    default = {t for t in runs if t not in long}
    count: collections.Counter = collections.Counter()
    for t in default:
        count.update(runs[t])
    covered = set(count)
    print(f"{len(runs)} tests with coverage: {len(default)} default, {len(runs) - len(default)} long; "
          f"{len(covered)} lines run by the default tier")
    only_long = set().union(*(runs[t] for t in long if t in runs)) - covered
    print(f"\nLines only the long tier runs: {len(only_long)}")
    for t in sorted(long):
        own = sorted(runs.get(t, set()) - covered)
        print(f"  {len(own):4d}  {t}" + ("  (no coverage recorded)" if t not in runs else ""))
        for path, line in own[:8]:
            print(f"          {path}:{line}")
    if not seconds:
        return
    print(f"\nDefault tests of {propose:.0f} s or more, slowest first: lines only each runs (greedy)")
    for t in sorted((t for t in default if seconds.get(t, 0) >= propose), key=lambda t: -seconds[t]):
        own = [key for key in runs[t] if count[key] == 1]
        if not own:
            count.subtract(runs[t])   # it could go: the tests left still run all of its lines
        print(f"  {seconds[t]:6.1f} s  {len(own):4d} lines  {t}")
        for path, line in sorted(own)[:6]:
            print(f"                         {path}:{line}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("data", help="the combined coverage data file (with per-test contexts)")
    parser.add_argument("--durations", help="a pytest --durations=0 log of the default tier")
    parser.add_argument("--propose", type=float, default=10.0, help="seconds from which a default test is weighed")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT / "tests"))
    from long_tier import LONG

    report(lines_by_test(args.data), set(LONG), durations(args.durations) if args.durations else {}, args.propose)
    return 0


if __name__ == "__main__":
    sys.exit(main())
