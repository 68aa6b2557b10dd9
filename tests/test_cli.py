"""The executorch-nnapi command line."""

from __future__ import annotations

import pytest

from executorch_nnapi.lowering.cli import main


def test_export_verify_prints_report_and_passes(tmp_path, capsys, monkeypatch):
    monkeypatch.syspath_prepend(str(__import__("pathlib").Path(__file__).parent))
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
    monkeypatch.syspath_prepend(str(__import__("pathlib").Path(__file__).parent))
    code = main(["export", "cli_models:with_cumsum", "-o", str(tmp_path / "c.pte"), "--input-shape", "1,3,8,8",
                 "--verify"])
    text = capsys.readouterr().out
    assert code == 0, text
    assert "aten.cumsum.default -- NNAPI has no cumulative-sum operation" in text
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
    published = (pathlib.Path(__file__).parent.parent / "docs" / "op_support.md").read_text()
    assert generated.strip() in published, "docs/op_support.md is stale: run `executorch-nnapi ops > docs/op_support.md`"
