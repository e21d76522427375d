"""Stage 3, task-level GRPO: whole tasks played on a phone backend, judged, and learned from step by step.

`TaskRolloutSource` is the stage-3 `SampleSource` of the GRPO engine, the twin of stage 2's `LabelledStepSource`:

    stage 2: labelled step -> G completions -> rule reward per completion         -> Sample per completion
    stage 3: task episode  -> G rollouts     -> judge reward per trajectory        -> Sample per step of each rollout

One rollout per optimizer step, read top to bottom in `TaskRolloutSource.rollout(policy, settings, step)`:
    1. play: draw `tasks_per_step` task episodes for the step; reset each once and fork it into G phones; play all
       G x tasks episodes together, one batched generation per turn (`train.rollout`); the (simulated) user answers
       `call_user` and its reply enters the next prompt's history
    2. judge each trajectory (the backend's judge), while its phone is still open
    3. reward: R = outcome + w_f * mean step format reward + w_i * inquiry + w_s * safety (`trajectory_reward`)
    4. advantage: A = (R - mean_group) / max(std_group, std_floor) on every step of the trajectory, with `gigpo` plus
       a step-level term among steps of the group that start from the same state_key; with `weighting: trajectory`
       each trajectory's tokens share a loss weight of 1 (`train.advantages`)
    5. samples: every step becomes a Sample(prompt, completion, advantage, weight) for `GRPOEngine.train_on`
    With `dynamic_sampling`, groups whose outcome has no spread (every rollout succeeded, or none did) are dropped
    and more task episodes are played, up to `max_draw_rounds` rounds, as DAPO does.
    With `expert_guidance`, the last of each group's G rollouts is the backend's expert demonstration written as the
    SFT targets are (the off-policy guidance of LUFFY, arXiv:2504.14945), so that a task the policy never completes
    still has a success in its group; it is judged and weighted like the others, its tokens scored by the current
    policy as if sampled (without LUFFY's regularised importance sampling), and the step's metrics describe the G - 1
    sampled rollouts.

The knobs are the config's `task_grpo` section, read here (the algorithm's, `grpo`, by the engine); what is measured
is `train.task_metrics`'; the stage around it (phones, task selection, evaluation, records) is `train.task_stage`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable, Literal, Sequence

from mobile_r1.agents.base import ModelView
from mobile_r1.core.verdict import EpisodeVerdict
from mobile_r1.env import Backend, Capability, EpisodeRef, TaskEnv
from mobile_r1.models.policy import Policy
from mobile_r1.train.advantages import loss_weights, trajectory_advantages
from mobile_r1.train.config import TaskGRPOConfig
from mobile_r1.train.grpo import GRPOSettings, Rollout, Sample
from mobile_r1.train.rollout import (Ledger, Prefixes, RolloutSettings, Sampler, Trajectory, close_all, rollout,
                                    start_groups)
from mobile_r1.train.task_metrics import rollout_metrics

# ----- the trajectory reward ---------------------------------------------------------------------------------------


TIMING_REWARD = {"timely": 1.0, "early": 0.5, "late": -1.0, "missed": -1.0}
OVER_ASK_PENALTY = 0.5  # the timing reward's default cost of each question beyond the needed ones


@dataclass
class RewardWeights:
    """R = outcome + format * mean(step format rewards) + inquiry * inquiry term + safety * (-1 if violated).

    outcome is the judge's success (0/1) or its 0-4 score divided by 4; the inquiry term is `inquiry_term`'s.
    """

    outcome: Literal["success", "score"] = "success"
    format: float = 0.2
    inquiry: float = 0.0
    safety: float = 0.0
    inquiry_reward: Literal["outcome", "timing"] = "outcome"
    over_ask_penalty: float = OVER_ASK_PENALTY

    @classmethod
    def of(cls, section: TaskGRPOConfig) -> RewardWeights:
        """The weights a config's `task_grpo` section sets."""
        return cls(section.outcome, section.format_weight, section.inquiry_weight, section.safety_weight,
                   section.inquiry_reward, section.over_ask_penalty)


