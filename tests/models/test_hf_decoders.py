"""Hugging Face decoders as ``transformers`` exports them for ExecuTorch (issue 34 item 4):
``TorchExportableModuleForDecoderOnlyLM`` with a static KV cache and a dynamic token count
(LlamaForCausalLM, Qwen2ForCausalLM) and ``convert_and_export_with_cache``, one token per call
(LlamaForCausalLM), at small configurations (1 layer, 4 heads, 2 KV heads, random weights). Each lowers at API 30 to one NNAPI subgraph with no tensor op on the CPU (the only node
left is reading the token count, a size), and a prefill then decode steps through one loaded method
(the caches and positions are buffers ExecuTorch keeps) give eager's logits within 1e-4 and its
greedy tokens.

What it needed (lowering/passes/language_model.py): the cache is written at a position held in a
tensor (``index_copy`` at ``arange(n) + cumulative_length``), not read as a size; the write becomes
a GATHER of ``cat([cache, new])`` at indices NNAPI computes from the position, and the position is
clamped to the cache (where eager succeeds it is there already) so that the int64 arithmetic on it
(the causal mask, rotary angles, the next position) provably fits int32.
"""

from __future__ import annotations

import pytest
import torch

from executorch.exir import to_edge_transform_and_lower
from executorch.runtime import Runtime

from executorch_nnapi.host_driver import get_driver
from executorch_nnapi.partitioners import NnapiPartitioner
from op_harness import relative_max_error

pytestmark = pytest.mark.slow
pytest.importorskip("transformers", reason="transformers is in requirements-dev.txt")

from executorch_nnapi.tools.hf_decoders import (export_hf_decoder, hf_eager_forward, hf_method_forward,  # noqa: E402
                                                small_hf_decoder)
from executorch_nnapi.tools.language_model import Delegation, delegation, generate  # noqa: E402

CACHE = 16
PROMPT = [5, 17, 30, 44, 9]
NEW_TOKENS = 4


def _lowered(program: torch.export.ExportedProgram) -> tuple[Delegation, bytes]:
    with torch.no_grad():
        edge = to_edge_transform_and_lower(program, partitioner=[NnapiPartitioner(feature_level=30)])
    return delegation(edge.exported_program().graph), edge.to_executorch().buffer


# GemmaForCausalLM through convert_and_export_with_cache runs in tests/tools/test_examples.py
# (examples/hf_decoder_on_host.py, beside XNNPACK).
@pytest.mark.parametrize("kind, max_tokens", [("llama", 8), ("qwen2", 8), ("llama", 1)],
                         ids=["llama", "qwen2", "llama-one-token-per-call"])
def test_hf_decoder_is_one_subgraph_and_generates_as_eager(kind, max_tokens):
    model = small_hf_decoder(kind, max_cache_len=CACHE)
    delegated, pte = _lowered(export_hf_decoder(model, CACHE, max_tokens))
    assert delegated.subgraphs == 1
    assert not delegated.cpu_tensor_ops, f"tensor ops left on the CPU: {delegated.cpu_tensor_ops}"
    get_driver().feature_level = 30
    program = Runtime.get().load_program(pte)  # kept alive: the method does not keep it
    lowered = generate(hf_method_forward(program.load_method("forward"), max_tokens), PROMPT, NEW_TOKENS)
    eager = generate(hf_eager_forward(model, CACHE), PROMPT, NEW_TOKENS)
    for step, (got, want) in enumerate(zip(lowered.logits, eager.logits)):
        error = relative_max_error(got, want)
        assert error < 1e-4, f"call {step} (0 = prefill of {len(PROMPT)}): relative error {error:.3g}"
    assert lowered.tokens == eager.tokens
