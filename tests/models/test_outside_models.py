"""The models users bring (issue 33), at small configurations of the real timm and Hugging Face
classes (random weights, built offline): each lowers with NnapiPartitioner at API 30 into one
NNAPI subgraph with no op on the CPU, runs on the host driver and matches eager within 1e-4.

Each covers an idiom that used to break the program apart or stop lowering: the packed-qkv split
through rank 5 (DeiT, MobileViT), MobileViTv2's patch unfold / fold through rank 6 and its group
norm, grouped-query attention's repeat_kv and the causal mask Hugging Face builds from constants
(Qwen2, Llama), a ``padding="valid"`` patch embedding (SigLIP), Wav2Vec2's group-normalized
feature encoder. ``bench/outside_models.py`` measures the full-size models beside XNNPACK.
"""

from __future__ import annotations

from typing import Callable

import pytest
import timm
import torch
import transformers

from op_harness import check_delegated_and_matches

pytestmark = pytest.mark.slow


class FirstOutput(torch.nn.Module):
    """A ``transformers`` model's first output (``last_hidden_state`` or ``logits``)."""

    def __init__(self, module: torch.nn.Module) -> None:
        super().__init__()
        self.module = module

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.module(x)[0]


def _randomize_norms(module: torch.nn.Module) -> torch.nn.Module:
    """Affine parameters of every norm away from 1 and 0, so a wrong scale or shift shows."""
    generator = torch.Generator().manual_seed(2)
    with torch.no_grad():
        for m in module.modules():
            if isinstance(m, (torch.nn.GroupNorm, torch.nn.LayerNorm, torch.nn.BatchNorm2d)) and m.weight is not None:
                m.weight.uniform_(0.5, 1.5, generator=generator)
                m.bias.uniform_(-0.2, 0.2, generator=generator)
    return module.eval()


def _hf(class_name: str, config_name: str, **config) -> torch.nn.Module:
    torch.manual_seed(0)
    cfg = getattr(transformers, config_name)(**config)
    cfg._attn_implementation = "eager"
    return FirstOutput(_randomize_norms(getattr(transformers, class_name)(cfg)))


def _ids(length: int = 8, vocab: int = 100) -> torch.Tensor:
    return torch.randint(3, vocab, (1, length), generator=torch.Generator().manual_seed(3))


def _image(size: int, channels: int = 3) -> torch.Tensor:
    return torch.randn(1, channels, size, size, generator=torch.Generator().manual_seed(4))


def deit() -> tuple[torch.nn.Module, torch.Tensor]:
    from timm.models.vision_transformer import VisionTransformer

    torch.manual_seed(0)
    model = VisionTransformer(img_size=32, patch_size=8, embed_dim=32, depth=2, num_heads=2, num_classes=10)
    return _randomize_norms(model), _image(32)


def mobilevit_block() -> tuple[torch.nn.Module, torch.Tensor]:
    from timm.models.mobilevit import MobileVitBlock

    torch.manual_seed(0)
    block = MobileVitBlock(16, 16, transformer_dim=32, transformer_depth=1, patch_size=2, num_heads=2)
    return _randomize_norms(block), _image(8, 16)


def mobilevitv2_block() -> tuple[torch.nn.Module, torch.Tensor]:
    from timm.models.mobilevit import MobileVitV2Block

    torch.manual_seed(0)
    return _randomize_norms(MobileVitV2Block(16, 16, transformer_depth=1, patch_size=2)), _image(8, 16)


_DECODER = dict(hidden_size=64, num_hidden_layers=1, num_attention_heads=4, num_key_value_heads=2,
                intermediate_size=128, vocab_size=100, use_cache=False)

MODELS: dict[str, Callable[[], tuple[torch.nn.Module, torch.Tensor]]] = {
    "timm DeiT": deit,
    "timm MobileViT block": mobilevit_block,
    "timm MobileViTv2 block": mobilevitv2_block,
    "Qwen2ForCausalLM": lambda: (_hf("Qwen2ForCausalLM", "Qwen2Config", **_DECODER), _ids()),
    "LlamaForCausalLM": lambda: (_hf("LlamaForCausalLM", "LlamaConfig", **_DECODER), _ids()),
    "SiglipVisionModel": lambda: (_hf("SiglipVisionModel", "SiglipVisionConfig", image_size=32, patch_size=8,
                                      hidden_size=32, num_hidden_layers=1, num_attention_heads=2,
                                      intermediate_size=64), _image(32)),
    "Wav2Vec2Model": lambda: (_hf("Wav2Vec2Model", "Wav2Vec2Config", hidden_size=32, num_hidden_layers=1,
                                  num_attention_heads=2, intermediate_size=64, conv_dim=(16, 16),
                                  conv_kernel=(10, 3), conv_stride=(5, 2), num_conv_pos_embeddings=8,
                                  num_conv_pos_embedding_groups=4), torch.randn(1, 400)),
}


@pytest.mark.parametrize("name", list(MODELS))
def test_model_is_one_nnapi_subgraph_and_matches_eager(name):
    model, x = MODELS[name]()
    lowered = check_delegated_and_matches(model, (x,))
    assert lowered.num_delegates == 1, f"{lowered.num_delegates} subgraphs"
