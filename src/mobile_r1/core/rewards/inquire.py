"""InquireMobile's single-step GRPO reward (format + type + argument, range -1..3), rule for rule.

Source: BIT-AQH/InquireMobile, R1-V/src/r1-v/src/open_r1/grpo_interactive.py (`format_reward`,
`accuracy_reward`, `_safe_bleu`, `check_swipe_directon`). TRL sums the two reward functions with weight
1 each, so total = format + accuracy, where accuracy = type + argument. Facts the code fixes:

- format: see `components.inquire_format` (+1 / -1).
- the scored call is the first <tool_call> block, or the whole stripped text when there is no block;
  it is decoded with `json.loads`, its `name` is never checked, and a decoding failure, a missing
  `arguments` object or a missing `action` give 0 type and 0 argument.
- type: +1 when the predicted `action` string equals the label's (case-sensitive).
- argument, only after a type match. The released code wraps everything in `try/except Exception`
  and keeps the reward earned so far, so a malformed argument (missing key, a string where a number
  belongs) loses the argument reward but keeps the type reward; `_argument` reproduces that.
- cross credit: label `system_button` Back with a box, prediction `click` whose point (scaled to
  screen pixels, no on-image check) is inside the box: +1 argument, 0 type.
- `key`, `answer` and any other action: type reward only.
"""

from __future__ import annotations

from typing import Any

from mobile_r1.core.actions import ActionType
from mobile_r1.core.rewards.base import RewardResult, RewardTarget
from mobile_r1.core.rewards.bleu import RELEASED_TOKENIZER, sentence_bleu
from mobile_r1.core.rewards.components import (
    NEAR_THRESHOLD,
    closeness,
    in_box,
    in_model_image,
    inquire_format,
    loose_arguments,
    number_pair,
    swipe_direction,
    to_screen,
)

_TEXT_FIELD = {ActionType.TYPE: "text", ActionType.CALL_USER: "content"}


def inquire_type_and_argument(
    text: str, target: RewardTarget, *, effective_order: bool, tokenize: str = RELEASED_TOKENIZER
) -> tuple[float, float]:
    """(type, argument) rewards of one completion; their sum is InquireMobile's accuracy reward."""
    arguments = loose_arguments(text)
    if arguments is None:
        return 0.0, 0.0
    label = target.label
    predicted = arguments["action"]
    if predicted == label.type.value:
        try:
            return 1.0, _argument(arguments, target, effective_order, tokenize)
        except (TypeError, ValueError, KeyError, AttributeError, ArithmeticError):
            return 1.0, 0.0  # the released code keeps the type reward when the argument check raises
    if label.type is ActionType.SYSTEM_BUTTON and predicted == "click":
        try:
            return 0.0, _back_cross_credit(arguments, target)
        except (TypeError, ValueError, KeyError, AttributeError, ArithmeticError):
            return 0.0, 0.0
    return 0.0, 0.0


def _argument(arguments: dict[str, Any], target: RewardTarget, effective_order: bool, tokenize: str) -> float:
    label = target.label
    kind = label.type
    if kind in (ActionType.CLICK, ActionType.LONG_PRESS):
        point = number_pair(arguments["coordinate"])
        if point is None or not in_model_image(point, target.model_image_size):
            return 0.0
        if target.bbox is None:
            near = closeness(point, label.coordinate, target.model_image_size)  # type: ignore[arg-type]
            return 1.0 if near > NEAR_THRESHOLD else 0.0
        return 1.0 if in_box(to_screen(point, target.image_size, target.model_image_size), target.bbox) else 0.0
    if kind is ActionType.OPEN:
        return 1.0 if arguments["text"].strip().lower() == label.text.strip().lower() else 0.0  # type: ignore[union-attr]
    if kind in _TEXT_FIELD:
        key = _TEXT_FIELD[kind]
        return sentence_bleu(arguments[key], getattr(label, key), effective_order=effective_order, tokenize=tokenize)
    if kind is ActionType.SWIPE:
        # The released code calls check_swipe_directon(*coordinate, *coordinate2, W', H'): the two lists are
        # spread into four positional numbers, so only their joined length matters.
        first, second = arguments["coordinate"], arguments["coordinate2"]
        if type(first) is not list or type(second) is not list:
            return 0.0
        values = first + second
        if len(values) != 4 or not all(isinstance(v, (int, float)) for v in values):
            return 0.0
        width, height = target.model_image_size
        (lx, ly), (lx2, ly2) = label.coordinate, label.coordinate2  # type: ignore[misc]
        same = swipe_direction(*values, width, height) == swipe_direction(lx, ly, lx2, ly2, width, height)
        return 1.0 if same else 0.0
    if kind is ActionType.SYSTEM_BUTTON:
        return 1.0 if arguments["button"].lower() == label.button.lower() else 0.0  # type: ignore[union-attr]
    if kind in (ActionType.WAIT, ActionType.TERMINATE):
        return 1.0
    return 0.0  # key, answer: the type reward only


def _back_cross_credit(arguments: dict[str, Any], target: RewardTarget) -> float:
    """Label `system_button` Back with a box, predicted click inside that box: +1 (no on-image check)."""
    if target.label.button.lower() != "back" or target.bbox is None:  # type: ignore[union-attr]
        return 0.0
    point = number_pair(arguments["coordinate"])
    if point is None:
        return 0.0
    return 1.0 if in_box(to_screen(point, target.image_size, target.model_image_size), target.bbox) else 0.0


def score_inquire(
    text: str, target: RewardTarget, *, effective_order: bool, tokenize: str = RELEASED_TOKENIZER
) -> RewardResult:
    """The full InquireMobile reward of one completion (`tokenize`: sacrebleu's tokeniser for the BLEU argument)."""
    fmt = inquire_format(text)
    type_reward, argument = inquire_type_and_argument(text, target, effective_order=effective_order, tokenize=tokenize)
    accuracy = type_reward + argument
    return RewardResult(
        format=fmt,
        accuracy=accuracy,
        total=fmt + accuracy,
        components={"type": type_reward, "argument": argument},
    )
