"""A hostile device through the real adb server: `mobile-r1 eval --env adb:` against the simulated phone with one
answer replaced (absurd screen sizes, endless output, a decompression bomb, a UI dump too deep or with a huge number,
a side channel that is not JSON). Each ends in a message (exit 2, or the episode recorded apart as an
infrastructure error), within bounded memory and CPU time, never a traceback."""

from __future__ import annotations

import json
import os
import resource
import struct
import subprocess
import sys
import zlib
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator

import pytest

from mobile_r1.cli.main import main
from mobile_r1.env.sim.servers.adbd import AdbdServer, SimDevice

from adb_fixtures import ADB

Answer = Callable[[str, Callable[[], bytes]], bytes]  # (the command line, the honest answer) -> what is sent
DUMP_TAIL = b"\nmCurrentFocus=Window{1a2b u0 com.sim.notes/.Main}\n"


class HostileDevice(SimDevice):
    """The simulated phone, but every command line containing a key of `answers` is answered by its function."""

    def __init__(self, answers: dict[str, Answer]) -> None:
        super().__init__(seed=0, capture_scale=0.5)
        self.answers = answers

    def run_line(self, line: str) -> bytes:
        for key, answer in self.answers.items():
            if key in line:
                return answer(line, lambda: super(HostileDevice, self).run_line(line))
        return super().run_line(line)


@contextmanager
def hostile(adb_server: int, answers: dict[str, Answer]) -> Iterator[str]:
    """The hostile device served on loopback and `adb connect`ed to the private adb server: its serial."""
    with AdbdServer(HostileDevice(answers)) as server:
        subprocess.run([str(ADB), "-P", str(adb_server), "connect", server.serial], check=True, capture_output=True,
                       timeout=30)
        try:
            yield server.serial
        finally:
            subprocess.run([str(ADB), "-P", str(adb_server), "disconnect", server.serial], capture_output=True,
                           timeout=30)


def _eval(serial: str, out: Path) -> list[str]:
    return ["eval", "--agent", "oracle", "--env", f"adb:{serial}", "--suite", "nav-sim", "--episodes", "1",
            "--confirm", "none", "--env-option", "timeout=20", "--out", str(out)]


def _bounded(argv: list[str], memory: int, cpu_seconds: int) -> subprocess.CompletedProcess[str]:
    """`mobile-r1 ARGV` in a process held to `memory` bytes of address space and `cpu_seconds` of CPU time."""
    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
        resource.setrlimit(resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds))

    return subprocess.run([sys.executable, "-m", "mobile_r1.cli.main", *argv], capture_output=True, text=True,
                          timeout=600, preexec_fn=limit, env=os.environ.copy())


def _infra_errors(run: Path) -> list[str]:
    records = [json.loads(line) for line in (run / "episodes.jsonl").read_text().splitlines() if line.strip()]
    return [r.get("infra_error") or "" for r in records]


