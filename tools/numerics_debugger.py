"""`executorch-nnapi debug`: which NNAPI operation goes wrong first (docs/debugging.md).

Runs a .pte with ETDump and intermediate outputs on, reads every delegated NNAPI operation's
output from the ETDump (the backend logs them, in PyTorch's dim order, 8-bit values
dequantized), and compares each with the same node of the program recorded in the ETRecord
run in PyTorch: the float model for a float export, the convert_pt2e model for an 8-bit one.
"""

from __future__ import annotations

import dataclasses
import json
import math
import operator
import pathlib
import tempfile
from typing import Any, Optional, Sequence

import torch

from executorch.devtools import Inspector
from executorch.devtools.etrecord import ETRecord, parse_etrecord
from executorch.devtools.inspector._intermediate_output_capturer import IntermediateOutputCapturer

from executorch_nnapi.lowering.serialization.blob_reader import BlobSummary

from .debug_picture import etrecord_program_graph
from .debug_rows import computing_nodes
from .dependency_messages import QUIET
from .progress import Progress
from .pte_delegates import nnapi_delegates

# Divergence thresholds: a float operation whose max error exceeds this fraction of the
# reference's largest magnitude; an 8-bit one more than this many output steps away.
DEFAULT_RTOL = 1e-3
DEFAULT_MAX_STEPS = 2.0


@dataclasses.dataclass
class DebugRow:
    """One delegated NNAPI operation, in execution order (the `--json` row)."""

    partition: int
    nnapi_index: int
    nnapi_op: str
    aten_nodes: list[str]
    source: Optional[str]
    shape: Optional[list[int]]
    max_abs_error: Optional[float] = None
    max_rel_error: Optional[float] = None
    max_steps: Optional[float] = None
    sqnr_db: Optional[float] = None
    time_us: Optional[float] = None
    first_divergent: bool = False

    def compared(self) -> bool:
        return self.max_abs_error is not None


@dataclasses.dataclass
class DebugReport:
    rows: list[DebugRow]

    @property
    def first_divergent(self) -> Optional[DebugRow]:
        return next((r for r in self.rows if r.first_divergent), None)

    def to_json(self) -> dict:
        """`{"rows": [...]}`; a figure that is not finite (the SQNR of an exact match) is null."""
        return {"rows": [{k: _finite(v) for k, v in dataclasses.asdict(r).items()} for r in self.rows]}

    def format(self) -> str:
        """The table: one line per NNAPI operation, then the verdict."""
        header = ("part", "#", "NNAPI op", "ATen nodes", "source", "shape", "max abs", "max rel", "steps",
                  "SQNR dB", "time us")
        lines = [tuple(str(h) for h in header)]
        for r in self.rows:
            lines.append((str(r.partition), str(r.nnapi_index), r.nnapi_op + (" <- first" if r.first_divergent else ""),
                          _short_nodes(r.aten_nodes), r.source or "-", _fmt_shape(r.shape),
                          _fmt(r.max_abs_error), _fmt(r.max_rel_error), _fmt(r.max_steps, ".2f"),
                          _fmt(r.sqnr_db, ".1f", none="inf" if r.compared() else "-"), _fmt(r.time_us, ".1f")))
        widths = [max(len(line[i]) for line in lines) for i in range(len(header))]
        text = ["  ".join(c.ljust(w) for c, w in zip(line, widths)).rstrip() for line in lines]
        first = self.first_divergent
        if first is None:
            text.append(f"no divergent operation ({sum(r.compared() for r in self.rows)} of {len(self.rows)} "
                        "NNAPI operations compared)")
        else:
            text.append(f"first divergent operation: {first.nnapi_op} (partition {first.partition}, operation "
                        f"{first.nnapi_index}) for {_short_nodes(first.aten_nodes)}"
                        + (f" at {first.source}" if first.source else ""))
        return "\n".join(text)


def _short_nodes(names: Sequence[str]) -> str:
    """The table's ATen column: the computing nodes (quantize / dequantize left out when there
    are others), without the edge dialect's aten_ prefix."""
    return ",".join(n.removeprefix("aten_") for n in computing_nodes(names)) or "-"


def _finite(v: Any) -> Any:
    return None if isinstance(v, float) and not math.isfinite(v) else v


def _fmt(v: Optional[float], spec: str = ".3g", none: str = "-") -> str:
    return none if v is None else format(v, spec)


def _fmt_shape(shape: Optional[Sequence[int]]) -> str:
    return "-" if shape is None else "x".join(str(d) for d in shape) or "scalar"


