"""aten.rnn_tanh.input / rnn_relu.input (``nn.RNN``) -> one UNIDIRECTIONAL_SEQUENCE_RNN per layer,
or one BIDIRECTIONAL_SEQUENCE_RNN per bidirectional layer (API 29), over a sequence of any length.

NNAPI's cell is torch's, ``h = act(x W_ih^T + h_prev W_hh^T + b)``, with torch's two biases
added into one (``b_ih + b_hh``; zeros without bias) and the activation code of tanh (4) or relu
(1). A bidirectional layer is one operation with ``merge_outputs``, its output the forward and
backward outputs side by side on the last dim, as torch's. ``batch_first`` is NNAPI's
``time_major`` = 0 / false (an INT32 for UNIDIRECTIONAL_SEQUENCE_RNN, a BOOL for the
bidirectional one): the input is read as it is.

Initial states (``h0``, or the zeros nn.RNN makes) are split per layer and direction. The final
state ``h_n``: from API 30 the operations' state outputs (CONCATENATION, RESHAPE into
``[layers * directions, B, H]``); at API 29, each layer's output at its last step (a SLICE per
layer and direction: the backward direction's last step is step 0).

Float only: NNAPI has no 8-bit form of its sequence RNNs (their operand types are float32 and
float16), so a quantized program's RNN stays a float island (no 8-bit form).
"""

from __future__ import annotations

import torch
from torch.fx import Node

from ..graph import identity
from ..lowering_context import LoweringContext
from ..nnapi_codes import FeatureLevel, FuseCode, OperandCode, OperationCode
from ..node_utils import aten_op, tensor_shape
from . import _recurrent_export
from ._recurrent import (STATE_OUTPUTS_SINCE, RecurrentCall, check_call, combined_bias, emit_final_states,
                         emit_last_steps, initial_states, weight)
from .node_builder import CheckContext, NodeBuilder, OpSupport
from .registry import register_builder

aten = torch.ops.aten

# NNAPI's RNN activation codes: those of the fused activations, with tanh as 4.
_ACTIVATION = {aten.rnn_tanh.input: 4, aten.rnn_relu.input: int(FuseCode.RELU)}

# nn.RNN exports over a dynamic length only with these shapes (builders/_recurrent_export.py).
_recurrent_export.install()

_FORM = ("UNIDIRECTIONAL_SEQUENCE_RNN / BIDIRECTIONAL_SEQUENCE_RNN per layer (+ SPLIT, CONCATENATION, RESHAPE "
         "of states; SLICE for h_n at API 29)")
_CONSTRAINTS = ("float32, constant weights, any number of layers, bidirectional, batch_first, dynamic length and "
                "batch; no dropout in training")


@register_builder
class RnnBuilder(NodeBuilder):
    """nn.RNN (tanh, relu) -> one UNIDIRECTIONAL_ / BIDIRECTIONAL_SEQUENCE_RNN per layer (dynamic length)."""

    ops = (
        OpSupport(aten.rnn_tanh.input, FeatureLevel.ANDROID_10, _FORM, _CONSTRAINTS, keep=True, cpu_kernel=False),
        OpSupport(aten.rnn_relu.input, FeatureLevel.ANDROID_10, _FORM, _CONSTRAINTS, keep=True, cpu_kernel=False),
    )

    def check(self, node: Node, ctx: CheckContext) -> None:
        check_call(RecurrentCall.of(node), ctx, 1)

    def define(self, node: Node, lc: LoweringContext) -> None:
        call = RecurrentCall.of(node)
        g = lc.graph
        steps, batch = call.time_and_batch
        width = tensor_shape(call.states[0])[-1]
        h_n = call.output_user(1)
        with_states = h_n is not None and g.feature_level >= STATE_OUTPUTS_SINCE
        if with_states:
            g.require_feature_level(STATE_OUTPUTS_SINCE)
        h0 = initial_states(lc, call.states[0], call.num_layers * call.directions, batch, width, f"{node.name}.h0")
        activation = g.emit_int32(_ACTIVATION[aten_op(node)])
        x = lc.operand(call.input, identity(3))
        output_user = call.output_user(0)
        final_h: list[int] = []
        layer_outputs: list[int] = []
        for layer in range(call.num_layers):
            name = f"{node.name}.l{layer}"
            shape = [batch, steps, call.directions * width] if call.batch_first else \
                [steps, batch, call.directions * width]
            last = layer == call.num_layers - 1
            out = lc.emit_output(output_user) if last and output_user is not None else g.emit_tensor(shape, debug_name=name)
            states = [g.emit_tensor([batch, width], debug_name=f"{name}.h{d}")
                      for d in range(call.directions)] if with_states else []
            cells = [self._cell_operands(lc, call, layer, d, h0[layer * call.directions + d])
                     for d in range(call.directions)]
            if call.directions == 1:
                inputs = [x, *cells[0], activation, g.emit_int32(0 if call.batch_first else 1)]
                code = OperationCode.UNIDIRECTIONAL_SEQUENCE_RNN
            else:
                input_width = tensor_shape(call.cell(layer, 0).w_ih)[1]
                aux = [g.emit_omitted(OperandCode.TENSOR_FLOAT32, [1, 1, input_width]),
                       g.emit_omitted(OperandCode.TENSOR_FLOAT32, [width, input_width]),
                       g.emit_omitted(OperandCode.TENSOR_FLOAT32, [width, input_width])]
                inputs = [x, *cells[0], *cells[1], *aux, activation, g.emit_bool(not call.batch_first),
                          g.emit_bool(True)]
                code = OperationCode.BIDIRECTIONAL_SEQUENCE_RNN
            g.emit_operation(code, inputs, [out, *states], debug_name=name)
            final_h += states
            layer_outputs.append(out)
            x = out
        if h_n is not None:
            if with_states:
                emit_final_states(lc, h_n, final_h, batch, width)
            else:
                emit_last_steps(lc, h_n, layer_outputs, call, width)

    @staticmethod
    def _cell_operands(lc: LoweringContext, call: RecurrentCall, layer: int, direction: int, state: int) -> list[int]:
        """One direction's weights [H, I], recurrent weights [H, H], bias [H] and initial state [B, H]."""
        g = lc.graph
        cell = call.cell(layer, direction)
        name = f"{call.node.name}.l{layer}{'.bw' if direction else ''}"
        w_ih = weight(lc, cell.w_ih)
        return [g.emit_constant_tensor(w_ih.contiguous(), debug_name=f"{name}.weights"),
                g.emit_constant_tensor(weight(lc, cell.w_hh).contiguous(), debug_name=f"{name}.recurrent_weights"),
                g.emit_constant_tensor(combined_bias(lc, cell, w_ih.shape[0]).contiguous(), debug_name=f"{name}.bias"),
                state]
