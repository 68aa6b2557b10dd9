"""Partitions that only do integer index arithmetic between CPU operations stay on the CPU.

Since int64 values can be held in TENSOR_INT32 where their bounds are proven
(lowering/builders/integer_ranges.py), the index computations of a decomposition that NNAPI
refuses (float64 bicubic upsampling: clamps of gather indices) form partitions of their own.
Such a partition reads only integers the CPU computed and hands only integers back to the CPU:
NNAPI would run it no faster, and each one costs a delegate call and int64 <-> int32 copies. A
partition reading a program input (an int model, a position id) is kept: there is no CPU op to
stay beside.
"""

from __future__ import annotations

from typing import Iterable

import torch
from torch.fx import Node

INDEX_DTYPES = (torch.int32, torch.int64, torch.bool)

INDEX_ISLAND_REASON = ("its partition only does integer index arithmetic between CPU operations (reads and "
                       "gives back int32/int64/bool values the CPU computes); the CPU runs it as fast without "
                       "a delegate call")


def _is_index_tensor(node: Node) -> bool:
    val = node.meta.get("val")
    return isinstance(val, torch.Tensor) and val.dtype in INDEX_DTYPES


def index_island_refusal(nodes: Iterable[Node], user_inputs: set[str]) -> str | None:
    """INDEX_ISLAND_REASON if every tensor the partition ``nodes`` reads or gives back is an
    integer one and none of them is a program input (a name in ``user_inputs``), else None.
    Constants and buffers it reads count as neither: they do not run on the CPU."""
    nodes = set(nodes)
    inputs = {i for n in nodes for i in n.all_input_nodes
              if i not in nodes and isinstance(i.meta.get("val"), torch.Tensor)}
    outputs = {n for n in nodes if any(u not in nodes for u in n.users)}
    if not inputs or not outputs:
        return None
    computed = {i for i in inputs if i.op != "placeholder"}
    if any(i.name in user_inputs for i in inputs) or not computed:
        return None
    if all(_is_index_tensor(t) for t in computed | outputs):
        return INDEX_ISLAND_REASON
    return None
