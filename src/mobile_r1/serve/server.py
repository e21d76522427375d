"""The OpenAI-compatible HTTP server: chat completions, models, health and LoRA adapter hot-swap, over FastAPI + uvicorn.

    model = make_chat_model("hf:tiny-lm")
    serve(model, host="127.0.0.1", port=8000, model_name="tiny-lm")       # blocks

    with LoopbackServer(ScriptedModel(["hi"])) as server:               # background thread, stops on exit
        client = openai.OpenAI(base_url=server.base_url, api_key="none")

Endpoints: POST /v1/chat/completions (`api.py` lists the fields; `stream: true` answers server-sent events,
`data: {chunk}` lines ending with `data: [DONE]`), POST /v1/completions (one prompt, text or token ids, not streamed),
GET /v1/models (the base model and each adapter, with `parent` and
`root` as vLLM gives them), GET /health (`status` and the engine's counters), and, when adapter updates are on
(`ServerSettings.lora_updates`, `mobile-r1 serve --lora-updates`, off by default as vLLM keeps them off unless
`VLLM_ALLOW_RUNTIME_LORA_UPDATING` is set), POST /v1/load_lora_adapter `{"lora_name": N, "lora_path": P}` and POST
/v1/unload_lora_adapter `{"lora_name": N}`, which answer 200 with a plain-text "Success: ..." line, 400 for a bad
request or an adapter that does not fit the model and 404 for a missing folder or an unknown name, following vLLM's
"Dynamically serving LoRA Adapters" (https://docs.vllm.ai/en/latest/features/lora/) and its `serving_models.py`.
A request then selects the adapter with `"model": N` (vLLM), or `"model": "BASE:N"` (SGLang's OpenAI-API syntax,
https://docs.sglang.io/docs/advanced_features/lora); any other `model` is answered by the base model, and the
response's `model` says which answered. Unlike vLLM, which wants `load_inplace: true` to replace an adapter, loading a
name again always replaces it: a trainer publishes its adapter after every step under one name. SGLang serves the
same operations at /load_lora_adapter and /unload_lora_adapter; only vLLM's /v1 paths are served here.

Robustness: the body is read up to `max_request_bytes` (413 past it, before JSON parsing); JSON parsing, validation,
image decoding (each image's header checked against `max_image_pixels` and the request's against `max_total_pixels`
before its pixels are decoded), templating and tokenising run in worker threads, at most `max_preparing` at once, and
generation runs on the engine's own thread, so the event loop keeps answering /health and /v1/models while a batch
runs. Every refusal is an OpenAI-shaped error: 400 with a message that says what to change, 422 for a body that does
not fit the schema, 413 for a body too large, 404 for a missing adapter, 503 when the queue is full. A client that
disconnects (or closes a stream) has its generation stopped. The server binds 127.0.0.1 unless told otherwise.

Connections: one that has not sent a whole request's headers within `header_timeout` seconds of opening (or of its
last answer) is closed, and so is the longest-idle one when `max_connections` are open and another arrives, so idle
or slow connections cannot crowd out working clients (only requests in flight count against the limit: past it, 503);
a body must arrive within `body_timeout` seconds (408).
"""

import asyncio
import json
import logging
import socket
import threading
import time
import uuid
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, AsyncIterator, TypeVar

from pydantic import BaseModel, ValidationError

from mobile_r1.agents.chat import from_openai
from mobile_r1.core.errors import ConfigError, MobileR1Error
from mobile_r1.serve.api import (
    ChatRequest,
    CompletionRequest,
    LoadLoraRequest,
    UnloadLoraRequest,
    chunk_body,
    completion_body,
    delta_choice,
    describe,
    error_body,
    text_completion_body,
    usage_body,
)
from mobile_r1.serve.engine import (
    ChatModel,
    ChatResult,
    Delta,
    Engine,
    Prepared,
    SamplingParams,
    ServeError,
    TextEngine,
)

if TYPE_CHECKING:  # the `serve` extra: FastAPI and uvicorn are imported when a server is made
    import uvicorn
    from fastapi import FastAPI, Request

log = logging.getLogger(__name__)
Body = TypeVar("Body", bound=BaseModel)


@dataclass(frozen=True)
class ServerSettings:
    """Bounds and switches of the HTTP layer (the engine has its own: batch size, max_tokens, queue)."""

    max_request_bytes: int = 16 * 2**20
    max_image_pixels: int = 4096 * 4096
    max_total_pixels: int = 48 * 2**20
    max_preparing: int = 4
    lora_updates: bool = False
    max_connections: int = 256
    header_timeout: float = 15.0  # seconds to send a request's headers, from the connection's start or last answer
    body_timeout: float = 120.0  # seconds to send a request's body

    def __post_init__(self) -> None:
        if self.max_connections < 1 or not self.header_timeout > 0 or not self.body_timeout > 0:
            raise ConfigError("max_connections must be >= 1, header_timeout and body_timeout > 0 seconds")


