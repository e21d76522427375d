"""Parsing what real models write, and never raising on anything else (garbage, tag soup, truncation)."""

from __future__ import annotations

import pytest
from dialect_strategies import AWKWARD, any_action
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mobile_r1.core import Action
from mobile_r1.core.dialects import DIALECTS, get_dialect

FAST = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
CLICK = '{"name": "mobile_use", "arguments": {"action": "click", "coordinate": [85, 537]}}'

SOUP = st.lists(
    st.one_of(
        st.sampled_from(
            [
                "<think>", "</think>", "<action>", "</action>", "<tool_call>", "</tool_call>", "{", "}", "[", "]",
                '"name"', '"arguments"', ":", ",", '"mobile_use"', CLICK, '{"action": "click"', '"coordinate": [1,',
                "```json", "```", "Thought:", "Action:", "click(start_box='(1,2)')", "type(content='", "finished(",
                "(", ")", "'", '"', "\\", "\n", " ", "null", "NaN", "1e999", "[[[[", "]]]]",
            ]
        ),
        AWKWARD,
    ),
    max_size=30,
).map("".join)


@FAST
@given(st.sampled_from(DIALECTS), st.text())
def test_parse_never_raises_on_arbitrary_text(name: str, text: str) -> None:
    result = get_dialect(name).parse(text)
    assert result.raw == text
    assert result.valid is False or result.action is not None


@FAST
@given(st.sampled_from(DIALECTS), SOUP)
def test_parse_never_raises_on_tag_soup(name: str, text: str) -> None:
    result = get_dialect(name).parse(text)
    assert result.raw == text
    if result.action is None:
        assert not result.valid and result.error


@FAST
@given(st.sampled_from(DIALECTS), st.data())
def test_truncated_outputs_are_never_valid(name: str, data: st.DataObject) -> None:
    dialect = get_dialect(name)
    action = data.draw(any_action(dialect.action_types))
    try:
        full = dialect.render(action, thought="I should act now.", description="Act.")
    except Exception:  # noqa: BLE001 - actions a dialect cannot write (e.g. UI-TARS 'enter' key) are skipped
        return
    cut = data.draw(st.integers(0, len(full)))
    prefix = full[:cut]
    result = dialect.parse(prefix)
    if prefix.rstrip() != full.rstrip():
        assert not (result.valid and result.action == action)


@pytest.mark.parametrize("name", DIALECTS)
@pytest.mark.parametrize("value", [None, 12, b"<tool_call>", ["x"]])
def test_parse_never_raises_on_non_text(name: str, value: object) -> None:
    result = get_dialect(name).parse(value)  # type: ignore[arg-type]
    assert result.action is None and not result.valid and result.error


def test_deeply_nested_json_does_not_raise() -> None:
    text = "<think>x</think><tool_call>" + "[" * 100_000 + "]" * 100_000 + "</tool_call>"
    result = get_dialect("inquire").parse(text)
    assert result.action is None and not result.valid


# ----- tool-call dialects: what real models emit --------------------------------------------------------
INQUIRE_OK = f"<think>\n当前在手机桌面，下一步需进入小红书应用\n</think>\n<tool_call>\n{CLICK}\n</tool_call>"


def test_released_sft_target_parses() -> None:
    result = get_dialect("inquire").parse(INQUIRE_OK)
    assert result.valid and result.action == Action.click(85, 537)
    assert result.thought == "当前在手机桌面，下一步需进入小红书应用"


