"""F.interpolate(..., antialias=True), bicubic and bilinear (aten._upsample_*_aa; timm's
resample_abs_pos_embed with dynamic_img_size, issue 42's sweep): constant matrices per axis read
from PyTorch's own kernel (lowering/builders/upsample_antialiased.py), one FULLY_CONNECTED per
resized axis. The matrices against PyTorch without NNAPI over random sizes (size-1 axes
included, which PyTorch's kernel treats apart), then lowered, one NNAPI subgraph with no CPU op,
run on the host driver and compared with eager.

Tolerance 1e-5 of the result's max: the kernel's own weights, summed in float32 in another order.
"""

from __future__ import annotations

import random

import pytest
import torch
import torch.nn.functional as F

from op_harness import Lambda, check_delegated_and_matches

from executorch_nnapi.lowering.builders.upsample_antialiased import antialiased_matrices, separable_mismatch

TOLERANCE = 1e-5
aten = torch.ops.aten
PROBES = {"bicubic": aten._upsample_bicubic2d_aa.default, "bilinear": aten._upsample_bilinear2d_aa.default}


@pytest.mark.parametrize("mode", list(PROBES))
def test_matrices_are_pytorchs_kernel(mode) -> None:
    """M_h . X . M_w^T equals F.interpolate for random sizes (1 to 12, up and down, by size and by
    scale factor, with and without align_corners), and the lowering-time check agrees."""
    rng = random.Random(0)
    for _ in range(120):
        h, w = rng.randint(1, 12), rng.randint(1, 12)
        aligned = rng.random() < 0.3
        x = torch.randn(2, 3, h, w)
        if rng.random() < 0.7:
            out_hw, scales = (rng.randint(1, 12), rng.randint(1, 12)), None
            want = F.interpolate(x, size=out_hw, mode=mode, antialias=True, align_corners=aligned)
        else:
            scales = (rng.choice([0.4, 0.75, 1.5, 2.0]), rng.choice([0.5, 1.25, 3.0]))
            if int(h * scales[0]) < 1 or int(w * scales[1]) < 1:
                continue
            want = F.interpolate(x, scale_factor=scales, mode=mode, antialias=True, align_corners=aligned)
            out_hw = tuple(want.shape[2:])
        matrices = antialiased_matrices(PROBES[mode], (h, w), out_hw, aligned, scales)
        got = torch.einsum("oh,nchw,pw->ncop", matrices[0], x, matrices[1])
        assert (got - want).abs().max() <= TOLERANCE * want.abs().max(), (h, w, out_hw, scales, aligned)
        assert separable_mismatch(PROBES[mode], matrices, aligned, scales) < TOLERANCE


class PositionEmbedding(torch.nn.Module):
    """A ViT's position embedding resized to the image's patch grid (a constant computation read
    by the add: folded inside the delegate) and an image antialiased down (computed by NNAPI)."""

    def __init__(self) -> None:
        super().__init__()
        self.pos = torch.nn.Parameter(torch.randn(1, 4, 6, 6, generator=torch.Generator().manual_seed(0)))

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        embedded = x + F.interpolate(self.pos, size=x.shape[-2:], mode="bicubic", antialias=True)
        return embedded, F.interpolate(x, scale_factor=0.37, mode="bilinear", antialias=True)


CASES = [
    ("bicubic_down_and_up", Lambda(lambda x: F.interpolate(x, size=(5, 17), mode="bicubic", antialias=True)),
     (1, 3, 16, 12), ["FULLY_CONNECTED", "RESHAPE", "TRANSPOSE"] * 2),
    # A width of 1 kept: the height's product alone (the other moves are RESHAPEs).
    ("bilinear_one_wide", Lambda(lambda x: F.interpolate(x, size=(14, 1), mode="bilinear", antialias=True,
                                                         align_corners=True)),
     (2, 3, 7, 1), ["RESHAPE", "FULLY_CONNECTED", "RESHAPE", "RESHAPE"]),
    ("position_embedding", PositionEmbedding(), (1, 4, 9, 5), None),
]


@pytest.mark.parametrize("name,module,shape,operations", CASES, ids=[c[0] for c in CASES])
def test_antialiased_resize(name, module, shape, operations) -> None:
    torch.manual_seed(0)
    low = check_delegated_and_matches(module, (torch.randn(*shape),), run_inputs=[(torch.randn(*shape) * 3,)],
                                      tolerance=TOLERANCE)
    assert low.num_delegates == 1
    if operations is not None:
        assert low.nnapi_operations == operations
    else:
        assert low.nnapi_operations.count("FULLY_CONNECTED") == 2      # the image's; the embedding is folded
