"""aten.cumsum as a prefix-sum scan (lowering/builders/cumsum.py) and the int64 values of
Hugging Face RoBERTa's position ids held in TENSOR_INT32 (lowering/builders/integer_ranges.py):
lowered, delegated, run through the C++ backend on the host driver and compared with eager."""

from __future__ import annotations

import pytest
import torch
from torch.export import Dim

from op_harness import Lambda, check_delegated_and_matches, lower, run_pte

SCAN_STEP = ["PAD", "STRIDED_SLICE", "ADD"]
INTEGER_STEP = ["GATHER", "MUL", "ADD"]


def _values(*shape: int, seed: int = 0) -> torch.Tensor:
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


def _every_dim(rank: int):
    return Lambda(lambda t: tuple(torch.cumsum(t, d) for d in range(-rank, 0)))


@pytest.mark.parametrize("shape", [(9,), (5, 7), (2, 6, 1)], ids=["rank1", "rank2", "rank3"])
def test_float_cumsum_along_every_dim(shape):
    # Lengths 1 (the input itself), 2, odd and even ones: the last step's shift need not be a power
    # of two below the length's.
    x = _values(*shape)
    lowered = check_delegated_and_matches(_every_dim(len(shape)), (x,), expect_operations=SCAN_STEP)
    assert "TRANSPOSE" not in lowered.nnapi_operations


class ConvThenCumsum(torch.nn.Module):
    """Rank 4 on a convolution's NHWC result: the scan runs along the NHWC axis, no TRANSPOSE."""

    def __init__(self) -> None:
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 5, 3, padding=1)

    def forward(self, x: torch.Tensor):
        y = self.conv(x)
        return tuple(torch.cumsum(y, d) for d in range(4))


def test_float_cumsum_along_every_dim_of_a_convolution_result():
    torch.manual_seed(0)
    lowered = check_delegated_and_matches(ConvThenCumsum().eval(), (_values(2, 3, 6, 5),),
                                          expect_operations=["CONV_2D", *SCAN_STEP])
    assert lowered.num_delegates == 1
    # 4 dims of sizes 2, 5, 6, 5: 1 + 3 + 3 + 3 steps of 3 operations.
    assert lowered.nnapi_operations.count("STRIDED_SLICE") == 10
    assert "TRANSPOSE" not in lowered.nnapi_operations  # the runtime permutes the outputs back


def test_integer_cumsum_of_a_mask_is_exact():
    ids = torch.tensor([[4, 0, 7, 7, 0, 0, 9, 3, 1, 0, 2]])
    module = Lambda(lambda t: ((t != 0).int().cumsum(1), (t != 0).int().cumsum(1, dtype=torch.int32)))
    lowered = check_delegated_and_matches(module, (ids,), expect_operations=INTEGER_STEP,
                                          run_inputs=[(ids,), (torch.zeros(1, 11, dtype=torch.long),),
                                                      (torch.ones(1, 11, dtype=torch.long),)])
    (first, second) = run_pte(lowered.pte, [ids])
    assert first.dtype == torch.int64 and second.dtype == torch.int32
    assert first.tolist() == [[1, 1, 2, 3, 3, 3, 4, 5, 6, 6, 7]]


class PositionIds(torch.nn.Module):
    """Hugging Face RoBERTa's position ids written out: ``input_ids != padding_idx`` as int32,
    its cumsum (int64) back to int32, plus past length, times the mask, as int64 plus padding_idx;
    the position embedding and the token-type buffer gathered with them."""

    def __init__(self, padding_idx: int = 1, positions: int = 40) -> None:
        super().__init__()
        self.padding_idx = padding_idx
        self.position_embeddings = torch.nn.Embedding(positions, 8, padding_idx=padding_idx)
        self.register_buffer("token_type_ids", torch.zeros(1, positions, dtype=torch.long))

    def forward(self, input_ids: torch.Tensor):
        mask = input_ids.ne(self.padding_idx).int()
        incremental = (torch.cumsum(mask, dim=1).type_as(mask) + 0) * mask
        position_ids = incremental.long() + self.padding_idx
        token_types = torch.gather(self.token_type_ids.expand(position_ids.shape[0], -1), 1, position_ids)
        token_types = token_types.expand(1, input_ids.shape[1])
        return self.position_embeddings(position_ids), position_ids, token_types


