"""The int64 narrowing rule: NNAPI has no 64-bit integers, so an int64 value of a partition is held
in a TENSOR_INT32 operand, and a builder takes a node computing an int64 result only when the
result provably fits int32 (``check_int64_result``, the one place the rule is decided).

What makes it sound is an invariant: every int64 value NNAPI holds equals its PyTorch value.

- A partition input: the runtime narrows it while copying it in and fails the execute, naming the
  input, if a value does not fit int32 (tests/lowering/test_ops_int64_boundary.py).
- A constant: narrowed at lowering time, LoweringError if a value does not fit
  (``graph.narrow_int64``); the rule refuses a node that reads a number or constant outside int32
  earlier, where the partitioner sees the value (ExecuTorch partitions a copy of the program whose
  buffers are fake tensors: an int64 buffer beyond int32 that is only moved is caught at lowering).
- A result computed inside the partition: its bounds, derived below from the bounds of what it
  reads, must lie in int32; the node is refused (stays on the CPU) with its bounds otherwise. A
  result that only moves or selects values (a view, expand, gather, dtype copy between int32 and
  int64) holds values its input held, so it needs no bound of its own.
- A value a loop carries: its first value is one of the above, each next one a result of the loop
  body, so the same holds at every iteration.

So every integer value an NNAPI operation reads lies in int32's range, and bounds follow from
sizes and constants: a 0/1 mask summed along a dim of size n is within [0, n], an argmax in
[0, n), a constant within its least and greatest element. Inside a ``while_loop`` body, the loop's
condition also bounds the values it compares (``i < n`` gives ``i <= max(n) - 1``), so a counter
``i + 1`` fits whenever ``n`` does (``condition_bounds``).
"""

from __future__ import annotations

import math
import operator
from numbers import Number
from typing import Any, Callable, Optional

import torch
from torch.fx import Node

from ..node_utils import aten_op, fake_value, normalize_dim, tensor_dtype, tensor_shape
from ..shape_program import is_static
from ..size_bounds import greatest_value, least_value
from .node_builder import CheckContext, Refused

aten = torch.ops.aten
dim_order_ops = torch.ops.dim_order_ops

Range = tuple[int, int]

INT32_RANGE: Range = (torch.iinfo(torch.int32).min, torch.iinfo(torch.int32).max)


# Integers float32 holds exactly: an int32 value within them may move through float32 operations
# (RESHAPE and CONCATENATION take no TENSOR_INT32 before feature level 6 / at any level).
FLOAT32_EXACT_INTEGERS = 1 << 24


def exact_in_float32(x: Any, ctx: CheckContext) -> bool:
    """Whether every value of int ``x`` (a node of static shape) provably lies within +-2^24."""
    if not isinstance(x, Node) or not all(isinstance(d, int) for d in tensor_shape(x)):
        return False
    r = held_range(x, ctx)
    return r is not None and -FLOAT32_EXACT_INTEGERS <= r[0] and r[1] <= FLOAT32_EXACT_INTEGERS


def fits_int32(r: Optional[Range]) -> bool:
    """Whether every value of ``r`` fits NNAPI's TENSOR_INT32 (None: unknown, no)."""
    return r is not None and INT32_RANGE[0] <= r[0] and r[1] <= INT32_RANGE[1]


def _intersect(a: Range, b: Range) -> Range:
    return max(a[0], b[0]), min(a[1], b[1])


def _union(ranges: list[Optional[Range]]) -> Optional[Range]:
    if not ranges or any(r is None for r in ranges):
        return None
    return min(r[0] for r in ranges), max(r[1] for r in ranges)


def _scaled(r: Range, n: int) -> Range:
    """The values of a sum of between 1 and ``n`` values of ``r``."""
    return min(r[0], n * r[0]), max(r[1], n * r[1])


def held_range(x: Any, ctx: CheckContext) -> Optional[Range]:
    """Bounds of the values NNAPI holds for ``x`` (a tensor node or a Python number): bool
    [0, 1]; an int64 value its computed bounds within int32 (the invariant above: a value outside
    it never reaches an NNAPI operation); an int32 one its computed bounds, or all of int32 where
    PyTorch's arithmetic may wrap; None for floats and unknown values of other dtypes."""
    if isinstance(x, bool):
        return int(x), int(x)
    if isinstance(x, Number):
        return (int(x), int(x)) if float(x).is_integer() else None
    if not isinstance(x, Node):
        return None
    dtype = tensor_dtype(x)
    if dtype == torch.bool:
        return 0, 1
    if dtype is None or dtype.is_floating_point or dtype.is_complex:
        return None
    computed = computed_range(x, ctx)
    if dtype == torch.int64:
        return _intersect(computed, INT32_RANGE) if computed is not None else INT32_RANGE
    info = torch.iinfo(dtype)
    full = (info.min, info.max)
    if computed is None or computed[0] < full[0] or computed[1] > full[1]:
        return full  # PyTorch's fixed-width arithmetic wrapped, or nothing is known
    return computed


