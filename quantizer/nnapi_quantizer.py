"""NnapiQuantizer: PT2E annotations for what NNAPI runs in 8-bit integers.

Use with torchao's ``prepare_pt2e`` / ``convert_pt2e``; the converted program's
``dq -> op -> q`` groups are then lowered as quantized NNAPI operations
(lowering/patterns/quantized_op.py, lowering/builders/quantized_op.py).

Which op it annotates, how and from which feature level is each builder's quantization
declaration (lowering/builders/quantization.py, on the op's OpSupport row); this file
holds the handlers, one per kind of declaration, and the specs. What it annotates
follows NNAPI's rules (docs/nnapi_facts.md §8, §9):
- conv2d (plain, depthwise, grouped, transposed): weights symmetric int8 per
  output channel (TENSOR_QUANT8_SYMM_PER_CHANNEL, API 29+), or uint8 per tensor
  below API 29; linear: per-tensor weights of the activations' type
  (FULLY_CONNECTED has no per-channel filter), their one range the one of least L2 error
  (HistogramObserver) rather than min / max; an int32 bias whose scale is input scale x weight
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
- from API 30: bilinear upsampling shares its input's observer (RESIZE_BILINEAR keeps it
  and truncates the interpolated codes, docs/nnapi_facts.md §9.14);
- hardswish: HARD_SWISH from API 30; below, rank 1-4 ones as x * hardsigmoid(x);
- silu (rank 1-4) is rewritten as x * sigmoid(x) before annotation (LOGISTIC and MUL in 8 bits;
  NNAPI has no SiLU), and aten.alias (a full-range slice) as its input (transform_for_annotation; both declared on their builders);
- hardsigmoid (rank 1-4) gets scale 1/256 with the type's lowest code as zero point,
  so that the 8-bit range itself is hardsigmoid's [0, 1) clamp: it is lowered as
  a 1x1 DEPTHWISE_CONV_2D computing x/6 + 1/2 (NNAPI has no hard sigmoid).
"""

from __future__ import annotations

import operator

from typing import Any, Callable

import torch
from torch.fx import GraphModule, Node

from torchao.quantization.pt2e.observer import HistogramObserver, MinMaxObserver, PerChannelMinMaxObserver
from torchao.quantization.pt2e.quantizer import (DerivedQuantizationSpec, FixedQParamsQuantizationSpec,
                                                 QuantizationAnnotation, QuantizationSpec, Quantizer,
                                                 SharedQuantizationSpec)

from ..lowering.builders import QuantKind, Quantization, quantization_declarations
from ..lowering.nnapi_codes import PER_CHANNEL_SINCE, SIGNED_SINCE, FeatureLevel

_ANNOTATION = "quantization_annotation"


def _is_float_tensor(node: Any) -> bool:
    val = node.meta.get("val") if isinstance(node, Node) else None
    return isinstance(val, torch.Tensor) and val.dtype == torch.float32


def _annotated(node: Node) -> bool:
    ann = node.meta.get(_ANNOTATION)
    return ann is not None and ann._annotated


def _quantized_result(x: Node) -> bool:
    """Whether an op keeping its input's parameters (a view, permute, pool, resize...) reading ``x``
    should be quantized: not after an op left float.

    A view of a float result (layer_norm's, or Swin's rank-5 mask add, which has no 8-bit form)
    stays float: quantized, it would put a quantize on that result where NNAPI may not hold it
    (a rank-5 value inside a view chain); the next 8-bit op's own input observer quantizes after it.
    """
    if x.op != "call_function":
        return True  # a model input or a constant: observed as before
    if x.target is operator.getitem:
        return _quantized_result(x.args[0])
    ann = x.meta.get(_ANNOTATION)
    return ann is not None and ann._annotated and ann.output_qspec is not None


def _brings_codes(x: Any) -> bool:
    """Whether ``x`` is a value an 8-bit op can take its codes from: a model input or a result the
    quantizer annotated. A constant or a result left float (a float op's, a custom op's) is not."""
    if not isinstance(x, Node) or x.op == "get_attr":
        return False
    if x.op != "call_function":
        return x.op == "placeholder"
    if x.target is operator.getitem:
        return _brings_codes(x.args[0])
    return _annotated(x) and x.meta[_ANNOTATION].output_qspec is not None


def _read_in_8_bits(node: Node, user: Node) -> bool:
    """Whether ``user`` reads ``node`` as an 8-bit value (an input of its annotation)."""
    ann = user.meta.get(_ANNOTATION)
    return ann is not None and ann._annotated and node in ann.input_qspec_map


