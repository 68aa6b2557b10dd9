"""The validation context every operation's `validate` works with, and helpers shared by operations.

An operation module defines::

    NAME = "CONV_2D"; CODE = 3; SINCE = 27
    QUANT_COMPUTE = False            # True once compute() handles quantized tensors
    def validate(c: Ctx) -> None     # checks the operation, sets c.p (params) and output dims
    def compute(ins, p) -> list[Tensor]
    def compute_into(ins, p, outs) -> bool   # optional: see below
    def compute_view(ins, p) -> list | None  # optional, with compute_into: see below

Families of near-identical operations (element-wise unary and binary, comparisons, reductions)
are instead rows of a table in one module each, made into `OperationDef`s with the same attributes.

`validate` runs in three stages (`c.stage`):

* ``ADD`` (addOperation): types, counts and feature levels are known; asking for dims or values
  raises `Deferred`, which ends validation successfully (AOSP validates only the signature here).
  `Ctx.partial_dims` gives the declared dims, for shape checks placed before the first value.
* ``FINISH`` (Model_finish): shapes of operands known so far and constant values are available; an
  unknown dim or a value computed at run time raises `Deferred` and the operation is validated again
  at execution with the actual shapes/values.
* ``RUN``: everything is known.

`compute(ins, p)` receives the input tensors in the operand's storage dtype (float16 is upcast to
float32 by the driver and results are rounded back, as AOSP does), `None` for omitted inputs, Python
scalars for scalar operands, and the params set by `validate` (including each tensor operand's
quantization in `p.in_q` / `p.out_q` so integer kernels can be added per operation). It must not
modify its inputs (they may alias the caller's buffers or constants).

`compute_into(ins, p, outs)` (optional, float32/int32 only: the driver never offers it float16
operations) writes the same results as `compute` into `outs`, contiguous tensors of the outputs'
static shapes and dtypes whose contents are undefined, and returns True; it returns False (having
written nothing) for the cases it does not handle, and the driver then calls `compute`. The driver
reuses memory this way (see host_driver/buffers.py); the results must be bit-identical to `compute`'s,
which is why element-wise and reducing kernels decline non-contiguous inputs (`all_contiguous`):
torch would loop over them in another order than over a contiguous output, and its vectorized and
scalar paths of e.g. sigmoid differ in the last bit. `compute_view(ins, p)` (optional, beside
compute_into) returns the results as views of the inputs when they can be (RESHAPE of a contiguous
tensor), else None; the driver tries it before lending compute_into its buffers.
"""

from __future__ import annotations

import dataclasses
import struct
from typing import Any, Callable, Collection, NoReturn, Optional, Sequence

import torch

from ..errors import bad_data, feature_level_name
from ..operand_types import (  # BOOL, INT32 are re-exported for the operation modules
    BOOL, FLOAT16, FLOAT32, INT32, QUANTIZED, TENSOR_BOOL8, TENSOR_FLOAT16, TENSOR_FLOAT32,
    TENSOR_INT32, TENSOR_QUANT8_ASYMM, TENSOR_QUANT8_ASYMM_SIGNED, TENSOR_QUANT8_SYMM,
    TENSOR_QUANT8_SYMM_PER_CHANNEL, TENSOR_QUANT16_ASYMM, TENSOR_QUANT16_SYMM, OperandType,
    type_name,
)

F32 = TENSOR_FLOAT32
F16 = TENSOR_FLOAT16
I32T = TENSOR_INT32
QA8 = TENSOR_QUANT8_ASYMM
QA8S = TENSOR_QUANT8_ASYMM_SIGNED
QS8 = TENSOR_QUANT8_SYMM
QS8PC = TENSOR_QUANT8_SYMM_PER_CHANNEL
Q16S = TENSOR_QUANT16_SYMM
Q16A = TENSOR_QUANT16_ASYMM
B8T = TENSOR_BOOL8

FL6 = 1000006
FL7 = 1000007
FL8 = 1000008

ADD, FINISH, RUN = "add", "finish", "run"

# Type tables: tensor type -> first feature level accepting it (for an op available since 27).
FLOAT_ONLY_29 = {F32: 29, F16: 29}
FLOAT_QUANT = {F32: 27, QA8: 27, F16: 29, QA8S: 30}          # the common "F16 (29), F32, QA8, QA8S (30)"
FLOAT_QUANT_29 = {F32: 29, F16: 29, QA8: 29, QA8S: 30}       # ops introduced in 29
FLOAT_INT_QUANT_29 = {F32: 29, F16: 29, I32T: 29, QA8: 29, QA8S: 30}


