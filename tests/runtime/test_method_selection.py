"""A .pte with a CPU method (to_nnapi_program(..., cpu_method=...)) and load_method's choice
between ``forward`` (NNAPI) and ``forward_cpu`` when NNAPI is there and when it is hidden."""

from __future__ import annotations

import pytest
import torch
from torch.export import Dim, export

from executorch_nnapi import runtime
from executorch_nnapi.tools.export import to_nnapi_program
from executorch_nnapi import host_driver
from executorch_nnapi.runtime import load_method, nnapi_available, set_nnapi_library

from cli_models import small_cnn

MISSING_NNAPI_LIBRARY = "/nonexistent/libneuralnetworks.so"


@pytest.fixture(scope="module")
def model() -> torch.nn.Module:
    return small_cnn()


def _lower(model: torch.nn.Module, cpu_method):
    ep = export(model, (torch.randn(1, 3, 32, 32),), dynamic_shapes=({2: Dim("h", min=16, max=64)},))
    return to_nnapi_program(ep, cpu_method=cpu_method)


@pytest.fixture(scope="module")
def pte_with_cpu_method(model) -> bytes:
    return _lower(model, "xnnpack").buffer


@pytest.fixture
def nnapi_hidden():
    """The backend pointed at a missing NNAPI library, as on a phone without libneuralnetworks.so."""
    set_nnapi_library(MISSING_NNAPI_LIBRARY)
    yield
    set_nnapi_library(host_driver.default_shim_path())


def _check_matches_eager(selected, model, heights=(16, 32, 64)):
    for h in heights:
        x = torch.randn(1, 3, h, 32)
        with torch.no_grad():
            want = model(x)
        torch.testing.assert_close(selected.execute([x])[0], want, rtol=1e-4, atol=1e-5)


def test_the_python_equivalent_of_cpu_method_writes_both_methods(model):
    lowered = _lower(model, "xnnpack")
    assert lowered.method_names == ["forward", "forward_cpu"]
    assert lowered.report.num_delegated_nodes > 0 and not lowered.report.cpu_nodes
    assert lowered.cpu_method_summary() == ("method forward_cpu (xnnpack): 1 XnnpackBackend subgraph(s), "
                                            "0 node(s) on the portable kernels")
    portable = _lower(model, "portable")
    assert portable.cpu_method_summary().startswith("method forward_cpu (portable): no delegate, ")
    with pytest.raises(ValueError, match="unknown cpu_method 'gpu'; expected one of xnnpack, portable"):
        _lower(model, "gpu")


def test_with_nnapi_available_forward_is_chosen(pte_with_cpu_method, model):
    driver = host_driver.get_driver()
    before = driver.executions_computed
    selected = load_method(pte_with_cpu_method)
    assert (selected.name, selected.uses_nnapi, selected.reason) == ("forward", True, "NNAPI is available")
    _check_matches_eager(selected, model)
    assert driver.executions_computed == before + 3  # the runs went through the NNAPI driver


def test_with_nnapi_hidden_forward_cpu_is_chosen_and_runs(pte_with_cpu_method, model, nnapi_hidden, tmp_path):
    assert not nnapi_available()
    assert "cannot load the NNAPI library '/nonexistent/libneuralnetworks.so'" in runtime.last_error()
    path = tmp_path / "m.pte"
    path.write_bytes(pte_with_cpu_method)
    driver = host_driver.get_driver()
    before = driver.executions_computed
    for source in (pte_with_cpu_method, path, str(path)):  # bytes, PathLike and str
        selected = load_method(source)
        assert (selected.name, selected.uses_nnapi) == ("forward_cpu", False)
        assert "NNAPI is not available: cannot load the NNAPI library" in selected.reason
        _check_matches_eager(selected, model)
    assert driver.executions_computed == before  # nothing reached NNAPI


def test_with_nnapi_hidden_and_no_cpu_method_the_error_says_what_to_do(model, nnapi_hidden):
    pte = _lower(model, None).buffer
    with pytest.raises(RuntimeError, match=r"NNAPI is not available: .*, and the program has no 'forward_cpu' "
                                           r"method to run instead: export it with .*--cpu-method xnnpack"):
        load_method(pte)


def test_unknown_method_name_is_a_clear_error(pte_with_cpu_method):
    with pytest.raises(ValueError, match=r"the program has no method 'main' \(it has: forward, forward_cpu\)"):
        load_method(pte_with_cpu_method, method="main")


def test_when_the_device_cannot_run_forward_forward_cpu_is_chosen(pte_with_cpu_method, model, caplog):
    """NNAPI is there but too old for the model (small_cnn's partition needs API 28)."""
    driver = host_driver.get_driver()
    level = driver.feature_level
    driver.feature_level = 27
    set_nnapi_library(host_driver.default_shim_path())  # the backend re-reads the device's level
    try:
        assert nnapi_available()
        with caplog.at_level("WARNING", logger="executorch_nnapi.runtime.method_selection"):
            selected = load_method(pte_with_cpu_method)
        assert (selected.name, selected.uses_nnapi) == ("forward_cpu", False)
        assert selected.reason.startswith("'forward' did not load: ")
        assert "28" in selected.reason, selected.reason
        assert "running 'forward_cpu' on the CPU" in caplog.text
        _check_matches_eager(selected, model)
    finally:
        driver.feature_level = level
        set_nnapi_library(host_driver.default_shim_path())
