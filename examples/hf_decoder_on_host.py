"""Export a Hugging Face decoder the way ``transformers`` exports it for ExecuTorch (a static KV
cache, ``forward(input_ids, cache_position)``), lower it for NNAPI and for XNNPACK, and generate
tokens with each on this machine, checked against eager: a prefill of the prompt, then one token
per call with the cache the program keeps. NNAPI runs on the host driver through the C++ backend.

    python examples/hf_decoder_on_host.py --model qwen2                # small Qwen2Config, random weights
    python examples/hf_decoder_on_host.py --model gemma --max-tokens 1 # convert_and_export_with_cache
    python examples/hf_decoder_on_host.py --checkpoint ~/models/SmolLM2-135M --prompt "The sky is"

``--model`` builds ``LlamaForCausalLM``, ``Qwen2ForCausalLM`` or ``GemmaForCausalLM`` from its
``*Config`` at a small size (``--layers``, ``--hidden``) with random weights; ``--checkpoint`` loads
a local checkpoint directory instead (nothing is downloaded), with its tokenizer when the directory
has one. ``--max-tokens`` is the most tokens one call takes (the prompt's prefill is one call when
it fits; 1 exports with ``convert_and_export_with_cache``, one token per call).

The host driver is a reference NNAPI implementation in Python, not a fast one: its tokens per
second say nothing about a phone's.
"""

from __future__ import annotations

import argparse
import time

import torch
from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
from executorch.exir import to_edge_transform_and_lower
from executorch.runtime import Runtime

import executorch_nnapi.runtime  # noqa: F401  (registers NnapiBackend, installs the host driver)
from executorch_nnapi.partitioners import NnapiPartitioner
from executorch_nnapi.tools.hf_decoders import (HF_DECODERS, export_hf_decoder, hf_decoder_from_checkpoint,
                                                hf_eager_forward, hf_method_forward, small_hf_decoder)
from executorch_nnapi.tools.language_model import delegation, generate

DEFAULT_PROMPT = [5, 17, 30, 44, 9]


def _prompt_ids(args: argparse.Namespace) -> tuple[list[int], object]:
    """(prompt token ids, tokenizer or None): the checkpoint's tokenizer on ``--prompt`` if it has one."""
    if args.checkpoint and args.prompt:
        from transformers import AutoTokenizer

        tokenizer = AutoTokenizer.from_pretrained(args.checkpoint, local_files_only=True)
        return tokenizer(args.prompt)["input_ids"], tokenizer
    if args.prompt:
        raise SystemExit("--prompt needs --checkpoint (a tokenizer); without one the prompt is token ids")
    return DEFAULT_PROMPT, None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", choices=list(HF_DECODERS), default="llama")
    parser.add_argument("--checkpoint", help="a local checkpoint directory (instead of --model)")
    parser.add_argument("--prompt", help="text (with --checkpoint's tokenizer)")
    parser.add_argument("--layers", type=int, default=2)
    parser.add_argument("--hidden", type=int, default=64, help="hidden size of the random-weight model")
    parser.add_argument("--cache", type=int, default=64, help="static cache length")
    parser.add_argument("--max-tokens", type=int, default=16, help="most tokens per call (1: one token per call)")
    parser.add_argument("--tokens", type=int, default=8, help="tokens to generate")
    args = parser.parse_args()
    prompt, tokenizer = _prompt_ids(args)
    if len(prompt) + args.tokens > args.cache:
        parser.error(f"--tokens: at most {args.cache - len(prompt)} fit the cache after a prompt of {len(prompt)}")
    if args.max_tokens >= args.cache:
        parser.error(f"--max-tokens must be below --cache ({args.cache})")
    if args.checkpoint:
        model = hf_decoder_from_checkpoint(args.checkpoint, args.cache)
    else:
        model = small_hf_decoder(args.model, max_cache_len=args.cache, num_hidden_layers=args.layers,
                                 hidden_size=args.hidden, intermediate_size=2 * args.hidden, vocab_size=512)
    eager = generate(hf_eager_forward(model, args.cache), prompt, args.tokens)
    for name, partitioner in (("nnapi", NnapiPartitioner(feature_level=30)), ("xnnpack", XnnpackPartitioner())):
        started = time.perf_counter()
        with torch.no_grad():
            edge = to_edge_transform_and_lower(export_hf_decoder(model, args.cache, args.max_tokens),
                                               partitioner=[partitioner])
            delegated = delegation(edge.exported_program().graph)
            pte = edge.to_executorch().buffer
        seconds = time.perf_counter() - started
        program = Runtime.get().load_program(pte)  # kept alive: the method does not keep it
        result = generate(hf_method_forward(program.load_method("forward"), args.max_tokens), prompt, args.tokens)
        error = max(float((got - want).abs().max() / want.abs().max()) for got, want in zip(result.logits, eager.logits))
        text = f" {tokenizer.decode(result.tokens)!r}" if tokenizer is not None else ""
        print(f"{name:8s}tokens {result.tokens}{text}  {'same as eager' if result.tokens == eager.tokens else 'DIFFER'}; "
              f"{delegated.subgraphs} subgraph(s), {len(delegated.cpu_tensor_ops)} tensor op(s) on the CPU, .pte {len(pte)} bytes, lowered in {seconds:.1f} s; prefill of {len(prompt)} "
              f"in {result.prefill_seconds * 1000:.1f} ms, decode {result.decode_tokens_per_second:.1f} tokens/s; "
              f"largest relative logit error {error:.2e}")


if __name__ == "__main__":
    main()
