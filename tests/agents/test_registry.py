"""Tests of agent specs: built-in kinds, errors, and registering new kinds."""

from __future__ import annotations

from pathlib import Path
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


THIRD_PARTY = '''
"""A third-party agent outside mobile_r1: gives up at once, in its dialect."""
from mobile_r1.agents.base import Agent, AgentOutput
from mobile_r1.core.actions import Action
from mobile_r1.core.dialects import get_dialect


class GiveUp(Agent):
    name = "give-up"

    def __init__(self, *, dialect: str = "qwen2.5vl", reason: str = "I give up") -> None:
        self.dialect = get_dialect(dialect)
        self.reason = reason

    def act(self, request):
        text = self.dialect.render(Action.terminate("failure"), self.reason, "Give up")
        return AgentOutput(text, self.dialect.parse(text), Action.terminate("failure"), info={"reason": self.reason})


def make(argument, **options):
    return GiveUp(reason=argument or "no reason", **options)
'''


@pytest.fixture
def third_party(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """A package of its own on the path, which mobile_r1 never imports by name: `h49_bots.agents`."""
    package = tmp_path / "h49_bots"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "agents.py").write_text(THIRD_PARTY)
    monkeypatch.syspath_prepend(str(tmp_path))
    return "h49_bots.agents"


def test_a_third_party_agent_is_named_by_its_module_path(third_party: str) -> None:
    agent = make_agent(f"{third_party}:GiveUp", dialect="inquire")
    assert type(agent).__name__ == "GiveUp" and agent.dialect.name == "inquire"
    made = make_agent(f"{third_party}:make:tired", dialect="inquire")  # a factory, with the spec's argument
    assert made.reason == "tired"
    with pytest.raises(ConfigError, match="no attribute 'Nope'"):
        make_agent(f"{third_party}:Nope")
    with pytest.raises(ConfigError, match="cannot import"):
        make_agent("h49_missing.agents:GiveUp")


def test_eval_reaches_a_third_party_agent_from_the_shell(third_party: str, tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    import json

    from mobile_r1.cli.main import main

    run = tmp_path / "run"
    assert main(["eval", "--agent", f"{third_party}:GiveUp", "--suite", "nav-sim", "--episodes", "2",
                 "--option", "reason=bored", "--out", str(run), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["overall"]["n"] == 2 and summary["overall"]["sr"]["value"] == 0.0
    records = [json.loads(line) for line in (run / "episodes.jsonl").read_text().splitlines()]
    assert [[s["action"]["action"] for s in r["steps"]] for r in records] == [["terminate"], ["terminate"]]
    assert records[0]["steps"][0]["agent_info"] == {"reason": "bored"}
    # its options are checked on its class before a run folder is made
    assert main(["eval", "--agent", f"{third_party}:GiveUp", "--suite", "nav-sim", "--episodes", "1",
                 "--option", "colour=red", "--out", str(tmp_path / "bad")]) == 2
    assert "takes no option 'colour'" in capsys.readouterr().err and not (tmp_path / "bad").exists()
