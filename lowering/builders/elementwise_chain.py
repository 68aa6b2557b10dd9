"""Helper for builders that decompose one ATen op into a few same-shape NNAPI
operations (hardswish below API 30, hardsigmoid, gelu, elu below API 30...).

Every step works on the physical layout of the op's input, so a 4-D value
coming out of a convolution stays NHWC and no TRANSPOSE is emitted.
"""

from __future__ import annotations

from typing import Sequence

import torch
from torch.fx import Node

from ..graph import permute_shape
from ..lowering_context import LoweringContext
from ..nnapi_codes import FuseCode, OperationCode

# Operations whose last input is a FuseCode.
_FUSED = frozenset({OperationCode.ADD, OperationCode.SUB, OperationCode.MUL, OperationCode.DIV})


class ElementwiseChain:
    """Emits a chain of same-shape operations producing ``node``'s value.

    Intermediate results get temporary operands with the input's physical
    dims (symbolic dims included); the step marked ``last`` writes the
    operand recorded as ``node``'s value.
    """

    def __init__(self, lc: LoweringContext, node: Node, x: Node | None = None) -> None:
        self.lc = lc
        self.node = node
        self.g = lc.graph
        self.x_node = x if x is not None else node.args[0]
        self.order = lc.order(self.x_node)
        self.x = lc.operand(self.x_node, self.order)
        self.dims = permute_shape(lc.shape(node), self.order)
        self._steps = 0

    def const(self, value: float) -> int:
        """A [1]-shaped float32 constant (broadcasts against any rank)."""
        return self.g.emit_constant_tensor(torch.tensor([float(value)], dtype=torch.float32))

    def full(self, value: float) -> int:
        """A constant of the node's (static) shape: SELECT does not broadcast."""
        return self.g.emit_constant_tensor(torch.full([int(d) for d in self.dims], float(value)))

    def op(self, code: OperationCode, inputs: Sequence[int], *, fuse: FuseCode = FuseCode.NONE,
           last: bool = False, dtype: torch.dtype = torch.float32) -> int:
        """Emits ``code`` on ``inputs`` (plus the FuseCode for ADD/SUB/MUL/DIV); returns its output
        (of ``dtype``: bool for a comparison)."""
        self._steps += 1
        if last:
            out = self.lc.emit_output(self.node, self.order)
        else:
            out = self.g.emit_tensor(self.dims, dtype, debug_name=f"{self.node.name}.{self._steps}")
        operands = list(inputs)
        if code in _FUSED:
            operands.append(self.g.emit_int32(int(fuse)))
        self.g.emit_operation(code, operands, [out], debug_name=self.node.name)
        return out
