"""The compact dialect: round trip over every action, a short text prompt, and its history lines."""

from __future__ import annotations

from hypothesis import HealthCheck, assume, given, settings

from mobile_r1.core import Action, ActionType
from mobile_r1.core.dialects import CompactDialect, get_dialect
from mobile_r1.core.dialects.compact import KEYBOARD_OPEN, compact_screen, compact_target
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
    assert lines == ['"Send" (135, 300)', '"Message" edit (270, 175)']


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
    assert '1. open "Messages"\n2. call_user -> user: Alice' in user
    assert '"Send" (270, 600)' in user
    assert "hidden" not in user
    assert len(messages[0]["content"]) + len(user) < 1500
    windowed = dialect.build_messages("Text Alice", SCREEN, history, observation_mode="text", history_window=1)
    assert windowed[1]["content"].split("Past steps:\n")[1].split("\nTask:")[0] == "1. call_user -> user: Alice"


def test_history_names_the_element_a_past_step_touched_as_the_screen_listed_it() -> None:
    dialect = get_dialect("compact")
    frame = Frame(540, 1200)
    history = [
        Step(action=Action.click(135, 300), observation=SCREEN),  # the centre of "Send", model frame
        Step(action=Action.click(20, 170), observation=SCREEN),  # inside the "Message" field, off its centre
        Step(action=Action.click(500, 1100), observation=SCREEN),  # nothing listed there: the point is kept
        Step(action=Action.click(135, 300)),  # no observation kept: the point
        Step(action=Action.swipe(270, 900, 270, 300), observation=SCREEN),
        Step(action=Action.type_text("hi there")),
        Step(action=Action.system_button("Back")),
        Step(action=Action.terminate("success")),
    ]
    past = dialect.build_messages("Text Alice", SCREEN, history, observation_mode="text", model_frame=frame)[1]["content"]
    assert past.split("Past steps:\n")[1].split("\nTask:")[0].splitlines() == [
        '1. click "Send"',
        '2. click "Message" edit',
        "3. click (500, 1100)",
        "4. click (135, 300)",
        "5. swipe (270, 900) to (270, 300)",
        '6. type "hi there"',
        '7. system_button "Back"',
        '8. terminate "success"',
    ]


PHONE = Observation(
    screen_size=(1080, 2400),
    elements=[
        UIElement(0, "android.widget.LinearLayout", (0, 0, 1080, 90), resource_id="com.android.systemui:id/status_bar"),
        UIElement(1, "android.widget.TextView", (18, 24, 121, 65), text="12:00", parent=0),
        UIElement(2, "android.widget.LinearLayout", (0, 90, 1080, 2270)),
        UIElement(3, "android.widget.ScrollView", (0, 200, 1080, 1800), resource_id="com.sim.shop:id/feed",
                  scrollable=True, parent=2),
        UIElement(4, "android.widget.LinearLayout", (0, 200, 540, 700), clickable=True, parent=3),
        UIElement(5, "android.widget.TextView", (20, 220, 520, 300), text="Zen Earbuds", parent=4),
        UIElement(6, "android.widget.TextView", (20, 320, 520, 400), text="$27.72", parent=4),
        UIElement(7, "android.widget.TextView", (20, 420, 520, 500), text="Zen Earbuds", parent=4),
        UIElement(8, "android.widget.TextView", (0, 1850, 1080, 1900), text="Free delivery", parent=2),
        UIElement(9, "android.widget.Button", (600, 1950, 1000, 2050), text=" ", clickable=True, parent=2),
        UIElement(10, "android.widget.LinearLayout", (0, 1600, 1080, 2270), resource_id="com.sim.inputmethod:id/keyboard"),
        UIElement(11, "android.widget.Button", (0, 1600, 100, 1700), text="q", clickable=True,
                  resource_id="com.sim.inputmethod:id/key_q", parent=10),
        UIElement(12, "android.widget.LinearLayout", (0, 2270, 1080, 2400), resource_id="com.android.systemui:id/navigation_bar"),
        UIElement(13, "android.widget.ImageView", (100, 2280, 200, 2390), content_desc="Back", clickable=True,
                  resource_id="com.android.systemui:id/back", parent=12),
    ],
)


def test_screen_merges_inner_texts_and_leaves_out_bars_and_keyboard_keys() -> None:
    # the card is labelled by its texts (repeats once), the blank button by nothing, the list by its resource name;
    # the texts inside the card, the status bar, the keyboard's keys and the navigation bar are not listed
    assert compact_screen(PHONE).splitlines() == [
        '"feed" scroll (540, 1000)',
        '"Zen Earbuds $27.72" (270, 450)',
        '"Free delivery" (540, 1875)',
        "(800, 2000)",
        KEYBOARD_OPEN,
    ]


def test_target_names_the_listed_element_at_a_point() -> None:
    assert compact_target(PHONE, (270, 450)) == '"Zen Earbuds $27.72" (270, 450)'
    assert compact_target(PHONE, (100, 250)) == '"Zen Earbuds $27.72" (270, 450)'  # inside the card, not its centre
    assert compact_target(PHONE, (1070, 120)) is None  # nothing listed there
    assert get_dialect("compact").target_text(PHONE, (270, 450)) == compact_target(PHONE, (270, 450))
    assert get_dialect("inquire").target_text(PHONE, (270, 450)) is None
