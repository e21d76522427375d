"""Loaders for the InquireMobile release (BIT-AQH/InquireMobile): InquireBench tasks, SFT and GRPO records.

- Task files (`tasks_*.jsonl`): `instruction`, `apps`, `category` (privacy | combination | uncertainty |
  intension | risk), `language`, `need_login`, `intension` (the clarified intent), read into `InquireTask`.
- SFT records (`data/interactive_sft.jsonl`, `sft_pos.jsonl`; ShareGPT style): `{"conversations": [{"from":
  "system" | "human" | "gpt", "value": ...}], "images": [...]}`. The human turn holds `<image>` placeholders
  (previous and current screenshot, in `images` order) and the task after "用户任务:"; the gpt turn is
  `<think>...</think>\n<tool_call>\n{"name": "mobile_use", "arguments": {...}}\n</tool_call>`. Coordinates are
  in the image the model saw (pre-scaled by 0.3, then smart_resize) and the record does not say its size,
  so these episodes stay in the "model" frame unless `model_size` is given.
- GRPO records (`data/interactive_grpo*.jsonl`): one step each, `goal`, `action` (the label tool call as a
  JSON string, resized-frame coordinates), `bbox` (screen pixels, `[-1, -1, -1, -1]` for none), `width`,
  `height`, `resized_width`, `resized_height`, `img_list` (previous and current screenshot, current last),
  `system`, `query` (the user prompt with `<image>` placeholders). Actions are converted to the screen frame.

Consecutive step records of one trajectory (same task, and whose first image is the previous record's last)
are grouped into one episode.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mobile_r1.core.errors import ActionError
from mobile_r1.core.formats.jsonl import Where, iter_jsonl, parse_action, parse_box, require
from mobile_r1.core.formats.paths import DataRoots, resolve_data_path
from mobile_r1.core.geometry import Frame
from mobile_r1.core.records import Episode, Observation, Step

CATEGORIES = ("privacy", "combination", "uncertainty", "intension", "risk")
TASK_RE = re.compile(r"(?:用户任务|User task|Task)\s*[:：]\s*(.+)")
HISTORY_RE = re.compile(r"历史动作\s*[:：][ \t]*(.*)")


def between(text: str, start: str, end: str) -> list[str]:
    """Every text between `start` and the next `end` (non-overlapping, in order): what `re.findall(start(.*?)end, re.S)`
    finds, in one linear pass (the lazy pattern is quadratic on a flood of unclosed tags)."""
    out, pos = [], 0
    while True:
        i = text.find(start, pos)
        if i < 0:
            return out
        j = text.find(end, i + len(start))
        if j < 0:
            return out
        out.append(text[i + len(start) : j])
        pos = j + len(end)


@dataclass(slots=True)
class InquireTask:
    """One InquireBench online task: what the user says, which apps, why asking matters, the clarified intent."""

    instruction: str
    apps: list[str]
    category: str
    language: str
    need_login: bool
    intent: str
    id: str = ""
    meta: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The release's record (with its field name `intension`)."""
        return {
            "instruction": self.instruction,
            "apps": list(self.apps),
            "category": self.category,
            "language": self.language,
            "need_login": self.need_login,
            "intension": self.intent,
        }

    def to_episode(self) -> Episode:
        """An episode with no steps, carrying the task's instruction, apps, category, language and intent."""
        return Episode(
            id=self.id,
            instruction=self.instruction,
            apps=list(self.apps),
            category=self.category,
            intent=self.intent,
            language=self.language,
            meta={"source": "inquire-tasks", "need_login": self.need_login, **self.meta},
        )


def load_inquire_tasks(path: str | Path) -> list[InquireTask]:
    """Read an InquireBench task file (`tasks_en.jsonl`, `tasks_zh.jsonl`, ...)."""
    path = Path(path)
    tasks = []
    for where, record in iter_jsonl(path):
        apps = require(record, "apps", where, list)
        if not all(isinstance(a, str) for a in apps):
            raise where.error("apps", f"must be a list of app names, got {apps!r}")
        category = require(record, "category", where, str)
        if category not in CATEGORIES:
            raise where.error("category", f"must be one of {', '.join(CATEGORIES)}; got {category!r}")
        tasks.append(
            InquireTask(
                instruction=require(record, "instruction", where, str),
                apps=list(apps),
                category=category,
                language=require(record, "language", where, str),
                need_login=require(record, "need_login", where, bool),
                intent=require(record, "intension", where, str),
                id=f"{path.stem}-{len(tasks):03d}",
            )
        )
    return tasks


# ----- step records ---------------------------------------------------------------------------------------
def _language(text: str) -> str:
    return "zh" if any("\u4e00" <= c <= "\u9fff" for c in text) else "en"


def _task_from_prompt(prompt: str) -> str:
    found = TASK_RE.search(prompt)
    return found.group(1).strip() if found else prompt.replace("<image>", "").strip()


def _history_from_prompt(prompt: str) -> str | None:
    found = HISTORY_RE.search(prompt)
    return found.group(1).strip() if found else None


def _continues(episode: Episode | None, instruction: str, images: list[str]) -> bool:
    """Whether a step record continues `episode`: same task, and its first image is the last one seen."""
    if episode is None or episode.instruction != instruction or len(images) < 2 or not episode.steps:
        return False
    return episode.steps[-1].info.get("images", [None])[-1] == images[0]


def _images(record: dict[str, Any], key: str, where: Where) -> list[str]:
    images = record.get(key) or []
    if not isinstance(images, list) or not all(isinstance(i, str) for i in images):
        raise where.error(key, f"must be a list of image paths, got {images!r}")
    return images


