"""aten.lstm.input (``nn.LSTM``) -> one UNIDIRECTIONAL_SEQUENCE_LSTM per layer, or one
BIDIRECTIONAL_SEQUENCE_LSTM per bidirectional layer (API 29), over a sequence of any length.

torch keeps each layer's weights as ``weight_ih [4H, I]`` / ``weight_hh [4H, H_out]`` with the
gates stacked in the order input, forget, cell (g), output; NNAPI takes one tensor per gate
(input-to-input, input-to-forget, input-to-cell, input-to-output, then the recurrent ones), so
each is a quarter of torch's, and one bias per gate, ``b_ih + b_hh``. NNAPI's cell is torch's:
``c = f * c_prev + i * g``, ``h = o * tanh(c)`` with sigmoid gates and tanh (activation 4), no
clipping (cell and projection clip 0), no peephole, no layer norm, the forget bias as given; an
LSTM with ``proj_size`` passes ``weight_hr`` as NNAPI's projection weights (no projection bias).
A bidirectional layer's two directions are one operation with ``merge_outputs``: its output is
the forward and backward outputs side by side on the last dim, as torch's. ``batch_first`` is
NNAPI's ``time_major`` = false: the input is read as it is, with no TRANSPOSE.

Initial states (``h0`` / ``c0``, or the zeros nn.LSTM makes) are split per layer and direction.
The final states: from API 30 the operations' state outputs (CONCATENATION, RESHAPE into
``[layers * directions, B, H]``). At API 29 the operations have none: ``h_n`` is each layer's
output at its last step (a SLICE per layer and direction), but ``c_n`` is never an output, so
a program that reads ``c_n`` is refused there.

Float only: NNAPI's 8-bit LSTM (QUANTIZED_16BIT_LSTM, API 29; QUANTIZED_LSTM, API 30) computes
with 16-bit cell states and fixed or per-gate intermediate scales, and QUANTIZED_LSTM takes int8
weights with 16-bit layer-norm internals: neither matches PT2E's per-op 8-bit quantize /
dequantize of a float cell, so a quantized program's LSTM stays a float island (no 8-bit form).
"""

from __future__ import annotations

import torch
from torch.fx import Node

from ..graph import identity
from ..lowering_context import LoweringContext
from ..nnapi_codes import FeatureLevel, OperandCode, OperationCode
from ..node_utils import tensor_shape
from . import _recurrent_export
from ._recurrent import (STATE_OUTPUTS_SINCE, Cell, RecurrentCall, check_call, combined_bias, emit_final_states,
                         emit_last_steps, initial_states, weight)
from .node_builder import CheckContext, NodeBuilder, OpSupport, Refused
from .registry import register_builder

aten = torch.ops.aten

_TANH = 4  # NNAPI's LSTM activation code for tanh
_GATES = 4

# nn.LSTM exports over a dynamic length only with these shapes (builders/_recurrent_export.py).
_recurrent_export.install()


def _direction_operands(lc: LoweringContext, cell: Cell, name: str) -> list[int]:
    """The 17 per-direction inputs of NNAPI's sequence LSTM: 4 input and 4 recurrent weights,
    3 (omitted) peephole weights, 4 biases, projection weights and (omitted) bias."""
    g = lc.graph
    w_ih, w_hh = weight(lc, cell.w_ih), weight(lc, cell.w_hh)
    hidden = w_ih.shape[0] // _GATES
    bias = combined_bias(lc, cell, w_ih.shape[0])
    gate_names = ("input", "forget", "cell", "output")

    def per_gate(value: torch.Tensor, what: str) -> list[int]:
        return [g.emit_constant_tensor(part.contiguous(), debug_name=f"{name}.{what}_to_{gate}")
                for part, gate in zip(value.split(hidden), gate_names)]

    omitted_peepholes = [g.emit_omitted(OperandCode.TENSOR_FLOAT32, [hidden]) for _ in range(3)]
    out_width = w_hh.shape[1]
    if cell.w_hr is not None:
        projection = g.emit_constant_tensor(weight(lc, cell.w_hr).contiguous(), debug_name=f"{name}.projection")
    else:
        projection = g.emit_omitted(OperandCode.TENSOR_FLOAT32, [out_width, hidden])
    return [*per_gate(w_ih, "input"), *per_gate(w_hh, "recurrent"), *omitted_peepholes,
            *[g.emit_constant_tensor(b.contiguous(), debug_name=f"{name}.{gate}_bias")
              for b, gate in zip(bias.split(hidden), gate_names)],
            projection, g.emit_omitted(OperandCode.TENSOR_FLOAT32, [out_width])]


