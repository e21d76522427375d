"""Contract tests: AndroidWorld's HTTP API, written here as data, and both our client and our server held to it.

Read from google-research/android_world at commit d9c569f764b3a5629321858de03ff653d0f24056:
- `server/android_server.py`: every endpoint's method, path, query parameters (names, types, which are required,
  the defaults of `/suite/reinitialize`), the JSON body of `/execute_action` (a dict passed to `JSONAction(**...)`),
  the response keys, and the one explicit error status (400 for an unknown task family);
- `scripts/run_suite_on_docker.py` (AndroidWorld's example client): how clients call it (query parameters, the
  action body written by `JSONAction.json_str()`, `response.json()["..."]`);
- `android_world/env/json_action.py`: the action types, the keys and the checks of `JSONAction`.

FastAPI itself answers 422 for a missing or ill-typed query parameter; an exception in a handler is a 500.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import httpx
import numpy as np
import pytest
from starlette.testclient import TestClient

from mobile_r1.core.errors import EnvError, InfraError
from mobile_r1.env.androidworld.client import AndroidWorldClient, decode_screenshot
from mobile_r1.env.androidworld.wire import ACTION_KEYS, ACTION_TYPES, DIRECTIONS, UI_ELEMENTS_PATH, check_action
from mobile_r1.env.sim.servers.androidworld import SimAndroidWorld, create_app

TASK = {"task_type": str, "task_idx": int}


@dataclass(frozen=True)
class Endpoint:
    """One endpoint of AndroidWorld's server: method, path, query parameters {name: type}, which of them are
    required (the others' defaults), whether it takes a JSON body, and the keys of its answer."""

    method: str
    path: str
    query: dict[str, type] = field(default_factory=dict)
    defaults: dict[str, Any] = field(default_factory=dict)
    body: bool = False
    keys: frozenset[str] = frozenset({"status", "message"})

    @property
    def required(self) -> set[str]:
        return set(self.query) - set(self.defaults)


CONTRACT = [
    Endpoint("POST", "/reset", {"go_home": bool}),
    Endpoint("GET", "/screenshot", {"wait_to_stabilize": bool}, keys=frozenset({"pixels"})),
    Endpoint("POST", "/execute_action", body=True),
    Endpoint("GET", "/suite/task_list", {"max_index": int}, keys=frozenset({"task_list"})),
    Endpoint("GET", "/suite/task_length", {"task_type": str}, keys=frozenset({"length"})),
    Endpoint("GET", "/suite/reinitialize", {"n_task_combinations": int, "seed": int, "task_family": str},
             defaults={"n_task_combinations": 2, "seed": 42, "task_family": "android_world"}),
    Endpoint("POST", "/task/initialize", TASK),
    Endpoint("POST", "/task/tear_down", TASK),
    Endpoint("GET", "/task/score", TASK, keys=frozenset({"score"})),
    Endpoint("GET", "/task/goal", TASK, keys=frozenset({"goal"})),
    Endpoint("GET", "/task/template", TASK, keys=frozenset({"template"})),
    Endpoint("POST", "/close", keys=frozenset({"status"})),
    Endpoint("GET", "/health", keys=frozenset({"status"})),
]
INVALID_FAMILY_STATUS = 400
# json_action.py
JSON_ACTION_TYPES = {"click", "double_tap", "scroll", "swipe", "input_text", "navigate_home", "navigate_back",
                     "keyboard_enter", "open_app", "status", "wait", "long_press", "answer", "unknown"}
JSON_ACTION_KEYS = {"action_type", "index", "x", "y", "text", "direction", "goal_status", "app_name", "keycode",
                    "clear_text"}
SCROLL_DIRECTIONS = {"left", "right", "down", "up"}
OPENAPI_TYPES = {bool: "boolean", int: "integer", str: "string"}


@pytest.fixture(scope="module")
def server() -> TestClient:
    state = SimAndroidWorld("nav-sim", seed=0, n_task_combinations=1, scale=0.1)
    with TestClient(create_app(state), raise_server_exceptions=False) as client:
        yield client


# ----- our server ------------------------------------------------------------------------------------------------
def test_our_server_has_every_endpoint_with_the_contracts_method_and_parameters(server: TestClient) -> None:
    schema = server.get("/openapi.json").json()
    paths = schema["paths"]
    for e in CONTRACT:
        assert e.path in paths and list(paths[e.path]) == [e.method.lower()], e.path
        operation = paths[e.path][e.method.lower()]
        params = {p["name"]: p for p in operation.get("parameters", [])}
        assert set(params) == set(e.query), e.path
        for name, kind in e.query.items():
            assert params[name]["in"] == "query"
            assert params[name]["schema"]["type"] == OPENAPI_TYPES[kind], (e.path, name)
            assert params[name].get("required", False) == (name in e.required), (e.path, name)
            if name in e.defaults:
                assert params[name]["schema"]["default"] == e.defaults[name], (e.path, name)
        assert ("requestBody" in operation) == e.body, e.path
    # AndroidWorld's endpoints and our one extra: nothing else
    assert set(paths) - {e.path for e in CONTRACT} == {UI_ELEMENTS_PATH}


def _call(client: TestClient, e: Endpoint, values: dict[str, Any], body: Any = None) -> httpx.Response:
    params = {k: v for k, v in values.items() if k in e.query}
    return client.request(e.method, e.path, params=params, json=body if e.body else None)


def test_our_server_answers_every_endpoint_with_the_contracts_keys(server: TestClient) -> None:
    by_path = {e.path: e for e in CONTRACT}
    first = server.get("/suite/task_list", params={"max_index": -1}).json()["task_list"][0]
    values = {"go_home": True, "wait_to_stabilize": False, "max_index": -1, "task_type": first, "task_idx": 0,
              "n_task_combinations": 1, "seed": 0, "task_family": "nav-sim"}
    order = ["/health", "/suite/reinitialize", "/suite/task_list", "/suite/task_length", "/task/goal",
             "/task/template", "/reset", "/task/initialize", "/screenshot", "/execute_action", "/task/score",
             "/task/tear_down", "/close"]
    assert set(order) == set(by_path)
    for path in order:
        e = by_path[path]
        response = _call(server, e, values, body={"action_type": "navigate_home"})
        assert response.status_code == 200, (path, response.text[:200])
        answer = response.json()
        assert set(answer) == set(e.keys), path
    # the answers' values have the types AndroidWorld's example client reads
    assert all(isinstance(t, str) for t in server.get("/suite/task_list", params={"max_index": 2}).json()["task_list"])
    assert server.get("/suite/task_list", params={"max_index": 2}).json()["task_list"] == \
        server.get("/suite/task_list", params={"max_index": -1}).json()["task_list"][:2]
    pixels = np.asarray(server.get("/screenshot", params={"wait_to_stabilize": False}).json()["pixels"])
    assert pixels.ndim == 3 and pixels.shape[2] == 3 and pixels.dtype.kind == "i"


def test_our_server_answers_errors_as_androidworlds_does(server: TestClient) -> None:
    bad = server.get("/suite/reinitialize", params={"task_family": "no_such_family"})
    assert bad.status_code == INVALID_FAMILY_STATUS and "Invalid task family: no_such_family" in bad.json()["detail"]
    # AndroidWorld's default family, which its clients ask for, is the family the server started with
    assert server.get("/suite/reinitialize", params={"task_family": "nav-sim/unseen-app"}).status_code == 200
    unseen = server.get("/suite/task_list", params={"max_index": -1}).json()["task_list"]
    assert server.get("/suite/reinitialize", params={"seed": 0}).status_code == 200
    started = server.get("/suite/task_list", params={"max_index": -1}).json()["task_list"]
    assert set(started).isdisjoint(unseen) and server.get("/task/goal", params={"task_type": started[0], "task_idx": 0}).json() == \
        {"goal": SimAndroidWorld("nav-sim", seed=0, n_task_combinations=1).task(started[0], 0).instruction}
    assert server.post("/reset").status_code == 422  # a required query parameter missing
    assert server.get("/task/goal", params={"task_type": "x", "task_idx": "one"}).status_code == 422
    assert server.get("/task/goal", params={"task_type": "no.such.task", "task_idx": 0}).status_code == 500
    assert server.post("/execute_action", json={"action_type": "fly"}).status_code == 500
    assert server.post("/execute_action", json={"action_type": "click", "index": 1, "x": 3}).status_code == 500
    server.get("/suite/reinitialize", params={"task_family": "nav-sim", "seed": 0, "n_task_combinations": 1})
    task = server.get("/suite/task_list", params={"max_index": 1}).json()["task_list"][0]
    params = {"task_type": task, "task_idx": 0}
    assert server.get("/task/score", params=params).status_code == 500  # scored before it was initialised
    assert server.post("/task/initialize", params=params).status_code == 200
    assert server.post("/task/initialize", params=params).status_code == 500  # initialised twice
    server.get("/suite/reinitialize", params={"task_family": "nav-sim", "seed": 0, "n_task_combinations": 1})
    assert server.post("/task/initialize", params=params).status_code == 200  # a new suite, new instances


# ----- our client -----------------------------------------------------------------------------------------------
class Recorder:
    """An httpx transport that records each request and answers it with the contract's keys."""

    def __init__(self) -> None:
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        e = next(x for x in CONTRACT if x.path == request.url.path)
        values = {"status": "success", "message": "ok", "task_list": ["A", "B"], "length": 2, "score": 0.5,
                  "goal": "Do A", "template": "Do {x}"}
        if e.path == "/screenshot":
            return httpx.Response(200, content=json.dumps({"pixels": [[[1, 2, 3], [4, 5, 6]]]}).encode())
        return httpx.Response(200, json={k: values[k] for k in e.keys})


def test_our_client_sends_every_request_as_the_contract_says() -> None:
    recorder = Recorder()
    client = AndroidWorldClient("http://aw.test", transport=httpx.MockTransport(recorder))
    assert client.health() is True
    client.reset(go_home=True)
    assert client.screenshot().pixels.tolist() == [[[1, 2, 3], [4, 5, 6]]]
    client.execute_action({"action_type": "click", "x": 10, "y": 20, "text": None})
    assert client.task_list(-1) == ["A", "B"]
    assert client.task_length("A") == 2
    client.reinitialize(n_task_combinations=3, seed=7, task_family="android")
    client.initialize_task("A", 1)
    client.tear_down_task("A", 1)
    assert client.score("A", 1) == 0.5
    assert client.goal("A", 1) == "Do A" and client.template("A", 1) == "Do {x}"
    client.close_env()
    by_path = {e.path: e for e in CONTRACT}
    seen = set()
    for request in recorder.requests:
        e = by_path[request.url.path]
        seen.add(e.path)
        assert request.method == e.method, e.path
        sent = dict(request.url.params)
        assert set(e.required) <= set(sent) <= set(e.query), e.path
        for name, value in sent.items():
            kind = e.query[name]
            if kind is bool:
                assert value in ("true", "false")
            elif kind is int:
                int(value)
        if e.body:
            assert request.headers["content-type"] == "application/json"
            assert json.loads(request.content) == {"action_type": "click", "x": 10, "y": 20}  # nulls left out
        else:
            assert request.content == b""
    assert seen == set(by_path)


def test_our_client_reads_errors_by_the_contract() -> None:
    def answer(status: int, body: Any) -> AndroidWorldClient:
        return AndroidWorldClient("http://aw.test", reconnect=0, transport=httpx.MockTransport(
            lambda request: httpx.Response(status, json=body)))

    with pytest.raises(EnvError, match="Invalid task family") as refused:
        answer(400, {"detail": "Invalid task family: x"}).reinitialize(task_family="x")
    assert not isinstance(refused.value, InfraError)
    with pytest.raises(InfraError, match="HTTP 500"):
        answer(500, {"detail": "boom"}).score("A", 0)
    with pytest.raises(EnvError, match="without 'goal'"):
        answer(200, {"status": "success"}).goal("A", 0)


# ----- the JSON action and the screenshot -------------------------------------------------------------------------
def test_the_json_action_is_androidworlds() -> None:
    assert set(ACTION_TYPES) == JSON_ACTION_TYPES and set(ACTION_KEYS) == JSON_ACTION_KEYS
    assert set(DIRECTIONS) == SCROLL_DIRECTIONS
    assert check_action({"action_type": "click", "index": "3"}) == {"action_type": "click", "index": 3}
    assert check_action({"action_type": "input_text", "text": 5, "x": None}) == {"action_type": "input_text", "text": "5"}
    for bad, why in [({"action_type": "fly"}, "Invalid action type"),
                     ({"action_type": "click", "index": 1, "y": 2}, "Either an index"),
                     ({"action_type": "scroll", "direction": "sideways"}, "Invalid scroll direction"),
                     ({"action_type": "click", "button": 1}, "unexpected keyword"),
                     ({"action_type": "wait", "keycode": "ENTER"}, "Invalid keycode")]:
        with pytest.raises(ValueError, match=why):
            check_action(bad)


def test_screenshots_are_read_in_any_json_spelling() -> None:
    pixels = np.random.default_rng(0).integers(0, 256, (5, 4, 3)).astype(np.uint8)
    compact = json.dumps({"pixels": pixels.tolist()}, separators=(",", ":")).encode()
    spaced = json.dumps({"pixels": pixels.tolist()}, indent=1).encode()
    assert (decode_screenshot(compact) == pixels).all() and (decode_screenshot(spaced) == pixels).all()
    assert decode_screenshot(compact).shape == (5, 4, 3)
    with pytest.raises(EnvError, match="shape"):
        decode_screenshot(b'{"pixels":[[1,2,3]]}')
    with pytest.raises(InfraError, match="not JSON"):
        decode_screenshot(b'{"pixels":[[[1,2,3],[4,5')
