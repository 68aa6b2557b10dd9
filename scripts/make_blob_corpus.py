"""Writes the blob fuzzer's seed corpus, runtime/checks/blob_corpus/: the NNAPI delegate blobs of
the programs the runtime's checks run (tests/runtime_checks.py: float, 8-bit, dynamic, control
flow, a llama with a KV cache, two subgraphs, two methods), one file per delegate. Between them
they use every part of the blob: named-data weights, per-channel quantization, a shape program,
referenced models (IF), run-time expressions, int64 arguments.

    python scripts/make_blob_corpus.py          # after a change of the blob schema or writer

scripts/fuzz_blob.sh fuzzes from these seeds; tests/runtime/test_blob_fuzzer.py replays them.
"""

from __future__ import annotations

import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from executorch.exir.lowered_backend_module import get_lowered_submodules  # noqa: E402

from runtime_checks import PROGRAMS, lower_program  # noqa: E402


def main() -> None:
    corpus = ROOT / "runtime" / "checks" / "blob_corpus"
    corpus.mkdir(parents=True, exist_ok=True)
    for old in corpus.glob("*.blob"):
        old.unlink()
    seen = set()
    for name in PROGRAMS:
        edge = lower_program(name)
        for method in edge.methods:
            graph_module = edge.exported_program(method).graph_module
            for k, (_, lowered, _) in enumerate(get_lowered_submodules(graph_module)):
                if lowered.processed_bytes in seen:
                    continue  # two_methods' delegates are float's and control_flow's
                seen.add(lowered.processed_bytes)
                path = corpus / f"{name}_{method}_{k}.blob"
                path.write_bytes(lowered.processed_bytes)
                print(f"{path.relative_to(ROOT)}: {len(lowered.processed_bytes)} bytes")


if __name__ == "__main__":
    main()
