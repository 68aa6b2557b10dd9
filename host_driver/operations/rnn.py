"""RNN (24): one step of a basic recurrent cell, ``h = act(x W^T + h_prev R^T + b)``.

Inputs: 0 input [batch, input_size], 1 weights [num_units, input_size], 2 recurrent weights
[num_units, num_units], 3 bias [num_units], 4 hidden state [batch, num_units] (all TENSOR_FLOAT32, or
TENSOR_FLOAT16 since 29), 5 INT32 activation. Outputs: 0 hidden state out and 1 output, both
[batch, num_units] and equal. Android checks types and counts at addOperation and the shapes when it
runs; every input must be present.

Also what the sequence RNNs (sequence_rnn.py) share with it: the activation codes and the loop of
the cell over time steps.
"""

from __future__ import annotations

from typing import Optional, Sequence

import torch
import torch.nn.functional as F

from ..operand_types import INT32
from .common import ADD, F16, F32, FINISH, Ctx, Deferred, activate_

NAME, CODE, SINCE = "RNN", 24, 27
QUANT_COMPUTE = False
TYPES = {F32: 27, F16: 29}

# The activations Android's recurrent cells compute: the FuseCodes, then tanh (4) and sigmoid (6)
# of TFLite's enumeration (5, "sign bit", aborts Android's reference kernel).
ACT_TANH, ACT_SIGMOID = 4, 6
ACTIVATIONS = {0: "NONE", 1: "RELU", 2: "RELU1", 3: "RELU6", ACT_TANH: "TANH", ACT_SIGMOID: "SIGMOID"}


def activation_code(c: Ctx, i: int) -> int:
    """Decode the recurrent activation at input i (its INT32 type already checked)."""
    code = c.value(i, "activation")
    if code not in ACTIVATIONS:
        allowed = ", ".join(f"{k} ({v})" for k, v in ACTIVATIONS.items())
        c.fail(f"input {i} (activation) must be one of {allowed}; got {code}")
    return code


def activate(t: torch.Tensor, code: int) -> torch.Tensor:
    """Apply a recurrent activation in place to a freshly computed tensor."""
    if code == ACT_TANH:
        return t.tanh_()
    if code == ACT_SIGMOID:
        return t.sigmoid_()
    return activate_(t, code)


def require_present(c: Ctx, indices: Sequence[int], names: Sequence[str]) -> None:
    """Inputs Android requires (its operations fail on an omitted one)."""
    for i, what in zip(indices, names):
        if c.omitted(i):
            c.fail(f"input {i} ({what}) is required and must not be omitted")


def optional_omitted(c: Ctx, i: int) -> bool:
    """Whether optional input i is omitted; a model input may be omitted only at execution, so
    before then the answer (and the validation) waits."""
    if c.omitted(i):
        return True
    if c.stage == FINISH and not c.src.is_constant(c.ins[i]):
        raise Deferred
    return False


def check_dims(c: Ctx, i: int, what: str, want: Sequence[Optional[int]]) -> tuple[int, ...]:
    """Input i's dims: rank len(want) and each given entry equal (None: any); returns them."""
    d = c.dims(i)
    if len(d) != len(want) or any(w is not None and w != x for w, x in zip(want, d)):
        shown = ", ".join("?" if w is None else str(w) for w in want)
        c.fail(f"input {i} ({what}) must have shape [{shown}], got {list(d)}")
    return d


def validate(c: Ctx) -> None:
    c.counts((6,), (2,))
    c.tensor(0, TYPES, "input")
    for i, what in ((1, "weights"), (2, "recurrent weights"), (3, "bias"), (4, "hidden state")):
        c.same_type(i, 0, what)
    c.scalar(5, INT32, "activation")
    c.out_like(0, 0)
    c.out_like(1, 0)
    if c.stage == ADD:
        raise Deferred  # Android checks the rest when it runs
    require_present(c, range(6), ("input", "weights", "recurrent weights", "bias", "hidden state",
                                  "activation"))
    c.p.act = activation_code(c, 5)
    batch, in_size = check_dims(c, 0, "input", (None, None))
    units = check_dims(c, 1, "weights", (None, in_size))[0]
    check_dims(c, 2, "recurrent weights", (units, units))
    check_dims(c, 3, "bias", (units,))
    check_dims(c, 4, "hidden state", (batch, units))
    c.set_out(0, (batch, units))
    c.set_out(1, (batch, units))


def compute(ins, p):
    x, w, r, b, h = ins[:5]
    out = activate(torch.addmm(F.linear(x, w, b), h, r.t()), p.act)
    return [out, out.clone()]


def run_cell(pre: torch.Tensor, recurrent: torch.Tensor, h: torch.Tensor, act: int, out: torch.Tensor,
             reverse: bool = False) -> torch.Tensor:
    """The cell over time: ``pre`` [T, B, U] holds each step's input terms (x W^T + b, and the auxiliary
    input's), ``out`` [T, B, U] (a view, possibly strided) receives each step's state; steps run
    backwards when ``reverse``. Returns the final state (``h`` itself when there is no step)."""
    rt = recurrent.t()
    steps = range(pre.shape[0] - 1, -1, -1) if reverse else range(pre.shape[0])
    for s in steps:
        h = activate(torch.addmm(pre[s], h, rt), act)
        out[s].copy_(h)
    return h
