"""The `Dialect` interface (prompt + parse + render for one model family) and its `ParseResult`.

A dialect translates between model text and the shared `Action`: it builds the chat messages a model is
prompted with (`build_messages`), reads an action back out of whatever the model wrote (`parse`, which never
raises) and writes the assistant text a model is trained to produce (`render`). Coordinates inside dialect
text are in the model frame (the image the model saw); dialects never convert them, callers do with `Frame`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

from mobile_r1.core.actions import Action, ActionType
from mobile_r1.core.errors import ActionError
from mobile_r1.core.geometry import MAX_COORDINATE, Frame
from mobile_r1.core.records import Observation, Step

ObservationMode = Literal["image", "text"]
Message = dict[str, Any]

# The most text `parse` reads of one reply. A model cannot write more than its token budget allows, and no token
# of the tokenizers in use is longer than 16 characters on average over a reply, so `reply_chars(max_new_tokens)` is
# the longest real reply; where the budget is unknown, DEFAULT_MAX_CHARS (64 KiB) is far above any.
DEFAULT_MAX_CHARS = 65_536
CHARS_PER_TOKEN = 16


def reply_chars(max_new_tokens: int | None) -> int:
    """The longest reply a model can give with `max_new_tokens` (16 characters a token); the default when unknown."""
    if max_new_tokens is None or max_new_tokens <= 0:
        return DEFAULT_MAX_CHARS
    return int(max_new_tokens) * CHARS_PER_TOKEN


def coordinate_problem(action: Action) -> str | None:
    """Why the action's points cannot be a place on any screen (negative, or beyond `MAX_COORDINATE`), or None."""
    for name in ("coordinate", "coordinate2"):
        point = getattr(action, name)
        if point is not None and not all(0 <= v <= MAX_COORDINATE for v in point):
            shown = [int(v) if float(v).is_integer() else v for v in point]
            return f"'{name}' {shown} is off any screen (each value must be from 0 to {MAX_COORDINATE:,})"
    return None


@dataclass(frozen=True)
class ParseResult:
    """What a dialect read out of one model output.

    `action` is None when no action could be read. `valid` says whether the whole output follows the
    dialect's format and the action is one the dialect offers; `error` says why not (or why no action).
    An action can be present while `valid` is False (for example a tool call wrapped in a ```json fence).
    """

    action: Action | None
    thought: str | None
    description: str | None
    valid: bool
    error: str | None
    raw: str

    @property
    def ok(self) -> bool:
        """An action was read and the output is well-formed."""
        return self.valid and self.action is not None


class Dialect:
    """One model family's prompt and output format. Get one with `get_dialect(name)`."""

    name: str = ""
    action_types: tuple[ActionType, ...] = ()

    def system_prompt(self, model_frame: Frame | None = None) -> str:
        """The system message text; `model_frame` is the size of the image the model sees, where relevant."""
        raise NotImplementedError

    def build_messages(
        self,
        instruction: str,
        observation: Observation | None,
        history: Sequence[Step] = (),
        *,
        observation_mode: ObservationMode = "image",
        model_frame: Frame | None = None,
        history_window: int | None = None,
    ) -> list[Message]:
        """HF chat-template messages for one step: the system prompt, then the user turn.

        In image mode each screenshot is a `{"type": "image"}` placeholder; `image_observations` says which
        observation's pixels go into each placeholder, in order. In text mode the observation's elements are
        rendered as an accessibility-tree text instead. `history_window` keeps only the last N steps.
        """
        raise NotImplementedError

    def image_observations(
        self, observation: Observation | None, history: Sequence[Step] = (), *, history_window: int | None = None
    ) -> list[Observation]:
        """The observations whose screenshots fill the image placeholders of `build_messages`, in order."""
        return [observation] if observation is not None else []

    max_chars: int = DEFAULT_MAX_CHARS

    def parse(self, text: str, *, max_chars: int | None = None) -> ParseResult:
        """Read the action, thought and description out of a model output. Never raises.

        Only the first `max_chars` characters are read (default `self.max_chars`; agents pass `reply_chars` of their
        token budget): a longer text is reported as truncated and is never valid, so parsing time is bounded by the
        cap whatever a model or an endpoint sends. Points off any screen (negative, or beyond `MAX_COORDINATE`)
        leave the action readable but make the output invalid.
        """
        if not isinstance(text, str):
            return ParseResult(None, None, None, False, f"model output must be text, got {type(text).__name__}",
                               repr(text)[:200])
        limit = self.max_chars if max_chars is None else max(0, int(max_chars))
        try:
            result = self._parse(text if len(text) <= limit else text[:limit])
        except Exception as exc:  # noqa: BLE001 - parse must never raise, whatever the input
            return ParseResult(None, None, None, False, f"unreadable output: {str(exc)[:300]}", text)
        problems = [result.error] if result.error else []
        if result.action is not None:
            off = coordinate_problem(result.action)
            if off:
                problems.append(off)
        if len(text) > limit:
            problems.insert(0, f"the reply is {len(text):,} characters, more than the {limit:,} a reply can hold; "
                               f"only the first {limit:,} were read (truncated)")
        if not problems:
            return result if result.raw is text else replace(result, raw=text)
        return replace(result, valid=False, error="; ".join(problems), raw=text)

    def _parse(self, text: str) -> ParseResult:
        """Read one reply of at most `max_chars` characters (subclasses implement this; `parse` wraps it)."""
        raise NotImplementedError

    def render(self, action: Action, thought: str = "", description: str = "") -> str:
        """The assistant text that expresses `action` in this dialect (the SFT target)."""
        raise NotImplementedError

    def target_text(self, observation: Observation, point: tuple[int, int], model_frame: Frame | None = None) -> str | None:
        """How the prompt shows the element at `point` (model frame), for grounded thoughts; None when it cannot say.

        Only dialects whose screen listing names elements with their points answer (compact); see
        `PromptSettings.thought` ("grounded", "brief").
        """
        return None

    # ----- helpers shared by the dialects -------------------------------------------------------------
    def allows(self, action: Action) -> bool:
        return action.type in self.action_types

    def check_allowed(self, action: Action) -> None:
        """Raise ActionError when the dialect's action space has no `action.type`."""
        if not self.allows(action):
            offered = ", ".join(t.value for t in self.action_types)
            raise ActionError(
                f"the {self.name} dialect has no '{action.type.value}' action; it offers: {offered}"
            )

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r})"


def window(history: Sequence[Step], history_window: int | None) -> list[Step]:
    """The last `history_window` steps (all when None, none when 0)."""
    steps = list(history)
    if history_window is None:
        return steps
    if history_window < 0:
        raise ActionError(f"history_window must be >= 0 or None, got {history_window}")
    return steps[len(steps) - history_window :] if history_window else []