def load_inquire_sft(path: str | Path, *, model_size: tuple[int, int] | None = None,
                     image_root: str | Path | None = None, images: bool = True) -> list[Episode]:
    """Read InquireMobile SFT records (ShareGPT `conversations` + `images`) into episodes.

    Without `model_size` the steps carry no observation (the image size is unknown) and the screenshot
    paths are kept in `step.info["images"]`; with it, each step's observation is the last image at that size,
    its path resolved inside the file's folder (or `image_root`; see `core.formats.paths`); `images=False` leaves
    the paths unread (statistics).
    """
    path = Path(path)
    roots = DataRoots.beside(path, None, image_root) if images else None
    episodes: list[Episode] = []
    for where, record in iter_jsonl(path):
        turns = require(record, "conversations", where, list)
        images = _images(record, "images", where)
        system, prompt = "", ""
        steps: list[Step] = []
        for index, turn in enumerate(turns):
            name = f"conversations[{index}]"
            if not isinstance(turn, dict) or not isinstance(turn.get("value"), str):
                raise where.error(name, "each turn must be an object with 'from' and a string 'value'")
            role = turn.get("from")
            if role == "system":
                system = turn["value"]
            elif role in ("human", "user"):
                prompt = turn["value"]
            elif role in ("gpt", "assistant"):
                steps.append(_sft_step(turn["value"], prompt, images, where, f"{name}.value", model_size, roots))
            else:
                raise where.error(f"{name}.from", f"must be system, human or gpt; got {role!r}")
        if not steps:
            raise where.error("conversations", "has no gpt turn holding the labelled action")
        instruction = _task_from_prompt(prompt)
        current = episodes[-1] if episodes else None
        if len(steps) == 1 and _continues(current, instruction, images):
            current.steps.extend(steps)  # type: ignore[union-attr]
            continue
        episodes.append(
            Episode(
                id=f"{path.stem}-{where.line}",
                instruction=instruction,
                steps=steps,
                frame="model",
                model_size=model_size,
                language=_language(instruction),
                meta={"source": "inquire-sft", "line": where.line, "system": system},
            )
        )
    return episodes


def _sft_step(
    text: str, prompt: str, images: list[str], where: Where, field_name: str, model_size: tuple[int, int] | None,
    roots: DataRoots | None,
) -> Step:
    calls = between(text, "<tool_call>", "</tool_call>")
    if not calls:
        raise where.error(field_name, "no <tool_call>...</tool_call> block with the labelled action")
    action = parse_action(calls[0].strip(), where, field_name)
    thoughts, descriptions = between(text, "<think>", "</think>"), between(text, "<action>", "</action>")
    info: dict[str, Any] = {"images": images, "prompt": prompt}
    history = _history_from_prompt(prompt)
    if history is not None:
        info["history"] = history
    observation = None
    if model_size is not None and images:
        shot = resolve_data_path(images[-1], roots, where, f"images[{len(images) - 1}]") if roots else None
        observation = Observation(screen_size=model_size, screenshot_path=str(shot) if shot else None)
    return Step(
        action=action,
        thought=thoughts[0].strip() if thoughts else "",
        description=descriptions[0].strip() if descriptions else "",
        observation=observation,
        model_text=text,
        info=info,
    )


def load_inquire_grpo(path: str | Path, *, image_root: str | Path | None = None, images: bool = True) -> list[Episode]:
    """Read InquireMobile GRPO records (one labelled step each) into episodes in the screen frame.

    The current screenshot (`img_list`'s last entry) is resolved inside the file's folder (or `image_root`; see
    `core.formats.paths`; `images=False` leaves it unread); the whole list is kept as written in `step.info["images"]`.
    """
    path = Path(path)
    roots = DataRoots.beside(path, None, image_root) if images else None
    episodes: list[Episode] = []
    for where, record in iter_jsonl(path):
        goal = require(record, "goal", where, str)
        width, height = require(record, "width", where, int), require(record, "height", where, int)
        rw, rh = require(record, "resized_width", where, int), require(record, "resized_height", where, int)
        for key, value in (("width", width), ("height", height), ("resized_width", rw), ("resized_height", rh)):
            if value <= 0:
                raise where.error(key, f"must be positive, got {value}")
        screen, model = Frame.screen(width, height), Frame(rw, rh)
        action = parse_action(require(record, "action", where, (str, dict)), where, "action")
        try:
            action = action.map_points(lambda p: model.map(p, screen))
        except ActionError as exc:  # pragma: no cover - map() only fails on a bad frame
            raise where.error("action", str(exc)) from None
        images = _images(record, "img_list", where)
        query = str(record.get("query") or "")
        info: dict[str, Any] = {"images": images, "prompt": query}
        history = _history_from_prompt(query)
        if history is not None:
            info["history"] = history
        step = Step(
            action=action,
            observation=Observation(screen_size=(width, height), screenshot_path=str(
                resolve_data_path(images[-1], roots, where, f"img_list[{len(images) - 1}]")) if images and roots else None),
            bbox=parse_box(record.get("bbox"), where, "bbox"),
            info=info,
        )
        current = episodes[-1] if episodes else None
        if _continues(current, goal, images) and current.screen_size == (width, height):  # type: ignore[union-attr]
            current.steps.append(step)  # type: ignore[union-attr]
            continue
        episodes.append(
            Episode(
                id=f"{path.stem}-{where.line}",
                instruction=goal,
                steps=[step],
                screen_size=(width, height),
                frame="screen",
                model_size=(rw, rh),
                language=_language(goal),
                meta={"source": "inquire-grpo", "line": where.line, "system": str(record.get("system") or "")},
            )
        )
    return episodes
