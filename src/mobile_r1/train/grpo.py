"""The GRPO engine, top to bottom: sampling groups, group-normalised advantages, the clipped surrogate with k3 KL.

One engine serves stage 2 (labelled steps, rule rewards) and stage 3 (environment rollouts, judge rewards):
both are a `SampleSource` that returns `Sample`s = (prompt, completion, advantage). The engine only turns
samples into gradient steps:

    for each rollout (a batch of samples from the source):
        ref_logps  = log pi_ref(completion | prompt)                 (once, no grad; beta > 0 only)
        old_logps  = log pi_old(completion | prompt)                 (once, no grad; num_iterations > 1 only)
        repeat num_iterations times:                                  (one optimizer step each)
            for each micro-batch:                                     (gradient accumulation)
                logps  = log pi_theta(completion | prompt)            (logits / temperature, like sampling)
                ratio  = exp(logps - old_logps)
                pg     = -min(ratio * A, clip(ratio, 1 - eps, 1 + eps_high) * A)
                kl     = exp(ref - logps) - (ref - logps) - 1         (k3 estimator)
                token_loss = pg + beta * kl
                loss  += aggregate(token_loss, mask)                  (grpo | dapo | dr_grpo, normalised over
                                                                        the whole batch, so micro-batching
                                                                        does not change the result)
            clip grad norm, optimizer step, scheduler step

Aggregations (`loss_type`), with N sequences, mask m, lengths |o_i| = sum_t m_it and sample weights w_i (1 unless a
source sets them; stage 3 gives each trajectory a total weight of 1 over its tokens):
    grpo:    (sum_i w_i (1/|o_i|) sum_t l_it) / (sum_i w_i)          (per-sequence mean, then mean; GRPO paper)
    dapo:    (sum_i w_i sum_t l_it) / (sum_i w_i |o_i|)              (per token over the whole batch; DAPO, InquireMobile)
    dr_grpo: (sum_i w_i sum_t l_it) / (sum_i w_i * max_completion_length)  (constant normaliser; Dr. GRPO)
With every w_i = 1 these are the usual formulas, bit for bit.

The old and reference log-probs are computed under the same autocast as the update, so the first iteration's ratio
is exactly 1 in bf16 too.
"""

from __future__ import annotations

import contextlib
import math
import time
from contextlib import AbstractContextManager
from dataclasses import dataclass, field, fields
from typing import Literal, Protocol

import torch
from accelerate import Accelerator
from torch.optim.lr_scheduler import LRScheduler

from mobile_r1.core.errors import ConfigError
from mobile_r1.models.generation import PromptInput, Sampling, left_padded, sample
from mobile_r1.models.policy import Policy, unwrap
from mobile_r1.train.config import GRPOConfig
from mobile_r1.train.stage import optimizer_step

LossType = Literal["grpo", "dapo", "dr_grpo"]
ScaleRewards = Literal["group", "batch", "none"]
STD_EPS = 1e-4  # added to the std before dividing, as TRL does


@dataclass
class GRPOSettings:
    """The algorithm's knobs; defaults are InquireMobile's stage-2 settings."""

    num_generations: int = 4  # G, samples per prompt
    temperature: float = 1.0  # sampling temperature; logits are divided by it when scoring too
    top_p: float = 1.0
    max_completion_length: int = 256
    scale_rewards: ScaleRewards = "group"  # divide advantages by the group std, the batch std, or nothing
    loss_type: LossType = "dapo"
    epsilon: float = 0.2  # lower clip: ratio >= 1 - epsilon
    epsilon_high: float | None = None  # upper clip: ratio <= 1 + epsilon_high (None: same as epsilon)
    beta: float = 0.04  # weight of the k3 KL to the reference policy (0 turns the reference off)
    num_iterations: int = 1  # optimizer steps per rollout (> 1 re-uses it with old log-probs)
    micro_batch_size: int = 4  # sequences per forward/backward
    max_grad_norm: float | None = 1.0
    prompts_per_generate: int = 1  # prompts sampled in one `generate` call (with their G samples each)

    def __post_init__(self) -> None:
        if self.loss_type not in ("grpo", "dapo", "dr_grpo"):
            raise ConfigError(f"loss_type must be grpo, dapo or dr_grpo; got {self.loss_type!r}")
        if self.scale_rewards not in ("group", "batch", "none"):
            raise ConfigError(f"scale_rewards must be group, batch or none; got {self.scale_rewards!r}")
        if min(self.num_generations, self.num_iterations, self.micro_batch_size, self.prompts_per_generate) < 1:
            raise ConfigError("num_generations, num_iterations, micro_batch_size and prompts_per_generate must be >= 1")

    @classmethod
    def of(cls, section: GRPOConfig, max_grad_norm: float | None) -> GRPOSettings:
        """The knobs a config's `grpo` section sets (its fields of the same names) and the optimizer's gradient clip."""
        named = {f.name: getattr(section, f.name) for f in fields(cls) if f.name != "max_grad_norm"}
        return cls(**named, max_grad_norm=max_grad_norm)


