"""NNAPI constants used when emitting models (values from the NNAPI specification).

Only codes are defined here; what each operation accepts at which feature level
is enforced by the builders (lowering side) and the host driver (runtime side).
"""

from __future__ import annotations

import enum


class FeatureLevel(enum.IntEnum):
    """NNAPI feature levels. Up to level 5 the value equals the Android API level; from level 6
    on it is 1000000 + n (docs/feature_levels.md)."""

    ANDROID_8_1 = 27
    ANDROID_9 = 28
    ANDROID_10 = 29
    ANDROID_11 = 30
    ANDROID_12 = 31
    FEATURE_LEVEL_6 = 1000006
    FEATURE_LEVEL_7 = 1000007
    FEATURE_LEVEL_8 = 1000008

    @property
    def label(self) -> str:
        """Human-readable name, e.g. ``API 30 (Android 11)``, ``NNAPI feature level 8 (Android 13+)``."""
        if self.value < 1000000:
            return f"API {self.value} (Android {self.name.split('_', 1)[1].replace('_', '.')})"
        since = "" if self.value != FEATURE_LEVEL_OF_API[33] else " (Android 13+)"
        return f"NNAPI feature level {self.value - 1000000}{since}"

    @property
    def short_label(self) -> str:
        """``API 30`` up to level 5, ``FL 6`` after (the op-support matrix's column heads)."""
        return f"API {self.value}" if self.value < 1000000 else f"FL {self.value - 1000000}"

    @classmethod
    def parse(cls, value: "int | str | FeatureLevel") -> "FeatureLevel":
        """Accepts an Android API level (27..35), a feature-level number (1..8), a FeatureLevelCode
        (27..31, 1000006..1000008) or a member name; see docs/feature_levels.md for how API levels
        above 31 map to feature levels."""
        if isinstance(value, FeatureLevel):
            return value
        if isinstance(value, str):
            text = value.strip().upper()
            if text in cls.__members__:
                return cls[text]
            try:
                value = int(text.removeprefix("API").strip())
            except ValueError:
                raise ValueError(f"unknown NNAPI feature level {value!r}; {_LEVEL_CHOICES}") from None
        value = int(value)
        value = FEATURE_LEVEL_OF_API.get(value, _FEATURE_LEVEL_NUMBERS.get(value, value))
        try:
            return cls(value)
        except ValueError:
            raise ValueError(f"unknown NNAPI feature level {value}; {_LEVEL_CHOICES}") from None


_LEVEL_CHOICES = ("use an Android API level 27..35, a feature level 1..8, or a FeatureLevelCode "
                  "(27..31, 1000006..1000008)")
_FEATURE_LEVEL_NUMBERS = {1: 27, 2: 28, 3: 29, 4: 30, 5: 31, 6: 1000006, 7: 1000007, 8: 1000008}

# The feature level the NNAPI runtime of each Android API level above 30 reports at the least.
# API 32 (Android 12L) changed nothing in NNAPI. From Android 13 the NNAPI module's runtime
# reports feature level 8 (its minimum and default; levels 6 and 7 were only ever reached by
# Android 12 devices whose updatable NNAPI module was raised to them). docs/feature_levels.md.
FEATURE_LEVEL_OF_API: dict[int, int] = {31: 31, 32: 31, 33: 1000008, 34: 1000008, 35: 1000008}


class OperandCode(enum.IntEnum):
    FLOAT32 = 0
    INT32 = 1
    UINT32 = 2
    TENSOR_FLOAT32 = 3
    TENSOR_INT32 = 4
    TENSOR_QUANT8_ASYMM = 5
    BOOL = 6
    TENSOR_QUANT16_SYMM = 7
    TENSOR_FLOAT16 = 8
    TENSOR_BOOL8 = 9
    FLOAT16 = 10
    TENSOR_QUANT8_SYMM_PER_CHANNEL = 11
    TENSOR_QUANT16_ASYMM = 12
    TENSOR_QUANT8_SYMM = 13
    TENSOR_QUANT8_ASYMM_SIGNED = 14
    # A reference to another model: the branches of IF, the condition and body of WHILE (API 30).
    MODEL = 15


# The feature levels of the 8-bit operand types beyond TENSOR_QUANT8_ASYMM (API 27).
PER_CHANNEL_SINCE = FeatureLevel.ANDROID_10  # TENSOR_QUANT8_SYMM_PER_CHANNEL (per-channel weights)
SIGNED_SINCE = FeatureLevel.ANDROID_11       # TENSOR_QUANT8_ASYMM_SIGNED (int8 activations)

SCALAR_CODES = frozenset({OperandCode.FLOAT32, OperandCode.INT32, OperandCode.UINT32,
                          OperandCode.BOOL, OperandCode.FLOAT16})

ELEMENT_BYTES = {
    OperandCode.FLOAT32: 4, OperandCode.INT32: 4, OperandCode.UINT32: 4,
    OperandCode.TENSOR_FLOAT32: 4, OperandCode.TENSOR_INT32: 4,
    OperandCode.TENSOR_QUANT8_ASYMM: 1, OperandCode.BOOL: 1,
    OperandCode.TENSOR_QUANT16_SYMM: 2, OperandCode.TENSOR_FLOAT16: 2,
    OperandCode.TENSOR_BOOL8: 1, OperandCode.FLOAT16: 2,
    OperandCode.TENSOR_QUANT8_SYMM_PER_CHANNEL: 1, OperandCode.TENSOR_QUANT16_ASYMM: 2,
    OperandCode.TENSOR_QUANT8_SYMM: 1, OperandCode.TENSOR_QUANT8_ASYMM_SIGNED: 1,
}


