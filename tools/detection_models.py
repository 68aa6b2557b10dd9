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

from typing import Callable

import torch
from torch import nn

__all__ = ["DETECTOR_BUILDERS", "random_detector"]

def _torchvision(builder: str) -> Callable[..., nn.Module]:
    """torchvision's own builder ``builder``, without any trained weights."""
    def build(**kwargs) -> nn.Module:
        import torchvision.models.detection as detection
        return getattr(detection, builder)(weights=None, weights_backbone=None, **kwargs)
    return build


def _resnet18_trunk(family: str) -> Callable[..., nn.Module]:
    """torchvision's ``RetinaNet`` or ``FCOS`` class on a ResNet-18 FPN trunk: the ResNet-50 models'
    structure (levels P3-P7, the same heads and post-processing) at a fraction of their cost, for
    quick tests."""
    def build(**kwargs) -> nn.Module:
        import torchvision.models.detection as detection
        from torchvision.models.detection.backbone_utils import resnet_fpn_backbone
        from torchvision.ops.feature_pyramid_network import LastLevelP6P7

        trunk = resnet_fpn_backbone(backbone_name="resnet18", weights=None, trainable_layers=5,
                                    returned_layers=[2, 3, 4], extra_blocks=LastLevelP6P7(256, 256))
        return getattr(detection, family)(trunk, num_classes=kwargs.pop("num_classes", 91), **kwargs)
    return build


def _mobilenet_mask_rcnn(**kwargs) -> nn.Module:
    """torchvision's ``MaskRCNN`` class on fasterrcnn_mobilenet_v3_large_320_fpn's trunk and settings:
    maskrcnn_resnet50_fpn's heads and post-processing at a fraction of its cost, for quick tests."""
    from torchvision.models.detection import MaskRCNN, fasterrcnn_mobilenet_v3_large_320_fpn

    settings = {"min_size": 320, "max_size": 640, "rpn_pre_nms_top_n_test": 150, "rpn_post_nms_top_n_test": 150,
                "rpn_score_thresh": 0.05, **kwargs}
    trunk = fasterrcnn_mobilenet_v3_large_320_fpn(weights=None, weights_backbone=None).backbone
    anchors = fasterrcnn_mobilenet_v3_large_320_fpn(weights=None, weights_backbone=None).rpn.anchor_generator
    return MaskRCNN(trunk, num_classes=91, rpn_anchor_generator=anchors, **settings)


def _mobilenet_keypoint_rcnn(**kwargs) -> nn.Module:
    """torchvision's ``KeypointRCNN`` class (17 keypoints, 2 classes) on fasterrcnn_mobilenet_v3_large_320_fpn's
    trunk and settings, with a keypoint head of four 128-channel layers instead of eight of 512 (its
    ``KeypointRCNNHeads`` and ``KeypointRCNNPredictor``, 1/20 of the cost per detection): keypointrcnn_resnet50_fpn's
    branch and post-processing at a fraction of its cost, for quick tests."""
    from torchvision.models.detection import KeypointRCNN, fasterrcnn_mobilenet_v3_large_320_fpn
    from torchvision.models.detection.keypoint_rcnn import KeypointRCNNHeads, KeypointRCNNPredictor

    settings = {"min_size": 320, "max_size": 640, "rpn_pre_nms_top_n_test": 150, "rpn_post_nms_top_n_test": 150,
                "rpn_score_thresh": 0.05, **kwargs}
    faster_rcnn = fasterrcnn_mobilenet_v3_large_320_fpn(weights=None, weights_backbone=None)
    trunk, anchors = faster_rcnn.backbone, faster_rcnn.rpn.anchor_generator
    layers = (128, 128, 128, 128)
    return KeypointRCNN(trunk, num_classes=2, rpn_anchor_generator=anchors,
                        keypoint_head=KeypointRCNNHeads(trunk.out_channels, layers),
                        keypoint_predictor=KeypointRCNNPredictor(layers[-1], 17), **settings)


