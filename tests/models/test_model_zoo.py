"""Float model zoo: torchvision's mobile-size models at the default feature level
(API 30) are delegated whole -- no compute op on the CPU, one subgraph, no
TRANSPOSE inside it -- and the .pte matches eager on the host NNAPI driver.

One model per family (the cheapest) keeps the module within CI's budget; each
test lowers a whole network, 10-75 s on a 2-core machine (the module ~6-8 min).
"""

from __future__ import annotations

import pytest
import torch
from torch.export import export

from executorch.exir import to_edge_transform_and_lower

from op_harness import relative_max_error, run_pte

import torchvision  # noqa: E402  (a dev requirement: requirements-dev.txt)

from executorch_nnapi.tools.report import delegation_report  # noqa: E402
from executorch_nnapi.lowering.serialization import read_blob  # noqa: E402
from executorch_nnapi.partitioners import NnapiPartitioner  # noqa: E402

pytestmark = pytest.mark.slow

CLASSIFICATION = [
    "mobilenet_v2", "mobilenet_v3_small", "mnasnet0_5", "shufflenet_v2_x0_5", "squeezenet1_1", "resnet18",
    "regnet_y_400mf", "efficientnet_b0", "googlenet", "densenet121",
]
SEGMENTATION = ["deeplabv3_mobilenet_v3_large", "lraspp_mobilenet_v3_large"]
INPUT_SIZE = {name: 224 for name in CLASSIFICATION} | {name: 256 for name in SEGMENTATION}


class SegmentationOutput(torch.nn.Module):
    """torchvision's segmentation models return {"out": ...}; the test compares that tensor."""

    def __init__(self, model: torch.nn.Module) -> None:
        super().__init__()
        self.model = model

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.model(x)["out"]


def calibrate_batch_norms(model: torch.nn.Module, size: int) -> None:
    """Gives every batch norm random affine parameters and the statistics of a
    random batch. With torchvision's default init the signal fades layer by layer
    (googlenet's logits do not depend on the input at all), so a comparison with
    eager would check almost nothing; calibrated, every layer carries the input."""
    norms = [m for m in model.modules() if isinstance(m, torch.nn.modules.batchnorm._BatchNorm)]
    with torch.no_grad():
        for bn in norms:
            bn.weight.uniform_(0.5, 1.5)
            bn.bias.uniform_(-0.2, 0.2)
            bn.momentum = 1.0  # running statistics := those of the calibration batch
        model.train()
        model(torch.randn(4, 3, size, size))
    model.eval()


def build(name: str) -> tuple[torch.nn.Module, int]:
    """The untrained model (no network access: weights=None) in eval mode, and its input size."""
    torch.manual_seed(0)
    if name in SEGMENTATION:
        model = SegmentationOutput(torchvision.models.get_model(name, weights=None, weights_backbone=None))
    else:
        # googlenet: opt in to the future default init (silences torchvision's warning).
        extra = {"init_weights": True} if name == "googlenet" else {}
        model = torchvision.models.get_model(name, weights=None, **extra)
    size = INPUT_SIZE[name]
    calibrate_batch_norms(model, size)
    return model, size


def non_boundary_transposes(lowered_module) -> list[str]:
    """Debug names of the TRANSPOSE operations other than the layout changes of
    the partition's inputs and outputs (named "<input or output node> (layout)")."""
    blob = read_blob(lowered_module.processed_bytes)
    graph = lowered_module.original_module.graph
    user_inputs = set(lowered_module.original_module.graph_signature.user_inputs)
    boundary = {n.name for n in graph.nodes if n.op == "placeholder" and n.name in user_inputs}
    boundary |= {a.name for a in next(n for n in graph.nodes if n.op == "output").args[0]}
    allowed = {f"{name} (layout)" for name in boundary}
    return [d for t, d in zip(blob.operation_types, blob.operation_debug_names) if t == "TRANSPOSE" and d not in allowed]


@pytest.mark.parametrize("name", CLASSIFICATION + SEGMENTATION)
def test_model_is_one_nnapi_subgraph_and_matches_eager(name):
    model, size = build(name)
    x = torch.randn(1, 3, size, size)
    partitioner = NnapiPartitioner()
    edge = to_edge_transform_and_lower(export(model, (x,)), partitioner=[partitioner])

    report = delegation_report(edge, partitioner.decisions)
    assert not report.cpu_nodes, report.format()
    assert len(report.partitions) == 1, report.format()
    gm = edge.exported_program().graph_module
    (delegate,) = [getattr(gm, n.args[0].target) for n in gm.graph.nodes
                   if n.target is torch.ops.higher_order.executorch_call_delegate]
    assert non_boundary_transposes(delegate) == [], report.format()
    if name.startswith("shufflenet"):
        # Each of the 16 channel shuffles is one operation, on the NHWC value.
        assert report.partitions[0].nnapi_operations.get("CHANNEL_SHUFFLE") == 16, report.format()
        assert "RESHAPE" not in report.partitions[0].nnapi_operations, report.format()

    (got,) = run_pte(edge.to_executorch().buffer, [x])
    with torch.no_grad():
        want = model(x)
        other = model(torch.randn_like(x))
    assert got.shape == want.shape
    # The output depends on the input, so the tolerance below is a real check.
    assert relative_max_error(other, want) > 1e-2
    err = relative_max_error(got, want)
    assert err < 1e-4, f"{name}: relative max error {err:.3g}"
