"""NnapiQuantizer: PT2E annotations for what NNAPI runs in 8-bit integers.

Use with torchao's ``prepare_pt2e`` / ``convert_pt2e``; the converted program's
``dq -> op -> q`` groups are then lowered as quantized NNAPI operations
(lowering/patterns/quantized_op.py, lowering/builders/quantized_op.py).

What it annotates follows NNAPI's rules (docs/nnapi_facts.md §8, §9):
- conv2d (plain, depthwise, grouped, transposed): weights symmetric int8 per
  output channel (TENSOR_QUANT8_SYMM_PER_CHANNEL, API 29+), or uint8 per tensor
  below API 29; linear: per-tensor weights of the activations' type
  (FULLY_CONNECTED has no per-channel filter); an int32 bias whose scale is input scale x weight
  scale (NNAPI checks this at execution);
- activations asymmetric uint8 (TENSOR_QUANT8_ASYMM), or int8
  (TENSOR_QUANT8_ASYMM_SIGNED, API 30+) with ``signed=True``;
- relu / relu6 / hardtanh(-1, 1) after conv, linear or add fused into it (no
  q/dq between, so the pair becomes one NNAPI operation with a fused activation);
- ops whose NNAPI output must carry the input's scale and zero point (pools,
  mean, reshape-like ops, concatenation inputs) share one observer;
- LOGISTIC / SOFTMAX (1/256) and TANH (1/128) get NNAPI's fixed output params;
- from API 29: constant pad and nearest upsampling share their input's observer
  (PAD / PAD_V2 / RESIZE_NEAREST_NEIGHBOR keep it); maximum, minimum and where
  (MAXIMUM / MINIMUM / SELECT requantize each input to the output's parameters),
  prelu (PRELU, its alpha quantized like an activation) and leaky_relu (PRELU with
  a constant alpha) get their own output.
  Bilinear upsampling stays float: the rounding of quantized RESIZE_BILINEAR
  depends on the TFLite copy inside a given Android build (docs/nnapi_facts.md §9.14, §11);
- hardswish: HARD_SWISH from API 30; below, rank 1-4 ones as x * hardsigmoid(x);
- hardsigmoid (rank 1-4) gets scale 1/256 with the type's lowest code as zero point,
  so that the 8-bit range itself is hardsigmoid's [0, 1) clamp: it is lowered as
  a 1x1 DEPTHWISE_CONV_2D computing x/6 + 1/2 (NNAPI has no hard sigmoid).
"""

from __future__ import annotations

from typing import Any, Callable

import torch
from torch.fx import GraphModule, Node

from torchao.quantization.pt2e.observer import HistogramObserver, MinMaxObserver, PerChannelMinMaxObserver
from torchao.quantization.pt2e.quantizer import (DerivedQuantizationSpec, FixedQParamsQuantizationSpec,
                                                 QuantizationAnnotation, QuantizationSpec, Quantizer,
                                                 SharedQuantizationSpec)

aten = torch.ops.aten

# Per-channel weights need API 29 (Android 10); signed activations API 30 (Android 11).
PER_CHANNEL_SINCE = 29
SIGNED_SINCE = 30
HARD_SWISH_SINCE = 30
# PAD with the zero point, PAD_V2, RESIZE_NEAREST_NEIGHBOR, MAXIMUM, MINIMUM, SELECT, PRELU (prelu, leaky_relu).
SHAPE_AND_SELECT_SINCE = 29

CONVS = (aten.conv2d.default, aten.conv_transpose2d.input)
LINEAR = (aten.linear.default,)
FUSING = (*CONVS, *LINEAR, aten.add.Tensor, aten.add_.Tensor)
ACTIVATIONS = (aten.relu.default, aten.relu_.default, aten.hardtanh.default, aten.hardtanh_.default)
SAME_Q = (aten.max_pool2d.default, aten.avg_pool2d.default, aten.adaptive_avg_pool2d.default, aten.mean.dim,
          aten.view.default, aten.reshape.default, aten.flatten.using_ints, aten.permute.default,
          aten.dropout.default, *ACTIVATIONS)
