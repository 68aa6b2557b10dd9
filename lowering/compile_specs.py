"""NnapiBackend compile specs: what the partitioner tells preprocess and the runtime."""

from __future__ import annotations

import dataclasses
import json
import struct
from typing import Optional, Sequence

from executorch.exir.backend.compile_spec_schema import CompileSpec

from .nnapi_codes import FeatureLevel

FEATURE_LEVEL_KEY = "feature_level"
MAX_CACHED_SHAPES_KEY = "max_cached_shapes"  # read by the C++ runtime
RELAX_FP32_TO_FP16_KEY = "relax_fp32_to_fp16"
SYMBOL_RANGES_KEY = "symbol_ranges"  # JSON {symbol: [min, max]} as torch.export validated them

# NNAPI's runtime knobs (docs/runtime.md, "Runtime options"). Each key is both the CompileSpec key and the
# load-time ExecuTorch backend-option key; the C++ table (runtime/src/runtime_options.cpp) reads
# both, and the load-time value wins.
EXECUTION_PREFERENCES = {"low_power": 0, "fast_single_answer": 1, "sustained_speed": 2}
PRIORITIES = {"low": 90, "medium": 100, "high": 110}
ACCELERATOR_TYPES = ("cpu", "gpu", "accelerator", "other")


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
        execution_preference: "low_power", "fast_single_answer" or "sustained_speed"
            (Compilation_setPreference; None: NNAPI's default, fast_single_answer).
        priority: "low", "medium" or "high" (Compilation_setPriority, API 30).
        accelerator_name: compile only for the NNAPI device of this name (API 29).
        accelerator_type: compile only for devices of this type: "cpu", "gpu",
            "accelerator" or "other" (API 29).
        disallow_nnapi_cpu: compile for every device except NNAPI's CPU
            implementation "nnapi-reference" (API 29).
        cache_dir: NNAPI compilation cache directory (Compilation_setCaching, API 29).
        compilation_timeout_ms, execution_timeout_ms: NNAPI timeouts (API 30; they
            need exactly one selected device, e.g. accelerator_name).
        loop_timeout_ms: the longest a WHILE loop may run before the execution is
            aborted (Execution_setLoopTimeout, API 30; 0: NNAPI's default, 2 s).
        use_burst: run repeated executions through one NNAPI burst (API 29).
        measure_timing: when an ETDump is being recorded, ask NNAPI for each execution's
            duration (Execution_setMeasureTiming / getDuration, API 29; exactly one
            selected device, e.g. accelerator_name).

    Options a device's feature level lacks are skipped at run time with a log line.
    """

    feature_level: FeatureLevel = FeatureLevel.ANDROID_11
    max_cached_shapes: int = 8
    relax_fp32_to_fp16: bool = False
    execution_preference: Optional[str] = None
    priority: Optional[str] = None
    accelerator_name: Optional[str] = None
    accelerator_type: Optional[str] = None
    disallow_nnapi_cpu: bool = False
    cache_dir: Optional[str] = None
    compilation_timeout_ms: int = 0
    execution_timeout_ms: int = 0
    loop_timeout_ms: int = 0
    use_burst: bool = False
    measure_timing: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "feature_level", FeatureLevel.parse(self.feature_level))
        if self.max_cached_shapes < 1:
            raise ValueError("max_cached_shapes must be at least 1")
        _check_choice("execution_preference", self.execution_preference, EXECUTION_PREFERENCES)
        _check_choice("priority", self.priority, PRIORITIES)
        _check_choice("accelerator_type", self.accelerator_type, ACCELERATOR_TYPES)
        for name in ("compilation_timeout_ms", "execution_timeout_ms", "loop_timeout_ms"):
            if not 0 <= getattr(self, name) <= 2**31 - 1:
                raise ValueError(f"{name} must be between 0 and 2**31 - 1 milliseconds")

    def to_compile_specs(self) -> list[CompileSpec]:
        specs = [
            CompileSpec(FEATURE_LEVEL_KEY, struct.pack("<i", int(self.feature_level))),
            CompileSpec(MAX_CACHED_SHAPES_KEY, struct.pack("<i", self.max_cached_shapes)),
            CompileSpec(RELAX_FP32_TO_FP16_KEY, struct.pack("<?", self.relax_fp32_to_fp16)),
        ]
        # The runtime knobs travel only when set, so a .pte without them keeps NNAPI's defaults
        # and stays open to load-time options.
        if self.execution_preference is not None:
            specs.append(_int_spec("execution_preference", EXECUTION_PREFERENCES[self.execution_preference]))
        if self.priority is not None:
            specs.append(_int_spec("priority", PRIORITIES[self.priority]))
        for key in ("accelerator_name", "accelerator_type", "cache_dir"):
            if getattr(self, key):
                specs.append(CompileSpec(key, getattr(self, key).encode()))
        for key in ("disallow_nnapi_cpu", "use_burst", "measure_timing"):
            if getattr(self, key):
                specs.append(CompileSpec(key, struct.pack("<?", True)))
        for key in ("compilation_timeout_ms", "execution_timeout_ms", "loop_timeout_ms"):
            if getattr(self, key):
                specs.append(_int_spec(key, getattr(self, key)))
        return specs

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
            elif spec.key == "execution_preference":
                values[spec.key] = _name_of(EXECUTION_PREFERENCES, struct.unpack("<i", spec.value)[0])
            elif spec.key == "priority":
                values[spec.key] = _name_of(PRIORITIES, struct.unpack("<i", spec.value)[0])
            elif spec.key in ("accelerator_name", "accelerator_type", "cache_dir"):
                values[spec.key] = bytes(spec.value).decode()
            elif spec.key in ("disallow_nnapi_cpu", "use_burst", "measure_timing"):
                values[spec.key] = struct.unpack("<?", spec.value)[0]
            elif spec.key in ("compilation_timeout_ms", "execution_timeout_ms", "loop_timeout_ms"):
                values[spec.key] = struct.unpack("<i", spec.value)[0]
        return cls(**values)


def _check_choice(name: str, value: Optional[str], choices) -> None:
    if value is not None and value not in choices:
        raise ValueError(f"{name} must be one of {', '.join(choices)}; got {value!r}")


def _int_spec(key: str, value: int) -> CompileSpec:
    return CompileSpec(key, struct.pack("<i", value))


def _name_of(names: dict[str, int], code: int) -> str:
    return next(name for name, c in names.items() if c == code)