# ----- samples and where they come from ---------------------------------------------------------------------------


@dataclass
class Sample:
    """One completion to learn from: token ids of the prompt and completion, and its advantage.

    `vision` holds the prompt's image tensors (`pixel_values`, `image_grid_thw`) for VL models. `old_logps`
    and `ref_logps` are filled by the engine. `reward` and `group` are kept for logging. `weight` multiplies the
    sample's tokens in the loss (see the module docstring).
    """

    prompt_ids: list[int]
    completion_ids: list[int]
    advantage: float
    reward: float = 0.0
    group: int = 0
    vision: dict[str, torch.Tensor] | None = None
    weight: float = 1.0
    old_logps: torch.Tensor | None = None
    ref_logps: torch.Tensor | None = None


@dataclass
class Rollout:
    """What a sample source returns for one optimizer step: the samples and what it measured producing them."""

    samples: list[Sample]
    metrics: dict[str, float] = field(default_factory=dict)


class SampleSource(Protocol):
    """Stage 2 (labelled steps) and stage 3 (environment rollouts) both implement this: the samples of optimizer step
    `step` (a function of the step, so a resumed run draws the same data)."""

    def rollout(self, policy: Policy, settings: GRPOSettings, step: int) -> Rollout: ...


def group_advantages(rewards: torch.Tensor, group_size: int, scale: ScaleRewards = "group") -> torch.Tensor:
    """A_i = (r_i - mean(group)) / (std + 1e-4); std of the group, of the whole batch, or 1 with `scale="none"`.

    `rewards` holds consecutive groups of `group_size`. The std is the unbiased one (torch default), as in TRL.
    """
    grouped = rewards.view(-1, group_size)
    advantages = (grouped - grouped.mean(dim=1, keepdim=True)).view(-1)
    if scale == "group":
        std = grouped.std(dim=1).repeat_interleave(group_size) if group_size > 1 else torch.zeros_like(rewards)
    elif scale == "batch":
        std = rewards.std().expand_as(rewards) if rewards.numel() > 1 else torch.zeros_like(rewards)
    else:
        return advantages
    return advantages / (std + STD_EPS)


def generate(policy: Policy, prompts: list[PromptInput], settings: GRPOSettings) -> list[list[int]]:
    """Sample `num_generations` completions per prompt; returns token ids cut after the first end token.

    Completions come back grouped: prompt 0's G samples, then prompt 1's, and so on. One `generate` call per
    `prompts_per_generate` prompts (1 by default: each call's G samples share one prompt and its images, and nothing
    is padded); on a GPU a call over all the step's prompts keeps the device busy where one prompt's G rows cannot.
    The sampled stream, and so the run, depends on the setting.
    """
    sampling = Sampling(settings.temperature, settings.top_p, settings.max_completion_length)
    out: list[list[int]] = []
    size = settings.prompts_per_generate
    for start in range(0, len(prompts), size):
        batch = left_padded(prompts[start:start + size], policy, repeat=settings.num_generations)
        out.extend(sample(policy, batch, sampling))
    return out


# ----- the loss ---------------------------------------------------------------------------------------------------


@dataclass
class LossTerms:
    """A micro-batch's contribution to the batch loss, and sums for logging."""

    loss: torch.Tensor
    kl_sum: float
    clipped_tokens: float
    tokens: float