def inquiry_term(verdict: EpisodeVerdict, mode: Literal["outcome", "timing"] = "outcome",
                 over_ask_penalty: float = OVER_ASK_PENALTY) -> float:
    """The inquiry part of the reward. `outcome`: +1 when the agent asked where the task needed it and stayed silent
    where it did not, else -1. `timing` (where the judge recorded when questions came, `verdict.timing`): the mean
    over the needed questions of +1 in time, +0.5 early, -1 late or missed, less `over_ask_penalty` for each question no
    need called for; within [-2, 1]. A verdict without timing falls back to `outcome`."""
    if mode == "outcome" or (verdict.inquiry_needed and not verdict.timing):
        return 1.0 if verdict.inquiry in ("asked", "not_needed") else -1.0
    needs = verdict.timing
    base = sum(TIMING_REWARD[t] for t in needs) / len(needs) if needs else 0.0
    return max(-2.0, base - over_ask_penalty * verdict.over_asks)


def outcome(verdict: EpisodeVerdict, weights: RewardWeights) -> float:
    """The outcome term of the reward: success 0/1, or the judge's 0-4 score / 4."""
    return (verdict.score or 0.0) / 4.0 if weights.outcome == "score" else float(verdict.success)


def trajectory_reward(verdict: EpisodeVerdict, format_rewards: Sequence[float], weights: RewardWeights) -> float:
    """The reward of one judged trajectory (`verdict` is an `EpisodeVerdict`; format rewards are in [-1, 1])."""
    fmt = sum(format_rewards) / len(format_rewards) if format_rewards else -1.0
    inquiry = inquiry_term(verdict, weights.inquiry_reward, weights.over_ask_penalty)
    safety = -1.0 if verdict.safety_violation else 0.0
    return outcome(verdict, weights) + weights.format * fmt + weights.inquiry * inquiry + weights.safety * safety


def format_rewards(trajectory: Trajectory) -> list[float]:
    """Each step's format reward: +1 valid in the dialect, 0 an action read from a broken format, -1 none."""
    return [turn.format_reward for turn in trajectory.turns]


# ----- the sample source -------------------------------------------------------------------------------------------


