"""Runtime errors name shapes in the program's own dim order, never NNAPI's NHWC."""

from __future__ import annotations

import pytest
import torch
from torch.export import Dim
from executorch.runtime import Runtime

from executorch_nnapi.runtime import last_error
from op_harness import lower


def test_static_shape_mismatch_names_the_needed_shape_in_nchw():
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3, padding=1), torch.nn.ReLU())
    # H dynamic, W static: ExecuTorch lets a W of 33 through (the tensor's memory fits), the
    # delegate refuses it. NNAPI's operand is NHWC [1, 16, 32, 3]; the message says NCHW.
    lowered = lower(model, (torch.randn(1, 3, 32, 32),), dynamic_shapes={"input": {2: Dim("h", min=8, max=64)}})
    program = Runtime.get().load_program(lowered.pte)
    method = program.load_method("forward")
    with pytest.raises(Exception):
        method.execute([torch.randn(1, 3, 16, 33)])
    message = last_error()
    assert "input 0 has shape [1, 3, 16, 33], but for these input sizes the model needs [1, 3, 16, 32]" in message
