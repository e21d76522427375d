"""What the server asks of whatever generates: sampling settings, results, the `Engine` protocol, and `TextEngine`.

The HTTP layer (`server.py`) turns a request into `SamplingParams` and typed messages, asks an engine to `prepare`
them (every check that can refuse the request, in a worker thread, before anything is queued), then `submit`s the
prepared job with a `Sink` that receives the streamed pieces and the result from whatever thread generates.
Two engines exist: `HFEngine` (`serve/hf.py`, a local transformers model with dynamic batching and LoRA adapters)
and `TextEngine`, which puts any `ChatModel` (a function from messages to one reply: echo, scripted test replies)
behind the same protocol.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Protocol, Sequence, runtime_checkable

from mobile_r1.agents.chat import ChatMessage, TextPart
from mobile_r1.core.errors import MobileR1Error

DEFAULT_MAX_TOKENS = 512


class ServeError(MobileR1Error):
    """A request the server refuses; `status` is the HTTP status it answers with (400 unless a subclass says)."""

    status = 400


class NotFoundError(ServeError):
    """The request names something the server does not have (an adapter to unload)."""

    status = 404


class BusyError(ServeError):
    """The queue is full: the client should retry later."""

    status = 503


@dataclass(frozen=True)
class SamplingParams:
    """How to generate the completions of one request (OpenAI's fields, and vLLM's `ignore_eos`, `stop_token_ids`,
    `include_stop_str_in_output` and `top_k`).

    `max_tokens` None means the server's default, capped by the room the context leaves. `seed` None means the
    server's seed (`HFEngine(seed=...)`); choice `i` of `n` samples from seed `seed + i`, so `n=3, seed=5` gives the
    completions three requests with seeds 5, 6 and 7 would. Temperature 0 is greedy decoding. `skip_special_tokens`
    drops special tokens from the text (never the end-of-turn and padding tokens, which are always dropped, nor the
    token ids); off by default, unlike vLLM, because the dialects' tags are special tokens in the presets' tokenizer.
    """

    temperature: float = 1.0
    top_p: float = 1.0
    top_k: int = 0
    max_tokens: int | None = None
    n: int = 1
    stop: tuple[str, ...] = ()
    stop_token_ids: tuple[int, ...] = ()
    include_stop_str_in_output: bool = False
    ignore_eos: bool = False
    seed: int | None = None
    logprobs: bool = False
    top_logprobs: int = 0
    return_token_ids: bool = False
    skip_special_tokens: bool = False


@dataclass(frozen=True)
class TopLogprob:
    """One candidate token at a position and its log-probability."""

    token_id: int
    token: str
    logprob: float


@dataclass(frozen=True)
class TokenLogprob:
    """The log-probability of a generated token under the model, and the most likely tokens at its position."""

    token_id: int
    token: str
    logprob: float
    top: tuple[TopLogprob, ...] = ()


@dataclass(frozen=True)
class Delta:
    """What choice `index` gained since its last delta (streaming); `finish_reason` is set on its last one."""

    index: int
    text: str = ""
    token_ids: tuple[int, ...] = ()
    logprobs: tuple[TokenLogprob, ...] = ()
    finish_reason: str | None = None


@dataclass(frozen=True)
class Completion:
    """One finished choice: its text, every token it generated (the end-of-turn token included) and why it ended
    ("stop": an end token or a stop string; "length": max_tokens or the context; "abort": the client went away)."""

    index: int
    text: str
    token_ids: tuple[int, ...]
    finish_reason: str
    logprobs: tuple[TokenLogprob, ...] | None = None


@dataclass(frozen=True)
class ChatResult:
    """A finished request: its choices, the prompt's token ids (None where the engine has no tokenizer) and the name of
    the model that answered (the base model or an adapter)."""

    model: str
    completions: tuple[Completion, ...]
    prompt_token_ids: tuple[int, ...] | None = None

    @property
    def prompt_tokens(self) -> int:
        return len(self.prompt_token_ids or ())

    @property
    def completion_tokens(self) -> int:
        return sum(len(c.token_ids) for c in self.completions)


class Sink(Protocol):
    """Receives a submitted job's output; called from the engine's thread."""

    @property
    def cancelled(self) -> bool:
        """True once the client is gone: the engine may stop generating for it."""
        ...

    def delta(self, delta: Delta) -> None:
        """A streamed piece of one choice (only for jobs prepared with `stream=True`)."""
        ...

    def finish(self, result: ChatResult) -> None:
        """The job is done."""
        ...

    def fail(self, error: BaseException) -> None:
        """The job failed (a `ServeError` for the client's fault, anything else for the server's)."""
        ...


@dataclass(frozen=True)
class AdapterInfo:
    """A LoRA adapter the engine serves: its name (what requests put in `model`) and folder."""

    name: str
    path: str


class Prepared(Protocol):
    """A request an engine has checked and encoded, ready to `submit`."""

    @property
    def prompt_token_ids(self) -> tuple[int, ...] | None:
        """The prompt's token ids (None where the engine has no tokenizer)."""
        ...


