"""nnapi::class_nms_padded (lowering/custom_ops.py) -> BOX_WITH_NMS_LIMIT (API 29) on its own layout,
padded to a fixed size inside the NNAPI model.

The scores ``[N, C]`` and boxes ``[N, 4 C]`` go to the operation as they are (class 0 is NNAPI's
background, as it is a detector's), except the boxes of area 0: torchvision's IoU of two such boxes
is 0 / 0, which never suppresses, where Android's hard NMS suppresses on it (``iou < threshold`` is
false for NaN). So those candidates get score 0 for the operation and join its results afterwards,
as torchvision always keeps them. The results, of a size known only when the model runs, are
padded as batched_nms.py does (CONCATENATION with zeros then SLICE), joined with the empty-box
candidates, sorted by TOPK_V2 (the best ``max_detections``), their boxes and classes gathered, and
counted (the positive scores).
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
        rows, classes = (int(d) for d in tensor_shape(scores))
        score_operand, box_operand = lc.operand(scores, identity(2)), lc.operand(boxes, identity(2))
        # NNAPI's score > threshold: torchvision's score > score_threshold, and at least SMALLEST_SCORE.
        threshold = max(float(np.float32(score_threshold)), float(np.nextafter(np.float32(SMALLEST_SCORE),
                                                                                np.float32(0))))
        empty = _empty_boxes(g, box_operand, rows, classes, node.name)
        zeros = g.emit_constant_tensor(torch.zeros(rows, classes))
        nms_scores = g.emit_tensor([rows, classes], debug_name=f"{node.name}.nms_scores")
        g.emit_operation(OperationCode.SELECT, [empty, zeros, score_operand], [nms_scores], debug_name=node.name)
        found = [g.emit_tensor([_UNKNOWN], debug_name=f"{node.name}.scores"),
                 g.emit_tensor([_UNKNOWN, 4], debug_name=f"{node.name}.boxes"),
                 g.emit_tensor([_UNKNOWN], torch.int32, debug_name=f"{node.name}.classes"),
                 g.emit_tensor([_UNKNOWN], torch.int32, debug_name=f"{node.name}.batch")]
        g.emit_operation(OperationCode.BOX_WITH_NMS_LIMIT,
                         [nms_scores, box_operand,
                          g.emit_constant_tensor(torch.zeros(rows, dtype=torch.int32), f"{node.name}.batch_indices"),
                          g.emit_float32(threshold), g.emit_int32(max_detections), g.emit_int32(_HARD_KERNEL),
                          g.emit_float32(float32_above(iou)), g.emit_float32(1.0), g.emit_float32(SMALLEST_SCORE)],
                         found, debug_name=node.name)
        found_classes = g.emit_tensor([_UNKNOWN], debug_name=f"{node.name}.classes_f")
        g.emit_operation(OperationCode.CAST, [found[2]], [found_classes], debug_name=node.name)
        # The kept detections, then every empty-box candidate, each with its class as a float.
        candidates = rows * classes
        joined = [_joined(g, [_pad(g, found[0], [max_detections], node.name),
                              _empty_candidates(g, empty, score_operand, threshold, rows, classes, node.name)],
                          [max_detections + candidates], node.name),
                  _joined(g, [_pad(g, found[1], [max_detections, 4], node.name),
                              _reshaped(g, box_operand, [candidates, 4], node.name)],
                          [max_detections + candidates, 4], node.name),
                  _joined(g, [_pad(g, found_classes, [max_detections], node.name),
                              g.emit_constant_tensor(torch.arange(classes, dtype=torch.float32).repeat(rows))],
                          [max_detections + candidates], node.name)]
        outputs = _outputs(node, lc, max_detections)
        order = g.emit_tensor([max_detections], torch.int32, debug_name=f"{node.name}.order")
        g.emit_operation(OperationCode.TOPK_V2, [joined[0], g.emit_int32(max_detections)], [outputs[1], order],
                         debug_name=node.name)
        sorted_boxes = g.emit_tensor([max_detections, 4], debug_name=f"{node.name}.sorted_boxes")
        g.emit_operation(OperationCode.GATHER, [joined[1], g.emit_int32(0), order], [sorted_boxes],
                         debug_name=node.name)
        _zero_padding_boxes(g, outputs[1], sorted_boxes, outputs[0], max_detections, node.name)
        sorted_classes = g.emit_tensor([max_detections], debug_name=f"{node.name}.sorted_classes")
        g.emit_operation(OperationCode.GATHER, [joined[2], g.emit_int32(0), order], [sorted_classes],
                         debug_name=node.name)
        _padding_class(g, outputs[1], sorted_classes, outputs[2], max_detections, node.name)
        _count(g, outputs[1], outputs[3], max_detections, node.name)


def _empty_boxes(g, boxes: int, rows: int, classes: int, name: str) -> int:
    """bool ``[R, C]``: the box of each region and class has a float32 area of 0."""
    corners = _reshaped(g, boxes, [rows, classes, 4], name)
    coordinate = []
    for index in range(4):
        value = g.emit_tensor([rows, classes, 1], debug_name=f"{name}.corner{index}")
        g.emit_operation(OperationCode.SLICE, [corners, g.emit_int32_vector([0, 0, index]),
                                               g.emit_int32_vector([rows, classes, 1])], [value], debug_name=name)
        coordinate.append(value)
    sides = []
    for low, high in ((0, 2), (1, 3)):
        side = g.emit_tensor([rows, classes, 1], debug_name=f"{name}.side")
        g.emit_operation(OperationCode.SUB, [coordinate[high], coordinate[low], g.emit_int32(0)], [side],
                         debug_name=name)
        sides.append(side)
    area = g.emit_tensor([rows, classes, 1], debug_name=f"{name}.area")
    g.emit_operation(OperationCode.MUL, [sides[0], sides[1], g.emit_int32(0)], [area], debug_name=name)
    empty = g.emit_tensor([rows, classes], torch.bool, debug_name=f"{name}.empty")
    g.emit_operation(OperationCode.EQUAL, [_reshaped(g, area, [rows, classes], name),
                                           g.emit_constant_tensor(torch.zeros(1))], [empty], debug_name=name)
    return empty


def _empty_candidates(g, empty: int, scores: int, threshold: float, rows: int, classes: int, name: str) -> int:
    """``[R C]`` scores of the empty-box candidates (above the threshold, not the background), 0 elsewhere.
    torchvision's IoU of two empty boxes is 0 / 0: never above its threshold, so such a box is always
    kept; Android's hard NMS treats that NaN as an overlap. They skip NNAPI's NMS and join after it."""
    above = g.emit_tensor([rows, classes], torch.bool, debug_name=f"{name}.above")
    g.emit_operation(OperationCode.GREATER, [scores, g.emit_constant_tensor(torch.tensor([threshold]))], [above],
                     debug_name=name)
    not_background = torch.ones(1, classes, dtype=torch.bool)
    not_background[0, 0] = False
    candidate = g.emit_tensor([rows, classes], torch.bool, debug_name=f"{name}.empty_candidate")
    g.emit_operation(OperationCode.LOGICAL_AND, [empty, above], [candidate], debug_name=name)
    counted = g.emit_tensor([rows, classes], torch.bool, debug_name=f"{name}.empty_counted")
    g.emit_operation(OperationCode.LOGICAL_AND, [candidate, g.emit_constant_tensor(not_background)], [counted],
                     debug_name=name)
    kept = g.emit_tensor([rows, classes], debug_name=f"{name}.empty_scores")
    g.emit_operation(OperationCode.SELECT, [counted, scores, g.emit_constant_tensor(torch.zeros(rows, classes))],
                     [kept], debug_name=name)
    return _reshaped(g, kept, [rows * classes], name)


def _reshaped(g, operand: int, shape: list[int], name: str) -> int:
    result = g.emit_like(operand, shape, debug_name=f"{name}.reshaped")
    g.emit_operation(OperationCode.RESHAPE, [operand, g.emit_int32_vector(shape)], [result], debug_name=name)
    return result


def _joined(g, parts: list[int], shape: list[int], name: str) -> int:
    result = g.emit_tensor(shape, debug_name=f"{name}.joined")
    g.emit_operation(OperationCode.CONCATENATION, [*parts, g.emit_int32(0)], [result], debug_name=name)
    return result


def _zero_padding_boxes(g, sorted_scores: int, sorted_boxes: int, out: int, max_detections: int, name: str) -> None:
    """``out`` = the boxes, zeros where the score is padding (0): a padding row may have been taken from
    the empty-box candidates' zeros, whose boxes are real."""
    real = g.emit_tensor([max_detections, 1], torch.bool, debug_name=f"{name}.real")
    g.emit_operation(OperationCode.GREATER, [_reshaped(g, sorted_scores, [max_detections, 1], name),
                                             g.emit_constant_tensor(torch.zeros(1))], [real], debug_name=name)
    ones = g.emit_tensor([max_detections, 1], debug_name=f"{name}.real_f")
    g.emit_operation(OperationCode.SELECT, [real, g.emit_constant_tensor(torch.ones(max_detections, 1)),
                                            g.emit_constant_tensor(torch.zeros(max_detections, 1))], [ones],
                     debug_name=name)
    g.emit_operation(OperationCode.MUL, [sorted_boxes, ones, g.emit_int32(0)], [out], debug_name=name)


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
