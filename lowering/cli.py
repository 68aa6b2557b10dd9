"""``executorch-nnapi``: export a model to a .pte with NNAPI delegates, or list supported ops.

    executorch-nnapi export mobilenet_v2 -o mv2.pte --verify
    executorch-nnapi export mypkg.models:make_model --input-shape 1,3,320,320 \
        --dynamic 2:h:160:640 --dynamic 3:w:160:640 -o model.pte --verify
    executorch-nnapi export resnet18 --cpu-method xnnpack -o resnet18.pte   # + forward_cpu
    executorch-nnapi ops
"""

from __future__ import annotations

import argparse
import difflib
import importlib
import sys
import time
from typing import NoReturn, Sequence

import torch

from .dynamic_dims import DynamicDim, explain_constraint_violation, parse_dynamic, torch_dynamic_shapes
from .export import CPU_METHOD_BACKENDS


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
        model = _load_callable(spec)
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


def _load_callable(spec: str):
    """``module:attr.path``: the object, called if it is a factory rather than a module."""
    module_name, attr = spec.split(":", 1)
    try:
        obj = importlib.import_module(module_name)
    except ImportError as e:
        _fail(f"cannot import '{module_name}' (from MODEL '{spec}'): {e}")
    for part in attr.split("."):
        if not hasattr(obj, part):
            _fail(f"'{module_name}' has no '{attr}' (MODEL '{spec}')")
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

    model = _load_model(args.model)
    example = torch.randn(*args.input_shape)
    _check_input_shape(model, args.model, example)
    t0 = time.perf_counter()
    ep = _export_program(model, example, args.dynamic or [])
    lowered = to_nnapi_program(ep, feature_level=args.feature_level, cpu_method=args.cpu_method)
    elapsed = time.perf_counter() - t0
    with open(args.output, "wb") as f:
        lowered.program.write_to_file(f)
    print(f"wrote {args.output} ({len(lowered.buffer) / 1e6:.2f} MB) in {elapsed:.1f} s for "
          f"{lowered.partitioner.feature_level.label}; methods: {', '.join(lowered.method_names)}")
    print(lowered.report.format())
    if lowered.cpu_method:
        print(lowered.cpu_method_summary())
    if args.verify:
        return _verify(model, lowered.buffer, lowered.method_names, args)
    return 0


def _verify_shapes(shape: Sequence[int], dims: Sequence[DynamicDim]) -> list[list[int]]:
    """The example shape, then each dynamic dim at both of its bounds."""
    shapes = [list(shape)]
    for d in dims:
        for bound in (d.min, d.max):
            s = list(shape)
            s[d.dim] = bound
            shapes.append(s)
    return shapes


def _verify(model, pte: bytes, method_names: Sequence[str], args) -> int:
    from executorch.runtime import Runtime

    import executorch_nnapi.runtime  # noqa: F401
    from executorch_nnapi.runtime.host_driver import get_driver

    from .export import NNAPI_METHOD_NAME

    get_driver().feature_level = int(args.feature_level)
    program = Runtime.get().load_program(pte)  # the Method does not keep its Program alive
    worst = 0.0
    for name in method_names:
        method = program.load_method(name)
        label = "verify" if name == NNAPI_METHOD_NAME else f"verify {name}"
        for s in _verify_shapes(args.input_shape, args.dynamic or []):
            x = torch.randn(*s)
            t0 = time.perf_counter()
            got = method.execute([x])[0]
            run_ms = (time.perf_counter() - t0) * 1e3
            with torch.no_grad():
                want = model(x)
            if isinstance(want, dict):  # segmentation models return {"out": ...}
                want = want["out"]
            want = want[0] if isinstance(want, (tuple, list)) else want
            err = ((got - want).abs().max() / want.abs().max().clamp_min(1e-6)).item()
            worst = max(worst, err)
            print(f"{label} {tuple(s)}: relative max error {err:.2e}, host run {run_ms:.1f} ms")
    ok = worst < args.tolerance
    print(f"verify: {'PASS' if ok else 'FAIL'} (worst {worst:.2e}, tolerance {args.tolerance:g})")
    return 0 if ok else 1


def _ops(args) -> int:
    from executorch_nnapi.partitioners.op_support import support_table

    from .builders import UNIT_BUILDERS
    from .nnapi_codes import FeatureLevel
    from .node_utils import op_name

    levels = [FeatureLevel.ANDROID_8_1, FeatureLevel.ANDROID_9, FeatureLevel.ANDROID_10, FeatureLevel.ANDROID_11]
    header = ["ATen op"] + [f"API {int(lv)}" for lv in levels] + ["NNAPI", "constraints"]
    rows = []
    for row in sorted(support_table(), key=lambda r: op_name(r.op)):
        marks = ["yes" if lv >= row.since else "-" for lv in levels]
        rows.append([f"`{op_name(row.op)}`"] + marks + [row.nnapi, row.constraints])
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for r in rows:
        print("| " + " | ".join(r) + " |")
    # Multi-node patterns, each emitted by one unit builder (lowering/patterns/, builders/).
    print()
    print("| pattern | " + " | ".join(f"API {int(lv)}" for lv in levels) + " | NNAPI |")
    print("|" + "---|" * (len(levels) + 2))
    for unit_builder in UNIT_BUILDERS.values():
        marks = ["yes" if lv >= unit_builder.since else "-" for lv in levels]
        print(f"| `{unit_builder.unit.__name__}` | " + " | ".join(marks) + f" | {unit_builder.doc()} |")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = _OneLineErrorParser(prog="executorch-nnapi", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    ex = sub.add_parser("export", help="export a model to a .pte with NNAPI delegates")
    ex.add_argument("model", help="torchvision model name (random weights) or module:callable")
    ex.add_argument("-o", "--output", required=True, help="where to write the .pte")
    ex.add_argument("--input-shape", type=_parse_shape, default=[1, 3, 224, 224], help="e.g. 1,3,224,224")
    ex.add_argument("--dynamic", type=_parse_dynamic, action="append",
                    help="DIM:NAME:MIN:MAX, a dynamic input dim (repeatable)")
    ex.add_argument("--feature-level", default=30, type=int, help="NNAPI feature level / Android API (default 30)")
    ex.add_argument("--cpu-method", choices=CPU_METHOD_BACKENDS,
                    help="also write a method 'forward_cpu' lowered for the CPU (xnnpack: XnnpackPartitioner), "
                         "for devices without NNAPI; executorch_nnapi.runtime.load_method picks it there")
    ex.add_argument("--verify", action="store_true", help="run the .pte on the host NNAPI driver and compare with eager")
    ex.add_argument("--tolerance", type=float, default=1e-4, help="relative max error allowed by --verify")
    ex.set_defaults(func=_export)
    ops = sub.add_parser("ops", help="print the op-support matrix (ATen op x feature level)")
    ops.set_defaults(func=_ops)
    args = parser.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
