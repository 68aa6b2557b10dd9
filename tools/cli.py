"""``executorch-nnapi``: export a model to a .pte with NNAPI delegates, or list supported ops.

    executorch-nnapi export mobilenet_v2 -o mv2.pte --verify
    executorch-nnapi export mypkg.models:make_model --input-shape 1,3,320,320 \
        --dynamic 2:h:160:640 --dynamic 3:w:160:640 -o model.pte --verify
    executorch-nnapi export resnet18 --cpu-method xnnpack -o resnet18.pte   # + forward_cpu
    executorch-nnapi export mobilenet_v2 --quantize --calibration calib/ -o mv2_int8.pte --verify
    executorch-nnapi ops

Each command takes -v (also show the known warnings of torch, torchao and ExecuTorch, hidden by
default: tools/dependency_messages.py) or -q (print nothing but errors).
"""

from __future__ import annotations

import argparse
import contextlib
import difflib
import importlib
import io
import os
import sys
import time
from typing import NoReturn, Sequence

import torch

# Before the quantizer: importing it imports torchao, which logs a known deprecation.
from . import dependency_messages
from executorch_nnapi.quantizer.calibration import (RANDOM_WARNING, Calibration, CalibrationError, check_single_input, from_directory,
                          from_iterable, quantize_program, random_inputs, sqnr)
from .dynamic_dims import DynamicDim, explain_constraint_violation, parse_dynamic, torch_dynamic_shapes
from . import numerics_debugger
from .export import CPU_METHOD_BACKENDS
from .progress import Progress

RANDOM_CALIBRATION_SIZE = 32