class OperationCode(enum.IntEnum):
    ADD = 0
    AVERAGE_POOL_2D = 1
    CONCATENATION = 2
    CONV_2D = 3
    DEPTHWISE_CONV_2D = 4
    DEPTH_TO_SPACE = 5
    DEQUANTIZE = 6
    EMBEDDING_LOOKUP = 7
    FLOOR = 8
    FULLY_CONNECTED = 9
    HASHTABLE_LOOKUP = 10
    L2_NORMALIZATION = 11
    L2_POOL_2D = 12
    LOCAL_RESPONSE_NORMALIZATION = 13
    LOGISTIC = 14
    LSH_PROJECTION = 15
    LSTM = 16
    MAX_POOL_2D = 17
    MUL = 18
    RELU = 19
    RELU1 = 20
    RELU6 = 21
    RESHAPE = 22
    RESIZE_BILINEAR = 23
    RNN = 24
    SOFTMAX = 25
    SPACE_TO_DEPTH = 26
    SVDF = 27
    TANH = 28
    BATCH_TO_SPACE_ND = 29
    DIV = 30
    MEAN = 31
    PAD = 32
    SPACE_TO_BATCH_ND = 33
    SQUEEZE = 34
    STRIDED_SLICE = 35
    SUB = 36
    TRANSPOSE = 37
    ABS = 38
    ARGMAX = 39
    ARGMIN = 40
    AXIS_ALIGNED_BBOX_TRANSFORM = 41
    BIDIRECTIONAL_SEQUENCE_LSTM = 42
    BIDIRECTIONAL_SEQUENCE_RNN = 43
    BOX_WITH_NMS_LIMIT = 44
    CAST = 45
    CHANNEL_SHUFFLE = 46
    DETECTION_POSTPROCESSING = 47
    EQUAL = 48
    EXP = 49
    EXPAND_DIMS = 50
    GATHER = 51
    GENERATE_PROPOSALS = 52
    GREATER = 53
    GREATER_EQUAL = 54
    GROUPED_CONV_2D = 55
    HEATMAP_MAX_KEYPOINT = 56
    INSTANCE_NORMALIZATION = 57
    LESS = 58
    LESS_EQUAL = 59
    LOG = 60
    LOGICAL_AND = 61
    LOGICAL_NOT = 62
    LOGICAL_OR = 63
    LOG_SOFTMAX = 64
    MAXIMUM = 65
    MINIMUM = 66
    NEG = 67
    NOT_EQUAL = 68
    PAD_V2 = 69
    POW = 70
    PRELU = 71
    QUANTIZE = 72
    QUANTIZED_16BIT_LSTM = 73
    RANDOM_MULTINOMIAL = 74
    REDUCE_ALL = 75
    REDUCE_ANY = 76
    REDUCE_MAX = 77
    REDUCE_MIN = 78
    REDUCE_PROD = 79
    REDUCE_SUM = 80
    ROI_ALIGN = 81
    ROI_POOLING = 82
    RSQRT = 83
    SELECT = 84
    SIN = 85
    SLICE = 86
    SPLIT = 87
    SQRT = 88
    TILE = 89
    TOPK_V2 = 90
    TRANSPOSE_CONV_2D = 91
    UNIDIRECTIONAL_SEQUENCE_LSTM = 92
    UNIDIRECTIONAL_SEQUENCE_RNN = 93
    RESIZE_NEAREST_NEIGHBOR = 94
    QUANTIZED_LSTM = 95
    IF = 96
    WHILE = 97
    ELU = 98
    HARD_SWISH = 99
    FILL = 100
    RANK = 101
    BATCH_MATMUL = 102
    PACK = 103
    MIRROR_PAD = 104
    REVERSE = 105


class FuseCode(enum.IntEnum):
    NONE = 0
    RELU = 1
    RELU1 = 2
    RELU6 = 3


class PaddingCode(enum.IntEnum):
    SAME = 1
    VALID = 2


# Lowest feature level at which each operation code exists (NNAPI opcode table).
OPERATION_SINCE: dict[OperationCode, FeatureLevel] = {}
for _code in OperationCode:
    if _code <= 28:
        OPERATION_SINCE[_code] = FeatureLevel.ANDROID_8_1
    elif _code <= 37:
        OPERATION_SINCE[_code] = FeatureLevel.ANDROID_9
    elif _code <= 94:
        OPERATION_SINCE[_code] = FeatureLevel.ANDROID_10
    elif _code <= 101:
        OPERATION_SINCE[_code] = FeatureLevel.ANDROID_11
    elif _code <= 103:
        OPERATION_SINCE[_code] = FeatureLevel.FEATURE_LEVEL_6
    else:
        OPERATION_SINCE[_code] = FeatureLevel.FEATURE_LEVEL_7
