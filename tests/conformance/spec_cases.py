"""Android's generated NNAPI conformance cases, read from the vendored AOSP specs.

The spec files (``aosp/specs/V1_0`` .. ``V1_3``) are programs of AOSP's test DSL
(``aosp/test_generator.py``, vendored unchanged). AOSP runs them through its own example
generator, which writes one C++ ``TestModel`` per example and variation. This module runs the
same DSL with a dump callback of our own that keeps each ``TestModel`` as Python data instead:
the operands (type, dimensions, quantization, lifetime, bytes), the operations, the inputs and
outputs, the referenced subgraphs and the flags CTS reads (relaxed, expected failure, the
multinomial tolerance). The variations are the DSL's own: relaxed, float16, quant8, quant8
signed, NCHW, activations, axes, and the two lifetime variations CTS adds to single-operation
models (all constant tensors as model inputs; all inputs made internal by a dummy ADD).
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import importlib.util
import io
import os
import pickle
import hashlib
import sys
from pathlib import Path
from typing import Iterator, Optional

import numpy as np

AOSP = Path(__file__).resolve().parent / "aosp"
SPEC_FOLDERS = ("V1_0", "V1_1", "V1_2", "V1_3")

# ANeuralNetworks OperandCode of each DSL type name.
OPERAND_CODES = {
    "FLOAT32": 0, "INT32": 1, "UINT32": 2, "TENSOR_FLOAT32": 3, "TENSOR_INT32": 4,
    "TENSOR_QUANT8_ASYMM": 5, "BOOL": 6, "TENSOR_QUANT16_SYMM": 7, "TENSOR_FLOAT16": 8,
    "TENSOR_BOOL8": 9, "FLOAT16": 10, "TENSOR_QUANT8_SYMM_PER_CHANNEL": 11,
    "TENSOR_QUANT16_ASYMM": 12, "TENSOR_QUANT8_SYMM": 13, "TENSOR_QUANT8_ASYMM_SIGNED": 14,
    "SUBGRAPH": 15,
}
# The element type of each DSL type name's values (C++ type in AOSP's TestHarness).
ELEMENT_DTYPES = {
    "FLOAT32": np.float32, "INT32": np.int32, "UINT32": np.uint32, "TENSOR_FLOAT32": np.float32,
    "TENSOR_INT32": np.int32, "TENSOR_QUANT8_ASYMM": np.uint8, "BOOL": np.uint8,
    "TENSOR_QUANT16_SYMM": np.int16, "TENSOR_FLOAT16": np.float16, "TENSOR_BOOL8": np.uint8,
    "FLOAT16": np.float16, "TENSOR_QUANT8_SYMM_PER_CHANNEL": np.int8,
    "TENSOR_QUANT16_ASYMM": np.uint16, "TENSOR_QUANT8_SYMM": np.int8,
    "TENSOR_QUANT8_ASYMM_SIGNED": np.int8, "SUBGRAPH": np.uint32,
}
LIFETIME_VARIATIONS = ("all_tensors_as_inputs", "all_inputs_as_internal")


@dataclasses.dataclass
class Operand:
    """One operand of a test subgraph (AOSP's TestOperand)."""

    type_name: str
    dims: list[int]
    scale: float
    zero_point: int
    lifetime: str                      # SUBGRAPH_INPUT, CONSTANT_COPY, NO_VALUE, SUBGRAPH, ...
    data: np.ndarray                   # flat, in the type's element dtype (empty for no value)
    channel_quant: Optional[tuple[int, list[float]]] = None   # (channelDim, scales)
    ignored: bool = False

    @property
    def code(self) -> int:
        return OPERAND_CODES[self.type_name]

    @property
    def is_tensor(self) -> bool:
        return self.type_name.startswith("TENSOR_")


@dataclasses.dataclass
class Subgraph:
    """Operands, operations ((operation name, inputs, outputs)) and the model's inputs/outputs."""

    operands: list[Operand]
    operations: list[tuple[str, list[int], list[int]]]
    inputs: list[int]
    outputs: list[int]


@dataclasses.dataclass
class Case:
    """One generated test model, as CTS instantiates it."""

    name: str                          # AOSP's test name, e.g. "conv2d_v1_2_nchw_relaxed"
    spec: str                          # "V1_2/conv2d_v1_2"
    main: Subgraph
    referenced: list[Subgraph]
    relaxed: bool
    expect_failure: bool
    multinomial_tolerance: float
    lifetime: tuple[str, ...]          # the lifetime variations applied (empty for the plain case)

    @property
    def operation(self) -> str:
        """The operation under test: the one producing the model's last output (the dummy ADDs
        of a lifetime variation make internal operands, never outputs)."""
        target = self.main.outputs[-1]
        for name, _, outs in reversed(self.main.operations):
            if target in outs:
                return name
        return self.main.operations[-1][0]


def _load_dsl():
    """AOSP's DSL module, loaded from the vendored file (it keeps its state in class attributes)."""
    spec = importlib.util.spec_from_file_location("aosp_test_generator", AOSP / "test_generator.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["aosp_test_generator"] = module
    spec.loader.exec_module(module)
    return module


def _operand(tg, op) -> Operand:
    t = op.type
    dtype = ELEMENT_DTYPES[t.type]
    value = op.value
    if value is None or t.type == "SUBGRAPH" and not isinstance(value[0], int):
        data = np.zeros(0, dtype)
    elif dtype in (np.float32, np.float16):
        # The C++ file holds float literals: round to float32 first, as the compiler does.
        data = np.asarray(value, np.float64).astype(np.float32).astype(dtype)
    elif t.type in ("BOOL", "TENSOR_BOOL8"):
        data = np.asarray([1 if v else 0 for v in value], np.uint8)
    else:
        data = np.asarray([int(v) for v in value], np.int64).astype(dtype)
    extra = t.extraParams
    channel = (extra.channelDim, list(extra.scales)) if isinstance(extra, tg.SymmPerChannelQuantParams) \
        and not extra.hide else None
    return Operand(t.type, list(t.dimensions), t.scale, t.zeroPoint, op.lifetime, data, channel,
                   isinstance(op, tg.IgnoredOutput))


def _subgraph(tg, model) -> Subgraph:
    return Subgraph(
        operands=[_operand(tg, op) for op in model.operands],
        operations=[(o.optype, [i.model_index for i in o.ins], [i.model_index for i in o.outs])
                    for o in model.operations],
        inputs=[op.model_index for op in model.GetInputs()],
        outputs=[op.model_index for op in model.GetOutputs()],
    )


def _cases_of_spec(tg, path: Path) -> list[Case]:
    """Runs one spec file through the DSL and returns its cases (every example and variation)."""
    tg.FileNames.specFiles = [str(path)]
    tg.FileNames.specNames = [path.name.split(".")[0]]
    tg.FileNames.exampleFiles = [None]
    tg.FileNames.fileIndex = 0
    assert tg.FileNames.NextFile()
    version = path.parent.name
    out: list[Case] = []

    def dump(example, _fd) -> None:
        model = example.model
        case = Case(
            name=str(example.testName), spec=f"{version}/{tg.FileNames.specName}",
            main=_subgraph(tg, model), referenced=[_subgraph(tg, m) for m in model.GetReferencedModels()],
            relaxed=bool(model.isRelaxed), expect_failure=bool(example.expectFailure),
            multinomial_tolerance=float(example.expectedMultinomialDistributionTolerance),
            lifetime=tuple(v for v in LIFETIME_VARIATIONS if v in str(example.testName)),
        )
        out.append(case)

    exec(compile(path.read_text(), str(path), "exec"), tg.GetExecScope())
    with _lists_of_atoms_copied_flat():
        tg.Example.DumpAllExamples(DumpExample=dump, example_fd=io.StringIO())
    return out


_ATOMS = frozenset({int, float, bool, str, type(None)})


@contextlib.contextmanager
def _lists_of_atoms_copied_flat():
    """The DSL deep-copies each model once per variation, its operand values included (lists of
    Python numbers): three quarters of the time of reading the specs. For a list whose items are
    all immutable atoms, a deep copy is a new list of the same items, which a slice makes at once;
    any other list is copied by ``copy`` as before. The same copies, in a quarter of the time."""
    deep = copy._deepcopy_dispatch[list]

    def copy_list(x, memo, deepcopy=copy.deepcopy):
        if not all(type(v) in _ATOMS for v in x):
            return deep(x, memo, deepcopy)
        y = x[:]
        memo[id(x)] = y
        return y

    copy._deepcopy_dispatch[list] = copy_list
    try:
        yield
    finally:
        copy._deepcopy_dispatch[list] = deep


def spec_files() -> list[Path]:
    """Every vendored spec file, in AOSP's order (by folder, then name)."""
    return [p for folder in SPEC_FOLDERS for p in sorted((AOSP / "specs" / folder).glob("*.mod.py"))]


def spec_names() -> list[str]:
    """The names iter_spec takes ("V1_2/conv2d_v1_2"), of every spec file in AOSP's order."""
    return [f"{p.parent.name}/{p.name.removesuffix('.mod.py')}" for p in spec_files()]


def _cache_path() -> Path:
    digest = hashlib.sha256()
    for p in [AOSP / "test_generator.py", Path(__file__), *spec_files()]:
        digest.update(p.name.encode())
        digest.update(p.read_bytes())
    return Path.home() / ".cache" / "executorch-nnapi" / f"aosp-cases-{digest.hexdigest()[:16]}.pickle"


def load_cases(use_cache: bool = True) -> list[Case]:
    """Every case of the four spec folders, with the lifetime variations (AOSP's order).

    Running the DSL over ~600 files takes a while (the MobileNet specs hold 1M literals), so the
    result is kept in a pickle under ~/.cache keyed by the contents of the specs and of this file
    (read at most once per process, with iter_spec). ``use_cache=False``: every spec through the
    DSL, the file neither read nor written.
    """
    if not use_cache:
        return [c for name in spec_names() for c in _cases_of_spec(_load_dsl(), AOSP / "specs" / f"{name}.mod.py")]
    cases = [c for name in spec_names() for c in iter_spec(name)]
    cache = _cache_path()
    if not cache.exists():
        cache.parent.mkdir(parents=True, exist_ok=True)
        tmp = cache.with_suffix(f".{os.getpid()}.tmp")  # two test workers may write it at once
        tmp.write_bytes(pickle.dumps(cases, protocol=pickle.HIGHEST_PROTOCOL))
        tmp.replace(cache)
        for stale in cache.parent.glob("aosp-cases-*.pickle"):  # of earlier specs or code: 45 MB each
            if stale != cache:
                stale.unlink(missing_ok=True)
    return cases


# spec name -> its cases: each spec is run through the DSL at most once per process (~80 ms a file;
# the conformance tests and the host driver's 8-bit comparison read the cases and never change them).
_PARSED: dict[str, list[Case]] = {}
_cache_looked_for = False  # whether this process has looked for load_cases' file


def _parsed_from_the_cache() -> None:
    """The cases of load_cases' file, when it holds these specs, for each spec not parsed yet."""
    global _cache_looked_for
    _cache_looked_for = True
    cache = _cache_path()
    if cache.exists():
        parsed = set(_PARSED)
        for case in pickle.loads(cache.read_bytes()):
            if case.spec not in parsed:
                _PARSED.setdefault(case.spec, []).append(case)


def iter_spec(name: str) -> Iterator[Case]:
    """The cases of one spec file ("V1_2/conv2d_v1_2"). They come from load_cases' on-disk cache
    when it holds these specs (its key: the contents of every spec, of the DSL and of this file;
    1.6 s for all against ~50 s of DSL), else from the DSL."""
    if name not in _PARSED and not _cache_looked_for:
        _parsed_from_the_cache()
    if name not in _PARSED:
        _PARSED[name] = _cases_of_spec(_load_dsl(), AOSP / "specs" / f"{name}.mod.py")
    yield from _PARSED[name]
