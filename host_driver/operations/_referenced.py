"""What IF and WHILE share: checking a referenced model's signature against the operation's
operands, and running a referenced model on values (docs/nnapi_facts.md §12).

A referenced model is a finished `Model` given to setOperandValueFromModel; the driver runs it
with a plan of its own (built once, like a compilation's), so its operations are validated and
computed by the same code as a main model's.
"""

from __future__ import annotations

import contextvars
import weakref
from typing import Any, Callable, Sequence

import torch

from ..errors import bad_data
from ..operand_types import MODEL, OperandType, type_name
from .common import Ctx

# The loop timeout of the execution being computed (setLoopTimeout), in nanoseconds.
LOOP_TIMEOUT_NS: contextvars.ContextVar[int] = contextvars.ContextVar("loop_timeout_ns", default=2_000_000_000)

_plans: "weakref.WeakKeyDictionary[Any, Any]" = weakref.WeakKeyDictionary()

# Makes the plan that runs a finished model: compilation.py's Plan, set there (compilation imports
# the operations, so this module cannot import it).
plan_factory: Callable[[Any], Any] | None = None


def check_model_operand(c: Ctx, i: int, what: str) -> None:
    """Input ``i`` must be a MODEL operand."""
    if c.type(i) != MODEL:
        c.fail(f"input {i} ({what}) must be of type MODEL, got {type_name(c.type(i))}")


def _same_operand(a: OperandType, b: OperandType) -> bool:
    """Same type, scale and zero point, and dims that agree wherever both are known."""
    if (a.type, a.scale, a.zero_point) != (b.type, b.scale, b.zero_point):
        return False
    if not a.dims or not b.dims:
        return True
    return len(a.dims) == len(b.dims) and all(x == y or 0 in (x, y) for x, y in zip(a.dims, b.dims))


def check_operands(c: Ctx, model: Any, side: str, which: str, outer: Sequence[int],
                   inner: Sequence[int]) -> None:
    """The referenced model's inputs (or outputs, ``side``) ``inner`` match the operation's operands
    ``outer`` one for one."""
    if len(inner) != len(outer):
        c.fail(f"the {which} model has {len(inner)} {side}s, the operation gives it {len(outer)}")
    for k, (o, i) in enumerate(zip(outer, inner)):
        mine, theirs = c.src.operand(o), model.operands[i].type
        if not _same_operand(mine, theirs):
            c.fail(f"{side} {k} of the {which} model is {theirs.describe()}, but the operation's "
                   f"operand {o} is {mine.describe()}")


def run_referenced(model: Any, values: Sequence[Any]) -> list[Any]:
    """Run the finished ``model`` on ``values`` (one per model input); returns its outputs."""
    plan = _plans.get(model)
    if plan is None:
        plan = _plans[model] = plan_factory(model)
    env = plan.env_template.copy()
    for k, (idx, value) in enumerate(zip(model.inputs, values)):
        declared = model.operands[idx].type.dims
        if isinstance(value, torch.Tensor) and declared and (
                len(declared) != value.dim() or any(d and d != s for d, s in zip(declared, value.shape))):
            raise bad_data(f"input {k} of a referenced model is declared {list(declared)} but receives "
                           f"{list(value.shape)}")
        env[idx] = value
    plan.run(env)
    return [env[i] for i in model.outputs]
