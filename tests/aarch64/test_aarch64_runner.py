"""The delegate on ARM64 without a phone: .pte files exported by this project, run by the aarch64
nnapi_executor_runner under qemu-aarch64 (ExecuTorch's own aarch64 runtime and kernels from its
wheel, our backend built for aarch64), NNAPI being the forwarding libneuralnetworks.so the backend
dlopens as on a phone. Every output is bit-identical to the x86 runner's on the same .pte and
inputs through the same NNAPI server (NNAPI's part), or to it within float tolerance where the
CPU computes (ExecuTorch's aarch64 kernels are not its x86 ones), and matches eager torch.
"""

from __future__ import annotations

import copy
import os
import re
import subprocess
from pathlib import Path

import pytest
import torch
import torch.nn.functional as F
import torchvision
from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
from torch.export import Dim, export

from cli_models import small_cnn
from executorch_nnapi.partitioners import NnapiPartitioner
from executorch_nnapi.tools.language_model import LlamaConfig, eager_forward, export_llama, generate, small_llama
from op_harness import lower, relative_max_error
from quantized_reference import output_step, quantize, within_one_step
from aarch64_runners import ROOT
from runner_io import SmallNet, read_output, write_input, write_pte

pytestmark = pytest.mark.xdist_group("aarch64")


def _inputs(directory: Path, *tensors: torch.Tensor) -> list[str]:
    directory.mkdir(parents=True, exist_ok=True)
    return [write_input(directory / f"in_{k}.bin", t) for k, t in enumerate(tensors)]


def _check_eager(got: torch.Tensor, want: torch.Tensor, limit: float = 1e-4) -> None:
    assert got.shape == want.shape
    error = relative_max_error(got, want.detach())
    assert error < limit, f"relative error {error:.3g} against eager"


def test_mobilenet_v2_float_api_30(runners, tmp_path):
    torch.manual_seed(0)
    model = torchvision.models.mobilenet_v2().eval()
    x = torch.randn(1, 3, 224, 224)
    lowered = lower(model, (x,), feature_level=30)
    assert lowered.num_delegates == 1 and not lowered.cpu_ops, lowered.cpu_ops
    pte = tmp_path / "mobilenet_v2.pte"
    pte.write_bytes(lowered.pte)
    arm, _ = runners.both(pte, [_inputs(tmp_path / "in", x)], out=tmp_path)
    assert "method: forward\n" in arm.result.stdout and "(1 compilations)" in arm.result.stdout
    with torch.no_grad():
        _check_eager(arm.outputs[0], model(x))


def test_quantized_cnn_through_nnapi_quantizer(runners, tmp_path):
    """Every op, the input's QUANTIZE and the output's DEQUANTIZE included, runs in NNAPI."""
    model, x = small_cnn(), torch.randn(1, 3, 16, 16)
    converted = quantize(model, (x,), signed=False)
    lowered = lower(converted, (x,))
    assert lowered.num_delegates == 1 and not lowered.cpu_ops, lowered.cpu_ops
    pte = tmp_path / "q.pte"
    pte.write_bytes(lowered.pte)
    arm, _ = runners.both(pte, [_inputs(tmp_path / "in", x)], out=tmp_path)
    with torch.no_grad():
        want = converted(x)
    assert within_one_step(want, arm.outputs[0], output_step(converted)) == 1.0


