"""The wire format of `mobile-r1 serve`: OpenAI chat-completions (and completions) requests in, responses and stream
chunks out.

Request and response shapes follow OpenAI's API reference for chat completions
(https://developers.openai.com/api/reference/resources/chat/subresources/completions: `n`, `stop`, `max_tokens` /
`max_completion_tokens`, `logprobs` + `top_logprobs`, `seed`, `stream` with `stream_options.include_usage`, `usage`,
`finish_reason` "stop" | "length"), plus these vLLM extensions, named as vLLM names them in its chat request
(`vllm/entrypoints/openai/chat_completion/protocol.py`): `top_k`, `ignore_eos`, `stop_token_ids`,
`include_stop_str_in_output`, `skip_special_tokens` (False by default here, True in vLLM: the dialects' tags are
special tokens in the presets' tokenizer), and `return_token_ids`, with which the response carries the prompt's ids
at the top level (`prompt_token_ids`) and each choice the ids it generated (`token_ids`, the end token included,
aligned with `logprobs.content` when both are asked for); a stream sends `prompt_token_ids` in its first chunk and each
chunk's new ids in its choices' `token_ids`. A field this server does not implement is refused (HTTP 422 for an unknown field,
400 for a known one with a value other than its neutral one) rather than silently ignored, with one exception:
`response_format: {"type": "json_object"}` is accepted without being enforced (the model's text comes back as it is;
`mobile_r1.eval.judge` asks for it, as the original judge did against GPT-4o, and parses and retries itself).

The legacy completions endpoint (`CompletionRequest`, OpenAI's https://developers.openai.com/api/reference/completions)
takes one prompt per request, as a string or, as vLLM accepts it (`prompt: list[int]` in
`vllm/entrypoints/openai/completion/protocol.py`), as token ids, so a trainer that has tokenised its prompts sends
them exactly; `logprobs` is there an integer (the number of top alternatives) and the answer uses the legacy
`tokens` / `token_logprobs` / `top_logprobs` / `text_offset` shape; with `return_token_ids` each choice carries
`prompt_token_ids` and `token_ids`, as vLLM's completion choices do. It does not stream, echo or take a suffix.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from mobile_r1.serve.engine import ChatResult, Delta, SamplingParams, ServeError, TokenLogprob

MAX_STOP = 16
MAX_TOP_LOGPROBS = 20


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)


class TextContent(_Strict):
    """`{"type": "text", "text": ...}`"""

    type: Literal["text"]
    text: str


class ImageURL(_Strict):
    """An image as a base64 data URL (`data:image/png;base64,...`)."""

    url: str
    detail: Literal["auto", "low", "high"] | None = None


class ImageContent(_Strict):
    """`{"type": "image_url", "image_url": {"url": ...}}`"""

    type: Literal["image_url"]
    image_url: ImageURL


Content = Annotated[Union[TextContent, ImageContent], Field(discriminator="type")]


class Message(_Strict):
    """A chat message: system, user or assistant, with text or text-and-image content."""

    role: Literal["system", "user", "assistant"]
    content: str | list[Content] | None = None
    name: str | None = None

    @field_validator("content", mode="before")
    @classmethod
    def _content_shape(cls, value: object) -> object:
        if value is None or isinstance(value, str):
            return value
        if not isinstance(value, list):
            raise ValueError("content must be a string or a list of parts")
        for j, part in enumerate(value):
            if not isinstance(part, dict) or part.get("type") not in ("text", "image_url"):
                raise ValueError(f"part {j} must be {{'type': 'text', 'text': ...}} or "
                                 "{'type': 'image_url', 'image_url': {'url': 'data:...'}}")
        return value


class StreamOptions(_Strict):
    include_usage: bool = False


class _Sampled(_Strict):
    """The generation fields chat completions and completions share."""

    model: str | None = None
    temperature: float | None = Field(default=None, ge=0.0, le=2.0)
    top_p: float | None = Field(default=None, gt=0.0, le=1.0)
    top_k: int | None = Field(default=None, ge=-1)
    max_tokens: int | None = Field(default=None, ge=1)
    n: int = Field(default=1, ge=1)
    stop: str | list[Annotated[str, Field(min_length=1, max_length=1024)]] | None = Field(default=None, max_length=MAX_STOP)
    stop_token_ids: list[int] | None = Field(default=None, max_length=64)
    include_stop_str_in_output: bool = False
    ignore_eos: bool = False
    seed: int | None = Field(default=None, ge=-(2**63), lt=2**64)
    stream: bool = False
    stream_options: StreamOptions | None = None
    return_token_ids: bool = False
    skip_special_tokens: bool = False
    user: str | None = None
    # accepted only with their neutral values, so that clients which always send them work
    frequency_penalty: float | None = None
    presence_penalty: float | None = None
    logit_bias: dict[str, float] | None = None

    def _params(self, max_tokens: int | None, logprobs: bool, top_logprobs: int) -> SamplingParams:
        for name in ("frequency_penalty", "presence_penalty"):
            if getattr(self, name) not in (None, 0):
                raise ServeError(f"{name} is not supported by this server; leave it out or 0")
        if self.logit_bias:
            raise ServeError("logit_bias is not supported by this server")
        if self.stream_options is not None and not self.stream:
            raise ServeError("stream_options needs stream: true")
        stop = [self.stop] if isinstance(self.stop, str) else list(self.stop or [])
        if any(not s for s in stop):
            raise ServeError("stop strings must not be empty")
        return SamplingParams(
            temperature=1.0 if self.temperature is None else self.temperature,
            top_p=1.0 if self.top_p is None else self.top_p,
            top_k=max(0, self.top_k or 0),
            max_tokens=max_tokens,
            n=self.n,
            stop=tuple(stop),
            stop_token_ids=tuple(self.stop_token_ids or ()),
            include_stop_str_in_output=self.include_stop_str_in_output,
            ignore_eos=self.ignore_eos,
            seed=self.seed,
            logprobs=logprobs,
            top_logprobs=top_logprobs,
            return_token_ids=self.return_token_ids,
            skip_special_tokens=self.skip_special_tokens,
        )


class ChatRequest(_Sampled):
    """The body of POST /v1/chat/completions."""

    messages: list[Message] = Field(min_length=1)
    max_completion_tokens: int | None = Field(default=None, ge=1)
    logprobs: bool = False
    top_logprobs: int | None = Field(default=None, ge=0, le=MAX_TOP_LOGPROBS)
    # accepted only with their neutral values, so that clients which always send them work
    tools: list[dict[str, Any]] | None = None
    tool_choice: str | None = None
    parallel_tool_calls: bool | None = None
    response_format: dict[str, Any] | None = None

    def sampling_params(self) -> SamplingParams:
        """The request's generation settings; a `ServeError` for a feature this server does not have."""
        if self.tools or self.tool_choice not in (None, "none"):
            raise ServeError("tools are not supported by this server: put the tool description in the messages "
                             "(the dialects of mobile_r1.core do)")
        if self.response_format and self.response_format.get("type") not in ("text", "json_object"):
            raise ServeError("response_format json_schema is not supported by this server; use 'text' or "
                             "'json_object' (which it accepts without enforcing: parse the reply yourself)")
        if self.top_logprobs and not self.logprobs:
            raise ServeError("top_logprobs needs logprobs: true")
        return self._params(self.max_completion_tokens or self.max_tokens, self.logprobs, self.top_logprobs or 0)


