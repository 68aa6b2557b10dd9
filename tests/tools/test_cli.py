"""The executorch-nnapi command line."""

from __future__ import annotations

import pytest

from executorch_nnapi.tools.cli import main


def test_export_verify_prints_report_and_passes(tmp_path, capsys, monkeypatch):
    monkeypatch.syspath_prepend(str(__import__("pathlib").Path(__file__).parents[1]))
    out = tmp_path / "m.pte"
    code = main(["export", "cli_models:small_cnn", "-o", str(out), "--input-shape", "1,3,32,32",
                 "--dynamic", "2:h:16:64", "--dynamic", "3:w:16:64", "--verify"])
    text = capsys.readouterr().out
    assert code == 0, text
    assert out.stat().st_size > 0
    assert "1 subgraph(s)" in text and "0 compute node(s) on the CPU" in text
    assert "verify: PASS" in text
    assert text.count("verify (") == 5  # example shape + both bounds of both dims


def test_export_reports_cpu_ops_with_reason(tmp_path, capsys, monkeypatch):
    monkeypatch.syspath_prepend(str(__import__("pathlib").Path(__file__).parents[1]))
    code = main(["export", "cli_models:with_erf", "-o", str(tmp_path / "c.pte"), "--input-shape", "1,3,8,8",
                 "--verify"])
    text = capsys.readouterr().out
    assert code == 0, text
    assert "aten.erf.default -- NNAPI has no erf operation" in text
    assert "test_cli" in text or "cli_models.py" in text


def test_unknown_model_is_a_clear_error(tmp_path):
    with pytest.raises(SystemExit, match="unknown torchvision model"):
        main(["export", "no_such_model_xyz", "-o", str(tmp_path / "x.pte")])


def test_ops_prints_the_matrix(capsys):
    assert main(["ops"]) == 0
    text = capsys.readouterr().out
    assert "| `aten.convolution.default` | yes | yes | yes | yes |" in text
    assert "| `aten.sub.Tensor` | - | yes | yes | yes |" in text


def test_published_op_matrix_is_up_to_date(capsys):
    """docs/op_support.md is `executorch-nnapi ops` output; regenerate it when the table changes:
    executorch-nnapi ops > docs/op_support.md"""
    import pathlib

    main(["ops"])
    generated = capsys.readouterr().out
    published = (pathlib.Path(__file__).parents[2] / "docs" / "op_support.md").read_text()
    assert generated.strip() in published, "docs/op_support.md is stale: run `executorch-nnapi ops > docs/op_support.md`"


def _pte_delegates(pte: bytes) -> dict[str, list[str]]:
    """Method name -> the backend ids of its delegates, read from the .pte itself."""
    from executorch.exir._serialize._program import deserialize_pte_binary

    plans = deserialize_pte_binary(pte).program.execution_plan
    return {plan.name: [d.id for d in plan.delegates] for plan in plans}


def test_export_with_cpu_method_writes_forward_cpu_lowered_with_xnnpack(tmp_path, capsys, monkeypatch):
    monkeypatch.syspath_prepend(str(__import__("pathlib").Path(__file__).parents[1]))
    out = tmp_path / "m.pte"
    code = main(["export", "cli_models:small_cnn", "-o", str(out), "--input-shape", "1,3,32,32",
                 "--dynamic", "2:h:16:64", "--cpu-method", "xnnpack", "--verify"])
    text = capsys.readouterr().out
    assert code == 0, text
    assert "methods: forward, forward_cpu" in text
    assert "method forward_cpu (xnnpack): 1 XnnpackBackend subgraph(s), 0 node(s) on the portable kernels" in text
    # --verify compares both methods with eager torch at the example shape and both bounds.
    assert text.count("verify (") == 3 and text.count("verify forward_cpu (") == 3
    assert "verify: PASS" in text
    assert _pte_delegates(out.read_bytes()) == {"forward": ["NnapiBackend"], "forward_cpu": ["XnnpackBackend"]}


def test_dynamic_range_the_model_cannot_take_names_the_range_that_works(tmp_path):
    """The issue's example: resnet18 needs H, W > 32. One line per dim, no traceback."""
    with pytest.raises(SystemExit) as exit_info:
        main(["export", "resnet18", "-o", str(tmp_path / "r.pte"), "--dynamic", "2:h:32:512",
              "--dynamic", "3:w:32:512"])
    message = str(exit_info.value.code)
    lines = message.splitlines()
    assert len(lines) == 2, message
    assert lines[0].startswith("executorch-nnapi export: error: --dynamic 2:h:32:512: the model does not export "
                               "for every h in [32, 512]")
    assert lines[0].endswith("it exports for [33, 512]: use --dynamic 2:h:33:512")
    assert lines[1].startswith("--dynamic 3:w:32:512:") and lines[1].endswith("use --dynamic 3:w:33:512")
    assert "Traceback" not in message and "L['x']" not in message


