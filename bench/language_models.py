"""ExecuTorch's llama example at the sizes people ship, NnapiPartitioner beside XnnpackPartitioner
in one run (issue 34 item 3).

    python bench/language_models.py                                  # both architectures, float and int8
    python bench/language_models.py smollm2-135m --precision float    # some rows
    python bench/language_models.py smollm2-135m --layers 2           # fewer layers, same shapes

Architectures (random weights, a KV cache, a token count dynamic in [1, max_seq_len - 1],
context 256): SmolLM2-135M's (dim 576, 30 layers, 9 heads, 3 KV heads, hidden 1536, vocab 49152,
rope theta 1e5) and Llama-3.2-1B's (dim 2048, 16 layers, 32 heads, 8 KV heads, hidden 8192,
vocab 128256, rope theta 5e5). Precisions: float, and torchao's int8 weight-only (NNAPI: the
linears and the token embedding; XNNPACK: the linears, as ExecuTorch has no CPU kernel for the
int8 embedding's ``dequantize_affine``).

Each (architecture, precision, backend) runs in a process of its own, one after the other, so
that its peak resident memory is its own. A row: lowering time (export -> .pte, wall and CPU
seconds: the machine may be shared), the process's peak resident memory up to the end of
lowering (the model's own weights included; "model" gives the resident memory before export),
the .pte size, delegated subgraphs / tensor ops left on the CPU (/ all CPU nodes, size arithmetic
included), the seconds of a first generation (one-time costs: the host driver compiles a model for
each token count it meets, the prefill's and the decode steps'), then, from a second generation
through the same loaded method, the prefill time of a 5-token prompt and the decode speed on this
machine (NNAPI: the C++ backend on the host driver, a reference NNAPI in Python, so its speed says
nothing about a phone's), and whether the greedy tokens equal eager's (with the largest relative logit error).
"""

from __future__ import annotations

import argparse
import dataclasses
import gc
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

import torch

from executorch_nnapi.tools.language_model import (Generation, LlamaConfig, delegation, eager_forward, export_llama,
                                                   generate, method_forward, small_llama)

FEATURE_LEVEL = 30
PROMPT = [5, 17, 301, 44, 9]
ARCHITECTURES = {
    "smollm2-135m": LlamaConfig(dim=576, n_layers=30, n_heads=9, n_kv_heads=3, hidden_dim=1536, vocab_size=49152,
                                rope_theta=1e5, max_context_len=256, max_seq_len=64),
    "llama-3.2-1b": LlamaConfig(dim=2048, n_layers=16, n_heads=32, n_kv_heads=8, hidden_dim=8192,
                                vocab_size=128256, rope_theta=5e5, max_context_len=256, max_seq_len=64),
}
PRECISIONS = ("float", "int8")
BACKENDS = ("nnapi", "xnnpack")


@dataclasses.dataclass
class Row:
    """One (architecture, precision, backend) measured in its own process."""
    model: str
    backend: str
    lower_s: float
    lower_cpu_s: float
    model_rss_gb: float
    peak_rss_gb: float
    pte_mb: float
    subgraphs: int
    cpu_tensor_ops: int
    cpu_nodes: int
    first_generation_s: float
    prefill_ms: float
    decode_tokens_per_s: float
    same_tokens: bool
    error: float

    def cells(self) -> list[str]:
        return [self.model, self.backend, f"{self.lower_s:.0f} ({self.lower_cpu_s:.0f})",
                f"{self.peak_rss_gb:.2f} ({self.model_rss_gb:.2f})", f"{self.pte_mb:.0f}",
                f"{self.subgraphs} / {self.cpu_tensor_ops} / {self.cpu_nodes}", f"{self.first_generation_s:.2f}",
                f"{self.prefill_ms:.0f}",
                f"{self.decode_tokens_per_s:.2f}", f"{'yes' if self.same_tokens else 'NO'} ({self.error:.1e})"]


HEADER = ["model", "backend", "lowering s (CPU s)", "peak RSS GB (model)", ".pte MB",
          "subgraphs / CPU tensor ops / CPU nodes", "first generation s", "prefill ms", "decode tokens/s", "tokens = eager (logit error)"]


def _rss_gb() -> float:
    """The process's resident memory now."""
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * resource.getpagesize() / 1e9


def _peak_rss_gb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 / 1e9


def _model(config: LlamaConfig, precision: str, backend: str) -> torch.nn.Module:
    """The example at ``config``, float or with torchao's int8 weight-only on what ``backend`` takes."""
    model = small_llama(config)
    if precision == "float":
        return model
    from torchao.quantization import Int8WeightOnlyConfig, quantize_

    modules = (torch.nn.Linear, torch.nn.Embedding) if backend == "nnapi" else (torch.nn.Linear,)
    quantize_(model, Int8WeightOnlyConfig(), filter_fn=lambda m, _: isinstance(m, modules))
    return model.eval()


