"""AndroidWorld JSON action converters, both ways, with AndroidWorld's scroll/swipe semantics."""

from __future__ import annotations

from typing import Any

import pytest

from mobile_r1.core import Action, ActionError, Frame
from mobile_r1.core.dialects import from_androidworld, to_androidworld
from mobile_r1.core.records import UIElement

SCREEN = Frame(1080, 2400)
ELEMENTS = [
    UIElement(0, "android.widget.Button", (0, 0, 100, 100), text="A"),
    UIElement(1, "androidx.recyclerview.widget.RecyclerView", (0, 400, 1080, 2000), scrollable=True),
]


@pytest.mark.parametrize(
    ("d", "action"),
    [
        ({"action_type": "click", "x": 10, "y": 20}, Action.click(10, 20)),
        ({"action_type": "click", "index": 0}, Action.click(50, 50)),
        ({"action_type": "click", "index": "1"}, Action.click(540, 1200)),
        ({"action_type": "long_press", "x": 5, "y": 6}, Action.long_press(5, 6)),
        ({"action_type": "long_press", "index": 0}, Action.long_press(50, 50)),
        ({"action_type": "input_text", "text": "milk", "index": 3}, Action.type_text("milk")),
        ({"action_type": "navigate_back"}, Action.back()),
        ({"action_type": "navigate_home"}, Action.home()),
        ({"action_type": "keyboard_enter"}, Action.system_button("Enter")),
        ({"action_type": "open_app", "app_name": "Chrome"}, Action.open("Chrome")),
        ({"action_type": "wait"}, Action.wait()),
        ({"action_type": "status", "goal_status": "complete"}, Action.terminate("success")),
        ({"action_type": "status", "goal_status": "infeasible"}, Action.terminate("failure")),
        ({"action_type": "answer", "text": "42"}, Action.answer("42")),
    ],
)
def test_from_androidworld(d: dict[str, Any], action: Action) -> None:
    assert from_androidworld(d, screen=SCREEN, elements=ELEMENTS) == action


@pytest.mark.parametrize(
    ("direction", "swipe"),
    [
        # scroll moves the content: the finger goes from the centre towards the opposite edge
        ("down", Action.swipe(540, 1200, 540, 0)),
        ("up", Action.swipe(540, 1200, 540, 2400)),
        ("right", Action.swipe(540, 1200, 0, 1200)),
        ("left", Action.swipe(540, 1200, 1080, 1200)),
    ],
)
def test_scroll_is_a_swipe_against_the_direction(direction: str, swipe: Action) -> None:
    assert from_androidworld({"action_type": "scroll", "direction": direction}, screen=SCREEN) == swipe


def test_scroll_inside_an_element() -> None:
    action = from_androidworld({"action_type": "scroll", "direction": "down", "index": 1}, SCREEN, ELEMENTS)
    assert action == Action.swipe(540, 1200, 540, 400)


@pytest.mark.parametrize(
    ("direction", "swipe"),
    [
        # swipe moves the finger, edge to edge
        ("down", Action.swipe(540, 0, 540, 2400)),
        ("up", Action.swipe(540, 2400, 540, 0)),
        ("left", Action.swipe(0, 1200, 1080, 1200)),
        ("right", Action.swipe(1080, 1200, 0, 1200)),
    ],
)
def test_swipe_follows_androidworlds_executor(direction: str, swipe: Action) -> None:
    assert from_androidworld({"action_type": "swipe", "direction": direction}, screen=SCREEN) == swipe


@pytest.mark.parametrize(
    ("action", "d"),
    [
        (Action.click(10.4, 20.6), {"action_type": "click", "x": 10, "y": 21}),
        (Action.long_press(5, 6, 2), {"action_type": "long_press", "x": 5, "y": 6}),
        (Action.swipe(540, 2000, 540, 400), {"action_type": "scroll", "direction": "down"}),
        (Action.swipe(540, 400, 540, 2000), {"action_type": "scroll", "direction": "up"}),
        (Action.swipe(900, 1200, 100, 1250), {"action_type": "scroll", "direction": "right"}),
        (Action.swipe(100, 1200, 900, 1150), {"action_type": "scroll", "direction": "left"}),
        (Action.type_text("milk"), {"action_type": "input_text", "text": "milk"}),
        (Action.back(), {"action_type": "navigate_back"}),
        (Action.home(), {"action_type": "navigate_home"}),
        (Action.system_button("Enter"), {"action_type": "keyboard_enter"}),
        (Action.open("Chrome"), {"action_type": "open_app", "app_name": "Chrome"}),
        (Action.wait(3), {"action_type": "wait"}),
        (Action.terminate("success"), {"action_type": "status", "goal_status": "complete"}),
        (Action.terminate("failure"), {"action_type": "status", "goal_status": "infeasible"}),
        (Action.answer("42"), {"action_type": "answer", "text": "42"}),
    ],
)
def test_to_androidworld(action: Action, d: dict[str, Any]) -> None:
    assert to_androidworld(action) == d


@pytest.mark.parametrize(
    "swipe", [Action.swipe(540, 2000, 540, 400), Action.swipe(100, 1200, 900, 1100), Action.swipe(5, 5, 5, 900)]
)
def test_a_swipe_survives_the_round_trip_in_direction(swipe: Action) -> None:
    back = from_androidworld(to_androidworld(swipe), screen=SCREEN)
    (x, y), (x2, y2) = swipe.coordinate, swipe.coordinate2  # type: ignore[misc]
    (bx, by), (bx2, by2) = back.coordinate, back.coordinate2  # type: ignore[misc]
    if abs(x2 - x) > abs(y2 - y):
        assert (bx2 - bx) * (x2 - x) > 0
    else:
        assert (by2 - by) * (y2 - y) > 0


@pytest.mark.parametrize(
    ("d", "field"),
    [
        ({"x": 1, "y": 2}, "action_type"),
        ({"action_type": "double_tap", "x": 1, "y": 2}, "action_type"),
        ({"action_type": "click", "x": "1", "y": 2}, "'x'"),
        ({"action_type": "click"}, "'x'"),
        ({"action_type": "click", "x": 1, "y": 2, "index": 0}, "index"),
        ({"action_type": "click", "index": 9}, "index"),
        ({"action_type": "click", "index": "first"}, "index"),
        ({"action_type": "input_text"}, "'text'"),
        ({"action_type": "scroll", "direction": "sideways"}, "direction"),
        ({"action_type": "open_app"}, "app_name"),
        ({"action_type": "status", "goal_status": "done"}, "goal_status"),
        ({"action_type": "answer", "text": None}, "'text'"),
    ],
)
def test_bad_androidworld_input_names_the_field(d: dict[str, Any], field: str) -> None:
    with pytest.raises(ActionError, match=field):
        from_androidworld(d, screen=SCREEN, elements=ELEMENTS)


def test_missing_context_is_explained() -> None:
    with pytest.raises(ActionError, match="elements="):
        from_androidworld({"action_type": "click", "index": 0})
    with pytest.raises(ActionError, match="screen="):
        from_androidworld({"action_type": "scroll", "direction": "down"})
    with pytest.raises(ActionError, match="JSON object"):
        from_androidworld("click")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "action", [Action.key("volume_up"), Action.call_user("which?"), Action.system_button("Menu")]
)
def test_actions_without_an_androidworld_equivalent(action: Action) -> None:
    with pytest.raises(ActionError):
        to_androidworld(action)
