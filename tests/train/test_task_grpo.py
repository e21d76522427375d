"""Stage 3 task-level GRPO: trajectory reward, group and GiGPO advantages, a few real steps, and the train command."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import torch
import yaml
from pydantic import ValidationError

from mobile_r1.cli.main import main
from mobile_r1.core.actions import Action
from mobile_r1.eval.metrics import EpisodeVerdict
from mobile_r1.models import load_policy
from mobile_r1.train.data import end_of_turn
from mobile_r1.train.grpo import GRPOEngine, GRPOSettings, PromptInput
from mobile_r1.env.sim import SimBackend
from mobile_r1.train.rollout import RolloutSettings

SIM = SimBackend(render=False)
from mobile_r1.train.advantages import (
    discounted_returns,
    episode_advantages,
    gigpo_step_advantages,
    loss_weights,
    step_rewards,
    trajectory_advantages,
)
from mobile_r1.train.task_grpo import RewardWeights, TaskRolloutSource, trajectory_reward
from mobile_r1.train.config import TaskGRPOConfig, TrainConfig
from mobile_r1.train.data import model_view


def verdict(success: bool, inquiry: str, score: float, unsafe: bool = False) -> EpisodeVerdict:
    return EpisodeVerdict("e", success, inquiry, safety_violation=unsafe, score=score)  # type: ignore[arg-type]


def test_trajectory_reward_formula_by_hand() -> None:
    w = RewardWeights("success", format=0.2, inquiry=0.5, safety=1.0)
    # success 1 + 0.2 * mean(1, -1, 1, 1) + 0.5 * (+1 asked) + 1.0 * 0 = 1.6
    assert trajectory_reward(verdict(True, "asked", 4), [1, -1, 1, 1], w) == pytest.approx(1.6)
    # failure 0 + 0.2 * (-1) + 0.5 * (-1 missed) + 1.0 * (-1 unsafe) = -1.7
    assert trajectory_reward(verdict(False, "missed", 0, unsafe=True), [-1, -1], w) == pytest.approx(-1.7)
    # score outcome: 3 / 4 + 0.2 * 0 + 0.5 * (-1 over-asked) = 0.25
    w = RewardWeights("score", format=0.2, inquiry=0.5, safety=1.0)
    assert trajectory_reward(verdict(True, "over_asked", 3), [1, -1], w) == pytest.approx(0.25)


def test_gigpo_groups_steps_that_share_a_state() -> None:
    # trajectory 0 (R=1 at its end) visits A, B, C; trajectory 1 (R=0) visits A, D; only A is shared
    keys = [["A", "B", "C"], ["A", "D"]]
    rewards = [[0.0, 0.0, 1.0], [0.0, 0.0]]
    plain = gigpo_step_advantages(keys, rewards, gamma=0.95, scale="none")
    # returns: 0.95^2 * 1 = 0.9025 at A in trajectory 0, 0 at A in trajectory 1; mean 0.45125
    assert plain[0] == pytest.approx([0.45125, 0.0, 0.0]) and plain[1] == pytest.approx([-0.45125, 0.0])
    scaled = gigpo_step_advantages(keys, rewards, gamma=0.95, scale="group")
    std = torch.tensor([0.9025, 0.0]).std().item()
    assert scaled[0][0] == pytest.approx(0.45125 / (std + 1e-4)) and scaled[1][0] == pytest.approx(-scaled[0][0])
    # a state visited twice by the same trajectory is grouped too: returns 0.5 * 1 and 1
    again = gigpo_step_advantages([["A", "A"], ["B"]], [[0.0, 1.0], [1.0]], gamma=0.5, scale="none")
    assert again[0] == pytest.approx([-0.25, 0.25]) and again[1] == [0.0]


def test_step_rewards_penalise_a_broken_step_on_its_own_step_and_pay_the_outcome_at_the_end() -> None:
    # a valid step earns 0, a broken format -w/2, no action -w; the last step also the outcome (1: success)
    assert step_rewards([1.0, -1.0, 0.0, 1.0], 1.0, 0.2) == pytest.approx([0.0, -0.2, -0.1, 1.0])
    assert step_rewards([1.0, 1.0], 0.0, 0.2) == [0.0, 0.0]  # a failure with clean steps: nothing to return
    assert discounted_returns([1.0, 0.0, 2.0], 0.5) == pytest.approx([1.5, 1.0, 2.0])
    assert step_rewards([], 1.0, 0.2) == []


def _traj(*keys: str, tokens: int = 1, fmt: float = 1.0) -> Any:
    return SimpleNamespace(length=len(keys), turns=[SimpleNamespace(state_key=k, format_reward=fmt,
                                                                    completion_ids=[0] * tokens) for k in keys])


def test_among_equal_failures_gigpo_gives_no_step_an_advantage() -> None:
    # four failed rollouts from one start, of different lengths (two stopped early, one ran long); every step valid.
    # The old step rewards paid the trajectory's format term at its last step, discounted, so the short ones won.
    group = [_traj("S", "A", "B", "C"), _traj("S"), _traj("S", "A"), _traj("S", "D", "E", "F", "G")]
    weights = RewardWeights("success", format=0.2, inquiry=0.2)
    failure = verdict(False, "not_needed", 0.0)
    rewards = [trajectory_reward(failure, [1.0] * t.length, weights) for t in group]
    out = trajectory_advantages(group, rewards, 4, "group", gigpo=True, format_weight=0.2, std_floor=0.1,
                                outcomes=[0.0] * 4)
    assert all(a == 0.0 for steps in out for a in steps)


def test_shaping_noise_alone_gives_small_advantages() -> None:
    # eight failures: seven at R = 0.400, one at 0.356 (one format slip). Divided by the std (0.0156), that one got
    # A = -2.46, as large as a success would; divided by at least std_floor = 0.1 it gets -0.39
    rewards = [0.4] * 7 + [0.356]
    assert episode_advantages(rewards, 8, "group", 0.0)[-1] == pytest.approx(-2.46, abs=0.01)
    floored = episode_advantages(rewards, 8, "group", 0.1)
    assert floored[-1] == pytest.approx(-0.0385 / 0.1, abs=1e-3) and abs(sum(floored)) < 1e-9
    # a real success still stands out: one success among seven failures
    assert episode_advantages([1.0] + [0.0] * 7, 8, "group", 0.1)[0] == pytest.approx(0.875 / 0.35355, rel=1e-3)


def test_a_step_whose_groups_were_all_dropped_has_no_advantages_and_warns_nothing() -> None:
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # torch warned "std(): degrees of freedom is <= 0" on the empty batch
        for floor in (0.0, 0.1):
            assert episode_advantages([], 8, "group", floor) == []


def test_within_a_group_the_advantages_weighted_as_the_loss_weighs_them_sum_to_zero() -> None:
    # rollouts of very different lengths and token counts, one success; with GiGPO's step term too
    group = [_traj("S", "A", "B", "C", "D", "E", tokens=30), _traj("S", "A", tokens=5), _traj("S", "F", "G", tokens=12),
             _traj("S", tokens=7)]
    rewards, outcomes = [0.2, 1.2, 0.2, 0.2], [0.0, 1.0, 0.0, 0.0]
    for weighting in ("trajectory", "token"):
        w = loss_weights(group, weighting)  # type: ignore[arg-type]
        out = trajectory_advantages(group, rewards, 4, "group", gigpo=True, format_weight=0.2, std_floor=0.1,
                                    outcomes=outcomes, weights=w)
        weighted = sum(a * wi * len(turn.completion_ids) for t, adv, ws in zip(group, out, w)
                       for turn, a, wi in zip(t.turns, adv, ws))
        if weighting == "trajectory":
            assert weighted == pytest.approx(0.0, abs=1e-9)
            assert [sum(wi * len(turn.completion_ids) for turn, wi in zip(t.turns, ws)) for t, ws in zip(group, w)] \
                == pytest.approx([1.0] * 4)
        else:  # every token alike: the long failure dominates and the net push is downward
            assert weighted < -10


def test_trajectory_advantages_add_gigpo_to_the_episode_advantage() -> None:
    def traj(*keys: str) -> Any:
        return SimpleNamespace(length=len(keys), turns=[SimpleNamespace(state_key=k, format_reward=1.0) for k in keys])

    group = [traj("A", "B"), traj("A")]
    rewards = [1.0, 0.0]
    plain = trajectory_advantages(group, rewards, 2, "none")
    assert plain == [[0.5, 0.5], [-0.5]]
    mixed = trajectory_advantages(group, rewards, 2, "none", gigpo=True, gamma=0.9, gigpo_weight=2.0, outcomes=rewards)
    # step returns at A: 0.9 (trajectory 0, one step before the end) and 0.0; centred +-0.45, weighted by 2
    assert mixed == [[pytest.approx(0.5 + 0.9), 0.5], [pytest.approx(-0.5 - 0.9)]]


# ----- a few real stage-3 steps ----------------------------------------------------------------------------------------


class AskThenGarbage:
    """Even rollouts ask the user at their first turn, then everything writes garbage; odd ones are garbage throughout."""

    def __init__(self, policy: Any, view: Any) -> None:
        self.policy, self.view, self.calls = policy, view, 0

    def __call__(self, prompts: list[PromptInput]) -> list[list[int]]:
        first = self.calls == 0
        self.calls += 1
        texts = [self.view.dialect.render(Action.call_user("Do you want me to delete it?"), "risky", "ask")
                 if first and i % 2 == 0 else "I am not sure" for i in range(len(prompts))]
        return [list(self.policy.tokenizer(t + end_of_turn(self.policy), add_special_tokens=False).input_ids) for t in texts]


@pytest.mark.slow
def test_stage3_steps_snapshots_advantages_and_user_replies() -> None:
    torch.manual_seed(0)
    policy = load_policy("tiny-lm")
    config = TrainConfig.model_validate({"data": {"dialect": "inquire", "observation_mode": "text", "history_window": 2}})
    view = model_view(config)
    episodes = SIM.episodes(None, "train", 2, 11, tasks=["notes.delete", "settings.dark_mode"])
    settings = GRPOSettings(num_generations=4, max_completion_length=24, micro_batch_size=16, beta=0.0)
    engine = GRPOEngine(policy, settings, torch.optim.AdamW(policy.model.parameters(), lr=1e-4))
    knobs = TaskGRPOConfig(inquiry_weight=0.5, std_floor=0.0, weighting="token")
    source = TaskRolloutSource(knobs, SIM, view, RolloutSettings(max_turns=2, max_new_tokens=24), lambda step: episodes,
                               sampler=AskThenGarbage(policy, view))
    rollout = source.rollout(policy, settings, 0)
    trajectories = source.last
    assert trajectories is not None and len(trajectories) == 8
    # one identical start per group: same state_key and app states before the first action
    for g in range(2):
        group = trajectories[4 * g : 4 * g + 4]
        assert len({t.start_key for t in group}) == 1 and len({t.turns[0].state_key for t in group}) == 1
        assert all(t.env.sim.phone.state.seed == group[0].env.sim.phone.state.seed for t in group)
        assert len({t.turns[0].prompt.ids.__repr__() for t in group}) == 1
    # the user's reply reaches the next prompt
    asked = trajectories[0]
    reply = asked.turns[0].user_reply
    assert reply and reply in policy.tokenizer.decode(asked.turns[1].prompt.ids)
    assert rollout.metrics["user_replies"] == 4.0  # rollouts 0 and 2 of both tasks asked
    assert rollout.metrics["inquiry_asked"] == 2.0 and rollout.metrics["inquiry_over_asked"] == 2.0
    # every step is a sample; advantages are per trajectory and sum to zero within each group
    assert len(rollout.samples) == sum(t.length for t in trajectories) == 16
    per_trajectory = []
    index = 0
    for t in trajectories:
        values = {s.advantage for s in rollout.samples[index : index + t.length]}
        assert len(values) == 1  # the same advantage on every step of a trajectory
        per_trajectory.append(values.pop())
        index += t.length
    for g in range(2):
        assert sum(per_trajectory[4 * g : 4 * g + 4]) == pytest.approx(0.0, abs=1e-5)
    assert per_trajectory[0] > 0 > per_trajectory[1]  # asking before a deletion beats not asking
    assert per_trajectory[4] < 0 < per_trajectory[5]  # asking on a control task costs
    updates = engine.train_on(rollout.samples)
    assert updates[0]["grad_norm"] > 0 and torch.isfinite(torch.tensor(updates[0]["loss"]))


def test_stage3_with_real_sampling_and_gigpo() -> None:
    torch.manual_seed(1)
    policy = load_policy("tiny-lm")
    config = TrainConfig.model_validate({"data": {"dialect": "inquire", "observation_mode": "text", "history_window": 1}})
    episodes = SIM.episodes(None, "train", 1, 2, tasks=["settings.dark_mode"])
    settings = GRPOSettings(num_generations=2, max_completion_length=8, micro_batch_size=8, beta=0.0)
    source = TaskRolloutSource(TaskGRPOConfig(gigpo=True, std_floor=0.0, weighting="token"), SIM, model_view(config),
                               RolloutSettings(max_turns=2, max_new_tokens=8), lambda step: episodes)
    rollout = source.rollout(policy, settings, 0)
    assert source.last is not None and [t.length for t in source.last] == [2, 2]
    assert len(rollout.samples) == 4 and all(len(s.completion_ids) <= 8 for s in rollout.samples)
    assert 0.0 <= rollout.metrics["format_valid"] <= 1.0 and rollout.metrics["episode_length"] == 2.0
    # the latency ledger: where the step's time went, two generations (one per turn) for four agent steps
    assert (rollout.metrics["generate_calls"], rollout.metrics["agent_steps"]) == (2.0, 4.0)
    for part in ("reset", "prompt", "model", "env", "judge"):
        assert rollout.metrics[f"time_{part}_s"] >= 0.0
    assert rollout.metrics["time_model_s"] > 0.0 and rollout.metrics["time_env_s"] > 0.0
    # both rollouts start from one state, so their first steps share an anchor; the step terms of every anchor
    # cancel, so the advantages add up to what the episode-level ones alone give
    assert rollout.samples[0].prompt_ids == rollout.samples[2].prompt_ids
    rewards = [rollout.samples[0].reward, rollout.samples[2].reward]
    episode_only = trajectory_advantages(source.last, rewards, 2, "group")
    assert sum(s.advantage for s in rollout.samples) == pytest.approx(sum(map(sum, episode_only)), abs=1e-4)
    outcomes = [float(t.judge().verdict.success) for t in source.last]
    with_steps = trajectory_advantages(source.last, rewards, 2, "group", gigpo=True, format_weight=0.2,
                                       outcomes=outcomes, weights=loss_weights(source.last, "token"))
    assert [s.advantage for s in rollout.samples] == pytest.approx([a for t in with_steps for a in t])


@pytest.mark.slow
def test_train_command_runs_stage3_and_logs_its_metrics(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    config = {
        "model": {"name": "tiny-lm"},
        "data": {"dialect": "inquire", "observation_mode": "text", "history_window": 1},
        "optim": {"lr": 1e-4},
        "grpo": {"num_generations": 2, "max_completion_length": 8, "micro_batch_size": 8, "beta": 0.04},
        "task_grpo": {"tasks": ["settings.dark_mode"], "train_episodes": 2, "eval_episodes": 1, "tasks_per_step": 1,
                      "steps": 2, "max_turns": 2, "gigpo": True},
        "run": {"output_dir": str(tmp_path / "run"), "tensorboard": False, "save_every": 1},
    }
    path = tmp_path / "stage3.yaml"
    path.write_text(yaml.safe_dump(config))
    main(["train", "--config", str(path), "--stage", "task-grpo"])
    shown = capsys.readouterr()
    assert "task-grpo: 2 steps" in shown.out + shown.err
    records = [json.loads(line) for line in (tmp_path / "run" / "metrics.jsonl").read_text().splitlines()]
    train = [r for r in records if r["kind"] == "train"]
    assert [r["step"] for r in train] == [1, 2]
    for key in ("success_rate", "inquiry_asked", "inquiry_missed", "inquiry_not_needed", "inquiry_over_asked",
                "safety_violations", "episode_length", "self_corrections", "reward_mean", "format_valid", "kl", "loss",
                "time_model_s", "time_env_s", "time_judge_s", "time_reset_s", "time_prompt_s"):
        assert key in train[0]
    assert [r["step"] for r in records if r["kind"] == "eval"] == [0, 2]
    assert (tmp_path / "run" / "final").is_dir() and (tmp_path / "run" / "checkpoints" / "step-1").is_dir()
    view = json.loads((tmp_path / "run" / "final" / "prompt_view.json").read_text())
    assert (view["dialect"], view["observation_mode"], view["frame"], view["history_window"]) == ("inquire", "text", "qwen", 1)
    played = [json.loads(line) for line in (tmp_path / "run" / "trajectories.jsonl").read_text().splitlines()]
    assert [(r["step"], r["group"]) for r in played] == [(1, 0), (1, 0), (2, 0), (2, 0)]
    assert all(r["episode"].startswith("settings.dark_mode/train") and len(r["turns"]) == 2 for r in played)
    from PIL import Image

    with Image.open(tmp_path / "run" / "curves.png") as curves:  # the learning curves, drawn when the stage ends
        assert curves.format == "PNG" and curves.width > 600


def test_stage3_on_a_list_of_suites_draws_its_episodes_from_each_taking_turns(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from mobile_r1.train.task_stage import stage_episodes

    section = TaskGRPOConfig(suite=["nav-sim", "inquire-sim"])
    pool = stage_episodes(SIM, section, "train", 3, 0)
    assert [e.suite for e in pool] == ["nav-sim", "inquire-sim"] * 3
    assert [e.id for e in pool[::2]] == [e.id for e in SIM.episodes("nav-sim", "train", 3, 0)]
    assert [e.id for e in pool[1::2]] == [e.id for e in SIM.episodes("inquire-sim", "train", 3, 0)]
    config = {
        "model": {"name": "tiny-lm"},
        "data": {"dialect": "inquire", "observation_mode": "text", "history_window": 1},
        "grpo": {"num_generations": 2, "max_completion_length": 8, "micro_batch_size": 8},
        "task_grpo": {"suite": ["nav-sim", "inquire-sim"], "train_episodes": 1, "eval_episodes": 0,
                      "tasks_per_step": 2, "steps": 1, "max_turns": 1},
        "run": {"output_dir": str(tmp_path / "run"), "tensorboard": False},
    }
    path = tmp_path / "stage3.yaml"
    path.write_text(yaml.safe_dump(config))
    assert main(["train", "--config", str(path), "--stage", "task-grpo"]) == 0
    played = [json.loads(line) for line in (tmp_path / "run" / "trajectories.jsonl").read_text().splitlines()]
    firsts = {SIM.episodes(s, "train", 1, 0)[0].id for s in ("nav-sim", "inquire-sim")}
    assert {r["episode"] for r in played} == firsts and len(played) == 4
    config["task_grpo"]["tasks"] = ["settings.dark_mode"]  # a list of suites takes every task of each
    path.write_text(yaml.safe_dump(config))
    capsys.readouterr()
    assert main(["train", "--config", str(path), "--stage", "task-grpo"]) == 2
    assert "leave out `tasks` and `select`" in capsys.readouterr().err


def test_unknown_task_ids_are_a_config_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump({"task_grpo": {"tasks": ["no.such.task"]}, "run": {"output_dir": str(tmp_path / "r")}}))
    assert main(["train", "--config", str(path), "--stage", "task-grpo"]) == 2
    shown = capsys.readouterr()
    assert "no.such.task" in shown.err and "Traceback" not in shown.err


class Killed(Exception):
    pass


@pytest.mark.slow
def test_a_resumed_stage3_run_replays_what_the_killed_one_would_have(tmp_path: Path) -> None:
    from mobile_r1.train.run import train

    def train_task_grpo(config: TrainConfig, **options: Any) -> Any:
        return train(config, "task-grpo", **options)

    def config(name: str) -> TrainConfig:
        return TrainConfig.model_validate({
            "data": {"dialect": "inquire", "observation_mode": "text", "history_window": 1},
            "optim": {"lr": 1e-3, "scheduler": "linear"},
            "grpo": {"num_generations": 2, "max_completion_length": 6, "micro_batch_size": 8, "beta": 0.0},
            "task_grpo": {"suite": "nav-sim", "tasks": ["settings.dark_mode", "notes.pin"], "train_episodes": 4,
                          "eval_episodes": 0, "tasks_per_step": 1, "steps": 3, "max_turns": 2, "format_weight": 1.0},
            "run": {"output_dir": str(tmp_path / name), "tensorboard": False, "save_every": 1},
        })

    def records(name: str) -> list[dict[str, Any]]:
        lines = (tmp_path / name / "metrics.jsonl").read_text().splitlines()
        return [r for r in map(json.loads, lines) if r["kind"] == "train"]

    train_task_grpo(config("straight"), progress=False)

    def kill(step: int, metrics: dict[str, float]) -> None:
        if step == 2:
            raise Killed

    with pytest.raises(Killed):
        train_task_grpo(config("killed"), progress=False, on_step=kill)
    train_task_grpo(config("killed"), progress=False, resume=True)
    ours, reference = records("killed"), records("straight")
    assert [r["step"] for r in ours] == [1, 2, 3]
    for a, b in zip(ours, reference):
        for key in ("loss", "reward_mean", "completion_length", "lr", "format_valid"):
            assert a[key] == pytest.approx(b[key], abs=1e-6), (a["step"], key)
    played = [json.loads(line)["step"] for line in (tmp_path / "killed" / "trajectories.jsonl").read_text().splitlines()]
    assert played == [1, 1, 2, 2, 3, 3]


def test_dynamic_sampling_drops_groups_without_outcome_spread_and_plays_more() -> None:
    from mobile_r1.env import EpisodeRef

    def ref(name: str) -> EpisodeRef:
        return EpisodeRef(name, "do it", name.split("/")[0], "fake")

    # which rollouts succeed in each episode's group of 2: no spread, spread, no spread, spread
    outcomes = {"a/0": (False, False), "b/0": (True, False), "c/0": (True, True), "d/0": (False, True)}
    played: list[list[str]] = []

    class Source(TaskRolloutSource):
        def _play(self, policy: Any, episodes: list[EpisodeRef], g: int) -> Any:
            played.append([e.id for e in episodes])
            trajectories, verdicts = [], []
            for e in episodes:
                for success in outcomes[e.id]:
                    turn = SimpleNamespace(state_key="S", format_reward=1.0, completion_ids=[1, 2],
                                           prompt=SimpleNamespace(ids=[3], vision=None), user_reply=None,
                                           next_state_key="T")
                    trajectories.append(SimpleNamespace(length=1, turns=[turn], group=0, scripted=False,
                                                        judge=lambda s=success, e=e: SimpleNamespace(
                                                            verdict=verdict(s, "not_needed", 4.0 if s else 0.0))))
                    verdicts.append(verdict(success, "not_needed", 4.0 if success else 0.0))
            return trajectories, verdicts

    extra = {1: [ref("c/0"), ref("d/0")], 2: [ref("b/0")]}
    knobs = TaskGRPOConfig(format_weight=0.0, std_floor=0.0, weighting="token", dynamic_sampling=True, max_draw_rounds=3)
    source = Source(knobs, None, None, RolloutSettings(), lambda step: [ref("a/0"), ref("b/0")],  # type: ignore[arg-type]
                    extra_episodes=lambda step, r, n: extra[r][:n])
    rollout = source.rollout(None, GRPOSettings(num_generations=2), 0)  # type: ignore[arg-type]
    # round 1 keeps b (a has no spread); round 2 asks for one more group and gets c (no spread); round 3 gets b again
    assert played == [["a/0", "b/0"], ["c/0"], ["b/0"]]
    assert rollout.metrics["groups_trained"] == 2.0 and rollout.metrics["groups_played"] == 4.0
    assert rollout.metrics["no_outcome_spread"] == 0.5
    assert len(rollout.samples) == 4 and {s.group for s in rollout.samples} == {0, 1}
    assert sorted(s.advantage for s in rollout.samples) == pytest.approx([-0.5 / 0.7071] * 2 + [0.5 / 0.7071] * 2, rel=1e-3)
    # without it, every group trains, the ones without spread with zero advantages
    knobs = TaskGRPOConfig(format_weight=0.0, std_floor=0.0, weighting="token")
    plain = Source(knobs, None, None, RolloutSettings(), lambda step: [ref("a/0"), ref("b/0")])  # type: ignore[arg-type]
    assert len(plain.rollout(None, GRPOSettings(num_generations=2), 0).samples) == 4  # type: ignore[arg-type]


# ----- expert guidance -------------------------------------------------------------------------------------------------


class Garbage:
    """Every sampled output is unreadable, so every sampled rollout fails."""

    def __init__(self, policy: Any) -> None:
        self.policy, self.prompts = policy, 0

    def __call__(self, prompts: list[PromptInput]) -> list[list[int]]:
        self.prompts += len(prompts)
        return [list(self.policy.tokenizer("I am not sure" + end_of_turn(self.policy), add_special_tokens=False).input_ids)
                for _ in prompts]


def test_expert_guidance_makes_the_last_rollout_of_each_group_the_experts_demonstration() -> None:
    from mobile_r1.agents.scripted import expert_plan
    from mobile_r1.train.data import encode_target, prompt_settings
    from mobile_r1.train.task_stage import expert_scripts

    policy = load_policy("tiny-lm")
    config = TrainConfig.model_validate({"data": {"dialect": "compact", "observation_mode": "text", "thought": "restated"}})
    view = model_view(config)
    episodes = SIM.episodes("nav-sim", "train", 2, 5, tasks=["settings.dark_mode", "notes.pin"])
    garbage = Garbage(policy)
    source = TaskRolloutSource(TaskGRPOConfig(std_floor=0.0, weighting="trajectory"), SIM, view,
                               RolloutSettings(max_turns=10, max_new_tokens=24), lambda step: episodes, sampler=garbage,
                               expert_scripts=expert_scripts(prompt_settings(config, None)))
    settings = GRPOSettings(num_generations=3, max_completion_length=24, micro_batch_size=16, beta=0.0)
    rollout = source.rollout(policy, settings, 0)
    trajectories = source.last
    assert trajectories is not None and [t.scripted for t in trajectories] == [False, False, True] * 2
    for g, episode in enumerate(episodes):
        expert = trajectories[3 * g + 2]
        assert expert.episode.id == episode.id and expert.judge().verdict.success
        # it walks the expert's own path on the group's phone, every output in the dialect, as SFT writes them
        with SIM.open(episode) as phone:
            phone.reset()
            path = [step.state_key for step in expert_plan(phone)]
        assert [turn.state_key for turn in expert.turns] == path
        assert all(turn.format_reward == 1.0 and turn.text.startswith("<think>\nTask: ") for turn in expert.turns)
        assert [turn.completion_ids for turn in expert.turns] == [encode_target(policy, turn.text) for turn in expert.turns]
        assert not any(t.judge().verdict.success for t in trajectories[3 * g : 3 * g + 2])
    # no policy sampling for the expert's turns; the metrics describe the sampled rollouts
    assert garbage.prompts == sum(t.length for t in trajectories if not t.scripted)
    assert rollout.metrics["success_rate"] == 0.0 and rollout.metrics["expert_success_rate"] == 1.0
    assert rollout.metrics["no_outcome_spread"] == 0.0  # every group now has a success
    # the expert's steps are pushed up, the failures down, and the group's weighted advantages still sum to zero
    for g in range(2):
        samples = [s for s in rollout.samples if s.group == g]
        expert_steps = trajectories[3 * g + 2].length
        assert all(s.advantage > 0 for s in samples[-expert_steps:]) and all(s.advantage < 0 for s in samples[:-expert_steps])
        assert sum(s.advantage * s.weight * len(s.completion_ids) for s in samples) == pytest.approx(0.0, abs=1e-6)


@pytest.mark.slow
def test_train_command_with_expert_guidance_records_the_experts_rollouts(tmp_path: Path,
                                                                         capsys: pytest.CaptureFixture[str]) -> None:
    config = {
        "model": {"name": "tiny-lm"},
        "data": {"dialect": "compact", "observation_mode": "text", "thought": "brief"},
        "grpo": {"num_generations": 2, "max_completion_length": 8, "micro_batch_size": 8, "beta": 0.0},
        "task_grpo": {"suite": "nav-sim", "tasks": ["settings.font"], "train_episodes": 2, "eval_episodes": 0,
                      "tasks_per_step": 1, "steps": 1, "max_turns": 10, "expert_guidance": True},
        "run": {"output_dir": str(tmp_path / "run"), "tensorboard": False},
    }
    path = tmp_path / "stage3.yaml"
    path.write_text(yaml.safe_dump(config))
    assert main(["train", "--config", str(path), "--stage", "task-grpo"]) == 0
    played = [json.loads(line) for line in (tmp_path / "run" / "trajectories.jsonl").read_text().splitlines()]
    assert [r["expert"] for r in played] == [False, True] and played[1]["success"]
    assert played[1]["turns"][-1]["action"]["action"] == "terminate"
    train = [json.loads(line) for line in (tmp_path / "run" / "metrics.jsonl").read_text().splitlines()]
    assert [r["expert_success_rate"] for r in train if r["kind"] == "train"] == [1.0]
    # a phone without an expert is refused before the first step, with a message
    import toy_phone

    toy_phone.register_backend("toy-plain", lambda argument, **options: toy_phone.ToyBackend(expert=False, **options),
                               replace=True)
    config["task_grpo"] = {**config["task_grpo"], "env": "toy-plain", "suite": "toy", "tasks": []}  # type: ignore[dict-item]
    config["run"]["output_dir"] = str(tmp_path / "plain")  # type: ignore[index]
    path.write_text(yaml.safe_dump(config))
    capsys.readouterr()
    assert main(["train", "--config", str(path), "--stage", "task-grpo"]) == 2
    shown = capsys.readouterr()
    assert "task_grpo.expert_guidance needs a phone that can" in shown.err and "Traceback" not in shown.err


# ----- choosing the tasks ----------------------------------------------------------------------------------------------


class PlusOnceThenFinish:
    """Taps Plus on a screen showing `Count: 0`, else finishes: it completes the toy tasks with a target of 1 (half of
    toy.count's episodes) and never toy.delete. Counts the prompts it answers."""

    def __init__(self, policy: Any, view: Any) -> None:
        self.policy, self.view, self.prompts = policy, view, 0

    def __call__(self, prompts: list[PromptInput]) -> list[list[int]]:
        self.prompts += len(prompts)
        texts = []
        for prompt in prompts:
            screen = self.policy.tokenizer.decode(prompt.ids).rsplit("Count: ", 1)[-1]  # the current screen's
            action = Action.click(187, 680) if screen.startswith("0") else Action.terminate()
            texts.append(self.view.dialect.render(action, "plan", "do it"))
        return [list(self.policy.tokenizer(t + end_of_turn(self.policy), add_special_tokens=False).input_ids) for t in texts]


@pytest.mark.slow
def test_select_trains_only_on_the_tasks_the_starting_model_completes_sometimes(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import toy_phone
    from mobile_r1.core.errors import DataError
    from mobile_r1.train.run import train

    toy_phone.register()

    def config(name: str, low: float, high: float, steps: int = 2, greedy_high: float | None = None) -> TrainConfig:
        return TrainConfig.model_validate({
            "model": {"name": "tiny-lm"},
            "data": {"dialect": "inquire", "observation_mode": "text", "history_window": 1},
            "grpo": {"num_generations": 2, "max_completion_length": 8, "micro_batch_size": 8, "beta": 0.0},
            "task_grpo": {"env": "toy", "suite": "toy", "train_episodes": 12, "eval_episodes": 0, "tasks_per_step": 1,
                          "steps": steps, "max_turns": 3, "select": {"episodes": 4, "low": low, "high": high,
                                                                    "greedy_high": greedy_high}},
            "run": {"output_dir": str(tmp_path / name), "tensorboard": False, "save_every": 1},
        })

    view = model_view(config("x", 0, 1))
    sampler = PlusOnceThenFinish(load_policy("tiny-lm"), view)
    train(config("sometimes", 0.2, 0.6), "task-grpo", progress=False, sampler=sampler)
    # 4 episodes of each task played once (2 turns each), then 2 steps of one group of 2 rollouts
    assert sampler.prompts == 8 * 2 + 2 * 2 * 2
    record = json.loads((tmp_path / "sometimes" / "selected_tasks.json").read_text())
    assert record["success"] == {"toy.count": {"succeeded": 2, "played": 4}, "toy.delete": {"succeeded": 0, "played": 4}}
    assert record["selected"] == ["toy.count"] and (record["low"], record["high"]) == (0.2, 0.6)
    played = [json.loads(line) for line in (tmp_path / "sometimes" / "trajectories.jsonl").read_text().splitlines()]
    assert len(played) == 4 and all(r["episode"].startswith("toy.count/") for r in played)
    shown = capsys.readouterr()
    assert "toy.count 2/4, toy.delete 0/4; 1 in [0.2, 0.6]: toy.count" in shown.out + shown.err
    assert "training on toy.count" in shown.out + shown.err and "greedily" not in shown.out + shown.err
    # with greedy play too: the kept task's episodes are played again greedily (the scripted model plays alike)
    before = sampler.prompts
    train(config("greedy", 0.2, 0.6, greedy_high=0.5), "task-grpo", progress=False, sampler=sampler)
    assert sampler.prompts - before == 8 * 2 + 4 * 2 + 2 * 2 * 2
    record = json.loads((tmp_path / "greedy" / "selected_tasks.json").read_text())
    assert record["greedy_success"] == {"toy.count": {"succeeded": 2, "played": 4}} and record["selected"] == ["toy.count"]
    shown = capsys.readouterr()
    assert "greedy success toy.count 2/4; 1 at most 0.5: toy.count" in shown.out + shown.err
    with pytest.raises(DataError, match=r"in \[0.2, 0.6\] with greedy success at most 0.4 \(toy.count 2/4, toy.delete "
                                        r"0/4, greedy toy.count 2/4\)"):
        train(config("greedy-none", 0.2, 0.6, greedy_high=0.4), "task-grpo", progress=False, sampler=sampler)
    # a range only the task it never completes falls in
    train(config("never", 0.0, 0.0), "task-grpo", progress=False, sampler=sampler)
    played = [json.loads(line) for line in (tmp_path / "never" / "trajectories.jsonl").read_text().splitlines()]
    assert played and all(r["episode"].startswith("toy.delete/") for r in played)
    # no task in the range: a one-line error naming the rates
    with pytest.raises(DataError, match=r"no task's sampled success lies in \[0.7, 1\] \(toy.count 2/4, toy.delete 0/4\)"):
        train(config("none", 0.7, 1.0), "task-grpo", progress=False, sampler=sampler)

    # killed after a checkpoint and resumed: the tasks are read back, not played again
    def kill(step: int, metrics: dict[str, float]) -> None:
        if step == 1:
            raise Killed

    with pytest.raises(Killed):
        train(config("resumed", 0.2, 0.6, steps=3), "task-grpo", progress=False, sampler=sampler, on_step=kill)
    before = sampler.prompts
    capsys.readouterr()
    train(config("resumed", 0.2, 0.6, steps=3), "task-grpo", progress=False, sampler=sampler, resume=True)
    assert sampler.prompts - before == 2 * 2 * 2  # steps 2 and 3 only
    shown = capsys.readouterr()
    assert "training on the tasks kept in" in shown.out + shown.err and "(read back): toy.count" in shown.out + shown.err
    # resumed with another range, the file no longer fits: the starting model plays the tasks again
    train(config("resumed", 0.0, 0.6, steps=4), "task-grpo", progress=False, sampler=sampler, resume=True)
    shown = capsys.readouterr()
    assert "playing 8 training episodes once each with the starting model" in shown.out + shown.err
    record = json.loads((tmp_path / "resumed" / "selected_tasks.json").read_text())
    assert record["selected"] == ["toy.count", "toy.delete"] and record["low"] == 0.0


def test_the_timing_reward_pays_a_timely_question_more_than_an_early_one_and_a_late_one_less_than_both() -> None:
    from mobile_r1.train.task_grpo import inquiry_term

    def timed(timing: list[str], over: int = 0) -> EpisodeVerdict:
        asked = all(t != "missed" for t in timing)
        return EpisodeVerdict("e", asked, "asked" if asked else "missed", over_asks=over, timing=timing,  # type: ignore[arg-type]
                              questions=sum(t != "missed" for t in timing) + over)

    timely, early, late, missed = (inquiry_term(timed([t]), "timing") for t in ("timely", "early", "late", "missed"))
    assert timely == 1.0 and early == 0.5 and late == -1.0 and missed == -1.0
    assert inquiry_term(timed(["timely"], over=2), "timing") == 0.0  # two needless questions cost half a point each
    assert inquiry_term(timed(["timely", "late"]), "timing") == 0.0  # a combination task: the mean of its questions
    control = EpisodeVerdict("c", True, "over_asked", over_asks=6, timing=[], questions=6)
    assert inquiry_term(control, "timing") == -2.0  # bounded below
    assert inquiry_term(EpisodeVerdict("c", True, "not_needed", timing=[], questions=0), "timing") == 0.0
    # the outcome mode cannot tell a late question from a timely one; the timing mode can
    assert inquiry_term(timed(["late"]), "outcome") == inquiry_term(timed(["timely"]), "outcome") == 1.0
    w = RewardWeights("success", format=0.0, inquiry=1.0, inquiry_reward="timing")
    assert trajectory_reward(timed(["timely"]), [1], w) > trajectory_reward(timed(["late"]), [1], w)


def test_over_ask_penalty_sets_what_a_repeated_question_costs_in_the_timing_reward() -> None:
    asked_twice = EpisodeVerdict("e", False, "asked", over_asks=1, timing=["timely"], questions=2)
    asked_once = EpisodeVerdict("e", False, "asked", over_asks=0, timing=["timely"], questions=1)
    missed = EpisodeVerdict("e", False, "missed", over_asks=0, timing=["missed"], questions=0)
    config = TrainConfig.model_validate({"task_grpo": {"inquiry_reward": "timing", "inquiry_weight": 1.0,
                                                       "format_weight": 0.0, "over_ask_penalty": 1.0}})
    weights, default = RewardWeights.of(config.task_grpo), RewardWeights("success", 0.0, 1.0, 0.0, "timing")
    assert default.over_ask_penalty == 0.5 and weights.over_ask_penalty == 1.0
    # the default: a repeated question costs half of what a timely one earns; at 1.0 it costs all of it
    assert trajectory_reward(asked_twice, [1], default) == 0.5 and trajectory_reward(asked_twice, [1], weights) == 0.0
    assert trajectory_reward(asked_once, [1], weights) == 1.0 > trajectory_reward(missed, [1], weights) == -1.0
    with pytest.raises(ValidationError):
        TrainConfig.model_validate({"task_grpo": {"over_ask_penalty": -0.5}})


def test_groups_branched_after_the_question_start_from_one_state_where_it_is_answered_and_asking_again_costs() -> None:
    from mobile_r1.train.data import prompt_settings
    from mobile_r1.train.rollout import start_groups
    from mobile_r1.train.task_stage import decision_prefixes

    config = TrainConfig.model_validate({"data": {"dialect": "compact", "observation_mode": "text"},
                                         "task_grpo": {"branch": "decision", "branch_after_question": 1.0}})
    view = model_view(config)
    episodes = SIM.episodes("inquire-sim", "train", 2, 3, tasks=["chat.transfer", "notes.create"])
    assert [e.needs_inquiry for e in episodes] == [True, False]
    settings = prompt_settings(config, None)
    before = start_groups(SIM, episodes, 1, RolloutSettings(max_turns=15), decision_prefixes(settings, 0, 15), view)
    after = start_groups(SIM, episodes, 3, RolloutSettings(max_turns=15),
                         decision_prefixes(settings, 0, 15, config.task_grpo.branch_after_question), view)
    try:
        for g, episode in enumerate(episodes):
            members = after[3 * g : 3 * g + 3]
            assert len({m.env.sim.phone.state_key() for m in members}) == 1  # type: ignore[attr-defined]
            histories = [[s.action.to_arguments() for s in m.play.history] for m in members]
            assert histories[0] == histories[1] == histories[2]
            earlier = [s.action.to_arguments() for s in before[g].play.history]
            if episode.needs_inquiry:  # one step further: the expert's question, which the simulated user answered
                assert histories[0][:-1] == earlier and members[0].play.history[-1].action.is_inquiry
                assert members[0].play.history[-1].user_reply
                # asking again from there is a needless question: the judge counts it and the reward pays less
                again, on = members[0], members[1]
                again.env.step(again.play.history[-1].action)
                asked_again, went_on = again.env.judge().verdict, on.env.judge().verdict
                assert asked_again.over_asks == 1 and went_on.over_asks == 0
                weights = RewardWeights.of(TaskGRPOConfig(inquiry_reward="timing", inquiry_weight=0.5))
                assert trajectory_reward(asked_again, [1.0], weights) < trajectory_reward(went_on, [1.0], weights)
            else:  # no question to fork after: the same state as before it
                assert histories[0] == earlier
    finally:
        for t in before + after:
            t.env.close()
    with pytest.raises(ValidationError, match="branch: decision"):
        TrainConfig.model_validate({"task_grpo": {"branch_after_question": 0.5}})


def test_groups_branched_at_the_decision_point_start_from_one_phone_state_just_before_the_experts_question() -> None:
    from mobile_r1.train.data import prompt_settings
    from mobile_r1.train.rollout import start_groups
    from mobile_r1.train.task_stage import decision_prefixes

    config = TrainConfig.model_validate({"data": {"dialect": "compact", "observation_mode": "text"}})
    view = model_view(config)
    episodes = SIM.episodes("inquire-sim", "train", 2, 3, tasks=["chat.transfer", "notes.create"])
    prefixes = decision_prefixes(prompt_settings(config, None), 0, budget=15)
    groups = start_groups(SIM, episodes, 3, RolloutSettings(max_turns=15), prefixes, view)
    try:
        for g, episode in enumerate(episodes):
            members = groups[3 * g : 3 * g + 3]
            phones = [m.env for m in members]
            snapshots = {m.env.sim.phone.state_key() for m in members}  # type: ignore[attr-defined]
            assert len(snapshots) == 1 and len({m.play.observation.xml or m.play.observation.state_key for m in members}) == 1
            assert len({p.steps for p in phones}) == 1 and all(not m.turns for m in members)
            histories = [[s.action.to_arguments() for s in m.play.history] for m in members]
            assert histories[0] == histories[1] == histories[2]
            with SIM.open(episode) as phone:
                phone.reset()
                demo = phone.expert_demo()
            actions = [s.action for s in demo.episode.steps]
            if episode.needs_inquiry:  # the next expert action after the prefix is its question
                assert actions[len(histories[0])].is_inquiry and len(histories[0]) > 0
            else:
                assert not any(a.is_inquiry for a in actions) and len(histories[0]) < len(actions)
            played = [s.action for s in members[0].play.history]  # the expert's steps, through the dialect's frame
            for want, got in zip(actions, played):
                assert want.type is got.type and (want.coordinate is None or all(
                    abs(w - g) <= 2 for w, g in zip(want.coordinate, got.coordinate or ())))
    finally:
        for t in groups:
            t.env.close()
