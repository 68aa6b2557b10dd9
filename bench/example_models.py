"""ExecuTorch's own example models (``executorch.examples.models``): NnapiPartitioner vs XnnpackPartitioner.

    python bench/example_models.py                  # every example model that builds offline
    python bench/example_models.py mv2 resnet18     # some of them (names as in MODEL_NAME_TO_MODEL)
    python bench/example_models.py --markdown       # also into docs/benchmarks.md (benchmark_page.py)

Per model it prints, side by side: NNAPI subgraphs / CPU ops, XNNPACK subgraphs / CPU ops, lowering
time (export -> .pte) with each partitioner, and the largest relative error against eager torch of
the NNAPI .pte run on the host NNAPI driver (feature level 30) and of the XNNPACK .pte. A model
whose example class downloads pretrained weights is built from the same architecture with random
weights (torchvision's ``weights=None``); one that needs a package not installed, or weights that
cannot be replaced, gets a row saying so. Issue 24 item 3: NNAPI no worse than XNNPACK on any of them.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib.util
import pathlib
import platform
import sys
import time
from typing import Any, Callable

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import benchmark_page  # noqa: E402  (first: it reads the load average as the run starts)
import torch  # noqa: E402
import torch.utils._pytree as pytree  # noqa: E402
from torch.export import export

from executorch.exir import to_edge_transform_and_lower
from executorch.runtime import Runtime

import executorch_nnapi.runtime  # noqa: F401  (NnapiBackend + host driver)
from executorch_nnapi.host_driver import get_driver
from executorch_nnapi.partitioners import NnapiPartitioner

from zoo_benchmark import (  # noqa: E402  (the zoo benchmark's table style, counts and warm-up)
    _delegation_counts, print_table, randomize_batch_norms, warm_up)

FEATURE_LEVEL = 30


@dataclasses.dataclass
class Example:
    """A model to measure: the eager module, its example inputs (as the example class gives them:
    a tuple that may nest) and the dynamic shapes to export with."""

    module: torch.nn.Module
    inputs: tuple
    dynamic_shapes: Any = None


class Skipped(Exception):
    """A model that cannot be built here without a download or a missing package: the row says why."""


def _factory(module_name: str, class_name: str) -> Example:
    """The model exactly as ExecuTorch's example factory builds it (only for models that download nothing)."""
    from executorch.examples.models.model_factory import EagerModelFactory

    torch.manual_seed(0)
    module, inputs, _, dynamic_shapes = EagerModelFactory.create_model(module_name, class_name)
    return Example(module.eval(), tuple(inputs), dynamic_shapes)


def _torchvision(name: str, size: int, **kwargs) -> Example:
    """A torchvision example with ``weights=None`` (its example class fetches ImageNet weights) and
    random batch-norm statistics: with the default init the logits barely depend on the input, so
    the error against eager would measure nothing."""
    import torchvision

    torch.manual_seed(0)
    module = torchvision.models.get_model(name, weights=None, **kwargs).eval()
    randomize_batch_norms(module, size)
    _fill_zero_weights(module)
    return Example(module, (torch.randn(1, 3, size, size),))


def _fill_zero_weights(module: torch.nn.Module) -> None:
    """torchvision zero-initializes some weights (ViT's classification head): an all-zero output
    would match any backend exactly, so such weights get small random values."""
    generator = torch.Generator().manual_seed(1)
    with torch.no_grad():
        for weight in module.parameters():
            if weight.dim() > 1 and not weight.any():
                weight.normal_(0.0, 0.02, generator=generator)


def _mv2_untrained() -> Example:
    """ExecuTorch's MV2UntrainedModel, its batch norms randomized as in _torchvision."""
    example = _factory("mobilenet_v2", "MV2UntrainedModel")
    randomize_batch_norms(example.module, example.inputs[0].shape[-1])
    return example


class _SegmentationOut(torch.nn.Module):
    """DeepLabV3's example returns the dict's "out" tensor only (executorch's DeepLabV3ResNet50Model does too)."""

    def __init__(self, module: torch.nn.Module) -> None:
        super().__init__()
        self.module = module

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.module(x)["out"]


def _deeplab() -> Example:
    example = _torchvision("deeplabv3_resnet50", 224, weights_backbone=None, aux_loss=False)
    return Example(_SegmentationOut(example.module).eval(), example.inputs)


def _needs(package: str, also: str = "") -> Callable[[], Example]:
    """A model not built here: its package is missing, or (``also``) it needs a download."""
    def build() -> Example:
        if importlib.util.find_spec(package) is None:
            raise Skipped(f"needs {package} (not installed)" + (f"; {also}" if also else ""))
        raise Skipped(also or f"its example class (with {package}) downloads its weights")
    return build


