"""The models users bring: timm's mobile families and Hugging Face ``transformers`` models,
NnapiPartitioner beside XnnpackPartitioner in one run.

    python bench/outside_models.py                       # every model below
    python bench/outside_models.py deit_tiny roberta     # some of them
    python bench/outside_models.py --markdown            # also into docs/benchmarks.md (benchmark_page.py)

Every model is built offline with random weights: ``timm.create_model(name, pretrained=False)``
and ``transformers.<Class>(<Config>)`` at small configurations. Per model it prints NNAPI
subgraphs / CPU ops, XNNPACK's, the ops NNAPI leaves on the CPU (with counts), lowering time
(export -> .pte) with each partitioner, and the largest relative error against eager torch of the
NNAPI .pte on the host NNAPI driver (feature level 30) and of the XNNPACK .pte.
"""

from __future__ import annotations

import argparse
import collections
import dataclasses
import pathlib
import platform
import sys
from typing import Callable

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import benchmark_page  # noqa: E402  (first: it reads the load average as the run starts)
import torch  # noqa: E402
from example_models import Example, lower, max_relative_error  # noqa: E402
from zoo_benchmark import print_table, warm_up  # noqa: E402

from executorch_nnapi.partitioners import NnapiPartitioner  # noqa: E402

FEATURE_LEVEL = 30


class FirstOutput(torch.nn.Module):
    """A ``transformers`` model returning its first output tensor (``last_hidden_state`` or
    ``logits``) instead of a ModelOutput."""

    def __init__(self, module: torch.nn.Module) -> None:
        super().__init__()
        self.module = module

    def forward(self, *args: torch.Tensor) -> torch.Tensor:
        return self.module(*args)[0]


def randomize_norms(module: torch.nn.Module) -> None:
    """Random affine parameters and running statistics for every normalization layer: with the
    default init (ones and zeros) a wrong scale or shift would go unseen."""
    generator = torch.Generator().manual_seed(2)
    with torch.no_grad():
        for m in module.modules():
            if isinstance(m, torch.nn.modules.batchnorm._BatchNorm) and m.running_mean is not None:
                m.running_mean.normal_(0.0, 0.1, generator=generator)
                m.running_var.uniform_(0.5, 1.5, generator=generator)
            if isinstance(m, (torch.nn.modules.batchnorm._BatchNorm, torch.nn.GroupNorm, torch.nn.LayerNorm)):
                if getattr(m, "weight", None) is not None:
                    m.weight.uniform_(0.5, 1.5, generator=generator)
                if getattr(m, "bias", None) is not None:
                    m.bias.uniform_(-0.2, 0.2, generator=generator)


def timm_model(name: str, **kwargs) -> Example:
    """A timm model with random weights at its default input size (batch 1)."""
    import timm

    torch.manual_seed(0)
    module = timm.create_model(name, pretrained=False, **kwargs).eval()
    randomize_norms(module)
    size = module.pretrained_cfg.get("input_size", (3, 224, 224))
    return Example(module, (torch.randn(1, *size),))


def _token_ids(vocab: int, length: int = 32) -> torch.Tensor:
    return torch.randint(3, vocab, (1, length), generator=torch.Generator().manual_seed(3))


def hf_model(class_name: str, config_name: str, inputs: tuple, **config) -> Example:
    """``transformers.<class_name>(<config_name>(**config))`` in eval mode, eager attention."""
    import transformers

    torch.manual_seed(0)
    cfg = getattr(transformers, config_name)(**config)
    cfg._attn_implementation = "eager"
    module = getattr(transformers, class_name)(cfg).eval()
    randomize_norms(module)
    return Example(FirstOutput(module).eval(), inputs)


_DECODER = dict(hidden_size=256, num_hidden_layers=4, num_attention_heads=4, num_key_value_heads=2,
                intermediate_size=768, vocab_size=1000, use_cache=False)