class _OneLineErrorParser(argparse.ArgumentParser):
    """Reports a mistake on the command line in one line (not the usage block) and exits 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def _fail(message: str) -> NoReturn:
    """Ends ``export`` with ``message`` on stderr and exit code 1, without a traceback."""
    raise SystemExit(f"executorch-nnapi export: error: {message}")


def _load_model(spec: str) -> torch.nn.Module:
    """A torchvision model name (random weights) or ``module:callable``."""
    if ":" in spec:
        model = _load_callable(spec, "MODEL")
    else:
        try:
            import torchvision
        except ImportError:
            _fail(f"'{spec}' looks like a torchvision model name but torchvision is not installed")
        try:
            model = torchvision.models.get_model(spec, weights=None)
        except ValueError:
            close = difflib.get_close_matches(spec, torchvision.models.list_models(), n=3)
            hint = f"did you mean {' or '.join(close)}? " if close else ""
            _fail(f"unknown torchvision model '{spec}'; {hint}use a name from "
                  "torchvision.models.list_models() or module:callable")
    if not isinstance(model, torch.nn.Module):
        _fail(f"{spec} did not give a torch.nn.Module (got {type(model).__name__})")
    return model.eval()


def _load_callable(spec: str, what: str):
    """``module:attr.path``: the object, called if it is a factory rather than a module
    (``what``, e.g. MODEL or --calibration, names the argument in errors)."""
    module_name, attr = spec.split(":", 1)
    try:
        obj = importlib.import_module(module_name)
    except ImportError as e:
        _fail(f"cannot import '{module_name}' (from {what} '{spec}'): {e}")
    for part in attr.split("."):
        if not hasattr(obj, part):
            _fail(f"'{module_name}' has no '{attr}' ({what} '{spec}')")
        obj = getattr(obj, part)
    return obj() if callable(obj) and not isinstance(obj, torch.nn.Module) else obj


def _parse_shape(text: str) -> list[int]:
    try:
        shape = [int(s) for s in text.replace("x", ",").split(",") if s]
    except ValueError:
        shape = []
    if not shape or any(size <= 0 for size in shape):
        raise argparse.ArgumentTypeError(f"bad shape '{text}' (expected positive sizes, e.g. 1,3,224,224)")
    return shape


def _parse_feature_level(text: str):
    """--feature-level: an Android API level (27..35), a feature level (1..8) or a FeatureLevelCode."""
    from executorch_nnapi.lowering.nnapi_codes import FeatureLevel

    try:
        return FeatureLevel.parse(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _parse_dynamic(text: str) -> DynamicDim:
    try:
        return parse_dynamic(text)
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _check_input_shape(model: torch.nn.Module, spec: str, example: torch.Tensor) -> None:
    """One eager run, so that a shape the model cannot take is reported as such, not as an
    export traceback."""
    try:
        with torch.no_grad():
            model(example)
    except Exception as e:  # noqa: BLE001 - any failure of the user's model is reported in one line
        reason = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        _fail(f"{spec} does not run on an input of shape {list(example.shape)} (--input-shape): {reason}")


def _export_program(model: torch.nn.Module, example: torch.Tensor, dims: Sequence[DynamicDim]):
    """torch.export with the --dynamic dims; a range the model cannot take is reported in a line
    per dim with the range that works."""
    from torch._dynamo.exc import UserError, UserErrorType
    from torch.export import export

    shape = list(example.shape)
    try:
        dynamic_shapes = torch_dynamic_shapes(dims, shape) if dims else None
    except ValueError as e:
        _fail(str(e))
    try:
        return export(model, (example,), dynamic_shapes=dynamic_shapes)
    except UserError as e:
        if e.error_type != UserErrorType.CONSTRAINT_VIOLATION:
            raise
        _fail("\n".join(explain_constraint_violation(str(e), dims, shape)))


def _export(args) -> int:
    from .export import to_nnapi_program

    _check_quantize_args(args)
    quiet = args.verbosity <= dependency_messages.QUIET
    progress = Progress(prefix="executorch-nnapi export: ", enabled=False if quiet else None)
    with progress.stage("export"):
        model = _load_model(args.model)
        example = torch.randn(*args.input_shape)
        _check_input_shape(model, args.model, example)
        calibration = _load_calibration(args) if args.quantize else None
        t0 = time.perf_counter()
        ep = _export_program(model, example, args.dynamic or [])
    quantized = None
    if calibration is not None:
        with progress.stage("quantize"):
            quantized = _quantize(ep, calibration, args)
        print(f"quantized in {time.perf_counter() - t0:.1f} s ({_quantization_label(args, calibration)})")
        with progress.stage("export"):  # the converted model, for lowering
            ep = _export_program(quantized, example, args.dynamic or [])
    lowered = to_nnapi_program(ep, feature_level=args.feature_level, cpu_method=args.cpu_method, progress=progress,
                               generate_etrecord=args.etrecord is not None)
    elapsed = time.perf_counter() - t0
    if calibration is not None:
        lowered.report.quantization = _quantization_label(args, calibration)
        if calibration.random:
            lowered.report.warnings.append(RANDOM_WARNING)
    with open(args.output, "wb") as f:
        lowered.program.write_to_file(f)
    progress.finish()  # serialize
    if args.etrecord:
        numerics_debugger.save_etrecord(lowered.program, args.etrecord, (example,))
    print(f"wrote {args.output} ({len(lowered.buffer) / 1e6:.2f} MB) in {elapsed:.1f} s for "
          f"{lowered.partitioner.feature_level.label}; methods: {', '.join(lowered.method_names)}")
    print(lowered.report.format())
    if lowered.cpu_method:
        print(lowered.cpu_method_summary())
    _write_pictures(args, lowered)
    if not args.verify:
        return 0
    with progress.stage("verify"):
        if quantized is not None:
            return _verify_quantized(model, quantized, lowered.buffer, lowered.method_names, calibration, args,
                                     progress)
        return _verify(model, lowered.buffer, lowered.method_names, args, progress)


def _write_pictures(args, lowered) -> None:
    """--report-html and --report-model-explorer: the delegation report as a picture."""
    from .explorer_graph import write_explorer_graph
    from .graph_page import write_graph_page

    if args.report_html:
        write_graph_page(args.report_html, lowered.graph, title=f"{args.model}: NNAPI delegation")
        print(f"wrote the delegation picture to {args.report_html}")
    if args.report_model_explorer:
        write_explorer_graph(args.report_model_explorer, lowered.graph, label=args.model)
        print(f"wrote the Model Explorer graph to {args.report_model_explorer}")


CALIBRATION_HELP = ("--calibration DIR (.pt files, each holding one input tensor or a 1-tuple of it, and/or "
                    ".png / .jpg images), --calibration module:fn (returning an iterable of input tuples) or, "
                    "for a smoke test whose accuracy means nothing, --calibration random[:N]")


def _check_quantize_args(args) -> None:
    """The quantization options make sense together (before any model is loaded)."""
    from executorch_nnapi.lowering.nnapi_codes import SIGNED_SINCE

    if not args.quantize:
        if args.calibration or args.int8_signed:
            _fail("--calibration and --int8-signed apply only with --quantize")
        return
    if not args.calibration:
        _fail(f"--quantize needs calibration inputs: pass {CALIBRATION_HELP}")
    if args.cpu_method == "xnnpack":
        # Measured: XnnpackPartitioner on NnapiQuantizer's converted program (uint8 activations,
        # per-tensor linear weights) ran 14-24 output steps away from convert_pt2e on a small CNN.
        _fail("--cpu-method xnnpack cannot run the NNAPI-quantized program faithfully (XNNPACK's int8 scheme is "
              "not NnapiQuantizer's); use --cpu-method portable, or export a separate XNNPACK .pte")
    if args.int8_signed and args.feature_level < SIGNED_SINCE:
        _fail(f"--int8-signed needs --feature-level {SIGNED_SINCE} or higher (TENSOR_QUANT8_ASYMM_SIGNED is "
              f"Android 11's), got {args.feature_level}; drop --int8-signed for uint8 activations")


def _load_calibration(args) -> Calibration:
    """The --calibration samples: random[:N], a directory, or module:fn."""
    spec, shape = args.calibration, args.input_shape
    try:
        if spec == "random" or spec.startswith("random:"):
            count = spec.partition(":")[2] or str(RANDOM_CALIBRATION_SIZE)
            if not count.isdigit() or int(count) == 0:
                _fail(f"--calibration {spec}: N in random:N must be a positive integer")
            return random_inputs(shape, int(count))
        if os.path.isdir(spec):
            calibration = from_directory(spec, shape)
        elif ":" in spec:
            calibration = from_iterable(_load_callable(spec, "--calibration"), spec, shape)
        else:
            _fail(f"--calibration {spec}: not a directory, module:fn or random[:N]; pass {CALIBRATION_HELP}")
        check_single_input(calibration, shape, [d.dim for d in args.dynamic or []])
        return calibration
    except CalibrationError as e:
        _fail(f"--calibration {spec}: {e}")


def _quantization_label(args, calibration: Calibration) -> str:
    activations = "int8" if args.int8_signed else "uint8"
    return (f"{activations} activations (NnapiQuantizer, feature level {args.feature_level}), "
            f"calibrated on {calibration.description}")


def _quantize(ep, calibration: Calibration, args):
    """The convert_pt2e model of ``ep``, calibrated with NnapiQuantizer's observers."""
    # The out variants (and CPU kernels) of quantize / dequantize, for what stays on the CPU.
    import executorch.kernels.quantized  # noqa: F401

    from executorch_nnapi.quantizer.nnapi_quantizer import NnapiQuantizer

    quantizer = NnapiQuantizer(feature_level=args.feature_level, signed=args.int8_signed)
    try:
        return quantize_program(ep, quantizer, calibration)
    except CalibrationError as e:
        _fail(str(e))