def _partitioner(backend: str):
    if backend == "nnapi":
        from executorch_nnapi.partitioners import NnapiPartitioner
        return NnapiPartitioner(feature_level=FEATURE_LEVEL)
    from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
    return XnnpackPartitioner()


def measure(name: str, precision: str, backend: str, layers: int | None, tokens: int) -> Row:
    """Builds, lowers and runs one row in this process. Nothing is held twice that need not be: the
    .pte goes to a file, the model is dropped while the .pte runs, and eager generates last with
    the same model built again (the same seed)."""
    from executorch.exir import to_edge_transform_and_lower

    config = ARCHITECTURES[name]
    if layers:
        config = dataclasses.replace(config, n_layers=layers)
    model = _model(config, precision, backend)
    gc.collect()
    model_rss = _rss_gb()
    started, started_cpu = time.perf_counter(), time.process_time()
    with torch.no_grad():
        edge = to_edge_transform_and_lower(export_llama(model, config.max_tokens), partitioner=[_partitioner(backend)])
        delegated = delegation(edge.exported_program().graph)
        program = edge.to_executorch()
    lower_s, lower_cpu_s = time.perf_counter() - started, time.process_time() - started_cpu
    peak = _peak_rss_gb()
    with tempfile.NamedTemporaryFile(suffix=".pte") as pte:
        program.write_to_file(pte)
        pte.flush()
        del edge, program, model
        gc.collect()
        first_s, lowered = _run(pte.name, tokens)
        pte_mb = os.path.getsize(pte.name) / 1e6
    eager = generate(eager_forward(_model(config, precision, backend)), PROMPT, tokens)
    error = max(float((got - want).abs().max() / want.abs().max()) for got, want in zip(lowered.logits, eager.logits))
    label = f"{name}{f' ({layers} layers)' if layers else ''}, {precision}"
    return Row(label, backend, lower_s, lower_cpu_s, model_rss, peak, pte_mb, delegated.subgraphs,
               len(delegated.cpu_tensor_ops), delegated.cpu_nodes, first_s,
               lowered.prefill_seconds * 1000, lowered.decode_tokens_per_second, lowered.tokens == eager.tokens, error)


def _run(pte: str, tokens: int) -> tuple[float, Generation]:
    """Greedy generation with the .pte file on this machine (NNAPI: the host driver at FEATURE_LEVEL),
    twice: the first generation's seconds (one-time costs included: a backend's compilation for
    each token count it meets, the first step's allocations), then the second generation, the
    steady state the prefill and decode columns report."""
    from executorch.runtime import Runtime

    import executorch_nnapi.runtime  # noqa: F401  (registers NnapiBackend, installs the host driver)
    from executorch_nnapi.host_driver import get_driver

    get_driver().feature_level = FEATURE_LEVEL
    program = Runtime.get().load_program(pte)  # kept alive: the method does not keep it
    forward = method_forward(program.load_method("forward"))
    started = time.perf_counter()
    generate(forward, PROMPT, tokens)
    first_s = time.perf_counter() - started
    return first_s, generate(forward, PROMPT, tokens)


def _in_subprocess(args: list[str]) -> Row:
    """``measure`` in a child process (its own peak memory), its Row read from the last line of its output."""
    done = subprocess.run([sys.executable, __file__, "--worker", *args], capture_output=True, text=True)
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or not lines:
        raise RuntimeError((done.stderr.strip().splitlines() or ["no output"])[-1][:300])
    return Row(**json.loads(lines[-1]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("models", nargs="*", help=f"of {', '.join(ARCHITECTURES)} (default: all)")
    parser.add_argument("--precision", choices=PRECISIONS, action="append", help="default: both")
    parser.add_argument("--backend", choices=BACKENDS, action="append", help="default: both")
    parser.add_argument("--layers", type=int, help="override the architecture's number of layers")
    parser.add_argument("--tokens", type=int, default=8, help="tokens generated per row (default 8)")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    unknown = [name for name in args.models if name not in ARCHITECTURES]
    if unknown:
        parser.error(f"unknown architecture(s) {', '.join(unknown)}; known: {', '.join(ARCHITECTURES)}")
    if args.worker:  # models[0], precision[0], backend[0]: one row, printed as JSON
        row = measure(args.models[0], args.precision[0], args.backend[0], args.layers, args.tokens)
        print(json.dumps(dataclasses.asdict(row)))
        return
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads; NNAPI at feature level {FEATURE_LEVEL} "
          "on the host driver")
    print("| " + " | ".join(HEADER) + " |\n|" + "---|" * len(HEADER), flush=True)
    for name in args.models or ARCHITECTURES:
        for precision in args.precision or PRECISIONS:
            for backend in args.backend or BACKENDS:
                worker = [name, "--precision", precision, "--backend", backend, "--tokens", str(args.tokens)]
                worker += ["--layers", str(args.layers)] if args.layers else []
                try:
                    cells = _in_subprocess(worker).cells()
                except Exception as e:  # one failing row must not hide the others
                    cells = [name, backend, f"error: {e}"] + [""] * (len(HEADER) - 3)
                print("| " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
