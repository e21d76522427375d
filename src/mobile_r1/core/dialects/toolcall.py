"""The three `<tool_call>` dialects: Qwen2.5-VL (tool call only), InquireMobile (<think> + tool call) and
Mobile-R1 (<think> + <action> + tool call).

Parsing rules, shared by all three (documented here because rewards and agents rely on them):

- The first `<tool_call>` block is the one read; later blocks are ignored for the action and make the format
  invalid.
- Its content must be strict JSON `{"name": "mobile_use", "arguments": {...}}`. Leniencies that still give an
  action but mark the output invalid: a ```json fence inside the block, a Python-literal object (single
  quotes), `arguments` given as a JSON string, a bare argument object without the name wrapper, a missing
  `</tool_call>` (generation stopped at the closing tag), a different function name.
- `<think>` / `<action>` contents are stripped of surrounding whitespace; a missing tag gives None.
- Coordinates are returned exactly as the model wrote them (model frame).
- `valid` is True only when the whole output matches the dialect's format (each tag exactly once, nothing but
  whitespace after `</tool_call>`), the tool call is strict JSON and the action is in the dialect's space.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Sequence
from typing import Any, Literal

from mobile_r1.core.actions import TOOL_NAME, Action, ActionType
from mobile_r1.core.dialects import prompts as P
from mobile_r1.core.dialects.base import Dialect, Message, ObservationMode, ParseResult, window
from mobile_r1.core.dialects.observation import render_elements
from mobile_r1.core.errors import ActionError, ConfigError
from mobile_r1.core.geometry import Frame
from mobile_r1.core.records import Observation, Step

QWEN_ACTIONS: tuple[ActionType, ...] = (
    ActionType.KEY,
    ActionType.CLICK,
    ActionType.LONG_PRESS,
    ActionType.SWIPE,
    ActionType.TYPE,
    ActionType.SYSTEM_BUTTON,
    ActionType.OPEN,
    ActionType.WAIT,
    ActionType.TERMINATE,
)
INQUIRE_ACTIONS: tuple[ActionType, ...] = tuple(a for a in QWEN_ACTIONS if a is not ActionType.OPEN) + (
    ActionType.CALL_USER,
)

_LITERAL_LIMIT = 20_000  # longest block we hand to ast.literal_eval
_FENCE_LANGUAGE = re.compile(r"[A-Za-z0-9_-]*")


def tag_content(text: str, tag: str) -> str | None:
    """The stripped content of the first `<tag>...</tag>`, or None when there is none."""
    start = text.find(f"<{tag}>")
    if start < 0:
        return None
    start += len(tag) + 2
    end = text.find(f"</{tag}>", start)
    if end < 0:
        return None
    return text[start:end].strip()


def tool_call_json(action: Action) -> str:
    """The JSON of the `mobile_use` call for `action`, as Qwen-Agent writes it (unicode kept)."""
    return json.dumps(action.to_tool_call(), ensure_ascii=False)


class _ToolCallRead:
    """The outcome of reading the first tool-call block."""

    def __init__(self) -> None:
        self.action: Action | None = None
        self.problems: list[str] = []  # reasons the output is not strictly valid
        self.error: str | None = None  # why no action could be read


def read_tool_call(text: str) -> _ToolCallRead:
    """Read the action out of the first `<tool_call>` block of `text` (see module docstring for the rules)."""
    out = _ToolCallRead()
    start = text.find("<tool_call>")
    if start < 0:
        out.error = "no <tool_call> block"
        return out
    body_start = start + len("<tool_call>")
    end = text.find("</tool_call>", body_start)
    if end < 0:
        out.problems.append("<tool_call> is not closed")
        body = text[body_start:]
    else:
        body = text[body_start:end]
    content = body.strip()
    fenced = _unfence(content)
    if fenced is not None:
        out.problems.append("the tool call is wrapped in a code fence")
        content = fenced
    try:
        obj: Any = json.loads(content)
    except (ValueError, RecursionError) as exc:
        obj = _literal(content)
        if obj is None:
            out.error = f"the tool call is not valid JSON ({exc})"
            return out
        out.problems.append("the tool call is not strict JSON")
    if not isinstance(obj, dict):
        out.error = f"the tool call must be a JSON object, got {type(obj).__name__}"
        return out
    if "arguments" in obj:
        name = obj.get("name")
        if name != TOOL_NAME:
            out.problems.append(f"the tool call names {name!r}, expected {TOOL_NAME!r}")
        arguments = obj["arguments"]
        if isinstance(arguments, str):
            try:
                arguments = json.loads(arguments)
            except (ValueError, RecursionError):
                out.error = "the tool call's 'arguments' is a string that is not JSON"
                return out
            out.problems.append("'arguments' is a JSON string, not an object")
    elif "action" in obj:
        out.problems.append('the tool call lacks the {"name": ..., "arguments": ...} wrapper')
        arguments = obj
    else:
        out.error = "the tool call has no 'arguments'"
        return out
    try:
        out.action = Action.from_arguments(arguments)
    except (ActionError, TypeError, ValueError) as exc:
        out.error = str(exc)
    return out


def _unfence(content: str) -> str | None:
    """The text inside a ```lang ... ``` fence that wraps all of `content` (stripped), or None when there is none.

    Done with string operations, not a regex: a lazy pattern over the fence body backtracks quadratically on long
    runs of whitespace (a 3,000-space reply took 15 s).
    """
    if len(content) < 6 or not content.startswith("```") or not content.endswith("```"):
        return None
    language = _FENCE_LANGUAGE.match(content, 3)
    start = language.end() if language else 3
    end = len(content) - 3
    if end < start:
        return None
    return content[start:end].strip()


def _literal(content: str) -> Any:
    """A Python-literal reading of `content` (models sometimes write single quotes), or None."""
    if len(content) > _LITERAL_LIMIT or not content.startswith("{"):
        return None
    try:
        return ast.literal_eval(content)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None


def _format_problem(text: str, tags: tuple[str, ...]) -> str | None:
    """Why `text` does not follow `[anything]<tag1>..</tag1> <tag2>..</tag2> ... [whitespace]`, or None if it does.

    The last tag is always `tool_call`; when it is the only tag nothing but whitespace may precede it. Each marker
    occurs exactly once, so the check is a walk over their positions (linear; no backtracking pattern).
    """
    for tag in tags:
        for marker in (f"<{tag}>", f"</{tag}>"):
            count = text.count(marker)
            if count != 1:
                return f"expected exactly one {marker}, found {count}"
    order = " then ".join(f"<{t}>" for t in tags)
    problem = f"expected {order} with nothing after </tool_call>"
    position = 0  # where the next opening tag may start
    for i, tag in enumerate(tags):
        opening, closing = text.find(f"<{tag}>"), text.find(f"</{tag}>")
        if opening < position or closing < opening + len(tag) + 2:
            return problem
        between = text[position:opening]
        if (i > 0 or len(tags) == 1) and between.strip():
            return problem
        position = closing + len(tag) + 3
    return problem if text[position:].strip() else None


class ToolCallDialect(Dialect):
    """Shared machinery of the `mobile_use` tool-call dialects."""

    tags: tuple[str, ...] = ("tool_call",)

    # ----- parse / render -------------------------------------------------------------------------------
    def _parse(self, text: str) -> ParseResult:
        thought = tag_content(text, "think")
        description = tag_content(text, "action") if "action" in self.tags else None
        read = read_tool_call(text)
        problems = list(read.problems)
        format_problem = _format_problem(text, self.tags)
        if format_problem:
            problems.append(format_problem)
        if read.action is not None and not self.allows(read.action):
            problems.append(f"the {self.name} dialect has no '{read.action.type.value}' action")
        if read.action is None:
            error = read.error if not problems else f"{read.error}; {problems[0]}"
            return ParseResult(None, thought, description, False, error, text)
        valid = not problems
        return ParseResult(read.action, thought, description, valid, None if valid else problems[0], text)

    def render(self, action: Action, thought: str = "", description: str = "") -> str:
        self.check_allowed(action)
        parts: list[str] = []
        for tag, value in (("think", thought), ("action", description)):
            if tag not in self.tags:
                continue
            self._check_free_of_tags(value, tag)
            parts.append(f"<{tag}>\n{value.strip()}\n</{tag}>\n")
        call = tool_call_json(action)
        self._check_free_of_tags(call, "action's argument")
        return "".join(parts) + f"<tool_call>\n{call}\n</tool_call>"

    def _check_free_of_tags(self, value: str, field: str) -> None:
        for tag in self.tags:
            for marker in (f"<{tag}>", f"</{tag}>"):
                if marker in value:
                    raise ActionError(f"{self.name}: the {field} text may not contain {marker}")

    # ----- history and observations ---------------------------------------------------------------------
    def observation_text(self, observation: Observation, model_frame: Frame | None) -> str:
        return render_elements(observation.elements, observation.screen_size, model_frame)

    def _screen_items(
        self, observation: Observation, mode: ObservationMode, model_frame: Frame | None
    ) -> list[dict[str, Any]]:
        if mode == "image":
            return [{"type": "image"}]
        if mode == "text":
            return [{"type": "text", "text": self.observation_text(observation, model_frame)}]
        raise ConfigError(f"observation_mode must be 'image' or 'text', got {mode!r}")


def _merge(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Join adjacent text items so a content list alternates text and images."""
    merged: list[dict[str, Any]] = []
    for item in items:
        if item["type"] == "text" and merged and merged[-1]["type"] == "text":
            merged[-1] = {"type": "text", "text": merged[-1]["text"] + item["text"]}
        elif item["type"] != "text" or item["text"]:
            merged.append(item)
    return merged


