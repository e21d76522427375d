"""An OpenAI-compatible chat-completions server in front of a local transformers model (`HFEngine`: dynamic
batching, streaming, logprobs, token ids, LoRA adapter hot-swap) or any `ChatModel` (echo, scripted replies)."""

from typing import TYPE_CHECKING

from mobile_r1.serve.chat_models import ChatModel, EchoModel, ScriptedModel, make_chat_model
from mobile_r1.serve.engine import ChatResult, Completion, Engine, SamplingParams, ServeError, TextEngine
from mobile_r1.serve.server import LoopbackServer, ServerSettings, create_app, free_port, serve

if TYPE_CHECKING:
    from mobile_r1.serve.hf import HFEngine

__all__ = [
    "ChatModel",
    "ChatResult",
    "Completion",
    "EchoModel",
    "Engine",
    "HFEngine",
    "LoopbackServer",
    "SamplingParams",
    "ScriptedModel",
    "ServeError",
    "ServerSettings",
    "TextEngine",
    "create_app",
    "free_port",
    "make_chat_model",
    "serve",
]


def __getattr__(name: str) -> "type[HFEngine]":
    if name == "HFEngine":  # needs torch and transformers: imported when asked for
        from mobile_r1.serve.hf import HFEngine

        return HFEngine
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
