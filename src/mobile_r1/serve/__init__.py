"""An OpenAI-compatible chat-completions server in front of a local transformers model (`HFBackend`: dynamic
batching, streaming, logprobs, token ids, LoRA adapter hot-swap) or any `ChatBackend` (echo, scripted replies)."""

from typing import TYPE_CHECKING

from mobile_r1.serve.backend import ChatBackend, EchoBackend, ScriptedBackend, make_backend
from mobile_r1.serve.engine import ChatResult, Completion, Engine, SamplingParams, ServeError, TextEngine
from mobile_r1.serve.server import LoopbackServer, ServerSettings, create_app, free_port, serve

if TYPE_CHECKING:
    from mobile_r1.serve.hf import HFBackend

__all__ = [
    "ChatBackend",
    "ChatResult",
    "Completion",
    "EchoBackend",
    "Engine",
    "HFBackend",
    "LoopbackServer",
    "SamplingParams",
    "ScriptedBackend",
    "ServeError",
    "ServerSettings",
    "TextEngine",
    "create_app",
    "free_port",
    "make_backend",
    "serve",
]


def __getattr__(name: str) -> "type[HFBackend]":
    if name == "HFBackend":  # needs torch and transformers: imported when asked for
        from mobile_r1.serve.hf import HFBackend

        return HFBackend
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
