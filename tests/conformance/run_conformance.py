"""Android's NNAPI conformance cases on the host driver: one command, a table per operation.

    python tests/conformance/run_conformance.py                 # every case, lifetime variations included
    python tests/conformance/run_conformance.py --ops CONV_2D -v  # one operation, each failure printed
    python tests/conformance/run_conformance.py --markdown docs/op_support.md   # rewrite the table there

Cases come from the vendored AOSP specs (spec_cases.py) and run through the NNAPI C API of the
host shim as CTS runs them (cts_runner.py), at the feature level given (30: Android 11, the
level the specs of V1_3 were written for). Exit status 1 when any case fails.
"""

from __future__ import annotations

import argparse
import collections
import os
import sys
import time
from pathlib import Path
from typing import Iterable, Optional, Sequence

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent)]

from spec_cases import Case, load_cases  # noqa: E402

# The feature level each spec folder was written for (a run at a lower level takes the folders up to it).
FOLDER_LEVEL = {"V1_0": 27, "V1_1": 28, "V1_2": 29, "V1_3": 30}

TABLE_START = "<!-- conformance-table: start (written by tests/conformance/run_conformance.py) -->"
TABLE_END = "<!-- conformance-table: end -->"
SECTION = """## The host driver against Android's conformance tests

Android's generated NNAPI conformance cases (AOSP android11-release, specs V1_0-V1_3) on the host
driver at feature level 30, per operation under test (the one making the model's last output),
under every CTS instantiation the driver has the feature for; a case passes when every run of
it passes. How they run: [conformance.md](conformance.md). Rewritten by
`scripts/dev.sh conformance`.

"""


def select(cases: Iterable[Case], ops: Optional[set[str]] = None, specs: Optional[set[str]] = None,
           lifetime: bool = True) -> list[Case]:
    """The cases of ``ops`` (operation under test) and ``specs`` ("V1_2/conv2d_v1_2"), with or
    without the lifetime variations."""
    return [c for c in cases if (not ops or c.operation in ops) and (not specs or c.spec in specs)
            and (lifetime or not c.lifetime)]


BASE = ("GeneratedTests", "GeneratedValidationTests")


def run(cases: list[Case], level: int = 30, instantiations: Sequence[str] = BASE, verbose: bool = False,
        lib=None) -> dict:
    """Runs ``cases`` in this process under each of CTS's ``instantiations`` that selects them
    (variants.INSTANTIATIONS), on ``lib`` (the shim, opened at ``level`` when not given);
    returns {case name: Outcome}, a case failing if any of its runs failed."""
    from nnapi_client import open_shim
    from cts_runner import declare_extra_signatures
    from variants import INSTANTIATIONS

    lib = lib or open_shim(level)
    declare_extra_signatures(lib)
    results = {}
    for case in cases:
        # The instantiations that run the case as it is, declared alike, share one built model.
        shared: dict[bool, list[tuple[str, object]]] = {}
        for name in instantiations:
            selects, convert, mode = INSTANTIATIONS[name]
            if not selects(case):
                continue
            converted = convert(case)
            if converted is case:
                shared.setdefault(mode.dynamic_outputs, []).append((name, mode))
            else:
                _record(results, case, _run_modes(lib, converted, [(name, mode)]), verbose)
        for runs in shared.values():
            _record(results, case, _run_modes(lib, case, runs), verbose)
    return results


def _record(results: dict, case: Case, outcomes: list[tuple[str, object]], verbose: bool) -> None:
    for name, outcome in outcomes:
        if case.name not in results or not outcome.passed:
            results[case.name] = outcome
        if verbose and not outcome.passed:
            print(f"FAIL {name} {case.name} [{case.operation}] {outcome.status}: {outcome.message}", flush=True)


def _run_modes(lib, case: Case, runs: list[tuple[str, object]]) -> list[tuple[str, object]]:
    """(instantiation, Outcome) for each of ``runs`` (instantiation, Mode) on one built model."""
    from cts_runner import Outcome, run_case_modes
    try:
        outcomes = run_case_modes(lib, case, [mode for _, mode in runs])
    except Exception as e:  # a harness or driver bug must show as a failing case, not end the run
        outcomes = [Outcome(False, "crash", f"{type(e).__name__}: {e}") for _ in runs]
    for (name, _), outcome in zip(runs, outcomes):
        if not outcome.passed:
            outcome.message = f"{name}: {outcome.message}"
    return [(name, outcome) for (name, _), outcome in zip(runs, outcomes)]


