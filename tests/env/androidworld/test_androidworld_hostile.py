"""A hostile AndroidWorld server: our simulated phone's server with one endpoint's answer replaced (headers and then
a byte at a time, a gzip bomb, JSON 100,000 deep, a screen size that is not numbers). `mobile-r1 eval` ends each
with a message (exit 2, or the episode recorded apart as an infrastructure error) within bounded time and memory."""

from __future__ import annotations

import asyncio
import json
import os
import resource
import subprocess
import sys
import zlib
from pathlib import Path
from typing import Any, Awaitable, Callable

import pytest

from mobile_r1.cli.main import main
from mobile_r1.env.sim.servers.androidworld import SimAndroidWorld, create_app

from aw_servers import ThreadServer

Send = Callable[[dict[str, Any]], Awaitable[None]]
Receive = Callable[[], Awaitable[dict[str, Any]]]
Answer = Callable[[Receive, Send], Awaitable[None]]


def hostile(path: str, answer: Answer) -> ThreadServer:
    """Our simulated phone's AndroidWorld server in a thread, but every request to `path` is answered by `answer`."""
    app = create_app(SimAndroidWorld(scale=0.3))

    async def wrapped(scope: dict[str, Any], receive: Any, send: Send) -> None:
        if scope["type"] == "http" and scope["path"] == path:
            await answer(receive, send)
            return
        await app(scope, receive, send)

    return ThreadServer(wrapped)


async def _start(send: Send, headers: list[tuple[bytes, bytes]]) -> None:
    await send({"type": "http.response.start", "status": 200,
                "headers": [(b"content-type", b"application/json"), *headers]})


def body(content: bytes, *headers: tuple[bytes, bytes]) -> Answer:
    async def answer(receive: Receive, send: Send) -> None:
        await _start(send, [(b"content-length", str(len(content)).encode()), *headers])
        await send({"type": "http.response.body", "body": content})
    return answer


async def trickle(receive: Receive, send: Send) -> None:
    """Headers at once, then a space every 0.2 s for 8 s (each read waits far less than the timeout), then JSON;
    it stops when the client goes away."""
    await _start(send, [])
    for _ in range(40):
        await send({"type": "http.response.body", "body": b" ", "more_body": True})
        try:
            if (await asyncio.wait_for(receive(), 0.2))["type"] == "http.disconnect":
                return
        except asyncio.TimeoutError:
            pass
    await send({"type": "http.response.body", "body": b'{"pixels": [[[0, 0, 0]]]}'})


def gzip_bomb(gib: int) -> bytes:
    """A gzip body that inflates to `gib` GiB of zeros, built from one compressed 16 MiB block repeated (a few MB)."""
    zeros = bytes(16 * 2**20)
    squeeze = zlib.compressobj(9, zlib.DEFLATED, 31)
    first = squeeze.compress(zeros) + squeeze.flush(zlib.Z_FULL_FLUSH)
    block = squeeze.compress(zeros) + squeeze.flush(zlib.Z_FULL_FLUSH)  # the same bytes after every full flush
    return first + block * (gib * 64 - 1) + squeeze.flush()


def _eval(url: str, run: Path, *options: str) -> list[str]:
    return ["eval", "--agent", "oracle", "--env", f"androidworld:{url}", "--suite", "nav-sim", "--episodes", "1",
            "--env-option", "reconnect=0", *options, "--out", str(run)]


def _infra_errors(run: Path) -> list[str]:
    records = [json.loads(line) for line in (run / "episodes.jsonl").read_text().splitlines() if line.strip()]
    return [r.get("infra_error") or "" for r in records]


def test_a_server_that_trickles_its_answer_is_cut_off_at_the_timeout(tmp_path: Path) -> None:
    with hostile("/screenshot", trickle) as server:
        assert main(_eval(server.url, tmp_path / "run", "--env-option", "timeout=2")) == 0
    [error] = _infra_errors(tmp_path / "run")
    assert "did not answer GET /screenshot within 2 s" in error


@pytest.mark.slow
def test_a_gzip_bomb_is_not_inflated_past_the_limit(tmp_path: Path) -> None:
    """2 GiB of zeros in 2 MB of gzip, read by an eval held to 2 GiB of address space."""
    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (2 * 2**30, 2 * 2**30))

    with hostile("/screenshot", body(gzip_bomb(2), (b"content-encoding", b"gzip"))) as server:
        argv = _eval(server.url, tmp_path / "run")
        done = subprocess.run([sys.executable, "-m", "mobile_r1.cli.main", *argv], capture_output=True, text=True,
                              timeout=600, preexec_fn=limit, env=os.environ.copy())
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr[-3000:]
    [error] = _infra_errors(tmp_path / "run")
    assert "answered GET /screenshot with more than 256 MiB (decoded)" in error


def test_json_nested_100000_deep_is_an_infrastructure_error(tmp_path: Path) -> None:
    with hostile("/screenshot", body(b'{"pixels": ' + b"[" * 100_000 + b"]" * 100_000 + b"}")) as server:
        assert main(_eval(server.url, tmp_path / "run")) == 0
    [error] = _infra_errors(tmp_path / "run")
    assert "answered GET /screenshot with something that is not JSON it can read" in error
    assert "nested deeper than 64 levels" in error


@pytest.mark.parametrize("content, problem", [
    (b'{"ui_elements": ' + b"[" * 100_000 + b"]" * 100_000 + b"}", "nested deeper than 64 levels"),
    (b'{"ui_elements": [], "screen_size": "ab"}', "with 'screen_size' 'ab'; expected [width, height]"),
    (b'{"ui_elements": [], "screen_size": [1080, 1e400]}', "1e400 is too large to be a finite number"),
])
def test_a_hostile_ui_tree_is_a_message_before_anything_is_written(tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str],
                                                                   content: bytes, problem: str) -> None:
    with hostile("/ui_elements", body(content)) as server:
        assert main(_eval(server.url, tmp_path / "run")) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert "GET /ui_elements" in err and problem in err and "Traceback" not in err
    assert not (tmp_path / "run").exists()
