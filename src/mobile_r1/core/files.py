"""Files written whole or not at all.

A run folder's JSON records (an evaluation's `run.json` and `metrics.json`, the curriculum's `curriculum.json`, stage
2's `solved_steps.json`, stage 3's `selected_tasks.json`, an export's `dataset_info.json`) are read back by a resumed
run or another tool, so a crash or a kill while one is written must leave the previous version, never half a file:
each is written to a temporary file beside it (named for the writing process) and renamed over it, which is atomic on
POSIX file systems. The swapped copies of `mobile-r1 data swap-names` are written the same way (`write_text`).

A run folder itself is made by `make_dir`, which turns what the file system refuses (a file of that name, a path
under /proc, no permission) into a message.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from mobile_r1.core.errors import ConfigError


def write_text(path: Path, text: str) -> None:
    """Write `text` as UTF-8 to `path`, whole or not at all."""
    tmp = path.with_name(f".{path.name}.partial-{os.getpid()}")
    try:
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def write_json(path: Path, data: Any, indent: int = 2) -> None:
    """Write `data` as UTF-8 JSON (non-ASCII kept as is, a final newline) to `path`, whole or not at all."""
    write_text(path, json.dumps(data, ensure_ascii=False, indent=indent) + "\n")


def make_dir(path: Path, what: str = "run folder") -> Path:
    """Make the folder `path` (and its parents) if it is not there; a ConfigError naming `what` when it cannot be
    made or written to."""
    path = Path(path)
    if path.exists() and not path.is_dir():
        raise ConfigError(f"the {what} {path} is a file, not a folder; name a folder")
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ConfigError(f"cannot make the {what} {path} ({exc.strerror or exc}); name a folder you can write to") from None
    if not os.access(path, os.W_OK | os.X_OK):
        raise ConfigError(f"the {what} {path} is not writable; name a folder you can write to")
    return path


__all__ = ["make_dir", "write_json", "write_text"]
