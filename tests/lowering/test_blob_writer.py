"""The blob writer on top of flatc's object API: what the runtime relies on is kept."""

from __future__ import annotations

import struct
import zlib

import pytest
import torch
from torch.export import Dim, export

from executorch.exir import to_edge_transform_and_lower

from executorch_nnapi.blob.Blob import Blob
from executorch_nnapi.lowering.serialization import SCHEMA_VERSION, scalar_type_code
from executorch_nnapi.lowering.serialization.blob_writer import crc32_field_position
from executorch_nnapi.partitioners import NnapiPartitioner

# c10::ScalarType codes, written out here as the independent expectation.
C10_CODES = {torch.uint8: 0, torch.int8: 1, torch.int16: 2, torch.int32: 3, torch.int64: 4, torch.float16: 5,
             torch.float32: 6, torch.float64: 7, torch.bool: 11}


class _ConvBlock(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 4, 3, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(self.conv(x)) + 1.0


def _blobs(dynamic: bool) -> list[bytes]:
    x = torch.randn(1, 3, 16, 16)
    shapes = {"x": {2: Dim("h", min=8, max=64)}} if dynamic else None
    edge = to_edge_transform_and_lower(export(_ConvBlock().eval(), (x,), dynamic_shapes=shapes),
                                       partitioner=[NnapiPartitioner()])
    gm = edge.exported_program().graph_module
    return [getattr(gm, n.args[0].target).processed_bytes for n in gm.graph.nodes
            if n.op == "call_function" and n.target is torch.ops.higher_order.executorch_call_delegate]


@pytest.mark.parametrize("dynamic", [False, True])
def test_blob_keeps_identifier_version_crc_and_aligned_constants(dynamic):
    (buffer,) = _blobs(dynamic)
    assert Blob.BlobBufferHasIdentifier(buffer, 0)
    blob = Blob.GetRootAs(buffer, 0)
    assert blob.SchemaVersion() == SCHEMA_VERSION
    pos = crc32_field_position(buffer)
    zeroed = buffer[:pos] + b"\0\0\0\0" + buffer[pos + 4:]
    assert struct.unpack_from("<I", buffer, pos)[0] == zlib.crc32(zeroed)
    inline = [blob.Operands(i) for i in range(blob.OperandsLength()) if not blob.Operands(i).DataIsNone()]
    assert inline
    data_slot = 4 + 2 * 7  # Operand.data is the 8th field
    assert all(o._tab.Vector(o._tab.Offset(data_slot)) % 16 == 0 for o in inline)
    assert (blob.ShapeProgram().SymbolsLength() > 0) == dynamic


def test_scalar_type_code_follows_c10():
    assert {dtype: scalar_type_code(dtype) for dtype in C10_CODES} == C10_CODES


def test_scalar_type_code_refuses_other_dtypes():
    with pytest.raises(ValueError, match="bfloat16"):
        scalar_type_code(torch.bfloat16)


class _Pool3d(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.nn.functional.max_pool3d(x, 2)


def test_5d_arguments_are_written_as_merged_views_of_blob_version_2():
    # [N, C, D, H, W] binds as [N*C*D, H, W, 1]; a dynamic D, H, W travel as shape expressions.
    x = torch.randn(1, 2, 6, 8, 8)
    shapes = {"x": {2: Dim("d", min=4, max=12), 3: Dim("h", min=4, max=16), 4: Dim("w", min=4, max=16)}}
    edge = to_edge_transform_and_lower(export(_Pool3d(), (x,), dynamic_shapes=shapes),
                                       partitioner=[NnapiPartitioner()])
    gm = edge.exported_program().graph_module
    (buffer,) = [getattr(gm, n.args[0].target).processed_bytes for n in gm.graph.nodes
                 if n.op == "call_function" and n.target is torch.ops.higher_order.executorch_call_delegate]
    blob = Blob.GetRootAs(buffer, 0)
    assert blob.SchemaVersion() == 2 > SCHEMA_VERSION
    arg = blob.Inputs(0)
    assert list(arg.MergedDimsAsNumpy()) == [3, 1, 1, 0] and arg.DimOrderLength() == 0
    assert list(arg.TensorDims(d) for d in range(2)) == [1, 2]  # static N, C; D, H, W given by expressions
    exprs = [arg.TensorDimExprs(d) for d in range(5)]
    assert exprs[:2] == [-1, -1] and all(0 <= e < blob.ShapeProgram().ExpressionsLength() for e in exprs[2:])
    out = blob.Outputs(0)
    assert out.MergedDimsLength() == 4 and sum(out.MergedDimsAsNumpy()) == out.TensorDimsLength() == 5
    assert blob.Operands(arg.Operand()).DimsLength() == 4


def test_rank_0_tensors_and_empty_constants_are_refused_while_lowering():
    """The runtime cannot load them (a partition argument needs known dims; NNAPI cannot set
    an empty constant): emitting one is a lowering error naming the operation and operand."""
    from executorch_nnapi.lowering.graph import LoweringError, NnapiGraph
    from executorch_nnapi.lowering.nnapi_codes import FeatureLevel, OperationCode
    from executorch_nnapi.lowering.shape_program import ShapeProgramBuilder

    g = NnapiGraph(FeatureLevel.ANDROID_11, ShapeProgramBuilder())
    x, one = g.emit_tensor([2, 3], debug_name="x"), g.emit_tensor([1], debug_name="one")
    with pytest.raises(LoweringError, match=r"MEAN \(m\): operand \d+ \(scalar\) is a rank-0 tensor"):
        g.emit_operation(OperationCode.MEAN, [x, g.emit_int32_vector([0, 1]), g.emit_int32(0)],
                         [g.emit_tensor([], debug_name="scalar")], debug_name="m")
    with pytest.raises(LoweringError, match=r"TRANSPOSE \(t\): operand \d+ \(unnamed\) is an empty constant \[0\]"):
        g.emit_operation(OperationCode.TRANSPOSE, [one, g.emit_int32_vector([])], [g.emit_tensor([1])], debug_name="t")
    g.emit_operation(OperationCode.MEAN, [x, g.emit_int32_vector([0, 1]), g.emit_int32(0)], [one], debug_name="m")
