"""An evaluation's run directory: `run.json` (the resolved options), `episodes.jsonl` (one whole line per finished
episode, appended under a lock and fsynced; a torn last line is dropped on resume), `metrics.json` and `screens/`;
and reading a run back (the last record of each episode)."""

from __future__ import annotations

import fcntl
import json
import os
import threading
from pathlib import Path
from typing import Any, Iterable

from mobile_r1.core.errors import ConfigError, DataError, MobileR1Error
from mobile_r1.core.files import make_dir, write_json
from mobile_r1.core.reading import Where, decode, loads, read_json
from mobile_r1.core.verdict import EpisodeVerdict
from mobile_r1.eval.config import RESUME_KEYS, EvalConfig

EPISODES_FILE, RUN_FILE, METRICS_FILE, SCREENS_DIR = "episodes.jsonl", "run.json", "metrics.json", "screens"


class EpisodeLog:
    """episodes.jsonl: whole-line appends (one write + flush + fsync under a lock) and a torn-line-tolerant reader."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.lock = threading.Lock()

    def read(self, repair: bool = False) -> list[dict[str, Any]]:
        """Every complete record; a torn last line (no newline, or not JSON) is ignored (and cut off if `repair`)."""
        if not self.path.exists():
            return []
        raw = self.path.read_bytes()
        records: list[dict[str, Any]] = []
        good = 0
        offset = 0
        for number, line in enumerate(raw.splitlines(keepends=True), start=1):
            end = offset + len(line)
            complete = line.endswith(b"\n")
            try:  # the shared reader: not UTF-8, not JSON, too deep or a number out of range is a damaged line
                where = Where(self.path, number)
                record = loads(decode(line, where), where) if complete and line.strip() else None
            except MobileR1Error:
                record = None
            if record is None and line.strip():
                if end < len(raw):
                    raise DataError(f"{self.path}: a damaged line in the middle of the file (byte {offset}); "
                                    "only the last line may be torn. Remove the damaged line and run again")
                break
            if record is not None:
                records.append(record)
            good = end
            offset = end
        if repair and good < len(raw):
            with open(self.path, "r+b") as f:
                f.truncate(good)
                f.flush()
                os.fsync(f.fileno())
        return records

    def append(self, record: dict[str, Any]) -> None:
        # a lone surrogate (a model's text can hold one) is written as its escape rather than failing the write
        data = (json.dumps(record, ensure_ascii=False) + "\n").encode("utf-8", "backslashreplace")
        with self.lock:
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX)
                written = os.write(fd, data)
                if written != len(data):
                    raise OSError(f"short write to {self.path}")
                os.fsync(fd)
            finally:
                os.close(fd)


def verdicts_of(records: Iterable[dict[str, Any]]) -> list[EpisodeVerdict]:
    """The verdicts of episode records (each carries a "verdict" object; records of infrastructure failures, which
    carry none, are left out)."""
    out = []
    for number, r in enumerate(records, start=1):
        if not isinstance(r, dict):
            raise DataError(f"episode record {number}: expected an object with a 'verdict' object")
        if r.get("infra_error") is not None:
            continue
        if not isinstance(r.get("verdict"), dict):
            raise DataError(f"episode record {number}: expected an object with a 'verdict' object")
        data = dict(r["verdict"])
        data.setdefault("episode_id", r.get("id"))
        out.append(EpisodeVerdict.from_dict(data))
    return out


def load_run(run_dir: Path, infra: bool = False) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A run directory's options (run.json) and its episode records: the last record of each episode, in the order
    they were first written; those of infrastructure failures only with `infra=True`."""
    run_dir = Path(run_dir)
    if not (run_dir / EPISODES_FILE).exists():
        raise DataError(f"{run_dir} holds no {EPISODES_FILE}; pass a folder written by 'mobile-r1 eval --out'")
    options = read_json(run_dir / RUN_FILE) if (run_dir / RUN_FILE).exists() else {}
    return options, latest_records(EpisodeLog(run_dir / EPISODES_FILE).read(), infra)


def latest_records(records: Iterable[dict[str, Any]], infra: bool = False) -> list[dict[str, Any]]:
    """The last record of each episode id (a resumed run appends a new one after an infrastructure failure)."""
    latest: dict[str, dict[str, Any]] = {}
    for number, record in enumerate(records, start=1):
        if not isinstance(record, dict):
            raise DataError(f"episode record {number}: expected an object with a 'verdict' object")
        latest.pop(str(record.get("id")), None)
        latest[str(record.get("id"))] = record
    return [r for r in latest.values() if infra or r.get("infra_error") is None]


def open_run_dir(config: EvalConfig) -> tuple[Path | None, EpisodeLog | None, list[dict[str, Any]]]:
    """The run directory of `config.out` (None without one), its episode log and the records already in it: a new run
    refuses a folder that holds one, a resumed run its records (with other options it refuses too)."""
    if config.out is None:
        if config.resume:
            raise ConfigError("--resume needs --out RUN_DIR (the run to continue)")
        return None, None, []
    run_dir = make_dir(Path(config.out))
    log = EpisodeLog(run_dir / EPISODES_FILE)
    previous = log.read(repair=config.resume)
    run_file = run_dir / RUN_FILE
    if config.resume:
        if run_file.exists():
            old = json.loads(run_file.read_text(encoding="utf-8"))
            new = config.resolved()
            diff = [k for k in RESUME_KEYS if old.get(k) != new.get(k)]
            if diff:
                raise ConfigError(f"{run_dir} was run with other options ({', '.join(diff)}: "
                                  f"{', '.join(repr(old.get(k)) for k in diff)}); resume with the same options")
    elif previous or run_file.exists():
        raise ConfigError(f"{run_dir} already holds a run; pass --resume to continue it or choose another --out")
    write_json(run_file, config.resolved())
    return run_dir, log, previous


__all__ = ["EPISODES_FILE", "METRICS_FILE", "RUN_FILE", "SCREENS_DIR", "EpisodeLog", "latest_records", "load_run",
           "open_run_dir", "verdicts_of"]
