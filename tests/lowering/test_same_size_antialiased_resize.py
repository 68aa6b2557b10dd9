"""An antialiased resize to the size it reads (timm's test_vit resamples its constant position
embedding to its own size with ``F.interpolate(..., mode="bicubic", antialias=True)`` on every
call; issue 42's sweep): a copy, rewritten as a ``clone`` before partitioning
(lowering/passes/composite_ops.py). torch has no core decomposition of these ops, so such a node
left undelegated stopped ``to_edge`` (SpecViolationError) for every backend. Lowered: one NNAPI
subgraph, run on the host driver and compared with eager; a real resize is left as it was.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch.export import export

from op_harness import Lambda, check_delegated_and_matches
from executorch_nnapi.lowering.passes.composite_ops import decompose_composites

RESIZES = (torch.ops.aten._upsample_bicubic2d_aa.vec, torch.ops.aten._upsample_bilinear2d_aa.vec)


class PositionEmbedding(torch.nn.Module):
    """timm's ``resample_abs_pos_embed`` while exporting (its same-size early exit is skipped then):
    the class token's embedding apart, the rest as a grid resized to its own size and put back;
    and a computed grid resized likewise with the other filter."""

    def __init__(self) -> None:
        super().__init__()
        self.pos_embed = torch.nn.Parameter(torch.randn(1, 1 + 5 * 5, 8))

    def forward(self, tokens: torch.Tensor, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        prefix, grid = self.pos_embed[:, :1], self.pos_embed[:, 1:]
        grid = grid.reshape(1, 5, 5, -1).permute(0, 3, 1, 2)
        grid = F.interpolate(grid, size=[5, 5], mode="bicubic", align_corners=None, antialias=True)
        grid = grid.permute(0, 2, 3, 1).reshape(1, -1, 8)
        y = F.interpolate(torch.relu(x), size=x.shape[-2:], mode="bilinear", antialias=True)
        return tokens + torch.cat([prefix, grid], dim=1), x + y


def test_same_size_resizes_are_copies_and_delegated() -> None:
    torch.manual_seed(0)
    low = check_delegated_and_matches(PositionEmbedding(), (torch.randn(2, 26, 8), torch.randn(2, 3, 5, 5)),
                                      tolerance=1e-6)
    assert low.num_delegates == 1


def test_same_size_resizes_become_clones() -> None:
    program = export(PositionEmbedding(), (torch.randn(2, 26, 8), torch.randn(2, 3, 5, 5)))
    assert decompose_composites(program) == 2
    assert not [n for n in program.graph.nodes if n.target in RESIZES]


def test_real_resize_is_left_as_it_was() -> None:
    shrink = Lambda(lambda x: F.interpolate(x, size=(3, 4), mode="bicubic", antialias=True))
    program = export(shrink, (torch.randn(1, 2, 6, 8),))
    assert decompose_composites(program) == 0
    assert [n for n in program.graph.nodes if n.target in RESIZES]
