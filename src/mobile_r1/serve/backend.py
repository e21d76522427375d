"""What answers behind `mobile-r1 serve`: the `ChatBackend` protocol, a local transformers model, and test backends."""

from __future__ import annotations

import threading
from typing import Any, Protocol, Sequence, runtime_checkable

from mobile_r1.agents.chat import ChatMessage
from mobile_r1.core.errors import ConfigError


@runtime_checkable
class ChatBackend(Protocol):
    """Anything that turns chat messages into one assistant reply."""

    def complete(self, messages: Sequence[ChatMessage], temperature: float, max_tokens: int) -> str:
        """The assistant's reply to `messages`; temperature 0 means greedy decoding."""
        ...


class EchoBackend:
    """Replies with the text of the last user message: a deterministic backend for smoke tests."""

    def complete(self, messages: Sequence[ChatMessage], temperature: float, max_tokens: int) -> str:
        users = [m for m in messages if m.role == "user"]
        return users[-1].text if users else ""


class ScriptedBackend:
    """Replies with `replies` in turn (the last one repeats), and keeps every request it saw in `requests`.

    A reply that is an Exception instance is raised instead (to test error handling and retries).
    """

    def __init__(self, replies: Sequence[str | Exception]) -> None:
        if not replies:
            raise ConfigError("ScriptedBackend needs at least one reply")
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


class HFBackend:
    """A local transformers model (a `mobile_r1.models.Policy`) generating one reply per request."""

    def __init__(self, policy: Any, *, seed: int = 0) -> None:
        self.policy = policy
        self.seed = seed
        self._lock = threading.Lock()

    def complete(self, messages: Sequence[ChatMessage], temperature: float, max_tokens: int) -> str:
        from mobile_r1.agents.chat import to_hf
        from mobile_r1.agents.hf_agent import generate

        hf_messages, images = to_hf(messages)
        with self._lock:  # one generation at a time on one model
            return generate(
                self.policy, [(hf_messages, images)], temperature=temperature, max_new_tokens=max_tokens, seed=self.seed
            )[0]


def make_backend(spec: str, **options: Any) -> ChatBackend:
    """A backend from a spec: `echo`, or a model (`hf:PATH_OR_ID`, or a bare preset name, directory or hub id).

    Model options go to `mobile_r1.models.load_policy` (`dtype`, `device`, `seed`).
    """
    spec = spec.strip()
    if spec == "echo":
        return EchoBackend()
    name = spec[3:] if spec.startswith("hf:") else spec
    if not name:
        raise ConfigError("--model needs a model: hf:PATH_OR_ID, a preset (tiny-lm, tiny-vl, smollm2-135m) or 'echo'")
    from mobile_r1.models import load_policy, merge_lora

    policy = merge_lora(load_policy(name, **options))  # served, never trained: a LoRA adapter is folded in
    policy.model.eval()
    return HFBackend(policy, seed=int(options.get("seed", 0)))
