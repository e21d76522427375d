"""What crosses the wire of AndroidWorld's HTTP API: JSON actions, UI elements and screenshots, both ways.

AndroidWorld's server (`server/android_server.py` in google-research/android_world) takes an action as the JSON
object of its `JSONAction` dataclass (`android_world/env/json_action.py`): the keys in `ACTION_KEYS`, `action_type`
one of `ACTION_TYPES`, null keys left out. Screenshots come back as `{"pixels": H x W x 3 nested lists}`. Its
server sends no UI tree; our simulated phone adds one endpoint that does (`UI_ELEMENTS_PATH`), with each element in
the shape of AndroidWorld's `representation_utils.UIElement` (our element id and parent ride in its `metadata`).

The client (`mobile_r1.env.androidworld`) and our server (`mobile_r1.env.sim.servers.androidworld`) both use this
module, so they agree on the format by construction; the contract test pins it to AndroidWorld's source.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from mobile_r1.core.actions import Action, ActionType
from mobile_r1.core.dialects.androidworld import to_androidworld
from mobile_r1.core.errors import ActionError, DataError
from mobile_r1.core.records import UIElement

# AndroidWorld's JSONAction: its action types, its keys, its scroll directions.
ACTION_TYPES: tuple[str, ...] = ("click", "double_tap", "scroll", "swipe", "input_text", "navigate_home",
                                 "navigate_back", "keyboard_enter", "open_app", "status", "wait", "long_press",
                                 "answer", "unknown")
ACTION_KEYS: tuple[str, ...] = ("action_type", "index", "x", "y", "text", "direction", "goal_status", "app_name",
                                "keycode", "clear_text")
DIRECTIONS: tuple[str, ...] = ("left", "right", "down", "up")

# The one endpoint our simulated phone adds to AndroidWorld's API.
UI_ELEMENTS_PATH = "/ui_elements"
SERVER_NAME = "mobile-r1 simulated phone"

JSONAction = dict[str, Any]


def check_action(data: Mapping[str, Any]) -> JSONAction:
    """The JSON action as AndroidWorld's `JSONAction(**data)` reads it (index made an int, text a string), or
    ValueError saying why it would refuse it."""
    if not isinstance(data, Mapping):
        raise ValueError(f"an action is a JSON object, got {type(data).__name__}")
    unknown = sorted(set(data) - set(ACTION_KEYS))
    if unknown:
        raise ValueError(f"unexpected keyword argument {unknown[0]!r}; JSONAction takes {', '.join(ACTION_KEYS)}")
    out = {k: v for k, v in data.items() if v is not None}
    if out.get("action_type") not in ACTION_TYPES:
        raise ValueError(f"Invalid action type: {out.get('action_type')}")
    if "index" in out:
        try:
            out["index"] = int(out["index"])
        except (TypeError, ValueError):
            raise ValueError(f"index must be an integer, got {out['index']!r}") from None
        if "x" in out or "y" in out:
            raise ValueError("Either an index or a <x, y> should be provided.")
    if out.get("direction") and out["direction"] not in DIRECTIONS:
        raise ValueError(f"Invalid scroll direction: {out['direction']}")
    if "text" in out and not isinstance(out["text"], str):
        out["text"] = str(out["text"])
    if "keycode" in out and not str(out["keycode"]).startswith("KEYCODE_"):
        raise ValueError(f"Invalid keycode: {out['keycode']}")
    return out


def _contains(e: UIElement, x: float, y: float) -> bool:
    x1, y1, x2, y2 = e.bounds
    return x1 <= x <= x2 and y1 <= y <= y2


def scroll_target(elements: Sequence[UIElement], x: float, y: float) -> int | None:
    """The index of the smallest scrollable element under (x, y), if any."""
    best: tuple[int, int] | None = None
    for i, e in enumerate(elements):
        if e.scrollable and _contains(e, x, y):
            x1, y1, x2, y2 = e.bounds
            area = (x2 - x1) * (y2 - y1)
            if best is None or area < best[0]:
                best = (area, i)
    return None if best is None else best[1]


def to_json_action(action: Action, elements: Sequence[UIElement] = ()) -> JSONAction:
    """The JSON action our client sends for `action` (screen pixels): the dialect converter's
    (`core.dialects.androidworld.to_androidworld`), with a swipe's scroll aimed at the scrollable element under the
    finger when the screen's elements are known (AndroidWorld scrolls that element, else the whole screen).

    Raises ActionError for actions AndroidWorld cannot express (`call_user`, `key`, buttons other than Back / Home /
    Enter, an app without a name)."""
    if action.type is ActionType.CALL_USER:
        raise ActionError("call_user: AndroidWorld has no user to ask")
    if action.type is ActionType.OPEN and not (action.text or "").strip():
        raise ActionError("open: AndroidWorld needs an app name")
    out = to_androidworld(action)
    if action.type is ActionType.SWIPE and action.coordinate is not None:
        index = scroll_target(elements, *action.coordinate)
        if index is not None:
            out["index"] = index
    return out


# ----- UI elements --------------------------------------------------------------------------------------------
def element_to_wire(element: UIElement, screen: tuple[int, int]) -> dict[str, Any]:
    """An element in the shape of AndroidWorld's `representation_utils.UIElement` (bbox normalised to the screen,
    bbox_pixels in pixels), our id and parent in `metadata`."""
    x1, y1, x2, y2 = element.bounds
    w, h = screen
    return {
        "text": element.text or None,
        "content_description": element.content_desc or None,
        "class_name": element.class_name or None,
        "bbox": {"x_min": x1 / w, "x_max": x2 / w, "y_min": y1 / h, "y_max": y2 / h},
        "bbox_pixels": {"x_min": x1, "x_max": x2, "y_min": y1, "y_max": y2},
        "hint_text": None,
        "is_checked": element.checked,
        "is_checkable": element.checkable,
        "is_clickable": element.clickable,
        "is_editable": element.editable,
        "is_enabled": element.enabled,
        "is_focused": element.focused,
        "is_focusable": element.editable or element.clickable,
        "is_long_clickable": element.long_clickable,
        "is_scrollable": element.scrollable,
        "is_selected": element.selected,
        "is_visible": True,
        "package_name": None,
        "resource_name": element.resource_id or None,
        "tooltip": None,
        "resource_id": None,
        "metadata": {"id": element.id, "parent": element.parent},
    }


def element_from_wire(data: Mapping[str, Any], index: int) -> UIElement:
    """Our element for an AndroidWorld-shaped one (`index`: its place in the list, the id when metadata has none)."""
    try:
        box = data.get("bbox_pixels") or {}
        bounds = (int(box["x_min"]), int(box["y_min"]), int(box["x_max"]), int(box["y_max"]))
        meta = data.get("metadata") or {}
        parent = meta.get("parent")
        return UIElement(
            id=int(meta.get("id", index)), class_name=str(data.get("class_name") or ""), bounds=bounds,
            text=str(data.get("text") or ""), content_desc=str(data.get("content_description") or ""),
            resource_id=str(data.get("resource_name") or data.get("resource_id") or ""),
            clickable=bool(data.get("is_clickable")), long_clickable=bool(data.get("is_long_clickable")),
            editable=bool(data.get("is_editable")), scrollable=bool(data.get("is_scrollable")),
            checkable=bool(data.get("is_checkable")), checked=bool(data.get("is_checked")),
            focused=bool(data.get("is_focused")), enabled=data.get("is_enabled") is not False,
            selected=bool(data.get("is_selected")), parent=None if parent is None else int(parent))
    except (KeyError, TypeError, ValueError) as exc:
        raise DataError(f"UI element {index}: not in AndroidWorld's UIElement shape ({exc})") from None


__all__ = ["ACTION_TYPES", "ACTION_KEYS", "DIRECTIONS", "UI_ELEMENTS_PATH", "SERVER_NAME", "JSONAction",
           "check_action", "to_json_action", "scroll_target", "element_to_wire", "element_from_wire"]
