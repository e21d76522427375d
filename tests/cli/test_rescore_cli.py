"""Tests of `mobile-r1 rescore` through the CLI entry point."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mobile_r1.cli.main import main


def test_rescore_released_files_json(shared_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    results = shared_dir / "data" / "inquirebench" / "results"
    code = main(["rescore", str(results / "eval_Stage1and2_en.jsonl"), str(results / "eval_Stage1and2_zh.jsonl"), "--json"])
    assert code == 0
    report = json.loads(capsys.readouterr().out)
    assert [f["n"] for f in report["files"]] == [95, 95]
    (model,) = report["models"]
    assert model["name"] == "Stage1and2" and model["n"] == 190
    assert round(100 * model["isr"], 1) == 52.6 and round(100 * model["sr"], 1) == 7.9


def test_rescore_table(shared_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rescore", str(shared_dir / "data" / "inquirebench" / "results")]) == 0
    out = capsys.readouterr().out
    assert "per model" in out and "GUI_R1" in out and "52.6%" in out and "eval_UI_R1_zh.jsonl" in out


def test_rescore_bad_path_is_a_clean_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rescore", str(tmp_path / "nope.jsonl")]) == 2
    err = capsys.readouterr().err
    assert "does not exist" in err and "Traceback" not in err
