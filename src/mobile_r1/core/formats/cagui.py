"""Loader for CAGUI, the Chinese-app GUI agent benchmark of AgentCPM-GUI (OpenBMB): one JSON per episode.

Layout (OpenBMB/AgentCPM-GUI `eval/run_eval_agent.py`, `eval/utils/evaluator.py` and the converters in
`eval/eval_data/`, read for this loader): `<split>/<subset>/<episode>/<episode>.json` (the Chinese-app subset is
`domestic`), each file a JSON list of steps. A step holds `episode_id`, `step_id`, `instruction`, `image_path`
(relative to the split folder: `<subset>/<episode>/<file>`), `image_width` / `image_height`, `ui_positions` (the
screen's element boxes, normalised `[[y, x, h, w], ...]`), `result_action_type` (an integer code),
`result_action_text`, `result_touch_yx` / `result_lift_yx` (normalised, **y before x**; `[-1, -1]` when there is no
touch) and `duration` (milliseconds). The list-valued fields may be JSON text (`"[0.5, 0.3]"`), as the converters
write them.

Action codes (AgentCPM-GUI `eval/utils/action_type.py`, AITW's plus two): LONG_POINT 0 -> `long_press` at the touch
point (`time` = duration / 1000); NO_ACTION 1 -> `wait` (`time` = duration / 1000); TYPE 3 -> `type`; DUAL_POINT 4 ->
a `click` at the touch point when touch and lift lie within 0.04 of each other (normalised (y, x) distance, the
evaluator's `is_tap_action`), else a `swipe` from touch to lift (the finger's motion, as our `swipe`); PRESS_BACK 5,
PRESS_HOME 6, PRESS_ENTER 7 -> `system_button`; STATUS_TASK_COMPLETE 10 / STATUS_TASK_IMPOSSIBLE 11 -> `terminate`
success / failure.

Coordinates become pixels of the `image_width` x `image_height` screen; the `ui_positions` boxes become the step's
elements, and a tap's `bbox` is the smallest of them that holds the touch point. Screenshot paths are tried against
the split folder, then the folders above the episode file, and stay inside the folder given (or `--image-root`; see
`core.formats.paths`). The matcher for CAGUI is `cagui` (`core.matching.CaguiMatcher`), the evaluator's own rules.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from mobile_r1.core.actions import Action
from mobile_r1.core.errors import ActionError, DataError
from mobile_r1.core.formats.a11y import smallest_box_at
from mobile_r1.core.formats.paths import DataRoots, resolve_data_path
from mobile_r1.core.records import Episode, Observation, Step, UIElement

FORMAT = "cagui"
MATCHER = "cagui"
TAP_DISTANCE = 0.04  # evaluator.py _SWIPE_DISTANCE_THRESHOLD
LONG_POINT, NO_ACTION, TYPE, DUAL_POINT, PRESS_BACK, PRESS_HOME, PRESS_ENTER, COMPLETE, IMPOSSIBLE = (
    0, 1, 3, 4, 5, 6, 7, 10, 11)
_BUTTONS = {PRESS_BACK: "Back", PRESS_HOME: "Home", PRESS_ENTER: "Enter"}


def looks_like_cagui(value: Any) -> bool:
    """Whether a JSON document is a CAGUI episode: a list of steps holding `result_action_type`."""
    return (isinstance(value, list) and bool(value) and isinstance(value[0], dict)
            and "result_action_type" in value[0] and "episode_id" in value[0])


def episode_files(folder: Path) -> list[Path]:
    """The episode files under `folder`: `<episode>/<episode>.json` at any depth, in path order."""
    return sorted(p for p in folder.rglob("*.json") if p.is_file() and p.stem == p.parent.name)


def _field(step: dict[str, Any], key: str, place: str, kind: type | tuple[type, ...]) -> Any:
    value = step.get(key)
    if value is None:
        raise DataError(f"{place}: field '{key}': missing")
    if not isinstance(value, kind) or isinstance(value, bool):
        raise DataError(f"{place}: field '{key}': has the wrong type ({type(value).__name__})")
    return value


def _numbers(step: dict[str, Any], key: str, place: str, default: Any = None) -> list[Any]:
    """A list-valued field, given as a list or as JSON text."""
    value = step.get(key, default)
    if isinstance(value, str):
        if not value.strip():
            return []
        try:
            value = json.loads(value)
        except (ValueError, RecursionError):
            raise DataError(f"{place}: field '{key}': not JSON: {value[:80]!r}") from None
    if value is None:
        return []
    if not isinstance(value, list):
        raise DataError(f"{place}: field '{key}': must be a list, got {type(value).__name__}")
    return value


def _yx(step: dict[str, Any], key: str, place: str) -> tuple[float, float]:
    value = _numbers(step, key, place)
    if (len(value) != 2 or not all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)
                                   for v in value)):
        raise DataError(f"{place}: field '{key}': must be [y, x], got {value!r}")
    return float(value[0]), float(value[1])


def _pixels(yx: tuple[float, float], size: tuple[int, int], key: str, place: str) -> tuple[int, int]:
    if yx == (-1.0, -1.0):
        raise DataError(f"{place}: field '{key}': this action needs a touch point, got [-1, -1]")
    return round(yx[1] * size[0]), round(yx[0] * size[1])


def _elements(step: dict[str, Any], size: tuple[int, int], place: str) -> list[UIElement]:
    boxes = _numbers(step, "ui_positions", place, [])
    elements = []
    for i, box in enumerate(boxes):
        if (not isinstance(box, list) or len(box) != 4
                or not all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in box)):
            raise DataError(f"{place}: field 'ui_positions[{i}]': must be [y, x, h, w], got {box!r}")
        y, x, h, w = box
        elements.append(UIElement(id=i, class_name="ui", bounds=(round(x * size[0]), round(y * size[1]),
                                                                  round((x + w) * size[0]), round((y + h) * size[1]))))
    return elements


def _seconds(step: dict[str, Any], place: str) -> float | None:
    duration = step.get("duration")
    if duration in (None, ""):
        return None
    if isinstance(duration, str):
        try:
            duration = float(duration)
        except ValueError:
            raise DataError(f"{place}: field 'duration': must be milliseconds, got {duration!r}") from None
    if isinstance(duration, bool) or not isinstance(duration, (int, float)) or not math.isfinite(duration) \
            or duration < 0:
        raise DataError(f"{place}: field 'duration': must be milliseconds >= 0, got {duration!r}")
    return duration / 1000 if duration > 0 else None


def _action(step: dict[str, Any], size: tuple[int, int], place: str) -> Action:
    code = step.get("result_action_type")
    if isinstance(code, str) and code.strip().lstrip("-").isdigit():
        code = int(code)
    if not isinstance(code, int) or isinstance(code, bool):
        raise DataError(f"{place}: field 'result_action_type': must be an integer code, got {code!r}")
    try:
        if code == DUAL_POINT:
            touch, lift = _yx(step, "result_touch_yx", place), _yx(step, "result_lift_yx", place)
            start = _pixels(touch, size, "result_touch_yx", place)
            if math.dist(touch, lift) <= TAP_DISTANCE:
                return Action.click(*start)
            return Action.swipe(*start, *_pixels(lift, size, "result_lift_yx", place))
        if code == LONG_POINT:
            point = _pixels(_yx(step, "result_touch_yx", place), size, "result_touch_yx", place)
            return Action.long_press(*point, time=_seconds(step, place))
        if code == TYPE:
            return Action.type_text(str(step.get("result_action_text") or ""))
        if code in _BUTTONS:
            return Action.system_button(_BUTTONS[code])
        if code == COMPLETE:
            return Action.terminate("success")
        if code == IMPOSSIBLE:
            return Action.terminate("failure")
        if code == NO_ACTION:
            return Action.wait(_seconds(step, place))
    except ActionError as exc:
        raise DataError(f"{place}: {exc}") from None
    raise DataError(f"{place}: field 'result_action_type': {code} is not a CAGUI action (0, 1, 3, 4, 5, 6, 7, 10, 11)")


def _roots(file: Path, image: str, allowed: Path, image_root: Path | None) -> DataRoots:
    """Relative screenshot paths start at the split folder (`<split>/<subset>/<episode>/<episode>.json`), or at the
    nearest folder above the episode file where the path names a file."""
    bases = [file.parents[k] for k in (2, 0, 1, 3) if k < len(file.parents)]
    base = next((b for b in bases if (b / image).is_file()), bases[0])
    return DataRoots(base=base, allowed=(allowed,), image_root=image_root)


def _episode(file: Path, allowed: Path, image_root: Path | None, images: bool) -> Episode:
    from mobile_r1.core.reading import read_json

    document = read_json(file)
    if not looks_like_cagui(document):
        raise DataError(f"{file}: a CAGUI episode is a JSON list of steps with episode_id and result_action_type")
    steps: list[tuple[int, Step]] = []
    first: dict[str, Any] = document[0]
    for index, raw in enumerate(document):
        place = f"{file}: [{index}]"
        if not isinstance(raw, dict):
            raise DataError(f"{place}: each step must be an object")
        width, height = _field(raw, "image_width", place, int), _field(raw, "image_height", place, int)
        if width <= 0 or height <= 0:
            raise DataError(f"{place}: field 'image_width': screen size must be positive, got {width}x{height}")
        size = (width, height)
        elements = _elements(raw, size, place)
        action = _action(raw, size, place)
        shot = raw.get("image_path")
        resolved = None
        if images and shot:
            if not isinstance(shot, str):
                raise DataError(f"{place}: field 'image_path': must be a file name, got {shot!r}")
            resolved = str(resolve_data_path(shot, _roots(file, shot, allowed, image_root), place, "image_path"))
        bbox = (smallest_box_at(elements, action.coordinate)
                if action.coordinate is not None and action.type.value in ("click", "long_press") else None)
        step_id = raw.get("step_id", index)
        try:
            order = int(step_id)
        except (TypeError, ValueError):
            raise DataError(f"{place}: field 'step_id': must be a whole number, got {step_id!r}") from None
        steps.append((order, Step(action=action, bbox=bbox, observation=Observation(
            screen_size=size, elements=elements, screenshot_path=resolved))))
    steps.sort(key=lambda s: s[0])
    instruction = str(_field(first, "instruction", f"{file}: [0]", str))
    subset = first.get("subset") or (str(first.get("image_path") or "").split("/")[0] or None)
    episode_id = str(_field(first, "episode_id", f"{file}: [0]", (str, int)))
    return Episode(
        id=f"{subset}-{episode_id}" if subset and subset != episode_id else episode_id,
        instruction=instruction,
        steps=[s for _, s in steps],
        screen_size=steps[0][1].observation.screen_size if steps and steps[0][1].observation else None,
        language="zh" if any("\u4e00" <= c <= "\u9fff" for c in instruction) else "en",
        meta={"source": FORMAT, "matcher": MATCHER, "subset": subset, "episode_id": episode_id},
    )


def load_cagui(path: str | Path, *, images: bool = True, image_root: str | Path | None = None) -> list[Episode]:
    """Read CAGUI episodes: a split, subset or episode folder (every `<episode>/<episode>.json` below it), or one file."""
    path = Path(path)
    root = Path(image_root) if image_root is not None else None
    if path.is_dir():
        files = episode_files(path)
        if not files:
            raise DataError(f"{path}: holds no CAGUI episode (<episode>/<episode>.json)")
        return [_episode(f, path, root, images) for f in files]
    if not path.is_file():
        raise DataError(f"{path}: no such file or folder")
    return [_episode(path, path.parent, root, images)]


__all__ = ["FORMAT", "MATCHER", "episode_files", "load_cagui", "looks_like_cagui"]
