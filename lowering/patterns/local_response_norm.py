"""``torch.nn.LocalResponseNorm`` of a 4-D tensor as one LocalResponseNormUnit.

torch has no ATen op for it: ``F.local_response_norm`` is written in Python, and torch.export
records what it computes (with to_edge's names)::

    square = mul(x, x)
    v = view_copy(square, [N, 1, C, H, W])
    v = constant_pad_nd(v, [0, 0, 0, 0, size // 2, (size - 1) // 2], 0.0)
    v = avg_pool3d(v, [size, 1, 1], [1, 1, 1])          # counts the padding: divides by size
    v = view_copy(squeeze_copy(v, [1]), [N, C, H, W])
    out = div(x, pow(add(mul(v, alpha), k), beta))

Its rank-5 values have no NNAPI form, so the nodes are matched here and emitted together
(builders/local_response_norm.py). NnapiQuantizer annotates the square, the view and the
pad of a quantized model (each followed by a quantize / dequantize pair of one scale and
zero point, ``dq -> mul -> q -> dq -> view -> q -> dq -> pad -> q -> dq -> avg_pool3d``) and
leaves the rest float; the division then reads a second dequantize of the input's codes. That
form is matched too, before the quantized ops, which would otherwise take the square alone.

Only an odd ``size`` is matched: an even one's window (c - size/2 .. c + size/2 - 1) is not
symmetric about c as NNAPI's is, and a matched unit refused whole would leave avg_pool3d, which
ExecuTorch's portable kernels lack, on the CPU; unmatched, each node goes to its own builder.
"""

from __future__ import annotations

import numbers

import torch
from torch.fx import Graph, Node

from ..node_units import LocalResponseNormUnit, NodeUnit
from ..node_utils import aten_op, is_dequantize, is_per_channel, is_quantize, is_tensor_node, quant_params, tensor_shape
from .pattern_context import PatternContext, unclaimed_matches

aten = torch.ops.aten


def _only_user(node: Node) -> Node | None:
    users = list(node.users)
    return users[0] if len(users) == 1 else None


def _is_call(node: object, *ops) -> bool:
    return isinstance(node, Node) and node.op == "call_function" and aten_op(node) in ops


def _next(node: Node, chain: list[Node]) -> Node | None:
    """The only user of ``node`` reading it as its first argument, past a quantize -> dequantize
    pair of one scale and zero point (added to ``chain``)."""
    user = _only_user(node)
    if is_quantize(user):
        dq = _only_user(user)
        if not is_dequantize(dq) or is_per_channel(dq) or quant_params(user) != quant_params(dq):
            return None
        chain.extend((user, dq))
        node, user = dq, _only_user(dq)
    if not _is_call(user, *_ANY_STEP) or not user.args or user.args[0] is not node:
        return None
    chain.append(user)
    return user


_ANY_STEP = (aten.view_copy.default, aten.constant_pad_nd.default, aten.avg_pool3d.default, aten.squeeze_copy.dims,
             aten.squeeze_copy.dim, aten.mul.Tensor, aten.mul.Scalar, aten.add.Tensor, aten.add.Scalar,
             aten.pow.Tensor_Scalar)


def _arg(node: Node, index: int, name: str, default):
    return node.args[index] if len(node.args) > index else node.kwargs.get(name, default)


def _channel_window(pad: Node, pool: Node) -> tuple[int, int] | None:
    """(channels before, after) of the window the pad and the pool sum, or None if they are not
    local_response_norm's: zeros padded on dim 2 only, a [size, 1, 1] window of stride 1 over it,
    counting the padding, with no other divisor."""
    pads = list(pad.args[1])
    if len(pads) != 6 or pads[:4] != [0, 0, 0, 0] or float(_arg(pad, 2, "value", 0.0)) != 0.0:
        return None
    before, after = int(pads[4]), int(pads[5])
    kernel = list(pool.args[1])
    if kernel != [before + after + 1, 1, 1] or list(_arg(pool, 2, "stride", [])) not in ([1, 1, 1], [1]):
        return None
    if list(_arg(pool, 3, "padding", [0])) not in ([0], [0, 0, 0]) or _arg(pool, 4, "ceil_mode", False):
        return None
    if not _arg(pool, 5, "count_include_pad", True) or _arg(pool, 6, "divisor_override", None) is not None:
        return None
    return before, after


