"""Tests of the human agent with piped input: the screen is shown, action lines are read, mistakes re-asked."""

from __future__ import annotations

import io

import pytest

from mobile_r1.agents import AgentRequest, make_agent
from mobile_r1.agents.human import parse_command
from mobile_r1.core.actions import Action
from mobile_r1.core.errors import ActionError, MobileR1Error
from mobile_r1.core.records import Observation, Step


def test_session_with_piped_stdin(observation: Observation) -> None:
    stdin = io.StringIO("help\nclick 99\n\nclick 1\ntype hello world\nask Which account?\n")
    stdout = io.StringIO()
    agent = make_agent("human", input=stdin, output=stdout)
    history = [Step(Action.back(), user_reply=None)]
    first = agent.act(AgentRequest("Tap OK", observation, history))
    assert first.action == Action.click(200, 300) and first.text == "click 1" and first.parse.ok
    assert agent.act(AgentRequest("Tap OK", observation)).action == Action.type_text("hello world")
    assert agent.act(AgentRequest("Tap OK", observation)).action == Action.call_user("Which account?")
    shown = stdout.getvalue()
    assert "Task: Tap OK" in shown and '"OK"' in shown and "step 1: system_button" in shown
    assert "no element with ID 99" in shown and "long_press" in shown  # the error and the help text
    with pytest.raises(MobileR1Error, match="no more input"):
        agent.act(AgentRequest("Tap OK", observation))


@pytest.mark.parametrize(
    ("line", "action"),
    [
        ("click 540 1200", Action.click(540, 1200)),
        ("long_press 2", Action.long_press(540, 1050)),
        ("long_press 2 3", Action.long_press(540, 1050, time=3)),
        ("long_press 10 20 1.5", Action.long_press(10, 20, time=1.5)),
        ("swipe up", Action.swipe(540, 1680, 540, 720)),
        ("swipe 1 200 900", Action.swipe(200, 300, 200, 900)),
        ("swipe 1 2 3 4", Action.swipe(1, 2, 3, 4)),
        ("back", Action.back()),
        ("Enter", Action.system_button("Enter")),
        ("key volume_up", Action.key("volume_up")),
        ("open Settings", Action.open("Settings")),
        ("wait", Action.wait()),
        ("wait 2", Action.wait(2)),
        ("done", Action.terminate("success")),
        ("fail", Action.terminate("failure")),
        ("answer 42 km", Action.answer("42 km")),
        ('{"action": "click", "coordinate": [5, 6]}', Action.click(5, 6)),
    ],
)
def test_commands(observation: Observation, line: str, action: Action) -> None:
    assert parse_command(line, observation) == action


@pytest.mark.parametrize("line", ["click", "click a b", "swipe sideways", "jump", "type", "terminate maybe"])
def test_bad_commands(observation: Observation, line: str) -> None:
    with pytest.raises(ActionError):
        parse_command(line, observation)
