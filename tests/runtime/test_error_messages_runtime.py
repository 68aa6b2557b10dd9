"""Runtime errors name shapes in the program's own dim order, never NNAPI's NHWC; bad inputs at
execution time, through the Python runtime (executorch_nnapi.runtime.load_method) and through
nnapi_executor_runner, get one line naming the input, what was given and what the program takes,
and the next valid execution of the same method gives the right result (runtime/input_checks.py)."""

from __future__ import annotations

import subprocess

import pytest
import torch
from torch.export import Dim
from executorch.runtime import Runtime

from executorch_nnapi.runtime import last_error, load_method
from executorch_nnapi.runtime.backend_library import runner_path
from op_harness import lower
from runtime_checks import SmallNet, read_runner_outputs, write_inputs


def test_static_shape_mismatch_names_the_needed_shape_in_nchw():
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3, padding=1), torch.nn.ReLU())
    # H dynamic, W static: ExecuTorch lets a W of 33 through (the tensor's memory fits), the
    # delegate refuses it. NNAPI's operand is NHWC [1, 16, 32, 3]; the message says NCHW.
    lowered = lower(model, (torch.randn(1, 3, 32, 32),), dynamic_shapes={"input": {2: Dim("h", min=8, max=64)}})
    program = Runtime.get().load_program(lowered.pte)
    method = program.load_method("forward")
    with pytest.raises(Exception):
        method.execute([torch.randn(1, 3, 16, 33)])
    message = last_error()
    assert "input 0 has shape [1, 3, 16, 33], but for these input sizes the model needs [1, 3, 16, 32]" in message


# (program, the bad inputs, the exception, its message)
PYTHON_BAD_INPUTS = {
    "wrong dtype": ("float", [torch.zeros(1, 3, 16, 16, dtype=torch.float64)], ValueError,
                    "input 0: given torch.float64 [1, 3, 16, 16]; method 'forward' takes torch.float32"),
    "wrong rank": ("float", [torch.zeros(3, 16, 16)], ValueError,
                   "input 0: given torch.float32 [3, 16, 16] (rank 3); method 'forward' takes rank 4, torch.float32 "
                   "of at most [1, 3, 16, 16]"),
    "above the exported max": ("dynamic", [torch.zeros(1, 3, 64, 16)], ValueError,
                               "input 0: given torch.float32 [1, 3, 64, 16]; method 'forward' takes torch.float32 of at "
                               "most [1, 3, 32, 32] (dimension 2 is larger)"),
    "below the exported min": ("dynamic", [torch.zeros(1, 3, 4, 16)], RuntimeError,
                               "method 'forward': input 0 dimension 2 is 4, outside the range [8, 32] the model was "
                               "exported with"),
    "zero-size dynamic dim": ("dynamic", [torch.zeros(1, 3, 0, 16)], RuntimeError,
                              "method 'forward': input 0 dimension 2 is 0, outside the range [8, 32]"),
    "zero-size static dim": ("float", [torch.zeros(1, 3, 0, 16)], RuntimeError,
                             "input 0: given torch.float32 [1, 3, 0, 16]; method 'forward' takes exactly torch.float32 "
                             "[1, 3, 16, 16] (its sizes are static)"),
    "missing input": ("two_inputs", lambda x: x[:1], ValueError,
                      "input 1 is missing: method 'forward' takes 2 inputs (input 1: torch.float32 of at most "
                      "[1, 4, 8, 8]), 1 given"),
    "one input too many": ("float", lambda x: x * 2, ValueError, "method 'forward' takes 1 input, 2 given"),
}


@pytest.mark.xdist_group("runtime_checks")
@pytest.mark.parametrize("case", PYTHON_BAD_INPUTS)
def test_a_bad_input_is_one_line_and_the_next_run_is_right(check_program, case):
    name, bad, error, message = PYTHON_BAD_INPUTS[case]
    program = check_program(name)
    method = load_method(program.pte)
    valid = program.runs[0]
    expected = [t.clone() for t in method.execute(valid)]
    with pytest.raises(error) as info:
        method.execute(bad(valid) if callable(bad) else bad)
    assert message in str(info.value) and "\n" not in str(info.value), str(info.value)
    for got, want in zip(method.execute(valid), expected):
        assert torch.equal(got, want)


