"""What the checks of the C++ runtime share (docs/sanitizers.md): the sanitizer builds
(scripts/sanitize.sh, one build directory per kind, built once and then only checked for
changes), running a sanitized binary so that any sanitizer report fails with its first frame,
and the small programs the checks run: float, 8-bit, dynamic, control flow, a llama with a KV
cache, two NNAPI subgraphs, two methods.

Used by tests/runtime/ (test_sanitizers, test_blob_fuzzer, test_threads, test_soak) and by the
long runs in scripts/ and bench/, which put this directory on ``sys.path``.
"""

from __future__ import annotations

import dataclasses
import fcntl
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Callable, Sequence

import pytest
import torch
from torch.export import Dim, export

ROOT = Path(__file__).resolve().parents[1]
LSAN_SUPPRESSIONS = ROOT / "runtime" / "checks" / "lsan_python.supp"

# ---------------------------------------------------------------------------------------
# Sanitizer builds.


def sanitizer_build(kind: str) -> Path:
    """The build directory of ``scripts/sanitize.sh build <kind>`` (address or thread), built or
    brought up to date once per process (a file lock keeps pytest-xdist workers from building it
    twice at once). Skips the test when clang is missing."""
    if shutil.which("clang++") is None:
        pytest.skip("clang++ is missing (apt-get install clang): no sanitizer build")
    if kind in _built:
        return _built[kind]
    (ROOT / "build").mkdir(exist_ok=True)
    with open(ROOT / "build" / f"sanitize-{kind}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        result = subprocess.run([str(ROOT / "scripts" / "sanitize.sh"), "build", kind], capture_output=True,
                                text=True, env={**os.environ, "PYTHON": sys.executable}, timeout=1800)
    if result.returncode != 0:
        raise AssertionError(f"scripts/sanitize.sh build {kind} failed:\n{result.stderr[-4000:]}")
    _built[kind] = Path(result.stdout.strip().splitlines()[-1])
    return _built[kind]


_built: dict[str, Path] = {}


def sanitizer_env(build: Path, extra: dict | None = None) -> dict:
    """The environment a sanitized binary of ``build`` runs in: every sanitizer report fatal,
    LeakSanitizer on with the embedded interpreter's suppressions, NNAPI = the build's own
    (sanitized) host shim, and this interpreter's module path for the driver the shim starts."""
    # A sanitized binary carries its own runtime: no preloaded one (scripts/sanitize.sh
    # runtime-tests preloads ASan's into the Python process).
    return {
        **{k: v for k, v in os.environ.items() if k != "LD_PRELOAD"},
        "ASAN_OPTIONS": "detect_leaks=1:halt_on_error=1:detect_stack_use_after_return=1",
        "LSAN_OPTIONS": f"suppressions={LSAN_SUPPRESSIONS}:print_suppressions=0",
        "UBSAN_OPTIONS": "print_stacktrace=1:halt_on_error=1",
        "TSAN_OPTIONS": "halt_on_error=1:second_deadlock_stack=1",
        # The host driver's torch computes on the calling thread: its OpenMP pool synchronizes
        # inside libgomp, which ThreadSanitizer cannot see (every hand-over would be a report).
        "OMP_NUM_THREADS": "1",
        "EXECUTORCH_NNAPI_LIBRARY": str(build / "host_driver" / "libnnapi_host_shim.so"),
        "PYTHONPATH": os.pathsep.join(p for p in sys.path if p),
        **(extra or {}),
    }


# The first line of a report of each sanitizer, and the frames of its stack.
_REPORT = re.compile(r"^(?:==\d+==ERROR: |WARNING: )?(\w+Sanitizer: .*|libFuzzer: .*)$|^(.*: runtime error: .*)$", re.M)
# Where libFuzzer saved the input of a crash.
_ARTIFACT = re.compile(r"Test unit written to (\S+)")
_FRAME = re.compile(r"^\s+#\d+ .*$", re.M)
# Frames of the allocator a leak's stack starts with: the first frame worth naming is its caller.
_ALLOCATOR = re.compile(r" in (malloc|calloc|realloc|operator new|__interceptor_\w+)\b")


def sanitizer_report(stderr: str) -> str | None:
    """The first sanitizer report in ``stderr`` as one line: what it found and its first frame
    outside the allocator (UBSan's line names the source position itself); None if none."""
    match = _REPORT.search(stderr)
    if match is None:
        return None
    what = (match.group(1) or match.group(2)).strip()
    artifact = _ARTIFACT.search(stderr)
    saved = f" | input saved as {artifact.group(1)}" if artifact else ""
    for frame in _FRAME.finditer(stderr, match.end()):
        if not _ALLOCATOR.search(frame.group(0)):
            return f"{what} | first frame: {frame.group(0).strip()}{saved}"
    return what + saved


