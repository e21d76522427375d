"""The mobile-r1, gui-r1 and ui-r1 presets pinned to hand-computed cases.

Frames: screen 1000 x 2000, model image 500 x 1000 (a model point (x, y) is the screen point (2x, 2y)).
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from mobile_r1.core.rewards import get_preset

SCREEN = [1000, 2000]
MODEL = [500, 1000]
BOX = [200, 400, 300, 600]  # screen pixels; model x 100..150, y 200..300

MR1 = get_preset("mobile-r1")
GUI = get_preset("gui-r1")
UI = get_preset("ui-r1")


def tool_call(arguments: Any, name: str = "mobile_use") -> str:
    return "<tool_call>" + json.dumps({"name": name, "arguments": arguments}) + "</tool_call>"


def mr1(arguments: Any, *, think: str = "state; next; why", step: str = "Tap the search box") -> str:
    return f"<think>{think}</think>\n<action>{step}</action>\n{tool_call(arguments)}"


def thought(arguments: Any, *, think: str = "reasoning") -> str:
    return f"<think>{think}</think>{tool_call(arguments)}"


def label(**arguments: Any) -> dict[str, Any]:
    return {"name": "mobile_use", "arguments": arguments}


CLICK = label(action="click", coordinate=[125, 250])
SWIPE_UP = label(action="swipe", coordinate=[250, 800], coordinate2=[250, 200])


def run(preset: Any, completion: str, lab: Any, bbox: Any = None) -> Any:
    return preset.score(completion, lab, bbox, SCREEN, MODEL)


# ----- mobile-r1 --------------------------------------------------------------------------------------------------


def test_mobile_r1_perfect_step_scores_two() -> None:
    result = run(MR1, mr1({"action": "click", "coordinate": [125, 250]}), CLICK, BOX)
    assert (result.format, result.accuracy, result.total) == (1.0, 1.0, 2.0)
    assert result.components == {"type": 1.0}


@pytest.mark.parametrize(
    "completion",
    [
        thought({"action": "wait"}),  # no <action>
        f"<action>a</action><think>t</think>{tool_call({'action': 'wait'})}",  # wrong order
        f"<think>t</think><action>a</action><action>b</action>{tool_call({'action': 'wait'})}",  # a tag twice
        f"<think>t</think><action>a</action>{tool_call({'action': 'wait'})} trailing",
        "prefix " + mr1({"action": "wait"}),
        "<think>t</think><action>a</action><tool_call>not json</tool_call>",
        mr1({"action": "wait"}).replace('"mobile_use"', '"other"'),  # wrong tool name
        mr1({"action": "fly"}),  # not an action
        mr1({"action": "click"}),  # missing coordinate
    ],
)
def test_mobile_r1_format_failures(completion: str) -> None:
    assert run(MR1, completion, label(action="wait")).format == 0.0


def test_mobile_r1_format_allows_surrounding_whitespace() -> None:
    assert run(MR1, "\n " + mr1({"action": "wait"}) + "\n", label(action="wait")).format == 1.0


@pytest.mark.parametrize(
    "point, expected",
    [([125, 250], 1.0), ([100, 200], 1.0), ([150, 300], 1.0), ([99.5, 250], 0.0), ([125, 300.5], 0.0)],
)
def test_mobile_r1_click_inside_the_box_edges_included(point: list[float], expected: float) -> None:
    assert run(MR1, mr1({"action": "click", "coordinate": point}), CLICK, BOX).accuracy == expected


def test_mobile_r1_click_without_box_uses_closeness() -> None:
    lab = label(action="click", coordinate=[250, 500])
    assert run(MR1, mr1({"action": "click", "coordinate": [349, 500]}), lab).accuracy == 1.0
    assert run(MR1, mr1({"action": "click", "coordinate": [350, 500]}), lab).accuracy == 0.0


@pytest.mark.parametrize(
    "lab, arguments, expected",
    [
        (label(action="type", text="hello"), {"action": "type", "text": " hello "}, 1.0),
        (label(action="type", text="hello"), {"action": "type", "text": "Hello"}, 0.0),  # exact: case matters
        (label(action="type", text="hello world"), {"action": "type", "text": "hello"}, 0.0),
        (label(action="system_button", button="Back"), {"action": "system_button", "button": "back"}, 1.0),
        (label(action="system_button", button="Back"), {"action": "system_button", "button": "Home"}, 0.0),
        (label(action="open", text="Settings"), {"action": "open", "text": "Settings"}, 1.0),
        (label(action="open", text="Settings"), {"action": "open", "text": "Clock"}, 0.0),
        (label(action="call_user", content="pay?"), {"action": "call_user", "content": "anything"}, 1.0),
        (label(action="wait", time=2), {"action": "wait"}, 1.0),
        (label(action="terminate", status="success"), {"action": "terminate", "status": "failure"}, 1.0),
        (label(action="key", text="volume_up"), {"action": "key", "text": "power"}, 1.0),
        (SWIPE_UP, {"action": "swipe", "coordinate": [250, 900], "coordinate2": [260, 100]}, 1.0),
        (SWIPE_UP, {"action": "swipe", "coordinate": [250, 200], "coordinate2": [250, 800]}, 0.0),
        (CLICK, {"action": "long_press", "coordinate": [125, 250]}, 0.0),
    ],
)
def test_mobile_r1_action_rules(lab: dict[str, Any], arguments: dict[str, Any], expected: float) -> None:
    result = run(MR1, mr1(arguments), lab, BOX if lab is CLICK else None)
    assert (result.format, result.accuracy, result.total) == (1.0, expected, 1.0 + expected)


# ----- gui-r1 -------------------------------------------------------------------------------------------------------


def test_gui_r1_total_is_weighted() -> None:
    result = run(GUI, thought({"action": "click", "coordinate": [125, 250]}), CLICK, BOX)
    assert (result.format, result.accuracy, result.total) == (1.0, 1.0, pytest.approx(1.0))
    wrong = run(GUI, thought({"action": "click", "coordinate": [400, 900]}), CLICK, BOX)
    assert (wrong.format, wrong.accuracy, wrong.total) == (1.0, 0.0, pytest.approx(0.2))
    unformatted = run(GUI, tool_call({"action": "click", "coordinate": [125, 250]}), CLICK, BOX)
    assert (unformatted.format, unformatted.accuracy, unformatted.total) == (0.0, 1.0, pytest.approx(0.8))


@pytest.mark.parametrize(
    "point, expected",
    [([125, 250], 1.0), ([101, 201], 1.0), ([100, 250], 0.0), ([150, 250], 0.0), ([125, 200], 0.0), ([125, 300], 0.0)],
)
def test_gui_r1_click_must_be_strictly_inside_the_box(point: list[float], expected: float) -> None:
    assert run(GUI, thought({"action": "click", "coordinate": point}), CLICK, BOX).accuracy == expected


@pytest.mark.parametrize(
    "point, expected",
    [
        ([250, 500], 1.0),
        ([389, 500], 1.0),  # 139 px
        ([390, 500], 0.0),  # 140 px: squared distance must be < 140^2
        ([250, 639.9], 1.0),
        ([250, 640], 0.0),
    ],
)
def test_gui_r1_click_without_box_counts_within_140_model_pixels(point: list[float], expected: float) -> None:
    lab = label(action="click", coordinate=[250, 500])
    assert run(GUI, thought({"action": "click", "coordinate": point}), lab).accuracy == expected


def test_gui_r1_distance_is_euclidean_and_strict() -> None:
    lab = label(action="click", coordinate=[250, 500])
    assert run(GUI, thought({"action": "click", "coordinate": [334, 612]}), lab).accuracy == 0.0  # 84^2 + 112^2 = 140^2
    assert run(GUI, thought({"action": "click", "coordinate": [333, 612]}), lab).accuracy == 1.0


@pytest.mark.parametrize(
    "pred, ref, expected",
    [
        ("send the red packet", "send red packet now", 1.0),  # F1 = 0.75
        ("a b", "a c", 1.0),  # F1 = 0.5 exactly counts
        ("a b c", "a d e", 0.0),  # F1 = 1/3
        ("hello there", "good morning friend", 0.0),
        ("wifi", "WiFi-settings", 1.0),  # two single tokens, one inside the other
        ("[cafe]", "cafe", 1.0),  # brackets are removed
    ],
)
def test_gui_r1_type_counts_at_token_f1_of_one_half(pred: str, ref: str, expected: float) -> None:
    result = run(GUI, thought({"action": "type", "text": pred}), label(action="type", text=ref))
    assert result.accuracy == expected


@pytest.mark.parametrize(
    "lab, arguments, expected",
    [
        (label(action="system_button", button="Back"), {"action": "system_button", "button": "Home"}, 0.0),
        (label(action="system_button", button="Back"), {"action": "system_button", "button": "back"}, 1.0),
        (SWIPE_UP, {"action": "swipe", "coordinate": [250, 900], "coordinate2": [250, 100]}, 1.0),
        (SWIPE_UP, {"action": "swipe", "coordinate": [100, 500], "coordinate2": [400, 500]}, 0.0),
        (label(action="long_press", coordinate=[10, 10]), {"action": "long_press", "coordinate": [400, 900]}, 1.0),
        (label(action="open", text="Settings"), {"action": "open", "text": "Clock"}, 1.0),  # type only
        (label(action="call_user", content="pay?"), {"action": "call_user", "content": "x"}, 1.0),
        (CLICK, {"action": "Click", "coordinate": [125, 250]}, 1.0),  # action names compared lower-cased
        (CLICK, {"action": "wait"}, 0.0),
    ],
)
def test_gui_r1_other_rules(lab: dict[str, Any], arguments: dict[str, Any], expected: float) -> None:
    assert run(GUI, thought(arguments), lab, BOX if lab is CLICK else None).accuracy == expected


@pytest.mark.parametrize(
    "completion",
    [
        " " + thought({"action": "wait"}),  # nothing may precede <think>
        thought({"action": "wait"}) + "\n",  # nothing may follow </tool_call>
        "<think>a</think><tool_call>oops</tool_call>",
        thought({"action": "type", "text": "  "}),  # text actions need text
        thought({"action": "open", "text": ""}),
        f"<think>a</think>{tool_call({'action': 'wait'}, name='other')}",
    ],
)
def test_gui_r1_format_failures(completion: str) -> None:
    assert run(GUI, completion, label(action="wait")).format == 0.0


# ----- ui-r1 -----------------------------------------------------------------------------------------------------------


def test_ui_r1_sums_three_binary_rewards() -> None:
    result = run(UI, thought({"action": "click", "coordinate": [125, 250]}), CLICK, BOX)
    assert (result.format, result.components["type"], result.components["coordinate"], result.total) == (1, 1, 1, 3)
    assert result.accuracy == 2.0
    miss = run(UI, thought({"action": "click", "coordinate": [400, 900]}), CLICK, BOX)
    assert (miss.components["type"], miss.components["coordinate"], miss.total) == (1, 0, 2)


def test_ui_r1_truncates_the_scaled_point_and_includes_edges() -> None:
    # model x 99.9 -> screen 199.8 -> int 199
    assert run(UI, thought({"action": "click", "coordinate": [99.9, 250]}), CLICK, [199.5, 400, 300, 600]).components["coordinate"] == 0.0
    assert run(UI, thought({"action": "click", "coordinate": [99.9, 250]}), CLICK, [150, 400, 199.2, 600]).components["coordinate"] == 1.0
    assert run(UI, thought({"action": "click", "coordinate": [100, 200]}), CLICK, BOX).components["coordinate"] == 1.0


def test_ui_r1_click_without_box_gets_no_coordinate_reward() -> None:
    result = run(UI, thought({"action": "click", "coordinate": [125, 250]}), CLICK, None)
    assert (result.components["type"], result.components["coordinate"]) == (1.0, 0.0)


def test_ui_r1_other_actions_count_by_type() -> None:
    result = run(UI, thought({"action": "type", "text": "anything"}), label(action="type", text="else"))
    assert (result.components["type"], result.components["coordinate"], result.total) == (1, 1, 3)
    other = run(UI, thought({"action": "wait"}), label(action="type", text="else"))
    assert (other.components["type"], other.components["coordinate"], other.total) == (0, 0, 1)


def test_ui_r1_format_checks_only_the_tags() -> None:
    assert run(UI, "<think>a</think>\n<tool_call>garbage</tool_call>", CLICK, BOX).format == 1.0
    assert run(UI, "<think>a</think>\n<tool_call>garbage</tool_call>\n", CLICK, BOX).format == 0.0
    assert run(UI, tool_call({"action": "wait"}), CLICK, BOX).format == 0.0
