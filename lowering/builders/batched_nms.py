"""nnapi::batched_nms_padded (lowering/custom_ops.py) -> BOX_WITH_NMS_LIMIT (API 29), padded to a
fixed size inside the NNAPI model.

BOX_WITH_NMS_LIMIT takes per-class scores and boxes and treats class 0 as background
(docs/nnapi_facts.md §7.10), so each box becomes one row of C + 1 classes: its score in the column
of its class shifted by one, 0 elsewhere (never above the score threshold), and its box repeated
(TILE). The operation's results have a size known only when it runs; CONCATENATION with a block
of zeros (zero-sized inputs allowed since API 29) then SLICE give them the fixed size, TOPK_V2 puts
them in decreasing score order (NNAPI writes them grouped by class), and the count is the number of
positive scores (every kept score is at least the smallest normal float32, padding is 0).
"""

from __future__ import annotations

import math
import operator

import numpy as np
import torch
from torch.fx import Node

from ..custom_ops import SMALLEST_SCORE
from ..graph import SCALAR_ORDER, NnapiGraph, identity
from ..lowering_context import LoweringContext
from ..nnapi_codes import FeatureLevel, OperationCode
from ..node_utils import tensor_dtype, tensor_shape
from ..shape_program import Dim, is_static
from .common import check_float_tensors
from .node_builder import CheckContext, LayoutClass, NodeBuilder, OpSupport, Refused
from .registry import register_builder

_OP = torch.ops.nnapi.batched_nms_padded.default
# Every output is defined here (builders/getitem.py).
PROVIDED_OUTPUTS = {_OP: None}
_HARD_KERNEL = 0
_UNKNOWN = 0  # an NNAPI dimension known only when the model runs


def float32_above(value: float) -> float:
    """The smallest float32 strictly above ``value``: NNAPI suppresses at IoU >= its threshold,
    torchvision at IoU > threshold, both comparing a float32 IoU (docs/nnapi_facts.md §7.10)."""
    nearest = float(np.float32(value))
    return nearest if nearest > value else float(np.nextafter(np.float32(value), np.float32(np.inf)))


def _args(node: Node) -> tuple[Node, Node, Node, float, int, int, float]:
    boxes, scores, idxs, iou, max_detections, classes = node.args[:6]
    score_threshold = node.args[6] if len(node.args) > 6 else node.kwargs.get("score_threshold", 0.0)
    return boxes, scores, idxs, float(iou), int(max_detections), int(classes), float(score_threshold)


