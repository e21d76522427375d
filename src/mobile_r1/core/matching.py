"""Offline step matching: score a predicted action against a labelled step under a named convention.

The field scores single steps in three incompatible ways, so each is a named preset (FORMATS section 4) and
every metrics report says which one it used:

- ``aitw``: the AndroidInTheWild / AndroidControl reference matcher (google-research
  ``android_in_the_wild/action_matching.py``). Taps match when both points fall in the same element box
  enlarged by 1.4 (the reference grows each side by 0.7 x the size, i.e. 2.4x in total, clamping the top-left
  corner at 0 and the size at 1 in normalised units), or when their distance in normalised (x, y) is
  <= 0.14. The reference tries every element box on screen; a labelled step here carries one, the target's. A touch whose touch and lift points are <= 0.04 apart is a tap. Swipes match on the same main
  axis (the sign is not compared). Other actions match on type alone.
- ``qwen-ac``: the Qwen2.5-VL AndroidControl evaluator (QwenLM/Qwen2.5-VL issue #904 and the evaluation
  gist linked there, which later evaluators adapt; its box test enlarges about the centre, not like AITW). A click is right inside the target box
  enlarged 1.2x about its centre, or within 0.04 * max(W, H) pixels of the labelled point; type/open text
  is right when one lower-cased, stripped string contains the other; swipes compare their direction
  (up/down/left/right by the closest unit vector); system buttons must be equal; wait matches on type. An
  ``open`` label that carries the app icon's box also accepts a click inside that enlarged box or near
  its centre; a click elsewhere still has the right type (the evaluator counts it so), only the step is wrong.
- ``gui-r1``: the GUI-R1 evaluation script (``guir1/eval`` of the GUI-R1 repository): a point is right when its normalised
  distance to the labelled point is < 0.14 (strict); text is right at token F1 >= 0.5, where tokens are
  the lower-cased whitespace-split words as a set, brackets removed, and two single-token texts count as
  equal when one contains the other.

- ``cagui``: the CAGUI evaluator of AgentCPM-GUI (OpenBMB/AgentCPM-GUI ``eval/utils/evaluator.py``, not in its
  Android Control mode). A tap (or long press) is right inside a box of the screen's elements that holds the labelled
  point, each box enlarged 1.2 the evaluator's way (in normalised (y, x, h, w): the corner moves up-left by half the
  growth, clamped at 0, the size grows by all of it, clamped at 1), or within 0.14 of the labelled point (normalised
  (x, y) distance). The evaluator tries every element box that holds the labelled point; a labelled step here carries
  one, the smallest (the CAGUI loader sets it), as for ``aitw``. Swipes compare their direction (the closest of up,
  down, left, right, finger motion on both sides); text is right when one lower-cased, stripped string contains the
  other; buttons must be equal. Its own convention departs from the shared one below: `terminate` (either status)
  and `wait` are one kind, "stop", and any stop matches a stop label, as the evaluator scores them. A swipe is
  always a scroll on the predicted side (only labels tell short swipes from taps, when the loader reads them).

Conventions shared by all presets, so that Step SR always means an exact step: `system_button` compares the
button and `terminate` the status (each reference treats Back/Home/Enter and complete/impossible as
different action types); `call_user` matches on type alone (what to ask is free text). GUI-R1's own script
scores the argument even when the type is wrong; here an exact step needs the right type too.

Coordinates are in original screen pixels: the `screen_size` frame. The box is `[x1, y1, x2, y2]` in the
same pixels (`[-1, -1, -1, -1]` or None when there is none).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Iterable, Protocol, Sequence

from mobile_r1.core.actions import Action, ActionType
from mobile_r1.core.errors import ConfigError
from mobile_r1.core.geometry import has_box

if TYPE_CHECKING:
    from mobile_r1.core.formats.pairs import MatchPair

Point = tuple[float, float]
Box = tuple[float, float, float, float]
POINT_TYPES = frozenset({ActionType.CLICK, ActionType.LONG_PRESS})


@dataclass(frozen=True, slots=True)
class StepMatch:
    """How one predicted action compares with its label.

    `grounding` is None when it does not apply: the label is not a point action (click, long_press) or the
    predicted type is wrong ("coordinate accuracy given the right type").
    """

    type_match: bool
    grounding: bool | None
    exact: bool

    def to_dict(self) -> dict[str, bool | None]:
        return {"type_match": self.type_match, "grounding": self.grounding, "exact": self.exact}


MISS = StepMatch(type_match=False, grounding=None, exact=False)


class Matcher(Protocol):
    """A named step-matching convention."""

    name: str
    description: str

    def match(
        self,
        pred: Action | None,
        label: Action,
        bbox: Sequence[float] | None,
        screen_size: tuple[float, float],
    ) -> StepMatch: ...


# ----- geometry helpers -------------------------------------------------------------------------------
def _box(bbox: Sequence[float] | None) -> Box | None:
    if bbox is None or not has_box(list(bbox)):
        return None
    x1, y1, x2, y2 = (float(v) for v in bbox)
    return (x1, y1, x2, y2)


def normalized_distance(p: Point, q: Point, screen_size: tuple[float, float]) -> float:
    """Euclidean distance between two pixel points after dividing x by W and y by H."""
    w, h = screen_size
    return math.hypot((p[0] - q[0]) / w, (p[1] - q[1]) / h)


def swipe_direction(start: Point, end: Point) -> str | None:
    """up / down / left / right by the dominant axis (vertical wins a tie); None for a zero-length move.

    Equals picking the closest of the four unit vectors by cosine, as the Qwen2.5-VL evaluator does.
    """
    dx, dy = end[0] - start[0], end[1] - start[1]
    if dx == 0 and dy == 0:
        return None
    if abs(dy) >= abs(dx):
        return "down" if dy > 0 else "up"
    return "right" if dx > 0 else "left"


def _main_axis(start: Point, end: Point, screen_size: tuple[float, float]) -> str:
    """AITW's main axis: argmax of |delta| over normalised (y, x); a tie picks y, like numpy's argmax."""
    w, h = screen_size
    dy, dx = abs(end[1] - start[1]) / h, abs(end[0] - start[0]) / w
    return "y" if dy >= dx else "x"


def enlarge_box_centered(box: Box, factor: float) -> Box:
    """The box scaled by `factor` about its centre (1.2 -> 20% wider and taller)."""
    x1, y1, x2, y2 = box
    dw, dh = (factor - 1) * (x2 - x1) / 2, (factor - 1) * (y2 - y1) / 2
    return (x1 - dw, y1 - dh, x2 + dw, y2 + dh)


def _in_box(point: Point, box: Box) -> bool:
    return box[0] <= point[0] <= box[2] and box[1] <= point[1] <= box[3]


def _contains_either(a: str | None, b: str | None) -> bool:
    a, b = (a or "").strip().lower(), (b or "").strip().lower()
    return a in b or b in a


def token_f1(pred: str, label: str) -> float:
    """GUI-R1's text score: F1 over sets of lower-cased whitespace tokens, brackets removed.

    Two single-token texts score 1 when one contains the other (so unspaced Chinese compares by containment).
    """
    p = set(pred.replace("[", "").replace("]", "").lower().split())
    g = set(label.replace("[", "").replace("]", "").lower().split())
    if len(p) == 1 and len(g) == 1:
        (pt,), (gt,) = tuple(p), tuple(g)
        if pt in gt or gt in pt:
            return 1.0
    common = len(p & g)
    precision = common / len(p) if p else 0.0
    recall = common / len(g) if g else 0.0
    return 0.0 if precision + recall == 0 else 2 * precision * recall / (precision + recall)


def _shared_rules(pred: Action, label: Action) -> bool | None:
    """Argument checks every preset makes; None when the label type has no shared rule."""
    kind = label.type
    if kind is ActionType.SYSTEM_BUTTON:
        return pred.button == label.button
    if kind is ActionType.TERMINATE:
        return pred.status == label.status
    if kind in (ActionType.WAIT, ActionType.CALL_USER):
        return True
    return None


# ----- the presets ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class AitwMatcher:
    """AndroidInTheWild reference matching (google-research android_in_the_wild/action_matching.py)."""

    name: str = "aitw"
    description: str = "AITW/AndroidControl reference: taps in the same box enlarged 1.4 or within 0.14 (normalised)"
    tap_distance: float = 0.14
    box_augment: float = 1.4
    swipe_threshold: float = 0.04

    def _kind(self, action: Action, screen_size: tuple[float, float]) -> str:
        # A DUAL_POINT touch is a tap when touch and lift are within 0.04 (normalised) of each other.
        if action.type is ActionType.SWIPE:
            assert action.coordinate is not None and action.coordinate2 is not None
            moved = normalized_distance(action.coordinate, action.coordinate2, screen_size)
            return "click" if moved <= self.swipe_threshold else "swipe"
        return action.type.value

    def _enlarged(self, box: Box, screen_size: tuple[float, float]) -> Box:
        """The reference resize, in normalised units: each side grows by augment/2 x size; clamp as it does."""
        w, h = screen_size
        top, left = box[1] / h, box[0] / w
        height, width = (box[3] - box[1]) / h, (box[2] - box[0]) / w
        dh, dw = self.box_augment * height, self.box_augment * width
        top2, left2 = max(0.0, top - dh / 2), max(0.0, left - dw / 2)
        height2, width2 = min(1.0, height + dh), min(1.0, width + dw)
        return (left2, top2, left2 + width2, top2 + height2)

    def taps_match(self, p: Point, q: Point, bbox: Sequence[float] | None, screen_size: tuple[float, float]) -> bool:
        w, h = screen_size
        box = _box(bbox)
        if box is not None:
            enlarged = self._enlarged(box, screen_size)
            if _in_box((p[0] / w, p[1] / h), enlarged) and _in_box((q[0] / w, q[1] / h), enlarged):
                return True
        return normalized_distance(p, q, screen_size) <= self.tap_distance

    def match(
        self, pred: Action | None, label: Action, bbox: Sequence[float] | None, screen_size: tuple[float, float]
    ) -> StepMatch:
        if pred is None:
            return MISS
        kind = self._kind(label, screen_size)
        if self._kind(pred, screen_size) != kind:
            return MISS
        if kind in ("click", "long_press"):
            assert pred.coordinate is not None and label.coordinate is not None
            hit = self.taps_match(pred.coordinate, label.coordinate, bbox, screen_size)
            # A short swipe labelled as a tap is scored as a tap but has no point type of its own to ground.
            grounding = hit if label.type in POINT_TYPES else None
            return StepMatch(True, grounding, hit)
        if kind == "swipe":
            assert pred.coordinate and pred.coordinate2 and label.coordinate and label.coordinate2
            same = _main_axis(pred.coordinate, pred.coordinate2, screen_size) == _main_axis(
                label.coordinate, label.coordinate2, screen_size
            )
            return StepMatch(True, None, same)
        shared = _shared_rules(pred, label)
        return StepMatch(True, None, True if shared is None else shared)


@dataclass(frozen=True)
class QwenAndroidControlMatcher:
    """The Qwen2.5-VL AndroidControl evaluator (QwenLM/Qwen2.5-VL issue #904 and its linked gist)."""

    name: str = "qwen-ac"
    description: str = "Qwen2.5-VL AndroidControl: click in box x1.2 or within 0.04*max(W,H); text containment"
    box_factor: float = 1.2
    distance_fraction: float = 0.04

    def _near(self, p: Point, q: Point, screen_size: tuple[float, float]) -> bool:
        return math.hypot(p[0] - q[0], p[1] - q[1]) <= self.distance_fraction * max(screen_size)

    def click_hits(self, p: Point, label_point: Point, bbox: Sequence[float] | None, screen_size: tuple[float, float]) -> bool:
        box = _box(bbox)
        if box is not None and _in_box(p, enlarge_box_centered(box, self.box_factor)):
            return True
        return self._near(p, label_point, screen_size)

    def match(
        self, pred: Action | None, label: Action, bbox: Sequence[float] | None, screen_size: tuple[float, float]
    ) -> StepMatch:
        if pred is None:
            return MISS
        box = _box(bbox)
        if label.type is ActionType.OPEN and pred.type is ActionType.CLICK and box is not None:
            # Opening an app by tapping its icon counts as the right type (the evaluator returns type True for a
            # click on an `open` label with a candidate box); the step is right inside the enlarged icon box, or
            # near the box centre.
            assert pred.coordinate is not None
            centre = ((box[0] + box[2]) / 2, (box[1] + box[3]) / 2)
            hit = _in_box(pred.coordinate, enlarge_box_centered(box, self.box_factor)) or self._near(
                pred.coordinate, centre, screen_size
            )
            return StepMatch(True, None, hit)
        if pred.type is not label.type:
            return MISS
        kind = label.type
        if kind in POINT_TYPES:
            assert pred.coordinate is not None and label.coordinate is not None
            hit = self.click_hits(pred.coordinate, label.coordinate, bbox, screen_size)
            return StepMatch(True, hit, hit)
        if kind is ActionType.SWIPE:
            assert pred.coordinate and pred.coordinate2 and label.coordinate and label.coordinate2
            same = swipe_direction(pred.coordinate, pred.coordinate2) == swipe_direction(
                label.coordinate, label.coordinate2
            )
            return StepMatch(True, None, same)
        if kind in (ActionType.TYPE, ActionType.OPEN, ActionType.ANSWER):
            return StepMatch(True, None, _contains_either(pred.text, label.text))
        if kind is ActionType.KEY:
            return StepMatch(True, None, (pred.text or "").strip().lower() == (label.text or "").strip().lower())
        shared = _shared_rules(pred, label)
        return StepMatch(True, None, True if shared is None else shared)


@dataclass(frozen=True)
class GuiR1Matcher:
    """The GUI-R1 evaluator (ritzz-ai/GUI-R1 guir1/eval): distance < 0.14 normalised, token F1 >= 0.5."""

    name: str = "gui-r1"
    description: str = "GUI-R1: point within 0.14 normalised distance (strict); text token F1 >= 0.5"
    distance: float = 0.14
    f1_threshold: float = 0.5

    def match(
        self, pred: Action | None, label: Action, bbox: Sequence[float] | None, screen_size: tuple[float, float]
    ) -> StepMatch:
        if pred is None or pred.type is not label.type:
            return MISS
        kind = label.type
        if kind in POINT_TYPES:
            assert pred.coordinate is not None and label.coordinate is not None
            hit = normalized_distance(pred.coordinate, label.coordinate, screen_size) < self.distance
            return StepMatch(True, hit, hit)
        if kind is ActionType.SWIPE:
            assert pred.coordinate and pred.coordinate2 and label.coordinate and label.coordinate2
            same = swipe_direction(pred.coordinate, pred.coordinate2) == swipe_direction(
                label.coordinate, label.coordinate2
            )
            return StepMatch(True, None, same)
        if kind in (ActionType.TYPE, ActionType.OPEN, ActionType.ANSWER):
            return StepMatch(True, None, token_f1(pred.text or "", label.text or "") >= self.f1_threshold)
        if kind is ActionType.KEY:
            return StepMatch(True, None, (pred.text or "").strip().lower() == (label.text or "").strip().lower())
        shared = _shared_rules(pred, label)
        return StepMatch(True, None, True if shared is None else shared)


@dataclass(frozen=True)
class CaguiMatcher:
    """The CAGUI evaluator of AgentCPM-GUI (OpenBMB/AgentCPM-GUI eval/utils/evaluator.py, `ActionEvaluator`)."""

    name: str = "cagui"
    description: str = ("AgentCPM-GUI's CAGUI: tap in the target box enlarged 1.2 or within 0.14 (normalised); "
                        "stop, wait and terminate all one 'stop'")
    tap_distance: float = 0.14
    box_factor: float = 1.2

    @staticmethod
    def kind(action: Action) -> str:
        """The evaluator's action kind: click, long_point, scroll, type, press, stop (else the action's own type)."""
        return {ActionType.CLICK: "click", ActionType.LONG_PRESS: "long_point", ActionType.SWIPE: "scroll",
                ActionType.TYPE: "type", ActionType.SYSTEM_BUTTON: "press", ActionType.TERMINATE: "stop",
                ActionType.WAIT: "stop"}.get(action.type, action.type.value)

    def _enlarged(self, box: Box, screen_size: tuple[float, float]) -> Box:
        """`_resize_annotation_bounding_boxes`: in normalised (y, x, h, w), the top-left moves up-left by half the
        growth (clamped at 0) and the size grows by the whole of it (clamped at 1)."""
        w, h = screen_size
        y, x, height, width = box[1] / h, box[0] / w, (box[3] - box[1]) / h, (box[2] - box[0]) / w
        dh, dw = (self.box_factor - 1) * height, (self.box_factor - 1) * width
        y2, x2 = max(0.0, y - dh / 2), max(0.0, x - dw / 2)
        height2, width2 = min(1.0, height + dh), min(1.0, width + dw)
        return (x2, y2, x2 + width2, y2 + height2)

    def taps_match(self, p: Point, label: Point, bbox: Sequence[float] | None, screen_size: tuple[float, float]) -> bool:
        w, h = screen_size
        box = _box(bbox)
        if box is not None:
            enlarged = self._enlarged(box, screen_size)
            if _in_box((label[0] / w, label[1] / h), enlarged) and _in_box((p[0] / w, p[1] / h), enlarged):
                return True
        return normalized_distance(p, label, screen_size) <= self.tap_distance

    def match(
        self, pred: Action | None, label: Action, bbox: Sequence[float] | None, screen_size: tuple[float, float]
    ) -> StepMatch:
        if pred is None:
            return MISS
        kind = self.kind(label)
        if self.kind(pred) != kind:
            return MISS
        if kind in ("click", "long_point"):
            assert pred.coordinate is not None and label.coordinate is not None
            hit = self.taps_match(pred.coordinate, label.coordinate, bbox, screen_size)
            return StepMatch(True, hit, hit)
        if kind == "scroll":
            assert pred.coordinate and pred.coordinate2 and label.coordinate and label.coordinate2
            same = swipe_direction(pred.coordinate, pred.coordinate2) == swipe_direction(
                label.coordinate, label.coordinate2)
            return StepMatch(True, None, same)
        if kind == "type":
            return StepMatch(True, None, _contains_either(pred.text, label.text))
        if kind == "press":
            return StepMatch(True, None, (pred.button or "").lower() == (label.button or "").lower())
        if kind == "stop":
            return StepMatch(True, None, True)
        shared = _shared_rules(pred, label)  # actions CAGUI has not (open, call_user, answer, key): by the shared rules
        return StepMatch(True, None, True if shared is None else shared)


MATCHERS: dict[str, Matcher] = {
    m.name: m for m in (AitwMatcher(), QwenAndroidControlMatcher(), GuiR1Matcher(), CaguiMatcher())
}


def get_matcher(name: str) -> Matcher:
    """The matcher preset called `name` (one of `MATCHERS`)."""
    try:
        return MATCHERS[name]
    except KeyError:
        raise ConfigError(f"unknown matcher preset {name!r}; choose one of {', '.join(MATCHERS)}") from None


# ----- metrics --------------------------------------------------------------------------------------------
@dataclass(slots=True)
class TypeStats:
    """Counts for the steps whose label has one action type."""

    steps: int = 0
    type_match: int = 0
    grounding_steps: int = 0
    grounding_hits: int = 0
    exact: int = 0

    def add(self, m: StepMatch) -> None:
        self.steps += 1
        self.type_match += m.type_match
        self.exact += m.exact
        if m.grounding is not None:
            self.grounding_steps += 1
            self.grounding_hits += m.grounding

    @property
    def type_accuracy(self) -> float:
        return self.type_match / self.steps if self.steps else 0.0

    @property
    def grounding(self) -> float | None:
        return self.grounding_hits / self.grounding_steps if self.grounding_steps else None

    @property
    def step_sr(self) -> float:
        return self.exact / self.steps if self.steps else 0.0

    def to_dict(self) -> dict[str, float | int | None]:
        return {
            "steps": self.steps,
            "type": self.type_accuracy,
            "grounding": self.grounding,
            "grounding_steps": self.grounding_steps,
            "step_sr": self.step_sr,
        }


@dataclass(frozen=True, slots=True)
class InquiryStats:
    """Precision / recall / F1 of asking, with `call_user` as the positive class (0 where undefined)."""

    tp: int
    fp: int
    fn: int

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 0.0

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 0.0

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0

    def to_dict(self) -> dict[str, float | int]:
        return {"precision": self.precision, "recall": self.recall, "f1": self.f1, "tp": self.tp, "fp": self.fp, "fn": self.fn}


@dataclass(frozen=True, slots=True)
class MetricsReport:
    """Type, Grounding, Step SR, a per-label-type breakdown and inquiry P/R/F1, naming the matcher preset."""

    preset: str
    overall: TypeStats
    per_type: dict[str, TypeStats]
    inquiry: InquiryStats

    @property
    def steps(self) -> int:
        return self.overall.steps

    @property
    def type_accuracy(self) -> float:
        return self.overall.type_accuracy

    @property
    def grounding(self) -> float | None:
        return self.overall.grounding

    @property
    def step_sr(self) -> float:
        return self.overall.step_sr

    def to_dict(self) -> dict[str, object]:
        return {
            "preset": self.preset,
            "steps": self.steps,
            "type": self.type_accuracy,
            "grounding": self.grounding,
            "grounding_steps": self.overall.grounding_steps,
            "step_sr": self.step_sr,
            "per_type": {k: v.to_dict() for k, v in self.per_type.items()},
            "inquiry": self.inquiry.to_dict(),
        }


@dataclass(slots=True)
class StepMetrics:
    """Accumulates step matches into a `MetricsReport`; `preset` names the matcher that produced them."""

    preset: str
    overall: TypeStats = field(default_factory=TypeStats)
    per_type: dict[str, TypeStats] = field(default_factory=dict)
    tp: int = 0
    fp: int = 0
    fn: int = 0

    def add(self, match: StepMatch, pred: Action | None, label: Action) -> None:
        self.overall.add(match)
        self.per_type.setdefault(label.type.value, TypeStats()).add(match)
        asked = pred is not None and pred.is_inquiry
        if asked and label.is_inquiry:
            self.tp += 1
        elif asked:
            self.fp += 1
        elif label.is_inquiry:
            self.fn += 1

    def report(self) -> MetricsReport:
        per_type = {k: self.per_type[k] for k in sorted(self.per_type)}
        return MetricsReport(self.preset, self.overall, per_type, InquiryStats(self.tp, self.fp, self.fn))


def summarize(
    matches: Iterable[StepMatch],
    preds: Iterable[Action | None],
    labels: Iterable[Action],
    *,
    preset: str,
) -> MetricsReport:
    """Aggregate per-step matches (aligned with their predictions and labels) into a report."""
    metrics = StepMetrics(preset)
    matches, preds, labels = list(matches), list(preds), list(labels)
    if not len(matches) == len(preds) == len(labels):
        raise ValueError(f"summarize needs aligned lists, got {len(matches)} matches, {len(preds)} preds, {len(labels)} labels")
    for m, p, l in zip(matches, preds, labels):
        metrics.add(m, p, l)
    return metrics.report()


def evaluate(
    matcher: Matcher,
    preds: Sequence[Action | None],
    labels: Sequence[Action],
    bboxes: Sequence[Sequence[float] | None],
    screen_sizes: Sequence[tuple[float, float]],
) -> tuple[list[StepMatch], MetricsReport]:
    """Match every step with `matcher` and summarise; returns the per-step matches and the report."""
    matches = [matcher.match(p, l, b, s) for p, l, b, s in zip(preds, labels, bboxes, screen_sizes, strict=True)]
    return matches, summarize(matches, preds, labels, preset=matcher.name)


def score_pairs(matcher: Matcher, pairs: Iterable["MatchPair"]) -> tuple[list[StepMatch], MetricsReport]:
    """Match `MatchPair`s (see `mobile_r1.core.formats.load_match_pairs`) and summarise them."""
    pairs = list(pairs)
    return evaluate(
        matcher,
        [p.pred for p in pairs],
        [p.label for p in pairs],
        [p.bbox for p in pairs],
        [p.screen_size for p in pairs],
    )
