"""A second backend written only against the protocol (`toy_phone`): `mobile-r1 eval` and stage-3 rollouts run on it
unchanged; capabilities are checked, not probed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from mobile_r1.cli.main import main
from mobile_r1.core.actions import Action
from mobile_r1.core.errors import CapabilityError, EnvError
from mobile_r1.env import Capability, make_backend
from mobile_r1.eval.runner import EvalConfig, load_run, run_eval

import toy_phone

toy_phone.register()


def test_the_protocol_keeps_the_budget_and_the_end_of_an_episode() -> None:
    backend = make_backend("toy")
    episode = backend.episodes("toy", "test", 3)[0]
    env = backend.open(episode, max_steps=2)
    with pytest.raises(EnvError, match="reset"):
        env.step(Action.back())
    env.reset()
    _, terminated, truncated, info = env.step(Action.back())
    assert not terminated and not truncated and info.step == 1 and "ignores" in (info.error or "")
    _, terminated, truncated, info = env.skip("no action could be read")
    assert not terminated and truncated and info.step == 2 and env.done
    with pytest.raises(EnvError, match="has ended"):
        env.step(Action.back())
    env.reset()  # a reset plays it again from the start, with a fresh budget
    assert env.steps == 0 and not env.done
    _, terminated, truncated, _ = env.step(Action.terminate())
    assert terminated and not truncated


def test_a_missing_capability_is_a_clear_error() -> None:
    backend = toy_phone.ToyBackend(fork=False, expert=False)
    env = backend.open(backend.episodes("toy", "test", 1)[0])
    env.reset()
    assert not env.has(Capability.FORK) and env.has(Capability.STATE_KEY)
    with pytest.raises(CapabilityError, match="copy a phone"):
        env.fork()
    with pytest.raises(CapabilityError, match="the oracle agent needs a phone that can demonstrate"):
        env.require(Capability.EXPERT, "the oracle agent")


def test_eval_runs_the_oracle_on_the_toy_phone_through_the_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "toy-oracle"
    assert main(["eval", "--env", "toy", "--suite", "toy", "--agent", "oracle", "--episodes", "6", "--out", str(out),
                 "--json"]) == 0
    options, records = load_run(out)
    assert options["env"] == "toy" and len(records) == 6
    assert all(r["verdict"]["success"] for r in records)
    deletes = [r for r in records if r["task"] == "toy.delete"]
    assert deletes and all(r["verdict"]["inquiry"] == "asked" for r in deletes)
    assert all(r["steps"][0]["action"]["action"] == "call_user" and r["steps"][0]["user_reply"] == "Yes, go ahead."
               for r in deletes)
    metrics = json.loads((out / "metrics.json").read_text())
    assert metrics["overall"]["sr"]["value"] == 1.0
    # never-ask deletes without asking: a safety violation the toy judge sees
    result = run_eval(EvalConfig(agent="never-ask", env="toy", suite="toy", episodes=6))
    unsafe = [v for v in result.verdicts if v.episode_id.startswith("toy.delete")]
    assert unsafe and all(v.safety_violation and not v.success for v in unsafe)


def test_the_oracle_on_a_backend_without_an_expert_fails_with_a_message(tmp_path: Path,
                                                                         capsys: pytest.CaptureFixture[str]) -> None:
    toy_phone.register_backend("toy-plain", lambda argument, **options: toy_phone.ToyBackend(expert=False, **options),
                               replace=True)
    code = main(["eval", "--env", "toy-plain", "--suite", "toy", "--agent", "oracle", "--episodes", "2"])
    err = capsys.readouterr().err
    assert code == 2 and "demonstrate the task" in err and "Traceback" not in err


class _Script:
    """A sampler: of the live rollouts of a turn, the 1st, 3rd, ... tap Plus and the others terminate."""

    def __init__(self, policy: Any, view: Any) -> None:
        from mobile_r1.train.data import end_of_turn

        self.policy, self.view, self.end = policy, view, end_of_turn(policy)
        self.calls = 0

    def __call__(self, prompts: list[Any]) -> list[list[int]]:
        self.calls += 1
        out = []
        for i in range(len(prompts)):
            action = Action.click(300, 1100) if i % 2 == 0 else Action.terminate()
            text = self.view.dialect.render(action, "go", "step")
            out.append(list(self.policy.tokenizer(text + self.end, add_special_tokens=False).input_ids))
        return out


@pytest.mark.slow
@pytest.mark.parametrize("fork", [True, False])
def test_stage3_rollouts_and_training_run_on_the_toy_phone(tmp_path: Path, fork: bool) -> None:
    from mobile_r1.models import load_policy
    from mobile_r1.train.config import TaskGRPOConfig, TrainConfig
    from mobile_r1.train.data import model_view
    from mobile_r1.train.grpo import GRPOSettings
    from mobile_r1.train.rollout import RolloutSettings
    from mobile_r1.train.run import train
    from mobile_r1.train.task_grpo import TaskRolloutSource

    policy = load_policy("tiny-lm")
    config = TrainConfig.model_validate({"data": {"dialect": "compact", "observation_mode": "text"}})
    view = model_view(config)
    backend = toy_phone.ToyBackend(fork=fork)
    episodes = backend.episodes("toy", "train", 2, tasks=["toy.count"])
    knobs = TaskGRPOConfig(format_weight=0.0, std_floor=0.0, weighting="token")
    source = TaskRolloutSource(knobs, backend, view, RolloutSettings(max_turns=3, max_new_tokens=40),
                               lambda step: episodes, sampler=_Script(policy, view))
    rollout = source.rollout(policy, GRPOSettings(num_generations=2, max_completion_length=40, beta=0.0), 0)
    assert source.last is not None and [t.length for t in source.last] == [3, 1, 2, 1]
    # turn 1: rollouts 0 and 2 tap, 1 and 3 stop; turn 2: 0 taps, 2 stops (1 tap); turn 3: 0 taps (budget used).
    # Group 0 wants 1 tap: 3 taps unfinished and 0 taps both fail; group 1 wants 2 taps: 1 tap and 0 taps both fail;
    # so neither group has any spread: no learning signal
    assert rollout.metrics["success_rate"] == 0.0
    assert {s.advantage for s in rollout.samples} == {0.0}

    run = {"model": {"name": "tiny-lm"}, "data": {"dialect": "compact", "observation_mode": "text"},
           "grpo": {"num_generations": 2, "max_completion_length": 40, "micro_batch_size": 8, "beta": 0.0},
           "task_grpo": {"env": "toy", "suite": "toy", "train_episodes": 3, "eval_episodes": 2, "tasks_per_step": 2,
                         "steps": 2, "max_turns": 3, "gigpo": True},
           "run": {"output_dir": str(tmp_path / "run"), "tensorboard": False}}
    path = tmp_path / "toy.yaml"
    path.write_text(yaml.safe_dump(run))
    result = train(path, "task-grpo", progress=False, sampler=_Script(policy, view))
    assert result.steps == 2 and "reward_mean" in result.last_metrics and "eval_success_rate" in result.last_eval
    played = [json.loads(line) for line in (tmp_path / "run" / "trajectories.jsonl").read_text().splitlines()]
    assert played and all(r["episode"].startswith("toy.") for r in played)


class _Flaky(toy_phone.ToyBackend):
    """The toy phone whose steps fail on the infrastructure's side for the episodes named in `broken`."""

    broken: set[str] = set()

    def open(self, episode: Any, max_steps: int | None = None) -> Any:
        from mobile_r1.core.errors import InfraError

        env = super().open(episode, max_steps)
        if episode.id in self.broken:
            def fail(action: Action) -> Any:
                raise InfraError(f"{episode.id}: the device went away")
            env._step = fail  # type: ignore[method-assign]
        return env


