"""Every supported data format by name, detection from a file's first record, and one `load_any` entry point."""

from __future__ import annotations

from pathlib import Path
from typing import Callable

from mobile_r1.core.errors import DataError
from mobile_r1.core.formats.inquire import load_inquire_grpo, load_inquire_sft, load_inquire_tasks
from mobile_r1.core.formats.jsonl import first_record
from mobile_r1.core.formats.mobile_r1 import load_mobile_r1
from mobile_r1.core.formats.native import episodes_file, load_episodes
from mobile_r1.core.records import Episode


def _tasks_as_episodes(path: Path) -> list[Episode]:
    return [task.to_episode() for task in load_inquire_tasks(path)]


LOADERS: dict[str, Callable[[Path], list[Episode]]] = {
    "native": load_episodes,
    "mobile-r1": load_mobile_r1,
    "inquire-tasks": _tasks_as_episodes,
    "inquire-sft": load_inquire_sft,
    "inquire-grpo": load_inquire_grpo,
}
FORMAT_NAMES = tuple(LOADERS)


def detect_format(path: str | Path) -> str:
    """Name the format of a file (or a native store folder) from the keys of its first record."""
    path = Path(path)
    if path.is_dir():
        if episodes_file(path).is_file():
            return "native"
        raise DataError(f"{path}: a folder must hold {episodes_file(path).name}; otherwise give a .jsonl file")
    record = first_record(path)
    if record is None:
        raise DataError(f"{path}: the file is empty; nothing to detect")
    keys = set(record)
    if {"id", "instruction", "steps"} <= keys:
        return "native"
    if {"trajectory", "instruction"} <= keys:
        return "mobile-r1"
    if "conversations" in keys:
        return "inquire-sft"
    if {"goal", "action"} <= keys:
        return "inquire-grpo"
    if {"instruction", "category", "intension"} <= keys:
        return "inquire-tasks"
    raise DataError(
        f"{path}:1: cannot tell the format from fields {sorted(keys)}; pass one of {', '.join(FORMAT_NAMES)} explicitly"
    )


def load_any(path: str | Path, format: str | None = None) -> tuple[str, list[Episode]]:
    """Load any supported file as episodes; returns (format name, episodes). `format=None` detects it."""
    name = format or detect_format(path)
    if name not in LOADERS:
        raise DataError(f"unknown data format {name!r}; choose one of {', '.join(FORMAT_NAMES)}")
    return name, LOADERS[name](Path(path))
