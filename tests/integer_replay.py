"""Replays a convert_pt2e model layer by layer in NNAPI's integer arithmetic
(docs/nnapi_facts.md §9), with the host driver's own primitives (_qmath, _qkernels).

For every ``dq -> op [-> relu / relu6] -> q`` group the replay takes the input
codes convert_pt2e itself produced, computes what a conforming NNAPI device
outputs from them, and also the exact (rational) value that the op's single
rounding would round. Where the two implementations disagree on one layer fed
the same codes, the exact value says why: a near-tie (NNAPI's double rounding,
docs/nnapi_facts.md §9.3, or int16 fixed point in HARD_SWISH) or an exact tie rounded another way
(AVERAGE_POOL_2D rounds half up, torch half to even), or something systematic.
``chained`` runs the whole model on the replay's own codes: it must equal the
host driver's output bit for bit, which shows the replay is the host's arithmetic.
"""

from __future__ import annotations

import dataclasses
import math
from types import SimpleNamespace

import torch
import torch.nn.functional as F
from torch.fx import GraphModule, Interpreter, Node

from executorch_nnapi.lowering.builders.quantized_hard_sigmoid import sixth_weight
from executorch_nnapi.host_driver.operations import _qkernels as qk
from executorch_nnapi.host_driver.operations import _qmath as qm

aten = torch.ops.aten
qd = torch.ops.quantized_decomposed
RELU = (aten.relu.default, aten.relu_.default)
HARDTANH = (aten.hardtanh.default, aten.hardtanh_.default)


def _f32(x: float) -> float:
    return float(torch.tensor(x, dtype=torch.float32))


def _is_q(n: Node) -> bool:
    return n.op == "call_function" and n.target == qd.quantize_per_tensor.default


@dataclasses.dataclass
class Layer:
    name: str
    nnapi: torch.Tensor   # codes a conforming NNAPI device computes (int64)
    exact: torch.Tensor   # the exact pre-rounding value, in output codes (float64)


def _codes(vals: dict, dq: Node) -> tuple[torch.Tensor, float, int]:
    return vals[dq.args[0]].to(torch.int64), float(dq.args[1]), int(dq.args[2])


def _weight(vals: dict, dq: Node) -> tuple[torch.Tensor, list[float]]:
    codes = vals[dq.args[0]].to(torch.float64)
    if dq.target == qd.dequantize_per_channel.default:
        return codes, vals[dq.args[1]].double().tolist()
    return codes - int(dq.args[2]), [float(dq.args[1])] * codes.shape[0]


def _weighted(op: Node, vals: dict, s_out: float, zp_out: int):
    x, s_in, zp_in = _codes(vals, op.args[0])
    w, s_w = _weight(vals, op.args[1])
    if op.target == aten.conv2d.default:
        a = list(op.args) + [None] * 7
        acc = F.conv2d(x.double() - zp_in, w, None, a[3] or 1, a[4] or 0, a[5] or 1, a[6] or 1)
        shape = (1, -1, 1, 1)
    else:
        acc, shape = F.linear(x.double() - zp_in, w), (1, -1)
    acc = acc.round().to(torch.int64)
    if len(op.args) > 2 and op.args[2] is not None:
        acc = acc + vals[op.args[2].args[0]].to(torch.int64).view(shape)
    m = [qm.conv_multiplier(s_in, s, s_out) for s in s_w]
    mults = [qm.quantize_multiplier(v) for v in m]
    big_m = torch.tensor([v for v, _ in mults]).view(shape)
    shift = torch.tensor([s for _, s in mults]).view(shape)
    out = qm.mbqm(qm.wrap32(acc), big_m, shift) + zp_out
    return out, acc.double() * torch.tensor(m, dtype=torch.float64).view(shape) + zp_out


def _add(op: Node, vals: dict, s_out: float, zp_out: int):
    (a, s1, z1), (b, s2, z2) = _codes(vals, op.args[0]), _codes(vals, op.args[1])
    twice_max = 2.0 * max(s1, s2)
    m1 = qm.quantize_multiplier_smaller_than_one_exp(s1 / twice_max)
    m2 = qm.quantize_multiplier_smaller_than_one_exp(s2 / twice_max)
    mo = qm.quantize_multiplier_smaller_than_one_exp(twice_max / _f32((1 << 20) * s_out))
    summed = qm.mbqm((a - z1) << 20, *m1) + qm.mbqm((b - z2) << 20, *m2)
    out = qm.mbqm(qm.wrap32(summed), *mo) + zp_out
    return out, ((a - z1).double() * s1 + (b - z2).double() * s2) / s_out + zp_out


def _mul(op: Node, vals: dict, s_out: float, zp_out: int):
    (a, s1, z1), (b, s2, z2) = _codes(vals, op.args[0]), _codes(vals, op.args[1])
    prod = (a - z1) * (b - z2)
    out = qm.mbqm(prod, *qm.quantize_multiplier_smaller_than_one_exp(_f32(s1 * s2) / s_out)) + zp_out
    return out, prod.double() * s1 * s2 / s_out + zp_out


