"""What answers behind `mobile-r1 serve`: chat models for tests (`EchoModel`, `ScriptedModel`) and `make_chat_model`.

A `ChatModel` turns messages into one reply and is served through `TextEngine`; a transformers model is served by
`HFEngine` (`serve/hf.py`), which batches concurrent requests and hot-swaps LoRA adapters. (The phones' backends are
another thing altogether: `mobile_r1.env.Backend`.)
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any, Sequence

from mobile_r1.agents.chat import ChatMessage
from mobile_r1.core.errors import ConfigError
from mobile_r1.serve.engine import ChatModel, Engine

if TYPE_CHECKING:
    from mobile_r1.serve.hf import HFEngine

__all__ = ["ChatModel", "EchoModel", "HFEngine", "ScriptedModel", "make_chat_model"]


class EchoModel:
    """Replies with the text of the last user message: a deterministic model for smoke tests."""

    def complete(self, messages: Sequence[ChatMessage], temperature: float, max_tokens: int) -> str:
        users = [m for m in messages if m.role == "user"]
        return users[-1].text if users else ""


class ScriptedModel:
    """Replies with `replies` in turn (the last one repeats), and keeps every request it saw in `requests`.

    A reply that is an Exception instance is raised instead (to test error handling and retries).
    """

    def __init__(self, replies: Sequence[str | Exception]) -> None:
        if not replies:
            raise ConfigError("ScriptedModel needs at least one reply")
        self.replies = list(replies)
        self.requests: list[tuple[list[ChatMessage], float, int]] = []
        self._lock = threading.Lock()

    def complete(self, messages: Sequence[ChatMessage], temperature: float, max_tokens: int) -> str:
        with self._lock:
            index = min(len(self.requests), len(self.replies) - 1)
            self.requests.append((list(messages), temperature, max_tokens))
        reply = self.replies[index]
        if isinstance(reply, Exception):
            raise reply
        return reply


def make_chat_model(spec: str, *, dtype: str = "float32", device: str | None = None, seed: int | None = 0,
                    **engine_options: Any) -> ChatModel | Engine:
    """What answers for a spec: `echo` (a `ChatModel`), or a model (an `HFEngine` of `hf:PATH_OR_ID`, or of a bare
    preset name, directory or hub id).

    `dtype` and `device` go to `mobile_r1.models.load_policy`; `seed` and `engine_options` (`max_batch`,
    `batch_window`, `default_max_tokens`, `max_tokens_limit`, `max_model_len`, ...) to `HFEngine`. A LoRA folder is
    served with its adapter folded into the weights.
    """
    spec = spec.strip()
    if spec == "echo":
        return EchoModel()
    name = spec[3:] if spec.startswith("hf:") else spec
    if not name:
        raise ConfigError("--model needs a model: hf:PATH_OR_ID, a preset (tiny-lm, tiny-vl, smollm2-135m) or 'echo'")
    from mobile_r1.models import load_policy, merge_lora
    from mobile_r1.serve.hf import HFEngine

    policy = merge_lora(load_policy(name, dtype=dtype, device=device))  # served, never trained: an adapter is folded in
    policy.model.eval()
    return HFEngine(policy, seed=seed, model_name=spec, **engine_options)


def __getattr__(name: str) -> type[HFEngine]:
    if name == "HFEngine":  # imported when asked for: it needs torch and transformers, the test models do not
        from mobile_r1.serve.hf import HFEngine

        return HFEngine
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
