"""What the LSTM and RNN builders share: the arguments of ``aten.lstm.input`` /
``aten.rnn_tanh.input`` / ``aten.rnn_relu.input``, their checks, the initial states of each layer
and direction, and the final states ``h_n`` / ``c_n``.

NNAPI's sequence operations (UNIDIRECTIONAL_ / BIDIRECTIONAL_SEQUENCE_LSTM / _RNN, API 29) run one
layer (and both directions of a bidirectional one) over the whole sequence: the number of time
steps is the input's size, so a dynamic length is only a dynamic operand size (one compiled model
per length, lowering/shape_program.py). Each takes its initial states as ``[batch, width]``
tensors and gives the final ones as optional outputs from API 30 only.
"""

from __future__ import annotations

import dataclasses
import operator
from typing import Any, Sequence

import torch
from torch.fx import Node

from ..graph import identity
from ..lowering_context import LoweringContext
from ..nnapi_codes import FeatureLevel, OperationCode
from ..node_utils import is_tensor_node, tensor_dtype, tensor_shape
from ..shape_program import Dim
from .node_builder import CheckContext, Refused

# NNAPI's sequence operations give their final states as outputs from API 30.
STATE_OUTPUTS_SINCE = FeatureLevel.ANDROID_11


@dataclasses.dataclass(frozen=True)
class Cell:
    """The parameters of one layer and direction, as torch orders them."""

    w_ih: Node
    w_hh: Node
    b_ih: Node | None
    b_hh: Node | None
    w_hr: Node | None   # an LSTM's projection (proj_size > 0)


@dataclasses.dataclass(frozen=True)
class RecurrentCall:
    """The arguments of one ``aten.lstm.input`` / ``rnn_tanh.input`` / ``rnn_relu.input`` node."""

    node: Node
    input: Node
    states: tuple[Node, ...]        # (h0, c0) for an LSTM, (h0,) for an RNN
    params: tuple[Node, ...]
    has_biases: bool
    num_layers: int
    dropout: float
    train: bool
    bidirectional: bool
    batch_first: bool

    @classmethod
    def of(cls, node: Node) -> "RecurrentCall":
        x, hx, params, has_biases, num_layers, dropout, train, bidirectional, batch_first = node.args[:9]
        states = tuple(hx) if isinstance(hx, (list, tuple)) else (hx,)
        return cls(node, x, states, tuple(params), bool(has_biases), int(num_layers), float(dropout), bool(train),
                   bool(bidirectional), bool(batch_first))

    @property
    def directions(self) -> int:
        return 2 if self.bidirectional else 1

    @property
    def has_projection(self) -> bool:
        """An LSTM whose h is narrower than its c (``proj_size``): torch adds a ``weight_hr``."""
        return len(self.states) == 2 and tensor_shape(self.states[0])[-1] != tensor_shape(self.states[1])[-1]

    def cell(self, layer: int, direction: int) -> Cell:
        """The parameters of ``layer`` (from 0) in ``direction`` (0 forward, 1 backward)."""
        per_cell = 2 + 2 * self.has_biases + self.has_projection
        p = list(self.params[(layer * self.directions + direction) * per_cell:][:per_cell])
        w_ih, w_hh = p[0], p[1]
        b_ih, b_hh = (p[2], p[3]) if self.has_biases else (None, None)
        return Cell(w_ih, w_hh, b_ih, b_hh, p[-1] if self.has_projection else None)

    @property
    def time_and_batch(self) -> tuple[Dim, Dim]:
        """(sequence length, batch size) of the input (either may be symbolic)."""
        shape = tensor_shape(self.input)
        return (shape[1], shape[0]) if self.batch_first else (shape[0], shape[1])

    def output_user(self, index: int) -> Node | None:
        """The getitem(``index``) reading the node's output ``index`` (0: the output, 1: h_n, 2: c_n)."""
        for user in self.node.users:
            if user.target is operator.getitem and user.args[1] == index and user.users:
                return user
        return None


def check_call(call: RecurrentCall, ctx: CheckContext, gates: int) -> None:
    """The checks the LSTM (``gates`` 4) and RNN (``gates`` 1) builders share."""
    for value in (call.node, call.input, *call.states, *call.params):
        if isinstance(value, Node) and is_tensor_node(value) and tensor_dtype(value) != torch.float32:
            raise Refused(f"{str(tensor_dtype(value)).replace('torch.', '')} {value.name} "
                          "(NNAPI's sequence operations take float32 here)")
    if len(tensor_shape(call.input)) != 3:
        raise Refused(f"input of rank {len(tensor_shape(call.input))} (a sequence is [T, B, features])")
    if not isinstance(tensor_shape(call.input)[-1], int):
        raise Refused("dynamic dim in the input's features")
    for user in call.node.users:
        if user.target is not operator.getitem:
            raise Refused(f"output tuple used directly by {user.name}")
    if call.train and call.dropout > 0 and call.num_layers > 1:
        raise Refused(f"dropout {call.dropout} between layers in training mode (NNAPI has no dropout)")
    expected = call.num_layers * call.directions * (2 + 2 * call.has_biases + call.has_projection)
    if len(call.params) != expected:
        raise Refused(f"{len(call.params)} parameter tensors (expected {expected})")
    for param in call.params:
        if not ctx.is_foldable(param):
            raise Refused(f"weight {param.name} computed at run time (NNAPI's sequence operations take constant "
                          "weights here)")
    for state in call.states:
        shape = tensor_shape(state)
        if len(shape) != 3 or shape[0] != call.num_layers * call.directions:
            raise Refused(f"initial state {state.name} of shape {shape}")
    for layer in range(call.num_layers):
        for direction in range(call.directions):
            rows = tensor_shape(call.cell(layer, direction).w_ih)[0]
            if rows % gates:
                raise Refused(f"weight_ih of {rows} rows (not {gates} gates of equal size)")


