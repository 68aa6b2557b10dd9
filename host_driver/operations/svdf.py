"""SVDF (27): a layer of rank-constrained filters over a memory of past feature activations.

Inputs: 0 input [batch, input_size], 1 weights_feature [num_filters, input_size], 2 weights_time
[num_filters, memory_size], 3 bias [num_units] (optional), 4 state [batch, memory_size * num_filters]
(all TENSOR_FLOAT32, or TENSOR_FLOAT16 since 29), 5 INT32 rank (num_filters = num_units * rank),
6 INT32 activation. Outputs: 0 the new state (the input state's shape), 1 output [batch, num_units].

One step, as Android's reference computes it: the state is each filter's memory_size most recent
activations, oldest first; the newest slot takes the filter's activation on this input
(weights_feature . input); each filter's memory is weighted by its weights_time row and summed; the
rank consecutive filters of each unit are added (plus the bias), then the activation. The new state
is the memory shifted one slot towards the oldest, a zero in the newest slot (so a state holds
memory_size - 1 past activations, which is why the documentation speaks of (memory_size - 1) slots).

Android checks types and counts at addOperation, the rest when it runs.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

from ..operand_types import INT32
from .common import ADD, F16, F32, Ctx, Deferred
from .rnn import activate, activation_code, check_dims, optional_omitted, require_present

NAME, CODE, SINCE = "SVDF", 27, 27
QUANT_COMPUTE = False
TYPES = {F32: 27, F16: 29}
NAMES = ("input", "weights_feature", "weights_time", "bias", "state", "rank", "activation")


def validate(c: Ctx) -> None:
    c.counts((7,), (2,))
    c.tensor(0, TYPES, "input")
    for i in range(1, 5):
        c.same_type(i, 0, NAMES[i])
    c.scalar(5, INT32, "rank")
    c.scalar(6, INT32, "activation")
    c.out_like(0, 0)
    c.out_like(1, 0)
    if c.stage == ADD:
        raise Deferred  # Android checks the rest when it runs
    require_present(c, (0, 1, 2, 4, 5, 6), [NAMES[i] for i in (0, 1, 2, 4, 5, 6)])
    has_bias = not optional_omitted(c, 3)
    rank = c.value(5, "rank")
    if rank <= 0:
        c.fail(f"input 5 (rank) must be > 0, got {rank}")
    c.p.rank, c.p.act = rank, activation_code(c, 6)
    batch, in_size = check_dims(c, 0, "input", (None, None))
    filters = check_dims(c, 1, "weights_feature", (None, in_size))[0]
    if filters % rank:
        c.fail(f"input 1 (weights_feature) has {filters} filters, which is not a multiple of the rank {rank}")
    units = filters // rank
    memory = check_dims(c, 2, "weights_time", (filters, None))[1]
    if memory < 1:
        c.fail("input 2 (weights_time) must have a memory_size of at least 1, got 0")
    if has_bias:
        check_dims(c, 3, "bias", (units,))
    check_dims(c, 4, "state", (batch, memory * filters))
    c.set_out(0, (batch, memory * filters))
    c.set_out(1, (batch, units))


def compute(ins, p):
    x, weights_feature, weights_time, bias, state = ins[:5]
    filters, memory = weights_time.shape
    batch = x.shape[0]
    slots = state.reshape(batch, filters, memory).clone()
    # The newest slot holds this step's activation of each filter (the input state's is dropped).
    slots[:, :, memory - 1] = F.linear(x, weights_feature)
    per_filter = (slots * weights_time).sum(dim=2)
    out = per_filter.reshape(batch, filters // p.rank, p.rank).sum(dim=2)
    if bias is not None:
        out += bias
    activate(out, p.act)
    new_state = torch.zeros_like(slots)
    new_state[:, :, :memory - 1] = slots[:, :, 1:]
    return [new_state.reshape(batch, filters * memory), out]