class _Refused(Exception):
    """An HTTP error answer raised inside request handling."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


class _Failure:
    def __init__(self, error: BaseException) -> None:
        self.error = error


class _AsyncSink:
    """Hands an engine's output, from the engine's thread, to the request's coroutine."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._queue: "asyncio.Queue[Delta | ChatResult | _Failure]" = asyncio.Queue()
        self._cancelled = False

    @property
    def cancelled(self) -> bool:
        return self._cancelled

    def cancel(self) -> None:
        self._cancelled = True

    def _put(self, item: "Delta | ChatResult | _Failure") -> None:
        try:
            self._loop.call_soon_threadsafe(self._queue.put_nowait, item)
        except RuntimeError:  # the server's loop has closed: nobody is listening any more
            self._cancelled = True

    def delta(self, delta: Delta) -> None:
        self._put(delta)

    def finish(self, result: ChatResult) -> None:
        self._put(result)

    def fail(self, error: BaseException) -> None:
        self._put(_Failure(error))

    async def next(self) -> "Delta | ChatResult | _Failure":
        return await self._queue.get()


def _status_of(error: BaseException) -> tuple[int, str]:
    if isinstance(error, ServeError):
        return error.status, str(error)
    if isinstance(error, MobileR1Error):
        return 400, str(error)
    return 500, f"model error: {type(error).__name__}: {error}"


