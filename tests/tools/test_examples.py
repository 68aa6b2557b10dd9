"""The scripts in examples/ run as a user would run them (small models and sizes to be quick)."""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys

import pytest

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples"


def _run(script: str, *args: str, env: dict[str, str] | None = None) -> str:
    result = subprocess.run([sys.executable, str(EXAMPLES / script), *args], capture_output=True, text=True,
                            env={**os.environ, **(env or {})}, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


def test_export_dynamic_runs_at_every_size_and_matches_eager(tmp_path):
    out = tmp_path / "r18.pte"
    text = _run("export_dynamic.py", "--model", "resnet18", "--size", "64", "--min", "33", "--max", "128",
                "-o", str(out))
    assert out.stat().st_size > 0
    assert "NNAPI delegation: 1 subgraph(s)" in text and "0 compute node(s) on the CPU" in text
    for h, w in ((64, 64), (33, 33), (128, 128), (33, 128)):
        assert f"input 1x3x{h}x{w}: output [1, 1000]" in text
    assert text.rstrip().endswith("matches eager PyTorch")


def test_export_with_cpu_fallback_runs_forward_with_nnapi_and_forward_cpu_without(tmp_path):
    """The example as its docstring runs it; then, NNAPI hidden as on a phone without
    libneuralnetworks.so, the .pte it wrote loaded as the example loads it: forward_cpu runs. (The
    example exports before it loads: running it twice would repeat its two lowerings, ~20 s.)"""
    pte = tmp_path / "s.pte"
    text = _run("export_with_cpu_fallback.py", "--model", "squeezenet1_1", "--size", "64", "-o", str(pte))
    assert "with methods forward, forward_cpu" in text
    assert "method forward_cpu (xnnpack): 1 XnnpackBackend subgraph(s)" in text
    assert "running 'forward' (NNAPI is available)" in text
    assert "relative max error against eager PyTorch" in text
    load = ("import sys, torch; from executorch_nnapi.runtime import load_method; m = load_method(sys.argv[1]); "
            "print(f\"running '{m.name}' ({m.reason})\"); print(list(m.execute([torch.randn(1, 3, 64, 64)])[0].shape))")
    result = subprocess.run([sys.executable, "-c", load, str(pte)], capture_output=True, text=True, timeout=600,
                            env={**os.environ, "EXECUTORCH_NNAPI_LIBRARY": "/nonexistent/libneuralnetworks.so"})
    assert result.returncode == 0, result.stdout + result.stderr
    assert ("running 'forward_cpu' (NnapiBackend: NNAPI is not available: cannot load the NNAPI library "
            "'/nonexistent/libneuralnetworks.so'") in result.stdout
    assert "[1, 1000]" in result.stdout


@pytest.mark.slow  # two lowerings of a transformer, XNNPACK's taking most of the ~4 minutes
def test_llama_on_host_generates_eager_tokens_with_nnapi_and_xnnpack():
    text = _run("llama_on_host.py", "--layers", "1", "--tokens", "3")
    lines = {line.split()[0]: line for line in text.splitlines() if line.split()}
    for backend in ("nnapi", "xnnpack"):
        assert "same as eager" in lines[backend] and "tokens/s" in lines[backend], text
    assert "1 subgraph(s)" in lines["nnapi"]
    assert "2 NNAPI compilation(s)" in lines["nnapi"], lines["nnapi"]  # the prompt's length, then 1


@pytest.mark.slow  # a Hugging Face decoder lowered twice, XNNPACK's lowering the longer
def test_hf_decoder_on_host_generates_eager_tokens_with_nnapi_and_xnnpack():
    """GemmaForCausalLM exported by transformers' convert_and_export_with_cache (one token per call)."""
    text = _run("hf_decoder_on_host.py", "--model", "gemma", "--layers", "1", "--max-tokens", "1", "--tokens", "3")
    lines = {line.split()[0]: line for line in text.splitlines() if line.split()}
    for backend in ("nnapi", "xnnpack"):
        assert "same as eager" in lines[backend] and "tokens/s" in lines[backend], text
    assert "1 subgraph(s), 0 tensor op(s) on the CPU" in lines["nnapi"], lines["nnapi"]