# name -> (builder of the model from keyword arguments, scale of the classifier's weights)
DETECTOR_BUILDERS: dict[str, tuple[Callable[..., nn.Module], float]] = {
    "ssdlite320_mobilenet_v3_large": (_torchvision("ssdlite320_mobilenet_v3_large"), 1.0),
    "fasterrcnn_mobilenet_v3_large_320_fpn": (_torchvision("fasterrcnn_mobilenet_v3_large_320_fpn"), 8.0),
    "retinanet_resnet50_fpn": (_torchvision("retinanet_resnet50_fpn"), 40.0),
    "fcos_resnet50_fpn": (_torchvision("fcos_resnet50_fpn"), 4.0),
    "maskrcnn_resnet50_fpn": (_torchvision("maskrcnn_resnet50_fpn"), 8.0),
    "maskrcnn_mobilenet_v3_large_320_fpn": (_mobilenet_mask_rcnn, 8.0),
    "keypointrcnn_resnet50_fpn": (_torchvision("keypointrcnn_resnet50_fpn"), 8.0),
    "keypointrcnn_mobilenet_v3_large_320_fpn": (_mobilenet_keypoint_rcnn, 8.0),
    "retinanet_resnet18_fpn": (_resnet18_trunk("RetinaNet"), 40.0),
    "fcos_resnet18_fpn": (_resnet18_trunk("FCOS"), 8.0),
}


def random_detector(name: str, seed: int = 0, image_size: tuple[int, int] = (320, 320), **kwargs) -> nn.Module:
    """The torchvision detector ``name`` (a key of ``DETECTOR_BUILDERS``) in eval mode, with random
    weights of ``seed``, batch-norm statistics of two random images of ``image_size`` and spread
    scores. ``kwargs`` go to torchvision's builder (e.g. ``min_size``, ``score_thresh``)."""
    if name not in DETECTOR_BUILDERS:
        raise ValueError(f"random_detector: unknown detector {name!r} (known: {', '.join(DETECTOR_BUILDERS)})")
    build, classifier_scale = DETECTOR_BUILDERS[name]
    torch.manual_seed(seed)
    model = build(**kwargs).eval()
    generator = torch.Generator().manual_seed(seed)
    _calibrate_batch_norms(model, generator, image_size)
    with torch.no_grad():
        for layer in _classifiers(model):
            layer.weight.mul_(classifier_scale)
    return model


def _calibrate_batch_norms(model: nn.Module, generator: torch.Generator, image_size: tuple[int, int]) -> None:
    """Random affine parameters, and running statistics of two random images through the layers that
    hold batch norms (the trunk, and SSD's head)."""
    from torchvision.models.detection.ssd import SSD

    norms = [m for m in model.modules() if isinstance(m, nn.BatchNorm2d)]
    with torch.no_grad():
        for norm in norms:
            norm.reset_running_stats()
            norm.momentum = None  # a plain average over the batches seen
            norm.weight.copy_(torch.rand(norm.num_features, generator=generator) * 0.5 + 0.75)
            norm.bias.copy_(torch.randn(norm.num_features, generator=generator) * 0.1)
            norm.train()
        images = model.transform([torch.rand(3, *image_size, generator=generator) for _ in range(2)])[0]
        features = model.backbone(images.tensors)
        if isinstance(model, SSD):
            model.head(list(features.values()))
    for norm in norms:
        norm.eval()


def _classifiers(model: nn.Module) -> list[nn.Module]:
    """The layers whose outputs are class logits (the box predictor's ``cls_score``, a dense head's
    ``cls_logits``)."""
    roi_heads = getattr(model, "roi_heads", None)
    if roi_heads is not None:
        return [roi_heads.box_predictor.cls_score]
    head = getattr(model, "head", None)
    classification = getattr(head, "classification_head", None)
    if classification is not None and isinstance(getattr(classification, "cls_logits", None), nn.Conv2d):
        return [classification.cls_logits]
    return []
