"""Which ATen ops NNAPI takes, from which feature level, under which constraints.

Derived from the builders (lowering/builders/): each declares its ops' rows
(``OpSupport``: the feature level, the NNAPI operations, the constraints) once,
and this table only gathers them. ``NnapiPartitioner`` consults it for every
node (then the op's builder checks the node's attributes and refuses with a
specific reason), ``executorch-nnapi ops`` prints it.
"""

from __future__ import annotations

from typing import Any

import torch

from executorch_nnapi.lowering.builders import OpSupport, builders
from executorch_nnapi.lowering.node_utils import fake_value, op_name
from executorch_nnapi.lowering.size_bounds import least_value


def support_table() -> tuple[OpSupport, ...]:
    """Every builder's rows, gathered now (so the table cannot drift from them)."""
    return tuple(row for builder in builders() for row in builder.ops)


def table_by_op() -> dict[Any, OpSupport]:
    return {row.op: row for row in support_table()}


def edge_form(op: Any) -> Any:
    """The op ``to_edge`` puts in ``op``'s place: a view op's ``_copy`` variant (``aten.view`` ->
    ``aten.view_copy``, same schema; ExecuTorch's ``ReplaceBrokenOpsWithFunctionalOpsPass`` makes
    that replacement inside a pass, with no function to ask), else ``op``. The partitioner first sees the functional
    program, where views are still views; the table describes the edge program's copies, so a
    view judged as itself would split every proposal at it (16 layers of SmolLM2: 196 pieces
    instead of 66, and the proposal's cost grows with the pieces)."""
    if not isinstance(op, torch._ops.OpOverload) or not op.is_view or op.namespace != "aten":
        return op
    packet = getattr(torch.ops.aten, f"{op.__name__.split('.')[0]}_copy", None)
    return getattr(packet, op._overloadname, op) if packet is not None else op


SUPPORT_TABLE: tuple[OpSupport, ...] = support_table()


# NNAPI states a value's length in 32 bits (ANeuralNetworksOperandType's dimensions and
# setOperandValue's length as the driver sees them): one operand holds at most this many bytes.
NNAPI_MAX_OPERAND_BYTES = 0xFFFFFFFF


def operand_size_refusal(value: Any, what: str) -> str | None:
    """Why a tensor of fixed shape cannot be one NNAPI operand (more than 4 GiB), naming the limit
    and what would fit; None if it can, or if its size is only known at run time (the runtime
    refuses such an execution with the same limit named)."""
    if not isinstance(value, torch.Tensor) or any(not isinstance(d, int) for d in value.shape):
        return None
    element = min(value.element_size(), 4)  # NNAPI has no 64-bit types: int64 is held in int32
    size = value.numel() * element
    if size <= NNAPI_MAX_OPERAND_BYTES:
        return None
    shape = list(value.shape)
    reason = (f"{what} {shape} is {size / 2**30:.2f} GiB; NNAPI holds at most 4 GiB "
              f"({NNAPI_MAX_OPERAND_BYTES:,} bytes) in one operand")
    if shape[0] > 1:
        rows = NNAPI_MAX_OPERAND_BYTES // (size // shape[0])
        reason += f": {rows:,} of its {shape[0]:,} rows would fit"
    if element == 4 and value.is_floating_point():
        reason += f"; in 8 bits it would take {size / 4 / 2**30:.2f} GiB"
    return reason


def empty_size_refusal(node: Any) -> str | None:
    """Why ``node`` cannot be an NNAPI operation because a size of its result or of an input may
    be 0 at run time by the program's ranges (NNAPI has no empty tensors: a count computed from
    the data, such as the rows a bool mask selects, would fail the execution where it is 0)."""
    values = [(fake_value(node), "its result")] + [(fake_value(i), f"its input {i.name}") for i in node.all_input_nodes]
    for value, what in values:
        for v in value if isinstance(value, (tuple, list)) else [value]:
            for d in v.shape if isinstance(v, torch.Tensor) else ():
                if isinstance(d, torch.SymInt) and least_value(d.node.expr, d.node.shape_env) == 0:
                    return f"{what} has a size {d.node.expr} that may be 0 at run time (NNAPI cannot hold an empty tensor)"
    return None


# NNAPI operations take operands of rank <= 4.
MAX_OPERAND_RANK = 4


def merged_view_refusal(node: Any, builder: Any, is_foldable: Any) -> str | None:
    """Why ``builder`` cannot take ``node`` because of a run-time value of rank > 4 it reads or
    produces, else None. Lowering holds such a value as a rank <= 4 view of its bytes (a partition
    input, a 3-D pool's result); only builders declaring ``reads_merged_views`` read those views
    (hiera's attention reached a comparison with a rank-5 input, whose lowering then failed)."""
    if getattr(builder, "reads_merged_views", False):
        return None
    result = fake_value(node)
    values = [(fake_value(i), f"its input {i.name}", "read") for i in node.all_input_nodes if not is_foldable(i)]
    values += [(v, "its result", "produce") for v in (result if isinstance(result, (tuple, list)) else [result])]
    for value, what, verb in values:
        if isinstance(value, torch.Tensor) and value.dim() > MAX_OPERAND_RANK:
            return (f"{what} has rank {value.dim()}: NNAPI holds it as a rank-4 view of its bytes, which "
                    f"{op_name(node.target)}'s lowering cannot {verb} (elementwise unary ops, views, means and "
                    "3-D pools can)")
    return None


# Integer size arithmetic (sym_size, and operator.mul / floordiv / mod ... on SymInts).
SIZE_ARITHMETIC = "shape arithmetic stays on the CPU (the delegate recomputes sizes itself)"

# A tensor read only by ``.item()`` (a language model's ``input_pos[0].item()``): its value is a size.
READ_AS_SIZE = ("its value is read as a size (.item()): ExecuTorch reads it on the CPU and the delegate "
                "takes the size as an integer argument")

# torch.export's range check of a size read from a tensor.
SIZE_CHECK = "a range check of a size read from a tensor (torch.export's runtime assert) stays on the CPU"

# Why an op is absent from the table, for ops users commonly hit.
NO_NNAPI_EQUIVALENT: dict[str, str] = {
    "aten.erf.default": "NNAPI has no erf operation",
    "torchvision.nms.default": "torchvision's nms returns as many boxes as survive, a size the program cannot "
                               "bound; executorch_nnapi.lowering.custom_ops.batched_nms_padded runs NNAPI's "
                               "BOX_WITH_NMS_LIMIT with a fixed number of results",
    "aten.sym_size.int": SIZE_ARITHMETIC,
    "aten._assert_scalar.default": SIZE_CHECK,
}