def create_app(model: ChatModel | Engine, model_name: str | None = None,
               settings: ServerSettings | None = None) -> "FastAPI":
    """A FastAPI app answering OpenAI chat-completions requests with `model` (an `Engine` such as `HFEngine`, or a
    plain `ChatModel` served through `TextEngine`)."""
    import anyio
    from fastapi import FastAPI, Request
    from fastapi.responses import JSONResponse, PlainTextResponse, Response, StreamingResponse

    settings = settings or ServerSettings()
    if isinstance(model, Engine):
        engine = model
        if model_name:
            engine.model_name = model_name
    else:
        engine = TextEngine(model, model_name or "mobile-r1")
    preparing = anyio.Semaphore(settings.max_preparing)
    app = FastAPI(title="mobile-r1 serve", docs_url=None, redoc_url=None, openapi_url=None)
    app.state.engine = engine

    def error(status: int, message: str) -> JSONResponse:
        return JSONResponse(status_code=status, content=error_body(status, message))

    async def read_body(request: Request, limit: int) -> bytes:
        try:
            return await asyncio.wait_for(_read_body(request, limit), settings.body_timeout)
        except asyncio.TimeoutError:
            raise _Refused(408, f"the request body did not arrive within {settings.body_timeout:g} s") from None

    async def _read_body(request: Request, limit: int) -> bytes:
        length = request.headers.get("content-length")
        if length is not None and (not length.isdigit() or int(length) > limit):
            raise _Refused(413, f"the request body is larger than this server's limit of {limit} bytes "
                                "(mobile-r1 serve --max-request-mb)")
        chunks, size = [], 0
        async for chunk in request.stream():
            size += len(chunk)
            if size > limit:
                raise _Refused(413, f"the request body is larger than this server's limit of {limit} bytes "
                                    "(mobile-r1 serve --max-request-mb)")
            chunks.append(chunk)
        return b"".join(chunks)

    def parse(body: bytes, schema: type[BaseModel]) -> tuple[Any, dict[str, Any]]:
        try:
            data = json.loads(body)
        except (ValueError, RecursionError) as exc:
            raise _Refused(400, f"the request body is not valid JSON: {str(exc)[:200]}") from None
        if not isinstance(data, dict):
            raise _Refused(400, "the request body must be a JSON object")
        try:
            return schema.model_validate(data), data
        except ValidationError as exc:
            raise _Refused(422, describe(exc)) from None
        except RecursionError:
            raise _Refused(400, "the request body is nested too deeply") from None

    def prepare(body: bytes) -> tuple[ChatRequest, SamplingParams, Prepared]:
        request, data = parse(body, ChatRequest)
        params = request.sampling_params()
        messages = from_openai(data["messages"], max_image_pixels=settings.max_image_pixels,
                               max_total_pixels=settings.max_total_pixels)
        return request, params, engine.prepare(messages, params, request.model, stream=request.stream)

    def prepare_completion(body: bytes) -> tuple[CompletionRequest, SamplingParams, Prepared]:
        request, _ = parse(body, CompletionRequest)
        params = request.sampling_params()
        return request, params, engine.prepare_prompt(request.prompt, params, request.model,
                                                      add_special_tokens=request.add_special_tokens)

    async def answer(request: Request, sink: _AsyncSink) -> ChatResult | JSONResponse:
        """Wait for a submitted job's result (stopping its generation if the client goes away)."""
        watcher = asyncio.create_task(_watch_disconnect(request, sink))
        try:
            while True:
                item = await sink.next()
                if not isinstance(item, Delta):
                    break
        finally:
            watcher.cancel()
        if isinstance(item, _Failure):
            return error(*_status_of(item.error))
        return item

    @app.exception_handler(_Refused)
    async def _refused(_: Request, exc: _Refused) -> JSONResponse:
        return error(exc.status, exc.message)

    @app.exception_handler(MobileR1Error)
    async def _project_error(_: Request, exc: MobileR1Error) -> JSONResponse:
        return error(*_status_of(exc))

    @app.get("/v1/models")
    async def models() -> dict[str, Any]:
        cards = [{"id": engine.model_name, "object": "model", "created": 0, "owned_by": "mobile-r1", "root": None,
                  "parent": None}]
        cards += [{"id": a.name, "object": "model", "created": 0, "owned_by": "mobile-r1", "root": a.path,
                   "parent": engine.model_name} for a in engine.adapters()]
        return {"object": "list", "data": cards}

    @app.get("/health")
    async def health() -> dict[str, Any]:
        return {"status": "ok", **engine.stats()}

    @app.post("/v1/chat/completions", response_model=None)
    async def chat_completions(request: Request) -> Response:
        body = await read_body(request, settings.max_request_bytes)
        async with preparing:
            chat, params, job = await anyio.to_thread.run_sync(prepare, body)
        sink = _AsyncSink(asyncio.get_running_loop())
        engine.submit(job, sink)
        request_id, created = f"chatcmpl-{uuid.uuid4().hex}", int(time.time())
        if chat.stream:
            include_usage = bool(chat.stream_options and chat.stream_options.include_usage)
            events = _stream(sink, params, request_id, created, chat.model or engine.model_name,
                             job.prompt_token_ids, include_usage)
            return StreamingResponse(events, media_type="text/event-stream",
                                     headers={"Cache-Control": "no-cache", "X-Accel-Buffering": "no"})
        result = await answer(request, sink)
        if isinstance(result, JSONResponse):
            return result
        return JSONResponse(completion_body(result, request_id, created, params))

    @app.post("/v1/completions", response_model=None)
    async def completions(request: Request) -> Response:
        body = await read_body(request, settings.max_request_bytes)
        async with preparing:
            _, params, job = await anyio.to_thread.run_sync(prepare_completion, body)
        sink = _AsyncSink(asyncio.get_running_loop())
        engine.submit(job, sink)
        result = await answer(request, sink)
        if isinstance(result, JSONResponse):
            return result
        return JSONResponse(text_completion_body(result, f"cmpl-{uuid.uuid4().hex}", int(time.time()), params))

    async def adapter_body(request: Request, schema: type[Body]) -> Body:
        if not settings.lora_updates:
            raise _Refused(404, "loading LoRA adapters at runtime is off on this server; start it with "
                                "mobile-r1 serve --lora-updates")
        body = await read_body(request, 64 * 1024)
        return (await anyio.to_thread.run_sync(parse, body, schema))[0]

    @app.post("/v1/load_lora_adapter", response_model=None)
    async def load_lora_adapter(request: Request) -> Response:
        body = await adapter_body(request, LoadLoraRequest)
        await anyio.to_thread.run_sync(engine.load_adapter, body.lora_name, body.lora_path)
        return PlainTextResponse(f"Success: LoRA adapter '{body.lora_name}' added successfully.")

    @app.post("/v1/unload_lora_adapter", response_model=None)
    async def unload_lora_adapter(request: Request) -> Response:
        body = await adapter_body(request, UnloadLoraRequest)
        await anyio.to_thread.run_sync(engine.unload_adapter, body.lora_name)
        return PlainTextResponse(f"Success: LoRA adapter '{body.lora_name}' removed successfully.")

    return app


async def _watch_disconnect(request: "Request", sink: _AsyncSink) -> None:
    """Cancel the request's generation when its client goes away (the body has been read: what comes is a disconnect)."""
    while True:
        message = await request.receive()
        if message["type"] == "http.disconnect":
            sink.cancel()
            return


