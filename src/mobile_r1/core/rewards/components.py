"""Small pure reward parts shared by the presets: format checks, tool-call parsing, point, swipe and text rules.

Each function does one check so that presets read as a list of rules; regexes are compiled once here. Every check
runs in time linear in the completion: the released regexes are kept only where a tag count bounds them (each tag at
most once), and the others are done with string searches that give the same answer (tests compare them).
"""

from __future__ import annotations

import json
import re
from typing import Any

from mobile_r1.core.actions import TOOL_NAME, Action
from mobile_r1.core.errors import ActionError

Point = tuple[float, float]

# ----- format ---------------------------------------------------------------------------------------

# InquireMobile: `re.fullmatch(r".*<think>.*?</think>\s*<tool_call>.*?</tool_call>\s*", text, re.DOTALL)`
# plus `check_tag_count` (each of the four tags at most once); +1 if both hold, else -1
# (grpo_interactive.py, `format_reward`). Anything may precede <think>; only whitespace may follow </tool_call>.
INQUIRE_FORMAT_RE = re.compile(r".*<think>.*?</think>\s*<tool_call>.*?</tool_call>\s*", re.DOTALL)
THINK_TOOL_CALL_TAGS = ("<think>", "</think>", "<tool_call>", "</tool_call>")

# GUI-R1 (`r1gui_format_reward`) and UI-R1 (`format_reward`) fullmatch `<think>.*?</think>\s*<answer>.*?</answer>`
# with DOTALL: nothing before <think>, nothing (not even whitespace) after the closing tag. With the
# `mobile_use` tool call in place of <answer>: `<think>.*?</think>\s*<tool_call>.*?</tool_call>`. Nothing bounds
# how often the tags occur there, and that regex backtracks quadratically on `</think><tool_call></tool_call>`
# repeated; `think_tool_call_strict` gives its answer by searching instead.
_SPACES = re.compile(r"\s*")

# Mobile-R1 (paper, no released code): <think>, <action>, <tool_call> in that order, whitespace around them.
MOBILE_R1_FORMAT_RE = re.compile(
    r"\s*<think>.*?</think>\s*<action>.*?</action>\s*<tool_call>.*?</tool_call>\s*", re.DOTALL
)
MOBILE_R1_TAGS = ("<think>", "</think>", "<action>", "</action>", "<tool_call>", "</tool_call>")

# The released code reads the first `re.search(r"<tool_call>(.*?)</tool_call>", text, re.DOTALL)`; that search
# restarts at every `<tool_call>` and scans to the end each time (quadratic on a flood of opening tags).
# `first_tool_call` finds the same block with two string searches.


def tags_at_most_once(text: str, tags: tuple[str, ...]) -> bool:
    """Whether no tag occurs twice (InquireMobile's `check_tag_count`)."""
    return all(text.count(tag) <= 1 for tag in tags)


def inquire_format(text: str) -> float:
    """InquireMobile's format reward: +1 for `[anything]<think>..</think> <tool_call>..</tool_call>`, each tag once; else -1."""
    if tags_at_most_once(text, THINK_TOOL_CALL_TAGS) and INQUIRE_FORMAT_RE.fullmatch(text):
        return 1.0
    return -1.0


def think_tool_call_strict(text: str) -> bool:
    r"""Whether the whole text is `<think>..</think>` then `<tool_call>..</tool_call>` (GUI-R1 / UI-R1 shape).

    The answer of `re.fullmatch(r"<think>.*?</think>\s*<tool_call>.*?</tool_call>", text, re.DOTALL)`: some
    `</think>` after the opening tag is followed, past whitespace, by a `<tool_call>` that ends before the closing
    `</tool_call>` the text ends with. Each `</think>` is looked at once and whitespace runs never overlap: linear.
    """
    opening, closing = "<think>", "</tool_call>"
    if not (text.startswith(opening) and text.endswith(closing)):
        return False
    last = len(text) - len(closing)  # where the final </tool_call> starts
    position = len(opening)
    while True:
        end_think = text.find("</think>", position)
        if end_think < 0:
            return False
        call = _SPACES.match(text, end_think + len("</think>")).end()
        if text.startswith("<tool_call>", call) and call + len("<tool_call>") <= last:
            return True
        position = end_think + 1


def mobile_r1_tags(text: str) -> bool:
    """Whether the text is `<think>..</think> <action>..</action> <tool_call>..</tool_call>`, each tag once."""
    return tags_at_most_once(text, MOBILE_R1_TAGS) and MOBILE_R1_FORMAT_RE.fullmatch(text) is not None


# ----- tool-call parsing -----------------------------------------------------------------------------


def first_tool_call(text: str) -> str | None:
    """The stripped body of the first `<tool_call>...</tool_call>` block, or None when there is none.

    The first opening tag that has a closing tag after it is the first opening tag of all (if it has none, no later
    one has), so two searches give the regex's answer.
    """
    start = text.find("<tool_call>")
    if start < 0:
        return None
    end = text.find("</tool_call>", start + len("<tool_call>"))
    return text[start + len("<tool_call>") : end].strip() if end >= 0 else None


