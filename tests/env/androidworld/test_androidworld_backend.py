"""The `androidworld` backend on loopback: how suites map to the server's task families, budgets, observations with
and without a UI tree, steps, the benchmark verdict, capabilities, and the client's error policy."""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Any

import httpx
import pytest

from mobile_r1.agents import AgentRequest, ModelView
from mobile_r1.core.actions import Action
from mobile_r1.core.errors import CapabilityError, ConfigError, EnvError, InfraError
from mobile_r1.core.records import Observation
from mobile_r1.env import Capability, make_backend
from mobile_r1.env.androidworld import AndroidWorldBackend, packaged_tasks
from mobile_r1.env.androidworld.client import AndroidWorldClient
from mobile_r1.env.androidworld.wire import element_from_wire, element_to_wire, to_json_action
from mobile_r1.env.sim import SimBackend, SimEnv

from aw_servers import sim_server


@pytest.fixture(scope="module")
def ours() -> Any:
    with sim_server(scale=0.3) as server:
        yield server


@pytest.fixture(scope="module")
def theirs() -> Any:
    """Our server without its extra endpoint: like AndroidWorld's, it sends no UI tree."""
    with sim_server(scale=0.3, tree=False) as server:
        yield server


@pytest.mark.slow
def test_our_suites_are_the_simulators_episodes_found_on_the_server(ours: Any) -> None:
    backend = make_backend(f"androidworld:{ours.url}", render=False)
    refs = backend.episodes("nav-sim", "test", n=8, seed=3)
    sim = SimBackend(render=False).episodes("nav-sim", "test", 8, 3)
    assert [r.id for r in refs] == [r.id for r in sim]
    assert [(r.instruction, r.max_steps, r.task, r.category) for r in refs] == \
        [(r.instruction, r.max_steps, r.task, r.category) for r in sim]
    assert {r.backend for r in refs} == {"androidworld"}
    client = AndroidWorldClient(ours.url)
    client.reinitialize(max(int(r.meta["task_idx"]) for r in refs) + 1, 3, "nav-sim/test")
    for ref in refs:  # each is the server's instance (task type, index) of the split
        assert ref.meta["task_type"] == ref.task and ref.meta["task_family"] == "nav-sim/test"
        assert client.goal(ref.task, int(ref.meta["task_idx"])) == ref.instruction
    assert backend.episodes("nav-sim", "test", n=3, seed=3, tasks=[refs[1].task])[0].id == refs[1].id
    with pytest.raises(ConfigError, match="at most"):
        backend.episodes("nav-sim", "test", n=100_000)


def test_task_families_are_listed_as_androidworld_lists_them(ours: Any) -> None:
    backend = AndroidWorldBackend(ours.url, render=False, n_task_combinations=2)
    refs = backend.episodes("nav-sim/test", "test", n=None, seed=5)
    client = AndroidWorldClient(ours.url)
    types = client.task_list(-1)
    assert types == sorted(types)
    # task_idx 0 of every task type, then 1: a prefix is balanced
    assert [(r.meta["task_type"], r.meta["task_idx"]) for r in refs] == [(t, i) for i in range(2) for t in types]
    first = refs[0]
    assert first.id == f"{types[0]}/s5/0" and first.seed == 5 and first.needs_inquiry is False
    assert first.instruction == client.goal(types[0], 0) and first.meta["goal_template"] == client.template(types[0], 0)
    assert first.max_steps == 30  # not in AndroidWorld's table: default complexity 3 -> 30 steps
    assert [r.id for r in backend.episodes("nav-sim/test", "test", n=3, seed=5)] == [r.id for r in refs[:3]]
    with pytest.raises(ConfigError, match="no 'train' split"):
        backend.episodes("androidworld", "train")
    with pytest.raises(ConfigError, match="Invalid task family: AndroidWorld"):
        backend.episodes("AndroidWorld", "test")
    # AndroidWorld's own family is, on our server, the family it started with (nav-sim, seed 42)
    assert {r.task for r in backend.episodes("androidworld", "test", seed=42)} == set(types)
    with pytest.raises(ConfigError, match="not in nav-sim/test"):
        backend.episodes("nav-sim/test", "test", tasks=["NoSuchTask"])


