"""IF (96): runs the then model or the else model, chosen by a TENSOR_BOOL8 [1] condition, on
inputs 3.. and returns its outputs (docs/nnapi_facts.md §12)."""

from __future__ import annotations

from .common import B8T, FINISH, Ctx, Deferred
from ._referenced import check_model_operand, check_operands, run_referenced

NAME, CODE, SINCE = "IF", 96, 30
# The referenced models' own operations are checked where they are added; IF passes values through.
QUANT_COMPUTE = True
RUNS_REFERENCED_MODELS = True

_FIRST_INPUT = 3


def validate(c: Ctx) -> None:
    if c.n_in < _FIRST_INPUT + 1:
        c.fail(f"expects a condition, two models and at least one input, got {c.n_in} inputs")
    c.tensor(0, {B8T: 30}, "condition")
    check_model_operand(c, 1, "then model")
    check_model_operand(c, 2, "else model")
    then_model, else_model = c.value(1, "then model"), c.value(2, "else model")
    for which, model in (("then", then_model), ("else", else_model)):
        check_operands(c, model, "input", which, c.ins[_FIRST_INPUT:], model.inputs)
        check_operands(c, model, "output", which, c.outs, model.outputs)
    c.p.then_model, c.p.else_model = then_model, else_model
    if c.stage == FINISH:
        raise Deferred  # the outputs' dims are those of the branch taken
    if c.dims(0) != (1,):
        c.fail(f"the condition must have shape [1], got {list(c.dims(0))}")


def compute(ins, p):
    chosen = p.then_model if bool(ins[0].reshape(-1)[0]) else p.else_model
    return run_referenced(chosen, ins[_FIRST_INPUT:])