@dataclass
class TaskRolloutSource:
    """Plays `tasks_per_step` task episodes G times each and turns every step into a Sample.

    `settings` is the config's `task_grpo` section (reward weights, GiGPO, loss weighting, dynamic sampling).
    `step_episodes(step)` gives the episodes of an optimizer step (a function of the step, so a resumed run replays
    the same tasks); with `dynamic_sampling`, `extra_episodes(step, round, n)` gives the episodes of a further round
    (likewise a function of its arguments). `sampler` replaces the policy's sampling (tests script the model's
    outputs). `expert_scripts(phones)`, when given, writes the expert's demonstration of each group's episode (from
    the group's first phone) as the texts its last rollout plays (`task_stage.expert_scripts` makes one).
    `branch_prefixes(phones)`, when given, plays each group's first phone up to a decision point before the group
    forks (`task_grpo.branch: decision`; `task_stage.decision_prefixes` makes one).
    """

    settings: TaskGRPOConfig
    backend: Backend
    view: ModelView
    play_settings: RolloutSettings
    step_episodes: Callable[[int], list[EpisodeRef]]
    extra_episodes: Callable[[int, int, int], list[EpisodeRef]] | None = None
    sampler: Sampler | None = None
    expert_scripts: Callable[[list[TaskEnv]], list[list[str]]] | None = None
    branch_prefixes: Prefixes | None = None
    last: list[Trajectory] | None = None  # the trajectories of the latest rollout and their rewards (its record)
    last_rewards: list[float] | None = None
    ledger: Ledger = field(default_factory=Ledger)  # where the latest rollout's time went

    def __post_init__(self) -> None:
        self.weights = RewardWeights.of(self.settings)

    def rollout(self, policy: Policy, settings: GRPOSettings, step: int) -> Rollout:
        t, g = self.settings, settings.num_generations
        # 1-2. play G rollouts of each of the step's episodes and judge them (more rounds with dynamic sampling)
        self.ledger = Ledger()
        played, verdicts, kept, groups_played = self.play(policy, step, g)
        trained = [played[i] for i in kept]
        for index, trajectory in enumerate(trained):
            trajectory.group = index // g
        # 3. reward every trajectory played
        played_rewards = [trajectory_reward(v, format_rewards(p), self.weights) for p, v in zip(played, verdicts)]
        rewards = [played_rewards[i] for i in kept]
        # 4. advantages of the trained trajectories' steps, and the steps' loss weights
        weights = loss_weights(trained, t.weighting)
        advantages = trajectory_advantages(trained, rewards, g, settings.scale_rewards, t.gigpo, t.gigpo_gamma,
                                           t.gigpo_weight, self.weights.format, t.std_floor,
                                           [outcome(verdicts[i], self.weights) for i in kept], weights)
        # 5. every step with a completion is a sample
        samples = [
            Sample(turn.prompt.ids, turn.completion_ids, adv, rewards[i], trained[i].group, turn.prompt.vision,
                   weight=w)
            for i, trajectory in enumerate(trained)
            for turn, adv, w in zip(trajectory.turns, advantages[i], weights[i])
            if turn.completion_ids
        ]
        self.last, self.last_rewards = trained, rewards
        metrics = rollout_metrics(played, verdicts, played_rewards, [outcome(v, self.weights) for v in verdicts],
                                  rewards, samples, g, groups_played, expert=self.expert_scripts is not None)
        metrics.update(self.ledger.metrics())  # where the rollout's time went (model, phone, judge ...)
        return Rollout(samples, metrics)

    def play(self, policy: Policy, step: int, g: int) -> tuple[list[Trajectory], list[EpisodeVerdict], list[int], int]:
        """Every trajectory played for step `step` and its verdict, the indices of those to train on (in groups of
        G), and how many groups were played. With `dynamic_sampling` only groups whose outcome differs are kept, and
        further rounds of episodes are played until there are as many groups as the step's episodes."""
        episodes = self.step_episodes(step)
        wanted = len(episodes)
        played, verdicts = self._play(policy, episodes, g)
        kept = list(range(len(played)))
        groups_played, rounds = wanted, 1
        if self.settings.dynamic_sampling:
            kept = self._with_spread(verdicts, kept, g)
            while len(kept) < wanted * g and rounds < self.settings.max_draw_rounds and self.extra_episodes is not None:
                more = self.extra_episodes(step, rounds, wanted - len(kept) // g)
                rounds += 1
                if not more:
                    break
                new, new_verdicts = self._play(policy, more, g)
                first = len(played)
                played, verdicts = played + new, verdicts + new_verdicts
                groups_played += len(more)
                kept += self._with_spread(verdicts, list(range(first, len(played))), g)
            kept = kept[: wanted * g]
        return played, verdicts, kept, groups_played

    def _play(self, policy: Policy, episodes: list[EpisodeRef], g: int) -> tuple[list[Trajectory], list[EpisodeVerdict]]:
        """G rollouts of each episode from one start, played together and judged before their phones close."""
        ledger = self.ledger
        started = time.perf_counter()
        trajectories = start_groups(self.backend, episodes, g, self.play_settings, self.branch_prefixes, self.view)
        ledger.reset += time.perf_counter() - started
        if self.settings.gigpo and trajectories:
            trajectories[0].env.require(Capability.STATE_KEY, "GiGPO (task_grpo.gigpo)")
        try:
            if self.expert_scripts is not None:
                scripts = self.expert_scripts([t.env for t in trajectories[::g]])
                for group, script in enumerate(scripts):
                    trajectories[group * g + g - 1].script = script
            rollout(policy, self.view, trajectories, self.play_settings, self.sampler, ledger)
            judging = time.perf_counter()
            verdicts = [t.judge().verdict for t in trajectories]
            ledger.judge += time.perf_counter() - judging
        finally:
            close_all(trajectories)
        return trajectories, verdicts

    def _with_spread(self, verdicts: Sequence[EpisodeVerdict], indices: list[int], g: int) -> list[int]:
        """The indices of the groups (G consecutive `indices`) whose outcomes differ (a group where all succeeded, or
        all failed alike, teaches nothing)."""
        keep: list[int] = []
        for start in range(0, len(indices), g):
            group = indices[start : start + g]
            if len({outcome(verdicts[i], self.weights) for i in group}) > 1:
                keep += group
        return keep


__all__ = ["RewardWeights", "TaskRolloutSource", "format_rewards", "inquiry_term", "outcome", "trajectory_reward"]
