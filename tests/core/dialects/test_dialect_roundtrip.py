"""render -> parse gives back the same action, thought and description, for every action each dialect offers."""

from __future__ import annotations

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from mobile_r1.core import Action, ActionType
from mobile_r1.core.dialects import get_dialect
from mobile_r1.core.dialects.uitars import FAILURE_CONTENT

from dialect_strategies import AWKWARD, any_action

FAST = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
TAGS = ("<think>", "</think>", "<action>", "</action>", "<tool_call>", "</tool_call>")


def _free_of_tags(*texts: str) -> bool:
    return not any(tag in t for t in texts for tag in TAGS)


def _tool_call_roundtrip(name: str, action: Action, thought: str, description: str) -> None:
    dialect = get_dialect(name)
    assume(_free_of_tags(thought, description, action.to_json()))
    text = dialect.render(action, thought=thought, description=description)
    result = dialect.parse(text)
    assert result.valid, result.error
    assert result.error is None
    assert result.action == action
    assert result.raw == text
    if "think" in dialect.tags:  # type: ignore[attr-defined]
        assert result.thought == thought.strip()
    else:
        assert result.thought is None
    if "action" in dialect.tags:  # type: ignore[attr-defined]
        assert result.description == description.strip()
    else:
        assert result.description is None


@FAST
@given(any_action(get_dialect("qwen2.5vl").action_types), AWKWARD, AWKWARD)
def test_qwen_roundtrip(action: Action, thought: str, description: str) -> None:
    _tool_call_roundtrip("qwen2.5vl", action, thought, description)


@FAST
@given(any_action(get_dialect("inquire").action_types), AWKWARD, AWKWARD)
def test_inquire_roundtrip(action: Action, thought: str, description: str) -> None:
    _tool_call_roundtrip("inquire", action, thought, description)


@FAST
@given(any_action(get_dialect("mobile-r1").action_types), AWKWARD, AWKWARD)
def test_mobile_r1_roundtrip(action: Action, thought: str, description: str) -> None:
    _tool_call_roundtrip("mobile-r1", action, thought, description)


def _uitars_representable(action: Action) -> bool:
    """UI-TARS's grammar cannot tell these apart from other actions (see the uitars module docstring)."""
    if action.type is ActionType.WAIT:
        return action.time is None
    if action.type is ActionType.KEY:
        return action.text.strip().lower() not in ("enter", "menu")  # type: ignore[union-attr]
    if action.type is ActionType.ANSWER:
        return bool(action.text.strip()) and action.text.strip().lower() != FAILURE_CONTENT  # type: ignore[union-attr]
    return True


@FAST
@given(any_action(get_dialect("uitars").action_types), AWKWARD)
def test_uitars_roundtrip(action: Action, thought: str) -> None:
    assume(_uitars_representable(action))
    dialect = get_dialect("uitars")
    text = dialect.render(action, thought=thought)
    result = dialect.parse(text)
    assert result.valid, result.error
    assert result.action == action
    assert result.thought == thought.strip()


@given(st.sampled_from(["qwen2.5vl", "inquire", "mobile-r1"]), st.sampled_from(TAGS))
def test_render_refuses_texts_that_would_break_the_format(name: str, tag: str) -> None:
    dialect = get_dialect(name)
    text = f"look {tag} here"
    try:
        rendered = dialect.render(Action.type_text(text), thought=text, description=text)
    except Exception as exc:  # noqa: BLE001 - must be the project's ActionError
        assert type(exc).__name__ == "ActionError"
        return
    # Only tags the dialect does not use may pass, and then the output must still read back.
    assert dialect.parse(rendered).action == Action.type_text(text)
