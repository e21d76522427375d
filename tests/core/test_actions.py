"""Unit tests of the Action type: construction, validation messages and JSON round trips."""

from __future__ import annotations

import json

import pytest

from mobile_r1.core import Action, ActionError, ActionType


ALL = [
    Action.key("volume_up"),
    Action.click(540, 1200),
    Action.long_press(10, 20, time=2),
    Action.long_press(10.5, 20.25),
    Action.swipe(500, 1800, 500, 600),
    Action.type_text("hello world"),
    Action.system_button("back"),
    Action.open("Settings"),
    Action.wait(2),
    Action.wait(),
    Action.terminate("success"),
    Action.terminate("failure"),
    Action.call_user("Shall I pay 35 yuan?"),
    Action.answer("The meeting is at 3 pm"),
]


def test_every_action_type_has_an_example() -> None:
    assert {a.type for a in ALL} == set(ActionType)


@pytest.mark.parametrize("action", ALL, ids=str)
def test_json_round_trip(action: Action) -> None:
    assert Action.from_json(action.to_json()) == action
    assert Action.from_arguments(json.loads(action.to_json())) == action
    assert Action.from_json(json.dumps(action.to_tool_call())) == action


def test_arguments_match_the_tool_schema() -> None:
    assert Action.click(540.0, 1200.0).to_tool_call() == {
        "name": "mobile_use",
        "arguments": {"action": "click", "coordinate": [540, 1200]},
    }
    assert Action.system_button("BACK").to_arguments() == {"action": "system_button", "button": "Back"}
    assert Action.terminate("Success").status == "success"


@pytest.mark.parametrize(
    ("arguments", "field"),
    [
        ({"action": "click"}, "coordinate"),
        ({"action": "click", "coordinate": [1]}, "coordinate"),
        ({"action": "click", "coordinate": ["a", 2]}, "coordinate"),
        ({"action": "click", "coordinate": [1, 2], "text": "x"}, "text"),
        ({"action": "swipe", "coordinate": [1, 2]}, "coordinate2"),
        ({"action": "type", "text": 3}, "text"),
        ({"action": "system_button", "button": "Power"}, "button"),
        ({"action": "terminate", "status": "done"}, "status"),
        ({"action": "wait", "time": -1}, "time"),
        ({"action": "call_user"}, "content"),
        ({"action": "fly"}, "action"),
        ({"coordinate": [1, 2]}, "action"),
        ({"action": "click", "coordinate": [1, 2], "colour": "red"}, "colour"),
    ],
)
def test_validation_names_the_bad_field(arguments: dict, field: str) -> None:
    with pytest.raises(ActionError, match=f"'{field}'"):
        Action.from_arguments(arguments)


def test_bad_json_is_an_action_error() -> None:
    with pytest.raises(ActionError, match="JSON"):
        Action.from_json("{not json")


def test_map_points_changes_every_coordinate() -> None:
    moved = Action.swipe(1, 2, 3, 4).map_points(lambda p: (p[0] * 10, p[1] * 10))
    assert moved.coordinate == (10, 20) and moved.coordinate2 == (30, 40)
    assert Action.type_text("x").map_points(lambda p: (0, 0)) == Action.type_text("x")
