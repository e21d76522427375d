"""Loaders for AndroidControl: the TFRecord release (with accessibility trees) and its parquet mirror.

TFRecord release (google-research/google-research `android_control/README.md`, "Dataset format" and "Action
space", read for this loader): GZIP TFRecord files of `tf.train.Example`, one episode per record, with
`episode_id` (int), `goal` (the episode's instruction), `screenshots` (PNG bytes, one per observation),
`accessibility_trees` (one serialized `AndroidAccessibilityForest` per observation, see `core.formats.a11y`),
`screenshot_widths`, `screenshot_heights`, `actions` (JSON strings, one fewer than the screenshots: action i goes
from screenshot i to i + 1) and `step_instructions` (one per action; repeated when one instruction takes several
actions). Actions: `click` / `long_press` {x, y} in screen pixels, `scroll` {direction}, `open_app` {app_name},
`type` {text, x, y} (click there, type, press Enter), `input_text` {text}, `navigate_home`, `navigate_back`, `wait`.

Parquet mirror (the Hugging Face `smolagents/android-control` dataset card, "Data Fields"): one row per episode with
`episode_id`, `goal`, `screenshots_b64` (base64 PNG), `actions` (structs with `action_type`, `app_name`,
`direction`, `text`, `x`, `y`; unused fields null) and `step_instructions`; no accessibility trees and no sizes
(read from each PNG's header). Read with pyarrow (extra `data`).

Conversion (screen pixels, the frame `core` keeps): every action goes through
`core.dialects.from_androidworld`, AndroidWorld's executor semantics, which AndroidControl's action dictionaries
share. In particular **`scroll <direction>` names where the view moves (what a mouse wheel would do): `scroll down`
reveals what is below, so the finger moves up**; it becomes a `swipe` from the screen's centre to its top edge
(down), bottom edge (up), left edge (right) or right edge (left). `type` keeps only its text (its click point is in
`step.info["type_point"]`); `open_app` becomes `open`. A click's `bbox` is the smallest element of the step's tree
containing the point (clickable elements first), when the tree has one. The step's description is its step
instruction. The matcher the field uses for AndroidControl is `qwen-ac`.
"""

from __future__ import annotations

import base64
import binascii
import json
from pathlib import Path
from typing import Any, Iterator

from mobile_r1.core.actions import Action, ActionType
from mobile_r1.core.dialects.androidworld import from_androidworld
from mobile_r1.core.errors import ActionError, DataError
from mobile_r1.core.formats.a11y import forest_elements, smallest_box_at
from mobile_r1.core.formats.images import EncodedImage, png_size
from mobile_r1.core.formats.tfrecord import bytes_feature, int_feature, read_examples, text_feature
from mobile_r1.core.geometry import Frame
from mobile_r1.core.records import Episode, Observation, Step, UIElement

FORMAT = "android-control"
PARQUET_FORMAT = "android-control-parquet"
MATCHER = "qwen-ac"


def _action(raw: dict[str, Any], screen: tuple[int, int], elements: list[UIElement], place: str) -> tuple[Action, dict[str, Any]]:
    info: dict[str, Any] = {"source_action": raw}
    kind = raw.get("action_type")
    data = {k: v for k, v in raw.items() if v is not None}
    try:
        if kind == "type":  # click at (x, y), type, press Enter: the typing is the step's action
            text = data.get("text")
            if not isinstance(text, str):
                raise ActionError("AndroidWorld type: 'text' must be a string")
            if data.get("x") is not None and data.get("y") is not None:
                info["type_point"] = [data["x"], data["y"]]
            return Action.type_text(text), info
        if kind == "wait":
            return Action.wait(), info
        return from_androidworld(data, Frame.screen(*screen)), info
    except ActionError as exc:
        raise DataError(f"{place}: {exc}") from None


def _step(action: Action, info: dict[str, Any], instruction: str, observation: Observation) -> Step:
    bbox = None
    if action.type in (ActionType.CLICK, ActionType.LONG_PRESS) and action.coordinate is not None:
        bbox = smallest_box_at(observation.elements, action.coordinate)
    return Step(action=action, description=instruction, observation=observation, bbox=bbox, info=info)


def _episode(episode_id: str, goal: str, steps: list[Step], source: str, screen: tuple[int, int] | None) -> Episode:
    return Episode(id=episode_id, instruction=goal, steps=steps, screen_size=screen, frame="screen",
                   language="en", meta={"source": source, "matcher": MATCHER})


