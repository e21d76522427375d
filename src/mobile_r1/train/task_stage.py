"""Stage 3 for the run loop ("task-grpo"): the phones it plays on, the task episodes of each step, the starting
model's task selection, server generation, evaluation and records around the algorithm of `train.task_grpo`."""

from __future__ import annotations

import itertools
import random
from dataclasses import replace
from pathlib import Path
from typing import Callable, Sequence

import torch
from accelerate import Accelerator
from torch.optim.lr_scheduler import LRScheduler

from mobile_r1.core.errors import InfraError
from mobile_r1.env import Backend, Capability, Demonstration, EpisodeRef, TaskEnv, expert_demos
from mobile_r1.env.pools import make_pool
from mobile_r1.models.generation import Sampling
from mobile_r1.models.policy import Policy
from mobile_r1.train.config import TaskGRPOConfig, TrainConfig
from mobile_r1.train.data import PromptSettings, batch_positions, model_view, prompt_settings, step_examples
from mobile_r1.train.grpo import GRPOEngine, GRPOSettings
from mobile_r1.train.progress import console
from mobile_r1.train.registry import register_stage
from mobile_r1.train.rollout import Prefixes, RolloutSettings, Sampler
from mobile_r1.train.server_generation import ServerGeneration, check_generation
from mobile_r1.train.stage import StageRunner, config_policy
from mobile_r1.train.task_grpo import TaskRolloutSource
from mobile_r1.train.task_play import evaluate_tasks, sampled_success
from mobile_r1.train.task_select import select_tasks
from mobile_r1.train.trajectories import TRAJECTORIES_FILE, append_records, trajectory_records, truncate_records


def stage_backend(config: TrainConfig) -> Backend:
    """The phone backend stage 3 plays on (`task_grpo.env`; screenshots only for image observations), or with
    `task_grpo.ray` the Ray pool around it."""
    t = config.task_grpo
    render = config.data.observation_mode == "image"
    return make_pool(t.env, t.ray, t.ray_workers, render=render, xml=False, **config.tasks.backend_options())


def rollout_settings(config: TrainConfig) -> RolloutSettings:
    """How stage 3 plays an episode: `task_grpo.max_turns`, the `grpo` section's sampling, the data's observations."""
    g = config.grpo
    return RolloutSettings(max_turns=config.task_grpo.max_turns, temperature=g.temperature, top_p=g.top_p,
                           max_new_tokens=g.max_completion_length, render=config.data.observation_mode == "image")


def expert_scripts(settings: PromptSettings) -> Callable[[list[TaskEnv]], list[list[str]]]:
    """Stage 3's `expert_guidance`: the expert's demonstration of each phone's episode (from its start, on a phone of
    its own), written step by step as the SFT data writes its targets (`train.data.step_examples`: the dialect, the
    frame and the thought style of `settings`). Only the targets are used, so no screenshot is drawn or read."""
    demos = demo_scripts(settings)
    return lambda phones: [texts for _, texts in demos(phones)]


def demo_scripts(settings: PromptSettings) -> Callable[[list[TaskEnv]], list[tuple[Demonstration, list[str]]]]:
    """Each phone's expert demonstration and its steps written as SFT targets (see `expert_scripts`)."""
    text_only = replace(settings, observation_mode="text")

    def scripts(phones: list[TaskEnv]) -> list[tuple[Demonstration, list[str]]]:
        out = []
        for demo in expert_demos(phones):
            if isinstance(demo, InfraError):
                raise demo
            out.append((demo, [example.target for example in step_examples([demo.episode], text_only)]))
        return out

    return scripts


def decision_prefixes(settings: PromptSettings, seed: int, budget: int, after_question: float = 0.0) -> Prefixes:
    """`task_grpo.branch: decision`: each phone's episode played by the expert up to a decision point, as the texts
    the policy would write (`expert_scripts`): just before one of the expert's questions (a seeded choice among them)
    where the task needs a question, else before a seeded step of its plan, short of its end. With `after_question`,
    that share of the episodes that need a question (a seeded draw per episode) fork just after the chosen question
    and the user's reply instead: a state where no further question is needed, so the group compares going on with
    asking again. The prefix leaves at least two steps of the rollout's `budget`."""
    demos = demo_scripts(settings)

    def prefixes(phones: list[TaskEnv]) -> list[list[str]]:
        out = []
        for phone, (demo, texts) in zip(phones, demos(phones)):
            asks = [i for i, step in enumerate(demo.episode.steps) if step.action.is_inquiry]
            rng = random.Random(f"{seed}:{phone.episode.id}:branch")
            k = rng.choice(asks) if asks else rng.randrange(max(1, len(texts) - 1))
            if asks and rng.random() < after_question:
                k += 1  # the question itself is played, and the simulated user has answered it
            out.append(texts[: max(0, min(k, budget - 2))])
        return out

    return prefixes


def stage_episodes(backend: Backend, section: TaskGRPOConfig, split: str, n: int, seed: int,
                   tasks: Sequence[str] = ()) -> list[EpisodeRef]:
    """`n` episodes of `split` from `task_grpo.suite`; from a list of suites, `n` from each, taking turns (so any
    stretch of the pool mixes them)."""
    if not isinstance(section.suite, list):
        return backend.episodes(section.suite, split, n, seed, tasks)
    drawn = [backend.episodes(suite, split, n, seed) for suite in section.suite]
    return [e for row in itertools.zip_longest(*drawn) for e in row if e is not None]


