"""Ops whose PyTorch values are int64 at the partition boundary (argmax / argmin results,
embedding / index_select indices): NNAPI computes them in TENSOR_INT32 and the C++ runtime
narrows int64 inputs (range-checked) and widens int64 outputs while copying, at every feature
level where the NNAPI operations exist."""

from __future__ import annotations

import pytest
import torch
from torch.export import Dim

from executorch_nnapi.runtime import last_error
from op_harness import Lambda, check_delegated_and_matches, lower, run_pte

ARG_REDUCTIONS = [("argmax", torch.argmax, "ARGMAX"), ("argmin", torch.argmin, "ARGMIN")]


def _values(*shape: int) -> torch.Tensor:
    return torch.randn(*shape, generator=torch.Generator().manual_seed(0))


@pytest.mark.parametrize("level", [29, 30])
@pytest.mark.parametrize("name, fn, operation", ARG_REDUCTIONS, ids=[r[0] for r in ARG_REDUCTIONS])
def test_arg_reduction_over_each_form(name, fn, operation, level):
    x = _values(2, 5, 6, 3)
    module = Lambda(lambda t: (fn(t, 1), fn(t, -1, keepdim=True), fn(t), fn(t, keepdim=True), fn(t[0, 0, 0], 0)))
    lowered = check_delegated_and_matches(module, (x,), feature_level=level,
                                          expect_operations=[operation, "EXPAND_DIMS", "RESHAPE"])
    outputs = run_pte(lowered.pte, [x], level)
    assert all(o.dtype == torch.int64 for o in outputs)
    assert lowered.blobs[0].output_types == [(4, 4)] * 5
    assert [tuple(o.shape) for o in outputs] == [(2, 6, 3), (2, 5, 6, 1), (), (1, 1, 1, 1), ()]


@pytest.mark.parametrize("level", [29, 30])
def test_argmax_after_convolution_reads_the_nhwc_value(level):
    conv = torch.nn.Conv2d(3, 8, 3, padding=1)
    module = Lambda(lambda t: torch.argmax(conv(t), 1, keepdim=True))
    lowered = check_delegated_and_matches(module, (_values(1, 3, 6, 7),), feature_level=level,
                                          expect_operations=["CONV_2D", "ARGMAX"])
    assert "TRANSPOSE" not in lowered.nnapi_operations  # the output is permuted while widened


def test_argmax_with_dynamic_shapes():
    x = _values(2, 9)
    batch, length = Dim("batch", min=1, max=8), Dim("length", min=2, max=32)
    module = Lambda(lambda t: (torch.argmax(t, 1), torch.argmin(t)))
    check_delegated_and_matches(module, (x,), dynamic_shapes=(({0: batch, 1: length},),), feature_level=30,
                                run_inputs=[(x,), (_values(5, 17),), (_values(1, 2),)])


def test_argmax_ties_give_the_first_index():
    x = torch.tensor([[1.0, 3.0, 3.0, 0.0], [2.0, 2.0, 2.0, 2.0]])
    check_delegated_and_matches(Lambda(lambda t: (torch.argmax(t, 1), torch.argmin(t, 1))), (x,), feature_level=29)


@pytest.mark.parametrize("level", [27, 28])
def test_argmax_below_api_29_is_refused(level):
    lowered = lower(Lambda(lambda t: torch.argmax(t, 1)), (_values(3, 4),), feature_level=level)
    assert lowered.num_delegates == 0
    assert "needs API 29" in lowered.reasons["aten.argmax.default"][0]


