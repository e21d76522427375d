"""Loader for Mobile-R1 trajectory records (FORMATS section 5; the PG23/Mobile-R1 `data.jsonl` release).

One JSON object per trajectory: `app_name`, `instruction`, `image_width`/`image_height` (the screen),
`resized_width`/`resized_height` (the image the model saw; computed with Qwen2.5-VL `smart_resize` when
absent), optional `system`, and `trajectory`, a list of steps with `action` (a `mobile_use` tool call, as a
JSON string or object, coordinates in the resized frame), `bbox` (target box in screen pixels), `thought`,
`subtask` (the one-line step), `image_name` or `image` (the screenshot file) and optionally `response` (the
full model output). Actions are converted into the screen frame; the model size is kept on the episode.
Action names are read case-insensitively, and "tap" is read as "click" (the dataset card names it so).

The release as its dataset card describes it (huggingface.co/datasets/PG23/Mobile-R1, README "Dataset Structure" and
"Data Fields", read for this loader): `images/` (all the screenshots) and `data.jsonl`, one trajectory per line with
`app_name`, `trajectory_length`, `instruction`, `system`, `image_width`, `image_height` ("width of the device
screen at the time of screenshot capture, used for coordinate alignment") and `trajectory`, whose steps hold `image`
(the PNG's file name in `images/`), `thought`, `subtask`, `action` (a JSON string `{"name": "mobile_use",
"arguments": {"action": "Tap" | "Type" | "Terminate" | ..., ...}}`) and `response` (the full `<think>` /
`<action>` / `<tool_call>` text). `trajectory_length` is not needed (the list's length); a disagreement is not an
error. Screenshot names must stay inside the dataset's folder (`core.formats.paths`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from mobile_r1.core.errors import ActionError
from mobile_r1.core.formats.jsonl import Where, iter_jsonl, parse_action, parse_box, require
from mobile_r1.core.formats.paths import DataRoots, resolve_data_path
from mobile_r1.core.geometry import Frame
from mobile_r1.core.records import Episode, Observation, Step

FORMAT = "mobile-r1"


def load_mobile_r1(path: str | Path, *, image_root: str | Path | None = None, images: bool = True) -> list[Episode]:
    """Read a Mobile-R1 `data.jsonl`; screenshot names are joined to `images/` beside it (or to `image_root`).

    Screenshot paths must stay inside the dataset's folder (or `image_root`): see `core.formats.paths`.
    `images=False` (statistics) leaves them out unread.
    """
    path = Path(path)
    roots = DataRoots.beside(path, "images", image_root)
    return [_episode(record, where, roots if images else None) for where, record in iter_jsonl(path)]


ALIASES = {"tap": "click", "longpress": "long_press", "long press": "long_press"}


def _normalise(value: Any) -> Any:
    """The tool call with its action name lower-cased and aliased; anything unreadable is passed on unchanged."""
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except json.JSONDecodeError:
            return value
    if not isinstance(value, dict):
        return value
    arguments = value.get("arguments", value) if "action" not in value else value
    if isinstance(arguments, dict) and isinstance(arguments.get("action"), str):
        name = arguments["action"].strip().lower()
        arguments = {**arguments, "action": ALIASES.get(name, name)}
    return arguments


def _episode(record: dict[str, Any], where: Where, roots: DataRoots | None) -> Episode:
    instruction = require(record, "instruction", where, str)
    width = require(record, "image_width", where, int)
    height = require(record, "image_height", where, int)
    if width <= 0 or height <= 0:
        raise where.error("image_width", f"screen size must be positive, got {width}x{height}")
    screen = Frame.screen(width, height)
    if record.get("resized_width") is not None or record.get("resized_height") is not None:
        model = Frame(require(record, "resized_width", where, int), require(record, "resized_height", where, int))
    else:
        model = Frame.qwen(width, height)
    trajectory = require(record, "trajectory", where, list)
    app = record.get("app_name")
    steps = []
    for index, raw in enumerate(trajectory):
        field = f"trajectory[{index}]"
        if not isinstance(raw, dict):
            raise where.error(field, f"each step must be an object, got {type(raw).__name__}")
        if raw.get("action") is None:
            raise where.error(f"{field}.action", "missing")
        action = parse_action(_normalise(raw["action"]), where, f"{field}.action")
        try:
            action = action.map_points(lambda p: model.map(p, screen))
        except ActionError as exc:  # pragma: no cover - map() only fails on a bad frame
            raise where.error(f"{field}.action", str(exc)) from None
        key = "image_name" if raw.get("image_name") is not None else "image"
        image = raw.get(key)
        shot = str(resolve_data_path(image, roots, where, f"{field}.{key}")) if image and roots else None
        steps.append(
            Step(
                action=action,
                thought=str(raw.get("thought") or ""),
                description=str(raw.get("subtask") or ""),
                observation=Observation(
                    screen_size=(width, height),
                    screenshot_path=shot,
                    app=app,
                ),
                bbox=parse_box(raw.get("bbox"), where, f"{field}.bbox"),
                model_text=raw.get("response"),
            )
        )
    meta: dict[str, Any] = {"source": FORMAT, "line": where.line}
    if record.get("system"):
        meta["system"] = record["system"]
    return Episode(
        id=str(record.get("id") or f"{where.path.stem}-{where.line}"),
        instruction=instruction,
        steps=steps,
        apps=[app] if app else [],
        screen_size=(width, height),
        frame="screen",
        model_size=(int(model.width), int(model.height)),
        language="zh" if any("\u4e00" <= c <= "\u9fff" for c in instruction) else "en",
        meta=meta,
    )