@register_builder
class BatchedNmsPaddedBuilder(NodeBuilder):
    """batched_nms_padded -> BOX_WITH_NMS_LIMIT with per-class rows, padded to max_detections."""

    ops = (
        OpSupport(_OP, FeatureLevel.ANDROID_10,
                  "BOX_WITH_NMS_LIMIT (hard NMS; EQUAL, MUL, SELECT, TRANSPOSE, TILE make per-class rows; "
                  "CONCATENATION, SLICE, TOPK_V2, GATHER pad and sort)",
                  "float32 boxes [N, 4] and scores [N], int32 / int64 classes [N] (a dynamic N: API 30); "
                  "score threshold >= 0", cpu_kernel=False),
    )
    layout = LayoutClass.PYTORCH

    def check(self, node: Node, ctx: CheckContext) -> None:
        boxes, scores, idxs, iou, max_detections, classes, score_threshold = _args(node)
        check_float_tensors(node, boxes, scores)
        for user in node.users:
            if user.target is not operator.getitem:
                raise Refused(f"batched_nms_padded result tuple used directly by {user.name}")
        if tensor_dtype(idxs) not in (torch.int32, torch.int64):
            raise Refused(f"batched_nms_padded with classes of dtype {tensor_dtype(idxs)} (NNAPI takes int32)")
        shape = tensor_shape(boxes)
        if len(shape) != 2 or shape[1] != 4 or tensor_shape(scores) != shape[:1] or tensor_shape(idxs) != shape[:1]:
            raise Refused(f"batched_nms_padded with boxes {list(shape)}, scores {list(tensor_shape(scores))} and "
                          f"classes {list(tensor_shape(idxs))} (it takes [N, 4], [N] and [N])")
        if not is_static(shape[0]):
            ctx.require(FeatureLevel.ANDROID_11, "batched_nms_padded with a dynamic number of boxes (FILL makes "
                        "its zeros)")
        if max_detections < 1 or classes < 1:
            raise Refused(f"batched_nms_padded with max_detections {max_detections} and num_classes {classes} "
                          "(both must be at least 1)")
        if score_threshold < 0 or not math.isfinite(score_threshold):
            raise Refused(f"batched_nms_padded with score_threshold {score_threshold} (NNAPI keeps only positive "
                          "scores: the score threshold must be finite and >= 0)")
        if not math.isfinite(iou):
            raise Refused(f"batched_nms_padded with iou_threshold {iou} (it must be finite)")

    def define(self, node: Node, lc: LoweringContext) -> None:
        boxes, scores, idxs, iou, max_detections, classes, score_threshold = _args(node)
        g = lc.graph
        count = tensor_shape(boxes)[0]
        columns = classes + 1  # column 0 is NNAPI's background class
        class_scores, class_boxes = _per_class_rows(g, lc.operand(boxes), lc.operand(scores), lc.operand(idxs),
                                                    count, columns, node.name)
        # Candidates: score > threshold and >= SMALLEST_SCORE (custom_ops.batched_nms_padded).
        below_smallest = float(np.nextafter(np.float32(SMALLEST_SCORE), np.float32(0)))
        found = [g.emit_tensor([_UNKNOWN], debug_name=f"{node.name}.scores"),
                 g.emit_tensor([_UNKNOWN, 4], debug_name=f"{node.name}.boxes"),
                 g.emit_tensor([_UNKNOWN], torch.int32, debug_name=f"{node.name}.classes"),
                 g.emit_tensor([_UNKNOWN], torch.int32, debug_name=f"{node.name}.batch")]
        g.emit_operation(OperationCode.BOX_WITH_NMS_LIMIT,
                         [class_scores, class_boxes, _zeros(g, [count], torch.int32, f"{node.name}.batch_indices"),
                          g.emit_float32(max(float(np.float32(score_threshold)), below_smallest)),
                          g.emit_int32(max_detections), g.emit_int32(_HARD_KERNEL), g.emit_float32(float32_above(iou)),
                          g.emit_float32(1.0), g.emit_float32(SMALLEST_SCORE)],
                         found, debug_name=node.name)
        found_classes = g.emit_tensor([_UNKNOWN], debug_name=f"{node.name}.classes_f")
        g.emit_operation(OperationCode.CAST, [found[2]], [found_classes], debug_name=node.name)
        padded_scores = _pad(g, found[0], [max_detections], node.name)
        order = g.emit_tensor([max_detections], torch.int32, debug_name=f"{node.name}.order")
        outputs = _outputs(node, lc)
        g.emit_operation(OperationCode.TOPK_V2, [padded_scores, g.emit_int32(max_detections)], [outputs[1], order],
                         debug_name=node.name)
        g.emit_operation(OperationCode.GATHER, [_pad(g, found[1], [max_detections, 4], node.name), g.emit_int32(0),
                                                order], [outputs[0]], debug_name=node.name)
        sorted_classes = g.emit_tensor([max_detections], debug_name=f"{node.name}.sorted_classes")
        g.emit_operation(OperationCode.GATHER, [_pad(g, found_classes, [max_detections], node.name), g.emit_int32(0),
                                                order], [sorted_classes], debug_name=node.name)
        unshifted = g.emit_tensor([max_detections], debug_name=f"{node.name}.unshifted")
        g.emit_operation(OperationCode.SUB, [sorted_classes, g.emit_constant_tensor(torch.ones(1)), g.emit_int32(0)],
                         [unshifted], debug_name=node.name)
        g.emit_operation(OperationCode.CAST, [unshifted], [outputs[2]], debug_name=node.name)
        _count(g, outputs[1], outputs[3], max_detections, node.name)


