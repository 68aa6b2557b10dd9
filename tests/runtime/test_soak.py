"""A short soak of the NNAPI runtime on the host driver (bench/runtime_soak.py runs 10,000
executions and 1,000 cycles and prints the curves; figures in docs/sanitizers.md): resident
memory grows less than 1% after warm-up, and the open files and the driver's live NNAPI objects
not at all, over executions of one method and over load / run / free cycles of a program with two
NNAPI subgraphs; a dynamic program run over more sizes than its compiled-model cache holds keeps
at most max_cached_shapes (8) compiled models alive, as docs/architecture.md says."""

from __future__ import annotations

import pytest

from executorch_nnapi.runtime.backend_library import compilation_stats
from runtime_checks import dynamic_over_many_sizes, growth_after_warmup, soak_executions, soak_load_free

pytestmark = pytest.mark.xdist_group("runtime_checks")


def _assert_flat(samples) -> None:
    rss, fds, live = growth_after_warmup(samples)
    curve = [(s.count, s.rss_kb, s.open_fds, s.live_nnapi_objects) for s in samples]
    assert rss < 0.01 and fds == 0 and live == 0, curve


def test_executions_of_one_method_keep_memory_and_files_flat(check_program):
    _assert_flat(soak_executions(check_program("float"), 300, 10))


def test_load_and_free_cycles_keep_memory_and_files_flat(check_program):
    _assert_flat(soak_load_free(check_program("two_subgraphs"), 30, 10))


def test_the_compiled_model_cache_holds_at_most_max_cached_shapes(check_program, tmp_path):
    program = dynamic_over_many_sizes(check_program("dynamic").pte.parent, sizes=12)
    compiled_before = compilation_stats()[0]
    samples = soak_executions(program, 36, 36)
    # 12 sizes in turn through an LRU cache of 8: every execution compiles, 8 models (a model
    # and a compilation each) stay alive.
    assert compilation_stats()[0] - compiled_before == 36
    live = [s.live_nnapi_objects - samples[0].live_nnapi_objects for s in samples]
    assert max(live) == 2 * 8 and live[-1] == 2 * 8, live