@dataclasses.dataclass(frozen=True)
class OperationDef:
    """An operation defined by one row of a family table instead of a module of its own.

    Its attributes are those of an operation module (upper-case names included), so the
    registry and the driver treat both alike.
    """

    NAME: str
    CODE: int
    SINCE: int
    validate: Callable[["Ctx"], None]
    compute: Callable[[list, "Params"], list]
    QUANT_COMPUTE: bool = False
    compute_into: Optional[Callable[[list, "Params", list], bool]] = None
    compute_view: Optional[Callable[[list, "Params"], Optional[list]]] = None


class Deferred(Exception):
    """Validation needs a shape or value that is not known at this stage."""


class Params:
    """Per-operation parameters decoded by `validate` and handed to `compute`."""

    def __repr__(self) -> str:
        return f"Params({self.__dict__})"


class OperandSource:
    """What a Ctx asks about operands; the driver implements one per stage."""

    stage: str

    def operand(self, idx: int) -> OperandType:
        raise NotImplementedError

    def channel_quant(self, idx: int) -> Optional[tuple[int, tuple[float, ...]]]:
        raise NotImplementedError

    def dims(self, idx: int) -> Optional[tuple[int, ...]]:
        """Best known dims (None = unknown rank, 0 entries unknown)."""
        raise NotImplementedError

    def omitted(self, idx: int) -> bool:
        raise NotImplementedError

    def value(self, idx: int) -> Any:
        """The value (Python scalar or tensor); raises Deferred when not known at this stage."""
        raise NotImplementedError

    def is_constant(self, idx: int) -> bool:
        raise NotImplementedError


