"""The `Dialect` interface (prompt + parse + render for one model family) and its `ParseResult`.

A dialect translates between model text and the shared `Action`: it builds the chat messages a model is
prompted with (`build_messages`), reads an action back out of whatever the model wrote (`parse`, which never
raises) and writes the assistant text a model is trained to produce (`render`). Coordinates inside dialect
text are in the model frame (the image the model saw); dialects never convert them, callers do with `Frame`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from mobile_r1.core.actions import Action, ActionType
from mobile_r1.core.errors import ActionError
from mobile_r1.core.geometry import Frame
from mobile_r1.core.records import Observation, Step

ObservationMode = Literal["image", "text"]
Message = dict[str, Any]


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

    def parse(self, text: str) -> ParseResult:
        """Read the action, thought and description out of a model output. Never raises."""
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
