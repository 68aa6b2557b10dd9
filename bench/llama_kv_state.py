"""Bytes copied per decode step of ExecuTorch's llama example with a KV cache, with the cache
kept by ExecuTorch (the partitioner's ``take_over_mutable_buffers=False``: the delegate reads
the cache as an input, returns the new cache, and ExecuTorch copies it back into its buffer)
and kept by the delegate as its state (the default: NNAPI memory bound to every execution).

    python bench/llama_kv_state.py                        # contexts 64 and 256
    python bench/llama_kv_state.py --contexts 32 128 --layers 1

Per context length and mode, for the decode steps (one token each) after a prefill, it prints
per step: the bytes of tensors handed to NNAPI by pointer (inputs and outputs: on a device NNAPI
copies them through shared memory to the driver), the run-time values (GATHER indices at the
position, also by pointer), the bytes the runtime copies itself (int64 tokens narrowed), the bytes
ExecuTorch copies back into mutated buffers (``copy_`` of each cache), their sum (the bytes copied
per step, staging counted in the tensors), and the state bound as NNAPI memory (not copied). The generated tokens are checked against eager. The counts come from the
backend (``executorch_nnapi.runtime.backend_library.transfer_stats``) and from the lowered
program's ``copy_`` nodes; they do not depend on the machine.
"""

from __future__ import annotations

import argparse
import copy

import benchmark_page  # first: the run's stamp reads the load average at import
import torch
from executorch.exir import to_edge_transform_and_lower
from executorch.runtime import Runtime

import executorch_nnapi.runtime  # noqa: F401  (NnapiBackend + host driver)
from executorch_nnapi.host_driver import get_driver
from executorch_nnapi.partitioners import NnapiPartitioner
from executorch_nnapi.runtime.backend_library import transfer_stats
from executorch_nnapi.tools.language_model import (LlamaConfig, eager_forward, export_llama, generate,
                                                   method_forward, small_llama)

PROMPT = [5, 17, 301, 44, 9]


def _lower(model: torch.nn.Module, config: LlamaConfig, take_over: bool) -> tuple[bytes, int, int, int]:
    """(.pte, delegates, nodes left on the CPU, bytes ExecuTorch's copy_ nodes write per call), the
    nodes counted in the program ExecuTorch runs (with the write-back of mutated buffers it adds)."""
    program = export_llama(model, config.max_tokens)
    with torch.no_grad():
        edge = to_edge_transform_and_lower(
            program, partitioner=[NnapiPartitioner(feature_level=30, take_over_mutable_buffers=take_over)])
        executorch_program = edge.to_executorch()
    delegate = torch.ops.higher_order.executorch_call_delegate
    calls = [n for n in executorch_program.exported_program().graph.nodes if n.op == "call_function"]
    delegates = sum(n.target is delegate for n in calls)
    cpu = sum(n.target is not delegate and "getitem" not in str(n.target) for n in calls)
    # The write-back of mutated buffers ExecuTorch inserts into the program: one copy_ each.
    copies = [n for n in calls if "copy_" in str(n.target)]
    copy_bytes = sum(n.args[0].meta["val"].nbytes for n in copies)
    return executorch_program.buffer, delegates, cpu, copy_bytes


def measure(context: int, layers: int, dim: int, tokens: int, take_over: bool) -> list:
    config = LlamaConfig(dim=dim, n_layers=layers, max_context_len=context)
    model = small_llama(config)
    pte, delegates, cpu, copy_bytes = _lower(copy.deepcopy(model), config, take_over)
    get_driver().feature_level = 30
    program = Runtime.get().load_program(pte)
    method = program.load_method("forward")
    forward = method_forward(method)
    forward(torch.tensor([PROMPT]), torch.tensor([0]))  # the prefill, not counted
    before = transfer_stats()
    result = generate(forward, PROMPT, tokens)  # a prefill again at 0, then tokens - 1 steps
    moved = transfer_stats() - before
    eager = generate(eager_forward(copy.deepcopy(model)), PROMPT, tokens)
    assert result.tokens == eager.tokens, (result.tokens, eager.tokens)
    # Subtract the prefill's share: measure it alone.
    before = transfer_stats()
    forward(torch.tensor([PROMPT]), torch.tensor([0]))
    prefill = transfer_stats() - before
    steps = tokens - 1
    per_step = {name: (getattr(moved, name) - getattr(prefill, name)) // steps
                for name in ("pointer_bytes", "run_time_bytes", "staged_bytes", "memory_bytes")}
    copied = per_step["pointer_bytes"] + per_step["run_time_bytes"] + copy_bytes  # staging: part of the tensors'
    mode = "delegate state" if take_over else "ExecuTorch buffers"
    return [context, mode, f"{delegates} / {cpu}", f"{per_step['pointer_bytes']:,}", f"{per_step['run_time_bytes']:,}",
            f"{per_step['staged_bytes']:,}", f"{copy_bytes:,}", f"{copied:,}", f"{per_step['memory_bytes']:,}"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--contexts", type=int, nargs="+", default=[64, 256])
    parser.add_argument("--layers", type=int, default=2)
    parser.add_argument("--dim", type=int, default=64)
    parser.add_argument("--tokens", type=int, default=5, help="tokens generated (one prefill, then steps)")
    benchmark_page.add_markdown_option(parser)
    args = parser.parse_args()
    header = ["context", "KV cache kept by", "subgraphs / CPU nodes", "tensors by pointer / step",
              "run-time indices / step", "runtime staging / step", "ExecuTorch copy_ / step", "copied / step",
              "state in NNAPI memory / step"]
    table = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    print("\n".join(table))
    for context in args.contexts:
        for take_over in (False, True):
            row = measure(context, args.layers, args.dim, args.tokens, take_over)
            table.append("| " + " | ".join(str(c) for c in row) + " |")
            print(table[-1], flush=True)
    benchmark_page.write_if_asked(args, "llama_kv_state", "Bytes copied per decode step: the KV cache kept by "
                                  "ExecuTorch or by the delegate", __doc__.split("\n\n")[2], table)


if __name__ == "__main__":
    main()
