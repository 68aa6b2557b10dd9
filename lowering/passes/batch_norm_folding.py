"""Folds an inference batch norm into the convolution or linear layer feeding it."""

from __future__ import annotations

import operator

import torch
from torch.fx import Node

from ..lowering_context import LoweringContext
from ..node_utils import aten_op

aten = torch.ops.aten

BATCH_NORM = aten._native_batch_norm_legit_no_training.default
FOLDABLE_PRODUCERS = (aten.convolution.default, aten.linear.default)


def batch_norm_output(bn: Node) -> Node | None:
    """The getitem(bn, 0) user, if it is the only one that reads the batch norm."""
    users = list(bn.users)
    if len(users) == 1 and users[0].target is operator.getitem and users[0].args[1] == 0:
        return users[0]
    return None


def fold_batch_norms(lc: LoweringContext, nodes: list[Node]) -> None:
    """For producer -> batch_norm -> getitem(0) with constant parameters and no
    other reader of the producer, scales the producer's weight and bias and
    makes the batch norm an alias of the producer."""
    for bn in nodes:
        if bn.op != "call_function" or aten_op(bn) != BATCH_NORM:
            continue
        producer, weight, bias, mean, var = bn.args[:5]
        eps = bn.args[6]
        out = batch_norm_output(bn)
        if (
            out is None
            or not isinstance(producer, Node)
            or producer.op != "call_function"
            or aten_op(producer) not in FOLDABLE_PRODUCERS
            or len(producer.users) != 1
            or not all(lc.is_constant(p) for p in (mean, var) if p is not None)
            or not all(lc.is_constant(p) for p in (weight, bias) if p is not None)
            or not lc.is_constant(producer.args[1])
            or (len(producer.args) > 2 and producer.args[2] is not None and not lc.is_constant(producer.args[2]))
        ):
            continue
        if aten_op(producer) == aten.convolution.default and producer.args[6]:
            continue  # transposed conv keeps its out-channels on dim 1 of the weight
        w = lc.constant(producer.args[1]).to(torch.float64)
        b_arg = producer.args[2] if len(producer.args) > 2 else None
        out_channels = w.shape[0]
        b = lc.constant(b_arg).to(torch.float64) if b_arg is not None else torch.zeros(out_channels, dtype=torch.float64)
        running_mean = lc.constant(mean).to(torch.float64)
        running_var = lc.constant(var).to(torch.float64)
        gamma = lc.constant(weight).to(torch.float64) if weight is not None else torch.ones(out_channels, dtype=torch.float64)
        beta = lc.constant(bias).to(torch.float64) if bias is not None else torch.zeros(out_channels, dtype=torch.float64)
        scale = gamma / torch.sqrt(running_var + eps)
        folded_w = w * scale.reshape([-1] + [1] * (w.dim() - 1))
        folded_b = (b - running_mean) * scale + beta
        lc.folded_parameters[producer] = (folded_w.to(torch.float32), folded_b.to(torch.float32))
        lc.aliases[bn] = producer
        lc.aliases[out] = producer
