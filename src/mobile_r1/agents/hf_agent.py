"""The `hf:` agent: a local transformers model (from `mobile_r1.models.load_policy`) prompted through a dialect, batched.

    agent = HFAgent("tiny-lm", dialect="qwen2.5vl")            # text-only model: reads the element list
    agent = HFAgent("path/to/qwen2.5-vl", dialect="inquire", prescale=0.3, temperature=0.0)
    outputs = agent.act_batch(requests)                          # generate() calls of up to batch_size requests

Greedy decoding when `temperature` is 0, sampling otherwise. The requests of one `act_batch` call are batched by
length (`group_by_length`, on by default): prompts of similar length share a `generate` call, so that the few long
screens of a turn do not pad every other prompt to their length. A LoRA adapter loads either as the model
itself (a folder with `adapter_config.json`) or on top of the base model with `adapter=PATH`; the agent then folds
it into the weights (`merge_adapter`, on by default), which generates 1.5x faster in bfloat16 on a CPU
(`benchmarks/lora_merge.py`). In float32 the texts stay the same; in bfloat16 the folded weights are rounded, so a
few greedy texts can differ from the adapter's own (18 of 24 the same in that benchmark): `merge_adapter=False`
keeps the adapter apart.

A model folder written by `mobile-r1 train` holds `prompt_view.json`: the dialect, observation mode, frame and
history window its training prompts used. They are this agent's defaults for that model; arguments given win.
Elsewhere the defaults are the qwen2.5vl dialect, screenshots for a vision model and the element list for a text one.
"""

from __future__ import annotations

from typing import Any, Sequence

import torch
from PIL import Image

from mobile_r1.agents.base import Agent, AgentOutput, AgentRequest, ModelView, saved_view_options
from mobile_r1.agents.registry import need_argument, register_agent
from mobile_r1.core.dialects.base import reply_chars
from mobile_r1.core.errors import ConfigError
from mobile_r1.models import load_policy, merge_lora
from mobile_r1.models.batching import length_groups
from mobile_r1.models.generation import Sampling, sample
from mobile_r1.models.policy import Policy, decode_completion

Prompt = tuple[list[dict[str, Any]], list[Image.Image]]


def generate(
    policy: Policy,
    prompts: Sequence[Prompt],
    *,
    temperature: float = 0.0,
    top_p: float = 1.0,
    max_new_tokens: int = 256,
    seed: int | None = None,
    max_batch: int | None = None,
    group_by_length: bool = True,
) -> list[str]:
    """Generate one reply per (HF chat messages, images) prompt, in left-padded batches of at most `max_batch`.

    With `group_by_length` the batches gather prompts of similar length (`mobile_r1.models.batching`), so that a few
    long prompts do not pad all the others; otherwise they are consecutive runs of the prompts as given.
    """
    if not prompts:
        return []
    if policy.takes_images:
        template = policy.processor
    elif any(imgs for _, imgs in prompts):
        raise ConfigError(f"model {policy.spec!r} reads no images; use the text observation mode")
    else:
        template = policy.tokenizer

    def encode(rows: Sequence[int]) -> dict[str, Any]:
        texts = [template.apply_chat_template(prompts[r][0], tokenize=False, add_generation_prompt=True) for r in rows]
        if policy.takes_images:
            images = [image for r in rows for image in prompts[r][1]]
            return dict(policy.processor(text=texts, images=images or None, padding=True))
        return dict(policy.tokenizer(texts, return_tensors="pt", padding=True, add_special_tokens=False))

    size = len(prompts) if max_batch is None else max_batch
    runs = [list(range(start, min(start + size, len(prompts)))) for start in range(0, len(prompts), size)]
    inputs = encode(range(len(prompts)))
    if set(inputs) <= BATCH_KEYS:  # batches are cut out of one encoding of every prompt
        lengths = inputs["attention_mask"].sum(dim=1).tolist()
        images_per_prompt = [len(imgs) for _, imgs in prompts]
        groups = length_groups(lengths, max_size=size) if group_by_length else runs
        batches = [(rows, _select_rows(inputs, rows, max(lengths[r] for r in rows), images_per_prompt))
                   for rows in groups]
    else:  # a processor output not known here: each run of prompts as given is encoded on its own
        batches = [(rows, inputs if len(runs) == 1 else encode(rows)) for rows in runs]
    sampling = Sampling(float(temperature), float(top_p), int(max_new_tokens))
    texts_out: list[str] = [""] * len(prompts)
    for rows, batch in batches:
        batch = {k: v.to(policy.device) if hasattr(v, "to") else v for k, v in batch.items()}
        # each generate call samples from the same seed; special tags such as <think> and <tool_call> (special tokens
        # in some tokenizers) are kept: the dialect parses them
        for r, ids in zip(rows, sample(policy, batch, sampling, seed)):
            texts_out[r] = decode_completion(policy, ids)
    return texts_out


