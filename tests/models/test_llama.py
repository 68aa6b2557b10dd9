"""ExecuTorch's llama example (executorch.examples.models.llama: RMSNorm, rotary embedding on
interleaved pairs, SDPA with a causal mask, SiLU-gated MLP, int64 token embedding) at a small
configuration (dim 128, 1 layer, 4 heads, 2 KV heads, vocab 512, context 32; random weights), with a KV
cache and a dynamic token count, lowered at API 30 with NnapiPartitioner.

It lowers to one subgraph with no node on the CPU: the delegate reads ``input_pos`` itself (its
shape program reads the position from the tensor and checks torch.export's range assertions) and
keeps the KV caches as its state, in NNAPI memory bound to every execution (no copy through
ExecuTorch). A prefill of 5 tokens, then single-token decode steps through one loaded method
match eager within 1e-3 relative, and the greedy tokens are eager's, with two NNAPI compilations
in all (one for the prompt's length, one for single tokens: the indices at the position are given
to NNAPI at every call).

History (API 30, the same with 2 layers): 7 subgraphs and 96 CPU nodes (rank-5 rotary pairs,
index_put of the cache, a bool mask slice), now 1 subgraph. XNNPACK on the same program: 23
subgraphs, 155 CPU nodes.

With torchao's Int8WeightOnlyConfig on the linears and the token embedding it is one subgraph
too (each linear a DEQUANTIZE of int8 codes and a FULLY_CONNECTED; the embedding a GATHER of
8-bit rows, DEQUANTIZE and MUL by their scales), its .pte at most 0.35x the float one (0.51x
with the embedding left float at this size).
"""

from __future__ import annotations

import copy

import pytest
import torch
from torchao.quantization import Int8WeightOnlyConfig, quantize_

from executorch.exir import to_edge_transform_and_lower
from executorch.runtime import Runtime

from executorch_nnapi.host_driver import get_driver
from executorch_nnapi.lowering.node_utils import op_name
from executorch_nnapi.partitioners import NnapiPartitioner
from executorch_nnapi.runtime.backend_library import compilation_stats, transfer_stats
from executorch_nnapi.tools.language_model import (LlamaConfig, eager_forward, export_llama, generate,
                                                   method_forward, small_llama)
from op_harness import relative_max_error

pytestmark = pytest.mark.slow

# Every idiom once (2 layers double the lowering time); dim 128 so that the weights, not the
# caches, masks and program (~90 KB), set the int8 / float size ratio; fewer KV heads than
# heads (grouped-query attention: repeat_kv's rank-5 expand), as SmolLM2 and Llama 3.2 have.
CONFIG = LlamaConfig(n_layers=1, dim=128, n_kv_heads=2)
PROMPT = [5, 17, 301, 44, 9]
NEW_TOKENS = 5
# The KV caches: K and V per layer, [1, KV heads, context, head_dim] float32.
CACHE_BYTES = CONFIG.n_layers * 2 * CONFIG.max_context_len * (CONFIG.dim // CONFIG.n_heads) * CONFIG.n_kv_heads * 4


def _lower(model: torch.nn.Module) -> tuple[int, list[str], bytes]:
    """(number of delegates, nodes left on the CPU, .pte bytes) of the model lowered at API 30."""
    program = export_llama(model, CONFIG.max_tokens)
    with torch.no_grad():
        edge = to_edge_transform_and_lower(program, partitioner=[NnapiPartitioner(feature_level=30)])
        delegates, left = _delegation(edge.exported_program().graph)  # before to_executorch rewrites it
        pte = edge.to_executorch().buffer
    return delegates, left, pte


def _delegation(graph: torch.fx.Graph) -> tuple[int, list[str]]:
    """(number of delegates, nodes left on the CPU: tensor ops, size computations, assertions)."""
    calls = [n for n in graph.nodes if n.op == "call_function"]
    delegates = sum(n.target is torch.ops.higher_order.executorch_call_delegate for n in calls)
    left = [op_name(n.target) for n in calls if n.target is not torch.ops.higher_order.executorch_call_delegate
            and "getitem" not in str(n.target)]
    return delegates, left


def _generate_and_compare(model: torch.nn.Module, pte: bytes) -> None:
    get_driver().feature_level = 30
    program = Runtime.get().load_program(pte)  # kept alive: the method does not keep it
    method = program.load_method("forward")
    compiled_before, moved_before = compilation_stats()[0], transfer_stats()
    lowered = generate(method_forward(method), PROMPT, NEW_TOKENS)
    # One NNAPI model for the prompt's length and one for single tokens, whatever the position:
    # what depends on the position is given to NNAPI at every call.
    assert compilation_stats()[0] - compiled_before == 2
    # The caches are bound as NNAPI memory at every call, never copied: what goes to NNAPI by
    # pointer is the tokens and the logits (and the indices at the position).
    moved = transfer_stats() - moved_before
    assert moved.memory_bytes == NEW_TOKENS * 2 * CACHE_BYTES
    assert moved.pointer_bytes == (len(PROMPT) + NEW_TOKENS - 1) * 4 + NEW_TOKENS * CONFIG.vocab_size * 4
    eager = generate(eager_forward(copy.deepcopy(model)), PROMPT, NEW_TOKENS)
    for step, (got, want) in enumerate(zip(lowered.logits, eager.logits)):
        assert got.shape == want.shape
        error = relative_max_error(got, want)
        assert error < 1e-3, f"call {step} (0 = prefill of {len(PROMPT)}): relative error {error:.3g}"
    assert lowered.tokens == eager.tokens


@pytest.fixture(scope="module")
def float_llama():
    model = small_llama(CONFIG)
    return model, *_lower(model)


@pytest.mark.xdist_group("llama")
def test_llama_is_one_subgraph_and_decodes_as_eager(float_llama):
    model, delegates, left, pte = float_llama
    assert delegates == 1
    assert not left, f"tensor ops left on the CPU: {left}"
    _generate_and_compare(model, pte)


@pytest.mark.xdist_group("llama")
def test_llama_int8_weight_only_is_one_subgraph_and_small(float_llama):
    model, _, _, float_pte = float_llama
    quantized = copy.deepcopy(model)
    quantize_(quantized, Int8WeightOnlyConfig(),
              filter_fn=lambda m, _: isinstance(m, (torch.nn.Linear, torch.nn.Embedding)))
    delegates, left, pte = _lower(quantized.eval())
    assert delegates == 1
    assert not left, f"tensor ops left on the CPU: {left}"
    ratio = len(pte) / len(float_pte)
    print(f"int8 weight-only .pte {len(pte)} bytes, float {len(float_pte)}: {ratio:.3f}x")
    assert ratio <= 0.35, f"int8 weight-only .pte is {ratio:.3f}x the float one"
    _generate_and_compare(quantized, pte)
