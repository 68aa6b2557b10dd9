"""Filter and bias operands of CONV_2D / DEPTHWISE / GROUPED / TRANSPOSE_CONV_2D /
FULLY_CONNECTED: float constants, or (inside a QuantizedOpUnit) the convert_pt2e
codes stored once as int8 / uint8 / int32 with NNAPI's parameters (docs/nnapi_facts.md §3, §8)."""

from __future__ import annotations

import dataclasses
from typing import Any, Sequence

import torch

from ..lowering_context import LoweringContext
from ..nnapi_codes import OperandCode
from ..node_utils import is_dequantize, is_per_channel


@dataclasses.dataclass(frozen=True)
class QuantizedConstant:
    """A constant's integer codes and scales (``axis`` None: one scale for the tensor)."""

    codes: torch.Tensor
    scales: torch.Tensor
    zero_point: int
    axis: int | None


def quantized_constant(lc: LoweringContext, node: Any) -> QuantizedConstant | None:
    """The codes behind ``node`` if it dequantizes a constant (a convert_pt2e weight or bias)."""
    if not is_dequantize(node) or not lc.is_constant(node.args[0]):
        return None
    codes = lc.constant(node.args[0])
    if is_per_channel(node):
        scales = lc.constant(node.args[1]).to(torch.float32).reshape(-1)
        return QuantizedConstant(codes, scales, 0, int(node.args[3]))
    return QuantizedConstant(codes, torch.tensor([float(node.args[1])]), int(node.args[2]), None)


def weight_operand(lc: LoweringContext, weight_node: Any, weight: torch.Tensor, perm: Sequence[int]) -> int:
    """The filter operand: ``weight`` permuted by ``perm`` (float), or its codes if quantized.

    A 1-D convolution's 3-D weight gets an H of 1 first (dim 2, after the channel dims)."""
    q = quantized_constant(lc, weight_node)
    if q is None:
        return lc.graph.emit_constant_tensor(_as_2d(weight).permute(tuple(perm)))
    codes = _as_2d(q.codes).permute(tuple(perm))
    if q.axis is not None:
        if q.codes.dtype != torch.int8:
            raise ValueError(f"per-channel weight of dtype {q.codes.dtype} (NNAPI takes int8 only)")
        return lc.graph.emit_quantized_constant(codes, OperandCode.TENSOR_QUANT8_SYMM_PER_CHANNEL,
                                                channel_dim=list(perm).index(q.axis), channel_scales=q.scales)
    code = OperandCode.TENSOR_QUANT8_ASYMM if q.codes.dtype == torch.uint8 else OperandCode.TENSOR_QUANT8_ASYMM_SIGNED
    return lc.graph.emit_quantized_constant(codes, code, scale=float(q.scales[0]), zero_point=q.zero_point)


def _as_2d(weight: torch.Tensor) -> torch.Tensor:
    return weight.unsqueeze(2) if weight.dim() == 3 else weight


def bias_operand(lc: LoweringContext, bias_node: Any, bias: torch.Tensor | None, out_channels: int,
                 input_operand: int, filter_operand: int) -> int:
    """The bias operand: float (zeros if absent), or int32 codes whose scale is
    float32(input scale x filter scale), 0 for a per-channel filter (docs/nnapi_facts.md §8.2)."""
    g = lc.graph
    filt = g.operands[filter_operand]
    if filt.type == OperandCode.TENSOR_FLOAT32:
        if bias is None:
            bias = torch.zeros(out_channels, dtype=torch.float32)
        return g.emit_constant_tensor(bias.to(torch.float32).reshape(-1).expand(out_channels))
    q = quantized_constant(lc, bias_node) if bias_node is not None else None
    codes = q.codes.to(torch.int32).reshape(-1) if q is not None else torch.zeros(out_channels, dtype=torch.int32)
    scale = 0.0
    if filt.per_channel_scales is None:
        scale = float(torch.tensor(g.operands[input_operand].scale, dtype=torch.float32)
                      * torch.tensor(filt.scale, dtype=torch.float32))
    return g.emit_quantized_constant(codes, OperandCode.TENSOR_INT32, scale=scale)

