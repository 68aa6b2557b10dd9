"""Mixture-of-experts models from ``transformers`` (Mixtral, Qwen2-MoE, and the other experts
classes ``transformers`` dispatches through its ``ExpertsInterface``) in a form NNAPI runs.

``transformers`` routes each token to its top-k experts by indexing: which tokens an expert gets
depends on the data (``nonzero`` / ``where`` over the routing mask, a loop over the experts hit,
``index_add_``; exported, ``histc`` and data-dependent sizes), so ``to_edge_transform_and_lower``
stops with ``SpecViolationError`` whatever the partitioner (XNNPACK too). NNAPI runs models of
fixed structure. :func:`use_dense_experts` switches a model's experts to an exact dense form,
registered in ``transformers``' ``ExpertsInterface`` as ``"nnapi_dense"``:

* the router is unchanged (its softmax and ``topk``: TOPK_V2 in NNAPI);
* each token's routing weight per expert: its top-k weight where the expert is among its top k,
  else 0 (``top_k_index == arange(E)``, a comparison, and a ``where``);
* every expert's up (and gate) projection for every token as one linear over the experts' weights
  stacked, the activation, each expert's result scaled by its routing weight, and the down
  projection of all experts as one more linear (the down projection is linear, so scaling before
  it is scaling after it; an expert with weight 0 adds exactly 0).

The result is the sparse dispatch's, summed in another order. **Cost**: the experts' multiply-adds
are ``num_experts / top_k`` times the sparse dispatch's (Mixtral 8 experts top-2: 4x; Qwen2-MoE's
60 experts top-4: 15x), for every token, prefill and decode alike; the attention, router and
shared experts cost what they did. Every expert's weights are read at every call (the sparse
dispatch reads only the experts its tokens hit: decoding one token, ``top_k`` of them).

    from executorch_nnapi.tools.mixture_of_experts import use_dense_experts
    use_dense_experts(model)              # before torch.export; in place
    program = torch.export.export(model, ...)
"""

from __future__ import annotations

from typing import Any

import torch
import torch.nn.functional as F

__all__ = ["DENSE_EXPERTS", "dense_experts_forward", "expert_modules", "use_dense_experts"]

# The name of the dense form in transformers' ExpertsInterface.
DENSE_EXPERTS = "nnapi_dense"


def routing_weights(top_k_index: torch.Tensor, top_k_weights: torch.Tensor, num_experts: int) -> torch.Tensor:
    """[tokens, num_experts]: each token's top-k weight for the experts among its top k, else 0 (an
    index outside [0, num_experts), an expert-parallel sentinel, selects none)."""
    chosen = top_k_index.unsqueeze(-1) == torch.arange(num_experts, device=top_k_index.device)
    return torch.where(chosen, top_k_weights.unsqueeze(-1), 0.0).sum(dim=1)


def _stacked(experts: torch.nn.Module, name: str) -> torch.Tensor:
    """An expert weight as [num_experts, out, in] (transformers stores some as [num_experts, in, out])."""
    weight = getattr(experts, name)
    return weight.transpose(1, 2) if getattr(experts, "is_transposed", False) else weight


def dense_experts_forward(self: torch.nn.Module, hidden_states: torch.Tensor, top_k_index: torch.Tensor,
                          top_k_weights: torch.Tensor) -> torch.Tensor:
    """The experts of ``transformers``' ``ExpertsInterface`` (``self``: an experts module, hidden states
    [tokens, hidden], the router's top-k indices and weights [tokens, k]) computed densely: every
    expert for every token, weighted by the router's top-k weights (0 for the others)."""
    gated = getattr(self, "has_gate", True)
    has_bias = getattr(self, "has_bias", False)
    up = _stacked(self, "gate_up_proj" if gated else "up_proj")  # [E, out, hidden]
    down = _stacked(self, "down_proj")  # [E, hidden, intermediate]
    experts, out_features, hidden = up.shape
    routing = routing_weights(top_k_index, top_k_weights, experts).to(hidden_states.dtype)
    up_bias = getattr(self, "gate_up_proj_bias" if gated else "up_proj_bias") if has_bias else None
    projected = F.linear(hidden_states, up.reshape(experts * out_features, hidden),
                         None if up_bias is None else up_bias.reshape(-1))
    # Experts first: the gate's chunk then splits a value whose first dim is static (ExecuTorch's
    # edge verifier takes len() of a split's first result, which fixed a dynamic token count).
    projected = projected.unflatten(-1, (experts, out_features)).transpose(0, 1)  # [E, tokens, out]
    activated = self._apply_gate(projected) if gated else self.act_fn(projected)  # [E, tokens, intermediate]
    down_bias = self.down_proj_bias if has_bias else None
    if getattr(self, "has_post_expert_norm", False):
        # A norm after each expert: its output is needed per expert before weighting.
        per_expert = torch.bmm(activated, down.transpose(1, 2))  # [E, tokens, hidden]
        if down_bias is not None:
            per_expert = per_expert + down_bias.unsqueeze(1)
        per_expert = self.post_expert_norm(per_expert)
        return (per_expert * routing.t().unsqueeze(-1)).sum(dim=0).to(hidden_states.dtype)
    weighted = (activated * routing.t().unsqueeze(-1)).transpose(0, 1).flatten(1)  # [tokens, E * intermediate]
    # All experts' down projections side by side: [hidden, E * intermediate].
    result = F.linear(weighted, down.permute(1, 0, 2).reshape(hidden, -1))
    if down_bias is not None:
        result = result + routing @ down_bias  # each expert's bias, weighted as its output
    return result.to(hidden_states.dtype)


def expert_modules(model: torch.nn.Module) -> list[torch.nn.Module]:
    """The experts modules of ``model`` that ``transformers`` dispatches through its ExpertsInterface."""
    return [m for m in model.modules() if hasattr(m, "has_gate") and hasattr(m, "down_proj")
            and hasattr(m, "_apply_gate")]


def use_dense_experts(model: Any) -> Any:
    """Switches every experts module of ``model`` (a ``transformers`` model) to the dense form
    (module docstring), in place, and returns ``model``. Call it before ``torch.export``.

    Raises:
        ValueError: ``model`` has no experts module ``transformers`` dispatches (an older experts
            class, a ModuleList of experts, or not a mixture of experts).
    """
    from transformers.integrations.moe import ALL_EXPERTS_FUNCTIONS

    if not expert_modules(model):
        raise ValueError(f"{type(model).__name__} has no experts module that transformers dispatches through its "
                         "ExpertsInterface (@use_experts_implementation): use_dense_experts cannot switch it")
    ALL_EXPERTS_FUNCTIONS.register(DENSE_EXPERTS, dense_experts_forward)
    model.set_experts_implementation(DENSE_EXPERTS)
    return model
