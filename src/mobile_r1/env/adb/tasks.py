"""Task files for a device: InquireBench's, as they are, and a minimal format of our own.

- InquireBench (`tasks_en.jsonl`, `tasks_zh.jsonl`, ...): one JSON object per line with `instruction`, `apps`,
  `category`, `language`, `need_login` and `intension` (read by `core.formats.inquire`). Task ids are
  `<file stem>-<index>` (`tasks_zh-007`).
- Our own: a `.txt` file with one instruction per line (`#` starts a comment), or a `.jsonl` / `.json` / `.yaml`
  list of objects of which only `instruction` is required:

      {"instruction": "Turn on Wi-Fi", "apps": ["Settings"], "intension": "...", "max_steps": 10, "id": "wifi-on",
       "category": "control", "language": "en", "needs_inquiry": false, "need_login": false}

Each task becomes an `EpisodeRef` of the `adb` backend: `id` and `task` the task id, `suite` the file's stem, `meta`
the intent (`intension`), `need_login` and the file it came from. A task without `max_steps` gets `DEFAULT_STEPS`.

A file is read by the project's reader (`core.reading`), and each task is checked field by field (an id of at most
`MAX_ID` characters, an instruction of at most `MAX_TEXT`, `max_steps` a whole number from 1 to `MAX_STEPS`); a bad
one is a `DataError` naming the file, the line or the task, and the field.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mobile_r1.core.errors import ConfigError, DataError
from mobile_r1.core.formats.inquire import load_inquire_tasks
from mobile_r1.core.reading import Where, read_document, read_json, read_jsonl, read_yaml
from mobile_r1.env.protocol import EpisodeRef

DEFAULT_STEPS = 20
MAX_STEPS = 1000  # a task's step budget
MAX_ID = 100  # characters of a task id (it names the episode's folder) or of an app name, a language, a category
MAX_TEXT = 10_000  # characters of an instruction or an intent
TASK_SUFFIXES = (".jsonl", ".json", ".txt", ".yaml", ".yml")
_KNOWN = {"id", "instruction", "apps", "category", "subcategory", "language", "need_login", "intension", "intent",
          "max_steps", "needs_inquiry"}


def is_task_file(suite: str | None) -> bool:
    return bool(suite) and (suite.lower().endswith(TASK_SUFFIXES) or Path(str(suite)).is_file())  # type: ignore[union-attr]


def _language(text: str) -> str:
    return "zh" if any("\u4e00" <= c <= "\u9fff" for c in text) else "en"


def _records(path: Path) -> list[tuple[Where, Any]]:
    """The task records of a file, each with where it is (its line in a .jsonl), read by the project's reader
    (`core.reading`: a regular file of UTF-8, values 64 levels deep, YAML aliases expanding to at most a million
    values, finite numbers), so a hostile file is a message, never a hang or a traceback."""
    suffix = path.suffix.lower()
    if suffix == ".txt":
        text = read_document(path)
        return [(Where(path, n), {"instruction": line.strip()}) for n, line in enumerate(text.splitlines(), 1)
                if line.strip() and not line.lstrip().startswith("#")]
    if suffix == ".jsonl":
        return list(read_jsonl(path))
    data = read_yaml(path) if suffix in (".yaml", ".yml") else read_json(path)
    if isinstance(data, dict) and isinstance(data.get("tasks"), list):
        data = data["tasks"]
    if not isinstance(data, list):
        raise DataError(f"{path}: a task file holds a list of tasks")
    return [(Where(path), record) for record in data]


def _inquirebench(records: list[tuple[Where, Any]]) -> bool:
    return bool(records) and all(isinstance(r, dict) and {"instruction", "apps", "category", "language", "need_login",
                                                          "intension"} <= set(r) for _, r in records)


def _text(record: dict[str, Any], key: str, where: str, most: int) -> str | None:
    """The record's `key` as text of at most `most` characters (None when absent)."""
    value = record.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        raise DataError(f"{where}: field '{key}' must be text, got {_shown(value)}")
    if len(value) > most:
        raise DataError(f"{where}: field '{key}' holds {len(value):,} characters; at most {most:,} are allowed")
    return value


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else f"{text[:40]}... ({len(text):,} characters)"


