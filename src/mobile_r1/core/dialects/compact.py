"""A compact tool-call dialect for small text-only models: short prompt, short screen listing, every action.

Output format (the same tags and parsing rules as the InquireMobile dialect, see toolcall.py):

    <think>
    ...
    </think>
    <tool_call>
    {"name": "mobile_use", "arguments": {"action": "click", "coordinate": [270, 600]}}
    </tool_call>

Unlike "inquire" it offers every `ActionType` (`open`, `call_user` and `answer` included), and its prompt is a
few lines: the action list, the task, the past steps one line each (with the user's replies) and the screen as
one short line per useful element (`[id] "label" (x, y)`, coordinates in the model frame).
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from mobile_r1.core.actions import ActionType
from mobile_r1.core.dialects.base import Message, ObservationMode, window
from mobile_r1.core.dialects.observation import is_useful
from mobile_r1.core.dialects.toolcall import ToolCallDialect, tool_call_json
from mobile_r1.core.errors import ConfigError
from mobile_r1.core.geometry import Frame
from mobile_r1.core.records import Observation, Step

COMPACT_ACTIONS: tuple[ActionType, ...] = tuple(ActionType)

COMPACT_SYSTEM = (
    "You operate a phone. Reply with <think>reasoning</think> then "
    '<tool_call>{"name": "mobile_use", "arguments": {...}}</tool_call>.\n'
    "Actions: {actions}.\n"
    "click/long_press take coordinate [x, y]; swipe takes coordinate and coordinate2; type takes text; "
    "open takes text (app name); key takes text; system_button takes button (Back, Home, Menu, Enter); "
    "wait takes time; call_user takes text (a question for the user); answer takes text; "
    "terminate takes status (success or failure)."
)
NO_SCREEN = "(no screen)"
NO_ELEMENTS = "(empty screen)"


def compact_screen(observation: Observation, model_frame: Frame | None = None) -> str:
    """One short line per useful element: `[id] "label" (x, y)`, the centre in `model_frame` when given."""
    screen = Frame.screen(*observation.screen_size)
    target = model_frame or screen
    lines: list[str] = []
    for element in observation.elements:
        if not is_useful(element):
            continue
        label = element.text or element.content_desc or element.resource_id.rsplit("/", 1)[-1]
        cx, cy = screen.map(element.center, target)
        parts = [f"[{element.id}]"]
        if label:
            parts.append(json.dumps(label, ensure_ascii=False))
        if element.editable:
            parts.append("edit")
        parts.append(f"({cx}, {cy})")
        lines.append(" ".join(parts))
    return "\n".join(lines) if lines else NO_ELEMENTS


class CompactDialect(ToolCallDialect):
    """<think> + `mobile_use` tool call over the full action space, with a few-line prompt (text observations)."""

    name = "compact"
    action_types = COMPACT_ACTIONS
    tags = ("think", "tool_call")

    def system_prompt(self, model_frame: Frame | None = None) -> str:
        return COMPACT_SYSTEM.replace("{actions}", ", ".join(t.value for t in self.action_types))

    def step_text(self, index: int, step: Step) -> str:
        """One history line: the step number and its arguments as JSON, plus the user's reply if any."""
        line = f"{index}. {json.dumps(step.action.to_arguments(), ensure_ascii=False)}"
        if step.user_reply is not None:
            line += f" -> user: {step.user_reply}"
        return line

    def history_text(self, steps: Sequence[Step]) -> str:
        return "\n".join(self.step_text(i, s) for i, s in enumerate(steps, start=1)) if steps else "(none)"

    def image_observations(
        self, observation: Observation | None, history: Sequence[Step] = (), *, history_window: int | None = None
    ) -> list[Observation]:
        return [observation] if observation is not None else []

    def build_messages(
        self,
        instruction: str,
        observation: Observation | None,
        history: Sequence[Step] = (),
        *,
        observation_mode: ObservationMode = "text",
        model_frame: Frame | None = None,
        history_window: int | None = None,
    ) -> list[Message]:
        if observation_mode not in ("image", "text"):
            raise ConfigError(f"observation_mode must be 'image' or 'text', got {observation_mode!r}")
        steps = window(history, history_window)
        text = f"Task: {instruction}\nPast steps:\n{self.history_text(steps)}\nScreen:\n"
        system = {"role": "system", "content": self.system_prompt(model_frame)}
        if observation is None:
            return [system, {"role": "user", "content": text + NO_SCREEN}]
        if observation_mode == "image":
            return [system, {"role": "user", "content": [{"type": "text", "text": text}, {"type": "image"}]}]
        return [system, {"role": "user", "content": text + compact_screen(observation, model_frame)}]


__all__ = ["COMPACT_ACTIONS", "CompactDialect", "compact_screen", "tool_call_json"]