def _json_actions(values: list[bytes], place: str) -> list[dict[str, Any]]:
    actions = []
    for i, value in enumerate(values):
        try:
            action = json.loads(value.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise DataError(f"{place}: field 'actions[{i}]': not a JSON action ({exc})") from None
        if not isinstance(action, dict):
            raise DataError(f"{place}: field 'actions[{i}]': must be a JSON object")
        actions.append(action)
    return actions


def load_android_control(path: str | Path, *, images: bool = True, image_root: str | Path | None = None) -> list[Episode]:
    """Read an AndroidControl TFRecord file (GZIP) into episodes; `images=False` leaves the screenshots out."""
    episodes = []
    for place, example in read_examples(path):
        ids = int_feature(example, "episode_id", place) or [0]
        goal = text_feature(example, "goal", place)
        shots = bytes_feature(example, "screenshots", place) or []
        trees = bytes_feature(example, "accessibility_trees", place, required=False) or []
        widths = int_feature(example, "screenshot_widths", place) or []
        heights = int_feature(example, "screenshot_heights", place) or []
        actions = _json_actions(bytes_feature(example, "actions", place) or [], place)
        instructions = [v.decode("utf-8", "replace") for v in bytes_feature(example, "step_instructions", place) or []]
        if len(shots) != len(actions) + 1:
            raise DataError(f"{place}: field 'actions': {len(actions)} actions for {len(shots)} screenshots "
                            "(the release has one action fewer than screenshots)")
        if len(widths) < len(actions) or len(heights) < len(actions):
            raise DataError(f"{place}: field 'screenshot_widths': fewer sizes than screenshots")
        steps = []
        for i, raw in enumerate(actions):
            screen = (int(widths[i]), int(heights[i]))
            elements = forest_elements(trees[i], f"{place}: field 'accessibility_trees[{i}]'") if i < len(trees) else []
            observation = Observation(screen_size=screen, elements=elements,
                                      screenshot=EncodedImage(shots[i]) if images else None)
            action, info = _action(raw, screen, elements, f"{place}: field 'actions[{i}]'")
            steps.append(_step(action, info, instructions[i] if i < len(instructions) else "", observation))
        first = (int(widths[0]), int(heights[0])) if widths else None
        episodes.append(_episode(str(ids[0]), goal, steps, FORMAT, first))
    return episodes


def _batches(table: Any, path: Path) -> Iterator[Any]:
    """The file's record batches; a damaged page is a DataError naming the file, not one of pyarrow's own errors."""
    batches = table.iter_batches(batch_size=8)
    while True:
        try:
            batch = next(batches)
        except StopIteration:
            return
        except Exception as exc:  # noqa: BLE001 - pyarrow raises OSError, ArrowInvalid, ... for a damaged page
            raise DataError(f"{path}: a damaged page in the parquet file ({exc})") from None
        yield batch


def load_android_control_parquet(path: str | Path, *, images: bool = True,
                                 image_root: str | Path | None = None) -> list[Episode]:
    """Read a parquet file of the AndroidControl mirror (`screenshots_b64`, no trees) into episodes."""
    path = Path(path)
    try:
        import pyarrow.parquet as pq
    except ImportError:
        raise DataError("reading parquet files needs pyarrow: pip install 'mobile-r1[data]'") from None
    try:
        table = pq.ParquetFile(path)
    except Exception as exc:  # noqa: BLE001 - pyarrow raises several kinds for a bad file
        raise DataError(f"{path}: not a readable parquet file ({exc})") from None
    missing = {"episode_id", "goal", "screenshots_b64", "actions"} - set(table.schema_arrow.names)
    if missing:
        raise DataError(f"{path}: columns {sorted(missing)} missing; an AndroidControl parquet file has episode_id, "
                        "goal, screenshots_b64, actions and step_instructions")
    episodes = []
    row_number = 0
    for batch in _batches(table, path):
        for row in batch.to_pylist():
            place = f"{path}: row {row_number}"
            row_number += 1
            shots = row.get("screenshots_b64") or []
            actions = row.get("actions") or []
            instructions = row.get("step_instructions") or []
            steps = []
            for i, raw in enumerate(actions):
                if i >= len(shots):
                    raise DataError(f"{place}: field 'screenshots_b64': no screenshot for action {i}")
                try:
                    data = base64.b64decode(shots[i], validate=True)
                except (binascii.Error, TypeError, ValueError):
                    raise DataError(f"{place}: field 'screenshots_b64[{i}]': not base64") from None
                screen = png_size(data)
                if screen is None:
                    raise DataError(f"{place}: field 'screenshots_b64[{i}]': not a PNG image")
                observation = Observation(screen_size=screen, screenshot=EncodedImage(data) if images else None)
                action, info = _action(dict(raw), screen, [], f"{place}: field 'actions[{i}]'")
                steps.append(_step(action, info, instructions[i] if i < len(instructions) else "", observation))
            screen0 = steps[0].observation.screen_size if steps and steps[0].observation else None
            episodes.append(_episode(str(row.get("episode_id")), str(row.get("goal") or ""), steps, PARQUET_FORMAT, screen0))
    return episodes
