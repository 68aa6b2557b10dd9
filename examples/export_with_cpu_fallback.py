"""Export one .pte that runs with NNAPI where the phone has it and on the CPU (XNNPACK) where it
does not: a ``forward`` method with NNAPI delegates and a ``forward_cpu`` method, chosen at load
time by ``executorch_nnapi.runtime.load_method``.

    python examples/export_with_cpu_fallback.py                 # mobilenet_v2 at 224x224
    # The same on a "device without NNAPI" (the backend cannot load its NNAPI library):
    EXECUTORCH_NNAPI_LIBRARY=/nonexistent/libneuralnetworks.so python examples/export_with_cpu_fallback.py

The command-line equivalent of the export is
``executorch-nnapi export mobilenet_v2 --cpu-method xnnpack -o model.pte``.
"""

from __future__ import annotations

import argparse
import sys

import torch
import torchvision
from torch.export import export

from executorch_nnapi.tools.export import to_nnapi_program
from executorch_nnapi.runtime import load_method


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", default="mobilenet_v2", help="a torchvision classification model name")
    parser.add_argument("--size", type=int, default=224, help="the input's height and width")
    parser.add_argument("-o", "--output", default="model_with_cpu_method.pte")
    args = parser.parse_args()

    model = torchvision.models.get_model(args.model, weights=None).eval()
    x = torch.randn(1, 3, args.size, args.size)
    lowered = to_nnapi_program(export(model, (x,)), cpu_method="xnnpack")
    print(lowered.report.format())
    print(lowered.cpu_method_summary())
    with open(args.output, "wb") as f:
        lowered.program.write_to_file(f)
    print(f"wrote {args.output} ({len(lowered.buffer) / 1e6:.1f} MB) with methods {', '.join(lowered.method_names)}")

    # What an app does: load the file, let the helper pick the method this device can run.
    selected = load_method(args.output)
    print(f"running '{selected.name}' ({selected.reason})")
    got = selected.execute([x])[0]
    with torch.no_grad():
        want = model(x)
    error = ((got - want).abs().max() / want.abs().max()).item()
    print(f"relative max error against eager PyTorch: {error:.1e}")
    return 0 if error < 1e-4 else 1


if __name__ == "__main__":
    sys.exit(main())
