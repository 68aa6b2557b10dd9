"""The models users bring, second round (issue 42, items 1 and 2), at small configurations of the
real timm and Hugging Face classes (random weights, built offline): each lowers with
NnapiPartitioner at API 30 into one NNAPI subgraph with no op on the CPU, runs on the host driver
and matches eager within 1e-4.

Each covers an idiom that used to leave CPU islands: computations from shapes alone folded and
gathered (DeBERTa-v2's log-bucketed relative positions, BEiT's relative position index), indexing
by computed integer tensors (Falcon's ``fused_qkv[..., [-2], :]``, ConvBERT's span unfold,
HaloNet's overlapping windows), and computations on rank-5 values (ResNeSt's and SKNet's split
attention, BoTNet's and HaloNet's relative logits, WavLM's gate). The timm ones are the models'
own attention layers at small feature maps; the whole timm models, slower to lower, are in the
long tier (tests/long_tier.py).
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
    """A ``transformers`` model's first output (``last_hidden_state``)."""

    def __init__(self, module: torch.nn.Module) -> None:
        super().__init__()
        self.module = module

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.module(x)[0]


def _hf(class_name: str, config_name: str, **config) -> torch.nn.Module:
    torch.manual_seed(0)
    cfg = getattr(transformers, config_name)(**config)
    cfg._attn_implementation = "eager"
    return FirstOutput(getattr(transformers, class_name)(cfg).eval())


def _ids(length: int = 8, vocab: int = 100) -> torch.Tensor:
    return torch.randint(3, vocab, (1, length), generator=torch.Generator().manual_seed(3))


def _image(size: int, channels: int = 3, batch: int = 1) -> torch.Tensor:
    return torch.randn(batch, channels, size, size, generator=torch.Generator().manual_seed(4))


def _layer(make: Callable[[], torch.nn.Module]) -> torch.nn.Module:
    torch.manual_seed(0)
    return make().eval()


def _bottleneck_attention() -> torch.nn.Module:
    from timm.layers.bottleneck_attn import BottleneckAttn

    return _layer(lambda: BottleneckAttn(32, feat_size=(8, 8), num_heads=2))


def _halo_attention() -> torch.nn.Module:
    from timm.layers.halo_attn import HaloAttn

    return _layer(lambda: HaloAttn(32, feat_size=(8, 8), num_heads=2, block_size=4, halo_size=1))


def _split_attention() -> torch.nn.Module:
    from timm.layers.split_attn import SplitAttn

    return _layer(lambda: SplitAttn(16, 16, radix=2))


def _selective_kernel() -> torch.nn.Module:
    from timm.layers.selective_kernel import SelectiveKernel

    return _layer(lambda: SelectiveKernel(16, 16))


_TEXT = dict(hidden_size=64, num_hidden_layers=1, num_attention_heads=4, intermediate_size=128, vocab_size=100)

MODELS: dict[str, Callable[[], tuple[torch.nn.Module, torch.Tensor]]] = {
    "DebertaV2Model": lambda: (_hf("DebertaV2Model", "DebertaV2Config", relative_attention=True,
                                   pos_att_type=["p2c", "c2p"], position_buckets=32, max_relative_positions=64,
                                   max_position_embeddings=128, **_TEXT), _ids(16)),
    "WavLMModel": lambda: (_hf("WavLMModel", "WavLMConfig", hidden_size=32, num_hidden_layers=1, num_attention_heads=2,
                               intermediate_size=64, conv_dim=(16, 16), conv_kernel=(10, 3), conv_stride=(5, 2),
                               num_conv_pos_embeddings=8, num_conv_pos_embedding_groups=4, num_buckets=32,
                               max_bucket_distance=64),
                           torch.randn(1, 400, generator=torch.Generator().manual_seed(5))),
    "BeitModel": lambda: (_hf("BeitModel", "BeitConfig", image_size=32, patch_size=8, hidden_size=32,
                              num_hidden_layers=1, num_attention_heads=2, intermediate_size=64,
                              use_relative_position_bias=True), _image(32)),
    "FalconModel": lambda: (_hf("FalconModel", "FalconConfig", hidden_size=64, num_hidden_layers=1,
                                num_attention_heads=4, vocab_size=100, parallel_attn=True, alibi=False,
                                new_decoder_architecture=False, use_cache=False), _ids()),
    "ConvBertModel": lambda: (_hf("ConvBertModel", "ConvBertConfig", embedding_size=64, **_TEXT), _ids()),
    "timm BottleneckAttn (botnet26t)": lambda: (_bottleneck_attention(), _image(8, 32, batch=2)),
    "timm HaloAttn (halonet26t)": lambda: (_halo_attention(), _image(8, 32, batch=2)),
    "timm SplitAttn (resnest14d)": lambda: (_split_attention(), _image(8, 16, batch=2)),
    "timm SelectiveKernel (skresnet18)": lambda: (_selective_kernel(), _image(8, 16, batch=2)),
    # The whole models (long tier).
    "timm botnet26t_256": lambda: (_layer(lambda: timm.create_model("botnet26t_256")), _image(256)),
    "timm halonet26t": lambda: (_layer(lambda: timm.create_model("halonet26t")), _image(256)),
    "timm resnest14d": lambda: (_layer(lambda: timm.create_model("resnest14d")), _image(64)),
    "timm skresnet18": lambda: (_layer(lambda: timm.create_model("skresnet18")), _image(64)),
}


@pytest.mark.parametrize("name", list(MODELS))
def test_model_is_one_nnapi_subgraph_and_matches_eager(name):
    model, x = MODELS[name]()
    lowered = check_delegated_and_matches(model, (x,))
    assert lowered.num_delegates == 1, f"{lowered.num_delegates} subgraphs"
