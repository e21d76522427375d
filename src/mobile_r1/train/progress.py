"""What a long run shows while it runs: notes and progress on standard error, done/total and the time left of every
phase; a live bar on a terminal and a line every 30 s elsewhere (a log, CI). Jobs in worker processes report to a
bar in the parent through a queue (`worker_report`, `follow`).

    with progress_bar() as bar:
        task = bar.add_task("sft", total=1830, info="")
        bar.update(task, completed=10, info="loss=2.1")    # a terminal: the bar; a log: `sft: 10/1830 ... left 14:20`
"""

from __future__ import annotations

import multiprocessing
import queue as queues
import time
from collections.abc import Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, wait
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

console = Console(stderr=True, soft_wrap=True)  # progress bars and notes go to standard error, a note to a line

EVERY = 30.0  # seconds between two lines of a task's progress where the console is not a terminal


def clock(seconds: float) -> str:
    """`h:mm:ss` or `m:ss`."""
    seconds = max(0, int(round(seconds)))
    h, rest = divmod(seconds, 3600)
    return f"{h}:{rest // 60:02d}:{rest % 60:02d}" if h else f"{rest // 60}:{rest % 60:02d}"


def progress_line(description: str, done: float, total: float | None, elapsed: float, started_at: float = 0,
                  info: str = "") -> str:
    """`description: done/total (elapsed 1:02, left 3:10) info`; the time left is what the rate since the start
    (of this process: `started_at` is where a resumed task began) gives for the rest, shown once some is done. A
    part-done count (episodes played in turns) shows one decimal."""
    shown = f"{done:g}" if float(done).is_integer() else f"{done:.1f}"
    counted = f"{shown}/{total:g}" if total is not None else shown
    times = f"elapsed {clock(elapsed)}"
    if total is not None and done >= total:
        times += ", done"
    elif total is not None and done > started_at and elapsed > 0:
        times += f", left {clock(elapsed / (done - started_at) * (total - done))}"
    return f"{description}: {counted} ({times}) {info}".rstrip()


class LineProgress:
    """Progress as a line every `every` seconds (and at the end), for a console that is not a terminal (a log, CI),
    where a live bar shows nothing until it is done; the subset of rich's Progress the loops use."""

    def __init__(self, every: float = EVERY, enabled: bool = True) -> None:
        self.every, self.enabled = every, enabled
        self.tasks: dict[int, dict[str, Any]] = {}

    def __enter__(self) -> LineProgress:
        return self

    def __exit__(self, *exc: object) -> None:
        for task in self.tasks.values():
            if not task["finished"]:
                self._print(task)

    def add_task(self, description: str, total: float | None = None, completed: float = 0, start: bool = True,
                 **fields: Any) -> int:
        """A task; with `start=False` its clock starts at `start_task` (a job that waits its turn), and the rate
        counts from the first count it reports then (what a resumed job had already done is not its rate)."""
        key = len(self.tasks)
        now = time.perf_counter()
        self.tasks[key] = {"description": description, "total": total, "completed": completed, "fields": fields,
                           "start": now if start else None, "shown": now, "first": completed if start else None,
                           "finished": False}
        return key

    def start_task(self, key: int) -> None:
        """Start a task's clock (nothing if it runs already)."""
        task = self.tasks[key]
        if task["start"] is None:
            task["start"] = task["shown"] = time.perf_counter()

    def update(self, key: int, completed: float | None = None, total: float | None = None, advance: float = 0,
               description: str | None = None, **fields: Any) -> None:
        task = self.tasks[key]
        if completed is not None:
            task["completed"] = completed
        task["completed"] += advance
        if total is not None:
            task["total"] = total
        if description is not None:
            task["description"] = description
        task["fields"].update(fields)
        if task["start"] is None:  # not started: counts are kept, nothing is shown
            return
        if task["first"] is None:
            task["first"] = task["completed"]
        finished = task["total"] is not None and task["completed"] >= task["total"]
        if (finished and not task["finished"]) or time.perf_counter() - task["shown"] >= self.every:
            self._print(task)
            task["finished"] = finished

    def advance(self, key: int, advance: float = 1) -> None:
        self.update(key, advance=advance)

    def _print(self, task: dict[str, Any]) -> None:
        if not self.enabled or task["start"] is None:
            return
        task["shown"] = now = time.perf_counter()
        first = task["completed"] if task["first"] is None else task["first"]
        line = progress_line(task["description"], task["completed"], task["total"], now - task["start"], first,
                             str(task["fields"].get("info", "")))
        console.print(line, markup=False, highlight=False)


def progress_bar(enabled: bool = True) -> Progress | LineProgress:
    """A live bar with done/total, elapsed and time left on a terminal; a line every 30 s elsewhere (so a long phase
    shows its progress in a log too). Tasks take an `info` field (shown after the bar)."""
    if not console.is_terminal:
        return LineProgress(enabled=enabled)
    return Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("left"),
        TimeRemainingColumn(),
        TextColumn("{task.fields[info]}"),
        console=console,
        disable=not enabled,
        transient=False,
    )


# ----- jobs in worker processes -------------------------------------------------------------------------------------

_queue: Any = None  # in a worker process: where its jobs report (set by the pool's initializer, `set_report_queue`)


def report_queue() -> Any:
    """A queue worker processes (spawned) can report on: give it to the pool's initializer (`set_report_queue`)."""
    return multiprocessing.get_context("spawn").SimpleQueue()


def set_report_queue(q: Any) -> None:
    """A pool's initializer: this worker's jobs report on `q`."""
    global _queue
    _queue = q


def worker_report(job: str, done: float, total: int | None = None) -> None:
    """From a job in a worker process: `done` of `total` units of `job` are done (nothing outside a reporting pool)."""
    if _queue is not None:
        _queue.put((job, done, total))


def follow(futures: Iterable[Future[Any]], q: Any, bar: Progress | LineProgress, tasks: dict[str, Any],
           poll: float = 0.5) -> Iterator[Future[Any]]:
    """Yield `futures` as they finish, moving the bar's `tasks` (job name -> task id) by what the jobs report on `q`."""

    def drain() -> None:
        while True:
            try:
                if q.empty():
                    return
                job, done, total = q.get()
            except (queues.Empty, EOFError, OSError):
                return
            if job in tasks:
                bar.start_task(tasks[job])  # a job reports once it runs: its clock starts then
                bar.update(tasks[job], completed=done, **({"total": total} if total is not None else {}))

    pending = set(futures)
    while pending:
        finished, pending = wait(pending, timeout=poll, return_when=FIRST_COMPLETED)
        drain()
        yield from finished
    drain()


__all__ = ["LineProgress", "clock", "console", "follow", "progress_bar", "progress_line", "report_queue",
           "set_report_queue", "worker_report"]