def computed_range(node: Node, ctx: CheckContext) -> Optional[Range]:
    """Bounds of ``node``'s integer values as PyTorch computes them from the values NNAPI holds
    for its inputs (``held_range``); None if nothing bounds them. Memoized per context."""
    cache = ctx.range_cache
    if node not in cache:
        cache[node] = None  # a cycle (none in a DAG) reads "unknown"
        cache[node] = _compute(node, ctx)
    return cache[node]


def _known_value(node: Node, ctx: CheckContext) -> Optional[torch.Tensor]:
    """``node``'s value if it is known at lowering time and here (ExecuTorch partitions a copy of
    the program whose parameters and buffers are fake tensors; a constant ``to_edge`` lifted, such
    as the tensor a number operand became, keeps its value on its fake tensor as ``constant``)."""
    from torch._subclasses.fake_tensor import FakeTensor

    if not ctx.is_foldable(node):
        return None
    value = ctx.folded_value(node)
    if value is None and ctx.is_constant(node):
        value = getattr(fake_value(node), "constant", None)
    return value if isinstance(value, torch.Tensor) and not isinstance(value, FakeTensor) else None


def _compute(node: Node, ctx: CheckContext) -> Optional[Range]:
    value = _known_value(node, ctx)
    if value is not None:
        if value.numel() and not value.is_floating_point() and not value.is_complex():
            return int(value.min()), int(value.max())
        return None
    if node.op == "placeholder":
        return _placeholder_range(node, ctx)
    if node.op != "call_function":
        return None
    rule = _RULES.get(aten_op(node))
    return rule(node, ctx) if rule is not None else None


def _placeholder_range(node: Node, ctx: CheckContext) -> Optional[Range]:
    """A control-flow body's placeholder: the outer value's bounds, narrowed by what the loop's
    condition proves (``ctx.placeholder_ranges``); a program input: unknown (int32 once narrowed)."""
    outer = getattr(ctx, "inputs", {}).get(node)
    base = held_range(outer, ctx.outer) if outer is not None else None
    known = ctx.placeholder_ranges.get(node)
    if known is None:
        return base
    return _intersect(base, known) if base is not None else known


def _arg(node: Node, i: int, default: Any = None) -> Any:
    return node.args[i] if len(node.args) > i else default


def _first_input(node: Node, ctx: CheckContext) -> Optional[Range]:
    """An op that moves or selects its first input's values (a view, a copy, a gather...)."""
    return held_range(_arg(node, 0), ctx)


def _all_inputs(node: Node, ctx: CheckContext) -> Optional[Range]:
    """cat: the union of its inputs' bounds."""
    return _union([held_range(x, ctx) for x in _arg(node, 0, [])])


def _where(node: Node, ctx: CheckContext) -> Optional[Range]:
    return _union([held_range(_arg(node, 1), ctx), held_range(_arg(node, 2), ctx)])


def _products(a: Range, b: Range) -> Range:
    values = [x * y for x in a for y in b]
    return min(values), max(values)


def _arithmetic(node: Node, ctx: CheckContext) -> Optional[Range]:
    """add / sub / mul (tensor or number operands, add's and sub's alpha) by interval arithmetic."""
    a, b = held_range(_arg(node, 0), ctx), held_range(_arg(node, 1), ctx)
    if a is None or b is None:
        return None
    op = aten_op(node)
    if op in (aten.mul.Tensor, aten.mul.Scalar):
        return _products(a, b)
    alpha = held_range(node.kwargs.get("alpha", 1), ctx)
    if alpha is None:
        return None
    b = _products(b, alpha)
    if op in (aten.sub.Tensor, aten.sub.Scalar):
        b = (-b[1], -b[0])
    return a[0] + b[0], a[1] + b[1]


def _neg(node: Node, ctx: CheckContext) -> Optional[Range]:
    r = held_range(_arg(node, 0), ctx)
    return (-r[1], -r[0]) if r is not None else None