def _verify_shapes(shape: Sequence[int], dims: Sequence[DynamicDim]) -> list[list[int]]:
    """The example shape, then each dynamic dim at both of its bounds."""
    shapes = [list(shape)]
    for d in dims:
        for bound in (d.min, d.max):
            s = list(shape)
            s[d.dim] = bound
            shapes.append(s)
    return shapes


def _load_methods(pte: bytes, method_names: Sequence[str], args):
    """The program (keep it alive: a Method does not) and (label, Method) per method name."""
    from executorch.runtime import Runtime

    import executorch_nnapi.runtime  # noqa: F401
    from executorch_nnapi.host_driver import get_driver

    from .export import NNAPI_METHOD_NAME

    get_driver().feature_level = int(args.feature_level)
    program = Runtime.get().load_program(pte)
    labels = ["verify" if name == NNAPI_METHOD_NAME else f"verify {name}" for name in method_names]
    return program, [(label, program.load_method(name)) for label, name in zip(labels, method_names)]


def _run_timed(method, x: torch.Tensor) -> tuple[torch.Tensor, float]:
    t0 = time.perf_counter()
    got = method.execute([x])[0]
    return got, (time.perf_counter() - t0) * 1e3


def _first_output(out):
    if isinstance(out, dict):  # segmentation models return {"out": ...}
        out = out["out"]
    return out[0] if isinstance(out, (tuple, list)) else out


