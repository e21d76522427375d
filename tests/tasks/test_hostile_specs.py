"""Hostile task spec folders through `mobile-r1 sim tasks --specs`: an alias bomb, values 100,000 deep, bytes that are
not UTF-8, a FIFO or /dev/zero named as a spec, a huge template, a 5,000-character id. Each is a message naming the
file and exit 2, within bounded memory and time, never a traceback or a hang."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from mobile_r1.cli.main import main

GOOD = """id: mine.pin
apps: [Notes]
category: control
subcategory: control
params:
  title: {pick: "notes.notes[*].title"}
templates:
  train: ["Pin {title}"]
  test: ["Please pin {title}"]
goal:
  - {state: "notes.notes[title={title}].pinned", equals: true}
"""
# Seven levels of ten aliases each: 10 million values from a file of 600 bytes.
BOMB = "".join(f"      - &a{i} [" + ", ".join([f"*a{i - 1}" if i else '"lol"'] * 10) + "]\n" for i in range(7))


def _folder(tmp_path: Path, content: bytes | str) -> Path:
    folder = tmp_path / "specs"
    folder.mkdir()
    (folder / "x.yaml").write_bytes(content.encode() if isinstance(content, str) else content)
    return folder


def _refused(folder: Path, capsys: pytest.CaptureFixture[str], *expected: str) -> None:
    assert main(["sim", "tasks", "--specs", str(folder), "--specs-only"]) == 2
    captured = capsys.readouterr()
    err = " ".join(captured.err.split())
    assert "Traceback" not in captured.err and len(captured.err) < 2000, "a short message, nothing quoted whole"
    for fragment in expected:
        assert fragment in err, err


@pytest.mark.parametrize("content, problem", [
    (GOOD.replace("templates:", "  extra:\n    value:\n" + BOMB + "templates:"),
     "expands to more than 1,000,000 values"),
    (GOOD.replace("id: mine.pin", "id: " + "[" * 100_000), "values nested deeper than 64 levels"),
    (GOOD.replace('["Pin {title}"]', '["Pin caf\xe9 {title}"]').encode("latin-1"), ":8: not UTF-8 text (byte 0xe9"),
    (GOOD.replace("id: mine.pin", "id: " + "x" * 5000), "id: String should have at most 100 characters"),
    (GOOD.replace('["Pin {title}"]', '["Pin ' + "g" * 500_000 + ' {nope}"]'), "(500,011 characters)' uses undefined"),
    (GOOD.replace('["Pin {title}"]', '["Pin ' + "g" * 2_000_000 + '"]'), "larger than 1 MiB"),
])
def test_a_hostile_spec_is_a_message(tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str | bytes,
                                     problem: str) -> None:
    folder = _folder(tmp_path, content)
    _refused(folder, capsys, f"{folder / 'x.yaml'}", problem)


@pytest.mark.parametrize("kind", ["fifo", "/dev/zero"])
def test_a_fifo_or_a_device_named_as_a_spec_is_refused_without_reading_it(tmp_path: Path, kind: str) -> None:
    folder = tmp_path / "specs"
    folder.mkdir()
    if kind == "fifo":
        os.mkfifo(folder / "x.yaml")  # opening it would wait for a writer that never comes
    else:
        (folder / "x.yaml").symlink_to(kind)  # reading it would never end

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (2 * 2**30, 2 * 2**30))

    done = subprocess.run([sys.executable, "-m", "mobile_r1.cli.main", "sim", "tasks", "--specs", str(folder),
                           "--specs-only"], capture_output=True, text=True, timeout=120, preexec_fn=limit)
    assert done.returncode == 2, done.stderr[-2000:]
    assert "is not a regular file (a FIFO, a device or a socket)" in done.stderr and "Traceback" not in done.stderr
