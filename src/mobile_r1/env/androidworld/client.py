"""A typed HTTP client of AndroidWorld's server API (`server/android_server.py` in google-research/android_world).

One method per endpoint, with the server's methods, query parameters, bodies and response keys (the contract test,
`tests/env/androidworld/test_androidworld_contract.py`, pins them to AndroidWorld's source). httpx is used for the
transport; what a phone backend needs on top is the error policy:

- the server unreachable (connection refused or reset: it is down or restarting), no answer within the timeout,
  an HTTP 5xx, an answer that is not JSON -> `InfraError` (the episode is not the agent's failure; `mobile-r1 eval`
  records it apart and `--resume` plays it again). A refused connection is tried again for `reconnect` seconds
  first (the request never reached the server, so this is always safe): a server that restarts between two
  episodes costs no episode; one that dies during a request costs that episode;
- an HTTP 4xx (a bad task family, a request the server refuses) -> `EnvError` with the server's own words;
- an answer without the key the contract promises -> `EnvError` naming the key.

What a server sends is bounded: `timeout` is the whole request's limit, not each read's (a server that sends its
headers and then a byte every few seconds is cut off at the deadline: every read and write on the connection is
given what is left of it); an answer's body, once decoded (gzip included), may hold at most `max_answer_bytes`; JSON
is read under the project's reading rules (`core.reading.loads`: 64 levels deep, finite numbers), so a hostile answer
is an `InfraError` with a message, never a hang, a MemoryError or a RecursionError.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mobile_r1.core.errors import ConfigError, EnvError, InfraError, MobileR1Error
from mobile_r1.core.reading import Where, loads
from mobile_r1.env.androidworld.wire import UI_ELEMENTS_PATH, JSONAction

DEFAULT_TIMEOUT = 60.0  # seconds for an observation, an action or a score
DEFAULT_SETUP_TIMEOUT = 600.0  # seconds for setting a task up or down (an emulator installs and clears app data)
DEFAULT_RECONNECT = 10.0  # seconds to keep knocking while the server refuses connections (restarting)
# The most an answer may hold once decoded: a 1440 x 3200 screen as AndroidWorld's JSON pixel lists is about 65 MB.
DEFAULT_MAX_ANSWER_BYTES = 256 * 2**20
MAX_SCREEN_SIDE = 16_384  # pixels a side of the screen `/ui_elements` names


@dataclass(frozen=True, slots=True)
class Screenshot:
    """A screenshot as the server sent it: an H x W x 3 array of 8-bit RGB (numpy)."""

    pixels: Any

    @property
    def size(self) -> tuple[int, int]:
        height, width = self.pixels.shape[:2]
        return (int(width), int(height))

    def image(self) -> Any:
        from PIL import Image

        return Image.fromarray(self.pixels, "RGB")


@dataclass(frozen=True, slots=True)
class UIState:
    """What our simulated phone's extra endpoint (`/ui_elements`) returns: AndroidWorld-shaped UI elements and the
    screen they are on."""

    ui_elements: list[dict[str, Any]]
    screen_size: tuple[int, int]
    app: str | None = None
    activity: str | None = None
    state_key: str | None = None
    server: str = ""
    extra: dict[str, Any] = field(default_factory=dict)


# ----- a deadline for the whole request ------------------------------------------------------------------------
_deadline = threading.local()  # .at: time.monotonic() by which the request in flight in this thread must be done


@contextmanager
def _until(seconds: float) -> Iterator[None]:
    """Every read and write on a connection of this thread gets at most what is left of `seconds` from now."""
    before = getattr(_deadline, "at", None)
    _deadline.at = time.monotonic() + seconds
    try:
        yield
    finally:
        _deadline.at = before


def _left(timeout: float | None, error: type[Exception]) -> float | None:
    at = getattr(_deadline, "at", None)
    if at is None:
        return timeout
    left = at - time.monotonic()
    if left <= 0:
        raise error("the request's deadline passed")
    return left if timeout is None else min(timeout, left)


def _deadline_transport() -> Any:
    """httpx's own HTTP transport over connections whose every read and write is bounded by the thread's deadline
    (httpx bounds each read alone). httpx builds its connection pool in `HTTPTransport.__init__`; the same pool is
    built here on a network backend that wraps httpcore's own."""
    import httpcore
    import httpx

    class Stream(httpcore.NetworkStream):
        def __init__(self, inner: Any) -> None:
            self.inner = inner

        def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
            return self.inner.read(max_bytes, _left(timeout, httpcore.ReadTimeout))  # type: ignore[no-any-return]

        def write(self, buffer: bytes, timeout: float | None = None) -> None:
            self.inner.write(buffer, _left(timeout, httpcore.WriteTimeout))

        def close(self) -> None:
            self.inner.close()

        def start_tls(self, ssl_context: Any, server_hostname: str | None = None,
                      timeout: float | None = None) -> Any:
            return Stream(self.inner.start_tls(ssl_context, server_hostname, _left(timeout, httpcore.ConnectTimeout)))

        def get_extra_info(self, info: str) -> Any:
            return self.inner.get_extra_info(info)

    class Backend(httpcore.NetworkBackend):
        def __init__(self) -> None:
            self.inner = httpcore.SyncBackend()

        def connect_tcp(self, host: str, port: int, timeout: float | None = None, local_address: str | None = None,
                        socket_options: Any = None) -> Any:
            return Stream(self.inner.connect_tcp(host, port, _left(timeout, httpcore.ConnectTimeout), local_address,
                                                 socket_options))

        def connect_unix_socket(self, path: str, timeout: float | None = None, socket_options: Any = None) -> Any:
            return Stream(self.inner.connect_unix_socket(path, _left(timeout, httpcore.ConnectTimeout),
                                                         socket_options))

        def sleep(self, seconds: float) -> None:
            self.inner.sleep(seconds)

    transport = httpx.HTTPTransport()
    transport._pool = httpcore.ConnectionPool(network_backend=Backend())  # noqa: SLF001 (see the docstring)
    return transport


