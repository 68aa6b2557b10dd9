"""torchvision detectors with random weights of a fixed seed, for tests, benchmarks and examples
that cannot download trained weights (tests/models/test_detectors.py, bench/detectors.py,
examples/detect_on_host.py).

With torchvision's initialization alone a detector is degenerate: batch norms with unit
statistics and a classifier whose logits are nearly equal give scores that tie by the hundreds (an
order no two implementations need agree on) or that never pass the score threshold. So the batch
norms' statistics are those of random images through the model, their affine parameters random,
and the classification layers' weights scaled until the scores spread as a trained model's do.
"""

from __future__ import annotations

import torch
from torch import nn

__all__ = ["DETECTOR_BUILDERS", "random_detector"]

# name -> (torchvision builder name, extra keyword arguments, scale of the classifier's weights)
DETECTOR_BUILDERS: dict[str, tuple[str, dict, float]] = {
    "ssdlite320_mobilenet_v3_large": ("ssdlite320_mobilenet_v3_large", {}, 1.0),
    "fasterrcnn_mobilenet_v3_large_320_fpn": ("fasterrcnn_mobilenet_v3_large_320_fpn", {}, 8.0),
}


def random_detector(name: str, seed: int = 0, image_size: tuple[int, int] = (320, 320), **kwargs) -> nn.Module:
    """The torchvision detector ``name`` (a key of ``DETECTOR_BUILDERS``) in eval mode, with random
    weights of ``seed``, batch-norm statistics of two random images of ``image_size`` and spread
    scores. ``kwargs`` go to torchvision's builder (e.g. ``score_thresh``)."""
    import torchvision.models.detection as detection

    if name not in DETECTOR_BUILDERS:
        raise ValueError(f"random_detector: unknown detector {name!r} (known: {', '.join(DETECTOR_BUILDERS)})")
    builder, defaults, classifier_scale = DETECTOR_BUILDERS[name]
    torch.manual_seed(seed)
    model = getattr(detection, builder)(weights=None, weights_backbone=None, **{**defaults, **kwargs}).eval()
    generator = torch.Generator().manual_seed(seed)
    _calibrate_batch_norms(model, generator, image_size)
    with torch.no_grad():
        for layer in _classifiers(model):
            layer.weight.mul_(classifier_scale)
    return model


def _calibrate_batch_norms(model: nn.Module, generator: torch.Generator, image_size: tuple[int, int]) -> None:
    """Random affine parameters, and running statistics of two random images through the model."""
    norms = [m for m in model.modules() if isinstance(m, nn.BatchNorm2d)]
    with torch.no_grad():
        for norm in norms:
            norm.reset_running_stats()
            norm.momentum = None  # a plain average over the batches seen
            norm.weight.copy_(torch.rand(norm.num_features, generator=generator) * 0.5 + 0.75)
            norm.bias.copy_(torch.randn(norm.num_features, generator=generator) * 0.1)
            norm.train()
        model([torch.rand(3, *image_size, generator=generator) for _ in range(2)])
    for norm in norms:
        norm.eval()


def _classifiers(model: nn.Module) -> list[nn.Module]:
    """The layers whose outputs are class logits (the box predictor's ``cls_score``)."""
    roi_heads = getattr(model, "roi_heads", None)
    if roi_heads is not None:
        return [roi_heads.box_predictor.cls_score]
    return []