class CompletionRequest(_Sampled):
    """The body of POST /v1/completions: one prompt, a string or token ids (vLLM's `prompt: list[int]`)."""

    prompt: str | list[Annotated[int, Field(ge=0)]]
    logprobs: int | None = Field(default=None, ge=0, le=MAX_TOP_LOGPROBS)
    add_special_tokens: bool = True
    # accepted only with their neutral values
    echo: bool = False
    suffix: str | None = None

    @field_validator("prompt", mode="before")
    @classmethod
    def _one_prompt(cls, value: object) -> object:
        if isinstance(value, list):
            if not value:
                raise ValueError("the prompt is empty")
            if any(isinstance(x, (list, str)) for x in value):
                raise ValueError("send one prompt per request (a string or a list of token ids); this server takes "
                                 "no batch of prompts in one request")
        elif isinstance(value, str) and not value:
            raise ValueError("the prompt is empty")
        return value

    def sampling_params(self) -> SamplingParams:
        """The request's generation settings; a `ServeError` for a feature this server does not have."""
        if self.stream:
            raise ServeError("stream is not supported on /v1/completions by this server; use /v1/chat/completions "
                             "to stream")
        if self.echo:
            raise ServeError("echo is not supported by this server; the response's prompt_token_ids "
                             "(return_token_ids: true) give the prompt back")
        if self.suffix:
            raise ServeError("suffix is not supported by this server")
        return self._params(self.max_tokens, self.logprobs is not None, self.logprobs or 0)


class LoadLoraRequest(_Strict):
    """The body of POST /v1/load_lora_adapter (vLLM's fields; this server always loads in place)."""

    lora_name: str = Field(min_length=1, max_length=256)
    lora_path: str = Field(min_length=1, max_length=4096)
    load_inplace: bool = False


class UnloadLoraRequest(_Strict):
    """The body of POST /v1/unload_lora_adapter."""

    lora_name: str = Field(min_length=1, max_length=256)
    lora_int_id: int | None = None