@pytest.mark.xdist_group("runtime_checks")
@pytest.mark.parametrize("value", [float("nan"), float("inf"), -float("inf")])
def test_nan_and_inf_are_values_a_float_program_propagates_as_eager(check_program, value):
    # Not errors: an attention mask holds -inf. The float program gives eager's NaN / Inf pattern,
    # an 8-bit one some finite result (NNAPI leaves quantizing NaN unspecified); then valid runs
    # give the right result.
    for name in ("float", "int8"):
        program = check_program(name)
        method = load_method(program.pte)
        x = program.runs[0][0].clone()
        expected = [t.clone() for t in method.execute([x])]
        x[0, 1, 2:5, 3] = value
        (got,) = method.execute([x])
        if name == "float":
            torch.manual_seed(0)
            with torch.no_grad():
                torch.testing.assert_close(got, SmallNet().eval()(x), equal_nan=True, rtol=1e-4, atol=1e-5)
        else:
            assert torch.isfinite(got).all(), got  # the host driver quantizes them to some code
        assert torch.equal(method.execute([program.runs[0][0]])[0], expected[0])


def _runner(*args, check_error: bool = True) -> str:
    """The runner's stderr for a run that must fail (exit 1) with one "error:" line."""
    result = subprocess.run([runner_path(), "--method", "forward", *map(str, args)], capture_output=True, text=True,
                            timeout=300)
    errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert result.returncode == 1 and len(errors) == 1, result.stderr
    return errors[0]


@pytest.mark.xdist_group("runtime_checks")
def test_runner_bad_inputs_are_one_line_each(check_program, tmp_path):
    float_pte, dynamic_pte = check_program("float").pte, check_program("dynamic").pte
    two = check_program("two_inputs")
    x = tmp_path / "x.bin"
    x.write_bytes(bytes(4 * 3 * 16 * 16))
    short = tmp_path / "short.bin"
    short.write_bytes(bytes(100))
    doubles = tmp_path / "doubles.bin"  # the right values as float64: twice the bytes
    doubles.write_bytes(bytes(8 * 3 * 16 * 16))
    assert _runner("--model", float_pte, "--input", short) == (
        f"error: input 0: {short} holds 100 bytes; the method takes Float [1, 3, 16, 16] (3072 bytes)")
    assert _runner("--model", float_pte, "--input", doubles) == (
        f"error: input 0: {doubles} holds 6144 bytes; the method takes Float [1, 3, 16, 16] (3072 bytes)")
    assert _runner("--model", float_pte, "--input", f"{x}:1,3,16") == (
        "error: input 0: --input gave sizes [1, 3, 16] (rank 3); the method takes rank 4, Float of at most "
        "[1, 3, 16, 16]")
    assert _runner("--model", dynamic_pte, "--input", f"{x}:1,3,64,16") == (
        "error: input 0: --input gave sizes [1, 3, 64, 16]; the method takes Float of at most [1, 3, 32, 32] "
        "(dimension 2 is larger)")
    assert _runner("--model", two.pte, "--input", x) == (
        "error: input 1 is missing: method 'forward' takes 2 inputs (input 1: Float of at most [1, 4, 8, 8]), "
        "1 --input given")
    assert _runner("--model", float_pte, "--input", x, "--input", x) == (
        "error: method 'forward' takes 1 inputs, 2 --input given")
    # These two run: the backend (a size outside the exported range), ExecuTorch (a static size).
    empty = tmp_path / "empty.bin"
    empty.write_bytes(b"")
    assert _runner("--model", dynamic_pte, "--input", f"{empty}:1,3,0,16").endswith(
        "NnapiBackend: input 0 dimension 2 is 0, outside the range [8, 32] the model was exported with (symbol s53)")
    assert _runner("--model", float_pte, "--input", f"{empty}:1,3,0,16") == (
        "error: input 0: --input gave sizes [1, 3, 0, 16]; the method takes exactly Float [1, 3, 16, 16] "
        "(its sizes are static)")


@pytest.mark.xdist_group("runtime_checks")
def test_runner_runs_nan_and_inf_inputs(check_program, tmp_path):
    program = check_program("float")
    x = program.runs[0][0].clone()
    x[0, 0, :4, :4] = float("nan")
    x[0, 2, 5:, :] = float("inf")
    (args,) = write_inputs([[x]], tmp_path, "nan")
    out = tmp_path / "out"
    out.mkdir()
    subprocess.run([runner_path(), "--model", program.pte, "--input", args[0], "--output-dir", out, "--iters", "1"],
                   check=True, capture_output=True, timeout=300)
    torch.manual_seed(0)
    with torch.no_grad():
        torch.testing.assert_close(read_runner_outputs(out)[0], SmallNet().eval()(x), equal_nan=True, rtol=1e-4,
                                   atol=1e-5)