@runtime_checkable
class Engine(Protocol):
    """What the HTTP server drives."""

    model_name: str

    def prepare(self, messages: Sequence[ChatMessage], params: SamplingParams, model: str | None,
                stream: bool = False) -> Prepared:
        """Check and encode a request; raise a `MobileR1Error` (HTTP 4xx) for anything it cannot serve. Blocking:
        the server calls it in a worker thread. The returned job goes to `submit`."""
        ...

    def prepare_prompt(self, prompt: str | Sequence[int], params: SamplingParams, model: str | None,
                       add_special_tokens: bool = True) -> Prepared:
        """Like `prepare`, for a raw prompt (/v1/completions): a text, tokenised as it is (no chat template; special
        tokens added as the tokenizer adds them, unless `add_special_tokens` is False), or token ids, used as given."""
        ...

    def submit(self, job: Prepared, sink: Sink) -> None:
        """Queue a prepared job; its output goes to `sink`. Raises `BusyError` when the queue is full."""
        ...

    def load_adapter(self, name: str, path: str) -> None:
        """Serve the LoRA adapter in folder `path` as model `name` (replacing an adapter of that name). Blocking."""
        ...

    def unload_adapter(self, name: str) -> None:
        """Stop serving adapter `name` (`NotFoundError` if there is none). Blocking."""
        ...

    def adapters(self) -> list[AdapterInfo]:
        """The adapters served now."""
        ...

    def stats(self) -> dict[str, int]:
        """Counters for /health: rows waiting and running, generate calls and rows generated so far."""
        ...

    def close(self) -> None:
        """Stop background threads (a later `submit` starts them again)."""
        ...


class ChatModel(Protocol):
    """Anything that turns chat messages into one assistant reply (served through `TextEngine`)."""

    def complete(self, messages: Sequence[ChatMessage], temperature: float, max_tokens: int) -> str:
        """The assistant's reply to `messages`; temperature 0 means greedy decoding."""
        ...


@dataclass
class _TextJob:
    messages: list[ChatMessage]
    params: SamplingParams
    model: str
    prompt_token_ids: tuple[int, ...] | None = None


@dataclass
class TextEngine:
    """A `ChatModel` behind the `Engine` protocol: each choice is one `complete` call, in a small thread pool.

    It has no tokenizer, so it reports no token ids and zero usage, refuses `logprobs` and `return_token_ids`, and
    applies `stop` to the text it gets back; it has no adapters.
    """

    model: ChatModel
    model_name: str = "mobile-r1"
    workers: int = 8
    _pool: ThreadPoolExecutor | None = field(default=None, init=False, repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)
    _running: int = field(default=0, init=False, repr=False)
    _done: int = field(default=0, init=False, repr=False)

    def prepare(self, messages: Sequence[ChatMessage], params: SamplingParams, model: str | None,
                stream: bool = False) -> _TextJob:
        if params.logprobs or params.return_token_ids:
            raise ServeError("this server's model has no tokenizer: logprobs and return_token_ids need a model "
                             "(mobile-r1 serve --model hf:...)")
        return _TextJob(list(messages), params, model or self.model_name)

    def prepare_prompt(self, prompt: str | Sequence[int], params: SamplingParams, model: str | None,
                       add_special_tokens: bool = True) -> _TextJob:
        if not isinstance(prompt, str):
            raise ServeError("this server's model has no tokenizer: send the prompt as text, or serve a model "
                             "(mobile-r1 serve --model hf:...) to send token ids")
        return self.prepare([ChatMessage("user", (TextPart(prompt),))], params, model)

    def submit(self, job: Prepared, sink: Sink) -> None:
        assert isinstance(job, _TextJob)
        with self._lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(self.workers, thread_name_prefix="serve-text")
            self._running += 1
            pool = self._pool
        pool.submit(self._run, job, sink)

    def _run(self, job: _TextJob, sink: Sink) -> None:
        try:
            completions = []
            for index in range(job.params.n):
                text = self.model.complete(job.messages, job.params.temperature,
                                             job.params.max_tokens or DEFAULT_MAX_TOKENS)
                text = cut_at_stop(text, job.params.stop, job.params.include_stop_str_in_output)
                completions.append(Completion(index, text, (), "stop"))
            sink.finish(ChatResult(job.model, tuple(completions)))
        except BaseException as exc:  # the model's failure goes to the client as a 4xx/5xx
            sink.fail(exc)
        finally:
            with self._lock:
                self._running -= 1
                self._done += 1

    def load_adapter(self, name: str, path: str) -> None:
        raise ServeError("this server's model takes no LoRA adapters; serve a model (mobile-r1 serve --model hf:...)")

    def unload_adapter(self, name: str) -> None:
        raise NotFoundError(f"The lora adapter '{name}' cannot be found.")

    def adapters(self) -> list[AdapterInfo]:
        return []

    def stats(self) -> dict[str, int]:
        with self._lock:
            return {"waiting": 0, "running": self._running, "requests_done": self._done}

    def close(self) -> None:
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=False)


def cut_at_stop(text: str, stop: Sequence[str], keep: bool = False) -> str:
    """`text` up to the first of the `stop` strings (included when `keep`), or all of it."""
    hits = [(text.find(s), s) for s in stop if s and s in text]
    if not hits:
        return text
    at, s = min(hits)
    return text[: at + len(s) if keep else at]