def describe(error: ValidationError) -> str:
    """A short message naming each invalid field (never echoing the values: a NaN could not be sent back as JSON)."""
    parts = []
    for e in error.errors(include_url=False, include_input=False)[:5]:
        where = ".".join(str(x) for x in e["loc"] if not (isinstance(x, str) and "[" in x)) or "body"
        if e["type"] == "extra_forbidden":
            parts.append(f"{where}: unsupported field (this server does not implement it)")
        else:
            parts.append(f"{where}: {e['msg'].removeprefix('Value error, ')}")
    more = len(error.errors()) - 5
    return "; ".join(parts) + (f"; and {more} more" if more > 0 else "")


def error_body(status: int, message: str, param: str | None = None) -> dict[str, Any]:
    """OpenAI's error shape."""
    kind = "invalid_request_error" if status < 500 else "server_error"
    if status == 404:
        kind = "not_found_error"
    return {"error": {"message": message, "type": kind, "param": param, "code": status}}


def logprobs_body(entries: tuple[TokenLogprob, ...]) -> dict[str, Any]:
    def token(text: str) -> list[int]:
        return list(text.encode("utf-8", "replace"))

    return {"content": [
        {"token": e.token, "logprob": e.logprob, "bytes": token(e.token),
         "top_logprobs": [{"token": t.token, "logprob": t.logprob, "bytes": token(t.token)} for t in e.top]}
        for e in entries]}


def usage_body(result: ChatResult) -> dict[str, int]:
    return {"prompt_tokens": result.prompt_tokens, "completion_tokens": result.completion_tokens,
            "total_tokens": result.prompt_tokens + result.completion_tokens}


def completion_body(result: ChatResult, request_id: str, created: int, params: SamplingParams) -> dict[str, Any]:
    """A `chat.completion` object."""
    choices = []
    for c in result.completions:
        choice: dict[str, Any] = {"index": c.index, "message": {"role": "assistant", "content": c.text},
                                  "logprobs": logprobs_body(c.logprobs) if c.logprobs is not None else None,
                                  "finish_reason": c.finish_reason}
        if params.return_token_ids:
            choice["token_ids"] = list(c.token_ids)
        choices.append(choice)
    body: dict[str, Any] = {"id": request_id, "object": "chat.completion", "created": created, "model": result.model,
                            "choices": choices, "usage": usage_body(result)}
    if params.return_token_ids:
        body["prompt_token_ids"] = list(result.prompt_token_ids or ())
    return body


def legacy_logprobs_body(entries: tuple[TokenLogprob, ...]) -> dict[str, Any]:
    """A completion choice's `logprobs` in the legacy shape: the tokens, their log-probabilities, each position's top
    alternatives (the sampled token among them) and each token's character offset in the text."""
    offsets, at = [], 0
    for e in entries:
        offsets.append(at)
        at += len(e.token)
    return {"tokens": [e.token for e in entries], "token_logprobs": [e.logprob for e in entries],
            "top_logprobs": [{**{t.token: t.logprob for t in e.top}, e.token: e.logprob} for e in entries],
            "text_offset": offsets}


def text_completion_body(result: ChatResult, request_id: str, created: int, params: SamplingParams) -> dict[str, Any]:
    """A `text_completion` object (the answer of /v1/completions)."""
    choices = []
    for c in result.completions:
        choice: dict[str, Any] = {"index": c.index, "text": c.text,
                                  "logprobs": legacy_logprobs_body(c.logprobs) if c.logprobs is not None else None,
                                  "finish_reason": c.finish_reason, "stop_reason": None}
        if params.return_token_ids:
            choice["prompt_token_ids"] = list(result.prompt_token_ids or ())
            choice["token_ids"] = list(c.token_ids)
        choices.append(choice)
    return {"id": request_id, "object": "text_completion", "created": created, "model": result.model,
            "choices": choices, "usage": usage_body(result)}


def chunk_body(request_id: str, created: int, model: str, choices: list[dict[str, Any]], *,
               usage: dict[str, int] | None = None, include_usage: bool = False,
               prompt_token_ids: list[int] | None = None) -> dict[str, Any]:
    """A `chat.completion.chunk` object."""
    body: dict[str, Any] = {"id": request_id, "object": "chat.completion.chunk", "created": created, "model": model,
                            "choices": choices}
    if include_usage:
        body["usage"] = usage
    if prompt_token_ids is not None:
        body["prompt_token_ids"] = prompt_token_ids
    return body


def delta_choice(delta: Delta, params: SamplingParams, *, role: bool = False) -> dict[str, Any]:
    """One choice of a stream chunk."""
    message: dict[str, Any] = {"role": "assistant"} if role else {}
    if delta.text or role:
        message["content"] = delta.text
    choice: dict[str, Any] = {"index": delta.index, "delta": message,
                              "logprobs": logprobs_body(delta.logprobs) if params.logprobs and delta.logprobs else None,
                              "finish_reason": delta.finish_reason}
    if params.return_token_ids:
        choice["token_ids"] = list(delta.token_ids)
    return choice