def load_task_file(path: str | Path) -> list[EpisodeRef]:
    """The tasks of a file as episodes of the `adb` backend (see the module docstring)."""
    path = Path(path)
    if not path.is_file():
        raise ConfigError(f"no task file {path}; pass --tasks FILE (InquireBench's tasks_*.jsonl, or one instruction "
                          "per line in a .txt)")
    records = _records(path)
    refs: list[EpisodeRef] = []
    if _inquirebench(records):
        for task in load_inquire_tasks(path):
            refs.append(EpisodeRef(
                id=task.id, instruction=task.instruction, task=task.id, backend="adb", split="test", seed=0,
                suite=path.stem, category=task.category, apps=tuple(task.apps), max_steps=DEFAULT_STEPS,
                needs_inquiry=None, language=task.language,
                meta={"intension": task.intent, "need_login": task.need_login, "source": str(path)}))
        return refs
    seen: set[str] = set()
    for index, (at, record) in enumerate(records):
        where = f"{at}: task {index + 1}" if at.line is None else str(at)
        if not isinstance(record, dict) or not isinstance(record.get("instruction"), str) or not record["instruction"].strip():
            raise DataError(f"{where}: needs an 'instruction' (text)")
        instruction = (_text(record, "instruction", where, MAX_TEXT) or "").strip()
        unknown = sorted(set(record) - _KNOWN)
        if unknown:
            raise DataError(f"{where}: unknown field {_shown(unknown[0])}; fields: {', '.join(sorted(_KNOWN))}")
        task_id = record.get("id")
        if isinstance(task_id, bool) or not isinstance(task_id, (str, int, type(None))):
            raise DataError(f"{where}: field 'id' must be text, got {_shown(task_id)}")
        task_id = str(task_id or f"{path.stem}-{index:03d}")
        if len(task_id) > MAX_ID:
            raise DataError(f"{where}: field 'id' holds {len(task_id):,} characters; at most {MAX_ID} are allowed "
                            "(it names the episode's folder)")
        if task_id in seen:
            raise DataError(f"{where}: the id {task_id!r} is used twice")
        seen.add(task_id)
        apps = record.get("apps") or []
        if isinstance(apps, str):
            apps = [apps]
        if not isinstance(apps, list) or not all(isinstance(a, str) and len(a) <= MAX_ID for a in apps):
            raise DataError(f"{where}: field 'apps' must be a list of app names, got {_shown(apps)}")
        max_steps = record.get("max_steps")
        if max_steps is None:
            max_steps = DEFAULT_STEPS
        if isinstance(max_steps, bool) or not isinstance(max_steps, int) or not 1 <= max_steps <= MAX_STEPS:
            raise DataError(f"{where}: field 'max_steps' must be a whole number from 1 to {MAX_STEPS}, "
                            f"got {_shown(max_steps)}")
        intent = _text(record, "intension", where, MAX_TEXT) or _text(record, "intent", where, MAX_TEXT)
        language = _text(record, "language", where, MAX_ID)
        for key in ("category", "subcategory"):
            _text(record, key, where, MAX_ID)
        for key in ("need_login", "needs_inquiry"):
            if record.get(key) is not None and not isinstance(record[key], bool):
                raise DataError(f"{where}: field '{key}' must be true or false, got {_shown(record[key])}")
        refs.append(EpisodeRef(
            id=task_id, instruction=instruction, task=task_id, backend="adb", split="test", seed=0, suite=path.stem,
            category=record.get("category"), subcategory=record.get("subcategory"),
            apps=tuple(apps), max_steps=max_steps, needs_inquiry=record.get("needs_inquiry"),
            language=language or _language(instruction),
            meta={"intension": intent or instruction, "need_login": bool(record.get("need_login", False)),
                  "source": str(path)}))
    if not refs:
        raise DataError(f"{path} holds no tasks")
    return refs


__all__ = ["load_task_file", "is_task_file", "DEFAULT_STEPS", "TASK_SUFFIXES"]
