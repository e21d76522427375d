"""Tests of `mobile-r1 demo`: it runs the curriculum of a config, prints the comparison and where the report is."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from mobile_r1.cli import demo as demo_cli
from mobile_r1.cli.main import main
from mobile_r1.train import curriculum


class ScriptedStages:
    """Training replaced by a folder per stage; evaluation really runs, with a scripted agent per model."""

    def __init__(self) -> None:
        self.trained: list[str] = []

    def run_stage(self, config: Any, stage: str, model: str, run_dir: Path, resume: bool, progress: bool) -> str:
        self.trained.append(stage)
        final = run_dir / stage / "final"
        final.mkdir(parents=True)
        return str(final)

    def evaluate(self, config: Any, label: str, model: str, run_dir: Path, progress: bool) -> dict[str, Any]:
        from mobile_r1.eval.runner import EvalConfig, run_eval

        agent = "never-ask" if label == curriculum.UNTRAINED else "oracle"
        scores = {}
        for suite in config.curriculum.eval_suites:
            result = run_eval(EvalConfig(agent=agent, suite=suite, episodes=config.curriculum.eval_episodes,
                                         out=run_dir / "eval" / label / suite, scale=0.1))
            o = result.report.overall
            scores[suite] = curriculum.SuiteScore(o.n, o.sr.value, o.isr.value, o.over_inquiry.value,
                                                  o.safety_violation.value, None, o.mean_steps.value,
                                                  o.mean_score.value)
        return scores


@pytest.fixture
def config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    stages = ScriptedStages()
    monkeypatch.setattr(curriculum, "run_stage", stages.run_stage)
    monkeypatch.setattr(curriculum, "evaluate_model", stages.evaluate)
    path = tmp_path / "demo.yaml"
    path.write_text(yaml.safe_dump({
        "data": {"train": [str(tmp_path)]},
        "run": {"output_dir": str(tmp_path / "runs" / "demo")},
        "curriculum": {"stages": ["sft", "task-grpo"], "eval_suites": ["inquire-sim"], "eval_episodes": 2},
    }), encoding="utf-8")
    return path


@pytest.mark.slow
def test_demo_prints_the_table_and_where_the_report_is(config: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--config", str(config)]) == 0
    shown = capsys.readouterr()
    err, out = shown.err, shown.out
    run_dir = config.parent / "runs" / "demo"
    assert f"report: {run_dir / 'report.html'}" in err.replace("\n", "")
    assert "| after stage 1 (SFT) |" in out and "| after stage 3 (task GRPO) |" in out  # the table: standard output
    assert "action GRPO" not in out + err  # skipped by the config
    page = (run_dir / "report.html").read_text()
    assert "untrained · inquire-sim" in page and "sft · inquire-sim" in page
    rows = json.loads((run_dir / "comparison.json").read_text())["rows"]
    assert [r["label"] for r in rows] == ["untrained", "sft", "task-grpo"]
    assert rows[-1]["scores"]["inquire-sim"]["sr"] > rows[0]["scores"]["inquire-sim"]["sr"]  # oracle vs never-ask
    oracle = rows[-1]["scores"]["inquire-sim"]["mean_score"]
    assert oracle > rows[0]["scores"]["inquire-sim"]["mean_score"]
    assert f"| {oracle:.2f} |" in out and "inquire-sim score" in out
    # each trained model's task success against the untrained one's, paired on the same episodes
    from mobile_r1.eval.runner import load_run, verdicts_of

    won = {label: {v.episode_id for v in verdicts_of(load_run(run_dir / "eval" / label / "inquire-sim")[1]) if v.success}
           for label in ("untrained", "task-grpo")}
    gained, lost = len(won["task-grpo"] - won["untrained"]), len(won["untrained"] - won["task-grpo"])
    assert gained > 0  # the oracle completes tasks the never-ask agent cannot
    tests = json.loads((run_dir / "comparison.json").read_text())["sr_vs_untrained"]
    assert set(tests) == {"sft", "task-grpo"} and (tests["task-grpo"]["inquire-sim"]["gained"], tests["task-grpo"]["inquire-sim"]["lost"]) == (gained, lost)
    assert f"| after stage 3 (task GRPO) | +{gained} / -{lost}, p" in out.replace("\n", "")
    # and its questions at the right step, on the episodes that need one: the oracle asks in each, never-ask in none
    verdicts = verdicts_of(load_run(run_dir / "eval" / "task-grpo" / "inquire-sim")[1])
    needed = sum(v.inquiry_needed for v in verdicts)
    assert needed > 0 and sum(v.inquiry == "asked" for v in verdicts) == needed
    asked = json.loads((run_dir / "comparison.json").read_text())["asked_vs_untrained"]["task-grpo"]
    assert set(asked) == {"inquire-sim"} and (asked["inquire-sim"]["gained"], asked["inquire-sim"]["lost"]) == (needed, 0)
    assert "A question at the right step against the untrained model" in out.replace("\n", " ")


@pytest.mark.slow
def test_a_second_demo_continues_and_fresh_starts_over(config: Path, capsys: pytest.CaptureFixture[str],
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    assert main(["demo", "--config", str(config)]) == 0
    capsys.readouterr()
    calls: list[str] = []
    monkeypatch.setattr(curriculum, "run_stage", lambda *a, **k: calls.append(a[1]) or str(Path(a[3], a[1], "final")))
    assert main(["demo", "--config", str(config)]) == 0
    assert "continuing the demo run" in capsys.readouterr().err
    assert calls == []
    assert main(["demo", "--config", str(config), "--fresh"]) == 0
    assert calls == ["sft", "task-grpo"]


def test_demo_without_a_config_explains(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--config", str(tmp_path / "missing.yaml")]) == 2
    assert "not found" in capsys.readouterr().err


def test_the_default_config_is_the_shipped_demo() -> None:
    assert demo_cli.default_config().resolve() == (Path(__file__).resolve().parents[2] / "configs" / "demo.yaml")
