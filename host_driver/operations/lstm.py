"""LSTM (16): one time step of a long short-term memory cell (_lstm_cell.py), TENSOR_FLOAT32 since
feature level 27, TENSOR_FLOAT16 since 29.

Inputs: 0 input [batch, input_size]; 1-17 the cell's weights, peephole weights, gate biases and
projection (_lstm_cell.py's order; the input gate's weights and bias, the peepholes and the
projection optional); 18 output state in [batch, output_size]; 19 cell state in [batch, units];
20 INT32 activation; 21 cell clip and 22 projection clip (FLOAT32, FLOAT16 for TENSOR_FLOAT16; 0: no
clipping, negative refused); since feature level 29, 23-26 the optional layer-normalization weights
(the 27-input form). Outputs: 0 scratch buffer [batch, units * 4] ([batch, units * 3] with CIFG),
holding what Android's reference leaves there (the last gate values); 1 output state out
[batch, output_size]; 2 cell state out [batch, units]; 3 output [batch, output_size].

Android checks types and counts at addOperation and the rest when it runs; here the shapes and
omissions are checked at Model_finish when known there, else at each execution.
"""

from __future__ import annotations

from ..operand_types import INT32
from .common import ADD, F16, F32, Ctx, Deferred
from ._lstm_cell import CellLayout, check_cell, check_clip, float_cell, run_sequence, scratch_buffer
from .rnn import activation_code, check_dims, require_present

NAME, CODE, SINCE = "LSTM", 16, 27
QUANT_COMPUTE = False
TYPES = {F32: 27, F16: 29}
LAYER_NORM_SINCE = 29

ACTIVATION, CELL_CLIP, PROJ_CLIP = 20, 21, 22
LAYOUT = CellLayout(first=1, states=(18, 19), layer_norm=None)
LAYOUT_WITH_LAYER_NORM = CellLayout(first=1, states=(18, 19), layer_norm=23)


def _layout(c: Ctx) -> CellLayout:
    return LAYOUT_WITH_LAYER_NORM if c.n_in == 27 else LAYOUT


def validate(c: Ctx) -> None:
    """Counts, types and levels at addOperation; presence, values and shapes when known."""
    c.counts((23, 27), (4,))
    c.tensor(0, TYPES, "input")
    layout = _layout(c)
    names = layout.names()
    for i in range(1, 20):
        c.same_type(i, 0, names[i])
    c.scalar(ACTIVATION, INT32, "activation")
    c.float_scalar_for(CELL_CLIP, 0, "cell clip")
    c.float_scalar_for(PROJ_CLIP, 0, "projection clip")
    if c.n_in == 27:
        c.require_level(LAYER_NORM_SINCE, "the 27-input form (layer normalization weights, inputs 23-26)")
        for i in layout.layer_norms:
            c.same_type(i, 0, names[i])
    for j in range(4):
        c.out_like(j, 0)
    if c.stage == ADD:
        raise Deferred  # Android checks the rest when it runs
    names = {**names, 0: "input", ACTIVATION: "activation", CELL_CLIP: "cell clip", PROJ_CLIP: "projection clip"}
    required = (0, *layout.required(), ACTIVATION, CELL_CLIP, PROJ_CLIP)
    require_present(c, required, [names[i] for i in required])
    c.p.act = activation_code(c, ACTIVATION)
    c.p.cell_clip = check_clip(c, CELL_CLIP, "cell clip")
    c.p.proj_clip = check_clip(c, PROJ_CLIP, "projection clip")
    batch, input_size = check_dims(c, 0, "input", (None, None))
    cfg = check_cell(c, layout, input_size, batch)
    c.p.config, c.p.layout = cfg, layout
    c.set_out(0, (batch, cfg.units * (3 if cfg.cifg else 4)))
    c.set_out(1, (batch, cfg.output_size))
    c.set_out(2, (batch, cfg.units))
    c.set_out(3, (batch, cfg.output_size))


def compute(ins, p):
    """One step: the sequence cell run on a sequence of one."""
    cfg = p.config
    cell = float_cell(ins, p.layout, cfg, p.act, p.cell_clip, p.proj_clip)
    x, h0, c0 = ins[0], ins[p.layout.states[0]], ins[p.layout.states[1]]
    out = x.new_empty((1, x.shape[0], cfg.output_size))
    h, c, scratch = run_sequence(cell, x.unsqueeze(0), None, h0, c0, out, keep_scratch=True)
    gates = 3 if cfg.cifg else 4
    return [scratch_buffer(scratch, x.shape[0], cfg.units, gates, x), h, c, out[0]]
