"""The `openai:MODEL` agent: any OpenAI-compatible chat endpoint (vLLM, SGLang, `mobile-r1 serve`, GPT-4o).

Requests go out concurrently (at most `concurrency` at once) through `openai.AsyncOpenAI`; screenshots travel as
base64 PNG data URLs in place of the dialect's image placeholders.

Failures, by kind:

- Rate limits (429), server errors (5xx), timeouts and dropped connections are retried by the openai client itself
  (`max_retries`), with exponential backoff and the server's `Retry-After` honoured (up to two minutes); what is
  still failing after that, and errors retrying cannot fix (4xx), raise `EndpointError` (the run stops; `--resume`
  continues it).
- A reply that arrives but is malformed (a 200 whose body is not JSON, or holds no `choices`) is asked for again, at
  most `malformed_attempts` times in all; after that the request gets an agent error (`AgentOutput.error`): a runner
  ends that episode and the run goes on.

The API key is read from the environment only (`OPENAI_API_KEY`, or the variable named by `api_key_env`) and is never
logged, printed or stored; a base URL is shown and stored only through `redact_url`.
"""

from __future__ import annotations

import asyncio
import logging
import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Sequence

from mobile_r1.agents.base import Agent, AgentOutput, AgentRequest, ModelView
from mobile_r1.agents.chat import from_hf, to_openai
from mobile_r1.agents.options import redact_url
from mobile_r1.agents.registry import need_argument, register_agent
from mobile_r1.core.dialects.base import reply_chars
from mobile_r1.core.errors import ConfigError, MobileR1Error

if TYPE_CHECKING:
    import openai

log = logging.getLogger(__name__)
NO_KEY = "EMPTY"  # local servers (vLLM, SGLang, mobile-r1 serve) accept any key
MAX_MALFORMED_DELAY = 8.0


class EndpointError(MobileR1Error):
    """The chat endpoint failed for good (after the client's retries, or with an error retrying cannot fix)."""


class MalformedReply(Exception):
    """A reply that arrived but holds no usable message (not JSON, no `choices`, no message content)."""


@dataclass(frozen=True, slots=True)
class Reply:
    """One request's answer: the message text, or `error` when the endpoint kept sending malformed replies."""

    text: str
    error: str | None = None


def resolve_api_key(api_key_env: str = "OPENAI_API_KEY") -> str:
    """The API key from the named environment variable; a placeholder when it is unset (local servers)."""
    return os.environ.get(api_key_env) or NO_KEY


def describe(exc: BaseException) -> str:
    """A one-line account of an endpoint error (status and message, never request headers)."""
    status = getattr(exc, "status_code", None)
    message = getattr(exc, "message", None) or str(exc)
    return f"{type(exc).__name__}{f' {status}' if status else ''}: {message}"[:500]


def reply_text(response: object) -> str:
    """The first choice's message content of a chat-completion response; MalformedReply when there is none."""
    choices = getattr(response, "choices", None)
    if not isinstance(choices, list) or not choices:
        raise MalformedReply(f"no choices in the reply ({type(response).__name__})")
    message = getattr(choices[0], "message", None)
    if message is None:
        raise MalformedReply("the first choice has no message")
    content = getattr(message, "content", None)
    if content is None:
        return ""
    if not isinstance(content, str):
        raise MalformedReply(f"the message content is {type(content).__name__}, not text")
    return content


