"""Blobs with delegate state (Blob.states): the C++ backend keeps each state in NNAPI memory across
executions, binds it as a model input and its new value as a model output (two slots that swap
after each execution), starts from its initial value (named data, or zeros), and refuses a state
that does not describe a model input and output of one static type. The blobs are made here with
flatc's object API, not the lowering's writer."""

from __future__ import annotations

import struct

import pytest
import torch

from executorch_nnapi.blob.Argument import ArgumentT
from executorch_nnapi.blob.Blob import BlobT
from executorch_nnapi.blob.Operand import OperandT
from executorch_nnapi.blob.Operation import OperationT
from executorch_nnapi.blob.ShapeExpression import ShapeExpressionT
from executorch_nnapi.blob.ShapeInstruction import ShapeInstructionT
from executorch_nnapi.blob.ShapeProgram import ShapeProgramT
from executorch_nnapi.blob.State import StateT
from executorch_nnapi.blob.Symbol import SymbolT
from executorch_nnapi.host_driver import get_driver
from executorch_nnapi.runtime import backend_library

from test_runtime_blob import (  # noqa: F401  (nnapi_shim is a fixture)
    FLOAT_SCALAR_TYPE, INT32, OP_ADD, REFUSAL, TENSOR_FLOAT32, assert_refused, load_forward, make_pte_with_blob,
    nnapi_shim,
)
from test_runtime_control_flow_blob import _inline, _serialize

STATE_SCHEMA_VERSION = 5
PUSH_INPUT_VALUE = 12
INITIAL = torch.arange(12, dtype=torch.float32).reshape(3, 4)


def _accumulator(initial_key: str | None = None) -> BlobT:
    """x [3, 4] -> out = s + x, with state s [3, 4] updated to s + x (a running sum)."""
    return BlobT(
        schemaVersion=STATE_SCHEMA_VERSION, minFeatureLevel=27,
        operands=[OperandT(type=TENSOR_FLOAT32, dims=[3, 4], debugName="x"),
                  OperandT(type=TENSOR_FLOAT32, dims=[3, 4], debugName="s"),
                  _inline(INT32, [], struct.pack("<i", 0)),
                  OperandT(type=TENSOR_FLOAT32, dims=[3, 4], debugName="s_new"),
                  _inline(TENSOR_FLOAT32, [1, 4], bytes(16)),
                  OperandT(type=TENSOR_FLOAT32, dims=[3, 4], debugName="out")],
        operations=[OperationT(type=OP_ADD, inputs=[1, 0, 2], outputs=[3]),
                    OperationT(type=OP_ADD, inputs=[3, 4, 2], outputs=[5])],
        modelInputs=[0, 1], modelOutputs=[5, 3],
        inputs=[ArgumentT(operand=0, scalarType=FLOAT_SCALAR_TYPE)],
        outputs=[ArgumentT(operand=5, scalarType=FLOAT_SCALAR_TYPE)],
        states=[StateT(input=1, output=3, namedDataKey=initial_key, name="running_sum")],
        crc32=0xFFFFFFFF)


def _pte(blob: BlobT, named_data=()) -> bytes:
    return make_pte_with_blob(_serialize(blob), dynamic=False, named_data=named_data)


@pytest.fixture
def driver(nnapi_shim):
    get_driver().feature_level = 30
    return nnapi_shim


@pytest.mark.parametrize("initial", ["zeros", "named_data"])
def test_state_is_kept_across_executions(driver, initial):
    key = "initial_sum" if initial == "named_data" else None
    named = [(key, INITIAL.numpy().tobytes())] if key else []
    method = load_forward(_pte(_accumulator(key), named))
    total = INITIAL.clone() if key else torch.zeros(3, 4)
    before = backend_library.transfer_stats()
    for step in range(4):  # an even and an odd number of swaps of the two slots
        x = torch.randn(3, 4)
        total += x
        (out,) = method.execute([x])
        torch.testing.assert_close(out, total, msg=f"step {step}")
    moved = backend_library.transfer_stats() - before
    # The state is bound as memory (read and written) at every execution, only x and out by pointer.
    assert moved == backend_library.TransferStats(4, 4 * 2 * 48, 0, 0, 4 * 2 * 48)


def test_each_loaded_method_has_its_own_state(driver):
    pte = _pte(_accumulator())
    first, second = load_forward(pte), load_forward(pte)
    first.execute([torch.ones(3, 4)])
    (out,) = second.execute([torch.ones(3, 4)])
    torch.testing.assert_close(out, torch.ones(3, 4))


def _state_on_argument(blob: BlobT) -> None:
    blob.inputs[0].operand = 1


def _state_output_not_a_model_output(blob: BlobT) -> None:
    blob.states[0].output = 2


def _types_differ(blob: BlobT) -> None:
    blob.operands[3].dims = [3, 4, 1]


def _states_share_an_output(blob: BlobT) -> None:
    blob.states.append(StateT(input=0, output=3, name="other"))
    blob.inputs = []


BROKEN = {
    "state_input_bound_to_an_argument": (_state_on_argument, "model input 1 (operand 1) is bound to more than one "
                                                             "argument"),
    "state_output_not_a_model_output": (_state_output_not_a_model_output, "state running_sum: operand 1 must be a "
                                                                          "model input and operand 2 a model output"),
    "input_and_output_types_differ": (_types_differ, "state running_sum: operand 1 (s) and operand 3 (s_new) must "
                                                     "be tensors of one type and static dims"),
    "two_states_share_an_output": (_states_share_an_output, "states running_sum and other share a model input or "
                                                            "output"),
}


@pytest.mark.parametrize("case", sorted(BROKEN))
def test_broken_states_are_refused(driver, capfd, case):
    mutate, needle = BROKEN[case]
    blob = _accumulator()
    mutate(blob)
    assert_refused(_pte(blob), capfd, REFUSAL, needle)


def test_initial_value_of_wrong_size_is_refused(driver, capfd):
    pte = _pte(_accumulator("initial_sum"), [("initial_sum", bytes(8))])
    assert_refused(pte, capfd, REFUSAL, "state running_sum: initial value 'initial_sum' is missing or not 48 bytes")


def test_reading_elements_of_a_float_input_is_refused(driver, capfd):
    """PUSH_INPUT_VALUE reads integer tensors only (a position read with .item())."""
    blob = _accumulator()
    blob.shapeProgram = ShapeProgramT(
        expressions=[ShapeExpressionT(code=[ShapeInstructionT(op=PUSH_INPUT_VALUE, arg=0, value=0)], text="p")],
        symbols=[SymbolT(name="u0", definition=0, min=0, max=7)])
    assert_refused(_pte(blob), capfd, REFUSAL, "reads element 0 of input 0, which is not an element of an integer "
                                               "tensor input")
