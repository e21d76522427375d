"""get_dialect, DIALECTS and each dialect's action space."""

from __future__ import annotations

import pytest

from mobile_r1.core import Action, ActionError, ActionType, ConfigError
from mobile_r1.core.dialects import DIALECTS, Dialect, get_dialect


def test_known_names() -> None:
    assert DIALECTS == ("qwen2.5vl", "inquire", "mobile-r1", "uitars")
    for name in DIALECTS:
        dialect = get_dialect(name)
        assert isinstance(dialect, Dialect)
        assert dialect.name == name


def test_unknown_name_lists_the_known_ones() -> None:
    with pytest.raises(ConfigError) as err:
        get_dialect("gpt-7")
    for name in DIALECTS:
        assert name in str(err.value)


def test_inquire_offers_call_user_and_not_open() -> None:
    inquire = get_dialect("inquire")
    assert ActionType.CALL_USER in inquire.action_types
    assert ActionType.OPEN not in inquire.action_types
    assert ActionType.OPEN in get_dialect("qwen2.5vl").action_types
    assert ActionType.CALL_USER not in get_dialect("qwen2.5vl").action_types
    assert ActionType.OPEN in get_dialect("mobile-r1").action_types


def test_render_refuses_an_action_outside_the_space() -> None:
    with pytest.raises(ActionError, match="no 'open' action"):
        get_dialect("inquire").render(Action.open("Taobao"), thought="go")
    with pytest.raises(ActionError, match="call_user"):
        get_dialect("qwen2.5vl").render(Action.call_user("which one?"))


def test_parse_flags_an_action_outside_the_space_but_keeps_it() -> None:
    call = get_dialect("qwen2.5vl").render(Action.open("Taobao"))
    text = "<think>open the app</think>\n" + call
    result = get_dialect("inquire").parse(text)
    assert result.action == Action.open("Taobao")
    assert not result.valid
    assert "open" in (result.error or "")


def test_an_inquire_parse_of_mobile_r1_output_is_not_valid() -> None:
    text = get_dialect("mobile-r1").render(Action.click(1, 2), thought="t", description="tap")
    assert get_dialect("mobile-r1").parse(text).valid
    result = get_dialect("inquire").parse(text)
    assert result.action == Action.click(1, 2)
    assert not result.valid