class ConvThenDilatedPool(torch.nn.Module):
    """Two convs and a dilated max pool, which NNAPI lacks: the pool, with the dequantize before
    it and the quantize / dequantize after it, runs on ExecuTorch's CPU kernels."""

    def __init__(self) -> None:
        super().__init__()
        self.conv1, self.conv2 = torch.nn.Conv2d(3, 8, 3, padding=1), torch.nn.Conv2d(8, 4, 3, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.conv2(torch.relu(self.conv1(x)))
        return F.max_pool2d(y, 3, stride=1, padding=1, dilation=2)


def test_quantized_model_with_quantize_and_dequantize_on_the_cpu(runners, tmp_path):
    torch.manual_seed(0)
    model, x = ConvThenDilatedPool().eval(), torch.randn(1, 3, 8, 8)
    converted = quantize(model, (x,), signed=False)
    lowered = lower(converted, (x,))
    on_cpu = " ".join(lowered.cpu_ops)
    assert "quantize_per_tensor" in on_cpu and "dequantize_per_tensor" in on_cpu, lowered.cpu_ops
    pte = tmp_path / "qcpu.pte"
    pte.write_bytes(lowered.pte)
    arm, _ = runners.both(pte, [_inputs(tmp_path / "in", x)], out=tmp_path)
    with torch.no_grad():
        want = converted(x)
    steps = [n for n in converted.graph.nodes if "dequantize_per_tensor" in str(n.target)]
    assert within_one_step(want, arm.outputs[0], float(steps[-1].args[1])) == 1.0


@pytest.fixture(scope="module")
def dynamic_pte(tmp_path_factory) -> tuple[torch.nn.Module, Path, bytes]:
    """(model, .pte with dynamic H and W, the bytes of its one NNAPI blob)."""
    torch.manual_seed(0)
    model = SmallNet().eval()
    x = torch.randn(1, 3, 16, 16)
    lowered = lower(model, (x,), dynamic_shapes={"x": {2: Dim("h", min=8, max=64), 3: Dim("w", min=8, max=64)}})
    pte = tmp_path_factory.mktemp("dynamic") / "dynamic.pte"
    pte.write_bytes(lowered.pte)
    (blob,) = lowered.raw_blobs
    return model, pte, blob


def test_dynamic_height_and_width_at_two_sizes(runners, dynamic_pte, tmp_path):
    model, pte, _ = dynamic_pte
    xs = [torch.randn(1, 3, 24, 40), torch.randn(1, 3, 8, 12)]
    arm, _ = runners.both(pte, [_inputs(tmp_path / f"in{k}", x) for k, x in enumerate(xs)], out=tmp_path)
    assert "(2 compilations)" in arm.result.stdout
    for x, outputs in zip(xs, arm.steps):
        with torch.no_grad():
            for got, want in zip(outputs, model(x), strict=True):
                _check_eager(got, want)


def test_run_aarch64_script_uses_a_listening_server(runners, dynamic_pte, tmp_path):
    """scripts/run_aarch64.sh, as a user runs it, with the session's server already listening."""
    model, pte, _ = dynamic_pte
    x = torch.randn(1, 3, 20, 12)
    (spec,) = _inputs(tmp_path / "in", x)
    out = tmp_path / "out"
    out.mkdir()
    result = subprocess.run([str(ROOT / "scripts" / "run_aarch64.sh"), str(pte), "--input", spec, "--output-dir",
                             str(out)], capture_output=True, text=True, timeout=600,
                            env={**os.environ, "EXECUTORCH_NNAPI_SERVER": runners.socket})
    assert result.returncode == 0, result.stdout + result.stderr
    assert "method: forward\n" in result.stdout
    with torch.no_grad():
        _check_eager(read_output(out, 1), model(x)[1])


def test_llama_with_its_kv_cache_prefill_then_decode_steps(runners, tmp_path):
    config = LlamaConfig(n_layers=1, dim=64)
    model = small_llama(config)
    with torch.no_grad():
        pte = write_pte(tmp_path / "llama.pte", {"forward": export_llama(model, config.max_tokens)},
                        {"forward": [NnapiPartitioner(feature_level=30)]})
    prompt = [5, 17, 301, 44, 9]
    eager = generate(eager_forward(copy.deepcopy(model)), prompt, 4)
    # The prefill, then each token eager chose, at its position.
    calls = [(prompt, 0)] + [([token], len(prompt) + k) for k, token in enumerate(eager.tokens[:-1])]
    steps = [_inputs(tmp_path / f"step{k}", torch.tensor([tokens]), torch.tensor([start]))
             for k, (tokens, start) in enumerate(calls)]
    arm, _ = runners.both(pte, steps, out=tmp_path)
    assert "(2 compilations)" in arm.result.stdout  # one for the prompt's length, one for single tokens
    for k, (outputs, want) in enumerate(zip(arm.steps, eager.logits, strict=True)):
        _check_eager(outputs[0], want, 1e-3)
        assert int(outputs[0].argmax(-1)) == eager.tokens[k], f"call {k}"


def test_ssdlite_detector_at_two_image_sizes(runners, tmp_path):
    """examples/android's detector: SSDlite exported whole (post-processing in NNAPI, image size a
    Dim), its four outputs on ARM64 bit-identical to x86 and equal to eager torchvision's."""
    from executorch_nnapi.tools.detection import detection_difference, detections_of, export_detector
    from executorch_nnapi.tools.detection_models import random_detector

    model = random_detector("ssdlite320_mobilenet_v3_large", image_size=(64, 80))   # batch-norm statistics
    g = torch.Generator().manual_seed(7)
    images = [torch.rand(3, 160, 200, generator=g), torch.rand(3, 120, 240, generator=g)]
    program = export_detector(model, images[0], max_detections=20, dynamic_size=(64, 320))
    pte = write_pte(tmp_path / "ssdlite.pte", {"forward": program}, {"forward": [NnapiPartitioner(feature_level=30)]})
    arm, _ = runners.both(pte, [_inputs(tmp_path / f"in{k}", image) for k, image in enumerate(images)], out=tmp_path)
    assert "(2 compilations)" in arm.result.stdout
    for image, outputs in zip(images, arm.steps, strict=True):
        assert [o.dtype for o in outputs] == [torch.float32, torch.float32, torch.int64, torch.int32]
        with torch.no_grad():
            want = model([image])[0]
        want = {key: value[:20] for key, value in want.items()}   # the capacity: torchvision's best 20
        assert int(outputs[3]) == 20
        assert not detection_difference(detections_of(outputs), want), detection_difference(detections_of(outputs),
                                                                                            want)


class Branches(torch.nn.Module):
    """A conv, then torch.cond on the sign of its mean: NNAPI's IF with two referenced models."""

    def __init__(self) -> None:
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 4, 3, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.conv(x)
        return torch.cond(y.mean() > 0, lambda y: torch.sigmoid(y) * 3, lambda y: torch.tanh(y) - 1, (y,))


def test_cond_runs_as_if_on_both_branches(runners, tmp_path):
    torch.manual_seed(0)
    model = Branches().eval()
    candidates = [torch.randn(1, 3, 8, 8, generator=torch.Generator().manual_seed(s)) * 3 for s in range(40)]
    taken = {bool(model.conv(x).mean() > 0): x for x in candidates}
    assert set(taken) == {True, False}
    lowered = lower(model, (taken[True],), feature_level=30)
    assert lowered.num_delegates == 1 and not lowered.cpu_ops, lowered.cpu_ops
    assert "IF" in lowered.blobs[0].operation_types
    pte = tmp_path / "cond.pte"
    pte.write_bytes(lowered.pte)
    xs = [taken[True], taken[False]]
    arm, _ = runners.both(pte, [_inputs(tmp_path / f"in{k}", x) for k, x in enumerate(xs)], out=tmp_path)
    for x, outputs in zip(xs, arm.steps):
        with torch.no_grad():
            _check_eager(outputs[0], model(x))


def test_without_nnapi_forward_cpu_runs_on_xnnpacks_aarch64_kernels(runners, tmp_path):
    torch.manual_seed(0)
    model = SmallNet().eval()
    x = torch.randn(1, 3, 16, 16)
    pte = write_pte(tmp_path / "two.pte", {"forward": export(model, (x,)), "forward_cpu": export(model, (x,))},
                    {"forward": [NnapiPartitioner()], "forward_cpu": [XnnpackPartitioner()]})
    inputs = [_inputs(tmp_path / "in", x)]
    # No libneuralnetworks.so on the aarch64 library path, a missing one named on x86.
    arm = runners.run("aarch64", pte, inputs, out=tmp_path / "aarch64", nnapi=False)
    x86 = runners.run("x86", pte, inputs, out=tmp_path / "x86",
                      env={"EXECUTORCH_NNAPI_LIBRARY": str(tmp_path / "none" / "libneuralnetworks.so")})
    for run in (arm, x86):
        assert "running method 'forward_cpu' instead of 'forward'" in run.result.stdout
        assert "NnapiBackend: NNAPI is not available: cannot load the NNAPI library" in run.result.stderr
    with torch.no_grad():
        want = model(x)
    for got_arm, got_x86, expected in zip(arm.outputs, x86.outputs, want, strict=True):
        # XNNPACK's aarch64 microkernels sum in another order than its x86 ones.
        torch.testing.assert_close(got_arm, got_x86, rtol=1e-5, atol=1e-6)
        _check_eager(got_arm, expected)


def _refusal(stderr: str) -> list[str]:
    """The backend's log lines and the runner's error line, without ET_LOG's time stamp."""
    lines = [re.sub(r"^[EIW] [0-9:.]+ executorch:", "", line) for line in stderr.splitlines()
             if "NnapiBackend:" in line or line.startswith("error:")]
    return [line for line in lines if line]


def test_a_corrupted_blob_is_refused_in_the_same_line_as_on_x86(runners, dynamic_pte, tmp_path):
    _, pte, blob = dynamic_pte
    data = bytearray(pte.read_bytes())
    start = data.find(blob)
    assert start >= 0
    data[start + len(blob) // 2] ^= 0x10
    broken = tmp_path / "broken.pte"
    broken.write_bytes(bytes(data))
    inputs = [_inputs(tmp_path / "in", torch.randn(1, 3, 16, 16))]
    arm = runners.run("aarch64", broken, inputs, out=tmp_path / "aarch64", check=False)
    x86 = runners.run("x86", broken, inputs, out=tmp_path / "x86", check=False)
    assert arm.result.returncode == x86.result.returncode == 1
    refusal = _refusal(arm.result.stderr)
    assert refusal == _refusal(x86.result.stderr)
    assert refusal[-1].startswith("error: loading method 'forward' failed") and "corrupted" in refusal[-1], refusal
