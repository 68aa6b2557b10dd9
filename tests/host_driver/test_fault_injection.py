"""EXECUTORCH_NNAPI_HOST_FAULT (host_driver/fault_injection.py): which operation it names and how
its output is perturbed; tests/tools/test_debugger.py checks that `debug` then names it."""

from __future__ import annotations

import pytest
import torch

from executorch_nnapi.host_driver.fault_injection import fault_spec, faulted_operation, perturb


def test_spec_names_the_kth_operation_of_that_type():
    names = ["CONV_2D", "RELU", "CONV_2D", "ADD", "CONV_2D"]
    assert faulted_operation(names, fault_spec("CONV_2D:0")) == 0
    assert faulted_operation(names, fault_spec("conv_2d:2")) == 4
    assert faulted_operation(names, fault_spec("ADD:1")) is None  # only one ADD in this model
    assert faulted_operation(names, fault_spec("")) is None


@pytest.mark.parametrize("text", ["CONV_2D", "CONV_2D:x", ":1", "CONV_2D:-1"])
def test_malformed_spec_names_the_variable(text):
    with pytest.raises(ValueError, match="EXECUTORCH_NNAPI_HOST_FAULT=.*expected OPERATION:K"):
        fault_spec(text)


def test_perturbation_is_clear_for_every_type():
    x = torch.tensor([-1.0, 0.5, 2.0])
    assert (perturb(x) - x).min() >= 1.0
    codes = torch.tensor([0, 100, 250], dtype=torch.uint8)
    assert perturb(codes).tolist() == [16, 116, 234]  # 250 + 16 saturates: moved down instead
    signed = torch.tensor([-128, 120], dtype=torch.int8)
    assert perturb(signed).tolist() == [-112, 104]
    assert perturb(torch.tensor([True, False])).tolist() == [False, True]
    assert perturb(torch.tensor([3], dtype=torch.int32)).tolist() == [4]