def _source_line(stack_trace: Optional[str]) -> Optional[str]:
    """A node's source line as file:line: the innermost frame outside torch itself (the
    user's forward), else the innermost frame."""
    if not stack_trace:
        return None
    frames = []
    for line in stack_trace.strip().splitlines():
        parts = line.strip().split('"')
        if line.strip().startswith("File ") and len(parts) >= 3:
            number = parts[2].split("line")[-1].split(",")[0].strip()
            frames.append((parts[1], f"{pathlib.Path(parts[1]).name}:{number}"))
    if not frames:
        return None
    torch_dir = str(pathlib.Path(torch.__file__).parent)
    outside = [where for path, where in frames if not path.startswith(torch_dir)]
    return (outside or [frames[-1][1]])[-1]


def _delegate_blobs(pte: bytes) -> dict[int, tuple[int, BlobSummary]]:
    """Instruction id of each NNAPI delegate call in `forward` -> (partition index, its blob)."""
    return {d.instruction: (d.partition, d.blob) for d in nnapi_delegates(pte)}


def reference_program(etrecord: ETRecord) -> torch.export.ExportedProgram:
    """The ETRecord's edge program of ``forward``: the one before partitioning."""
    edge = etrecord.edge_dialect_program
    if isinstance(edge, dict):
        edge = edge.get("forward", next(iter(edge.values())))
    if edge is None:
        raise ValueError("the ETRecord holds no edge program: generate it with "
                         "to_edge_transform_and_lower(..., generate_etrecord=True)")
    return edge


def default_inputs(etrecord: ETRecord, seed: int = 0) -> tuple:
    """The ETRecord's representative inputs, else standard-normal inputs of the program's
    example sizes (a fixed seed, so two runs compare the same thing)."""
    if etrecord._representative_inputs:
        return tuple(etrecord._representative_inputs[0])
    program = reference_program(etrecord)
    generator = torch.Generator().manual_seed(seed)
    inputs = []
    names = set(program.graph_signature.user_inputs)
    for node in program.graph.nodes:
        if node.op == "placeholder" and node.name in names:
            val = node.meta["val"]
            shape = [int(d) for d in val.shape]
            if val.dtype.is_floating_point:
                inputs.append(torch.randn(shape, generator=generator, dtype=val.dtype))
            else:
                inputs.append(torch.zeros(shape, dtype=val.dtype))
    return tuple(inputs)


def _run_with_etdump(pte_path: str, inputs: tuple, workdir: pathlib.Path, buffer_bytes: int) -> tuple[str, str]:
    """Runs `forward` with ETDump and the intermediate-output debug buffer; returns their paths."""
    from executorch.extension.pybindings.portable_lib import _load_for_executorch

    import executorch_nnapi.runtime  # noqa: F401  (registers NnapiBackend; on a host, the host driver)

    module = _load_for_executorch(pte_path, enable_etdump=True, debug_buffer_size=buffer_bytes)
    module.forward(inputs)
    etdump, debug = str(workdir / "run.etdp"), str(workdir / "run.debug")
    module.write_etdump_result_to_file(etdump, debug)
    return etdump, debug


def _debug_buffer_bytes(program) -> int:
    """Room for every intermediate as float32 twice over (CPU and NNAPI logs), plus slack."""
    total = 0
    for node in program.graph.nodes:
        vals = node.meta.get("val")
        for v in vals if isinstance(vals, (list, tuple)) else [vals]:
            if isinstance(v, torch.Tensor):
                total += 4 * int(math.prod(int(d) for d in v.shape))
    return 2 * total + (16 << 20)


def _reference_values(graph_module, inputs: tuple) -> dict[int, Any]:
    captured = IntermediateOutputCapturer(graph_module).run_and_capture(*inputs)
    return {handle[0] if len(handle) == 1 else handle: value for handle, value in captured.items()}


def _nodes_by_handle(graph_module) -> dict[int, list[torch.fx.Node]]:
    out: dict[int, list[torch.fx.Node]] = {}
    for node in graph_module.graph.nodes:
        handle = node.meta.get("debug_handle")
        if isinstance(handle, int) and node.op == "call_function":
            out.setdefault(handle, []).append(node)
    return out


def _value_node(candidates: Sequence[torch.fx.Node]) -> Optional[torch.fx.Node]:
    """Of the nodes sharing the debug handle of an operation's value (ExecuTorch gives a
    quantize and the dequantize after it one handle), the quantize when there is one."""
    candidates = [n for n in candidates if n.target is not operator.getitem]
    return next((n for n in candidates if _quantize_params(n) is not None), candidates[-1] if candidates else None)


def _source_of(nodes: Sequence[torch.fx.Node]) -> Optional[str]:
    """The source line of the last computing node (not a quantize / dequantize) among ``nodes``."""
    computing = [n for n in nodes if "quantize_per_" not in n.name] or list(nodes)
    for node in reversed(computing):
        line = _source_line(node.meta.get("stack_trace"))
        if line is not None:
            return line
    return None


