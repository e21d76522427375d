"""The reward presets read completions in linear time: the string searches that replaced unbounded regexes give the
released patterns' answers, and adversarial completions score within hypothesis' deadline."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mobile_r1.core.rewards import PRESETS
from mobile_r1.core.rewards.components import first_tool_call, think_tool_call_strict

# The released patterns, as oracles (GUI-R1 / UI-R1 format check; the first tool-call block).
STRICT = re.compile(r"<think>.*?</think>\s*<tool_call>.*?</tool_call>", re.DOTALL)
BLOCK = re.compile(r"<tool_call>(.*?)</tool_call>", re.DOTALL)
SOUP = st.lists(st.sampled_from(["<think>", "</think>", "<tool_call>", "</tool_call>", " ", "\n", "\u2003", "x", "{",
                                 "<", "/", ">", "think", "tool_call"]), max_size=30).map("".join)
LABEL = {"name": "mobile_use", "arguments": {"action": "click", "coordinate": [10, 20]}}


@pytest.mark.slow
@settings(max_examples=600, deadline=None)
@given(SOUP)
def test_the_searches_agree_with_the_released_patterns(text: str) -> None:
    assert think_tool_call_strict(text) == (STRICT.fullmatch(text) is not None)
    match = BLOCK.search(text)
    assert first_tool_call(text) == (match.group(1).strip() if match else None)


@settings(max_examples=20, deadline=timedelta(milliseconds=500), derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(500, 3_000), st.sampled_from(["<tool_call>", "</think><tool_call></tool_call>",
                                                 "</think> <tool_call> x </tool_call> "]), st.sampled_from(list(PRESETS)))
def test_tag_floods_score_within_the_deadline(n: int, fragment: str, preset: str) -> None:
    result = PRESETS[preset].score("<think>" + fragment * n + "x", LABEL, None, [1000, 2000], [1000, 2000])
    assert result.accuracy == 0.0
