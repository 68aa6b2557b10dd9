"""Export a torchvision model with a dynamic height and width to a .pte with NNAPI delegates,
then run it on the host NNAPI driver at several sizes and compare with eager PyTorch.

    python examples/export_dynamic.py                                  # mobilenet_v2, H, W in [64, 512]
    python examples/export_dynamic.py --model resnet18 --size 64 --min 33 --max 128 -o /tmp/r18.pte

The model has random weights (nothing is downloaded). The .pte runs unchanged in an Android app;
on a phone each new input size is compiled by NNAPI once and cached.
"""

from __future__ import annotations

import argparse
import sys

import torch
import torchvision
from torch.export import Dim, export

from executorch.exir import to_edge_transform_and_lower
from executorch.runtime import Runtime

import executorch_nnapi.runtime  # noqa: F401  registers NnapiBackend (and the host driver) with ExecuTorch
from executorch_nnapi.host_driver import get_driver
from executorch_nnapi.lowering.nnapi_codes import FeatureLevel
from executorch_nnapi.tools.report import delegation_report
from executorch_nnapi.partitioners import NnapiPartitioner


def export_to_pte(model: torch.nn.Module, size: int, lo: int, hi: int, feature_level: int) -> bytes:
    """torch.export with H and W in [lo, hi], NNAPI lowering, and the .pte's bytes."""
    example = torch.randn(1, 3, size, size)
    dynamic_shapes = {"x": {2: Dim("h", min=lo, max=hi), 3: Dim("w", min=lo, max=hi)}}
    exported = export(model, (example,), dynamic_shapes=dynamic_shapes)
    partitioner = NnapiPartitioner(feature_level=feature_level)
    edge = to_edge_transform_and_lower(exported, partitioner=[partitioner])
    print(delegation_report(edge, partitioner.decisions).format())
    return edge.to_executorch().buffer


def verify(model: torch.nn.Module, pte: bytes, sizes: list[tuple[int, int]], tolerance: float) -> bool:
    """Runs the .pte's forward at each (H, W) and compares with eager; True if all match."""
    program = Runtime.get().load_program(pte)
    method = program.load_method("forward")  # keep `program` alive while the method runs
    ok = True
    for h, w in sizes:
        x = torch.randn(1, 3, h, w)
        got = method.execute([x])[0]
        with torch.no_grad():
            want = model(x)
        error = ((got - want).abs().max() / want.abs().max()).item()
        ok &= error < tolerance
        print(f"  input 1x3x{h}x{w}: output {list(got.shape)}, relative max error {error:.1e}")
    return ok


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", default="mobilenet_v2", help="a torchvision classification model name")
    parser.add_argument("--size", type=int, default=224, help="the example input's height and width")
    parser.add_argument("--min", type=int, default=64, help="smallest height / width the .pte accepts")
    parser.add_argument("--max", type=int, default=512, help="largest height / width the .pte accepts")
    parser.add_argument("--feature-level", type=FeatureLevel.parse, default=FeatureLevel.ANDROID_11,
                        help="lowest Android API level (27..35) or NNAPI feature level the .pte runs on")
    parser.add_argument("-o", "--output", default="model_dynamic.pte")
    args = parser.parse_args()

    model = torchvision.models.get_model(args.model, weights=None).eval()
    pte = export_to_pte(model, args.size, args.min, args.max, args.feature_level)
    get_driver().feature_level = int(args.feature_level)  # the host driver acts as that device
    with open(args.output, "wb") as f:
        f.write(pte)
    print(f"wrote {args.output} ({len(pte) / 1e6:.1f} MB)")

    sizes = [(args.size, args.size), (args.min, args.min), (args.max, args.max), (args.min, args.max)]
    ok = verify(model, pte, sizes, tolerance=1e-4)
    print("matches eager PyTorch" if ok else "MISMATCH with eager PyTorch")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
