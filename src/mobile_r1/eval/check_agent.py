"""`mobile-r1 check-agent`: the expert's actions through a dialect and back, at several screen sizes.

An agent's score depends on a chain nobody sees: the action is moved into the frame the model answers in (Qwen's
smart-resized image, the 0..999 grid, or the screen), written in the dialect, read back by its parser and moved back
to screen pixels. A chain that loses something (a rounding that lands on the next pixel row, a duration the dialect
cannot say, a text whose quotes break the grammar) costs the agent steps it got right. `check_dialect` replays the
task expert's actions through exactly that chain (`agents.ModelView`, the code every model agent uses) for each screen
size, the actions scaled from the phone they were recorded on, and reports every step that does not come back the
same:

- the action type and every argument but the points must be equal;
- each point may move by the two roundings of the trip and no more: half a model-frame pixel (in screen pixels) plus
  half a screen pixel, on each axis (a whole cell of the 0..999 grid, whose far edge is clamped to 999).

Actions the dialect does not have (`call_user` for qwen2.5vl, `open` for inquire) are counted apart, not failures.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from mobile_r1.agents.base import ModelView
from mobile_r1.core.actions import Action
from mobile_r1.core.errors import ActionError, ConfigError
from mobile_r1.core.geometry import Frame
from mobile_r1.core.records import Observation
from mobile_r1.env import Capability, make_backend

SCREENS: tuple[tuple[int, int], ...] = ((720, 1280), (1080, 1920), (1080, 2400), (1440, 3200), (1600, 2560))
ARGUMENTS = ("text", "time", "button", "status", "content")


@dataclass(frozen=True, slots=True)
class ExpertStep:
    """One expert action in the pixels of the screen it was recorded on."""

    episode_id: str
    index: int
    action: Action
    screen: tuple[int, int]
    thought: str = ""
    description: str = ""


@dataclass(frozen=True, slots=True)
class StepProblem:
    """A step that did not come back the same: what was sent, what the dialect wrote and what came back."""

    episode_id: str
    index: int
    screen: tuple[int, int]
    sent: dict[str, Any]
    text: str
    back: dict[str, Any] | None
    problem: str

    def to_dict(self) -> dict[str, Any]:
        return {"episode_id": self.episode_id, "step": self.index, "screen": list(self.screen), "sent": self.sent,
                "text": self.text, "back": self.back, "problem": self.problem}


@dataclass(slots=True)
class DialectCheck:
    """Steps checked per screen size, the problems, and the actions the dialect cannot say."""

    dialect: str
    frame: str
    checked: Counter[str] = field(default_factory=Counter)
    problems: list[StepProblem] = field(default_factory=list)
    unsaid: Counter[str] = field(default_factory=Counter)

    @property
    def ok(self) -> bool:
        return not self.problems

    def to_dict(self) -> dict[str, Any]:
        failed = Counter(f"{p.screen[0]}x{p.screen[1]}" for p in self.problems)
        return {"dialect": self.dialect, "frame": self.frame, "ok": self.ok,
                "screens": {s: {"checked": n, "differ": failed.get(s, 0)} for s, n in self.checked.items()},
                "not_in_dialect": dict(self.unsaid), "problems": [p.to_dict() for p in self.problems]}


def expert_steps(suite: str, split: str = "test", episodes: int | None = 8, *, seed: int = 0, env: str = "sim",
                 env_options: dict[str, Any] | None = None) -> list[ExpertStep]:
    """The task expert's actions on the first `episodes` episodes of a suite split (a backend that declares EXPERT)."""
    backend = make_backend(env, render=False, xml=False, **(env_options or {}))
    try:
        out: list[ExpertStep] = []
        for ref in backend.episodes(suite, split, episodes, seed):
            task = backend.open(ref)
            try:
                task.require(Capability.EXPERT, "check-agent")
                demo = task.expert_demo()
            finally:
                task.close()
            for index, step in enumerate(demo.episode.steps):
                screen = step.observation.screen_size if step.observation else demo.episode.screen_size
                if screen is None:
                    raise ConfigError(f"episode {ref.id}: the expert's step {index} has no screen size")
                out.append(ExpertStep(ref.id, index, step.action, (int(screen[0]), int(screen[1])), step.thought,
                                      step.description))
        return out
    finally:
        backend.close()


def _scaled(action: Action, source: tuple[int, int], screen: tuple[int, int]) -> Action:
    if source == screen:
        return action
    return action.map_points(lambda p: Frame.screen(*source).map(p, Frame.screen(*screen)))


def _compare(sent: Action, back: Action | None, screen: tuple[int, int], frame: Frame) -> str | None:
    if back is None:
        return "nothing could be read back"
    if back.type is not sent.type:
        return f"sent {sent.type.value}, read back {back.type.value}"
    for name in ARGUMENTS:
        if getattr(sent, name) != getattr(back, name):
            return f"'{name}' {getattr(sent, name)!r} came back as {getattr(back, name)!r}"
    cells = 1.0 if frame.is_grid else 0.5  # the 0..999 grid also clamps the far edge's last half cell
    tol_x = cells * screen[0] / frame.width + 0.5
    tol_y = cells * screen[1] / frame.height + 0.5
    for name in ("coordinate", "coordinate2"):
        a, b = getattr(sent, name), getattr(back, name)
        if (a is None) != (b is None):
            return f"'{name}' {a} came back as {b}"
        if a is not None and b is not None and (abs(a[0] - b[0]) > tol_x or abs(a[1] - b[1]) > tol_y):
            return (f"'{name}' {list(a)} came back as {list(b)}, more than the rounding allows "
                    f"({tol_x:.1f}, {tol_y:.1f} px in a {int(frame.width)}x{int(frame.height)} frame)")
    return None


def check_dialect(view: ModelView, steps: Iterable[ExpertStep],
                  screens: Sequence[tuple[int, int]] = SCREENS) -> DialectCheck:
    """Every expert step at every screen size: model frame, the dialect's text, its parser, screen pixels again."""
    report = DialectCheck(view.dialect.name, view.frame)
    dialect = view.dialect
    for step in steps:
        if not dialect.allows(step.action):
            report.unsaid[step.action.type.value] += 1
            continue
        for screen in screens:
            label = f"{screen[0]}x{screen[1]}"
            report.checked[label] += 1
            sent = _scaled(step.action, step.screen, screen)
            observation = Observation(screen)
            frame = view.model_frame(observation)
            in_frame = sent.map_points(lambda p: Frame.screen(*screen).map(p, frame))
            try:
                text = dialect.render(in_frame, step.thought, step.description)
            except ActionError as exc:
                report.problems.append(StepProblem(step.episode_id, step.index, screen, sent.to_arguments(), "", None,
                                                   f"the dialect cannot write it: {exc}"))
                continue
            parsed, back = view.read(text, observation)
            problem = _compare(sent, back, screen, frame)
            if problem is None and not parsed.valid:
                problem = f"read back, but the reply is not valid: {parsed.error}"
            if problem is not None:
                report.problems.append(StepProblem(step.episode_id, step.index, screen, sent.to_arguments(), text,
                                                   back.to_arguments() if back is not None else None, problem))
    return report


__all__ = ["SCREENS", "DialectCheck", "ExpertStep", "StepProblem", "check_dialect", "expert_steps"]
