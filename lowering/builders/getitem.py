"""operator.getitem on a multi-output op: the producing builder already set the value."""

from __future__ import annotations

import operator

import torch
from torch.fx import Node

from ..graph import LoweringError
from ..lowering_context import LoweringContext
from ..nnapi_codes import FeatureLevel
from ..node_utils import aten_op
from .node_builder import CheckContext, LayoutClass, NodeBuilder, OpSupport, Refused
from .registry import register_builder
from .batched_nms import PROVIDED_OUTPUTS as NMS_OUTPUTS
from .roi_ops import PROVIDED_OUTPUTS as ROI_OUTPUTS

aten = torch.ops.aten

# multi-output op -> indices its builder defines
PROVIDED_OUTPUTS = {
    aten._native_batch_norm_legit_no_training.default: {0},
    aten.max_pool2d_with_indices.default: {0},
    aten.max_pool3d_with_indices.default: {0},
    aten.native_layer_norm.default: {0},
    aten.native_group_norm.default: {0},
    aten.split_with_sizes_copy.default: None,  # every index
    aten.split_copy.Tensor: None,
    torch.ops.higher_order.cond: None,
    torch.ops.higher_order.while_loop: None,
    aten.lstm.input: None,  # output, h_n, c_n (builders/lstm.py refuses c_n where NNAPI lacks it)
    aten.rnn_tanh.input: None,
    aten.rnn_relu.input: None,
    **ROI_OUTPUTS,
    **NMS_OUTPUTS,
}


@register_builder
class GetItemBuilder(NodeBuilder):
    ops = (
        OpSupport(operator.getitem, FeatureLevel.ANDROID_8_1, "(output selection)",
                  "output 0 of batch norm / layer norm / group norm / "
                  "max_pool2d_with_indices / max_pool3d_with_indices / roi_pool; any output of split, cond, "
                  "while_loop, batched_nms_padded, lstm, rnn_tanh, rnn_relu"),
    )
    layout = LayoutClass.ORDER_PRESERVING
    reads_merged_views = True  # the value its producer defined, as defined

    def check(self, node: Node, ctx: CheckContext) -> None:
        source, index = node.args
        op = aten_op(source) if isinstance(source, Node) else None
        if op not in PROVIDED_OUTPUTS:
            raise Refused(f"getitem on {getattr(op, '__name__', op)}")
        provided = PROVIDED_OUTPUTS[op]
        if provided is not None and index not in provided:
            raise Refused(f"output {index} of {op.__name__} (NNAPI computes only output(s) {sorted(provided)})")

    def define(self, node: Node, lc: LoweringContext) -> None:
        if not lc.graph.has_value(lc.resolve(node)):
            raise LoweringError(f"{node.name}: the producer of this getitem did not define output {node.args[1]}")
