"""UI-TARS conversions both ways: the action grammar, coordinate forms, escapes and scroll semantics."""

from __future__ import annotations

import pytest

from mobile_r1.core import Action, ActionError
from mobile_r1.core.dialects import UITarsDialect, get_dialect
from mobile_r1.core.dialects.uitars import escape, parse_call, unescape

D = get_dialect("uitars")


@pytest.mark.parametrize(
    ("action", "text"),
    [
        (Action.click(235, 512), "click(start_box='(235,512)')"),
        (Action.click(10.5, 3), "click(start_box='(10.5,3)')"),
        (Action.long_press(1, 2), "long_press(start_box='(1,2)')"),
        (Action.long_press(1, 2, 3), "long_press(start_box='(1,2)', time='3')"),
        (Action.swipe(500, 1500, 500, 300), "drag(start_box='(500,1500)', end_box='(500,300)')"),
        (Action.type_text("it's \"done\"\n"), "type(content='it\\'s \"done\"\\n')"),
        (Action.key("volume_up"), "hotkey(key='volume_up')"),
        (Action.back(), "press_back()"),
        (Action.home(), "press_home()"),
        (Action.system_button("Enter"), "hotkey(key='enter')"),
        (Action.system_button("Menu"), "hotkey(key='menu')"),
        (Action.open("小红书"), "open_app(app_name='小红书')"),
        (Action.wait(), "wait()"),
        (Action.terminate("success"), "finished()"),
        (Action.terminate("failure"), "finished(content='failure')"),
        (Action.answer("3 pm"), "finished(content='3 pm')"),
        (Action.call_user("Which card?"), "call_user(content='Which card?')"),
        (Action.call_user(""), "call_user()"),
    ],
)
def test_render_and_parse(action: Action, text: str) -> None:
    assert D.render(action, thought="plan") == f"Thought: plan\nAction: {text}"
    result = D.parse(f"Thought: plan\nAction: {text}")
    assert result.valid and result.action == action and result.thought == "plan"


@pytest.mark.parametrize(
    ("text", "action"),
    [
        ("click(start_box='<|box_start|>(235,512)<|box_end|>')", Action.click(235, 512)),
        ("click(point='<point>235 512</point>')", Action.click(235, 512)),
        ("click(start_box='(100,200,300,400)')", Action.click(200, 300)),
        ("click(start_box='[100, 200, 300, 400]')", Action.click(200, 300)),
        ("left_single(start_box='(1,2)')", Action.click(1, 2)),
        ('type(content="double quoted")', Action.type_text("double quoted")),
        ("drag(start_point='<point>1 2</point>', end_point='<point>3 4</point>')", Action.swipe(1, 2, 3, 4)),
        ("scroll(start_box='(1,2)', end_box='(1,500)')", Action.swipe(1, 2, 1, 500)),
        ("finished(content='')", Action.terminate("success")),
        ("hotkey(key='ENTER')", Action.system_button("Enter")),
        ("press(key='camera')", Action.key("camera")),
        ("wait() ", Action.wait()),
    ],
)
def test_parse_accepts_other_ui_tars_forms(text: str, action: Action) -> None:
    result = D.parse(f"Thought: t\nAction: {text}")
    assert result.action == action, result.error


@pytest.mark.parametrize(
    ("direction", "end"),
    [("down", (500, 500)), ("up", (500, 1100)), ("left", (800, 800)), ("right", (200, 800))],
)
def test_scroll_moves_the_finger_against_the_content(direction: str, end: tuple[int, int]) -> None:
    result = D.parse(f"Thought: t\nAction: scroll(start_box='(500,800)', direction='{direction}')")
    assert result.action == Action.swipe(500, 800, *end)


def test_scroll_distance_is_configurable_and_clamped_at_zero() -> None:
    d = UITarsDialect(scroll_distance=100)
    assert d.parse("Action: scroll(start_box='(50,50)', direction='down')").action == Action.swipe(50, 50, 50, 0)


def test_thought_and_format_checks() -> None:
    no_thought = D.parse("Action: click(start_box='(1,2)')")
    assert no_thought.action == Action.click(1, 2) and not no_thought.valid and no_thought.thought is None
    multi = D.parse("Thought: t\nAction: click(start_box='(1,2)')\n\npress_back()")
    assert multi.action == Action.click(1, 2) and not multi.valid
    summary = D.parse("Action_Summary: tap it\nAction: press_home()")
    assert summary.thought == "tap it" and summary.action == Action.home()
    # A thought that itself mentions "Action:" lines: the last Action line is the one read.
    tricky = D.parse("Thought: I considered\nAction: press_back()\nbut no.\nAction: press_home()")
    assert tricky.action == Action.home() and tricky.thought.startswith("I considered")  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("Thought: nothing to do", "no 'Action:'"),
        ("Thought: t\nAction: fly(to='moon')", "unknown UI-TARS action"),
        ("Thought: t\nAction: click()", "missing argument 'start_box'"),
        ("Thought: t\nAction: click(start_box='(1)')", "expected a point"),
        ("Thought: t\nAction: scroll(start_box='(1,2)', direction='sideways')", "direction"),
        ("Thought: t\nAction: type(content='unterminated)", "cannot read"),
        ("Thought: t\nAction: click start_box", "expected an action call"),
    ],
)
def test_bad_outputs_say_why(text: str, error: str) -> None:
    result = D.parse(text)
    assert result.action is None and not result.valid
    assert error in (result.error or "")


def test_render_refuses_what_would_read_back_differently() -> None:
    # The Enter key and the Enter button are the same key event: a key "enter" reads back as the button.
    assert D.parse(D.render(Action.key("enter"))).action == Action.system_button("Enter")
    with pytest.raises(ActionError, match="terminate"):
        D.render(Action.answer("failure"))
    with pytest.raises(ActionError, match="terminate"):
        D.render(Action.answer("  "))


def test_escapes_round_trip() -> None:
    for text in ["a'b", 'a"b', "a\\b", "line\nline", "tab\tx", "\\n literal", "it\\'s"]:
        assert unescape(escape(text)) == text
    name, args = parse_call(r"type(content='it\'s a \\ b\n')")
    assert name == "type" and args == {"content": "it's a \\ b\n"}
