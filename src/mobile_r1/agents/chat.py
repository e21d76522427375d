"""Chat messages in one typed form, converted to and from HF chat-template messages and OpenAI request bodies.

Dialects build HF messages whose screenshots are `{"type": "image"}` placeholders; the pixels travel
separately, in placeholder order. An OpenAI-compatible request carries them inline as base64 data URLs.
Converting HF -> typed -> OpenAI -> typed -> HF gives back the same prompt (all-text messages are joined
into one string, which chat templates render identically), so a model served over HTTP sees what it would
see locally.
"""

from __future__ import annotations

import base64
import binascii
import io
from dataclasses import dataclass
from typing import Any, Sequence, Union

from mobile_r1.core.errors import DataError


@dataclass(frozen=True, slots=True)
class TextPart:
    """A run of text inside a message."""

    text: str


@dataclass(frozen=True, slots=True)
class ImagePart:
    """An image inside a message (a PIL image)."""

    image: Any


Part = Union[TextPart, ImagePart]


@dataclass(frozen=True, slots=True)
class ChatMessage:
    """One chat message: a role ("system", "user", "assistant") and its parts in order."""

    role: str
    parts: tuple[Part, ...]

    @property
    def text(self) -> str:
        return "".join(p.text for p in self.parts if isinstance(p, TextPart))

    @property
    def images(self) -> list[Any]:
        return [p.image for p in self.parts if isinstance(p, ImagePart)]


def from_hf(messages: Sequence[dict[str, Any]], images: Sequence[Any] = ()) -> list[ChatMessage]:
    """Typed messages from HF chat messages; each `{"type": "image"}` placeholder takes the next of `images`."""
    pending = list(images)
    out: list[ChatMessage] = []
    for message in messages:
        content = message.get("content")
        parts: list[Part] = []
        if isinstance(content, str):
            parts.append(TextPart(content))
        else:
            for part in content or []:
                kind = part.get("type")
                if kind == "text":
                    parts.append(TextPart(str(part.get("text") or "")))
                elif kind == "image":
                    image = part.get("image")
                    if image is None:
                        if not pending:
                            raise DataError("the messages have more image placeholders than images were given")
                        image = pending.pop(0)
                    parts.append(ImagePart(image))
                else:
                    raise DataError(f"unsupported message part type {kind!r}; expected 'text' or 'image'")
        out.append(ChatMessage(str(message["role"]), tuple(parts)))
    if pending:
        raise DataError(f"{len(pending)} image(s) left over: the messages have fewer image placeholders than images")
    return out


def to_hf(messages: Sequence[ChatMessage]) -> tuple[list[dict[str, Any]], list[Any]]:
    """HF chat messages with image placeholders, and the images in placeholder order.

    A message without images becomes one string; otherwise its parts stay a list, adjacent text joined.
    """
    out: list[dict[str, Any]] = []
    images: list[Any] = []
    for m in messages:
        if not any(isinstance(p, ImagePart) for p in m.parts):
            out.append({"role": m.role, "content": m.text})
            continue
        content: list[dict[str, Any]] = []
        for p in m.parts:
            if isinstance(p, ImagePart):
                content.append({"type": "image"})
                images.append(p.image)
            elif content and content[-1]["type"] == "text":
                content[-1]["text"] += p.text
            else:
                content.append({"type": "text", "text": p.text})
        out.append({"role": m.role, "content": content})
    return out, images


def encode_image(image: Any) -> str:
    """A PNG data URL for a PIL image (lossless, so a served model sees the very same pixels)."""
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


def decode_image(url: str) -> Any:
    """The PIL image of a base64 `data:image/...;base64,` URL (RGB)."""
    from PIL import Image

    if not url.startswith("data:") or ";base64," not in url:
        raise DataError("only base64 data URLs (data:image/png;base64,...) are accepted for images")
    try:
        raw = base64.b64decode(url.split(";base64,", 1)[1], validate=True)
        image = Image.open(io.BytesIO(raw))
        image.load()
    except (binascii.Error, ValueError, OSError) as exc:
        raise DataError(f"cannot decode the image data URL: {exc}") from None
    return image.convert("RGB") if image.mode != "RGB" else image


def to_openai(messages: Sequence[ChatMessage]) -> list[dict[str, Any]]:
    """OpenAI chat-completions messages: strings for all-text messages, else text and image_url parts."""
    out: list[dict[str, Any]] = []
    for m in messages:
        if not any(isinstance(p, ImagePart) for p in m.parts):
            out.append({"role": m.role, "content": m.text})
            continue
        content: list[dict[str, Any]] = []
        for p in m.parts:
            if isinstance(p, ImagePart):
                content.append({"type": "image_url", "image_url": {"url": encode_image(p.image)}})
            else:
                content.append({"type": "text", "text": p.text})
        out.append({"role": m.role, "content": content})
    return out


def from_openai(messages: Sequence[dict[str, Any]]) -> list[ChatMessage]:
    """Typed messages from an OpenAI request body's `messages` (string or text/image_url part content)."""
    out: list[ChatMessage] = []
    for i, message in enumerate(messages):
        content = message.get("content")
        parts: list[Part] = []
        if isinstance(content, str):
            parts.append(TextPart(content))
        elif content is not None:
            for part in content:
                kind = part.get("type")
                if kind == "text":
                    parts.append(TextPart(str(part.get("text") or "")))
                elif kind == "image_url":
                    image_url = part.get("image_url")
                    url = image_url.get("url") if isinstance(image_url, dict) else image_url
                    parts.append(ImagePart(decode_image(str(url or ""))))
                else:
                    raise DataError(f"message {i}: unsupported content part type {kind!r}; use 'text' or 'image_url'")
        out.append(ChatMessage(str(message.get("role") or "user"), tuple(parts)))
    return out
