"""Every command of the README runs: its bash blocks, in order, in a scratch folder (with `configs/` beside), and its
Python block. `make demo` and `make test` are the set-up targets (CI runs `make test`; `mobile-r1 demo` has its own
tests); the fixed ports of the README (8000, 5000, 5555) become free ones; a command ending in `&` is a server,
started in the background and waited for on its port; the adb commands talk to a private adb server. Every output
lands under runs/, and each command's time is printed (`pytest -s`)."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from mobile_r1.serve.server import free_port

REPO = Path(__file__).resolve().parents[1]
README = REPO / "README.md"
SET_UP = ("make demo", "make test")
PORTS = ("8000", "5000", "5555")


def blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", README.read_text(encoding="utf-8"), re.S)


def commands() -> list[str]:
    out = []
    for block in blocks("bash"):
        for line in block.splitlines():
            command = line.split("  #")[0].strip()
            if command and not command.startswith(SET_UP):
                out.append(command)
    return out


def test_the_readme_is_a_short_guide_with_the_two_commands_first() -> None:
    text = README.read_text(encoding="utf-8")
    assert len(text.encode("utf-8")) <= 12_000
    first = blocks("bash")[0]
    assert first.splitlines()[0].startswith("make demo") and first.splitlines()[1].startswith("make test")
    for link in re.findall(r"\]\(((?:docs|configs)/[^)#]+)\)", text):
        assert (REPO / link).exists(), link


def _wait_for(port: int, process: subprocess.Popen[bytes], seconds: float = 120.0) -> None:
    deadline = time.time() + seconds
    while time.time() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"the server exited with {process.returncode}")
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            time.sleep(0.3)
    raise AssertionError(f"nothing answered on port {port}")


@pytest.mark.slow
def test_every_command_of_the_readme_runs(tmp_path: Path) -> None:
    adb = shutil.which("adb")
    if adb is None:
        pytest.skip("the adb binary is not installed (`make adb` installs Debian's package)")
    (tmp_path / "configs").symlink_to(REPO / "configs")
    ports = {p: str(free_port()) for p in PORTS}
    adb_port = free_port()
    env = {**os.environ, "ANDROID_ADB_SERVER_PORT": str(adb_port), "PYTHONUNBUFFERED": "1"}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO / "src"), os.environ.get("PYTHONPATH")]))
    subprocess.run([adb, "-P", str(adb_port), "start-server"], check=True, capture_output=True, timeout=60)
    servers: list[subprocess.Popen[bytes]] = []
    ran = []
    timings: list[tuple[float, str]] = []  # printed at the end (pytest -s): the README promises quick examples
    try:
        for command in commands():
            for fixed, free in ports.items():
                command = command.replace(fixed, free)
            background = command.endswith("&")
            argv = shlex.split(command.rstrip("&").strip())
            if argv[0] == "mobile-r1":
                argv = [sys.executable, "-m", "mobile_r1.cli.main", *argv[1:]]
            elif argv[0] == "adb":
                argv = [adb, *argv[1:]]
            if background:
                process = subprocess.Popen(argv, cwd=tmp_path, env=env, stdout=subprocess.DEVNULL,
                                           stderr=subprocess.DEVNULL)
                servers.append(process)
                _wait_for(int(argv[argv.index("--port") + 1]), process)
                continue
            started = time.perf_counter()
            done = subprocess.run(argv, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=900)
            assert done.returncode == 0, f"{command}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
            ran.append(command)
            timings.append((time.perf_counter() - started, command))
        python = blocks("python")
        assert len(python) == 1
        done = subprocess.run([sys.executable, "-c", python[0]], cwd=tmp_path, env=env, capture_output=True,
                              text=True, timeout=300)
        assert done.returncode == 0, done.stderr[-3000:]
    finally:
        for process in servers:
            process.terminate()
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
        subprocess.run([adb, "-P", str(adb_port), "kill-server"], capture_output=True, timeout=60)
    for seconds, command in timings:
        print(f"{seconds:6.1f} s  {command}")
    assert len(ran) >= 15
    assert (tmp_path / "runs" / "report.html").is_file() and (tmp_path / "runs" / "sft" / "sft.jsonl").is_file()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["configs", "runs"]  # every output lands under runs/
    assert (tmp_path / "runs" / "cpu-tiny-sft" / "final").is_dir()
