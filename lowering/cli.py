"""``executorch-nnapi``: export a model to a .pte with NNAPI delegates, or list supported ops.

    executorch-nnapi export mobilenet_v2 -o mv2.pte --verify
    executorch-nnapi export mypkg.models:make_model --input-shape 1,3,320,320 \
        --dynamic 2:h:160:640 --dynamic 3:w:160:640 -o model.pte --verify
    executorch-nnapi ops
"""

from __future__ import annotations

import argparse
import importlib
import sys
import time
from typing import Sequence

import torch


def _load_model(spec: str) -> torch.nn.Module:
    """A torchvision model name (random weights) or ``module:callable``."""
    if ":" in spec:
        module_name, attr = spec.split(":", 1)
        obj = importlib.import_module(module_name)
        for part in attr.split("."):
            obj = getattr(obj, part)
        model = obj() if callable(obj) and not isinstance(obj, torch.nn.Module) else obj
    else:
        try:
            import torchvision
        except ImportError:
            raise SystemExit(f"'{spec}' looks like a torchvision model name but torchvision is not installed")
        try:
            model = torchvision.models.get_model(spec, weights=None)
        except ValueError:
            raise SystemExit(f"unknown torchvision model '{spec}'; use a name from "
                             "torchvision.models.list_models() or module:callable")
    if not isinstance(model, torch.nn.Module):
        raise SystemExit(f"{spec} did not give a torch.nn.Module (got {type(model).__name__})")
    return model.eval()


def _parse_shape(text: str) -> list[int]:
    try:
        return [int(s) for s in text.replace("x", ",").split(",") if s]
    except ValueError:
        raise argparse.ArgumentTypeError(f"bad shape '{text}' (expected e.g. 1,3,224,224)")


def _parse_dynamic(text: str):
    parts = text.split(":")
    if len(parts) != 4:
        raise argparse.ArgumentTypeError(f"bad --dynamic '{text}' (expected DIM:NAME:MIN:MAX, e.g. 2:h:16:1024)")
    return int(parts[0]), parts[1], int(parts[2]), int(parts[3])


def _export(args) -> int:
    from torch.export import Dim, export

    from executorch.exir import to_edge_transform_and_lower

    from executorch_nnapi.partitioners import NnapiPartitioner

    from .report import delegation_report

    model = _load_model(args.model)
    shape = args.input_shape
    example = torch.randn(*shape)
    dynamic_shapes = None
    if args.dynamic:
        dims = {}
        for dim, name, lo, hi in args.dynamic:
            if not 0 <= dim < len(shape):
                raise SystemExit(f"--dynamic dim {dim} is outside the input's rank {len(shape)}")
            if not lo <= shape[dim] <= hi:
                raise SystemExit(f"input size {shape[dim]} of dim {dim} is outside --dynamic range [{lo}, {hi}]")
            dims[dim] = Dim(name, min=lo, max=hi)
        dynamic_shapes = (dims,)
    t0 = time.perf_counter()
    ep = export(model, (example,), dynamic_shapes=dynamic_shapes)
    partitioner = NnapiPartitioner(feature_level=args.feature_level)
    edge = to_edge_transform_and_lower(ep, partitioner=[partitioner])
    report = delegation_report(edge, partitioner.decisions)
    program = edge.to_executorch()
    elapsed = time.perf_counter() - t0
    with open(args.output, "wb") as f:
        program.write_to_file(f)
    print(f"wrote {args.output} ({len(program.buffer) / 1e6:.2f} MB) in {elapsed:.1f} s for "
          f"{partitioner.feature_level.label}")
    print(report.format())
    if args.verify:
        return _verify(model, program.buffer, shape, args)
    return 0


def _verify(model, pte: bytes, shape: Sequence[int], args) -> int:
    from executorch.runtime import Runtime

    import executorch_nnapi.runtime  # noqa: F401
    from executorch_nnapi.runtime.host_driver import get_driver

    get_driver().feature_level = int(args.feature_level)
    program = Runtime.get().load_program(pte)  # the Method does not keep its Program alive
    method = program.load_method("forward")
    shapes = [list(shape)]
    for dim, _, lo, hi in args.dynamic or []:
        for other in (lo, hi):
            s = list(shapes[0])
            s[dim] = other
            shapes.append(s)
    worst = 0.0
    for s in shapes:
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
        print(f"verify {tuple(s)}: relative max error {err:.2e}, host run {run_ms:.1f} ms")
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
    parser = argparse.ArgumentParser(prog="executorch-nnapi", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    ex = sub.add_parser("export", help="export a model to a .pte with NNAPI delegates")
    ex.add_argument("model", help="torchvision model name (random weights) or module:callable")
    ex.add_argument("-o", "--output", required=True, help="where to write the .pte")
    ex.add_argument("--input-shape", type=_parse_shape, default=[1, 3, 224, 224], help="e.g. 1,3,224,224")
    ex.add_argument("--dynamic", type=_parse_dynamic, action="append",
                    help="DIM:NAME:MIN:MAX, a dynamic input dim (repeatable)")
    ex.add_argument("--feature-level", default=30, type=int, help="NNAPI feature level / Android API (default 30)")
    ex.add_argument("--verify", action="store_true", help="run the .pte on the host NNAPI driver and compare with eager")
    ex.add_argument("--tolerance", type=float, default=1e-4, help="relative max error allowed by --verify")
    ex.set_defaults(func=_export)
    ops = sub.add_parser("ops", help="print the op-support matrix (ATen op x feature level)")
    ops.set_defaults(func=_ops)
    args = parser.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