def _schema(node: Node) -> Any:
    return getattr(node.target, "_schema", None) if node.op == "call_function" else None


def _is_view(node: Node) -> bool:
    """An op whose result aliases its first argument without writing it (select, slice, view...)."""
    schema = _schema(node)
    return (schema is not None and len(schema.returns) == 1 and schema.returns[0].alias_info is not None
            and not schema.returns[0].alias_info.is_write and isinstance(node.args[0], Node))


def _view_base(node: Node) -> Node:
    while _is_view(node):
        node = node.args[0]
    return node


def _written_base(node: Node) -> Node | None:
    """The value an in-place op writes into through its first argument (copy_, fill_...), or None."""
    schema = _schema(node)
    if schema is None or not schema.arguments or not isinstance(node.args[0] if node.args else None, Node):
        return None
    alias = schema.arguments[0].alias_info
    return _view_base(node.args[0]) if alias is not None and alias.is_write else None


def _aliases(node: Node, base: Node) -> bool:
    return _view_base(node) is base


def _readers_of(base: Node) -> list[Node]:
    """The nodes reading ``base`` or a view of it."""
    readers, stack = [], list(base.users)
    while stack:
        user = stack.pop()
        readers.append(user)
        if _is_view(user):
            stack.extend(user.users)
    return readers


def _set(node: Node, inputs: dict[Node, Any], output: Any) -> None:
    node.meta[_ANNOTATION] = QuantizationAnnotation(input_qspec_map=inputs, output_qspec=output, _annotated=True)