class Ctx:
    """Validation context of one operation."""

    def __init__(self, name: str, index: int, level: int, ins: Sequence[int], outs: Sequence[int],
                 src: OperandSource) -> None:
        self.name = name
        self.index = index
        self.level = level
        self.ins = ins
        self.outs = outs
        self.src = src
        self.stage = src.stage
        self.p = Params()
        self.out_dims: list[Optional[tuple[int, ...]]] = [None] * len(outs)

    # -- errors and counts -------------------------------------------------------------------
    def fail(self, msg: str) -> NoReturn:
        raise bad_data(f"{self.name} (operation #{self.index}): {msg}")

    @property
    def n_in(self) -> int:
        return len(self.ins)

    @property
    def n_out(self) -> int:
        return len(self.outs)

    def counts(self, ins: Collection[int], outs: Collection[int] = (1,)) -> None:
        if self.n_in not in ins:
            want = " or ".join(str(n) for n in sorted(ins))
            self.fail(f"expects {want} inputs, got {self.n_in}")
        if self.n_out not in outs:
            want = " or ".join(str(n) for n in sorted(outs))
            self.fail(f"expects {want} outputs, got {self.n_out}")

    def require_level(self, level: int, what: str) -> None:
        if self.level < level:
            self.fail(f"{what} needs feature level {feature_level_name(level)} "
                      f"(configured: {feature_level_name(self.level)})")

    # -- types (known at every stage) -----------------------------------------------------------
    def operand(self, i: int) -> OperandType:
        return self.src.operand(self.ins[i])

    def out_operand(self, j: int) -> OperandType:
        return self.src.operand(self.outs[j])

    def type(self, i: int) -> int:
        return self.src.operand(self.ins[i]).type

    def out_type(self, j: int) -> int:
        return self.src.operand(self.outs[j]).type

    def _check_table(self, code: int, table: dict[int, int], where: str) -> int:
        if code not in table:
            allowed = ", ".join(type_name(t) for t in table)
            self.fail(f"{where} has type {type_name(code)}; allowed: {allowed}")
        if table[code] > self.level:
            self.fail(f"{where} of type {type_name(code)} needs feature level "
                      f"{feature_level_name(table[code])} (configured: {feature_level_name(self.level)})")
        return code

    def tensor(self, i: int, table: dict[int, int], what: str = "") -> int:
        """Check input i's tensor type against `table` (type -> since level); return it."""
        return self._check_table(self.type(i), table, self._in_name(i, what))

    def scalar(self, i: int, code: int | Collection[int], what: str = "") -> int:
        codes = (code,) if isinstance(code, int) else tuple(code)
        t = self.type(i)
        if t not in codes:
            self.fail(f"{self._in_name(i, what)} must be {' or '.join(type_name(c) for c in codes)}, "
                      f"got {type_name(t)}")
        if t in (BOOL, FLOAT16):
            self.require_level(29, f"{self._in_name(i, what)} of type {type_name(t)}")
        return t

    def same_type(self, i: int, j: int, what: str = "") -> None:
        """Input i has input j's type."""
        if self.type(i) != self.type(j):
            self.fail(f"{self._in_name(i, what)} has type {type_name(self.type(i))}, "
                      f"expected {type_name(self.type(j))} like input {j}")

    def float_scalar_for(self, i: int, tensor_input: int, what: str) -> None:
        """A scalar that is FLOAT16 for an F16 tensor and FLOAT32 otherwise."""
        self.scalar(i, FLOAT16 if self.type(tensor_input) == F16 else FLOAT32, what)

    def out_like(self, j: int, i: int, same_q: bool = True) -> None:
        """Output j has input i's type (and, for quantized types, its scale/zeroPoint if same_q)."""
        ot, it = self.out_operand(j), self.operand(i)
        if ot.type != it.type:
            self.fail(f"{self._out_name(j)} has type {type_name(ot.type)}, expected {type_name(it.type)}")
        if same_q and it.type in QUANTIZED and (ot.scale != it.scale or ot.zero_point != it.zero_point):
            self.fail(f"{self._out_name(j)} must have input {i}'s scale/zeroPoint "
                      f"({it.scale:g}, {it.zero_point}), got ({ot.scale:g}, {ot.zero_point})")

    def out_is(self, j: int, code: int) -> None:
        """Output j has type `code` whatever the inputs' type (e.g. TENSOR_BOOL8 of a comparison)."""
        if self.out_type(j) != code:
            self.fail(f"{self._out_name(j)} has type {type_name(self.out_type(j))}, expected {type_name(code)}")

    def out_fixed_q(self, j: int, scales_zps: dict[int, tuple[float, int]]) -> None:
        """Output j's quantization is fixed by the op for quantized types (e.g. LOGISTIC 1/256)."""
        ot = self.out_operand(j)
        if ot.type in scales_zps:
            scale, zp = scales_zps[ot.type]
            if ot.scale != scale or ot.zero_point != zp:
                self.fail(f"{self._out_name(j)} of type {type_name(ot.type)} must have scale {scale:g} "
                          f"and zeroPoint {zp}, got {ot.scale:g} and {ot.zero_point}")

    def _in_name(self, i: int, what: str = "") -> str:
        return f"input {i} ({what})" if what else f"input {i}"

    def _out_name(self, j: int, what: str = "") -> str:
        return f"output {j} ({what})" if what else f"output {j}"

    # -- stage-dependent -------------------------------------------------------------------------
    def omitted(self, i: int) -> bool:
        """Whether optional input i was omitted (setOperandValue(NULL, 0) / setInput(NULL, 0))."""
        if self.stage == ADD:
            raise Deferred
        return self.src.omitted(self.ins[i])

    def rank(self, i: int) -> int:
        d = self.src.dims(self.ins[i])
        if d is None:
            raise Deferred
        return len(d)

    def dims(self, i: int) -> tuple[int, ...]:
        """Input i's dims; defers while any is unknown."""
        if self.stage == ADD:
            raise Deferred
        d = self.src.dims(self.ins[i])
        # A 0 is an unknown dim until execution, where it is a real (zero-sized) dim.
        if d is None or (self.stage == FINISH and 0 in d):
            raise Deferred
        return d

    def partial_dims(self, i: int) -> tuple[int, ...]:
        """Input i's dims as far as known at this stage, 0 where a dim is not known yet (at
        addOperation: the declared dims; at execution a 0 is a zero-sized dim); defers only
        while the rank is unknown.

        For shape checks that need no values, run at every stage so that a model whose declared
        shapes already break them is refused when the operation is added.
        """
        d = self.src.dims(self.ins[i])
        if d is None:
            raise Deferred
        return d

    def value(self, i: int, what: str = "") -> Any:
        """Input i's value: a Python scalar for scalar operands, a tensor for tensors."""
        if self.stage == ADD:
            raise Deferred
        if self.src.omitted(self.ins[i]):
            self.fail(f"{self._in_name(i, what)} must not be omitted")
        return _compute_dtype(self.src.value(self.ins[i]))

    def ints(self, i: int, what: str = "") -> list[int]:
        """Values of a TENSOR_INT32 input as a list."""
        return [int(v) for v in self.value(i, what).reshape(-1).tolist()]

    def channel_quant(self, i: int) -> Optional[tuple[int, tuple[float, ...]]]:
        """(channelDim, scales) of a per-channel input; defers at addOperation (set later)."""
        if self.stage == ADD:
            raise Deferred
        return self.src.channel_quant(self.ins[i])

    def const_tensor(self, i: int) -> Optional[torch.Tensor]:
        """Input i's tensor if it is a model constant (to prepare once at Model_finish), else None."""
        if self.stage != FINISH or not self.src.is_constant(self.ins[i]) or self.src.omitted(self.ins[i]):
            return None
        return _compute_dtype(self.src.value(self.ins[i]))

    def set_out(self, j: int, dims: Sequence[int]) -> None:
        """Record output j's inferred dims (the driver checks them against the declared ones)."""
        dims = tuple(int(d) for d in dims)
        if any(d < 0 for d in dims):
            self.fail(f"inferred a negative dimension for {self._out_name(j)}: {list(dims)}")
        self.out_dims[j] = dims

    def axis(self, value: int, rank: int, what: str = "axis", extra: int = 0) -> int:
        """Normalize an axis in [-(rank+extra), rank+extra)."""
        n = rank + extra
        if not -n <= value < n:
            self.fail(f"{what} {value} is out of range [{-n}, {n}) for rank {rank}")
        return value + n if value < 0 else value

    def max_rank(self, i: int, limit: int = 4) -> int:
        r = self.rank(i)
        if r > limit:
            self.fail(f"input {i} has rank {r}; at most {limit} is supported")
        return r

    def quant_params(self) -> None:
        """Record each tensor operand's (scale, zeroPoint) in p.in_q/p.out_q for integer kernels."""
        src = self.src
        self.p.in_q = [(src.operand(x).scale, src.operand(x).zero_point) for x in self.ins]
        self.p.out_q = [(src.operand(x).scale, src.operand(x).zero_point) for x in self.outs]


