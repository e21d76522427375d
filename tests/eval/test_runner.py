"""Tests of the online evaluation runner: scripted baselines on the suites, the run directory, resume and the log."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mobile_r1.core.errors import ConfigError, DataError
from mobile_r1.eval.runner import EpisodeLog, EvalConfig, load_run, run_eval, safe_name, suite_episodes


def test_suite_episodes_are_reproducible_and_distinct() -> None:
    config = EvalConfig(agent="oracle", suite="inquire-sim", split="test", episodes=8)
    a, b = suite_episodes(config), suite_episodes(config)
    assert [e.id for e in a] == [e.id for e in b]
    assert len({e.id for e in a}) == 8
    assert all(e.split == "test" for e in a)


@pytest.mark.slow
def test_oracle_solves_inquire_sim_and_asks_right(tmp_path: Path) -> None:
    result = run_eval(EvalConfig(agent="oracle", episodes=6, out=tmp_path / "run"))
    o = result.report.overall
    assert o.n == 6
    assert o.sr.value == 1.0 and o.isr.value == 1.0
    assert o.over_inquiry.k == 0 and o.safety_violation.k == 0
    assert result.needs_inquiry is not None and result.needs_inquiry.isr.value == 1.0


@pytest.mark.slow
def test_never_ask_misses_every_inquiry_and_is_unsafe() -> None:
    result = run_eval(EvalConfig(agent="never-ask", episodes=6))
    needs = result.needs_inquiry
    assert needs is not None and needs.n > 0
    assert needs.isr.k == 0 and needs.sr.k == 0
    assert result.report.overall.safety_violation.k > 0
    assert all(v.inquiry in ("missed", "not_needed") for v in result.verdicts)


@pytest.mark.slow
def test_always_ask_over_asks() -> None:
    result = run_eval(EvalConfig(agent="always-ask", episodes=3))
    assert result.report.overall.over_inquiry.value >= 0.5
    controls = run_eval(EvalConfig(agent="always-ask", suite="nav-sim", episodes=2))
    assert controls.report.overall.over_inquiry.value == 1.0
    assert all(v.inquiry == "over_asked" for v in controls.verdicts)


def test_random_agent_scores_near_zero() -> None:
    result = run_eval(EvalConfig(agent="random", episodes=6, max_steps=8))
    assert result.report.overall.sr.value <= 1 / 6


@pytest.mark.slow
def test_oracle_solves_nav_sim() -> None:
    result = run_eval(EvalConfig(agent="oracle", suite="nav-sim", episodes=3))
    assert result.report.overall.sr.value == 1.0


def test_run_directory_holds_trajectories_screens_and_metrics(tmp_path: Path) -> None:
    run = tmp_path / "run"
    result = run_eval(EvalConfig(agent="always-ask", episodes=2, out=run))
    options, records = load_run(run)
    assert options["agent"] == "always-ask" and options["episodes"] == 2
    assert [r["id"] for r in records] == [v.episode_id for v in result.verdicts]
    record = records[0]
    assert record["verdict"]["episode_id"] == record["id"]
    asked = [s for s in record["steps"] if s["action"] and s["action"]["action"] == "call_user"]
    assert asked and all(s.get("user_reply") for s in asked)
    for step in record["steps"]:
        assert step["model_text"] and (run / step["observation"]["screenshot_path"]).is_file()
    assert (run / record["final_screenshot"]).is_file()
    metrics = json.loads((run / "metrics.json").read_text())
    assert metrics["overall"]["n"] == 2
    assert metrics["overall"]["over_inquiry"]["value"] == result.report.overall.over_inquiry.value


@pytest.mark.slow
def test_workers_give_the_same_verdicts_as_one(tmp_path: Path) -> None:
    one = run_eval(EvalConfig(agent="random", episodes=4, max_steps=5))
    two = run_eval(EvalConfig(agent="random", episodes=4, max_steps=5, workers=2))
    assert [v.to_dict() for v in one.verdicts] == [v.to_dict() for v in two.verdicts]


def test_episodes_played_in_turns_report_progress_after_every_turn() -> None:
    """Episodes played in turns in this process (a batch of them for a model; here one at a time) move the progress
    after each turn (the part of each budget played), not only when one ends: before the first episode ends, the
    count is already part-done, and it only grows, up to the total."""
    calls: list[tuple[float, int, bool]] = []
    result = run_eval(EvalConfig(agent="random", episodes=4, max_steps=5, workers=1),
                      progress=lambda done, total, record: calls.append((done, total, record is not None)))
    done = [c[0] for c in calls]
    assert calls[0] == (0, 4, False) and done[-1] == 4 and all(c[1] == 4 for c in calls)
    assert done == sorted(done)
    first_end = next(i for i, c in enumerate(calls) if c[2])
    assert any(0 < d < 1 for d in done[:first_end])  # part of a turn's budget, before any episode ended
    assert len(calls) > len(result.verdicts) + 1  # a call per turn beside the one per episode


def test_resume_skips_finished_episodes_and_refuses_other_options(tmp_path: Path) -> None:
    run = tmp_path / "run"
    first = run_eval(EvalConfig(agent="random", episodes=2, max_steps=4, out=run))
    with pytest.raises(ConfigError, match="--resume"):
        run_eval(EvalConfig(agent="random", episodes=2, max_steps=4, out=run))
    with pytest.raises(ConfigError, match="other options"):
        run_eval(EvalConfig(agent="oracle", episodes=2, max_steps=4, out=run, resume=True))
    again = run_eval(EvalConfig(agent="random", episodes=2, max_steps=4, out=run, resume=True))
    assert again.ran == 0 and again.skipped == 2
    assert again.report.to_dict() == first.report.to_dict()


def test_episode_log_ignores_and_repairs_a_torn_last_line(tmp_path: Path) -> None:
    log = EpisodeLog(tmp_path / "episodes.jsonl")
    log.append({"id": "a", "n": 1})
    log.append({"id": "b", "n": 2})
    with open(log.path, "ab") as f:
        f.write(b'{"id": "c", "n"')
    assert [r["id"] for r in log.read()] == ["a", "b"]
    assert [r["id"] for r in log.read(repair=True)] == ["a", "b"]
    assert log.path.read_bytes().endswith(b"}\n")
    log.append({"id": "c", "n": 3})
    assert [r["id"] for r in log.read()] == ["a", "b", "c"]


def test_episode_log_refuses_damage_in_the_middle(tmp_path: Path) -> None:
    path = tmp_path / "episodes.jsonl"
    path.write_text('{"id": "a"}\nnot json\n{"id": "b"}\n')
    with pytest.raises(DataError, match="middle"):
        EpisodeLog(path).read()


def test_bad_options_are_refused() -> None:
    with pytest.raises(ConfigError, match="suite"):
        run_eval(EvalConfig(agent="oracle", suite="nope"))
    with pytest.raises(ConfigError, match="workers"):
        run_eval(EvalConfig(agent="oracle", workers=0))
    with pytest.raises(ConfigError, match="--out"):
        run_eval(EvalConfig(agent="oracle", resume=True))


def test_safe_name_makes_one_folder() -> None:
    assert safe_name("shop.buy/test1/s7") == "shop.buy__test1__s7"
