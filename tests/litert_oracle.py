"""LiteRT's reference kernels as an oracle for the host driver's 8-bit integer arithmetic.

``run_single_op`` writes a one-operator ``.tflite`` model with the flatc-generated builders of the
``tflite`` package and runs it on LiteRT with the BUILTIN_REF op resolver (TFLite's reference
kernels, the ones Android's NNAPI CPU implementation grew out of). Constants live in the model's
buffers; the other inputs are fed at run time.
"""

from __future__ import annotations

import dataclasses
from typing import Callable, Optional, Sequence

import flatbuffers
import numpy as np
import tflite
from ai_edge_litert.interpreter import Interpreter, OpResolverType

# tflite TensorType codes for the numpy dtypes the tests use.
_TENSOR_TYPE = {np.dtype(np.float32): tflite.TensorType.FLOAT32, np.dtype(np.int32): tflite.TensorType.INT32,
                np.dtype(np.uint8): tflite.TensorType.UINT8, np.dtype(np.int8): tflite.TensorType.INT8,
                np.dtype(np.int64): tflite.TensorType.INT64, np.dtype(np.bool_): tflite.TensorType.BOOL}


@dataclasses.dataclass
class T:
    """One tensor of the model: its shape and dtype, quantization, and its value if constant."""

    shape: Sequence[int]
    dtype: np.dtype
    scale: Optional[Sequence[float]] = None       # one entry per-tensor, several per-channel
    zero_point: Optional[Sequence[int]] = None
    quantized_dimension: int = 0
    const: Optional[np.ndarray] = None


def q(shape, dtype, scale, zp, const=None, axis: int = 0) -> T:
    """A quantized tensor; `scale` may be a list (per-channel along `axis`)."""
    scales = list(scale) if isinstance(scale, (list, tuple, np.ndarray)) else [scale]
    zps = list(zp) if isinstance(zp, (list, tuple, np.ndarray)) else [zp] * len(scales)
    return T(list(shape), np.dtype(dtype), [float(s) for s in scales], [int(z) for z in zps], axis,
             None if const is None else np.asarray(const, dtype=dtype))


def _int_vector(b: flatbuffers.Builder, start: Callable, values: Sequence[int]) -> int:
    start(b, len(values))
    for v in reversed(values):
        b.PrependInt32(int(v))
    return b.EndVector()


def _quantization(b: flatbuffers.Builder, t: T) -> Optional[int]:
    if t.scale is None:
        return None
    tflite.QuantizationParametersStartScaleVector(b, len(t.scale))
    for s in reversed(t.scale):
        b.PrependFloat32(s)
    scales = b.EndVector()
    tflite.QuantizationParametersStartZeroPointVector(b, len(t.zero_point))
    for z in reversed(t.zero_point):
        b.PrependInt64(z)
    zps = b.EndVector()
    tflite.QuantizationParametersStart(b)
    tflite.QuantizationParametersAddScale(b, scales)
    tflite.QuantizationParametersAddZeroPoint(b, zps)
    tflite.QuantizationParametersAddQuantizedDimension(b, t.quantized_dimension)
    return tflite.QuantizationParametersEnd(b)


def _buffer(b: flatbuffers.Builder, data: Optional[np.ndarray]) -> int:
    raw = None if data is None else b.CreateByteVector(np.ascontiguousarray(data).tobytes())
    tflite.BufferStart(b)
    if raw is not None:
        tflite.BufferAddData(b, raw)
    return tflite.BufferEnd(b)


