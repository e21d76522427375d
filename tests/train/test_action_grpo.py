"""Stage 2 action-level GRPO: rollouts scored by a reward preset, logged metrics, and kill-then-resume."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import torch

from mobile_r1.core.actions import Action
from mobile_r1.core.records import Episode
from mobile_r1.core.rewards import get_preset
from mobile_r1.models import load_policy
from mobile_r1.train.action_grpo import LabelledStepSource
from mobile_r1.train.config import TrainConfig
from mobile_r1.models.policy import decode_completion
from mobile_r1.train.data import PromptSettings, encode_prompt, step_examples
from mobile_r1.train.grpo import GRPOSettings
from mobile_r1.train.processes import make_accelerator
from mobile_r1.train.run import train


def test_rollout_scores_every_sample_with_the_preset(episodes: list[Episode]) -> None:
    torch.manual_seed(0)
    policy = load_policy("tiny-lm")
    examples = step_examples(episodes, PromptSettings(dialect="inquire", history_window=1))[:2]
    source = LabelledStepSource(examples, "inquire-mobile", "inquire")
    rollout = source.rollout(policy, GRPOSettings(num_generations=3, max_completion_length=12), 0)
    assert len(rollout.samples) == 6 and [s.group for s in rollout.samples] == [0, 0, 0, 1, 1, 1]
    preset = get_preset("inquire-mobile")
    for s in rollout.samples:
        ex = examples[s.group]
        expected = preset.score(decode_completion(policy, s.completion_ids), ex.label, ex.bbox, ex.screen_size, ex.model_size)
        assert s.reward == expected.total and len(s.completion_ids) <= 12
    for key in ("reward_mean", "reward_format", "reward_accuracy", "reward_type", "reward_argument", "format_valid",
                "completion_length", "zero_std_groups"):
        assert key in rollout.metrics
    assert rollout.metrics["reward_mean"] == pytest.approx(sum(s.reward for s in rollout.samples) / 6)


def test_the_prompts_of_a_step_can_be_sampled_in_one_generate_call(episodes: list[Episode],
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    import mobile_r1.train.grpo as grpo

    policy = load_policy("tiny-lm")
    examples = step_examples(episodes, PromptSettings(dialect="inquire", history_window=1))[:3]
    prompts = [encode_prompt(policy, e.messages, e.images) for e in examples]
    assert len({len(p.ids) for p in prompts}) > 1  # prompts of different lengths share a left-padded batch
    calls: list[int] = []
    real = grpo.sample

    def counted(policy_, batch, sampling, seed=None):  # type: ignore[no-untyped-def]
        calls.append(batch["input_ids"].shape[0])
        return real(policy_, batch, sampling, seed)

    monkeypatch.setattr(grpo, "sample", counted)
    greedy = GRPOSettings(num_generations=2, temperature=0.0, max_completion_length=8)
    apart = grpo.generate(policy, prompts, greedy)
    assert calls == [2, 2, 2]
    together = grpo.generate(policy, prompts, GRPOSettings(num_generations=2, temperature=0.0, max_completion_length=8,
                                                           prompts_per_generate=3))
    assert calls[3:] == [6]
    assert together == apart  # the same completions, in the same groups: prompt 0's two, then prompt 1's, ...
    assert grpo.generate(policy, prompts, GRPOSettings(num_generations=2, temperature=0.0, max_completion_length=8,
                                                       prompts_per_generate=2)) == apart and calls[4:] == [4, 2]
    with pytest.raises(Exception, match="prompts_per_generate"):
        GRPOSettings(prompts_per_generate=0)


def test_a_perfect_completion_gets_the_full_reward(episodes: list[Episode]) -> None:
    # the SFT target of a step is what stage 2 rewards most
    examples = step_examples(episodes, PromptSettings(dialect="inquire"))
    preset = get_preset("inquire-mobile")
    clicks = [e for e in examples if e.label.type.value == "click"]
    result = preset.score(clicks[0].target, clicks[0].label, clicks[0].bbox, clicks[0].screen_size, clicks[0].model_size)
    assert result.total == 3.0


def _config(tmp_path: Path, episodes: list[Episode], name: str, **run: object) -> TrainConfig:
    from mobile_r1.core.formats import save_episodes

    data = save_episodes(tmp_path / "data", episodes)
    return TrainConfig.model_validate({
        "model": {"name": "tiny-lm"},
        "data": {"train": [str(data)], "eval": [str(data)], "history_window": 1, "eval_max_steps": 2},
        "optim": {"lr": 1e-3},
        "grpo": {"prompts_per_step": 2, "num_generations": 3, "max_completion_length": 10, "num_iterations": 2,
                 "micro_batch_size": 3},
        "run": {"output_dir": str(tmp_path / name), "save_every": 2, "max_steps": 4, "tensorboard": False, **run},
    })


def _train_records(run_dir: Path) -> list[dict]:
    lines = (run_dir / "metrics.jsonl").read_text().splitlines()
    return [r for r in map(json.loads, lines) if r["kind"] == "train"]


class Killed(Exception):
    pass


@pytest.mark.slow
def test_resumed_run_continues_where_the_killed_one_stopped(tmp_path: Path, episodes: list[Episode]) -> None:
    straight = train(_config(tmp_path, episodes, "straight"), "action-grpo", progress=False)
    reference = _train_records(straight.run_dir)
    assert [r["step"] for r in reference] == [1, 2, 3, 4]
    for key in ("loss", "kl", "reward_mean", "reward_format", "format_valid", "completion_length", "zero_std_groups", "lr"):
        assert key in reference[0]
    assert reference[-1]["lr"] < reference[0]["lr"]  # linear decay

    config = _config(tmp_path, episodes, "killed")

    def kill(step: int, metrics: dict) -> None:
        if step == 3:  # after the checkpoint of step 2, before the one of step 4
            raise Killed

    with pytest.raises(Killed):
        train(config, "action-grpo", progress=False, on_step=kill)
    assert not (Path(config.run.output_dir) / "final").exists()
    resumed = train(config, "action-grpo", progress=False, resume=True)
    records = _train_records(resumed.run_dir)
    assert [r["step"] for r in records] == [1, 2, 3, 4]
    for ours, ref in zip(records, reference):
        for key in ("loss", "reward_mean", "completion_length", "lr", "kl"):
            assert ours[key] == pytest.approx(ref[key], abs=1e-6), (ours["step"], key)
    assert (resumed.run_dir / "final" / "config.json").is_file()


@pytest.mark.slow
def test_resume_ignores_and_reports_a_checkpoint_killed_while_written(
    tmp_path: Path, episodes: list[Episode], caplog: pytest.LogCaptureFixture
) -> None:
    """A kill while `checkpoints/step-4.tmp/` is being written leaves that folder behind (here with its state file,
    as when the kill comes after state.pt and before the rename); --resume must continue from step-2, the last
    complete checkpoint, not parse `4.tmp` as a step."""
    import shutil

    config = _config(tmp_path, episodes, "killed")

    def kill(step: int, metrics: dict) -> None:
        if step == 3:
            raise Killed

    with pytest.raises(Killed):
        train(config, "action-grpo", progress=False, on_step=kill)
    checkpoints = Path(config.run.output_dir) / "checkpoints"
    shutil.copytree(checkpoints / "step-2", checkpoints / "step-4.tmp")
    (checkpoints / "step-6").mkdir()  # a folder without its state: incomplete too
    caplog.set_level("WARNING")
    resumed = train(config, "action-grpo", progress=False, resume=True)
    assert [r["step"] for r in _train_records(resumed.run_dir)] == [1, 2, 3, 4]
    assert "step-4.tmp: an incomplete checkpoint" in caplog.text and "step-6: an incomplete checkpoint" in caplog.text


def test_only_complete_checkpoints_are_listed(tmp_path: Path) -> None:
    from mobile_r1.train.checkpoints import list_checkpoints

    root = tmp_path / "checkpoints"
    for name, state in (("step-2", True), ("step-10", True), ("step-4.tmp", True), ("step-6", False),
                        ("step-8.old", True), ("step-x", True), ("notes", False)):
        (root / name).mkdir(parents=True)
        if state:
            (root / name / "state.pt").write_bytes(b"")
    assert list_checkpoints(tmp_path) == [(2, root / "step-2"), (10, root / "step-10")]


def test_sampled_held_out_reward_is_seeded_and_leaves_the_rng_alone(episodes: list[Episode]) -> None:
    from mobile_r1.train.action_grpo import held_out_reward

    policy = load_policy("tiny-lm")
    examples = step_examples(episodes, PromptSettings(history_window=0))[:2]
    settings = GRPOSettings(max_completion_length=8)
    state = torch.get_rng_state()
    first = held_out_reward(policy, examples, "inquire-mobile", "inquire", 8, settings, samples=2, seed=5)
    assert torch.equal(torch.get_rng_state(), state)
    second = held_out_reward(policy, examples, "inquire-mobile", "inquire", 8, settings, samples=2, seed=5)
    assert first == second and "eval_sampled_reward" in first and -1.0 <= first["eval_sampled_reward"] <= 3.0


def test_action_repeats_draw_rare_decisions_more_often(tmp_path: Path, episodes: list[Episode]) -> None:
    from mobile_r1.train.action_grpo import ActionGRPORunner
    from mobile_r1.train.processes import make_accelerator

    examples = step_examples(episodes, PromptSettings(dialect="inquire", history_window=1))
    clicks = sum(e.label.type.value == "click" for e in examples)
    assert 0 < clicks < len(examples)

    def drawn(repeats: dict[str, int]) -> tuple[int, list[str]]:
        config = _config(tmp_path, episodes, "r", max_steps=None)
        config.grpo.epochs, config.grpo.action_repeats = 1.0, repeats
        runner = ActionGRPORunner(config, load_policy("tiny-lm"), make_accelerator(config), examples, [])
        kinds = [e.label.type.value for k in range(runner.total_steps) for e in runner.source.step_examples(k)]
        return runner.total_steps, kinds

    steps, kinds = drawn({})
    more_steps, more_kinds = drawn({"click": 3})
    assert steps == -(-len(examples) // 2) and more_steps == -(-(len(examples) + 2 * clicks) // 2)
    assert kinds.count("click") == clicks and more_kinds.count("click") == 3 * clicks  # one epoch: each step N times
    assert sorted(k for k in more_kinds if k != "click") == sorted(k for k in kinds if k != "click")
    with pytest.raises(ValueError, match="unknown action type 'ask'"):
        TrainConfig.model_validate({"grpo": {"action_repeats": {"ask": 2}}})


def test_skip_solved_trains_only_on_the_steps_the_starting_model_does_not_already_solve(
        tmp_path: Path, episodes: list[Episode], monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    import mobile_r1.train.action_grpo as action_grpo
    from mobile_r1.core.dialects import get_dialect
    from mobile_r1.core.errors import DataError

    examples = step_examples(episodes, PromptSettings(dialect="inquire", history_window=1))
    # the starting model's greedy answers: the labelled action (in its own words) on the steps of "send-mom" and the
    # first of "alarm", a wrong click on the second of "alarm", nothing readable elsewhere
    right = {("send-mom", i) for i in range(4)} | {("alarm", 0)}
    dialect = get_dialect("inquire")

    def greedy(policy, shown, max_new_tokens, batch_size=16):  # type: ignore[no-untyped-def]
        out = []
        for e in shown:
            if (e.episode_id, e.step_index) in right:
                out.append(dialect.render(e.label, "my own reasoning", "a step"))
            elif e.episode_id == "alarm":
                out.append(dialect.render(Action.click(5, 5), "my own reasoning", "a step"))
            else:
                out.append("no idea")
        return out

    monkeypatch.setattr(action_grpo, "greedy_completions", greedy)
    config = _config(tmp_path, episodes, "skip", max_steps=None)
    config.grpo.epochs, config.grpo.skip_solved = 1.0, True
    runner = action_grpo.ActionGRPORunner(config, load_policy("tiny-lm"), make_accelerator(config), examples, [])
    trained = sorted({(e.episode_id, e.step_index) for k in range(runner.total_steps)
                      for e in runner.source.step_examples(k)})
    assert trained == [("alarm", 1), ("pay", 0), ("pay", 1)]  # the rest score the label's own reward already
    record = json.loads((Path(config.run.output_dir) / "solved_steps.json").read_text())
    assert (record["steps"], record["solved"], record["kept"]) == (len(examples), 5, 3)
    assert record["kept_steps"] == ["pay/0", "pay/1", "alarm/1"]
    assert record["solved_by_action"]["click"] == {"solved": 3, "steps": 4}
    assert record["solved_by_action"]["call_user"] == {"solved": 0, "steps": 1}
    assert "it solves 5; training on the other 3" in capsys.readouterr().err

    right |= {("pay", 0), ("pay", 1), ("alarm", 1)}
    with pytest.raises(DataError, match=f"already solves all {len(examples)} training steps"):
        action_grpo.ActionGRPORunner(config, load_policy("tiny-lm"), make_accelerator(config), examples, [])


@pytest.mark.slow
def test_skip_solved_runs_from_the_starting_weights_and_a_resumed_run_reads_its_steps_back(
        tmp_path: Path, episodes: list[Episode], monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    import mobile_r1.train.action_grpo as action_grpo

    straight = _config(tmp_path, episodes, "straight")
    straight.grpo.skip_solved = True
    reference = _train_records(train(straight, "action-grpo", progress=False).run_dir)
    kept = json.loads((Path(straight.run.output_dir) / "solved_steps.json").read_text())
    # an untrained model solves none of the steps: every one is kept
    assert kept["steps"] > 0 and (kept["solved"], kept["kept"]) == (0, kept["steps"]) == (0, len(kept["kept_steps"]))

    config = _config(tmp_path, episodes, "killed")
    config.grpo.skip_solved = True

    def kill(step: int, metrics: dict) -> None:
        if step == 3:
            raise Killed

    with pytest.raises(Killed):
        train(config, "action-grpo", progress=False, on_step=kill)
    predict = action_grpo.unsolved_steps

    def refuse(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise AssertionError("the resumed run predicted the training steps again")

    monkeypatch.setattr(action_grpo, "unsolved_steps", refuse)
    capsys.readouterr()
    resumed = train(config, "action-grpo", progress=False, resume=True)
    assert f"training on the {kept['kept']} steps kept in" in capsys.readouterr().err
    assert json.loads((resumed.run_dir / "solved_steps.json").read_text()) == kept
    for ours, ref in zip(_train_records(resumed.run_dir), reference, strict=True):
        assert ours["loss"] == pytest.approx(ref["loss"], abs=1e-6) and ours["reward_mean"] == pytest.approx(ref["reward_mean"])

    # resumed with another reward, the saved choice no longer applies: the steps are predicted again
    config.grpo.reward = "mobile-r1"
    with pytest.raises(AssertionError, match="predicted the training steps again"):
        train(config, "action-grpo", progress=False, resume=True)
    monkeypatch.setattr(action_grpo, "unsolved_steps", predict)
    train(config, "action-grpo", progress=False, resume=True)
    again = json.loads((Path(config.run.output_dir) / "solved_steps.json").read_text())
    assert again["kept_steps"] == kept["kept_steps"] and again["fingerprint"] != kept["fingerprint"]


@pytest.mark.slow
def test_label_guidance_puts_the_steps_sft_target_in_each_group(tmp_path: Path, episodes: list[Episode]) -> None:
    from mobile_r1.train.data import encode_target

    torch.manual_seed(0)
    policy = load_policy("tiny-lm")  # untrained: its samples are not the labelled action
    examples = step_examples(episodes, PromptSettings(dialect="inquire", history_window=1))[:2]
    source = LabelledStepSource(examples, "inquire-mobile", "inquire", label_guidance=True)
    rollout = source.rollout(policy, GRPOSettings(num_generations=3, max_completion_length=12), 0)
    preset = get_preset("inquire-mobile")
    for k, example in enumerate(examples):
        group = rollout.samples[3 * k : 3 * k + 3]
        label = group[-1]
        assert label.completion_ids == encode_target(policy, example.target)
        best = preset.score(example.target, example.label, example.bbox, example.screen_size, example.model_size).total
        assert label.reward == best and all(s.reward < best for s in group[:-1])
        assert label.advantage > 0 and all(s.advantage < 0 for s in group[:-1])
    sampled = [s.reward for k in range(2) for s in rollout.samples[3 * k : 3 * k + 2]]
    assert rollout.metrics["reward_mean"] == pytest.approx(sum(sampled) / 4)  # the policy's own samples
    assert rollout.metrics["label_reward_mean"] == pytest.approx(sum(s.reward for s in rollout.samples[2::3]) / 2)
    # through a training run: the setting reaches the stage, which logs the labels' reward
    config = _config(tmp_path, episodes, "guided", max_steps=2)
    config.grpo.label_guidance = True
    train(config, "action-grpo", progress=False)
    records = _train_records(tmp_path / "guided")
    assert [r["step"] for r in records] == [1, 2] and all(r["label_reward_mean"] >= 2.0 for r in records)