@pytest.mark.parametrize(
    "text",
    [
        f"<think>go</think><tool_call>{CLICK}</tool_call>",
        f"  <think>\n\n go \n</think>\n\n<tool_call>\n\n  {CLICK}  \n</tool_call>\n\n",
        f"Sure.\n<think>go</think> <tool_call>{CLICK}</tool_call>",  # anything may precede <think>
        '<think>go</think><tool_call>{"name":"mobile_use","arguments":{"action":"click","coordinate":[85,537]}}'
        "</tool_call>",
    ],
)
def test_whitespace_variations_are_valid(text: str) -> None:
    result = get_dialect("inquire").parse(text)
    assert result.valid, result.error
    assert result.action == Action.click(85, 537)
    assert result.thought == "go"


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        (f"<think>go</think><tool_call>```json\n{CLICK}\n```</tool_call>", "code fence"),
        ("<think>go</think><tool_call>{'name': 'mobile_use', 'arguments': {'action': 'click', "
         "'coordinate': [85, 537]}}</tool_call>", "strict JSON"),
        (f"<think>go</think><tool_call>{CLICK}", "not closed"),
        ('<think>go</think><tool_call>{"action": "click", "coordinate": [85, 537]}</tool_call>', "wrapper"),
        ('<think>go</think><tool_call>{"name": "mobile_use", "arguments": '
         '"{\\"action\\": \\"click\\", \\"coordinate\\": [85, 537]}"}</tool_call>', "JSON string"),
        (f"<think>go</think><tool_call>{CLICK}</tool_call><tool_call>{CLICK}</tool_call>", "exactly one"),
        (f"<tool_call>{CLICK}</tool_call>", "exactly one <think>"),
        (f"<tool_call>{CLICK}</tool_call><think>go</think>", "<think> then <tool_call>"),
        (f"<think>go</think><tool_call>{CLICK}</tool_call> and more", "nothing after"),
        (f"<think>a</think><think>b</think><tool_call>{CLICK}</tool_call>", "exactly one <think>"),
        (CLICK.replace("mobile_use", "computer_use").join(["<think>go</think><tool_call>", "</tool_call>"]),
         "computer_use"),
    ],
)
def test_lenient_readings_give_the_action_but_are_not_valid(text: str, problem: str) -> None:
    result = get_dialect("inquire").parse(text)
    assert result.action == Action.click(85, 537)
    assert not result.valid
    assert problem in (result.error or "")


def test_the_first_tool_call_is_the_one_read() -> None:
    second = CLICK.replace("[85, 537]", "[1, 2]")
    result = get_dialect("qwen2.5vl").parse(f"<tool_call>{CLICK}</tool_call>\n<tool_call>{second}</tool_call>")
    assert result.action == Action.click(85, 537)
    assert not result.valid


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("I will click the button.", "no <tool_call>"),
        ("<tool_call>not json</tool_call>", "not valid JSON"),
        ('<tool_call>{"name": "mobile_use", "arguments": {"action": "fly"}}</tool_call>', "'action' must be one of"),
        ('<tool_call>{"name": "mobile_use", "arguments": {"action": "click"}}</tool_call>', "coordinate"),
        ('<tool_call>{"name": "mobile_use", "arguments": {"action": "click", "coordinate": ["a", 2]}}</tool_call>',
         "coordinate"),
        ("<tool_call>[1, 2]</tool_call>", "JSON object"),
        ('<tool_call>{"name": "mobile_use"}</tool_call>', "no 'arguments'"),
    ],
)
def test_unreadable_tool_calls_say_why(text: str, error: str) -> None:
    result = get_dialect("qwen2.5vl").parse(text)
    assert result.action is None and not result.valid
    assert error in (result.error or "")


def test_qwen_takes_only_a_tool_call() -> None:
    qwen = get_dialect("qwen2.5vl")
    assert qwen.parse(f"\n<tool_call>\n{CLICK}\n</tool_call>\n").valid
    with_think = qwen.parse(f"<think>go</think><tool_call>{CLICK}</tool_call>")
    assert with_think.action == Action.click(85, 537) and not with_think.valid
    assert not qwen.parse(f"Let me click.<tool_call>{CLICK}</tool_call>").valid


def test_mobile_r1_needs_think_action_and_tool_call_in_order() -> None:
    d = get_dialect("mobile-r1")
    ok = d.parse(f"<think>home screen</think>\n<action>Open Taobao</action>\n<tool_call>{CLICK}</tool_call>")
    assert ok.valid and ok.description == "Open Taobao" and ok.thought == "home screen"
    swapped = d.parse(f"<action>Open</action><think>t</think><tool_call>{CLICK}</tool_call>")
    assert swapped.action == Action.click(85, 537) and not swapped.valid
    missing = d.parse(f"<think>t</think><tool_call>{CLICK}</tool_call>")
    assert not missing.valid and missing.description is None