def _abs(node: Node, ctx: CheckContext) -> Optional[Range]:
    r = held_range(_arg(node, 0), ctx)
    if r is None:
        return None
    return (0 if r[0] <= 0 <= r[1] else min(abs(r[0]), abs(r[1]))), max(abs(r[0]), abs(r[1]))


def _min_max(pick: Callable) -> Callable[[Node, CheckContext], Optional[Range]]:
    def rule(node: Node, ctx: CheckContext) -> Optional[Range]:
        a, b = held_range(_arg(node, 0), ctx), held_range(_arg(node, 1), ctx)
        if a is None or b is None:
            return None
        return pick(a[0], b[0]), pick(a[1], b[1])
    return rule


def _clamp(node: Node, ctx: CheckContext) -> Optional[Range]:
    """clamp(x, lo, hi) with number bounds: x's bounds moved into [lo, hi]."""
    r = held_range(_arg(node, 0), ctx)
    lo, hi = _arg(node, 1, node.kwargs.get("min")), _arg(node, 2, node.kwargs.get("max"))
    if r is None or not all(b is None or isinstance(b, int) for b in (lo, hi)):
        return None
    lo = r[0] if lo is None else lo
    hi = r[1] if hi is None else hi
    return min(max(r[0], lo), hi), min(max(r[1], lo), hi)


def _size_range(size: Any) -> Optional[Range]:
    """Bounds of an integer size (an int, a SymInt, or a node holding one) over the program's ranges."""
    value = fake_value(size) if isinstance(size, Node) else size
    if isinstance(value, int):
        return value, value
    if not isinstance(value, torch.SymInt):
        return None
    env = value.node.shape_env
    least, greatest = least_value(value.node.expr, env), greatest_value(value.node.expr, env)
    return (least, greatest) if least is not None and greatest is not None else None