class Embedding(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.table = torch.nn.Embedding(50, 8)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        return self.table(ids) * 2.0


def _ids(*shape: int, high: int = 50) -> torch.Tensor:
    return torch.randint(0, high, shape, generator=torch.Generator().manual_seed(1))


@pytest.mark.parametrize("level", [29, 30])
def test_embedding_with_run_time_int64_indices(level):
    lowered = check_delegated_and_matches(Embedding(), (_ids(2, 5),), feature_level=level,
                                          run_inputs=[(_ids(2, 5),), (torch.tensor([[0, 49, 49, 0, 7]] * 2),)],
                                          expect_operations=["GATHER"])
    assert lowered.blobs[0].input_types == [(4, 4)]  # the program's int64 (ScalarType::Long) in TENSOR_INT32


def test_embedding_with_a_dynamic_number_of_indices():
    seq = Dim("seq", min=1, max=64)
    check_delegated_and_matches(Embedding(), (_ids(1, 6),), dynamic_shapes={"ids": {1: seq}}, feature_level=30,
                                run_inputs=[(_ids(1, 6),), (_ids(1, 33),), (_ids(1, 1),)])


@pytest.mark.parametrize("level", [29, 30])
def test_index_select_with_run_time_int64_indices(level):
    x, index, last = _values(4, 6, 5), torch.tensor([5, 0, 0, 3]), torch.tensor([4, 1])
    module = Lambda(lambda t, i, j: (torch.index_select(t, 1, i), torch.index_select(t.relu(), -1, j)))
    check_delegated_and_matches(module, (x, index, last), feature_level=level, expect_operations=["GATHER"],
                                run_inputs=[(x, index, last), (x, torch.tensor([1, 2, 3, 4]), torch.tensor([0, 0]))])


def test_index_select_reads_argmax_indices_inside_the_partition():
    x = _values(3, 7)
    module = Lambda(lambda t: torch.index_select(t, 1, torch.argmax(t, 1)))
    lowered = check_delegated_and_matches(module, (x,), feature_level=29, expect_operations=["ARGMAX", "GATHER"])
    assert lowered.num_delegates == 1


def test_int64_index_outside_int32_fails_the_execute_naming_the_input():
    module = Embedding().eval()
    lowered = lower(module, (_ids(2, 5),), feature_level=30)
    ids = _ids(2, 5)
    ids[1, 3] = 2**31
    with pytest.raises(Exception):
        run_pte(lowered.pte, [ids], 30)
    assert "input 0 (int64, shape [2, 5]) holds 2147483648 at element 8, outside the int32 range" in last_error()
    (good,) = run_pte(lowered.pte, [_ids(2, 5)], 30)  # the program still runs afterwards
    torch.testing.assert_close(good, module(_ids(2, 5)), rtol=0, atol=0)


def test_constant_indices_out_of_bounds_are_refused():
    table = torch.randn(10, 4)
    lowered = lower(Lambda(lambda t: torch.nn.functional.embedding(torch.tensor([3, 12]), t) + 1), (table,),
                    feature_level=30)
    assert "embedding with constant indices outside [0, 10)" in lowered.reasons["aten.embedding.default"][0]


@pytest.mark.parametrize("level", [27, 28])
def test_gather_below_api_29_is_refused(level):
    lowered = lower(Embedding(), (_ids(2, 5),), feature_level=level)
    assert "needs API 29" in lowered.reasons["aten.embedding.default"][0]


@pytest.mark.parametrize("level", [29, 30])
def test_a_same_shape_view_of_int64_ids_is_a_relabeling(level):
    """GPT-2's ``input_ids.view(-1, input_shape[-1])`` of [1, n] ids: no RESHAPE (which takes
    TENSOR_INT32 only from feature level 6), the embedding reads the ids directly."""
    torch.manual_seed(0)
    embedding = torch.nn.Embedding(10, 4)
    ids = torch.tensor([[1, 2, 3, 9]])
    lowered = check_delegated_and_matches(Lambda(lambda t: embedding(t.view(-1, t.shape[-1])) * 2.0), (ids,),
                                          feature_level=level)
    assert "RESHAPE" not in lowered.nnapi_operations


class _ImageTokensToPad(torch.nn.Module):
    """Gemma 3's input ids: a copy of the int64 ids with an out-of-vocabulary image token replaced
    by 0 (``ids[ids == token] = 0``), then the embedding: the copy is an alias and the masked
    assignment a SELECT of int64 values held in int32."""

    def __init__(self) -> None:
        super().__init__()
        self.embed = torch.nn.Embedding(16, 8)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        padded = ids.clone()
        padded[ids == 20] = 0
        return self.embed(padded)


def test_int64_ids_copied_and_masked_in_place_are_delegated():
    ids = torch.tensor([[3, 20, 5, 20, 15, 0]])
    lowered = check_delegated_and_matches(_ImageTokensToPad().eval(), (ids,), tolerance=1e-6,
                                          expect_operations=["SELECT", "GATHER"])
    assert lowered.num_delegates == 1 and not lowered.cpu_ops


class _SegmentPositions(torch.nn.Module):
    """CPM-Ant's segment ids and positions (int32 in [0, 2] and [0, T)), combined and flattened:
    an int32 view below feature level 6 (no TENSOR_INT32 RESHAPE) whose values provably lie within
    +-2^24 goes through float32 (CAST, RESHAPE, CAST); the ids themselves (unbounded) are not
    viewed."""

    def forward(self, ids: torch.Tensor, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        segment = torch.where(ids != 0, 2, 0).to(torch.int32)
        position = torch.arange(ids.shape[1], dtype=torch.int32).repeat(ids.shape[0], 1)
        flat = (segment * 7 + position).view(-1)
        return x.reshape(-1, x.shape[-1]) * flat.view(-1, 1).float(), flat.view(ids.shape[0], -1, 2)


def test_a_view_of_small_int32_values_goes_through_float32_below_feature_level_6():
    ids = torch.tensor([[3, 0, 5, 7], [0, 0, 1, 2]])
    x = _values(2, 4, 3)
    lowered = check_delegated_and_matches(_SegmentPositions(), (ids, x), feature_level=30, expect_operations=["CAST"])
    outputs = run_pte(lowered.pte, [ids, x], 30)
    assert outputs[1].dtype == torch.int32 and torch.equal(outputs[1], _SegmentPositions()(ids, x)[1])
    unbounded = lower(Lambda(lambda t: t.view(-1) * 2), (ids,), feature_level=30)
    assert "within +-2^24" in unbounded.reasons["aten.view_copy.default"][0]


class _MaskAndSegmentCat(torch.nn.Module):
    """CPM-Ant's prompt prefix: a bool mask and int64 segment ids each joined to a constant prefix
    by cat (CONCATENATION takes neither BOOL8 nor TENSOR_INT32): the bool as 1 / 0 floats compared
    with 0, the ints (provably in [0, 2]) CAST to float32 and back."""

    def forward(self, ids: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
        mask = torch.cat([torch.ones(2, 3, dtype=torch.bool), x > 0], dim=1)
        segment = torch.cat([torch.arange(3).repeat(2, 1), torch.where(ids != 0, 2, 0)], dim=1)
        return torch.where(mask, segment.float() * 1.5, -1.0)


def test_bool_and_small_integer_cats_go_through_float32():
    ids = torch.tensor([[3, 0, 5, 7], [0, 0, 1, 2]])
    lowered = check_delegated_and_matches(_MaskAndSegmentCat(), (ids, _values(2, 4)), feature_level=30,
                                          tolerance=1e-6, expect_operations=["CONCATENATION", "CAST", "NOT_EQUAL"])
    assert lowered.num_delegates == 1
    unbounded = lower(Lambda(lambda t: torch.cat([t, t], dim=1) * 2), (ids,), feature_level=30)
    assert "not provably within +-2^24" in unbounded.reasons["aten.cat.default"][0]
