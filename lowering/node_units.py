"""Node units: several FX nodes that lowering emits as one (ONNX Runtime's NodeUnit).

``lowering/patterns/`` finds them (one fixed list of matchers, run once per
program by the partitioner and once per partition by the backend) and hands
each to one builder (``lowering/builders/``). This module is the vocabulary
the two layers share: what a unit holds, not how it is found or emitted.

A unit says two things about itself that its users need:
- ``indivisible``: its inner values cannot cross a partition boundary (rank > 4,
  bool), so the partitioner keeps all of ``nodes`` in one partition;
- ``covered``: the nodes whose verdict and emission belong to the unit's builder
  (the others are still checked and emitted by their own op's builder).
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from typing import Any, ClassVar

from torch.fx import Node

from .nnapi_codes import FuseCode, OperationCode


@dataclasses.dataclass(eq=False)
class NodeUnit:
    """A group of nodes matched as one pattern; compared by identity."""

    indivisible: ClassVar[bool] = True

    @property
    def nodes(self) -> tuple[Node, ...]:
        """Every node of the unit, in graph order."""
        raise NotImplementedError

    @property
    def covered(self) -> tuple[Node, ...]:
        """The nodes the unit's builder checks and emits (default: all)."""
        return self.nodes


@dataclasses.dataclass(eq=False)
class ChannelShuffleUnit(NodeUnit):
    """``x.view(N, g, C/g, H, W).transpose(1, 2)[.contiguous()].view(N, C, H, W)``
    along logical dim ``axis`` of ``input``."""

    input: Node
    split: Node          # view_copy: dim ``axis`` of size C -> [groups, C / groups]
    permute: Node        # permute_copy swapping those two dims
    copy: Node | None    # optional contiguous clone / _clone_dim_order
    merge: Node          # view_copy back to the input's shape: the shuffled result
    axis: int
    groups: int
    # A quantized shuffle (convert_pt2e's ``dq -> view -> q -> dq -> permute ... view -> q``, every
    # quantize / dequantize of the same parameters): the whole chain in graph order, ``input`` being
    # its first dequantize and ``quantize`` its last node. Empty for a float shuffle.
    quantized_chain: tuple[Node, ...] = ()

    @property
    def quantize(self) -> Node | None:
        """The quantize of the shuffled result (a quantized shuffle's output parameters)."""
        return self.quantized_chain[-1] if self.quantized_chain else None

    @property
    def nodes(self) -> tuple[Node, ...]:
        if self.quantized_chain:
            return self.quantized_chain
        return tuple(n for n in (self.split, self.permute, self.copy, self.merge) if n is not None)


@dataclasses.dataclass(eq=False)
class MaskedSoftmaxUnit(NodeUnit):
    """Attention's masked softmax of ``input`` over its logical dim ``dim``:
    ``where(not any(x != -inf), 0, softmax(x))``."""

    input: Node
    dim: int
    softmax: Node
    mask: tuple[Node, ...]   # eq, logical_not, any, logical_not, full_like: bool and fill nodes
    where: Node              # the result

    @property
    def nodes(self) -> tuple[Node, ...]:
        return (self.softmax, *self.mask, self.where)

    @property
    def softmax_used_outside(self) -> bool:
        inside = set(self.nodes)
        return any(u not in inside for u in self.softmax.users)

    @property
    def covered(self) -> tuple[Node, ...]:
        # A softmax something else reads is also emitted (and checked) as itself.
        return (*self.mask, self.where) if self.softmax_used_outside else self.nodes


@dataclasses.dataclass(eq=False)
class FusedActivationUnit(NodeUnit):
    """``producer [-> batch_norm -> getitem(0)] [-> relu / relu6 / relu1]``: the batch
    norm folded into the producer's weights, the clamp into its fused-activation
    operand. Each node can also be lowered alone, so the unit may be split."""

    indivisible: ClassVar[bool] = False

    producer: Node
    batch_norm: Node | None = None
    batch_norm_output: Node | None = None
    activation: Node | None = None
    fuse_code: FuseCode = FuseCode.NONE

    @property
    def nodes(self) -> tuple[Node, ...]:
        return tuple(n for n in (self.producer, self.batch_norm, self.batch_norm_output, self.activation)
                     if n is not None)

    @property
    def covered(self) -> tuple[Node, ...]:
        return ()  # every node keeps its own builder's check; the producer's builder emits the unit


