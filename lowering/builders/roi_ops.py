"""torchvision.ops.roi_align / roi_pool -> ROI_ALIGN / ROI_POOLING (API 29, NHWC).

torchvision passes the regions as one float tensor [K, 5] of (batch index, x1, y1, x2, y2);
NNAPI takes the boxes [K, 4] and the batch indices [K] (int32) as two operands, so the builder
splits the tensor with SLICE / SQUEEZE / CAST (API 29) unless it is a constant.

What is exact (Android's reference implementation of both operations: nnapi_facts.md §7.8,
docs/detection_ops.md):

- ROI_ALIGN is Caffe2's arithmetic: no half-pixel offset and a region at least one cell wide,
  i.e. torchvision's ``aligned=False``; ``aligned=True`` is refused. NNAPI's sampling ratio 0 is
  torchvision's adaptive ``ceil(region / output)`` (any ratio <= 0 there).
- ROI_POOLING rounds the scaled box to whole cells and takes floor / ceil bins, as torchvision's
  roi_pool does.
- NNAPI takes the stride 1 / spatial_scale. A power-of-two scale (what torchvision's
  MultiScaleRoIAlign infers) survives the reciprocal exactly; another scale is taken only where
  a last-bit difference cannot move a bin edge (roi_align with a fixed sampling ratio).

ExecuTorch has no CPU kernel for either op, so a node refused here stops lowering
(``cpu_kernel=False``, partitioners/cpu_kernels.py).
"""

from __future__ import annotations

import math
import operator
from typing import Any

import torch
from torch.fx import Node

from ..graph import NHWC, LoweringError
from ..lowering_context import LoweringContext
from ..nnapi_codes import FeatureLevel, OperandCode, OperationCode
from ..node_utils import aten_op, tensor_shape
from .common import check_float_tensors
from .node_builder import CheckContext, LayoutClass, NodeBuilder, OpSupport, Refused
from .pool_utils import arg
from .registry import register_builder

try:  # registers the torchvision:: ops; without torchvision no program can contain them
    import torchvision  # noqa: F401
    _VISION = torch.ops.torchvision
except ImportError:  # pragma: no cover - torchvision is a test dependency
    _VISION = None

_ROI_COLUMNS = 5  # (batch index, x1, y1, x2, y2)

# roi_pool returns (output, argmax); NNAPI computes the output only (builders/getitem.py).
PROVIDED_OUTPUTS = {_VISION.roi_pool.default: {0}} if _VISION is not None else {}


def _is_power_of_two(value: float) -> bool:
    mantissa, _ = math.frexp(value)
    return value > 0 and mantissa == 0.5


def _roi_args(node: Node) -> dict[str, Any]:
    """The arguments of a torchvision roi_align / roi_pool node, by name."""
    names = ("input", "rois", "spatial_scale", "pooled_height", "pooled_width", "sampling_ratio", "aligned")
    if not _is_roi_align(node):
        names = names[:5]
    return {name: arg(node, i, name) for i, name in enumerate(names)}


def _is_roi_align(node: Node) -> bool:
    return _VISION is not None and aten_op(node) is _VISION.roi_align.default


def check_rois(node: Node, rois: Node) -> None:
    """Refuses regions other than torchvision's [K, 5] tensor."""
    shape = tensor_shape(rois)
    if len(shape) != 2 or shape[1] != _ROI_COLUMNS:
        raise Refused(f"regions of shape {list(shape)} (NNAPI's ROI operations take the [K, 5] tensor of "
                      "(batch index, x1, y1, x2, y2) rows torchvision builds from a list of boxes)")


def _rows() -> tuple[OpSupport, ...]:
    if _VISION is None:
        return ()
    return (
        OpSupport(_VISION.roi_align.default, FeatureLevel.ANDROID_10,
                  "ROI_ALIGN (SLICE, SQUEEZE, CAST split the [K, 5] regions)",
                  "float32, 4-D input, [K, 5] regions inside the feature map, aligned=False; spatial_scale a power "
                  "of two, or any with sampling_ratio > 0", cpu_kernel=False),
        OpSupport(_VISION.roi_pool.default, FeatureLevel.ANDROID_10,
                  "ROI_POOLING (SLICE, SQUEEZE, CAST split the [K, 5] regions)",
                  "float32, 4-D input, [K, 5] regions inside the feature map, spatial_scale a power of two",
                  cpu_kernel=False),
    )