def weight(lc: LoweringContext, node: Node) -> torch.Tensor:
    """A parameter's value in float32."""
    return lc.constant(node).to(torch.float32)


def combined_bias(lc: LoweringContext, cell: Cell, rows: int) -> torch.Tensor:
    """b_ih + b_hh (torch adds both to every gate's pre-activation; NNAPI takes one bias), or zeros."""
    if cell.b_ih is None:
        return torch.zeros(rows, dtype=torch.float32)
    return weight(lc, cell.b_ih) + weight(lc, cell.b_hh)


def initial_states(lc: LoweringContext, state: Node, count: int, batch: Dim, width: int, name: str) -> list[int]:
    """``state`` ([count, batch, width]) as ``count`` operands of ``[batch, width]``, one per layer
    and direction in torch's order: sliced at lowering time when known (the zeros nn.LSTM makes
    without h0 / c0), else one RESHAPE to ``[count * batch, width]`` and one SPLIT."""
    g = lc.graph
    if lc.is_constant(state):
        value = lc.constant(state).to(torch.float32)
        return [g.emit_constant_tensor(value[k].contiguous(), debug_name=f"{name}[{k}]") for k in range(count)]
    source = lc.operand(state, identity(3))
    if count == 1:
        piece = g.emit_tensor([batch, width], debug_name=f"{name}[0]")
        g.emit_operation(OperationCode.RESHAPE, [source, g.emit_int32_vector([batch, width])], [piece], debug_name=name)
        return [piece]
    flat = g.emit_tensor([count * batch, width], debug_name=f"{name}.flat")
    g.emit_operation(OperationCode.RESHAPE, [source, g.emit_int32_vector([count * batch, width])], [flat],
                     debug_name=name)
    pieces = [g.emit_tensor([batch, width], debug_name=f"{name}[{k}]") for k in range(count)]
    g.emit_operation(OperationCode.SPLIT, [flat, g.emit_int32(0), g.emit_int32(count)], pieces, debug_name=name)
    return pieces


def emit_final_states(lc: LoweringContext, getitem: Node, pieces: Sequence[int], batch: Dim, width: int) -> None:
    """``getitem`` (h_n or c_n, ``[count, batch, width]``) from the sequence operations' final-state
    outputs (``[batch, width]`` each, torch's order): CONCATENATION along the batch, RESHAPE."""
    g = lc.graph
    count = len(pieces)
    out = lc.emit_output(getitem)
    shape = g.emit_int32_vector([count, batch, width])
    if count == 1:
        g.emit_operation(OperationCode.RESHAPE, [pieces[0], shape], [out], debug_name=getitem.name)
        return
    flat = g.emit_tensor([count * batch, width], debug_name=f"{getitem.name}.flat")
    g.emit_operation(OperationCode.CONCATENATION, [*pieces, g.emit_int32(0)], [flat], debug_name=getitem.name)
    g.emit_operation(OperationCode.RESHAPE, [flat, shape], [out], debug_name=getitem.name)


def emit_last_steps(lc: LoweringContext, getitem: Node, layer_outputs: Sequence[int], call: RecurrentCall,
                    width: int) -> None:
    """``getitem`` (h_n) read from the layers' outputs, for API 29 where the sequence operations
    have no state outputs: the forward direction's state after the last step is the output at
    step T - 1, the backward direction's the output at step 0 (its last), each one SLICE. The
    slices are concatenated along the time dim, which is h_n's first dim time major and its
    second batch first (then h_n is produced in dim order (1, 0, 2): no TRANSPOSE)."""
    g = lc.graph
    steps, batch = call.time_and_batch
    time_axis = 1 if call.batch_first else 0
    piece_shape = [batch, 1, width] if call.batch_first else [1, batch, width]
    order = (1, 0, 2) if call.batch_first else identity(3)
    count = len(layer_outputs) * call.directions
    out = lc.emit_output(getitem, order)
    size = g.emit_int32_vector(piece_shape)
    pieces = []
    for layer, source in enumerate(layer_outputs):
        for direction in range(call.directions):
            begin = [0, 0, direction * width]
            begin[time_axis] = steps - 1 if direction == 0 else 0
            piece = out if count == 1 else g.emit_tensor(piece_shape, debug_name=f"{getitem.name}[{len(pieces)}]")
            g.emit_operation(OperationCode.SLICE, [source, g.emit_int32_vector(begin), size], [piece],
                             debug_name=getitem.name)
            pieces.append(piece)
    if count > 1:
        g.emit_operation(OperationCode.CONCATENATION, [*pieces, g.emit_int32(time_axis)], [out],
                         debug_name=getitem.name)
