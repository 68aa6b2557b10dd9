"""A sweep over the models users bring, to find the next failure before a user does.

    python bench/model_sweep.py                   # sweep everything not yet measured (resumable)
    python bench/model_sweep.py --only timm       # timm families only (or: --only hf)
    python bench/model_sweep.py --limit 20        # at most 20 new models this run
    python bench/model_sweep.py --retry-failed    # measure again what failed or timed out
    python bench/model_sweep.py --markdown        # write docs/model_sweep.md from the results
    python bench/model_sweep.py --one timm:resnet10t   # one model in this process (what each worker runs)

The candidates: the smallest model (by parameters, under 30M) of every timm architecture family
(``timm.list_modules()``), and every ``transformers`` model type with a base model class
(``MODEL_MAPPING_NAMES``) that builds offline from its default config shrunk to a small size, with
random weights. Each model runs in its own process under a time limit: export, NnapiPartitioner
(feature level 30) and XnnpackPartitioner, each .pte run against eager torch (the NNAPI one on the
host driver). Results are appended to a JSON-lines file (``--results``), so an interrupted sweep
resumes where it stopped; ``--markdown`` turns them into docs/model_sweep.md. It runs outside CI.
"""

from __future__ import annotations

import argparse
import collections
import dataclasses
import inspect
import json
import os
import pathlib
import subprocess
import sys
import time
from typing import Any
import traceback
from typing import Any

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

CACHE = pathlib.Path(os.environ.get("XDG_CACHE_HOME", pathlib.Path.home() / ".cache")) / "executorch-nnapi"
# The results are kept in the repository beside the page they make, so a sweep resumes on any clone.
DEFAULT_RESULTS = ROOT / "bench" / "results" / "model_sweep.jsonl"
PARTIAL = "nnapi-half "   # the prefix of the row a child prints before XNNPACK's half
PARAMS_CACHE = CACHE / "model_sweep" / "timm_params.json"
DEFAULT_PAGE = ROOT / "docs" / "model_sweep.md"
MAX_PARAMS = 30_000_000
FEATURE_LEVEL = 30

# Attributes a transformers config is shrunk to (where it has them): a model of a few hundred
# thousand parameters still has every idiom of its architecture.
SMALL_CONFIG = {
    "hidden_size": 64, "d_model": 64, "n_embd": 64, "embed_dim": 64, "dim": 64,
    "num_hidden_layers": 2, "n_layer": 2, "num_layers": 2, "n_layers": 2, "encoder_layers": 2,
    "decoder_layers": 2, "num_encoder_layers": 2, "num_decoder_layers": 2,
    "num_attention_heads": 4, "n_head": 4, "n_heads": 4, "encoder_attention_heads": 4,
    "decoder_attention_heads": 4, "num_heads": 4,
    "num_key_value_heads": 2, "intermediate_size": 128, "ffn_dim": 128, "encoder_ffn_dim": 128,
    "decoder_ffn_dim": 128, "d_ff": 128, "n_inner": 128, "hidden_dim": 128,
    "vocab_size": 1000, "max_source_positions": 64, "num_experts": 4, "num_local_experts": 4,
}
NESTED_CONFIGS = ("text_config", "vision_config", "audio_config", "encoder", "decoder", "speech_config",
                  "backbone_config", "qformer_config", "depth_decoder_config")
TOKENS = 16


@dataclasses.dataclass
class Result:
    """One model's row: how far it got, and what each partitioner made of it."""

    key: str
    status: str                          # ok | build | export | nnapi | xnnpack-only | timeout | crash
    error: str = ""
    params: int = 0
    nnapi_subgraphs: int | None = None
    nnapi_cpu_ops: int | None = None
    nnapi_left: str = ""
    nnapi_lower_s: float | None = None
    nnapi_error: float | None = None
    nnapi_failure: str = ""
    xnnpack_subgraphs: int | None = None
    xnnpack_cpu_ops: int | None = None
    xnnpack_lower_s: float | None = None
    xnnpack_error: float | None = None
    xnnpack_failure: str = ""
    commit: str = ""                     # the repository's commit when the row was measured
    prepared: str = ""                   # what the model was prepared with before export ("dense experts")


# -- candidates ---------------------------------------------------------------------------------

