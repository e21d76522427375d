"""Our simulated phone's AndroidWorld server with injected faults, run as a process by the infrastructure test.

    python faulty_server.py --port 0 --state STATE.json --faults '{"initialize_500": [["task", 0]], ...}'

Faults, each for the task instances (task type, index) it names, each firing once (what fired is kept in the
--state file, so a restarted server does not fire it again):

    initialize_500   POST /task/initialize answers 500
    score_500        GET /task/score answers 500
    hang             the second POST /execute_action of the task is held for --hang seconds, then answers 503
                     (the action is not performed)
    crash            the first POST /execute_action of the task kills the server process

Prints the URL on its first line, like `mobile-r1 sim serve`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

from mobile_r1.env.sim.servers.androidworld import SimAndroidWorld, create_app, serve_app


class Faults:
    """An ASGI middleware firing the faults (see the module docstring)."""

    def __init__(self, app: Any, faults: dict[str, list[list[Any]]], state: Path, hang: float) -> None:
        self.app, self.state_path, self.hang = app, state, hang
        self.faults = {kind: {(str(t), int(i)) for t, i in items} for kind, items in faults.items()}
        self.current: tuple[str, int] | None = None
        self.actions = 0

    def fired(self) -> list[str]:
        return json.loads(self.state_path.read_text()) if self.state_path.exists() else []

    def fire(self, kind: str, task: tuple[str, int] | None) -> bool:
        if task is None or task not in self.faults.get(kind, set()):
            return False
        key = f"{kind}:{task[0]}:{task[1]}"
        done = self.fired()
        if key in done:
            return False
        self.state_path.write_text(json.dumps(done + [key]))
        return True

    @staticmethod
    async def answer(send: Any, status: int, detail: str) -> None:
        await send({"type": "http.response.start", "status": status, "headers": [(b"content-type", b"application/json")]})
        await send({"type": "http.response.body", "body": json.dumps({"detail": detail}).encode()})

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        path = scope["path"]
        query = {k: v[0] for k, v in parse_qs(scope.get("query_string", b"").decode()).items()}
        task = (query["task_type"], int(query["task_idx"])) if "task_type" in query and "task_idx" in query else None
        if path == "/task/initialize":
            if self.fire("initialize_500", task):
                await self.answer(send, 500, "injected: initialize failed")
                return
            self.current, self.actions = task, 0
        elif path == "/task/score" and self.fire("score_500", task):
            await self.answer(send, 500, "injected: score failed")
            return
        elif path == "/execute_action":
            self.actions += 1
            if self.actions == 1 and self.fire("crash", self.current):
                os._exit(3)
            if self.actions == 2 and self.fire("hang", self.current):
                await asyncio.sleep(self.hang)
                await self.answer(send, 503, "injected: hung")
                return
        await self.app(scope, receive, send)


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--state", type=Path, required=True)
    parser.add_argument("--faults", default="{}")
    parser.add_argument("--hang", type=float, default=6.0)
    parser.add_argument("--scale", type=float, default=0.3)
    args = parser.parse_args(argv)
    app = Faults(create_app(SimAndroidWorld(scale=args.scale)), json.loads(args.faults), args.state, args.hang)
    serve_app(app, port=args.port, ready=lambda url: print(f"serving on {url}", flush=True))


if __name__ == "__main__":
    main(sys.argv[1:])
