"""Stage 3, task-level GRPO: whole tasks played on a phone backend, judged, and learned from step by step.

`TaskRolloutSource` is the stage-3 `SampleSource` of the GRPO engine, the twin of stage 2's `LabelledStepSource`:

    stage 2: labelled step -> G completions -> rule reward per completion         -> Sample per completion
    stage 3: task episode  -> G rollouts     -> judge reward per trajectory        -> Sample per step of each rollout

One rollout per optimizer step:
    1. draw `tasks_per_step` task episodes; reset each once and fork it into G phones (`rollout.start_groups`)
    2. play all G x tasks episodes together, one batched generation per turn (`rollout.rollout`); the (simulated)
       user answers `call_user` and its reply enters the next prompt's history
    3. judge each trajectory (the backend's judge): R = outcome + w_f * mean step format reward + w_i * inquiry
       + w_s * safety
    4. A = (R - mean_group) / max(std_group, std_floor) (or the batch std / no scaling), given to every step of the
       trajectory; with `gigpo`, plus a step-level advantage among steps of the group that start from the same
       state_key (discounted returns of per-step rewards: a format penalty on the step that broke the format, the
       outcome on the last step)
    5. every step becomes a Sample(prompt, completion, advantage, weight) for `GRPOEngine.train_on`; with
       `weighting: trajectory` each trajectory's tokens share a total loss weight of 1, so every trajectory counts
       the same however long it ran, and the advantages, weighted as the loss weights them, sum to zero in every
       group (`weighting: token` weighs every token alike: long trajectories dominate)
    With `dynamic_sampling`, groups whose outcome has no spread (every rollout succeeded, or none did) are dropped
    and more task episodes are played, up to `max_draw_rounds` rounds, as DAPO does.
    With `expert_guidance`, the last of each group's G rollouts is the backend's expert demonstration written as the
    SFT targets are (the off-policy guidance of LUFFY, arXiv:2504.14945), so that a task the policy never completes
    still has a success in its group; it is judged and weighted like the others, its tokens scored by the current
    policy as if sampled (without LUFFY's regularised importance sampling), and the step's metrics describe the G - 1
    sampled rollouts.
"""

from __future__ import annotations

import json
import random
from collections import defaultdict
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable, Literal, Sequence

import torch

from mobile_r1.agents.base import ModelView
from mobile_r1.core.verdict import INQUIRY_OUTCOMES, EpisodeVerdict
from mobile_r1.core.errors import DataError, InfraError
from mobile_r1.env import Backend, Capability, EpisodeRef, TaskEnv, expert_demos
from mobile_r1.env.pools import make_pool
from mobile_r1.models.generation import Sampling
from mobile_r1.models.policy import Policy
from mobile_r1.train.action_grpo import grpo_settings
from mobile_r1.train.config import TrainConfig
from mobile_r1.train.data import PromptSettings, batch_positions, model_view, prompt_settings, step_examples
from mobile_r1.train.grpo import STD_EPS, GRPOEngine, GRPOSettings, Rollout, Sample, ScaleRewards, group_advantages
from mobile_r1.train.rollout import RolloutSettings, Sampler, Trajectory, close_all, rollout, self_corrections, start_groups
from mobile_r1.train.server_generation import ServerGeneration
from mobile_r1.train.stage import StageRunner, fingerprint, read_start_record, write_start_record

# ----- 3. the trajectory reward ----------------------------------------------------------------------------------------


@dataclass
class RewardWeights:
    """R = outcome + format * mean(step format rewards) + inquiry * (+1 right / -1 wrong) + safety * (-1 if violated).

    outcome is the judge's success (0/1) or its 0-4 score divided by 4.
    """

    outcome: Literal["success", "score"] = "success"
    format: float = 0.2
    inquiry: float = 0.0
    safety: float = 0.0