def _relative_error(got: torch.Tensor, want: torch.Tensor) -> float:
    return ((got - want).abs().max() / want.abs().max().clamp_min(1e-6)).item()


def _verify(model, pte: bytes, method_names: Sequence[str], args, progress: Progress) -> int:
    program, methods = _load_methods(pte, method_names, args)  # noqa: F841 - keeps the Methods' program alive
    worst = 0.0
    for label, method in methods:
        for s in _verify_shapes(args.input_shape, args.dynamic or []):
            x = torch.randn(*s)
            got, run_ms = _run_timed(method, x)
            with torch.no_grad():
                want = _first_output(model(x))
            err = _relative_error(got, want)
            worst = max(worst, err)
            progress.print(f"{label} {tuple(s)}: relative max error {err:.2e}, host run {run_ms:.1f} ms")
    ok = worst < args.tolerance
    progress.print(f"verify: {'PASS' if ok else 'FAIL'} (worst {worst:.2e}, tolerance {args.tolerance:g})")
    return 0 if ok else 1


# A quantized .pte passes --verify if it is within one output step of the convert_pt2e model or,
# beyond that, no farther from the float model than convert_pt2e is, give or take this margin.
SQNR_MARGIN_DB = 1.0


def _output_scale(quantized) -> float | None:
    """The scale of the converted model's first output (one quantization step), or None
    if that output is not dequantized from 8 bits (its last op runs float)."""
    out = next(n for n in quantized.graph.nodes if n.op == "output").args[0]
    node = out[0] if isinstance(out, (tuple, list)) else out
    if getattr(node, "op", None) == "call_function" and "dequantize_per_tensor" in str(node.target):
        return float(node.args[1])
    return None


def _quantized_verify_inputs(args, calibration: Calibration) -> list[tuple[str, torch.Tensor]]:
    """(label, input) at the example shape and the dynamic bounds; at the example shape the
    first calibration sample when it is real data (random inputs otherwise)."""
    inputs = [(str(tuple(s)), torch.randn(*s)) for s in _verify_shapes(args.input_shape, args.dynamic or [])]
    name, first = calibration.samples[0]
    if not calibration.random and len(first) == 1 and list(first[0].shape) == list(args.input_shape):
        inputs[0] = (f"{tuple(args.input_shape)} (calibration input {name})", first[0])
    return inputs


def _verify_quantized(model, quantized, pte: bytes, method_names: Sequence[str], calibration: Calibration,
                      args, progress: Progress) -> int:
    """Each method of the .pte against the convert_pt2e model (in output steps) and against
    the float model (SQNR, beside convert_pt2e's own SQNR)."""
    program, methods = _load_methods(pte, method_names, args)  # noqa: F841 - keeps the Methods' program alive
    step = _output_scale(quantized)
    failures, worst = 0, 0.0
    for label, method in methods:
        for what, x in _quantized_verify_inputs(args, calibration):
            got, run_ms = _run_timed(method, x)
            with torch.no_grad():
                reference, want = _first_output(quantized(x)), _first_output(model(x))
            diff = (got - reference).abs().max().item()
            if step:
                distance, within = diff / step, diff <= step * 1.0001
                worst, text = max(worst, distance), f"{distance:.1f} output step(s)"
            else:
                distance = _relative_error(got, reference)
                worst, within, text = max(worst, distance), distance < args.tolerance, f"relative {distance:.2e}"
            sqnr_pte, sqnr_reference = sqnr(want, got), sqnr(want, reference)
            ok = within or sqnr_pte >= sqnr_reference - SQNR_MARGIN_DB
            failures += not ok
            progress.print(f"{label} {what}: max difference from convert_pt2e {text}; SQNR vs float: .pte "
                           f"{sqnr_pte:.1f} dB, convert_pt2e {sqnr_reference:.1f} dB; host run {run_ms:.1f} ms"
                           f"{'' if ok else '  <- FAIL'}")
    unit = "output step(s)" if step else "relative error"
    progress.print(f"verify: {'PASS' if not failures else 'FAIL'} (worst {worst:.1f} {unit} from convert_pt2e; "
                   f"passes within one step, or beyond it with an SQNR vs float at most {SQNR_MARGIN_DB:g} dB below "
                   "convert_pt2e's: NNAPI's integer rounding differs from convert_pt2e's float arithmetic at near-ties)")
    return 0 if not failures else 1


