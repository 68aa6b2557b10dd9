"""``executorch-nnapi export --quantize``: calibration sources, the quantized delegation
report and the quantized --verify."""

from __future__ import annotations

import pathlib

import pytest
import torch

from executorch_nnapi.tools.cli import main
from test_cli import _one_line_error, _pte_delegates

HERE = pathlib.Path(__file__).parents[1]  # tests/: cli_models.py
SMALL = ["--input-shape", "1,3,16,16"]


@pytest.fixture(autouse=True)
def _cli_models_importable(monkeypatch):
    monkeypatch.syspath_prepend(str(HERE))


def _export(capsys, tmp_path, model: str, *extra: str) -> tuple[int, str, pathlib.Path]:
    out = tmp_path / "q.pte"
    code = main(["export", model, "-o", str(out), *SMALL, "--quantize", *extra])
    return code, capsys.readouterr().out, out


def _report_lines(text: str) -> list[str]:
    """The lines between "wrote ..." and the first verify line."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("wrote "))
    end = next((i for i, line in enumerate(lines) if line.startswith("verify")), len(lines))
    return lines[start + 1:end]


def _calibration_dir(tmp_path: pathlib.Path) -> pathlib.Path:
    """Three .pt files (a batched tensor, an unbatched one, a 1-tuple) and two PNG images."""
    from torchvision.io import write_png

    folder = tmp_path / "calib"
    folder.mkdir()
    g = torch.Generator().manual_seed(7)
    torch.save(torch.rand(1, 3, 16, 16, generator=g) * 2 - 1, folder / "a.pt")
    torch.save(torch.rand(3, 16, 16, generator=g) * 2 - 1, folder / "b.pt")
    torch.save((torch.rand(1, 3, 16, 16, generator=g) * 2 - 1,), folder / "c.pt")
    for name in ("d.png", "e.png"):
        write_png(torch.randint(0, 256, (3, 20, 24), dtype=torch.uint8, generator=g), str(folder / name))
    (folder / "notes.txt").write_text("not a calibration file: ignored")
    return folder


def test_directory_calibration_with_tensors_and_images(tmp_path, capsys):
    folder = _calibration_dir(tmp_path)
    code, text, out = _export(capsys, tmp_path, "cli_models:small_cnn", "--calibration", str(folder), "--verify")
    assert code == 0, text
    assert f"calibrated on 5 file(s) (.png, .pt) in {folder}" in text
    assert "WARNING" not in text
    report = "\n".join(_report_lines(text))
    assert "1 subgraph(s)" in report and "0 compute node(s) on the CPU" in report
    assert "nnapi 8-bit: " in report and "CONV_2D x1" in report and "DEPTHWISE_CONV_2D x1" in report
    assert "nnapi float: -" in report
    assert "conversions: QUANTIZE x1 at the inputs, DEQUANTIZE x1 at the outputs" in report
    # The example-shape check runs on the first calibration file, against convert_pt2e and float.
    assert "verify (1, 3, 16, 16) (calibration input a.pt): max difference from convert_pt2e " in text
    assert "verify: PASS" in text
    assert _pte_delegates(out.read_bytes()) == {"forward": ["NnapiBackend"]}


def test_module_function_calibration_lists_quantized_and_float_operations_per_partition(tmp_path, capsys):
    code, text, _ = _export(capsys, tmp_path, "cli_models:conv_exp_conv",
                            "--calibration", "cli_models:calibration_inputs", "--verify")
    assert code == 0, text
    assert "calibrated on 8 sample(s) from cli_models:calibration_inputs" in text
    report = _report_lines(text)
    assert "    nnapi 8-bit: CONV_2D x2" in report
    assert "    nnapi float: EXP x1, MUL x1" in report  # the quantizer leaves exp (and its scaling) float
    assert ("    conversions: QUANTIZE x1 at the inputs, DEQUANTIZE x1 at the outputs; between 8-bit and float "
            "operations inside: DEQUANTIZE x1, QUANTIZE x1") in report
    assert "verify: PASS" in text


def test_signed_int8_activations_with_a_portable_cpu_method(tmp_path, capsys):
    code, text, out = _export(capsys, tmp_path, "cli_models:small_cnn", "--calibration",
                              "cli_models:calibration_inputs", "--int8-signed", "--cpu-method", "portable", "--verify")
    assert code == 0, text
    assert "quantized: int8 activations (NnapiQuantizer, feature level 30)" in text
    # Both methods are checked against convert_pt2e; the portable kernels compute it exactly.
    assert "verify forward_cpu (1, 3, 16, 16) (calibration input cli_models:calibration_inputs sample 0): max " \
           "difference from convert_pt2e 0.0 output step(s)" in text
    assert "verify: PASS" in text
    assert _pte_delegates(out.read_bytes()) == {"forward": ["NnapiBackend"], "forward_cpu": []}


def test_random_calibration_is_opt_in_and_flagged_first_and_last(tmp_path, capsys):
    code, text, _ = _export(capsys, tmp_path, "cli_models:small_cnn", "--calibration", "random:3")
    assert code == 0, text
    report = _report_lines(text)
    warning = "WARNING: calibrated on random inputs: accuracy is not meaningful"
    assert report[0] == warning and report[-1] == warning
    assert "calibrated on 3 random normal inputs" in text


def test_below_api_29_the_cpu_quantizes_the_input_and_the_partition_takes_8_bit_codes(tmp_path, capsys):
    code, text, _ = _export(capsys, tmp_path, "cli_models:small_cnn", "--calibration", "cli_models:calibration_inputs",
                            "--feature-level", "28", "--verify")
    assert code == 0, text
    report = _report_lines(text)
    assert "    conversions: DEQUANTIZE x1 at the outputs" in report  # no QUANTIZE before API 29
    assert any(line.startswith("    nnapi 8-bit: ") and "CONV_2D x1" in line for line in report)
    assert any("quantized_decomposed.quantize_per_tensor.default -- " in line for line in report), report
    assert "verify: PASS" in text


def test_quantize_without_calibration_says_how_to_pass_one(tmp_path, capsys):
    code, line = _one_line_error(capsys, ["export", "cli_models:small_cnn", "-o", str(tmp_path / "x.pte"),
                                          *SMALL, "--quantize"])
    assert code == 1
    assert "--quantize needs calibration inputs: pass --calibration DIR (.pt files" in line
    assert "--calibration module:fn" in line and "--calibration random[:N]" in line


def test_signed_int8_below_level_30_is_a_clear_error(tmp_path, capsys):
    code, line = _one_line_error(capsys, ["export", "cli_models:small_cnn", "-o", str(tmp_path / "x.pte"), *SMALL,
                                          "--quantize", "--calibration", "random", "--int8-signed",
                                          "--feature-level", "29"])
    assert code == 1
    assert "--int8-signed needs --feature-level 30 or higher" in line and "got 29" in line


@pytest.mark.parametrize("extra, expected", [
    (["--calibration", "random"], "--calibration and --int8-signed apply only with --quantize"),
    (["--quantize", "--calibration", "no/such/dir"], "--calibration no/such/dir: not a directory, module:fn or "
                                                     "random[:N]"),
    (["--quantize", "--calibration", "random", "--cpu-method", "xnnpack"], "--cpu-method xnnpack cannot run the "
                                                                           "NNAPI-quantized program faithfully"),
    (["--quantize", "--calibration", "random:0"], "N in random:N must be a positive integer"),
    (["--quantize", "--calibration", "cli_models:with_erf"], "cli_models:with_erf gave a M, not an iterable "
                                                                "of input tuples"),
    (["--quantize", "--calibration", "cli_models:nothing_here"], "'cli_models' has no 'nothing_here' "
                                                                 "(--calibration 'cli_models:nothing_here')"),
])
def test_calibration_mistakes_are_one_line(tmp_path, capsys, extra, expected):
    code, line = _one_line_error(capsys, ["export", "cli_models:small_cnn", "-o", str(tmp_path / "x.pte"), *SMALL,
                                          *extra])
    assert code == 1
    assert line.startswith("executorch-nnapi export: error: ") and expected in line, line


def test_calibration_file_of_the_wrong_kind_or_shape_is_named(tmp_path, capsys):
    folder = tmp_path / "calib"
    folder.mkdir()
    torch.save({"x": torch.zeros(1)}, folder / "dict.pt")
    argv = ["export", "cli_models:small_cnn", "-o", str(tmp_path / "x.pte"), *SMALL, "--quantize",
            "--calibration", str(folder)]
    _, line = _one_line_error(capsys, argv)
    assert f"{folder / 'dict.pt'}: expected a tensor or a tuple of tensors, got dict" in line
    (folder / "dict.pt").unlink()
    torch.save(torch.zeros(1, 3, 8, 8), folder / "small.pt")
    _, line = _one_line_error(capsys, argv)
    assert "calibration input small.pt has shape [1, 3, 8, 8], the model's input is [1, 3, 16, 16]" in line
