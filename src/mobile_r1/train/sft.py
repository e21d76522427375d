"""Stage 1, supervised format alignment: cross-entropy on the assistant tokens of each expert step, nothing else."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass

import torch
from accelerate import Accelerator
from torch.optim.lr_scheduler import LRScheduler
from transformers import DynamicCache

from mobile_r1.core.dialects import get_dialect
from mobile_r1.models.generation import cache_argument
from mobile_r1.models.policy import Policy, unwrap
from mobile_r1.train.config import TrainConfig
from mobile_r1.train.data import (StepExample, batch_positions, encode_prompt, encode_target, examples_for_rank,
                                  labelled_episodes, labelled_examples, repeat_by_action, stack_vision)
from mobile_r1.train.registry import register_stage
from mobile_r1.train.rollout import Sampler, greedy_completions
from mobile_r1.train.stage import StageRunner, config_policy, optimizer_step

IGNORE = -100


@dataclass
class SFTItem:
    """One tokenised example: prompt + target ids, labels that are IGNORE on the prompt, image tensors."""

    input_ids: list[int]
    labels: list[int]
    vision: dict[str, torch.Tensor] | None


def encode_example(policy: Policy, example: StepExample, max_length: int | None = None) -> SFTItem:
    """Prompt ids (masked) followed by the assistant target and the end-of-turn token (trained on).

    Too-long examples lose prompt tokens from the left (never the target, never image tokens in VL prompts).
    """
    prompt = encode_prompt(policy, example.messages, example.images)
    target = encode_target(policy, example.target)
    prompt_ids = prompt.ids
    if max_length is not None and len(prompt_ids) + len(target) > max_length and prompt.vision is None:
        prompt_ids = prompt_ids[max(0, len(prompt_ids) + len(target) - max_length) :]
    return SFTItem(prompt_ids + target, [IGNORE] * len(prompt_ids) + target, prompt.vision)


def _prompt_length(item: SFTItem) -> int:
    return next((k for k, t in enumerate(item.labels) if t != IGNORE), len(item.labels))


def shared_prefix_length(items: list[SFTItem], multiple: int = 1) -> int:
    """How many leading tokens every item's prompt has in common (the system message, and often more), rounded down
    to a multiple of `multiple`; at least one prompt token of each item is left after it."""
    limit = min(_prompt_length(i) for i in items) - 1
    first = items[0].input_ids
    n = 0
    while n < limit and all(i.input_ids[n] == first[n] for i in items[1:]):
        n += 1
    return n - n % multiple


def collate_sft(items: list[SFTItem], pad_id: int, device: torch.device, multiple: int = 1,
                share_prefix: bool = False) -> dict[str, torch.Tensor]:
    """Ids, attention mask and labels (IGNORE on padding) laid out as [pad.. prompt][target ..pad], so every target
    starts at the same column and logits are computed from there on only (`token_loss_sum`); plus image tensors.

    Left padding leaves a text model's outputs as they are: rotary positions are relative and padding is masked.
    With `multiple` > 1 the width is padded up to a multiple of it (on the left): a long run then meets a few dozen
    distinct shapes instead of hundreds. CPU kernels (oneDNN) build and cache a primitive per shape, and on the
    2-core demo an unpadded SFT run's memory grew by gigabytes and its steps slowed by about a quarter
    (`benchmarks/sft_step.py`).

    With `share_prefix` (text prompts) the tokens every prompt starts with (`shared_prefix_length`) are taken out
    once as `prefix_ids` (1 x P): `token_loss_sum` runs the model on them once and lets every row attend to that
    one key/value cache, instead of computing the same system message for each row.
    """
    batch: dict[str, torch.Tensor] = {}
    if share_prefix and len(items) > 1 and all(i.vision is None for i in items):
        shared = shared_prefix_length(items, multiple)
        if shared > 0:
            batch["prefix_ids"] = torch.tensor([items[0].input_ids[:shared]], device=device)
            items = [SFTItem(i.input_ids[shared:], i.labels[shared:], None) for i in items]
    starts = [_prompt_length(i) for i in items]
    t_len = max(len(i.input_ids) - s for i, s in zip(items, starts))
    p_len = max(starts)
    p_len += -(p_len + t_len) % multiple
    ids, labels, mask = [], [], []
    for item, start in zip(items, starts):
        left, right = p_len - start, t_len - (len(item.input_ids) - start)
        ids.append([pad_id] * left + item.input_ids + [pad_id] * right)
        labels.append([IGNORE] * left + item.labels + [IGNORE] * right)
        mask.append([0] * left + [1] * len(item.input_ids) + [0] * right)
    batch.update({
        "input_ids": torch.tensor(ids, device=device),
        "attention_mask": torch.tensor(mask, device=device),
        "labels": torch.tensor(labels, device=device),
    })
    batch.update({k: v.to(device) for k, v in stack_vision([i.vision for i in items]).items()})
    return batch


def _logits(model: torch.nn.Module, batch: dict[str, torch.Tensor],
            keep: int) -> tuple[torch.Tensor, torch.Tensor | None]:
    """The last `keep` columns' logits (0: all), and with a `prefix_ids` batch the prefix's own logits (1 x P x V).

    A shared prefix is run once with a cache, the cache repeated for the batch's rows, and the rows run on it with
    positions that count only real tokens: the same attention as running each row whole (the padding between the
    prefix and a row's prompt is masked), so the loss and its gradients are unchanged.
    """
    inputs = {k: v for k, v in batch.items() if k not in ("labels", "prefix_ids")}
    prefix = batch.get("prefix_ids")
    if prefix is None:
        return model(**inputs, use_cache=False, logits_to_keep=keep).logits, None
    cache = DynamicCache()
    cached = cache_argument(model, cache)
    head = model(input_ids=prefix, use_cache=True, **cached).logits
    rows = inputs["input_ids"].shape[0]
    cache.batch_repeat_interleave(rows)
    mask = torch.cat([inputs["attention_mask"].new_ones(rows, prefix.shape[1]), inputs["attention_mask"]], dim=1)
    inputs["attention_mask"] = mask
    inputs["position_ids"] = (mask.cumsum(dim=1) - 1).clamp(min=0)[:, prefix.shape[1]:]
    logits = model(**inputs, use_cache=True, **cached, logits_to_keep=keep).logits
    return logits, head


def token_loss_sum(model: torch.nn.Module, batch: dict[str, torch.Tensor],
                   prompt_weight: float = 0.0) -> tuple[torch.Tensor, int]:
    """Sum of the next-token cross-entropy over labelled tokens, and how many there were.

    Logits are computed only from the first labelled column on (`logits_to_keep`): the language-model head over a
    long prompt is a large share of a small model's compute. With `prompt_weight` > 0 the prompt's own tokens are
    predicted too, each counting that much (the count stays the labelled tokens'): a language-model loss on the
    screens that a model trained from scratch learns their structure from. A batch with a shared prefix
    (`collate_sft(..., share_prefix=True)`) gives the same sums.
    """
    labels = batch["labels"]
    ce = torch.nn.functional.cross_entropy
    if prompt_weight > 0:
        logits, head = _logits(model, batch, 0)
        logits = logits[:, :-1].float()
        labelled = labels[:, 1:] != IGNORE
        mask = batch["attention_mask"] > 0
        prompt = mask[:, 1:] & mask[:, :-1] & ~labelled  # prompt tokens predicted from a prompt token, not padding
        token_ce = ce(logits.reshape(-1, logits.shape[-1]), batch["input_ids"][:, 1:].reshape(-1), reduction="none")
        weights = labelled.float() + prompt_weight * prompt.float()
        total = (token_ce.view_as(labelled) * weights).sum()
        if head is not None:  # the prefix's tokens, once per row, and each row's first token after the prefix
            prefix, head = batch["prefix_ids"][0], head[0].float()
            rows = labels.shape[0]
            first = batch["input_ids"].gather(1, mask.int().argmax(dim=1, keepdim=True))[:, 0]
            total = total + prompt_weight * (rows * ce(head[:-1], prefix[1:], reduction="sum")
                                             + ce(head[-1:].expand(rows, -1), first, reduction="sum"))
        return total, int(labelled.sum())
    labelled_columns = (labels != IGNORE).any(dim=0).nonzero()
    first = max(int(labelled_columns[0]), 1) if len(labelled_columns) else labels.shape[1] - 1  # column 0 is never predicted
    keep = labels.shape[1] - first + 1  # the logit at column t predicts the token at t + 1
    logits = _logits(model, batch, keep)[0][:, :-1].float()
    targets = labels[:, labels.shape[1] - keep + 1 :]
    loss = ce(logits.reshape(-1, logits.shape[-1]), targets.reshape(-1), ignore_index=IGNORE, reduction="sum")
    return loss, int((targets != IGNORE).sum())


@torch.no_grad()
def format_valid_rate(policy: Policy, examples: list[StepExample], dialect: str, max_new_tokens: int) -> dict[str, float]:
    """Greedy-decode each example and report the share the dialect parses as a valid action, and exact-type rate."""
    parser = get_dialect(dialect)
    valid = same_type = 0
    for example, text in zip(examples, greedy_completions(policy, examples, max_new_tokens)):
        parsed = parser.parse(text)
        valid += int(parsed.ok)
        same_type += int(parsed.action is not None and parsed.action.type == example.label.type)
    n = max(len(examples), 1)
    return {"format_valid": valid / n, "type_match": same_type / n}


@register_stage
class SFTRunner(StageRunner):
    """Stage 1 for the run loop: fixed-size batches of examples, token-mean loss, gradient accumulation."""

    name = "sft"
    title = "after stage 1 (SFT)"
    order = 10
    labelled_data = True

    @classmethod
    def build(cls, config: TrainConfig, accelerator: Accelerator, *, resume: bool = False,
              sampler: Sampler | None = None) -> SFTRunner:
        settings, train, held_out = labelled_episodes(config)
        policy = config_policy(config, accelerator, settings)
        return cls(config, policy, accelerator, *labelled_examples(config, settings, train, held_out))

    def __init__(self, config: TrainConfig, policy: Policy, accelerator: Accelerator, train: list[StepExample],
                 held_out: list[StepExample]) -> None:
        self.config = config
        self.policy = policy
        self.accelerator = accelerator
        self.train = repeat_by_action(train, config.sft.action_repeats)
        self.held_out = held_out
        self.held_out_items = [encode_example(policy, e, config.sft.max_length) for e in held_out]
        # prompt sizes in characters: a cheap stand-in for token counts when batches are grouped by length
        self.lengths = [len(json.dumps(e.messages)) for e in self.train] if config.sft.group_by_length else None
        sft = config.sft
        steps = math.ceil(len(self.train) * sft.epochs / sft.batch_size)
        self.total_steps = min(steps, config.run.max_steps) if config.run.max_steps else steps
        # one shared prefix per batch needs the model called twice per forward: not under DDP or checkpointing
        self.share_prefix = (sft.share_prompt_prefix and not policy.takes_images and accelerator.num_processes == 1
                             and not config.model.gradient_checkpointing)
        self.optimizer: torch.optim.Optimizer | None = None
        self.scheduler: LRScheduler | None = None

    def attach(self, optimizer: torch.optim.Optimizer, scheduler: LRScheduler) -> None:
        self.optimizer, self.scheduler = optimizer, scheduler

    def _token_count(self, items: list[SFTItem]) -> float:
        n = sum(sum(1 for t in i.labels[1:] if t != IGNORE) for i in items)
        acc = self.accelerator
        if acc.num_processes > 1:  # DDP averages gradients: normalise by the mean count so the result is a global mean
            n = float(acc.reduce(torch.tensor(float(n), device=acc.device), reduction="sum")) / acc.num_processes
        return max(float(n), 1.0)

    def step(self, step: int) -> dict[str, float]:
        assert self.optimizer is not None and self.scheduler is not None, "attach() first"
        cfg = self.config
        acc = self.accelerator
        positions = batch_positions(step, cfg.sft.batch_size, len(self.train), cfg.run.seed, self.lengths)
        mine = examples_for_rank(self.train, positions, acc.process_index, acc.num_processes)
        items = [encode_example(self.policy, e, cfg.sft.max_length) for e in mine]
        tokens = self._token_count(items)
        model = self.policy.model
        model.train()
        total = 0.0
        chunks = [items[i : i + cfg.sft.micro_batch_size] for i in range(0, len(items), cfg.sft.micro_batch_size)]
        with self.policy.attention(cfg.sft.attention):
            for index, chunk in enumerate(chunks):
                batch = collate_sft(chunk, self.policy.tokenizer.pad_token_id, self.policy.device,
                                    cfg.sft.pad_to_multiple_of, share_prefix=self.share_prefix)
                ctx = acc.no_sync(model) if index < len(chunks) - 1 else _null()
                with ctx, acc.autocast():
                    loss_sum, _ = token_loss_sum(model, batch, cfg.sft.prompt_loss_weight)
                    loss = loss_sum / tokens
                    acc.backward(loss)
                total += float(loss.detach())
        trainable = [p for p in model.parameters() if p.requires_grad]
        max_norm = cfg.optim.max_grad_norm if cfg.optim.max_grad_norm is not None else math.inf
        grad_norm = float(acc.clip_grad_norm_(trainable, max_norm))
        stepped = optimizer_step(self.optimizer, grad_norm)
        self.scheduler.step()
        if acc.num_processes > 1:
            total = float(acc.reduce(torch.tensor(total, device=acc.device), reduction="mean"))
        return {"loss": total, "grad_norm": grad_norm, "lr": float(self.optimizer.param_groups[0]["lr"]),
                "tokens": float(tokens * acc.num_processes), "nonfinite_grad": float(not stepped)}

    @torch.no_grad()
    @property
    def has_eval(self) -> bool:
        return bool(self.held_out)

    def evaluate(self) -> dict[str, float]:
        """Held-out token loss and the format-valid rate of greedy generations."""
        model = unwrap(self.policy.model)
        model.eval()
        loss_sum, count = 0.0, 0
        with torch.no_grad():
            for item in self.held_out_items:
                s, n = token_loss_sum(model, collate_sft([item], self.policy.tokenizer.pad_token_id, self.policy.device))
                loss_sum, count = loss_sum + float(s), count + n
        out = {"eval_loss": loss_sum / max(count, 1)}
        out.update(format_valid_rate(self.policy, self.held_out, self.config.data.dialect, self.config.sft.eval_max_new_tokens))
        model.train()
        return out


class _null:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *args: object) -> None:
        return None