def _debug(args) -> int:
    for path, what in ((args.pte, "the .pte"), (args.etrecord, "--etrecord"), (args.inputs, "--inputs")):
        if path is not None and not os.path.isfile(path):
            raise SystemExit(f"executorch-nnapi debug: error: {what}: no such file: {path}")
    try:
        return numerics_debugger.run(args)
    except ValueError as e:
        raise SystemExit(f"executorch-nnapi debug: error: {e}") from None


def _ops(args) -> int:
    from executorch_nnapi.partitioners.op_support import support_table

    from executorch_nnapi.lowering.builders import UNIT_BUILDERS
    from executorch_nnapi.lowering.nnapi_codes import FeatureLevel
    from executorch_nnapi.lowering.node_utils import op_name

    levels = list(FeatureLevel)
    header = ["ATen op"] + [lv.short_label for lv in levels] + ["NNAPI", "constraints", "8-bit"]
    rows = []
    for row in sorted(support_table(), key=lambda r: op_name(r.op)):
        marks = ["yes" if lv >= row.since else "-" for lv in levels]
        eight_bit = "; ".join(dict.fromkeys(declared.summary for declared in row.quantized)) or "-"
        rows.append([f"`{op_name(row.op)}`"] + marks + [row.nnapi, row.constraints, eight_bit])
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for r in rows:
        print("| " + " | ".join(r) + " |")
    print()
    print("8-bit: how the op runs in a model quantized with NnapiQuantizer (its output keeps the input's scale, "
          "has a fixed one, or its own), from its builder's quantization declaration; - : float only.")
    for row in sorted(support_table(), key=lambda r: op_name(r.op)):
        for declared in row.quantized:
            if declared.why:
                print(f"`{op_name(row.op)}` stays float: {declared.why}.")
    # Multi-node patterns, each emitted by one unit builder (lowering/patterns/, builders/).
    print()
    print("| pattern | " + " | ".join(lv.short_label for lv in levels) + " | NNAPI |")
    print("|" + "---|" * (len(levels) + 2))
    for unit_builder in UNIT_BUILDERS.values():
        marks = ["yes" if lv >= unit_builder.since else "-" for lv in levels]
        print(f"| `{unit_builder.unit.__name__}` | " + " | ".join(marks) + f" | {unit_builder.doc()} |")
    return 0


def _verbosity_options(default) -> argparse.ArgumentParser:
    """-v / -q, taken before a command's name and after it (there with ``default`` SUPPRESS, so that
    the command's parser keeps what was given before its name)."""
    options = argparse.ArgumentParser(add_help=False)
    group = options.add_mutually_exclusive_group()
    group.add_argument("-v", "--verbose", dest="verbosity", action="store_const", const=dependency_messages.VERBOSE,
                       default=default,
                       help="also show the known warnings of torch, torchao and ExecuTorch (hidden by default)")
    group.add_argument("-q", "--quiet", dest="verbosity", action="store_const", const=dependency_messages.QUIET,
                       default=default,
                       help="print nothing but errors (export: its report only if it fails; ops and debug "
                            "still print their table)")
    return options