def _json(content: bytes, what: str) -> Any:
    """The JSON value of an answer under the project's reading rules; InfraError naming the request otherwise."""
    try:
        text = content.decode("utf-8")
    except UnicodeDecodeError:
        raise InfraError(f"the AndroidWorld server answered {what} with bytes that are not UTF-8 text "
                         f"({content[:60]!r}...)") from None
    try:
        return loads(text, Where(Path(what), None, InfraError))
    except MobileR1Error as exc:
        raise InfraError(f"the AndroidWorld server answered {what} with something that is not JSON it can read "
                         f"({str(exc).removeprefix(what + ': ')}; it began {text[:60]!r})") from None


def decode_screenshot(content: bytes) -> Any:
    """The pixel array of a `/screenshot` answer's bytes.

    Written by hand because a general JSON parser makes a Python object of every value: 7.8 million of them for a
    1080 x 2400 screen, seconds per screenshot. The compact form AndroidWorld's server writes
    (`{"pixels":[[[r,g,b],...],...]}`) is read by numpy in one pass; anything else goes through the JSON parser.
    """
    import warnings

    import numpy as np

    text = content.strip()
    head = b'{"pixels":[[['
    if text.startswith(head) and text.endswith(b"]]]}"):
        body = text[len(head) - 3:-1]
        rows = body.count(b"]],[[") + 1
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            values = np.fromstring(body.translate(None, b"[]"), dtype=np.uint8, sep=",")  # type: ignore[call-overload]
        if values.size and values.size % (3 * rows) == 0 and body.count(b"],[") + 1 == values.size // 3:
            return values.reshape(rows, -1, 3)
    payload = _json(content, "GET /screenshot")
    if not isinstance(payload, dict) or "pixels" not in payload:
        raise EnvError("the AndroidWorld server answered GET /screenshot without 'pixels'")
    return decode_pixels(payload["pixels"])


def decode_pixels(payload: Any) -> Any:
    """The pixel array of a `/screenshot` answer (`{"pixels": H x W x 3 nested lists}`)."""
    import numpy as np

    try:
        array = np.asarray(payload, dtype=np.uint8)
    except (TypeError, ValueError) as exc:
        raise EnvError(f"the screenshot's 'pixels' are not an array of 8-bit values ({exc})") from None
    if array.ndim != 3 or array.shape[2] not in (3, 4) or 0 in array.shape:
        raise EnvError(f"the screenshot's 'pixels' have shape {array.shape}; expected height x width x 3")
    return np.ascontiguousarray(array[:, :, :3])


