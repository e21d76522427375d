"""One episode of an evaluation in progress (`EpisodeRun`: `play.EpisodePlay` on the backend's phone) and its
episodes.jsonl record: every turn with the model's text, the parsed action, the screen it acted on, the user's
replies; the judge's verdict at the end, or what failed when the phone did."""

from __future__ import annotations

import json
import time
from dataclasses import replace
from pathlib import Path
from typing import Any, Callable, Sequence

from mobile_r1.agents import AgentOutput, AgentRequest
from mobile_r1.core.errors import InfraError
from mobile_r1.core.records import Observation
from mobile_r1.env import Backend, EpisodeRef, TaskEnv, reset_many
from mobile_r1.eval.config import EvalConfig
from mobile_r1.eval.rundir import SCREENS_DIR
from mobile_r1.play.episode import EpisodePlay, Turn, advance_many, self_corrections


def safe_name(episode_id: str) -> str:
    """A folder name for an episode id (`shop.buy/test0/s3` -> `shop.buy__test0__s3`)."""
    return "".join(c if c.isalnum() or c in "._-" else "_" for c in episode_id.replace("/", "__"))


class EpisodeRun:
    """One episode in progress (`EpisodePlay` on the backend's phone) and its run-directory record."""

    def __init__(self, env: TaskEnv, config: EvalConfig, run_dir: Path | None, started: float | None = None) -> None:
        """`env`: the episode's phone, already reset; `started`: when its episode began (default: now)."""
        self.config = config
        self.run_dir = run_dir
        self.play = EpisodePlay(env, unreadable="wait", started=True)
        self.trajectory: list[dict[str, Any]] = []
        self.started = time.perf_counter() if started is None else started
        self.agent_error: str | None = None  # the agent could not answer: the episode ends here

    @property
    def id(self) -> str:
        return self.play.episode.id

    @property
    def done(self) -> bool:
        return self.play.done or self.agent_error is not None

    def request(self) -> AgentRequest:
        return self.play.request()

    def _save_screen(self, observation: Observation, index: int | str) -> str | None:
        if self.run_dir is None or observation.screenshot is None:
            return None
        rel = Path(SCREENS_DIR) / safe_name(self.id) / f"{index}.png"
        path = self.run_dir / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        observation.screenshot.save(path, format="PNG", optimize=False, compress_level=1)
        return rel.as_posix()

    def advance(self, output: AgentOutput) -> None:
        """Apply the agent's answer to the phone and record the step."""
        error = advance_runs([self], [output])[0]
        if error is not None:
            raise error

    def _record(self, output: AgentOutput, obs: Observation, screen: str | None) -> dict[str, Any]:
        record: dict[str, Any] = {
            "index": len(self.trajectory),
            "model_text": output.text,
            "thought": output.thought,
            "description": output.description,
            "action": output.action.to_arguments() if output.action is not None else None,
            "valid": bool(output.parse.valid),
            "parse_error": output.parse.error,
            "observation": {"screen_size": list(obs.screen_size), "screenshot_path": screen,
                            "activity": obs.activity, "app": obs.app},
        }
        if output.info:
            record["agent_info"] = {k: v for k, v in output.info.items() if _jsonable(v)}
        return record

    def record(self, output: AgentOutput, turn: Turn, screen: str | None) -> None:
        """Add the turn `output` played to the trajectory (`screen`: where the screen it acted on was saved)."""
        record = self._record(output, turn.observation, screen)
        if turn.error:
            record["env_error"] = str(turn.error)
        if turn.info.extra:
            record["env_info"] = turn.info.extra
        if turn.user_reply is not None:
            record["user_reply"] = turn.user_reply
        self.trajectory.append(record)

    def record_agent_error(self, output: AgentOutput, screen: str | None) -> None:
        """An agent error (e.g. an endpoint's malformed replies): the step is recorded, the phone is not touched and
        this episode ends; the run goes on."""
        assert output.error is not None
        record = self._record(output, self.play.observation, screen)
        record["agent_error"] = output.error
        self.agent_error = output.error
        self.trajectory.append(record)

    def finish(self) -> dict[str, Any]:
        """Judge the episode, release the phone and return its episodes.jsonl record."""
        env = self.play.env
        final_screen = self._save_screen(self.play.observation, "final")
        try:
            judgement = env.judge()
        finally:
            env.close()
        verdict = replace(judgement.verdict, self_corrections=self_corrections(self.play.turns))
        return {
            **episode_fields(self.play.episode),
            "budget": env.budget,
            "truncated": env.truncated,
            "steps": self.trajectory,
            "final_screenshot": final_screen,
            "verdict": verdict.to_dict(),
            "judgement": judgement.details(),
            "seconds": round(time.perf_counter() - self.started, 4),
        }

    def fail(self, error: InfraError) -> dict[str, Any]:
        """The record of an episode whose phone failed: the steps so far and what failed, no verdict."""
        try:
            self.play.env.close()
        except Exception:  # the phone is already gone
            pass
        return infra_record(self.play.episode, error, self.trajectory, time.perf_counter() - self.started)


