"""Peak resident memory of the NNAPI backend while loading and compiling ExecuTorch's llama example
with torchao's int8 weight-only linears and embedding, against the size of its .pte.

    python bench/llama_weight_memory.py                      # dim 2048, 4 layers, vocab 512
    python bench/llama_weight_memory.py --dim 1024 --layers 2

The .pte is built once (cached under --workdir). Then, per way of loading it, a fresh process
loads the program (from its file, as ExecuTorch's MmapDataLoader maps it, or from bytes in memory),
loads the method and generates a few tokens on the host driver. The peak is the process's highest
resident set (VmHWM) up to the first NNAPI computation, that is through loading and compiling,
above its resident set before loading; the host driver's working memory while computing is not
counted (a device's is its own). Also printed: how many bytes of constants the NNAPI models were
given from NNAPI memory mapping the file and by pointer, and that the first logits equal eager's.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import subprocess
import sys

import benchmark_page  # first: the run's stamp reads the load average at import

PROMPT = [5, 17, 301, 44, 9]


def _status() -> dict[str, int]:
    """/proc/self/status's memory lines, in bytes."""
    out = {}
    with open("/proc/self/status") as f:
        for line in f:
            key, _, value = line.partition(":")
            if value.strip().endswith("kB"):
                out[key] = int(value.split()[0]) * 1024
    return out


def build(args: argparse.Namespace, pte: pathlib.Path, expected: pathlib.Path) -> None:
    """Lowers the int8 weight-only model to ``pte`` and saves eager's prefill logits."""
    import copy

    import torch
    from executorch.exir import to_edge_transform_and_lower
    from torchao.quantization import Int8WeightOnlyConfig, quantize_

    from executorch_nnapi.partitioners import NnapiPartitioner
    from executorch_nnapi.tools.language_model import LlamaConfig, eager_forward, export_llama, small_llama

    config = LlamaConfig(dim=args.dim, n_layers=args.layers, n_heads=args.dim // 64, vocab_size=args.vocab,
                         max_context_len=64)
    model = small_llama(config)
    quantize_(model, Int8WeightOnlyConfig(), filter_fn=lambda m, _: isinstance(m, (torch.nn.Linear, torch.nn.Embedding)))
    # On a copy: the prefill fills the eager model's KV caches, which are exported as initial values.
    logits = eager_forward(copy.deepcopy(model))(torch.tensor([PROMPT]), torch.tensor([0]))
    torch.save(logits, expected)
    program = export_llama(model.eval(), config.max_tokens)
    with torch.no_grad():
        edge = to_edge_transform_and_lower(program, partitioner=[NnapiPartitioner(feature_level=30)])
    pte.write_bytes(edge.to_executorch().buffer)


def measure(mode: str, pte: pathlib.Path, expected: pathlib.Path) -> dict:
    """Loads ``pte`` (mode "file" or "buffer") and runs a prefill; the peak up to the first NNAPI
    computation, above the resident set before loading."""
    import torch
    from executorch.runtime import Runtime

    import executorch_nnapi.runtime  # noqa: F401  (NnapiBackend + host driver)
    from executorch_nnapi.host_driver import execution, get_driver
    from executorch_nnapi.runtime import backend_library

    get_driver().feature_level = 30
    peak: dict[str, int] = {}
    run = execution.Execution.run

    def first_run(self):  # the first computation: loading and compiling are done
        if not peak:
            peak.update(_status())
        return run(self)

    execution.Execution.run = first_run
    data = pte.read_bytes() if mode == "buffer" else None
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")  # VmHWM := current resident set
    before = _status()
    program = Runtime.get().load_program(data if data is not None else str(pte))
    method = program.load_method("forward")
    logits = method.execute([torch.tensor([PROMPT]), torch.tensor([0])])[0]
    want = torch.load(expected)
    error = float((logits - want).abs().max() / want.abs().max())
    stats = getattr(backend_library, "constant_stats", lambda: (0, 0))()
    return {"pte": pte.stat().st_size, "peak": peak["VmHWM"] - before["VmRSS"],
            "anon": peak["RssAnon"] - before["RssAnon"], "file": peak["RssFile"] - before["RssFile"],
            "from_memory": stats[0], "by_pointer": stats[1], "error": error,
            "bytes_held": len(data) if data is not None else 0}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--dim", type=int, default=2048)
    parser.add_argument("--layers", type=int, default=4)
    parser.add_argument("--vocab", type=int, default=512)
    parser.add_argument("--workdir", default="/tmp/executorch_nnapi_weight_memory")
    parser.add_argument("--modes", nargs="+", default=["file", "buffer"])
    parser.add_argument("--measure", help=argparse.SUPPRESS)  # internal: one measurement in this process
    benchmark_page.add_markdown_option(parser)
    args = parser.parse_args()
    work = pathlib.Path(args.workdir)
    work.mkdir(parents=True, exist_ok=True)
    name = f"llama_int8_d{args.dim}_l{args.layers}_v{args.vocab}"
    pte, expected = work / f"{name}.pte", work / f"{name}_logits.pt"
    if args.measure:
        print(json.dumps(measure(args.measure, pte, expected)))
        return
    if not pte.exists():
        build(args, pte, expected)
    table = ["| loaded from | .pte MB | peak above start, loading + compiling, MB | x .pte | anonymous MB | file "
             "MB | constants from file memory MB | by pointer MB | prefill vs eager |",
             "|---|---|---|---|---|---|---|---|---|"]
    print("\n".join(table))
    mb = 1 << 20
    for mode in args.modes:
        command = [sys.executable, __file__, *[a for a in sys.argv[1:] if a != "--markdown"], "--measure", mode]
        out = subprocess.run(command, check=True, capture_output=True, text=True, env=os.environ).stdout
        r = json.loads(out.strip().splitlines()[-1])
        table.append(f"| {mode} | {r['pte'] / mb:.0f} | {r['peak'] / mb:.0f} | {r['peak'] / r['pte']:.2f} | "
                     f"{r['anon'] / mb:.0f} | {r['file'] / mb:.0f} | {r['from_memory'] / mb:.0f} | "
                     f"{r['by_pointer'] / mb:.0f} | {r['error']:.1e} |")
        print(table[-1], flush=True)
    benchmark_page.write_if_asked(args, "llama_weight_memory", "Peak memory while loading and compiling an int8 "
                                  "llama against its .pte", __doc__.split("\n\n")[2], table)


if __name__ == "__main__":
    main()