def _quantize_params(node: torch.fx.Node) -> Optional[tuple[float, int]]:
    """(scale, zero point) when `node` quantizes per tensor (its value is 8-bit codes)."""
    if "quantize_per_tensor" in str(node.target) and "dequantize" not in str(node.target):
        return float(node.args[1]), int(node.args[2])
    return None


def _compare(row: DebugRow, got: torch.Tensor, ref: Any, node: torch.fx.Node) -> None:
    """Fills the error figures of `row` (got: the NNAPI value, float, PyTorch order)."""
    if isinstance(ref, (list, tuple)):
        ref = ref[0]
    if not isinstance(ref, torch.Tensor) or ref.numel() != got.numel():
        return
    q = _quantize_params(node)
    ref_float = ref.to(torch.float64)
    if q is not None and not ref.is_floating_point():
        # The quantize's codes (the dequantize sharing its handle gives the float value).
        ref_float = (ref_float - q[1]) * q[0]
    diff = (got.to(torch.float64).reshape(ref_float.shape) - ref_float).abs()
    row.max_abs_error = float(diff.max()) if diff.numel() else 0.0
    scale = float(ref_float.abs().max()) if ref_float.numel() else 0.0
    row.max_rel_error = row.max_abs_error / scale if scale > 0 else (0.0 if row.max_abs_error == 0 else math.inf)
    row.max_steps = row.max_abs_error / q[0] if q is not None else None
    noise = float((diff ** 2).sum())
    signal = float((ref_float ** 2).sum())
    row.sqnr_db = None if noise == 0 else (10 * math.log10(signal / noise) if signal > 0 else -math.inf)


def _diverges(row: DebugRow, rtol: float, max_steps: float) -> bool:
    if not row.compared():
        return False
    if row.max_steps is not None:
        return row.max_steps > max_steps
    return row.max_rel_error > rtol


def debug_program(pte_path: str, etrecord: "str | ETRecord", inputs: Optional[tuple] = None,
                  rtol: float = DEFAULT_RTOL, max_steps: float = DEFAULT_MAX_STEPS,
                  progress: Optional[Progress] = None) -> DebugReport:
    """Runs ``pte_path`` on ``inputs`` (default: see default_inputs) and compares every delegated
    NNAPI operation's output with the ETRecord program's value of the node it computes.

    Args:
        etrecord: the ETRecord's path, or the ETRecord read with ``parse_etrecord``.
        progress: shows the stages "run" and "compare" (nothing by default).
    """
    progress = progress or Progress(enabled=False)
    etrecord = parse_etrecord(etrecord) if isinstance(etrecord, (str, pathlib.Path)) else etrecord
    program = reference_program(etrecord)
    inputs = tuple(inputs) if inputs is not None else default_inputs(etrecord)
    blobs = _delegate_blobs(pathlib.Path(pte_path).read_bytes())
    with progress.stage("run"), tempfile.TemporaryDirectory(prefix="nnapi-debug-") as tmp:
        etdump, debug = _run_with_etdump(pte_path, inputs, pathlib.Path(tmp), _debug_buffer_bytes(program))
        inspector = Inspector(etdump_path=etdump, debug_buffer_path=debug)
        events = [e for block in inspector.event_blocks if block.name == "Execute" for e in block.events
                  if isinstance(e.delegate_debug_identifier, int) and e._instruction_id in blobs]
    with progress.stage("compare"):
        graph_module = program.module()
        references = _reference_values(graph_module, inputs)
        rows = _rows(events, blobs, _nodes_by_handle(graph_module), references)
        for row in rows:
            if _diverges(row, rtol, max_steps):
                row.first_divergent = True
                break
    return DebugReport(rows)


def _rows(events: list, blobs: dict, by_handle: dict, references: dict) -> list[DebugRow]:
    """One row per NNAPI operation of every delegate call, in execution order."""
    # Events of one operation: a profiling event and (when logged) an intermediate output.
    seen: dict[tuple[int, int], dict[str, Any]] = {}
    order: list[tuple[int, int]] = []
    for e in events:
        key = (e._instruction_id, e.delegate_debug_identifier)
        if key not in seen:
            seen[key] = {}
            order.append(key)
        if e.perf_data is not None:
            seen[key]["time_us"] = float(e.perf_data.avg) * 1000.0
        if e.debug_data:
            seen[key]["value"] = e.debug_data[0]
    # Operations with no event (the host shim not loaded) still get their rows.
    for instruction, (partition, blob) in sorted(blobs.items()):
        for k in range(len(blob.operation_types)):
            if (instruction, k) not in seen:
                seen[(instruction, k)] = {}
                order.append((instruction, k))
    order.sort()
    rows = []
    for instruction, k in order:
        partition, blob = blobs[instruction]
        if k >= len(blob.operation_types):
            continue
        handles = blob.operation_debug_handles[k]
        nodes = [n for h in handles for n in by_handle.get(h, []) if n.target is not operator.getitem]
        value_node = _value_node(by_handle.get(handles[-1], [])) if handles and blob.operation_logged[k] else None
        info = seen[(instruction, k)]
        got = info.get("value")
        row = DebugRow(partition=partition, nnapi_index=k, nnapi_op=blob.operation_types[k],
                       aten_nodes=[n.name for n in nodes], source=_source_of(nodes),
                       shape=list(got.shape) if isinstance(got, torch.Tensor) else None,
                       time_us=info.get("time_us"))
        if isinstance(got, torch.Tensor) and value_node is not None and handles[-1] in references:
            _compare(row, got, references[handles[-1]], value_node)
        rows.append(row)
    return rows


