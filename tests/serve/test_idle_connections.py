"""Connections that send nothing, or their headers a byte at a time, cannot crowd out working clients of `mobile-r1
serve`: past `max_connections` the longest-idle one is closed, and one that has not sent its headers within
`header_timeout` is closed anyway."""

from __future__ import annotations

import socket
from contextlib import ExitStack
from typing import Iterator

import httpx
import pytest

from mobile_r1.core.errors import ConfigError
from mobile_r1.serve import LoopbackServer, ScriptedModel, ServerSettings

HI = {"messages": [{"role": "user", "content": "hi"}], "max_tokens": 3}


@pytest.fixture
def server() -> Iterator[LoopbackServer]:
    with LoopbackServer(ScriptedModel(["hello"] * 100), model_name="m",
                        settings=ServerSettings(max_connections=8, header_timeout=1.0)) as running:
        yield running


def _idle(server: LoopbackServer, n: int, stack: ExitStack) -> list[socket.socket]:
    socks = []
    for _ in range(n):
        sock = stack.enter_context(socket.create_connection((server.host, server.port), timeout=30))
        socks.append(sock)
    return socks


def _closed_by_the_server(sock: socket.socket) -> bool:
    """Whether the server closed the connection (a read gives end of file, or a reset) before the socket's timeout."""
    try:
        return sock.recv(1024) == b""
    except ConnectionResetError:
        return True
    except socket.timeout:
        return False


def test_idle_connections_do_not_turn_other_clients_away(server: LoopbackServer) -> None:
    with ExitStack() as stack:
        idle = _idle(server, 8, stack)  # as many as the server takes
        for _ in range(3):
            reply = httpx.post(server.base_url + "/chat/completions", json=HI, timeout=30)
            assert reply.status_code == 200, reply.text
        assert sum(_closed_by_the_server(sock) for sock in idle) == 8, "each was closed: shed, or past its deadline"


def test_headers_sent_a_byte_at_a_time_are_cut_off(server: LoopbackServer) -> None:
    with socket.create_connection((server.host, server.port), timeout=30) as sock:
        sock.sendall(b"GET /health HTTP/1.1\r\nHost: x\r\n")
        closed = False
        for _ in range(100):  # a header byte every 0.1 s: each read is quick, the headers never end
            try:
                sock.sendall(b"X")
            except (BrokenPipeError, ConnectionResetError):
                closed = True
                break
            sock.settimeout(0.1)
            try:
                if sock.recv(1024) == b"":
                    closed = True
                    break
            except socket.timeout:
                pass
            except ConnectionResetError:
                closed = True
                break
    assert closed, "the server kept a connection whose headers never ended"
    assert httpx.get(server.url + "/health", timeout=10).json()["status"] == "ok"


def test_settings_are_checked() -> None:
    with pytest.raises(ConfigError, match="header_timeout"):
        ServerSettings(header_timeout=0)
