"""Loader for Android in the Wild (AITW): GZIP TFRecord files, one step per `tf.train.Example`.

Fields (google-research/google-research `android_in_the_wild/README.md` "Dataset format", `action_type.py`,
`action_matching.py` and `visualization_utils.py`, read for this loader): `episode_id`, `episode_length`, `step_id`
(zero-based), `goal_info` (the instruction), `current_activity`, `device_type`, `android_api_level`,
`image/height`, `image/width`, `image/channels`, `image/encoded` (raw `uint8` pixels, reshaped to H x W x C: not a
PNG), `image/ui_annotations_positions` (flat, normalised (y, x, height, width) per element),
`image/ui_annotations_text`, `image/ui_annotations_ui_types`, `results/action_type`, `results/type_action` (the
typed text), `results/yx_touch` and `results/yx_lift` (normalised (y, x) of the touch and lift points).

Action types (`action_type.py`): TYPE 3, DUAL_POINT 4, PRESS_BACK 5, PRESS_HOME 6, PRESS_ENTER 7,
STATUS_TASK_COMPLETE 10, STATUS_TASK_IMPOSSIBLE 11. A dual point whose touch and lift lie within 0.04 of each other
(normalised (y, x) distance, AITW's `is_tap_action`) is a tap -> `click` at the touch point; otherwise a swipe.

Scroll convention: AITW records **the finger**: touch where the finger went down, lift where it came up. Our `swipe`
is the finger's motion too, so it is the touch -> lift segment in screen pixels, unchanged: a gesture whose finger
moves up (lift above touch) is the one that reveals what is below ("scroll down" in AndroidControl's and
AndroidWorld's naming).

Records are grouped into episodes by consecutive `episode_id` and ordered by `step_id`. Coordinates become screen
pixels of the stored screenshot (`image/width` x `image/height`); the annotation boxes become the step's elements, and
a tap's `bbox` is the smallest annotation box containing it. The matcher the field uses for AITW is `aitw`.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from mobile_r1.core.actions import Action
from mobile_r1.core.errors import DataError
from mobile_r1.core.formats.a11y import smallest_box_at
from mobile_r1.core.formats.images import EncodedImage
from mobile_r1.core.formats.tfrecord import (
    bytes_feature,
    float_feature,
    int_feature,
    one_int,
    read_examples,
    text_feature,
)
from mobile_r1.core.records import Episode, Observation, Step, UIElement

FORMAT = "aitw"
MATCHER = "aitw"
TAP_DISTANCE = 0.04  # AITW action_matching._SWIPE_DISTANCE_THRESHOLD
TYPE, DUAL_POINT, PRESS_BACK, PRESS_HOME, PRESS_ENTER, COMPLETE, IMPOSSIBLE = 3, 4, 5, 6, 7, 10, 11


def _elements(example: Any, width: int, height: int, place: str) -> list[UIElement]:
    positions = float_feature(example, "image/ui_annotations_positions", place, required=False) or []
    texts = bytes_feature(example, "image/ui_annotations_text", place, required=False) or []
    types = bytes_feature(example, "image/ui_annotations_ui_types", place, required=False) or []
    if len(positions) % 4:
        raise DataError(f"{place}: field 'image/ui_annotations_positions': length {len(positions)} is not 4 per element")
    elements = []
    for i in range(len(positions) // 4):
        y, x, h, w = positions[4 * i : 4 * i + 4]
        text = texts[i].decode("utf-8", "replace") if i < len(texts) else ""
        kind = types[i].decode("utf-8", "replace") if i < len(types) else ""
        elements.append(UIElement(
            id=i, class_name=kind or "TEXT",
            bounds=(round(x * width), round(y * height), round((x + w) * width), round((y + h) * height)),
            text=text, content_desc="" if text else kind,
        ))
    return elements


def _point(yx: list[float], width: int, height: int, key: str, place: str) -> tuple[int, int]:
    if len(yx) != 2:
        raise DataError(f"{place}: field '{key}': must hold (y, x), got {yx!r}")
    return round(yx[1] * width), round(yx[0] * height)


def _action(example: Any, width: int, height: int, place: str) -> Action:
    kind = one_int(example, "results/action_type", place)
    if kind == DUAL_POINT:
        touch = float_feature(example, "results/yx_touch", place) or []
        lift = float_feature(example, "results/yx_lift", place) or []
        start = _point(touch, width, height, "results/yx_touch", place)
        end = _point(lift, width, height, "results/yx_lift", place)
        if math.dist(touch, lift) <= TAP_DISTANCE:
            return Action.click(*start)
        return Action.swipe(*start, *end)
    if kind == TYPE:
        return Action.type_text(text_feature(example, "results/type_action", place))
    if kind == PRESS_BACK:
        return Action.back()
    if kind == PRESS_HOME:
        return Action.home()
    if kind == PRESS_ENTER:
        return Action.system_button("Enter")
    if kind == COMPLETE:
        return Action.terminate("success")
    if kind == IMPOSSIBLE:
        return Action.terminate("failure")
    raise DataError(f"{place}: field 'results/action_type': {kind} is not an AITW action (3, 4, 5, 6, 7, 10, 11)")


def load_aitw(path: str | Path, *, images: bool = True, image_root: str | Path | None = None) -> list[Episode]:
    """Read an AITW TFRecord file (GZIP) into episodes; `images=False` leaves the screenshots out."""
    groups: list[tuple[str, list[tuple[int, Step, str, dict[str, Any]]]]] = []
    for place, example in read_examples(path):
        episode_id = text_feature(example, "episode_id", place)
        width = one_int(example, "image/width", place)
        height = one_int(example, "image/height", place)
        channels = one_int(example, "image/channels", place, required=False, default=3)
        if width <= 0 or height <= 0:
            raise DataError(f"{place}: field 'image/width': screen size must be positive, got {width}x{height}")
        screenshot = None
        if images:
            pixels = (bytes_feature(example, "image/encoded", place) or [b""])[0]
            if len(pixels) != width * height * channels:
                raise DataError(f"{place}: field 'image/encoded': {len(pixels)} bytes, expected raw pixels "
                                f"{height} x {width} x {channels}")
            screenshot = EncodedImage(pixels, kind="raw", width=width, height=height, channels=channels)
        elements = _elements(example, width, height, place)
        observation = Observation(screen_size=(width, height), elements=elements, screenshot=screenshot,
                                  activity=text_feature(example, "current_activity", place, required=False) or None)
        action = _action(example, width, height, place)
        bbox = smallest_box_at(elements, action.coordinate) if action.coordinate is not None and \
            action.type.value == "click" else None
        step = Step(action=action, observation=observation, bbox=bbox)
        meta = {"device_type": text_feature(example, "device_type", place, required=False),
                "episode_length": (int_feature(example, "episode_length", place, required=False) or [0])[0]}
        record = (one_int(example, "step_id", place), step, text_feature(example, "goal_info", place), meta)
        if groups and groups[-1][0] == episode_id:
            groups[-1][1].append(record)
        else:
            groups.append((episode_id, [record]))
    episodes = []
    for episode_id, records in groups:
        records.sort(key=lambda r: r[0])
        first = records[0]
        screen = first[1].observation.screen_size if first[1].observation else None
        episodes.append(Episode(id=episode_id, instruction=first[2], steps=[r[1] for r in records],
                                screen_size=screen, language="en",
                                meta={"source": FORMAT, "matcher": MATCHER, **first[3]}))
    return episodes
