"""Composite ATen ops (conv2d, max_pool2d, adaptive_avg_pool2d, silu) rewritten
into core ATen before to_edge, so that its second decomposition pass is skipped."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch.export import Dim, ExportedProgram, export

from executorch.exir import to_edge_transform_and_lower

from executorch_nnapi.lowering.passes.composite_ops import COMPOSITE_OPS, decompose_composites
from executorch_nnapi.partitioners import NnapiPartitioner

from op_harness import Lambda, check_delegated_and_matches, lower, run_pte, relative_max_error


class SmallCnn(torch.nn.Module):
    """Every composite op once, with a composite (silu) as the program output."""

    def __init__(self) -> None:
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.conv2 = torch.nn.Conv2d(8, 8, 3, stride=2, groups=8)

    def forward(self, x):
        y = F.max_pool2d(F.silu(self.conv(x)), 3, stride=2, padding=1)
        y = F.adaptive_avg_pool2d(self.conv2(y), 1)
        return F.silu(y)


class ShapeOps(torch.nn.Module):
    """split / transpose / squeeze(dim) / layer_norm, the composites of channel shuffles and transformers."""

    def __init__(self) -> None:
        super().__init__()
        self.norm = torch.nn.LayerNorm(6)

    def forward(self, x):  # x: [1, 8, 4, 6]
        a, b = x.split(4, dim=1)
        y = torch.cat([b, a], dim=1).transpose(1, 2)
        return self.norm(y).squeeze(0)


def test_functional_program_loses_every_composite():
    ep = export(SmallCnn().eval(), (torch.randn(1, 3, 32, 32),)).run_decompositions({})
    before = sum(n.target in COMPOSITE_OPS for n in ep.graph.nodes)
    assert before == 6
    assert decompose_composites(ep) == before
    assert not any(n.target in COMPOSITE_OPS for n in ep.graph.nodes)
    # The output renamed by the rewrite is still the one the signature names.
    output_names = [a.name for a in ep.graph.output_node().args[0]]
    assert [spec.arg.name for spec in ep.graph_signature.output_specs] == output_names
    x = torch.randn(1, 3, 32, 32)
    torch.testing.assert_close(ep.module()(x), _eager_from_state(ep, x))


def _eager_from_state(ep: ExportedProgram, x: torch.Tensor) -> torch.Tensor:
    model = SmallCnn().eval()
    model.load_state_dict(ep.state_dict)
    with torch.no_grad():
        return model(x)


def test_shape_composites_rewritten_delegated_and_match_eager():
    torch.manual_seed(0)
    x = torch.randn(1, 8, 4, 6)
    ep = export(ShapeOps().eval(), (x,)).run_decompositions({})
    assert decompose_composites(ep) == 4
    assert not any(n.target in COMPOSITE_OPS for n in ep.graph.nodes)
    model = ShapeOps()
    with torch.no_grad():
        model.norm.weight.normal_()
        model.norm.bias.normal_()
    check_delegated_and_matches(model, (x,))


def count_decompositions(monkeypatch) -> list:
    """Records the table of every ExportedProgram.run_decompositions call from now on."""
    calls = []
    original = ExportedProgram.run_decompositions

    def counting(self, *args, **kwargs):
        calls.append(args[0] if args else kwargs.get("decomp_table"))
        return original(self, *args, **kwargs)

    monkeypatch.setattr(ExportedProgram, "run_decompositions", counting)
    return calls


def test_lowering_decomposes_the_program_once(monkeypatch):
    calls = count_decompositions(monkeypatch)
    to_edge_transform_and_lower(export(SmallCnn().eval(), (torch.randn(1, 3, 32, 32),)),
                                partitioner=[NnapiPartitioner()])
    # Only the functionalization pass ({}); the table-driven pass found nothing to do.
    assert len(calls) == 1 and not calls[0]


def test_composites_are_delegated_and_match_eager():
    torch.manual_seed(0)
    model = SmallCnn()
    lowered = check_delegated_and_matches(model, (torch.randn(1, 3, 32, 32),),
                                          expect_operations=("CONV_2D", "MAX_POOL_2D", "LOGISTIC"))
    assert lowered.num_delegates == 1


def test_composites_with_dynamic_size():
    torch.manual_seed(0)
    size = Dim("size", min=16, max=64)
    check_delegated_and_matches(SmallCnn(), (torch.randn(1, 3, 32, 32),),
                                dynamic_shapes=({2: size, 3: size},),
                                run_inputs=[(torch.randn(1, 3, 17, 17),), (torch.randn(1, 3, 64, 64),)])


def test_refused_composite_runs_on_the_cpu():
    # A dilated max pool has no NNAPI form: it must stay on the CPU as core ATen.
    model = Lambda(lambda x: F.max_pool2d(torch.relu(x), 3, stride=1, dilation=2))
    x = torch.randn(1, 4, 12, 12)
    lowered = lower(model, (x,))
    assert "aten.max_pool2d_with_indices.default" in lowered.cpu_ops
    reasons = {d.op: d.reason for d in lowered.partitioner.decisions if not d.supported}
    assert "dilat" in reasons["aten.max_pool2d_with_indices.default"]
    (got,) = run_pte(lowered.pte, (x,))
    assert relative_max_error(got, model(x)) < 1e-6


class AttentionBlock(torch.nn.Module):
    """The composites transformers add: scaled_dot_product_attention, matmul, roll (rewritten by
    hand into slices + cat), pad, softmax.int."""

    def __init__(self) -> None:
        super().__init__()
        self.qkv = torch.nn.Linear(16, 48)

    def forward(self, x):  # x: [1, 4, 6, 16] (batch, heads, tokens, features)
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        attended = F.scaled_dot_product_attention(q, k, v)
        scores = torch.softmax(q @ k.transpose(-2, -1) * 0.25, dim=-1)
        shifted = torch.roll(attended, shifts=(2,), dims=(2,))
        return F.pad(shifted + scores @ v, (0, 0, 1, 1))


def test_transformer_composites_rewritten_delegated_and_lowered_with_one_decomposition(monkeypatch):
    from executorch.exir.tracer import _default_decomposition_table

    from executorch_nnapi.lowering.passes.traced_decomposition import decompose_remaining

    torch.manual_seed(0)
    x = torch.randn(1, 4, 6, 16)
    ep = export(AttentionBlock().eval(), (x,)).run_decompositions({})
    assert decompose_composites(ep) >= 1
    assert not any(n.target is torch.ops.aten.roll.default for n in ep.graph.nodes)
    table = _default_decomposition_table()
    linear = torch.ops.aten.linear.default
    composites = {str(n.target) for n in ep.graph.nodes if n.target in table and n.target is not linear}
    assert {"aten.scaled_dot_product_attention.default", "aten.matmul.default"} <= composites
    assert decompose_remaining(ep, table, keep={linear}) >= 4
    assert not any(n.target in table and n.target is not linear for n in ep.graph.nodes)

    calls = count_decompositions(monkeypatch)
    lowered = check_delegated_and_matches(AttentionBlock(), (x,), expect_operations=("FULLY_CONNECTED", "SOFTMAX"))
    assert lowered.num_delegates == 1
    # Only the functionalization pass ({}): the table-driven pass found nothing to do.
    assert len(calls) == 1 and not calls[0]


class GroupedRouting(torch.nn.Module):
    """A mixture of experts' grouped routing (DeepSeek-V3, EXAONE-MoE in transformers): the best
    groups' mask made by ``scatter_`` of ones at top-k indices computed at run time, turned into
    a bool mask with ``.bool()`` and applied; a second scatter writes a number along dim 0 of a
    tensor that is not zeros."""

    groups, per_group = 4, 3

    def forward(self, scores: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        group_scores = scores.view(-1, self.groups, self.per_group).topk(2, dim=-1)[0].sum(dim=-1)
        group_idx = torch.topk(group_scores, k=2, dim=-1, sorted=False)[1]
        group_mask = torch.zeros_like(group_scores)
        group_mask.scatter_(1, group_idx, 1)
        score_mask = group_mask.unsqueeze(-1).expand(-1, self.groups, self.per_group).reshape(-1, 12)
        routed = scores.masked_fill(~score_mask.bool(), -1e4)
        rows = scores.argmax(dim=0, keepdim=True)             # [1, 12]: a row named per column
        return routed, scores.scatter(0, rows, 2.5)


def test_scatter_of_a_number_is_a_mask_and_bool_conversion_is_delegated():
    assert torch.ops.aten.scatter.value in COMPOSITE_OPS
    scores = torch.randn(5, 12, generator=torch.Generator().manual_seed(0))
    lowered = check_delegated_and_matches(GroupedRouting(), (scores,), tolerance=1e-6,
                                          expect_operations=("REDUCE_ANY", "NOT_EQUAL"))
    assert lowered.num_delegates == 1


class TopKRouter(torch.nn.Module):
    """Llama 4's router: the top-k logits written at their indices into a -inf tensor (dim 1),
    and the same on the last dim of a rank-3 view into zeros, and with one expert per token."""

    def __init__(self) -> None:
        super().__init__()
        self.gate = torch.nn.Linear(8, 6, bias=False)

    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, ...]:
        logits = self.gate(x)                                                   # [tokens, experts]
        values, indices = torch.topk(logits, 2, dim=1)
        scores = torch.full_like(logits, float("-inf")).scatter_(1, indices, values)
        grouped = logits.view(-1, 2, 3)
        top_v, top_i = torch.topk(grouped, 2, dim=-1)
        per_group = torch.zeros_like(grouped).scatter(2, top_i, top_v * 2.0)
        best_v, best_i = torch.topk(logits, 1, dim=1)                           # one expert per token
        best = torch.full_like(logits, float("-inf")).scatter_(1, best_i, best_v)
        return torch.sigmoid(scores), per_group, torch.sigmoid(best)


def test_scatter_of_topk_values_at_their_indices_is_a_gather():
    assert torch.ops.aten.scatter.src in COMPOSITE_OPS
    x = torch.randn(5, 8, generator=torch.Generator().manual_seed(0))
    lowered = check_delegated_and_matches(TopKRouter(), (x,), tolerance=1e-6,
                                          expect_operations=("TOPK_V2", "ARGMAX", "GATHER", "SELECT"))
    assert lowered.num_delegates == 1 and lowered.cpu_ops == []


def test_scatter_at_indices_that_are_not_a_topk_is_left_as_it_is():
    class Scatter(torch.nn.Module):
        def forward(self, x: torch.Tensor, index: torch.Tensor) -> torch.Tensor:
            return torch.zeros_like(x).scatter(1, index, x[:, :2])

    program = export(Scatter(), (torch.randn(3, 4), torch.tensor([[0, 1], [2, 3], [1, 1]])))
    program = program.run_decompositions({})
    decompose_composites(program)
    assert any(n.target is torch.ops.aten.scatter.src for n in program.graph.nodes)


class AttentionWithSinks(torch.nn.Module):
    """gpt-oss's attention sinks: a learned logit per head joins each row, the row's maximum is
    subtracted (max.dim, indices unread), softmax, the sink's column dropped; a min.dim whose
    values only are read; and a max.dim whose indices are read, left as it is."""

    def __init__(self) -> None:
        super().__init__()
        self.sinks = torch.nn.Parameter(torch.randn(2))

    def forward(self, q: torch.Tensor, k: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        logits = q @ k.transpose(-1, -2)                                           # [B, 2, T, T]
        sinks = self.sinks.reshape(1, -1, 1, 1).expand(q.shape[0], -1, q.shape[-2], -1)
        combined = torch.cat([logits, sinks], dim=-1)
        combined = combined - combined.max(dim=-1, keepdim=True).values
        probs = torch.softmax(combined, dim=-1)[..., :-1]
        return probs - logits.min(dim=-2).values.unsqueeze(-2), logits.max(dim=-1)[1]


def test_max_and_min_values_without_indices_become_reductions():
    gen = torch.Generator().manual_seed(0)
    q, k = torch.randn(1, 2, 5, 4, generator=gen), torch.randn(1, 2, 5, 4, generator=gen)
    program = export(AttentionWithSinks(), (q, k))
    decompose_composites(program)
    targets = [n.target for n in program.graph.nodes if n.op == "call_function"]
    assert targets.count(torch.ops.aten.max.dim) == 1 and torch.ops.aten.min.dim not in targets
    module = AttentionWithSinks()
    lowered = check_delegated_and_matches(Lambda(lambda q, k: module(q, k)[0]), (q, k), tolerance=1e-5,
                                          expect_operations=("REDUCE_MAX", "REDUCE_MIN"))
    assert lowered.num_delegates == 1
