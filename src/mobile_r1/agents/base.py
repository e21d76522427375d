"""The Agent interface (request -> model text + parsed action in screen pixels) and the dialect plumbing agents share.

Every agent answers `act(AgentRequest) -> AgentOutput`; `act_batch` answers many requests at once (one
model call for many episodes where the agent can). A model speaks its dialect in the model frame (the
image it saw, a 0..999 grid, or the screen itself for text-only models); `ModelView` holds that choice
and converts the parsed action back to screen pixels, so `AgentOutput.action` is always in screen pixels.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any, Literal, Sequence

from PIL import Image

from mobile_r1.core.actions import Action
from mobile_r1.core.dialects import Dialect, ParseResult, get_dialect
from mobile_r1.core.errors import ConfigError
from mobile_r1.core.geometry import MAX_PIXELS, MIN_PIXELS, Frame
from mobile_r1.core.reading import read_json
from mobile_r1.core.records import Observation, Step
from mobile_r1.env.protocol import EpisodeRef, TaskEnv

FrameKind = Literal["qwen", "normalized", "screen"]
FRAME_KINDS: tuple[str, ...] = ("qwen", "normalized", "screen")
# Written next to a trained model: the view its training prompts were built with (`ModelView.save`), so an agent
# that loads the model prompts it the same way unless told otherwise (`saved_view_options`).
VIEW_FILE = "prompt_view.json"


@dataclass(slots=True)
class AgentRequest:
    """What an agent is asked at one step: the task, the current screen and the steps taken so far.

    `history` steps hold actions in screen pixels. `episode_id` lets stateful agents tell episodes apart.
    """

    instruction: str
    observation: Observation
    history: list[Step] = field(default_factory=list)
    episode_id: str | None = None


@dataclass(slots=True)
class AgentOutput:
    """An agent's answer: the raw model text, what the dialect read from it, and the action in screen pixels.

    `action` is None when nothing usable could be read (see `parse.error`); the caller decides what that
    costs (the papers end the episode or count a wasted step). `error` is set when the agent itself could not
    answer this request (an endpoint that kept sending malformed replies): the step is an agent error, and a runner
    ends that episode while the others go on.
    """

    text: str
    parse: ParseResult
    action: Action | None
    info: dict[str, Any] = field(default_factory=dict)
    error: str | None = None

    @classmethod
    def failed(cls, error: str, **info: Any) -> AgentOutput:
        """The output of a request the agent could not answer: no text, no action, `error` saying why."""
        return cls(text="", parse=ParseResult(None, None, None, False, f"agent error: {error}", ""), action=None,
                   info=dict(info), error=error)

    @property
    def thought(self) -> str:
        return self.parse.thought or ""

    @property
    def description(self) -> str:
        return self.parse.description or ""


class Agent:
    """Observation + task + history -> model text + action. Subclasses implement `act_batch` or `act`."""

    name: str = "agent"

    def act(self, request: AgentRequest) -> AgentOutput:
        return self.act_batch([request])[0]

    def act_batch(self, requests: Sequence[AgentRequest]) -> list[AgentOutput]:
        return [self.act(r) for r in requests]

    def reset(self, episode_id: str | None = None) -> None:
        """Forget anything kept about an episode (stateless agents ignore this)."""

    def start_episode(self, episode: EpisodeRef, env: TaskEnv) -> None:
        """Called before an episode's first request with the phone it is played on. Agents that need more than the
        screen (the scripted oracle needs the backend's expert) take it from `env`'s declared capabilities; model
        agents ignore this."""

    def start_episodes(self, started: Sequence[tuple[EpisodeRef, TaskEnv]]) -> None:
        """`start_episode` for each (episode, phone) pair; an agent that asks the phones for something overrides this to
        ask them all at once (`mobile_r1.env.expert_demos`), which a pool of remote phones answers in parallel."""
        for episode, env in started:
            self.start_episode(episode, env)

    def close(self) -> None:
        """Release clients, models or threads."""

    def __enter__(self) -> Agent:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@dataclass(frozen=True, slots=True)
class ModelView:
    """How a model sees the screen: the dialect, the observation mode and the frame its coordinates are in.

    `frame="qwen"` is Qwen2.5-VL's smart-resized image (after `prescale`, within the pixel bounds);
    `"normalized"` the 0..999 grid; `"screen"` the screen's own pixels (text-only models reading element
    bounds). `history_window` keeps only the last N steps in the prompt.
    """

    dialect: Dialect
    observation_mode: Literal["image", "text"] = "image"
    frame: FrameKind = "qwen"
    prescale: float = 1.0
    min_pixels: int = MIN_PIXELS
    max_pixels: int = MAX_PIXELS
    history_window: int | None = None

    @classmethod
    def create(
        cls,
        dialect: str | Dialect = "qwen2.5vl",
        *,
        observation_mode: str = "image",
        frame: str | None = None,
        prescale: float = 1.0,
        min_pixels: int = MIN_PIXELS,
        max_pixels: int = MAX_PIXELS,
        history_window: int | None = None,
    ) -> ModelView:
        """Validate the options; the frame defaults to "qwen" for image mode and "screen" for text mode."""
        if observation_mode not in ("image", "text"):
            raise ConfigError(f"observation mode must be 'image' or 'text'; got {observation_mode!r}")
        kind = frame or ("qwen" if observation_mode == "image" else "screen")
        if kind not in FRAME_KINDS:
            raise ConfigError(f"frame must be one of {', '.join(FRAME_KINDS)}; got {kind!r}")
        if not prescale > 0:
            raise ConfigError(f"prescale must be > 0, got {prescale}")
        d = get_dialect(dialect) if isinstance(dialect, str) else dialect
        return cls(d, observation_mode, kind, prescale, min_pixels, max_pixels, history_window)  # type: ignore[arg-type]

    def options(self) -> dict[str, Any]:
        """The keyword arguments of `create` that rebuild this view (the dialect by name)."""
        return {f.name: getattr(self, f.name) for f in fields(self)} | {"dialect": self.dialect.name}

    def save(self, folder: str | Path) -> Path:
        """Write `options()` to `folder/VIEW_FILE` (a training run does this next to the model it saves)."""
        path = Path(folder) / VIEW_FILE
        path.write_text(json.dumps(self.options(), indent=2) + "\n", encoding="utf-8")
        return path

    def model_frame(self, observation: Observation) -> Frame:
        w, h = observation.screen_size
        if self.frame == "qwen":
            return Frame.qwen(w, h, prescale=self.prescale, min_pixels=self.min_pixels, max_pixels=self.max_pixels)
        if self.frame == "normalized":
            return Frame.normalized()
        return Frame.screen(w, h)

    def prompt(self, request: AgentRequest) -> tuple[list[dict[str, Any]], list[Any]]:
        """The dialect's HF chat messages for this request and the images for their placeholders.

        History actions are moved into the model frame first, as the model wrote them. In image mode each
        screenshot is resized to the model frame's pixel size ("qwen"), or sent as it is.
        """
        obs = request.observation
        if self.observation_mode == "text" and obs.elements_missing:
            raise ConfigError(
                f"this agent reads the screen's element list (observation_mode='text'), but the phone gives none: "
                f"{obs.elements_missing}; use a screenshot dialect (--observation image) on this phone")
        frame = self.model_frame(obs)
        screen = Frame.screen(*obs.screen_size)
        history = [_step_in_frame(s, screen, frame) for s in request.history]
        messages = self.dialect.build_messages(
            request.instruction,
            obs,
            history,
            observation_mode=self.observation_mode,
            model_frame=frame,
            history_window=self.history_window,
        )
        images: list[Image.Image] = []
        if self.observation_mode == "image":
            for o in self.dialect.image_observations(obs, history, history_window=self.history_window):
                images.append(self.image_for(o))
        return messages, images

    def image_for(self, observation: Observation) -> Image.Image:
        """The screenshot as the model sees it (resized to the Qwen frame; RGB)."""
        if observation.screenshot is None:
            raise ConfigError(
                "this agent reads screenshots but the observation has none; use observation_mode='text' or an env that renders"
            )
        image = observation.screenshot
        if self.frame == "qwen":
            frame = self.model_frame(observation)
            size = (int(frame.width), int(frame.height))
            if image.size != size:
                image = image.resize(size, Image.Resampling.BICUBIC)
        return image.convert("RGB") if image.mode != "RGB" else image

    def read(self, text: str, observation: Observation, *, max_chars: int | None = None) -> tuple[ParseResult, Action | None]:
        """Parse model text and move its action from the model frame to screen pixels.

        `max_chars` caps the text the dialect reads (agents pass `reply_chars(max_new_tokens)`). A point outside the
        model's frame (the image the model saw, edges included) makes the output invalid and gives no action, so
        nothing off the screen is ever sent to a phone; `parse.error` says which point and which frame.
        """
        result = self.dialect.parse(text, max_chars=max_chars)
        if result.action is None:
            return result, None
        frame = self.model_frame(observation)
        for name, point in (("coordinate", result.action.coordinate), ("coordinate2", result.action.coordinate2)):
            if point is not None and not frame.contains(point):
                shown = [int(v) if float(v).is_integer() else v for v in point]
                problem = (f"'{name}' {shown} lies outside the {int(frame.width)}x{int(frame.height)} image the model "
                           "saw")
                return replace(result, valid=False, error=f"{result.error}; {problem}" if result.error else problem), None
        screen = Frame.screen(*observation.screen_size)
        return result, result.action.map_points(lambda p: frame.map(p, screen))

    def output(self, text: str, observation: Observation, *, max_chars: int | None = None, **info: Any) -> AgentOutput:
        result, action = self.read(text, observation, max_chars=max_chars)
        return AgentOutput(text=text, parse=result, action=action, info=dict(info))


def saved_view_options(model: str | Path) -> dict[str, Any]:
    """The view options saved next to a model folder (`VIEW_FILE`); {} for a preset, a hub id or a folder without one."""
    path = Path(model) / VIEW_FILE
    if not path.is_file():
        return {}
    data = read_json(path, kind=ConfigError)
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: expected a JSON object of view options")
    unknown = set(data) - {f.name for f in fields(ModelView)}
    if unknown:
        raise ConfigError(f"{path}: unknown view option {sorted(unknown)[0]!r}")
    return data


def _step_in_frame(step: Step, screen: Frame, frame: Frame) -> Step:
    if step.action.coordinate is None or frame == screen:
        return step
    return replace(step, action=step.action.map_points(lambda p: screen.map(p, frame)))
