"""Tests of `mobile-r1 eval` and `mobile-r1 eval-offline` through the CLI, including kill-and-resume in a subprocess."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from mobile_r1.agents import AgentOutput, register_agent
from mobile_r1.agents.base import Agent
from mobile_r1.cli.main import main
from mobile_r1.core.actions import Action
from mobile_r1.core.dialects import ParseResult
from mobile_r1.core.formats import save_episodes
from mobile_r1.core.records import Episode, Observation, Step


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def test_eval_prints_metrics_and_writes_the_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = tmp_path / "run"
    code = main(["eval", "--agent", "oracle", "--suite", "inquire-sim", "--episodes", "2", "--out", str(run), "--json"])
    out = capsys.readouterr().out
    assert code == 0
    summary = json.loads(out)  # standard output is one JSON document: no table after it
    assert summary["overall"]["n"] == 2 and summary["overall"]["sr"]["value"] == 1.0 and summary["infra_errors"] == 0
    assert len(_lines(run / "episodes.jsonl")) == 2
    assert json.loads((run / "run.json").read_text())["agent"] == "oracle"
    # without --json the table goes to standard output, with every interval in one format
    assert main(["eval", "--agent", "oracle", "--suite", "inquire-sim", "--episodes", "2"]) == 0
    table = capsys.readouterr().out
    assert "over-inquiry" in table and "all" in table and "100.0% [34.2, 100.0]" in table


def test_gate_refusals_are_counted_in_the_summary_and_explained(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """With the safety gate on and nobody at the terminal, the oracle's risky actions are refused: the summary says so
    (counts.gate_refused, a note on what to do), rather than an unexplained low SR."""
    monkeypatch.setattr(sys, "stdin", open(os.devnull))
    assert main(["eval", "--agent", "oracle", "--suite", "inquire-sim", "--episodes", "4", "--confirm", "risky",
                 "--out", str(tmp_path / "run"), "--json"]) == 0
    captured = capsys.readouterr()
    figures = json.loads(captured.out)
    counts = figures["counts"]
    assert counts["gate_refused"] >= 1 and counts["unattended"] == counts["gate_refusals"] >= counts["gate_refused"]
    assert figures["overall"]["sr"]["k"] <= 4 - counts["gate_refused"]
    assert "refused by the safety gate" in captured.err and "--confirm none" in captured.err
    metrics = json.loads((tmp_path / "run" / "metrics.json").read_text())
    assert metrics["counts"] == counts
    assert main(["eval", "--agent", "oracle", "--suite", "inquire-sim", "--episodes", "4", "--confirm", "none",
                 "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["counts"]["gate_refused"] == 0


def test_a_bad_agent_option_leaves_no_run_folder(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = tmp_path / "run"
    assert main(["eval", "--agent", "random", "--suite", "nav-sim", "--episodes", "2", "--option", "tempreature=1",
                 "--out", str(run)]) == 2
    assert "tempreature" in capsys.readouterr().err and not run.exists()
    # the corrected command then runs in that folder
    assert main(["eval", "--agent", "random", "--suite", "nav-sim", "--episodes", "2", "--out", str(run)]) == 0


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--version"]) == 0
    assert capsys.readouterr().out.startswith("mobile-r1 ")


@pytest.mark.slow
def test_a_few_episodes_are_a_stratified_sample_with_control_tasks(tmp_path: Path) -> None:
    run = tmp_path / "run"
    assert main(["eval", "--agent", "oracle", "--suite", "inquire-sim", "--episodes", "8", "--out", str(run)]) == 0
    categories = [r["category"] for r in _lines(run / "episodes.jsonl")]
    assert "control" in categories and sum(c != "control" for c in categories) >= 4


def test_eval_refuses_an_unknown_suite(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", "--agent", "oracle", "--suite", "nope"]) == 2
    assert "unknown suite" in capsys.readouterr().err


@pytest.mark.slow
def test_killed_eval_resumes_to_the_uninterrupted_result(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    n = 8
    killed, whole = tmp_path / "killed", tmp_path / "whole"
    args = ["eval", "--agent", "always-ask", "--episodes", str(n), "--max-steps", "30"]
    proc = subprocess.Popen([sys.executable, "-m", "mobile_r1.cli.main", *args, "--out", str(killed)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    log = killed / "episodes.jsonl"
    deadline = time.time() + 120
    while time.time() < deadline and proc.poll() is None:
        if log.exists() and log.read_bytes().count(b"\n") >= 2:
            break
        time.sleep(0.02)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    before = _lines(log)
    assert 2 <= len(before) < n, "the run should be killed halfway"
    with open(log, "ab") as f:  # a write torn by the kill
        f.write(b'{"id": "torn", "steps": [')
    assert main([*args, "--out", str(killed), "--resume"]) == 0
    assert main([*args, "--out", str(whole)]) == 0
    capsys.readouterr()
    resumed = _lines(log)
    ids = [r["id"] for r in resumed]
    assert len(ids) == n and len(set(ids)) == n
    assert ids[: len(before)] == [r["id"] for r in before]
    assert sorted(ids) == sorted(r["id"] for r in _lines(whole / "episodes.jsonl"))
    a = json.loads((killed / "metrics.json").read_text())
    b = json.loads((whole / "metrics.json").read_text())
    assert a == b


@pytest.mark.slow
def test_eval_runs_a_tiny_hf_model_on_text_observations(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run = tmp_path / "run"
    code = main(["eval", "--agent", "hf:tiny-lm", "--observation", "text", "--episodes", "2", "--workers", "2",
                 "--max-steps", "2", "--option", "max_new_tokens=16", "--out", str(run)])
    assert code == 0
    records = _lines(run / "episodes.jsonl")
    assert len(records) == 2
    assert all(len(r["steps"]) <= 2 and "verdict" in r for r in records)
    assert all(isinstance(s["model_text"], str) for r in records for s in r["steps"])


class _LabelAgent(Agent):
    """Answers with the action the test stored for each step (to check the offline scorer)."""

    answers: list[Action | None] = []

    def act(self, request):  # type: ignore[no-untyped-def]
        action = self.answers.pop(0)
        return AgentOutput(str(action), ParseResult(action, "", "", action is not None, None, str(action)), action)


def _labelled(tmp_path: Path) -> Path:
    obs = Observation(screen_size=(1000, 2000))
    steps = [
        Step(action=Action.click(100, 100), observation=obs, bbox=(50, 50, 150, 150)),
        Step(action=Action.call_user("Pay now?"), observation=obs),
        Step(action=Action.type_text("hello"), observation=obs),
        Step(action=Action.terminate("success"), observation=obs),
    ]
    path = tmp_path / "data" / "episodes.jsonl"
    save_episodes(path, [Episode(id="e1", instruction="do it", steps=steps, screen_size=(1000, 2000))])
    return path


def test_eval_offline_scores_steps_with_a_named_matcher(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    register_agent("label-test", lambda arg, **kw: _LabelAgent(), replace=True)
    _LabelAgent.answers = [Action.click(110, 120), Action.call_user("?"), Action.call_user("?"), None]
    data = _labelled(tmp_path)
    out = tmp_path / "steps.jsonl"
    code = main(["eval-offline", "--agent", "label-test", "--data", str(data), "--matcher", "qwen-ac",
                 "--out", str(out), "--json"])
    printed = capsys.readouterr().out
    assert code == 0
    summary = json.loads(printed)  # standard output is one JSON document: no table after it
    assert summary["preset"] == "qwen-ac" and summary["steps"] == 4
    assert summary["type"] == pytest.approx(0.5) and summary["step_sr"] == pytest.approx(0.5)
    assert summary["grounding"] == 1.0
    assert summary["inquiry"]["precision"] == pytest.approx(0.5) and summary["inquiry"]["recall"] == 1.0
    assert "qwen-ac" in printed
    rows = _lines(out)
    assert [r.get("exact") for r in rows[:4]] == [True, True, False, False]
    assert "summary" in rows[-1]


@pytest.mark.slow
def test_each_episode_counts_its_self_corrections_and_the_run_reports_how_many_recovered(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    def run(name: str, *options: str) -> tuple[dict, list[dict]]:
        out = tmp_path / name
        assert main(["eval", "--agent", "oracle", *options, "--suite", "nav-sim", "--split", "test", "--episodes", "8",
                     "--out", str(out), "--json"]) == 0
        return json.loads(capsys.readouterr().out), _lines(out / "episodes.jsonl")

    # the expert's own plan never goes back to a screen it left
    summary, records = run("straight")
    assert [r["verdict"]["self_corrections"] for r in records] == [0] * 8
    assert summary["overall"]["self_correction"]["k"] == 0 and summary["overall"]["self_correction"]["n"] == 8
    # with a wrong step first in every episode, those that had to come back to a screen they left are counted
    summary, records = run("recovering", "--option", "self_correct=1.0")
    counts = [r["verdict"]["self_corrections"] for r in records]
    recovered = sum(c > 0 for c in counts)
    assert 0 < recovered and summary["overall"]["self_correction"]["k"] == recovered
    for record, count in zip(records, counts):  # each count is the trajectory's returns to a state it had left
        assert record["verdict"]["success"] and count < len(record["steps"])  # a first step cannot return
    # the table shows the rate, and a share outside 0..1 is refused before anything is written
    assert main(["eval", "--agent", "oracle", "--option", "self_correct=1.0", "--suite", "nav-sim", "--split", "test",
                 "--episodes", "8"]) == 0
    assert "self-corr." in capsys.readouterr().out
    assert main(["eval", "--agent", "oracle", "--option", "self_correct=2", "--suite", "nav-sim",
                 "--out", str(tmp_path / "bad")]) == 2
    assert "self_correct" in capsys.readouterr().err and not (tmp_path / "bad").exists()
