"""Our simulated phone served with AndroidWorld's HTTP API (`mobile-r1 sim serve --api androidworld`).

AndroidWorld's docker image runs a FastAPI server over an emulator (`server/android_server.py` in
google-research/android_world); this module serves the same endpoints, methods, query parameters, bodies and response
keys over the built-in simulated phone, so AndroidWorld clients run on a laptop with no emulator and our own client
(`mobile_r1.env.androidworld`) is tested on loopback against a server that keeps the same contract:

    POST /reset?go_home=             GET /screenshot?wait_to_stabilize=      POST /execute_action  (JSONAction body)
    GET  /suite/task_list?max_index= GET /suite/task_length?task_type=
    GET  /suite/reinitialize?n_task_combinations=2&seed=42&task_family=
    POST /task/initialize, /task/tear_down; GET /task/score, /task/goal, /task/template  (?task_type=&task_idx=)
    POST /close                      GET /health
    GET  /ui_elements?wait_to_stabilize=   (ours alone: the screen's UI elements, which AndroidWorld's server omits)

Task families are our suites: `nav-sim` or `inquire-sim` (their test split) or `SUITE/SPLIT` (`nav-sim/train`), and
`android_world`, the family AndroidWorld's clients ask for by default, is the one the server started with;
task types are our task ids (`contacts.favorite`), sorted as AndroidWorld sorts its suite; the instances of a task
type are its episodes in the split, in the split's order, the first `n_task_combinations` of them. `task/score` is
1.0 when the rule judge says the task succeeded, else 0.0.

Actions follow AndroidWorld's executor (`android_world/env/actuation.py`): `click` / `long_press` / `double_tap` at
`x, y` or at the centre of element `index`; `input_text` taps its target if it has one, types, then presses Enter;
`scroll` swipes from the centre of element `index` (or of the screen) to its edge; `swipe` crosses the whole screen;
`wait` is one second; `status` does nothing on the phone; `answer` is kept as the phone's answer. As there, a
request the server cannot serve (an unknown task type, an index out of range, a task scored before it was
initialised or initialised twice without `suite/reinitialize`, an action `JSONAction` refuses) is an HTTP 500.

Bounds: a request body over `MAX_BODY` bytes is answered 413 unread; the suites of the last `SEED_CACHE` seeds are
kept; a connection that sends nothing for `IDLE_SECONDS` (before its first request or between two) is closed, and
past `MAX_CONNECTIONS` (or when the process runs out of file descriptors) the longest idle one is shed, with one log
line for the whole flood. `serve` prints the URL (calls `ready`) only once the server accepts connections.
"""

from __future__ import annotations

import asyncio
import logging
import resource
import socket
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from mobile_r1.core.actions import Action
from mobile_r1.core.errors import ConfigError
from mobile_r1.core.records import UIElement
from mobile_r1.env.androidworld.wire import SERVER_NAME, UI_ELEMENTS_PATH, JSONAction, check_action, element_to_wire
from mobile_r1.env.protocol import EpisodeRef
from mobile_r1.env.sim.backend import SimBackend, SimTaskEnv, episode_ref
from mobile_r1.sim.driver import SimEnv
from mobile_r1.tasks.suites import SPLITS, SUITES

# AndroidWorld's server starts with `create_suite(n_task_combinations=2, seed=42)`; ours does too.
DEFAULT_SEED = 42
DEFAULT_COMBINATIONS = 2
DEFAULT_FAMILY = "android_world"  # what AndroidWorld's clients reinitialise by default: here, the starting family
WAIT_SECONDS = 1.0  # AndroidWorld's executor sleeps one second for `wait`
MAX_BODY = 1024 * 1024  # bytes of a request body (an action is a few hundred)
SEED_CACHE = 8  # suites (one per suite, split and seed) kept
IDLE_SECONDS = 10.0  # a connection that sends nothing this long is closed
MAX_CONNECTIONS = 256  # at most; fewer when the process may open fewer files
log = logging.getLogger(__name__)


def families() -> list[str]:
    """The task families this server knows: each suite (its test split), each SUITE/SPLIT, and AndroidWorld's default
    (the family the server started with)."""
    return [*SUITES, *(f"{s}/{split}" for s in SUITES for split in SPLITS), DEFAULT_FAMILY]


