"""Tests of the `openai:` agent for real over HTTP against `mobile-r1 serve` on loopback."""

from __future__ import annotations

import asyncio
import logging
import types

import pytest

from mobile_r1.agents import AgentRequest, make_agent
from mobile_r1.agents.openai_agent import EndpointError, OpenAIAgent
from mobile_r1.core.actions import Action
from mobile_r1.core.geometry import Frame
from mobile_r1.core.records import Observation, Step
from mobile_r1.serve import LoopbackServer, ScriptedModel

CLICK = '<tool_call>\n{{"name": "mobile_use", "arguments": {{"action": "click", "coordinate": [{x}, {y}]}}}}\n</tool_call>'


def test_action_comes_back_in_screen_pixels(observation: Observation) -> None:
    frame = Frame.qwen(1080, 2400, prescale=0.3)
    backend = ScriptedModel([CLICK.format(x=100, y=200)])
    history = [Step(Action.click(540, 1200), model_text="earlier")]
    with LoopbackServer(backend) as server:
        agent = make_agent("openai:m", base_url=server.base_url, dialect="qwen2.5vl", prescale=0.3)
        out = agent.act(AgentRequest("Tap OK", observation, history))
    assert out.parse.ok and out.parse.action == Action.click(100, 200)
    assert out.action == Action.click(*frame.map((100, 200), Frame.screen(1080, 2400)))
    (messages, temperature, max_tokens), = backend.requests
    assert (temperature, max_tokens) == (0.0, 512)
    images = [im for m in messages for im in m.images]
    assert [im.size for im in images] == [(int(frame.width), int(frame.height))]
    user = messages[-1].text
    assert "Tap OK" in user
    # the history action is shown to the model in its own frame
    hx, hy = Frame.screen(1080, 2400).map((540, 1200), frame)
    assert f"[{hx}, {hy}]" in user


def test_grid_and_text_modes(observation: Observation) -> None:
    backend = ScriptedModel([CLICK.format(x=500, y=250), CLICK.format(x=200, y=300)])
    with LoopbackServer(backend) as server:
        grid = OpenAIAgent("m", base_url=server.base_url, frame="normalized")
        assert grid.act(AgentRequest("x", observation)).action == Action.click(540, 600)
        text = OpenAIAgent("m", base_url=server.base_url, observation_mode="text")
        out = text.act(AgentRequest("x", observation))
    assert out.action == Action.click(200, 300)  # text mode answers in screen pixels
    assert backend.requests[1][0][-1].images == [] and '"OK"' in backend.requests[1][0][-1].text


class FakeCompletions:
    """Stands in for `AsyncOpenAI().chat.completions`, recording the most calls it ever had in flight."""

    def __init__(self) -> None:
        self.active = 0
        self.peak = 0
        self.calls = 0

    async def create(self, **params: object) -> object:
        self.active += 1
        self.calls += 1
        self.peak = max(self.peak, self.active)
        await asyncio.sleep(0.02)
        self.active -= 1
        message = types.SimpleNamespace(content=CLICK.format(x=1, y=1))
        return types.SimpleNamespace(choices=[types.SimpleNamespace(message=message)])


def test_concurrency_limit_holds(observation: Observation, monkeypatch: pytest.MonkeyPatch) -> None:
    fake = FakeCompletions()

    class FakeClient:
        chat = types.SimpleNamespace(completions=fake)

        async def close(self) -> None:
            pass

    agent = OpenAIAgent("m", observation_mode="text", concurrency=3)
    monkeypatch.setattr(agent.client, "_client", lambda: FakeClient())
    outs = agent.act_batch([AgentRequest("x", observation)] * 10)
    assert len(outs) == 10 and fake.calls == 10
    assert fake.peak == 3


def test_batch_answers_every_request_in_order(observation: Observation) -> None:
    replies = [CLICK.format(x=i, y=i) for i in range(6)]
    backend = ScriptedModel(replies)
    with LoopbackServer(backend) as server:
        agent = OpenAIAgent("m", base_url=server.base_url, observation_mode="text", concurrency=3)
        outs = agent.act_batch([AgentRequest(f"task {i}", observation) for i in range(6)])
    assert len(outs) == 6 and len(backend.requests) == 6
    # every output belongs to its own request: the reply the server sent for that request's prompt
    by_task = {r[0][-1].text.split("task ")[1][0]: i for i, r in enumerate(backend.requests)}
    for i, out in enumerate(outs):
        assert out.text == replies[by_task[str(i)]]


def test_retries_server_errors_then_succeeds(observation: Observation, caplog: pytest.LogCaptureFixture,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MY_ENDPOINT_KEY", "sk-very-secret-123")
    backend = ScriptedModel([RuntimeError("busy"), RuntimeError("busy"), CLICK.format(x=3, y=4)])
    caplog.set_level(logging.DEBUG)
    with LoopbackServer(backend) as server:
        agent = OpenAIAgent("m", base_url=server.base_url, observation_mode="text", api_key_env="MY_ENDPOINT_KEY")
        out = agent.act(AgentRequest("x", observation))
    assert out.action == Action.click(3, 4) and len(backend.requests) == 3
    assert "retrying" in caplog.text.lower()  # the openai client's own retries
    assert "sk-very-secret-123" not in caplog.text and "sk-very-secret-123" not in repr(agent)


def test_gives_up_after_max_attempts_and_on_client_errors(observation: Observation) -> None:
    backend = ScriptedModel([RuntimeError("down")])
    with LoopbackServer(backend) as server:
        agent = OpenAIAgent("m", base_url=server.base_url, observation_mode="text", max_retries=1)
        with pytest.raises(EndpointError, match="failed: InternalServerError 500"):
            agent.act(AgentRequest("x", observation))
        assert len(backend.requests) == 2
        bad = OpenAIAgent("m", base_url=server.base_url, observation_mode="text", temperature=5.0)
        with pytest.raises(EndpointError, match="422"):
            bad.act(AgentRequest("x", observation))
    assert len(backend.requests) == 2  # a 4xx is not retried


def test_unparseable_reply_gives_no_action(observation: Observation) -> None:
    with LoopbackServer(ScriptedModel(["I would tap OK"])) as server:
        out = OpenAIAgent("m", base_url=server.base_url, observation_mode="text").act(AgentRequest("x", observation))
    assert out.action is None and not out.parse.valid and out.parse.error


def test_works_inside_a_running_event_loop(observation: Observation) -> None:
    with LoopbackServer(ScriptedModel([CLICK.format(x=7, y=8)])) as server:
        agent = OpenAIAgent("m", base_url=server.base_url, observation_mode="text")

        async def inside() -> Action | None:
            return agent.act(AgentRequest("x", observation)).action

        assert asyncio.run(inside()) == Action.click(7, 8)
