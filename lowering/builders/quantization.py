"""An op's 8-bit behaviour, declared on its builder's OpSupport row (``quantized=``).

One declaration says how NNAPI runs the op on 8-bit operands (docs/nnapi_facts.md §8, §9):
its ``kind`` (which fixes how the output's scale and zero point relate to the
inputs'), from which feature level, and which ops of an exported program
(``torch.export.export(...).module()``, before to_edge's decompositions) NnapiQuantizer
annotates for it. The quantizer derives its annotation table from these
declarations (quantizer/nnapi_quantizer.py), and the quantized-op builder its
dispatch (builders/quantized_op.py); checks that need the converted program's
scales are the builder's ``check_quantized``.
"""

from __future__ import annotations

import dataclasses
import enum
from typing import Any, Callable

import torch
from torch.fx import Node

from ..nnapi_codes import FeatureLevel
from ..node_utils import QuantParams, is_dequantize, quant_params


class QuantKind(enum.Enum):
    """How the 8-bit result's parameters relate to the inputs' (the quantizer's handler follows)."""

    WEIGHTED = "own output parameters; constant 8-bit weights, int32 bias of scale input x weight scale"
    SAME_PARAMETERS = "output keeps the input's scale and zero point"
    FIXED_OUTPUT = "fixed output scale and zero point"
    REQUANTIZING = "own output scale and zero point"
    REWRITTEN = "rewritten before annotation into ops that run in 8 bits"
    FLOAT = "stays float"


@dataclasses.dataclass(frozen=True)
class Quantization:
    """How an op runs in 8 bits (``kind``), from feature level ``since``.

    ``annotates``: the ATen ops of an exported program that NnapiQuantizer annotates for it.
    ``inputs``: the arguments read as quantized activations (every one must be a float tensor,
    else the node stays float); a list argument (cat) shares one scale among its tensors.
    ``check(node, feature_level)``: whether the quantizer annotates ``node`` (args as
    torch.export gives them); None annotates every node.
    ``fixed``: FIXED_OUTPUT's (scale, zero point for uint8, zero point for int8).
    ``fuses_activation``: a relu / relu6 / hardtanh(-1, 1) after it is annotated into its
    output (no q/dq between: one NNAPI operation with a fused activation).
    ``activation``: the op is such a clamp (where ``check`` holds), fused into a producer that
    ``fuses_activation``.
    ``per_channel`` / ``weight_axis``: WEIGHTED's weights symmetric per output channel where
    the level allows (TENSOR_QUANT8_SYMM_PER_CHANNEL), that channel being dim ``weight_axis``.
    ``alpha``: an argument quantized like an activation with a scale of its own (PRELU's alpha).
    ``what``: the refusal's subject below ``since`` ("``what`` needs API N"), by default
    "quantized <op>".
    ``why``: FLOAT's reason, which is also the refusal of a quantized node.
    ``rewrite(graph, node)``: REWRITTEN's replacement of ``node`` (an op NNAPI has no 8-bit form
    of, or none at all) by ops that have one; NnapiQuantizer applies it before annotating, and the
    converted model keeps the rewritten form, which computes the same. Its docstring's first line
    is the op-support matrix's 8-bit entry.
    """

    kind: QuantKind
    annotates: tuple[Any, ...] = ()
    since: FeatureLevel = FeatureLevel.ANDROID_8_1
    inputs: tuple[int, ...] = (0,)
    check: Callable[[Node, int], bool] | None = None
    fixed: tuple[float, int, int] | None = None
    fuses_activation: bool = False
    activation: bool = False
    per_channel: bool = False
    weight_axis: int = 0
    alpha: int | None = None
    what: str = ""
    why: str = ""
    rewrite: Callable[[torch.fx.Graph, Node], None] | None = None

    def __post_init__(self) -> None:
        if (self.kind is QuantKind.FIXED_OUTPUT) != (self.fixed is not None):
            raise ValueError("a fixed output (scale, zero points) is FIXED_OUTPUT's and only its")
        if (self.kind is QuantKind.FLOAT) != bool(self.why):
            raise ValueError("a FLOAT declaration says why (and only it)")
        if (self.kind is QuantKind.REWRITTEN) != (self.rewrite is not None):
            raise ValueError("a rewrite is REWRITTEN's and only its")

    @property
    def summary(self) -> str:
        """One line for the op-support matrix's 8-bit column."""
        if self.kind is QuantKind.FLOAT:
            return "stays float"
        if self.kind is QuantKind.REWRITTEN:
            return (self.rewrite.__doc__ or "rewritten").strip().splitlines()[0].rstrip(".")
        text = {
            QuantKind.WEIGHTED: "own scale; weights per channel (API 29) or per tensor" if self.per_channel else
                                "own scale; weights per tensor",
            QuantKind.SAME_PARAMETERS: "input's scale",
            QuantKind.REQUANTIZING: "own scale",
            QuantKind.FIXED_OUTPUT: f"fixed scale 1/{round(1 / self.fixed[0])}" if self.fixed else "",
        }[self.kind]
        return text if self.since == FeatureLevel.ANDROID_8_1 else f"{text}, from {FeatureLevel(self.since).short_label}"


