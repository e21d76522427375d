"""The one sampling function: a batch of prompts -> completion token ids, for every caller that generates.

    batch = left_padded(prompts, policy, repeat=4)           # stage 2: G samples of one prompt
    ids = sample(policy, batch, Sampling(temperature=1.0, max_new_tokens=128))

Stage 2's labelled-step sampling (`train.grpo.generate`), stage 3's rollouts (`train.rollout.generate_batch`), the
held-out greedy scoring of stages 1-2 and the `hf:` agent all call `sample`: the same decoding options (greedy when
the temperature is 0; otherwise temperature, top-p and no top-k, as TRL samples), the same end tokens, and every
completion cut right after its first end token. Callers choose only how prompts are batched.

A batch of text prompts is prefilled before `generate` (`prefilled`): each distinct prompt once (stage 2 repeats
each prompt G times), right-padded so that no padding mask is needed, which lets attention run PyTorch's fused
causal kernel instead of the masked one a left-padded batch needs (on a CPU the masked kernel made the prefill most
of a batch's time). `generate` then decodes every row together from that cache, left-padded as before, with the
same positions and the same tokens (`tests/models/test_generation.py`). The cache is a static one, its room for the
new tokens allocated once: a growing cache copies every row's keys and values at each new token, which on a CPU
was a quarter of a batch's decoding (16 prompts, small-lm, 120 new tokens: 0.92 s with it, 0.70 s without).

A sampled token is drawn by `draw` (a logits processor applies transformers' temperature and top-p warpers, draws,
and hands greedy search a score on which it picks that token, as `serve/hf.py` does per row): one uniform number per
row looked up in the row's cumulative probabilities. `torch.multinomial`, which `generate(do_sample=True)` calls,
draws one exponential number per vocabulary entry instead: at 16 rows of a 4,096-token vocabulary that was 1.5 ms of
a 5-10 ms CPU decoding step. The distribution is the same; the random numbers are not those of `do_sample=True`.
"""

from __future__ import annotations

import functools
import inspect
from dataclasses import dataclass
from typing import Any

import torch
from transformers import DynamicCache, LogitsProcessor, LogitsProcessorList, StaticCache
from transformers.cache_utils import DynamicLayer, StaticLayer
from transformers.generation.logits_process import TemperatureLogitsWarper, TopPLogitsWarper

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


def cache_argument(model: torch.nn.Module, cache: DynamicCache | StaticCache) -> dict[str, DynamicCache | StaticCache]:
    """The key/value cache as `forward` and `generate` take it: `cache` from transformers 5 on (where
    `past_key_values` is deprecated), `past_key_values` before."""
    base = model.get_base_model() if hasattr(model, "get_base_model") else model  # a peft model passes it through
    return {"cache": cache} if _forward_takes(type(base), "cache") else {"past_key_values": cache}


@functools.cache
def _forward_takes(model_class: type, argument: str) -> bool:
    """Whether the class's forward has `argument` (looked up once per class, not every step)."""
    return argument in inspect.signature(model_class.forward).parameters


