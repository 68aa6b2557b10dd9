"""aten._upsample_bicubic2d_aa / _upsample_bilinear2d_aa (``F.interpolate(..., antialias=True)``)
-> one FULLY_CONNECTED per resized axis with constant weights, as upsample_bicubic2d.py.

timm's ``resample_abs_pos_embed`` resizes a ViT's position embeddings this way on every call
with ``dynamic_img_size=True`` (test_vit in issue 42's sweep); the ops are not core ATen and no
portable CPU kernel has the bicubic one, so a program holding it lowers nowhere unless a backend
takes it (XNNPACK does not: to_edge stops with a SpecViolationError); the bilinear one runs on the
CPU otherwise.

The form: with static sizes the antialiased resize is linear and separable (PyTorch computes it
as one 1-D pass per axis, each output a normalized weighted sum of a window of inputs whose
width grows with the downscaling factor; bicubic with A = -0.5, not upsample_bicubic2d's -0.75).
Each axis's [out, in] matrix is read from PyTorch's own kernel at lowering time, applied to the
one-hot inputs of that axis in its own position, constant along the other axis: column i is the
weights input i gets, exactly as the kernel uses them. The other axis is 2 samples in and out,
or 1 where the node's is 1: the kernel treats a size-1 axis apart (with a width of 1 its
vertical pass differs from the one it makes on wider images), so a probe one sample wide gives
other weights than an image of any other width. ``check`` then compares M_h . X . M_w^T with the
kernel on a random X of the node's sizes and refuses beyond 1e-5. The products run in float32
in another order than the kernel's two passes: equal within float32 rounding.

Kept whole through to_edge (``keep=True``); refused with dynamic sizes or a matrix over 2^24
elements (the bicubic one then has no CPU kernel: ``cpu_kernel=False``). 8 bits: stays float.
"""

from __future__ import annotations

from typing import Any, Optional, Sequence

import torch
from torch.fx import Node

from ..lowering_context import LoweringContext
from ..nnapi_codes import FeatureLevel
from ..node_utils import aten_op, op_name, tensor_shape
from ..shape_program import is_static
from .node_builder import CheckContext, LayoutClass, NodeBuilder, OpSupport, Refused
from .pool_utils import check_pool_input
from .quantization import stays_float
from .registry import register_builder
from .upsample_bicubic2d import HEIGHT, MAX_MATRIX_ELEMENTS, WIDTH, emit_axis_matrices

aten = torch.ops.aten

# The largest relative difference from PyTorch's kernel accepted for the matrices (float32
# rounding of other summation orders is ~1e-7).
SEPARABLE_TOLERANCE = 1e-5
# Each overload, with the one that takes an explicit output size and per-axis scales (the probe).
# ``.vec`` (F.interpolate's) decomposes into ``.default`` where it is not kept whole.
_PROBES = {aten._upsample_bicubic2d_aa.vec: aten._upsample_bicubic2d_aa.default,
           aten._upsample_bicubic2d_aa.default: aten._upsample_bicubic2d_aa.default,
           aten._upsample_bilinear2d_aa.vec: aten._upsample_bilinear2d_aa.default,
           aten._upsample_bilinear2d_aa.default: aten._upsample_bilinear2d_aa.default}


# Those ExecuTorch's portable CPU kernels have (the bicubic one has none).
_PORTABLE = (aten._upsample_bilinear2d_aa.vec, aten._upsample_bilinear2d_aa.default)


def _align_corners(node: Node) -> bool:
    return bool(node.args[2] if len(node.args) > 2 else node.kwargs.get("align_corners", False))


def _scale_factors(node: Node) -> Optional[Sequence[Optional[float]]]:
    """(scale_h, scale_w) as given to the node (None: mapped by in / out)."""
    if aten_op(node) in (aten._upsample_bicubic2d_aa.default, aten._upsample_bilinear2d_aa.default):
        names = ("scales_h", "scales_w")
        scales = [node.args[3 + i] if len(node.args) > 3 + i else node.kwargs.get(name) for i, name in enumerate(names)]
        return scales if any(s is not None for s in scales) else None
    scales = node.args[3] if len(node.args) > 3 else node.kwargs.get("scale_factors")
    return list(scales) if scales else None


def _probe_size(size: int) -> int:
    """The other axis's size in a probe: 1 stays 1 (PyTorch's kernel treats a size-1 axis apart),
    any other is 2."""
    return 1 if size == 1 else 2


