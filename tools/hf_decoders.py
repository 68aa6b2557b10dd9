"""Hugging Face decoder-only language models exported the way ``transformers`` exports them for
ExecuTorch: ``TorchExportableModuleForDecoderOnlyLM`` with a static KV cache (the cache and each
layer's position are buffers of the program), called as ``forward(input_ids, cache_position)``.

``small_hf_decoder`` builds one from its ``*Config`` with random weights (or
``hf_decoder_from_checkpoint`` loads a local checkpoint), ``export_hf_decoder`` exports it with a
dynamic token count (or one token per call, as ``convert_and_export_with_cache`` does), and
``hf_eager_forward`` / ``hf_method_forward`` adapt the eager model and a loaded ExecuTorch method
to ``tools.language_model.generate``.
"""

from __future__ import annotations

import copy
from typing import Any

import torch
from torch.export import Dim, ExportedProgram

from .language_model import Forward

# The architectures tested and benchmarked: (model class, config class) in ``transformers``.
HF_DECODERS = {
    "llama": ("LlamaForCausalLM", "LlamaConfig"),
    "qwen2": ("Qwen2ForCausalLM", "Qwen2Config"),
    "gemma": ("GemmaForCausalLM", "GemmaConfig"),
}

# A small configuration every architecture above accepts (grouped-query attention: 4 heads, 2 KV heads).
SMALL_CONFIG = dict(hidden_size=64, num_hidden_layers=1, num_attention_heads=4, num_key_value_heads=2,
                    head_dim=16, intermediate_size=128, vocab_size=128)


def _with_static_cache(model: Any, max_cache_len: int) -> Any:
    """``model`` in eval mode with the generation config ``TorchExportableModuleWithStaticCache`` needs."""
    from transformers import GenerationConfig

    model.generation_config = GenerationConfig(use_cache=True, cache_implementation="static",
                                               cache_config={"batch_size": 1, "max_cache_len": max_cache_len})
    return model.eval()


def small_hf_decoder(kind: str, max_cache_len: int = 32, seed: int = 0, **config: Any) -> Any:
    """A ``transformers`` decoder of architecture ``kind`` (a key of HF_DECODERS) with random weights,
    its config ``SMALL_CONFIG`` updated with ``config``."""
    import transformers

    if kind not in HF_DECODERS:
        raise ValueError(f"unknown decoder {kind!r}: one of {', '.join(HF_DECODERS)}")
    model_class, config_class = HF_DECODERS[kind]
    torch.manual_seed(seed)
    cfg = getattr(transformers, config_class)(**{**SMALL_CONFIG, **config, "use_cache": True})
    return _with_static_cache(getattr(transformers, model_class)(cfg), max_cache_len)


def hf_decoder_from_checkpoint(path: str, max_cache_len: int) -> Any:
    """A decoder loaded from a local checkpoint directory (float32, nothing downloaded)."""
    from transformers import AutoModelForCausalLM

    model = AutoModelForCausalLM.from_pretrained(path, torch_dtype=torch.float32, local_files_only=True)
    return _with_static_cache(model, max_cache_len)


def _exportable(model: Any, max_cache_len: int) -> torch.nn.Module:
    """The static-cache module ``transformers`` exports (``forward(input_ids, cache_position)``)."""
    from transformers.integrations.executorch import TorchExportableModuleForDecoderOnlyLM

    # Its own forward drops cache_position (transformers 5.24); the module it wraps takes it.
    return TorchExportableModuleForDecoderOnlyLM(model, batch_size=1, max_cache_len=max_cache_len).model


def export_hf_decoder(model: Any, max_cache_len: int, max_tokens: int = 1) -> ExportedProgram:
    """Exports ``model`` with its static cache: one token per call through
    ``convert_and_export_with_cache`` when ``max_tokens`` is 1, else through
    ``TorchExportableModuleForDecoderOnlyLM.export`` with a token count dynamic in [1, max_tokens]."""
    from transformers.integrations.executorch import (TorchExportableModuleForDecoderOnlyLM,
                                                      convert_and_export_with_cache)

    with torch.no_grad():
        if max_tokens == 1:
            return convert_and_export_with_cache(model)
        tokens = torch.tensor([[2, 3, 4]])
        count = Dim("token_count", min=1, max=max_tokens)
        wrapper = TorchExportableModuleForDecoderOnlyLM(model, batch_size=1, max_cache_len=max_cache_len)
        return wrapper.export(input_ids=tokens, cache_position=torch.arange(tokens.shape[1]),
                              dynamic_shapes={"input_ids": {1: count}, "cache_position": {0: count}}, strict=True)


def _stepped(call: Any, tokens_per_call: int) -> Forward:
    """``(tokens [1, n], start [1]) -> logits of the last token`` from ``call(input_ids, cache_position)``,
    in calls of at most ``tokens_per_call`` tokens (a one-token program takes a prompt token by token)."""
    def forward(tokens: torch.Tensor, start: torch.Tensor) -> torch.Tensor:
        first = int(start[0])
        for begin in range(0, tokens.shape[1], tokens_per_call):
            chunk = tokens[:, begin:begin + tokens_per_call]
            logits = call(chunk, torch.arange(first + begin, first + begin + chunk.shape[1]))
        return logits[:, -1, :]
    return forward


def hf_eager_forward(model: Any, max_cache_len: int) -> Forward:
    """The eager model with a static cache of its own (a copy of ``model``), as the exported program computes."""
    module = _exportable(copy.deepcopy(model), max_cache_len)

    def call(input_ids: torch.Tensor, cache_position: torch.Tensor) -> torch.Tensor:
        with torch.no_grad():
            return module(input_ids=input_ids, cache_position=cache_position)
    return _stepped(call, tokens_per_call=1 << 30)


def hf_method_forward(method: Any, tokens_per_call: int) -> Forward:
    """A loaded ExecuTorch method of ``export_hf_decoder``'s program (``tokens_per_call``: its
    ``max_tokens``)."""
    return _stepped(lambda input_ids, cache_position: method.execute([input_ids, cache_position])[0], tokens_per_call)
