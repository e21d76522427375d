"""The Ray cluster itself failing under `mobile-r1 eval --ray`: its node going down (the raylet killed with the phone
workers it started), or the dashboard agent the raylet shares its fate with killed. The run stops with a message
(exit 2) instead of waiting out every remaining episode, what it finished is kept, and `--resume` finishes the run on a
new cluster.

A raylet killed alone leaves its workers playing (the pool's answers travel inside Ray's replies, not through the
raylet's object store) until the cluster declares the node dead, some 20 s later, and the run then stops the same way;
the node going down is that moment without the wait."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("ray")

EPISODES = 40


def _records(run: Path) -> list[dict]:
    path = run / "episodes.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()] if path.exists() else []


def _descendants(pid: int) -> list[int]:
    """The processes below `pid` (Linux: read from /proc)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(parent, []).append(int(entry.name))
    out, todo = [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            out.append(child)
            todo.append(child)
    return out


def _find(pid: int, marker: str) -> int | None:
    for child in _descendants(pid):
        try:
            if marker in (Path("/proc") / str(child) / "cmdline").read_bytes().replace(b"\0", b" ").decode():
                return child
        except OSError:
            continue
    return None


def _eval(run: Path, *more: str) -> list[str]:
    return [sys.executable, "-m", "mobile_r1.cli.main", "eval", "--agent", "oracle", "--suite", "inquire-sim",
            "--episodes", str(EPISODES), "--ray", "--out", str(run), *more]


@pytest.mark.slow
@pytest.mark.parametrize("victim", ["raylet/raylet", "ray::DashboardAgent"], ids=["node", "dashboard-agent"])
def test_a_failed_cluster_ends_the_run_with_a_message_and_resume_finishes_it(tmp_path: Path, victim: str) -> None:
    run = tmp_path / "run"
    process = subprocess.Popen(_eval(run), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 300
        while len(_records(run)) < 2 and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.2)
        target = _find(process.pid, victim)
        assert target is not None, f"no {victim} process under the eval"
        # the node goes down: its raylet and the workers it started (the dashboard agent alone takes the raylet down)
        for pid in [target, *(_descendants(target) if victim.startswith("raylet") else [])]:
            os.kill(pid, signal.SIGKILL)
        _, err = process.communicate(timeout=300)  # the old pool waited 120 s per remaining episode
    finally:
        if process.poll() is None:
            process.kill()
    assert process.returncode == 2, err[-3000:]
    assert "the local Ray cluster failed: none of its 1 node(s) is alive" in err and "--resume" in err
    assert "Traceback" not in err
    kept = _records(run)
    assert 2 <= len(kept) < EPISODES and not any(r.get("infra_error") for r in kept)
    if victim.startswith("raylet"):  # once is enough: the run goes on where it stopped
        done = subprocess.run(_eval(run, "--resume"), capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stderr[-3000:]
        records = _records(run)
        assert len({r["id"] for r in records}) == EPISODES and records[: len(kept)] == kept
