"""One answer per input: the host driver is a reference, so a .pte and its inputs give the same
bytes whichever process hosts the driver (docs/runtime.md, "One answer per input"):

- the x86 nnapi_executor_runner, whose shim starts the driver in an embedded interpreter (its
  process also holds ExecuTorch's optimized kernels, which export a BLAS of their own);
- a Python process (this one: executorch.runtime with the driver installed in-process);
- the NNAPI server, reached by the x86 runner through the forwarding libneuralnetworks.so.

Each process is given another torch thread count on purpose (the runner 3, this process 2, the
server 1): oneDNN splits the reduction of a 1x1 convolution over 384 input channels by thread,
so the driver must compute with its own count, not the process's. Without the fix the 1x1
convolution's output differed on about 5,600 of its 12,544 values (up to 1.6e-6) both ways: the
runner's torch computing on ExecuTorch's BLAS, and the server's 1 thread against 2 or 3.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
import torch
from torch.export import export

from aarch64_runners import X86_NNAPI
from executorch.runtime import Runtime
from executorch_nnapi.partitioners import NnapiPartitioner
from executorch_nnapi.runtime.backend_library import runner_path
from nnapi_server import NnapiServer
from quantized_reference import output_step, quantize, within_one_step
from runner_io import read_outputs, write_input, write_pte

# Tolerance of the runner's tests against eager torch (tests/runtime/test_runner.py).
EAGER_RTOL, EAGER_ATOL = 1e-4, 1e-5


class PointwiseNet(torch.nn.Module):
    """A 1x1 convolution over 384 channels (mobilenet_v2's 14x14 stage), a 3x3 convolution, a
    pool and a linear layer; returns the first convolution's output and the last layer's."""

    def __init__(self) -> None:
        super().__init__()
        self.pointwise = torch.nn.Conv2d(384, 64, 1)
        self.conv = torch.nn.Conv2d(64, 8, 3, padding=1)
        self.pool = torch.nn.AdaptiveAvgPool2d(1)
        self.fc = torch.nn.Linear(8, 5)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        y = torch.relu(self.pointwise(x))
        z = torch.relu(self.conv(y))
        return y, self.fc(self.pool(z).flatten(1))


class SmallConvNet(torch.nn.Module):
    """Two 3x3 convolutions and a linear layer, small enough to quantize quickly."""

    def __init__(self) -> None:
        super().__init__()
        self.a = torch.nn.Conv2d(3, 16, 3, padding=1)
        self.b = torch.nn.Conv2d(16, 8, 3, padding=1)
        self.fc = torch.nn.Linear(8, 5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.relu(self.b(torch.relu(self.a(x))))
        return self.fc(y.mean((2, 3)))


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """The NNAPI server on one torch thread (its process's default here)."""
    server = NnapiServer(tmp_path_factory.mktemp("one-answer") / "s.sock", env={"OMP_NUM_THREADS": "1"})
    yield server
    server.stop()


def _runner(pte: Path, x: torch.Tensor, out: Path, env: dict) -> list[torch.Tensor]:
    out.mkdir()
    result = subprocess.run([runner_path(), "--model", str(pte), "--input", write_input(out / "x.bin", x),
                             "--iters", "1", "--warmup", "0", "--output-dir", str(out)],
                            capture_output=True, text=True, env={**os.environ, **env}, timeout=300)
    assert result.returncode == 0, result.stderr
    return read_outputs(out)


def _in_this_process(pte: Path, x: torch.Tensor) -> list[torch.Tensor]:
    import executorch_nnapi.runtime  # noqa: F401  (NnapiBackend + the host driver, in-process)

    threads = torch.get_num_threads()
    torch.set_num_threads(2)
    try:
        program = Runtime.get().load_program(pte.read_bytes())
        outputs = [t.clone() for t in program.load_method("forward").execute([x])]
    finally:
        torch.set_num_threads(threads)
    assert torch.get_num_threads() == threads
    return outputs


def _answers(pte: Path, x: torch.Tensor, server: NnapiServer, tmp_path: Path) -> dict[str, list[torch.Tensor]]:
    """The outputs of ``pte`` on ``x`` in the three hosts of the driver."""
    # An explicit EXECUTORCH_NNAPI_HOST_THREADS would pin all three alike and hide the point.
    env = {"OMP_NUM_THREADS": "3", "EXECUTORCH_NNAPI_HOST_THREADS": ""}
    return {
        "x86 runner (embedded driver)": _runner(pte, x, tmp_path / "embedded", env),
        "Python process": _in_this_process(pte, x),
        "NNAPI server": _runner(pte, x, tmp_path / "server",
                                {**env, "EXECUTORCH_NNAPI_LIBRARY": str(X86_NNAPI),
                                 "EXECUTORCH_NNAPI_SERVER": server.socket_path}),
    }


def _assert_same_bytes(answers: dict[str, list[torch.Tensor]]) -> list[torch.Tensor]:
    (first_name, first), *others = answers.items()
    for name, outputs in others:
        assert len(outputs) == len(first)
        for i, (got, want) in enumerate(zip(outputs, first)):
            assert got.dtype == want.dtype and got.shape == want.shape, (name, i)
            differing = (got != want).sum().item()
            assert got.numpy().tobytes() == want.numpy().tobytes(), (
                f"output {i}: {name} differs from the {first_name} on {differing} of {want.numel()} values "
                f"(max {(got.double() - want.double()).abs().max().item():.3g})")
    return first


def test_a_float_conv_net_gives_the_same_bytes_in_every_host(server, tmp_path, monkeypatch):
    monkeypatch.delenv("EXECUTORCH_NNAPI_HOST_THREADS", raising=False)
    torch.manual_seed(0)
    model = PointwiseNet().eval()
    x = torch.randn(1, 384, 14, 14)
    pte = write_pte(tmp_path / "float.pte", {"forward": export(model, (x,))}, {"forward": [NnapiPartitioner()]})
    outputs = _assert_same_bytes(_answers(pte, x, server, tmp_path))
    with torch.no_grad():
        for got, want in zip(outputs, model(x), strict=True):
            torch.testing.assert_close(got, want, rtol=EAGER_RTOL, atol=EAGER_ATOL)


def test_an_8bit_conv_net_gives_the_same_bytes_in_every_host(server, tmp_path, monkeypatch):
    monkeypatch.delenv("EXECUTORCH_NNAPI_HOST_THREADS", raising=False)
    torch.manual_seed(0)
    example = (torch.randn(1, 3, 16, 16),)
    quantized = quantize(SmallConvNet(), example, signed=False)
    pte = write_pte(tmp_path / "int8.pte", {"forward": export(quantized, example)}, {"forward": [NnapiPartitioner()]})
    (got,) = _assert_same_bytes(_answers(pte, example[0], server, tmp_path))
    with torch.no_grad():
        want = quantized(*example)
    assert within_one_step(want, got, output_step(quantized)) == 1.0, (got - want).abs().max().item()
