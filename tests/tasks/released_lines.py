"""Helpers for tests of InquireBench's task templates: the packaged lines by file and number, their episodes as the
inquirebench-sim suite builds them, the oracle, an agent that does nothing and a seeded random agent."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from mobile_r1.agents.random_agent import RandomAgent
from mobile_r1.core.actions import Action
from mobile_r1.env.sim import SimBackend
from mobile_r1.env.sim.episode import TaskEpisode, make_episode, released_episode
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


# ----- the checks every InquireBench template family's tests make -------------------------------------------------
def assert_lines_play_their_templates(expected: dict[tuple[str, int], str], values: dict[tuple[str, int], dict[str, str]],
                                      specs: list[TaskSpec]) -> None:
    """Each expected packaged line matches its template (with the values given) and no other line takes one of them."""
    ours = set(expected.values())
    lines = packaged_lines()
    assert set(expected) <= set(lines)
    for where, line in lines.items():
        found = match_line(line, specs)
        if where in expected:
            assert found is not None and found.spec.id == expected[where], f"{where}: {line.task.instruction}"
            for name, value in values.get(where, {}).items():
                assert found.values[name] == value, (where, name)
        else:
            assert found is None or found.spec.id not in ours, f"{where} taken by {found.spec.id}"


def assert_oracle_plays_every_line(expected: dict[tuple[str, int], str], first_reply: dict[str, str], file_name: str,
                                   specs: list[TaskSpec]) -> None:
    """The oracle plays each expected line of one file with every question its template needs, and scores 4."""
    lines = packaged_lines()
    for where in [w for w in expected if w[0] == file_name]:
        episode = episode_of(lines[where], specs)
        assert episode.locale == ("zh" if file_name.endswith("_zh.jsonl") else "en")
        assert episode.instruction == lines[where].task.instruction
        assert episode.spec.inquiries[0].reply == first_reply[episode.spec.category]
        run = oracle(episode)
        verdict = run.judgement.verdict
        assert run.success and verdict.inquiry == "asked" and verdict.score == 4.0, (where, verdict.reason, run.stuck)
        asked = [s for s in run.episode.steps if s.action.type.value == "call_user"]
        assert len(asked) == len(episode.spec.inquiries), where


def assert_nothing_passes_by_default(expected: dict[tuple[str, int], str], specs: list[TaskSpec]) -> None:
    """Stopping at once, or acting at random (seeded), passes none of the expected lines."""
    lines = packaged_lines()
    for k, where in enumerate(expected):
        episode = episode_of(lines[where], specs)
        assert not do_nothing_succeeds(episode), where
        assert not random_agent_succeeds(episode, seed=k), where


def assert_train_episodes_generate(spec_ids: set[str], specs: dict[str, TaskSpec]) -> None:
    """Each template makes train episodes in both languages with its own phrasings, never a released line (a wish
    template's episode has a filled intent of its own)."""
    test_lines = {line.task.instruction for line in packaged_lines().values()}
    for spec_id in sorted(spec_ids):
        spec = specs[spec_id]
        assert spec.suite == "inquirebench-sim" and spec.phone == "inquirebench"
        assert spec.languages == ("en", "zh")
        for language in spec.languages:
            phrasings = spec.templates_for(language)
            assert 2 <= len(phrasings.train) <= 4 and not set(phrasings.train) & set(phrasings.test)
            for k in range(2):
                episode = make_episode(spec, "train", k, 900 + k, language)
                assert episode.instruction and "{" not in episode.instruction
                assert episode.instruction not in test_lines, (spec_id, episode.instruction)
                if spec.category == "intention":
                    assert "{" not in episode.intent and episode.intent != episode.instruction


def assert_other_values_play(tmp_path: Path, other_values: list[tuple[str, dict[str, Any]]]) -> None:
    """Lines phrased as InquireBench phrases a family, with other values, play through the backend: each keeps its
    words, reaches the template meant for it, and the oracle completes it asking what it must."""
    path = write_lines(tmp_path / "other.jsonl", [record for _, record in other_values])
    backend = SimBackend(render=False)
    refs = backend.episodes(str(path))
    assert [r.instruction for r in refs] == [record["instruction"] for _, record in other_values]
    assert [r.task for r in refs] == [spec_id for spec_id, _ in other_values]
    for ref in refs:
        env = backend.open(ref)
        env.reset()
        demo = env.expert_demo()
        assert demo.success and demo.verdict.inquiry == "asked", (ref.instruction, demo.verdict.reason)
        env.close()
