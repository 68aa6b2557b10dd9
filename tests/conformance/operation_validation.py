"""Android's operation validation tests (AOSP ``TestValidateOperations.cpp``) on the host driver.

AOSP checks each operation's validation at ``ANeuralNetworksModel_addOperation`` with a generic
procedure applied to valid operand signatures written out per operation: the valid signature is
accepted; changing any one input's or output's operand type to any other available type is
rejected (except for a few listed operations whose operands legitimately take several types);
adding inputs (copies of input 0) or outputs (copies of output 0) is rejected. Operands carry
types only: no values, so this is the validation Android does when an operation is added.

This module implements that procedure (ours) and takes the valid signatures from Android's own
conformance cases (every one-operation case of the vendored specs, deduplicated by operand
types and ranks) rather than from the C++ file, whose per-operation constructors cannot be read
as data. The rank mutations of the C++ file need its per-operation rank constraints and are
not run.
"""

from __future__ import annotations

import ctypes
import dataclasses
from ctypes import POINTER, byref, c_float, c_uint32, c_void_p
from typing import Iterable, Optional

from nnapi_client import NO_ERROR, OperandType, last_error, u32_array
from cts_runner import OP_CODES, PerChannel
from spec_cases import Case

# kAvailableOperandCodes of TestValidateOperations.cpp: FLOAT32 .. TENSOR_QUANT16_ASYMM, and
# TENSOR_OEM_BYTE (10001).
AVAILABLE_CODES = (0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 10001)
QUANTIZED_CODES = {5, 7, 12, 13, 14}
Q8A, Q8AS, Q8S, Q8PC, F16T, F32T, I32T, I32, BOOL = 5, 14, 13, 11, 8, 3, 4, 1, 6


@dataclasses.dataclass(frozen=True)
class Operand:
    """An operand's type as the validation test adds it (no value)."""

    code: int
    dims: tuple[int, ...]
    scale: float
    zero_point: int
    channel_quant: Optional[tuple[int, tuple[float, ...]]] = None

    def retyped(self, code: int) -> "Operand":
        """The same operand with another type code (scale, zero point and dims kept, as AOSP does)."""
        return dataclasses.replace(self, code=code)


@dataclasses.dataclass(frozen=True)
class Signature:
    operation: str
    inputs: tuple[Operand, ...]
    outputs: tuple[Operand, ...]
    source: str                     # the conformance case it was taken from

    @property
    def key(self) -> tuple:
        return (self.operation, tuple((o.code, len(o.dims)) for o in self.inputs),
                tuple((o.code, len(o.dims)) for o in self.outputs))


def signatures(cases: Iterable[Case]) -> list[Signature]:
    """One valid signature per distinct (operation, operand types and ranks) of the one-operation
    cases (IF and WHILE, whose operands refer to models, are left out)."""
    found: dict[tuple, Signature] = {}
    for case in cases:
        if case.expect_failure or case.lifetime or len(case.main.operations) != 1 or case.referenced:
            continue
        name, ins, outs = case.main.operations[0]
        ops = case.main.operands

        def operand(i: int) -> Operand:
            o = ops[i]
            channel = (o.channel_quant[0], tuple(o.channel_quant[1])) if o.channel_quant else None
            return Operand(o.code, tuple(o.dims), o.scale, o.zero_point, channel)

        sig = Signature(name, tuple(operand(i) for i in ins), tuple(operand(i) for i in outs), case.name)
        found.setdefault(sig.key, sig)
    return list(found.values())


def add_operation(lib: ctypes.CDLL, operation: str, inputs: Iterable[Operand], outputs: Iterable[Operand]) -> int:
    """AOSP's OperationTestBase::addOperation: each operand added once, then the operation."""
    model = c_void_p()
    assert lib.ANeuralNetworksModel_create(byref(model)) == NO_ERROR
    keep, ids = [], ([], [])
    try:
        for k, group in enumerate((list(inputs), list(outputs))):
            for o in group:
                dims = (c_uint32 * len(o.dims))(*o.dims) if o.dims else None
                t = OperandType(o.code, len(o.dims), dims, o.scale, o.zero_point)
                keep.append(dims)
                index = sum(len(i) for i in ids)
                lib.ANeuralNetworksModel_addOperand(model, byref(t))
                if o.channel_quant is not None:
                    scales = (c_float * len(o.channel_quant[1]))(*o.channel_quant[1])
                    keep.append(scales)
                    lib.ANeuralNetworksModel_setOperandSymmPerChannelQuantParams(
                        model, index, byref(PerChannel(o.channel_quant[0], len(scales), scales)))
                ids[k].append(index)
        return lib.ANeuralNetworksModel_addOperation(model, OP_CODES[operation], len(ids[0]), u32_array(ids[0]),
                                                     len(ids[1]), u32_array(ids[1]))
    finally:
        lib.ANeuralNetworksModel_free(model)


