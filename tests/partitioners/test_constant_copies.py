"""Constant computations shared by several readers are copied once per reader that is not itself
a constant computation, with their inner sharing kept (issue 42 item 4: BEiT's relative position
index, built by a chain of slice assignments whose every step is read twice, grew from ~20 nodes
to the pass's bound of 20,000 when copied per reader at every shared node, and lowering a
one-layer BEiT took 380 s against XNNPACK's 10 s)."""

from __future__ import annotations

import torch
from torch.export import export

from executorch_nnapi.lowering.constant_folding import foldable_nodes
from executorch_nnapi.lowering.passes.constant_copies import copy_shared_constant_computations
from op_harness import check_delegated_and_matches

WINDOW = 4
LAYERS = 3


def _relative_position_index(window: int) -> torch.Tensor:
    """BEiT's index table: pairwise coordinate differences, then a row and a column for the class
    token, each written into a zero table in place (the select_scatter chain of the export)."""
    coords = torch.stack(torch.meshgrid(torch.arange(window), torch.arange(window), indexing="ij")).flatten(1)
    relative = (coords[:, :, None] - coords[:, None, :]).permute(1, 2, 0).contiguous()
    relative[:, :, 0] += window - 1
    relative[:, :, 1] += window - 1
    relative[:, :, 0] *= 2 * window - 1
    size = window * window + 1
    distances = (2 * window - 1) ** 2 + 3
    index = torch.zeros((size, size), dtype=torch.long)
    index[1:, 1:] = relative.sum(-1)
    index[0, 0:] = distances - 3
    index[0:, 0] = distances - 2
    index[0, 0] = distances - 1
    return index


class RelativePositionBias(torch.nn.Module):
    """Attention-like layers that each add a bias gathered from their own table by the one index."""

    def __init__(self) -> None:
        super().__init__()
        size = WINDOW * WINDOW + 1
        self.tables = torch.nn.ParameterList(
            torch.nn.Parameter(torch.randn((2 * WINDOW - 1) ** 2 + 3)) for _ in range(LAYERS))
        self.projections = torch.nn.ModuleList(torch.nn.Linear(size, size) for _ in range(LAYERS))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        index = _relative_position_index(WINDOW)
        for table, projection in zip(self.tables, self.projections):
            bias = table[index.view(-1)].view(index.shape)
            x = torch.softmax(projection(x) + bias, dim=-1)
        return x


def test_a_shared_constant_chain_is_copied_per_reader_not_per_path():
    torch.manual_seed(0)
    x = torch.randn(2, WINDOW * WINDOW + 1, WINDOW * WINDOW + 1)
    program = export(RelativePositionBias().eval(), (x,)).run_decompositions({})
    signature = program.graph_signature
    constants = {*signature.inputs_to_parameters, *signature.inputs_to_buffers, *signature.inputs_to_lifted_tensor_constants}
    foldable = foldable_nodes(program.graph, lambda n: n.op == "placeholder" and n.name in constants)
    readers = {u for n in foldable for u in n.users if u not in foldable}
    added = copy_shared_constant_computations(program)
    assert len(readers) == LAYERS
    # At most one copy of the whole constant computation per reader beyond the first (copied per
    # reader at every shared node, the chain of slice assignments became 20,000 nodes).
    assert 0 < added <= (len(readers) - 1) * len(foldable), (added, len(readers), len(foldable))
    after = foldable_nodes(program.graph, lambda n: n.op == "placeholder" and n.name in constants)
    for node in after:  # no constant node is read by two non-constant readers any more
        assert sum(1 for u in node.users if u not in after) <= 1, node
    assert copy_shared_constant_computations(program) == 0  # nothing left to copy


def test_the_relative_position_model_is_one_subgraph_equal_to_eager():
    torch.manual_seed(0)
    x = torch.randn(2, WINDOW * WINDOW + 1, WINDOW * WINDOW + 1)
    check_delegated_and_matches(RelativePositionBias(), (x,), expect_operations=["FULLY_CONNECTED", "SOFTMAX"])