def table(cases: list[Case], results: dict) -> str:
    """Markdown: per operation under test, its cases (with and without lifetime variations) and passes."""
    rows = collections.defaultdict(lambda: [0, 0, 0, 0])
    for c in (c for c in cases if c.name in results):
        r = rows[c.operation]
        ok = results[c.name].passed
        r[0] += 1
        r[1] += ok
        if not c.lifetime:
            r[2] += 1
            r[3] += ok
    lines = ["| NNAPI operation | cases | passed | with lifetime variations | passed |", "|---|---|---|---|---|"]
    for op in sorted(rows):
        total, passed, plain, plain_passed = rows[op]
        lines.append(f"| {op} | {plain} | {plain_passed} | {total} | {passed} |")
    t = [sum(r[i] for r in rows.values()) for i in range(4)]
    lines.append(f"| **all** | **{t[2]}** | **{t[3]}** | **{t[0]}** | **{t[1]}** |")
    return "\n".join(lines)


def write_markdown(path: Path, text: str) -> None:
    """Replaces the table between the markers in ``path`` (appends a section the first time)."""
    doc = path.read_text() if path.exists() else ""
    block = f"{TABLE_START}\n{text}\n{TABLE_END}"
    if TABLE_START in doc:
        head, rest = doc.split(TABLE_START, 1)
        doc = head + block + rest.split(TABLE_END, 1)[1]
    else:
        doc = doc.rstrip() + "\n\n" + SECTION + block + "\n"
    path.write_text(doc)


def main(argv: Optional[list[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ops", help="comma-separated operations under test (e.g. CONV_2D,LSTM)")
    ap.add_argument("--specs", help="comma-separated spec names (e.g. V1_2/conv2d_v1_2)")
    ap.add_argument("--level", type=int, default=30, help="the host driver's feature level (default 30)")
    ap.add_argument("--no-lifetime", action="store_true", help="leave out the lifetime variations")
    ap.add_argument("--instantiations", default=",".join(BASE),
                    help="CTS's instantiations to run (variants.INSTANTIATIONS; 'all' for every one); "
                         "default: GeneratedTests,GeneratedValidationTests")
    ap.add_argument("--markdown", type=Path, help="write the per-operation table into this Markdown file")
    ap.add_argument("-v", "--verbose", action="store_true", help="print every failing case")
    args = ap.parse_args(argv)
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    cases = select(load_cases(), set(filter(None, (args.ops or "").split(","))),
                   set(filter(None, (args.specs or "").split(","))), not args.no_lifetime)
    cases = [c for c in cases if FOLDER_LEVEL[c.spec.split("/")[0]] <= args.level]
    from variants import INSTANTIATIONS
    names = list(INSTANTIATIONS) if args.instantiations == "all" else args.instantiations.split(",")
    start = time.time()
    results = run(cases, args.level, names, args.verbose)
    cases = [c for c in cases if c.name in results]
    text = table(cases, results)
    print(text)
    statuses = collections.Counter(r.status for r in results.values())
    print(f"{len(cases)} cases in {time.time() - start:.0f} s: " + ", ".join(f"{k} {v}" for k, v in sorted(statuses.items())))
    problems = validation(cases, args.level, args.verbose)
    print(f"operation validation (AOSP TestValidateOperations' procedure): {len(problems)} failure(s)")
    if args.markdown:
        write_markdown(args.markdown, text)
    return 0 if all(r.passed for r in results.values()) and not problems else 1


def validation(cases: list[Case], level: int = 30, verbose: bool = False, lib=None) -> list[str]:
    """AOSP's operation validation procedure on every operand signature of ``cases``."""
    from nnapi_client import open_shim
    from cts_runner import declare_extra_signatures
    from operation_validation import check, signatures

    lib = lib or open_shim(level)
    declare_extra_signatures(lib)
    problems = [p for sig in signatures(cases) for p in check(lib, sig)]
    if verbose:
        for p in problems:
            print("VALIDATION", p)
    return problems


if __name__ == "__main__":
    sys.exit(main())
