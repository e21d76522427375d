"""Labelled steps as a model sees them: actions the dialect can say, coordinates in the image the model sees.

Training (`mobile_r1.train.data.step_examples`) and the exporters (`core.formats.export`) both walk episodes through
`model_steps`, so a trained model and an exported dataset agree on every coordinate:

    frames = FrameSettings(prescale=0.3)              # InquireMobile: scale the screenshot by 0.3, then smart_resize
    skipped = Counter()
    for ms in model_steps(episodes, get_dialect("inquire"), frames, skipped):
        ms.step.action      # in ms.frame (Frame.qwen of the screen after the pre-scale)
        ms.history          # the earlier steps, their actions in the same frame

The model frame of a step is Qwen2.5-VL's `smart_resize` of its screen after the pre-scale, with the pixel bounds of
`FrameSettings`; screenshots shown to the model are resized to exactly that size, so the image processor leaves them
as they are and the frame is the image.

Actions a dialect lacks are converted the way the papers' data does, or the step is skipped and counted:

- `open` (InquireMobile's action space has none): InquireMobile's released trajectories start an app from the home
  screen by tapping its launcher icon. When the step's screen lists an element whose text or description is the
  app's name, the step becomes a `click` at that element's centre (its box becomes the step's `bbox` when it has
  none); otherwise the step is skipped as "open: no launcher icon for <app> on screen".
- any other missing action (`call_user` for qwen2.5vl or mobile-r1, `answer`, ...) is skipped as
  "<action>: not in the <dialect> dialect".

Skipped steps stay in the history of later steps, as they happened.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, replace

from mobile_r1.core.actions import Action, ActionType
from mobile_r1.core.dialects.base import Dialect
from mobile_r1.core.errors import DataError
from mobile_r1.core.geometry import MIN_PIXELS, Frame
from mobile_r1.core.records import Episode, Observation, Step, UIElement

# The pixel bound training uses by default (`PromptSettings.max_pixels`), 1280 patches of 28 x 28.
DEFAULT_MAX_PIXELS = 1280 * 28 * 28


@dataclass(frozen=True, slots=True)
class FrameSettings:
    """How a screen becomes the model's image: pre-scale, then Qwen2.5-VL `smart_resize` within pixel bounds."""

    prescale: float = 1.0
    min_pixels: int = MIN_PIXELS
    max_pixels: int = DEFAULT_MAX_PIXELS

    def __post_init__(self) -> None:
        if not self.prescale > 0:
            raise DataError(f"prescale must be > 0, got {self.prescale}")
        if not 0 < self.min_pixels <= self.max_pixels:
            raise DataError(f"pixel bounds must satisfy 0 < min_pixels <= max_pixels, got {self.min_pixels}, {self.max_pixels}")

    def frame(self, screen_size: tuple[int, int]) -> Frame:
        """The model frame of a screen of `screen_size` (width, height) pixels."""
        return Frame.qwen(int(screen_size[0]), int(screen_size[1]), prescale=self.prescale,
                          min_pixels=self.min_pixels, max_pixels=self.max_pixels)


@dataclass(slots=True)
class ModelStep:
    """One labelled step ready to render: its action (converted for the dialect) and history in the model frame."""

    episode: Episode
    index: int
    step: Step
    history: list[Step]
    screen_size: tuple[int, int]
    frame: Frame
    converted_from: str | None = None
    meta: dict[str, object] = field(default_factory=dict)


def launcher_icon(observation: Observation | None, app: str) -> UIElement | None:
    """The element on screen that names `app` (text or content description, case and spaces ignored), if any."""
    if observation is None or not app:
        return None
    wanted = " ".join(app.split()).casefold()
    best: UIElement | None = None
    for element in observation.elements:
        x1, y1, x2, y2 = element.bounds
        if x2 <= x1 or y2 <= y1:
            continue
        names = {" ".join(n.split()).casefold() for n in (element.text, element.content_desc) if n}
        if wanted in names and (best is None or (element.clickable and not best.clickable)):
            best = element
    return best


def for_dialect(step: Step, dialect: Dialect) -> tuple[Step | None, str | None]:
    """(the step as `dialect` can say it, None) or (None, why it is skipped); see the module docstring."""
    action = step.action
    if dialect.allows(action):
        return step, None
    if action.type is ActionType.OPEN and dialect.allows(Action.click(0, 0)):
        icon = launcher_icon(step.observation, action.text or "")
        if icon is None:
            return None, f"open: no launcher icon for {action.text!r} on screen"
        converted = replace(step, action=Action.click(*icon.center), bbox=step.bbox or icon.bounds,
                            info={**step.info, "converted_from": action.to_arguments()})
        return converted, None
    return None, f"{action.type.value}: not in the {dialect.name} dialect"


def _screen_size(episode: Episode, step: Step) -> tuple[int, int]:
    if step.observation is not None:
        return (int(step.observation.screen_size[0]), int(step.observation.screen_size[1]))
    if episode.frame == "model" and episode.model_size is not None:
        return (int(episode.model_size[0]), int(episode.model_size[1]))
    if episode.screen_size is not None:
        return (int(episode.screen_size[0]), int(episode.screen_size[1]))
    raise DataError(f"episode {episode.id!r}: a step has no observation and the episode no screen_size; "
                    "the size of the screen its coordinates refer to is needed")


def model_steps(
    episodes: Iterable[Episode], dialect: Dialect, frames: FrameSettings, skipped: Counter[str] | None = None
) -> Iterator[ModelStep]:
    """Every step the dialect can say, in the model frame, with its history (see the module docstring).

    Steps that cannot be said are counted in `skipped` by reason.
    """
    for episode in episodes:
        converted: list[tuple[Step, str | None]] = [for_dialect(s, dialect) for s in episode.steps]
        shown: list[Step] = []  # earlier steps in the model frame, as they happened (converted when possible)
        for index, (step, (usable, reason)) in enumerate(zip(episode.steps, converted)):
            screen = _screen_size(episode, step)
            model = frames.frame(screen)
            if episode.frame == "model" and episode.model_size is not None:
                source = Frame(*episode.model_size)
            else:
                source = Frame.screen(*screen)
            history = [replace(s, action=s.action.map_points(lambda p: source.map(p, model))) for s in shown]
            said = usable if usable is not None else step
            shown.append(said)
            if usable is None:
                if skipped is not None:
                    skipped[reason or "unknown"] += 1
                continue
            label = usable.action.map_points(lambda p: source.map(p, model))
            origin = step.action.type.value if usable is not step else None
            yield ModelStep(episode, index, replace(usable, action=label), history, screen, model, origin)
