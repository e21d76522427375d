"""The one sampling function: a batch of prompts -> completion token ids, for every caller that generates.

    batch = left_padded(prompts, policy, repeat=4)           # stage 2: G samples of one prompt
    ids = sample(policy, batch, Sampling(temperature=1.0, max_new_tokens=128))

Stage 2's labelled-step sampling (`train.grpo.generate`), stage 3's rollouts (`train.rollout.generate_batch`), the
held-out greedy scoring of stages 1-2 and the `hf:` agent all call `sample`: the same decoding options (greedy when
the temperature is 0; otherwise temperature, top-p and no top-k, as TRL samples), the same end tokens, and every
completion cut right after its first end token. Callers choose only how prompts are batched.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import torch

from mobile_r1.core.errors import ConfigError
from mobile_r1.models.policy import Policy, unwrap


@dataclass
class PromptInput:
    """A tokenised prompt: ids (image placeholders already expanded) and the image tensors it needs."""

    ids: list[int]
    vision: dict[str, torch.Tensor] | None = None


@dataclass(frozen=True)
class Sampling:
    """How to decode: greedy when `temperature` is 0, else sampling with temperature and nucleus `top_p`."""

    temperature: float = 1.0
    top_p: float = 1.0
    max_new_tokens: int = 128

    def __post_init__(self) -> None:
        if not self.temperature >= 0 or not 0 < self.top_p <= 1 or self.max_new_tokens < 1:
            raise ConfigError(f"sampling needs temperature >= 0, 0 < top_p <= 1 and max_new_tokens >= 1; got "
                              f"{self.temperature}, {self.top_p}, {self.max_new_tokens}")


def eos_ids(policy: Policy) -> list[int]:
    """The tokens that end a completion: the tokenizer's end token first, then the generation config's."""
    ids = unwrap(policy.model).generation_config.eos_token_id
    ids = [] if ids is None else [ids] if isinstance(ids, int) else list(ids)
    if policy.tokenizer.eos_token_id is not None and policy.tokenizer.eos_token_id not in ids:
        ids.insert(0, policy.tokenizer.eos_token_id)
    return ids


def left_padded(prompts: list[PromptInput], policy: Policy, repeat: int = 1) -> dict[str, torch.Tensor]:
    """One generate batch of `prompts`, each repeated `repeat` times in a row, left-padded, with their images."""
    pad = policy.tokenizer.pad_token_id
    rows = [p for p in prompts for _ in range(repeat)]
    width = max(len(p.ids) for p in rows)
    batch = {
        "input_ids": torch.tensor([[pad] * (width - len(p.ids)) + p.ids for p in rows], device=policy.device),
        "attention_mask": torch.tensor([[0] * (width - len(p.ids)) + [1] * len(p.ids) for p in rows],
                                       device=policy.device),
    }
    with_images = [p.vision for p in rows if p.vision]
    if with_images:
        batch.update({k: torch.cat([v[k] for v in with_images]).to(policy.device) for k in with_images[0]})
    return batch


@torch.no_grad()
def sample(policy: Policy, batch: dict[str, Any], sampling: Sampling, seed: int | None = None) -> list[list[int]]:
    """One completion per row of `batch` (a left-padded encoding): token ids, cut after the first end token.
    `seed` reseeds torch first, so that sampling from the same batch gives the same completions."""
    model = unwrap(policy.model)
    eos = eos_ids(policy)
    options: dict[str, Any] = {"do_sample": sampling.temperature > 0}
    if sampling.temperature > 0:
        options.update(temperature=float(sampling.temperature), top_p=float(sampling.top_p), top_k=0)
        if seed is not None:
            torch.manual_seed(seed)
    width = batch["input_ids"].shape[1]
    was_training = model.training
    model.eval()
    try:
        out = model.generate(**batch, max_new_tokens=int(sampling.max_new_tokens), eos_token_id=eos,
                             pad_token_id=policy.tokenizer.pad_token_id, **options)
    finally:
        model.train(was_training)
    stops = set(eos)
    completions = []
    for row in out[:, width:].tolist():
        cut = next((i for i, t in enumerate(row) if t in stops), None)
        completions.append(row[: cut + 1] if cut is not None else row)
    return completions


__all__ = ["PromptInput", "Sampling", "eos_ids", "left_padded", "sample"]