def _average(op: Node, vals: dict, s_out: float, zp_out: int):
    x, _, _ = _codes(vals, op.args[0])
    n = x.shape[2] * x.shape[3]
    acc = x.sum((2, 3), keepdim=True)
    out = torch.div(acc + torch.where(acc >= 0, n // 2, -(n // 2)), n, rounding_mode="trunc")
    return out, acc.double() / n


def _hardswish(op: Node, vals: dict, s_out: float, zp_out: int, dtype: torch.dtype):
    x, s_in, zp_in = _codes(vals, op.args[0])
    hires = _f32(_f32(1.0 / 128.0) * _f32(s_in))
    m_out, e_out = qk._int16_multiplier(_f32(hires / _f32(s_out)))
    m_relu, e_relu = qk._int16_multiplier(_f32(hires / _f32(3.0 / 32768.0)))
    p = SimpleNamespace(q_hs=(m_out, e_out, m_relu, e_relu, zp_in, zp_out), q_dtype=dtype)
    real = (x - zp_in).double() * s_in
    return qk.qhard_swish(x.to(dtype), p).to(torch.int64), real * (real + 3).clamp(0, 6) / 6 / s_out + zp_out


def _hardsigmoid(op: Node, vals: dict, s_out: float, zp_out: int, dtype: torch.dtype):
    x, s_in, zp_in = _codes(vals, op.args[0])
    k, s_w, bias = sixth_weight(s_in, 127 if dtype == torch.int8 else 255)
    acc = (x - zp_in) * k + bias
    out = qm.mbqm(acc, *qm.quantize_multiplier(qm.conv_multiplier(s_in, s_w, s_out))) + zp_out
    return out, (((x - zp_in).double() * s_in + 3).clamp(0, 6) / 6) / s_out + zp_out


def _clamp_range(act: Node | None, s_out: float, zp_out: int, lo: int, hi: int) -> tuple[int, int]:
    """The fused activation's code range (docs/nnapi_facts.md §9.5)."""
    if act is None:
        return lo, hi
    bounds = (0.0, math.inf) if act.target in RELU else (act.args[1], act.args[2])
    q = [zp_out + qm.round_half_away(_f32(b / _f32(s_out))) if math.isfinite(b) else hi for b in bounds]
    return max(lo, q[0]), min(hi, q[1])


def replay_layer(q: Node, vals: dict) -> Layer | None:
    """NNAPI's codes for quantize node ``q`` from the codes in ``vals``; None for ops not replayed."""
    s_out, zp_out, lo, hi = float(q.args[1]), int(q.args[2]), int(q.args[3]), int(q.args[4])
    dtype = torch.uint8 if lo == 0 else torch.int8
    op, act = q.args[0], None
    if op.target in RELU + HARDTANH and op.args[0].target not in (qd.dequantize_per_tensor.default,):
        act, op = op, op.args[0]
    if op.target in (aten.conv2d.default, aten.linear.default):
        out, exact = _weighted(op, vals, s_out, zp_out)
    elif op.target in (aten.add.Tensor, aten.add_.Tensor):
        out, exact = _add(op, vals, s_out, zp_out)
    elif op.target == aten.mul.Tensor:
        out, exact = _mul(op, vals, s_out, zp_out)
    elif op.target in (aten.adaptive_avg_pool2d.default, aten.mean.dim):
        out, exact = _average(op, vals, s_out, zp_out)
    elif op.target in (aten.hardswish.default, aten.hardswish_.default):
        out, exact = _hardswish(op, vals, s_out, zp_out, dtype)
    elif op.target in (aten.hardsigmoid.default, aten.hardsigmoid_.default):
        out, exact = _hardsigmoid(op, vals, s_out, zp_out, dtype)
    else:
        return None
    lo_act, hi_act = _clamp_range(act, s_out, zp_out, lo, hi)
    return Layer(op.name, out.clamp(lo_act, hi_act), exact.clamp(lo_act, hi_act))


class _Recorder(Interpreter):
    def __init__(self, gm: GraphModule, chain: bool) -> None:
        super().__init__(gm)
        self.vals: dict = {}
        self.chain = chain

    def run_node(self, n: Node):
        value = None
        if self.chain and _is_q(n) and n.args[0].op != "placeholder":
            layer = replay_layer(n, self.vals)
            if layer is not None:
                value = layer.nnapi.to(torch.uint8 if int(n.args[3]) == 0 else torch.int8)
        if value is None:
            value = super().run_node(n)
        self.vals[n] = value
        return value


def layers(gm: GraphModule, x: torch.Tensor) -> list[tuple[Layer, torch.Tensor]]:
    """Each replayed layer with convert_pt2e's own codes for it (both from convert_pt2e's inputs)."""
    rec = _Recorder(gm, chain=False)
    rec.run(x)
    found = []
    for n in gm.graph.nodes:
        if _is_q(n) and n.args[0].op != "placeholder":
            layer = replay_layer(n, rec.vals)
            if layer is not None:
                found.append((layer, rec.vals[n].to(torch.int64)))
    return found


def chained(gm: GraphModule, x: torch.Tensor) -> torch.Tensor:
    """The model's output with every replayed layer computed by NNAPI's arithmetic on its predecessors'."""
    out = _Recorder(gm, chain=True).run(x)
    return out[0] if isinstance(out, (tuple, list)) else out
