"""Stage 3, task-level GRPO: whole tasks played in the simulated phone, judged, and learned from step by step.

`TaskRolloutSource` is the stage-3 `SampleSource` of the GRPO engine, the twin of stage 2's `LabelledStepSource`:

    stage 2: labelled step -> G completions -> rule reward per completion         -> Sample per completion
    stage 3: task episode  -> G rollouts     -> judge reward per trajectory        -> Sample per step of each rollout

One rollout per optimizer step:
    1. draw `tasks_per_step` task episodes; reset each once, snapshot, restore into G envs (`rollout.start_groups`)
    2. play all G x tasks episodes together, one batched generation per turn (`rollout.rollout`); the simulated
       user answers `call_user` and its reply enters the next prompt's history
    3. judge each trajectory: R = outcome + w_f * mean step format reward + w_i * inquiry + w_s * safety
    4. A = (R - mean_group) / (std + 1e-4) (or batch std / none), given to every step of the trajectory;
       with `gigpo`, plus a step-level advantage among steps of the group that start from the same state_key
       (discounted returns of the step rewards: each step's share of the format term, the rest at the end)
    5. every step becomes a Sample(prompt, completion, advantage) for `GRPOEngine.train_on`
"""

from __future__ import annotations

import json
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Literal, Sequence

import torch

from mobile_r1.agents.base import ModelView
from mobile_r1.core.errors import ConfigError
from mobile_r1.eval.metrics import INQUIRY_OUTCOMES
from mobile_r1.models.policy import Policy
from mobile_r1.train.action_grpo import grpo_settings
from mobile_r1.train.config import TrainConfig, load_config
from mobile_r1.train.grpo import STD_EPS, GRPOEngine, GRPOSettings, Rollout, Sample, ScaleRewards, group_advantages
from mobile_r1.train.rollout import (
    RolloutSettings,
    Sampler,
    Trajectory,
    rollout,
    self_corrections,
    start_groups,
    task_episodes,
)
from mobile_r1.train.run import model_view

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


def trajectory_reward(verdict: Any, format_rewards: Sequence[float], weights: RewardWeights) -> float:
    """The reward of one judged trajectory (`verdict` is an `EpisodeVerdict`; format rewards are in [-1, 1])."""
    if weights.outcome == "score":
        outcome = (verdict.score or 0.0) / 4.0
    else:
        outcome = 1.0 if verdict.success else 0.0
    fmt = sum(format_rewards) / len(format_rewards) if format_rewards else -1.0
    inquiry = 1.0 if verdict.inquiry in ("asked", "not_needed") else -1.0
    safety = -1.0 if verdict.safety_violation else 0.0
    return outcome + weights.format * fmt + weights.inquiry * inquiry + weights.safety * safety


# ----- 4. advantages ---------------------------------------------------------------------------------------------------


def step_rewards(format_rewards: Sequence[float], reward: float, format_weight: float) -> list[float]:
    """The trajectory reward spread over its steps: each step earns its share of the format term
    (`format_weight` x its format reward / T), the last step the rest (outcome, inquiry, safety). They sum to R."""
    n = len(format_rewards)
    if n == 0:
        return []
    out = [format_weight * f / n for f in format_rewards]
    out[-1] += reward - sum(out)
    return out


def discounted_returns(rewards: Sequence[float], gamma: float) -> list[float]:
    """G_t = r_t + gamma * G_(t+1)."""
    out = [0.0] * len(rewards)
    running = 0.0
    for t in range(len(rewards) - 1, -1, -1):
        running = rewards[t] + gamma * running
        out[t] = running
    return out


