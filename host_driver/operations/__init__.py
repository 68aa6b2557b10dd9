"""The host driver's operations, registered here by opcode.

An operation is a module (NAME, CODE, SINCE, QUANT_COMPUTE, validate, compute; see `common.py`) or,
for a family of near-identical operations, a row of the family module's table (an `OperationDef`
with the same attributes, listed in the module's OPERATIONS).
"""

from __future__ import annotations

from typing import Any

from . import (
    argmax_argmin, average_pool_2d, axis_aligned_bbox_transform, batch_matmul, box_with_nms_limit, cast,
    channel_shuffle, comparison, concatenation, conv_2d, depth_to_space, depthwise_conv_2d, dequantize,
    detection_postprocessing, elementwise_binary, elementwise_unary, elu, expand_dims, fill, fully_connected,
    gather, generate_proposals, grouped_conv_2d, heatmap_max_keypoint, if_op, instance_normalization,
    l2_normalization, l2_pool_2d, log_softmax, max_pool_2d, mirror_pad, pack, pad, pad_v2, quantize, reduce,
    reshape, resize_bilinear, resize_nearest_neighbor, reverse, roi_align, roi_pooling, select, slice, softmax,
    space_to_depth, split, squeeze, strided_slice, tile, topk_v2, transpose, transpose_conv_2d, while_op,
)
from . import rnn, sequence_rnn, svdf
from . import lstm, quantized_16bit_lstm, quantized_lstm, sequence_lstm
from . import batch_to_space_nd, local_response_normalization, space_to_batch_nd
from . import embedding_lookup, hashtable_lookup, lsh_projection, random_multinomial, rank

# Every NNAPI OperationCode (docs/nnapi_facts.md §6.1), for messages about operations the driver lacks.
OPERATION_NAMES: dict[int, str] = dict(enumerate((
    "ADD", "AVERAGE_POOL_2D", "CONCATENATION", "CONV_2D", "DEPTHWISE_CONV_2D", "DEPTH_TO_SPACE",
    "DEQUANTIZE", "EMBEDDING_LOOKUP", "FLOOR", "FULLY_CONNECTED", "HASHTABLE_LOOKUP", "L2_NORMALIZATION",
    "L2_POOL_2D", "LOCAL_RESPONSE_NORMALIZATION", "LOGISTIC", "LSH_PROJECTION", "LSTM", "MAX_POOL_2D",
    "MUL", "RELU", "RELU1", "RELU6", "RESHAPE", "RESIZE_BILINEAR", "RNN", "SOFTMAX", "SPACE_TO_DEPTH",
    "SVDF", "TANH", "BATCH_TO_SPACE_ND", "DIV", "MEAN", "PAD", "SPACE_TO_BATCH_ND", "SQUEEZE",
    "STRIDED_SLICE", "SUB", "TRANSPOSE", "ABS", "ARGMAX", "ARGMIN", "AXIS_ALIGNED_BBOX_TRANSFORM",
    "BIDIRECTIONAL_SEQUENCE_LSTM", "BIDIRECTIONAL_SEQUENCE_RNN", "BOX_WITH_NMS_LIMIT", "CAST",
    "CHANNEL_SHUFFLE", "DETECTION_POSTPROCESSING", "EQUAL", "EXP", "EXPAND_DIMS", "GATHER",
    "GENERATE_PROPOSALS", "GREATER", "GREATER_EQUAL", "GROUPED_CONV_2D", "HEATMAP_MAX_KEYPOINT",
    "INSTANCE_NORMALIZATION", "LESS", "LESS_EQUAL", "LOG", "LOGICAL_AND", "LOGICAL_NOT", "LOGICAL_OR",
    "LOG_SOFTMAX", "MAXIMUM", "MINIMUM", "NEG", "NOT_EQUAL", "PAD_V2", "POW", "PRELU", "QUANTIZE",
    "QUANTIZED_16BIT_LSTM", "RANDOM_MULTINOMIAL", "REDUCE_ALL", "REDUCE_ANY", "REDUCE_MAX", "REDUCE_MIN",
    "REDUCE_PROD", "REDUCE_SUM", "ROI_ALIGN", "ROI_POOLING", "RSQRT", "SELECT", "SIN", "SLICE", "SPLIT",
    "SQRT", "TILE", "TOPK_V2", "TRANSPOSE_CONV_2D", "UNIDIRECTIONAL_SEQUENCE_LSTM",
    "UNIDIRECTIONAL_SEQUENCE_RNN", "RESIZE_NEAREST_NEIGHBOR", "QUANTIZED_LSTM", "IF", "WHILE", "ELU",
    "HARD_SWISH", "FILL", "RANK", "BATCH_MATMUL", "PACK", "MIRROR_PAD", "REVERSE",
)))

_MODULES = (
    average_pool_2d, axis_aligned_bbox_transform, batch_matmul, box_with_nms_limit, cast, channel_shuffle,
    concatenation, conv_2d, depth_to_space, depthwise_conv_2d, dequantize, detection_postprocessing, elu,
    expand_dims, fill, fully_connected, gather, generate_proposals, grouped_conv_2d, heatmap_max_keypoint,
    instance_normalization, l2_normalization, l2_pool_2d,
    log_softmax, max_pool_2d, mirror_pad, pack, pad, pad_v2, quantize, reshape, resize_bilinear,
    resize_nearest_neighbor, reverse, roi_align, roi_pooling, select, slice, softmax, space_to_depth, split,
    squeeze, strided_slice, tile, topk_v2, transpose, transpose_conv_2d, if_op, while_op,
    rnn, svdf,
    lstm, quantized_16bit_lstm, quantized_lstm,
    space_to_batch_nd, batch_to_space_nd, local_response_normalization,
    embedding_lookup, hashtable_lookup, lsh_projection, random_multinomial, rank,
)

_FAMILIES = (argmax_argmin, elementwise_unary, elementwise_binary, comparison, reduce, sequence_rnn, sequence_lstm)
_DEFINITIONS: tuple[Any, ...] = (*_MODULES, *(op for family in _FAMILIES for op in family.OPERATIONS))

# Opcode -> operation (a module or an OperationDef).
OPERATIONS: dict[int, Any] = {op.CODE: op for op in _DEFINITIONS}

assert len(OPERATIONS) == len(_DEFINITIONS), "two operations share an opcode"
assert all(OPERATION_NAMES[code] == op.NAME for code, op in OPERATIONS.items()), "opcode/name mismatch"