# The processor outputs `_select_rows` can cut into batches. With any other output the prompts are batched as given.
BATCH_KEYS = {"input_ids", "attention_mask", "pixel_values", "image_grid_thw"}


def _select_rows(inputs: dict[str, Any], rows: list[int], width: int, images_per_prompt: list[int]) -> dict[str, Any]:
    """The left-padded batch of prompts `rows` from the batch of all prompts, cut to its longest prompt, `width`."""
    if rows == list(range(len(images_per_prompt))):
        return inputs
    if inputs["attention_mask"][rows, : inputs["attention_mask"].shape[1] - width].any():
        raise ValueError("generate needs left-padded prompts (the tokenizer's padding_side 'left')")
    batch = {k: inputs[k][rows, -width:] for k in ("input_ids", "attention_mask")}
    if "pixel_values" in inputs:
        grid = inputs["image_grid_thw"]
        patches = grid.prod(dim=1).tolist()
        first_image = [sum(images_per_prompt[:r]) for r in range(len(images_per_prompt))]
        keep = [k for r in rows for k in range(first_image[r], first_image[r] + images_per_prompt[r])]
        starts = [sum(patches[:k]) for k in range(len(patches))]
        batch["image_grid_thw"] = grid[keep]
        batch["pixel_values"] = torch.cat([inputs["pixel_values"][starts[k] : starts[k] + patches[k]] for k in keep])
    return batch


def load_adapter(policy: Policy, adapter: str) -> Policy:
    """`policy` with the LoRA adapter saved in folder `adapter` on top of its model."""
    from peft import PeftModel

    policy.model = PeftModel.from_pretrained(policy.model, adapter)
    policy.uses_lora = True
    return policy


class HFAgent(Agent):
    """A local transformers model behind a dialect. `model` is a `Policy` or a spec for `load_policy`."""

    name = "hf"

    def __init__(
        self,
        model: Policy | str,
        *,
        dialect: str | None = None,
        observation_mode: str | None = None,
        frame: str | None = None,
        prescale: float | None = None,
        max_pixels: int | None = None,
        min_pixels: int | None = None,
        history_window: int | None = None,
        temperature: float = 0.0,
        top_p: float = 1.0,
        max_new_tokens: int = 256,
        batch_size: int = 8,
        group_by_length: bool = True,
        adapter: str | None = None,
        merge_adapter: bool = True,
        seed: int | None = 0,
        dtype: str = "float32",
        device: str | None = None,
    ) -> None:
        if batch_size < 1:
            raise ConfigError(f"batch_size must be >= 1, got {batch_size}")
        # A model (or adapter) folder a training run wrote holds the view its prompts were built with: the defaults here.
        saved: dict[str, Any] = {}
        for folder in (model, adapter):
            if isinstance(folder, str):
                saved.update(saved_view_options(folder))
        owned = isinstance(model, str)  # loaded here: only this agent generates with it (a Policy may be training)
        if owned:
            model = load_policy(model, dtype=dtype, device=device)
        if adapter:
            model = load_adapter(model, adapter)
        if owned and merge_adapter:
            model = merge_lora(model)
        self.policy = model
        self.policy.model.eval()
        given = {"dialect": dialect, "observation_mode": observation_mode, "frame": frame, "prescale": prescale,
                 "max_pixels": max_pixels, "min_pixels": min_pixels, "history_window": history_window}
        view = {**saved, **{k: v for k, v in given.items() if v is not None}}
        view.setdefault("dialect", "qwen2.5vl")
        view.setdefault("observation_mode", "image" if self.policy.takes_images else "text")
        self.view = ModelView.create(**{k: v for k, v in view.items() if v is not None})
        self.temperature = temperature
        self.top_p = top_p
        self.max_new_tokens = max_new_tokens
        self.batch_size = batch_size
        self.group_by_length = group_by_length
        self.seed = seed

    def act_batch(self, requests: Sequence[AgentRequest]) -> list[AgentOutput]:
        texts = generate(
            self.policy,
            [self.view.prompt(r) for r in requests],
            temperature=self.temperature,
            top_p=self.top_p,
            max_new_tokens=self.max_new_tokens,
            seed=self.seed,
            max_batch=self.batch_size,
            group_by_length=self.group_by_length,
        )
        limit = reply_chars(self.max_new_tokens)
        return [self.view.output(t, r.observation, max_chars=limit) for t, r in zip(texts, requests)]

    @classmethod
    def from_spec(cls, argument: str | None, **options: Any) -> HFAgent:
        """The agent `hf:MODEL` names (a preset, a local directory or a hub id)."""
        return cls(need_argument(argument, "hf", "hf:tiny-lm or hf:PATH"), **options)

    def __repr__(self) -> str:
        return f"HFAgent(model={self.policy.spec!r}, dialect={self.view.dialect.name!r})"


register_agent("hf", HFAgent.from_spec, replace=True)
