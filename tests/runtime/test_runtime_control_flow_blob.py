"""Blobs with referenced models (IF / WHILE bodies, Blob.subgraphs): the C++ backend builds them
before the model that refers to them, and refuses, never follows, a reference out of range or a
cycle of references. The blobs are made here with flatc's object API, not the lowering's writer."""

from __future__ import annotations

import struct

import flatbuffers
import numpy as np
import pytest
import torch

from executorch_nnapi.blob.Argument import ArgumentT
from executorch_nnapi.blob.Blob import BlobT
from executorch_nnapi.blob.Operand import OperandT
from executorch_nnapi.blob.Operation import OperationT
from executorch_nnapi.host_driver import get_driver
from executorch_nnapi.runtime import backend_library

from test_runtime_blob import (  # noqa: F401  (nnapi_shim is a fixture)
    CONST, FLOAT_SCALAR_TYPE, INT32, OP_ADD, REFUSAL, SRC_INLINE, SRC_NONE, TENSOR_FLOAT32, assert_refused,
    load_forward, make_pte_with_blob, nnapi_shim, restamp_crc,
)

TENSOR_BOOL8, MODEL = 9, 15
OP_IF = 96
SRC_SUBGRAPH = 5
CONTROL_FLOW_SCHEMA_VERSION = 3


def _inline(type_: int, dims, data: bytes) -> OperandT:
    return OperandT(type=type_, dims=list(dims), source=SRC_INLINE, data=np.frombuffer(data, dtype=np.uint8))


def _reference(subgraph: int) -> OperandT:
    return OperandT(type=MODEL, source=SRC_SUBGRAPH, subgraph=subgraph)


def _add_const_model(c: torch.Tensor) -> BlobT:
    """A referenced model: x [3, 4] -> x + c."""
    return BlobT(
        operands=[OperandT(type=TENSOR_FLOAT32, dims=[3, 4]), _inline(TENSOR_FLOAT32, [1, 4], c.numpy().tobytes()),
                  _inline(INT32, [], struct.pack("<i", 0)), OperandT(type=TENSOR_FLOAT32, dims=[3, 4])],
        operations=[OperationT(type=OP_ADD, inputs=[0, 1, 2], outputs=[3])],
        modelInputs=[0], modelOutputs=[3])


def _if_blob(taken: bool, then_index: int = 0, else_index: int = 1) -> BlobT:
    """out = IF(taken, x + CONST, x - CONST) with the branches as referenced models 0 and 1."""
    return BlobT(
        schemaVersion=CONTROL_FLOW_SCHEMA_VERSION, minFeatureLevel=30,
        operands=[OperandT(type=TENSOR_FLOAT32, dims=[3, 4], debugName="x"),
                  _inline(TENSOR_BOOL8, [1], bytes([int(taken)])),
                  _reference(then_index), _reference(else_index),
                  OperandT(type=TENSOR_FLOAT32, dims=[3, 4], debugName="out")],
        operations=[OperationT(type=OP_IF, inputs=[1, 2, 3, 0], outputs=[4], debugName="cond")],
        modelInputs=[0], modelOutputs=[4],
        inputs=[ArgumentT(operand=0, scalarType=FLOAT_SCALAR_TYPE)],
        outputs=[ArgumentT(operand=4, scalarType=FLOAT_SCALAR_TYPE)],
        subgraphs=[_add_const_model(CONST), _add_const_model(-CONST)],
        crc32=0xFFFFFFFF)


def _serialize(blob: BlobT) -> bytes:
    b = flatbuffers.Builder(1024)
    b.Finish(blob.Pack(b), file_identifier=b"NNAB")
    return restamp_crc(bytes(b.Output()))


@pytest.fixture
def level_30_driver(nnapi_shim):
    get_driver().feature_level = 30
    return nnapi_shim


@pytest.mark.parametrize("taken", [True, False])
def test_referenced_models_are_built_and_run(level_30_driver, taken):
    method = load_forward(make_pte_with_blob(_serialize(_if_blob(taken)), dynamic=False))
    x = torch.randn(3, 4)
    (out,) = method.execute([x])
    torch.testing.assert_close(out, x + CONST if taken else x - CONST)


def _self_reference(blob: BlobT) -> None:
    """Referenced model 0 gets an IF whose branches are referenced model 0 itself."""
    sub = blob.subgraphs[0]
    sub.operands += [_inline(TENSOR_BOOL8, [1], b"\x01"), _reference(0), _reference(1),
                     OperandT(type=TENSOR_FLOAT32, dims=[3, 4])]
    sub.operations.append(OperationT(type=OP_IF, inputs=[4, 5, 6, 3], outputs=[7]))
    sub.modelOutputs = [7]


def _two_cycle(blob: BlobT) -> None:
    """Referenced model 0 refers to 1 and 1 to 0."""
    for k, other in ((0, 1), (1, 0)):
        sub = blob.subgraphs[k]
        sub.operands += [_inline(TENSOR_BOOL8, [1], b"\x01"), _reference(other), _reference(other),
                         OperandT(type=TENSOR_FLOAT32, dims=[3, 4])]
        sub.operations.append(OperationT(type=OP_IF, inputs=[4, 5, 6, 3], outputs=[7]))
        sub.modelOutputs = [7]


def _out_of_range(blob: BlobT) -> None:
    blob.operands[3].subgraph = 7


def _model_without_reference(blob: BlobT) -> None:
    blob.operands[3].source = SRC_NONE


def _reference_on_a_tensor(blob: BlobT) -> None:
    blob.operands[3].type = TENSOR_FLOAT32


BROKEN = {
    "subgraph_index_out_of_range": (_out_of_range, "operand 3 refers to referenced model 7, but it is of type 15 "
                                                   "and there are 2"),
    "model_refers_to_itself": (_self_reference, "referenced model 0 is on a cycle of references"),
    "two_models_refer_to_each_other": (_two_cycle, "is on a cycle of references"),
    "model_operand_without_reference": (_model_without_reference, "operand 3 is of type MODEL but refers to no "
                                                                  "referenced model"),
    "reference_on_a_tensor_operand": (_reference_on_a_tensor, "operand 3 refers to referenced model 1, but it is "
                                                              "of type 3"),
}


@pytest.mark.parametrize("case", sorted(BROKEN))
def test_broken_references_are_refused(level_30_driver, capfd, case):
    mutate, needle = BROKEN[case]
    blob = _if_blob(True)
    mutate(blob)
    assert_refused(make_pte_with_blob(_serialize(blob), dynamic=False), capfd, REFUSAL, needle)


def test_every_byte_flip_of_a_control_flow_blob_is_refused(level_30_driver):
    """No flipped byte crashes the loader or is followed: each is refused (a crash would end the process)."""
    blob = _serialize(_if_blob(True))
    # Building a .pte per damaged blob is slow: patch the stored blob inside one .pte.
    pte = make_pte_with_blob(blob, dynamic=False)
    start = pte.find(blob)
    for pos in range(len(blob)):
        flipped = bytearray(pte)
        flipped[start + pos] ^= 0x01
        backend_library.clear_last_error()
        with pytest.raises(RuntimeError):
            load_forward(bytes(flipped))
        assert backend_library.last_error().startswith(REFUSAL), pos
