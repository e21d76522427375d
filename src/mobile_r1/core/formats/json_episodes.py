"""Loaders for the datasets stored as one JSON file per episode: GUI-Odyssey and AMEX.

GUI-Odyssey (OpenGVLab/GUI-Odyssey `introduction.md` "Data Fields" and `data/format_converter.py`, read for this
loader): a dataset folder with `annotations/<episode_id>.json` and `screenshots/`. An annotation holds `episode_id`,
`device_info` {`h`, `w`, `device_name`, ...}, `task_info` {`category`, `app` (list), `meta_task`, `task`,
`instruction`}, `step_length` and `steps` [{`step`, `screenshot` (file name in `screenshots/`), `action`, `info`,
`ps`}]. Coordinates are on a 0-1000 grid of the device screen (`w` x `h`). Actions: `CLICK` / `LONG_PRESS` with
`info` [[x, y]] (or, for CLICK, the keys "KEY_HOME", "KEY_BACK", "KEY_APPSELECT"), `SCROLL` with `info`
[[x1, y1], [x2, y2]], `TYPE` / `TEXT` with the text in `info`, `COMPLETE`, `IMPOSSIBLE` / `INCOMPLETE`, `HOME`,
`BACK`. Scroll convention: `info` is the finger's start and end (the converter names the direction after the
finger: "SCROLL: UP" when y decreases), so our `swipe` is that segment in screen pixels, unchanged. KEY_APPSELECT
(the recent-apps key) becomes the `Menu` button. The matcher the field uses for GUI-Odyssey is `aitw`.

AMEX (the Yuxiang007/AMEX dataset card: `instruction_anno/` "instructions with GUI-action chains stored in json
files", `element_anno/`, `screenshot/`; field names as the public converters of AMEX read them): an instruction file
holds `instruction` (the goal), optionally `episode_id` / `app`, and `steps` [{`step_id`, `image_path` (file name in
`screenshot/`), `action` (TAP, SWIPE, TYPE, PRESS_BACK, PRESS_HOME, PRESS_ENTER, TASK_COMPLETE, TASK_IMPOSSIBLE),
`touch_coord` [x, y], `lift_coord` [x, y], `type_text`, `device_dim` [w, h]}]. Coordinates are pixels of
`device_dim`. Scroll convention: touch -> lift is the finger's motion (as in AITW), kept as our `swipe`. Element
annotations (`element_anno/`) are not read. The matcher used here for AMEX is `aitw`.

Screenshot names must stay inside the dataset's folder (`core.formats.paths`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mobile_r1.core.actions import Action
from mobile_r1.core.errors import ActionError, DataError
from mobile_r1.core.formats.paths import DataRoots, resolve_data_path
from mobile_r1.core.geometry import Frame
from mobile_r1.core.records import Episode, Observation, Step

ODYSSEY = "gui-odyssey"
AMEX = "amex"
MATCHERS = {ODYSSEY: "aitw", AMEX: "aitw"}
_GRID = Frame(1000, 1000)


def read_json(path: Path) -> dict[str, Any]:
    """A JSON file holding one object (read through the shared reading path: encoding, size, depth and numbers)."""
    from mobile_r1.core.reading import read_json as read_document_json

    record = read_document_json(path)
    if not isinstance(record, dict):
        raise DataError(f"{path}: must hold one JSON object (an episode), got {type(record).__name__}")
    return record


def _need(record: dict[str, Any], key: str, place: str, kind: type | tuple[type, ...]) -> Any:
    value = record.get(key)
    if value is None:
        raise DataError(f"{place}: field '{key}': missing")
    if not isinstance(value, kind) or isinstance(value, bool):
        raise DataError(f"{place}: field '{key}': has the wrong type ({type(value).__name__})")
    return value


def _pair(value: Any, place: str, field: str) -> tuple[float, float]:
    if (not isinstance(value, (list, tuple)) or len(value) != 2
            or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in value)):
        raise DataError(f"{place}: field '{field}': must be [x, y], got {value!r}")
    return float(value[0]), float(value[1])


def _files(path: Path, folder: str) -> tuple[Path, list[Path]]:
    """(dataset root, episode files) for a dataset folder (holding `folder`/) or a single episode file."""
    if path.is_dir():
        annotations = path / folder
        if not annotations.is_dir():
            raise DataError(f"{path}: a {folder}/ folder is expected here (or give one .json file)")
        files = sorted(p for p in annotations.rglob("*.json") if p.is_file())
        if not files:
            raise DataError(f"{annotations}: holds no .json episode file")
        return path, files
    if not path.is_file():
        raise DataError(f"{path}: no such file or folder")
    parents = [p for p in path.parents if p.name == folder]
    return (parents[0].parent if parents else path.parent), [path]


# ----- GUI-Odyssey ------------------------------------------------------------------------------------------------
def _odyssey_action(action: str, info: Any, screen: Frame, place: str) -> Action:
    name = action.strip().upper()
    if name in ("CLICK", "LONG_PRESS"):
        if info == "KEY_HOME":
            return Action.home()
        if info == "KEY_BACK":
            return Action.back()
        if info == "KEY_APPSELECT":
            return Action.system_button("Menu")
        if not isinstance(info, list) or not info:
            raise DataError(f"{place}: field 'info': a {name} needs [[x, y]] or a KEY_ name, got {info!r}")
        point = _GRID.map(_pair(info[0], place, "info[0]"), screen)
        return Action.click(*point) if name == "CLICK" else Action.long_press(*point)
    if name == "SCROLL":
        if not isinstance(info, list) or len(info) != 2:
            raise DataError(f"{place}: field 'info': a SCROLL needs [[x1, y1], [x2, y2]], got {info!r}")
        start = _GRID.map(_pair(info[0], place, "info[0]"), screen)
        end = _GRID.map(_pair(info[1], place, "info[1]"), screen)
        return Action.swipe(*start, *end)
    if name in ("TYPE", "TEXT"):
        if not isinstance(info, str):
            raise DataError(f"{place}: field 'info': a {name} needs the text, got {info!r}")
        return Action.type_text(info)
    if name == "COMPLETE":
        return Action.terminate("success")
    if name in ("IMPOSSIBLE", "INCOMPLETE"):
        return Action.terminate("failure")
    if name == "HOME":
        return Action.home()
    if name == "BACK":
        return Action.back()
    raise DataError(f"{place}: field 'action': {action!r} is not a GUI-Odyssey action")


def _odyssey_episode(path: Path, roots: DataRoots, images: bool) -> Episode:
    record = read_json(path)
    place = str(path)
    device = _need(record, "device_info", place, dict)
    task = _need(record, "task_info", place, dict)
    width, height = int(_need(device, "w", f"{place}: device_info", int)), int(_need(device, "h", f"{place}: device_info", int))
    if width <= 0 or height <= 0:
        raise DataError(f"{place}: field 'device_info': screen size must be positive, got {width}x{height}")
    screen = Frame.screen(width, height)
    steps = []
    for i, raw in enumerate(_need(record, "steps", place, list)):
        where = f"{place}: steps[{i}]"
        if not isinstance(raw, dict):
            raise DataError(f"{where}: each step must be an object")
        action = _odyssey_action(str(_need(raw, "action", where, str)), raw.get("info"), screen, where)
        shot = raw.get("screenshot")
        resolved = str(resolve_data_path(shot, roots, place, f"steps[{i}].screenshot")) if shot and images else None
        steps.append(Step(action=action, description=str(raw.get("ps") or "") if action.type.value == "terminate" else "",
                          observation=Observation(screen_size=(width, height), screenshot_path=resolved)))
    apps = task.get("app") or []
    return Episode(
        id=str(record.get("episode_id") or path.stem), instruction=str(_need(task, "instruction", f"{place}: task_info", str)),
        steps=steps, apps=[str(a) for a in apps] if isinstance(apps, list) else [str(apps)],
        screen_size=(width, height), category=task.get("category"), language="en",
        meta={"source": ODYSSEY, "matcher": MATCHERS[ODYSSEY], "task": task.get("task"), "meta_task": task.get("meta_task"),
              "device": device.get("device_name")},
    )


def load_gui_odyssey(path: str | Path, *, images: bool = True, image_root: str | Path | None = None) -> list[Episode]:
    """Read GUI-Odyssey: the dataset folder (annotations/ + screenshots/) or one annotation file."""
    root, files = _files(Path(path), "annotations")
    roots = DataRoots(base=root / "screenshots", allowed=(root,), image_root=Path(image_root) if image_root else None)
    return [_odyssey_episode(f, roots, images) for f in files]


# ----- AMEX -------------------------------------------------------------------------------------------------------
_AMEX_BUTTONS = {"PRESS_BACK": "Back", "PRESS_HOME": "Home", "PRESS_ENTER": "Enter"}


def _amex_action(raw: dict[str, Any], place: str) -> Action:
    name = str(_need(raw, "action", place, str)).strip().upper()
    try:
        if name in ("TAP", "CLICK"):
            return Action.click(*_pair(raw.get("touch_coord"), place, "touch_coord"))
        if name in ("SWIPE", "SCROLL"):
            touch = _pair(raw.get("touch_coord"), place, "touch_coord")
            lift = _pair(raw.get("lift_coord"), place, "lift_coord")
            return Action.swipe(*touch, *lift)
        if name == "LONG_PRESS":
            return Action.long_press(*_pair(raw.get("touch_coord"), place, "touch_coord"))
        if name == "TYPE":
            return Action.type_text(str(raw.get("type_text") or ""))
        if name in _AMEX_BUTTONS:
            return Action.system_button(_AMEX_BUTTONS[name])
        if name == "TASK_COMPLETE":
            return Action.terminate("success")
        if name == "TASK_IMPOSSIBLE":
            return Action.terminate("failure")
    except ActionError as exc:
        raise DataError(f"{place}: field 'action': {exc}") from None
    raise DataError(f"{place}: field 'action': {name!r} is not an AMEX action")


def _amex_episode(path: Path, roots: DataRoots, images: bool) -> Episode:
    record = read_json(path)
    place = str(path)
    steps = []
    screen0: tuple[int, int] | None = None
    for i, raw in enumerate(_need(record, "steps", place, list)):
        where = f"{place}: steps[{i}]"
        if not isinstance(raw, dict):
            raise DataError(f"{where}: each step must be an object")
        w, h = _pair(raw.get("device_dim"), where, "device_dim")
        if w <= 0 or h <= 0:
            raise DataError(f"{where}: field 'device_dim': screen size must be positive")
        screen = (int(w), int(h))
        screen0 = screen0 or screen
        shot = raw.get("image_path")
        resolved = str(resolve_data_path(shot, roots, place, f"steps[{i}].image_path")) if shot and images else None
        steps.append(Step(action=_amex_action(raw, where),
                          observation=Observation(screen_size=screen, screenshot_path=resolved)))
    app = record.get("app") or record.get("app_name")
    return Episode(id=str(record.get("episode_id") or path.stem), instruction=str(_need(record, "instruction", place, str)),
                   steps=steps, apps=[str(app)] if app else [], screen_size=screen0, language="en",
                   meta={"source": AMEX, "matcher": MATCHERS[AMEX]})


def load_amex(path: str | Path, *, images: bool = True, image_root: str | Path | None = None) -> list[Episode]:
    """Read AMEX: the dataset folder (instruction_anno/ + screenshot/) or one instruction file."""
    root, files = _files(Path(path), "instruction_anno")
    base = root / "screenshot"
    if (base / "screenshot").is_dir():  # the released zip unpacks into screenshot/screenshot/
        base = base / "screenshot"
    roots = DataRoots(base=base, allowed=(root,), image_root=Path(image_root) if image_root else None)
    return [_amex_episode(f, roots, images) for f in files]
