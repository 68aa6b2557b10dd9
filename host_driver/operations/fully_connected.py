"""FULLY_CONNECTED (9): input flattened to [batch, input_size] @ weights[num_units, input_size]^T + bias."""

import math

import torch
import torch.nn.functional as F

from ..operand_types import INT32, type_name
from . import _qkernels as qk
from .common import F16, F32, FLOAT_QUANT, I32T, QA8, QA8S, Ctx, activate_, f32, fuse_code

NAME, CODE, SINCE = "FULLY_CONNECTED", 9, 27
QUANT_COMPUTE = True


def validate(c: Ctx) -> None:
    c.counts((4,))
    t = c.tensor(0, FLOAT_QUANT, "input")
    c.same_type(1, 0, "weights")
    bias_type = t if t in (F32, F16) else I32T
    if c.type(2) != bias_type:
        c.fail(f"input 2 (bias) must be {type_name(bias_type)}, got {type_name(c.type(2))}")
    c.scalar(3, INT32, "fused activation")
    c.out_like(0, 0, same_q=False)
    if t not in (F32, F16):
        inp, w, out = c.operand(0), c.operand(1), c.out_operand(0)
        prod = f32(inp.scale * w.scale)
        qk.check_bias_quant(c)
        if t == QA8 and c.level < 29 and not out.scale > prod:
            c.fail(f"output scale {out.scale:g} must be greater than input scale * weights scale "
                   f"({prod:g}) below feature level 29")
    c.p.act = fuse_code(c, 3)
    r = c.rank(0)
    if not 2 <= r <= 4:
        c.fail(f"input 0 must have rank 2 to 4, got {r}")
    wd = c.dims(1)
    if len(wd) != 2:
        c.fail(f"input 1 (weights) must have rank 2 [num_units, input_size], got {list(wd)}")
    units, in_size = wd
    bd = c.dims(2)
    if list(bd) != [units]:
        c.fail(f"input 2 (bias) must have shape [{units}], got {list(bd)}")
    numel = math.prod(c.dims(0))
    if numel % in_size:
        c.fail(f"input 0 has {numel} elements, which is not a multiple of input_size {in_size}")
    c.p.batch_shape = (numel // in_size, in_size)
    c.p.quant = t in (QA8, QA8S)
    if c.p.quant:
        # NNAPI's FC is the convolution's arithmetic (docs/nnapi_facts.md §9.6, §10): requantization per output unit.
        qk.requant_conv(c, units)
    w = c.const_tensor(1)
    c.p.weight = None if w is None else _prepare(w, c.p)
    c.p.bias = c.const_tensor(2)
    c.set_out(0, (numel // in_size, units))


def _prepare(w, p):
    """Float weights as they are; quantized ones as float64 (q_w - zp_w) for exact accumulation."""
    return w.to(torch.float64) - p.q_zp[1] if p.quant else w.contiguous()


def compute(ins, p):
    w = p.weight if p.weight is not None else _prepare(ins[1], p)
    b = p.bias if p.bias is not None else ins[2]
    if p.quant:
        x = ins[0].reshape(p.batch_shape).to(torch.int32) - p.q_zp[0]
        acc = qk.exact_integer_linear(F.linear, x, w, w.shape[1]) + b.to(torch.int64)
        return [qk.requantize_acc(acc, p, 1)]
    return [activate_(F.linear(ins[0].reshape(p.batch_shape), w, b), p.act)]


def compute_into(ins, p, outs) -> bool:
    """Float: F.linear on a 2-D input with a bias is this addmm (ATen's linear)."""
    if p.quant:
        return False
    w = p.weight if p.weight is not None else _prepare(ins[1], p)
    b = p.bias if p.bias is not None else ins[2]
    torch.addmm(b, ins[0].reshape(p.batch_shape), w.t(), out=outs[0])
    activate_(outs[0], p.act)
    return True
