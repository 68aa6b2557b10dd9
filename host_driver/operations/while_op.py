"""WHILE (97): runs the body model while the condition model returns true (docs/nnapi_facts.md §12).

Inputs 2.. are, in order, m input-output operands (the loop's outputs), k state-only operands
(carried but not returned) and n input-only operands; the body returns the m + k carried values,
the condition model one TENSOR_BOOL8 [1]. With zero iterations the outputs are the inputs. A loop
that runs longer than the execution's loop timeout aborts the execution.
"""

from __future__ import annotations

import time

from ..errors import MISSED_DEADLINE_TRANSIENT, DriverError, op_failed
from ..operand_types import TENSOR_BOOL8
from .common import FINISH, Ctx, Deferred
from ._referenced import LOOP_TIMEOUT_NS, check_model_operand, check_operands, run_referenced

NAME, CODE, SINCE = "WHILE", 97, 30
QUANT_COMPUTE = True
RUNS_REFERENCED_MODELS = True

_FIRST_INPUT = 2


def validate(c: Ctx) -> None:
    if c.n_in < _FIRST_INPUT + 1:
        c.fail(f"expects a condition model, a body model and at least one input, got {c.n_in} inputs")
    check_model_operand(c, 0, "condition model")
    check_model_operand(c, 1, "body model")
    cond, body = c.value(0, "condition model"), c.value(1, "body model")
    outer = c.ins[_FIRST_INPUT:]
    check_operands(c, cond, "input", "condition", outer, cond.inputs)
    check_operands(c, body, "input", "body", outer, body.inputs)
    carried = len(body.outputs)
    if not c.n_out <= carried <= len(outer):
        c.fail(f"the body model returns {carried} values; it must return the {c.n_out} outputs' values "
               f"and at most the {len(outer)} inputs'")
    check_operands(c, body, "output", "body", outer[:carried], body.outputs)
    check_operands(c, body, "output", "body", c.outs, body.outputs[:c.n_out])
    if len(cond.outputs) != 1 or cond.operands[cond.outputs[0]].type.type != TENSOR_BOOL8:
        c.fail("the condition model must have exactly one output, of type TENSOR_BOOL8")
    c.p.cond, c.p.body, c.p.carried, c.p.n_out = cond, body, carried, c.n_out
    if c.stage == FINISH:
        raise Deferred  # the outputs' dims are known after the last iteration


def compute(ins, p):
    values = list(ins[_FIRST_INPUT:])
    timeout = LOOP_TIMEOUT_NS.get()
    deadline = time.perf_counter_ns() + timeout
    while True:
        (flag,) = run_referenced(p.cond, values)
        if flag.numel() != 1:
            raise op_failed(f"the condition model returned shape {list(flag.shape)}, not [1]")
        if not bool(flag.reshape(-1)[0]):
            return values[:p.n_out]
        if time.perf_counter_ns() > deadline:
            raise DriverError(MISSED_DEADLINE_TRANSIENT,
                              f"the loop ran longer than the loop timeout ({timeout} ns, setLoopTimeout)")
        values[:p.carried] = run_referenced(p.body, values)
