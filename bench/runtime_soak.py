"""Soak of the NNAPI runtime on the host driver: resident memory, open files and the driver's
live NNAPI objects over many executions and many load / free cycles (tests/runtime/test_soak.py
asserts the same bounds on a shorter run).

    python bench/runtime_soak.py                       # 10,000 executions, 1,000 cycles
    python bench/runtime_soak.py --executions 2000 --cycles 200

Prints the curve of each phase: executions of one method (a float CNN, static shapes), load /
free cycles of a program with two NNAPI subgraphs, and executions of a dynamic program over
more sizes than its compiled-model cache holds (max_cached_shapes, default 8); then the growth
after warm-up (the first 20%).
"""

from __future__ import annotations

import argparse
import pathlib
import sys
import tempfile

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "tests"))

from runtime_checks import (dynamic_over_many_sizes, growth_after_warmup, make_program, soak_executions,  # noqa: E402
                            soak_load_free)


def _print(title: str, samples) -> None:
    print(f"\n{title}\n{'count':>8} {'RSS MiB':>9} {'open fds':>9} {'live NNAPI objects':>19}")
    for s in samples:
        print(f"{s.count:>8} {s.rss_kb / 1024:>9.1f} {s.open_fds:>9} {s.live_nnapi_objects:>19}")
    rss, fds, live = growth_after_warmup(samples)
    print(f"after warm-up: RSS {100 * rss:+.2f}%, open fds {fds:+d}, live NNAPI objects {live:+d}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--executions", type=int, default=10_000)
    parser.add_argument("--cycles", type=int, default=1_000)
    parser.add_argument("--samples", type=int, default=20)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        directory = pathlib.Path(tmp)
        _print(f"{args.executions} executions of one method (float CNN)",
               soak_executions(make_program("float", directory), args.executions, args.samples))
        _print(f"{args.cycles} load / run / free cycles of a program with two NNAPI subgraphs",
               soak_load_free(make_program("two_subgraphs", directory), args.cycles, args.samples))
        _print(f"{args.executions // 10} executions of a dynamic program over 20 sizes (its cache holds 8 "
               "compiled models, 2 NNAPI objects each)",
               soak_executions(dynamic_over_many_sizes(directory), args.executions // 10, args.samples))


if __name__ == "__main__":
    main()