def test_roberta_position_ids_run_in_one_subgraph_exactly():
    runs = [(torch.tensor([[0, 31, 7, 1, 1, 12, 5, 1, 9]]),), (torch.ones(1, 9, dtype=torch.long),),
            (torch.tensor([[5, 5, 5, 5, 5, 5, 5, 5, 2]]),)]
    lowered = check_delegated_and_matches(PositionIds().eval(), runs[0], run_inputs=runs,
                                          expect_operations=["NOT_EQUAL", "SELECT", *INTEGER_STEP])
    assert lowered.num_delegates == 1 and lowered.cpu_ops == []
    _, position_ids, token_types = run_pte(lowered.pte, runs[0])
    assert position_ids.tolist() == [[2, 3, 4, 1, 1, 5, 6, 1, 7]] and position_ids.dtype == torch.int64
    assert token_types.dtype == torch.int64 and not token_types.any()


def test_cumsum_along_a_dynamic_length_stays_on_the_cpu_and_matches_eager():
    module = Lambda(lambda t: torch.relu(torch.cumsum(torch.sigmoid(t), 1)) * 2)
    length = Dim("length", min=2, max=64)
    lowered = lower(module, (_values(2, 6),), dynamic_shapes=(({1: length},),))
    assert [op for op in lowered.cpu_ops if op.startswith("aten.")] == ["aten.cumsum.default"]
    (reason,) = lowered.reasons["aten.cumsum.default"]
    assert reason.startswith("cumsum along a dim of dynamic length")
    assert lowered.num_delegates == 2  # the sigmoid before it, the relu and mul after it
    for x in (_values(2, 6), _values(2, 33, seed=1), _values(2, 2, seed=2)):
        (got,) = run_pte(lowered.pte, [x])
        torch.testing.assert_close(got, module(x), rtol=1e-5, atol=1e-5)


def test_cumsum_whose_int64_result_may_not_fit_int32_stays_on_the_cpu():
    # Token ids are any int64 values NNAPI holds in int32: eight of them may sum past int32.
    module = Lambda(lambda t: torch.cumsum(t, 1) * 2)
    ids = torch.tensor([[3, 2**30, 2**30, 5, 7, 1, 1, 2]])
    lowered = lower(module, (ids,))
    (reason,) = lowered.reasons["aten.cumsum.default"]
    assert reason.startswith("int64 result in [-17179869184, 17179869176] may not fit int32")
    (got,) = run_pte(lowered.pte, [ids])
    assert torch.equal(got, module(ids))


@pytest.mark.parametrize("level, x, needs", [
    (27, _values(3, 4), "aten.cumsum.default needs API 28"),
    (29, torch.tensor([[1, 0, 1]], dtype=torch.int32), "integer cumsum (TENSOR_INT32 ADD and MUL) needs API 30"),
], ids=["float-api27", "int-api29"])
def test_cumsum_below_its_level_is_refused(level, x, needs):
    lowered = lower(Lambda(lambda t: torch.cumsum(t, 1)), (x,), feature_level=level)
    assert lowered.reasons["aten.cumsum.default"][0].startswith(needs)


@pytest.mark.slow  # a whole model (about 10 s)
def test_small_transformers_roberta_runs_in_one_subgraph():
    import transformers

    torch.manual_seed(0)
    config = transformers.RobertaConfig(vocab_size=100, hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
                                        intermediate_size=128)
    config._attn_implementation = "eager"
    model = transformers.RobertaModel(config).eval()
    module = Lambda(lambda ids: model(ids)[0])
    ids = torch.randint(3, 100, (1, 16), generator=torch.Generator().manual_seed(3))
    padded = ids.clone()
    padded[0, [4, 5, 11]] = config.pad_token_id  # padding tokens get position padding_idx
    lowered = check_delegated_and_matches(module, (padded,), run_inputs=[(padded,), (ids,)])
    assert lowered.num_delegates == 1 and lowered.cpu_ops == []
