"""`mobile-r1 compare` through the CLI, on runs written by `mobile-r1 eval`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mobile_r1.cli.main import main
from mobile_r1.eval.runner import load_run, verdicts_of


def test_compare_prints_the_paired_table_of_two_eval_runs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    never, oracle = tmp_path / "never", tmp_path / "oracle"
    for agent, out in (("never-ask", never), ("oracle", oracle)):
        assert main(["eval", "--agent", agent, "--suite", "inquire-sim", "--split", "test", "--episodes", "6",
                     "--out", str(out)]) == 0
    capsys.readouterr()
    assert main(["compare", str(never), str(oracle), "--name", "never", "--name", "oracle",
                 "--json", str(tmp_path / "c.json")]) == 0
    table = capsys.readouterr().out
    wins = {v.episode_id for v in verdicts_of(load_run(oracle)[1]) if v.success}
    losses = {v.episode_id for v in verdicts_of(load_run(never)[1]) if v.success}
    assert wins  # the oracle completes the tasks the never-ask agent cannot
    gained, lost = len(wins - losses), len(losses - wins)
    assert f"| oracle | {len(wins)} of 6, " in table and f"+{gained} / -{lost}, p = " in table
    rows = json.loads((tmp_path / "c.json").read_text())
    assert [r["name"] for r in rows] == ["never", "oracle"] and rows[1]["sr_test"]["other_only"] == gained
    # the ablation columns: neither agent asks where no question is needed
    quiet = sum(not v.inquiry_needed for v in verdicts_of(load_run(oracle)[1]))
    assert quiet and rows[1]["over_asked_where_not_needed"]["n"] == quiet
    assert f"| oracle | {len(wins)} of 6, " in table.split("95% Wilson intervals.")[1]
    assert f"| 0 of {quiet}, 0.0% " in table


def test_compare_explains_runs_of_different_episodes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    assert main(["eval", "--agent", "never-ask", "--episodes", "2", "--out", str(a)]) == 0
    assert main(["eval", "--agent", "never-ask", "--episodes", "3", "--out", str(b)]) == 0
    capsys.readouterr()
    assert main(["compare", str(a), str(b)]) == 2
    assert "different episodes" in capsys.readouterr().err
