"""tests/torch_overheads.py changes how long torch.export takes in the test processes, not what it
computes: the reused census of composite ops is torch's own answer, also after an operator is
registered, and a decomposition gives the same graph with either ``Callable`` in torch._ops."""

from __future__ import annotations

import collections.abc

import torch
from torch._export import utils as export_utils
from torch.export import exported_program

import torch_overheads


def test_the_reused_census_is_torchs_and_follows_a_new_operator():
    reused = exported_program._collect_all_valid_cia_ops
    assert getattr(reused, "reused", False), "tests/conftest.py did not install torch_overheads"
    assert reused() == reused.original()
    library = torch.library.Library("nnapi_overheads_test", "DEF")  # noqa: F841 (kept alive: the op lives with it)
    library.define("twice(Tensor x) -> Tensor")
    library.impl("twice", lambda x: x + x, "CompositeImplicitAutograd")
    after = reused()
    assert torch.ops.nnapi_overheads_test.twice.default in after
    assert after == reused.original() and export_utils._collect_all_valid_cia_ops is reused


class _Block(torch.nn.Module):
    def forward(self, x):
        return torch.nn.functional.gelu(torch.nn.functional.layer_norm(x, (8,))) @ x.transpose(0, 1)


def test_a_decomposition_is_the_same_with_either_callable():
    def decomposed() -> str:
        ep = torch.export.export(_Block(), (torch.randn(4, 8),))
        return ep.run_decompositions().graph_module.code

    assert torch._ops.Callable is not collections.abc.Callable
    with_typing = decomposed()
    torch._ops.Callable = collections.abc.Callable
    try:
        with_abc = decomposed()
    finally:
        torch_overheads.install()
    assert with_typing == with_abc
    assert isinstance(len, torch._ops.Callable) and not isinstance(1, torch._ops.Callable)