@register_builder
class RoiOpsBuilder(NodeBuilder):
    """torchvision roi_align / roi_pool -> ROI_ALIGN / ROI_POOLING on an NHWC feature map."""

    ops = _rows()
    layout = LayoutClass.NHWC

    def check(self, node: Node, ctx: CheckContext) -> None:
        a = _roi_args(node)
        what = "roi_align" if _is_roi_align(node) else "roi_pool"
        check_float_tensors(node, a["input"], a["rois"])
        rank = len(tensor_shape(a["input"]))
        if rank != 4:
            raise Refused(f"{what} on a rank-{rank} input (NNAPI takes a batched 4-D [N, C, H, W] feature map)")
        check_rois(node, a["rois"])
        scale = float(a["spatial_scale"])
        if not scale > 0:
            raise Refused(f"{what} with spatial_scale={scale} (NNAPI needs a positive stride 1 / spatial_scale)")
        exact_scale = _is_power_of_two(scale)
        if _is_roi_align(node):
            if a["aligned"]:
                raise Refused("roi_align with aligned=True (NNAPI's ROI_ALIGN has no half-pixel offset and clamps "
                              "regions to at least one cell: it computes torchvision's aligned=False only)")
            if not exact_scale and int(a["sampling_ratio"]) <= 0:
                raise Refused(f"roi_align with spatial_scale={scale:g} and an adaptive sampling ratio (NNAPI "
                              "takes the stride 1 / spatial_scale, exact only for a power of two; a last-bit "
                              "difference can change the number of samples): set sampling_ratio > 0")
        else:
            self._check_pool_outputs(node)
            if not exact_scale:
                raise Refused(f"roi_pool with spatial_scale={scale:g} (NNAPI takes the stride 1 / spatial_scale, "
                              "exact only for a power of two; a last-bit difference can move a rounded bin edge)")

    @staticmethod
    def _check_pool_outputs(node: Node) -> None:
        for user in node.users:
            if user.target is not operator.getitem or user.args[1] != 0:
                raise Refused("roi_pool whose argmax output is used (NNAPI's ROI_POOLING returns the maxima only)")

    def define(self, node: Node, lc: LoweringContext) -> None:
        a = _roi_args(node)
        g = lc.graph
        boxes, batch = split_rois(lc, a["rois"], node.name)
        stride = g.emit_float32(1.0 / float(a["spatial_scale"]))
        inputs = [lc.operand(a["input"], NHWC), boxes, batch, g.emit_int32(int(a["pooled_height"])),
                  g.emit_int32(int(a["pooled_width"])), stride, stride]
        code = OperationCode.ROI_POOLING
        if _is_roi_align(node):
            ratio = g.emit_int32(max(int(a["sampling_ratio"]), 0))  # torchvision: <= 0 is adaptive, NNAPI: 0
            inputs += [ratio, ratio]
            code = OperationCode.ROI_ALIGN
        inputs.append(g.emit_bool(False))  # NHWC
        g.emit_operation(code, inputs, [self._output(node, lc)], debug_name=node.name)

    @staticmethod
    def _output(node: Node, lc: LoweringContext) -> int:
        """The NHWC result operand: the node's, or for roi_pool that of its getitem(0) users."""
        if _is_roi_align(node):
            return lc.emit_output(node, NHWC)
        users = [u for u in node.users if u.target is operator.getitem and u.args[1] == 0]
        if not users:
            raise LoweringError(f"{node.name}: roi_pool without a getitem(0) user")
        operand = lc.emit_output(users[0], NHWC)
        for extra in users[1:]:
            lc.graph.set_value(extra, operand, NHWC, lc.shape(users[0]))
        return operand


def split_rois(lc: LoweringContext, rois: Node, name: str) -> tuple[int, int]:
    """(boxes [K, 4] float32, batch indices [K] int32) operands of torchvision's [K, 5] regions."""
    g = lc.graph
    if lc.is_constant(rois):
        value = lc.constant(rois)
        # torchvision reads the index as a C++ int conversion of the float: truncation.
        return (g.emit_constant_tensor(value[:, 1:].float(), f"{name}.boxes"),
                g.emit_constant_tensor(value[:, 0].to(torch.int32), f"{name}.batch"))
    count = tensor_shape(rois)[0]
    source = lc.operand(rois)
    boxes = g.emit_tensor([count, 4], debug_name=f"{name}.boxes")
    g.emit_operation(OperationCode.SLICE, [source, g.emit_int32_vector([0, 1]), g.emit_int32_vector([-1, 4])],
                     [boxes], debug_name=f"{name} (boxes)")
    column = g.emit_tensor([count, 1], debug_name=f"{name}.batch_column")
    g.emit_operation(OperationCode.SLICE, [source, g.emit_int32_vector([0, 0]), g.emit_int32_vector([-1, 1])],
                     [column], debug_name=f"{name} (batch column)")
    flat = g.emit_tensor([count], debug_name=f"{name}.batch_float")
    g.emit_operation(OperationCode.SQUEEZE, [column, g.emit_int32_vector([1])], [flat],
                     debug_name=f"{name} (batch column)")
    batch = g.emit_operand(OperandCode.TENSOR_INT32, [count], debug_name=f"{name}.batch")
    # CAST truncates toward zero, as torchvision's int conversion of the float index does.
    g.emit_operation(OperationCode.CAST, [flat], [batch], debug_name=f"{name} (batch index)")
    return boxes, batch
