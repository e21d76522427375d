"""What stage 3 measures, kept apart from what it computes: per-episode rates of played trajectories, and a rollout's
figures (rewards, spread, samples) for the run's metrics."""

from __future__ import annotations

from typing import Sequence

import torch

from mobile_r1.core.verdict import INQUIRY_OUTCOMES, EpisodeVerdict
from mobile_r1.train.grpo import Sample
from mobile_r1.train.rollout import Trajectory, self_corrections


def episode_metrics(trajectories: Sequence[Trajectory], verdicts: Sequence[EpisodeVerdict], prefix: str = "") -> dict[str, float]:
    """Success rate, mean score, inquiry outcome counts, safety violations, lengths, self-corrections, format."""
    n = max(len(verdicts), 1)
    steps = sum(t.length for t in trajectories)
    out = {
        "success_rate": sum(v.success for v in verdicts) / n,
        "score_mean": sum(v.score or 0.0 for v in verdicts) / n,
        "safety_violations": float(sum(v.safety_violation for v in verdicts)),
        "episode_length": steps / n,
        "self_corrections": sum(self_corrections(t.turns) for t in trajectories) / n,
        "format_valid": sum(turn.format_reward == 1.0 for t in trajectories for turn in t.turns) / max(steps, 1),
        "user_replies": float(sum(turn.user_reply is not None for t in trajectories for turn in t.turns)),
    }
    for outcome in INQUIRY_OUTCOMES:
        out[f"inquiry_{outcome}"] = float(sum(v.inquiry == outcome for v in verdicts))
    return {prefix + k: v for k, v in out.items()}


def rollout_metrics(played: Sequence[Trajectory], verdicts: Sequence[EpisodeVerdict], played_rewards: Sequence[float],
                    outcomes: Sequence[float], trained_rewards: Sequence[float], samples: Sequence[Sample],
                    group_size: int, groups_played: int, expert: bool) -> dict[str, float]:
    """A stage-3 rollout's metrics. `played` are every trajectory played (their `verdicts`, rewards and outcome terms);
    the episode rates and reward figures describe the sampled ones (not the expert's with `expert`), the spread every
    group played; `trained_rewards` and `samples` are what the update learns from (with dynamic sampling, fewer
    groups than were played)."""
    g = group_size
    sampled = [(t, v) for t, v in zip(played, verdicts) if not t.scripted]
    metrics = episode_metrics([t for t, _ in sampled], [v for _, v in sampled])
    r = torch.tensor(trained_rewards) if trained_rewards else torch.zeros(0)
    all_rewards = torch.tensor(played_rewards)
    sampled_rewards = all_rewards[[not t.scripted for t in played]]
    outcome_groups = torch.tensor(outcomes).view(-1, g)
    if expert:
        experts = [v for t, v in zip(played, verdicts) if t.scripted]
        metrics["expert_success_rate"] = sum(v.success for v in experts) / max(len(experts), 1)
    metrics.update(
        reward_mean=float(sampled_rewards.mean()),
        reward_std=float(sampled_rewards.std()) if len(sampled_rewards) > 1 else 0.0,
        zero_std_groups=float((all_rewards.view(-1, g).std(dim=1) < 1e-6).float().mean()) if g > 1 else 1.0,
        no_outcome_spread=float((outcome_groups.max(dim=1).values == outcome_groups.min(dim=1).values).float().mean()),
        groups_trained=float(len(trained_rewards) // g),
        groups_played=float(groups_played),
        samples=float(len(samples)),
        completion_length=sum(len(s.completion_ids) for s in samples) / max(len(samples), 1),
        advantage_abs_mean=sum(abs(s.advantage) for s in samples) / max(len(samples), 1),
        trained_reward_mean=float(r.mean()) if len(r) else 0.0,
    )
    return metrics


__all__ = ["episode_metrics", "rollout_metrics"]