def test_budgets_follow_androidworlds_complexity(tmp_path: Path) -> None:
    table = packaged_tasks()
    assert len(table) == 116 and {v["difficulty"] for v in table.values()} == {"easy", "medium", "hard"}
    backend = AndroidWorldBackend("http://aw.test")
    for task, info in table.items():
        assert backend.budget(task) == int(10 * info["complexity"])
    assert backend.budget("ContactsAddContact") == 12 and backend.budget("VlcCreateTwoPlaylists") == 48
    assert backend.budget("SomethingNew") == 30
    path = tmp_path / "complexity.json"
    path.write_text(json.dumps({"ContactsAddContact": 2.5, "SomethingNew": 0.4}))
    custom = AndroidWorldBackend("http://aw.test", complexity=str(path), default_complexity=1.5)
    assert custom.budget("ContactsAddContact") == 25 and custom.budget("SomethingNew") == 4
    assert custom.budget("Unknown") == 15 and custom.budget("VlcCreateTwoPlaylists") == 48
    path.write_text(json.dumps({"ContactsAddContact": -1}))
    with pytest.raises(ConfigError, match="positive"):
        AndroidWorldBackend("http://aw.test", complexity=str(path))
    with pytest.raises(ConfigError, match="androidworld:http"):
        make_backend("androidworld")


@pytest.mark.slow
def test_an_episode_on_our_server_plays_like_the_simulator(ours: Any) -> None:
    backend = make_backend(f"androidworld:{ours.url}", scale=0.3)
    ref = backend.episodes("nav-sim", "test", n=1)[0]
    env = backend.open(ref)
    assert env.has(Capability.EXPERT) and env.has(Capability.STATE_KEY) and not env.has(Capability.FORK)
    observation, _ = env.reset()
    local = SimBackend(render=False).open(SimBackend(render=False).episodes("nav-sim", "test", 1)[0])
    expected, _ = local.reset()
    assert observation.screen_size == (1080, 2400) and observation.screenshot.size == (324, 720)
    assert observation.elements == expected.elements and observation.state_key == expected.state_key
    assert observation.elements_missing is None
    plan = env.expert_demo().plan()
    for step in plan[:-1]:
        assert env.observation is not None and env.observation.state_key == step.state_key  # the plan replays
        observation, terminated, truncated, info = env.step(step.action)
        assert not terminated and "androidworld_action" in info.extra
    assert env.judge().verdict.success is False  # the task is done, but the agent has not declared it
    observation, terminated, _, info = env.step(plan[-1].action)
    assert terminated and info.extra["androidworld_action"] == {"action_type": "status", "goal_status": "complete"}
    judgement = env.judge()
    assert judgement.judge == "benchmark" and judgement.verdict.success and judgement.verdict.score == 4.0
    assert judgement.progress == 1.0 and judgement.verdict.steps == len(plan)
    env.close()
    assert not env.initialized
    with pytest.raises(EnvError, match="reset"):
        env.judge()


def test_what_androidworld_cannot_do_changes_nothing(ours: Any) -> None:
    backend = make_backend(f"androidworld:{ours.url}", render=False)
    env = backend.open(backend.episodes("nav-sim", "test", n=1)[0], max_steps=3)
    before, _ = env.reset()
    after, terminated, _, info = env.step(Action.call_user("Which one?"))
    assert "no user" in (info.error or "") and after.state_key == before.state_key and not terminated
    after, _, truncated, info = env.step(Action.key("volume_up"))
    assert "nothing was sent" in (info.error or "") and after.state_key == before.state_key
    _, _, truncated, _ = env.step(Action.back())
    assert truncated
    verdict = env.judge().verdict
    assert not verdict.success and verdict.inquiry == "over_asked" and verdict.over_asks == 1
    assert "did not end the episode" in verdict.reason
    env.close()