class AndroidWorldClient:
    """AndroidWorld's server API over HTTP. `base_url` like `http://127.0.0.1:5000`; `timeout` bounds every request
    but the set-up ones (`setup_timeout`: reset, suite/reinitialize, task/initialize, task/tear_down, close);
    `reconnect` is how long a refused connection is tried again; `max_answer_bytes` bounds an answer's decoded
    body."""

    def __init__(self, base_url: str, timeout: float = DEFAULT_TIMEOUT, setup_timeout: float = DEFAULT_SETUP_TIMEOUT,
                 reconnect: float = DEFAULT_RECONNECT, transport: Any = None,
                 max_answer_bytes: int = DEFAULT_MAX_ANSWER_BYTES) -> None:
        try:
            import httpx
        except ImportError:
            raise ConfigError("the androidworld backend needs httpx and numpy: pip install 'mobile-r1[androidworld]'") from None

        self.base_url = base_url.rstrip("/")
        self.timeout, self.setup_timeout, self.reconnect = float(timeout), float(setup_timeout), float(reconnect)
        self.max_answer_bytes = int(max_answer_bytes)
        self._http = httpx.Client(base_url=self.base_url, timeout=self.timeout,
                                  transport=transport if transport is not None else _deadline_transport())

    # ----- transport and error policy ------------------------------------------------------------------------------
    def request(self, method: str, path: str, params: Mapping[str, Any] | None = None, body: Any = None,
                setup: bool = False, ok_statuses: tuple[int, ...] = (), raw: bool = False) -> Any:
        """The JSON answer of one request (its bytes with `raw`; None for a status listed in `ok_statuses`), or
        InfraError / EnvError."""
        import httpx

        timeout = self.setup_timeout if setup else self.timeout
        what = f"{method} {path}"
        give_up = time.monotonic() + self.reconnect
        try:
            while True:
                try:
                    with _until(timeout):
                        status, content = self._fetch(method, path, params, body, timeout, what)
                    break
                except httpx.ConnectError:
                    if time.monotonic() >= give_up:
                        raise
                    time.sleep(0.25)
        except httpx.TimeoutException:
            raise InfraError(f"the AndroidWorld server at {self.base_url} did not answer {what} within {timeout:g} s "
                             "(raise it with --env-option timeout=SECONDS)") from None
        except (httpx.TransportError, httpx.DecodingError) as exc:
            raise InfraError(f"cannot reach the AndroidWorld server at {self.base_url} ({what}: "
                             f"{type(exc).__name__}: {exc}); is it running (or restarting)?") from None
        if status in ok_statuses:
            return None
        if status >= 500:
            raise InfraError(f"the AndroidWorld server failed on {what} (HTTP {status}: {_detail(content)})")
        if status >= 400:
            raise EnvError(f"the AndroidWorld server refused {what} (HTTP {status}: {_detail(content)})")
        if raw:
            return content
        return _json(content, what)

    def _fetch(self, method: str, path: str, params: Mapping[str, Any] | None, body: Any, timeout: float,
               what: str) -> tuple[int, bytes]:
        """(status, decoded body) of one request; the body is read in chunks, at most `max_answer_bytes` of it."""
        import httpx

        with self._http.stream(method, path, params=dict(params) if params else None, json=body,
                               timeout=timeout) as response:
            out = bytearray()
            for chunk in response.iter_bytes():
                out += chunk
                if len(out) > self.max_answer_bytes:
                    raise InfraError(f"the AndroidWorld server answered {what} with more than "
                                     f"{self.max_answer_bytes / 2**20:g} MiB (decoded); no answer of its API is "
                                     "that large (the rest was not read)")
                _left(None, httpx.ReadTimeout)  # a server trickling chunks cannot outlast the deadline
            return response.status_code, bytes(out)

    @staticmethod
    def _key(answer: Any, key: str, what: str) -> Any:
        if not isinstance(answer, dict) or key not in answer:
            raise EnvError(f"the AndroidWorld server answered {what} without {key!r} (got {str(answer)[:120]}); "
                           "is it AndroidWorld's server/android_server.py?")
        return answer[key]

    # ----- the endpoints -------------------------------------------------------------------------------------------
    def health(self) -> bool:
        answer = self.request("GET", "/health")
        return self._key(answer, "status", "GET /health") == "success"

    def reset(self, go_home: bool = True) -> dict[str, Any]:
        return self.request("POST", "/reset", {"go_home": go_home}, setup=True)

    def screenshot(self, wait_to_stabilize: bool = False) -> Screenshot:
        content = self.request("GET", "/screenshot", {"wait_to_stabilize": wait_to_stabilize}, raw=True)
        return Screenshot(decode_screenshot(content))

    def execute_action(self, action: JSONAction) -> dict[str, Any]:
        return self.request("POST", "/execute_action", body={k: v for k, v in action.items() if v is not None})

    def task_list(self, max_index: int = -1) -> list[str]:
        answer = self.request("GET", "/suite/task_list", {"max_index": max_index})
        return [str(t) for t in self._key(answer, "task_list", "GET /suite/task_list")]

    def task_length(self, task_type: str) -> int:
        answer = self.request("GET", "/suite/task_length", {"task_type": task_type})
        return int(self._key(answer, "length", "GET /suite/task_length"))

    def reinitialize(self, n_task_combinations: int = 2, seed: int = 42, task_family: str = "android_world") -> dict[str, Any]:
        return self.request("GET", "/suite/reinitialize", {"n_task_combinations": n_task_combinations, "seed": seed,
                                                           "task_family": task_family}, setup=True)

    def initialize_task(self, task_type: str, task_idx: int) -> dict[str, Any]:
        return self.request("POST", "/task/initialize", {"task_type": task_type, "task_idx": task_idx}, setup=True)

    def tear_down_task(self, task_type: str, task_idx: int) -> dict[str, Any]:
        return self.request("POST", "/task/tear_down", {"task_type": task_type, "task_idx": task_idx}, setup=True)

    def score(self, task_type: str, task_idx: int) -> float:
        answer = self.request("GET", "/task/score", {"task_type": task_type, "task_idx": task_idx})
        value = self._key(answer, "score", "GET /task/score")
        if not isinstance(value, (bool, int, float)):  # a task's is_successful() may return a bool
            raise EnvError(f"the AndroidWorld server's score is not a number: {value!r}")
        return float(value)

    def goal(self, task_type: str, task_idx: int) -> str:
        answer = self.request("GET", "/task/goal", {"task_type": task_type, "task_idx": task_idx})
        return str(self._key(answer, "goal", "GET /task/goal"))

    def template(self, task_type: str, task_idx: int) -> str:
        answer = self.request("GET", "/task/template", {"task_type": task_type, "task_idx": task_idx})
        return str(self._key(answer, "template", "GET /task/template"))

    def close_env(self) -> dict[str, Any]:
        """POST /close: AndroidWorld closes its emulator connection (the server is of no use afterwards)."""
        return self.request("POST", "/close", setup=True)

    def ui_elements(self, wait_to_stabilize: bool = False) -> UIState | None:
        """Our simulated phone's UI elements (`/ui_elements`); None from a server without that endpoint (404)."""
        answer = self.request("GET", UI_ELEMENTS_PATH, {"wait_to_stabilize": wait_to_stabilize}, ok_statuses=(404,))
        if answer is None:
            return None
        what = f"GET {UI_ELEMENTS_PATH}"
        elements = self._key(answer, "ui_elements", what)
        if not isinstance(elements, list):
            raise EnvError(f"the AndroidWorld server answered {what} with 'ui_elements' that are not a list "
                           f"({str(elements)[:80]!r})")
        size = answer.get("screen_size")
        if not (isinstance(size, list) and len(size) == 2
                and all(type(v) is int and 0 < v <= MAX_SCREEN_SIDE for v in size)):
            raise EnvError(f"the AndroidWorld server answered {what} with 'screen_size' {str(size)[:60]!r}; expected "
                           f"[width, height] in pixels (1 to {MAX_SCREEN_SIDE:,} each)")
        known = {"ui_elements", "screen_size", "app", "activity", "state_key", "server"}
        return UIState(elements, (size[0], size[1]), answer.get("app"), answer.get("activity"),
                       answer.get("state_key"), str(answer.get("server") or ""),
                       {k: v for k, v in answer.items() if k not in known})

    def close(self) -> None:
        """Close the HTTP connection (the server and its phone are left as they are)."""
        self._http.close()


def _detail(content: bytes) -> str:
    """What an error answer says: its JSON `detail`, or the start of its text."""
    try:
        data = loads(content.decode("utf-8"), Where(Path("answer"), None, InfraError))
    except (MobileR1Error, UnicodeDecodeError):
        return content[:200].decode("utf-8", "replace") or "no detail"
    if isinstance(data, dict) and "detail" in data:
        return str(data["detail"])[:300]
    return str(data)[:200]


__all__ = ["AndroidWorldClient", "Screenshot", "UIState", "decode_pixels", "decode_screenshot", "DEFAULT_TIMEOUT", "DEFAULT_SETUP_TIMEOUT"]
