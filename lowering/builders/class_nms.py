"""nnapi::class_nms_padded (lowering/custom_ops.py) -> BOX_WITH_NMS_LIMIT (API 29) on its own layout,
padded to a fixed size inside the NNAPI model.

The scores ``[N, C]`` and boxes ``[N, 4 C]`` go to the operation as they are (class 0 is NNAPI's
background, as it is a detector's). The results, of a size known only when the model runs, are
padded and sorted as batched_nms.py does: CONCATENATION with zeros then SLICE, TOPK_V2 by score,
GATHER of the boxes and classes, and the count of positive scores.
"""

from __future__ import annotations

import math
import operator

import numpy as np
import torch
from torch.fx import Node

from ..custom_ops import SMALLEST_SCORE
from ..graph import SCALAR_ORDER, identity
from ..lowering_context import LoweringContext
from ..nnapi_codes import FeatureLevel, OperationCode
from ..node_utils import tensor_shape
from ..shape_program import is_static
from .batched_nms import _count, _pad, float32_above
from .common import check_float_tensors
from .getitem import PROVIDED_OUTPUTS as GETITEM_OUTPUTS
from .node_builder import CheckContext, LayoutClass, NodeBuilder, OpSupport, Refused
from .registry import register_builder

_OP = torch.ops.nnapi.class_nms_padded.default
# Every output is defined here (builders/getitem.py reads this table).
GETITEM_OUTPUTS[_OP] = None
_HARD_KERNEL = 0
_UNKNOWN = 0  # an NNAPI dimension known only when the model runs


def _args(node: Node) -> tuple[Node, Node, float, float, int]:
    scores, boxes, score_threshold, iou, max_detections = node.args[:5]
    return scores, boxes, float(score_threshold), float(iou), int(max_detections)


