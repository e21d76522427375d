"""The simulated phone's adbd under hostile use, through real clients (Debian's adb, adb-shell): idle connection
floods, file doublings, oversized pushes, endless lines, catastrophic patterns, and bad command-line options. Each
runs at a small size that still proves its bound."""

from __future__ import annotations

import resource
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Iterator

import pytest
from adb_shell.adb_device import AdbDeviceTcp

from mobile_r1.cli.main import main
from mobile_r1.env.sim.servers.adbd import AdbdServer, SimDevice

from adbd_clients import Connected, adb_connected

KIB = 1024


def _client(host: str, port: int, timeout: float = 20.0) -> AdbDeviceTcp:
    device = AdbDeviceTcp(host, port, default_transport_timeout_s=timeout)
    assert device.connect(rsa_keys=None, auth_timeout_s=1.0)
    return device


@pytest.fixture(scope="module")
def small() -> Iterator[Connected]:
    """A device with a 64 KiB file limit, a 256 KiB quota and 1 MiB of output per command line."""
    yield from adb_connected(SimDevice(capture_scale=0.2, file_limit=64 * KIB, files_quota=256 * KIB,
                                       max_output=1024 * KIB))


def _files_size(device: SimDevice) -> int:
    return sum(len(v) for v in device.files.values())


@pytest.mark.slow
def test_doublings_stop_at_the_file_limit_and_the_quota(small: Connected) -> None:
    device = small.server.device
    line = "echo 0123456789abcdef > /sdcard/a; " + "cat /sdcard/a /sdcard/a > /sdcard/b; cat /sdcard/b > /sdcard/a; " * 24
    done = small.adb("shell", line)
    assert b"File too large" in done.stderr
    assert len(device.files["/sdcard/a"]) <= 64 * KIB and _files_size(device) <= 256 * KIB
    for n in range(8):  # many files: the quota holds for all of them together
        small.adb("shell", f"cat /sdcard/a > /sdcard/c{n}")
    assert _files_size(device) <= 256 * KIB
    assert b"No space left on device" in small.adb("shell", "cat /sdcard/a > /sdcard/last").stderr
    many = small.adb("shell", "cat" + " /sdcard/a" * 40)  # 40 x 64 KiB > the 1 MiB a command line may write
    assert many.returncode == 1 and b"byte limit" in many.stderr and len(many.stdout) <= 1024 * KIB
    small.adb("shell", "rm -f /sdcard/a /sdcard/b /sdcard/c* /sdcard/last")
    device.files.clear()


@pytest.mark.slow
def test_a_push_over_the_quota_is_refused_without_holding_it(small: Connected, tmp_path: Path) -> None:
    big = tmp_path / "big.bin"
    big.write_bytes(bytes(range(256)) * (1024 * 4))  # 1 MiB against a 64 KiB file limit
    done = small.adb("push", str(big), "/sdcard/big.bin")
    assert done.returncode != 0 and b"File too large" in done.stdout + done.stderr
    assert "/sdcard/big.bin" not in small.server.device.files
    fits = tmp_path / "fits.bin"
    fits.write_bytes(b"x" * (32 * KIB))
    assert small.adb("push", str(fits), "/sdcard/fits.bin").returncode == 0
    assert small.server.device.files["/sdcard/fits.bin"] == fits.read_bytes()
    small.server.device.files.clear()


@pytest.mark.slow
def test_an_endless_interactive_line_is_refused_and_the_shell_goes_on(small: Connected) -> None:
    flood = b"a" * (3 * 1024 * 1024) + b"\necho still here\n"  # 3 MiB with no newline, then a command
    done = small.adb("shell", stdin=flood, timeout=120)
    assert b"line over" in done.stderr and done.stdout == b"still here\n"


def test_a_catastrophic_pattern_is_bounded_and_holds_up_no_other_connection() -> None:
    with AdbdServer(SimDevice(capture_scale=0.2)) as server:
        slow, quick = _client(server.host, server.port), _client(server.host, server.port)
        answers: dict[str, str] = {}
        line = "echo " + "a" * 60 + "b | grep -E '(a|aa)+$'; echo status $?"
        grep = threading.Thread(target=lambda: answers.update(grep=slow.shell(line)))
        grep.start()
        while "commands" not in answers:  # wait until the grep line is under way on the device
            if server.device.commands_run >= 1:
                answers["commands"] = "started"
            time.sleep(0.01)
        answers["echo"] = quick.shell("echo hi")
        grep_was_running = grep.is_alive()
        grep.join(60)
        assert answers["echo"] == "hi\n" and grep_was_running, "echo must not wait for the pattern"
        assert "pattern too costly" in answers["grep"] and answers["grep"].endswith("status 2\n")
        assert quick.shell("echo " + "a" * 60 + "b | grep -E '(a+)+$'; echo $?") == "1\n"  # the pattern
        slow.close()
        quick.close()


@pytest.mark.slow
def test_an_idle_connection_flood_neither_stops_nor_starves_the_listener() -> None:
    def few_files() -> None:  # the flood must exhaust the server's file descriptors, not this test's
        resource.setrlimit(resource.RLIMIT_NOFILE, (128, 128))

    process = subprocess.Popen([sys.executable, "-m", "mobile_r1.cli.main", "sim", "adbd", "--port", "0",
                                "--capture-scale", "0.2"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               preexec_fn=few_files)
    idle: list[socket.socket] = []
    try:
        assert process.stdout is not None and process.stderr is not None
        host, port = process.stdout.readline().split()[-1].rsplit(":", 1)
        for _ in range(300):  # more than the server may hold open
            idle.append(socket.create_connection((host, int(port)), timeout=10))
        time.sleep(1)
        device = _client(host, int(port))
        assert device.shell("echo served") == "served\n"
        device.close()
        assert process.poll() is None
    finally:
        for sock in idle:
            sock.close()
        process.terminate()
        _, errors = process.communicate(timeout=10)
    assert errors.count("logged once") <= 2  # one line for the whole flood, not one per connection


@pytest.mark.parametrize("args", [["--port", "70000"], ["--host", "256.1.1.1"], ["--capture-scale", "nan"],
                                  ["--capture-scale", "0"], ["--capture-scale", "50"]])
def test_sim_adbd_refuses_bad_options_with_a_message(args: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sim", "adbd", *args]) == 2
    err = capsys.readouterr().err
    assert f"{args[0]} " in err and "Traceback" not in err
