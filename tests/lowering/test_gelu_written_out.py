"""A GELU written out with erf (transformers' gelu_python in SEW-D and VideoPrism, ESM's gelu;
issue 42's sweep): found by its algebra in any usual spelling and made one aten.gelu before
partitioning (lowering/passes/written_out_gelu.py), so no erf is left on the CPU. Lowered, one
NNAPI subgraph with no CPU op, run on the host driver and compared with eager; erf used in any
other way is left as it is.

Tolerance 1e-6 of the result's max over [-8, 8]: builders/gelu.py is within 1e-7·max(1, |x|)
of the exact GELU; the written-out form in eager rounds 1 + erf near -1 (a few 1e-7 absolute).
"""

from __future__ import annotations

import math

import torch
from torch.export import export

from op_harness import check_delegated_and_matches
from executorch_nnapi.lowering.passes.composite_ops import decompose_composites

ERF = torch.ops.aten.erf.default
GELU = torch.ops.aten.gelu.default


class Spellings(torch.nn.Module):
    """The same GELU four ways, each after a linear layer (its input computed inside NNAPI)."""

    def __init__(self) -> None:
        super().__init__()
        self.linear = torch.nn.Linear(6, 6)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, ...]:
        y = self.linear(x)
        return (y * 0.5 * (1.0 + torch.erf(y / math.sqrt(2.0))),
                0.5 * y * (1 + torch.erf(y * 0.7071067811865476)),
                y * (torch.erf(y / 1.4142135623730951) + 1) / 2,
                0.5 * (y * (1.0 + torch.erf(y / math.sqrt(2.0)))))


class NotGelu(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, ...]:
        shared = torch.erf(x / math.sqrt(2.0))
        return (x * 0.5 * (1.0 + torch.erf(x / 2.0)),           # erf of x / 2
                x * 0.25 * (1.0 + torch.erf(x / math.sqrt(2.0))),  # half of GELU
                x * 0.5 * (1.0 + shared), shared)                # the erf read elsewhere too


def test_written_out_gelus_are_one_subgraph() -> None:
    torch.manual_seed(0)
    model = Spellings().eval()
    x = torch.linspace(-8, 8, 36).reshape(6, 6)
    low = check_delegated_and_matches(model, (torch.eye(6) * 3 + x,), run_inputs=[(x,)], tolerance=1e-6)
    assert low.num_delegates == 1 and low.nnapi_operations.count("EXP") == 4      # one exact GELU each


def test_other_uses_of_erf_are_left_as_they_are() -> None:
    spellings = export(Spellings(), (torch.randn(2, 6),))
    assert decompose_composites(spellings) >= 4
    targets = [n.target for n in spellings.graph.nodes]
    assert targets.count(GELU) == 4 and ERF not in targets
    other = export(NotGelu(), (torch.randn(2, 6),))
    decompose_composites(other)
    targets = [n.target for n in other.graph.nodes]
    assert targets.count(ERF) == 3 and GELU not in targets
