"""Whole torchvision transformers exported with dynamic H and W over wide ranges, lowered
with NnapiPartitioner and run on the host driver at several sizes, against eager.

    python bench/dynamic_models.py                 # every model below
    python bench/dynamic_models.py swin_v2_t_wide
    python bench/dynamic_models.py --markdown      # also into docs/benchmarks.md (benchmark_page.py)

These are the longest lowerings we know of (torch.export alone takes ~2 min on swin_v2_t's
symbolic window sizes on a 2-core machine), so they live here rather than in the test suite.
What they once caught is tested there on small models: a partition after a CPU op that
sees its size only through window grids padded at three scales (swin_v2_t, s = 14) is
tests/lowering/test_dynamic_symbols.py's `several monotone sizes` and `two scales` tests;
swin_t with dynamic H and W in one subgraph is tests/models/test_transformer_models.py.
"""

from __future__ import annotations

import argparse
import dataclasses
import pathlib
import sys
import time
from typing import Callable

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import benchmark_page  # noqa: E402  (first: it reads the load average as the run starts)
import torch  # noqa: E402
from torch.export import Dim, export  # noqa: E402

from executorch.exir import to_edge_transform_and_lower
from executorch.runtime import Runtime

import executorch_nnapi.runtime  # noqa: F401  (NnapiBackend + host driver)
from executorch_nnapi.partitioners import NnapiPartitioner

from zoo_benchmark import _delegation_counts, print_table


@dataclasses.dataclass(frozen=True)
class Case:
    build: Callable[[], torch.nn.Module]
    example_hw: tuple[int, int]
    step: int                   # H and W are step * k for k in [lo, hi]
    k_range: tuple[int, int]
    run_hw: tuple[tuple[int, int], ...]


def _torchvision(name: str) -> Callable[[], torch.nn.Module]:
    def build() -> torch.nn.Module:
        import torchvision
        torch.manual_seed(0)
        return torchvision.models.get_model(name, weights=None).eval()
    return build


# torch.export fixes Swin's per-stage branches at the example size: the ranges and run sizes are
# ones where the exported program equals eager (checked with ep.module()).
CASES = {
    "swin_v2_t_wide": Case(_torchvision("swin_v2_t"), (224, 224), 16, (1, 16), ((224, 224), (192, 160))),
    "swin_t": Case(_torchvision("swin_t"), (224, 224), 32, (4, 7), ((224, 224), (128, 160), (192, 128))),
    "convnext_tiny": Case(_torchvision("convnext_tiny"), (64, 64), 32, (2, 8), ((64, 64), (96, 64), (256, 256))),
}
HEADER = ["model", "H, W", "export s", "lower s", "subgraphs", "CPU ops", "sizes run", "max rel. error"]
NOTES = """Whole torchvision transformers (random weights) exported with dynamic H and W over wide
ranges, lowered with NnapiPartitioner (feature level 30) and run on the host NNAPI driver at
several sizes. *export s*: torch.export alone; *lower s*: to_edge_transform_and_lower and
to_executorch; *subgraphs*, *CPU ops*: delegated subgraphs and ops left on the CPU; *max rel.
error*: the largest output difference against eager torch over the sizes run, relative to the
output's largest magnitude."""


@dataclasses.dataclass
class Row:
    model: str
    hw_range: str
    export_s: float
    lower_s: float
    subgraphs: int
    cpu_ops: int
    sizes: str
    error: float

    def cells(self) -> list[str]:
        return [self.model, self.hw_range, f"{self.export_s:.0f}", f"{self.lower_s:.0f}", str(self.subgraphs),
                str(self.cpu_ops), self.sizes, f"{self.error:.1e}"]


def measure(name: str) -> Row:
    case = CASES[name]
    model = case.build()
    x = torch.randn(1, 3, *case.example_hw, generator=torch.Generator().manual_seed(0))
    lo, hi = case.k_range
    hw = {2: case.step * Dim("kh", min=lo, max=hi), 3: case.step * Dim("kw", min=lo, max=hi)}
    t0 = time.perf_counter()
    ep = export(model, (x,), dynamic_shapes=(hw,))
    t1 = time.perf_counter()
    edge = to_edge_transform_and_lower(ep, partitioner=[NnapiPartitioner(feature_level=30)])
    pte = edge.to_executorch().buffer
    t2 = time.perf_counter()
    program = Runtime.get().load_program(pte)
    method = program.load_method("forward")
    error = 0.0
    for size in case.run_hw:
        xs = torch.randn(1, 3, *size, generator=torch.Generator().manual_seed(1))
        (got,) = method.execute([xs])
        with torch.no_grad():
            want = model(xs)
        if got.shape != want.shape:
            raise AssertionError(f"at {size}: shape {tuple(got.shape)}, eager {tuple(want.shape)}")
        error = max(error, ((got - want).abs().max() / want.abs().max()).item())
    return Row(name, f"{case.step}k, k in [{lo}, {hi}]", t1 - t0, t2 - t1, *_delegation_counts(edge),
               ", ".join(f"{h}x{w}" for h, w in case.run_hw), error)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("models", nargs="*", help=f"any of {', '.join(CASES)} (default: all)")
    benchmark_page.add_markdown_option(parser)
    args = parser.parse_args()
    unknown = sorted(set(args.models) - set(CASES))
    if unknown:
        parser.error(f"unknown model(s) {', '.join(unknown)}; expected any of {', '.join(CASES)}")
    table = print_table(HEADER, [(name, lambda name=name: measure(name)) for name in args.models or CASES])
    benchmark_page.write_if_asked(args, "dynamic-models",
                                  "Transformers with dynamic H and W over wide ranges", NOTES, table)


if __name__ == "__main__":
    main()
