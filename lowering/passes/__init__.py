"""The rewrites that run on the functional program before partitioning, as one ordered pipeline.

``to_edge_transform_and_lower`` hands ``NnapiPartitioner.ops_to_not_decompose`` the functional
ATen program it is about to convert; the partitioner runs this pipeline on it there (the only
hook ExecuTorch gives a partitioner before ``to_edge``), in this order:

0. ``complex_values``: complex values (Llama 4's rotary embedding) as pairs of real tensors;
1. ``composite_ops``: hand-written rewrites of composites (conv2d, max_pool2d, roll, ...) into
   the core ATen ops torch's decomposition would give, so to_edge can skip its second pass;
1b. ``modular_arithmetic``: an integer remainder by a constant taken through the sums and
   products by constants it reads (CANINE's hashes), so its values stay within int32;
2. ``unrolled_lstm``: an LSTM written out step by step (``torch.ao.nn.quantizable.LSTM``) folded
   into one ``aten.lstm.input`` per layer, which NNAPI runs as one sequence operation;
3. ``language_model``: a language model's idioms (rotary embedding on interleaved pairs, the KV
   cache written at a run-time position, a causal mask sliced there) in ops NNAPI takes;
4. ``computed_gathers``: indexing by integer tensors (``x[i, j]``, ``gather`` over several dims,
   ``unfold``) as one GATHER along merged dims (``index_select``, or ``index.Tensor`` with one
   index tensor) and views;
5. ``size_tables``: index tables computed from dynamic sizes alone (DeBERTa's relative-position
   buckets over a dynamic length) tabulated at the sizes' bounds and sliced to the run's sizes;
6. ``high_rank_regions``: computations on values of rank > 4 (a softmax or sum over a group dim,
   permuted operands added) rewritten on merged dims at rank <= 4;
7. ``exact_requantization``: convert_pt2e's quantize -> dequantize pairs after data-movement ops
   (view, permute, select...) whose values are already on the grid, removed, so that Swin's
   rank > 4 views form one view chain;
8. ``size_arithmetic``: a computed tensor's size re-read from the program inputs' sizes, so
   reading it does not force a partition to hand the tensor out;
9. ``constant_copies``: a constant computation read by several nodes copied once per reader, so
   that each partition reading it holds its own copy and folds it;
10. ``lifted_constants``: a small tensor constant created in ``forward`` and read by several nodes
   given one placeholder per reader (ExecuTorch's own copies of one shared between partitions
   cannot be unlifted by ``to_executorch``);
11. (the partitioner decides which ops NNAPI keeps whole, on the program as rewritten so far)
12. ``traced_decomposition``: every other composite of the default decomposition table, except
   those kept whole, replaced by its traced decomposition;
13. ``computed_gathers`` again, on the indexing the decompositions wrote (``F.unfold``'s ``im2col``
    decomposes into ``x[:, :, rows, cols]``).

Each module does its one job; this package only fixes their order.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Callable, Collection

from torch.export import ExportedProgram

from .complex_values import rewrite_complex_values
from .composite_ops import decompose_composites
from .computed_gathers import rewrite_computed_gathers
from .constant_copies import copy_shared_constant_computations
from .exact_requantization import drop_exact_requantizations
from .high_rank_regions import rewrite_high_rank_regions
from .language_model import rewrite_language_model_idioms
from .lifted_constants import split_shared_lifted_constants
from .modular_arithmetic import take_residues_first
from .size_arithmetic import sizes_from_inputs
from .size_tables import tabulate_size_computations
from .traced_decomposition import decompose_remaining
from .unrolled_lstm import fold_unrolled_lstms

__all__ = ["PRE_PARTITION_PASSES", "PassResult", "run_pre_partition_passes"]

# The rewrites that need no decision of the partitioner's, in the order they run.
PRE_PARTITION_PASSES: tuple[Callable[[ExportedProgram], int], ...] = (
    rewrite_complex_values, decompose_composites, take_residues_first, fold_unrolled_lstms,
    rewrite_language_model_idioms, rewrite_computed_gathers, tabulate_size_computations, rewrite_high_rank_regions, drop_exact_requantizations, sizes_from_inputs,
    copy_shared_constant_computations, split_shared_lifted_constants)


@dataclasses.dataclass(frozen=True)
class PassResult:
    """What the pipeline did: nodes rewritten per pass, and the ops left whole for NNAPI."""
    rewritten: dict[str, int]
    kept: frozenset


def run_pre_partition_passes(program: ExportedProgram, ops_to_keep: Callable[[ExportedProgram], Collection[Any]],
                             decomposition_table: dict[Any, Callable]) -> PassResult:
    """Runs the pipeline on ``program`` in place. ``ops_to_keep`` sees the program after the
    rewrites of ``PRE_PARTITION_PASSES`` and names the ops the last pass must not decompose."""
    rewritten = {rewrite.__name__: rewrite(program) for rewrite in PRE_PARTITION_PASSES}
    kept = frozenset(ops_to_keep(program))
    rewritten[decompose_remaining.__name__] = decompose_remaining(program, decomposition_table, keep=kept)
    gathers = rewrite_computed_gathers.__name__
    rewritten[gathers] = rewritten.get(gathers, 0) + rewrite_computed_gathers(program)
    return PassResult(rewritten, kept)
