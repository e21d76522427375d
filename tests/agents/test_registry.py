"""Tests of agent specs: built-in kinds, errors, and registering new kinds."""

from __future__ import annotations

from typing import Any

import pytest

from mobile_r1.agents import Agent, AgentOutput, AgentRequest, agent_names, make_agent, register_agent
from mobile_r1.agents.openai_agent import OpenAIAgent
from mobile_r1.agents.random_agent import RandomAgent
from mobile_r1.core.errors import ConfigError


def test_builtin_kinds() -> None:
    assert {"openai", "hf", "human", "random"} <= set(agent_names())
    agent = make_agent("openai:gpt-4o", base_url="http://127.0.0.1:1/v1", dialect="inquire", prescale=0.3)
    assert isinstance(agent, OpenAIAgent) and agent.client.model == "gpt-4o"
    assert agent.view.dialect.name == "inquire" and agent.view.prescale == 0.3
    assert isinstance(make_agent("random"), RandomAgent)


@pytest.mark.parametrize(
    ("spec", "options", "message"),
    [
        ("nope", {}, "unknown agent"),
        ("openai", {}, "needs an argument"),
        ("hf:", {}, "needs an argument"),
        ("random:abc", {}, "integer seed"),
        ("human:bob", {}, "no argument"),
        ("openai:m", {"colour": "red"}, "bad options"),
        ("openai:m", {"dialect": "klingon"}, "unknown dialect"),
        ("openai:m", {"frame": "polar"}, "frame must be"),
    ],
)
def test_spec_errors(spec: str, options: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        make_agent(spec, **options)


def test_register_a_new_kind() -> None:
    class Fixed(Agent):
        def __init__(self, argument: str | None) -> None:
            self.argument = argument

        def act(self, request: AgentRequest) -> AgentOutput:  # pragma: no cover - not called
            raise NotImplementedError

    register_agent("fixed-test", lambda arg, **opts: Fixed(arg), replace=True)
    agent = make_agent("fixed-test:abc")
    assert isinstance(agent, Fixed) and agent.argument == "abc"
    with pytest.raises(ConfigError, match="already registered"):
        register_agent("fixed-test", lambda arg, **opts: Fixed(arg))
    with pytest.raises(ConfigError, match="no colon"):
        register_agent("a:b", lambda arg, **opts: Fixed(arg))


def test_scripted_agents_are_available_without_importing_their_module() -> None:
    import subprocess
    import sys

    code = "from mobile_r1.agents import make_agent; print(type(make_agent('oracle')).__name__)"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip()
