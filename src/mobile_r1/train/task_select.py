"""`task_grpo.select`: stage 3 trains on the tasks its starting model completes sometimes but not always.

Before the first step the starting model plays the first `select.episodes` episodes of each task of the training
pool once, sampled as a rollout samples (and with `greedy_high`, the kept ones again greedily); the tasks whose
success rate lies in [low, high] are kept. The rates and the kept tasks go to `selected_tasks.json` in the run folder,
which a resumed run reads back when it was written for the same model, data and episodes (`selection_fingerprint`).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import replace
from pathlib import Path
from typing import Callable, Sequence

from accelerate import Accelerator

from mobile_r1.core.errors import DataError
from mobile_r1.env import EpisodeRef
from mobile_r1.train.config import TrainConfig
from mobile_r1.train.progress import console
from mobile_r1.train.rollout import RolloutSettings
from mobile_r1.train.stage import fingerprint, read_start_record, write_start_record

SELECTED_FILE = "selected_tasks.json"
# plays episodes with settings (greedily when asked: the held-out evaluation's sampler) -> (succeeded, played) per task
PlayEpisodes = Callable[[Sequence[EpisodeRef], RolloutSettings, bool], dict[str, tuple[int, int]]]


def select_tasks(config: TrainConfig, pool: Sequence[EpisodeRef], settings: RolloutSettings, play: PlayEpisodes,
                 accelerator: Accelerator, resume: bool) -> list[str]:
    """The tasks of the training `pool` to train on (see the module docstring); `play` plays episodes with the
    starting model (its weights as the stage starts: a resumed run gets them before its checkpoint is loaded)."""
    t, main = config.task_grpo, accelerator.is_main_process
    s = t.select
    assert s is not None
    episodes = selection_episodes(pool, s.episodes)
    path = Path(config.run.output_dir) / SELECTED_FILE
    key = selection_fingerprint(config, episodes, settings)
    record = read_start_record(path, key, resume, accelerator)
    if record is not None:
        if main:
            console.print(f"task_grpo.select: training on the tasks kept in {path} (read back): "
                          f"{', '.join(record['selected']) or 'none'}", markup=False)
    else:
        if main:
            console.print(f"task_grpo.select: playing {len(episodes)} training episodes once each with the "
                          "starting model", markup=False)
        counts = play(episodes, settings, False)
        selected = [task for task, (won, played) in counts.items() if played and s.low <= won / played <= s.high]
        record = {"episodes_per_task": s.episodes, "low": s.low, "high": s.high, "greedy_high": s.greedy_high,
                  "success": success_counts(counts)}
        if main:
            console.print(f"task_grpo.select: sampled success {rates_text(record['success'])}; {len(selected)} in "
                          f"[{s.low:g}, {s.high:g}]: {', '.join(selected) or 'none'}", markup=False)
        if s.greedy_high is not None and selected:
            greedy_play = replace(settings, temperature=0.0, top_p=1.0)
            chosen = [e for e in episodes if e.task in selected]
            if main:
                console.print(f"task_grpo.select: playing their {len(chosen)} episodes greedily", markup=False)
            greedy_counts = play(chosen, greedy_play, True)
            selected = [task for task in selected if greedy_counts[task][0] / greedy_counts[task][1] <= s.greedy_high]
            record["greedy_success"] = success_counts(greedy_counts)
            if main:
                console.print(f"task_grpo.select: greedy success {rates_text(record['greedy_success'])}; "
                              f"{len(selected)} at most {s.greedy_high:g}: {', '.join(selected) or 'none'}",
                              markup=False)
        record["selected"] = selected
        if main:
            console.print(f"task_grpo.select: training on {', '.join(selected) or 'none'}", markup=False)
            write_start_record(path, record, key)
    selected = list(record["selected"])
    if not selected:
        rates = rates_text(record["success"])
        greedy = f", {rates_text(record['greedy_success'], 'greedy ')}" if record.get("greedy_success") else ""
        limit = f" with greedy success at most {record['greedy_high']:g}" if record.get("greedy_high") is not None else ""
        raise DataError(f"task_grpo.select: no task's sampled success lies in [{record['low']:g}, "
                        f"{record['high']:g}]{limit} ({rates}{greedy}); widen the range, or give stage 3 other tasks")
    return selected


def success_counts(counts: dict[str, tuple[int, int]]) -> dict[str, dict[str, int]]:
    """`sampled_success`'s counts as selected_tasks.json records them."""
    return {task: {"succeeded": won, "played": played} for task, (won, played) in counts.items()}


def rates_text(success: dict[str, dict[str, int]], prefix: str = "") -> str:
    """`task 3/16, ...` for the console and errors."""
    return ", ".join(f"{prefix}{task} {c['succeeded']}/{c['played']}" for task, c in success.items())


def selection_episodes(pool: Sequence[EpisodeRef], per_task: int) -> list[EpisodeRef]:
    """`task_grpo.select`'s episodes: the first `per_task` episodes of each task in the training pool."""
    taken: dict[str, int] = defaultdict(int)
    out = []
    for episode in pool:
        if taken[episode.task] < per_task:
            taken[episode.task] += 1
            out.append(episode)
    return out


def selection_fingerprint(config: TrainConfig, episodes: Sequence[EpisodeRef], settings: RolloutSettings) -> str:
    """What `task_grpo.select`'s choice depends on: the starting model, the data settings, how episodes are played
    and which. A resumed run reuses selected_tasks.json only when this is unchanged."""
    t = config.task_grpo
    what = {"model": config.model.model_dump(mode="json"), "data": config.data.model_dump(mode="json"),
            "select": t.select.model_dump(mode="json") if t.select else None, "env": t.env,
            "tasks": config.tasks.backend_options(), "seed": config.run.seed,
            "rollout": [settings.max_turns, settings.temperature, settings.top_p, settings.max_new_tokens],
            "episodes": [[e.id, e.instruction] for e in episodes]}
    return fingerprint(what)


__all__ = ["SELECTED_FILE", "rates_text", "select_tasks", "selection_episodes", "selection_fingerprint",
           "success_counts"]