def test_suggested_dynamic_range_is_computed_from_the_guard_and_exports(tmp_path, capsys, monkeypatch):
    """torch suggests min=4 for this model, but its guard H // 4 != 1 also excludes 4..7:
    the CLI prints torch's suggestion and the range that works, and that range exports."""
    monkeypatch.syspath_prepend(str(__import__("pathlib").Path(__file__).parents[1]))
    args = ["export", "cli_models:two_max_pools", "-o", str(tmp_path / "p.pte"), "--input-shape", "1,3,32,32"]
    with pytest.raises(SystemExit) as exit_info:
        main(args + ["--dynamic", "2:h:2:64"])
    message = str(exit_info.value.code)
    assert len(message.splitlines()) == 1, message
    assert "(it needs (h // 4) != 1 and 4 <= h and h <= 64)" in message
    assert "it exports for [8, 64]: use --dynamic 2:h:8:64 (torch suggests h = Dim('h', min=4, max=64))" in message
    assert main(args + ["--dynamic", "2:h:8:64", "--verify"]) == 0
    assert "verify: PASS" in capsys.readouterr().out


def _one_line_error(capsys, argv: list[str]) -> tuple[int, str]:
    """Runs the CLI expecting a user error; returns (exit code, the one line it printed)."""
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    code = exit_info.value.code
    if isinstance(code, str):  # raised with a message: Python prints it and exits 1
        code, text = 1, code
    else:
        text = capsys.readouterr().err
    assert len(text.strip().splitlines()) == 1, text
    assert "Traceback" not in text
    return code, text.strip()


def test_reversed_dynamic_range_says_min_greater_than_max(tmp_path, capsys):
    code, line = _one_line_error(capsys, ["export", "resnet18", "-o", str(tmp_path / "x.pte"),
                                          "--dynamic", "2:h:64:32"])
    assert code == 2
    assert "bad --dynamic '2:h:64:32': min > max (64 > 32)" in line


@pytest.mark.parametrize("extra, expected", [
    (["--input-shape", "1,3,a"], "argument --input-shape: bad shape '1,3,a' (expected positive sizes"),
    (["--input-shape", "1,0,32,32"], "argument --input-shape: bad shape '1,0,32,32'"),
    (["--dynamic", "2:h:16"], "bad --dynamic '2:h:16': expected DIM:NAME:MIN:MAX"),
    (["--dynamic", "2:h:x:64"], "bad --dynamic '2:h:x:64': DIM, MIN and MAX must be integers"),
    (["--dynamic", "2:2h:16:64"], "NAME '2h' must be a Python identifier"),
    (["--cpu-method", "gpu"], "argument --cpu-method: invalid choice: 'gpu'"),
    (["--feature-level", "36"], "argument --feature-level: unknown NNAPI feature level 36; use an Android API "
                                "level 27..35, a feature level 1..8, or a FeatureLevelCode (27..31, 1000006..1000008)"),
    (["--feature-level", "android"], "argument --feature-level: unknown NNAPI feature level 'android'"),
])
def test_command_line_mistakes_are_one_line(tmp_path, capsys, extra, expected):
    code, line = _one_line_error(capsys, ["export", "resnet18", "-o", str(tmp_path / "x.pte"), *extra])
    assert code == 2
    assert line.startswith("executorch-nnapi export: error: ") and expected in line, line


@pytest.mark.parametrize("model, extra, expected", [
    ("resnet81", [], "unknown torchvision model 'resnet81'; did you mean resnet18"),
    ("no_such_module_xyz:make", [], "cannot import 'no_such_module_xyz' (from MODEL 'no_such_module_xyz:make')"),
    ("cli_models:no_such_factory", [], "'cli_models' has no 'no_such_factory'"),
    ("cli_models:small_cnn", ["--input-shape", "1,3,32"],
     "cli_models:small_cnn does not run on an input of shape [1, 3, 32] (--input-shape): "),
    ("cli_models:small_cnn", ["--input-shape", "1,3,32,32", "--dynamic", "4:h:16:64"],
     "--dynamic 4:h:16:64: dim 4 is outside the input's rank 4"),
    ("cli_models:small_cnn", ["--input-shape", "1,3,32,32", "--dynamic", "2:h:40:64"],
     "the example input's size 32 of dim 2 is outside [40, 64]"),
    ("cli_models:small_cnn", ["--input-shape", "1,3,32,32", "--dynamic", "2:h:16:64", "--dynamic", "3:h:8:64"],
     "--dynamic 3:h:8:64: 'h' is also --dynamic 2:h:16:64 with another range"),
])
def test_model_and_shape_mistakes_are_one_line(tmp_path, capsys, monkeypatch, model, extra, expected):
    monkeypatch.syspath_prepend(str(__import__("pathlib").Path(__file__).parents[1]))
    code, line = _one_line_error(capsys, ["export", model, "-o", str(tmp_path / "x.pte"), *extra])
    assert code == 1
    assert line.startswith("executorch-nnapi export: error: ") and expected in line, line
