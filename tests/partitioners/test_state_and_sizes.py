"""What a partition takes besides tensor ops: the size nodes it computes itself
(partitioners/size_partition.py) and the mutated buffers it keeps as state
(partitioners/mutable_buffers.py), and what it leaves to ExecuTorch when something outside the
partition needs them. Each program runs through the C++ backend on the host driver against eager."""

from __future__ import annotations

import torch
from torch.export import Dim, export

from executorch.exir import to_edge_transform_and_lower
from executorch.runtime import Runtime

import executorch_nnapi.runtime  # noqa: F401  (registers the backend, installs the host driver)
from executorch_nnapi.host_driver import get_driver
from executorch_nnapi.partitioners import NnapiPartitioner

_ROWS = 8


class CacheWrittenAtPosition(torch.nn.Module):
    """A KV cache written at a position read with .item(), as llama's KVCache.update does."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("cache", torch.zeros(1, 2, _ROWS, 4))

    def forward(self, values: torch.Tensor, position: torch.Tensor) -> torch.Tensor:
        p = position[0].item()
        torch._check_is_size(p)
        torch._check(p + values.size(2) <= _ROWS)
        self.cache.index_copy_(2, torch.arange(values.size(2)) + p, values)
        return self.cache * 2.0


class CacheAlsoReadByTheCpu(torch.nn.Module):
    """A buffer the program mutates (NNAPI adds to it) that an op NNAPI refuses also reads."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("total", torch.zeros(2, 4))

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        self.total.add_(x)
        return self.total * 2.0, torch.erf(self.total)


def _lower(module: torch.nn.Module, example: tuple, dynamic_shapes=None, feature_level: int = 30):
    partitioner = NnapiPartitioner(feature_level=feature_level)
    with torch.no_grad():
        program = export(module, example, dynamic_shapes=dynamic_shapes)
        edge = to_edge_transform_and_lower(program, partitioner=[partitioner])
    get_driver().feature_level = feature_level
    program = Runtime.get().load_program(edge.to_executorch().buffer)
    method = program.load_method("forward")
    method._keep_program_alive = program
    return partitioner, method


def test_below_api_29_the_cache_write_and_its_position_stay_on_the_cpu():
    """Below API 29 NNAPI has no GATHER for the cache write: the write stays on the CPU, so the
    position it reads (.item() and its select) is read there and handed to the delegate, and the
    cache, updated on the CPU, stays ExecuTorch's buffer."""
    module, eager = CacheWrittenAtPosition(), CacheWrittenAtPosition()
    partitioner, method = _lower(module, (torch.randn(1, 2, 3, 4), torch.tensor([0])),
                                 ({2: Dim("n", min=1, max=_ROWS)}, None), feature_level=28)
    reasons = {d.op: d.reason for d in partitioner.decisions if not d.supported}
    assert "also read outside its NNAPI partition" in reasons["aten._local_scalar_dense.default"], reasons
    assert "needs the size s" in reasons["aten._assert_scalar.default"], reasons  # the length only the CPU reads
    assert partitioner.states == []
    for n, p in ((3, 0), (1, 3), (2, 4)):
        values = torch.randn(1, 2, n, 4, generator=torch.Generator().manual_seed(p))
        with torch.no_grad():
            want = eager(values, torch.tensor([p]))
        torch.testing.assert_close(method.execute([values, torch.tensor([p])])[0], want)


def test_a_buffer_also_read_by_the_cpu_stays_executorchs():
    module, eager = CacheAlsoReadByTheCpu(), CacheAlsoReadByTheCpu()
    partitioner, method = _lower(module, (torch.randn(2, 4),))
    assert partitioner.states == []
    for k in range(3):
        x = torch.randn(2, 4, generator=torch.Generator().manual_seed(k))
        got = method.execute([x])
        with torch.no_grad():
            want = eager(x)
        for g, w in zip(got, want):
            torch.testing.assert_close(g, w)
