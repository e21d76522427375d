"""Playing an evaluation's episodes: `workers` at a time in this process with one `act_batch` call per turn
(`run_batch`), one agent per episode for the kinds re-seeded per episode (`EpisodeAgents`), or one episode per call
in worker processes (`run_one`)."""

from __future__ import annotations

import hashlib
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable, Sequence

from mobile_r1.agents import Agent, AgentOutput, AgentRequest, make_agent
from mobile_r1.core.errors import ConfigError, InfraError
from mobile_r1.env import Backend, EpisodeRef, TaskEnv
from mobile_r1.eval.config import RESEEDED_KINDS, EvalConfig
from mobile_r1.eval.episode_run import EpisodeRun, advance_runs, start_runs


def episode_seed(base: int, episode_id: str) -> int:
    """A stable per-episode seed for stochastic agents."""
    return int.from_bytes(hashlib.sha256(f"{base}:{episode_id}".encode()).digest()[:4], "big")


def run_batch(agent: Agent, episodes: Sequence[EpisodeRef], config: EvalConfig, run_dir: Path | None,
              on_done: Callable[[dict[str, Any]], None], backend: Backend,
              on_turn: Callable[[float], None] | None = None) -> None:
    """Run `episodes` with up to `config.workers` of them in flight, one `act_batch` call per turn; after each turn
    `on_turn(part)` gets the part of the episodes still in flight that is played (each one's steps over its budget)."""
    pending = list(episodes)
    active: list[EpisodeRun] = []
    while pending or active:
        room = max(0, config.workers - len(active))
        starting, pending = pending[:room], pending[room:]
        new = start_runs(starting, config, run_dir, backend, on_done)
        for run in new:
            agent.reset(run.id)
        try:
            agent.start_episodes([(run.play.episode, run.play.env) for run in new])
        except InfraError:  # some phone failed: start them one by one to tell which
            new = _start_each(agent, new, on_done)
        active.extend(new)
        if not active:
            continue
        outputs = agent.act_batch([run.request() for run in active])
        if len(outputs) != len(active):
            raise ConfigError(f"agent {config.agent!r} answered {len(outputs)} of {len(active)} requests")
        still: list[EpisodeRun] = []
        for run, error in zip(active, advance_runs(active, outputs)):
            try:
                if error is not None:
                    on_done(run.fail(error))
                elif run.done:
                    on_done(run.finish())
                else:
                    still.append(run)
            except InfraError as exc:
                on_done(run.fail(exc))
        active = still
        if on_turn is not None:
            on_turn(sum(min(1.0, run.play.env.steps / run.play.env.budget) for run in active))


def _start_each(agent: Agent, runs: Sequence[EpisodeRun], on_done: Callable[[dict[str, Any]], None]) -> list[EpisodeRun]:
    started = []
    for run in runs:
        try:
            agent.start_episode(run.play.episode, run.play.env)
            started.append(run)
        except InfraError as exc:
            on_done(run.fail(exc))
    return started


def build_agent(config: EvalConfig, episode: EpisodeRef | None = None) -> Agent:
    """The configured agent (for re-seeded kinds, seeded for `episode`)."""
    options = config.agent_kwargs()
    if episode is not None and config.agent_kind in RESEEDED_KINDS:
        options["seed"] = episode_seed(config.seed, episode.id)
    return make_agent(config.agent, **options)


class EpisodeAgents(Agent):
    """One agent per episode, each built for its episode (`build_agent(config, episode)`: the re-seeded kinds), so
    that episodes in flight together play exactly as they would one by one."""

    def __init__(self, config: EvalConfig) -> None:
        self.config = config
        self.agents: dict[str, Agent] = {}
        self.name = config.agent

    def start_episodes(self, started: Sequence[tuple[EpisodeRef, TaskEnv]]) -> None:
        for episode, env in started:
            self.reset(episode.id)
            agent = self.agents[episode.id] = build_agent(self.config, episode)
            agent.start_episode(episode, env)

    def start_episode(self, episode: EpisodeRef, env: TaskEnv) -> None:
        self.start_episodes([(episode, env)])

    def act_batch(self, requests: Sequence[AgentRequest]) -> list[AgentOutput]:
        out = []
        for request in requests:
            agent = self.agents.get(request.episode_id or "")
            if agent is None:
                raise ConfigError(f"no agent was started for episode {request.episode_id!r}")
            out.append(agent.act(request))
        return out

    def reset(self, episode_id: str | None = None) -> None:
        for key in list(self.agents) if episode_id is None else [episode_id]:
            agent = self.agents.pop(key, None)
            if agent is not None:
                agent.close()

    def close(self) -> None:
        self.reset()


def run_one(episode: EpisodeRef, config: EvalConfig, run_dir: Path | None, backend: Backend,
            agent: Agent | None = None) -> dict[str, Any]:
    """Run and judge one episode with its own (or the given) agent; returns its record."""
    own = agent is None or config.agent_kind in RESEEDED_KINDS
    use = build_agent(config, episode) if own else agent
    assert use is not None
    records: list[dict[str, Any]] = []
    try:
        run_batch(use, [episode], replace_workers(config, 1), run_dir, records.append, backend)
    finally:
        if own and use is not agent:
            use.close()
    return records[0]


def replace_workers(config: EvalConfig, workers: int) -> EvalConfig:
    """`config` with `workers` episodes in flight."""
    return replace(config, workers=workers)


# ----- worker processes -------------------------------------------------------------------------------------------
_WORKER: dict[str, Any] = {}


def worker_init(config: EvalConfig, run_dir: str | None) -> None:
    """A worker process's start: its backend and (unless re-seeded per episode) its agent, kept for `worker_run`."""
    _WORKER["config"] = config
    _WORKER["run_dir"] = Path(run_dir) if run_dir else None
    _WORKER["backend"] = config.backend()
    _WORKER["agent"] = None if config.agent_kind in RESEEDED_KINDS else build_agent(config)


def worker_run(episode: EpisodeRef) -> dict[str, Any]:
    """One episode in a worker process: its record."""
    return run_one(episode, _WORKER["config"], _WORKER["run_dir"], _WORKER["backend"], _WORKER["agent"])


__all__ = ["EpisodeAgents", "build_agent", "episode_seed", "replace_workers", "run_batch", "run_one", "worker_init",
           "worker_run"]