def _arange(node: Node, ctx: CheckContext) -> Optional[Range]:
    """arange(start, end, step) with number start and step: from start to the last value before
    the greatest end."""
    start, end, step = _arg(node, 0), _arg(node, 1), _arg(node, 2, 1)
    ends = _size_range(end)
    if not isinstance(start, int) or not isinstance(step, int) or step <= 0 or ends is None:
        return None
    count = max(0, -(-(ends[1] - start) // step))
    return start, start + max(count - 1, 0) * step


def _scalar_tensor(node: Node, ctx: CheckContext) -> Optional[Range]:
    """scalar_tensor(n) of an integer size n: n's bounds."""
    return _size_range(_arg(node, 0))


def _static_size(node: Node, dims: Any) -> Optional[int]:
    """The number of elements of ``node``'s dims ``dims`` (None: every dim), if static."""
    shape = tensor_shape(node)
    if dims is None or (isinstance(dims, (list, tuple)) and not dims):
        dims = range(len(shape))
    elif isinstance(dims, int):
        dims = [dims]
    sizes = [shape[normalize_dim(d, len(shape))] for d in dims] if shape else [1]
    if not all(is_static(s) for s in sizes):
        return None
    return math.prod(int(s) for s in sizes)


def _cumsum(node: Node, ctx: CheckContext) -> Optional[Range]:
    """A prefix sum of up to n values, n the static length along ``dim``."""
    r, n = held_range(_arg(node, 0), ctx), _static_size(_arg(node, 0), _arg(node, 1))
    return _scaled(r, n) if r is not None and n else None


def _sum(node: Node, ctx: CheckContext) -> Optional[Range]:
    r, n = held_range(_arg(node, 0), ctx), _static_size(_arg(node, 0), _arg(node, 1))
    if r is None or n is None:
        return None
    return (0, 0) if n == 0 else (n * r[0], n * r[1])


def _arg_index(node: Node, ctx: CheckContext) -> Optional[Range]:
    """argmax / argmin: an index along ``dim`` (every element when None)."""
    n = _static_size(_arg(node, 0), _arg(node, 1))
    return (0, n - 1) if n else None


def _remainder(node: Node, ctx: CheckContext) -> Optional[Range]:
    """x % m with an integer m: in [0, m) (m > 0) or (m, 0] (m < 0), the divisor's sign."""
    m = _arg(node, 1)
    if isinstance(m, bool) or not isinstance(m, int) or m == 0:
        return None
    return (0, m - 1) if m > 0 else (m + 1, 0)


def _picked_index(node: Node, ctx: CheckContext) -> Optional[Range]:
    """The indices of a topk / sort / max.dim / min.dim (``getitem(op, 1)``): an index along its dim."""
    source = _arg(node, 0)
    if _arg(node, 1) != 1 or not isinstance(source, Node) or source.op != "call_function":
        return None
    op = aten_op(source)
    if op is aten.topk.default:
        dim = source.kwargs.get("dim", _arg(source, 2, -1))
    elif op is aten.sort.default:
        dim = source.kwargs.get("dim", _arg(source, 1, -1))
    elif op is aten.sort.stable:
        dim = source.kwargs.get("dim", -1)
    elif op in (aten.max.dim, aten.min.dim):
        dim = _arg(source, 1)
    else:
        return None
    n = _static_size(_arg(source, 0), dim) if isinstance(dim, int) else None
    return (0, n - 1) if n else None


_MOVES = (
    dim_order_ops._to_dim_order_copy.default, dim_order_ops._clone_dim_order.default, aten.clone.default,
    aten.alias_copy.default, aten.view_copy.default, aten.expand_copy.default, aten.permute_copy.default,
    aten.squeeze_copy.dims, aten.squeeze_copy.dim, aten.squeeze_copy.default, aten.unsqueeze_copy.default,
    aten.slice_copy.Tensor, aten.select_copy.int, aten.repeat.default, aten.flip.default, aten.t_copy.default,
    aten.transpose_copy.int, aten.index_select.default, aten.gather.default, aten.index.Tensor, aten.embedding.default,
    aten._to_copy.default, aten.detach_copy.default, aten.type_as.default, aten.contiguous.default,
)

_RULES: dict[Any, Callable[[Node, CheckContext], Optional[Range]]] = {
    **{op: _first_input for op in _MOVES},
    aten.cat.default: _all_inputs,
    aten.where.self: _where,
    # index_put writes values in x's places: a value of either (the indices only choose places).
    aten.index_put.default: lambda node, ctx: _union([held_range(_arg(node, 0), ctx), held_range(_arg(node, 2), ctx)]),
    **{op: _arithmetic for op in (aten.add.Tensor, aten.add.Scalar, aten.sub.Tensor, aten.sub.Scalar,
                                  aten.mul.Tensor, aten.mul.Scalar)},
    aten.neg.default: _neg,
    aten.abs.default: _abs,
    aten.maximum.default: _min_max(max),
    aten.minimum.default: _min_max(min),
    aten.cumsum.default: _cumsum,
    aten.sum.dim_IntList: _sum,
    aten.argmax.default: _arg_index,
    aten.argmin.default: _arg_index,
    operator.getitem: _picked_index,
    aten.remainder.Scalar: _remainder,
    aten.clamp.default: _clamp,
    aten.copy.default: lambda node, ctx: held_range(_arg(node, 1), ctx),  # src's values in self's place
    aten.arange.start_step: _arange,
    aten.scalar_tensor.default: _scalar_tensor,
}


def _describe(r: Optional[Range]) -> str:
    if r is None:
        return "unbounded"
    names = {INT32_RANGE[0]: "INT32_MIN", INT32_RANGE[1]: "INT32_MAX"}
    return f"[{names.get(r[0], r[0])}, {names.get(r[1], r[1])}]"


def int64_refusal(node: Node, ctx: CheckContext) -> Optional[str]:
    """The narrowing rule for a node NNAPI would compute: None if its result is not int64, or is
    int64 provably within int32 (and every number or constant it reads fits int32), else why not."""
    if tensor_dtype(node) != torch.int64:
        return None
    for x in _constant_integers(node, ctx):
        r = held_range(x, ctx) if not isinstance(x, Node) else computed_range(x, ctx)
        if r is not None and not fits_int32(r):
            what = x.name if isinstance(x, Node) else f"the number {x}"
            return (f"reads {what} with values in {_describe(r)}, outside int32 (NNAPI has no 64-bit integers; "
                    "int64 is held in TENSOR_INT32)")
    r = computed_range(node, ctx)
    if fits_int32(r):
        return None
    held = ", ".join(f"{x.name} in {_describe(held_range(x, ctx))}" for x in node.all_input_nodes
                     if held_range(x, ctx) is not None)
    return (f"int64 result in {_describe(r)} may not fit int32 (NNAPI has no 64-bit integers; an int64 value "
            f"computed inside a partition must provably fit TENSOR_INT32{'; from ' + held if held else ''})")


def _constant_integers(node: Node, ctx: CheckContext) -> list[Any]:
    """The numbers and integer tensors known at lowering time that ``node`` reads: they become
    int32 constants. (A value computed at run time outside the partition is narrowed by the
    runtime, range-checked, like any int64 partition input.)"""
    found = []
    for x in (*node.args, *node.kwargs.values()):
        for y in (x if isinstance(x, (list, tuple)) else [x]):
            if isinstance(y, int) and not isinstance(y, bool):
                found.append(y)
            elif isinstance(y, Node) and tensor_dtype(y) in (torch.int32, torch.int64) and ctx.is_foldable(y):
                found.append(y)
    return found


def check_int64_result(node: Node, ctx: CheckContext) -> None:
    """Raises Refused unless ``node``'s result may be held in TENSOR_INT32 (``int64_refusal``)."""
    reason = int64_refusal(node, ctx)
    if reason:
        raise Refused(reason)


# ----------------------------------------------------------------- what a loop condition proves
# A true ``a < b`` bounds ``a`` from above by max(b) - 1 (and ``b`` from below by min(a) + 1).
_BOUNDS = {
    aten.lt.Tensor: ("upper", -1), aten.lt.Scalar: ("upper", -1), aten.le.Tensor: ("upper", 0),
    aten.le.Scalar: ("upper", 0), aten.gt.Tensor: ("lower", 1), aten.gt.Scalar: ("lower", 1),
    aten.ge.Tensor: ("lower", 0), aten.ge.Scalar: ("lower", 0),
}


def _holding_everywhere(value: Any) -> list[Node]:
    """The bool tensors that hold at every element when the one-element ``value`` is true:
    ``all(x)`` (exported as ``not(any(not(x)))``), ``x`` itself, ``any(x)`` of one element, and
    both sides of a logical and (``&`` of bools)."""
    if not isinstance(value, Node) or value.op != "call_function":
        return []
    op = aten_op(value)
    inner = _arg(value, 0)
    if op == aten.logical_not.default and isinstance(inner, Node) and aten_op(inner) in (aten.any.dims, aten.any.dim,
                                                                                            aten.any.default):
        negated = _arg(inner, 0)
        if isinstance(negated, Node) and aten_op(negated) == aten.logical_not.default:
            return _holding_everywhere(_arg(negated, 0)) + [_arg(negated, 0)]
    if op in (aten.all.default, aten.all.dim, aten.all.dims):
        return _holding_everywhere(inner) + [inner]
    if op in (aten.any.default, aten.any.dim, aten.any.dims) and isinstance(inner, Node) \
            and _static_size(inner, None) == 1:
        return _holding_everywhere(inner) + [inner]
    if op in (aten.logical_and.default, aten.bitwise_and.Tensor) and tensor_dtype(value) == torch.bool:
        return [value, *_holding_everywhere(_arg(value, 0)), *_holding_everywhere(_arg(value, 1))]
    return [value]


def _comparison_bound(comparison: Node, ctx: CheckContext) -> list[tuple[Node, Range]]:
    """(placeholder, bounds) a true comparison proves for every element of a placeholder it reads."""
    kind, offset = _BOUNDS[aten_op(comparison)]
    a, b = _arg(comparison, 0), _arg(comparison, 1)
    found = []
    for subject, other, flipped in ((a, b, False), (b, a, True)):
        r = held_range(other, ctx)
        if not (isinstance(subject, Node) and subject.op == "placeholder") or r is None:
            continue
        # Read from the right-hand side, a < b is b > a: the other kind of bound, the offset negated.
        side = ("lower" if kind == "upper" else "upper") if flipped else kind
        step = -offset if flipped else offset
        found.append((subject, (INT32_RANGE[0], r[1] + step) if side == "upper" else (r[0] + step, INT32_RANGE[1])))
    return found


def condition_bounds(graph: torch.fx.Graph, ctx: CheckContext) -> dict[int, Range]:
    """Per placeholder position of a loop condition's graph: the bounds every element of that
    value has whenever the condition is true (``i < n`` -> i <= max(n) - 1), where it proves any."""
    placeholders = [n for n in graph.nodes if n.op == "placeholder"]
    outputs = [n for n in graph.nodes if n.op == "output"]
    result = _arg(outputs[0], 0) if outputs else None
    if isinstance(result, (list, tuple)):
        result = result[0] if len(result) == 1 else None
    bounds: dict[int, Range] = {}
    for held in _holding_everywhere(result):
        if not isinstance(held, Node) or held.op != "call_function" or aten_op(held) not in _BOUNDS:
            continue
        for subject, r in _comparison_bound(held, ctx):
            i = placeholders.index(subject)
            bounds[i] = _intersect(bounds[i], r) if i in bounds else r
    return bounds


__all__ = ["INT32_RANGE", "Range", "check_int64_result", "computed_range", "condition_bounds", "fits_int32",
           "held_range", "int64_refusal"]