def test_a_server_plays_one_episode_at_a_time(ours: Any) -> None:
    from mobile_r1.eval.runner import EvalConfig, run_eval

    with pytest.raises(ConfigError, match="1 episode\\(s\\) at a time; use --workers 1"):
        run_eval(EvalConfig(agent="oracle", env=f"androidworld:{ours.url}", suite="nav-sim", episodes=2, workers=2))
    backend = make_backend(f"androidworld:{ours.url}", render=False)
    first, second = (backend.open(r) for r in backend.episodes("nav-sim", "test", n=2))
    first.reset()
    with pytest.raises(ConfigError, match="still in play"):
        second.reset()
    first.close()
    second.reset()
    assert second.initialized and not first.initialized
    second.close()


def test_a_server_without_a_ui_tree_gives_screenshots_and_says_why_there_are_no_elements(theirs: Any) -> None:
    backend = make_backend(f"androidworld:{theirs.url}", scale=0.3)
    assert not backend.simulated
    with pytest.raises(ConfigError, match="suite of our simulated phone"):
        backend.episodes("nav-sim", "test", n=2)
    ref = backend.episodes("nav-sim/test", "test", n=1)[0]
    env = backend.open(ref)
    observation, _ = env.reset()
    assert observation.elements == [] and "no UI tree" in (observation.elements_missing or "")
    assert observation.screen_size == (324, 720)  # the screenshot is all there is: its size is the screen's
    assert observation.state_key is None and env.capabilities == frozenset()
    with pytest.raises(CapabilityError, match="demonstrate"):
        env.require(Capability.EXPERT, "the oracle agent")
    view = ModelView.create("compact", observation_mode="text")
    with pytest.raises(ConfigError, match="no UI tree.*--observation image"):
        view.prompt(AgentRequest(ref.instruction, observation))
    messages, images = ModelView.create("qwen2.5vl").prompt(AgentRequest(ref.instruction, observation))
    assert len(images) == 1  # a screenshot dialect works
    _, _, _, info = env.step(Action.swipe(160, 500, 160, 200))  # no elements: the whole screen scrolls
    assert info.extra["androidworld_action"] == {"action_type": "scroll", "direction": "down"}
    env.close()


def test_gymnasium_text_observations_need_a_ui_tree(theirs: Any) -> None:
    import gymnasium

    import mobile_r1.env  # noqa: F401  (registers mobile_r1/Phone-v0)

    env = gymnasium.make("mobile_r1/Phone-v0", backend=f"androidworld:{theirs.url}", suite="nav-sim/test",
                         split="test", episodes=1, observation="text")
    with pytest.raises(ConfigError, match="no UI tree"):
        env.reset(seed=0)
    env.close()
    record = Observation((10, 20), elements_missing="no tree here")
    assert Observation.from_dict(record.to_dict()).elements_missing == "no tree here"
    assert "elements_missing" not in Observation((10, 20)).to_dict()


def test_sim_serve_refuses_what_it_cannot_do(capsys: pytest.CaptureFixture[str]) -> None:
    from mobile_r1.cli.main import main

    assert main(["sim", "serve", "--api", "openai", "--port", "0"]) == 2
    assert "can be served with: androidworld" in capsys.readouterr().err
    assert main(["sim", "serve", "--suite", "androidworld", "--port", "0"]) == 2
    assert "Invalid task family: androidworld" in capsys.readouterr().err
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        assert main(["sim", "serve", "--port", str(taken.getsockname()[1]), "--scale", "0.1"]) == 2
        err = capsys.readouterr().err
        assert "cannot listen on 127.0.0.1" in err and "Traceback" not in err


