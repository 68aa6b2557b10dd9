"""NNAPI runtime options given as NnapiPartitioner kwargs (CompileSpecs) reach the host driver.

The load-time half (ExecuTorch backend options, which win over the CompileSpecs) is exercised
through nnapi_executor_runner's --option in test_runner.py: ExecuTorch's Python API has no way
to pass backend options at load time.
"""

from __future__ import annotations

import contextlib

import pytest
import torch
from executorch.exir import to_edge_transform_and_lower
from executorch.runtime import Runtime
from torch.export import export

import executorch_nnapi.runtime  # noqa: F401  (registers the backend, installs the host driver)
from executorch_nnapi.lowering.compile_specs import NnapiCompileOptions
from executorch_nnapi.partitioners import NnapiPartitioner
from executorch_nnapi import host_driver
from executorch_nnapi.host_driver.driver import DEFAULT_DEVICES


class SmallCnn(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 4, 3, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(self.conv(x))


EXAMPLE = (torch.randn(1, 3, 8, 8),)


def lower_with(**options) -> bytes:
    torch.manual_seed(0)
    ep = export(SmallCnn().eval(), EXAMPLE)
    edge = to_edge_transform_and_lower(ep, partitioner=[NnapiPartitioner(**options)])
    return edge.to_executorch().buffer


@contextlib.contextmanager
def driver_with(feature_level: int = 30, devices=DEFAULT_DEVICES):
    """The host driver at this level presenting these devices, its call record cleared."""
    host_driver.install(feature_level, devices=devices)
    d = host_driver.get_driver()
    d.calls.clear()
    try:
        yield d
    finally:
        host_driver.install(30, devices=DEFAULT_DEVICES)


def run(pte: bytes, iterations: int = 1) -> torch.Tensor:
    program = Runtime.get().load_program(pte)
    method = program.load_method("forward")
    for _ in range(iterations):
        (out,) = method.execute(list(EXAMPLE))
    return out


def calls_named(driver, name: str) -> list[dict]:
    return [c for c in driver.calls if c["call"] == name]


def test_options_round_trip_through_compile_specs():
    options = NnapiCompileOptions(execution_preference="sustained_speed", priority="high", cache_dir="/tmp/c",
                                  accelerator_name="npu", disallow_nnapi_cpu=True, compilation_timeout_ms=50,
                                  execution_timeout_ms=20, use_burst=True, relax_fp32_to_fp16=True)
    assert NnapiCompileOptions.from_compile_specs(options.to_compile_specs()) == options
    with pytest.raises(ValueError, match="execution_preference must be one of low_power"):
        NnapiCompileOptions(execution_preference="fast")


def test_preference_priority_and_relax_reach_the_driver():
    pte = lower_with(execution_preference="low_power", priority="high", relax_fp32_to_fp16=True)
    with driver_with() as d:
        out = run(pte)
    assert calls_named(d, "setPreference") == [{"call": "setPreference", "preference": 0}]
    assert calls_named(d, "setPriority") == [{"call": "setPriority", "priority": 110}]
    assert calls_named(d, "relaxComputationFloat32toFloat16") == [
        {"call": "relaxComputationFloat32toFloat16", "allow": True}]
    torch.testing.assert_close(out, SmallCnn_reference())


def SmallCnn_reference() -> torch.Tensor:
    torch.manual_seed(0)
    return SmallCnn().eval()(*EXAMPLE)


def test_default_is_fast_single_answer_without_optional_calls():
    pte = lower_with()
    with driver_with() as d:
        run(pte)
    assert [c["call"] for c in d.calls] == ["setPreference"]
    assert d.calls[0]["preference"] == 1


def test_cache_token_depends_on_model_and_is_stable(tmp_path):
    first = lower_with(cache_dir=str(tmp_path))
    with driver_with() as d:
        run(first)
        run(first)
    tokens = [c["token"] for c in calls_named(d, "setCaching")]
    assert len(tokens) == 2 and tokens[0] == tokens[1] and len(bytes.fromhex(tokens[0])) == 32
    assert calls_named(d, "setCaching")[0]["cache_dir"] == str(tmp_path)
    # Other weights, same graph: another token.
    torch.manual_seed(1)
    ep = export(SmallCnn().eval(), EXAMPLE)
    other = to_edge_transform_and_lower(ep, partitioner=[NnapiPartitioner(cache_dir=str(tmp_path))])
    with driver_with() as d:
        run(other.to_executorch().buffer)
    assert calls_named(d, "setCaching")[0]["token"] != tokens[0]


def test_disallow_nnapi_cpu_compiles_for_the_other_devices():
    devices = (("nnapi-reference", "cpu"), ("host-gpu", "gpu"), ("host-npu", "accelerator"))
    pte = lower_with(disallow_nnapi_cpu=True)
    with driver_with(devices=devices) as d:
        run(pte)
    assert calls_named(d, "createForDevices") == [{"call": "createForDevices", "devices": ["host-gpu", "host-npu"]}]


def test_accelerator_by_type_and_name_with_timeouts_and_burst():
    devices = (("nnapi-reference", "cpu"), ("host-gpu", "gpu"), ("host-npu", "accelerator"))
    with driver_with(devices=devices) as d:
        run(lower_with(accelerator_type="gpu"))
    assert calls_named(d, "createForDevices")[0]["devices"] == ["host-gpu"]

    pte = lower_with(accelerator_name="host-npu", compilation_timeout_ms=500, execution_timeout_ms=200,
                     use_burst=True)
    with driver_with(devices=devices) as d:
        out = run(pte, iterations=3)
    assert calls_named(d, "createForDevices")[0]["devices"] == ["host-npu"]
    assert calls_named(d, "Compilation_setTimeout") == [{"call": "Compilation_setTimeout", "duration_ns": 500_000_000}]
    assert [c["duration_ns"] for c in calls_named(d, "Execution_setTimeout")] == [200_000_000] * 3
    assert len(calls_named(d, "Burst_create")) == 1 and len(calls_named(d, "burstCompute")) == 3
    torch.testing.assert_close(out, SmallCnn_reference())


def test_unknown_accelerator_fails_the_load_naming_the_devices():
    from executorch_nnapi.runtime import last_error

    pte = lower_with(accelerator_name="no-such-npu")
    with driver_with(devices=(("host-gpu", "gpu"),)):
        with pytest.raises(Exception):
            run(pte)
    assert "no NNAPI device matches accelerator_name='no-such-npu'" in last_error()
    assert "host-gpu (gpu)" in last_error()


def test_options_the_level_lacks_are_skipped_with_a_log_line(capfd):
    # API 29: no priority, no timeouts; the model still runs.
    pte = lower_with(feature_level=29, priority="low", accelerator_name=host_driver.driver.DEVICE_NAME,
                     compilation_timeout_ms=10, use_burst=True)
    with driver_with(feature_level=29) as d:
        out = run(pte)
    names = [c["call"] for c in d.calls]
    assert "setPriority" not in names and "Compilation_setTimeout" not in names
    assert "createForDevices" in names and "burstCompute" in names
    err = capfd.readouterr().err
    assert "option 'priority' skipped: it needs NNAPI feature level 30 (Android 11)" in err
    assert "option 'compilation_timeout_ms' skipped" in err
    torch.testing.assert_close(out, SmallCnn_reference())


def test_documented_table_lists_every_option_of_the_runtime_table():
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    source = (root / "runtime" / "src" / "runtime_options.cpp").read_text()
    keys = re.findall(r'\{\{"(\w+)", "', source)  # the rows: {{key, value kind, ...}
    assert len(keys) == 13
    page = (root / "docs" / "runtime.md").read_text()
    for key in keys:
        assert f"| `{key}` |" in page, key