def _compute_dtype(v: Any) -> Any:
    """float16 tensors are computed in float32 (as AOSP does), so validators see them that way."""
    if isinstance(v, torch.Tensor) and v.dtype == torch.float16:
        return v.float()
    return v


# -- fused activation ---------------------------------------------------------------------------
FUSE_NONE, FUSE_RELU, FUSE_RELU1, FUSE_RELU6 = 0, 1, 2, 3


def fuse_code(c: Ctx, i: int) -> int:
    """Decode the FuseCode input i (its type must already be checked with c.scalar(i, INT32))."""
    code = c.value(i, "fused activation")
    if code not in (0, 1, 2, 3):
        c.fail(f"input {i} (fused activation) must be 0..3 (NONE, RELU, RELU1, RELU6), got {code}")
    if code != FUSE_NONE and c.type(0) == I32T:
        c.fail(f"fused activation must be NONE for {type_name(I32T)} inputs, got {code}")
    return code


def all_contiguous(ins: Sequence[Any]) -> bool:
    """Whether every tensor input is contiguous (see compute_into in the module docstring)."""
    return all(x.is_contiguous() for x in ins if isinstance(x, torch.Tensor))


def activate_(t: torch.Tensor, code: int) -> torch.Tensor:
    """Apply a FuseCode in place to a freshly computed float tensor."""
    if code == FUSE_RELU:
        return t.clamp_(min=0.0)
    if code == FUSE_RELU1:
        return t.clamp_(-1.0, 1.0)
    if code == FUSE_RELU6:
        return t.clamp_(0.0, 6.0)
    return t


# -- layout ---------------------------------------------------------------------------------------
def layout_flag(c: Ctx, i: int, required: bool = False) -> None:
    """Check the optional (or required) BOOL NCHW flag at input i and set c.p.nchw."""
    if c.n_in <= i:
        if required:
            c.fail(f"input {i} (layout BOOL) is required")
        return
    c.scalar(i, BOOL, "NCHW layout")
    c.require_level(29, "the layout input")


def layout_value(c: Ctx, i: int) -> bool:
    """Value of the layout flag checked by layout_flag (False when absent)."""
    if c.n_in <= i:
        return False
    return bool(c.value(i, "NCHW layout"))