def _efficient_sam() -> Example:
    """EfficientSAM ViT-tiny with random weights: the example's build_efficient_sam_vitt fetches its
    checkpoint; build_efficient_sam with checkpoint=None builds the same architecture offline."""
    from executorch.examples.models.efficient_sam import EfficientSAM
    from executorch.examples.models.efficient_sam.efficient_sam_core.efficient_sam import build_efficient_sam

    torch.manual_seed(0)
    module = build_efficient_sam(encoder_patch_embed_dim=192, encoder_num_heads=3, checkpoint=None).eval()
    return Example(module, tuple(EfficientSAM().get_example_inputs()))


def _llama2() -> Example:
    """ExecuTorch's Llama2Model with its default params and no checkpoint. It builds the model on
    the meta device and then allocates it empty, so its weights and buffers hold whatever memory
    held (the rotary tables and the causal mask too: some runs give NaN). The weights get seeded
    random values, and the buffers the values the same Transformer computes when built on the
    CPU."""
    from executorch.examples.models.llama.llama_transformer import construct_transformer

    example = _factory("llama", "Llama2Model")
    generator = torch.Generator().manual_seed(0)
    built = construct_transformer(example.module.params)
    with torch.no_grad():
        for name, buffer in built.named_buffers():
            example.module.get_buffer(name).copy_(buffer)
        for weight in example.module.parameters():
            if weight.dim() > 1:
                weight.normal_(0.0, 0.02, generator=generator)
            else:
                weight.fill_(1.0)  # RMSNorm scales
    return example


def _same_as_llama2() -> Example:
    raise Skipped("llama2's module (Llama2Model) with the same default params and random weights: see llama2")


# Every entry of executorch.examples.models.MODEL_NAME_TO_MODEL, in its order.
EXAMPLES: dict[str, Callable[[], Example]] = {
    "mul": lambda: _factory("toy_model", "MulModule"),
    "linear": lambda: _factory("toy_model", "LinearModule"),
    "add": lambda: _factory("toy_model", "AddModule"),
    "add_mul": lambda: _factory("toy_model", "AddMulModule"),
    "softmax": lambda: _factory("toy_model", "SoftmaxModule"),
    "conv1d": lambda: _factory("toy_model", "Conv1dModule"),
    "dl3": _deeplab,
    "edsr": _needs("torchsr"),
    "emformer_transcribe": _needs("torchaudio"),
    "emformer_predict": _needs("torchaudio"),
    "emformer_join": _needs("torchaudio"),
    "llama2": _llama2,
    "llama3_2_vision_encoder": _needs("torchtune"),
    "lstm": lambda: _factory("lstm", "LSTMModel"),
    "mobilebert": _needs("transformers", "downloads google/mobilebert-uncased"),
    "mv2": lambda: _torchvision("mobilenet_v2", 224),
    "mv2_untrained": _mv2_untrained,
    "mv3": lambda: _torchvision("mobilenet_v3_small", 224),
    "vit": lambda: _torchvision("vit_b_16", 224),
    "w2l": _needs("torchaudio"),
    "ic3": lambda: _torchvision("inception_v3", 224, init_weights=True, aux_logits=False),
    "ic4": _needs("timm", "downloads pretrained weights"),
    "resnet18": lambda: _torchvision("resnet18", 224),
    "resnet50": lambda: _torchvision("resnet50", 224),
    "llava": _needs("transformers", "downloads llava-1.5-7b"),
    "efficient_sam": _efficient_sam,
    "qwen2_5_1_5b": _same_as_llama2,
    "phi_4_mini": _same_as_llama2,
    "smollm2": _same_as_llama2,
    "deit_tiny": _needs("timm", "downloads pretrained weights"),
    "deep_autoencoder": lambda: _factory("mlperf_tiny.deep_autoencoder", "DeepAutoEncoderModel"),
    "ds_cnn": lambda: _factory("mlperf_tiny.ds_cnn", "DSCNNKWSModel"),
    "mobilenet_v1_025": lambda: _factory("mlperf_tiny.mobilenet_v1_025", "MobileNetV1025Model"),
    "resnet8": lambda: _factory("mlperf_tiny.resnet8", "ResNet8Model"),
    "sdpa": lambda: _factory("toy_model", "SdpaModule"),
    "qwen3": _same_as_llama2,
    "smolvlm": _needs("transformers"),
    "yolo26": _needs("ultralytics", "downloads yolo26n.pt"),
    "whisper": _needs("transformers", "downloads its checkpoint"),
}


@dataclasses.dataclass
class Row:
    model: str
    nnapi_subgraphs: int
    nnapi_cpu_ops: int
    xnnpack_subgraphs: int
    xnnpack_cpu_ops: int
    lower_nnapi_s: float
    lower_xnnpack_s: float
    error_nnapi: float
    error_xnnpack: float

    def cells(self) -> list[str]:
        return [
            self.model, f"{self.nnapi_subgraphs} / {self.nnapi_cpu_ops}",
            f"{self.xnnpack_subgraphs} / {self.xnnpack_cpu_ops}",
            f"{self.lower_nnapi_s:.1f}", f"{self.lower_xnnpack_s:.1f}",
            f"{self.error_nnapi:.1e}", f"{self.error_xnnpack:.1e}",
        ]