def _per_class_rows(g: NnapiGraph, boxes: int, scores: int, idxs: int, count: Dim, columns: int,
                    name: str) -> tuple[int, int]:
    """(scores [N, C + 1], boxes [N, 4 (C + 1)]): each box's score in column class + 1, 0 elsewhere.
    Built as [C + 1, N] by broadcasting (NNAPI reshapes int32 tensors only from FL6), then transposed."""
    in_row = g.emit_tensor([columns, count], torch.bool, debug_name=f"{name}.in_row")
    row_classes = torch.arange(-1, columns - 1, dtype=torch.int32).reshape(columns, 1)
    g.emit_operation(OperationCode.EQUAL, [idxs, g.emit_constant_tensor(row_classes)], [in_row], debug_name=name)
    repeated = g.emit_tensor([columns, count], debug_name=f"{name}.repeated_scores")
    g.emit_operation(OperationCode.MUL, [scores, g.emit_constant_tensor(torch.ones(columns, 1)), g.emit_int32(0)],
                     [repeated], debug_name=name)
    row_scores = g.emit_tensor([columns, count], debug_name=f"{name}.row_scores")
    g.emit_operation(OperationCode.SELECT, [in_row, repeated, _zeros(g, [columns, count], torch.float32, name)],
                     [row_scores], debug_name=name)
    class_scores = g.emit_tensor([count, columns], debug_name=f"{name}.class_scores")
    g.emit_operation(OperationCode.TRANSPOSE, [row_scores, g.emit_int32_vector([1, 0])], [class_scores],
                     debug_name=name)
    class_boxes = g.emit_tensor([count, 4 * columns], debug_name=f"{name}.class_boxes")
    g.emit_operation(OperationCode.TILE, [boxes, g.emit_int32_vector([1, columns])], [class_boxes], debug_name=name)
    return class_scores, class_boxes


def _zeros(g: NnapiGraph, shape: list[Dim], dtype: torch.dtype, name: str) -> int:
    """Zeros of ``shape``: a constant, or FILL (API 30) when a size is known only at run time."""
    if all(is_static(d) for d in shape):
        return g.emit_constant_tensor(torch.zeros([int(d) for d in shape], dtype=dtype))
    zeros = g.emit_tensor(shape, dtype, debug_name=f"{name}.zeros")
    value = g.emit_int32(0) if dtype == torch.int32 else g.emit_float32(0.0)
    g.emit_operation(OperationCode.FILL, [g.emit_int32_vector(shape), value], [zeros], debug_name=name)
    return zeros


def _pad(g: NnapiGraph, found: int, shape: list[int], name: str) -> int:
    """``found`` (a float32 result of run-time length) followed by zeros, cut to ``shape``."""
    joined = g.emit_tensor([_UNKNOWN] + shape[1:], debug_name=f"{name}.joined")
    g.emit_operation(OperationCode.CONCATENATION, [found, g.emit_constant_tensor(torch.zeros(shape)), g.emit_int32(0)],
                     [joined], debug_name=name)
    padded = g.emit_tensor(shape, debug_name=f"{name}.padded")
    g.emit_operation(OperationCode.SLICE, [joined, g.emit_int32_vector([0] * len(shape)), g.emit_int32_vector(shape)],
                     [padded], debug_name=name)
    return padded


def _count(g: NnapiGraph, sorted_scores: int, out: int, max_detections: int, name: str) -> None:
    """``out`` = the number of positive scores (int32 [1]); padding scores are 0."""
    positive = g.emit_tensor([max_detections], torch.bool, debug_name=f"{name}.positive")
    g.emit_operation(OperationCode.GREATER, [sorted_scores, g.emit_constant_tensor(torch.zeros(1))], [positive],
                     debug_name=name)
    ones = g.emit_tensor([max_detections], debug_name=f"{name}.ones")
    g.emit_operation(OperationCode.SELECT, [positive, g.emit_constant_tensor(torch.ones(max_detections)),
                                            g.emit_constant_tensor(torch.zeros(max_detections))], [ones],
                     debug_name=name)
    total = g.emit_tensor([1], debug_name=f"{name}.total")
    g.emit_operation(OperationCode.REDUCE_SUM, [ones, g.emit_int32_vector([0]), g.emit_bool(True)], [total],
                     debug_name=name)
    g.emit_operation(OperationCode.CAST, [total], [out], debug_name=name)


def _outputs(node: Node, lc: LoweringContext) -> list[int]:
    """Operands of the four results (boxes, scores, classes, count); an unused one is a temporary."""
    operands: list[int | None] = [None] * 4
    for user in node.users:
        index = user.args[1]
        if operands[index] is None:
            operands[index] = lc.emit_output(user)
        else:  # a second getitem of the same result shares its operand
            shape = lc.shape(user)
            lc.graph.set_value(user, operands[index], identity(len(shape)) if shape else SCALAR_ORDER, shape or [1])
    max_detections = _args(node)[4]
    unused = [([max_detections, 4], torch.float32), ([max_detections], torch.float32),
              ([max_detections], torch.int32), ([1], torch.int32)]
    for index, operand in enumerate(operands):
        if operand is None:
            shape, dtype = unused[index]
            operands[index] = lc.graph.emit_tensor(shape, dtype, debug_name=f"{node.name}.unused{index}")
    return operands