def gigpo_step_advantages(state_keys: Sequence[Sequence[str]], rewards: Sequence[Sequence[float]],
                          gamma: float = 0.95, scale: ScaleRewards = "group") -> list[list[float]]:
    """GiGPO's step-level advantages for one group of trajectories, from their per-step rewards.

    Steps (of any trajectory in the group, repeated visits included) that act from the same state_key form an
    anchor group; each step's advantage is its discounted return minus the anchor group's mean (divided by the
    anchor group's std unless `scale` is "none"). A state seen only once gets 0. One list per trajectory.
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
        centred = values - values.mean()
        if scale != "none":
            centred = centred / (values.std() + STD_EPS)
        for (i, t), a in zip(members, centred.tolist()):
            out[i][t] = a
    return out


def trajectory_advantages(trajectories: Sequence[Trajectory], rewards: Sequence[float], group_size: int,
                          scale: ScaleRewards, gigpo: bool = False, gamma: float = 0.95,
                          gigpo_weight: float = 1.0, format_weight: float = 0.0) -> list[list[float]]:
    """Per-step advantages: the trajectory's group-normalised advantage on every step (+ GiGPO's step term, whose
    step rewards are `step_rewards` of each trajectory)."""
    episode_adv = group_advantages(torch.tensor(rewards, dtype=torch.float32), group_size, scale).tolist()
    out = [[a] * t.length for a, t in zip(episode_adv, trajectories)]
    if gigpo:
        for start in range(0, len(trajectories), group_size):
            group = trajectories[start : start + group_size]
            keys = [[turn.state_key for turn in t.turns] for t in group]
            per_step = [step_rewards([turn.format_reward for turn in t.turns], r, format_weight)
                        for t, r in zip(group, rewards[start : start + group_size])]
            step_adv = gigpo_step_advantages(keys, per_step, gamma, scale)
            for offset, values in enumerate(step_adv):
                out[start + offset] = [a + gigpo_weight * s for a, s in zip(out[start + offset], values)]
    return out


# ----- the sample source -----------------------------------------------------------------------------------------------


def episode_metrics(trajectories: Sequence[Trajectory], verdicts: Sequence[Any], prefix: str = "") -> dict[str, float]:
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
    replays the same tasks). `sampler` replaces the policy's sampling (tests script the model's outputs).
    """

    view: ModelView
    rollout_settings: RolloutSettings
    weights: RewardWeights
    step_episodes: Callable[[int], list[Any]]
    gigpo: bool = False
    gigpo_gamma: float = 0.95
    gigpo_weight: float = 1.0
    sampler: Sampler | None = None
    step: int = 0
    last: list[Trajectory] | None = None  # the trajectories of the latest rollout and their rewards (for inspection)
    last_rewards: list[float] | None = None

    def rollout(self, policy: Policy, settings: GRPOSettings) -> Rollout:
        g = settings.num_generations
        trajectories = start_groups(self.step_episodes(self.step), g, self.rollout_settings)
        rollout(policy, self.view, trajectories, self.rollout_settings, self.sampler)
        verdicts = [t.judge().verdict for t in trajectories]
        rewards = [trajectory_reward(v, [turn.format_reward for turn in t.turns], self.weights)
                   for v, t in zip(verdicts, trajectories)]
        advantages = trajectory_advantages(trajectories, rewards, g, settings.scale_rewards, self.gigpo,
                                           self.gigpo_gamma, self.gigpo_weight, self.weights.format)
        samples = [
            Sample(turn.prompt.ids, turn.completion_ids, adv, rewards[i], trajectories[i].group, turn.prompt.vision)
            for i, t in enumerate(trajectories)
            for turn, adv in zip(t.turns, advantages[i])
            if turn.completion_ids
        ]
        self.last, self.last_rewards = trajectories, rewards
        r = torch.tensor(rewards)
        metrics = episode_metrics(trajectories, verdicts)
        metrics.update(
            reward_mean=float(r.mean()),
            reward_std=float(r.std()) if len(r) > 1 else 0.0,
            zero_std_groups=float((r.view(-1, g).std(dim=1) < 1e-6).float().mean()) if g > 1 else 1.0,
            samples=float(len(samples)),
            completion_length=sum(len(s.completion_ids) for s in samples) / max(len(samples), 1),
        )
        return Rollout(samples, metrics)


@torch.no_grad()
def evaluate_tasks(policy: Policy, view: ModelView, episodes: Sequence[Any], settings: RolloutSettings,
                   sampler: Sampler | None = None) -> dict[str, float]:
    """Greedy play of held-out task episodes (one rollout each), judged: eval_success_rate, eval_score_mean, ..."""
    if not episodes:
        return {}
    greedy = RolloutSettings(settings.max_turns, 0.0, 1.0, settings.max_new_tokens, settings.render)
    trajectories = start_groups(episodes, 1, greedy)
    rollout(policy, view, trajectories, greedy, sampler)
    verdicts = [t.judge().verdict for t in trajectories]
    out = episode_metrics(trajectories, verdicts, prefix="eval_")
    out["eval_isr"] = sum(v.inquiry in ("asked", "not_needed") for v in verdicts) / len(verdicts)
    return out


