"""Message structure: image placeholders vs text observations, the history window, and the human's replies."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mobile_r1.core import Action, ConfigError, Frame
from mobile_r1.core.dialects import DIALECTS, InquireDialect, UITarsDialect, get_dialect
from mobile_r1.core.records import Observation, Step, UIElement

ELEMENTS = [
    UIElement(0, "android.widget.FrameLayout", (0, 0, 1080, 2400)),
    UIElement(1, "android.widget.Button", (480, 1150, 600, 1250), text="Pay ¥35", clickable=True),
    UIElement(2, "android.widget.EditText", (40, 200, 1040, 300), content_desc="Search", editable=True),
]


def obs(tag: str) -> Observation:
    return Observation(screen_size=(1080, 2400), elements=ELEMENTS, app=tag)


def steps(n: int, reply_at: int | None = None) -> list[Step]:
    out = []
    for i in range(n):
        if i == reply_at:
            action = Action.call_user(f"Shall I pay? ({i})")
            out.append(Step(action=action, description=f"ask {i}", observation=obs(f"s{i}"), user_reply=f"Yes, pay {i}"))
        else:
            out.append(Step(action=Action.click(i, i), description=f"step {i}.", observation=obs(f"s{i}")))
    return out


def images(messages: list[dict[str, Any]]) -> int:
    return sum(
        1 for m in messages if isinstance(m["content"], list) for item in m["content"] if item["type"] == "image"
    )


def all_text(messages: list[dict[str, Any]]) -> str:
    parts = []
    for m in messages:
        if isinstance(m["content"], str):
            parts.append(m["content"])
        else:
            parts += [item["text"] for item in m["content"] if item["type"] == "text"]
    return "\n".join(parts)


def check_shape(messages: list[dict[str, Any]]) -> None:
    assert messages[0]["role"] == "system" and isinstance(messages[0]["content"], str)
    for m in messages:
        assert m["role"] in ("system", "user", "assistant")
        if isinstance(m["content"], list):
            for item in m["content"]:
                assert item in ({"type": "image"},) or (item["type"] == "text" and isinstance(item["text"], str))


DIALECT_VARIANTS = [get_dialect(n) for n in DIALECTS] + [
    InquireDialect(prompt=p) for p in ("grpo", "full", "eval")
] + [UITarsDialect(history_images=1)]


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(DIALECT_VARIANTS), st.integers(0, 5), st.one_of(st.none(), st.integers(0, 6)))
def test_image_placeholders_match_image_observations(dialect: Any, n: int, window: int | None) -> None:
    history = steps(n)
    messages = dialect.build_messages("Buy milk", obs("now"), history, history_window=window,
                                      model_frame=Frame(1092, 2408))
    check_shape(messages)
    listed = dialect.image_observations(obs("now"), history, history_window=window)
    assert images(messages) == len(listed)
    assert listed[-1].app == "now"  # the current screen is always the last image


@pytest.mark.parametrize("dialect", DIALECT_VARIANTS, ids=repr)
def test_text_mode_has_no_images_and_shows_the_tree_in_the_model_frame(dialect: Any) -> None:
    messages = dialect.build_messages("Buy milk", obs("now"), steps(2), observation_mode="text",
                                      model_frame=Frame(540, 1200))
    check_shape(messages)
    assert images(messages) == 0
    text = all_text(messages)
    assert '[1] Button "Pay ¥35" clickable center=(270, 600) bounds=(240, 575, 300, 625)' in text
    assert "[0] FrameLayout" not in text  # a bare container is not a useful element


@pytest.mark.parametrize("name", DIALECTS)
def test_bad_observation_mode_is_a_config_error(name: str) -> None:
    with pytest.raises(ConfigError, match="observation_mode"):
        get_dialect(name).build_messages("x", obs("now"), observation_mode="audio")  # type: ignore[arg-type]


@pytest.mark.parametrize("dialect", DIALECT_VARIANTS, ids=repr)
def test_the_users_reply_to_call_user_is_in_the_history(dialect: Any) -> None:
    messages = dialect.build_messages("Pay the bill", obs("now"), steps(3, reply_at=1), model_frame=Frame(1092, 2408))
    assert "Yes, pay 1" in all_text(messages)


@pytest.mark.parametrize("name", ["inquire", "mobile-r1"])
def test_history_is_the_step_descriptions_and_the_window_keeps_the_last(name: str) -> None:
    d = get_dialect(name)
    text = all_text(d.build_messages("t", obs("now"), steps(4, reply_at=2)))
    assert "历史动作: step 0.step 1.ask 2经过与用户交互，得到用户反馈，Yes, pay 2step 3.\n" in text
    windowed = all_text(d.build_messages("t", obs("now"), steps(4), history_window=2))
    assert "历史动作: step 2.step 3.\n" in windowed
    none = d.build_messages("t", obs("now"), steps(4), history_window=0)
    assert "历史动作: \n" in all_text(none) and images(none) == 1


def test_qwen_history_lists_tool_calls_and_window() -> None:
    d = get_dialect("qwen2.5vl")
    text = all_text(d.build_messages("t", obs("now"), steps(3), history_window=1))
    assert 'Step 1: {"name": "mobile_use", "arguments": {"action": "click", "coordinate": [2, 2]}}; ' in text
    assert "[0, 0]" not in text and "[1, 1]" not in text


def test_a_step_without_description_shows_its_tool_call() -> None:
    history = [Step(action=Action.type_text("milk"))]
    text = all_text(get_dialect("inquire").build_messages("t", None, history))
    assert '历史动作: {"name": "mobile_use", "arguments": {"action": "type", "text": "milk"}}\n' in text


def test_negative_window_is_refused() -> None:
    with pytest.raises(Exception, match="history_window"):
        get_dialect("inquire").build_messages("t", obs("now"), steps(2), history_window=-1)


def test_uitars_history_alternates_screens_and_outputs() -> None:
    d = UITarsDialect(history_images=2)
    history = steps(3, reply_at=1)
    history[0].model_text = "Thought: tap\nAction: click(start_box='(0,0)')"
    messages = d.build_messages("Pay", obs("now"), history)
    roles = [m["role"] for m in messages]
    assert roles == ["system", "user", "assistant", "user", "assistant", "user", "assistant", "user"]
    assert messages[2]["content"] == history[0].model_text
    assert messages[4]["content"] == "Thought: \nAction: call_user(content='Shall I pay? (1)')"
    assert messages[5]["content"] == [{"type": "text", "text": "Yes, pay 1"}, {"type": "image"}]
    assert images(messages) == 3  # the last two history screens and the current one
    assert messages[1]["content"] == d.instruction_prompt("Pay")  # the oldest screen is left out
