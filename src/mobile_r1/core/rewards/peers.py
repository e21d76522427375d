r"""The Mobile-R1 stage-2 reward and the GUI-R1 and UI-R1 rewards, applied to `mobile_use` tool calls.

All three read the first <tool_call> block strictly: `{"name": "mobile_use", "arguments": {...}}` with
arguments that form a valid action; anything else earns no accuracy.

- Mobile-R1 (arXiv 2506.20332, stage 2; no reward code is public): R = R_action + R_format, each 0/1.
  R_format: <think>, <action>, <tool_call> in order, each once, and a valid tool call. R_action: click and
  long_press inside the element box (screen pixels, edges included), swipes in the same direction, `type`
  text and `open` app equal after stripping, `system_button` the same button, other actions by type.
  Where a step has no box, a click falls back to InquireMobile's closeness rule (> 0.9); the paper
  gives no rule for that case.
- GUI-R1 (`verl/utils/reward_score/r1gui.py`): total = 0.8 * accuracy + 0.2 * format. Accuracy: the
  lower-cased action names must agree; a `click` then counts strictly inside the box, or, for a label
  given as a point, at squared distance < 140^2 in the pixels of the image the model saw. `type`
  (and GUI-R1's `scroll`) count at token F1 >= 0.5; every other action counts on its type alone. GUI-R1
  names buttons as actions (`press_back`), so a `system_button` must also name the same button, and a
  swipe, GUI-R1's `scroll` with a direction word, must go the same way. GUI-R1 checks long_press on
  type alone; so do we. Format: `<think>..</think><answer>..</answer>` with nothing around it and an
  answer that parses into a well-formed action (text for `type`/`open_app`); here the answer is the
  tool call, which must parse into a valid action, with non-empty text for `type` and `open`.
- UI-R1 (`src/open_r1/grpo_json_action_coord.py`): three 0/1 rewards summed. Type: the action names agree.
  Coordinate: when they agree, a `click` must land inside the box (the point scaled to screen pixels
  and truncated with `int`, edges included), any other action counts; a click label without a box
  cannot earn it. Format: `<think>..</think>\s*<answer>..</answer>` fullmatch, nothing else checked.
"""

from __future__ import annotations

from mobile_r1.core.actions import Action, ActionType
from mobile_r1.core.rewards.base import RewardResult, RewardTarget
from mobile_r1.core.rewards.components import (
    NEAR_THRESHOLD,
    closeness,
    in_box,
    mobile_r1_tags,
    strict_tool_call,
    strictly_in_box,
    swipe_direction,
    think_tool_call_strict,
    to_screen,
    token_f1,
)

GUI_R1_RADIUS = 140  # pixels of the model image
GUI_R1_TEXT_F1 = 0.5


def _same_swipe(pred: Action, label: Action, model_size: tuple[float, float]) -> bool:
    width, height = model_size
    return swipe_direction(*pred.coordinate, *pred.coordinate2, width, height) == swipe_direction(  # type: ignore[misc]
        *label.coordinate, *label.coordinate2, width, height  # type: ignore[misc]
    )


# ----- Mobile-R1 ---------------------------------------------------------------------------------------


def mobile_r1_action(pred: Action | None, target: RewardTarget) -> float:
    """R_action: 1 when the predicted action does what the label does, else 0."""
    label = target.label
    if pred is None or pred.type is not label.type:
        return 0.0
    kind = label.type
    if kind in (ActionType.CLICK, ActionType.LONG_PRESS):
        if target.bbox is None:
            near = closeness(pred.coordinate, label.coordinate, target.model_image_size)  # type: ignore[arg-type]
            return 1.0 if near > NEAR_THRESHOLD else 0.0
        screen = to_screen(pred.coordinate, target.image_size, target.model_image_size)  # type: ignore[arg-type]
        return 1.0 if in_box(screen, target.bbox) else 0.0
    if kind is ActionType.SWIPE:
        return 1.0 if _same_swipe(pred, label, target.model_image_size) else 0.0
    if kind in (ActionType.TYPE, ActionType.OPEN):
        return 1.0 if pred.text.strip() == label.text.strip() else 0.0  # type: ignore[union-attr]
    if kind is ActionType.SYSTEM_BUTTON:
        return 1.0 if pred.button == label.button else 0.0  # both canonical: Back, Home, Menu, Enter
    return 1.0


