"""Task episodes played outside stage 3's updates: greedy play of held-out episodes at each evaluation, and the
starting model's sampled success that `task_grpo.select` chooses its tasks by. Both play as rollouts play
(`train.rollout`), one rollout per episode."""

from __future__ import annotations

from typing import Callable, Sequence

import torch
from accelerate import Accelerator
from accelerate.utils import gather_object

from mobile_r1.agents.base import ModelView
from mobile_r1.env import Backend, EpisodeRef
from mobile_r1.models.policy import Policy
from mobile_r1.train.rollout import RolloutSettings, Sampler, close_all, rollout, start_groups
from mobile_r1.train.task_metrics import episode_metrics


@torch.no_grad()
def evaluate_tasks(policy: Policy, view: ModelView, backend: Backend, episodes: Sequence[EpisodeRef],
                   settings: RolloutSettings, sampler: Sampler | None = None) -> dict[str, float]:
    """Greedy play of held-out task episodes (one rollout each), judged: eval_success_rate, eval_score_mean, ..."""
    if not episodes:
        return {}
    greedy = RolloutSettings(settings.max_turns, 0.0, 1.0, settings.max_new_tokens, settings.render)
    trajectories = start_groups(backend, episodes, 1, greedy)
    try:
        rollout(policy, view, trajectories, greedy, sampler)
        verdicts = [t.judge().verdict for t in trajectories]
    finally:
        close_all(trajectories)
    out = episode_metrics(trajectories, verdicts, prefix="eval_")
    out["eval_isr"] = sum(v.inquiry in ("asked", "not_needed") for v in verdicts) / len(verdicts)
    return out


@torch.no_grad()
def sampled_success(policy: Policy, view: ModelView, backend: Backend, episodes: Sequence[EpisodeRef],
                    settings: RolloutSettings, accelerator: Accelerator, sampler: Sampler | None = None, chunk: int = 16,
                    progress: Callable[[int, int], None] | None = None) -> dict[str, tuple[int, int]]:
    """Each episode played once with `settings` (sampled as a rollout samples, or greedily at temperature 0) and
    judged: (succeeded, played) per task in the order the tasks first appear. Each process plays its share of the
    episodes, `chunk` at a time; all get the whole answer."""
    rank, world = accelerator.process_index, accelerator.num_processes
    mine = list(episodes)[rank::world]
    results: list[tuple[str, bool]] = []
    for start in range(0, len(mine), chunk):
        trajectories = start_groups(backend, mine[start : start + chunk], 1, settings)
        try:
            rollout(policy, view, trajectories, settings, sampler)
            results += [(t.episode.task, t.judge().verdict.success) for t in trajectories]
        finally:
            close_all(trajectories)
        if progress is not None:
            progress(min(start + chunk, len(mine)), len(mine))
    if world > 1:
        results = gather_object(results)
    counts = {task: [0, 0] for task in dict.fromkeys(e.task for e in episodes)}
    for task, success in results:
        counts[task][0] += int(success)
        counts[task][1] += 1
    return {task: (won, played) for task, (won, played) in counts.items()}


__all__ = ["evaluate_tasks", "sampled_success"]