def run_sanitized(argv: Sequence[str], build: Path, *, timeout: float, env_extra: dict | None = None,
                  check: bool = True) -> subprocess.CompletedProcess:
    """Runs a binary of a sanitizer build; a sanitizer report fails the test with its first frame,
    so does (with ``check``) a nonzero exit."""
    result = subprocess.run([str(a) for a in argv], capture_output=True, text=True, timeout=timeout,
                            env=sanitizer_env(build, env_extra))
    report = sanitizer_report(result.stderr)
    if report is not None:
        raise AssertionError(f"sanitizer report from {Path(argv[0]).name}: {report}")
    if check and result.returncode != 0:
        raise AssertionError(f"{Path(argv[0]).name} failed ({result.returncode}):\n{result.stdout[-3000:]}\n"
                             f"{result.stderr[-3000:]}")
    return result


# ---------------------------------------------------------------------------------------
# The programs the checks run.


@dataclasses.dataclass
class CheckProgram:
    """A .pte and input sets for its method (each a list of tensors, one per method input)."""
    name: str
    pte: Path
    runs: list[list[torch.Tensor]]
    method: str = "forward"


class SmallNet(torch.nn.Module):
    """conv -> relu -> global pool -> linear: a float CNN small enough to run thousands of times."""

    def __init__(self) -> None:
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.fc = torch.nn.Linear(8, 5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc(torch.relu(self.conv(x)).mean((2, 3)))


class CondNet(torch.nn.Module):
    """A conv, then a branch on the sign of its sum (NNAPI IF, API 30)."""

    def __init__(self) -> None:
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 4, 3, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.conv(x)
        return torch.cond(y.sum() > 0, lambda y: torch.relu(y) * 2, lambda y: y - 1, (y,)) + 1


class TwoInputs(torch.nn.Module):
    """conv(x) + y: a method of two inputs."""

    def __init__(self) -> None:
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 4, 3, padding=1)

    def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return self.conv(x) + y