async def _stream(sink: _AsyncSink, params: SamplingParams, request_id: str, created: int, model: str,
                  prompt_token_ids: tuple[int, ...] | None, include_usage: bool) -> AsyncIterator[str]:
    """Server-sent events: a first chunk with each choice's role, then text as it comes, finish reasons, usage."""

    def event(body: dict[str, Any]) -> str:
        return f"data: {json.dumps(body, ensure_ascii=False)}\n\n"

    def chunk(choices: list[dict[str, Any]], **extra: Any) -> str:
        return event(chunk_body(request_id, created, model, choices, include_usage=include_usage, **extra))

    try:
        first = [delta_choice(Delta(i), params, role=True) for i in range(params.n)]
        ids = list(prompt_token_ids or ()) if params.return_token_ids else None
        yield chunk(first, prompt_token_ids=ids)
        finished: set[int] = set()
        while True:
            item = await sink.next()
            if isinstance(item, Delta):
                if item.finish_reason is not None:
                    finished.add(item.index)
                yield chunk([delta_choice(item, params)])
                continue
            if isinstance(item, _Failure):
                status, message = _status_of(item.error)
                yield event(error_body(status, message))
                break
            model = item.model
            for c in item.completions:  # engines that do not stream deliver each choice whole at the end
                if c.index not in finished:
                    yield chunk([delta_choice(Delta(c.index, c.text, c.token_ids, c.logprobs or (), c.finish_reason),
                                              params)])
            if include_usage:
                yield chunk([], usage=usage_body(item))
            break
        yield "data: [DONE]\n\n"
    finally:
        sink.cancel()  # a client that went away mid-stream stops its generation


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port nobody listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


def _protocol(settings: ServerSettings) -> type:
    """uvicorn's HTTP protocol, with the connection rules of the module docstring: a deadline for each request's
    headers, and the longest-idle connection closed when another arrives past `max_connections`."""
    from uvicorn.protocols.http.auto import AutoHTTPProtocol

    class Protocol(AutoHTTPProtocol):  # type: ignore[misc, valid-type]
        _idle_since = 0.0
        _deadline: Any = None

        def connection_made(self, transport: Any) -> None:
            super().connection_made(transport)
            self._wait_for_headers()
            if len(self.connections) > settings.max_connections:
                idle = [c for c in self.connections if c is not self and getattr(c, "_waiting", lambda: False)()]
                if idle:
                    min(idle, key=lambda c: c._idle_since)._close()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            self._wait_for_headers()

        def connection_lost(self, exc: Exception | None) -> None:
            if self._deadline is not None:
                self._deadline.cancel()
            super().connection_lost(exc)

        def _waiting(self) -> bool:
            """No request in progress: the connection is waiting for one's headers."""
            return self.cycle is None or self.cycle.response_complete

        def _wait_for_headers(self) -> None:
            if self._deadline is not None:
                self._deadline.cancel()
            self._idle_since = time.monotonic()
            self._deadline = self.loop.call_later(settings.header_timeout, self._too_slow)

        def _too_slow(self) -> None:
            if self._waiting():
                self._close()

        def _close(self) -> None:
            if not self.transport.is_closing():
                self.transport.close()

    return Protocol


def _uvicorn_config(app: "FastAPI", host: str, port: int, settings: ServerSettings) -> "uvicorn.Config":
    import uvicorn

    # Idle connections are shed by the protocol, so uvicorn's own limit (which counts them) is set one above it:
    # what reaches it is requests in flight.
    return uvicorn.Config(app, host=host, port=port, log_level="warning", lifespan="off", http=_protocol(settings),
                          limit_concurrency=settings.max_connections + 1, timeout_graceful_shutdown=5)


def serve(model: ChatModel | Engine, *, host: str = "127.0.0.1", port: int = 8000, model_name: str | None = None,
          settings: ServerSettings | None = None) -> None:
    """Serve `model` until interrupted (Ctrl-C)."""
    import uvicorn

    settings = settings or ServerSettings()
    app = create_app(model, model_name, settings)
    try:
        uvicorn.Server(_uvicorn_config(app, host, port, settings)).run()
    finally:
        app.state.engine.close()


class LoopbackServer:
    """Serve a model on 127.0.0.1 in a background thread for the length of a `with` block.

    Startup waits at most `start_timeout` seconds; leaving the block stops the server and the engine's thread (at
    most `stop_timeout` seconds). `base_url` is the OpenAI client's base URL (`http://127.0.0.1:PORT/v1`).
    """

    def __init__(
        self,
        model: ChatModel | Engine,
        *,
        model_name: str | None = None,
        port: int | None = None,
        settings: ServerSettings | None = None,
        start_timeout: float = 20.0,
        stop_timeout: float = 10.0,
    ) -> None:
        import uvicorn

        self.host = "127.0.0.1"
        self.port = port or free_port(self.host)
        self.start_timeout = start_timeout
        self.stop_timeout = stop_timeout
        settings = settings or ServerSettings()
        self.app = create_app(model, model_name, settings)
        self._server = uvicorn.Server(_uvicorn_config(self.app, self.host, self.port, settings))
        self._thread = threading.Thread(target=self._server.run, name=f"serve-{self.port}", daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}/v1"

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

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
        self.app.state.engine.close()

    def __exit__(self, *exc: object) -> None:
        self.stop()