def parse_family(family: str) -> tuple[str, str]:
    """(suite, split) of a task family; ValueError for one this server does not know."""
    suite, _, split = family.partition("/")
    if suite not in SUITES or (split or "test") not in SPLITS:
        raise ValueError(f"Invalid task family: {family} (this server has: {', '.join(families())})")
    return suite, split or "test"


# ----- actions --------------------------------------------------------------------------------------------------
def _centre(elements: Sequence[UIElement], index: int) -> tuple[int, int]:
    if index < 0 or index >= len(elements):
        raise ValueError(f"Invalid element index: {index}, must be between 0 and {len(elements) - 1}.")
    return elements[index].center


def _field_at(elements: Sequence[UIElement], x: float, y: float) -> UIElement | None:
    """The smallest editable element under (x, y)."""
    hits = [e for e in elements if e.editable and e.bounds[0] <= x <= e.bounds[2] and e.bounds[1] <= y <= e.bounds[3]]
    return min(hits, key=lambda e: (e.bounds[2] - e.bounds[0]) * (e.bounds[3] - e.bounds[1]), default=None)


def _clamp(point: tuple[float, float], screen: tuple[int, int]) -> tuple[int, int]:
    # AndroidWorld swipes to the screen's edge (x = width, y = height), which adb accepts; our phone takes pixels
    # inside the screen, so the edge is the last pixel.
    return (min(max(int(point[0]), 0), screen[0] - 1), min(max(int(point[1]), 0), screen[1] - 1))


