"""The idioms of a decoder-only language model with a KV cache, as ExecuTorch's llama example
writes them (lowering/passes/language_model.py, lowering/builders/slice_scatter.py):

* rotary embedding on interleaved pairs (a rank-5 view, unbind and stack) -> rank-4 strided
  slices and a concatenation;
* the KV cache written at a run-time position (``index_copy_`` of a buffer at
  ``arange(L) + input_pos[0].item()``) -> CONCATENATION + GATHER with positions computed by the
  shape program, the buffer kept by the delegate as its state (or, when the partitioner is told
  not to take it over, handed to the delegate and written back by ExecuTorch);
* scaled-dot-product attention with a constant causal bool mask sliced at that position -> its
  additive float mask, folded, read by GATHER at the positions.

Whatever depends on the position (GATHER indices) is computed by the runtime at every execution
and given to NNAPI as an input (RUN_TIME_EXPRESSIONS), so the backend compiles one model per
token count, not one per position: the tests count the compilations.

The position itself (``select_copy``, ``.item()``, torch.export's range assertions) is read by the
delegate's shape program from the tensor the delegate receives: nothing stays on the CPU.

Each is lowered alone with a dynamic length, checked delegated in one subgraph, run through the
C++ backend on the host driver and compared with eager; the cache is run as a prefill then
single-token steps in one loaded method, so the state kept between calls is checked.
"""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F
from torch.export import Dim, export

from executorch.exir import to_edge_transform_and_lower
from executorch.runtime import Runtime

from op_harness import check_delegated_and_matches
from executorch_nnapi.host_driver import get_driver
from executorch_nnapi.lowering.passes.language_model import rewrite_language_model_idioms
from executorch_nnapi.partitioners import NnapiPartitioner
from executorch_nnapi.runtime.backend_library import compilation_stats, last_error, transfer_stats
from executorch_nnapi.tools.pte_delegates import nnapi_delegates

_GEN = torch.Generator().manual_seed(0)
_CONTEXT = 8  # cache length
_CACHE_BYTES = 1 * 2 * _CONTEXT * 4 * 4


def randn(*shape: int) -> torch.Tensor:
    return torch.randn(*shape, generator=_GEN)


def _position(input_pos: torch.Tensor, length: int) -> int:
    start = input_pos[0].item()
    torch._check_is_size(start)
    torch._check(start + length <= _CONTEXT)
    return start


