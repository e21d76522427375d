"""Stage 3's advantages: the group-normalised advantage of each trajectory, GiGPO's step-level term, loss weights.

    A = (R - mean_group) / max(std_group, std_floor)        on every step of a trajectory (or the batch std / none)
      + w * GiGPO step term                                 among the group's steps that act from the same state_key:
                                                            discounted return minus the anchor group's (weighted) mean

With `weighting: trajectory` each trajectory's tokens share a total loss weight of 1, so every trajectory counts the
same however long it ran, and the advantages, weighted as the loss weights them, sum to zero in every group
(`weighting: token` weighs every token alike: long trajectories dominate).
"""

from __future__ import annotations

from collections import defaultdict
from typing import Literal, Sequence

import torch

from mobile_r1.train.grpo import STD_EPS, ScaleRewards, group_advantages
from mobile_r1.train.rollout import Trajectory

Weighting = Literal["trajectory", "token"]


def step_rewards(format_rewards: Sequence[float], outcome: float, format_weight: float) -> list[float]:
    """Per-step rewards for GiGPO's step-level returns: a step whose output broke the format pays its own penalty
    (`format_weight` x (f - 1) / 2: 0 for a valid step, -w/2 for a broken format, -w for no action), and the last step
    earns the outcome (success 0/1, or score / 4). Trajectory-level terms (inquiry, safety, the mean format reward)
    stay in the episode-level advantage: paid at the last step and discounted, they would favour short episodes."""
    n = len(format_rewards)
    if n == 0:
        return []
    out = [format_weight * (f - 1.0) / 2.0 for f in format_rewards]
    out[-1] += outcome
    return out


def discounted_returns(rewards: Sequence[float], gamma: float) -> list[float]:
    """G_t = r_t + gamma * G_(t+1)."""
    out = [0.0] * len(rewards)
    running = 0.0
    for t in range(len(rewards) - 1, -1, -1):
        running = rewards[t] + gamma * running
        out[t] = running
    return out


def scaled(centred: torch.Tensor, std: torch.Tensor, floor: float) -> torch.Tensor:
    """`centred` divided by the std, never by less than `floor` (with floor 0: std + 1e-4, as TRL divides)."""
    return centred / (std.clamp(min=floor) if floor > 0 else std + STD_EPS)


def episode_advantages(rewards: Sequence[float], group_size: int, scale: ScaleRewards = "group",
                       std_floor: float = 0.0) -> list[float]:
    """A = (R - mean of its group) / max(std, std_floor): the group's std, the batch's, or none (`scale`)."""
    if not rewards:  # dynamic sampling kept no group this step
        return []
    if std_floor <= 0:
        return group_advantages(torch.tensor(rewards, dtype=torch.float32), group_size, scale).tolist()
    r = torch.tensor(rewards, dtype=torch.float64)
    grouped = r.view(-1, group_size)
    centred = (grouped - grouped.mean(dim=1, keepdim=True)).view(-1)
    if scale == "none":
        return centred.tolist()
    if scale == "batch":
        std = r.std().expand_as(r) if r.numel() > 1 else torch.zeros_like(r)
    else:
        std = grouped.std(dim=1).repeat_interleave(group_size) if group_size > 1 else torch.zeros_like(r)
    return scaled(centred, std, std_floor).tolist()


def gigpo_step_advantages(state_keys: Sequence[Sequence[str]], rewards: Sequence[Sequence[float]],
                          gamma: float = 0.95, scale: ScaleRewards = "group", std_floor: float = 0.0,
                          weights: Sequence[Sequence[float]] | None = None) -> list[list[float]]:
    """GiGPO's step-level advantages for one group of trajectories, from their per-step rewards.

    Steps (of any trajectory in the group, repeated visits included) that act from the same state_key form an
    anchor group; each step's advantage is its discounted return minus the anchor group's mean (weighted by
    `weights`, each step's weight in the loss, so that the weighted advantages of an anchor group sum to zero),
    divided by the anchor group's std (at least `std_floor`) unless `scale` is "none". A state seen only once gets 0.
    One list per trajectory.
    """
    returns = [discounted_returns(r, gamma) for r in rewards]
    anchors: dict[str, list[tuple[int, int]]] = defaultdict(list)
    for i, keys in enumerate(state_keys):
        for t, key in enumerate(keys):
            anchors[key].append((i, t))
    out = [[0.0] * len(keys) for keys in state_keys]
    for members in anchors.values():
        if len(members) < 2:
            continue
        values = torch.tensor([returns[i][t] for i, t in members], dtype=torch.float64)
        if weights is None:
            centred = values - values.mean()
        else:
            w = torch.tensor([weights[i][t] for i, t in members], dtype=torch.float64)
            centred = values - (w * values).sum() / w.sum().clamp(min=1e-12)
        if scale != "none":
            centred = scaled(centred, values.std(), std_floor)
        for (i, t), a in zip(members, centred.tolist()):
            out[i][t] = a
    return out


def loss_weights(trajectories: Sequence[Trajectory], weighting: Weighting) -> list[list[float]]:
    """Each step's sample weight: "trajectory" spreads a weight of 1 over a trajectory's completion tokens (every step
    of it gets 1 / its token count), "token" weighs every sample 1."""
    out = []
    for t in trajectories:
        tokens = sum(len(turn.completion_ids) for turn in t.turns)
        w = 1.0 / tokens if weighting == "trajectory" and tokens else 1.0
        out.append([w] * t.length)
    return out


def trajectory_advantages(trajectories: Sequence[Trajectory], rewards: Sequence[float], group_size: int,
                          scale: ScaleRewards, gigpo: bool = False, gamma: float = 0.95,
                          gigpo_weight: float = 1.0, format_weight: float = 0.0, std_floor: float = 0.0,
                          outcomes: Sequence[float] | None = None,
                          weights: Sequence[Sequence[float]] | None = None) -> list[list[float]]:
    """Per-step advantages: the trajectory's group-normalised advantage on every step (+ GiGPO's step term over the
    `step_rewards` of each trajectory, with `outcomes` their outcome terms; `weights` the steps' sample weights)."""
    episode_adv = episode_advantages(rewards, group_size, scale, std_floor)
    out = [[a] * t.length for a, t in zip(episode_adv, trajectories)]
    if gigpo:
        outcomes = list(outcomes) if outcomes is not None else list(rewards)
        for start in range(0, len(trajectories), group_size):
            group = trajectories[start : start + group_size]
            keys = [[turn.state_key for turn in t.turns] for t in group]
            per_step = [step_rewards([turn.format_reward for turn in t.turns], o, format_weight)
                        for t, o in zip(group, outcomes[start : start + group_size])]
            step_weights = None
            if weights is not None:
                step_weights = [[w * len(turn.completion_ids) for w, turn in zip(weights[start + k], t.turns)]
                                for k, t in enumerate(group)]
            step_adv = gigpo_step_advantages(keys, per_step, gamma, scale, std_floor, step_weights)
            for offset, values in enumerate(step_adv):
                out[start + offset] = [a + gigpo_weight * s for a, s in zip(out[start + offset], values)]
    return out


__all__ = ["Weighting", "discounted_returns", "episode_advantages", "gigpo_step_advantages", "loss_weights", "scaled",
           "step_rewards", "trajectory_advantages"]
