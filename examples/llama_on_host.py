"""Export ExecuTorch's llama example (random weights, a KV cache, a dynamic token count) for NNAPI
and for XNNPACK, and generate a few tokens with each on this machine: a prefill of the prompt,
then one token per call with the KV cache the program keeps. NNAPI runs on the host driver
through the C++ backend; the tokens and logits of both are compared with eager (the same
model) and the decode speed of both printed, with the number of NNAPI compilations the
generation took (two: one for the prompt's length, one for single tokens).

    python examples/llama_on_host.py [--dim 64] [--layers 2] [--tokens 8] [--int8]

The host driver is a reference NNAPI implementation in Python, not a fast one: its tokens per
second say nothing about a phone's.
"""

from __future__ import annotations

import argparse
import copy
import time

import torch
from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
from executorch.exir import to_edge_transform_and_lower
from executorch.runtime import Runtime

import executorch_nnapi.runtime  # noqa: F401  (registers NnapiBackend, installs the host driver)
from executorch_nnapi.partitioners import NnapiPartitioner
from executorch_nnapi.runtime.backend_library import compilation_stats
from executorch_nnapi.tools.language_model import (LlamaConfig, eager_forward, export_llama, generate,
                                                   method_forward, small_llama)

PROMPT = [5, 17, 301, 44, 9]


def _lowered(model: torch.nn.Module, config: LlamaConfig, partitioner) -> tuple[bytes, int, float]:
    """(.pte bytes, number of delegated subgraphs, lowering seconds)."""
    started = time.perf_counter()
    program = export_llama(model, config.max_tokens)
    with torch.no_grad():
        edge = to_edge_transform_and_lower(program, partitioner=[partitioner])
        subgraphs = sum(n.target is torch.ops.higher_order.executorch_call_delegate
                        for n in edge.exported_program().graph.nodes)
        pte = edge.to_executorch().buffer
    return pte, subgraphs, time.perf_counter() - started


def _int8_weight_only(model: torch.nn.Module, modules: tuple[type, ...]) -> torch.nn.Module:
    """A copy of ``model`` with torchao's Int8WeightOnlyConfig on the ``modules``."""
    from torchao.quantization import Int8WeightOnlyConfig, quantize_

    quantized = copy.deepcopy(model)
    quantize_(quantized, Int8WeightOnlyConfig(), filter_fn=lambda m, _: isinstance(m, modules))
    return quantized.eval()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dim", type=int, default=64)
    parser.add_argument("--layers", type=int, default=2)
    parser.add_argument("--tokens", type=int, default=8, help="tokens to generate")
    parser.add_argument("--int8", action="store_true",
                        help="torchao Int8WeightOnlyConfig on the linears and (NNAPI) the token embedding")
    args = parser.parse_args()
    config = LlamaConfig(dim=args.dim, n_layers=args.layers)
    if len(PROMPT) + args.tokens > config.max_context_len:
        parser.error(f"--tokens: at most {config.max_context_len - len(PROMPT)} fit the context")
    model = small_llama(config)
    # ExecuTorch has no CPU kernel for torchao's int8 embedding lookup (dequantize_affine), which
    # XNNPACK leaves on the CPU: XNNPACK gets int8 linears only.
    backends = (("nnapi", NnapiPartitioner(feature_level=30), (torch.nn.Linear, torch.nn.Embedding)),
                ("xnnpack", XnnpackPartitioner(), (torch.nn.Linear,)))
    for name, partitioner, int8_modules in backends:
        quantized = _int8_weight_only(model, int8_modules) if args.int8 else model
        eager = generate(eager_forward(copy.deepcopy(quantized)), PROMPT, args.tokens)
        pte, subgraphs, seconds = _lowered(copy.deepcopy(quantized), config, partitioner)
        program = Runtime.get().load_program(pte)  # kept alive: the method does not keep it
        compiled_before = compilation_stats()[0]
        result = generate(method_forward(program.load_method("forward")), PROMPT, args.tokens)
        # One NNAPI model per token count (the prompt's, then 1), whatever the position.
        compiled = f", {compilation_stats()[0] - compiled_before} NNAPI compilation(s)" if name == "nnapi" else ""
        error = max(float((got - want).abs().max() / want.abs().max())
                    for got, want in zip(result.logits, eager.logits))
        int8 = f" (int8: {', '.join(m.__name__ for m in int8_modules)})" if args.int8 else ""
        print(f"{name:8s}tokens {result.tokens}  {'same as eager' if result.tokens == eager.tokens else 'DIFFER'}{int8}; "
              f"{subgraphs} subgraph(s), .pte {len(pte)} bytes, lowered in {seconds:.1f} s{compiled}; "
              f"prefill of {len(PROMPT)} in {result.prefill_seconds * 1000:.1f} ms, "
              f"decode {result.decode_tokens_per_second:.1f} tokens/s; largest relative logit error {error:.2e}")


if __name__ == "__main__":
    main()
