"""Mixture-of-experts decoders (issue 42 item 3): transformers' MixtralForCausalLM and
Qwen2MoeForCausalLM stopped ``to_edge_transform_and_lower`` with SpecViolationError (their experts
dispatch tokens by data: ``histc``, ``nonzero``, ``index_add_``), with NNAPI and XNNPACK alike.
With ``tools.mixture_of_experts.use_dense_experts`` (every expert for every token, weighted by the
router's top-k weights) each is one NNAPI subgraph with no tensor op on the CPU, and a prefill then
decode steps equal eager's sparse dispatch within 1e-4, greedy tokens included."""

from __future__ import annotations

import copy

import pytest
import torch
import transformers

from executorch.exir import to_edge_transform_and_lower
from executorch.runtime import Runtime

from executorch_nnapi.host_driver import get_driver
from executorch_nnapi.partitioners import NnapiPartitioner
from executorch_nnapi.tools.hf_decoders import export_hf_decoder, hf_eager_forward, hf_method_forward
from executorch_nnapi.tools.language_model import delegation, generate
from executorch_nnapi.tools.mixture_of_experts import (dense_experts_forward, expert_modules, routing_weights,
                                                       use_dense_experts)
from op_harness import relative_max_error

pytestmark = pytest.mark.slow

CACHE = 16
MAX_TOKENS = 8
PROMPT = [5, 17, 30, 44, 9]
NEW_TOKENS = 3
COMMON = dict(hidden_size=64, num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2, head_dim=16,
              intermediate_size=128, vocab_size=128, use_cache=True)
MODELS = {
    "mixtral": ("MixtralForCausalLM", "MixtralConfig", dict(num_local_experts=4, num_experts_per_tok=2)),
    "qwen2_moe": ("Qwen2MoeForCausalLM", "Qwen2MoeConfig",
                  dict(num_experts=4, num_experts_per_tok=2, moe_intermediate_size=32,
                       shared_expert_intermediate_size=64, norm_topk_prob=True)),
}


def _small(kind: str) -> torch.nn.Module:
    model_class, config_class, extra = MODELS[kind]
    torch.manual_seed(0)
    model = getattr(transformers, model_class)(getattr(transformers, config_class)(**COMMON, **extra))
    model.generation_config = transformers.GenerationConfig(
        use_cache=True, cache_implementation="static", cache_config={"batch_size": 1, "max_cache_len": CACHE})
    return model.eval()


@pytest.mark.parametrize("kind", sorted(MODELS))
def test_dense_experts_are_one_subgraph_and_generate_as_the_sparse_eager(kind):
    model = _small(kind)
    eager = generate(hf_eager_forward(model, CACHE), PROMPT, NEW_TOKENS)  # transformers' own dispatch
    program = export_hf_decoder(use_dense_experts(model), CACHE, MAX_TOKENS)
    with torch.no_grad():
        edge = to_edge_transform_and_lower(program, partitioner=[NnapiPartitioner(feature_level=30)])
    delegated = delegation(edge.exported_program().graph)
    assert delegated.subgraphs == 1
    assert not delegated.cpu_tensor_ops, f"tensor ops left on the CPU: {delegated.cpu_tensor_ops}"
    get_driver().feature_level = 30
    loaded = Runtime.get().load_program(edge.to_executorch().buffer)  # kept alive: the method does not keep it
    lowered = generate(hf_method_forward(loaded.load_method("forward"), MAX_TOKENS), PROMPT, NEW_TOKENS)
    for step, (got, want) in enumerate(zip(lowered.logits, eager.logits)):
        error = relative_max_error(got, want)
        assert error < 1e-4, f"call {step} (0 = prefill of {len(PROMPT)}): relative error {error:.3g}"
    assert lowered.tokens == eager.tokens


def _gpt_oss_experts() -> torch.nn.Module:
    """gpt-oss's experts: biases, weights stored [experts, in, out], interleaved gate/up and a clamped gate."""
    config = transformers.GptOssConfig(hidden_size=16, intermediate_size=8, num_local_experts=5,
                                       num_experts_per_tok=2, num_hidden_layers=1, num_attention_heads=2,
                                       num_key_value_heads=1, head_dim=8, vocab_size=32)
    config._experts_implementation = "eager"
    return expert_modules(transformers.GptOssForCausalLM(config))[0]


def _mixtral_experts() -> torch.nn.Module:
    config = transformers.MixtralConfig(hidden_size=16, intermediate_size=8, num_local_experts=5,
                                        num_experts_per_tok=2, num_hidden_layers=1, num_attention_heads=2,
                                        num_key_value_heads=1, vocab_size=32)
    config._experts_implementation = "eager"
    return expert_modules(transformers.MixtralForCausalLM(config))[0]


@pytest.mark.parametrize("make", [_mixtral_experts, _gpt_oss_experts], ids=["mixtral", "gpt_oss"])
def test_the_dense_form_is_the_sparse_dispatch(make):
    torch.manual_seed(0)
    experts = make().eval()
    for parameter in experts.parameters():  # transformers leaves expert weights uninitialised
        torch.nn.init.normal_(parameter, std=0.5)
    tokens, top_k = 11, 2
    hidden = torch.randn(tokens, 16)
    index = torch.stack([torch.randperm(5)[:top_k] for _ in range(tokens)])
    weights = torch.rand(tokens, top_k)
    with torch.no_grad():
        sparse = experts(hidden, index, weights)  # transformers' eager loop over the experts hit
        dense = dense_experts_forward(experts, hidden, index, weights)
    assert relative_max_error(dense, sparse) < 1e-5


def test_routing_weights_hold_each_tokens_top_k_weights_and_zeros():
    index = torch.tensor([[2, 0], [1, 3], [3, 4]])  # 4: an expert-parallel sentinel, outside [0, 4)
    weights = torch.tensor([[0.7, 0.3], [0.6, 0.4], [0.9, 0.1]])
    expected = torch.tensor([[0.3, 0.0, 0.7, 0.0], [0.0, 0.6, 0.0, 0.4], [0.0, 0.0, 0.0, 0.9]])
    assert torch.equal(routing_weights(index, weights, 4), expected)


def test_a_model_without_dispatched_experts_is_refused_by_name():
    model = transformers.LlamaForCausalLM(transformers.LlamaConfig(**{**COMMON, "num_hidden_layers": 1}))
    with pytest.raises(ValueError, match="LlamaForCausalLM has no experts module"):
        use_dense_experts(copy.deepcopy(model))
