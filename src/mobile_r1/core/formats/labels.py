"""Labels that cannot be right: a point outside the frame it is declared in, or a tap outside its own target box.

Released data holds such labels. In InquireMobile's GRPO records a trajectory recorded at 1440x3200 carries
coordinates beyond its declared resized frame (`resized_width` x `resized_height`); converted to the screen, they
would become taps off the screen. A label whose point lies outside the target box (`bbox`) recorded with it
contradicts itself: the matchers and rewards score against the box.

`screen_labels(episodes, policy)` finds them, counts them and then, by the user's choice, **skips** the step (it is
dropped from its episode; an episode left with no step is dropped too) or **keeps** it as recorded; nothing is ever
moved or clipped into the frame. The data commands take the choice as `--bad-labels skip|keep` (default skip) and
print the counts.

- The frame of a step is its screen (`Observation.screen_size`, else the episode's `screen_size`), or the model
  image (`Episode.model_size`) for episodes whose coordinates are in the model frame; the edges belong to it. Points
  are those of `click`, `long_press` and `swipe` (both ends). A frame-less step (InquireMobile SFT records read without
  their image size) is not checked.
- The box test applies to `click` and `long_press` labels with a box, in screen-frame episodes (boxes are screen
  pixels); the box's edges belong to it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Literal

from mobile_r1.core.actions import ActionType
from mobile_r1.core.errors import ConfigError
from mobile_r1.core.geometry import Frame, has_box, point_in_box
from mobile_r1.core.records import Episode, Step

BadLabelPolicy = Literal["skip", "keep"]
BAD_LABEL_POLICIES: tuple[str, ...] = ("skip", "keep")
OUTSIDE_FRAME, OUTSIDE_BOX = "outside its frame", "outside its box"
EXAMPLES = 5  # how many bad labels a report names


@dataclass(slots=True)
class LabelReport:
    """How many labels were checked and found outside their frame or box, and what was done with them."""

    policy: str
    checked: int = 0
    outside_frame: int = 0
    outside_box: int = 0
    dropped_steps: int = 0
    dropped_episodes: int = 0
    examples: list[str] = field(default_factory=list)

    @property
    def bad(self) -> int:
        return self.outside_frame + self.outside_box

    def to_dict(self) -> dict[str, object]:
        return {"policy": self.policy, "checked": self.checked, "outside_frame": self.outside_frame,
                "outside_box": self.outside_box, "dropped_steps": self.dropped_steps,
                "dropped_episodes": self.dropped_episodes, "examples": list(self.examples)}

    def summary(self) -> str:
        """One line for the user, empty when every label is fine."""
        if not self.bad:
            return ""
        parts = [f"{n} {what}" for n, what in ((self.outside_frame, "label(s) outside their frame"),
                                                (self.outside_box, "tap label(s) outside their own box")) if n]
        if self.policy == "skip":
            done = (f"skipped {self.dropped_steps} step(s)"
                    + (f" and {self.dropped_episodes} episode(s) left empty" if self.dropped_episodes else "")
                    + " (--bad-labels keep keeps them as recorded)")
        else:
            done = "kept as recorded (--bad-labels skip drops them)"
        return f"{' and '.join(parts)} of {self.checked} checked: {done}; e.g. {self.examples[0]}"


def _frame(episode: Episode, step: Step) -> Frame | None:
    if episode.frame == "model":
        return Frame(*episode.model_size) if episode.model_size else None
    size = step.observation.screen_size if step.observation is not None else episode.screen_size
    return Frame.screen(*size) if size else None


def label_problem(episode: Episode, step: Step) -> str | None:
    """Why the step's label cannot be right (outside its frame, outside its box), or None."""
    action = step.action
    if action.type not in (ActionType.CLICK, ActionType.LONG_PRESS, ActionType.SWIPE):
        return None
    frame = _frame(episode, step)
    if frame is None:
        return None
    for name, point in (("coordinate", action.coordinate), ("coordinate2", action.coordinate2)):
        if point is not None and not frame.contains(point):
            return (f"{OUTSIDE_FRAME}: {action.type.value} {name} {_show(point)} is off the "
                    f"{_show(frame.size, 'x')} {'model image' if episode.frame == 'model' else 'screen'}")
    box = step.bbox
    if (action.type is not ActionType.SWIPE and episode.frame != "model" and box is not None and has_box(list(box))
            and action.coordinate is not None and not point_in_box(action.coordinate, box)):
        return f"{OUTSIDE_BOX}: {action.type.value} at {_show(action.coordinate)} lies outside its box {list(box)}"
    return None


def _show(values: tuple[float, ...], sep: str = ", ") -> str:
    text = sep.join(str(int(v)) if float(v).is_integer() else f"{v:g}" for v in values)
    return text if sep == "x" else f"({text})"


def screen_labels(episodes: Iterable[Episode], policy: str = "skip") -> tuple[list[Episode], LabelReport]:
    """The episodes with their bad labels skipped or kept (`policy`), and the report (see the module docstring)."""
    if policy not in BAD_LABEL_POLICIES:
        raise ConfigError(f"--bad-labels must be skip or keep, got {policy!r}")
    report = LabelReport(policy)
    out: list[Episode] = []
    for episode in episodes:
        kept: list[Step] = []
        for index, step in enumerate(episode.steps):
            problem = label_problem(episode, step)
            if step.action.type in (ActionType.CLICK, ActionType.LONG_PRESS, ActionType.SWIPE):
                report.checked += 1
            if problem is None:
                kept.append(step)
                continue
            if problem.startswith(OUTSIDE_FRAME):
                report.outside_frame += 1
            else:
                report.outside_box += 1
            if len(report.examples) < EXAMPLES:
                report.examples.append(f"episode {episode.id!r} step {index}: {problem}")
            if policy == "keep":
                kept.append(step)
            else:
                report.dropped_steps += 1
        if kept:
            out.append(episode if len(kept) == len(episode.steps) else replace(episode, steps=kept))
        elif episode.steps:
            report.dropped_episodes += 1
        else:
            out.append(episode)  # a task without steps (a task file) has no label to check
    return out, report


__all__ = ["BAD_LABEL_POLICIES", "BadLabelPolicy", "LabelReport", "label_problem", "screen_labels"]