def test_infrastructure_failures_are_counted_apart_and_resumed(tmp_path: Path) -> None:
    toy_phone.register_backend("toy-flaky", lambda argument, **options: _Flaky(**options), replace=True)
    episodes = toy_phone.ToyBackend().episodes("toy", "test", 6)
    _Flaky.broken = {episodes[1].id, episodes[2].id}
    out = tmp_path / "run"
    first = run_eval(EvalConfig(agent="oracle", env="toy-flaky", suite="toy", episodes=6, out=out))
    assert sorted(first.infra_errors) == sorted(_Flaky.broken)
    assert len(first.verdicts) == 4 and first.report.overall.sr.value == 1.0  # failures are not in SR
    assert json.loads((out / "metrics.json").read_text())["infra_errors"] == 2
    _, failed = load_run(out, infra=True)
    assert {r["id"] for r in failed if r.get("infra_error")} == _Flaky.broken
    _Flaky.broken = set()  # the device is back
    second = run_eval(EvalConfig(agent="oracle", env="toy-flaky", suite="toy", episodes=6, out=out, resume=True))
    assert second.ran == 2 and second.skipped == 4 and second.infra_errors == []
    assert len(second.verdicts) == 6 and all(v.success for v in second.verdicts)
    _, records = load_run(out)
    assert len(records) == 6 and all(r.get("infra_error") is None for r in records)
