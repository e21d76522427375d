"""The compact dialect: round trip over every action, a short text prompt, and its history lines."""

from __future__ import annotations

from hypothesis import HealthCheck, assume, given, settings

from mobile_r1.core import Action, ActionType
from mobile_r1.core.dialects import CompactDialect, get_dialect
from mobile_r1.core.dialects.compact import compact_screen
from mobile_r1.core.geometry import Frame
from mobile_r1.core.records import Observation, Step, UIElement

from dialect_strategies import AWKWARD, any_action

FAST = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
TAGS = ("<think>", "</think>", "<tool_call>", "</tool_call>")

SCREEN = Observation(
    screen_size=(1080, 2400),
    elements=[
        UIElement(0, "android.widget.FrameLayout", (0, 0, 1080, 2400)),
        UIElement(3, "android.widget.Button", (240, 575, 300, 625), text="Send", clickable=True),
        UIElement(5, "android.widget.EditText", (0, 300, 1080, 400), content_desc="Message", editable=True),
        UIElement(6, "android.widget.TextView", (0, 0, 0, 0), text="hidden"),
    ],
)


def test_get_dialect_gives_the_compact_dialect_with_every_action() -> None:
    dialect = get_dialect("compact")
    assert isinstance(dialect, CompactDialect)
    assert set(dialect.action_types) == set(ActionType)
    prompt = dialect.system_prompt()
    for kind in ActionType:
        assert kind.value in prompt


@FAST
@given(any_action(tuple(ActionType)), AWKWARD)
def test_render_then_parse_gives_back_the_action_and_thought(action: Action, thought: str) -> None:
    dialect = get_dialect("compact")
    assume(not any(tag in t for t in (thought, action.to_json()) for tag in TAGS))
    text = dialect.render(action, thought=thought)
    result = dialect.parse(text)
    assert result.valid, result.error
    assert result.action == action
    assert result.thought == thought.strip()
    assert result.description is None


def test_parse_rejects_a_thought_without_a_tool_call() -> None:
    result = get_dialect("compact").parse("<think>I am on the the the</think>")
    assert result.action is None
    assert not result.valid


def test_screen_lists_useful_elements_in_the_model_frame() -> None:
    text = compact_screen(SCREEN, Frame(540, 1200))
    lines = text.splitlines()
    assert lines == ['[3] "Send" (135, 300)', '[5] "Message" edit (270, 175)']


def test_messages_are_short_and_carry_task_history_and_user_replies() -> None:
    dialect = get_dialect("compact")
    history = [
        Step(action=Action.open("Messages")),
        Step(action=Action.call_user("Who to?"), user_reply="Alice"),
    ]
    messages = dialect.build_messages("Text Alice", SCREEN, history, observation_mode="text")
    assert [m["role"] for m in messages] == ["system", "user"]
    user = messages[1]["content"]
    assert "Task: Text Alice" in user
    assert '1. {"action": "open", "text": "Messages"}' in user
    assert "-> user: Alice" in user
    assert '[3] "Send"' in user
    assert "hidden" not in user
    assert len(messages[0]["content"]) + len(user) < 1500
    windowed = dialect.build_messages("Text Alice", SCREEN, history, observation_mode="text", history_window=1)
    assert "Messages" not in windowed[1]["content"].split("Screen:")[0]