def actuation(action: JSONAction, elements: Sequence[UIElement], screen: tuple[int, int]) -> list[Action]:
    """Our phone's actions for one AndroidWorld JSON action (already checked), as AndroidWorld's executor would
    perform it on a device; `elements` are the screen's elements in the order `/ui_elements` lists them."""
    kind = action["action_type"]
    index = action.get("index")
    if kind in ("click", "double_tap", "long_press"):
        if index is not None:
            x, y = _centre(elements, index)
        elif action.get("x") is not None and action.get("y") is not None:
            x, y = int(action["x"]), int(action["y"])
        else:
            raise ValueError(f"Invalid click action: {action}")
        if kind == "long_press":
            return [Action.long_press(x, y)]
        return [Action.click(x, y)] * (2 if kind == "double_tap" else 1)
    if kind == "input_text":
        text = action.get("text") or ""
        if not text:
            return []  # AndroidWorld logs a warning and does nothing
        out: list[Action] = []
        field = next((e for e in elements if e.focused and e.editable), None)
        if index is not None or (action.get("x") is not None and action.get("y") is not None):
            out += actuation({**action, "action_type": "click"}, elements, screen)
            x, y = out[-1].coordinate  # type: ignore[misc]
            field = _field_at(elements, x, y) or field
        if action.get("clear_text") and field is not None:  # select all + delete: one Delete per character
            out += [Action.key("del")] * len(field.text)
        return out + [Action.type_text(text.rstrip("\n")), Action.system_button("Enter")]
    if kind == "keyboard_enter":
        return [Action.system_button("Enter")]
    if kind == "navigate_home":
        return [Action.system_button("Home")]
    if kind == "navigate_back":
        return [Action.system_button("Back")]
    if kind == "scroll":
        width, height = screen
        if index:  # AndroidWorld tests the index for truth, so index 0 scrolls the whole screen
            if index < 0 or index >= len(elements):
                raise ValueError(f"Invalid element index: {index}, must be between 0 and {len(elements) - 1}.")
            bx1, by1, bx2, by2 = elements[index].bounds
            x1, y1, x2, y2 = max(bx1, 0), max(by1, 0), min(bx2, width), min(by2, height)
        else:
            x1, y1, x2, y2 = 0, 0, width, height
        start = ((x1 + x2) // 2, (y1 + y2) // 2)
        ends = {"down": ((x1 + x2) // 2, y1), "up": ((x1 + x2) // 2, y2), "right": (x1, (y1 + y2) // 2),
                "left": (x2, (y1 + y2) // 2)}
        end = ends.get(action.get("direction") or "")
        if end is None:
            return []  # AndroidWorld prints 'Invalid direction' and does nothing
        return [Action.swipe(*_clamp(start, screen), *_clamp(end, screen))]
    if kind == "swipe":
        width, height = screen
        mx, my = width / 2, height / 2
        path = {"down": ((mx, 0), (mx, height)), "up": ((mx, height), (mx, 0)), "left": ((0, my), (width, my)),
                "right": ((width, my), (0, my))}.get(action.get("direction") or "")
        if path is None:
            return []
        return [Action.swipe(*_clamp(path[0], screen), *_clamp(path[1], screen))]
    if kind == "open_app":
        if not action.get("app_name"):
            raise ValueError("No app name provided")
        return [Action.open(str(action["app_name"]))]
    if kind == "wait":
        return [Action.wait(WAIT_SECONDS)]
    if kind == "answer":
        return [Action.answer(action.get("text") or "")]
    return []  # status (the agent's end: nothing happens on the phone) and unknown


def apply(env: SimEnv, actions: Sequence[Action]) -> dict[str, Any]:
    """Perform `actions` on a simulated phone; the first error, and every effect, of them."""
    error: str | None = None
    effects: list[Any] = []
    for action in actions:
        _, _, _, info = env.step(action)
        error = error or info.get("error")
        effects += info.get("effects") or []
    return {"error": error, "effects": effects}


# ----- the state behind the API ------------------------------------------------------------------------------
class SimAndroidWorld:
    """A simulated phone, a suite of our tasks and the task on the phone, as AndroidWorld's server holds them.

    family, seed, n_task_combinations   the suite at start (`suite/reinitialize` changes it)
    scale                               screenshot scale of the 1080x2400 screen (AndroidWorld sends full size: 1.0)
    specs                               a folder of task specs instead of the packaged ones
    """

    def __init__(self, family: str = "nav-sim", seed: int = DEFAULT_SEED,
                 n_task_combinations: int = DEFAULT_COMBINATIONS, scale: float = 1.0, specs: str | None = None) -> None:
        try:
            if family == DEFAULT_FAMILY:
                raise ValueError(f"{DEFAULT_FAMILY} is AndroidWorld's own task family; this server starts with one of "
                                 f"{', '.join(families()[:-1])}")
            parse_family(family)
        except ValueError as exc:
            raise ConfigError(str(exc)) from None
        self.family = family
        self.backend = SimBackend(render=False, scale=scale, xml=False, specs=specs)
        self.scale = scale
        self.lock = threading.RLock()
        self._splits: OrderedDict[tuple[str, str, int], list[EpisodeRef]] = OrderedDict()
        self.suite: dict[str, list[EpisodeRef]] = {}
        self.initialized: set[tuple[str, int]] = set()
        self.env: SimTaskEnv | None = None
        self.current: tuple[str, int] | None = None
        self.idle = SimEnv(seed=0, render=False, xml=False)
        self.idle.reset()
        self.reinitialize(n_task_combinations, seed, family)

    # the phone in use: the task's, or a phone at its home screen when no task is on
    @property
    def phone_env(self) -> SimEnv:
        return self.env.sim if self.env is not None else self.idle

    def reinitialize(self, n_task_combinations: int, seed: int, family: str) -> None:
        suite, split = parse_family(self.family if family == DEFAULT_FAMILY else family)
        with self.lock:
            key = (suite, split, seed)
            if key not in self._splits:
                self._splits[key] = [episode_ref(e, suite, split)
                                     for e in self.backend.task_episodes(suite, split, None, seed)]
                while len(self._splits) > SEED_CACHE:
                    self._splits.popitem(last=False)
            self._splits.move_to_end(key)
            grouped: dict[str, list[EpisodeRef]] = {}
            for ref in self._splits[key]:
                grouped.setdefault(ref.task, []).append(ref)
            self.suite = {task: refs[:max(n_task_combinations, 0)] for task, refs in sorted(grouped.items())}
            self.initialized = set()

    def task(self, task_type: str, task_idx: int) -> EpisodeRef:
        refs = self.suite.get(task_type)
        if refs is None:
            raise KeyError(f"task type {task_type!r} is not in the suite")
        if not 0 <= task_idx < len(refs):
            raise IndexError(f"task {task_type} has {len(refs)} instance(s); index {task_idx} is out of range")
        return refs[task_idx]

    def reset(self, go_home: bool) -> None:
        with self.lock:
            if go_home:
                apply(self.phone_env, [Action.system_button("Home")])

    def screenshot(self) -> Any:
        """The screen as an H x W x 3 array of 8-bit RGB."""
        import numpy as np

        with self.lock:
            image = self.phone_env.phone.screenshot(self.scale)
        return np.asarray(image.convert("RGB"), dtype=np.uint8)

    def ui_elements(self) -> dict[str, Any]:
        with self.lock:
            env = self.phone_env
            observation = env.observe()
        return {"ui_elements": [element_to_wire(e, observation.screen_size) for e in observation.elements],
                "screen_size": list(observation.screen_size), "app": observation.app,
                "activity": observation.activity, "state_key": observation.state_key, "server": SERVER_NAME}

    def execute(self, data: Mapping[str, Any]) -> JSONAction:
        action = check_action(data)
        with self.lock:
            env = self.phone_env
            apply(env, actuation(action, env.phone.elements(), (env.phone.width, env.phone.height)))
        return action

    def initialize(self, task_type: str, task_idx: int) -> None:
        with self.lock:
            ref = self.task(task_type, task_idx)
            if (task_type, task_idx) in self.initialized:
                raise RuntimeError(f"{task_type}.initialize_task() is already called.")
            env = self.backend.open(ref)
            env.reset()
            self.initialized.add((task_type, task_idx))
            self.env, self.current = env, (task_type, task_idx)

    def tear_down(self, task_type: str, task_idx: int) -> None:
        with self.lock:
            self.task(task_type, task_idx)
            if self.current == (task_type, task_idx):
                self.env, self.current = None, None

    def score(self, task_type: str, task_idx: int) -> float:
        with self.lock:
            self.task(task_type, task_idx)
            if (task_type, task_idx) not in self.initialized:
                raise RuntimeError(f"{task_type}.initialize_task() must be called before {task_type}.is_successful().")
            if self.current != (task_type, task_idx) or self.env is None:
                return 0.0  # its phone was torn down or replaced by another task's
            return 1.0 if self.env.judge().verdict.success else 0.0

    def close(self) -> None:
        with self.lock:
            self.env, self.current = None, None


# ----- the HTTP app ---------------------------------------------------------------------------------------------
def pixels_json(array: Any) -> bytes:
    """`{"pixels": [[[r, g, b], ...], ...]}` as AndroidWorld's server writes it (`state.pixels.tolist()` in compact
    JSON), encoded by orjson straight from the array: FastAPI's generic encoder takes seconds over a full screen of
    nested lists."""
    import orjson

    return orjson.dumps({"pixels": array}, option=orjson.OPT_SERIALIZE_NUMPY)


def create_app(state: SimAndroidWorld, gzip: bool = False) -> Any:
    """The FastAPI app serving `state` with AndroidWorld's endpoints (and `/ui_elements`). `gzip` compresses large
    answers for clients that accept it (HTTP content negotiation; AndroidWorld's own server never does)."""
    try:
        import fastapi
        import orjson  # noqa: F401  (screenshots)
        import uvicorn  # noqa: F401
        from fastapi.responses import Response
    except ImportError:
        raise ConfigError("serving AndroidWorld's API needs FastAPI, uvicorn and orjson: "
                          "pip install 'mobile-r1[androidworld]'") from None

    app = fastapi.FastAPI(title="mobile-r1 simulated phone (AndroidWorld API)")
    if gzip:
        from starlette.middleware.gzip import GZipMiddleware

        app.add_middleware(GZipMiddleware, minimum_size=4096)
    suite_router = fastapi.APIRouter(prefix="/suite", tags=["suite"])
    task_router = fastapi.APIRouter(prefix="/task", tags=["task"])

    def guard(call: Callable[[], Any]) -> Any:
        # AndroidWorld lets these exceptions escape, which makes a 500; we say what failed.
        try:
            return call()
        except (KeyError, IndexError, RuntimeError, ValueError, TypeError) as exc:
            raise fastapi.HTTPException(status_code=500, detail=f"{type(exc).__name__}: {exc}") from None

    @app.post("/reset")
    def reset(go_home: bool) -> dict[str, str]:
        guard(lambda: state.reset(go_home))
        return {"status": "success", "message": f"Environment reset with go_home={go_home}."}

    @app.get("/screenshot", response_class=Response)
    def screenshot(wait_to_stabilize: bool) -> Any:
        return Response(pixels_json(guard(state.screenshot)), media_type="application/json")

    @app.post("/execute_action")
    def execute_action(action_dict: dict[str, Any]) -> dict[str, str]:
        action = guard(lambda: state.execute(action_dict))
        shown = ", ".join(f"{k}={v!r}" for k, v in action.items())
        return {"status": "success", "message": f"Action JSONAction({shown}) executed."}

    @suite_router.get("/task_list")
    def suite_task_list(max_index: int) -> dict[str, list[str]]:
        keys = list(state.suite)
        return {"task_list": keys if max_index > len(keys) or max_index < 0 else keys[:max_index]}

    @suite_router.get("/task_length")
    def suite_task_length(task_type: str) -> dict[str, int]:
        return {"length": guard(lambda: len(state.suite[task_type]))}

    @suite_router.get("/reinitialize")
    def reinitialize_suite(n_task_combinations: int = DEFAULT_COMBINATIONS, seed: int = DEFAULT_SEED,
                           task_family: str = DEFAULT_FAMILY) -> dict[str, str]:
        try:
            state.reinitialize(n_task_combinations, seed, task_family)
        except ValueError as exc:
            raise fastapi.HTTPException(status_code=400, detail=str(exc)) from None
        return {"status": "success", "message": "Task suite re-initialized with"
                f" n_task_combinations={n_task_combinations}, seed={seed}."}

    @task_router.post("/initialize")
    def initialize_task(task_type: str, task_idx: int) -> dict[str, str]:
        guard(lambda: state.initialize(task_type, task_idx))
        return {"status": "success", "message": f"Task {task_type} {task_idx} initialized."}

    @task_router.post("/tear_down")
    def tear_down_task(task_type: str, task_idx: int) -> dict[str, str]:
        guard(lambda: state.tear_down(task_type, task_idx))
        return {"status": "success", "message": f"Task {task_type} {task_idx} torn down."}

    @task_router.get("/score")
    def get_task_score(task_type: str, task_idx: int) -> dict[str, float]:
        return {"score": guard(lambda: state.score(task_type, task_idx))}

    @task_router.get("/goal")
    def get_task_goal(task_type: str, task_idx: int) -> dict[str, str]:
        return {"goal": guard(lambda: state.task(task_type, task_idx)).instruction}

    @task_router.get("/template")
    def get_task_template(task_type: str, task_idx: int) -> dict[str, str]:
        ref = guard(lambda: state.task(task_type, task_idx))
        return {"template": state.backend.task_episode(ref).template_text}

    @app.post("/close")
    def close() -> dict[str, str]:
        state.close()
        return {"status": "success"}

    @app.get("/health")
    def health() -> dict[str, str]:
        return {"status": "success"}

    @app.get(UI_ELEMENTS_PATH)
    def ui_elements(wait_to_stabilize: bool = False) -> dict[str, Any]:
        return guard(state.ui_elements)

    app.include_router(suite_router)
    app.include_router(task_router)
    return limit_body(app)


def limit_body(app: Any, limit: int = MAX_BODY) -> Any:
    """An ASGI app like `app` whose requests carry at most `limit` body bytes: a larger one is answered 413 (before
    its body is read when Content-Length says so, else as soon as it passes the limit)."""

    async def too_large(send: Any) -> None:
        body = f'{{"detail":"request body over {limit} bytes"}}'.encode()
        await send({"type": "http.response.start", "status": 413,
                    "headers": [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode()),
                                (b"connection", b"close")]})
        await send({"type": "http.response.body", "body": body})

    async def limited(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await app(scope, receive, send)
            return
        for name, value in scope.get("headers", []):
            if name == b"content-length":
                try:
                    declared = int(value)
                except ValueError:
                    declared = limit + 1
                if declared > limit:
                    await too_large(send)
                    return
        body = bytearray()  # read here, within the limit, then handed to the app
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return  # the client went away
            body += message.get("body", b"")
            if len(body) > limit:
                await too_large(send)
                return
            if not message.get("more_body"):
                break
        replayed = False

        async def replay() -> Any:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": bytes(body), "more_body": False}
            return await receive()

        await app(scope, replay, send)

    return limited




def serve(state: SimAndroidWorld, host: str = "127.0.0.1", port: int = 5000, gzip: bool = False,
          ready: Callable[[str], None] | None = None, log_level: str = "warning") -> None:
    """Serve `state` until interrupted; `port=0` takes a free port. `ready(url)` is called once the server accepts
    connections."""
    serve_app(create_app(state, gzip=gzip), host, port, ready, log_level)


def connection_cap(wanted: int = MAX_CONNECTIONS) -> int:
    """`wanted`, or fewer so that connections leave a margin of the process's file descriptors."""
    soft, _ = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY:
        return wanted
    return max(4, min(wanted, (soft - 64) // 2))


def _shedding_protocol(idle_seconds: float, cap: int) -> type:
    """uvicorn's HTTP/1.1 protocol, plus: a connection idle for `idle_seconds` before its first request is closed
    (uvicorn's own keep-alive timeout covers the time between requests), and past `cap` open connections the one
    idle the longest is shed."""
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class Shedding(H11Protocol):  # type: ignore[misc]
        def connection_made(self, transport: Any) -> None:
            super().connection_made(transport)
            self.last_active = time.monotonic()
            self._unset_keepalive_if_required()
            self.timeout_keep_alive_task = self.loop.call_later(idle_seconds, self.timeout_keep_alive_handler)
            if len(self.connections) > cap:
                shed_idle(self.connections, len(self.connections) - cap, keep=self)

        def data_received(self, data: bytes) -> None:
            self.last_active = time.monotonic()
            super().data_received(data)

    return Shedding


def _idle(protocol: Any) -> bool:
    cycle = getattr(protocol, "cycle", None)
    return cycle is None or bool(getattr(cycle, "response_complete", False))


def shed_idle(connections: Any, n: int, keep: Any = None) -> int:
    """Close the `n` connections idle the longest (never one with a request in flight); how many were closed."""
    idle = sorted((c for c in list(connections) if c is not keep and _idle(c)),
                  key=lambda c: getattr(c, "last_active", 0.0))
    closed = 0
    for protocol in idle[:n]:
        transport = getattr(protocol, "transport", None)
        if transport is not None and not transport.is_closing():
            transport.close()
            closed += 1
    return closed


class _FloodLog:
    """asyncio's handler for accept failures: the first is logged, the rest only counted, and each sheds an idle
    connection so that accepting resumes (asyncio logs a traceback per attempt, hundreds of thousands a minute)."""

    def __init__(self, server: Any) -> None:
        self.server = server
        self.count = 0

    def __call__(self, loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        message = str(context.get("message", ""))
        if "socket.accept() out of system resource" not in message:
            loop.default_exception_handler(context)
            return
        self.count += 1
        if self.count == 1:
            log.warning("the server cannot accept connections (%s); shedding idle ones (logged once)",
                        context.get("exception"))
        shed_idle(self.server.server_state.connections, 1)


def serve_app(app: Any, host: str = "127.0.0.1", port: int = 5000, ready: Callable[[str], None] | None = None,
              log_level: str = "warning", idle_seconds: float = IDLE_SECONDS,
              max_connections: int = MAX_CONNECTIONS) -> None:
    """Serve an ASGI app with uvicorn on a socket bound here (so `port=0` is known before serving); `ready(url)` is
    called once uvicorn accepts connections."""
    import uvicorn

    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise ConfigError(f"cannot listen on {host}:{port} ({exc.strerror or exc}); choose another --port, or 0 "
                          "for a free one") from None
    bound = sock.getsockname()[1]
    shown = f"[{host}]" if family == socket.AF_INET6 else host
    url = f"http://{shown}:{bound}"
    config = uvicorn.Config(app, log_level=log_level, timeout_graceful_shutdown=1, timeout_keep_alive=int(idle_seconds),
                            http=_shedding_protocol(idle_seconds, connection_cap(max_connections)), backlog=128)

    class Server(uvicorn.Server):  # type: ignore[misc]
        async def startup(self, sockets: list[socket.socket] | None = None) -> None:
            asyncio.get_running_loop().set_exception_handler(_FloodLog(self))
            await super().startup(sockets=sockets)
            if self.started and ready is not None:
                ready(url)

    Server(config).run(sockets=[sock])


__all__ = ["SimAndroidWorld", "create_app", "serve", "serve_app", "limit_body", "MAX_BODY", "SEED_CACHE", "actuation", "apply", "families", "parse_family", "pixels_json",
           "DEFAULT_SEED", "DEFAULT_COMBINATIONS"]
