"""Ray environment pools: the same episodes as in process, a worker killed mid-run, stage-3 rollouts, a second
backend in the actors. One local Ray cluster of 2 CPUs serves the whole module."""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path
from typing import Any, Iterator

import pytest
import yaml

from mobile_r1.cli.main import main
from mobile_r1.core.actions import Action
from mobile_r1.core.errors import ConfigError, EnvError, InfraError
from mobile_r1.env import Move, make_backend, step_many
from mobile_r1.env.pools import RayBackend, RemoteTaskEnv
from mobile_r1.eval.runner import EvalConfig, load_run, run_eval

import toy_phone

pytestmark = pytest.mark.slow  # every test here starts Ray (a local cluster and its actors)

ray = pytest.importorskip("ray")

EPISODES = 40
TOY_SETUP = "tests.toy_phone:register"  # what a worker imports to know the toy backend (cwd: the repo root)


@pytest.fixture(scope="module", autouse=True)
def cluster() -> Iterator[None]:
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
    yield
    ray.shutdown()


@pytest.fixture(scope="module")
def in_process(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    """The oracle on 40 inquire-sim test episodes in process, through the CLI: id -> record."""
    out = tmp_path_factory.mktemp("eval") / "in-process"
    assert main(["eval", "--agent", "oracle", "--suite", "inquire-sim", "--split", "test", "--episodes",
                 str(EPISODES), "--out", str(out)]) == 0
    return {r["id"]: r for r in load_run(out)[1]}


def _lines(run_dir: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (run_dir / "episodes.jsonl").read_text().splitlines()]


def _actions(record: dict[str, Any]) -> list[Any]:
    return [step["action"] for step in record["steps"]]


def test_eval_with_ray_gives_the_verdicts_of_a_run_in_process(in_process: dict[str, dict[str, Any]],
                                                              tmp_path: Path) -> None:
    out = tmp_path / "ray"
    assert main(["eval", "--agent", "oracle", "--suite", "inquire-sim", "--split", "test", "--episodes",
                 str(EPISODES), "--ray", "--out", str(out)]) == 0
    options, records = load_run(out)
    assert options["ray"] == "local"
    assert [r["id"] for r in records] and {r["id"] for r in records} == set(in_process)
    for r in records:
        assert r["verdict"] == in_process[r["id"]]["verdict"]
        assert _actions(r) == _actions(in_process[r["id"]])
    # the oracle is not a trivial reference: some of its episodes ask the user, some do not
    assert {r["verdict"]["inquiry"] for r in records} >= {"asked", "not_needed"}


def test_a_worker_killed_mid_run_is_replaced_and_every_episode_is_recorded_once(
        in_process: dict[str, dict[str, Any]], tmp_path: Path) -> None:
    out = tmp_path / "killed"
    pool = RayBackend("sim", workers=2, render=True, scale=0.3, xml=False)
    killed: list[int] = []

    def progress(done: int, total: int, record: dict[str, Any] | None) -> None:
        if done >= 5 and not killed:  # the worker holding the most phones still in play
            busiest = max(pool.slots, key=lambda s: s.envs)
            assert busiest.envs > 0
            killed.append(pool.worker_pids()[busiest.index])
            os.kill(killed[0], signal.SIGKILL)

    try:
        config = EvalConfig(agent="oracle", suite="inquire-sim", split="test", episodes=EPISODES, workers=4, out=out)
        result = run_eval(config, progress, backend=pool)
        pids = pool.worker_pids()
    finally:
        pool.close()
    assert killed and killed[0] not in pids
    assert pool.stats.replaced == 1 and pool.stats.recovered >= 1
    lines = _lines(out)
    assert len(lines) == EPISODES and len({r["id"] for r in lines}) == EPISODES
    assert not result.infra_errors and len(result.verdicts) == EPISODES
    for r in lines:
        assert r["verdict"] == in_process[r["id"]]["verdict"] and _actions(r) == _actions(in_process[r["id"]])


def test_phones_in_actors_answer_as_in_process_and_errors_come_back_as_they_were() -> None:
    local = make_backend("sim", render=False)
    episodes = local.episodes("nav-sim", "test", 4)
    with RayBackend("sim", workers=2, render=False) as pool:
        remote = [pool.open(e, max_steps=3) for e in episodes]
        assert {env.slot.index for env in remote} == {0, 1}  # spread over the workers
        here = [local.open(e, max_steps=3) for e in episodes]
        for a, b in zip(remote, here):
            assert a.reset()[0].elements == b.reset()[0].elements
        moves = [Action.click(540, 1200), None, Action.back()]
        for move in moves:
            results = step_many([Move(env, move, "nothing readable") for env in remote + here])
            for a, b in zip(results[:4], results[4:]):
                assert not isinstance(a, InfraError) and not isinstance(b, InfraError)
                assert a[0].elements == b[0].elements and a[1:3] == b[1:3] and a[3].step == b[3].step
                assert (a[3].error, a[3].user_reply) == (b[3].error, b[3].user_reply)
        assert all(env.truncated for env in remote)
        with pytest.raises(EnvError, match="has ended"):
            remote[0].step(Action.back())
        fork = remote[1].fork()  # made in the actor holding the phone, where it stands
        assert isinstance(fork, RemoteTaskEnv) and fork.slot is remote[1].slot and fork.steps == 3
        assert [env.judge().verdict.to_dict() for env in remote] == [env.judge().verdict.to_dict() for env in here]
        toy_phone.register()
        stranger = make_backend("toy").episodes("toy", "test", 1)[0]
        with pytest.raises(EnvError, match="made by the 'toy' backend"):  # raised in the worker, re-raised here
            pool.open(stranger)


def test_agents_reseeded_per_episode_play_on_the_pool_as_in_process(tmp_path: Path) -> None:
    config = EvalConfig(agent="random", suite="inquire-sim", episodes=6, max_steps=4, out=tmp_path / "here")
    here = {r["id"]: r for r in load_run(run_eval(config).run_dir)[1]}  # type: ignore[arg-type]
    with RayBackend("sim", workers=2, render=True, scale=0.3, xml=False) as pool:
        config.out = tmp_path / "there"
        there = load_run(run_eval(config, backend=pool).run_dir)[1]  # type: ignore[arg-type]
    assert len(there) == 6 and all(_actions(r) == _actions(here[r["id"]]) for r in there)
    assert len({json.dumps(_actions(r)) for r in there}) > 1  # the episodes' agents are seeded apart


def test_without_recovery_a_lost_worker_is_an_infrastructure_error() -> None:
    with RayBackend("sim", workers=1, render=False, recover=False) as pool:
        env = pool.open(pool.episodes("nav-sim", "test", 1)[0])
        env.reset()
        os.kill(pool.worker_pids()[0], signal.SIGKILL)
        with pytest.raises(InfraError, match="recover=False"):
            env.step(Action.back())
        again = pool.open(env.episode)  # the worker was replaced all the same: later phones play on
        assert again.reset()[0].elements == env.observation.elements and pool.stats.replaced == 1


def test_a_phone_that_cannot_be_brought_back_is_recorded_apart_and_resumed(tmp_path: Path) -> None:
    out = tmp_path / "unsteady"
    config = EvalConfig(agent="oracle", env="toy-unsteady", suite="toy", episodes=6, workers=4, out=out)
    setup = ["tests.env.unsteady_phone:register"]
    with RayBackend("toy-unsteady", workers=2, setup=setup) as pool:
        def kill_once(done: int, total: int, record: dict[str, Any] | None) -> None:
            if done == 1 and pool.stats.replaced == 0:
                os.kill(pool.worker_pids()[max(pool.slots, key=lambda s: s.envs).index], signal.SIGKILL)

        first = run_eval(config, kill_once, backend=pool)
    assert first.infra_errors and len(first.verdicts) + len(first.infra_errors) == 6
    lines = _lines(out)
    assert len(lines) == 6 and len({r["id"] for r in lines}) == 6
    assert all("did not bring the phone back" in r["infra_error"] for r in lines if r.get("infra_error"))
    with RayBackend("toy-unsteady", workers=2, setup=setup) as pool:
        again = run_eval(EvalConfig(**{**config.resolved(), "out": out, "resume": True}), backend=pool)
    assert again.ran == len(first.infra_errors) and not again.infra_errors
    assert len(again.verdicts) == 6 and all(v.success for v in again.verdicts)


def test_a_pool_larger_than_the_cluster_is_refused_with_a_message() -> None:
    with pytest.raises(ConfigError, match="do not fit"):
        RayBackend("sim", workers=3, render=False).start()


def test_a_backend_registered_here_reaches_the_workers_through_setup(tmp_path: Path) -> None:
    toy_phone.register()
    with RayBackend("toy", workers=2, setup=[TOY_SETUP]) as pool:
        result = run_eval(EvalConfig(agent="oracle", env="toy", suite="toy", episodes=6), backend=pool)
        assert len(result.verdicts) == 6 and all(v.success for v in result.verdicts)
    with pytest.raises(ConfigError, match="cannot import"):
        RayBackend("toy", workers=1, setup=["no_such_module_here:register"]).start()


def _sampler(policy: Any, view: Any) -> Any:
    """Scripted model outputs that vary with the rollout and the turn: taps, a question, garbage, back, the end."""
    from mobile_r1.train.data import end_of_turn

    plan = [Action.click(540, 1200), Action.call_user("Shall I go on?"), None, Action.click(200, 600), Action.back(),
            Action.terminate()]
    calls = [0]

    def sample(prompts: list[Any]) -> list[list[int]]:
        calls[0] += 1
        out = []
        for index in range(len(prompts)):
            action = plan[(calls[0] + index) % len(plan)]
            text = "no idea" if action is None else view.dialect.render(action, "thinking", "a step")
            out.append(list(policy.tokenizer(text + end_of_turn(policy), add_special_tokens=False).input_ids))
        return out

    return sample


def _played(trajectories: list[Any]) -> list[Any]:
    return [(t.episode.id, t.group, t.judge().verdict.to_dict(),
             [(turn.text, turn.error, turn.user_reply, turn.state_key, turn.next_state_key) for turn in t.turns])
            for t in trajectories]


def test_stage3_rollouts_on_the_pool_are_those_played_in_process() -> None:
    from mobile_r1.agents.base import ModelView
    from mobile_r1.models import load_policy
    from mobile_r1.train.rollout import RolloutSettings, close_all, rollout, start_groups

    policy = load_policy("tiny-lm")
    view = ModelView.create("inquire", observation_mode="text", frame="qwen", history_window=2)
    settings = RolloutSettings(max_turns=6)
    local = make_backend("sim", render=False)
    episodes = local.episodes("inquire-sim", "train", 3, seed=1)
    here = rollout(policy, view, start_groups(local, episodes, 4, settings), settings, _sampler(policy, view))
    with RayBackend("sim", workers=2, render=False) as pool:
        groups = start_groups(pool, episodes, 4, settings)
        assert all(isinstance(t.env, RemoteTaskEnv) for t in groups)
        for g in range(3):  # a group's forks live with its first phone
            assert len({t.env.slot.index for t in groups if t.group == g}) == 1
        there = rollout(policy, view, groups, settings, _sampler(policy, view))
        assert _played(there) == _played(here)
        assert any(turn.user_reply for t in there for turn in t.turns) and any(t.length > 1 for t in there)
        close_all(there)
    close_all(here)


def test_stage3_training_with_ray_in_the_config_plays_the_in_process_trajectories(tmp_path: Path) -> None:
    from mobile_r1.agents.base import ModelView
    from mobile_r1.models import load_policy
    from mobile_r1.train.config import TrainConfig
    from mobile_r1.train.run import train
    from mobile_r1.train.task_stage import stage_backend

    policy = load_policy("tiny-lm")
    view = ModelView.create("compact", observation_mode="text")
    played = []
    for ray_address in (None, "local"):
        run = {"model": {"name": "tiny-lm"}, "data": {"dialect": "compact", "observation_mode": "text"},
               "grpo": {"num_generations": 2, "max_completion_length": 40, "micro_batch_size": 8, "beta": 0.0},
               "task_grpo": {"env": "sim", "suite": "inquire-sim", "train_episodes": 3, "eval_episodes": 0,
                             "tasks_per_step": 2, "steps": 2, "max_turns": 3, "ray": ray_address, "ray_workers": 2},
               "run": {"output_dir": str(tmp_path / f"run-{ray_address}"), "tensorboard": False, "seed": 0}}
        path = tmp_path / f"{ray_address}.yaml"
        path.write_text(yaml.safe_dump(run))
        backend = stage_backend(TrainConfig.model_validate(run))
        assert isinstance(backend, RayBackend) == (ray_address is not None)
        result = train(path, "task-grpo", progress=False, sampler=_sampler(policy, view))
        assert result.steps == 2
        played.append((tmp_path / f"run-{ray_address}" / "trajectories.jsonl").read_text().splitlines())
    assert played[0] and played[0] == played[1]