@register_builder
class ClassNmsPaddedBuilder(NodeBuilder):
    """class_nms_padded -> BOX_WITH_NMS_LIMIT, padded to max_detections and sorted by score."""

    ops = (
        OpSupport(_OP, FeatureLevel.ANDROID_10,
                  "BOX_WITH_NMS_LIMIT (hard NMS; CONCATENATION, SLICE, TOPK_V2, GATHER pad and sort)",
                  "float32 scores [N, C] and boxes [N, 4 C] with a static N, C >= 2; score threshold >= 0",
                  cpu_kernel=False),
    )
    layout = LayoutClass.PYTORCH

    def check(self, node: Node, ctx: CheckContext) -> None:
        scores, boxes, score_threshold, iou, max_detections = _args(node)
        check_float_tensors(node, scores, boxes)
        for user in node.users:
            if user.target is not operator.getitem:
                raise Refused(f"class_nms_padded result tuple used directly by {user.name}")
        shape, box_shape = tensor_shape(scores), tensor_shape(boxes)
        if len(shape) != 2 or list(box_shape) != [shape[0], 4 * shape[1]]:
            raise Refused(f"class_nms_padded with scores {list(shape)} and boxes {list(box_shape)} (it takes "
                          "[N, C] and [N, 4 C])")
        if not all(is_static(d) for d in shape):
            raise Refused("class_nms_padded with a dynamic number of regions or classes (its batch indices are "
                          "a constant)")
        if shape[1] < 2 or max_detections < 1:
            raise Refused(f"class_nms_padded with {shape[1]} classes and max_detections {max_detections} (it needs "
                          "class 0, the background, and another; and at least one detection)")
        if score_threshold < 0 or not math.isfinite(score_threshold):
            raise Refused(f"class_nms_padded with score_threshold {score_threshold} (NNAPI keeps only positive "
                          "scores: the score threshold must be finite and >= 0)")
        if not math.isfinite(iou):
            raise Refused(f"class_nms_padded with iou_threshold {iou} (it must be finite)")

    def define(self, node: Node, lc: LoweringContext) -> None:
        scores, boxes, score_threshold, iou, max_detections = _args(node)
        g = lc.graph
        rows = int(tensor_shape(scores)[0])
        below_smallest = float(np.nextafter(np.float32(SMALLEST_SCORE), np.float32(0)))
        found = [g.emit_tensor([_UNKNOWN], debug_name=f"{node.name}.scores"),
                 g.emit_tensor([_UNKNOWN, 4], debug_name=f"{node.name}.boxes"),
                 g.emit_tensor([_UNKNOWN], torch.int32, debug_name=f"{node.name}.classes"),
                 g.emit_tensor([_UNKNOWN], torch.int32, debug_name=f"{node.name}.batch")]
        g.emit_operation(OperationCode.BOX_WITH_NMS_LIMIT,
                         [lc.operand(scores, identity(2)), lc.operand(boxes, identity(2)),
                          g.emit_constant_tensor(torch.zeros(rows, dtype=torch.int32), f"{node.name}.batch_indices"),
                          g.emit_float32(max(float(np.float32(score_threshold)), below_smallest)),
                          g.emit_int32(max_detections), g.emit_int32(_HARD_KERNEL), g.emit_float32(float32_above(iou)),
                          g.emit_float32(1.0), g.emit_float32(SMALLEST_SCORE)],
                         found, debug_name=node.name)
        found_classes = g.emit_tensor([_UNKNOWN], debug_name=f"{node.name}.classes_f")
        g.emit_operation(OperationCode.CAST, [found[2]], [found_classes], debug_name=node.name)
        outputs = _outputs(node, lc, max_detections)
        order = g.emit_tensor([max_detections], torch.int32, debug_name=f"{node.name}.order")
        g.emit_operation(OperationCode.TOPK_V2, [_pad(g, found[0], [max_detections], node.name),
                                                 g.emit_int32(max_detections)], [outputs[1], order],
                         debug_name=node.name)
        g.emit_operation(OperationCode.GATHER, [_pad(g, found[1], [max_detections, 4], node.name), g.emit_int32(0),
                                                order], [outputs[0]], debug_name=node.name)
        sorted_classes = g.emit_tensor([max_detections], debug_name=f"{node.name}.sorted_classes")
        g.emit_operation(OperationCode.GATHER, [_pad(g, found_classes, [max_detections], node.name), g.emit_int32(0),
                                                order], [sorted_classes], debug_name=node.name)
        _padding_class(g, outputs[1], sorted_classes, outputs[2], max_detections, node.name)
        _count(g, outputs[1], outputs[3], max_detections, node.name)


def _padding_class(g, sorted_scores: int, sorted_classes: int, out: int, max_detections: int, name: str) -> None:
    """``out`` = the classes (int32), -1 where the score is padding (0), as the eager op writes."""
    padding = g.emit_tensor([max_detections], torch.bool, debug_name=f"{name}.padding")
    g.emit_operation(OperationCode.EQUAL, [sorted_scores, g.emit_constant_tensor(torch.zeros(1))], [padding],
                     debug_name=name)
    marked = g.emit_tensor([max_detections], debug_name=f"{name}.marked_classes")
    g.emit_operation(OperationCode.SELECT, [padding, g.emit_constant_tensor(torch.full((max_detections,), -1.0)),
                                            sorted_classes], [marked], debug_name=name)
    g.emit_operation(OperationCode.CAST, [marked], [out], debug_name=name)


def _outputs(node: Node, lc: LoweringContext, max_detections: int) -> list[int]:
    """Operands of the four results (boxes, scores, classes, count); an unused one is a temporary."""
    operands: list[int | None] = [None] * 4
    for user in node.users:
        index = user.args[1]
        if operands[index] is None:
            operands[index] = lc.emit_output(user)
        else:  # a second getitem of the same result shares its operand
            shape = lc.shape(user)
            lc.graph.set_value(user, operands[index], identity(len(shape)) if shape else SCALAR_ORDER, shape or [1])
    unused = [([max_detections, 4], torch.float32), ([max_detections], torch.float32),
              ([max_detections], torch.int32), ([1], torch.int32)]
    for index, operand in enumerate(operands):
        if operand is None:
            shape, dtype = unused[index]
            operands[index] = lc.graph.emit_tensor(shape, dtype, debug_name=f"{node.name}.unused{index}")
    return operands