def score_mobile_r1(text: str, target: RewardTarget) -> RewardResult:
    pred = strict_tool_call(text)
    fmt = 1.0 if pred is not None and mobile_r1_tags(text) else 0.0
    action = mobile_r1_action(pred, target)
    type_match = 1.0 if pred is not None and pred.type is target.label.type else 0.0
    return RewardResult(format=fmt, accuracy=action, total=action + fmt, components={"type": type_match})


# ----- GUI-R1 --------------------------------------------------------------------------------------------


def gui_r1_format(text: str, pred: Action | None) -> float:
    if pred is None or not think_tool_call_strict(text):
        return 0.0
    if pred.type in (ActionType.TYPE, ActionType.OPEN) and not pred.text.strip():  # type: ignore[union-attr]
        return 0.0
    return 1.0


def gui_r1_accuracy(pred: Action | None, target: RewardTarget) -> float:
    label = target.label
    if pred is None or pred.type is not label.type:
        return 0.0
    kind = label.type
    if kind is ActionType.CLICK:
        if target.bbox is not None:
            screen = to_screen(pred.coordinate, target.image_size, target.model_image_size)  # type: ignore[arg-type]
            return 1.0 if strictly_in_box(screen, target.bbox) else 0.0
        (px, py), (lx, ly) = pred.coordinate, label.coordinate  # type: ignore[misc]
        return 1.0 if (px - lx) ** 2 + (py - ly) ** 2 < GUI_R1_RADIUS**2 else 0.0
    if kind is ActionType.TYPE:
        return 1.0 if token_f1(pred.text, label.text) >= GUI_R1_TEXT_F1 else 0.0  # type: ignore[arg-type]
    if kind is ActionType.SWIPE:
        return 1.0 if _same_swipe(pred, label, target.model_image_size) else 0.0
    if kind is ActionType.SYSTEM_BUTTON:
        return 1.0 if pred.button == label.button else 0.0
    return 1.0


def score_gui_r1(text: str, target: RewardTarget) -> RewardResult:
    pred = strict_tool_call(text, lowercase_action=True)
    fmt = gui_r1_format(text, pred)
    accuracy = gui_r1_accuracy(pred, target)
    type_match = 1.0 if pred is not None and pred.type is target.label.type else 0.0
    return RewardResult(
        format=fmt, accuracy=accuracy, total=0.8 * accuracy + 0.2 * fmt, components={"type": type_match}
    )


# ----- UI-R1 ---------------------------------------------------------------------------------------------


def ui_r1_coordinate(pred: Action | None, target: RewardTarget) -> float:
    label = target.label
    if pred is None or pred.type is not label.type:
        return 0.0
    if label.type is not ActionType.CLICK:
        return 1.0
    if target.bbox is None:
        return 0.0
    x, y = to_screen(pred.coordinate, target.image_size, target.model_image_size)  # type: ignore[arg-type]
    return 1.0 if in_box((int(x), int(y)), target.bbox) else 0.0


def score_ui_r1(text: str, target: RewardTarget) -> RewardResult:
    pred = strict_tool_call(text)
    fmt = 1.0 if think_tool_call_strict(text) else 0.0
    type_match = 1.0 if pred is not None and pred.type is target.label.type else 0.0
    coordinate = ui_r1_coordinate(pred, target)
    accuracy = type_match + coordinate
    return RewardResult(
        format=fmt,
        accuracy=accuracy,
        total=type_match + coordinate + fmt,
        components={"type": type_match, "coordinate": coordinate},
    )
