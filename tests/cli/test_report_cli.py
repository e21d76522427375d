"""Tests of `mobile-r1 report` through the CLI."""

from __future__ import annotations

from pathlib import Path

import pytest

from mobile_r1.cli.main import main
from mobile_r1.eval.runner import EvalConfig, run_eval


def test_report_command_writes_one_page_for_two_runs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    run_eval(EvalConfig(agent="always-ask", episodes=2, out=a))
    run_eval(EvalConfig(agent="random", episodes=2, max_steps=3, out=b))
    out = tmp_path / "r.html"
    assert main(["report", str(a), str(b), "--out", str(out), "--max-episodes", "1"]) == 0
    assert "wrote" in capsys.readouterr().err
    page = out.read_text()
    assert "always-ask" in page and "random" in page
    assert page.count('<details class="ep"') == 2
    assert "first 1 of 2 episodes" in page


def test_report_command_explains_a_wrong_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", str(tmp_path)]) == 2
    assert "mobile-r1 eval --out" in capsys.readouterr().err