class TwoSubgraphs(torch.nn.Module):
    """conv, erf (which NNAPI lacks: it stays on the CPU), conv: two NNAPI subgraphs."""

    def __init__(self) -> None:
        super().__init__()
        self.a = torch.nn.Conv2d(3, 4, 3, padding=1)
        self.b = torch.nn.Conv2d(4, 4, 3, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.b(torch.erf(self.a(x)))


def _images(*shapes: tuple[int, ...]) -> Callable[[int], list[list[torch.Tensor]]]:
    """Input sets of one image each, of these shapes, drawn from a seed."""
    def draw(seed: int) -> list[list[torch.Tensor]]:
        g = torch.Generator().manual_seed(seed)
        return [[torch.randn(*shape, generator=g)] for shape in shapes]
    return draw


def lower_program(name: str):
    """Program ``name`` of PROGRAMS exported and lowered with NnapiPartitioner (API 30): the
    EdgeProgramManager, before to_executorch."""
    from executorch.exir import to_edge_transform_and_lower
    from executorch_nnapi.partitioners import NnapiPartitioner

    programs = PROGRAMS[name][0]()
    if not isinstance(programs, dict):
        programs = {"forward": programs}
    partitioners = {method: [NnapiPartitioner(feature_level=30)] for method in programs}
    with torch.no_grad():
        return to_edge_transform_and_lower(programs, partitioner=partitioners)


def _export(make_model: Callable[[], torch.nn.Module], *shape: int, dynamic_shapes=None):
    """``make_model()``'s export, its weights drawn from seed 0 (as a test's eager copy is)."""
    torch.manual_seed(0)
    model = make_model().eval()
    return export(model, (torch.randn(*shape),), dynamic_shapes=dynamic_shapes)


def _int8():
    from quantized_reference import quantize

    torch.manual_seed(0)
    example = (torch.randn(1, 3, 16, 16),)
    return export(quantize(SmallNet(), example, signed=False), example)


def _two_inputs():
    torch.manual_seed(0)
    return export(TwoInputs().eval(), (torch.randn(1, 3, 8, 8), torch.randn(1, 4, 8, 8)))


def _control_flow_runs(seed: int) -> list[list[torch.Tensor]]:
    """An input taking the IF's then branch, one taking its else branch, and another."""
    torch.manual_seed(0)
    model = CondNet().eval()  # the exported weights
    g = torch.Generator().manual_seed(seed)
    by_branch: dict[bool, torch.Tensor] = {}
    while len(by_branch) < 2:
        x = torch.randn(1, 3, 8, 8, generator=g) * 3
        with torch.no_grad():
            by_branch.setdefault(bool(model.conv(x).sum() > 0), x)
    return [[by_branch[True]], [by_branch[False]], [torch.randn(1, 3, 8, 8, generator=g)]]


LLAMA_CONFIG = dict(n_layers=1, dim=64)
LLAMA_PROMPT = 5


def _llama():
    from executorch_nnapi.tools.language_model import LlamaConfig, export_llama, small_llama

    config = LlamaConfig(**LLAMA_CONFIG)
    return export_llama(small_llama(config), config.max_tokens)


def _llama_runs(seed: int) -> list[list[torch.Tensor]]:
    """A prefill of 5 tokens at position 0, then single tokens at positions 5 to 8: repeated in
    this order, every period computes the same (its prefill overwrites what its decode steps read
    of the KV cache)."""
    g = torch.Generator().manual_seed(seed)
    tokens = torch.randint(0, 512, (LLAMA_PROMPT + 4,), generator=g)
    runs = [[tokens[:LLAMA_PROMPT].reshape(1, -1), torch.tensor([0])]]
    return runs + [[tokens[p].reshape(1, 1), torch.tensor([p])] for p in range(LLAMA_PROMPT, LLAMA_PROMPT + 4)]


_HW = {"x": {2: Dim("h", min=8, max=32), 3: Dim("w", min=8, max=32)}}

# name -> (its exported program(s) by method name, input sets of its "forward" from a seed)
PROGRAMS: dict[str, tuple[Callable[[], object], Callable[[int], list[list[torch.Tensor]]]]] = {
    "float": (lambda: _export(SmallNet, 1, 3, 16, 16), _images(*[(1, 3, 16, 16)] * 3)),
    "int8": (_int8, _images(*[(1, 3, 16, 16)] * 3)),
    "dynamic": (lambda: _export(SmallNet, 1, 3, 16, 16, dynamic_shapes=_HW),
                _images((1, 3, 16, 16), (1, 3, 8, 24), (1, 3, 32, 8))),
    "control_flow": (lambda: _export(CondNet, 1, 3, 8, 8), _control_flow_runs),
    "llama": (_llama, _llama_runs),
    "two_subgraphs": (lambda: _export(TwoSubgraphs, 1, 3, 8, 8), _images(*[(1, 3, 8, 8)] * 2)),
    "two_inputs": (_two_inputs, lambda seed: [[x, y] for (x,), (y,) in zip(_images((1, 3, 8, 8))(seed),
                                                                            _images((1, 4, 8, 8))(seed + 1))]),
    # Methods "forward" (SmallNet) and "cond" (CondNet) of one program.
    "two_methods": (lambda: {"forward": _export(SmallNet, 1, 3, 16, 16), "cond": _export(CondNet, 1, 3, 8, 8)},
                    _images(*[(1, 3, 16, 16)] * 2)),
}


def make_program(name: str, directory: Path, seed: int = 0) -> CheckProgram:
    """Program ``name`` of PROGRAMS as ``directory/<name>.pte`` (exported once, then reused) with
    input sets drawn from ``seed``."""
    draw = PROGRAMS[name][1]
    pte = directory / f"{name}.pte"
    if not pte.exists():
        pte.write_bytes(lower_program(name).to_executorch().buffer)
    return CheckProgram(name, pte, draw(seed))


def write_inputs(runs: Sequence[Sequence[torch.Tensor]], directory: Path, stem: str) -> list[list[str]]:
    """Writes each input as raw little-endian bytes; returns per run the C++ tools' input
    arguments, ``file:d0,d1,...``."""
    directory.mkdir(parents=True, exist_ok=True)
    out = []
    for r, run in enumerate(runs):
        args = []
        for i, tensor in enumerate(run):
            path = directory / f"{stem}_run{r}_input{i}.bin"
            path.write_bytes(tensor.contiguous().numpy().astype(tensor.numpy().dtype.newbyteorder("<")).tobytes())
            args.append(f"{path}:{','.join(str(d) for d in tensor.shape)}")
        out.append(args)
    return out


_DTYPES = {"Float": torch.float32, "Long": torch.int64, "Int": torch.int32, "Byte": torch.uint8, "Char": torch.int8,
           "Bool": torch.bool}


def read_runner_outputs(directory: Path) -> list[torch.Tensor]:
    """The outputs nnapi_executor_runner --output-dir wrote (output_<i>.bin + .json)."""
    import json

    outputs = []
    for meta_path in sorted(directory.glob("output_*.json"), key=lambda p: int(p.stem.split("_")[1])):
        meta = json.loads(meta_path.read_text())
        data = bytearray(meta_path.with_suffix(".bin").read_bytes())
        outputs.append(torch.frombuffer(data, dtype=_DTYPES[meta["dtype"]]).reshape(meta["shape"]))
    return outputs


def python_runtime_outputs(program: CheckProgram, runs: Sequence[Sequence[torch.Tensor]]) -> list[list[torch.Tensor]]:
    """The outputs of each run, in order, of one method loaded by ExecuTorch's Python runtime
    (the installed backend on the host driver): what the C++ checks must reproduce."""
    from executorch.runtime import Runtime
    import executorch_nnapi.runtime  # noqa: F401  (NnapiBackend + host driver)

    loaded = Runtime.get().load_program(program.pte.read_bytes())
    method = loaded.load_method(program.method)
    return [[t.clone() for t in method.execute(list(run))] for run in runs]


def write_thread_manifest(path: Path, programs: Sequence[tuple[str, CheckProgram, str, str]],
                          churn: Sequence[CheckProgram], iterations: int, timeout: int) -> Path:
    """The manifest of runtime/checks/thread_check.cpp: each (thread name, program, method,
    shared Module tag or "") with its program's input sets, and the programs the churn thread
    loads and frees."""
    lines = [f"iterations {iterations}", f"timeout {timeout}"]
    for name, program, method, shared in programs:
        lines.append(f"program {name} {program.pte} {method} {shared}".rstrip())
        runs = write_inputs(program.runs, path.parent / "inputs", name)
        lines += ["run " + " ".join(args) for args in runs]
    lines += [f"churn {program.pte} forward" for program in churn]
    path.write_text("\n".join(lines) + "\n")
    return path


# ---------------------------------------------------------------------------------------
# Soak: resident memory and open files over many executions and load / free cycles.


@dataclasses.dataclass
class SoakSample:
    """The process after ``count`` executions or cycles."""
    count: int
    rss_kb: int
    open_fds: int
    live_nnapi_objects: int  # the host driver's live models, compilations, executions, ...


def _sample(count: int) -> SoakSample:
    from executorch_nnapi.host_driver import get_driver

    with open("/proc/self/statm") as statm:
        rss_kb = int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") // 1024
    return SoakSample(count, rss_kb, len(os.listdir("/proc/self/fd")), get_driver().live_handles())


def soak_executions(program: CheckProgram, executions: int, samples: int) -> list[SoakSample]:
    """Runs the program's method ``executions`` times (cycling through its input sets),
    sampling the process ``samples`` times."""
    from executorch_nnapi.runtime import load_method

    method = load_method(program.pte)
    every = max(1, executions // samples)
    out = [_sample(0)]
    for k in range(executions):
        method.execute(program.runs[k % len(program.runs)])
        if (k + 1) % every == 0:
            out.append(_sample(k + 1))
    return out


def soak_load_free(program: CheckProgram, cycles: int, samples: int) -> list[SoakSample]:
    """Loads the program, runs its method once and frees both, ``cycles`` times, sampling the
    process ``samples`` times (after a garbage collection: Python frees the Method's last
    reference at once, but a cycle could hold one)."""
    import gc
    from executorch_nnapi.runtime import load_method

    pte = program.pte.read_bytes()
    every = max(1, cycles // samples)
    out = [_sample(0)]
    for k in range(cycles):
        method = load_method(pte)
        method.execute(program.runs[k % len(program.runs)])
        del method
        if (k + 1) % every == 0:
            gc.collect()
            out.append(_sample(k + 1))
    return out


def dynamic_over_many_sizes(directory: Path, sizes: int = 20) -> CheckProgram:
    """The dynamic program with input sets of ``sizes`` different sizes: more than its cache of
    compiled models holds (max_cached_shapes, default 8), so it keeps evicting and compiling."""
    program = make_program("dynamic", directory)
    g = torch.Generator().manual_seed(0)
    program.runs = [[torch.randn(1, 3, 8 + k, 32 - k, generator=g)] for k in range(sizes)]
    return program


def growth_after_warmup(samples: Sequence[SoakSample], warmup: float = 0.2) -> tuple[float, int, int]:
    """(relative RSS growth, open fds growth, live NNAPI objects growth) from the first sample
    after the first ``warmup`` fraction of the run to the last."""
    start = next(s for s in samples if s.count >= warmup * samples[-1].count and s.count > 0)
    end = samples[-1]
    return ((end.rss_kb - start.rss_kb) / start.rss_kb, end.open_fds - start.open_fds,
            end.live_nnapi_objects - start.live_nnapi_objects)