BINARY = (aten.add.Tensor, aten.add_.Tensor, aten.mul.Tensor)
INDEPENDENT = (aten.hardswish.default, aten.hardswish_.default)
# (scale, zero point for uint8, zero point for int8): docs/nnapi_facts.md §8.3.
FIXED_OUTPUT = {
    aten.sigmoid.default: (1.0 / 256.0, 0, -128),
    aten.softmax.int: (1.0 / 256.0, 0, -128),
    aten._softmax.default: (1.0 / 256.0, 0, -128),
    aten.tanh.default: (1.0 / 128.0, 128, 0),
}
HARD_SIGMOID = (aten.hardsigmoid.default, aten.hardsigmoid_.default)
HARD_SIGMOID_OUTPUT = (1.0 / 256.0, 0, -128)

# Ops that move or pick codes; annotated from API 29 by NnapiQuantizer._shape_and_select_handler.
PAD_LIKE = (aten.pad.default, aten.constant_pad_nd.default)
NEAREST = (aten.upsample_nearest2d.vec, aten.upsample_nearest2d.default)
REQUANTIZING = (aten.maximum.default, aten.minimum.default)

_ANNOTATION = "quantization_annotation"


def _fusable(act: Node) -> bool:
    """relu, relu6 or hardtanh(-1, 1): what NNAPI's fused-activation operand can express."""
    if act.target in (aten.relu.default, aten.relu_.default):
        return True
    if act.target in (aten.hardtanh.default, aten.hardtanh_.default):
        lo = act.args[1] if len(act.args) > 1 else -1.0
        hi = act.args[2] if len(act.args) > 2 else 1.0
        return (lo, hi) in ((0.0, 6.0), (-1.0, 1.0))
    return False


def _is_float_tensor(node: Any) -> bool:
    val = node.meta.get("val") if isinstance(node, Node) else None
    return isinstance(val, torch.Tensor) and val.dtype == torch.float32


def _annotated(node: Node) -> bool:
    ann = node.meta.get(_ANNOTATION)
    return ann is not None and ann._annotated


def _set(node: Node, inputs: dict[Node, Any], output: Any) -> None:
    node.meta[_ANNOTATION] = QuantizationAnnotation(input_qspec_map=inputs, output_qspec=output, _annotated=True)