# Fixed output parameters (scale, zero point for uint8, for int8): docs/nnapi_facts.md §8.3.
UNIT_INTERVAL = (1.0 / 256.0, 0, -128)    # LOGISTIC, SOFTMAX; hardsigmoid's [0, 1) clamp
SYMMETRIC_UNIT = (1.0 / 128.0, 128, 0)    # TANH


def same_parameters(*annotates: Any, since: FeatureLevel = FeatureLevel.ANDROID_8_1,
                    check: Callable[[Node, int], bool] | None = None, activation: bool = False) -> Quantization:
    return Quantization(QuantKind.SAME_PARAMETERS, annotates, since, check=check, activation=activation)


def requantizing(*annotates: Any, since: FeatureLevel = FeatureLevel.ANDROID_8_1, inputs: tuple[int, ...] = (0,),
                 check: Callable[[Node, int], bool] | None = None, fuses_activation: bool = False,
                 alpha: int | None = None) -> Quantization:
    return Quantization(QuantKind.REQUANTIZING, annotates, since, inputs, check, fuses_activation=fuses_activation,
                        alpha=alpha)


def fixed_output(params: tuple[float, int, int], *annotates: Any, since: FeatureLevel = FeatureLevel.ANDROID_8_1,
                 check: Callable[[Node, int], bool] | None = None) -> Quantization:
    return Quantization(QuantKind.FIXED_OUTPUT, annotates, since, check=check, fixed=params)


def rewritten(rewrite: Callable[[torch.fx.Graph, Node], None], *annotates: Any,
              since: FeatureLevel = FeatureLevel.ANDROID_8_1,
              check: Callable[[Node, int], bool] | None = None) -> Quantization:
    return Quantization(QuantKind.REWRITTEN, annotates, since, check=check, rewrite=rewrite)


def stays_float(why: str) -> Quantization:
    return Quantization(QuantKind.FLOAT, why=why)


def input_rank_1_to_4(node: Node, feature_level: int) -> bool:
    """The first input is a tensor of rank 1-4 (a DEPTHWISE_CONV_2D after a RESHAPE to 4-D)."""
    val = node.args[0].meta.get("val") if isinstance(node.args[0], Node) else None
    return isinstance(val, torch.Tensor) and 1 <= val.dim() <= 4


def fusable_clamp(node: Node, feature_level: int) -> bool:
    """hardtanh bounds NNAPI's 8-bit clamps have: (0, 6) RELU6 or (-1, 1) RELU1."""
    lo = node.args[1] if len(node.args) > 1 else -1.0
    hi = node.args[2] if len(node.args) > 2 else 1.0
    return (lo, hi) in ((0.0, 6.0), (-1.0, 1.0))


def alpha_one(node: Node, feature_level: int) -> bool:
    """No ``alpha`` scaling of the second operand (NNAPI's ADD has none), and a result of rank <= 4.

    A rank > 4 result (Swin's shifted-window mask add, ``view(B, nw, h, N, N) + mask``) exists in
    NNAPI only inside a view chain (patterns/view_chain.py), which is float: left unannotated, the
    op runs there as a float island between the dequantize before the chain and the quantize after.
    """
    val = node.meta.get("val")
    return node.kwargs.get("alpha", 1) == 1 and not (isinstance(val, torch.Tensor) and val.dim() > 4)


def dequantized_params(node: Node) -> list[QuantParams]:
    """The parameters of the dequantized tensors ``node`` reads (each once, in argument order)."""
    return [quant_params(n) for n in node.all_input_nodes if is_dequantize(n)]
