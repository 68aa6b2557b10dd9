"""Whole models through export -> NnapiPartitioner -> .pte -> host driver, against eager."""

from __future__ import annotations


import pytest
import torch
from torch.export import Dim

from op_harness import check_delegated_and_matches, lower, relative_max_error, run_pte


class ExportDocsModel(torch.nn.Module):
    """The model of ExecuTorch's export documentation."""

    def __init__(self) -> None:
        super().__init__()
        self.seq = torch.nn.Sequential(
            torch.nn.Conv2d(1, 8, 3), torch.nn.ReLU(), torch.nn.Conv2d(8, 16, 3), torch.nn.ReLU(),
            torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(), torch.nn.Linear(16, 10),
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.seq(x)


DOCS_SIZES = [(16, 16), (37, 53), (224, 224), (1024, 40)]


@pytest.fixture(scope="module")
def docs_model_lowering():
    torch.manual_seed(0)
    model = ExportDocsModel().eval()
    dynamic = {"x": {2: Dim("h", min=16, max=1024), 3: Dim("w", min=16, max=1024)}}
    return model, lower(model, (torch.randn(1, 1, 32, 32),), dynamic_shapes=dynamic)


def test_docs_model_is_one_subgraph_with_nothing_on_cpu(docs_model_lowering):
    _, lowered = docs_model_lowering
    assert lowered.num_delegates == 1
    assert lowered.cpu_ops == []
    (blob,) = lowered.blobs
    assert [s[1:] for s in blob.symbols] == [(16, 1024), (16, 1024)]
    assert blob.count("CONV_2D") == 2 and blob.count("FULLY_CONNECTED") == 1
    # The runtime permutes the input while copying it in: no TRANSPOSE at all;
    # relu is fused into the convolutions.
    assert blob.count("TRANSPOSE") == 0 and blob.count("RELU") == 0


@pytest.mark.parametrize("order", [DOCS_SIZES, DOCS_SIZES[::-1], [DOCS_SIZES[i] for i in (2, 0, 3, 1, 2, 0)]])
def test_docs_model_matches_eager_at_every_size_in_any_order(docs_model_lowering, order):
    model, lowered = docs_model_lowering
    from executorch.runtime import Runtime

    program = Runtime.get().load_program(lowered.pte)  # the Method does not keep its Program alive
    method = program.load_method("forward")
    for h, w in order:
        x = torch.randn(1, 1, h, w)
        (got,) = method.execute([x])
        with torch.no_grad():
            want = model(x)
        assert got.shape == want.shape
        assert relative_max_error(got, want) < 1e-4, (h, w)


def test_docs_model_compiles_each_shape_once(docs_model_lowering):
    from executorch.runtime import Runtime
    from executorch_nnapi.host_driver import get_driver

    _, lowered = docs_model_lowering
    program = Runtime.get().load_program(lowered.pte)  # the Method does not keep its Program alive
    method = program.load_method("forward")
    driver = get_driver()
    driver.reset_counters()
    for h, w in [(20, 30), (40, 50), (20, 30), (40, 50), (20, 30)]:
        method.execute([torch.randn(1, 1, h, w)])
    assert driver.compilations_finished == 2
    assert driver.executions_computed == 5


@pytest.mark.parametrize("size", [(15, 40), (40, 1025), (2000, 2000)])
def test_size_outside_exported_bounds_is_a_clear_error(docs_model_lowering, size, capfd):
    from executorch.runtime import Runtime
    from executorch_nnapi.runtime import last_error
    from executorch_nnapi.runtime.backend_library import clear_last_error

    _, lowered = docs_model_lowering
    program = Runtime.get().load_program(lowered.pte)  # the Method does not keep its Program alive
    method = program.load_method("forward")
    clear_last_error()   # another test's message must not answer for this one
    with pytest.raises(Exception):
        method.execute([torch.randn(1, 1, *size)])
    message = last_error() + capfd.readouterr().err
    if size[0] * size[1] > 1024 * 1024:
        # More elements than the input's memory plan holds: ExecuTorch refuses before the delegate runs.
        assert "maximum capacity of 1048576 elements to 4000000 elements" in message
    else:
        assert "outside the range [16, 1024]" in message
    # The method still works afterwards.
    (out,) = method.execute([torch.randn(1, 1, 32, 32)])
    assert out.shape == (1, 10)


class ConvErfConv(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.a = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.b = torch.nn.Conv2d(8, 4, 3, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.relu(self.a(x))
        y = torch.erf(y)
        return self.b(y) * 0.5


def test_unsupported_op_in_the_middle_splits_into_two_subgraphs():
    torch.manual_seed(0)
    model = ConvErfConv().eval()
    x = torch.randn(1, 3, 16, 16)
    lowered = lower(model, (x,))
    assert lowered.num_delegates == 2
    assert lowered.cpu_ops == ["aten.erf.default"]
    reasons = {d.op: d.reason for d in lowered.partitioner.decisions if not d.supported}
    assert reasons["aten.erf.default"] == "NNAPI has no erf operation"
    (got,) = run_pte(lowered.pte, [x])
    assert relative_max_error(got, model(x)) < 1e-4


def test_android_8_1_runs_convolutions_without_transpose_operations():
    # API 27 has no TRANSPOSE: the runtime permutes NCHW inputs/outputs itself.
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3, padding=1), torch.nn.ReLU(), torch.nn.MaxPool2d(2),
                                torch.nn.Conv2d(8, 4, 1)).eval()
    x = torch.randn(1, 3, 16, 12)
    lowered = check_delegated_and_matches(model, (x,), feature_level=27)
    assert lowered.num_delegates == 1
    assert "TRANSPOSE" not in lowered.nnapi_operations
    assert all(b.min_feature_level == 27 for b in lowered.blobs)


def test_dim_with_min_1_accepts_size_1():
    # to_edge narrows Dim(min=1) to [2, ...]; the delegate keeps the range export validated.
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3), torch.nn.ReLU()).eval()
    dynamic = {"input": {0: Dim("batch", min=1, max=8)}}
    check_delegated_and_matches(model, (torch.randn(4, 3, 8, 8),), dynamic_shapes=dynamic,
                                run_inputs=[(torch.randn(1, 3, 8, 8),), (torch.randn(8, 3, 8, 8),)])