@register_builder
class LstmBuilder(NodeBuilder):
    """nn.LSTM -> one UNIDIRECTIONAL_ / BIDIRECTIONAL_SEQUENCE_LSTM per layer (dynamic length)."""

    ops = (
        OpSupport(aten.lstm.input, FeatureLevel.ANDROID_10,
                  "UNIDIRECTIONAL_SEQUENCE_LSTM / BIDIRECTIONAL_SEQUENCE_LSTM per layer (+ SPLIT, CONCATENATION, "
                  "RESHAPE of states; SLICE for h_n at API 29)",
                  "float32, constant weights, any number of layers, bidirectional, batch_first, proj_size, "
                  "dynamic length and batch; c_n needs API 30; no dropout in training", keep=True,
                  cpu_kernel=False),
    )

    def check(self, node: Node, ctx: CheckContext) -> None:
        call = RecurrentCall.of(node)
        check_call(call, ctx, _GATES)
        if call.output_user(2) is not None:
            ctx.require(STATE_OUTPUTS_SINCE, "c_n, the LSTM's final cell state (NNAPI's sequence LSTM outputs "
                                             "it from API 30 only; it cannot be read from the output)")
        for layer in range(call.num_layers):
            for direction in range(call.directions):
                cell = call.cell(layer, direction)
                hidden = tensor_shape(cell.w_ih)[0] // _GATES
                if tensor_shape(call.states[1])[-1] != hidden:
                    raise Refused(f"c0 of width {tensor_shape(call.states[1])[-1]} for {hidden} cells")

    def define(self, node: Node, lc: LoweringContext) -> None:
        call = RecurrentCall.of(node)
        g = lc.graph
        steps, batch = call.time_and_batch
        count = call.num_layers * call.directions
        out_width = tensor_shape(call.states[0])[-1]
        cell_width = tensor_shape(call.states[1])[-1]
        h_n, c_n = call.output_user(1), call.output_user(2)
        with_states = (h_n is not None or c_n is not None) and g.feature_level >= STATE_OUTPUTS_SINCE
        if with_states:
            g.require_feature_level(STATE_OUTPUTS_SINCE)
        h0 = initial_states(lc, call.states[0], count, batch, out_width, f"{node.name}.h0")
        c0 = initial_states(lc, call.states[1], count, batch, cell_width, f"{node.name}.c0")
        time_major = g.emit_bool(not call.batch_first)
        x = lc.operand(call.input, identity(3))
        final_h: list[int] = []
        final_c: list[int] = []
        layer_outputs: list[int] = []
        output_user = call.output_user(0)
        for layer in range(call.num_layers):
            name = f"{node.name}.l{layer}"
            shape = [batch, steps, call.directions * out_width] if call.batch_first else \
                [steps, batch, call.directions * out_width]
            last = layer == call.num_layers - 1
            out = lc.emit_output(output_user) if last and output_user is not None else g.emit_tensor(shape, debug_name=name)
            states = [(g.emit_tensor([batch, out_width], debug_name=f"{name}.h{d}"),
                       g.emit_tensor([batch, cell_width], debug_name=f"{name}.c{d}"))
                      for d in range(call.directions)] if with_states else []
            scalars = [g.emit_int32(_TANH), g.emit_float32(0.0), g.emit_float32(0.0)]
            index = layer * call.directions
            if call.directions == 1:
                inputs = [x, *_direction_operands(lc, call.cell(layer, 0), name), h0[index], c0[index], *scalars,
                          time_major, *[g.emit_omitted(OperandCode.TENSOR_FLOAT32, [cell_width]) for _ in range(4)]]
                outputs = [out, *(states[0] if states else ())]
                code = OperationCode.UNIDIRECTIONAL_SEQUENCE_LSTM
            else:
                inputs = self._bidirectional_inputs(lc, call, layer, x, h0, c0, scalars, time_major, cell_width)
                outputs = [out, *(o for pair in states for o in pair)]
                code = OperationCode.BIDIRECTIONAL_SEQUENCE_LSTM
            g.emit_operation(code, inputs, outputs, debug_name=name)
            final_h += [h for h, _ in states]
            final_c += [c for _, c in states]
            layer_outputs.append(out)
            x = out
        if h_n is not None:
            if with_states:
                emit_final_states(lc, h_n, final_h, batch, out_width)
            else:
                emit_last_steps(lc, h_n, layer_outputs, call, out_width)
        if c_n is not None:
            emit_final_states(lc, c_n, final_c, batch, cell_width)

    @staticmethod
    def _bidirectional_inputs(lc: LoweringContext, call: RecurrentCall, layer: int, x: int, h0: list[int],
                              c0: list[int], scalars: list[int], time_major: int, cell_width: int) -> list[int]:
        """BIDIRECTIONAL_SEQUENCE_LSTM's 61 inputs: no auxiliary input, merged outputs."""
        g = lc.graph
        name = f"{call.node.name}.l{layer}"
        index = layer * 2
        input_width = tensor_shape(call.cell(layer, 0).w_ih)[1]
        aux_weights = [g.emit_omitted(OperandCode.TENSOR_FLOAT32, [cell_width, input_width]) for _ in range(8)]
        return [x, *_direction_operands(lc, call.cell(layer, 0), f"{name}.fw"),
                *_direction_operands(lc, call.cell(layer, 1), f"{name}.bw"),
                h0[index], c0[index], h0[index + 1], c0[index + 1],
                g.emit_omitted(OperandCode.TENSOR_FLOAT32, [1, 1, input_width]), *aux_weights,
                *scalars, g.emit_bool(True), time_major,
                *[g.emit_omitted(OperandCode.TENSOR_FLOAT32, [cell_width]) for _ in range(8)]]