def save_etrecord(program, path: str, inputs: tuple) -> None:
    """Writes the ETRecord of ``program`` (lowered with generate_etrecord=True) with ``inputs``
    as its representative inputs, the ones `debug` runs by default."""
    etrecord = program.get_etrecord()
    etrecord.update_representative_inputs([inputs])
    etrecord.save(path)


def load_inputs(path: str) -> tuple:
    """Inputs saved with torch.save: a tensor, or a tuple / list of them."""
    value = torch.load(path, weights_only=True)
    if isinstance(value, torch.Tensor):
        return (value,)
    if isinstance(value, (list, tuple)) and all(isinstance(v, torch.Tensor) for v in value):
        return tuple(value)
    raise ValueError(f"{path}: expected a tensor or a tuple of tensors saved with torch.save, "
                     f"got {type(value).__name__}")


def add_arguments(parser) -> None:
    """The `debug` subcommand's arguments."""
    parser.add_argument("pte", help="the .pte to run (on the host NNAPI driver)")
    parser.add_argument("--etrecord", required=True, help="the ETRecord written when the .pte was exported")
    parser.add_argument("--inputs", help="inputs saved with torch.save (a tensor or a tuple of tensors); default: "
                        "the ETRecord's representative inputs, else seeded random ones")
    parser.add_argument("--json", help="also write the rows as JSON to this file")
    parser.add_argument("--html", metavar="PAGE",
                        help="also write the delegation picture with each NNAPI operation's row and the first "
                             "divergent operation marked: a self-contained HTML page (docs/graph_page.md)")
    parser.add_argument("--model-explorer", metavar="GRAPH_JSON",
                        help="also write that picture as a Model Explorer graph (open it with `model-explorer PATH`)")
    parser.add_argument("--rtol", type=float, default=DEFAULT_RTOL,
                        help="a float operation diverges past this max error relative to the reference's range")
    parser.add_argument("--max-steps", type=float, default=DEFAULT_MAX_STEPS,
                        help="an 8-bit operation diverges past this many output quantization steps")


def run(args) -> int:
    """`executorch-nnapi debug`: prints the table and writes the files asked for; exit code 0 (a
    divergence is a finding, not an error). Its stages (load, run, compare, write) show on a
    terminal (not with -q)."""
    progress = Progress(prefix="executorch-nnapi debug: ", enabled=False if args.verbosity <= QUIET else None)
    with progress.stage("load"):
        etrecord = parse_etrecord(args.etrecord)
        inputs = load_inputs(args.inputs) if args.inputs else None
    report = debug_program(args.pte, etrecord, inputs, rtol=args.rtol, max_steps=args.max_steps, progress=progress)
    print(report.format())
    if not (args.json or args.html or args.model_explorer):
        return 0
    with progress.stage("write"):
        rows = report.to_json()
        if args.json:
            pathlib.Path(args.json).write_text(json.dumps(rows, indent=1, allow_nan=False))
        if args.html or args.model_explorer:
            _write_pictures(args, etrecord, rows["rows"], progress)
    return 0


def _write_pictures(args, etrecord: ETRecord, rows: list[dict], progress: Progress) -> None:
    """--html and --model-explorer: the picture of the .pte's delegation with the debug rows."""
    from .explorer_graph import write_explorer_graph
    from .graph_page import write_graph_page

    graph = etrecord_program_graph(pathlib.Path(args.pte).read_bytes(), reference_program(etrecord))
    name = pathlib.Path(args.pte).name
    if args.html:
        write_graph_page(args.html, graph, debug_rows=rows, title=f"{name}: NNAPI delegation and numerics")
        progress.print(f"wrote the delegation picture with the debug rows to {args.html}")
    if args.model_explorer:
        write_explorer_graph(args.model_explorer, graph, debug_rows=rows, label=name)
        progress.print(f"wrote the Model Explorer graph with the debug rows to {args.model_explorer}")
