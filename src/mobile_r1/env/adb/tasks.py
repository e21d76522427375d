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
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from mobile_r1.core.errors import ConfigError, DataError
from mobile_r1.core.formats.inquire import load_inquire_tasks
from mobile_r1.env.protocol import EpisodeRef

DEFAULT_STEPS = 20
TASK_SUFFIXES = (".jsonl", ".json", ".txt", ".yaml", ".yml")
_KNOWN = {"id", "instruction", "apps", "category", "subcategory", "language", "need_login", "intension", "intent",
          "max_steps", "needs_inquiry"}


def is_task_file(suite: str | None) -> bool:
    return bool(suite) and (suite.lower().endswith(TASK_SUFFIXES) or Path(str(suite)).is_file())  # type: ignore[union-attr]


def _language(text: str) -> str:
    return "zh" if any("\u4e00" <= c <= "\u9fff" for c in text) else "en"


def _records(path: Path) -> list[dict[str, Any]]:
    text = path.read_text(encoding="utf-8")
    suffix = path.suffix.lower()
    if suffix == ".txt":
        return [{"instruction": line.strip()} for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    if suffix in (".yaml", ".yml"):
        import yaml

        data = yaml.safe_load(text)
    elif suffix == ".json":
        data = json.loads(text)
    else:
        data = []
        for n, line in enumerate(text.splitlines(), 1):
            if line.strip():
                try:
                    data.append(json.loads(line))
                except json.JSONDecodeError as exc:
                    raise DataError(f"{path}:{n}: not JSON ({exc.msg})") from None
    if isinstance(data, dict) and isinstance(data.get("tasks"), list):
        data = data["tasks"]
    if not isinstance(data, list):
        raise DataError(f"{path}: a task file holds a list of tasks")
    return data


def _inquirebench(records: list[dict[str, Any]]) -> bool:
    return bool(records) and all(isinstance(r, dict) and {"instruction", "apps", "category", "language", "need_login",
                                                          "intension"} <= set(r) for r in records)


def load_task_file(path: str | Path) -> list[EpisodeRef]:
    """The tasks of a file as episodes of the `adb` backend (see the module docstring)."""
    path = Path(path)
    if not path.is_file():
        raise ConfigError(f"no task file {path}; pass --tasks FILE (InquireBench's tasks_*.jsonl, or one instruction "
                          "per line in a .txt)")
    try:
        records = _records(path)
    except (json.JSONDecodeError, ValueError) as exc:
        raise DataError(f"{path}: {exc}") from None
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
    for index, record in enumerate(records):
        where = f"{path}: task {index + 1}"
        if not isinstance(record, dict) or not isinstance(record.get("instruction"), str) or not record["instruction"].strip():
            raise DataError(f"{where}: needs an 'instruction' (text)")
        unknown = sorted(set(record) - _KNOWN)
        if unknown:
            raise DataError(f"{where}: unknown field {unknown[0]!r}; fields: {', '.join(sorted(_KNOWN))}")
        instruction = record["instruction"].strip()
        task_id = str(record.get("id") or f"{path.stem}-{index:03d}")
        if task_id in seen:
            raise DataError(f"{where}: the id {task_id!r} is used twice")
        seen.add(task_id)
        apps = record.get("apps") or []
        if isinstance(apps, str):
            apps = [apps]
        intent = record.get("intension", record.get("intent"))
        try:
            refs.append(EpisodeRef(
                id=task_id, instruction=instruction, task=task_id, backend="adb", split="test", seed=0, suite=path.stem,
                category=record.get("category"), subcategory=record.get("subcategory"),
                apps=tuple(str(a) for a in apps), max_steps=int(record.get("max_steps") or DEFAULT_STEPS),
                needs_inquiry=record.get("needs_inquiry"), language=str(record.get("language") or _language(instruction)),
                meta={"intension": str(intent) if intent else instruction, "need_login": bool(record.get("need_login", False)),
                      "source": str(path)}))
        except (TypeError, ValueError) as exc:
            raise DataError(f"{where}: {exc}") from None
    if not refs:
        raise DataError(f"{path} holds no tasks")
    return refs


__all__ = ["load_task_file", "is_task_file", "DEFAULT_STEPS", "TASK_SUFFIXES"]