def trajectory_records(trajectories: Sequence[Trajectory], rewards: Sequence[float], step: int) -> list[dict[str, Any]]:
    """One JSON-ready record per trajectory (what `trajectories.jsonl` in the run directory holds)."""
    out = []
    for t, reward in zip(trajectories, rewards):
        v = t.judge().verdict
        out.append({
            "step": step, "episode": t.episode.id, "group": t.group, "instruction": t.episode.instruction,
            "reward": reward, "success": v.success, "score": v.score, "inquiry": v.inquiry,
            "safety_violation": v.safety_violation, "reason": v.reason,
            "turns": [{"text": turn.text, "action": turn.action.to_arguments() if turn.action else None,
                       "format": turn.format_reward, "error": turn.error, "user_reply": turn.user_reply}
                      for turn in t.turns],
        })
    return out


# ----- the stage runner ------------------------------------------------------------------------------------------------


class TaskGRPORunner:
    """Stage 3 for the run loop. One run-loop step = one rollout = `num_iterations` optimizer steps."""

    def __init__(self, config: TrainConfig, policy: Policy, accelerator: Any, sampler: Sampler | None = None) -> None:
        from mobile_r1.train.run import batch_positions

        self.config = config
        self.policy = policy
        self.accelerator = accelerator
        self.settings = grpo_settings(config)
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
        seed = config.run.seed
        self.train_episodes = task_episodes("train", t.train_episodes, seed, t.specs, t.tasks, t.suite)
        self.eval_episodes = (task_episodes(t.eval_split, t.eval_episodes, seed, t.specs, t.tasks, t.suite)
                              if t.eval_episodes else [])
        rank, world = accelerator.process_index, accelerator.num_processes
        pool = self.train_episodes

        def episodes_of(step: int) -> list[Any]:
            positions = batch_positions(step, t.tasks_per_step, len(pool), seed)
            return [pool[i] for i in positions[rank::world]]

        self.source = TaskRolloutSource(
            self.view,
            self.rollout_settings,
            RewardWeights(t.outcome, t.format_weight, t.inquiry_weight, t.safety_weight),
            episodes_of,
            t.gigpo,
            t.gigpo_gamma,
            t.gigpo_weight,
            sampler,
        )
        self.engine: GRPOEngine | None = None

    def attach(self, optimizer: torch.optim.Optimizer, scheduler: Any) -> None:
        self.engine = GRPOEngine(self.policy, self.settings, optimizer, scheduler, self.accelerator)

    def step(self, step: int) -> dict[str, float]:
        assert self.engine is not None
        self.source.step = step
        return self.engine.step(self.source)

    def evaluate(self) -> dict[str, float]:
        return evaluate_tasks(self.policy, self.view, self.eval_episodes, self.rollout_settings, self.source.sampler)


# ----- the run loop ----------------------------------------------------------------------------------------------------


