"""Tests of the curriculum (SFT -> action GRPO -> task GRPO, each scored on held-out suites) through `mobile-r1 train`."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

import pytest
import torch
import yaml

from mobile_r1.cli.main import main
from mobile_r1.core.errors import ConfigError
from mobile_r1.env import make_backend
from mobile_r1.train import comparison, curriculum, scoring
from mobile_r1.train.config import load_config

REPO = Path(__file__).resolve().parents[2]

TINY: dict[str, Any] = {
    "model": {"name": "tiny-lm"},
    "data": {"dialect": "uitars", "observation_mode": "text", "history_window": 0, "eval_fraction": 0.0},
    "optim": {"lr": 5.0e-3, "scheduler": "constant"},
    "sft": {"epochs": 1, "batch_size": 4, "micro_batch_size": 4, "max_length": 384},
    "grpo": {"prompts_per_step": 2, "num_generations": 2, "max_completion_length": 8, "beta": 0.0,
             "micro_batch_size": 4},
    "task_grpo": {"suite": "inquire-sim", "train_episodes": 2, "eval_episodes": 0, "tasks_per_step": 1, "steps": 1,
                  "max_turns": 2},
    "run": {"max_steps": 2, "save_every": 1, "tensorboard": False},
    "curriculum": {"generate": {"suites": ["inquire-sim"], "episodes": 2}, "eval_suites": ["inquire-sim", "nav-sim"],
                   "eval_episodes": 2, "eval_max_steps": 2, "eval_max_new_tokens": 8, "eval_batch": 2},
}
# the full run also scores in-distribution episodes and the held-out labelled steps
FULL = {**TINY, "curriculum": {**TINY["curriculum"], "eval_in_distribution": 2, "eval_steps": True,
                               "generate": {"suites": ["inquire-sim"], "episodes": 2, "eval_episodes": 1}}}


def write_config(folder: Path, base: dict[str, Any] | None = None, **changes: Any) -> Path:
    data = json.loads(json.dumps(base or TINY))
    for dotted, value in changes.items():
        section, key = dotted.split("__")
        data[section][key] = value
    path = folder / "curriculum.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


def weights(model: Any) -> dict[str, torch.Tensor]:
    return {k: v.detach().clone() for k, v in model.state_dict().items()}


def same(a: dict[str, torch.Tensor], b: dict[str, torch.Tensor]) -> bool:
    return a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)


@pytest.fixture(scope="module")
def full_run(tmp_path_factory: pytest.TempPathFactory, preset_cache: Path) -> dict[str, Any]:
    """One tiny three-stage curriculum through the CLI, recording the weights every stage starts from."""
    from mobile_r1.train import stage as stage_module

    folder = tmp_path_factory.mktemp("curriculum")
    config = write_config(folder, FULL)
    out = folder / "run"
    loaded: list[tuple[str, dict[str, torch.Tensor]]] = []
    real = stage_module.load_policy

    def spy(real: Any) -> Any:
        def load(spec: str, **kwargs: Any) -> Any:
            policy = real(spec, **kwargs)
            loaded.append((str(spec), weights(policy.model)))
            return policy
        return load

    mp = pytest.MonkeyPatch()
    mp.setattr(stage_module, "load_policy", spy(real))  # every stage loads its policy through train.stage
    try:
        code = main(["train", "--config", str(config), "--output-dir", str(out)])
    finally:
        mp.undo()
    return {"code": code, "out": out, "config": config, "loaded": loaded}


@pytest.mark.slow
def test_curriculum_writes_one_comparison_with_a_row_per_stage(full_run: dict[str, Any]) -> None:
    assert full_run["code"] == 0
    out: Path = full_run["out"]
    data = json.loads((out / "comparison.json").read_text())
    assert [r["label"] for r in data["rows"]] == ["untrained", "sft", "action-grpo", "task-grpo"]
    for row in data["rows"]:
        assert set(row["scores"]) == {"inquire-sim", "nav-sim", "inquire-sim-indist", "nav-sim-indist"}
        for score in row["scores"].values():
            assert score["episodes"] == 2
            assert 0.0 <= score["sr"] <= 1.0 and 0.0 <= score["isr"] <= 1.0
    for row in data["rows"]:  # the share of episodes that came back to a screen they had left, from their verdicts
        for suite in ("inquire-sim", "nav-sim"):
            verdicts = [json.loads(ln)["verdict"] for ln in
                        (out / "eval" / row["label"] / suite / "episodes.jsonl").read_text().splitlines()]
            assert row["scores"][suite]["self_correction"] == sum(v["self_corrections"] > 0 for v in verdicts) / 2
    table, paired = (out / "comparison.md").read_text().split("\n\n")[1:3]
    rows = [ln for ln in table.splitlines() if ln.startswith("| ") and "SR" not in ln]
    assert [r.split("|")[1].strip() for r in rows] == [comparison.model_title(k) for k in
                                                      ("untrained", "sft", "action-grpo", "task-grpo")]
    # under it, each trained model's task success against the untrained one's on the same episodes
    assert "exact McNemar" in paired and set(data["sr_vs_untrained"]) == {"sft", "action-grpo", "task-grpo"}
    for label, by_suite in data["sr_vs_untrained"].items():
        for suite, test in by_suite.items():
            gained = sum(json.loads(ln)["verdict"]["success"] for ln in
                         (out / "eval" / label / suite / "episodes.jsonl").read_text().splitlines())
            base = sum(json.loads(ln)["verdict"]["success"] for ln in
                       (out / "eval" / "untrained" / suite / "episodes.jsonl").read_text().splitlines())
            assert test["gained"] - test["lost"] == gained - base and 0.0 < test["p"] <= 1.0

    def asked(label: str, suite: str) -> tuple[int, int]:  # (asked at the right step, tasks that needed a question)
        verdicts = [json.loads(ln)["verdict"] for ln in
                    (out / "eval" / label / suite / "episodes.jsonl").read_text().splitlines()]
        return (sum(v["inquiry"] == "asked" for v in verdicts), sum(v["inquiry"] in ("asked", "missed") for v in verdicts))

    # and, on the suites whose episodes need a question, asking at the right step against the untrained model's
    for label in ("sft", "action-grpo", "task-grpo"):
        for suite in ("inquire-sim", "nav-sim"):
            test = data["asked_vs_untrained"].get(label, {}).get(suite)
            (mine, needed), (base, _) = asked(label, suite), asked("untrained", suite)
            assert (test is None) == (needed == 0)
            if test is not None:
                assert test["gained"] - test["lost"] == mine - base and 0.0 < test["p"] <= 1.0
    # the papers' ablation columns per suite, each a count over the right episodes, read from the verdicts
    md = (out / "comparison.md").read_text()
    for suite in ("inquire-sim", "nav-sim"):
        assert f"The papers' ablation columns on the `test` episodes of {suite}:" in md
        assert list(data["ablation"][suite]) == ["untrained", "sft", "action-grpo", "task-grpo"]
        for label, columns in data["ablation"][suite].items():
            verdicts = [json.loads(ln)["verdict"] for ln in
                        (out / "eval" / label / suite / "episodes.jsonl").read_text().splitlines()]
            quiet = [v for v in verdicts if v["inquiry"] in ("not_needed", "over_asked")]
            over = columns["over_asked_where_not_needed"]
            assert (over["k"], over["n"]) == (sum(v["inquiry"] == "over_asked" for v in quiet), len(quiet))
            assert columns["sr"]["k"] == sum(v["success"] for v in verdicts) and columns["sr"]["n"] == 2
            assert columns["self_correction"]["k"] == sum(v["self_corrections"] > 0 for v in verdicts)
            assert columns["asked_where_needed"]["n"] == len(verdicts) - len(quiet)
            assert f"| {comparison.model_title(label)} | {columns['sr']['k']} of 2, " in md
    page = (out / "report.html").read_text()
    assert "untrained · inquire-sim" in page and "task-grpo · nav-sim" in page
    drawn = [stage for stage in ("sft", "action-grpo", "task-grpo") if (out / stage / "curves.png").is_file()]
    assert drawn and "Training curves" in page  # a stage that logged one point has no curve to draw, and none shown
    assert page.count('alt="learning curves of') == len(drawn)
    # every model played the same held-out episodes
    ids = {label: [json.loads(ln)["id"] for ln in (out / "eval" / label / "nav-sim" / "episodes.jsonl").read_text().splitlines()]
           for label in ("untrained", "sft", "action-grpo", "task-grpo")}
    assert len({tuple(sorted(v)) for v in ids.values()}) == 1
    assert (out / "data" / "inquire-sim" / "episodes.jsonl").is_file()


@pytest.mark.slow
def test_each_stage_is_tested_against_sft_on_held_out_and_in_distribution_episodes_and_steps(full_run: dict[str, Any]) -> None:
    out: Path = full_run["out"]
    data = json.loads((out / "comparison.json").read_text())

    def successes(label: str, key: str) -> dict[str, bool]:
        return {json.loads(ln)["id"]: json.loads(ln)["verdict"]["success"]
                for ln in (out / "eval" / label / key / "episodes.jsonl").read_text().splitlines()}

    for label in ("action-grpo", "task-grpo"):
        for suite in ("inquire-sim", "nav-sim"):
            for tests, key in ((data["sr_vs_sft"], suite), (data["in_distribution"]["sr_vs_sft"], f"{suite}-indist")):
                test = tests[label][suite]
                mine, sft = successes(label, key), successes("sft", key)
                assert set(mine) == set(sft)
                assert (test["gained"], test["lost"]) == (sum(mine[i] and not sft[i] for i in mine),
                                                          sum(sft[i] and not mine[i] for i in mine))
    assert set(data["sr_vs_sft"]) == {"action-grpo", "task-grpo"}
    assert data["in_distribution"]["episodes_per_suite"] == 2 and data["episodes_per_suite"] == 2
    # in-distribution episodes use train phrasings, and no instruction of a training episode
    trained = set((out / "eval" / "train-instructions.txt").read_text().splitlines())
    assert trained
    for suite in ("inquire-sim", "nav-sim"):
        records = [json.loads(ln) for ln in (out / "eval" / "sft" / f"{suite}-indist" / "episodes.jsonl").read_text().splitlines()]
        assert len(records) == 2 and all("/train" in r["id"] and r["instruction"] not in trained for r in records)
    # the held-out labelled steps: every trained model scored on the same steps, tested against SFT
    assert set(data["steps"]) == {"sft", "action-grpo", "task-grpo"} and set(data["steps_vs_sft"]) == {"action-grpo", "task-grpo"}
    steps = [json.loads(ln) for ln in (out / "eval" / "sft" / "steps.jsonl").read_text().splitlines()]
    assert steps[-1]["summary"]["steps"] == data["steps"]["sft"]["steps"] == data["steps_vs_sft"]["task-grpo"]["steps"]
    md = (out / "comparison.md").read_text()
    assert "In-distribution episodes" in md and "Held-out labelled steps" in md and "against the after stage 1 (SFT)" in md


@pytest.mark.slow
def test_the_curriculum_and_each_stage_record_what_their_numbers_depend_on(full_run: dict[str, Any]) -> None:
    for folder in (full_run["out"], full_run["out"] / "sft", full_run["out"] / "task-grpo"):
        card = json.loads((folder / "card.json").read_text())
        assert card["machine"]["processor"] and card["machine"]["torch_threads"] >= 1
        assert card["packages"]["torch"] and card["packages"]["transformers"] and "OMP_WAIT_POLICY" in card["threads"]
    assert json.loads((full_run["out"] / "card.json").read_text())["kind"] == "curriculum"


@pytest.mark.slow
def test_each_stage_starts_from_the_previous_stage_output(full_run: dict[str, Any], preset_cache: Path) -> None:
    from mobile_r1.models import load_policy

    out: Path = full_run["out"]
    loaded = full_run["loaded"]
    initial = weights(load_policy("tiny-lm").model)
    starts = {spec: w for spec, w in loaded}
    assert same(starts["tiny-lm"], initial)
    for stage, previous in (("action-grpo", "sft"), ("task-grpo", "action-grpo")):
        spec = str(out / previous / "final")
        assert spec in starts, f"{stage} did not load {spec}"
        saved = weights(load_policy(spec).model)
        assert same(starts[spec], saved)
        assert not same(starts[spec], initial)
        assert yaml.safe_load((out / stage / "config.yaml").read_text())["model"]["name"] == spec


@pytest.mark.slow
def test_resume_does_not_rerun_finished_stages(full_run: dict[str, Any], monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    out: Path = full_run["out"]
    before = (out / "comparison.json").read_text()

    def fail(*args: Any, **kwargs: Any) -> str:
        raise AssertionError("a finished stage ran again")

    monkeypatch.setattr(curriculum, "run_stage", fail)
    monkeypatch.setattr(curriculum, "evaluate_model", fail)
    assert main(["train", "--config", str(full_run["config"]), "--output-dir", str(out), "--resume"]) == 0
    assert "finished earlier" in capsys.readouterr().err
    assert json.loads((out / "comparison.json").read_text())["rows"] == json.loads(before)["rows"]


@pytest.mark.slow
def test_a_second_run_without_resume_is_refused(full_run: dict[str, Any], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["train", "--config", str(full_run["config"]), "--output-dir", str(full_run["out"])]) == 2
    assert "--resume" in capsys.readouterr().err


class FakeStages:
    """Stands in for training and evaluation: records what ran and from which model."""

    def __init__(self) -> None:
        self.trained: list[tuple[str, str]] = []
        self.scored: list[str] = []
        self.data: list[list[str]] = []  # each stage's data.train

    def run_stage(self, config: Any, stage: str, model: str, run_dir: Path, resume: bool, progress: bool) -> str:
        self.trained.append((stage, model))
        self.data.append(list(config.data.train))
        final = run_dir / stage / "final"
        final.mkdir(parents=True)
        return str(final)

    def evaluate(self, config: Any, label: str, model: str, run_dir: Path, progress: bool) -> dict[str, Any]:
        self.scored.append(label)
        return {s: scoring.SuiteScore(2, 0.5, 0.5, 0.0, 0.0, None, 1.0) for s in config.curriculum.eval_suites}


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> FakeStages:
    stages = FakeStages()
    monkeypatch.setattr(curriculum, "run_stage", stages.run_stage)
    monkeypatch.setattr(curriculum, "evaluate_model", stages.evaluate)
    return stages


def test_skipped_stages_are_skipped_and_the_next_starts_from_the_last_run(tmp_path: Path, fake: FakeStages) -> None:
    config = load_config(write_config(tmp_path, curriculum__stages=["sft", "task-grpo"], curriculum__generate=None),
                         {"data.train": [str(tmp_path)]})
    result = curriculum.run_curriculum(config, output_dir=str(tmp_path / "run"), progress=False, log=lambda _: None)
    assert fake.trained == [("sft", "tiny-lm"), ("task-grpo", str(tmp_path / "run" / "sft" / "final"))]
    assert fake.scored == ["untrained", "sft", "task-grpo"]
    assert result.skipped_stages == ["action-grpo"]
    assert not (tmp_path / "run" / "action-grpo").exists()


@pytest.mark.slow
def test_the_curriculums_expert_data_can_find_named_entries_by_search(tmp_path: Path, fake: FakeStages) -> None:
    generate = {"suites": ["nav-sim"], "episodes": 18, "screenshots": False, "search_first": True}
    config = load_config(write_config(tmp_path, curriculum__stages=["sft"], curriculum__generate=generate,
                                      curriculum__eval_untrained=False))
    curriculum.run_curriculum(config, output_dir=str(tmp_path / "run"), progress=False, log=lambda _: None)
    data = tmp_path / "run" / "data" / "nav-sim"
    assert json.loads((data / "generation.json").read_text())["search_first"] is True
    shop = [json.loads(line) for line in (data / "episodes.jsonl").read_text().splitlines()
            if line.startswith('{"id": "shop.')]
    assert shop and all(any(step["action"].get("text", "").strip() == ep["meta"]["params"]["product"]
                            for step in ep["steps"]) for ep in shop)


@pytest.mark.slow
def test_the_curriculum_also_trains_on_copies_of_its_expert_data_with_the_names_made_up(tmp_path: Path,
                                                                                        fake: FakeStages) -> None:
    generate = {"suites": ["inquire-sim", "nav-sim"], "episodes": 18, "screenshots": False,
                "swap_names": {"suites": ["nav-sim"], "tasks": ["shop.", "contacts."], "copies": 2}}
    config = load_config(write_config(tmp_path, curriculum__stages=["sft"], curriculum__generate=generate,
                                      curriculum__eval_untrained=False))
    out = tmp_path / "run"
    curriculum.run_curriculum(config, output_dir=str(out), progress=False, log=lambda _: None)
    data = out / "data"
    swapped = data / "nav-sim-swapped" / "episodes.jsonl"
    assert fake.data == [[str(data / "inquire-sim"), str(data / "nav-sim"), str(data / "nav-sim-swapped")]]
    source = [json.loads(line) for line in (data / "nav-sim" / "episodes.jsonl").read_text().splitlines()]
    named = [ep for ep in source if ep["id"].startswith(("shop.", "contacts."))]
    copies = [json.loads(line) for line in swapped.read_text().splitlines()]
    assert named and [c["id"] for c in copies] == [f"{ep['id']}/swap{k}" for ep in named for k in (0, 1)]
    pool = re.compile(r"\b(" + "|".join(make_backend("sim").name_pool()) + r")\b")
    assert all(pool.search(json.dumps(ep)) for ep in named)  # each shows people, labels or brands ...
    assert not any(pool.search(json.dumps(c)) for c in copies)  # ... and no copy keeps one
    # resumed with the same settings, the data is kept; another copy count writes it again
    stamp = swapped.stat().st_mtime_ns
    curriculum.run_curriculum(config, output_dir=str(out), resume=True, progress=False, log=lambda _: None)
    assert swapped.stat().st_mtime_ns == stamp
    more = config.model_copy(deep=True)
    assert more.curriculum.generate is not None and more.curriculum.generate.swap_names is not None
    more.curriculum.generate.swap_names.copies = 1
    curriculum.run_curriculum(more, output_dir=str(out), resume=True, progress=False, log=lambda _: None)
    assert len(swapped.read_text().splitlines()) == len(named)
    # the suites listed the other way round: the same stores, byte for byte, which SFT reads in that order
    other = config.model_copy(deep=True)
    assert other.curriculum.generate is not None
    other.curriculum.generate.suites = ["nav-sim", "inquire-sim"]
    out2 = tmp_path / "other"
    curriculum.run_curriculum(other, output_dir=str(out2), progress=False, log=lambda _: None)
    assert fake.data[-1] == [str(out2 / "data" / "nav-sim"), str(out2 / "data" / "inquire-sim"),
                             str(out2 / "data" / "nav-sim-swapped")]
    for store in ("inquire-sim", "nav-sim"):
        assert (out2 / "data" / store / "episodes.jsonl").read_bytes() == (data / store / "episodes.jsonl").read_bytes()
    assert [json.loads(line)["id"] for line in (out2 / "data" / "nav-sim-swapped" / "episodes.jsonl").read_text().splitlines()] \
        == [c["id"] for c in copies]


@pytest.mark.parametrize("generate, message", [
    ({"screenshots": True, "swap_names": {}}, "screenshots: false"),
    ({"screenshots": False, "suites": ["inquire-sim"], "swap_names": {"suites": ["nav-sim"]}}, "not among"),
])
def test_swapped_copies_need_text_only_data_of_a_generated_suite(tmp_path: Path, generate: dict[str, Any],
                                                                 message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        load_config(write_config(tmp_path, curriculum__generate=generate))


def test_grpo_only_needs_no_data_and_resume_runs_only_what_is_left(tmp_path: Path, fake: FakeStages) -> None:
    config = load_config(write_config(tmp_path, curriculum__stages=["task-grpo"], curriculum__generate=None,
                                      curriculum__eval_untrained=False))
    out = str(tmp_path / "run")
    curriculum.run_curriculum(config, output_dir=out, progress=False, log=lambda _: None)
    assert fake.trained == [("task-grpo", "tiny-lm")] and fake.scored == ["task-grpo"]
    wider = config.model_copy(deep=True)
    wider.curriculum.stages = ["task-grpo"]
    wider.curriculum.eval_untrained = True
    curriculum.run_curriculum(wider, output_dir=out, resume=True, progress=False, log=lambda _: None)
    assert fake.trained == [("task-grpo", "tiny-lm")]  # not again
    assert fake.scored == ["task-grpo", "untrained"]  # only the new evaluation


def test_a_resumed_run_scores_a_model_again_when_its_evaluation_episodes_changed(tmp_path: Path,
                                                                               fake: FakeStages) -> None:
    config = load_config(write_config(tmp_path, curriculum__stages=["task-grpo"], curriculum__generate=None,
                                      curriculum__eval_untrained=False))
    out = str(tmp_path / "run")
    curriculum.run_curriculum(config, output_dir=out, progress=False, log=lambda _: None)
    curriculum.run_curriculum(config, output_dir=out, resume=True, progress=False, log=lambda _: None)
    assert fake.scored == ["task-grpo"]  # the same episodes: the scores are kept
    more = config.model_copy(deep=True)
    more.curriculum.eval_episodes += 1
    curriculum.run_curriculum(more, output_dir=out, resume=True, progress=False, log=lambda _: None)
    assert fake.scored == ["task-grpo", "task-grpo"]
    longer = more.model_copy(deep=True)
    longer.curriculum.eval_max_steps = 3
    curriculum.run_curriculum(longer, output_dir=out, resume=True, progress=False, log=lambda _: None)
    assert fake.scored == ["task-grpo"] * 3
    assert fake.trained == [("task-grpo", "tiny-lm")]  # the stage itself is not trained again


def test_a_finished_sft_model_is_scored_as_stage_1_and_the_next_stage_starts_from_it(tmp_path: Path,
                                                                                    fake: FakeStages) -> None:
    sft = tmp_path / "given-sft"
    config = load_config(write_config(tmp_path, curriculum__stages=["sft", "task-grpo"], curriculum__generate=None,
                                      curriculum__eval_untrained=False, curriculum__sft_model=str(sft)))
    with pytest.raises(ConfigError, match="sft_model.*not a model folder"):
        curriculum.run_curriculum(config, output_dir=str(tmp_path / "a"), progress=False, log=lambda _: None)
    sft.mkdir()
    (sft / "config.json").write_text("{}")
    curriculum.run_curriculum(config, output_dir=str(tmp_path / "b"), progress=False, log=lambda _: None)
    assert fake.trained == [("task-grpo", str(sft))]
    assert fake.scored == ["sft", "task-grpo"]
    comparison = json.loads((tmp_path / "b" / "comparison.json").read_text())
    assert [row["label"] for row in comparison["rows"]] == ["sft", "task-grpo"]
    assert comparison["rows"][0]["model"] == str(sft)


def test_the_wall_time_of_a_run_resumed_after_a_crash_counts_the_crashed_invocation(tmp_path: Path, fake: FakeStages,
                                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    config = load_config(write_config(tmp_path, curriculum__stages=["sft", "task-grpo"], curriculum__generate=None,
                                      curriculum__eval_untrained=False), {"data.train": [str(tmp_path)]})
    trained = fake.run_stage

    def slow_then_crash(config: Any, stage: str, model: str, run_dir: Path, resume: bool, progress: bool) -> str:
        if stage == "task-grpo" and not resume:
            raise KeyboardInterrupt
        time.sleep(0.2)
        return trained(config, stage, model, run_dir, resume, progress)

    monkeypatch.setattr(curriculum, "run_stage", slow_then_crash)
    out = str(tmp_path / "run")
    with pytest.raises(KeyboardInterrupt):
        curriculum.run_curriculum(config, output_dir=out, progress=False, log=lambda _: None)
    curriculum.run_curriculum(config, output_dir=out, resume=True, progress=False, log=lambda _: None)
    timings = json.loads((tmp_path / "run" / "curriculum.json").read_text())["timings"]
    assert list(timings)[-1] == "total"
    assert timings["total"] >= timings["sft"] + timings["task-grpo"] >= 0.4


def test_stage_order_and_missing_data_are_config_errors(tmp_path: Path, fake: FakeStages) -> None:
    backwards = load_config(write_config(tmp_path, curriculum__stages=["action-grpo", "sft"]))
    with pytest.raises(ConfigError, match="order"):
        curriculum.run_curriculum(backwards, output_dir=str(tmp_path / "a"), progress=False, log=lambda _: None)
    no_data = load_config(write_config(tmp_path, curriculum__generate=None))
    with pytest.raises(ConfigError, match="data.train"):
        curriculum.run_curriculum(no_data, output_dir=str(tmp_path / "b"), progress=False, log=lambda _: None)


@pytest.mark.parametrize("name, stages", [
    ("demo", ["sft", "action-grpo", "task-grpo"]),
    ("demo-long", ["sft", "action-grpo", "task-grpo"]),
    ("demo-smollm2", ["sft"]),
    ("demo-smollm2-full", ["sft", "action-grpo", "task-grpo"]),
    ("ablation-sft-only", ["sft"]),
    ("ablation-grpo-only", ["action-grpo"]),
    ("ablation-sft-grpo", ["sft", "action-grpo"]),
    ("ablation-full", ["sft", "action-grpo", "task-grpo"]),
])
def test_shipped_curriculum_configs_load(name: str, stages: list[str]) -> None:
    config = load_config(REPO / "configs" / f"{name}.yaml")
    assert config.curriculum.stages == stages
    assert config.curriculum.eval_suites == ["inquire-sim", "nav-sim"]


@pytest.mark.parametrize("dialect", ["compact", "uitars"])
def test_the_scoring_agent_sees_prompts_exactly_as_training_wrote_them(tmp_path: Path, dialect: str) -> None:
    # coordinates in the screen listing and the history must be in the frame the model was trained in
    from mobile_r1.agents import AgentRequest, make_agent
    from mobile_r1.env.sim.expert import Expert
    from mobile_r1.env.sim.episode import build_split
    from mobile_r1.train.data import step_examples
    from mobile_r1.train.data import prompt_settings

    config = load_config(write_config(tmp_path, data__dialect=dialect, data__history_window=3))
    record = Expert().run(build_split("nav-sim", "test", size=1)[0]).episode
    examples = step_examples([record], prompt_settings(config, None))
    agent = make_agent("hf:tiny-lm", dialect=dialect, observation_mode="text", **scoring.eval_agent_options(config))
    for index, example in enumerate(examples):
        step = record.steps[index]
        messages, _ = agent.view.prompt(AgentRequest(record.instruction, step.observation, record.steps[:index]))
        assert messages == example.messages
    assert any("(" in m["content"] for m in examples[-1].messages)


def test_the_scoring_agent_runs_where_training_does(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import torch

    config = load_config(write_config(tmp_path))
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert scoring.eval_agent_options(config)["device"] is None  # the CPU
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    assert scoring.eval_agent_options(config)["device"] == "cuda"


@pytest.mark.slow
def test_suites_scored_side_by_side_score_as_one_after_the_other(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                 preset_cache: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """On a CPU with two cores or more each suite is scored in its own process; the episodes and scores are those
    of scoring the suites in turn in this process. Either way each suite's episodes show on this process's bar."""
    config = load_config(write_config(tmp_path, curriculum__eval_episodes=3, curriculum__eval_max_steps=3))
    pools: list[int] = []
    real_pool = scoring.ProcessPoolExecutor

    def counting_pool(workers: int, **kwargs: Any) -> Any:
        pools.append(workers)
        return real_pool(workers, **kwargs)

    monkeypatch.setattr(scoring, "ProcessPoolExecutor", counting_pool)
    monkeypatch.setattr(scoring.os, "cpu_count", lambda: 2)
    side_by_side = scoring.evaluate_model(config, "untrained", "tiny-lm", tmp_path / "a", progress=True)
    assert pools == [2]
    monkeypatch.setattr(scoring.os, "cpu_count", lambda: 1)
    in_turn = scoring.evaluate_model(config, "untrained", "tiny-lm", tmp_path / "b", progress=True)
    assert pools == [2]  # one core: no processes
    err = capsys.readouterr().err
    for suite in ("inquire-sim", "nav-sim"):  # not a terminal: a line per suite when it is done, in both ways
        assert err.count(f"eval untrained/{suite}: 3/3 (elapsed ") == 2, err
    assert side_by_side == in_turn and set(in_turn) == {"inquire-sim", "nav-sim"}
    for suite in in_turn:
        runs = [[json.loads(ln) for ln in (tmp_path / run / "eval" / "untrained" / suite / "episodes.jsonl")
                 .read_text().splitlines()] for run in ("a", "b")]
        assert [(r["id"], r["verdict"], [s["model_text"] for s in r["steps"]]) for r in runs[0]] == \
               [(r["id"], r["verdict"], [s["model_text"] for s in r["steps"]]) for r in runs[1]]
        assert len(runs[0]) == 3


def test_paired_tables_print_small_p_values_as_bounds_and_skip_empty_tests() -> None:
    tests = {"sr": {"task-grpo": {"inquire-sim": {"gained": 14, "lost": 0, "p": 0.00012},
                                  "nav-sim": {"gained": 3, "lost": 1, "p": 0.625}}},
             "asked": {"task-grpo": {"inquire-sim": {"gained": 26, "lost": 0, "p": 3e-8}}}}
    text = comparison.paired_markdown(tests, ["inquire-sim", "nav-sim"])
    assert "| after stage 3 (task GRPO) | +14 / -0, p < 0.001 | +3 / -1, p = 0.625 |" in text
    assert "| after stage 3 (task GRPO) | +26 / -0, p < 0.001 | - |" in text  # nav-sim needs no question
    sr, asked = (comparison.PAIRED[m].format(base="untrained") for m in ("sr", "asked"))
    assert text.index(sr) < text.index(asked)
    assert asked not in comparison.paired_markdown({"sr": tests["sr"], "asked": {}}, ["nav-sim"])
    assert "against the after stage 1 (SFT) model" in comparison.paired_markdown(tests, ["inquire-sim"], base="sft")
    assert comparison.paired_markdown({"sr": {}, "asked": {}}, ["nav-sim"]) == ""


@pytest.mark.slow
def test_each_evaluation_reports_its_episodes_as_they_finish(tmp_path: Path) -> None:
    """A suite's evaluation reports each finished episode (done of all) to the curriculum's progress bar."""
    from mobile_r1.eval.runner import EvalConfig

    config = EvalConfig(agent="oracle", suite="nav-sim", episodes=3, out=tmp_path / "eval" / "sft" / "nav-sim")
    seen: list[tuple[int, int]] = []
    score = scoring.score_suite(config, lambda done, total, _record: seen.append((done, total)))
    assert score.episodes == 3 and score.sr == 1.0
    done = [d for d, _ in seen]
    assert seen[-1] == (3, 3) and {t for _, t in seen} == {3} and done == sorted(done) and {1, 2, 3} <= set(done)
    assert scoring.eval_name(config) == "eval sft/nav-sim"