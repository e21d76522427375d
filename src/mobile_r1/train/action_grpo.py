"""Stage 2, action-level GRPO: labelled steps become prompts, G samples each are scored by a rule reward preset.

`LabelledStepSource` is the stage-2 `SampleSource` of the GRPO engine (stage 3 plugs an environment rollout
source into the same engine); `ActionGRPORunner` is the stage the run loop finds as "action-grpo". Defaults follow
InquireMobile: G = 4, temperature 1.0, lr 1e-6 with linear decay, per-token (`dapo`) loss, k3 KL.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Callable

import torch
from accelerate import Accelerator
from accelerate.utils import gather_object
from torch.optim.lr_scheduler import LRScheduler

from mobile_r1.core.dialects import get_dialect
from mobile_r1.core.errors import DataError
from mobile_r1.core.rewards import RewardPreset, RewardResult, get_preset
from mobile_r1.models.generation import PromptInput, Sampling
from mobile_r1.models.policy import Policy, decode_completion
from mobile_r1.train.config import TrainConfig
from mobile_r1.train.data import (StepExample, batch_positions, encode_prompt, encode_target, examples_for_rank,
                                  labelled_episodes, labelled_examples, repeat_by_action)
from mobile_r1.train.grpo import GRPOEngine, GRPOSettings, Rollout, Sample, generate, group_advantages
from mobile_r1.train.progress import console
from mobile_r1.train.registry import register_stage
from mobile_r1.train.rollout import Sampler, greedy_completions
from mobile_r1.train.server_generation import ServerGeneration, check_generation
from mobile_r1.train.stage import StageRunner, config_policy, fingerprint, read_start_record, write_start_record

# G completions for each prompt, grouped (prompt 0's G, then prompt 1's, ...): the policy's own `generate` by default.
GroupSampler = Callable[[list[PromptInput], GRPOSettings], list[list[int]]]


def score(preset: RewardPreset, completion: str, example: StepExample) -> RewardResult:
    """A completion's reward against the step's label (model frame) and element box (screen pixels)."""
    return preset.score(completion, example.label, example.bbox, example.screen_size, example.model_size)


@dataclass
class LabelledStepSource:
    """Serves `prompts_per_step` labelled steps per rollout, samples G completions each and scores them.

    `step_examples` maps an optimizer step to the examples of that step on this process (default: every example);
    keeping it a function of the step makes a resumed run read the same data. `sampler` replaces the policy's own
    sampling (a server's). With `label_guidance` the last of each step's G completions is replaced by the step's SFT target (the label written as
    SFT writes it), scored and weighted like the others; the logged rewards are those of the G - 1 samples.
    """

    examples: list[StepExample]
    reward: str
    dialect: str
    step_examples: Callable[[int], list[StepExample]] | None = None
    sampler: GroupSampler | None = None
    label_guidance: bool = False

    def rollout(self, policy: Policy, settings: GRPOSettings, step: int) -> Rollout:
        batch = self.step_examples(step) if self.step_examples else self.examples
        preset = get_preset(self.reward)
        parser = get_dialect(self.dialect)
        prompts = [encode_prompt(policy, e.messages, e.images) for e in batch]
        completions = self.sampler(prompts, settings) if self.sampler else generate(policy, prompts, settings)
        g = settings.num_generations
        guided = [self.label_guidance and i % g == g - 1 for i in range(len(completions))]
        for i in range(len(completions)):
            if guided[i]:
                completions[i] = encode_target(policy, batch[i // g].target)
        results: list[RewardResult] = []
        valid = 0
        for i, ids in enumerate(completions):
            text = decode_completion(policy, ids)
            results.append(score(preset, text, batch[i // g]))
            valid += int(parser.parse(text).ok and not guided[i])
        rewards = torch.tensor([r.total for r in results], dtype=torch.float32)
        advantages = group_advantages(rewards, g, settings.scale_rewards)
        samples = [
            Sample(prompts[i // g].ids, ids, float(advantages[i]), float(rewards[i]), i // g, prompts[i // g].vision)
            for i, ids in enumerate(completions)
        ]
        grouped = rewards.view(-1, g)
        own = [(r, ids) for r, ids, label in zip(results, completions, guided) if not label]  # the policy's samples
        own_rewards = torch.tensor([r.total for r, _ in own], dtype=torch.float32)
        metrics = {
            "reward_mean": float(own_rewards.mean()),
            "reward_std": float(own_rewards.std()) if len(own_rewards) > 1 else 0.0,
            "format_valid": valid / len(own),
            "completion_length": sum(len(ids) for _, ids in own) / len(own),
            "zero_std_groups": float((grouped.std(dim=1) < 1e-6).float().mean()) if g > 1 else 1.0,
        }
        for name in ("format", "accuracy", *sorted(results[0].components)):
            metrics[f"reward_{name}"] = sum(r.get(name) for r, _ in own) / len(own)
        if self.label_guidance:
            metrics["label_reward_mean"] = sum(r.total for r, label in zip(results, guided) if label) / len(batch)
        return Rollout(samples, metrics)


@torch.no_grad()
def held_out_reward(policy: Policy, examples: list[StepExample], reward: str, dialect: str, max_new_tokens: int,
                    settings: GRPOSettings | None = None, samples: int = 0, seed: int = 0) -> dict[str, float]:
    """Greedy completions on fixed held-out steps: mean reward, its parts, and the format-valid rate.

    With `samples` > 0, also the mean reward of that many seeded samples per step (`sampled_held_out_reward`).
    """
    preset = get_preset(reward)
    parser = get_dialect(dialect)
    results: list[RewardResult] = []
    valid = 0
    for example, text in zip(examples, greedy_completions(policy, examples, max_new_tokens)):
        results.append(score(preset, text, example))
        valid += int(parser.parse(text).ok)
    n = max(len(results), 1)
    out = {"eval_reward": sum(r.total for r in results) / n, "eval_format_valid": valid / n}
    for name in ("format", "accuracy"):
        out[f"eval_reward_{name}"] = sum(r.get(name) for r in results) / n
    if samples and settings is not None and examples:
        out.update(sampled_held_out_reward(policy, examples, reward, dialect, settings, samples, seed))
    return out


@torch.no_grad()
def sampled_held_out_reward(policy: Policy, examples: list[StepExample], reward: str, dialect: str,
                            settings: GRPOSettings, samples: int, seed: int = 0) -> dict[str, float]:
    """Mean reward of `samples` completions per held-out step at the training temperature, with a fixed seed.

    This is the quantity GRPO raises; the seed is fixed and the global RNG left untouched, so evaluations at
    different steps see the same random stream.
    """
    preset = get_preset(reward)
    parser = get_dialect(dialect)
    prompts = [encode_prompt(policy, e.messages, e.images) for e in examples]
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        completions = generate(policy, prompts, replace(settings, num_generations=samples))
    totals, valid = [], 0
    for i, ids in enumerate(completions):
        text = decode_completion(policy, ids)
        totals.append(score(preset, text, examples[i // samples]).total)
        valid += int(parser.parse(text).ok)
    return {"eval_sampled_reward": sum(totals) / len(totals), "eval_sampled_format_valid": valid / len(totals)}


@torch.no_grad()
def unsolved_steps(policy: Policy, examples: list[StepExample], reward: str, max_new_tokens: int,
                   accelerator: Accelerator) -> tuple[list[StepExample], dict[str, Any]]:
    """The labelled steps whose greedy completion by `policy` scores below the label's own reward, and the counts.

    A step the model already answers as labelled mostly gives G samples of the same reward, so a group without
    spread and no gradient. Each process predicts its share of the steps; all get the whole answer.
    """
    preset = get_preset(reward)
    rank, world = accelerator.process_index, accelerator.num_processes
    mine = list(range(rank, len(examples), world))
    texts = greedy_completions(policy, [examples[i] for i in mine], max_new_tokens)
    solved_here = [i for i, text in zip(mine, texts)
                   if score(preset, text, examples[i]).total >= score(preset, examples[i].target, examples[i]).total]
    solved = set(gather_object(solved_here) if world > 1 else solved_here)
    kept = [e for i, e in enumerate(examples) if i not in solved]
    steps_by_action = Counter(e.label.type.value for e in examples)
    solved_by_action = Counter(examples[i].label.type.value for i in solved)
    record = {"steps": len(examples), "solved": len(solved), "kept": len(kept),
              "solved_by_action": {k: {"solved": solved_by_action[k], "steps": n}
                                   for k, n in sorted(steps_by_action.items())},
              "kept_steps": [step_key(e) for e in kept]}
    return kept, record


def step_key(example: StepExample) -> str:
    """`episode/step`: how solved_steps.json names a kept step."""
    return f"{example.episode_id}/{example.step_index}"


def solved_fingerprint(config: TrainConfig, examples: list[StepExample]) -> str:
    """What `grpo.skip_solved`'s choice depends on: the starting model, the data settings, the reward and the steps
    with their labels. A resumed run reuses solved_steps.json only when this is unchanged."""
    what = {"model": config.model.model_dump(mode="json"), "data": config.data.model_dump(mode="json"),
            "reward": config.grpo.reward, "max_new_tokens": config.grpo.max_completion_length,
            "steps": [[e.episode_id, e.step_index, e.target] for e in examples]}
    return fingerprint(what)


@register_stage
class ActionGRPORunner(StageRunner):
    """Stage 2 for the run loop. One run-loop step = one rollout = `num_iterations` optimizer steps.

    With `generation.backend: server` the G samples of each labelled step come from the server (one request with
    `n` = G per step), which gets the policy's adapter before the first rollout and after every step; the held-out
    evaluations stay in process (greedy on the trainer's own weights).
    """

    name = "action-grpo"
    title = "after stage 2 (action GRPO)"
    order = 20
    labelled_data = True

    @classmethod
    def check(cls, config: TrainConfig) -> None:
        check_generation(config)  # refuse server generation without LoRA before loading a model

    @classmethod
    def build(cls, config: TrainConfig, accelerator: Accelerator, *, resume: bool = False,
              sampler: Sampler | None = None) -> ActionGRPORunner:
        settings, train, held_out = labelled_episodes(config)
        policy = config_policy(config, accelerator, settings)
        if config.grpo.beta:
            policy.freeze_reference()  # the KL anchor is the policy this stage starts from (also on resume)
        return cls(config, policy, accelerator, *labelled_examples(config, settings, train, held_out), resume)

    def __init__(self, config: TrainConfig, policy: Policy, accelerator: Accelerator, train: list[StepExample],
                 held_out: list[StepExample], resume: bool = False) -> None:
        get_preset(config.grpo.reward)  # fail early on an unknown preset
        self.config = config
        self.policy = policy
        self.accelerator = accelerator
        self.held_out = held_out
        self.settings = GRPOSettings.of(config.grpo, config.optim.max_grad_norm)
        self.updates_per_step = config.grpo.num_iterations
        g = config.grpo
        if g.skip_solved:
            train = self.skip_solved(train, resume)
        train = repeat_by_action(train, g.action_repeats)
        steps = math.ceil(len(train) * g.epochs / g.prompts_per_step)
        self.total_steps = min(steps, config.run.max_steps) if config.run.max_steps else steps
        rank, world = accelerator.process_index, accelerator.num_processes
        self.generation: ServerGeneration | None = None
        sampler: GroupSampler | None = None
        if config.generation.backend == "server":
            generation = ServerGeneration(config.generation, policy, Path(config.run.output_dir), accelerator)

            def through_server(prompts: list[PromptInput], s: GRPOSettings) -> list[list[int]]:
                return generation.sample(prompts, Sampling(s.temperature, s.top_p, s.max_completion_length),
                                         s.num_generations)

            self.generation, sampler = generation, through_server
        self.source = LabelledStepSource(
            train,
            g.reward,
            config.data.dialect,
            step_examples=lambda step: examples_for_rank(
                train, batch_positions(step, g.prompts_per_step, len(train), config.run.seed), rank, world
            ),
            sampler=sampler,
            label_guidance=g.label_guidance,
        )
        self.engine: GRPOEngine | None = None

    def skip_solved(self, train: list[StepExample], resume: bool) -> list[StepExample]:
        """`grpo.skip_solved`: the training steps the starting policy does not already solve; the counts are written
        to solved_steps.json in the run folder. A resumed run reads its kept steps back from that file when it was
        written for the same model, data and reward (`fingerprint`); otherwise it predicts them again from the
        starting weights, which it is given before its checkpoint is loaded, and so keeps the same steps."""
        main = self.accelerator.is_main_process
        path = Path(self.config.run.output_dir) / "solved_steps.json"
        key = solved_fingerprint(self.config, train)
        record = read_start_record(path, key, resume, self.accelerator)
        if record is not None:
            wanted = set(record["kept_steps"])
            kept = [e for e in train if step_key(e) in wanted]
            if main:
                console.print(f"grpo.skip_solved: training on the {len(kept)} steps kept in {path} (read back)",
                              markup=False)
        else:
            if main:
                console.print(f"grpo.skip_solved: predicting the {len(train)} training steps with the starting model",
                              markup=False)
            kept, record = unsolved_steps(self.policy, train, self.config.grpo.reward,
                                          self.config.grpo.max_completion_length, self.accelerator)
            if main:
                console.print(f"grpo.skip_solved: it solves {record['solved']}; training on the other {len(kept)}",
                              markup=False)
                write_start_record(path, record, key)
        if not kept:
            raise DataError(f"grpo.skip_solved: the starting model already solves all {len(train)} training steps; "
                            "stage 2 has nothing to learn from them (give it harder steps, or turn skip_solved off)")
        return kept

    def attach(self, optimizer: torch.optim.Optimizer, scheduler: LRScheduler) -> None:
        # the scheduler counts optimizer steps: num_iterations per rollout
        self.engine = GRPOEngine(self.policy, self.settings, optimizer, scheduler, self.accelerator)

    def step(self, step: int) -> dict[str, float]:
        assert self.engine is not None
        if self.generation is not None:
            self.generation.sync(step)  # the weights the rollout samples from (at the start, and after a resume)
        metrics = self.engine.step(self.source, step)
        if self.generation is not None:
            self.generation.sync(step + 1)  # the updated adapter, served from now on
            metrics.update(self.generation.take_metrics())
        return metrics

    @property
    def has_eval(self) -> bool:
        return bool(self.held_out)

    def close(self) -> None:
        if self.generation is not None:
            self.generation.close()

    def evaluate(self) -> dict[str, float]:
        return held_out_reward(self.policy, self.held_out, self.config.grpo.reward, self.config.data.dialect,
                               self.config.grpo.max_completion_length, self.settings, self.config.grpo.eval_samples,
                               self.config.run.seed)