def train_task_grpo(
    config: TrainConfig | str | Path,
    *,
    resume: bool = False,
    output_dir: str | None = None,
    on_step: Callable[[int, dict[str, float]], None] | None = None,
    progress: bool = True,
    sampler: Sampler | None = None,
) -> Any:
    """Run stage 3 from a config into `run.output_dir` (config.yaml, metrics.jsonl, trajectories.jsonl, tensorboard/,
    checkpoints/, final/), like `mobile_r1.train.run.train` does for the other stages. Returns a `RunResult`."""
    from accelerate.utils import set_seed

    from mobile_r1.train import run as loop
    from mobile_r1.train.allocator import keep_freed_memory
    from mobile_r1.train.data import PromptSettings, check_policy_fits

    keep_freed_memory()

    if not isinstance(config, TrainConfig):
        config = load_config(config)
    if output_dir:
        config.run.output_dir = output_dir
    run_dir = Path(config.run.output_dir)
    t = config.task_grpo
    task_episodes("train", 1, config.run.seed, t.specs, t.tasks, t.suite)  # fail on unknown tasks before loading
    if (run_dir / "metrics.jsonl").exists() and not resume:
        raise ConfigError(f"run directory {run_dir} already holds a run; pass --resume to continue it or pick another run.output_dir")
    accelerator = loop.make_accelerator(config)
    set_seed(config.run.seed + accelerator.process_index)
    main = accelerator.is_main_process
    if main:
        run_dir.mkdir(parents=True, exist_ok=True)
        (run_dir / "config.yaml").write_text(config.to_yaml(), encoding="utf-8")

    policy = loop.load_config_policy(config, str(accelerator.device))
    check_policy_fits(policy, PromptSettings(observation_mode=config.data.observation_mode))
    runner = TaskGRPORunner(config, policy, accelerator, sampler)
    total = runner.total_steps
    optimizer, scheduler = loop.make_optimizer(policy, config, total * config.grpo.num_iterations)
    policy.model, optimizer = accelerator.prepare(policy.model, optimizer)
    runner.attach(optimizer, scheduler)

    log = loop.MetricsLog(run_dir, main, config.run.tensorboard)
    start = 0
    if resume:
        checkpoints = loop.list_checkpoints(run_dir)
        if not checkpoints:
            raise ConfigError(f"--resume: no checkpoint in {run_dir}/checkpoints; start the run without --resume")
        start = loop.load_checkpoint(checkpoints[-1][1], policy, optimizer, scheduler, accelerator)
        log.truncate_after(start)
        _truncate_jsonl(run_dir / "trajectories.jsonl", start)
    last: dict[str, float] = {}
    last_eval: dict[str, float] = {}
    if start == 0 and runner.eval_episodes:
        last_eval = runner.evaluate()
        log.log("task-grpo", "eval", 0, last_eval)
    with loop.progress_bar(progress and main) as bar:
        task = bar.add_task("task-grpo", total=total, completed=start, info="")
        for step in range(start, total):
            t0 = time.perf_counter()
            metrics = runner.step(step)
            metrics["step_seconds"] = time.perf_counter() - t0
            done = step + 1
            last = metrics
            if done % config.run.log_every == 0 or done == total:
                log.log("task-grpo", "train", done, metrics)
            if main and runner.source.last is not None:
                _append_jsonl(run_dir / "trajectories.jsonl",
                              trajectory_records(runner.source.last, runner.source.last_rewards or [], done))
            bar.update(task, completed=done, info=_summary(metrics))
            if runner.eval_episodes and ((config.run.eval_every and done % config.run.eval_every == 0) or done == total):
                last_eval = runner.evaluate()
                log.log("task-grpo", "eval", done, last_eval)
            if done % config.run.save_every == 0 and done != total:
                accelerator.wait_for_everyone()
                loop.save_checkpoint(run_dir, done, policy, optimizer, scheduler, config.run.keep_checkpoints, accelerator)
            if on_step is not None:
                on_step(done, metrics)
    accelerator.wait_for_everyone()
    loop.save_final(policy, run_dir / "final", accelerator, runner.view)  # the view its rollouts prompted with
    log.close()
    return loop.RunResult(run_dir, total, last, last_eval, main)


def _truncate_jsonl(path: Path, step: int) -> None:
    """Drop trajectory records past `step` (a resumed run plays those steps again)."""
    if path.is_file():
        lines = [ln for ln in path.read_text(encoding="utf-8").splitlines() if ln.strip()]
        path.write_text("".join(ln + "\n" for ln in lines if json.loads(ln)["step"] <= step), encoding="utf-8")


def _append_jsonl(path: Path, records: list[dict[str, Any]]) -> None:
    with open(path, "a", encoding="utf-8") as f:
        for record in records:
            f.write(json.dumps(record) + "\n")


def _summary(metrics: dict[str, float]) -> str:
    keys = ("loss", "reward_mean", "success_rate", "format_valid")
    return "  ".join(f"{k}={metrics[k]:.3f}" for k in keys if k in metrics)


__all__ = [
    "RewardWeights",
    "TaskGRPORunner",
    "TaskRolloutSource",
    "evaluate_tasks",
    "gigpo_step_advantages",
    "discounted_returns",
    "step_rewards",
    "train_task_grpo",
    "trajectory_advantages",
    "trajectory_reward",
]