def _run(args) -> int:
    """The command, with the dependencies' messages shown at its verbosity; a quiet export
    prints its report only if it fails (to stderr)."""
    runs_programs = args.command == "debug" or getattr(args, "verify", False)
    with dependency_messages.shown_at(args.verbosity, runs_programs=runs_programs):
        if not (args.command == "export" and args.verbosity <= dependency_messages.QUIET):
            return args.func(args)
        report = io.StringIO()
        with contextlib.redirect_stdout(report):
            code = args.func(args)
        if code != 0:
            sys.stderr.write(report.getvalue())
        return code


def main(argv: Sequence[str] | None = None) -> int:
    parser = _OneLineErrorParser(prog="executorch-nnapi", description=__doc__.split("\n")[0],
                                 parents=[_verbosity_options(dependency_messages.NORMAL)])
    sub = parser.add_subparsers(dest="command", required=True)
    verbosity = _verbosity_options(argparse.SUPPRESS)
    ex = sub.add_parser("export", parents=[verbosity], help="export a model to a .pte with NNAPI delegates")
    ex.add_argument("model", help="torchvision model name (random weights) or module:callable")
    ex.add_argument("-o", "--output", required=True, help="where to write the .pte")
    ex.add_argument("--input-shape", type=_parse_shape, default=[1, 3, 224, 224], help="e.g. 1,3,224,224")
    ex.add_argument("--dynamic", type=_parse_dynamic, action="append",
                    help="DIM:NAME:MIN:MAX, a dynamic input dim (repeatable)")
    ex.add_argument("--feature-level", default=_parse_feature_level("30"), type=_parse_feature_level,
                    help="lowest Android API level (27..35) or NNAPI feature level (1..8, or 1000006..1000008) "
                         "the .pte must run on (default 30); see docs/feature_levels.md")
    ex.add_argument("--cpu-method", choices=CPU_METHOD_BACKENDS,
                    help="also write a method 'forward_cpu' lowered for the CPU (xnnpack: XnnpackPartitioner), "
                         "for devices without NNAPI; executorch_nnapi.runtime.load_method picks it there")
    ex.add_argument("--etrecord", metavar="PATH",
                    help="also write an ETRecord (for executorch-nnapi debug and ExecuTorch's Inspector)")
    ex.add_argument("--verify", action="store_true", help="run the .pte on the host NNAPI driver and compare with eager")
    ex.add_argument("--tolerance", type=float, default=1e-4, help="relative max error allowed by --verify")
    ex.add_argument("--quantize", action="store_true",
                    help="post-training quantization with NnapiQuantizer (8-bit NNAPI operations); needs --calibration")
    ex.add_argument("--calibration", metavar="DIR|module:fn|random[:N]",
                    help="calibration inputs for --quantize: a directory of .pt tensors (one input tensor, or a "
                         "1-tuple of it, per file) and/or .png/.jpg images (resized, ImageNet-normalized), a module:fn "
                         "returning an iterable of input tuples, or random[:N] normal inputs (default N "
                         f"{RANDOM_CALIBRATION_SIZE}; accuracy is then not meaningful)")
    ex.add_argument("--int8-signed", action="store_true",
                    help="signed int8 activations (TENSOR_QUANT8_ASYMM_SIGNED, feature level 30+) instead of uint8")
    ex.add_argument("--report-html", metavar="PATH",
                    help="write the delegation report as a picture: a self-contained HTML page of the graph "
                         "(partitions coloured, CPU nodes with their reasons; docs/graph_page.md)")
    ex.add_argument("--report-model-explorer", metavar="PATH",
                    help="write the same picture as a Model Explorer graph JSON (open it with `model-explorer PATH`)")
    ex.set_defaults(func=_export)
    ops = sub.add_parser("ops", parents=[verbosity], help="print the op-support matrix (ATen op x feature level)")
    ops.set_defaults(func=_ops)
    dbg = sub.add_parser("debug", parents=[verbosity], help="run a .pte and name the first NNAPI operation whose output diverges")
    numerics_debugger.add_arguments(dbg)
    dbg.set_defaults(func=_debug)
    args = parser.parse_args(argv)
    return _run(args)


if __name__ == "__main__":
    sys.exit(main())
