"""Shared test harness: export -> lower with NnapiPartitioner -> run the .pte on
the host driver through ExecuTorch's Runtime -> compare with eager torch."""

from __future__ import annotations

import dataclasses
import operator
from typing import Any, Sequence

import torch
from torch.export import export

from executorch.exir import to_edge_transform_and_lower
from executorch.runtime import Runtime

import executorch_nnapi.runtime  # noqa: F401  (registers NnapiBackend, starts the host driver)
from executorch_nnapi.lowering.node_utils import op_name
from executorch_nnapi.lowering.serialization import read_blob
from executorch_nnapi.partitioners import NnapiPartitioner
from executorch_nnapi.host_driver import get_driver


@dataclasses.dataclass
class Lowered:
    pte: bytes
    partitioner: NnapiPartitioner
    cpu_ops: list[str]          # ATen ops left on the CPU (compute nodes only)
    num_delegates: int
    blobs: list[Any]            # BlobSummary per delegate
    raw_blobs: list[bytes] = dataclasses.field(default_factory=list)  # the delegates' processed bytes
    edge: Any = None            # the EdgeProgramManager (for delegation_report)

    @property
    def nnapi_operations(self) -> list[str]:
        return [t for b in self.blobs for t in b.operation_types]

    @property
    def reasons(self) -> dict[str, list[str]]:
        """ATen op -> the partitioner's reasons for each of its nodes left on the CPU."""
        out: dict[str, list[str]] = {}
        for d in self.partitioner.decisions:
            if not d.supported:
                out.setdefault(d.op, []).append(d.reason)
        return out


def lower(module: torch.nn.Module, example_inputs: Sequence[torch.Tensor], *, dynamic_shapes=None,
          feature_level: int = 30) -> Lowered:
    try:
        module = module.eval()
    except NotImplementedError:  # a convert_pt2e module: already in eval form, refuses eval()
        pass
    ep = export(module, tuple(example_inputs), dynamic_shapes=dynamic_shapes)
    partitioner = NnapiPartitioner(feature_level=feature_level)
    edge = to_edge_transform_and_lower(ep, partitioner=[partitioner])
    gm = edge.exported_program().graph_module
    cpu_ops, delegates = [], []
    for node in gm.graph.nodes:
        if node.op != "call_function":
            continue
        if node.target is torch.ops.higher_order.executorch_call_delegate:
            delegates.append(getattr(gm, node.args[0].target))
        elif node.target is operator.getitem or isinstance(node.meta.get("val"), (torch.SymInt, torch.SymBool)):
            continue  # output selection / shape arithmetic (sym_size, SymInt mul, floordiv...): no tensor compute
        elif node.target is torch.ops.aten._assert_scalar.default:
            continue  # a range check of a size read from a tensor (torch.export's runtime assert)
        else:
            cpu_ops.append(op_name(node.target))
    blobs = [read_blob(d.processed_bytes) for d in delegates]
    pte = edge.to_executorch().buffer
    return Lowered(pte, partitioner, cpu_ops, len(delegates), blobs, [d.processed_bytes for d in delegates], edge)


def run_pte(pte: bytes, inputs: Sequence[torch.Tensor], feature_level: int = 30) -> list[torch.Tensor]:
    get_driver().feature_level = feature_level
    program = Runtime.get().load_program(pte)  # keep it alive: the Method does not
    method = program.load_method("forward")
    return list(method.execute(list(inputs)))


def seeded_randn(*shape: int, seed: int = 0) -> torch.Tensor:
    """Normal values of ``shape`` from their own generator (the same values whatever ran before)."""
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed))


def relative_max_error(actual: torch.Tensor, expected: torch.Tensor) -> float:
    if not expected.is_floating_point():
        # Bool and integer results must match exactly (and in dtype).
        return 0.0 if actual.dtype == expected.dtype and torch.equal(actual, expected) else float("inf")
    scale = expected.abs().max().item() if expected.numel() else 0.0
    diff = (actual - expected).abs().max().item() if expected.numel() else 0.0
    return diff / max(scale, 1e-6)


def check_delegated_and_matches(module: torch.nn.Module, example_inputs: Sequence[torch.Tensor], *,
                                run_inputs: Sequence[Sequence[torch.Tensor]] | None = None,
                                dynamic_shapes=None, feature_level: int = 30, tolerance: float = 1e-4,
                                expect_operations: Sequence[str] = (), allow_cpu_ops: Sequence[str] = ()
                                ) -> Lowered:
    """Lowers ``module``, asserts it is fully delegated in one subgraph (except
    ``allow_cpu_ops``), runs it on the host driver for each input set and
    compares with eager; returns the lowering for further checks."""
    lowered = lower(module, example_inputs, dynamic_shapes=dynamic_shapes, feature_level=feature_level)
    unexpected = [op for op in lowered.cpu_ops if not any(a in op for a in allow_cpu_ops)]
    reasons = {d.op: d.reason for d in lowered.partitioner.decisions if not d.supported}
    assert not unexpected, f"left on CPU: {unexpected}; reasons: {reasons}"
    assert lowered.num_delegates >= 1, f"nothing delegated; reasons: {reasons}"
    for name in expect_operations:
        assert name in lowered.nnapi_operations, f"{name} not emitted: {lowered.nnapi_operations}"
    for inputs in (run_inputs or [example_inputs]):
        outputs = run_pte(lowered.pte, inputs, feature_level)
        with torch.no_grad():
            expected = module(*inputs)
        expected = list(expected) if isinstance(expected, (tuple, list)) else [expected]
        assert len(outputs) == len(expected)
        for got, want in zip(outputs, expected):
            assert got.shape == want.shape, f"shape {tuple(got.shape)} != eager {tuple(want.shape)}"
            err = relative_max_error(got, want)
            assert err < tolerance, f"relative max error {err:.3g} >= {tolerance} for inputs {[tuple(i.shape) for i in inputs]}"
    return lowered


class Lambda(torch.nn.Module):
    """Wraps a function of tensors as a module (for one-op tests)."""

    def __init__(self, fn) -> None:
        super().__init__()
        self.fn = fn

    def forward(self, *args):
        return self.fn(*args)


class AfterConv(torch.nn.Module):
    """``fn`` applied to a 3x3 convolution's output (NHWC inside NNAPI, and quantized by a real
    producer in 8-bit tests), for ops that must work on a permuted value."""

    def __init__(self, fn, in_channels: int = 3, out_channels: int = 6) -> None:
        super().__init__()
        self.conv = torch.nn.Conv2d(in_channels, out_channels, 3, padding=1)
        self.fn = fn

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fn(self.conv(x))
