"""Servers for the AndroidWorld tests: our simulated phone's AndroidWorld server in a thread or in its own process
(`mobile-r1 sim serve --api androidworld`, or `faulty_server.py`), and an AndroidWorld-like wrapper that hides our
one extra endpoint (a server that, like AndroidWorld's, sends no UI tree)."""

from __future__ import annotations

import os
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import uvicorn

from mobile_r1.env.androidworld.wire import UI_ELEMENTS_PATH
from mobile_r1.env.sim.servers.androidworld import SimAndroidWorld, create_app

HERE = Path(__file__).resolve().parent
SRC = HERE.parents[2] / "src"
STARTUP = 120.0  # seconds a server process may take to print its URL (the machine may be busy)


def without_tree(app: Any) -> Any:
    """An ASGI app like `app` but answering 404 for /ui_elements, as AndroidWorld's server does."""

    async def wrapped(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "http" and scope["path"] == UI_ELEMENTS_PATH:
            await send({"type": "http.response.start", "status": 404,
                        "headers": [(b"content-type", b"application/json")]})
            await send({"type": "http.response.body", "body": b'{"detail":"Not Found"}'})
            return
        await app(scope, receive, send)

    return wrapped


class ThreadServer:
    """An ASGI app served by uvicorn in a thread of this process on a free port (`url`)."""

    def __init__(self, app: Any) -> None:
        self.server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning"))
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self) -> ThreadServer:
        self.thread.start()
        deadline = time.monotonic() + STARTUP
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("the test server did not start")
            time.sleep(0.02)
        port = self.server.servers[0].sockets[0].getsockname()[1]
        self.url = f"http://127.0.0.1:{port}"
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(10)


def sim_server(scale: float = 0.3, tree: bool = True, **options: Any) -> ThreadServer:
    """Our simulated phone's AndroidWorld server in a thread (`tree=False`: without /ui_elements)."""
    app = create_app(SimAndroidWorld(scale=scale, **options))
    return ThreadServer(app if tree else without_tree(app))


class ServerProcess:
    """A server in its own process: `args` after the Python interpreter; it prints its URL on its first line."""

    def __init__(self, args: list[str]) -> None:
        self.args = args
        self.proc: subprocess.Popen[str] | None = None
        self.url = ""

    def start(self) -> str:
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")])}
        self.proc = subprocess.Popen([sys.executable, *self.args], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                     text=True, env=env)
        lines: queue.Queue[str] = queue.Queue()
        assert self.proc.stdout is not None
        threading.Thread(target=lambda out: lines.put(out.readline()), args=(self.proc.stdout,), daemon=True).start()
        try:
            line = lines.get(timeout=STARTUP)
        except queue.Empty:
            self.stop()
            raise RuntimeError(f"{' '.join(self.args)} printed no URL within {STARTUP:g} s") from None
        if "http://" not in line:
            self.stop()
            raise RuntimeError(f"{' '.join(self.args)} did not start: {line!r}")
        self.url = line[line.index("http://"):].strip()
        return self.url

    @property
    def port(self) -> int:
        return int(self.url.rsplit(":", 1)[1])

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        if self.proc is not None and self.proc.stdout is not None:
            self.proc.stdout.close()

    def __enter__(self) -> ServerProcess:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