def test_elements_and_actions_cross_the_wire_unchanged() -> None:
    env = SimEnv(seed=4, render=False)
    observation = env.reset(app="Contacts")
    wire = [element_to_wire(e, observation.screen_size) for e in observation.elements]
    assert json.loads(json.dumps(wire)) == wire
    assert [element_from_wire(w, i) for i, w in enumerate(wire)] == observation.elements
    scrollable = next(i for i, e in enumerate(observation.elements) if e.scrollable)
    x1, y1, x2, y2 = observation.elements[scrollable].bounds
    swipe = Action.swipe((x1 + x2) // 2, y2 - 10, (x1 + x2) // 2, y1 + 10)
    assert to_json_action(swipe, observation.elements) == {"action_type": "scroll", "direction": "down",
                                                           "index": scrollable}
    assert to_json_action(Action.type_text("Ana")) == {"action_type": "input_text", "text": "Ana"}
    with pytest.raises(Exception, match="app name"):
        to_json_action(Action.open(" "))


def test_the_client_turns_transport_failures_into_infrastructure_errors() -> None:
    def failing(exc: Exception) -> AndroidWorldClient:
        def handler(request: httpx.Request) -> httpx.Response:
            raise exc
        return AndroidWorldClient("http://aw.test", reconnect=0, transport=httpx.MockTransport(handler))

    with pytest.raises(InfraError, match="did not answer GET /task/score within 60 s"):
        failing(httpx.ReadTimeout("slow")).score("A", 0)
    with pytest.raises(InfraError, match="cannot reach"):
        failing(httpx.ConnectError("refused")).health()
    with pytest.raises(InfraError, match="cannot reach"):
        failing(httpx.RemoteProtocolError("server disconnected")).execute_action({"action_type": "wait"})
    calls: list[int] = []

    def refusing_twice(request: httpx.Request) -> httpx.Response:
        calls.append(1)
        if len(calls) <= 2:
            raise httpx.ConnectError("refused")
        return httpx.Response(200, json={"status": "success"})

    patient = AndroidWorldClient("http://aw.test", reconnect=30, transport=httpx.MockTransport(refusing_twice))
    assert patient.health() and len(calls) == 3  # a restarting server is waited for
    backend = AndroidWorldBackend("http://127.0.0.1:9", reconnect=0)  # nothing listens on the discard port
    with pytest.raises(InfraError, match="Start one"):
        backend.episodes("androidworld", "test")


def test_a_composite_tasks_fraction_is_kept_as_the_score_and_only_a_whole_one_succeeds(ours: Any) -> None:
    """AndroidWorld's composite tasks score fractions (`task/score` 0.5 = half the subgoals): the fraction is the
    verdict's score and progress, success needs 1.0, and a task the agent never declared done scores nothing."""
    reported = {"score": 0.5}
    upstream = httpx.Client(base_url=ours.url, timeout=30)

    def proxy(request: httpx.Request) -> httpx.Response:  # our server, with the composite task's score in its place
        if request.url.path == "/task/score":
            return httpx.Response(200, json={"score": reported["score"]})
        answer = upstream.request(request.method, request.url.path, params=request.url.params, content=request.content,
                                  headers={"content-type": request.headers.get("content-type", "application/json")})
        return httpx.Response(answer.status_code, content=answer.content, headers={"content-type": "application/json"})

    backend = AndroidWorldBackend(ours.url, scale=0.3, transport=httpx.MockTransport(proxy))
    ref = backend.episodes("nav-sim", "test", n=1)[0]
    for score, declared_done, success, grade in ((0.5, True, False, 2.0), (1.0, True, True, 4.0), (0.5, False, False, 0.0)):
        reported["score"] = score
        env = backend.open(ref)
        env.reset()
        if declared_done:
            env.step(Action.terminate("success"))
        judgement = env.judge()
        env.close()
        assert judgement.verdict.success is success and judgement.verdict.score == grade
        assert judgement.progress == score and judgement.judge == "benchmark"
        assert ("did not end the episode" in judgement.verdict.reason) is (not declared_done)
    upstream.close()
