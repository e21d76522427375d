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

from PIL import Image

from mobile_r1.core.errors import DataError


@dataclass(frozen=True, slots=True)
class TextPart:
    """A run of text inside a message."""

    text: str


@dataclass(frozen=True, slots=True)
class ImagePart:
    """An image inside a message (a PIL image)."""

    image: Image.Image


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
    def images(self) -> list[Image.Image]:
        return [p.image for p in self.parts if isinstance(p, ImagePart)]


def from_hf(messages: Sequence[dict[str, Any]], images: Sequence[Image.Image] = ()) -> list[ChatMessage]:
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


def to_hf(messages: Sequence[ChatMessage]) -> tuple[list[dict[str, Any]], list[Image.Image]]:
    """HF chat messages with image placeholders, and the images in placeholder order.

    A message without images becomes one string; otherwise its parts stay a list, adjacent text joined.
    """
    out: list[dict[str, Any]] = []
    images: list[Image.Image] = []
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


def encode_image(image: Image.Image) -> str:
    """A PNG data URL for a PIL image (lossless, so a served model sees the very same pixels)."""
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


def decode_image(url: str, *, max_pixels: int | None = None) -> Image.Image:
    """The PIL image of a base64 `data:image/...;base64,` URL (RGB).

    With `max_pixels`, an image whose header declares more pixels is refused before its pixels are decoded (a small
    PNG can declare 20000x20000 and decode to gigabytes). PIL's own decompression-bomb check is a DataError too.
    """
    image = _open_image(url)
    _check_pixels(image, max_pixels)
    return _load_image(image)


def _open_image(url: str) -> Image.Image:
    """The image of a data URL, opened lazily: its header is read, its pixels are not decoded yet."""
    if not url.startswith("data:") or ";base64," not in url:
        raise DataError("only base64 data URLs (data:image/png;base64,...) are accepted for images")
    try:
        raw = base64.b64decode(url.split(";base64,", 1)[1], validate=True)
        return Image.open(io.BytesIO(raw))
    except Image.DecompressionBombError as exc:
        raise DataError(f"the image is too large to decode: {exc}") from None
    except (binascii.Error, ValueError, OSError) as exc:
        raise DataError(f"cannot decode the image data URL: {exc}") from None


def _check_pixels(image: Image.Image, max_pixels: int | None) -> None:
    width, height = image.size
    if max_pixels is not None and width * height > max_pixels:
        raise DataError(f"an image is {width}x{height} = {width * height} pixels, above the limit of {max_pixels}; "
                        "send it scaled down")


def _load_image(image: Image.Image) -> Image.Image:
    """Decode the pixels of an opened image, as RGB."""
    try:
        image.load()
    except Image.DecompressionBombError as exc:
        raise DataError(f"the image is too large to decode: {exc}") from None
    except (ValueError, OSError, SyntaxError) as exc:
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


def from_openai(messages: Sequence[dict[str, Any]], *, max_image_pixels: int | None = None,
                max_total_pixels: int | None = None) -> list[ChatMessage]:
    """Typed messages from an OpenAI request body's `messages` (string or text/image_url part content).

    `max_image_pixels` bounds each image and `max_total_pixels` all of them together; both are checked on the
    image headers, before any pixels are decoded. A malformed message is a DataError naming it.
    """
    out: list[ChatMessage] = []
    total = 0
    for i, message in enumerate(messages):
        if not isinstance(message, dict):
            raise DataError(f"message {i} must be an object with 'role' and 'content'")
        content = message.get("content")
        parts: list[Part] = []
        if isinstance(content, str):
            parts.append(TextPart(content))
        elif isinstance(content, list):
            for j, part in enumerate(content):
                kind = part.get("type") if isinstance(part, dict) else None
                if kind == "text" and isinstance(part.get("text"), (str, type(None))):
                    parts.append(TextPart(part.get("text") or ""))
                elif kind == "image_url":
                    image_url = part.get("image_url")
                    url = image_url.get("url") if isinstance(image_url, dict) else image_url
                    image = _open_image(str(url or ""))
                    _check_pixels(image, max_image_pixels)
                    total += image.size[0] * image.size[1]
                    if max_total_pixels is not None and total > max_total_pixels:
                        raise DataError(f"the images of this request hold more than {max_total_pixels} pixels in all; "
                                        "send fewer or smaller images")
                    parts.append(ImagePart(_load_image(image)))
                else:
                    raise DataError(f"message {i}, part {j}: expected {{'type': 'text', 'text': ...}} or "
                                    f"{{'type': 'image_url', 'image_url': {{'url': ...}}}}, got {_preview(part)}")
        elif content is not None:
            raise DataError(f"message {i}: content must be a string or a list of parts, got {_preview(content)}")
        out.append(ChatMessage(str(message.get("role") or "user"), tuple(parts)))
    return out


def _preview(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
