"""What long runs show while they run (`train.progress`) and how they share the cores (`train.threads`)."""

from __future__ import annotations

import multiprocessing
import os
import subprocess
import sys
from concurrent.futures import ProcessPoolExecutor

import pytest

from mobile_r1.train import progress, threads
from mobile_r1.train.progress import LineProgress, follow, progress_line, report_queue, set_report_queue


def test_a_progress_line_gives_done_of_total_and_the_time_left() -> None:
    assert progress_line("sft", 10, 40, 30.0) == "sft: 10/40 (elapsed 0:30, left 1:30)"
    assert progress_line("sft", 40, 40, 3725.0, info="loss=0.1") == "sft: 40/40 (elapsed 1:02:05, done) loss=0.1"
    # a resumed task counts its rate from where this process began, and shows no time left before a unit is done
    assert progress_line("sft", 30, 40, 60.0, started_at=20) == "sft: 30/40 (elapsed 1:00, left 1:00)"
    assert progress_line("eval", 0, 96, 5.0) == "eval: 0/96 (elapsed 0:05)"
    assert progress_line("check", 7, None, 5.0) == "check: 7 (elapsed 0:05)"
    # episodes played in turns: a part-done count, one decimal, and the time left from it
    assert progress_line("eval", 9.6, 96, 30.0) == "eval: 9.6/96 (elapsed 0:30, left 4:30)"


def test_line_progress_prints_every_period_and_once_at_the_end(capsys: pytest.CaptureFixture[str]) -> None:
    with LineProgress(every=3600) as bar:
        task = bar.add_task("data nav-sim/train", total=3, info="")
        bar.advance(task)
        bar.update(task, completed=2)
        assert capsys.readouterr().err == ""  # within the period: nothing yet
        bar.advance(task)  # the last unit: its line at once
        assert capsys.readouterr().err.startswith("data nav-sim/train: 3/3 (elapsed 0:00, done)")
    assert capsys.readouterr().err == ""  # not printed twice
    with LineProgress(every=0) as bar:
        task = bar.add_task("sft", total=4, info="")
        bar.update(task, completed=1, info="loss=2.000")
    lines = capsys.readouterr().err.splitlines()
    assert lines[0].startswith("sft: 1/4 (elapsed 0:00, left 0:00) loss=2.000") and len(lines) == 2


def test_a_task_that_waits_its_turn_counts_its_time_from_its_start(capsys: pytest.CaptureFixture[str],
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Sets scored in turn by one process are all added at once: the one that waits shows its own elapsed time and
    time left once it starts, not those since it was added (before: `1/96 (elapsed 2:52, left 4:32:40)`)."""
    now = [1000.0]
    monkeypatch.setattr(progress.time, "perf_counter", lambda: now[0])
    with LineProgress(every=0) as bar:
        task = bar.add_task("eval sft/in-distribution", total=96, info="", start=False)
        now[0] += 170.0  # the set before it is scored
        bar.update(task, completed=0)
        assert capsys.readouterr().err == ""  # not started: nothing shown
        bar.start_task(task)
        bar.update(task, completed=2)  # two episodes resumed from an earlier run: not this run's rate
        now[0] += 30.0
        bar.update(task, completed=12)
        bar.start_task(task)  # starting again changes nothing
        now[0] += 30.0
        bar.update(task, completed=22)
    lines = capsys.readouterr().err.splitlines()
    assert lines[:3] == ["eval sft/in-distribution: 2/96 (elapsed 0:00)",
                         "eval sft/in-distribution: 12/96 (elapsed 0:30, left 4:12)",
                         "eval sft/in-distribution: 22/96 (elapsed 1:00, left 3:42)"]


def _job(name: str, units: int) -> int:
    for done in range(1, units + 1):
        progress.worker_report(name, done, units)
    return units


@pytest.mark.slow
def test_jobs_in_spawned_processes_move_the_parents_bar() -> None:
    reports = report_queue()
    with LineProgress(enabled=False) as bar, ProcessPoolExecutor(
            2, mp_context=multiprocessing.get_context("spawn"), initializer=set_report_queue,
            initargs=(reports,)) as pool:
        tasks = {name: bar.add_task(name, total=None) for name in ("a", "b")}
        futures = [pool.submit(_job, "a", 5), pool.submit(_job, "b", 7)]
        finished = [f.result() for f in follow(futures, reports, bar, tasks)]
    assert sorted(finished) == [5, 7]
    assert [(bar.tasks[tasks[n]]["completed"], bar.tasks[tasks[n]]["total"]) for n in "ab"] == [(5, 5), (7, 7)]


def test_share_cores_lets_waiting_threads_sleep_unless_the_user_said_otherwise(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in threads.WAIT_SETTINGS:
        monkeypatch.delenv(name, raising=False)
    threads.share_cores()
    assert os.environ["OMP_WAIT_POLICY"] == "PASSIVE"
    monkeypatch.delenv("OMP_WAIT_POLICY")
    monkeypatch.setenv("GOMP_SPINCOUNT", "300000")
    assert threads.share_cores() is False and "OMP_WAIT_POLICY" not in os.environ
    monkeypatch.setenv("OMP_WAIT_POLICY", "active")
    threads.share_cores()
    assert os.environ["OMP_WAIT_POLICY"] == "active"


@pytest.mark.slow
def test_the_command_line_sets_the_wait_policy_before_torch_loads() -> None:
    """OpenMP reads OMP_WAIT_POLICY once, when torch loads: the CLI sets it before any command imports torch."""
    env = {k: v for k, v in os.environ.items() if k not in threads.WAIT_SETTINGS}
    code = ("import os, sys\nfrom mobile_r1.cli.main import main\nbefore = 'torch' in sys.modules\n"
            "main(['--version'])\nprint(before, os.environ.get('OMP_WAIT_POLICY'))")
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert done.stdout.split()[-2:] == ["False", "PASSIVE"], done.stderr[-2000:]