MODELS: dict[str, Callable[[], Example]] = {
    "deit_tiny": lambda: timm_model("deit_tiny_patch16_224"),
    "mobilevit_xs": lambda: timm_model("mobilevit_xs"),
    "mobilevitv2_050": lambda: timm_model("mobilevitv2_050"),
    "mobilenetv4_hybrid_medium": lambda: timm_model("mobilenetv4_hybrid_medium"),
    "edgenext_xx_small": lambda: timm_model("edgenext_xx_small"),
    "shvit_s1": lambda: timm_model("shvit_s1"),
    "roberta": lambda: hf_model("RobertaModel", "RobertaConfig", (_token_ids(1000),), vocab_size=1000,
                                hidden_size=128, num_hidden_layers=2, num_attention_heads=4,
                                intermediate_size=256),
    "wav2vec2": lambda: hf_model("Wav2Vec2Model", "Wav2Vec2Config", (torch.randn(1, 16000),), hidden_size=128,
                                 num_hidden_layers=2, num_attention_heads=4, intermediate_size=256,
                                 conv_dim=(64, 64, 64, 64, 64, 64, 64), num_conv_pos_embeddings=16),
    "gpt2": lambda: hf_model("GPT2LMHeadModel", "GPT2Config", (_token_ids(1000),), vocab_size=1000, n_embd=128,
                             n_layer=2, n_head=4, use_cache=False),
    "siglip_vision": lambda: hf_model("SiglipVisionModel", "SiglipVisionConfig", (torch.randn(1, 3, 224, 224),),
                                      hidden_size=256, num_hidden_layers=4, num_attention_heads=4,
                                      intermediate_size=768),
    "qwen2": lambda: hf_model("Qwen2ForCausalLM", "Qwen2Config", (_token_ids(1000),), **_DECODER),
    "llama": lambda: hf_model("LlamaForCausalLM", "LlamaConfig", (_token_ids(1000),), **_DECODER),
}


@dataclasses.dataclass
class Row:
    model: str
    nnapi_subgraphs: int
    nnapi_cpu_ops: int
    xnnpack_subgraphs: int
    xnnpack_cpu_ops: int
    cpu_ops: str
    lower_nnapi_s: float
    lower_xnnpack_s: float
    error_nnapi: float
    error_xnnpack: float

    def cells(self) -> list[str]:
        return [self.model, f"{self.nnapi_subgraphs} / {self.nnapi_cpu_ops}",
                f"{self.xnnpack_subgraphs} / {self.xnnpack_cpu_ops}", self.cpu_ops or "-",
                f"{self.lower_nnapi_s:.1f}", f"{self.lower_xnnpack_s:.1f}",
                f"{self.error_nnapi:.1e}", f"{self.error_xnnpack:.1e}"]


HEADER = ["model", "NNAPI subgraphs / CPU ops", "XNNPACK subgraphs / CPU ops", "left on the CPU by NNAPI",
          "lower NNAPI s", "lower XNNPACK s", "max rel. error NNAPI", "max rel. error XNNPACK"]
NOTES = """timm's mobile families and Hugging Face `transformers` models, built offline with random
weights (`timm.create_model(name, pretrained=False)`; `transformers` models at small configurations,
eager attention; normalization layers given random affine parameters and statistics).
*subgraphs / CPU ops*: delegated subgraphs and compute ops left to the portable CPU kernels, with
NnapiPartitioner (feature level 30) and with XnnpackPartitioner, and which ops NNAPI left. *lower*:
export to .pte, seconds. *max rel. error*: the largest output difference against eager torch,
relative to the output's largest magnitude, of the NNAPI .pte on the host NNAPI driver and of the
XNNPACK .pte."""


def cpu_op_counts(partitioner: NnapiPartitioner) -> str:
    """The ops NNAPI left on the CPU in its last lowering, with counts (``permute_copy x4``)."""
    counts = collections.Counter(d.op.split(".")[1] if d.op.startswith("aten.") else d.op
                                 for d in partitioner.decisions if not d.supported)
    return ", ".join(f"{op} x{n}" if n > 1 else op for op, n in counts.most_common())


def measure(name: str) -> Row:
    """One model through both partitioners, each .pte compared with eager."""
    from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner

    example = MODELS[name]()
    partitioner = NnapiPartitioner(FEATURE_LEVEL)
    lower_nnapi, nnapi_counts, nnapi_pte = lower(example, partitioner)
    left = cpu_op_counts(partitioner)
    lower_xnn, xnn_counts, xnn_pte = lower(example, XnnpackPartitioner())
    return Row(name, *nnapi_counts, *xnn_counts, left, lower_nnapi, lower_xnn,
               max_relative_error(nnapi_pte, example), max_relative_error(xnn_pte, example))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("models", nargs="*", help=f"default: all of {', '.join(MODELS)}")
    benchmark_page.add_markdown_option(parser)
    args = parser.parse_args()
    unknown = [name for name in args.models if name not in MODELS]
    if unknown:
        parser.error(f"unknown model(s) {', '.join(unknown)}; known: {', '.join(MODELS)}")
    import timm
    import transformers
    print(f"machine: {platform.machine()}, {torch.get_num_threads()} torch threads, "
          f"{platform.processor() or platform.platform()}; torch {torch.__version__}, timm {timm.__version__}, "
          f"transformers {transformers.__version__}")
    warm_up()
    table = print_table(HEADER, [(name, lambda name=name: measure(name)) for name in args.models or MODELS])
    benchmark_page.write_if_asked(args, "outside-models",
                                  "timm and Hugging Face models: NnapiPartitioner and XnnpackPartitioner", NOTES,
                                  table)


if __name__ == "__main__":
    main()
