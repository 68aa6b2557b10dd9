"""The documented quantized flow, as a user runs it, in a process of its own (run by
test_quantized_cpu_fallback.py): nothing is imported but torch, torchao's PT2E, ExecuTorch's
export API and ``executorch_nnapi``; in particular not ``executorch.kernels.quantized``, which a
test process may already hold from other tests.

    python quantized_user_flow.py lower CASE DIR   # quantize, lower, to_executorch: DIR/model.pte,
                                                    # DIR/expected.pt (inputs, convert_pt2e outputs, step, CPU ops)
    python quantized_user_flow.py lower-without-quantized-library CASE DIR
                                                    # the same as if ExecuTorch had no executorch.kernels.quantized
    python quantized_user_flow.py run DIR           # import executorch_nnapi.runtime, run DIR/model.pte
                                                    # with Runtime on DIR/expected.pt's inputs: DIR/actual.pt
"""

from __future__ import annotations

import sys
from pathlib import Path

import torch
import torch.nn.functional as F


class ConvNet(torch.nn.Module):
    """conv -> relu -> ``middle`` -> conv, with ``first`` applied to the input and ``last`` to the
    output; ``first`` / ``middle`` / ``last`` are what NNAPI does not take in 8 bits."""

    def __init__(self, first=None, middle=None, last=None, channels: int = 8) -> None:
        super().__init__()
        self.first, self.middle, self.last = first, middle, last
        self.conv1 = torch.nn.Conv2d(3, channels, 3, padding=1)
        self.conv2 = torch.nn.Conv2d(channels, 4, 3, padding=1)

    def forward(self, x):
        x = self.first(x) if self.first else x
        y = torch.relu(self.conv1(x))
        y = self.middle(y) if self.middle else y
        y = self.conv2(y)
        return self.last(y) if self.last else y


# name -> (model, NNAPI feature level the quantizer and the partitioner target)
CASES = {
    # Below API 29 NNAPI has no QUANTIZE of a float input: the CPU quantizes after the flip.
    "start_flip_api28": (lambda: ConvNet(first=lambda x: torch.flip(x, [3])), 28),
    # Annotated in 8 bits by the quantizer, refused by NNAPI (no dilated pool): the quantized
    # max pool, its dequantize and the output's stay on the CPU.
    "end_dilated_max_pool": (lambda: ConvNet(last=lambda y: F.max_pool2d(y, 3, stride=1, padding=1, dilation=2)), 30),
    "middle_dilated_max_pool": (lambda: ConvNet(middle=lambda y: F.max_pool2d(y, 3, stride=1, padding=1, dilation=2)),
                                30),
    # From API 30 the quantized bilinear resize is delegated (8-bit RESIZE_BILINEAR); at API 29 it
    # needs API 30's align_corners / half_pixel_centers and stays on the CPU with its quantize pair.
    "bilinear_upsample_api29": (lambda: ConvNet(middle=lambda y: F.interpolate(y, scale_factor=2, mode="bilinear")),
                                29),
}


def _last_dequantize_step(gm) -> float:
    dqs = [n for n in gm.graph.nodes if n.op == "call_function" and "dequantize_per_tensor" in str(n.target)]
    return float(dqs[-1].args[1])


def lower_cases(cases: str, out: Path) -> None:
    """Lowers each of the comma-separated ``cases`` into ``out/<case>`` (one process for all:
    each process start imports torch and ExecuTorch anew)."""
    for case in cases.split(","):
        (out / case).mkdir(parents=True, exist_ok=True)
        lower(case, out / case)


def run_cases(out: Path) -> None:
    """Runs every case lowered under ``out``."""
    for case_dir in sorted(p for p in out.iterdir() if (p / "model.pte").exists()):
        run(case_dir)


def lower(case: str, out: Path) -> None:
    from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e
    from executorch.exir import to_edge_transform_and_lower
    from executorch_nnapi.partitioners import NnapiPartitioner
    from executorch_nnapi.quantizer import NnapiQuantizer

    make, level = CASES[case]
    torch.manual_seed(0)
    model = make().eval()
    example = (torch.randn(1, 3, 8, 8),)
    gm = prepare_pt2e(torch.export.export(model, example).module(), NnapiQuantizer(feature_level=level))
    torch.manual_seed(1)
    for _ in range(8):
        gm(torch.randn_like(example[0]))
    gm(*example)
    gm = convert_pt2e(gm)
    edge = to_edge_transform_and_lower(torch.export.export(gm, example),
                                       partitioner=[NnapiPartitioner(feature_level=level)])
    cpu_ops = sorted({str(n.target) for n in edge.exported_program().graph.nodes
                      if n.op == "call_function" and "executorch_call_delegate" not in str(n.target)
                      and "getitem" not in str(n.target)})
    (out / "model.pte").write_bytes(edge.to_executorch().buffer)
    inputs = [example[0], torch.randn(1, 3, 8, 8)]
    with torch.no_grad():
        expected = [gm(x) for x in inputs]
    torch.save({"inputs": inputs, "expected": expected, "step": _last_dequantize_step(gm), "cpu_ops": cpu_ops,
                "modules": sorted(sys.modules)}, out / "expected.pt")


def run(out: Path) -> None:
    import executorch_nnapi.runtime  # noqa: F401  (the only import the documented flow asks for)
    from executorch.runtime import Runtime

    inputs = torch.load(out / "expected.pt")["inputs"]
    program = Runtime.get().load_program((out / "model.pte").read_bytes())  # a Method does not keep it alive
    method = program.load_method("forward")
    torch.save({"actual": [method.execute([x])[0] for x in inputs], "modules": sorted(sys.modules)},
               out / "actual.pt")


if __name__ == "__main__":
    if sys.argv[1] == "lower-without-quantized-library":
        sys.modules["executorch.kernels.quantized"] = None  # importlib finds no such package
    if sys.argv[1].startswith("lower"):
        lower_cases(sys.argv[2], Path(sys.argv[3]))
    else:
        run_cases(Path(sys.argv[2]))