@dataclasses.dataclass(eq=False)
class QuantizedOpUnit(NodeUnit):
    """``dequantize inputs -> op [-> getitem(0)] [-> relu / relu6 / relu1] -> quantize``
    from a convert_pt2e program: the op computed on 8-bit operands, as one quantized
    NNAPI operation (no DEQUANTIZE / QUANTIZE around it). The dequantized inputs
    are aliases of their quantized sources; the op's result has ``output``'s params."""

    op: Node
    dequants: tuple[Node, ...]   # the dequantize nodes only ``op`` reads (activations, weights, bias)
    value: Node                  # the node holding the op's tensor result: ``op`` or its getitem(0)
    activation: Node | None      # a relu-family node fused into the operation
    output: Node                 # quantize_per_tensor of the result: its scale and zero point
    fuse_code: FuseCode = FuseCode.NONE

    @property
    def nodes(self) -> tuple[Node, ...]:
        chain = (self.value,) if self.value is not self.op else ()
        act = (self.activation,) if self.activation is not None else ()
        return (*self.dequants, self.op, *chain, *act, self.output)


@dataclasses.dataclass(eq=False)
class LocalResponseNormUnit(NodeUnit):
    """``F.local_response_norm`` of a 4-D ``input`` as torch decomposes it: ``x / (k + alpha *
    avg_pool3d(pad(view(x * x, [N, 1, C, H, W]), channels), [size, 1, 1]))^beta``, the pooled
    value squeezed and viewed back to [N, C, H, W]. In a convert_pt2e program a quantize /
    dequantize pair of one scale and zero point may follow any step, and the division reads
    another dequantize of the input's codes (``numerator``)."""

    input: Node                  # x, read by the square (a dequantize in a convert_pt2e program)
    chain: tuple[Node, ...]      # from the square to the power, with the quantize / dequantize pairs
    numerator: Node | None       # the division's own dequantize of x's codes, or None (it reads ``input``)
    output: Node                 # the division: the unit's result
    before: int                  # channels of zeros padded before / after: the window is
    after: int                   # c - before .. c + after, ``size`` = before + after + 1
    alpha: Any                   # the multiplier (a number, or a node known at lowering time)
    bias: Any                    # the added k (likewise)
    beta: float

    @property
    def size(self) -> int:
        return self.before + self.after + 1

    @property
    def nodes(self) -> tuple[Node, ...]:
        return (*self.chain, *((self.numerator,) if self.numerator is not None else ()), self.output)


@dataclasses.dataclass(eq=False)
class WeightOnlyLinearUnit(NodeUnit):
    """A linear with int8 weights and float activations, as torchao's weight-only int8
    form leaves it: ``mm(x, float(int8 weight [transposed])) * scale``, ``scale`` one per
    output feature (or one for the whole weight). Emitted as the int8 codes, a
    DEQUANTIZE with the scales and a float FULLY_CONNECTED, so the weight stays 8-bit."""

    codes: Node                  # the int8 weight constant
    chain: tuple[Node, ...]      # codes -> mm's weight: a cast to float32 and an optional transpose
    transposed: bool             # whether ``chain`` transposes (mm reads ``codes`` as [in, out])
    mm: Node                     # mm(x, weight)
    scale: Node                  # the float32 scales, known at lowering time (not a member)
    output: Node                 # mul(mm, scale): the unit's result

    @property
    def nodes(self) -> tuple[Node, ...]:
        return (*self.chain, self.mm, self.output)


@dataclasses.dataclass(eq=False)
class WeightOnlyEmbeddingUnit(NodeUnit):
    """An embedding lookup in an int8 table with one scale per row, as torchao's weight-only int8
    form leaves it: ``embedding(dequantize_affine(int8 table, [1, dim], scales, zero points), ids)``.
    Emitted as GATHERs of the codes and of the row scales, a DEQUANTIZE and a MUL, so the table
    stays 8-bit and only the rows looked up are converted."""

    codes: Node                  # the int8 table constant, [rows, dim]
    scale: Node                  # the float32 scale per row, known at lowering time (not a member)
    zero_point: Node | None      # the zero point per row, known at lowering time (not a member)
    dequantize: Node             # dequantize_affine(codes, ...)
    output: Node                 # embedding(dequantize, ids): the unit's result

    @property
    def nodes(self) -> tuple[Node, ...]:
        return (self.dequantize, self.output)