def trajectory_reward(verdict: EpisodeVerdict, format_rewards: Sequence[float], weights: RewardWeights) -> float:
    """The reward of one judged trajectory (`verdict` is an `EpisodeVerdict`; format rewards are in [-1, 1])."""
    fmt = sum(format_rewards) / len(format_rewards) if format_rewards else -1.0
    inquiry = 1.0 if verdict.inquiry in ("asked", "not_needed") else -1.0
    safety = -1.0 if verdict.safety_violation else 0.0
    return outcome(verdict, weights) + weights.format * fmt + weights.inquiry * inquiry + weights.safety * safety


# ----- 4. advantages ---------------------------------------------------------------------------------------------------

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


def outcome(verdict: EpisodeVerdict, weights: RewardWeights) -> float:
    """The outcome term of the reward: success 0/1, or the judge's 0-4 score / 4."""
    return (verdict.score or 0.0) / 4.0 if weights.outcome == "score" else float(verdict.success)


# ----- the sample source -----------------------------------------------------------------------------------------------


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


@dataclass
class TaskRolloutSource:
    """Plays `tasks_per_step` task episodes G times each and turns every step into a Sample.

    `step_episodes(step)` gives the episodes of an optimizer step (a function of the step, so a resumed run
    replays the same tasks); with `dynamic_sampling`, `extra_episodes(step, round, n)` gives the episodes of a further
    round (likewise a function of its arguments). `sampler` replaces the policy's sampling (tests script the model's
    outputs). `expert_scripts(phones)`, when given, writes the expert's demonstration of each group's episode (from
    the group's first phone) as the texts its last rollout plays (the module's `expert_scripts` makes one).
    """

    backend: Backend
    view: ModelView
    rollout_settings: RolloutSettings
    weights: RewardWeights
    step_episodes: Callable[[int], list[EpisodeRef]]
    gigpo: bool = False
    gigpo_gamma: float = 0.95
    gigpo_weight: float = 1.0
    sampler: Sampler | None = None
    std_floor: float = 0.0
    weighting: Weighting = "token"
    dynamic_sampling: bool = False
    max_draw_rounds: int = 1
    extra_episodes: Callable[[int, int, int], list[EpisodeRef]] | None = None
    expert_scripts: Callable[[list[TaskEnv]], list[list[str]]] | None = None
    step: int = 0
    last: list[Trajectory] | None = None  # the trajectories of the latest rollout and their rewards (for inspection)
    last_rewards: list[float] | None = None

    def _play(self, policy: Policy, episodes: list[EpisodeRef], g: int) -> tuple[list[Trajectory], list[EpisodeVerdict]]:
        trajectories = start_groups(self.backend, episodes, g, self.rollout_settings)
        if self.gigpo and trajectories:
            trajectories[0].env.require(Capability.STATE_KEY, "GiGPO (task_grpo.gigpo)")
        try:
            if self.expert_scripts is not None:
                scripts = self.expert_scripts([t.env for t in trajectories[::g]])
                for group, script in enumerate(scripts):
                    trajectories[group * g + g - 1].script = script
            rollout(policy, self.view, trajectories, self.rollout_settings, self.sampler)
            verdicts = [t.judge().verdict for t in trajectories]
        finally:
            close_all(trajectories)
        return trajectories, verdicts

    def rollout(self, policy: Policy, settings: GRPOSettings) -> Rollout:
        g = settings.num_generations
        episodes = self.step_episodes(self.step)
        wanted = len(episodes)
        trajectories, verdicts = self._play(policy, episodes, g)
        played = list(trajectories)
        groups_played, rounds = wanted, 1
        if self.dynamic_sampling:
            trajectories, verdicts = self._with_spread(trajectories, verdicts, g)
            while len(trajectories) < wanted * g and rounds < self.max_draw_rounds and self.extra_episodes is not None:
                more = self.extra_episodes(self.step, rounds, wanted - len(trajectories) // g)
                rounds += 1
                if not more:
                    break
                new, new_verdicts = self._play(policy, more, g)
                played += new
                groups_played += len(more)
                new, new_verdicts = self._with_spread(new, new_verdicts, g)
                trajectories, verdicts = trajectories + new, verdicts + new_verdicts
            trajectories, verdicts = trajectories[: wanted * g], verdicts[: wanted * g]
        for index, t in enumerate(trajectories):
            t.group = index // g
        rewards = [trajectory_reward(v, [turn.format_reward for turn in t.turns], self.weights)
                   for v, t in zip(verdicts, trajectories)]
        weights = loss_weights(trajectories, self.weighting)
        advantages = trajectory_advantages(trajectories, rewards, g, settings.scale_rewards, self.gigpo,
                                           self.gigpo_gamma, self.gigpo_weight, self.weights.format, self.std_floor,
                                           [outcome(v, self.weights) for v in verdicts], weights)
        samples = [
            Sample(turn.prompt.ids, turn.completion_ids, adv, rewards[i], trajectories[i].group, turn.prompt.vision,
                   weight=w)
            for i, t in enumerate(trajectories)
            for turn, adv, w in zip(t.turns, advantages[i], weights[i])
            if turn.completion_ids
        ]
        self.last, self.last_rewards = trajectories, rewards
        all_verdicts = [t.judge().verdict for t in played]
        sampled = [(t, v) for t, v in zip(played, all_verdicts) if not t.scripted]
        metrics = episode_metrics([t for t, _ in sampled], [v for _, v in sampled])
        r = torch.tensor(rewards) if rewards else torch.zeros(0)
        played_rewards = torch.tensor([trajectory_reward(v, [turn.format_reward for turn in t.turns], self.weights)
                                       for v, t in zip(all_verdicts, played)])
        sampled_rewards = played_rewards[[not t.scripted for t in played]]
        outcomes = torch.tensor([outcome(v, self.weights) for v in all_verdicts]).view(-1, g)
        if self.expert_scripts is not None:
            experts = [v for t, v in zip(played, all_verdicts) if t.scripted]
            metrics["expert_success_rate"] = sum(v.success for v in experts) / max(len(experts), 1)
        metrics.update(
            reward_mean=float(sampled_rewards.mean()),
            reward_std=float(sampled_rewards.std()) if len(sampled_rewards) > 1 else 0.0,
            zero_std_groups=float((played_rewards.view(-1, g).std(dim=1) < 1e-6).float().mean()) if g > 1 else 1.0,
            no_outcome_spread=float((outcomes.max(dim=1).values == outcomes.min(dim=1).values).float().mean()),
            groups_trained=float(len(trajectories) // g),
            groups_played=float(groups_played),
            samples=float(len(samples)),
            completion_length=sum(len(s.completion_ids) for s in samples) / max(len(samples), 1),
            advantage_abs_mean=sum(abs(s.advantage) for s in samples) / max(len(samples), 1),
            trained_reward_mean=float(r.mean()) if len(r) else 0.0,
        )
        return Rollout(samples, metrics)

    def _with_spread(self, trajectories: list[Trajectory], verdicts: list[EpisodeVerdict],
                     g: int) -> tuple[list[Trajectory], list[EpisodeVerdict]]:
        """Only the groups whose outcomes differ (a group where all succeeded, or all failed alike, teaches nothing)."""
        keep_t: list[Trajectory] = []
        keep_v: list[EpisodeVerdict] = []
        for start in range(0, len(trajectories), g):
            group = verdicts[start : start + g]
            if len({outcome(v, self.weights) for v in group}) > 1:
                keep_t += trajectories[start : start + g]
                keep_v += group
        return keep_t, keep_v


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


def trajectory_records(trajectories: Sequence[Trajectory], rewards: Sequence[float], step: int) -> list[dict[str, Any]]:
    """One JSON-ready record per trajectory (what `trajectories.jsonl` in the run directory holds)."""
    out = []
    for t, reward in zip(trajectories, rewards):
        v = t.judge().verdict
        out.append({
            "step": step, "episode": t.episode.id, "group": t.group, "expert": t.scripted,
            "instruction": t.episode.instruction,
            "reward": reward, "success": v.success, "score": v.score, "inquiry": v.inquiry,
            "safety_violation": v.safety_violation, "reason": v.reason,
            "turns": [{"text": turn.text, "action": turn.action.to_arguments() if turn.action else None,
                       "format": turn.format_reward, "error": turn.error, "user_reply": turn.user_reply}
                      for turn in t.turns],
        })
    return out


@torch.no_grad()
def sampled_success(policy: Policy, view: ModelView, backend: Backend, episodes: Sequence[EpisodeRef],
                    settings: RolloutSettings, accelerator: Any, sampler: Sampler | None = None, chunk: int = 16,
                    progress: Callable[[int, int], None] | None = None) -> dict[str, tuple[int, int]]:
    """Each episode played once with `settings` (sampled as a rollout samples, or greedily at temperature 0) and
    judged: (succeeded, played) per task in the order the tasks first appear. Each process plays its share of the
    episodes, `chunk` at a time; all get the whole answer."""
    from accelerate.utils import gather_object

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


# ----- the stage runner ------------------------------------------------------------------------------------------------


def stage_backend(config: TrainConfig) -> Backend:
    """The phone backend stage 3 plays on (`task_grpo.env`; screenshots only for image observations), or with
    `task_grpo.ray` the Ray pool around it."""
    t = config.task_grpo
    options: dict[str, Any] = {"render": config.data.observation_mode == "image", "xml": False}
    return make_pool(t.env, t.ray, t.ray_workers, **options, **config.tasks.backend_options())


def expert_scripts(settings: PromptSettings) -> Callable[[list[TaskEnv]], list[list[str]]]:
    """Stage 3's `expert_guidance`: the expert's demonstration of each phone's episode (from its start, on a phone of
    its own), written step by step as the SFT data writes its targets (`train.data.step_examples`: the dialect, the
    frame and the thought style of `settings`). Only the targets are used, so no screenshot is drawn or read."""
    text_only = replace(settings, observation_mode="text")

    def scripts(phones: list[TaskEnv]) -> list[list[str]]:
        out = []
        for demo in expert_demos(phones):
            if isinstance(demo, InfraError):
                raise demo
            out.append([example.target for example in step_examples([demo.episode], text_only)])
        return out

    return scripts


def check_tasks(config: TrainConfig) -> None:
    """Fail early (before a model loads) on a backend, suite or task ids stage 3 cannot play."""
    t = config.task_grpo
    with stage_backend(config) as backend:
        episodes = backend.episodes(t.suite, "train", 1, config.run.seed, t.tasks)
        if t.expert_guidance and episodes:  # the rollouts' expert_demos would refuse too, but only after a model loads
            with backend.open(episodes[0]) as phone:
                phone.require(Capability.EXPERT, "task_grpo.expert_guidance")


class TaskGRPORunner(StageRunner):
    """Stage 3 for the run loop. One run-loop step = one rollout = `num_iterations` optimizer steps.

    With `generation.backend: server` (and no `sampler` given) the rollouts and the greedy evaluations sample through
    the server (`server_generation.ServerGeneration`), which gets the policy's adapter before the first rollout and
    after every step.
    """

    name = "task-grpo"

    def __init__(self, config: TrainConfig, policy: Policy, accelerator: Any, sampler: Sampler | None = None,
                 resume: bool = False) -> None:
        self.config = config
        self.policy = policy
        self.accelerator = accelerator
        self.settings = grpo_settings(config)
        self.updates_per_step = config.grpo.num_iterations
        t = config.task_grpo
        self.total_steps = min(t.steps, config.run.max_steps) if config.run.max_steps else t.steps
        self.view = model_view(config)
        self.rollout_settings = RolloutSettings(
            max_turns=t.max_turns,
            temperature=config.grpo.temperature,
            top_p=config.grpo.top_p,
            max_new_tokens=config.grpo.max_completion_length,
            render=config.data.observation_mode == "image",
        )
        self.generation: ServerGeneration | None = None
        self.eval_sampler = sampler
        if config.generation.backend == "server" and sampler is None:
            self.generation = ServerGeneration(config.generation, policy, Path(config.run.output_dir), accelerator)
            r = self.rollout_settings
            sampler = self.generation.sampler(Sampling(r.temperature, r.top_p, r.max_new_tokens))
            self.eval_sampler = self.generation.sampler(Sampling(0.0, 1.0, r.max_new_tokens))
        self.steps_done = 0
        seed = config.run.seed
        self.backend = stage_backend(config)
        self.train_episodes = self.backend.episodes(t.suite, "train", t.train_episodes, seed, t.tasks)
        tasks = list(t.tasks)
        if t.select is not None:  # the pool is drawn over every task first: in-distribution evaluation leaves it out
            tasks = self.select_tasks(sampler, resume)
            self.train_episodes = [e for e in self.train_episodes if e.task in tasks]
        self.eval_episodes = (self.backend.episodes(t.suite, t.eval_split, t.eval_episodes, seed, tasks)
                              if t.eval_episodes else [])
        rank, world = accelerator.process_index, accelerator.num_processes
        pool = self.train_episodes

        def episodes_of(step: int) -> list[EpisodeRef]:
            positions = batch_positions(step, t.tasks_per_step, len(pool), seed)
            return [pool[i] for i in positions[rank::world]]

        def extra_of(step: int, round: int, n: int) -> list[EpisodeRef]:
            """Further episodes for dynamic sampling: a seeded draw per (step, round), so a resumed run replays it."""
            rng = random.Random(f"{seed}:{step}:{round}:{rank}:extra")
            return [pool[rng.randrange(len(pool))] for _ in range(n)]

        self.source = TaskRolloutSource(
            self.backend,
            self.view,
            self.rollout_settings,
            RewardWeights(t.outcome, t.format_weight, t.inquiry_weight, t.safety_weight),
            episodes_of,
            t.gigpo,
            t.gigpo_gamma,
            t.gigpo_weight,
            sampler,
            std_floor=t.std_floor,
            weighting=t.weighting,
            dynamic_sampling=t.dynamic_sampling,
            max_draw_rounds=t.max_draw_rounds,
            extra_episodes=extra_of,
            expert_scripts=expert_scripts(prompt_settings(config, None)) if t.expert_guidance else None,
        )
        self.engine: GRPOEngine | None = None

    def select_tasks(self, sampler: Sampler | None, resume: bool) -> list[str]:
        """`task_grpo.select`: the tasks of the training pool whose sampled success by the starting model lies in
        [low, high]; the rates and the kept tasks are written to selected_tasks.json in the run folder. A resumed run
        reads its tasks back from that file when it was written for the same model, data and episodes
        (`fingerprint`); otherwise it plays them again from the starting weights, which it is given before its
        checkpoint is loaded."""
        from mobile_r1.train.run import console

        t, main = self.config.task_grpo, self.accelerator.is_main_process
        assert t.select is not None
        episodes = selection_episodes(self.train_episodes, t.select.episodes)
        path = Path(self.config.run.output_dir) / "selected_tasks.json"
        key = selection_fingerprint(self.config, episodes, self.rollout_settings)
        record = read_start_record(path, key, resume, self.accelerator)
        if record is not None:
            if main:
                console.print(f"task_grpo.select: training on the tasks kept in {path} (read back): "
                              f"{', '.join(record['selected']) or 'none'}", markup=False)
        else:
            if main:
                console.print(f"task_grpo.select: playing {len(episodes)} training episodes once each with the "
                              "starting model", markup=False)
            if self.generation is not None:
                self.generation.sync(0)

            def progress(done: int, total: int) -> None:
                if main:
                    console.print(f"task_grpo.select: {done}/{total} episodes played", markup=False)

            # as many episodes at a time as one rollout plays, so the selection needs no more memory than a step
            chunk = max(t.tasks_per_step * self.settings.num_generations, self.backend.remote_workers())
            counts = sampled_success(self.policy, self.view, self.backend, episodes, self.rollout_settings,
                                     self.accelerator, sampler, chunk, progress)
            s = t.select
            selected = [task for task, (won, played) in counts.items() if played and s.low <= won / played <= s.high]
            record = {"episodes_per_task": s.episodes, "low": s.low, "high": s.high, "greedy_high": s.greedy_high,
                      "success": success_counts(counts)}
            if main:
                console.print(f"task_grpo.select: sampled success {rates_text(record['success'])}; {len(selected)} in "
                              f"[{s.low:g}, {s.high:g}]: {', '.join(selected) or 'none'}", markup=False)
            if s.greedy_high is not None and selected:
                greedy_play = replace(self.rollout_settings, temperature=0.0, top_p=1.0)
                chosen = [e for e in episodes if e.task in selected]
                if main:
                    console.print(f"task_grpo.select: playing their {len(chosen)} episodes greedily", markup=False)
                greedy_counts = sampled_success(self.policy, self.view, self.backend, chosen, greedy_play,
                                                self.accelerator, self.eval_sampler, chunk)
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

    def attach(self, optimizer: torch.optim.Optimizer, scheduler: Any) -> None:
        self.engine = GRPOEngine(self.policy, self.settings, optimizer, scheduler, self.accelerator)

    def step(self, step: int) -> dict[str, float]:
        assert self.engine is not None
        self.source.step = step
        if self.generation is not None:
            self.generation.sync(step)  # the weights the rollout samples from (at the start, and after a resume)
        metrics = self.engine.step(self.source)
        self.steps_done = step + 1
        if self.generation is not None:
            self.generation.sync(self.steps_done)  # the updated adapter, served from now on
            metrics.update(self.generation.take_metrics())
        return metrics

    @property
    def has_eval(self) -> bool:
        return bool(self.eval_episodes)

    def evaluate(self) -> dict[str, float]:
        if self.generation is not None:
            self.generation.sync(self.steps_done)
        return evaluate_tasks(self.policy, self.view, self.backend, self.eval_episodes, self.rollout_settings,
                              self.eval_sampler)

    def record(self, run_dir: Path, step: int) -> None:
        """Append the latest rollout's trajectories to `trajectories.jsonl`."""
        if self.source.last is not None:
            _append_jsonl(run_dir / "trajectories.jsonl",
                          trajectory_records(self.source.last, self.source.last_rewards or [], step))

    def truncate(self, run_dir: Path, step: int) -> None:
        _truncate_jsonl(run_dir / "trajectories.jsonl", step)

    def close(self) -> None:
        self.backend.close()
        if self.generation is not None:
            self.generation.close()


def _truncate_jsonl(path: Path, step: int) -> None:
    """Drop trajectory records past `step` (a resumed run plays those steps again)."""
    if path.is_file():
        lines = [ln for ln in path.read_text(encoding="utf-8").splitlines() if ln.strip()]
        path.write_text("".join(ln + "\n" for ln in lines if json.loads(ln)["step"] <= step), encoding="utf-8")


def _append_jsonl(path: Path, records: list[dict[str, Any]]) -> None:
    with open(path, "a", encoding="utf-8") as f:
        for record in records:
            f.write(json.dumps(record) + "\n")


__all__ = [
    "RewardWeights",
    "episode_advantages",
    "loss_weights",
    "outcome",
    "TaskGRPORunner",
    "TaskRolloutSource",
    "check_tasks",
    "evaluate_tasks",
    "expert_scripts",
    "sampled_success",
    "selection_episodes",
    "gigpo_step_advantages",
    "discounted_returns",
    "stage_backend",
    "step_rewards",
    "trajectory_advantages",
    "trajectory_reward",
]
