"""The rows of ``executorch-nnapi debug --json``, matched to the NNAPI operations of a picture.

A row describes one NNAPI operation: ``nnapi_op`` (e.g. ``"CONV_2D"``), ``nnapi_index`` (its
index in its NNAPI model), ``partition`` (the delegate's index), ``aten_nodes`` (FX node names),
the error figures ``max_abs_error``, ``max_rel_error``, ``sqnr_db``, ``max_steps`` (8-bit),
``time_us`` and ``first_divergent`` (the keys tools/numerics_debugger.py writes). Every key but
``nnapi_op`` and ``nnapi_index`` is optional here.
"""

from __future__ import annotations

import json
import math
import os
from typing import Any, Mapping, Optional, Sequence, Union

from .program_graph import ProgramGraph

__all__ = ["DebugRows", "FIGURES", "computing_nodes", "format_figure", "load_debug_rows", "match_debug_rows"]

DebugRows = Union[str, "os.PathLike[str]", Sequence[Mapping[str, Any]]]
"""Rows as a list of mappings, or the path of a ``{"rows": [...]}`` JSON file."""

# (key, label) of the figures a row may carry, in the order they are shown.
FIGURES = (("max_abs_error", "max abs"), ("max_rel_error", "max rel"), ("max_steps", "steps"),
           ("sqnr_db", "SQNR dB"), ("time_us", "time µs"))


def load_debug_rows(rows: Optional[DebugRows]) -> list[dict[str, Any]]:
    """The rows as dicts: ``rows`` itself, or read from the JSON file at that path."""
    if rows is None:
        return []
    if isinstance(rows, (str, os.PathLike)):
        with open(rows, encoding="utf-8") as f:
            data = json.load(f)
        if not isinstance(data, dict) or not isinstance(data.get("rows"), list):
            raise ValueError(f"{os.fspath(rows)}: expected a JSON object {{\"rows\": [...]}} "
                             "(what `executorch-nnapi debug --json` writes)")
        rows = data["rows"]
    return [dict(row) for row in rows]


def match_debug_rows(graph: ProgramGraph, rows: Optional[DebugRows]) -> dict[tuple[int, int], dict[str, Any]]:
    """(partition, NNAPI operation index) -> its row.

    Raises:
        ValueError: a row names an operation the program does not have, or an operation of
            another type than the one at that index (rows of another program).
    """
    matched: dict[tuple[int, int], dict[str, Any]] = {}
    for number, row in enumerate(load_debug_rows(rows)):
        if "nnapi_index" not in row or "nnapi_op" not in row:
            raise ValueError(f"debug row {number} has no nnapi_op / nnapi_index: {row}")
        partition = int(row.get("partition", 0))
        index = int(row["nnapi_index"])
        operation = graph.operation(partition, index)
        if operation is None:
            raise ValueError(f"debug row {number} ({row['nnapi_op']} #{index} of NNAPI partition {partition}): "
                             f"the program has no such operation ({len(graph.partitions)} partition(s))")
        if operation.op != row["nnapi_op"]:
            raise ValueError(f"debug row {number} says NNAPI partition {partition} operation #{index} is "
                             f"{row['nnapi_op']}, the program's is {operation.op}: rows of another program?")
        matched[(partition, index)] = row
    return matched


def format_figure(key: str, value: Any) -> str:
    """A row's figure for display ("-" when absent)."""
    if value is None:
        return "-"
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return str(value)
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    if key in ("sqnr_db", "max_steps", "time_us"):
        return f"{value:.1f}"
    return f"{value:.3g}"


def computing_nodes(names: Sequence[str]) -> list[str]:
    """Of a row's ``aten_nodes``, the ones that compute: quantize / dequantize nodes (an 8-bit
    operation's inputs, weights and output) left out unless there is nothing else."""
    return [n for n in names if "quantize_per_" not in n] or list(names)
