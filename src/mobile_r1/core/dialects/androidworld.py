"""Converters between AndroidWorld JSON actions (`android_world.env.json_action.JSONAction` dicts) and `Action`.

AndroidWorld coordinates are screen pixels, so the actions here are in the screen frame. Semantics follow
AndroidWorld's executor (`android_world/env/actuation.py`):

- `click` / `long_press` take `x, y` or an element `index` (the element's centre; `elements` is the screen's
  element list in AndroidWorld's order).
- `scroll` with `direction` moves the *content*: the finger starts at the centre of the screen (or of the
  element `index`) and moves to the opposite edge, so `scroll down` is a finger moving up.
- `swipe` with `direction` moves the *finger* across the whole screen, from edge to edge.
- `input_text` taps its target (`index` or `x, y`), types, then presses Enter; only the typing survives as our
  `type` action (the target is dropped), and `to_androidworld(type)` carries no target: AndroidWorld's executor
  needs one, so a caller adds `index` (or `x`, `y`) of the focused field.
- `status` complete / infeasible <-> `terminate` success / failure; `answer` <-> `answer`.

Foreign input that cannot be converted raises ActionError naming the field.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from mobile_r1.core.actions import Action, ActionType
from mobile_r1.core.errors import ActionError
from mobile_r1.core.geometry import Frame
from mobile_r1.core.records import UIElement

DIRECTIONS = ("up", "down", "left", "right")
_OPPOSITE = {"up": "down", "down": "up", "left": "right", "right": "left"}
_BUTTON_ACTIONS = {"navigate_back": "Back", "navigate_home": "Home", "keyboard_enter": "Enter"}
_ACTION_FOR_BUTTON = {v: k for k, v in _BUTTON_ACTIONS.items()}
_STATUS = {"complete": "success", "infeasible": "failure"}
_GOAL_STATUS = {v: k for k, v in _STATUS.items()}


def _number(d: dict[str, Any], key: str, kind: str) -> float:
    value = d.get(key)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ActionError(f"AndroidWorld {kind}: '{key}' must be a number, got {value!r}")
    return value


def _text(d: dict[str, Any], key: str, kind: str) -> str:
    value = d.get(key)
    if not isinstance(value, str):
        raise ActionError(f"AndroidWorld {kind}: '{key}' must be a string, got {value!r}")
    return value


def _element(d: dict[str, Any], kind: str, elements: Sequence[UIElement] | None) -> UIElement:
    index = d.get("index")
    try:
        i = int(index)  # AndroidWorld accepts "3" as well as 3
    except (TypeError, ValueError):
        raise ActionError(f"AndroidWorld {kind}: 'index' must be an integer, got {index!r}") from None
    if elements is None:
        raise ActionError(f"AndroidWorld {kind}: 'index' {i} needs the screen's elements (pass elements=...)")
    if not 0 <= i < len(elements):
        raise ActionError(f"AndroidWorld {kind}: 'index' {i} is out of range (0..{len(elements) - 1})")
    return elements[i]


def _point(d: dict[str, Any], kind: str, elements: Sequence[UIElement] | None) -> tuple[float, float]:
    if d.get("index") is not None:
        if d.get("x") is not None or d.get("y") is not None:
            raise ActionError(f"AndroidWorld {kind}: give either 'index' or 'x'/'y', not both")
        return _element(d, kind, elements).center
    return (_number(d, "x", kind), _number(d, "y", kind))


def _direction(d: dict[str, Any], kind: str) -> str:
    direction = d.get("direction")
    if not isinstance(direction, str) or direction.lower() not in DIRECTIONS:
        raise ActionError(f"AndroidWorld {kind}: 'direction' must be one of {', '.join(DIRECTIONS)}, got {direction!r}")
    return direction.lower()


def _screen_box(kind: str, screen: Frame | None) -> tuple[float, float, float, float]:
    if screen is None:
        raise ActionError(f"AndroidWorld {kind}: needs the screen size to place the gesture (pass screen=Frame)")
    return (0, 0, screen.width, screen.height)


def from_androidworld(
    d: dict[str, Any], screen: Frame | None = None, elements: Sequence[UIElement] | None = None
) -> Action:
    """Our action (screen pixels) for an AndroidWorld JSON action dict."""
    if not isinstance(d, dict):
        raise ActionError(f"an AndroidWorld action must be a JSON object, got {type(d).__name__}")
    kind = d.get("action_type")
    if not isinstance(kind, str):
        raise ActionError(f"AndroidWorld action: 'action_type' must be a string, got {kind!r}")
    if kind == "click":
        return Action.click(*_point(d, kind, elements))
    if kind == "long_press":
        return Action.long_press(*_point(d, kind, elements))
    if kind == "input_text":
        return Action.type_text(_text(d, "text", kind))
    if kind == "scroll":
        direction = _direction(d, kind)
        if d.get("index") is not None:
            x1, y1, x2, y2 = _element(d, kind, elements).bounds
            if screen is not None:
                x1, y1, x2, y2 = max(x1, 0), max(y1, 0), min(x2, screen.width), min(y2, screen.height)
        else:
            x1, y1, x2, y2 = _screen_box(kind, screen)
        cx, cy = (x1 + x2) // 2, (y1 + y2) // 2
        end = {"down": (cx, y1), "up": (cx, y2), "right": (x1, cy), "left": (x2, cy)}[direction]
        return Action.swipe(cx, cy, *end)
    if kind == "swipe":
        direction = _direction(d, kind)
        _, _, w, h = _screen_box(kind, screen)
        mx, my = w / 2, h / 2
        start, end = {
            "down": ((mx, 0), (mx, h)),
            "up": ((mx, h), (mx, 0)),
            "left": ((0, my), (w, my)),
            "right": ((w, my), (0, my)),
        }[direction]
        return Action.swipe(*start, *end)
    if kind in _BUTTON_ACTIONS:
        return Action.system_button(_BUTTON_ACTIONS[kind])
    if kind == "open_app":
        return Action.open(_text(d, "app_name", kind))
    if kind == "wait":
        return Action.wait()
    if kind == "status":
        status = d.get("goal_status")
        if status not in _STATUS:
            raise ActionError(f"AndroidWorld status: 'goal_status' must be 'complete' or 'infeasible', got {status!r}")
        return Action.terminate(_STATUS[status])
    if kind == "answer":
        return Action.answer(_text(d, "text", kind))
    raise ActionError(
        f"AndroidWorld action: 'action_type' {kind!r} has no equivalent; supported: click, long_press, input_text, "
        "scroll, swipe, navigate_back, navigate_home, keyboard_enter, open_app, wait, status, answer"
    )


def swipe_direction(action: Action) -> str:
    """The direction the finger moves in a swipe (the dominant axis of the movement)."""
    (x, y), (x2, y2) = action.coordinate, action.coordinate2  # type: ignore[misc]
    dx, dy = x2 - x, y2 - y
    if abs(dx) > abs(dy):
        return "right" if dx > 0 else "left"
    return "down" if dy > 0 else "up"


def to_androidworld(action: Action) -> dict[str, Any]:
    """The AndroidWorld JSON action for `action` (coordinates must already be screen pixels).

    A swipe becomes a `scroll` in the opposite direction of the finger (its exact path is not kept).
    """
    t = action.type
    if t in (ActionType.CLICK, ActionType.LONG_PRESS):
        x, y = action.coordinate  # type: ignore[misc]
        return {"action_type": t.value, "x": int(round(x)), "y": int(round(y))}
    if t is ActionType.SWIPE:
        return {"action_type": "scroll", "direction": _OPPOSITE[swipe_direction(action)]}
    if t is ActionType.TYPE:
        return {"action_type": "input_text", "text": action.text}
    if t is ActionType.SYSTEM_BUTTON:
        name = _ACTION_FOR_BUTTON.get(action.button or "")
        if name is None:
            raise ActionError(f"system_button: AndroidWorld has no '{action.button}' button (only Back, Home, Enter)")
        return {"action_type": name}
    if t is ActionType.OPEN:
        return {"action_type": "open_app", "app_name": action.text}
    if t is ActionType.WAIT:
        return {"action_type": "wait"}
    if t is ActionType.TERMINATE:
        return {"action_type": "status", "goal_status": _GOAL_STATUS[action.status or "success"]}
    if t is ActionType.ANSWER:
        return {"action_type": "answer", "text": action.text}
    raise ActionError(f"{t.value}: AndroidWorld has no equivalent JSON action")
