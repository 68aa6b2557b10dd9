"""Zoo models lowered for API 27, 28 and 29: the host driver, set to that level,
accepts every NNAPI model (it rejects operations and operand forms the level
lacks), the .pte matches eager, and each node left on the CPU says which
feature level it needs.

The cases pick, per level, the models whose fallbacks differ: squeeze-and-excite
means without MEAN (27), grouped convolutions (27, 28), channel shuffles without
CHANNEL_SHUFFLE (28) or TRANSPOSE (27), dilated convolutions without their
dilation operands and bilinear resizes without RESIZE_BILINEAR's half-pixel flag
(27-29; DeepLabV3 at 256x256 has a live rate-12 ASPP convolution, a regular one:
the one-hot im2col form at 27). The subgraph counts are the measured ones: more
would mean a regression in how little falls back.
"""

from __future__ import annotations

import re

import pytest
import torch
import torchvision
from torch.export import export

from executorch.exir import to_edge_transform_and_lower

from executorch_nnapi.lowering.nnapi_codes import OPERATION_SINCE, FeatureLevel, OperationCode
from executorch_nnapi.tools.report import delegation_report
from executorch_nnapi.partitioners import NnapiPartitioner

from op_harness import relative_max_error, run_pte
from test_model_zoo import build
from test_transformer_models import _randomize_zero_weights

pytestmark = pytest.mark.slow

# (model, feature level) -> subgraphs measured
CASES = {
    ("mobilenet_v3_small", 27): 1,
    ("squeezenet1_1", 27): 1,
    ("regnet_y_400mf", 27): 17,
    ("shufflenet_v2_x0_5", 27): 17,
    ("shufflenet_v2_x0_5", 28): 1,
    ("lraspp_mobilenet_v3_large", 28): 1,
    ("mnasnet0_5", 28): 1,
    ("deeplabv3_mobilenet_v3_large", 27): 1,
    ("deeplabv3_mobilenet_v3_large", 28): 1,
    ("deeplabv3_mobilenet_v3_large", 29): 1,
    # Transformers (64x64): layer norm (no SQRT/RSQRT before API 29), exact GELU (EXP),
    # bmm and the masked softmax need API 29; from there each is one subgraph.
    ("convnext_tiny", 28): 42,
    ("swin_t", 29): 1,
    ("vit_b_16", 29): 1,
}

TRANSFORMERS = {
    "convnext_tiny": lambda: torchvision.models.convnext_tiny(weights=None),
    "swin_t": lambda: torchvision.models.swin_t(weights=None),
    "vit_b_16": lambda: torchvision.models.vit_b_16(weights=None, image_size=64),
}


def build_model(name: str) -> tuple[torch.nn.Module, int]:
    """A zoo CNN at its usual size, or a transformer at 64x64 (untrained, eval mode)."""
    if name not in TRANSFORMERS:
        return build(name)
    torch.manual_seed(0)
    return _randomize_zero_weights(TRANSFORMERS[name]()), 64

# A CPU node's reason names the level it needs, or at API 27 the missing TRANSPOSE.
LEVEL_REASON = re.compile(r"needs (API (\d+)|TRANSPOSE \(API 28\))")


@pytest.mark.parametrize("name,level", list(CASES))
def test_model_at_feature_level(name, level):
    model, size = build_model(name)
    x = torch.randn(1, 3, size, size)
    partitioner = NnapiPartitioner(feature_level=level)
    edge = to_edge_transform_and_lower(export(model, (x,)), partitioner=[partitioner])
    report = delegation_report(edge, partitioner.decisions)

    assert len(report.partitions) <= CASES[(name, level)], report.format()
    for node in report.cpu_nodes:
        match = LEVEL_REASON.search(node.reason)
        assert match, f"{node.name} ({node.op}) refused without a feature level: {node.reason}"
        if match.group(2):
            assert int(match.group(2)) > level, node.reason
    for partition in report.partitions:
        for op in partition.nnapi_operations:
            assert OPERATION_SINCE[OperationCode[op]] <= FeatureLevel(level), f"{op} is not in API {level}"

    (got,) = run_pte(edge.to_executorch().buffer, [x], feature_level=level)  # the driver checks every operation
    with torch.no_grad():
        want = model(x)
    err = relative_max_error(got, want)
    assert err < 1e-4, f"{name} at API {level}: relative max error {err:.3g}"
