"""`mobile-r1 compare` through the CLI, on runs written by `mobile-r1 eval` and on per-step results written by
`mobile-r1 eval-offline`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mobile_r1.agents import AgentOutput, register_agent
from mobile_r1.agents.base import Agent
from mobile_r1.cli.main import main
from mobile_r1.core.actions import Action
from mobile_r1.core.dialects import ParseResult
from mobile_r1.core.formats import load_any
from mobile_r1.eval.compare import exact_mcnemar
from mobile_r1.eval.runner import load_run, verdicts_of


@pytest.mark.slow
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


@pytest.mark.slow
def test_compare_explains_runs_of_different_episodes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    assert main(["eval", "--agent", "never-ask", "--episodes", "2", "--out", str(a)]) == 0
    assert main(["eval", "--agent", "never-ask", "--episodes", "3", "--out", str(b)]) == 0
    capsys.readouterr()
    assert main(["compare", str(a), str(b)]) == 2
    assert "different episodes" in capsys.readouterr().err


class _EvenLabels(Agent):
    """Answers each episode's even steps with their labels and its odd steps with a wait: a model that is right on a
    known share of the steps."""

    labels: dict[tuple[str, int], Action] = {}

    def act(self, request):  # type: ignore[no-untyped-def]
        step = len(request.history)
        action = self.labels[(request.episode_id or "", step)] if step % 2 == 0 else Action.wait(1.0)
        return AgentOutput(str(action), ParseResult(action, "", "", True, None, str(action)), action)


def _step_results(path: Path) -> dict[tuple[str, int], bool]:
    records = [json.loads(line) for line in path.read_text().splitlines()]
    return {(r["episode_id"], r["step"]): r["exact"] for r in records if "summary" not in r}


@pytest.mark.slow
def test_compare_tests_exact_steps_of_models_scored_offline_on_the_same_labelled_steps(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    labels: dict[tuple[str, int], Action] = {}
    for suite in ("nav-sim", "inquire-sim"):
        data = tmp_path / "data" / suite
        assert main(["data", "generate", "--suite", suite, "--split", "test", "--episodes", "3", "--no-screenshots",
                     "--out", str(data)]) == 0
        labels |= {(e.id, i): s.action for e in load_any(data)[1] for i, s in enumerate(e.steps)}
    _EvenLabels.labels = labels
    register_agent("even-labels", lambda arg, **kw: _EvenLabels(), replace=True)
    for agent, folder in (("random", "random"), ("even-labels", "even")):
        for suite in ("nav-sim", "inquire-sim"):  # one model's suites into one folder, pooled by compare
            assert main(["eval-offline", "--agent", agent, "--data", str(tmp_path / "data" / suite),
                         "--out", str(tmp_path / folder / f"{suite}.jsonl"), "--json"]) == 0
    capsys.readouterr()
    assert main(["compare", str(tmp_path / "random"), str(tmp_path / "even"), "--json", str(tmp_path / "c.json")]) == 0
    table = capsys.readouterr().out
    base, other = ({k: v for suite in ("nav-sim", "inquire-sim")
                    for k, v in _step_results(tmp_path / folder / f"{suite}.jsonl").items()}
                   for folder in ("random", "even"))
    assert set(base) == set(other) == set(labels)
    gained = sum(other[k] and not base[k] for k in base)
    lost = sum(base[k] and not other[k] for k in base)
    even = sum(step % 2 == 0 for _, step in labels)
    assert sum(other.values()) >= even and gained > 0  # every label replayed is exact
    assert f"{len(labels)} labelled steps, the same for every run" in table
    assert "| even | " in table and f"| {sum(other.values())} of {len(labels)}, " in table
    assert f"+{gained} / -{lost}, p = " in table or f"+{gained} / -{lost}, p < 0.001" in table
    rows = json.loads((tmp_path / "c.json").read_text())
    assert [r["name"] for r in rows] == ["random", "even"] and rows[0]["exact_test"] is None
    test = rows[1]["exact_test"]
    assert (test["other_only"], test["base_only"]) == (gained, lost)
    assert test["p"] == pytest.approx(exact_mcnemar(lost, gained))
    assert rows[1]["exact"]["k"] == sum(other.values()) and rows[1]["exact"]["n"] == len(labels)
    # one suite against two: different steps; an evaluation run beside per-step results: refused
    assert main(["compare", str(tmp_path / "random" / "nav-sim.jsonl"), str(tmp_path / "even")]) == 2
    assert "different steps" in capsys.readouterr().err
    assert main(["eval", "--agent", "never-ask", "--episodes", "2", "--out", str(tmp_path / "run")]) == 0
    capsys.readouterr()
    assert main(["compare", str(tmp_path / "run"), str(tmp_path / "even")]) == 2
    assert "not both" in capsys.readouterr().err
    # the same step twice (the base's file copied into its folder) is named, not counted twice
    (tmp_path / "random" / "again.jsonl").write_text((tmp_path / "random" / "nav-sim.jsonl").read_text())
    assert main(["compare", str(tmp_path / "random"), str(tmp_path / "even")]) == 2
    assert "scored twice" in capsys.readouterr().err