def loose_arguments(text: str) -> dict[str, Any] | None:
    """The `arguments` object of the completion's tool call, parsed the way InquireMobile's reward does.

    The first <tool_call> block is decoded with `json.loads`; when the text has no complete block the
    whole stripped text is decoded instead (so a bare JSON call still earns accuracy, though not format).
    The `name` is not checked. None when the JSON is invalid, is not an object with an `arguments`
    object, or the arguments lack `action`: all cases where the released code scores 0.
    """
    payload = first_tool_call(text)
    if payload is None:
        payload = text.strip()
    try:
        call = json.loads(payload)
    except (ValueError, RecursionError):
        return None
    if not isinstance(call, dict):
        return None
    arguments = call.get("arguments")
    if not isinstance(arguments, dict) or "action" not in arguments:
        return None
    return arguments


def strict_tool_call(text: str, *, lowercase_action: bool = False) -> Action | None:
    """The action of the first <tool_call> block when it is exactly `{"name": "mobile_use", "arguments": {...}}`
    with valid arguments for its action; None otherwise. `lowercase_action` accepts `"Click"` as `"click"`.
    """
    payload = first_tool_call(text)
    if payload is None:
        return None
    try:
        call = json.loads(payload)
    except (ValueError, RecursionError):
        return None
    if not isinstance(call, dict) or call.get("name") != TOOL_NAME:
        return None
    arguments = call.get("arguments")
    if not isinstance(arguments, dict):
        return None
    if lowercase_action and isinstance(arguments.get("action"), str):
        arguments = {**arguments, "action": arguments["action"].lower()}
    try:
        return Action.from_arguments(arguments)
    except ActionError:
        return None


# ----- points ---------------------------------------------------------------------------------------


def number_pair(value: Any) -> Point | None:
    """`[x, y]` from decoded JSON when both are numbers, else None.

    JSON booleans count as 0/1, as in the released Python code where `True <= 448` and `True * 720` work.
    """
    if type(value) is not list or len(value) != 2:
        return None
    x, y = value
    if not isinstance(x, (int, float)) or not isinstance(y, (int, float)):
        return None
    return (x, y)


def in_model_image(point: Point, model_size: tuple[float, float]) -> bool:
    """Whether the point lies on the model image [0, W'] x [0, H'], edges included (false for NaN)."""
    x, y = point
    return 0 <= x <= model_size[0] and 0 <= y <= model_size[1]


def to_screen(point: Point, image_size: tuple[float, float], model_size: tuple[float, float]) -> Point:
    """Model-image pixels to original pixels, computed as `x * W / W'` (the released code's order of operations)."""
    return (point[0] * image_size[0] / model_size[0], point[1] * image_size[1] / model_size[1])


def in_box(point: Point, box: tuple[float, float, float, float]) -> bool:
    """Whether the point lies inside the box, edges included."""
    return box[0] <= point[0] <= box[2] and box[1] <= point[1] <= box[3]


def strictly_in_box(point: Point, box: tuple[float, float, float, float]) -> bool:
    """Whether the point lies strictly inside the box (GUI-R1: `x1 < x < x2 and y1 < y < y2`)."""
    return box[0] < point[0] < box[2] and box[1] < point[1] < box[3]


def closeness(pred: Point, label: Point, model_size: tuple[float, float]) -> float:
    """InquireMobile's no-box score `(2 - |dx|/W' - |dy|/H') / 2`: 1 at the label, lower further away."""
    return (2 - abs(label[0] - pred[0]) / model_size[0] - abs(label[1] - pred[1]) / model_size[1]) / 2


NEAR_THRESHOLD = 0.9  # InquireMobile: a click without a box counts when closeness > 0.9 (strict)


def swipe_direction(x1: float, y1: float, x2: float, y2: float, width: float, height: float) -> str:
    """The dominant axis and sign of a swipe, normalised by the image size (InquireMobile `check_swipe_directon`).

    Horizontal wins only when strictly larger; a zero-length swipe falls in the vertical, non-positive class.
    The names describe finger motion along +x ('right') / +y ('down').
    """
    dx = (x2 - x1) / width
    dy = (y2 - y1) / height
    if abs(dx) > abs(dy):
        return "right" if dx > 0 else "left"
    return "down" if dy > 0 else "up"


# ----- text ------------------------------------------------------------------------------------------


def token_f1(prediction: str, reference: str) -> float:
    """GUI-R1's `calculate_f1_score`: F1 over lower-cased whitespace token sets, with '[' and ']' removed.

    Two single-token texts count as 1 when one contains the other; two empty texts score 0.
    """
    pred_tokens = set(prediction.replace("[", "").replace("]", "").lower().split())
    ref_tokens = set(reference.replace("[", "").replace("]", "").lower().split())
    if len(pred_tokens) == 1 and len(ref_tokens) == 1:
        (p,), (r,) = pred_tokens, ref_tokens
        if p in r or r in p:
            return 1.0
    common = len(pred_tokens & ref_tokens)
    precision = common / len(pred_tokens) if pred_tokens else 0.0
    recall = common / len(ref_tokens) if ref_tokens else 0.0
    if precision + recall == 0:
        return 0.0
    return 2 * precision * recall / (precision + recall)