def grpo_loss(
    logps: torch.Tensor,
    old_logps: torch.Tensor,
    ref_logps: torch.Tensor | None,
    advantages: torch.Tensor,
    mask: torch.Tensor,
    *,
    loss_type: LossType,
    epsilon: float,
    epsilon_high: float | None,
    beta: float,
    normaliser: float,
    weights: torch.Tensor | None = None,
) -> LossTerms:
    """The clipped GRPO objective for one micro-batch, already divided by the whole batch's `normaliser`.

    Shapes: logps, old_logps, ref_logps, mask (B, T); advantages, weights (B,). `normaliser` is what
    `batch_normaliser` returns for the full batch (sum of weights for grpo, of weighted tokens for dapo, of weights
    times L_max for dr_grpo), so the sum of the micro-batch losses is the batch loss.
    """
    mask = mask.to(logps.dtype)
    ratio = torch.exp(logps - old_logps)
    clipped = torch.clamp(ratio, 1 - epsilon, 1 + (epsilon if epsilon_high is None else epsilon_high))
    adv = advantages.unsqueeze(1)
    token_loss = -torch.min(ratio * adv, clipped * adv)
    kl = torch.zeros_like(logps)
    if beta != 0.0:
        if ref_logps is None:
            raise ValueError("beta > 0 needs reference log-probs")
        delta = ref_logps - logps
        kl = torch.exp(delta) - delta - 1
        token_loss = token_loss + beta * kl
    weighted = mask if weights is None else mask * weights.to(mask.dtype).unsqueeze(1)
    if loss_type == "grpo":
        per_sequence = (token_loss * weighted).sum(-1) / mask.sum(-1).clamp(min=1.0)
        loss = per_sequence.sum() / normaliser
    else:  # dapo and dr_grpo differ only in the normaliser
        loss = (token_loss * weighted).sum() / normaliser
    is_clipped = ((ratio < 1 - epsilon) & (adv < 0)) | ((ratio > 1 + (epsilon_high or epsilon)) & (adv > 0))
    return LossTerms(
        loss=loss,
        kl_sum=float((kl.detach() * mask).sum()),
        clipped_tokens=float((is_clipped.to(mask.dtype) * mask).sum()),
        tokens=float(mask.sum()),
    )


def batch_normaliser(lengths: list[int], loss_type: LossType, max_completion_length: int,
                     weights: list[float] | None = None) -> float:
    """The denominator of the batch loss: N (grpo), total completion tokens (dapo), N * L_max (dr_grpo); with sample
    weights, the weighted sums (the sum of weights, of weighted tokens, of weights times L_max)."""
    if weights is None:
        if loss_type == "grpo":
            return float(len(lengths))
        if loss_type == "dapo":
            return float(max(sum(lengths), 1))
        return float(len(lengths) * max_completion_length)
    if loss_type == "grpo":
        return float(sum(weights)) or 1.0
    if loss_type == "dapo":
        return float(sum(w * n for w, n in zip(weights, lengths))) or 1.0
    return float(sum(weights) * max_completion_length) or 1.0


# ----- scoring sequences --------------------------------------------------------------------------------------------


@dataclass
class MicroBatch:
    """Left-padded prompts followed by right-padded completions, ready for one forward pass."""

    input_ids: torch.Tensor
    attention_mask: torch.Tensor
    completion_mask: torch.Tensor
    vision: dict[str, torch.Tensor]

    @property
    def completion_length(self) -> int:
        return self.completion_mask.shape[1]


def collate(samples: list[Sample], pad_id: int, device: torch.device) -> MicroBatch:
    """Pack samples as [pad.. prompt][completion ..pad] so every completion starts at the same column."""
    p_len = max(len(s.prompt_ids) for s in samples)
    c_len = max(max(len(s.completion_ids) for s in samples), 1)
    ids, attn, cmask = [], [], []
    for s in samples:
        p_pad, c_pad = p_len - len(s.prompt_ids), c_len - len(s.completion_ids)
        ids.append([pad_id] * p_pad + s.prompt_ids + s.completion_ids + [pad_id] * c_pad)
        attn.append([0] * p_pad + [1] * (len(s.prompt_ids) + len(s.completion_ids)) + [0] * c_pad)
        cmask.append([1] * len(s.completion_ids) + [0] * c_pad)
    vision: dict[str, torch.Tensor] = {}
    if any(s.vision for s in samples):
        for key in samples[0].vision or {}:
            vision[key] = torch.cat([s.vision[key] for s in samples if s.vision]).to(device)
    return MicroBatch(
        torch.tensor(ids, device=device),
        torch.tensor(attn, device=device),
        torch.tensor(cmask, device=device),
        vision,
    )


