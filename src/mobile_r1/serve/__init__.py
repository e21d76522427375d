"""An OpenAI-compatible chat-completions server in front of any `ChatBackend` (a local transformers model, a script)."""

from mobile_r1.serve.backend import ChatBackend, EchoBackend, ScriptedBackend, make_backend
from mobile_r1.serve.server import LoopbackServer, create_app, free_port, serve

__all__ = [
    "ChatBackend",
    "EchoBackend",
    "LoopbackServer",
    "ScriptedBackend",
    "create_app",
    "free_port",
    "make_backend",
    "serve",
]