def timm_parameter_counts() -> dict[str, int]:
    """Parameters of every timm model, counted on the meta device (no memory, no weights);
    cached, since building 1,300 models takes a minute."""
    if PARAMS_CACHE.exists():
        return json.loads(PARAMS_CACHE.read_text())
    import timm
    import torch

    counts: dict[str, int] = {}
    for name in timm.list_models():
        try:
            with torch.device("meta"):
                module = timm.create_model(name, pretrained=False)
            counts[name] = sum(p.numel() for p in module.parameters())
        except Exception:  # noqa: BLE001 — a model that does not build on meta is left out
            counts[name] = -1
    PARAMS_CACHE.parent.mkdir(parents=True, exist_ok=True)
    PARAMS_CACHE.write_text(json.dumps(counts))
    return counts


def timm_candidates() -> list[str]:
    """The smallest model under MAX_PARAMS of every timm module (architecture family)."""
    import timm

    counts = timm_parameter_counts()
    keys = []
    for family in timm.list_modules():
        sized = [(counts.get(name, -1), name) for name in timm.list_models(module=family)]
        sized = [(n, name) for n, name in sized if 0 < n <= MAX_PARAMS]
        if sized:
            keys.append(f"timm:{min(sized)[1]}")
    return keys


def hf_candidates() -> list[str]:
    """Every transformers model type with a base model class."""
    from transformers.models.auto.modeling_auto import MODEL_MAPPING_NAMES

    return [f"hf:{model_type}" for model_type in sorted(MODEL_MAPPING_NAMES)]


# -- building one model -------------------------------------------------------------------------

