"""Lowering holds each weight once more at most (issue 34: a language model's weights are most of
its memory): preprocess reads the partition's parameters where they are instead of ExecuTorch's
default deep copy, and a folded view of a weight (a linear's permute) is a view, not a copy."""

from __future__ import annotations

import torch
from torch.export import export

from executorch.exir import to_edge

from executorch_nnapi.lowering import constant_folding
from executorch_nnapi.lowering.nnapi_backend import NnapiBackend
from executorch_nnapi.lowering.node_utils import aten_op


def _edge_linear() -> torch.export.ExportedProgram:
    torch.manual_seed(0)
    return to_edge(export(torch.nn.Linear(8, 4).eval(), (torch.randn(2, 8),))).exported_program()


def test_program_for_preprocess_shares_the_weights():
    program = _edge_linear()
    copied = NnapiBackend.copy_exported_program_for_preprocess(program, [])
    assert copied.graph_module is not program.graph_module  # preprocess may still change its graph
    assert copied.state_dict.keys() == program.state_dict.keys()
    assert all(copied.state_dict[name] is tensor for name, tensor in program.state_dict.items())


def test_folded_permute_of_a_weight_is_a_view_of_it():
    program = _edge_linear()
    weight = program.state_dict["weight"]
    placeholder = next(n for n in program.graph.nodes
                       if program.graph_signature.inputs_to_parameters.get(n.name) == "weight")
    permute = next(n for n in placeholder.users if aten_op(n) == torch.ops.aten.permute_copy.default)
    folded = constant_folding.evaluate(permute, lambda node: weight)
    assert torch.equal(folded, weight.t())
    assert folded.untyped_storage().data_ptr() == weight.untyped_storage().data_ptr()