class NnapiQuantizer(Quantizer):
    """Annotates an exported (``torch.export.export(...).module()``) model for NNAPI.

    Args:
        feature_level: the lowest NNAPI feature level the model must run on: an Android API
            level 27..35 or a feature level (``FeatureLevel.parse``, docs/feature_levels.md);
            below 29 weights are per-tensor uint8 (no per-channel type).
        signed: int8 activations (TENSOR_QUANT8_ASYMM_SIGNED, API 30+) instead of uint8.
    """

    def __init__(self, feature_level: int = 30, signed: bool = False) -> None:
        super().__init__()
        # The code, not the API level: 34 is feature level 8 (1000008), above every 8-bit form's level.
        feature_level = FeatureLevel.parse(feature_level)
        if signed and feature_level < SIGNED_SINCE:
            raise ValueError(f"signed int8 activations need NNAPI feature level {int(SIGNED_SINCE)}; "
                             f"got feature_level={feature_level} (use signed=False for uint8)")
        self.feature_level = int(feature_level)
        self.signed = signed
        self.per_channel = self.feature_level >= PER_CHANNEL_SINCE
        lo, hi = (-128, 127) if signed else (0, 255)
        self.act_dtype = torch.int8 if signed else torch.uint8
        self.act = QuantizationSpec(self.act_dtype, HistogramObserver.with_args(eps=2**-12), lo, hi,
                                    torch.per_tensor_affine)
        # The builders' declarations: which op is annotated, how and from which level.
        self.declared = quantization_declarations()
        self._handlers: dict[QuantKind, Callable[[Node, Quantization], None]] = {
            QuantKind.WEIGHTED: self._weighted, QuantKind.SAME_PARAMETERS: self._same_q,
            QuantKind.FIXED_OUTPUT: self._fixed_output, QuantKind.REQUANTIZING: self._requantizing}

    # ------------------------------------------------------------------ specs
    def _weight(self, ch_axis: int, per_channel: bool) -> QuantizationSpec:
        if per_channel:
            # Symmetric per-channel: zero point 0, range [-127, 127] so that -w is representable.
            return QuantizationSpec(torch.int8, PerChannelMinMaxObserver.with_args(ch_axis=ch_axis), -127, 127,
                                    torch.per_channel_symmetric, ch_axis)
        # One scale for the whole tensor (FULLY_CONNECTED at every level, convolutions below API 29):
        # a min / max range is set by the tensor's few largest weights and leaves the typical output
        # channel few codes. HistogramObserver takes the range of least L2 quantization error
        # (clipping those few). torchvision regnet_y_400mf (random norms, 64 held-out inputs): its
        # final linear alone put min / max 1.4 dB of SQNR below XNNPACK's per-channel weights
        # (36.1 against 37.5 dB), this 0.8 dB (36.8).
        if self.signed:  # TENSOR_QUANT8_ASYMM_SIGNED with zero point 0
            return QuantizationSpec(torch.int8, HistogramObserver.with_args(qscheme=torch.per_tensor_symmetric),
                                    -127, 127, torch.per_tensor_symmetric)
        return QuantizationSpec(torch.uint8, HistogramObserver, 0, 255, torch.per_tensor_affine)

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

    def _fixed(self, declared: Quantization) -> FixedQParamsQuantizationSpec:
        scale, zp_u8, zp_s8 = declared.fixed
        lo, hi = (-128, 127) if self.signed else (0, 255)
        return FixedQParamsQuantizationSpec(self.act_dtype, scale, zp_s8 if self.signed else zp_u8, lo, hi,
                                            torch.per_tensor_affine)

    # ------------------------------------------------------------- rewrites
    def transform_for_annotation(self, model: GraphModule) -> GraphModule:
        """Applies, before annotation, the rewrites the builders declare (QuantKind.REWRITTEN: ops
        NNAPI runs in 8 bits only once rewritten, such as silu as x * sigmoid(x)); prepare_pt2e calls
        this, and the converted model keeps the rewritten form, which computes the same."""
        graph = model.graph
        changed = False
        for node in list(graph.nodes):
            if node.op != "call_function" or not _is_float_tensor(node):
                continue
            declared = self.declared.get(node.target)
            if (declared is not None and declared.kind is QuantKind.REWRITTEN and self.feature_level >= declared.since
                    and (declared.check is None or declared.check(node, self.feature_level))):
                declared.rewrite(graph, node)
                changed = True
        if changed:
            graph.lint()
            model.recompile()
        return model

    # ------------------------------------------------------------- annotation
    def annotate(self, model: GraphModule) -> GraphModule:
        """Annotates every node of ``model`` that NNAPI runs quantized, in graph order."""
        for node in model.graph.nodes:
            if node.op != "call_function" or _annotated(node) or not _is_float_tensor(node):
                continue
            declared = self.declared.get(node.target)
            if declared is None or declared.kind not in self._handlers or self.feature_level < declared.since:
                continue
            if declared.check is None or declared.check(node, self.feature_level):
                self._handlers[declared.kind](node, declared)
        self._unannotate_unread(model)
        return model

    def _unannotate_unread(self, model: GraphModule) -> None:
        """Leaves float an op with no 8-bit weights whose result only float operations read, up to
        the model's outputs, without ever coming back to an 8-bit op: its codes would only be rounded
        and dequantized again (a detector's box decoding and softmax, read by its top-k, gathers and
        NMS, which the quantizer leaves float). Users first, so such a chain is left float whole. A
        model output reading the op itself counts as an 8-bit reader (the op's own output parameters,
        as NNAPI gives them); so does a float op whose result comes back to 8 bits (shufflenet's
        split, between 8-bit ops: the ops before it stay 8-bit, the float island stays the split)."""
        back_to_8_bits: dict[Node, bool] = {}  # a float node: some path of float ops reaches an 8-bit read

        def reaches_8_bits(node: Node) -> bool:
            return any(_read_in_8_bits(node, u) or (u.op != "output" and back_to_8_bits.get(u, False))
                       for u in node.users)

        for node in reversed(model.graph.nodes):
            ann = node.meta.get(_ANNOTATION)
            if ann is None or not ann._annotated:
                back_to_8_bits[node] = reaches_8_bits(node)
                continue
            if not ann.input_qspec_map or ann.output_qspec is None:
                continue  # one of a pair with a fused activation (one NNAPI operation)
            declared = self.declared.get(node.target)
            if (declared is None or declared.kind is QuantKind.WEIGHTED or reaches_8_bits(node)
                    or any(u.op == "output" for u in node.users)):
                continue
            del node.meta[_ANNOTATION]
            back_to_8_bits[node] = False

    def _act_inputs(self, args) -> dict[Node, Any]:
        return {a: self._input(a) for a in args if _is_float_tensor(a)}

    def _input(self, a: Node) -> Any:
        """An activation input's spec: the producer's own if that is fixed (sigmoid, hardsigmoid...),
        so that no requantization (dq -> q, a float pair in NNAPI) sits between them."""
        ann = a.meta.get(_ANNOTATION)
        if ann is not None and isinstance(ann.output_qspec, FixedQParamsQuantizationSpec):
            return SharedQuantizationSpec(a)
        return self.act

    def _fusable(self, act: Node) -> bool:
        """relu, relu6 or hardtanh(-1, 1): what NNAPI's fused-activation operand can express."""
        declared = self.declared.get(act.target)
        return (declared is not None and declared.activation
                and (declared.check is None or declared.check(act, self.feature_level)))

    def _output(self, node: Node, declared: Quantization) -> Any:
        """The node's output spec, or None after annotating the relu it fuses with."""
        users = list(node.users)
        if declared.fuses_activation and len(users) == 1 and self._fusable(users[0]) and not _annotated(users[0]):
            _set(users[0], {}, self.act)
            return None
        return self.act

    def _weighted(self, node: Node, declared: Quantization) -> None:
        x, weight = node.args[0], node.args[1]
        bias = node.args[2] if len(node.args) > 2 else None
        # FULLY_CONNECTED has no per-channel weights (nor do convolutions below API 29).
        per_channel = self.per_channel and declared.per_channel
        inputs = {x: self._input(x), weight: self._weight(declared.weight_axis, per_channel)}
        if isinstance(bias, Node):
            inputs[bias] = self._bias(node, x, weight, per_channel)
        _set(node, inputs, self._output(node, declared))

    def _same_q(self, node: Node, declared: Quantization) -> None:
        x = node.args[0]
        if isinstance(x, (list, tuple)):
            self._shared_list(node, x)
        elif _is_float_tensor(x) and _quantized_result(x):
            # Not after an op left float: a view, pool or resize of a float result (a detector's
            # normalized image) stays float with it, quantized once by the next 8-bit op's input.
            _set(node, {x: self._input(x)}, SharedQuantizationSpec((x, node)))

    def _shared_list(self, node: Node, values: list) -> None:
        """cat: one scale for every input and the output (CONCATENATION then copies codes)."""
        tensors = [t for t in values if _is_float_tensor(t)]
        if not tensors or len(tensors) != len(values) or not any(_brings_codes(t) for t in tensors):
            return
        first = (tensors[0], node)
        # A value concatenated twice (cat([z, y, z])) is one input edge: the first's own spec, not
        # one shared with itself (prepare_pt2e would recurse forever on that).
        inputs = {tensors[0]: self.act,
                  **{t: SharedQuantizationSpec(first) for t in tensors[1:] if t is not tensors[0]}}
        _set(node, inputs, SharedQuantizationSpec(first))

    def _fixed_output(self, node: Node, declared: Quantization) -> None:
        tensors = [node.args[i] for i in declared.inputs]
        if not any(_brings_codes(t) for t in tensors):
            return  # after float results only (a custom op's): it stays float with them
        _set(node, self._act_inputs(tensors), self._fixed(declared))

    def _requantizing(self, node: Node, declared: Quantization) -> None:
        tensors = [node.args[i] for i in (*declared.inputs, *(() if declared.alpha is None else (declared.alpha,)))]
        if not all(_is_float_tensor(t) for t in tensors):
            return  # a number operand: left float
        if not any(_brings_codes(t) for t in tensors[:len(declared.inputs)]):
            return  # float results and constants only (a detector's boxes after its NMS): left float
        inputs = {t: self._input(t) for t in tensors[:len(declared.inputs)]}
        if declared.alpha is not None:
            # PRELU's alpha has the input's operand type, with a scale and zero point of its own.
            lo, hi = (-128, 127) if self.signed else (0, 255)
            inputs[tensors[-1]] = QuantizationSpec(self.act_dtype, MinMaxObserver, lo, hi, torch.per_tensor_affine)
        _set(node, inputs, self._output(node, declared))

    def validate(self, model: GraphModule) -> None:
        """Refuses a value an 8-bit op reads after an in-place op wrote into it (every annotation
        above is otherwise one NNAPI takes).

        An exported program keeps in-place writes (``torch.export``'s default IR): torchvision's
        ``batch_images``, for one, writes the image into a zero tensor with ``copy_``. prepare_pt2e
        observes a value where it is made, so calibration and the quantized model would read the
        tensor as it was before the write, silently.
        """
        order = {node: i for i, node in enumerate(model.graph.nodes)}
        for write in model.graph.nodes:
            base = _written_base(write)
            if base is None:
                continue
            for reader in _readers_of(base):
                ann = reader.meta.get(_ANNOTATION)
                read = ann is not None and ann._annotated and any(a in ann.input_qspec_map for a in reader.args
                                                                   if isinstance(a, Node) and _aliases(a, base))
                if read and order[reader] > order[write]:
                    raise ValueError(
                        f"NnapiQuantizer: {write.name} ({write.target}) writes in place into {base.name}, which "
                        f"{reader.name} reads quantized afterwards; PT2E observes a value where it is made, so the "
                        f"quantized model would read {base.name} as it was before the write. Make the write "
                        "functional before exporting (torch.nn.functional.pad, torch.cat or torch.where instead "
                        "of copy_ into a new tensor)")


__all__ = ["NnapiQuantizer"]