def shrink_config(config: Any) -> None:
    """Shrink a transformers config in place (SMALL_CONFIG, nested configs, per-stage depths)."""
    for name, value in SMALL_CONFIG.items():
        current = getattr(config, name, None)
        if isinstance(current, int) and not isinstance(current, bool) and current > value:
            setattr(config, name, value)
    heads = getattr(config, "num_attention_heads", None)
    if isinstance(getattr(config, "head_dim", None), int) and isinstance(heads, int):
        hidden = getattr(config, "hidden_size", None)
        if isinstance(hidden, int):
            config.head_dim = max(hidden // heads, 8)
    _clamp_routing(config)
    kv = getattr(config, "num_key_value_heads", None)
    if isinstance(kv, int) and isinstance(heads, int) and heads % kv:
        config.num_key_value_heads = heads
    _clamp_token_ids(config)
    if isinstance(getattr(config, "depths", None), (list, tuple)):
        config.depths = [min(d, 1) for d in config.depths]
    for name in NESTED_CONFIGS:
        nested = getattr(config, name, None)
        if nested is not None and hasattr(nested, "to_dict"):
            shrink_config(nested)
    config._attn_implementation = "eager"


EXPERT_COUNTS = ("num_experts", "num_local_experts", "n_routed_experts", "moe_num_experts")
TOP_KS = ("num_experts_per_tok", "num_experts_per_token", "moe_top_k", "moe_k", "top_k", "topk_group")


def _clamp_routing(config: Any) -> None:
    """A mixture of experts shrunk to few experts routes each token to at most that many (top-k
    beyond the expert count fails to build), in one group."""
    experts = [getattr(config, n) for n in EXPERT_COUNTS if isinstance(getattr(config, n, None), int)]
    if not experts or min(experts) <= 0:
        return
    count = min(experts)
    if isinstance(getattr(config, "n_routed_experts", None), int):
        config.n_routed_experts = count
    if isinstance(getattr(config, "n_group", None), int):
        config.n_group = 1
    for name in TOP_KS:
        value = getattr(config, name, None)
        if isinstance(value, int) and not isinstance(value, bool) and value > min(2, count):
            setattr(config, name, 1 if name == "topk_group" else min(2, count))


def _clamp_token_ids(config: Any) -> None:
    """Special token ids inside the shrunk vocabulary (embeddings check their padding index)."""
    vocab = getattr(config, "vocab_size", None)
    if not isinstance(vocab, int):
        return
    for name, value in list(vars(config).items()):
        if name.endswith("_token_id") and isinstance(value, int) and value >= vocab:
            setattr(config, name, vocab - 1 - len(name) % 4)
        elif name.endswith("_tokens") and isinstance(value, (list, tuple)):
            setattr(config, name, [t for t in value if isinstance(t, int) and t < vocab])


def _image_size(config: Any) -> int:
    for source in (config, getattr(config, "vision_config", None)):
        size = getattr(source, "image_size", None) if source is not None else None
        if isinstance(size, int):
            return size
        if isinstance(size, (list, tuple)) and size:
            return int(size[0])
    return 224


def hf_inputs(module: Any, config: Any) -> dict[str, Any]:
    """Example keyword inputs for a transformers model, from its main input's name."""
    import torch

    generator = torch.Generator().manual_seed(3)
    main = getattr(module, "main_input_name", "input_ids")
    vocab = getattr(config, "vocab_size", None) or getattr(getattr(config, "text_config", None), "vocab_size", 1000)
    if main == "input_ids":
        inputs = {"input_ids": torch.randint(3, min(int(vocab), 1000), (1, TOKENS), generator=generator)}
    elif main == "pixel_values":
        channels = getattr(config, "num_channels", 3)
        size = _image_size(config)
        inputs = {"pixel_values": torch.randn(1, channels, size, size, generator=generator)}
    elif main == "input_values":
        inputs = {"input_values": torch.randn(1, 16000, generator=generator)}
    elif main == "input_features":
        bins = getattr(config, "num_mel_bins", None) or getattr(config, "feature_size", 80)
        frames = 2 * getattr(config, "max_source_positions", 64)
        inputs = {"input_features": torch.randn(1, bins, frames, generator=generator)}
    else:
        raise ValueError(f"main input {main!r}: no example input for it in the sweep")
    parameters = inspect.signature(module.forward).parameters
    if "decoder_input_ids" in parameters and main != "input_ids":
        inputs["decoder_input_ids"] = torch.randint(3, min(int(vocab), 1000), (1, 8), generator=generator)
    elif "decoder_input_ids" in parameters:
        inputs["decoder_input_ids"] = inputs["input_ids"][:, :8].clone()
    return inputs


class TensorOutputs:
    """Wraps a model so it takes positional tensors and returns a tuple of tensors (export-friendly):
    its ``last_hidden_state`` when it has one (some models' first output is computed from the
    weights alone, e.g. Deformable DETR's reference points from its query embeddings), else its
    first tensor output (inside nested tuples too: a backbone's ``feature_maps``)."""

    @staticmethod
    def wrap(module: Any, names: list[str]) -> Any:
        import torch
        import torch.utils._pytree as pytree

        class Wrapped(torch.nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.module = module

            def forward(self, *args: torch.Tensor) -> tuple[torch.Tensor, ...]:
                out = self.module(**dict(zip(names, args)))
                if isinstance(out, torch.Tensor):
                    return (out,)
                main = out.get("last_hidden_state") if hasattr(out, "get") else None
                if isinstance(main, torch.Tensor):
                    return (main,)
                values = out.to_tuple() if hasattr(out, "to_tuple") else tuple(out)
                # The first tensor, nested ones included (a backbone's feature_maps tuple).
                return tuple(v for v in pytree.tree_leaves(values) if isinstance(v, torch.Tensor))[:1]

        return Wrapped().eval()


def build(key: str):
    """(module, inputs tuple, parameter count, preparation) for a candidate key, random weights, eval
    mode. A mixture of experts gets the documented preparation for NNAPI,
    ``executorch_nnapi.tools.mixture_of_experts.use_dense_experts`` (both partitioners then see the
    same model); the preparation names it ("" for none)."""
    import torch
    from outside_models import randomize_norms

    torch.manual_seed(0)
    source, name = key.split(":", 1)
    prepared = ""
    if source == "timm":
        import timm

        module = timm.create_model(name, pretrained=False).eval()
        size = module.pretrained_cfg.get("input_size", (3, 224, 224))
        inputs = (torch.randn(1, *size, generator=torch.Generator().manual_seed(1)),)
    else:
        from transformers import AutoConfig, AutoModel

        from executorch_nnapi.tools.mixture_of_experts import expert_modules, use_dense_experts

        # transformers' own switch for its data-dependent tensor checks (torch._check on a tensor
        # exports as aten._is_all_true, which no ExecuTorch backend takes): docs/exporting.md.
        os.environ.setdefault("TRANSFORMERS_DISABLE_TORCH_CHECK", "1")

        config = AutoConfig.for_model(name)
        shrink_config(config)
        base = AutoModel.from_config(config).eval()
        if expert_modules(base):
            use_dense_experts(base)
            prepared = "dense experts"
        named = hf_inputs(base, config)
        module, inputs = TensorOutputs.wrap(base, list(named)), tuple(named.values())
    randomize_norms(module)
    params = sum(p.numel() for p in module.parameters())
    with torch.no_grad():
        module(*inputs)  # builds = runs eagerly
    return module, inputs, params, prepared


# -- measuring one model (in its own process) -----------------------------------------------------

def _failure(exc: BaseException) -> str:
    """The exception's type and first line, without the tensor dumps some messages carry."""
    text = f"{type(exc).__name__}: {str(exc).strip().splitlines()[0] if str(exc).strip() else ''}"
    return text[:300]


def _partitioner_row(example, partitioner, result: Result, prefix: str) -> bool:
    """Lower with one partitioner, run the .pte against eager; fill ``<prefix>_*``. True if it ran."""
    from example_models import lower, max_relative_error

    try:
        seconds, (subgraphs, cpu_ops), pte = lower(example, partitioner)
        setattr(result, f"{prefix}_lower_s", round(seconds, 1))
        setattr(result, f"{prefix}_subgraphs", subgraphs)
        setattr(result, f"{prefix}_cpu_ops", cpu_ops)
        setattr(result, f"{prefix}_error", max_relative_error(pte, example))
        return True
    except Exception as exc:  # noqa: BLE001 — the sweep records every failure and goes on
        setattr(result, f"{prefix}_failure", _failure(exc))
        traceback.print_exc()
        return False


def measure_one(key: str) -> Result:
    """Build, export, lower with both partitioners and run one model."""
    import torch
    from example_models import Example
    from outside_models import cpu_op_counts
    from torch.export import export

    from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner
    from executorch_nnapi.partitioners import NnapiPartitioner

    try:
        module, inputs, params, prepared = build(key)
    except Exception as exc:  # noqa: BLE001
        return Result(key, "build", _failure(exc))
    result = Result(key, "ok", params=params, commit=_commit(), prepared=prepared)
    try:
        export(module, inputs)
    except Exception as exc:  # noqa: BLE001
        result.status, result.error = "export", _failure(exc)
        return result
    example = Example(module, inputs)
    partitioner = NnapiPartitioner(FEATURE_LEVEL)
    nnapi_ok = _partitioner_row(example, partitioner, result, "nnapi")
    result.nnapi_left = cpu_op_counts(partitioner) if nnapi_ok else ""
    if nnapi_ok:   # kept by the parent if XNNPACK's half then crashes or runs out of time
        print(PARTIAL + json.dumps(dataclasses.asdict(result)), flush=True)
    torch.manual_seed(0)
    xnnpack_ok = _partitioner_row(example, XnnpackPartitioner(), result, "xnnpack")
    if not nnapi_ok:
        result.status = "nnapi" if xnnpack_ok else "lowering"
        result.error = result.nnapi_failure
    return result


# -- the sweep ------------------------------------------------------------------------------------

def load_results(path: pathlib.Path) -> dict[str, Result]:
    """The results measured so far (the last line per model wins)."""
    results: dict[str, Result] = {}
    if path.exists():
        for line in path.read_text().splitlines():
            if line.strip():
                row = json.loads(line)
                results[row["key"]] = Result(**row)
    return results


def _rows(stdout: Any) -> tuple[dict | None, dict | None]:
    """(the final row, the row printed after NNAPI's half) in a child's output, None where absent."""
    text = stdout.decode(errors="replace") if isinstance(stdout, bytes) else (stdout or "")
    final = partial = None
    for line in text.splitlines():
        if line.startswith("{"):
            final = json.loads(line)
        elif line.startswith(PARTIAL):
            partial = json.loads(line[len(PARTIAL):])
    return final, partial


def run_isolated(key: str, timeout: float) -> Result:
    """One model in a child process under a time limit (a hang or a crash costs one row). When the
    child dies during XNNPACK's half (sequencer2d_s: XNNPACK's lowering took over 20 GB, and the
    kernel killed the process), NNAPI's half is kept and XNNPACK's failure says what happened."""
    command = [sys.executable, __file__, "--one", key]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired as expired:
        _, partial = _rows(expired.stdout)
        if partial is None:
            return Result(key, "timeout", f"no result within {timeout:.0f} s")
        return Result(**{**partial, "xnnpack_failure": f"no XNNPACK result within {timeout:.0f} s"})
    final, partial = _rows(done.stdout)
    if final is not None:
        return Result(**final)
    tail = (done.stderr.strip().splitlines() or ["(no output)"])[-1]
    if partial is not None:
        killed = " (killed: out of memory?)" if done.returncode == -9 else ""
        return Result(**{**partial, "xnnpack_failure": f"exit code {done.returncode}{killed} during XNNPACK's lowering "
                                                       f"or run: {tail[:200]}"})
    return Result(key, "crash", f"exit code {done.returncode}: {tail[:300]}")


def sweep(keys: list[str], results_path: pathlib.Path, timeout: float, retry_failed: bool, limit: int,
          again: bool = False) -> None:
    """Measure every key not yet in the results file (every key with ``again``), appending as it goes."""
    done = load_results(results_path)
    todo = [k for k in keys if again or k not in done or (retry_failed and done[k].status != "ok")]
    if limit:
        todo = todo[:limit]
    print(f"{len(keys)} candidates, {len(done)} measured before, {len(todo)} to measure now", flush=True)
    results_path.parent.mkdir(parents=True, exist_ok=True)
    for index, key in enumerate(todo, 1):
        start = time.perf_counter()
        result = run_isolated(key, timeout)
        with results_path.open("a") as out:
            out.write(json.dumps(dataclasses.asdict(result)) + "\n")
        summary = (f"{result.nnapi_subgraphs} / {result.nnapi_cpu_ops}" if result.nnapi_subgraphs is not None
                   else result.error[:120])
        print(f"[{index}/{len(todo)}] {key}: {result.status} {summary} "
              f"({time.perf_counter() - start:.0f} s)", flush=True)


# -- the page ---------------------------------------------------------------------------------------

def _commit() -> str:
    return subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True,
                          text=True).stdout.strip()


def one_subgraph(r: Result) -> bool:
    return r.status == "ok" and r.nnapi_subgraphs == 1 and r.nnapi_cpu_ops == 0


def _fmt(value: Any, spec: str = "") -> str:
    if value is None:
        return "-"
    return format(value, spec) if spec else str(value)


def summary_lines(results: list[Result], candidates: dict[str, int]) -> list[str]:
    """Per source: candidates, built, exported, one NNAPI subgraph, NNAPI failing where XNNPACK lowers."""
    lines = ["| source | candidates | measured | built | exported | one NNAPI subgraph, no CPU op | share of exported "
             "| NNAPI fails where XNNPACK lowers | XNNPACK one subgraph |", "|---|---|---|---|---|---|---|---|---|"]
    for source, label in (("timm", "timm families"), ("hf", "transformers model types")):
        rows = [r for r in results if r.key.startswith(source + ":")]
        built = [r for r in rows if r.status != "build"]
        exported = [r for r in built if r.status not in ("export", "timeout", "crash")]
        whole = [r for r in exported if one_subgraph(r)]
        xnn_whole = [r for r in exported if r.xnnpack_subgraphs == 1 and r.xnnpack_cpu_ops == 0]
        regress = [r for r in exported if r.status == "nnapi"]
        share = f"{100 * len(whole) / len(exported):.0f}%" if exported else "-"
        lines.append(f"| {label} | {candidates[source]} | {len(rows)} | {len(built)} | {len(exported)} | {len(whole)} | {share} "
                     f"| {len(regress)} | {len(xnn_whole)} |")
    return lines


def idiom_lines(results: list[Result]) -> list[str]:
    """The ops NNAPI leaves on the CPU, by how many models leave them: the next fixes, most common first."""
    models = collections.Counter()
    for r in results:
        for item in filter(None, (part.strip() for part in r.nnapi_left.split(","))):
            models[item.split(" x")[0]] += 1
    failures = collections.Counter(r.error.split(":")[0] for r in results if r.status in ("nnapi", "lowering"))
    lines = ["| op left on the CPU | models |", "|---|---|"]
    lines += [f"| `{op}` | {n} |" for op, n in models.most_common()] or ["| (none) | 0 |"]
    if failures:
        lines += ["", "| NNAPI lowering failure | models |", "|---|---|"]
        lines += [f"| {kind} | {n} |" for kind, n in failures.most_common()]
    return lines


def table_lines(results: list[Result]) -> list[str]:
    lines = ["| model | params | status | NNAPI subgraphs / CPU ops | XNNPACK subgraphs / CPU ops "
             "| left on the CPU by NNAPI | lower NNAPI s | lower XNNPACK s | max rel. error NNAPI "
             "| max rel. error XNNPACK | error | commit |", "|" + "---|" * 12]
    for r in sorted(results, key=lambda r: (r.key.split(":")[0], one_subgraph(r), r.key)):
        error = (r.error or r.xnnpack_failure).replace("|", "/")[:160]
        lines.append(
            f"| {r.key} | {r.params / 1e6:.1f}M | {r.status}{f' ({r.prepared})' if r.prepared else ''} | {_fmt(r.nnapi_subgraphs)} / {_fmt(r.nnapi_cpu_ops)} "
            f"| {_fmt(r.xnnpack_subgraphs)} / {_fmt(r.xnnpack_cpu_ops)} | {r.nnapi_left or '-'} "
            f"| {_fmt(r.nnapi_lower_s)} | {_fmt(r.xnnpack_lower_s)} | {_fmt(r.nnapi_error, '.1e')} "
            f"| {_fmt(r.xnnpack_error, '.1e')} | {error or '-'} | {r.commit or 'before 0976e99'} |")
    return lines


def write_page(results: list[Result], page: pathlib.Path) -> None:
    """docs/model_sweep.md from the results (never edited by hand)."""
    import timm
    import torch
    import transformers

    commit = _commit()
    candidates = {"timm": len(timm_candidates()), "hf": len(hf_candidates())}
    text = [
        "# The model sweep", "",
        "Written by `python bench/model_sweep.py --markdown` from the results of `python bench/model_sweep.py`",
        f"(commit {commit}, torch {torch.__version__}, timm {timm.__version__}, transformers "
        f"{transformers.__version__}; do not edit by hand). The candidates are the smallest model under "
        f"{MAX_PARAMS // 1_000_000}M parameters of every timm architecture family and every `transformers` model "
        "type with a base model, built offline with random weights at a small configuration; each runs in its own "
        "process under a time limit, through NnapiPartitioner (feature level "
        f"{FEATURE_LEVEL}) and XnnpackPartitioner, each .pte against eager torch (a `transformers` model's "
        "`last_hidden_state`, else its first tensor output). *status*: `ok`; `build` (the "
        "model does not build or run eagerly from the sweep's generic small config: not counted); `export` "
        "(torch.export fails: no partitioner is reached); `nnapi` (NNAPI lowering or running fails where XNNPACK "
        "succeeds); `lowering` (both fail); `timeout`; `crash`; *(dense experts)*: a mixture of experts "
        "prepared with `executorch_nnapi.tools.mixture_of_experts.use_dense_experts`, the documented way (docs/"
        "exporting.md), before export for both partitioners. `transformers` models are built with its "
        "`TRANSFORMERS_DISABLE_TORCH_CHECK=1` (its tensor checks export as `aten._is_all_true`, which stops "
        "`to_edge_transform_and_lower` whatever the partitioner; docs/exporting.md). A row is as measured at its *commit*: re-measure "
        "with `--retry-failed` (rows not `ok`) or `--keys` after a fix.", "",
        "## Summary", "", *summary_lines(results, candidates), "",
        "## What NNAPI leaves on the CPU, most common first", "", *idiom_lines(results), "",
        "## Every model", "", *table_lines(results), "",
    ]
    page.write_text("\n".join(text))
    print(f"wrote {page}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--one", help="measure one model (timm:<name> or hf:<model_type>) and print its JSON row")
    parser.add_argument("--only", choices=("timm", "hf"), help="sweep one source only")
    parser.add_argument("--keys", nargs="*", default=[], help="measure these keys (again, if measured before)")
    parser.add_argument("--limit", type=int, default=0, help="measure at most this many new models")
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds per model (default 900)")
    parser.add_argument("--retry-failed", action="store_true", help="measure again what did not end ok")
    parser.add_argument("--results", type=pathlib.Path, default=DEFAULT_RESULTS)
    parser.add_argument("--markdown", nargs="?", const=DEFAULT_PAGE, type=pathlib.Path,
                        help=f"write the page from the results (default {DEFAULT_PAGE.relative_to(ROOT)})")
    parser.add_argument("--list", action="store_true", help="print the candidates and stop")
    args = parser.parse_args()
    if args.one:
        print(json.dumps(dataclasses.asdict(measure_one(args.one))), flush=True)
        return
    if args.markdown:
        write_page(list(load_results(args.results).values()), args.markdown)
        return
    keys = args.keys or ((timm_candidates() if args.only != "hf" else []) +
                         (hf_candidates() if args.only != "timm" else []))
    if args.list:
        print("\n".join(keys))
        return
    sweep(keys, args.results, args.timeout, args.retry_failed, args.limit, again=bool(args.keys))


if __name__ == "__main__":
    main()