def episode_fields(episode: EpisodeRef) -> dict[str, Any]:
    """What a run's episode record says about the episode itself."""
    return {
        "id": episode.id,
        "task": episode.task,
        "instruction": episode.instruction,
        "category": episode.category,
        "subcategory": episode.subcategory,
        "split": episode.split,
        "seed": episode.seed,
        "apps": list(episode.apps),
    }


def infra_record(episode: EpisodeRef, error: InfraError, steps: list[dict[str, Any]] | None = None,
                 seconds: float = 0.0) -> dict[str, Any]:
    return {**episode_fields(episode), "steps": steps or [], "verdict": None, "infra_error": str(error),
            "seconds": round(seconds, 4)}


def advance_runs(runs: Sequence[EpisodeRun], outputs: Sequence[AgentOutput]) -> list[InfraError | None]:
    """One turn of many episodes, their phones stepped together: None for each turn played and recorded (or ended by
    an agent error), the `InfraError` of a phone that failed."""
    screens = [run._save_screen(run.play.observation, len(run.trajectory)) for run in runs]
    out: list[InfraError | None] = [None] * len(runs)
    playing = [k for k, output in enumerate(outputs) if output.error is None]
    for k, output in enumerate(outputs):
        if output.error is not None:
            runs[k].record_agent_error(output, screens[k])
    turns = advance_many([runs[k].play for k in playing], [outputs[k] for k in playing])
    for k, turn in zip(playing, turns):
        if isinstance(turn, InfraError):
            out[k] = turn
        else:
            runs[k].record(outputs[k], turn, screens[k])
    return out


def start_runs(episodes: Sequence[EpisodeRef], config: EvalConfig, run_dir: Path | None, backend: Backend,
               on_done: Callable[[dict[str, Any]], None]) -> list[EpisodeRun]:
    """Open and reset a phone for each episode, all together; an episode whose phone fails is recorded as such."""
    started = time.perf_counter()
    opened: list[tuple[EpisodeRef, TaskEnv]] = []
    for episode in episodes:
        try:
            opened.append((episode, backend.open(episode, max_steps=config.max_steps)))
        except InfraError as exc:
            on_done(infra_record(episode, exc))
    runs = []
    for (episode, env), reset in zip(opened, reset_many([env for _, env in opened])):
        if isinstance(reset, InfraError):
            try:
                env.close()
            except Exception:  # the phone is already gone
                pass
            on_done(infra_record(episode, reset))
        else:
            runs.append(EpisodeRun(env, config, run_dir, started))
    return runs


def _jsonable(value: object) -> bool:
    try:
        json.dumps(value)
        return True
    except (TypeError, ValueError):
        return False


__all__ = ["EpisodeRun", "advance_runs", "episode_fields", "infra_record", "safe_name", "start_runs"]