# ------------------------------------------------------------ view chains
@dataclasses.dataclass(frozen=True)
class Layout:
    """A view-chain value as a view of ``base`` (see patterns/view_chain.py).

    ``factors`` lists (id, size) in the base's row-major order, sizes > 1;
    ``fixed`` maps a selected factor id to its index; ``order`` lists the other
    factor ids in this value's element order; ``groups`` gives, per logical
    dim, how many consecutive ids of ``order`` it spans (0 for a size-1 dim).
    ``tiled`` lists the factors an expand added (in ``factors`` where the base is
    tiled to hold them: they are not in the base itself).
    """

    base: Node | None
    base_shape: tuple[int, ...]
    factors: tuple[tuple[int, int], ...]
    fixed: tuple[tuple[int, int], ...]
    order: tuple[int, ...]
    groups: tuple[int, ...]
    tiled: tuple[int, ...] = ()

    @property
    def sizes(self) -> dict[int, int]:
        return dict(self.factors)

    def dims(self) -> list[list[int]]:
        """Factor ids of each logical dim."""
        out, it = [], iter(self.order)
        for count in self.groups:
            out.append(list(itertools.islice(it, count)))
        return out

    def shape(self) -> list[int]:
        sizes = self.sizes
        return [math.prod(sizes[f] for f in dim) for dim in self.dims()]

    def is_plain(self) -> bool:
        """Whether the value is the base reshaped (nothing selected or tiled, base element order)."""
        return not self.fixed and not self.tiled and list(self.order) == [f for f, _ in self.factors]


@dataclasses.dataclass(frozen=True)
class EndPlan:
    """How one end of a view chain is emitted from its base (sizes may be symbolic)."""

    layout: Layout
    slice_shape: tuple[int, ...] | None      # base reshaped for STRIDED_SLICE (None: nothing selected)
    slice_begin: tuple[int, ...]
    slice_end: tuple[int, ...]
    free_shape: tuple[int, ...]              # RESHAPE target: the free factors, merged where possible
    relabel: tuple[int, ...] | None          # dim order of the result if no TRANSPOSE is needed
    perm: tuple[int, ...]                    # else TRANSPOSE perm, then RESHAPE to out_shape
    out_shape: tuple[int, ...]
    # Before anything else, per factor an expand added: the base RESHAPEd to [outer, 1, inner] and
    # TILEd to [outer, n, inner] (outer, n, inner per entry, in the order they are applied).
    tiles: tuple[tuple[int, int, int], ...] = ()
    # A transpose of more than 4 merged dims is done in steps: after the first (free_shape, perm),
    # each further step RESHAPEs to its shape (the data as it lies after the last step) and TRANSPOSEs.
    later_transposes: tuple[tuple[tuple[int, ...], tuple[int, ...]], ...] = ()


@dataclasses.dataclass(frozen=True)
class ElementwisePlan:
    """An elementwise op inside a view chain, run on its value with size-1 dims dropped (and, past
    rank 4, consecutive dims merged where the other operand broadcasts alike)."""

    code: OperationCode
    input_layout: Layout
    region_arg: int                      # which argument comes from the chain (0 or 1)
    other: Any                           # the constant node, Python number or rank <= 4 run-time value
    squeezed_shape: tuple[int, ...]      # the result without its size-1 dims (rank <= 4)
    out_shape: tuple[int, ...]
    # A run-time ``other``: the rank > 4 plain views of it the op reads (members of the
    # unit, never emitted), and its shape with the result's size-1 dims dropped.
    other_views: tuple[Node, ...] = ()
    other_shape: tuple[int, ...] | None = None
    # The result's dims of size > 1 behind each dim of squeezed_shape (one each unless merged).
    merged_dims: tuple[tuple[int, ...], ...] = ()


@dataclasses.dataclass(eq=False)
class ViewChainUnit(NodeUnit):
    """View-like ops through rank > 4 values from one rank <= 4 ``input`` to rank <= 4
    ends, emitted at rank <= 4 (or, with ``refusal``, why that is impossible)."""

    input: Node
    members: list[Node] = dataclasses.field(default_factory=list)
    ends: dict[Node, EndPlan] = dataclasses.field(default_factory=dict)
    elementwise: dict[Node, ElementwisePlan] = dataclasses.field(default_factory=dict)
    refusal: str = ""

    @property
    def nodes(self) -> tuple[Node, ...]:
        return tuple(self.members)
