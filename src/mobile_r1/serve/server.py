"""The OpenAI-compatible HTTP server: `/v1/chat/completions` and `/v1/models` over FastAPI + uvicorn.

    backend = make_backend("hf:tiny-lm")
    serve(backend, host="127.0.0.1", port=8000, model_name="tiny-lm")     # blocks

    with LoopbackServer(ScriptedBackend(["hi"])) as server:               # background thread, stops on exit
        client = openai.OpenAI(base_url=server.base_url, api_key="none")
"""

import socket
import threading
import time
import uuid
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from mobile_r1.agents.chat import from_openai
from mobile_r1.core.errors import ConfigError, MobileR1Error
from mobile_r1.serve.backend import ChatBackend

DEFAULT_MAX_TOKENS = 512


class ChatRequest(BaseModel):
    """The fields of an OpenAI chat-completions request this server reads (others are accepted and ignored)."""

    model_config = ConfigDict(extra="allow")

    model: str | None = None
    messages: list[dict[str, Any]] = Field(min_length=1)
    temperature: float = Field(default=1.0, ge=0.0, le=2.0)
    max_tokens: int | None = Field(default=None, ge=1)
    max_completion_tokens: int | None = Field(default=None, ge=1)
    n: int = 1
    stream: bool = False


def create_app(backend: ChatBackend, model_name: str = "mobile-r1") -> Any:
    """A FastAPI app answering OpenAI chat-completions requests with `backend`, one request at a time."""
    from fastapi import FastAPI, Request
    from fastapi.responses import JSONResponse

    app = FastAPI(title="mobile-r1 serve", docs_url=None, redoc_url=None)
    lock = threading.Lock()

    def error(status: int, message: str, kind: Literal["invalid_request_error", "server_error"]) -> JSONResponse:
        return JSONResponse(status_code=status, content={"error": {"message": message, "type": kind, "code": status}})

    @app.exception_handler(MobileR1Error)
    async def _project_error(_: Request, exc: MobileR1Error) -> JSONResponse:
        return error(400, str(exc), "invalid_request_error")

    @app.get("/v1/models")
    def models() -> dict[str, Any]:
        return {"object": "list", "data": [{"id": model_name, "object": "model", "created": 0, "owned_by": "mobile-r1"}]}

    @app.get("/health")
    def health() -> dict[str, str]:
        return {"status": "ok"}

    @app.post("/v1/chat/completions", response_model=None)
    def chat_completions(request: ChatRequest) -> dict[str, Any] | JSONResponse:
        if request.stream:
            return error(400, "streaming is not supported; send stream=false", "invalid_request_error")
        if request.n != 1:
            return error(400, "only n=1 is supported", "invalid_request_error")
        messages = from_openai(request.messages)
        max_tokens = request.max_completion_tokens or request.max_tokens or DEFAULT_MAX_TOKENS
        try:
            with lock:
                text = backend.complete(messages, request.temperature, max_tokens)
        except MobileR1Error as exc:
            return error(400, str(exc), "invalid_request_error")
        except Exception as exc:  # the backend failed: a 500 the client may retry
            return error(500, f"backend error: {type(exc).__name__}: {exc}", "server_error")
        return {
            "id": f"chatcmpl-{uuid.uuid4().hex}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": request.model or model_name,
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
        }

    return app


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port nobody listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


def serve(backend: ChatBackend, *, host: str = "127.0.0.1", port: int = 8000, model_name: str = "mobile-r1") -> None:
    """Serve `backend` until interrupted (Ctrl-C)."""
    import uvicorn

    uvicorn.run(create_app(backend, model_name), host=host, port=port, log_level="warning")


class LoopbackServer:
    """Serve a backend on 127.0.0.1 in a background thread for the length of a `with` block.

    Startup waits at most `start_timeout` seconds; leaving the block stops the server (at most
    `stop_timeout` seconds). `base_url` is the OpenAI client's base URL (`http://127.0.0.1:PORT/v1`).
    """

    def __init__(
        self,
        backend: ChatBackend,
        *,
        model_name: str = "mobile-r1",
        port: int | None = None,
        start_timeout: float = 20.0,
        stop_timeout: float = 10.0,
    ) -> None:
        import uvicorn

        self.host = "127.0.0.1"
        self.port = port or free_port(self.host)
        self.start_timeout = start_timeout
        self.stop_timeout = stop_timeout
        config = uvicorn.Config(
            create_app(backend, model_name), host=self.host, port=self.port, log_level="warning", lifespan="off"
        )
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run, name=f"serve-{self.port}", daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}/v1"

    def __enter__(self) -> "LoopbackServer":
        self._thread.start()
        deadline = time.monotonic() + self.start_timeout
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                self.stop()
                raise ConfigError(f"the loopback server did not start on port {self.port} within {self.start_timeout:.0f} s")
            time.sleep(0.02)
        return self

    def stop(self) -> None:
        self._server.should_exit = True
        if self._thread.is_alive():
            self._thread.join(self.stop_timeout)

    def __exit__(self, *exc: object) -> None:
        self.stop()
