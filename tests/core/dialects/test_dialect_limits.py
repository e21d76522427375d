"""Parsing is linear and capped: adversarial replies parse within hypothesis' deadline, long ones are reported as
truncated, and points off any screen (or off the model's image) make a step invalid."""

from __future__ import annotations

from datetime import timedelta

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mobile_r1.agents.base import ModelView
from mobile_r1.core.actions import Action
from mobile_r1.core.dialects import get_dialect
from mobile_r1.core.dialects.base import DEFAULT_MAX_CHARS, reply_chars
from mobile_r1.core.records import Observation

ALL = ("qwen2.5vl", "inquire", "mobile-r1", "uitars", "compact")
# A time bound per input, enforced by hypothesis itself: generous for a busy machine, far below the seconds the
# backtracking patterns took (3,000 spaces in a fence: 15 s).
BOUNDED = settings(max_examples=25, deadline=timedelta(milliseconds=500), derandomize=True,
                   suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
CALL = '{"name": "mobile_use", "arguments": {"action": "click", "coordinate": [10, 20]}}'


@BOUNDED
@given(st.integers(1_000, 4_000), st.sampled_from(ALL))
def test_a_code_fence_around_spaces_parses_within_the_deadline(n: int, name: str) -> None:
    result = get_dialect(name).parse("<think>x</think><tool_call>```" + " " * n + "x</tool_call>")
    assert result.action is None and not result.valid


@BOUNDED
@given(st.integers(100, 3_000), st.sampled_from(["<tool_call>", "</tool_call>", "</think><tool_call></tool_call>",
                                                 "<think>", "\n", " ", "```", "{", "["]), st.sampled_from(ALL))
def test_floods_of_one_fragment_parse_within_the_deadline(n: int, fragment: str, name: str) -> None:
    result = get_dialect(name).parse("<think>" + fragment * n + "x")
    assert not result.valid


@BOUNDED
@given(st.integers(1_000, 40_000), st.sampled_from(["xAction:", "Action: a(", "\nAction: ", ") ", "1,", "\\'"]))
def test_uitars_floods_parse_within_the_deadline(n: int, fragment: str) -> None:
    result = get_dialect("uitars").parse("Thought: t\nAction: click(start_box='" + fragment * (n // len(fragment)))
    assert not result.valid


@pytest.mark.parametrize("name", ALL)
def test_a_reply_longer_than_the_cap_is_read_up_to_it_and_reported_truncated(name: str) -> None:
    dialect = get_dialect(name)
    valid = dialect.render(Action.click(10, 20), thought="look")
    long = valid + " " * DEFAULT_MAX_CHARS
    result = dialect.parse(long)
    assert not result.valid and "truncated" in (result.error or "")
    assert result.raw is long and result.action == Action.click(10, 20)
    capped = dialect.parse(valid, max_chars=10)
    assert not capped.valid and "only the first 10 were read" in (capped.error or "")
    assert dialect.parse(valid, max_chars=reply_chars(512)).valid


def test_reply_chars_follows_the_token_budget() -> None:
    assert reply_chars(512) == 512 * 16 and reply_chars(None) == DEFAULT_MAX_CHARS


@pytest.mark.parametrize("name", ["mobile-r1", "uitars", "qwen2.5vl", "inquire", "compact"])
@pytest.mark.parametrize("point", [(-5, 20), (10, -1), (1e308, 5), (5, 1e6)])
def test_points_off_any_screen_make_the_output_invalid(name: str, point: tuple[float, float]) -> None:
    dialect = get_dialect(name)
    text = dialect.render(Action.click(1, 1), thought="t", description="d").replace("[1, 1]", f"[{point[0]}, {point[1]}]")
    if name == "uitars":
        text = f"Thought: t\nAction: click(start_box='({point[0]},{point[1]})')"
    result = dialect.parse(text)
    assert result.action == Action.click(*point)  # the numbers the model wrote, kept for the record
    assert not result.valid and "off any screen" in (result.error or "")


@pytest.mark.parametrize("name", ["mobile-r1", "uitars", "qwen2.5vl", "inquire", "compact"])
@pytest.mark.parametrize("number", ["Infinity", "-Infinity", "NaN", "1e400"])
def test_coordinates_that_are_not_finite_make_the_output_invalid(name: str, number: str) -> None:
    dialect = get_dialect(name)
    text = dialect.render(Action.click(1, 1), thought="t", description="d").replace("[1, 1]", f"[{number}, 5]")
    if name == "uitars":
        text = f"Thought: t\nAction: click(start_box='({number},5)')"
    result = dialect.parse(text)
    assert not result.valid
    if name != "uitars" or number == "1e400":  # uitars reads digits only: its other spellings are not a point at all
        assert "must be finite numbers" in (result.error or "")


def test_model_view_refuses_points_outside_the_model_frame() -> None:
    observation = Observation(screen_size=(1080, 2400))
    view = ModelView.create("qwen2.5vl", observation_mode="text", frame="normalized")
    text = get_dialect("qwen2.5vl").render(Action.click(1, 1)).replace("[1, 1]", "[999, 1200]")
    parse, action = view.read(text, observation)
    assert action is None and not parse.valid
    assert "'coordinate' [999, 1200] lies outside the 1000x1000 image the model saw" in (parse.error or "")
    inside, moved = view.read(text.replace("1200", "500"), observation)
    assert inside.valid and moved == Action.click(1079, 1200)


def test_coordinates_are_the_numbers_the_model_wrote_even_when_off_screen() -> None:
    text = '<tool_call>{"name": "mobile_use", "arguments": {"action": "swipe", "coordinate": [10.5, 20], ' \
           '"coordinate2": [3000, -4]}}</tool_call>'
    result = get_dialect("qwen2.5vl").parse(text)
    assert result.action == Action.swipe(10.5, 20, 3000, -4) and not result.valid
    assert "'coordinate2' [3000, -4] is off any screen" in (result.error or "")


@pytest.mark.parametrize("digits", [400, 5000])
def test_huge_integers_in_a_tool_call_say_why(digits: int) -> None:
    text = '<tool_call>{"name": "mobile_use", "arguments": {"action": "click", "coordinate": [' + "9" * digits + \
           ", 1]}}</tool_call>"
    result = get_dialect("qwen2.5vl").parse(text)
    assert result.action is None and not result.valid and result.error and "unreadable" not in result.error


def test_fenced_tool_calls_still_give_their_action() -> None:
    for fence in (f"```json\n{CALL}\n```", f"```{CALL}```", f"```\n{CALL}\n  ```"):
        result = get_dialect("qwen2.5vl").parse(f"<tool_call>{fence}</tool_call>")
        assert result.action == Action.click(10, 20) and result.error == "the tool call is wrapped in a code fence"


@settings(max_examples=3, deadline=timedelta(milliseconds=500), derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.integers(8, 12), st.sampled_from(ALL))
def test_megabyte_replies_cost_no_more_than_the_cap(megabytes: int, name: str) -> None:
    """uitars parses used to grow 0.18 s per MB of reply; every dialect now reads at most its cap."""
    text = "Thought: " + "a " * (megabytes * 2**19) + "\nAction: click(start_box='(1,2)')"
    result = get_dialect(name).parse(text)
    assert not result.valid and "truncated" in (result.error or "")