def build_model(op: int, tensors: Sequence[T], inputs: Sequence[int], outputs: Sequence[int],
                options_type: int = 0, options: Optional[Callable[[flatbuffers.Builder], int]] = None) -> bytes:
    """A .tflite flatbuffer with one operator `op` (a tflite.BuiltinOperator code)."""
    b = flatbuffers.Builder(1024)
    # Buffer 0 is the empty sentinel; every tensor gets its own buffer after it.
    buffers = [_buffer(b, None)] + [_buffer(b, t.const) for t in tensors]
    tensor_offsets = []
    for k, t in enumerate(tensors):
        shape = _int_vector(b, tflite.TensorStartShapeVector, t.shape)
        quant = _quantization(b, t)
        name = b.CreateString(f"t{k}")
        tflite.TensorStart(b)
        tflite.TensorAddShape(b, shape)
        tflite.TensorAddType(b, _TENSOR_TYPE[np.dtype(t.dtype)])
        tflite.TensorAddBuffer(b, k + 1)
        tflite.TensorAddName(b, name)
        if quant is not None:
            tflite.TensorAddQuantization(b, quant)
        tensor_offsets.append(tflite.TensorEnd(b))
    opts = options(b) if options is not None else None
    op_inputs = _int_vector(b, tflite.OperatorStartInputsVector, inputs)
    op_outputs = _int_vector(b, tflite.OperatorStartOutputsVector, outputs)
    tflite.OperatorStart(b)
    tflite.OperatorAddOpcodeIndex(b, 0)
    tflite.OperatorAddInputs(b, op_inputs)
    tflite.OperatorAddOutputs(b, op_outputs)
    if opts is not None:
        tflite.OperatorAddBuiltinOptionsType(b, options_type)
        tflite.OperatorAddBuiltinOptions(b, opts)
    operator = tflite.OperatorEnd(b)

    tflite.SubGraphStartTensorsVector(b, len(tensor_offsets))
    for o in reversed(tensor_offsets):
        b.PrependUOffsetTRelative(o)
    tensors_vec = b.EndVector()
    runtime_inputs = [i for i in inputs if i >= 0 and tensors[i].const is None]
    sg_inputs = _int_vector(b, tflite.SubGraphStartInputsVector, runtime_inputs)
    sg_outputs = _int_vector(b, tflite.SubGraphStartOutputsVector, outputs)
    tflite.SubGraphStartOperatorsVector(b, 1)
    b.PrependUOffsetTRelative(operator)
    ops_vec = b.EndVector()
    tflite.SubGraphStart(b)
    tflite.SubGraphAddTensors(b, tensors_vec)
    tflite.SubGraphAddInputs(b, sg_inputs)
    tflite.SubGraphAddOutputs(b, sg_outputs)
    tflite.SubGraphAddOperators(b, ops_vec)
    subgraph = tflite.SubGraphEnd(b)

    tflite.OperatorCodeStart(b)
    tflite.OperatorCodeAddDeprecatedBuiltinCode(b, min(op, 127))
    tflite.OperatorCodeAddBuiltinCode(b, op)
    tflite.OperatorCodeAddVersion(b, 1)
    opcode = tflite.OperatorCodeEnd(b)

    tflite.ModelStartOperatorCodesVector(b, 1)
    b.PrependUOffsetTRelative(opcode)
    codes = b.EndVector()
    tflite.ModelStartSubgraphsVector(b, 1)
    b.PrependUOffsetTRelative(subgraph)
    subgraphs = b.EndVector()
    tflite.ModelStartBuffersVector(b, len(buffers))
    for o in reversed(buffers):
        b.PrependUOffsetTRelative(o)
    buffers_vec = b.EndVector()
    tflite.ModelStart(b)
    tflite.ModelAddVersion(b, 3)
    tflite.ModelAddOperatorCodes(b, codes)
    tflite.ModelAddSubgraphs(b, subgraphs)
    tflite.ModelAddBuffers(b, buffers_vec)
    b.Finish(tflite.ModelEnd(b), file_identifier=b"TFL3")
    return bytes(b.Output())


def run_single_op(op: int, tensors: Sequence[T], inputs: Sequence[int], outputs: Sequence[int],
                  feeds: Sequence[np.ndarray], options_type: int = 0,
                  options: Optional[Callable[[flatbuffers.Builder], int]] = None) -> list[np.ndarray]:
    """Run the one-op model on LiteRT's reference kernels; `feeds` are the non-constant inputs in order."""
    content = build_model(op, tensors, inputs, outputs, options_type, options)
    it = Interpreter(model_content=content, experimental_op_resolver_type=OpResolverType.BUILTIN_REF)
    it.allocate_tensors()
    for detail, x in zip(it.get_input_details(), feeds):
        it.set_tensor(detail["index"], np.ascontiguousarray(x))
    it.invoke()
    return [it.get_tensor(d["index"]).copy() for d in it.get_output_details()]


def options_of(name: str, **fields) -> Callable[[flatbuffers.Builder], int]:
    """Builder callback for tflite.<name> options, e.g. options_of("Conv2DOptions", StrideW=1)."""

    def build(b: flatbuffers.Builder) -> int:
        getattr(tflite, f"{name}Start")(b)
        for field, value in fields.items():
            getattr(tflite, f"{name}Add{field}")(b, value)
        return getattr(tflite, f"{name}End")(b)

    return build