class NnapiQuantizer(Quantizer):
    """Annotates an exported (``torch.export.export(...).module()``) model for NNAPI.

    Args:
        feature_level: the lowest NNAPI feature level the model must run on (27..);
            below 29 weights are per-tensor uint8 (no per-channel type).
        signed: int8 activations (TENSOR_QUANT8_ASYMM_SIGNED, API 30+) instead of uint8.
    """

    def __init__(self, feature_level: int = 30, signed: bool = False) -> None:
        super().__init__()
        if signed and feature_level < SIGNED_SINCE:
            raise ValueError(f"signed int8 activations need NNAPI feature level {SIGNED_SINCE}; "
                             f"got feature_level={feature_level} (use signed=False for uint8)")
        self.feature_level = int(feature_level)
        self.signed = signed
        self.per_channel = self.feature_level >= PER_CHANNEL_SINCE
        lo, hi = (-128, 127) if signed else (0, 255)
        self.act_dtype = torch.int8 if signed else torch.uint8
        self.act = QuantizationSpec(self.act_dtype, HistogramObserver.with_args(eps=2**-12), lo, hi,
                                    torch.per_tensor_affine)

    # ------------------------------------------------------------------ specs
    def _weight(self, ch_axis: int, per_channel: bool) -> QuantizationSpec:
        if per_channel:
            # Symmetric per-channel: zero point 0, range [-127, 127] so that -w is representable.
            return QuantizationSpec(torch.int8, PerChannelMinMaxObserver.with_args(ch_axis=ch_axis), -127, 127,
                                    torch.per_channel_symmetric, ch_axis)
        if self.signed:  # TENSOR_QUANT8_ASYMM_SIGNED with zero point 0
            return QuantizationSpec(torch.int8, MinMaxObserver.with_args(qscheme=torch.per_tensor_symmetric),
                                    -127, 127, torch.per_tensor_symmetric)
        return QuantizationSpec(torch.uint8, MinMaxObserver, 0, 255, torch.per_tensor_affine)

    def _bias(self, node: Node, x: Node, weight: Node, per_channel: bool) -> DerivedQuantizationSpec:
        """int32 bias with scale = input scale x weight scale (per channel if the weight is)."""
        def derive(observers: list) -> tuple[torch.Tensor, torch.Tensor]:
            act_scale, _ = observers[0].calculate_qparams()
            w_scale, _ = observers[1].calculate_qparams()
            # NNAPI compares the bias scale with the float32 product of the two.
            scale = (act_scale.to(torch.float32) * w_scale.to(torch.float32)).to(torch.float32)
            return scale, torch.zeros_like(scale, dtype=torch.int32)
        qscheme = torch.per_channel_symmetric if per_channel else torch.per_tensor_symmetric
        return DerivedQuantizationSpec([(x, node), (weight, node)], derive, torch.int32, -(2**31), 2**31 - 1,
                                       qscheme, 0 if per_channel else None)

    def _fixed(self, op: Any) -> FixedQParamsQuantizationSpec:
        scale, zp_u8, zp_s8 = HARD_SIGMOID_OUTPUT if op in HARD_SIGMOID else FIXED_OUTPUT[op]
        lo, hi = (-128, 127) if self.signed else (0, 255)
        return FixedQParamsQuantizationSpec(self.act_dtype, scale, zp_s8 if self.signed else zp_u8, lo, hi,
                                            torch.per_tensor_affine)

    # ------------------------------------------------------------- annotation
    def annotate(self, model: GraphModule) -> GraphModule:
        """Annotates every node of ``model`` that NNAPI runs quantized, in graph order."""
        for node in model.graph.nodes:
            if node.op != "call_function" or _annotated(node) or not _is_float_tensor(node):
                continue
            handler = self._handler(node.target)
            if handler is not None:
                handler(node)
        return model

    def _handler(self, op: Any) -> Callable[[Node], None] | None:
        if op in CONVS or op in LINEAR:
            return self._weighted
        if op in BINARY:
            return self._binary
        if op == aten.cat.default:
            return self._cat
        if op in SAME_Q:
            return self._same_q
        if op in FIXED_OUTPUT:
            return lambda n: _set(n, self._act_inputs(n.args[:1]), self._fixed(n.target))
        if op in HARD_SIGMOID:
            return self._hardsigmoid
        if op in INDEPENDENT:
            return self._hardswish
        return self._shape_and_select_handler(op)

    def _act_inputs(self, args) -> dict[Node, Any]:
        return {a: self._input(a) for a in args if _is_float_tensor(a)}

    def _input(self, a: Node) -> Any:
        """An activation input's spec: the producer's own if that is fixed (sigmoid, hardsigmoid...),
        so that no requantization (dq -> q, a float pair in NNAPI) sits between them."""
        ann = a.meta.get(_ANNOTATION)
        if ann is not None and isinstance(ann.output_qspec, FixedQParamsQuantizationSpec):
            return SharedQuantizationSpec(a)
        return self.act

    def _output(self, node: Node) -> Any:
        """The node's output spec, or None after annotating the relu it fuses with."""
        users = list(node.users)
        if node.target in FUSING and len(users) == 1 and _fusable(users[0]) and not _annotated(users[0]):
            _set(users[0], {}, self.act)
            return None
        return self.act

    def _weighted(self, node: Node) -> None:
        x, weight = node.args[0], node.args[1]
        bias = node.args[2] if len(node.args) > 2 else None
        transposed = node.target == aten.conv_transpose2d.input
        groups = node.args[6] if transposed and len(node.args) > 6 else 1
        if transposed and groups != 1:
            return  # TRANSPOSE_CONV_2D has no groups: leave it float
        # FULLY_CONNECTED has no per-channel weights (nor do convolutions below API 29).
        per_channel = self.per_channel and node.target in CONVS
        # Output channels: dim 0 of conv / linear weights, dim 1 of transposed ones.
        inputs = {x: self._input(x), weight: self._weight(1 if transposed else 0, per_channel)}
        if isinstance(bias, Node):
            inputs[bias] = self._bias(node, x, weight, per_channel)
        _set(node, inputs, self._output(node))

    def _binary(self, node: Node) -> None:
        a, b = node.args[:2]
        if not (_is_float_tensor(a) and _is_float_tensor(b)) or node.kwargs.get("alpha", 1) != 1:
            return  # a scalar operand or alpha: left float
        _set(node, {a: self._input(a), b: self._input(b)}, self._output(node))

    def _same_q(self, node: Node) -> None:
        x = node.args[0]
        if not _is_float_tensor(x) or (node.target in ACTIVATIONS and not _fusable(node)):
            return  # hardtanh bounds other than RELU6's / RELU1's: no quantized NNAPI op
        _set(node, {x: self._input(x)}, SharedQuantizationSpec((x, node)))

    def _hardswish(self, node: Node) -> None:
        # HARD_SWISH from API 30; below, x * hardsigmoid(x) with a DEPTHWISE_CONV_2D gate (rank 1-4).
        x = node.args[0]
        if _is_float_tensor(x) and (self.feature_level >= HARD_SWISH_SINCE or 1 <= x.meta["val"].dim() <= 4):
            _set(node, self._act_inputs([x]), self.act)

    def _hardsigmoid(self, node: Node) -> None:
        x = node.args[0]
        if _is_float_tensor(x) and 1 <= x.meta["val"].dim() <= 4:  # DEPTHWISE_CONV_2D (after a RESHAPE)
            _set(node, {x: self._input(x)}, self._fixed(node.target))

    def _cat(self, node: Node) -> None:
        tensors = [t for t in node.args[0] if _is_float_tensor(t)]
        if not tensors or len(tensors) != len(node.args[0]):
            return
        # One scale for every input and the output: CONCATENATION then copies codes.
        first = (tensors[0], node)
        inputs = {tensors[0]: self.act, **{t: SharedQuantizationSpec(first) for t in tensors[1:]}}
        _set(node, inputs, SharedQuantizationSpec(first))

    # ------------------------------------- pad, resize, maximum / minimum, where, prelu (API 29)
    def _shape_and_select_handler(self, op: Any) -> Callable[[Node], None] | None:
        if self.feature_level < SHAPE_AND_SELECT_SINCE:
            return None  # no quantized PAD (zero point), RESIZE_NEAREST_NEIGHBOR, MAXIMUM... below API 29
        if op in PAD_LIKE:
            return self._pad
        if op in NEAREST:
            return self._same_q
        if op in REQUANTIZING:
            return self._binary
        if op == aten.where.self:
            return self._where
        if op == aten.prelu.default:
            return self._prelu
        if op == aten.leaky_relu.default:  # PRELU with a constant alpha: an output of its own
            return lambda n: _set(n, self._act_inputs(n.args[:1]), self.act)
        return None

    def _pad(self, node: Node) -> None:
        mode = node.args[2] if len(node.args) > 2 else node.kwargs.get("mode", "constant")
        if node.target == aten.pad.default and mode != "constant":
            return  # reflect / replicate: no quantized NNAPI op
        self._same_q(node)

    def _where(self, node: Node) -> None:
        x, y = node.args[1:3]
        if not (_is_float_tensor(x) and _is_float_tensor(y)):
            return  # a number operand: left float
        _set(node, {x: self._input(x), y: self._input(y)}, self.act)

    def _prelu(self, node: Node) -> None:
        x, weight = node.args[:2]
        if not (_is_float_tensor(x) and _is_float_tensor(weight)):
            return
        # PRELU's alpha has the input's operand type, with a scale and zero point of its own.
        lo, hi = (-128, 127) if self.signed else (0, 255)
        alpha = QuantizationSpec(self.act_dtype, MinMaxObserver, lo, hi, torch.per_tensor_affine)
        _set(node, {x: self._input(x), weight: alpha}, self.act)

    def validate(self, model: GraphModule) -> None:
        """Nothing to check after annotation: every annotation above is one NNAPI takes."""


__all__ = ["NnapiQuantizer"]