def _padded_size(megabytes: int) -> Answer:
    """`wm size` answered honestly, then `megabytes` MiB of more lines."""
    return lambda line, honest: honest() + b"mDisplayInfo: padding padding padding\n" * (megabytes * 2**20 // 38)


def _png_header(width: int, height: int) -> bytes:
    """A PNG that claims `width` x `height` pixels (a header and one empty data chunk: a few dozen bytes)."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 0, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(b"")) + chunk(b"IEND", b""))


@pytest.mark.slow
def test_an_absurd_screen_size_is_refused_before_any_memory_is_spent(adb_server: int, tmp_path: Path) -> None:
    size: Answer = lambda line, honest: b"Physical size: 100000x100000\n"
    with hostile(adb_server, {"wm size": size}) as serial:
        done = _bounded(_eval(serial, tmp_path / "run"), memory=2 * 2**30, cpu_seconds=60)
    assert done.returncode == 2, done.stderr[-2000:]
    assert "Traceback" not in done.stderr and "says its screen is 100000x100000 pixels" in done.stderr
    assert not (tmp_path / "run").exists(), "refused before anything is written"


def test_a_screen_of_no_pixels_is_refused(adb_server: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    size: Answer = lambda line, honest: b"Physical size: 0x0\n"
    with hostile(adb_server, {"wm size": size}) as serial:
        assert main(_eval(serial, tmp_path / "run")) == 2
    assert "says its screen is 0x0 pixels" in capsys.readouterr().err
    assert not (tmp_path / "run").exists()


@pytest.mark.slow
def test_long_output_is_read_in_linear_time_and_endless_output_is_cut_off(adb_server: int, tmp_path: Path) -> None:
    """32 MiB are read whole (quadratic reading took minutes of CPU); past 64 MiB the answer is refused."""
    with hostile(adb_server, {"wm size": _padded_size(32)}) as serial:
        done = _bounded(_eval(serial, tmp_path / "long"), memory=2 * 2**30, cpu_seconds=40)
    assert done.returncode == 0, done.stderr[-2000:]
    assert _infra_errors(tmp_path / "long") == [""]
    with hostile(adb_server, {"wm size": _padded_size(80)}) as serial:
        done = _bounded(_eval(serial, tmp_path / "endless"), memory=2 * 2**30, cpu_seconds=40)
    assert done.returncode == 2, done.stderr[-2000:]
    assert "Traceback" not in done.stderr and "sent more than 64 MiB for `wm size`" in done.stderr


def test_a_decompression_bomb_capture_is_not_decoded(adb_server: int, tmp_path: Path) -> None:
    bomb: Answer = lambda line, honest: _png_header(20000, 20000)
    with hostile(adb_server, {"screencap": bomb}) as serial:
        assert main(_eval(serial, tmp_path / "run")) == 0
    [error] = _infra_errors(tmp_path / "run")
    assert "the screenshot is larger than a screen" in error and "not decoded" in error


@pytest.mark.parametrize("xml, problem", [
    ('<hierarchy rotation="0">' + '<node bounds="[0,0][1,1]">' * 5000 + "</node>" * 5000 + "</hierarchy>",
     "nests nodes deeper than 256 levels"),
    ('<hierarchy rotation="0"><node bounds="[0,0][' + "9" * 5000 + ',1]"/></hierarchy>', "at most 7 digits"),
])
def test_a_ui_dump_too_deep_or_with_a_huge_number_fails_its_episode_with_a_message(
        adb_server: int, tmp_path: Path, xml: str, problem: str) -> None:
    dump: Answer = lambda line, honest: b'<?xml version="1.0"?>' + xml.encode() + DUMP_TAIL
    with hostile(adb_server, {"uiautomator dump": dump}) as serial:
        assert main(_eval(serial, tmp_path / "run")) == 0
    [error] = _infra_errors(tmp_path / "run")
    assert "the UI dump is unusable twice in a row" in error and problem in error


def test_a_side_channel_that_is_not_json_is_a_message(adb_server: int, tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    last: Answer = lambda line, honest: honest()[: -len(b"\n")].rsplit(b"\n", 1)[0] + b"\n{not json\n"
    with hostile(adb_server, {"; simctl last": last}) as serial:
        assert main(_eval(serial, tmp_path / "last")) == 0
    [error] = _infra_errors(tmp_path / "last")
    assert "`simctl last`: not valid JSON" in error
    apps: Answer = lambda line, honest: b"[{\"package\": 1\n"
    with hostile(adb_server, {"simctl apps": apps}) as serial:
        assert main(_eval(serial, tmp_path / "apps")) == 2
    assert "`simctl apps`: not valid JSON" in capsys.readouterr().err
    assert not (tmp_path / "apps").exists()


# ----- hostile task files (`--tasks`) -----------------------------------------------------------------------------
TASK_BOMB = "".join(f"  - &a{i} [" + ", ".join([f"*a{i - 1}" if i else '"lol"'] * 10) + "]\n" for i in range(7))


@pytest.fixture(scope="module")
def plain_device(adb_server: int) -> Iterator[str]:
    with hostile(adb_server, {}) as serial:
        yield serial


@pytest.mark.parametrize("name, content, problem", [
    ("bomb.yaml", "defs:\n" + TASK_BOMB + "tasks:\n  - instruction: Open the calendar\n    apps: *a6\n",
     "expands to more than 1,000,000 values"),
    ("deep.jsonl", '{"instruction": "x", "apps": ' + "[" * 100_000 + "]" * 100_000 + "}\n",
     "deep.jsonl:1: values nested deeper than 64 levels"),
    ("inf.yaml", "- instruction: Open the calendar\n  max_steps: .inf\n", "inf.yaml:2: field '[0].max_steps': inf is not"),
    ("big.yaml", "- instruction: Open the calendar\n  max_steps: 1.0e+9\n", "'max_steps' must be a whole number"),
    ("python.yaml", "- instruction: !!python/object/apply:os.system [echo hi]\n", "could not determine a constructor"),
    ("id.jsonl", json.dumps({"id": "x" * 5000, "instruction": "Open the calendar"}) + "\n",
     "field 'id' holds 5,000 characters; at most 100"),
    ("goal.txt", "g" * 5_000_000 + "\n", "goal.txt:1: field 'instruction' holds 5,000,000 characters"),
])
def test_a_hostile_task_file_is_a_message_before_anything_is_written(plain_device: str, tmp_path: Path,
                                                                     capsys: pytest.CaptureFixture[str], name: str,
                                                                     content: str, problem: str) -> None:
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    run = tmp_path / "run"
    assert main(["eval", "--agent", "oracle", "--env", f"adb:{plain_device}", "--tasks", str(path), "--env-option",
                 "person=none", "--out", str(run)]) == 2
    captured = capsys.readouterr()
    err = " ".join(captured.err.split())
    assert problem in err and "Traceback" not in captured.err and len(captured.err) < 2000, err[:3000]
    assert not run.exists()
