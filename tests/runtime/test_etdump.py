"""ETRecord and ETDump for NNAPI delegates (docs/debugging.md): preprocess maps each NNAPI
operation to its ATen nodes, the backend logs compile / execute / per-operation events and, at
the intermediate-output level, every operation's output, so that Inspector shows the events on
the ATen nodes and calculate_numeric_gap is finite for the delegated nodes (float and 8-bit)."""

from __future__ import annotations

import math

import pytest
import torch
from executorch.devtools import Inspector
from executorch.exir import to_edge_transform_and_lower
from executorch.exir.lowered_backend_module import get_lowered_submodules
from executorch.extension.pybindings.portable_lib import _load_for_executorch

import executorch_nnapi.runtime  # noqa: F401  (registers the backend, installs the host driver)
from executorch_nnapi import host_driver
from executorch_nnapi.lowering.serialization.blob_reader import read_blob
from executorch_nnapi.partitioners import NnapiPartitioner

import cli_models
from quantized_reference import quantize

X = torch.randn(1, 3, 16, 16, generator=torch.Generator().manual_seed(0))


class ConvBnRelu(torch.nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.conv, self.bn, self.conv2 = torch.nn.Conv2d(3, 8, 3, padding=1), torch.nn.BatchNorm2d(8), \
            torch.nn.Conv2d(8, 4, 1)

    def forward(self, x):
        return self.conv2(torch.relu(self.bn(self.conv(x)))).mean((2, 3))


def _lower(model, **options):
    return to_edge_transform_and_lower(torch.export.export(model, (X,)), partitioner=[NnapiPartitioner(**options)],
                                       generate_etrecord=True)


def _run(edge, tmp_path, debug_buffer: bool = True) -> Inspector:
    program = edge.to_executorch()
    pte, etrecord = tmp_path / "m.pte", tmp_path / "m.etrecord"
    pte.write_bytes(program.buffer)
    record = program.get_etrecord()
    record.update_representative_inputs([(X,)])
    record.save(str(etrecord))
    module = _load_for_executorch(str(pte), enable_etdump=True, debug_buffer_size=(16 << 20) if debug_buffer else 0)
    module.forward((X,))
    etdump, debug = tmp_path / "m.etdp", tmp_path / "m.debug"
    module.write_etdump_result_to_file(str(etdump), str(debug) if debug_buffer else None)
    return Inspector(etdump_path=str(etdump), etrecord=str(etrecord),
                     debug_buffer_path=str(debug) if debug_buffer else None)


def _handle_names(edge) -> dict[int, set[str]]:
    names: dict[int, set[str]] = {}
    for _, lowered, *_ in get_lowered_submodules(edge.exported_program().graph_module):
        for node in lowered.original_module.graph.nodes:
            if isinstance(node.meta.get("debug_handle"), int):
                names.setdefault(node.meta["debug_handle"], set()).add(node.name)
    return names


def test_fused_conv_bn_relu_maps_to_all_three_nodes_in_map_and_blob():
    edge = _lower(ConvBnRelu().eval())
    (_, lowered, *_), = get_lowered_submodules(edge.exported_program().graph_module)
    handle_map = lowered.meta["debug_handle_map"]
    names = _handle_names(edge)
    first = set().union(*(names[h] for h in handle_map[0]))
    assert {"aten_convolution_default", "aten__native_batch_norm_legit_no_training_default",
            "aten_relu_default"} <= first
    blob = read_blob(lowered.processed_bytes)
    assert blob.operation_types[0] == "CONV_2D"
    # The blob carries the same handles, the logged value's node last (here the relu).
    assert {k: tuple(sorted(h)) for k, h in enumerate(blob.operation_debug_handles) if h} == handle_map
    assert names[blob.operation_debug_handles[0][-1]] == {"aten_relu_default"}
    assert all(blob.operation_logged)


def test_inspector_maps_delegate_events_to_aten_nodes(tmp_path):
    inspector = _run(_lower(ConvBnRelu().eval()), tmp_path, debug_buffer=False)
    events = [e for b in inspector.event_blocks for e in b.events]
    per_op = [e for e in events if isinstance(e.delegate_debug_identifier, int)]
    assert [e.delegate_debug_identifier for e in per_op] == [0, 1, 2]
    assert per_op[0].op_types == ["aten.convolution.default", "aten._native_batch_norm_legit_no_training.default",
                                  "aten.relu.default"]
    assert per_op[2].op_types == ["aten.mean.dim"]
    assert all(e.perf_data is not None and e.perf_data.avg > 0 for e in per_op)
    assert all(e.is_delegated_op and e.delegate_backend_name == "NnapiBackend" for e in per_op)
    names = {e.name for e in events}
    assert {"NNAPI compile", "NNAPI execute"} <= names
    # No debug buffer: profiling only, no intermediate outputs.
    assert not any(e.debug_data for e in per_op)


@pytest.mark.parametrize("kind", ["float", "8-bit"])
def test_numeric_gap_is_finite_for_delegated_nodes(tmp_path, kind):
    model = cli_models.small_cnn() if kind == "float" else quantize(cli_models.small_cnn(), (X,), signed=False)
    inspector = _run(_lower(model), tmp_path)
    gap = inspector.calculate_numeric_gap("MSE")
    delegated = gap[gap["runtime_ops"].apply(lambda ops: any(isinstance(o, int) or str(o).isdigit() for o in ops))]
    # ExecuTorch gives a quantize and the dequantize after it one debug handle, so Inspector
    # merges a quantized chain into one row (`executorch-nnapi debug` keeps one per operation).
    assert len(delegated) >= (5 if kind == "float" else 1), gap[["aot_ops", "runtime_ops", "gap"]].to_string()
    values = [g for row in delegated["gap"] for g in row]
    assert values and all(math.isfinite(g) for g in values), delegated[["aot_ops", "gap"]].to_string()
    if kind == "float":
        assert max(values) < 1e-8


def test_measure_timing_logs_nnapi_durations_on_one_device(tmp_path):
    edge = _lower(ConvBnRelu().eval(), accelerator_name=host_driver.driver.DEVICE_NAME, measure_timing=True)
    inspector = _run(edge, tmp_path, debug_buffer=False)
    events = {e.name: e for b in inspector.event_blocks for e in b.events}
    assert events["NNAPI duration in driver"].perf_data.avg > 0
    assert events["NNAPI duration on hardware"].perf_data.avg > 0


def test_running_without_etdump_logs_nothing_and_matches_eager():
    from executorch.runtime import Runtime

    model = ConvBnRelu().eval()
    program = Runtime.get().load_program(_lower(model).to_executorch().buffer)
    out = program.load_method("forward").execute([X])[0]
    torch.testing.assert_close(out, model(X), atol=1e-5, rtol=1e-5)


def test_runner_writes_an_etdump_inspector_reads(tmp_path):
    import subprocess

    from executorch_nnapi.runtime.backend_library import runner_path

    edge = _lower(ConvBnRelu().eval())
    program = edge.to_executorch()
    pte, etrecord, etdump = tmp_path / "m.pte", tmp_path / "m.etrecord", tmp_path / "m.etdp"
    pte.write_bytes(program.buffer)
    program.get_etrecord().save(str(etrecord))
    result = subprocess.run([runner_path(), "--model", str(pte), "--iters", "2", "--etdump", str(etdump)],
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert f"written to {etdump}" in result.stdout
    inspector = Inspector(etdump_path=str(etdump), etrecord=str(etrecord))
    per_op = [e for b in inspector.event_blocks for e in b.events if isinstance(e.delegate_debug_identifier, int)]
    assert [e.delegate_debug_identifier for e in per_op] == [0, 1, 2]
    assert per_op[0].op_types == ["aten.convolution.default", "aten._native_batch_norm_legit_no_training.default",
                                  "aten.relu.default"]
    # Three runs (one warm-up, two timed) of each operation.
    assert all(len(e.perf_data.raw) == 3 for e in per_op)


def test_runner_debug_buffer_gives_intermediates_matching_eager(tmp_path):
    """On a device the runner is how an ETDump is made: with --debug-buffer the backend logs
    every operation's output from the debug variant, and the gap to the ETRecord is ~0."""
    import subprocess

    from executorch_nnapi.runtime.backend_library import runner_path

    program = _lower(ConvBnRelu().eval()).to_executorch()
    pte, etrecord = tmp_path / "m.pte", tmp_path / "m.etrecord"
    etdump, debug, x = tmp_path / "m.etdp", tmp_path / "m.debug", tmp_path / "x.bin"
    pte.write_bytes(program.buffer)
    record = program.get_etrecord()
    record.update_representative_inputs([(X,)])
    record.save(str(etrecord))
    x.write_bytes(X.numpy().tobytes())
    result = subprocess.run([runner_path(), "--model", str(pte), "--input", str(x), "--iters", "1", "--warmup", "0",
                             "--etdump", str(etdump), "--debug-buffer", str(debug), "--debug-buffer-mb", "4"],
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    inspector = Inspector(etdump_path=str(etdump), etrecord=str(etrecord), debug_buffer_path=str(debug))
    gap = inspector.calculate_numeric_gap("MSE")
    assert len(gap) == 3, gap[["aot_ops", "runtime_ops", "gap"]].to_string()
    assert max(g for row in gap["gap"] for g in row) < 1e-8, gap[["aot_ops", "runtime_ops", "gap"]].to_string()