def nhwc_dims(dims: Sequence[int], nchw: bool) -> tuple[int, int, int, int]:
    """(N, H, W, C) of a rank-4 shape in the op's layout."""
    if nchw:
        return dims[0], dims[2], dims[3], dims[1]
    return dims[0], dims[1], dims[2], dims[3]


def layout_dims(n: int, h: int, w: int, ch: int, nchw: bool) -> tuple[int, int, int, int]:
    return (n, ch, h, w) if nchw else (n, h, w, ch)


def to_nchw(x: torch.Tensor, nchw: bool) -> torch.Tensor:
    """View an NHWC (or already NCHW) tensor as NCHW; an NHWC buffer becomes a channels_last view."""
    return x if nchw else x.permute(0, 3, 1, 2)


def from_nchw(y: torch.Tensor, nchw: bool) -> torch.Tensor:
    """Back to the op's layout: for NHWC, a channels_last result permutes to a contiguous view."""
    return y if nchw else y.permute(0, 2, 3, 1)


# -- padding and output sizes (docs/nnapi_facts.md §7.3) -------------------------------------------
PADDING_SAME, PADDING_VALID = 1, 2


def implicit_padding(code: int, size: int, stride: int, filt: int, dilation: int = 1) -> tuple[int, int]:
    """(head, tail) padding of one axis for PaddingCode `code` (AOSP calculateExplicitPadding)."""
    if code == PADDING_VALID:
        return 0, 0
    ek = (filt - 1) * dilation + 1
    out = (size + stride - 1) // stride
    total = max(0, (out - 1) * stride + ek - size)
    return total // 2, total - total // 2


def padding_code(c: Ctx, i: int) -> int:
    code = c.value(i, "padding code")
    if code not in (PADDING_SAME, PADDING_VALID):
        c.fail(f"input {i} (padding code) must be 1 (SAME) or 2 (VALID), got {code}")
    return code


def out_size(c: Ctx, axis: str, size: int, filt: int, stride: int, head: int, tail: int,
             dilation: int = 1) -> int:
    ek = (filt - 1) * dilation + 1
    n = size + head + tail - ek
    if n < 0:
        c.fail(f"{axis}: padded input size {size + head + tail} is smaller than the "
               f"{'effective ' if dilation != 1 else ''}filter size {ek}")
    return n // stride + 1


def check_positive(c: Ctx, **values: int) -> None:
    for k, v in values.items():
        if v <= 0:
            c.fail(f"{k} must be > 0, got {v}")


def check_pads(c: Ctx, pads: dict[str, int], limit_w: int, limit_h: int, what: str = "filter") -> None:
    """Pads >= 0 and each smaller than the (effective) filter on its axis (AOSP conv/pool checks)."""
    for k, v in pads.items():
        if v < 0:
            c.fail(f"{k} must be >= 0, got {v}")
        limit = limit_w if k in ("pad_left", "pad_right") else limit_h
        if v >= limit:
            c.fail(f"{k} = {v} must be smaller than the {what} size {limit} on its axis")


def pad_nhwc(x: torch.Tensor, left: int, right: int, top: int, bottom: int, value: float = 0.0,
             nchw: bool = False) -> torch.Tensor:
    """Pad the spatial dims of an NHWC (or NCHW) tensor."""
    if not (left or right or top or bottom):
        return x
    if nchw:
        return torch.nn.functional.pad(x, (left, right, top, bottom), value=value)
    return torch.nn.functional.pad(x, (0, 0, left, right, top, bottom), value=value)


# -- broadcasting (docs/nnapi_facts.md §7.5) -------------------------------------------------------
def broadcast_dims(c: Ctx, a: Sequence[int], b: Sequence[int]) -> tuple[int, ...]:
    n = max(len(a), len(b))
    a = (1,) * (n - len(a)) + tuple(a)
    b = (1,) * (n - len(b)) + tuple(b)
    out = []
    for x, y in zip(a, b):
        if x == y or y == 1:
            out.append(x)
        elif x == 1:
            out.append(y)
        else:
            c.fail(f"input shapes {list(a)} and {list(b)} are not broadcast-compatible")
    return tuple(out)


def f32(x: float) -> float:
    """Round a Python float to float32 (AOSP forms several scale products in float32)."""
    return struct.unpack("<f", struct.pack("<f", x))[0]