@torch.no_grad()
def prefilled(model: torch.nn.Module, batch: dict[str, Any], pad_id: int, room: int) -> StaticCache | None:
    """The key/value cache of every row of a left-padded text batch but its last token, laid out as `generate` keeps
    a left-padded batch (a row's keys at the right end, zeros under its padding), with `room` places after them for
    the tokens to come; or None where this does not apply (images in the batch, a model whose cache layers are not
    plain full-attention ones, prompts of one token).

    The distinct rows run once, right-padded and without a mask: in causal attention a row's tokens never see the
    padding after them, so the fused causal kernel serves, and the positions (0, 1, ...) are those `generate` gives
    a left-padded row (it counts only real tokens). The last token is left for `generate`, which computes its logits.
    """
    if set(batch) != {"input_ids", "attention_mask"}:
        return None
    ids, mask = batch["input_ids"], batch["attention_mask"]
    rows, width = ids.shape
    lengths = mask.sum(dim=1).tolist()
    longest = max(lengths) - 1
    if longest < 1 or not all(mask[r, width - n :].all() for r, n in enumerate(lengths)):
        return None  # prompts of one token, or a batch not left-padded
    distinct: dict[tuple[int, ...], int] = {}
    of_row = [distinct.setdefault(tuple(ids[r, width - lengths[r]:].tolist()), len(distinct)) for r in range(rows)]
    firsts = {d: r for r, d in reversed(list(enumerate(of_row)))}
    right = ids.new_full((len(distinct), longest), pad_id)
    for d, r in firsts.items():
        right[d, : lengths[r] - 1] = ids[r, width - lengths[r] : width - 1]
    base = model.get_base_model() if hasattr(model, "get_base_model") else model
    once = DynamicCache(config=base.config)
    extra = {"logits_to_keep": 1} if _forward_takes(type(base), "logits_to_keep") else {}
    model(input_ids=right, use_cache=True, **cache_argument(model, once), **extra)
    if not once.layers or any(type(layer) is not DynamicLayer for layer in once.layers):
        return None
    out = StaticCache(config=base.config, max_cache_len=width - 1 + room)
    if len(out.layers) != len(once.layers) or any(type(layer) is not StaticLayer for layer in out.layers):
        return None
    for index, layer in enumerate(once.layers):
        keys = layer.keys.new_zeros(rows, layer.keys.shape[1], width - 1, layer.keys.shape[3])
        values = layer.values.new_zeros(rows, layer.values.shape[1], width - 1, layer.values.shape[3])
        for r in range(rows):
            n = lengths[r] - 1
            if n:
                keys[r, :, width - 1 - n :] = layer.keys[of_row[r], :, :n]
                values[r, :, width - 1 - n :] = layer.values[of_row[r], :, :n]
        out.update(keys, values, index)
    return out


def draw(probs: torch.Tensor, generator: torch.Generator | None = None) -> torch.Tensor:
    """One token id per row of `probs` (each row a distribution), by inverse transform sampling: the first id whose
    cumulative probability exceeds a uniform number drawn for the row (`generator`, else torch's global one). Sums run
    in float64, so a vocabulary of 150,000 entries loses nothing to rounding; a zero-probability id is never drawn."""
    cumulative = probs.to(torch.float64).cumsum(dim=-1)
    uniform = torch.rand(probs.shape[0], 1, generator=generator, device=probs.device, dtype=torch.float64)
    ids = torch.searchsorted(cumulative, uniform * cumulative[:, -1:], right=True)
    return ids.clamp_(max=probs.shape[-1] - 1).squeeze(1)


class DrawProcessor(LogitsProcessor):
    """Applies temperature and top-p (transformers' own warpers, in its order), draws each row's token (`draw`) and
    returns scores on which greedy search picks it."""

    def __init__(self, sampling: Sampling) -> None:
        self.warpers: list[LogitsProcessor] = []
        if sampling.temperature != 1.0:
            self.warpers.append(TemperatureLogitsWarper(float(sampling.temperature)))
        if sampling.top_p < 1.0:
            self.warpers.append(TopPLogitsWarper(float(sampling.top_p)))

    def __call__(self, input_ids: torch.LongTensor, scores: torch.FloatTensor) -> torch.FloatTensor:
        for warper in self.warpers:
            scores = warper(input_ids, scores)
        chosen = draw(torch.softmax(scores.float(), dim=-1))
        return torch.full_like(scores, float("-inf")).scatter_(1, chosen.unsqueeze(1), 0.0)


@torch.no_grad()
def sample(policy: Policy, batch: dict[str, Any], sampling: Sampling, seed: int | None = None) -> list[list[int]]:
    """One completion per row of `batch` (a left-padded encoding): token ids, cut after the first end token.
    `seed` reseeds torch first, so that sampling from the same batch gives the same completions. A text batch of
    several rows is prefilled first (`prefilled`)."""
    model = unwrap(policy.model)
    eos = eos_ids(policy)
    options: dict[str, Any] = {"do_sample": False}
    if sampling.temperature > 0:
        options["logits_processor"] = LogitsProcessorList([DrawProcessor(sampling)])
        if seed is not None:
            torch.manual_seed(seed)
    width = batch["input_ids"].shape[1]
    was_training = model.training
    model.eval()
    try:
        cache = None
        if batch["input_ids"].shape[0] > 1 and not policy.takes_images:
            cache = prefilled(model, batch, policy.tokenizer.pad_token_id, int(sampling.max_new_tokens))
        if cache is not None:
            options.update(cache_argument(model, cache))
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


__all__ = ["DrawProcessor", "PromptInput", "Sampling", "cache_argument", "draw", "eos_ids", "left_padded", "prefilled",
           "sample"]