def _content(items: list[dict[str, Any]]) -> str | list[dict[str, Any]]:
    """A plain string when there are no images, else the content list."""
    merged = _merge(items)
    if all(item["type"] == "text" for item in merged):
        return "".join(item["text"] for item in merged)
    return merged


def _frame_for(model_frame: Frame | None, observation: Observation | None) -> Frame | None:
    if model_frame is not None:
        return model_frame
    if observation is not None:
        return Frame.qwen(*observation.screen_size)
    return None


class QwenDialect(ToolCallDialect):
    """Qwen2.5-VL's own mobile agent format: the `mobile_use` tool in a Nous system prompt, a bare tool call."""

    name = "qwen2.5vl"
    action_types = QWEN_ACTIONS
    tags = ("tool_call",)

    def system_prompt(self, model_frame: Frame | None = None) -> str:
        if model_frame is None:
            raise ConfigError(
                "qwen2.5vl: the mobile_use tool states the screen resolution; pass model_frame "
                "(e.g. Frame.qwen(width, height)), the size of the image the model sees"
            )
        resolution = f"{int(round(model_frame.width))}x{int(round(model_frame.height))}"
        return P.nous_system_prompt(P.QWEN_BASE_SYSTEM, [P.tool_function(self.action_types, resolution)])

    def history_text(self, steps: Sequence[Step]) -> str:
        if not steps:
            return P.QWEN_NO_HISTORY
        parts = []
        for i, step in enumerate(steps, start=1):
            parts.append(P.QWEN_HISTORY_STEP.format(index=i, call=tool_call_json(step.action)))
            if step.user_reply is not None:
                parts.append(P.QWEN_USER_REPLY.format(reply=step.user_reply))
        return "".join(parts)

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
        frame = _frame_for(model_frame, observation)
        steps = window(history, history_window)
        text = P.QWEN_USER_TEMPLATE.format(instruction=instruction, history=self.history_text(steps))
        items: list[dict[str, Any]] = [{"type": "text", "text": text}]
        if observation is not None:
            if observation_mode == "text":
                items.append({"type": "text", "text": "\n"})
            items += self._screen_items(observation, observation_mode, frame)
        return [
            {"role": "system", "content": self.system_prompt(frame)},
            {"role": "user", "content": _content(items)},
        ]