class ChatClient:
    """A thin async chat-completions client with a concurrency limit and retries; holds no key in its repr.

    `max_retries` goes to the openai client (429 / 5xx / timeouts / connection errors, `Retry-After` honoured);
    `malformed_attempts` bounds the requests made for one prompt whose replies keep arriving malformed, with
    `malformed_delay * 2**n` seconds (at most 8) between them.
    """

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key_env: str = "OPENAI_API_KEY",
        timeout: float = 120.0,
        max_retries: int = 4,
        concurrency: int = 8,
        malformed_attempts: int = 3,
        malformed_delay: float = 0.5,
    ) -> None:
        if not model:
            raise ConfigError("the openai agent needs a model name: openai:MODEL")
        if concurrency < 1:
            raise ConfigError(f"concurrency must be >= 1, got {concurrency}")
        if max_retries < 0 or malformed_attempts < 1:
            raise ConfigError(f"max_retries must be >= 0 and malformed_attempts >= 1, got {max_retries} and "
                              f"{malformed_attempts}")
        self.model = model
        self.base_url = base_url
        self.api_key_env = api_key_env
        self.timeout = timeout
        self.max_retries = max_retries
        self.concurrency = concurrency
        self.malformed_attempts = malformed_attempts
        self.malformed_delay = malformed_delay

    @property
    def where(self) -> str:
        """The endpoint as it may be shown: credentials redacted."""
        return redact_url(self.base_url) if self.base_url else "api.openai.com"

    def _client(self) -> openai.AsyncOpenAI:
        import openai  # the optional `serve` extra: imported when a request is made

        # The client is made per run: an AsyncOpenAI belongs to the event loop it was used on.
        return openai.AsyncOpenAI(api_key=resolve_api_key(self.api_key_env), base_url=self.base_url,
                                  timeout=self.timeout, max_retries=self.max_retries)

    async def _complete(self, client: openai.AsyncOpenAI, messages: list[dict[str, Any]], semaphore: asyncio.Semaphore,
                        **params: Any) -> Reply:
        import openai

        problem = ""
        for attempt in range(self.malformed_attempts):
            if attempt:
                wait = min(MAX_MALFORMED_DELAY, self.malformed_delay * 2 ** (attempt - 1))
                log.warning("chat completion on %s: %s; asking again in %.1f s", self.where, problem, wait)
                await asyncio.sleep(wait)
            try:
                async with semaphore:
                    response = await client.chat.completions.create(model=self.model, messages=messages, **params)
                return Reply(reply_text(response))
            except openai.APIResponseValidationError as exc:
                problem = f"a reply the client could not read ({describe(exc)})"
            except openai.APIError as exc:  # status errors after the client's retries, connection errors, timeouts
                raise EndpointError(f"chat completion on {self.where} failed: {describe(exc)}") from None
            except ValueError as exc:  # the body of a 200 reply is not JSON
                problem = f"a reply that is not JSON ({str(exc)[:200]})"
            except MalformedReply as exc:
                problem = str(exc)
        return Reply("", f"the endpoint {self.where} sent {self.malformed_attempts} malformed replies; last: {problem}")

    async def _complete_all(self, batch: Sequence[list[dict[str, Any]]], **params: Any) -> list[Reply]:
        semaphore = asyncio.Semaphore(self.concurrency)
        client = self._client()
        try:
            return list(await asyncio.gather(*(self._complete(client, m, semaphore, **params) for m in batch)))
        finally:
            await client.close()

    def replies(self, batch: Sequence[list[dict[str, Any]]], **params: Any) -> list[Reply]:
        """One `Reply` per OpenAI message list, requested concurrently; `params` go to the API (temperature, ...).

        Safe to call from inside a running event loop: the requests then run on a helper thread's own loop.
        """
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return asyncio.run(self._complete_all(batch, **params))
        with ThreadPoolExecutor(max_workers=1) as pool:
            return pool.submit(asyncio.run, self._complete_all(batch, **params)).result()

    def complete_many(self, batch: Sequence[list[dict[str, Any]]], **params: Any) -> list[str]:
        """The reply texts of `replies`; an endpoint that kept answering malformed raises EndpointError."""
        out = []
        for reply in self.replies(batch, **params):
            if reply.error is not None:
                raise EndpointError(reply.error)
            out.append(reply.text)
        return out

    def __repr__(self) -> str:
        return f"ChatClient(model={self.model!r}, base_url={self.where!r}, api_key_env={self.api_key_env!r})"


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
        max_retries: int = 4,
        malformed_attempts: int = 3,
        malformed_delay: float = 0.5,
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
            max_retries=max_retries,
            concurrency=concurrency,
            malformed_attempts=malformed_attempts,
            malformed_delay=malformed_delay,
        )
        self.temperature = temperature
        self.max_tokens = max_tokens

    def messages(self, request: AgentRequest) -> list[dict[str, Any]]:
        """The OpenAI request messages for one request (images inline as data URLs)."""
        hf_messages, images = self.view.prompt(request)
        return to_openai(from_hf(hf_messages, images))

    def act_batch(self, requests: Sequence[AgentRequest]) -> list[AgentOutput]:
        replies = self.client.replies(
            [self.messages(r) for r in requests], temperature=self.temperature, max_tokens=self.max_tokens
        )
        limit = reply_chars(self.max_tokens)
        return [AgentOutput.failed(reply.error) if reply.error is not None
                else self.view.output(reply.text, r.observation, max_chars=limit)
                for reply, r in zip(replies, requests)]

    @classmethod
    def from_spec(cls, argument: str | None, **options: Any) -> OpenAIAgent:
        """The agent `openai:MODEL` names."""
        return cls(need_argument(argument, "openai", "openai:gpt-4o"), **options)

    def __repr__(self) -> str:
        return f"OpenAIAgent({self.client!r}, dialect={self.view.dialect.name!r})"


register_agent("openai", OpenAIAgent.from_spec, replace=True)