def _constant(value: object, ctx: PatternContext) -> bool:
    """A number, or a one-element value known at lowering time."""
    if isinstance(value, numbers.Number) and not isinstance(value, bool):
        return True
    return isinstance(value, Node) and ctx.is_known(value) and tensor_shape(value) in ([], [1])


def _numerator(div: Node, x: Node, power: Node) -> Node | None | bool:
    """What the division reads for x: x itself (None), another dequantize of x's codes with x's
    parameters that only it reads, or False if neither."""
    if len(div.args) != 2 or div.args[1] is not power:
        return False
    numerator = div.args[0]
    if numerator is x:
        return None
    if (is_dequantize(x) and is_dequantize(numerator) and numerator.args[0] is x.args[0]
            and quant_params(numerator) == quant_params(x) and _only_user(numerator) is div):
        return numerator
    return False


def match_local_response_norm(square: Node, ctx: PatternContext) -> LocalResponseNormUnit | None:
    """The local response norm whose square is ``square``, if the whole pattern is there."""
    if not _is_call(square, aten.mul.Tensor) or len(square.args) != 2 or square.args[0] is not square.args[1]:
        return None
    x = square.args[0]
    if not is_tensor_node(x) or len(tensor_shape(x)) != 4:
        return None
    n, c, h, w = tensor_shape(x)
    chain = [square]
    view = _next(square, chain)
    if not _is_call(view, aten.view_copy.default) or tensor_shape(view) != [n, 1, c, h, w]:
        return None
    pad = _next(view, chain)
    pool = _next(pad, chain) if _is_call(pad, aten.constant_pad_nd.default) else None
    window = _channel_window(pad, pool) if _is_call(pool, aten.avg_pool3d.default) else None
    if window is None or window[0] != window[1]:
        return None  # an even size's window is not symmetric: no LOCAL_RESPONSE_NORMALIZATION
    squeeze = _next(pool, chain)
    if not _is_call(squeeze, aten.squeeze_copy.dims, aten.squeeze_copy.dim) or tensor_shape(squeeze) != [n, c, h, w]:
        return None
    scale = _next(squeeze, chain)
    if _is_call(scale, aten.view_copy.default) and tensor_shape(scale) == [n, c, h, w]:
        scale = _next(scale, chain)
    if not _is_call(scale, aten.mul.Tensor, aten.mul.Scalar) or not _constant(scale.args[1], ctx):
        return None
    shift = _next(scale, chain)
    if (not _is_call(shift, aten.add.Tensor, aten.add.Scalar) or not _constant(shift.args[1], ctx)
            or _arg(shift, 2, "alpha", 1) != 1):
        return None
    power = _next(shift, chain)
    if not _is_call(power, aten.pow.Tensor_Scalar) or not isinstance(power.args[1], numbers.Real):
        return None
    div = _only_user(power)
    numerator = _numerator(div, x, power) if _is_call(div, aten.div.Tensor) and not div.kwargs else False
    if numerator is False or tensor_shape(div) != [n, c, h, w]:
        return None
    return LocalResponseNormUnit(x, tuple(chain), numerator, div, *window, scale.args[1], shift.args[1],
                                 float(power.args[1]))


def find_local_response_norms(graph: Graph, ctx: PatternContext, claimed: set[Node]) -> list[NodeUnit]:
    """Every complete local response norm of ``graph`` whose nodes no earlier matcher claimed."""
    return unclaimed_matches(graph, claimed, lambda node: match_local_response_norm(node, ctx))
