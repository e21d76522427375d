"""The `hf:` agent: a local transformers model (from `mobile_r1.models.load_policy`) prompted through a dialect, batched.

    agent = HFAgent("tiny-lm", dialect="qwen2.5vl")            # text-only model: reads the element list
    agent = HFAgent("path/to/qwen2.5-vl", dialect="inquire", prescale=0.3, temperature=0.0)
    outputs = agent.act_batch(requests)                          # one generate() call per batch_size requests

Greedy decoding when `temperature` is 0, sampling otherwise. A LoRA adapter loads either as the model
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

from mobile_r1.agents.base import Agent, AgentOutput, AgentRequest, ModelView, saved_view_options
from mobile_r1.core.errors import ConfigError

Prompt = tuple[list[dict[str, Any]], list[Any]]


def generate(
    policy: Any,
    prompts: Sequence[Prompt],
    *,
    temperature: float = 0.0,
    top_p: float = 1.0,
    max_new_tokens: int = 256,
    seed: int | None = None,
) -> list[str]:
    """Generate one reply per (HF chat messages, images) prompt in a single left-padded batch."""
    import torch

    from mobile_r1.models.policy import decode_completion

    if not prompts:
        return []
    template = policy.processor if policy.takes_images else policy.tokenizer
    texts = [template.apply_chat_template(m, tokenize=False, add_generation_prompt=True) for m, _ in prompts]
    images = [image for _, imgs in prompts for image in imgs]
    if policy.takes_images:
        inputs = policy.processor(text=texts, images=images or None, padding=True)
    else:
        if images:
            raise ConfigError(f"model {policy.spec!r} reads no images; use the text observation mode")
        inputs = dict(policy.tokenizer(texts, return_tensors="pt", padding=True, add_special_tokens=False))
    device = policy.device
    inputs = {k: v.to(device) if hasattr(v, "to") else v for k, v in inputs.items()}
    options: dict[str, Any] = {
        "max_new_tokens": int(max_new_tokens),
        "pad_token_id": policy.tokenizer.pad_token_id,
        "do_sample": temperature > 0,
    }
    if temperature > 0:
        options.update(temperature=float(temperature), top_p=float(top_p), top_k=0)
        if seed is not None:
            torch.manual_seed(seed)
    model = policy.model
    was_training = model.training
    model.eval()
    try:
        with torch.no_grad():
            out = model.generate(**inputs, **options)
    finally:
        model.train(was_training)
    completions = out[:, inputs["input_ids"].shape[1] :]
    # Keep special tags such as <think> and <tool_call> (special tokens in some tokenizers): the dialect parses them.
    return [decode_completion(policy, row.tolist()) for row in completions]


def load_adapter(policy: Any, adapter: str) -> Any:
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
        model: Any,
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
            from mobile_r1.models import load_policy

            model = load_policy(model, dtype=dtype, device=device)
        if adapter:
            model = load_adapter(model, adapter)
        if owned and merge_adapter:
            from mobile_r1.models import merge_lora

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
        self.seed = seed

    def act_batch(self, requests: Sequence[AgentRequest]) -> list[AgentOutput]:
        outputs: list[AgentOutput] = []
        for start in range(0, len(requests), self.batch_size):
            chunk = list(requests[start : start + self.batch_size])
            texts = generate(
                self.policy,
                [self.view.prompt(r) for r in chunk],
                temperature=self.temperature,
                top_p=self.top_p,
                max_new_tokens=self.max_new_tokens,
                seed=self.seed,
            )
            outputs.extend(self.view.output(t, r.observation) for t, r in zip(texts, chunk))
        return outputs

    def __repr__(self) -> str:
        return f"HFAgent(model={self.policy.spec!r}, dialect={self.view.dialect.name!r})"
