"""The `human` agent: a person reads the screen's elements in the terminal and types the next action."""

from __future__ import annotations

import json
import sys
from typing import Any, TextIO

from mobile_r1.agents.base import Agent, AgentOutput, AgentRequest
from mobile_r1.agents.registry import register_agent
from mobile_r1.core.actions import Action
from mobile_r1.core.dialects import ParseResult, render_elements
from mobile_r1.core.errors import ActionError, ConfigError, MobileR1Error
from mobile_r1.core.records import Observation

HELP = """\
Actions (ID is an element number from the list, X Y are screen pixels):
  click ID | click X Y             long_press ID|X Y [SECONDS]
  swipe up|down|left|right         swipe X Y X2 Y2 (or: swipe ID X2 Y2)
  type TEXT                        key NAME (e.g. volume_up)
  back | home | menu | enter       open APP
  wait [SECONDS]                   done | fail (terminate success / failure)
  ask QUESTION (call the user)     answer TEXT
  {"action": "click", "coordinate": [x, y]}   (a raw mobile_use argument object)
  help"""
BUTTON_WORDS = {"back": "Back", "home": "Home", "menu": "Menu", "enter": "Enter"}


def parse_command(line: str, obs: Observation) -> Action:
    """The action a typed command line means on this screen; raises ActionError explaining what is wrong."""
    line = line.strip()
    if line.startswith("{"):
        return Action.from_json(line)
    verb, _, rest = line.partition(" ")
    verb, rest = verb.lower(), rest.strip()
    args = rest.split()
    if verb in BUTTON_WORDS and not rest:
        return Action.system_button(BUTTON_WORDS[verb])
    if verb in ("click", "tap", "long_press"):
        if len(args) == 1 or (verb == "long_press" and len(args) == 2 and _is_id(args[0], obs)):
            point = _element_center(args[0], obs)
            extra = args[1:]
        elif len(args) in (2, 3):
            point = (_number(args[0]), _number(args[1]))
            extra = args[2:]
        else:
            raise ActionError(f"{verb} needs an element ID or X Y")
        if verb == "long_press":
            return Action.long_press(*point, time=_number(extra[0]) if extra else None)
        if extra:
            raise ActionError("click takes an element ID or X Y, nothing more")
        return Action.click(*point)
    if verb == "swipe":
        w, h = obs.screen_size
        directions = {
            "up": (w / 2, h * 0.7, w / 2, h * 0.3),
            "down": (w / 2, h * 0.3, w / 2, h * 0.7),
            "left": (w * 0.8, h / 2, w * 0.2, h / 2),
            "right": (w * 0.2, h / 2, w * 0.8, h / 2),
        }
        if len(args) == 1 and args[0].lower() in directions:
            return Action.swipe(*(round(v) for v in directions[args[0].lower()]))
        if len(args) == 3:
            return Action.swipe(*_element_center(args[0], obs), _number(args[1]), _number(args[2]))
        if len(args) == 4:
            return Action.swipe(*(_number(a) for a in args))
        raise ActionError("swipe needs a direction (up, down, left, right) or X Y X2 Y2")
    if verb == "type" and rest:
        return Action.type_text(rest)
    if verb == "key" and rest:
        return Action.key(rest)
    if verb == "open" and rest:
        return Action.open(rest)
    if verb == "wait":
        return Action.wait(_number(args[0]) if args else None)
    if verb in ("done", "fail") and not rest:
        return Action.terminate("success" if verb == "done" else "failure")
    if verb == "terminate" and rest:
        return Action.terminate(rest)
    if verb in ("ask", "call_user") and rest:
        return Action.call_user(rest)
    if verb == "answer" and rest:
        return Action.answer(rest)
    raise ActionError(f"cannot read {line!r}; type 'help' for the list of actions")


def _number(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise ActionError(f"{text!r} is not a number") from None
    return int(value) if value.is_integer() else value


def _is_id(text: str, obs: Observation) -> bool:
    return text.isdigit() and any(e.id == int(text) for e in obs.elements)


def _element_center(text: str, obs: Observation) -> tuple[int, int]:
    if not text.isdigit():
        raise ActionError(f"{text!r} is not an element ID")
    for element in obs.elements:
        if element.id == int(text):
            return element.center
    raise ActionError(f"no element with ID {text} on this screen")


class HumanAgent(Agent):
    """Shows the task, the history and the screen's elements on `output`, and reads one action per step from `input`.

    A line that cannot be read is explained and asked again; the end of input raises MobileR1Error.
    """

    name = "human"

    def __init__(self, *, input: TextIO | None = None, output: TextIO | None = None) -> None:
        self.input = input or sys.stdin
        self.output = output or sys.stdout

    def _show(self, request: AgentRequest) -> None:
        obs = request.observation
        w, h = obs.screen_size
        lines = [f"\nTask: {request.instruction}"]
        for i, step in enumerate(request.history, 1):
            reply = f"  -> user: {step.user_reply}" if step.user_reply else ""
            lines.append(f"  step {i}: {step.action}{reply}")
        lines.append(f"Screen {w}x{h}" + (f" ({obs.app})" if obs.app else "") + ":")
        lines.append(render_elements(obs.elements, obs.screen_size))
        self.output.write("\n".join(lines) + "\n")

    def act(self, request: AgentRequest) -> AgentOutput:
        self._show(request)
        while True:
            self.output.write("action> ")
            self.output.flush()
            line = self.input.readline()
            if not line:
                raise MobileR1Error("no more input: the human agent needs one action line per step")
            line = line.strip()
            if not line:
                continue
            if line.lower() in ("help", "?"):
                self.output.write(HELP + "\n")
                continue
            try:
                action = parse_command(line, request.observation)
            except (ActionError, json.JSONDecodeError) as exc:
                self.output.write(f"  {exc}\n")
                continue
            result = ParseResult(action, None, None, True, None, line)
            return AgentOutput(text=line, parse=result, action=action)


def _human(argument: str | None, **options: Any) -> Agent:
    """The agent `human` names (a person needs no prompt format: a `dialect` option is ignored)."""
    if argument:
        raise ConfigError("the human agent takes no argument")
    options.pop("dialect", None)
    return HumanAgent(**options)


register_agent("human", _human, replace=True)
