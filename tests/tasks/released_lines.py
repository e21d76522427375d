"""Helpers for tests of InquireBench's task templates: the packaged lines by file and number, their episodes as the
inquirebench-sim suite builds them, the oracle, an agent that does nothing and a seeded random agent."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from mobile_r1.agents.random_agent import RandomAgent
from mobile_r1.core.actions import Action
from mobile_r1.env.sim.episode import TaskEpisode, released_episode
from mobile_r1.env.sim.expert import Expert, ExpertRun
from mobile_r1.env.sim.judge import judge
from mobile_r1.tasks.released import ReleasedLine, line_record, match_line, packaged_files, read_lines
from mobile_r1.tasks.spec import TaskSpec


def packaged_lines() -> dict[tuple[str, int], ReleasedLine]:
    """Every line of the packaged task files by (file name, line number)."""
    return {(Path(line.path).name, line.number): line for path in packaged_files() for line in read_lines(path)}


def episode_of(line: ReleasedLine, specs: list[TaskSpec]) -> TaskEpisode:
    """The episode the inquirebench-sim suite plays for a packaged line (the same id, seed and values)."""
    found = match_line(line, specs)
    assert found is not None, f"{line.where}: no template plays {line.task.instruction!r}"
    return released_episode(found.spec, line_record(found.line), found.template, found.values)


def oracle(episode: TaskEpisode) -> ExpertRun:
    return Expert().run(episode)


def do_nothing_succeeds(episode: TaskEpisode) -> bool:
    """Whether an agent that stops at once passes the judge."""
    env = episode.make_env(render=False)
    env.step(Action.terminate("success"))
    return judge(episode, env.phone).verdict.success


def random_agent_succeeds(episode: TaskEpisode, seed: int = 0) -> bool:
    """Whether a seeded random agent, acting until it stops or runs out of the task's steps, passes the judge."""
    env = episode.make_env(render=False)
    agent = RandomAgent(seed=seed)
    obs = env.observe()
    for _ in range(episode.spec.max_steps):
        action = agent.sample(obs)
        obs, terminated, truncated, _ = env.step(action)
        if terminated or truncated or action.type.value == "terminate":
            break
    return judge(episode, env.phone).verdict.success


def write_lines(path: Path, records: list[dict[str, Any]]) -> Path:
    """A task file in InquireBench's format."""
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    return path


def line(instruction: str, apps: list[str], category: str, language: str, need_login: bool = False,
         intension: str = "") -> dict[str, Any]:
    """One task line as InquireBench writes it."""
    return {"instruction": instruction, "apps": apps, "category": category, "language": language,
            "need_login": need_login, "intension": intension or instruction}
