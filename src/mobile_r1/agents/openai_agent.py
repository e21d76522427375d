"""The `openai:MODEL` agent: any OpenAI-compatible chat endpoint (vLLM, SGLang, `mobile-r1 serve`, GPT-4o).

Requests go out concurrently (at most `concurrency` at once) through `openai.AsyncOpenAI`; screenshots
travel as base64 PNG data URLs in place of the dialect's image placeholders. Rate limits (429), server
errors (5xx), timeouts and dropped connections are retried with exponential backoff. The API key is read
from the environment only (`OPENAI_API_KEY`, or the variable named by `api_key_env`) and is never logged,
printed or stored in results.
"""

from __future__ import annotations

import asyncio
import logging
import os
import random
from dataclasses import dataclass
from typing import Any, Awaitable, Callable, Sequence, TypeVar

from mobile_r1.agents.base import Agent, AgentOutput, AgentRequest, ModelView
from mobile_r1.agents.chat import from_hf, to_openai
from mobile_r1.core.errors import ConfigError, MobileR1Error

log = logging.getLogger(__name__)
T = TypeVar("T")
NO_KEY = "EMPTY"  # local servers (vLLM, SGLang, mobile-r1 serve) accept any key


class EndpointError(MobileR1Error):
    """The chat endpoint failed for good (after retries, or with an error retrying cannot fix)."""


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """Exponential backoff: wait `base * 2**attempt` seconds (capped at `cap`, with up to 25% jitter)."""

    max_attempts: int = 5
    base: float = 1.0
    cap: float = 30.0

    def delay(self, attempt: int) -> float:
        wait = min(self.cap, self.base * 2**attempt)
        return wait * (1 + 0.25 * random.random())


def resolve_api_key(api_key_env: str = "OPENAI_API_KEY") -> str:
    """The API key from the named environment variable; a placeholder when it is unset (local servers)."""
    return os.environ.get(api_key_env) or NO_KEY


def is_retryable(exc: BaseException) -> bool:
    """Rate limits, server errors, timeouts and connection failures are worth another try; 4xx are not."""
    import openai

    if isinstance(exc, (openai.APITimeoutError, openai.APIConnectionError, asyncio.TimeoutError)):
        return True
    if isinstance(exc, openai.APIStatusError):
        return exc.status_code == 429 or exc.status_code == 408 or exc.status_code >= 500
    return False


def describe(exc: BaseException) -> str:
    """A one-line account of an endpoint error (status and message, never request headers)."""
    status = getattr(exc, "status_code", None)
    message = getattr(exc, "message", None) or str(exc)
    return f"{type(exc).__name__}{f' {status}' if status else ''}: {message}"[:500]


async def with_retries(call: Callable[[], Awaitable[T]], policy: RetryPolicy, what: str) -> T:
    """Run `call`, retrying retryable failures with backoff; raise EndpointError when out of attempts."""
    for attempt in range(policy.max_attempts):
        try:
            return await call()
        except Exception as exc:
            if not is_retryable(exc):
                raise EndpointError(f"{what} failed: {describe(exc)}") from None
            if attempt + 1 >= policy.max_attempts:
                raise EndpointError(f"{what} failed after {policy.max_attempts} attempts: {describe(exc)}") from None
            wait = policy.delay(attempt)
            log.warning("%s: %s; retrying in %.1f s", what, describe(exc), wait)
            await asyncio.sleep(wait)
    raise AssertionError("unreachable")


class ChatClient:
    """A thin async chat-completions client with a concurrency limit and retries; holds no key in its repr."""

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key_env: str = "OPENAI_API_KEY",
        timeout: float = 120.0,
        retry: RetryPolicy = RetryPolicy(),
        concurrency: int = 8,
    ) -> None:
        if not model:
            raise ConfigError("the openai agent needs a model name: openai:MODEL")
        if concurrency < 1:
            raise ConfigError(f"concurrency must be >= 1, got {concurrency}")
        self.model = model
        self.base_url = base_url
        self.api_key_env = api_key_env
        self.timeout = timeout
        self.retry = retry
        self.concurrency = concurrency

    def _client(self) -> Any:
        import openai

        # The client is made per run: an AsyncOpenAI belongs to the event loop it was used on.
        return openai.AsyncOpenAI(
            api_key=resolve_api_key(self.api_key_env), base_url=self.base_url, timeout=self.timeout, max_retries=0
        )

    async def _complete(self, client: Any, messages: list[dict[str, Any]], semaphore: asyncio.Semaphore, **params: Any) -> str:
        async def call() -> str:
            async with semaphore:
                response = await client.chat.completions.create(model=self.model, messages=messages, **params)
            return response.choices[0].message.content or ""

        return await with_retries(call, self.retry, f"chat completion on {self.base_url or 'api.openai.com'}")

    async def _complete_all(self, batch: Sequence[list[dict[str, Any]]], **params: Any) -> list[str]:
        semaphore = asyncio.Semaphore(self.concurrency)
        client = self._client()
        try:
            return list(await asyncio.gather(*(self._complete(client, m, semaphore, **params) for m in batch)))
        finally:
            await client.close()

    def complete_many(self, batch: Sequence[list[dict[str, Any]]], **params: Any) -> list[str]:
        """One reply per OpenAI message list, requested concurrently; `params` go to the API (temperature, ...).

        Safe to call from inside a running event loop: the requests then run on a helper thread's own loop.
        """
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return asyncio.run(self._complete_all(batch, **params))
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(max_workers=1) as pool:
            return pool.submit(asyncio.run, self._complete_all(batch, **params)).result()

    def __repr__(self) -> str:
        return f"ChatClient(model={self.model!r}, base_url={self.base_url!r}, api_key_env={self.api_key_env!r})"


class OpenAIAgent(Agent):
    """A model behind an OpenAI-compatible endpoint, prompted through a dialect."""

    name = "openai"

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key_env: str = "OPENAI_API_KEY",
        dialect: str = "qwen2.5vl",
        observation_mode: str = "image",
        frame: str | None = None,
        prescale: float = 1.0,
        max_pixels: int | None = None,
        history_window: int | None = None,
        temperature: float = 0.0,
        max_tokens: int = 512,
        concurrency: int = 8,
        timeout: float = 120.0,
        max_attempts: int = 5,
        backoff: float = 1.0,
    ) -> None:
        extra = {"max_pixels": max_pixels} if max_pixels else {}
        self.view = ModelView.create(
            dialect, observation_mode=observation_mode, frame=frame, prescale=prescale, history_window=history_window, **extra
        )
        self.client = ChatClient(
            model,
            base_url=base_url,
            api_key_env=api_key_env,
            timeout=timeout,
            retry=RetryPolicy(max_attempts=max_attempts, base=backoff),
            concurrency=concurrency,
        )
        self.temperature = temperature
        self.max_tokens = max_tokens

    def messages(self, request: AgentRequest) -> list[dict[str, Any]]:
        """The OpenAI request messages for one request (images inline as data URLs)."""
        hf_messages, images = self.view.prompt(request)
        return to_openai(from_hf(hf_messages, images))

    def act_batch(self, requests: Sequence[AgentRequest]) -> list[AgentOutput]:
        texts = self.client.complete_many(
            [self.messages(r) for r in requests], temperature=self.temperature, max_tokens=self.max_tokens
        )
        return [self.view.output(t, r.observation) for t, r in zip(texts, requests)]

    def __repr__(self) -> str:
        return f"OpenAIAgent({self.client!r}, dialect={self.view.dialect.name!r})"
