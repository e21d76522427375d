"""What a reward scores against (`RewardTarget`), what it returns (`RewardResult`), and input checking.

Frames: the label's and the completion's coordinates are in the image the model saw
(`model_image_size`, W' x H'); the element box is in original screen pixels (`image_size`, W x H).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any, Mapping

from mobile_r1.core.actions import TOOL_NAME, Action
from mobile_r1.core.errors import ActionError, DataError
from mobile_r1.core.geometry import MAX_COORDINATE

Box = tuple[float, float, float, float]
Size = tuple[float, float]


@dataclass(frozen=True, slots=True)
class RewardResult:
    """One completion's reward: `total` is what the trainer optimises; `components` holds the named parts."""

    format: float
    accuracy: float
    total: float
    components: Mapping[str, float] = field(default_factory=dict)

    def get(self, name: str) -> float:
        """A value by name: 'format', 'accuracy', 'total' or one of `components`."""
        if name == "format":
            return self.format
        if name == "accuracy":
            return self.accuracy
        if name == "total":
            return self.total
        try:
            return self.components[name]
        except KeyError:
            names = ", ".join(["format", "accuracy", "total", *self.components])
            raise KeyError(f"no reward component {name!r}; this result has {names}") from None

    def to_record(self) -> dict[str, float]:
        """A flat JSON-ready record: format, accuracy, total, then the components."""
        return {"format": self.format, "accuracy": self.accuracy, "total": self.total, **self.components}


@dataclass(frozen=True, slots=True)
class RewardTarget:
    """What a completion is scored against: the labelled action, its element box and the two image sizes.

    `bbox` is None when the step has no box. As in the released InquireMobile code, which tests only
    `bbox[0] == -1`, a box whose first value is -1 (the `[-1, -1, -1, -1]` marker) means "no box".
    """

    label: Action
    bbox: Box | None
    image_size: Size
    model_image_size: Size

    @classmethod
    def build(cls, label: Any, bbox: Any, image_size: Any, model_image_size: Any) -> RewardTarget:
        """Check and normalise raw values (as read from JSON or a dataset column); raise DataError naming the field."""
        return cls(
            label=coerce_label(label),
            bbox=coerce_bbox(bbox),
            image_size=coerce_size(image_size, "image_size"),
            model_image_size=coerce_size(model_image_size, "model_image_size"),
        )


def _is_number(value: Any) -> bool:
    """A finite int or float within +/-`MAX_COORDINATE` (no bool; a 400-digit integer is out of range, not an error)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    return abs(value) <= MAX_COORDINATE if isinstance(value, int) else math.isfinite(value) and abs(value) <= MAX_COORDINATE


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def coerce_label(label: Any) -> Action:
    """An `Action` from an Action, a tool call `{"name": "mobile_use", "arguments": {...}}`, bare arguments or JSON text.

    The released InquireMobile code gives a malformed label a silent 0 (or the type reward only);
    we refuse it instead, so that data errors surface.
    """
    if isinstance(label, Action):
        return label
    if isinstance(label, str):
        try:
            label = json.loads(label)
        except (ValueError, RecursionError) as exc:
            raise DataError(f"'label' is text but not valid JSON ({str(exc)[:200]}); give a tool call object") from None
    if not isinstance(label, dict):
        raise DataError(
            f"'label' must be a tool call object {{\"name\": \"{TOOL_NAME}\", \"arguments\": {{...}}}}, "
            f"got {type(label).__name__}"
        )
    arguments: Any = label
    if "arguments" in label:
        name = label.get("name")  # a dataset struct column may hold None here
        if name is not None and name != TOOL_NAME:
            raise DataError(f"'label.name' must be {TOOL_NAME!r}, got {_show(name)}")
        arguments = label["arguments"]
        field_name = "label.arguments"
    else:
        field_name = "label"
    try:
        return Action.from_arguments(arguments)
    except ActionError as exc:
        raise DataError(f"'{field_name}' is not a valid {TOOL_NAME} action: {exc}") from None


def coerce_bbox(bbox: Any) -> Box | None:
    """None for a missing box or the -1 marker; otherwise four finite numbers [x1, y1, x2, y2]."""
    if bbox is None:
        return None
    if not isinstance(bbox, (list, tuple)) or len(bbox) != 4 or not all(_is_number(v) for v in bbox):
        raise DataError(
            f"'bbox' must be [x1, y1, x2, y2] in screen pixels (finite, within +/-{MAX_COORDINATE:,}), "
            f"[-1, -1, -1, -1] or null; got {_show(bbox)}"
        )
    if bbox[0] == -1:
        return None
    return (bbox[0], bbox[1], bbox[2], bbox[3])


def coerce_size(size: Any, name: str) -> Size:
    """A (width, height) pair of finite numbers from 1 to `MAX_COORDINATE` pixels."""
    if (
        not isinstance(size, (list, tuple))
        or len(size) != 2
        or not all(_is_number(v) and v >= 1 for v in size)
    ):
        raise DataError(f"'{name}' must be [width, height] in pixels, each from 1 to {MAX_COORDINATE:,}; got {_show(size)}")
    return (size[0], size[1])


def completion_text(completion: Any) -> str:
    """The text of a completion: a string, or TRL's conversational form `[{"role": "assistant", "content": ...}]`.

    Like the released GRPO scripts (`completion[0]["content"]`), the first message is scored; a content
    given as parts (`[{"type": "text", "text": ...}]`) is joined.
    """
    if isinstance(completion, str):
        return completion
    message = completion
    if isinstance(completion, (list, tuple)):
        if not completion:
            raise DataError("a conversational completion must hold at least one message")
        message = completion[0]
    if isinstance(message, dict) and "content" in message:
        content = message["content"]
        if isinstance(content, str):
            return content
        if isinstance(content, list):
            return "".join(
                part.get("text") or "" for part in content if isinstance(part, dict) and part.get("type", "text") == "text"
            )
    raise DataError(
        "a completion must be a string or a list of messages [{\"role\": \"assistant\", \"content\": \"...\"}]; "
        f"got {type(completion).__name__}"
    )
