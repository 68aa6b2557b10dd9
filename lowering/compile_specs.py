"""NnapiBackend compile specs: what the partitioner tells preprocess and the runtime."""

from __future__ import annotations

import dataclasses
import json
import struct
from typing import Sequence

from executorch.exir.backend.compile_spec_schema import CompileSpec

from .nnapi_codes import FeatureLevel

FEATURE_LEVEL_KEY = "feature_level"
MAX_CACHED_SHAPES_KEY = "max_cached_shapes"  # read by the C++ runtime
RELAX_FP32_TO_FP16_KEY = "relax_fp32_to_fp16"
SYMBOL_RANGES_KEY = "symbol_ranges"  # JSON {symbol: [min, max]} as torch.export validated them


def symbol_ranges(exported_program) -> dict[str, tuple[int, int]]:
    """{symbol name: (min, max)} of an ExportedProgram's range constraints (finite bounds only)."""
    ranges = {}
    for sym, vr in exported_program.range_constraints.items():
        lower, upper = vr.lower, vr.upper
        if getattr(lower, "is_finite", True) is False:
            continue
        unbounded = getattr(upper, "is_finite", True) is False  # int_oo
        try:
            ranges[str(sym)] = (int(lower), 2**63 - 1 if unbounded else int(upper))
        except (TypeError, OverflowError, AttributeError):
            continue
    return ranges


def symbol_ranges_spec(ranges: dict[str, tuple[int, int]]) -> CompileSpec:
    return CompileSpec(SYMBOL_RANGES_KEY, json.dumps(ranges, sort_keys=True).encode())


def ranges_from_compile_specs(specs: Sequence[CompileSpec]) -> dict[str, tuple[int, int]]:
    for spec in specs:
        if spec.key == SYMBOL_RANGES_KEY:
            return {k: (int(v[0]), int(v[1])) for k, v in json.loads(bytes(spec.value).decode()).items()}
    return {}


@dataclasses.dataclass(frozen=True)
class NnapiCompileOptions:
    """Options of one lowering.

    Attributes:
        feature_level: lowest NNAPI feature level the .pte must run on.
        max_cached_shapes: how many compiled NNAPI models (one per distinct set
            of dynamic sizes) the runtime keeps per delegate.
        relax_fp32_to_fp16: let NNAPI compute float32 models in float16.
    """

    feature_level: FeatureLevel = FeatureLevel.ANDROID_11
    max_cached_shapes: int = 8
    relax_fp32_to_fp16: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "feature_level", FeatureLevel.parse(self.feature_level))
        if self.max_cached_shapes < 1:
            raise ValueError("max_cached_shapes must be at least 1")

    def to_compile_specs(self) -> list[CompileSpec]:
        return [
            CompileSpec(FEATURE_LEVEL_KEY, struct.pack("<i", int(self.feature_level))),
            CompileSpec(MAX_CACHED_SHAPES_KEY, struct.pack("<i", self.max_cached_shapes)),
            CompileSpec(RELAX_FP32_TO_FP16_KEY, struct.pack("<?", self.relax_fp32_to_fp16)),
        ]

    @classmethod
    def from_compile_specs(cls, specs: Sequence[CompileSpec]) -> "NnapiCompileOptions":
        values = {}
        for spec in specs:
            if spec.key == FEATURE_LEVEL_KEY:
                values["feature_level"] = FeatureLevel.parse(struct.unpack("<i", spec.value)[0])
            elif spec.key == MAX_CACHED_SHAPES_KEY:
                values["max_cached_shapes"] = struct.unpack("<i", spec.value)[0]
            elif spec.key == RELAX_FP32_TO_FP16_KEY:
                values["relax_fp32_to_fp16"] = struct.unpack("<?", spec.value)[0]
        return cls(**values)
