"""ExecuTorch's llama example (``executorch.examples.models.llama``) exported for NNAPI: a small
random-weight configuration, its export with a KV cache and a dynamic token count, and greedy
generation (a prefill, then one token per step) with any loaded ExecuTorch method.

Lowered with NnapiPartitioner, the KV cache becomes the delegate's state: the runtime keeps it in
NNAPI memory across calls, and a loaded method starts from an empty cache
(docs/language_models.md).
"""

from __future__ import annotations

import dataclasses
import time
from typing import Any, Callable, Sequence

import torch
from torch.export import Dim, ExportedProgram, export


@dataclasses.dataclass(frozen=True)
class LlamaConfig:
    """The llama example's ModelArgs that matter here (its defaults otherwise: RMSNorm, rotary
    embedding on interleaved pairs, SiLU-gated MLP, no output bias)."""
    dim: int = 64
    n_layers: int = 2
    n_heads: int = 4
    vocab_size: int = 512
    max_context_len: int = 32
    n_kv_heads: int | None = None  # fewer than n_heads: grouped-query attention
    hidden_dim: int | None = None  # the MLP's; None: the example's rule from dim
    rope_theta: float = 10000.0
    max_seq_len: int | None = None  # most tokens in one call, None: max_context_len

    @property
    def max_tokens(self) -> int:
        """The largest token count of one call (the dynamic dim's upper bound)."""
        return min(self.max_seq_len or self.max_context_len, self.max_context_len) - 1


def small_llama(config: LlamaConfig = LlamaConfig(), seed: int = 0) -> torch.nn.Module:
    """The llama example's Transformer with random weights, a KV cache and dynamic shapes."""
    from executorch.examples.models.llama.llama_transformer import construct_transformer
    from executorch.examples.models.llama.model_args import ModelArgs

    args = ModelArgs(dim=config.dim, n_layers=config.n_layers, n_heads=config.n_heads,
                     n_kv_heads=config.n_kv_heads, hidden_dim=config.hidden_dim,
                     rope_freq_base=config.rope_theta, vocab_size=config.vocab_size,
                     max_seq_len=config.max_seq_len or config.max_context_len,
                     max_context_len=config.max_context_len, max_batch_size=1, use_kv_cache=True,
                     enable_dynamic_shape=True)
    torch.manual_seed(seed)
    return construct_transformer(args).eval()


def export_llama(model: torch.nn.Module, max_tokens: int) -> ExportedProgram:
    """Exports ``model(tokens, {"input_pos": start})`` with tokens ``[1, n]``, n dynamic in
    [1, max_tokens] (``LlamaConfig.max_tokens``, as ExecuTorch's export_llama bounds it), under
    no_grad so that the cache write-back ExecuTorch adds copies plain tensors."""
    tokens, start = torch.tensor([[2, 3, 4]]), torch.tensor([0])
    dynamic = ({1: Dim("token_dim", max=max_tokens)}, {"input_pos": {0: 1}})
    with torch.no_grad():
        return export(model, (tokens, {"input_pos": start}), dynamic_shapes=dynamic, strict=False)


Forward = Callable[[torch.Tensor, torch.Tensor], torch.Tensor]


@dataclasses.dataclass(frozen=True)
class Delegation:
    """What a lowered program delegated: its delegate calls, the tensor ops left on the CPU (by
    name), and every other CPU call node (size arithmetic included)."""
    subgraphs: int
    cpu_tensor_ops: list[str]
    cpu_nodes: int


def delegation(graph: torch.fx.Graph) -> Delegation:
    """The delegation of a lowered edge program's graph (``edge.exported_program().graph``)."""
    calls = [n for n in graph.nodes if n.op == "call_function"]
    delegate = torch.ops.higher_order.executorch_call_delegate
    outside = [n for n in calls if n.target is not delegate and "getitem" not in str(n.target)]
    tensors = [str(n.target) for n in outside if isinstance(n.meta.get("val"), torch.Tensor)]
    return Delegation(sum(n.target is delegate for n in calls), tensors, len(outside))


def method_forward(method: Any) -> Forward:
    """``(tokens, input_pos) -> logits`` of a loaded ExecuTorch method."""
    return lambda tokens, start: method.execute([tokens, start])[0]


def eager_forward(model: torch.nn.Module) -> Forward:
    """``(tokens, input_pos) -> logits`` of the eager model (its own KV cache)."""
    def forward(tokens: torch.Tensor, start: torch.Tensor) -> torch.Tensor:
        with torch.no_grad():
            return model(tokens, {"input_pos": start})
    return forward


@dataclasses.dataclass
class Generation:
    """Tokens generated greedily, the logits of each call, and the time of the decode steps."""
    tokens: list[int]
    logits: list[torch.Tensor]
    prefill_seconds: float
    decode_seconds: float

    @property
    def decode_tokens_per_second(self) -> float:
        steps = len(self.tokens) - 1  # the first token comes from the prefill
        return steps / self.decode_seconds if self.decode_seconds > 0 else float("inf")


def generate(forward: Forward, prompt: Sequence[int], new_tokens: int) -> Generation:
    """A prefill of ``prompt`` at position 0, then ``new_tokens - 1`` single-token steps, each
    feeding back the most likely token (greedy)."""
    started = time.perf_counter()
    logits = forward(torch.tensor([list(prompt)]), torch.tensor([0]))
    prefill = time.perf_counter() - started
    produced, all_logits = [int(logits.argmax(-1))], [logits]
    started = time.perf_counter()
    for step in range(new_tokens - 1):
        logits = forward(torch.tensor([[produced[-1]]]), torch.tensor([len(prompt) + step]))
        all_logits.append(logits)
        produced.append(int(logits.argmax(-1)))
    return Generation(produced, all_logits, prefill, time.perf_counter() - started)