def _input_codes_to_skip(op: str, i: int, original: int, n_inputs: int) -> set[int]:
    """The input types AOSP's test does not try, because the operation accepts them there."""
    skip: set[int] = set()
    if op in ("TRANSPOSE_CONV_2D", "DEPTHWISE_CONV_2D") and i == 1 and original in (Q8A, Q8AS, Q8PC):
        skip |= {Q8A, Q8AS, Q8PC}
    if op == "CAST" and i == 0:
        skip |= {F16T, F32T, I32T, Q8A, Q8AS}
    if op == "RANDOM_MULTINOMIAL" and i == 0 and original in (F16T, F32T):
        skip |= {F16T, F32T}
    if op == "DEQUANTIZE" and i == 0:
        skip |= {Q8A, Q8AS, Q8S, Q8PC}
    if op == "AXIS_ALIGNED_BBOX_TRANSFORM" and i == 1:
        skip |= {Q8A, Q8AS}
    if op == "QUANTIZE" and i == 0:
        skip |= {F16T, F32T}
    if op in ("ARGMIN", "ARGMAX") and i == 0:
        skip |= {F16T, F32T, I32T, Q8A, Q8AS}
    # CONV_2D input 7 / DEPTHWISE_CONV_2D input 8: INT32 (explicit padding) or BOOL (layout).
    if (op, i, n_inputs) in (("CONV_2D", 7, 10), ("DEPTHWISE_CONV_2D", 8, 11)) and original in (I32, BOOL):
        skip |= {I32, BOOL}
    return skip


def _output_codes_to_skip(op: str, i: int) -> set[int]:
    if op == "DEQUANTIZE":
        return {F16T, F32T}
    if op == "QUANTIZE" and i == 0:
        return {Q8A, Q8AS}
    if op == "CAST" and i == 0:
        return {F16T, F32T, I32T, Q8A}
    return set()


# Extra outputs AOSP accepts (optional state outputs): operation -> how many.
_OPTIONAL_OUTPUTS = {"UNIDIRECTIONAL_SEQUENCE_RNN": 1, "UNIDIRECTIONAL_SEQUENCE_LSTM": 3,
                     "BIDIRECTIONAL_SEQUENCE_RNN": 3, "BIDIRECTIONAL_SEQUENCE_LSTM": 5}


def check(lib: ctypes.CDLL, sig: Signature) -> list[str]:
    """AOSP's testOpsValidations (less the rank mutations) on one signature; the failures."""
    op, ins, outs = sig.operation, list(sig.inputs), list(sig.outputs)
    problems = []
    if add_operation(lib, op, ins, outs) != NO_ERROR:
        return [f"the valid signature of {sig.source} is rejected: {last_error(lib)}"]
    for i, o in enumerate(ins):
        if (op == "LSH_PROJECTION" and i == 1) or op == "RANK":
            continue
        skip = _input_codes_to_skip(op, i, o.code, len(ins))
        for code in AVAILABLE_CODES:
            if code != o.code and code not in skip:
                mutated = ins[:i] + [o.retyped(code)] + ins[i + 1:]
                if add_operation(lib, op, mutated, outs) == NO_ERROR:
                    problems.append(f"input {i} of type {code} instead of {o.code} is accepted")
    for i, o in enumerate(outs):
        if op == "LSH_PROJECTION" and i == 1:
            continue
        for code in AVAILABLE_CODES:
            if code != o.code and code not in _output_codes_to_skip(op, i):
                mutated = outs[:i] + [o.retyped(code)] + outs[i + 1:]
                if add_operation(lib, op, ins, mutated) == NO_ERROR:
                    problems.append(f"output {i} of type {code} instead of {o.code} is accepted")
    for extra in range(1, (3 if op == "LSTM" else 5) + 1):
        if add_operation(lib, op, ins + [ins[0]] * extra, outs) == NO_ERROR:
            problems.append(f"{len(ins) + extra} inputs are accepted")
    if op != "SPLIT":
        for extra in range(1, 7):
            if extra > _OPTIONAL_OUTPUTS.get(op, 0) and add_operation(lib, op, ins, outs + [outs[0]] * extra) == NO_ERROR:
                problems.append(f"{len(outs) + extra} outputs are accepted")
    return [f"{sig.source}: {p}" for p in problems]
