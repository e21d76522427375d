"""UI-TARS dialect: `Thought: ...` then `Action: click(start_box='(x,y)')`, both ways.

Grammar (bytedance/UI-TARS mobile prompt; `action_parser.py` for how outputs are read):

    click(start_box='(x,y)')                 <-> click
    long_press(start_box='(x,y)')            <-> long_press (an optional time='2' is kept)
    type(content='...')                      <-> type
    drag(start_box='(x1,y1)', end_box='(x2,y2)')  <-> swipe (exact start and end)
    scroll(start_box='(x,y)', direction='down')   ->  swipe from (x,y), `scroll_distance` long, the finger
                                                     moving against `direction` (scroll down = finger up)
    open_app(app_name='...')                 <-> open
    press_back() / press_home()              <-> system_button Back / Home
    hotkey(key='enter') / hotkey(key='menu') <-> system_button Enter / Menu; any other key <-> key (a key
                                                 "enter" is written as hotkey too and reads back as the button)
    wait()                                   <-> wait (UI-TARS's wait has no duration)
    finished() / finished(content='')        <-> terminate success
    finished(content='failure')              <-> terminate failure
    finished(content='...')                  <-> answer
    call_user() / call_user(content='...')   <-> call_user (official UI-TARS writes call_user() and asks in
                                                 the Thought; we keep the question in `content` when given)

Points are read from `start_box='(x,y)'`, `'<|box_start|>(x,y)<|box_end|>'`, `'<point>x y</point>'` (UI-TARS-1.5
`point=`) and boxes `'(x1,y1,x2,y2)'` (their centre). Coordinates are the numbers the model wrote: UI-TARS-1.5
answers in pixels of the smart-resized image (`Frame.qwen`), UI-TARS 1.0 on a 0..1000 grid; callers convert.
String arguments use Python escapes (\\' \\" \\n \\\\), as the prompt asks.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from typing import Any

from mobile_r1.core.actions import Action, ActionType
from mobile_r1.core.dialects import prompts as P
from mobile_r1.core.dialects.base import Dialect, Message, ObservationMode, ParseResult, window
from mobile_r1.core.dialects.observation import render_elements
from mobile_r1.core.errors import ActionError, ConfigError
from mobile_r1.core.geometry import Frame
from mobile_r1.core.records import Observation, Step

UITARS_ACTIONS: tuple[ActionType, ...] = (
    ActionType.CLICK,
    ActionType.LONG_PRESS,
    ActionType.SWIPE,
    ActionType.TYPE,
    ActionType.KEY,
    ActionType.SYSTEM_BUTTON,
    ActionType.OPEN,
    ActionType.WAIT,
    ActionType.TERMINATE,
    ActionType.ANSWER,
    ActionType.CALL_USER,
)
FAILURE_CONTENT = "failure"
_BUTTON_KEYS = {"enter": "Enter", "menu": "Menu"}
_SCROLL_DIRECTIONS = {"up": (0, 1), "down": (0, -1), "left": (1, 0), "right": (-1, 0)}  # finger movement

_ACTION = "Action:"
_CALL = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)\s*\((.*)\)\s*$", re.DOTALL)
_ARG = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(?:'((?:[^'\\]|\\.)*)'|\"((?:[^\"\\]|\\.)*)\")\s*(,|$)", re.DOTALL)
_NUMBER = r"-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?"
_NUMBER_RE = re.compile(_NUMBER)
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "'": "'", '"': '"', "\\": "\\"}


def escape(text: str) -> str:
    """Write `text` inside single quotes the way UI-TARS reads it back."""
    return (
        text.replace("\\", "\\\\").replace("'", "\\'").replace("\n", "\\n").replace("\r", "\\r").replace("\t", "\\t")
    )


def unescape(text: str) -> str:
    return re.sub(r"\\(.)", lambda m: _ESCAPES.get(m.group(1), "\\" + m.group(1)), text, flags=re.DOTALL)


def _num(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def point_text(point: tuple[float, float]) -> str:
    return f"({_num(point[0])},{_num(point[1])})"


def read_point(value: str) -> tuple[float, float]:
    """The point a UI-TARS box argument names: `(x,y)`, `<point>x y</point>` or a box `(x1,y1,x2,y2)` (centre)."""
    found = _NUMBER_RE.finditer(value.replace("<|box_start|>", "").replace("<|box_end|>", ""))
    numbers = [float(m.group(0)) for m in itertools.islice(found, 5)]  # a fifth number already makes it invalid
    if len(numbers) == 2:
        return (_intlike(numbers[0]), _intlike(numbers[1]))
    if len(numbers) == 4:
        return (_intlike((numbers[0] + numbers[2]) / 2), _intlike((numbers[1] + numbers[3]) / 2))
    shown = value if len(value) <= 80 else value[:77] + "..."
    raise ActionError(f"expected a point '(x,y)' or a box '(x1,y1,x2,y2)', got {shown!r}")


def _intlike(value: float) -> float:
    value = float(value)
    return int(value) if value.is_integer() else value


def parse_call(text: str) -> tuple[str, dict[str, str]]:
    """Split `name(key='value', ...)` into the name and its (unescaped) string arguments."""
    match = _CALL.match(text.strip())
    if match is None:
        raise ActionError(f"expected an action call like click(start_box='(x,y)'), got {text.strip()[:80]!r}")
    name, body = match.group(1), match.group(2)
    args: dict[str, str] = {}
    pos = 0
    body = body.strip()
    while pos < len(body):
        arg = _ARG.match(body, pos)
        if arg is None:
            raise ActionError(f"{name}: cannot read the arguments {body[pos:][:80]!r}")
        raw = arg.group(2) if arg.group(2) is not None else arg.group(3)
        args[arg.group(1)] = unescape(raw)
        pos = arg.end()
    return name, args


class UITarsDialect(Dialect):
    """UI-TARS's Thought/Action format, with the official mobile prompt.

    `language` fills the prompt's "Use {language} in `Thought` part."; `with_call_user` adds UI-TARS's own
    call_user line (from its computer-use prompt) to the action space; `scroll_distance` is how far (in model
    units) a parsed `scroll` swipes; `history_images` keeps screenshots of only the last N history steps
    (UI-TARS agents keep about 5).
    """

    name = "uitars"
    action_types = UITARS_ACTIONS

    def __init__(
        self,
        *,
        language: str = "English",
        with_call_user: bool = False,
        scroll_distance: float = 300.0,
        history_images: int | None = None,
    ) -> None:
        self.language = language
        self.with_call_user = with_call_user
        self.scroll_distance = scroll_distance
        self.history_images = history_images

    # ----- prompt ----------------------------------------------------------------------------------------
    def system_prompt(self, model_frame: Frame | None = None) -> str:
        return P.UITARS_SYSTEM

    def instruction_prompt(self, instruction: str) -> str:
        """The first user turn: the mobile action space and the task."""
        extra = P.UITARS_CALL_USER_LINE if self.with_call_user else ""
        return P.UITARS_MOBILE_PROMPT.format(extra_actions=extra, language=self.language, instruction=instruction)

    def _image_steps(self, steps: list[Step]) -> list[Step]:
        with_obs = [s for s in steps if s.observation is not None]
        if self.history_images is None:
            return with_obs
        return with_obs[len(with_obs) - self.history_images :] if self.history_images else []

    def image_observations(
        self, observation: Observation | None, history: Sequence[Step] = (), *, history_window: int | None = None
    ) -> list[Observation]:
        steps = self._image_steps(window(history, history_window))
        out = [s.observation for s in steps if s.observation is not None]
        if observation is not None:
            out.append(observation)
        return out

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
        """System, the instruction turn, then per history step: its screenshot (user) and its output (assistant)."""
        steps = window(history, history_window)
        shown = {id(s) for s in self._image_steps(steps)}
        messages: list[Message] = [
            {"role": "system", "content": self.system_prompt(model_frame)},
            {"role": "user", "content": self.instruction_prompt(instruction)},
        ]
        for step in steps:
            if id(step) in shown and step.observation is not None:
                messages.append({"role": "user", "content": self._screen(step.observation, observation_mode, model_frame)})
            text = step.model_text if step.model_text is not None else self.render(step.action, thought=step.thought)
            messages.append({"role": "assistant", "content": text})
            if step.user_reply is not None:
                messages.append({"role": "user", "content": step.user_reply})
        if observation is not None:
            messages.append({"role": "user", "content": self._screen(observation, observation_mode, model_frame)})
        return _join_user_turns(messages)

    def _screen(self, observation: Observation, mode: ObservationMode, model_frame: Frame | None) -> Any:
        if mode == "image":
            return [{"type": "image"}]
        if mode == "text":
            return render_elements(observation.elements, observation.screen_size, model_frame)
        raise ConfigError(f"observation_mode must be 'image' or 'text', got {mode!r}")

    # ----- render ----------------------------------------------------------------------------------------
    def render(self, action: Action, thought: str = "", description: str = "") -> str:
        self.check_allowed(action)
        return f"Thought: {thought.strip()}\nAction: {self.action_text(action)}"

    def action_text(self, action: Action) -> str:
        """The `Action:` call for `action`."""
        t = action.type
        if t is ActionType.CLICK:
            return f"click(start_box='{point_text(action.coordinate)}')"  # type: ignore[arg-type]
        if t is ActionType.LONG_PRESS:
            time = f", time='{_num(action.time)}'" if action.time is not None else ""
            return f"long_press(start_box='{point_text(action.coordinate)}'{time})"  # type: ignore[arg-type]
        if t is ActionType.SWIPE:
            return (
                f"drag(start_box='{point_text(action.coordinate)}', "  # type: ignore[arg-type]
                f"end_box='{point_text(action.coordinate2)}')"  # type: ignore[arg-type]
            )
        if t is ActionType.TYPE:
            return f"type(content='{escape(action.text or '')}')"
        if t is ActionType.KEY:  # keys "enter" / "menu" read back as the (same) Enter / Menu button
            return f"hotkey(key='{escape(action.text or '')}')"
        if t is ActionType.SYSTEM_BUTTON:
            if action.button == "Back":
                return "press_back()"
            if action.button == "Home":
                return "press_home()"
            return f"hotkey(key='{(action.button or '').lower()}')"
        if t is ActionType.OPEN:
            return f"open_app(app_name='{escape(action.text or '')}')"
        if t is ActionType.WAIT:
            return "wait()"
        if t is ActionType.TERMINATE:
            return "finished()" if action.status == "success" else f"finished(content='{FAILURE_CONTENT}')"
        if t is ActionType.ANSWER:
            if not (action.text or "").strip() or action.text.strip().lower() == FAILURE_CONTENT:  # type: ignore[union-attr]
                raise ActionError(f"uitars: an answer of {action.text!r} would read back as a terminate")
            return f"finished(content='{escape(action.text)}')"
        if t is ActionType.CALL_USER:
            return f"call_user(content='{escape(action.content)}')" if action.content else "call_user()"
        raise ActionError(f"uitars: no UI-TARS action for {t.value}")

    # ----- parse -----------------------------------------------------------------------------------------
    def _parse(self, text: str) -> ParseResult:
        found = last_action_line(text)
        thought = _thought(text[: found[0]] if found else text)
        if found is None:
            return ParseResult(None, thought, None, False, "no 'Action:' line", text)
        call = text[found[1] :].strip()
        problems: list[str] = []
        if thought is None:
            problems.append("no 'Thought:' before the action")
        if "\n" in call:  # several actions ("a()\n\nb()"): UI-TARS runs them in turn; we read the first
            first = call.split("\n", 1)[0].strip()
            if _CALL.match(first):
                problems.append("more than one action; the first is read")
                call = first
        try:
            action = self.read_action(call)
        except (ActionError, TypeError, ValueError) as exc:
            return ParseResult(None, thought, None, False, str(exc), text)
        valid = not problems
        return ParseResult(action, thought, None, valid, None if valid else problems[0], text)

    def read_action(self, call: str) -> Action:
        """Our action for one UI-TARS call such as `click(start_box='(10,20)')`."""
        name, args = parse_call(call)
        name = name.lower()

        def need(*keys: str) -> str:
            for key in keys:
                if key in args:
                    return args[key]
            raise ActionError(f"{name}: missing argument '{keys[0]}'")

        start_keys = ("start_box", "point", "start_point")
        if name in ("click", "left_single", "tap"):
            return Action.click(*read_point(need(*start_keys)))
        if name == "long_press":
            x, y = read_point(need(*start_keys))
            time = args.get("time", "").strip()
            return Action.long_press(x, y, float(time) if time else None)
        if name in ("drag", "swipe", "select"):
            x, y = read_point(need(*start_keys))
            x2, y2 = read_point(need("end_box", "end_point"))
            return Action.swipe(x, y, x2, y2)
        if name == "scroll":
            x, y = read_point(need(*start_keys))
            if "end_box" in args or "end_point" in args:
                x2, y2 = read_point(need("end_box", "end_point"))
                return Action.swipe(x, y, x2, y2)
            direction = need("direction").strip().lower()
            if direction not in _SCROLL_DIRECTIONS:
                raise ActionError(f"scroll: 'direction' must be up, down, left or right; got {direction!r}")
            dx, dy = _SCROLL_DIRECTIONS[direction]
            d = self.scroll_distance
            return Action.swipe(x, y, _intlike(max(0.0, x + dx * d)), _intlike(max(0.0, y + dy * d)))
        if name == "type":
            return Action.type_text(need("content"))
        if name == "open_app":
            return Action.open(need("app_name"))
        if name == "press_back":
            return Action.back()
        if name == "press_home":
            return Action.home()
        if name in ("hotkey", "press"):
            key = need("key", "hotkey", "press")
            button = _BUTTON_KEYS.get(key.strip().lower())
            return Action.system_button(button) if button else Action.key(key)
        if name == "wait":
            return Action.wait()
        if name in ("finished", "done"):
            content = args.get("content", "")
            if not content.strip():
                return Action.terminate("success")
            if content.strip().lower() == FAILURE_CONTENT:
                return Action.terminate("failure")
            return Action.answer(content)
        if name == "call_user":
            return Action.call_user(args.get("content", ""))
        raise ActionError(f"unknown UI-TARS action {name!r}")


def last_action_line(text: str) -> tuple[int, int] | None:
    """(start of the line, end of its `Action:`) for the last line that begins with `Action:` after spaces or tabs.

    A backwards walk over the lines that hold "Action:", each looked at once, in place of a multi-line regex over
    the whole reply.
    """
    end = len(text)
    while end > 0:
        at = text.rfind(_ACTION, 0, end)
        if at < 0:
            return None
        line = text.rfind("\n", 0, at) + 1
        lead = text[line:at]
        head = line + len(lead) - len(lead.lstrip(" \t"))  # where a line-leading "Action:" would have to start
        if text.startswith(_ACTION, head):
            return line, head + len(_ACTION)
        end = line
    return None


def _thought(head: str) -> str | None:
    """The text after `Thought:` (or `Action_Summary:`) in the part before the action line, stripped."""
    for label in ("Thought:", "Action_Summary:"):
        i = head.find(label)
        if i >= 0:
            return head[i + len(label) :].strip()
    return None


def _join_user_turns(messages: list[Message]) -> list[Message]:
    """Merge consecutive user turns (a reply followed by a screenshot) into one turn."""
    out: list[Message] = []
    for m in messages:
        if out and m["role"] == "user" and out[-1]["role"] == "user":
            out[-1] = {"role": "user", "content": _as_list(out[-1]["content"]) + _as_list(m["content"])}
        else:
            out.append(m)
    return out


def _as_list(content: Any) -> list[dict[str, Any]]:
    return content if isinstance(content, list) else [{"type": "text", "text": content}]
