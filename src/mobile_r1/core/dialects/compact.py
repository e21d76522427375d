"""A compact tool-call dialect for small text-only models: short prompt, short screen listing, every action.

Output format (the same tags and parsing rules as the InquireMobile dialect, see toolcall.py):

    <think>
    ...
    </think>
    <tool_call>
    {"name": "mobile_use", "arguments": {"action": "click", "coordinate": [270, 600]}}
    </tool_call>

Unlike "inquire" it offers every `ActionType` (`open`, `call_user` and `answer` included), and its prompt is a
few lines: the action list, then the screen as one short line per element the agent can act on or read
(`"label" (x, y)`, coordinates in the model frame; no status bar, navigation bar or keyboard keys), the past steps
one line each (with the user's replies) and the task last. A past step names the element it touched as the screen listed it
(`click "Buy now"`), so the model reads what it did, not where.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from mobile_r1.core.actions import ActionType
from mobile_r1.core.dialects.base import Message, ObservationMode, window
from mobile_r1.core.dialects.observation import is_useful
from mobile_r1.core.dialects.toolcall import ToolCallDialect, tool_call_json
from mobile_r1.core.errors import ConfigError
from mobile_r1.core.geometry import Frame, point_in_box
from mobile_r1.core.records import Observation, Step, UIElement

COMPACT_ACTIONS: tuple[ActionType, ...] = tuple(ActionType)

COMPACT_SYSTEM = (
    "You operate a phone. Reply <think>...</think><tool_call>{\"name\": \"mobile_use\", \"arguments\": {...}}</tool_call>.\n"
    "Arguments: click, long_press: coordinate [x, y]; swipe: coordinate, coordinate2; type, key: text; "
    "open: text (app); system_button: button (Back, Home, Menu, Enter); wait: time; call_user: text (ask the user); "
    "answer: text; terminate: status (success, failure)."
)
NO_SCREEN = "(no screen)"
NO_ELEMENTS = "(empty screen)"


CHROME_PACKAGES = ("systemui", "inputmethod")  # status / navigation bars and soft keyboards: not listed
KEYBOARD_OPEN = "(keyboard open)"


def _actionable(element: UIElement) -> bool:
    return element.clickable or element.long_clickable or element.editable or element.checkable or element.scrollable


def box_area(bounds: tuple[int, int, int, int]) -> int:
    return max(0, bounds[2] - bounds[0]) * max(0, bounds[3] - bounds[1])


def _chrome(element: UIElement) -> bool:
    package = element.resource_id.split(":", 1)[0]
    return any(word in package for word in CHROME_PACKAGES)


@dataclass(frozen=True)
class ListedElement:
    """One line of the compact screen listing: the element, its name (`"Buy now"`, with `edit` / `scroll` /
    `focused` marks; empty for an unlabelled element) and its centre in the model frame."""

    element: UIElement
    name: str
    point: tuple[int, int]

    @property
    def line(self) -> str:
        """`"Buy now" (499, 1351)`: the name and the point, as the screen listing shows them."""
        where = f"({self.point[0]}, {self.point[1]})"
        return f"{self.name} {where}" if self.name else where


def compact_listing(observation: Observation, model_frame: Frame | None = None) -> tuple[list[ListedElement], bool]:
    """The elements `compact_screen` lists, with their lines, and whether a soft keyboard is open.

    Listed: actionable elements (click, long press, edit, check, scroll), labelled by their own text or
    description, else by the texts inside them (a scrolling list by its resource name); and text that sits in
    no actionable element. The status bar, the navigation bar (`system_button` does Back and Home) and the soft
    keyboard's keys (`type` does the typing) are left out; an open keyboard is said in one line.
    """
    screen = Frame.screen(*observation.screen_size)
    target = model_frame or screen
    by_id = {e.id: e for e in observation.elements}
    children: dict[int, list[UIElement]] = {}
    for element in observation.elements:
        if element.parent is not None:
            children.setdefault(element.parent, []).append(element)

    def ancestors(element: UIElement) -> list[UIElement]:
        out, seen = [], {element.id}
        while element.parent is not None and element.parent in by_id and element.parent not in seen:
            element = by_id[element.parent]
            seen.add(element.id)
            out.append(element)
        return out

    def inner_text(element: UIElement) -> str:
        texts: list[str] = []
        stack = list(reversed(children.get(element.id, [])))
        while stack and len(texts) < 2:
            child = stack.pop()
            label = (child.text or child.content_desc).strip()
            if label and label not in texts:
                texts.append(label)
            stack.extend(reversed(children.get(child.id, [])))
        return " ".join(texts)

    listed: list[ListedElement] = []
    keyboard = False
    for element in observation.elements:
        up = ancestors(element)
        if _chrome(element) or any(_chrome(a) for a in up):
            keyboard = keyboard or "inputmethod" in element.resource_id
            continue
        if not is_useful(element):
            continue
        own = (element.text or element.content_desc).strip()
        if element.scrollable:
            label = own or element.resource_id.rsplit("/", 1)[-1]
        elif _actionable(element):
            label = own or inner_text(element) or element.resource_id.rsplit("/", 1)[-1]
        elif own and not any(_actionable(a) for a in up):
            label = own
        else:
            continue
        cx, cy = screen.map(element.center, target)
        parts = []
        if label:
            parts.append(json.dumps(label, ensure_ascii=False))
        if element.editable:
            parts.append("edit")
        if element.scrollable:
            parts.append("scroll")
        if element.focused:
            parts.append("focused")
        listed.append(ListedElement(element, " ".join(parts), (cx, cy)))
    return listed, keyboard


def compact_screen(observation: Observation, model_frame: Frame | None = None) -> str:
    """One short line per element a small model needs: `"label" (x, y)`, the centre in `model_frame` when given."""
    listed, keyboard = compact_listing(observation, model_frame)
    lines = [item.line for item in listed] + ([KEYBOARD_OPEN] if keyboard else [])
    return "\n".join(lines) if lines else NO_ELEMENTS


def listed_at(observation: Observation, point: tuple[int, int], model_frame: Frame | None = None) -> ListedElement | None:
    """The listed element at `point` (model frame): the one whose centre is the point, else the smallest listed
    element that contains it; None when no listed element does."""
    listed, _ = compact_listing(observation, model_frame)
    hit = next((item for item in listed if item.point == tuple(point)), None)
    if hit is None:
        screen = Frame.screen(*observation.screen_size)
        x, y = (model_frame or screen).map(point, screen)
        inside = [item for item in listed if point_in_box((x, y), item.element.bounds)]
        hit = min(inside, key=lambda item: box_area(item.element.bounds), default=None)
    return hit


def compact_target(observation: Observation, point: tuple[int, int], model_frame: Frame | None = None) -> str | None:
    """The listed element at `point` (model frame) as the screen lists it, e.g. `"Buy now" (499, 1351)`."""
    hit = listed_at(observation, point, model_frame)
    return hit.line if hit is not None else None


class CompactDialect(ToolCallDialect):
    """<think> + `mobile_use` tool call over the full action space, with a few-line prompt (text observations)."""

    name = "compact"
    action_types = COMPACT_ACTIONS
    tags = ("think", "tool_call")

    def system_prompt(self, model_frame: Frame | None = None) -> str:
        return COMPACT_SYSTEM

    def target_text(self, observation: Observation, point: tuple[int, int], model_frame: Frame | None = None) -> str | None:
        return compact_target(observation, point, model_frame)

    def step_text(self, index: int, step: Step, model_frame: Frame | None = None) -> str:
        """One history line, short: `3. click "Buy now"` (the element a point action touched, as the screen listed it;
        its point when nothing named was listed there), `4. type "hello"`, `5. call_user -> user: Yes, go ahead`."""
        action = step.action
        args = action.to_arguments()
        kind = args.pop("action")
        if action.coordinate is not None:
            hit = listed_at(step.observation, action.coordinate, model_frame) if step.observation is not None else None
            if hit is not None and hit.name and kind != "swipe":
                what = hit.name
            else:
                what = " to ".join(f"({p[0]}, {p[1]})" for p in (action.coordinate, action.coordinate2) if p is not None)
        elif kind == "call_user":
            what = ""
        else:
            what = " ".join(json.dumps(v, ensure_ascii=False) if isinstance(v, str) else str(v) for v in args.values())
        line = f"{index}. {kind} {what}".rstrip()
        if step.user_reply is not None:
            line += f" -> user: {step.user_reply}"
        return line

    def history_text(self, steps: Sequence[Step], model_frame: Frame | None = None) -> str:
        return "\n".join(self.step_text(i, s, model_frame) for i, s in enumerate(steps, start=1)) if steps else "(none)"

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
        # the screen first, the task last: what the answer has to copy from (the app, a name, a text) sits right
        # before it, which a small model learns to read much sooner
        tail = f"\nPast steps:\n{self.history_text(steps, model_frame)}\nTask: {instruction}"
        system = {"role": "system", "content": self.system_prompt(model_frame)}
        if observation is None:
            return [system, {"role": "user", "content": f"Screen:\n{NO_SCREEN}{tail}"}]
        if observation_mode == "image":
            return [system, {"role": "user", "content": [{"type": "text", "text": "Screen:\n"}, {"type": "image"},
                                                          {"type": "text", "text": tail}]}]
        return [system, {"role": "user", "content": f"Screen:\n{compact_screen(observation, model_frame)}{tail}"}]


__all__ = ["COMPACT_ACTIONS", "CompactDialect", "ListedElement", "compact_listing", "compact_screen", "compact_target",
           "listed_at", "tool_call_json"]