def token_logps(model: torch.nn.Module, batch: MicroBatch, temperature: float) -> torch.Tensor:
    """log p(completion token | everything before it), from logits divided by `temperature`. Shape (B, T_c)."""
    k = batch.completion_length
    logits = model(input_ids=batch.input_ids, attention_mask=batch.attention_mask, use_cache=False,
                   logits_to_keep=k + 1, **batch.vision).logits  # only the completion's logits are computed
    logits = logits[:, :-1].float() / temperature
    targets = batch.input_ids[:, -k:]
    return torch.gather(logits, -1, targets.unsqueeze(-1)).squeeze(-1) - torch.logsumexp(logits, dim=-1)


def _pad_to(t: torch.Tensor, length: int) -> torch.Tensor:
    return torch.nn.functional.pad(t, (0, length - t.shape[-1]))


# ----- the engine ---------------------------------------------------------------------------------------------------


class GRPOEngine:
    """Turns rollouts into optimizer steps. `accelerator` (accelerate) is optional: without it, plain torch."""

    def __init__(
        self,
        policy: Policy,
        settings: GRPOSettings,
        optimizer: torch.optim.Optimizer,
        scheduler: LRScheduler | None = None,
        accelerator: Accelerator | None = None,
    ) -> None:
        self.policy = policy
        self.settings = settings
        self.optimizer = optimizer
        self.scheduler = scheduler
        self.accelerator = accelerator

    def _micro_batches(self, samples: list[Sample]) -> list[list[Sample]]:
        n = self.settings.micro_batch_size
        return [samples[i : i + n] for i in range(0, len(samples), n)]

    def _autocast(self) -> AbstractContextManager[None]:
        return self.accelerator.autocast() if self.accelerator else contextlib.nullcontext()

    @torch.no_grad()
    def _fill_logps(self, samples: list[Sample]) -> None:
        """Old and reference log-probs, under the autocast the update runs in (so they are computed alike)."""
        s = self.settings
        pad = self.policy.tokenizer.pad_token_id
        model = unwrap(self.policy.model)
        for chunk in self._micro_batches(samples):
            batch = collate(chunk, pad, self.policy.device)
            if s.num_iterations > 1:
                with self._autocast():
                    old = token_logps(model, batch, s.temperature)
                for item, row in zip(chunk, old):
                    item.old_logps = row[: len(item.completion_ids)].cpu()
            if s.beta != 0.0:
                with self.policy.reference() as ref, self._autocast():
                    ref_lp = token_logps(ref, batch, s.temperature)
                for item, row in zip(chunk, ref_lp):
                    item.ref_logps = row[: len(item.completion_ids)].cpu()

    def _global_normaliser(self, samples: list[Sample]) -> float:
        s = self.settings
        weights = None if all(x.weight == 1.0 for x in samples) else [x.weight for x in samples]
        value = batch_normaliser([len(x.completion_ids) for x in samples], s.loss_type, s.max_completion_length,
                                 weights)
        acc = self.accelerator
        if acc is not None and acc.num_processes > 1 and s.loss_type == "dapo":
            # DDP averages gradients over processes; use the mean token count so the result is sum / all tokens
            total = acc.reduce(torch.tensor(value, device=acc.device), reduction="sum")
            value = float(total) / acc.num_processes
        return value

    def step(self, source: SampleSource, step: int) -> dict[str, float]:
        """GRPO step `step` from any sample source (stage 2's labelled steps or stage 3's rollouts): roll out,
        train on the samples, and return the rollout's metrics with the mean of the update metrics, averaged
        over processes when there are several."""
        start = time.perf_counter()
        rollout = source.rollout(self.policy, self.settings, step)
        metrics = dict(rollout.metrics)
        metrics["rollout_seconds"] = time.perf_counter() - start
        updates = self.train_on(rollout.samples)
        for key in updates[0]:
            metrics[key] = sum(u[key] for u in updates) / len(updates)
        acc = self.accelerator
        if acc is not None and acc.num_processes > 1:
            keys = sorted(metrics)
            values = acc.reduce(torch.tensor([metrics[k] for k in keys], device=acc.device), reduction="mean")
            metrics = dict(zip(keys, values.tolist()))
        return metrics

    def train_on(self, samples: list[Sample]) -> list[dict[str, float]]:
        """Run `num_iterations` optimizer steps on one rollout; returns one metrics dict per step. With no samples (a
        rollout whose every group was dropped) the weights stay as they are and the schedule moves on."""
        s = self.settings
        if not samples:
            out = []
            for _ in range(s.num_iterations):
                if self.scheduler is not None:
                    self.scheduler.step()
                out.append({"loss": 0.0, "kl": 0.0, "clip_ratio": 0.0, "grad_norm": 0.0,
                            "lr": float(self.optimizer.param_groups[0]["lr"])})
            return out
        model = self.policy.model
        model.train()
        self._fill_logps(samples)
        normaliser = self._global_normaliser(samples)
        pad = self.policy.tokenizer.pad_token_id
        chunks = self._micro_batches(samples)
        metrics: list[dict[str, float]] = []
        for _ in range(s.num_iterations):
            total_loss = kl_sum = clipped = tokens = 0.0
            for index, chunk in enumerate(chunks):
                batch = collate(chunk, pad, self.policy.device)
                sync = index == len(chunks) - 1
                ctx = self.accelerator.no_sync(model) if (self.accelerator and not sync) else contextlib.nullcontext()
                with ctx, self._autocast():
                    logps = token_logps(model, batch, s.temperature)
                    width = logps.shape[1]
                    old = (
                        torch.stack([_pad_to(x.old_logps, width) for x in chunk]).to(logps.device)
                        if s.num_iterations > 1
                        else logps.detach()
                    )
                    ref = torch.stack([_pad_to(x.ref_logps, width) for x in chunk]).to(logps.device) if s.beta else None
                    adv = torch.tensor([x.advantage for x in chunk], dtype=logps.dtype, device=logps.device)
                    weights = (None if all(x.weight == 1.0 for x in chunk)
                               else torch.tensor([x.weight for x in chunk], dtype=logps.dtype, device=logps.device))
                    terms = grpo_loss(
                        logps,
                        old,
                        ref,
                        adv,
                        batch.completion_mask,
                        loss_type=s.loss_type,
                        epsilon=s.epsilon,
                        epsilon_high=s.epsilon_high,
                        beta=s.beta,
                        normaliser=normaliser,
                        weights=weights,
                    )
                    if self.accelerator is not None:
                        self.accelerator.backward(terms.loss)
                    else:
                        terms.loss.backward()
                total_loss += float(terms.loss.detach())
                kl_sum += terms.kl_sum
                clipped += terms.clipped_tokens
                tokens += terms.tokens
            grad_norm = self._clip_grad()
            stepped = optimizer_step(self.optimizer, grad_norm)
            if self.scheduler is not None:
                self.scheduler.step()
            metrics.append(
                {
                    "loss": total_loss,
                    "kl": kl_sum / max(tokens, 1.0),
                    "clip_ratio": clipped / max(tokens, 1.0),
                    "grad_norm": grad_norm,
                    "lr": float(self.optimizer.param_groups[0]["lr"]),
                    "nonfinite_grad": float(not stepped),
                }
            )
        return metrics

    def _clip_grad(self) -> float:
        params = [p for p in self.policy.model.parameters() if p.requires_grad]
        max_norm = self.settings.max_grad_norm
        if self.accelerator is not None and max_norm is not None:
            return float(self.accelerator.clip_grad_norm_(params, max_norm))
        norm = torch.nn.utils.clip_grad_norm_(params, max_norm if max_norm is not None else math.inf)
        return float(norm)
