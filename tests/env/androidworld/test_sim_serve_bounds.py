"""`mobile-r1 sim serve` as a client finds it: its URL answers as soon as it is printed, an idle connection flood
neither stops it nor fills its log, request bodies and remembered seeds are bounded, and bad options are refused."""

from __future__ import annotations

import resource
import socket
import subprocess
import sys

import httpx
import pytest

from mobile_r1.cli.main import main
from mobile_r1.env.sim.servers.androidworld import MAX_BODY, SEED_CACHE, SimAndroidWorld, create_app

from aw_servers import ThreadServer


@pytest.mark.slow
def test_the_url_answers_as_soon_as_it_is_printed() -> None:
    process = subprocess.Popen([sys.executable, "-m", "mobile_r1.cli.main", "sim", "serve", "--port", "0",
                                "--scale", "0.1"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        assert process.stdout is not None
        url = process.stdout.readline().split()[-1]
        with socket.create_connection(("127.0.0.1", int(url.rsplit(":", 1)[1])), timeout=10) as sock:  # at once
            sock.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            answer = b""
            while chunk := sock.recv(4096):
                answer += chunk
        assert answer.startswith(b"HTTP/1.1 200") and answer.endswith(b'{"status":"success"}')
    finally:
        process.terminate()
        process.wait(timeout=20)


@pytest.mark.slow
def test_an_idle_connection_flood_neither_stops_the_server_nor_fills_its_log() -> None:
    def few_files() -> None:  # the flood must exhaust the server's file descriptors, not this test's
        resource.setrlimit(resource.RLIMIT_NOFILE, (128, 128))

    process = subprocess.Popen([sys.executable, "-m", "mobile_r1.cli.main", "sim", "serve", "--port", "0",
                                "--scale", "0.1"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               preexec_fn=few_files)
    idle: list[socket.socket] = []
    try:
        assert process.stdout is not None
        url = process.stdout.readline().split()[-1]
        port = int(url.rsplit(":", 1)[1])
        for _ in range(300):  # more than the server can hold open
            idle.append(socket.create_connection(("127.0.0.1", port), timeout=10))
        for _ in range(3):
            assert httpx.get(url + "/health", timeout=30).json() == {"status": "success"}
        assert process.poll() is None
    finally:
        for sock in idle:
            sock.close()
        process.terminate()
        _, errors = process.communicate(timeout=20)
    assert errors.count("Traceback") == 0 and errors.count("logged once") <= 1 and len(errors) < 2000


def test_request_bodies_and_remembered_seeds_are_bounded() -> None:
    state = SimAndroidWorld(scale=0.1)
    with ThreadServer(create_app(state)) as server:
        action = b'{"action_type": "wait", "pad": "' + b"x" * (MAX_BODY + 1) + b'"}'
        said = httpx.post(server.url + "/execute_action", content=action, timeout=30,
                          headers={"content-type": "application/json"})
        assert said.status_code == 413

        def chunks():  # no Content-Length: the limit is counted as the body arrives
            for _ in range(MAX_BODY // 65536 + 2):
                yield b"x" * 65536

        said = httpx.post(server.url + "/execute_action", content=chunks(), timeout=30,
                          headers={"content-type": "application/json"})
        assert said.status_code == 413
        assert httpx.post(server.url + "/execute_action", json={"action_type": "navigate_home"}).status_code == 200
        for seed in range(SEED_CACHE + 6):
            assert httpx.get(server.url + "/suite/reinitialize",
                             params={"seed": seed, "task_family": "nav-sim"}, timeout=60).status_code == 200
        assert len(state._splits) <= SEED_CACHE


@pytest.mark.parametrize("args", [["--scale", "inf"], ["--scale", "50"], ["--scale", "nan"],
                                  ["--host", "256.1.1.1"], ["--port", "70000"]])
def test_sim_serve_refuses_bad_options_with_a_message(args: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sim", "serve", *args]) == 2
    err = capsys.readouterr().err
    assert f"{args[0]} " in err and "Traceback" not in err
