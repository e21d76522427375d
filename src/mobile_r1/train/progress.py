"""What a training run shows while it runs: notes and progress on standard error, a live bar on a terminal and a line
every 30 s elsewhere (a log, CI)."""

from __future__ import annotations

import time
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

console = Console(stderr=True, soft_wrap=True)  # progress bars and notes go to standard error, a note to a line


class LineProgress:
    """Progress as a line every `every` seconds (and at the end), for a console that is not a terminal (a log, CI),
    where a live bar shows nothing until it is done; the subset of rich's Progress the loop uses."""

    def __init__(self, every: float = 30.0, enabled: bool = True) -> None:
        self.every, self.enabled = every, enabled
        self.tasks: dict[int, dict[str, Any]] = {}

    def __enter__(self) -> LineProgress:
        return self

    def __exit__(self, *exc: object) -> None:
        for task in self.tasks.values():
            self._print(task)

    def add_task(self, description: str, total: float | None = None, completed: float = 0, **fields: Any) -> int:
        key = len(self.tasks)
        self.tasks[key] = {"description": description, "total": total, "completed": completed, "fields": fields,
                           "start": time.perf_counter(), "shown": time.perf_counter()}
        return key

    def update(self, key: int, completed: float | None = None, total: float | None = None, **fields: Any) -> None:
        task = self.tasks[key]
        if completed is not None:
            task["completed"] = completed
        if total is not None:
            task["total"] = total
        task["fields"].update(fields)
        if time.perf_counter() - task["shown"] >= self.every:
            self._print(task)

    def _print(self, task: dict[str, Any]) -> None:
        if not self.enabled:
            return
        task["shown"] = now = time.perf_counter()
        elapsed = now - task["start"]
        done, total = task["completed"], task["total"]
        info = task["fields"].get("info", "")
        console.print(f"{task['description']}: {done:g}/{total:g} ({elapsed / 60:.1f} min) {info}".rstrip(), markup=False,
                      highlight=False)


def progress_bar(enabled: bool) -> Progress | LineProgress:
    """A live bar on a terminal; a line every 30 s elsewhere (so a long stage shows its progress in a log too)."""
    if not console.is_terminal:
        return LineProgress(enabled=enabled)
    return Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        TextColumn("{task.fields[info]}"),
        console=console,
        disable=not enabled,
        transient=False,
    )


__all__ = ["LineProgress", "console", "progress_bar"]