def check_tasks(config: TrainConfig) -> None:
    """Fail early (before a model loads) on a backend, suite or task ids stage 3 cannot play."""
    t = config.task_grpo
    with stage_backend(config) as backend:
        episodes = stage_episodes(backend, t, "train", 1, config.run.seed, t.tasks)
        if t.expert_guidance and episodes:  # the rollouts' expert_demos would refuse too, but only after a model loads
            with backend.open(episodes[0]) as phone:
                phone.require(Capability.EXPERT, "task_grpo.expert_guidance")


@register_stage
class TaskGRPORunner(StageRunner):
    """Stage 3 for the run loop. One run-loop step = one rollout = `num_iterations` optimizer steps.

    With `generation.backend: server` (and no `sampler` given) the rollouts and the greedy evaluations sample through
    the server (`server_generation.ServerGeneration`), which gets the policy's adapter before the first rollout and
    after every step.
    """

    name = "task-grpo"
    title = "after stage 3 (task GRPO)"
    order = 30

    @classmethod
    def check(cls, config: TrainConfig) -> None:
        check_generation(config)  # refuse server generation without LoRA before loading a model
        check_tasks(config)  # fail on unknown tasks before loading a model

    @classmethod
    def build(cls, config: TrainConfig, accelerator: Accelerator, *, resume: bool = False,
              sampler: Sampler | None = None) -> TaskGRPORunner:
        policy = config_policy(config, accelerator, PromptSettings(observation_mode=config.data.observation_mode))
        if config.grpo.beta:
            policy.freeze_reference()  # the KL anchor is the policy this stage starts from (also on resume)
        return cls(config, policy, accelerator, sampler, resume)

    @classmethod
    def training_instructions(cls, config: TrainConfig) -> set[str]:
        t = config.task_grpo
        with stage_backend(config) as backend:
            return {e.instruction for e in stage_episodes(backend, t, "train", t.train_episodes, config.run.seed, t.tasks)}

    def __init__(self, config: TrainConfig, policy: Policy, accelerator: Accelerator, sampler: Sampler | None = None,
                 resume: bool = False) -> None:
        self.config = config
        self.policy = policy
        self.accelerator = accelerator
        self.settings = GRPOSettings.of(config.grpo, config.optim.max_grad_norm)
        self.updates_per_step = config.grpo.num_iterations
        t = config.task_grpo
        self.total_steps = min(t.steps, config.run.max_steps) if config.run.max_steps else t.steps
        self.view = model_view(config)
        self.rollout_settings = rollout_settings(config)
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
        self.train_episodes = stage_episodes(self.backend, t, "train", t.train_episodes, seed, t.tasks)
        tasks = list(t.tasks)
        if t.select is not None:  # the pool is drawn over every task first: in-distribution evaluation leaves it out
            tasks = select_tasks(config, self.train_episodes, self.rollout_settings, self._player(sampler),
                                 accelerator, resume)
            self.train_episodes = [e for e in self.train_episodes if e.task in tasks]
        self.eval_episodes = (stage_episodes(self.backend, t, t.eval_split, t.eval_episodes, seed, tasks)
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
            t, self.backend, self.view, self.rollout_settings, episodes_of, extra_episodes=extra_of, sampler=sampler,
            expert_scripts=expert_scripts(prompt_settings(config, None)) if t.expert_guidance else None,
            branch_prefixes=(decision_prefixes(prompt_settings(config, None), seed, self.rollout_settings.max_turns,
                                               t.branch_after_question) if t.branch == "decision" else None),
        )
        self.engine: GRPOEngine | None = None

    def _player(self, sampler: Sampler | None) -> Callable[[Sequence[EpisodeRef], RolloutSettings, bool],
                                                           dict[str, tuple[int, int]]]:
        """How `task_grpo.select` plays episodes with the starting model: as many at a time as one rollout plays (so
        the selection needs no more memory than a step), sampled, or greedily as held-out episodes are."""
        main = self.accelerator.is_main_process
        chunk = max(self.config.task_grpo.tasks_per_step * self.settings.num_generations, self.backend.remote_workers())

        def progress(done: int, total: int) -> None:
            if main:
                console.print(f"task_grpo.select: {done}/{total} episodes played", markup=False)

        def play(episodes: Sequence[EpisodeRef], settings: RolloutSettings, greedy: bool) -> dict[str, tuple[int, int]]:
            if self.generation is not None:
                self.generation.sync(0)
            if greedy:
                return sampled_success(self.policy, self.view, self.backend, episodes, settings, self.accelerator,
                                       self.eval_sampler, chunk)
            return sampled_success(self.policy, self.view, self.backend, episodes, settings, self.accelerator, sampler,
                                   chunk, progress)

        return play

    def attach(self, optimizer: torch.optim.Optimizer, scheduler: LRScheduler) -> None:
        self.engine = GRPOEngine(self.policy, self.settings, optimizer, scheduler, self.accelerator)

    def step(self, step: int) -> dict[str, float]:
        assert self.engine is not None
        if self.generation is not None:
            self.generation.sync(step)  # the weights the rollout samples from (at the start, and after a resume)
        metrics = self.engine.step(self.source, step)
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
            append_records(run_dir / TRAJECTORIES_FILE,
                           trajectory_records(self.source.last, self.source.last_rewards or [], step))

    def truncate(self, run_dir: Path, step: int) -> None:
        truncate_records(run_dir / TRAJECTORIES_FILE, step)

    def close(self) -> None:
        self.backend.close()
        if self.generation is not None:
            self.generation.close()


__all__ = ["TaskGRPORunner", "check_tasks", "expert_scripts", "rollout_settings", "stage_backend"]
