"""The one `Action` type every layer speaks: the Qwen2.5-VL `mobile_use` actions plus `call_user` and `answer`.

An `Action` mirrors the argument object of the `mobile_use` tool call exactly: its field names are the
argument keys (`action` is stored as `type`). Coordinates are plain numbers in whatever frame the
producer used (the model image, the screen, a 0..999 grid); `Frame` in `geometry.py` converts them.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, replace
from enum import Enum
from typing import Any

from mobile_r1.core.errors import ActionError

TOOL_NAME = "mobile_use"
BUTTONS = ("Back", "Home", "Menu", "Enter")
STATUSES = ("success", "failure")


class ActionType(str, Enum):
    """Every action of the `mobile_use` tool (FORMATS section 1)."""

    KEY = "key"
    CLICK = "click"
    LONG_PRESS = "long_press"
    SWIPE = "swipe"
    TYPE = "type"
    SYSTEM_BUTTON = "system_button"
    OPEN = "open"
    WAIT = "wait"
    TERMINATE = "terminate"
    CALL_USER = "call_user"
    ANSWER = "answer"

    def __str__(self) -> str:
        return self.value


# Which argument keys each action takes: (required, optional).
ARGUMENTS: dict[ActionType, tuple[tuple[str, ...], tuple[str, ...]]] = {
    ActionType.KEY: (("text",), ()),
    ActionType.CLICK: (("coordinate",), ()),
    ActionType.LONG_PRESS: (("coordinate",), ("time",)),
    ActionType.SWIPE: (("coordinate", "coordinate2"), ()),
    ActionType.TYPE: (("text",), ()),
    ActionType.SYSTEM_BUTTON: (("button",), ()),
    ActionType.OPEN: (("text",), ()),
    ActionType.WAIT: ((), ("time",)),
    ActionType.TERMINATE: (("status",), ()),
    ActionType.CALL_USER: (("content",), ()),
    ActionType.ANSWER: (("text",), ()),
}
ALL_KEYS = ("coordinate", "coordinate2", "text", "time", "button", "status", "content")
POINTER_TYPES = frozenset({ActionType.CLICK, ActionType.LONG_PRESS, ActionType.SWIPE})
MAX_SECONDS = 86_400  # a `time` argument longer than a day is a mistake (and NaN or inf, not a duration)

Point = tuple[float, float]


def _point(value: Any, field: str, kind: str) -> Point:
    if (
        not isinstance(value, (list, tuple))
        or len(value) != 2
        or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in value)
    ):
        raise ActionError(f"{kind}: '{field}' must be a pair of numbers [x, y], got {value!r}")
    x, y = value
    try:
        finite = math.isfinite(x) and math.isfinite(y)
    except OverflowError:  # an integer too large for a float
        finite = False
    if not finite:
        raise ActionError(f"{kind}: '{field}' must be finite numbers, got {_short(value)}")
    return (x, y)


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


@dataclass(frozen=True, slots=True)
class Action:
    """One agent action. Build it with the class methods (`Action.click(x, y)`) or `Action.from_arguments`.

    Fields hold exactly the `mobile_use` argument keys; those an action does not take stay `None`.
    `time` is optional for `long_press` and `wait`: consumers apply their own default when it is missing.
    """

    type: ActionType
    coordinate: Point | None = None
    coordinate2: Point | None = None
    text: str | None = None
    time: float | None = None
    button: str | None = None
    status: str | None = None
    content: str | None = None

    def __post_init__(self) -> None:
        try:
            kind = ActionType(self.type)
        except ValueError:
            names = ", ".join(t.value for t in ActionType)
            raise ActionError(f"'action' must be one of {names}; got {_short(self.type)}") from None
        object.__setattr__(self, "type", kind)
        required, optional = ARGUMENTS[kind]
        for key in ALL_KEYS:
            value = getattr(self, key)
            if value is None:
                if key in required:
                    raise ActionError(f"{kind.value}: missing required argument '{key}'")
                continue
            if key not in required and key not in optional:
                raise ActionError(f"{kind.value}: argument '{key}' does not belong to this action")
            if key in ("coordinate", "coordinate2"):
                object.__setattr__(self, key, _point(value, key, kind.value))
            elif key == "time":
                if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= MAX_SECONDS:
                    raise ActionError(
                        f"{kind.value}: 'time' must be a number of seconds from 0 to {MAX_SECONDS}, got {_short(value)}"
                    )
            elif not isinstance(value, str):
                raise ActionError(f"{kind.value}: '{key}' must be a string, got {_short(value)}")
        if kind is ActionType.SYSTEM_BUTTON:
            canonical = {b.lower(): b for b in BUTTONS}.get(self.button.strip().lower())  # type: ignore[union-attr]
            if canonical is None:
                raise ActionError(f"system_button: 'button' must be one of {', '.join(BUTTONS)}; got {self.button!r}")
            object.__setattr__(self, "button", canonical)
        if kind is ActionType.TERMINATE:
            status = self.status.strip().lower()  # type: ignore[union-attr]
            if status not in STATUSES:
                raise ActionError(f"terminate: 'status' must be 'success' or 'failure'; got {self.status!r}")
            object.__setattr__(self, "status", status)

    # ----- constructors -------------------------------------------------------------------------
    @classmethod
    def click(cls, x: float, y: float) -> Action:
        return cls(ActionType.CLICK, coordinate=(x, y))

    @classmethod
    def long_press(cls, x: float, y: float, time: float | None = None) -> Action:
        return cls(ActionType.LONG_PRESS, coordinate=(x, y), time=time)

    @classmethod
    def swipe(cls, x: float, y: float, x2: float, y2: float) -> Action:
        return cls(ActionType.SWIPE, coordinate=(x, y), coordinate2=(x2, y2))

    @classmethod
    def type_text(cls, text: str) -> Action:
        return cls(ActionType.TYPE, text=text)

    @classmethod
    def key(cls, name: str) -> Action:
        return cls(ActionType.KEY, text=name)

    @classmethod
    def system_button(cls, button: str) -> Action:
        return cls(ActionType.SYSTEM_BUTTON, button=button)

    @classmethod
    def back(cls) -> Action:
        return cls.system_button("Back")

    @classmethod
    def home(cls) -> Action:
        return cls.system_button("Home")

    @classmethod
    def open(cls, app: str) -> Action:
        return cls(ActionType.OPEN, text=app)

    @classmethod
    def wait(cls, time: float | None = None) -> Action:
        return cls(ActionType.WAIT, time=time)

    @classmethod
    def terminate(cls, status: str = "success") -> Action:
        return cls(ActionType.TERMINATE, status=status)

    @classmethod
    def call_user(cls, content: str) -> Action:
        return cls(ActionType.CALL_USER, content=content)

    @classmethod
    def answer(cls, text: str) -> Action:
        return cls(ActionType.ANSWER, text=text)

    # ----- the tool-call argument object ----------------------------------------------------------
    @classmethod
    def from_arguments(cls, arguments: Any) -> Action:
        """Build from a `mobile_use` argument object: `{"action": "click", "coordinate": [x, y]}`."""
        if not isinstance(arguments, dict):
            raise ActionError(f"the arguments of a {TOOL_NAME} call must be an object, got {type(arguments).__name__}")
        if "action" not in arguments:
            raise ActionError("missing required argument 'action'")
        unknown = [k for k in arguments if k != "action" and k not in ALL_KEYS]
        if unknown:
            raise ActionError(f"{arguments['action']}: unknown argument '{unknown[0]}'")
        fields = {k: arguments[k] for k in ALL_KEYS if k in arguments and arguments[k] is not None}
        return cls(arguments["action"], **fields)

    def to_arguments(self) -> dict[str, Any]:
        """The `mobile_use` argument object, keys in the tool's order, coordinates as JSON lists."""
        out: dict[str, Any] = {"action": self.type.value}
        for key in ALL_KEYS:
            value = getattr(self, key)
            if value is not None:
                out[key] = [_plain(v) for v in value] if key.startswith("coordinate") else _plain(value)
        return out

    def to_tool_call(self) -> dict[str, Any]:
        return {"name": TOOL_NAME, "arguments": self.to_arguments()}

    def to_json(self) -> str:
        return json.dumps(self.to_arguments(), ensure_ascii=False)

    @classmethod
    def from_json(cls, text: str) -> Action:
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ActionError(f"not valid JSON: {exc}") from None
        except (ValueError, RecursionError) as exc:  # a number beyond the digit limit, or deep nesting
            raise ActionError(f"not readable JSON: {str(exc).split(';')[0] or 'nested too deeply'}") from None
        if isinstance(data, dict) and "arguments" in data and "action" not in data:
            data = data["arguments"]
        return cls.from_arguments(data)

    # ----- helpers ----------------------------------------------------------------------------------
    def map_points(self, fn: Any) -> Action:
        """A copy with `fn((x, y)) -> (x', y')` applied to every coordinate (used to change frames)."""
        if self.coordinate is None:
            return self
        return replace(
            self,
            coordinate=fn(self.coordinate),
            coordinate2=fn(self.coordinate2) if self.coordinate2 is not None else None,
        )

    @property
    def is_inquiry(self) -> bool:
        return self.type is ActionType.CALL_USER

    def __str__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.to_arguments().items() if k != "action")
        return f"{self.type.value}({args})"


def _plain(value: Any) -> Any:
    """JSON-friendly number: integral floats become ints so `[540.0, 1200.0]` renders as `[540, 1200]`."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value
