"""Constants given to NNAPI from memory that maps the program's file (runtime/src/constant_memory.cpp):
a program loaded from its file gives every constant longer than NNAPI's 128-byte immediate limit
with setOperandValueFromMemory (the driver maps the file: no copy of the weights), one loaded from
bytes in memory gives them by pointer (NNAPI copies those when the model is finished). Both
compute the same."""

from __future__ import annotations

import torch

from executorch.exir import to_edge_transform_and_lower
from executorch.runtime import Runtime

from executorch_nnapi.host_driver import get_driver
from executorch_nnapi.partitioners import NnapiPartitioner
from executorch_nnapi.runtime.backend_library import constant_stats


class TwoLinears(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(0)
        self.first, self.second = torch.nn.Linear(32, 64), torch.nn.Linear(64, 8)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.second(torch.relu(self.first(x)))


def _pte() -> bytes:
    program = torch.export.export(TwoLinears().eval(), (torch.randn(2, 32),))
    return to_edge_transform_and_lower(program, partitioner=[NnapiPartitioner(feature_level=30)]).to_executorch().buffer


def _run(source) -> tuple[torch.Tensor, tuple[int, int]]:
    """The output for a fixed input and the (from memory, by pointer) constant bytes of its models."""
    get_driver().feature_level = 30
    before = constant_stats()
    program = Runtime.get().load_program(source)
    out = program.load_method("forward").execute([torch.ones(2, 32)])[0]
    after = constant_stats()
    return out, (after[0] - before[0], after[1] - before[1])


def test_constants_come_from_the_file_a_program_is_loaded_from(tmp_path):
    pte = _pte()
    path = tmp_path / "two_linears.pte"
    path.write_bytes(pte)
    # Weights 32x64 + 64x8 floats and the first bias (256 bytes); the second bias (32 bytes) is
    # copied at once by NNAPI wherever it is.
    weights = (32 * 64 + 64 * 8 + 64) * 4
    from_file, (memory, pointer) = _run(str(path))
    assert (memory, pointer) == (weights, 0)
    from_bytes, (memory, pointer) = _run(pte)
    assert (memory, pointer) == (0, weights)
    want = TwoLinears()(torch.ones(2, 32))
    torch.testing.assert_close(from_file, want)
    assert torch.equal(from_file, from_bytes)