def antialiased_matrices(probe: Any, in_hw: Sequence[int], out_hw: Sequence[int], align_corners: bool,
                         scales: Optional[Sequence[Optional[float]]] = None) -> tuple[torch.Tensor, torch.Tensor]:
    """(M_h, M_w), the [out, in] float32 matrices with ``out = M_h @ X @ M_w^T`` as PyTorch's
    ``probe`` kernel (``_upsample_*_aa.default``) computes it: per axis, its output for the
    one-hot inputs along that axis in its own position, constant along the other axis (whose
    normalized weights keep a constant), that axis 1 or 2 samples in and out as it is 1 or more."""
    (h, w), (oh, ow) = in_hw, out_hw
    scale_h, scale_w = scales if scales else (None, None)
    rows = torch.eye(h, dtype=torch.float32).reshape(h, 1, h, 1).expand(h, 1, h, _probe_size(w)).contiguous()
    by_row = probe(rows, [oh, _probe_size(ow)], align_corners, scale_h, None)[:, 0, :, 0]
    cols = torch.eye(w, dtype=torch.float32).reshape(w, 1, 1, w).expand(w, 1, _probe_size(h), w).contiguous()
    by_col = probe(cols, [_probe_size(oh), ow], align_corners, None, scale_w)[:, 0, 0, :]
    return by_row.t().contiguous(), by_col.t().contiguous()


def separable_mismatch(probe: Any, matrices: tuple[torch.Tensor, torch.Tensor], align_corners: bool,
                       scales: Optional[Sequence[Optional[float]]] = None) -> float:
    """The relative max difference between M_h . X . M_w^T and PyTorch's kernel on a random X."""
    m_h, m_w = matrices
    x = torch.randn(1, 1, m_h.shape[1], m_w.shape[1], generator=torch.Generator().manual_seed(0))
    want = probe(x, [m_h.shape[0], m_w.shape[0]], align_corners, *(scales or (None, None)))[0, 0]
    got = m_h @ x[0, 0] @ m_w.t()
    return float((got - want).abs().max() / want.abs().max().clamp(min=1e-6))


def _matrices(node: Node, in_hw: Sequence[int], out_hw: Sequence[int]) -> tuple[torch.Tensor, torch.Tensor]:
    scales = _scale_factors(node)
    return antialiased_matrices(_PROBES[aten_op(node)], in_hw, out_hw, _align_corners(node), scales)


@register_builder
class UpsampleAntialiasedBuilder(NodeBuilder):
    ops = tuple(
        OpSupport(op, FeatureLevel.ANDROID_9, "FULLY_CONNECTED per resized axis (constant weights read from "
                  "PyTorch's kernel) + TRANSPOSE / RESHAPE",
                  "float32, 4-D; static height and width (input and output); each axis' out x in weight matrix "
                  "at most 2^24 elements", keep=True, cpu_kernel=op in _PORTABLE,
                  quantized=stays_float("antialiased resizing would need a requantizing matrix product per axis; "
                                        "resampled in float32"))
        for op in _PROBES)
    layout = LayoutClass.PYTORCH

    def check(self, node: Node, ctx: CheckContext) -> None:
        x = node.args[0]
        what = op_name(node.target)
        check_pool_input(node, x, what)
        for axis, size, out in zip(("height", "width"), tensor_shape(x)[2:], tensor_shape(node)[2:]):
            if not (is_static(size) and is_static(out)):
                raise Refused(f"{what} with a dynamic {axis} ({size} -> {out}): its weights are constants "
                              "computed from static sizes")
            if int(size) * int(out) > MAX_MATRIX_ELEMENTS:
                raise Refused(f"{what} of {axis} {size} -> {out}: its {out}x{size} weight matrix exceeds 2^24 "
                              "elements (64 MiB of constants)")
        in_hw, out_hw = [int(d) for d in tensor_shape(x)[2:]], [int(d) for d in tensor_shape(node)[2:]]
        mismatch = separable_mismatch(_PROBES[aten_op(node)], _matrices(node, in_hw, out_hw), _align_corners(node),
                                      _scale_factors(node))
        if mismatch > SEPARABLE_TOLERANCE:
            raise Refused(f"{what} from {in_hw} to {out_hw}: PyTorch's kernel is not one matrix per axis at these "
                          f"sizes (relative difference {mismatch:.1e})")

    def define(self, node: Node, lc: LoweringContext) -> None:
        in_hw = [int(d) for d in lc.shape(node.args[0])[2:]]
        m_h, m_w = _matrices(node, in_hw, [int(d) for d in lc.shape(node)[2:]])
        emit_axis_matrices(lc, node, {HEIGHT: m_h, WIDTH: m_w})


__all__ = ["antialiased_matrices", "separable_mismatch"]