InquirePrompt = Literal["sft", "grpo", "full", "eval"]


class InquireDialect(ToolCallDialect):
    """InquireMobile: reasoning in <think>, then the tool call; `call_user` asks the human, no `open`.

    `prompt` picks which released prompt to reproduce: "sft" (the SFT data, default), "grpo" (the GRPO data),
    "full" (prompt/train.txt with the complete tool JSON) or "eval" (eval.py, behind the published results).
    """

    name = "inquire"
    action_types = INQUIRE_ACTIONS
    tags = ("think", "tool_call")
    system_template = P.INQUIRE_SFT_SYSTEM
    prompts: tuple[str, ...] = ("sft", "grpo", "full", "eval")

    def __init__(self, prompt: InquirePrompt = "sft") -> None:
        if prompt not in self.prompts:
            raise ConfigError(f"{self.name}: prompt must be one of {', '.join(self.prompts)}; got {prompt!r}")
        self.prompt = prompt

    def system_prompt(self, model_frame: Frame | None = None) -> str:
        if self.prompt == "grpo":
            return P.INQUIRE_GRPO_SYSTEM
        if self.prompt == "full":
            resolution = (
                f"{int(round(model_frame.width))}x{int(round(model_frame.height))}" if model_frame else "x"
            )
            tool = {"type": "function", "function": P.tool_function(self.action_types, resolution)}
            return P.INQUIRE_FULL_HEAD + json.dumps(tool, ensure_ascii=False, indent=2) + P.INQUIRE_FULL_TAIL
        if self.prompt == "eval":
            raise ConfigError(
                f"{self.name}: the 'eval' prompt puts the task in the system message; use build_messages"
            )
        return self.system_template

    # History: the one-line step descriptions, concatenated (the released data has no separator).
    def step_text(self, step: Step) -> str:
        text = step.description or tool_call_json(step.action)
        if step.user_reply is not None:
            text += P.INQUIRE_USER_REPLY.format(reply=step.user_reply)
        return text

    def history_text(self, steps: Sequence[Step]) -> str:
        return "".join(self.step_text(s) for s in steps)

    def image_observations(
        self, observation: Observation | None, history: Sequence[Step] = (), *, history_window: int | None = None
    ) -> list[Observation]:
        steps = window(history, history_window)
        out: list[Observation] = []
        previous = steps[-1].observation if steps else None
        if previous is not None:
            out.append(previous)
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
        steps = window(history, history_window)
        if self.prompt == "eval":
            return self._eval_messages(instruction, observation, steps, observation_mode, model_frame)
        head = P.INQUIRE_GRPO_USER_HEAD if self.prompt == "grpo" else P.INQUIRE_SFT_USER_HEAD
        items: list[dict[str, Any]] = [
            {"type": "text", "text": head.format(instruction=instruction, history=self.history_text(steps))}
        ]
        previous = steps[-1].observation if steps else None
        if previous is not None:
            items.append({"type": "text", "text": P.PREVIOUS_SCREEN_LABEL})
            items += self._screen_items(previous, observation_mode, model_frame)
            items.append({"type": "text", "text": "\n"})
        if observation is not None:
            items.append({"type": "text", "text": P.CURRENT_SCREEN_LABEL})
            items += self._screen_items(observation, observation_mode, model_frame)
            items.append({"type": "text", "text": "\n"})
        return [
            {"role": "system", "content": self.system_prompt(model_frame)},
            {"role": "user", "content": _content(items)},
        ]

    def _eval_messages(
        self,
        instruction: str,
        observation: Observation | None,
        steps: list[Step],
        mode: ObservationMode,
        model_frame: Frame | None,
    ) -> list[Message]:
        """eval.py's layout: task in the system turn, screenshots as user turns, past outputs as assistant turns."""
        messages: list[Message] = [
            {"role": "system", "content": P.INQUIRE_EVAL_SYSTEM.format(instruction=instruction)}
        ]
        if steps:
            outputs = [self._output_text(s) for s in steps]
            if len(outputs) > 1:
                older = "".join(
                    P.INQUIRE_EVAL_HISTORY_STEP.format(index=i, text=t) for i, t in enumerate(outputs[:-1], 1)
                )
                messages.append({"role": "assistant", "content": P.INQUIRE_EVAL_HISTORY.format(history=older)})
            previous = steps[-1].observation
            if previous is not None:
                messages.append({"role": "user", "content": _content(self._screen_items(previous, mode, model_frame))})
            messages.append({"role": "assistant", "content": outputs[-1]})
        if observation is not None:
            messages.append({"role": "user", "content": _content(self._screen_items(observation, mode, model_frame))})
        return messages

    def _output_text(self, step: Step) -> str:
        """What the model wrote at `step` (its raw text when kept, else our rendering), plus any user reply."""
        text = step.model_text
        if text is None:
            text = self.render(step.action, thought=step.thought, description=step.description)
        if step.user_reply is not None:
            text += P.INQUIRE_USER_REPLY.format(reply=step.user_reply)
        return text


class MobileR1Dialect(InquireDialect):
    """Mobile-R1: <think> (state, next action, purpose), <action> (one-line step), then the tool call.

    The prompt is reconstructed (see prompts.py): the paper's exact text is not public.
    """

    name = "mobile-r1"
    action_types = QWEN_ACTIONS
    tags = ("think", "action", "tool_call")
    system_template = P.MOBILE_R1_SYSTEM
    prompts = ("sft",)

    def __init__(self, prompt: Literal["sft"] = "sft") -> None:
        super().__init__(prompt)