class RotaryPairs(torch.nn.Module):
    """Rotary embedding on interleaved (real, imaginary) pairs, written as llama's rope.py does."""

    def forward(self, x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
        real, imag = x.reshape(*x.shape[:-1], -1, 2).unbind(-1)
        cos = cos.view(1, x.shape[1], 1, -1)
        sin = sin.view(1, x.shape[1], 1, -1)
        rotated = torch.stack([real * cos - imag * sin, real * sin + imag * cos], dim=-1)
        return rotated.flatten(3)


def test_rotary_pairs_run_at_rank_4():
    seq = Dim("seq", min=1, max=16)
    x, cos, sin = randn(1, 5, 4, 16), randn(5, 8), randn(5, 8)
    lowered = check_delegated_and_matches(
        RotaryPairs(), (x, cos, sin), dynamic_shapes=({1: seq}, {0: seq}, {0: seq}),
        run_inputs=[(x, cos, sin), (randn(1, 1, 4, 16), randn(1, 8), randn(1, 8))],
        expect_operations=["STRIDED_SLICE", "CONCATENATION"], tolerance=1e-5)
    assert lowered.num_delegates == 1


class RotateTransposed(torch.nn.Module):
    """SAM 3's rotary pairs: the parts computed on [B, N, heads, n] and transposed to
    [B, heads, N, n] before they are stacked as pairs (so they are not contiguous)."""

    def forward(self, x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
        real, imag = (x * cos).transpose(1, 2), (x * sin).transpose(1, 2)
        return torch.stack([real - imag, real + imag], dim=-1).flatten(3)


def test_pairs_stacked_from_transposed_parts_run_at_rank_4():
    """The stacked parts are viewed [-1, heads, n, 1] for the CONCATENATION: a transposed part gets
    a contiguous copy first (its view raised ValueError, stopping the lowering: hf:sam3_*)."""
    x, cos, sin = randn(9, 6, 4, 8), randn(1, 6, 1, 8), randn(1, 6, 1, 8)
    lowered = check_delegated_and_matches(RotateTransposed(), (x, cos, sin), tolerance=1e-5,
                                          expect_operations=["CONCATENATION"])
    assert lowered.num_delegates == 1 and lowered.cpu_ops == []


class CacheWrite(torch.nn.Module):
    """A KV cache written as llama's KVCache.update does with a dynamic length."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("cache", torch.zeros(1, 2, _CONTEXT, 4))

    def forward(self, values: torch.Tensor, input_pos: torch.Tensor) -> torch.Tensor:
        start = _position(input_pos, values.size(2))
        positions = torch.arange(values.size(2)) + start
        self.cache.index_copy_(2, positions, values)
        return self.cache * 2.0


def _lower_stateful(module: torch.nn.Module, example: tuple, dynamic_shapes, feature_level: int = 30):
    with torch.no_grad():
        ep = export(module, example, dynamic_shapes=dynamic_shapes)
        partitioner = NnapiPartitioner(feature_level=feature_level)
        edge = to_edge_transform_and_lower(ep, partitioner=[partitioner])
    return edge, partitioner


def _cpu_ops(edge) -> list[str]:
    """Every node left on the CPU, size computations and assertions included."""
    graph = edge.exported_program().graph
    return [str(n.target) for n in graph.nodes if n.op == "call_function"
            and n.target is not torch.ops.higher_order.executorch_call_delegate and "getitem" not in str(n.target)]


def _run_cache_writes(pte: bytes) -> None:
    """A prefill of 3 at 0, single steps at 3 and 4, then a run that reaches the cache's end, through
    one loaded method, each equal to eager; one compiled model per length (3 and 1)."""
    get_driver().feature_level = 30
    program = Runtime.get().load_program(pte)
    method = program.load_method("forward")
    eager = CacheWrite()
    compiled_before = compilation_stats()[0]
    for values, start in ((randn(1, 2, 3, 4), 0), (randn(1, 2, 1, 4), 3), (randn(1, 2, 1, 4), 4),
                          (randn(1, 2, 3, 4), 5)):
        with torch.no_grad():
            want = eager(values, torch.tensor([start]))
        got = method.execute([values, torch.tensor([start])])[0]
        assert torch.equal(got, want), f"at position {start}: max difference {(got - want).abs().max()}"
    assert compilation_stats()[0] - compiled_before == 2


def test_cache_written_at_run_time_position_is_delegate_state():
    module = CacheWrite()
    example = (randn(1, 2, 3, 4), torch.tensor([0]))
    edge, partitioner = _lower_stateful(module, example, ({2: Dim("length", min=1, max=_CONTEXT)}, None))
    # The position's select, .item() and range assertions and the cache's write-back: all delegated.
    assert not _cpu_ops(edge), f"left on the CPU: {_cpu_ops(edge)}"
    assert partitioner.states == ["cache"]
    assert not edge.exported_program().graph_signature.buffers_to_mutate
    pte = edge.to_executorch().buffer
    # The positions the write gathers from are computed by NNAPI from one number given at every
    # call (cache length - position), not given one per cache position.
    assert [d.blob.run_time_expressions for d in nnapi_delegates(pte)] == [1]
    before = transfer_stats()
    _run_cache_writes(pte)
    moved = transfer_stats() - before
    # The cache is bound as NNAPI memory (read and written) at each of the 4 calls, never by pointer:
    # what goes by pointer is the values and the result (the cache * 2), and the indices at the position.
    assert moved.executions == 4 and moved.memory_bytes == 4 * 2 * _CACHE_BYTES
    assert moved.pointer_bytes == (3 + 1 + 1 + 3) * 2 * 4 * 4 + 4 * _CACHE_BYTES


def test_cache_left_to_executorch_when_not_taken_over():
    module = CacheWrite()
    with torch.no_grad():
        ep = export(module, (randn(1, 2, 3, 4), torch.tensor([0])),
                    dynamic_shapes=({2: Dim("length", min=1, max=_CONTEXT)}, None))
        partitioner = NnapiPartitioner(feature_level=30, take_over_mutable_buffers=False)
        edge = to_edge_transform_and_lower(ep, partitioner=[partitioner])
    assert partitioner.states == []
    assert list(edge.exported_program().graph_signature.buffers_to_mutate.values()) == ["cache"]
    _run_cache_writes(edge.to_executorch().buffer)


def test_position_beyond_the_cache_fails_with_the_exported_condition():
    module = CacheWrite()
    edge, _ = _lower_stateful(module, (randn(1, 2, 3, 4), torch.tensor([0])),
                              ({2: Dim("length", min=1, max=_CONTEXT)}, None))
    get_driver().feature_level = 30
    program = Runtime.get().load_program(edge.to_executorch().buffer)
    method = program.load_method("forward")
    with pytest.raises(RuntimeError):
        method.execute([randn(1, 2, 3, 4), torch.tensor([6])])  # 6 + 3 > 8
    assert "condition" in last_error() and "<= 8" in last_error(), last_error()


def test_cache_write_at_run_time_position_needs_api_29():
    module = CacheWrite()
    edge, partitioner = _lower_stateful(module, (randn(1, 2, 3, 4), torch.tensor([0])),
                                        ({2: Dim("length", min=1, max=_CONTEXT)}, None), feature_level=28)
    reasons = [d.reason for d in partitioner.decisions if not d.supported and "slice_scatter" in d.op]
    assert reasons and all("needs API 29" in r for r in reasons), reasons


class CausalAttention(torch.nn.Module):
    """Attention over a whole cache with llama's causal bool mask sliced at the run-time position."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("mask", torch.tril(torch.ones(_CONTEXT, _CONTEXT, dtype=torch.bool)),
                             persistent=False)

    def forward(self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, input_pos: torch.Tensor) -> torch.Tensor:
        start = _position(input_pos, q.size(2))
        mask = self.mask.narrow(0, start, q.size(2))
        return F.scaled_dot_product_attention(q, k, v, attn_mask=mask)


class TableAtPosition(torch.nn.Module):
    """Rows of a constant table at the run-time position, as llama reads its rotary tables."""

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("table", randn(_CONTEXT, 4), persistent=False)

    def forward(self, x: torch.Tensor, input_pos: torch.Tensor) -> torch.Tensor:
        start = _position(input_pos, x.size(0))
        return x * self.table.narrow(0, start, x.size(0))


def _compilations_at_positions(module: torch.nn.Module, pte: bytes, feature_level: int, make_inputs) -> int:
    """Runs ``pte`` through one loaded method at five positions (lengths 3, 1, 1, 1, 2), each
    compared with ``module``, and returns how many NNAPI compilations the five calls took."""
    get_driver().feature_level = feature_level
    program = Runtime.get().load_program(pte)
    method = program.load_method("forward")
    compiled_before = compilation_stats()[0]
    for length, start in ((3, 0), (1, 3), (1, 4), (1, 5), (2, 6)):
        inputs = make_inputs(length, start)
        torch.testing.assert_close(method.execute(list(inputs))[0], module(*inputs), rtol=1e-5, atol=1e-5)
    return compilation_stats()[0] - compiled_before


def test_attention_with_causal_mask_sliced_at_run_time_position():
    q, k, v = randn(1, 2, 3, 4), randn(1, 2, _CONTEXT, 4), randn(1, 2, _CONTEXT, 4)
    module = CausalAttention()
    lowered = check_delegated_and_matches(
        module, (q, k, v, torch.tensor([0])), dynamic_shapes=({2: Dim("length", min=1, max=_CONTEXT)},
                                                              None, None, None),
        run_inputs=[(q, k, v, torch.tensor([0])), (randn(1, 2, 1, 4), k, v, torch.tensor([5])),
                    (randn(1, 2, 2, 4), k, v, torch.tensor([6]))],
        expect_operations=["GATHER"], tolerance=1e-5)
    assert lowered.num_delegates == 1
    # The mask rows at the position: a GATHER whose indices the runtime computes at every call,
    # so the model is compiled once per length (3, 1, 2), not once per position.
    assert _compilations_at_positions(module, lowered.pte, 30,
                                      lambda n, p: (randn(1, 2, n, 4), k, v, torch.tensor([p]))) == 3


def _table_at_position(feature_level: int, expect: str) -> int:
    module = TableAtPosition()
    lowered = check_delegated_and_matches(
        module, (randn(3, 4), torch.tensor([0])), dynamic_shapes=({0: Dim("length", min=1, max=_CONTEXT)}, None),
        run_inputs=[(randn(3, 4), torch.tensor([0])), (randn(1, 4), torch.tensor([6]))],
        expect_operations=[expect], feature_level=feature_level, tolerance=1e-6)
    return _compilations_at_positions(module, lowered.pte, feature_level,
                                      lambda n, p: (randn(n, 4), torch.tensor([p])))


def test_table_rows_at_run_time_position_compile_once_per_length():
    assert _table_at_position(29, "GATHER") == 3


def test_table_rows_below_api_29_compile_once_per_position():
    # No GATHER below API 29: STRIDED_SLICE with the position compiled in, a model per call.
    assert _table_at_position(28, "STRIDED_SLICE") == 5


def test_bool_mask_with_an_empty_row_is_not_made_additive():
    """A row masking every position gives 0 with torch's bool mask but NaN with -inf added: such a
    mask is left as it is (only masks keeping a position in every row, as a causal one does)."""
    module = CausalAttention()
    module.mask[2] = False
    with torch.no_grad():
        program = export(module, (randn(1, 2, 3, 4), randn(1, 2, _CONTEXT, 4), randn(1, 2, _CONTEXT, 4),
                                  torch.tensor([0])),
                         dynamic_shapes=({2: Dim("length", min=1, max=_CONTEXT)}, None, None, None)
                         ).run_decompositions({})
    assert rewrite_language_model_idioms(program) == 0
    causal = export(CausalAttention(), (randn(1, 2, 3, 4), randn(1, 2, _CONTEXT, 4), randn(1, 2, _CONTEXT, 4),
                                        torch.tensor([0])),
                    dynamic_shapes=({2: Dim("length", min=1, max=_CONTEXT)}, None, None, None)).run_decompositions({})
    assert rewrite_language_model_idioms(causal) == 1