HEADER = ["model", "NNAPI subgraphs / CPU ops", "XNNPACK subgraphs / CPU ops", "lower NNAPI s",
          "lower XNNPACK s", "max rel. error NNAPI", "max rel. error XNNPACK"]
NOTES = """Every entry of `executorch.examples.models.MODEL_NAME_TO_MODEL`, built offline: a model
whose example class downloads weights is built with random ones (torchvision's `weights=None`,
batch norms given random statistics); one that needs a package or a download not available here
says so. *subgraphs / CPU ops*: delegated subgraphs and compute ops left to the portable CPU
kernels, with NnapiPartitioner (feature level 30) and with XnnpackPartitioner. *lower*: export to
.pte, seconds. *max rel. error*: the largest output difference against eager torch, relative to
the output's largest magnitude, of the NNAPI .pte on the host NNAPI driver and of the XNNPACK .pte."""


def lower(example: Example, partitioner) -> tuple[float, tuple[int, int], bytes]:
    """(export + lower + serialize seconds, (subgraphs, CPU ops), .pte bytes). The counts are taken
    before to_executorch, whose memory planning adds allocation nodes that compute nothing."""
    t0 = time.perf_counter()
    program = export(example.module, example.inputs, dynamic_shapes=example.dynamic_shapes)
    edge = to_edge_transform_and_lower(program, partitioner=[partitioner])
    counts = _delegation_counts(edge)
    pte = edge.to_executorch().buffer
    return time.perf_counter() - t0, counts, pte


def max_relative_error(pte: bytes, example: Example) -> float:
    """The largest over the outputs of max|pte - eager| / max|eager| (the .pte run on the host driver)."""
    get_driver().feature_level = FEATURE_LEVEL  # the driver's level is global state: set it for this run
    program = Runtime.get().load_program(pte)  # keep it alive: the Method does not
    actual = program.load_method("forward").execute(pytree.tree_leaves(example.inputs))
    with torch.no_grad():
        expected = pytree.tree_leaves(example.module(*example.inputs))
    if len(actual) != len(expected):
        raise ValueError(f"the .pte returned {len(actual)} outputs, eager {len(expected)}")
    errors = [0.0]
    for a, e in zip(actual, expected):
        if not e.is_floating_point():
            errors.append(0.0 if torch.equal(a, e) else float("inf"))
            continue
        if e.numel() and not torch.isfinite(e).all():
            raise ValueError("eager's output is not finite: the comparison would mean nothing")
        diff = (a - e).abs().max().item() if e.numel() else 0.0
        errors.append(diff / max(e.abs().max().item() if e.numel() else 0.0, 1e-6))
    # max() skips NaN (comparisons with it are false): a NaN from the .pte is the worst error.
    return float("nan") if any(error != error for error in errors) else max(errors)


def bench_example(name: str, example: Example) -> Row:
    """One example model through both partitioners, each .pte compared with eager."""
    from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner

    lower_nnapi, nnapi_counts, nnapi_pte = lower(example, NnapiPartitioner(FEATURE_LEVEL))
    lower_xnn, xnn_counts, xnn_pte = lower(example, XnnpackPartitioner())
    return Row(name, *nnapi_counts, *xnn_counts, lower_nnapi, lower_xnn,
               max_relative_error(nnapi_pte, example), max_relative_error(xnn_pte, example))


@dataclasses.dataclass
class SkippedRow:
    model: str
    reason: str

    def cells(self) -> list[str]:
        return [self.model, f"skipped: {self.reason}"] + [""] * (len(HEADER) - 2)


def measure(name: str) -> Row | SkippedRow:
    """The row of one example, or the reason it cannot be built here."""
    try:
        example = EXAMPLES[name]()
    except Skipped as reason:
        return SkippedRow(name, str(reason))
    return bench_example(name, example)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("models", nargs="*", help=f"default: all of {', '.join(EXAMPLES)}")
    benchmark_page.add_markdown_option(parser)
    args = parser.parse_args()
    unknown = [name for name in args.models if name not in EXAMPLES]
    if unknown:
        parser.error(f"unknown example model(s) {', '.join(unknown)}; known: {', '.join(EXAMPLES)}")
    print(f"machine: {platform.machine()}, {torch.get_num_threads()} torch threads, "
          f"{platform.processor() or platform.platform()}; torch {torch.__version__}")
    warm_up()
    table = print_table(HEADER, [(name, lambda name=name: measure(name)) for name in args.models or EXAMPLES])
    benchmark_page.write_if_asked(args, "example-models",
                                  "ExecuTorch's example models: NnapiPartitioner and XnnpackPartitioner", NOTES, table)


if __name__ == "__main__":
    main()
