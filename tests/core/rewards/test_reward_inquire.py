"""The inquire-mobile presets pinned to hand-computed cases for every rule of the released InquireMobile reward.

Frames used throughout: screen W x H = 1000 x 2000, model image W' x H' = 500 x 1000, so a model point
(x, y) is the screen point (2x, 2y). Completions carry coordinates in the model frame, boxes are in screen pixels.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mobile_r1.core import Action
from mobile_r1.core.rewards import get_preset

SCREEN = [1000, 2000]
MODEL = [500, 1000]
BOX = [200, 400, 300, 600]  # screen pixels; in the model frame x 100..150, y 200..300

IM = get_preset("inquire-mobile")
FIXED = get_preset("inquire-mobile-fixed")


def call(arguments: Any, *, think: str = "I will act.", name: str = "mobile_use", before: str = "", after: str = "") -> str:
    body = json.dumps({"name": name, "arguments": arguments})
    return f"{before}<think>{think}</think>\n<tool_call>\n{body}\n</tool_call>{after}"


def label(**arguments: Any) -> dict[str, Any]:
    return {"name": "mobile_use", "arguments": arguments}


def score(completion: str, lab: Any, bbox: Any = None, preset: Any = IM) -> tuple[float, float, float, float]:
    result = preset.score(completion, lab, bbox, SCREEN, MODEL)
    assert result.accuracy == result.components["type"] + result.components["argument"]
    assert result.total == result.format + result.accuracy
    return result.format, result.components["type"], result.components["argument"], result.total


CLICK = label(action="click", coordinate=[125, 250])


# ----- format ----------------------------------------------------------------------------------------


def test_well_formed_click_in_box_scores_three() -> None:
    assert score(call({"action": "click", "coordinate": [125, 250]}), CLICK, BOX) == (1, 1, 1, 3)


@pytest.mark.parametrize(
    "completion, expected",
    [
        ("<think>a</think><tool_call>x</tool_call>", 1.0),
        ("<think>a</think>\n\n  <tool_call>x</tool_call>\n \n", 1.0),  # whitespace after </tool_call> is fine
        ("Sure, here it is.\n<think>a</think><tool_call>x</tool_call>", 1.0),  # anything may precede <think>
        ("<think>a</think><tool_call>x</tool_call> done", -1.0),  # text after </tool_call> is not
        ("<think>a</think> so <tool_call>x</tool_call>", -1.0),  # only whitespace between the blocks
        ("<tool_call>x</tool_call>", -1.0),  # missing think
        ("<think>a</think>", -1.0),  # missing tool call
        ("<tool_call>x</tool_call><think>a</think>", -1.0),  # wrong order
        ("<think>a</think><tool_call>x", -1.0),  # unclosed tool call
        ("<think><think>a</think><tool_call>x</tool_call>", -1.0),  # <think> twice
        ("<think>a</think></think><tool_call>x</tool_call>", -1.0),  # </think> twice
        ("<think>a</think><tool_call>x</tool_call><tool_call>y</tool_call>", -1.0),  # two tool calls
        ("<think>a</think><tool_call>x</tool_call></tool_call>", -1.0),  # </tool_call> twice
        ("<THINK>a</THINK><tool_call>x</tool_call>", -1.0),  # tags are case-sensitive
        ("", -1.0),
    ],
)
def test_format_rule(completion: str, expected: float) -> None:
    assert IM.score(completion, CLICK, BOX, SCREEN, MODEL).format == expected


def test_format_does_not_look_inside_the_tool_call() -> None:
    assert score("<think>a</think><tool_call>not json</tool_call>", CLICK, BOX) == (1, 0, 0, 1)


def test_text_after_tool_call_fails_format_but_the_call_still_scores() -> None:
    completion = call({"action": "click", "coordinate": [125, 250]}, after="\nThat should work.")
    assert score(completion, CLICK, BOX) == (-1, 1, 1, 1)


def test_missing_think_fails_format_but_the_call_still_scores() -> None:
    completion = '<tool_call>{"name": "mobile_use", "arguments": {"action": "wait"}}</tool_call>'
    assert score(completion, label(action="wait")) == (-1, 1, 1, 1)


# ----- parsing the tool call -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "body",
    [
        '{"name": "mobile_use", "arguments": {"action": "click", "coordinate": [125, 250]}',  # unbalanced
        "{'name': 'mobile_use', 'arguments': {'action': 'click', 'coordinate': [125, 250]}}",  # Python, not JSON
        '{"name": "mobile_use", "arguments": "click"}',  # arguments not an object
        '{"name": "mobile_use", "arguments": "action"}',  # a string that contains "action"
        '{"name": "mobile_use", "arguments": ["action"]}',
        '{"name": "mobile_use", "arguments": null}',
        '{"name": "mobile_use"}',  # no arguments
        '{"name": "mobile_use", "arguments": {"coordinate": [125, 250]}}',  # no action
        '[{"name": "mobile_use", "arguments": {"action": "click", "coordinate": [125, 250]}}]',  # a list
        '"click"',
        "",
    ],
)
def test_unparseable_tool_call_gets_no_type_or_argument(body: str) -> None:
    assert score(f"<think>a</think><tool_call>{body}</tool_call>", CLICK, BOX) == (1, 0, 0, 1)


def test_the_name_is_not_checked() -> None:
    completion = call({"action": "click", "coordinate": [125, 250]}, name="some_other_tool")
    assert score(completion, CLICK, BOX) == (1, 1, 1, 3)
    no_name = '<think>a</think><tool_call>{"arguments": {"action": "click", "coordinate": [125, 250]}}</tool_call>'
    assert score(no_name, CLICK, BOX) == (1, 1, 1, 3)


def test_the_first_tool_call_block_is_scored() -> None:
    right = json.dumps({"name": "mobile_use", "arguments": {"action": "click", "coordinate": [125, 250]}})
    wrong = json.dumps({"name": "mobile_use", "arguments": {"action": "wait"}})
    first_right = f"<think>a</think><tool_call>{right}</tool_call><tool_call>{wrong}</tool_call>"
    first_wrong = f"<think>a</think><tool_call>{wrong}</tool_call><tool_call>{right}</tool_call>"
    assert score(first_right, CLICK, BOX) == (-1, 1, 1, 1)
    assert score(first_wrong, CLICK, BOX) == (-1, 0, 0, -1)


def test_without_tool_call_tags_the_whole_text_is_parsed() -> None:
    bare = ' {"name": "mobile_use", "arguments": {"action": "click", "coordinate": [125, 250]}}\n'
    assert score(bare, CLICK, BOX) == (-1, 1, 1, 1)
    assert score("<think>a</think> just some words", CLICK, BOX) == (-1, 0, 0, -1)


def test_action_names_are_case_sensitive() -> None:
    assert score(call({"action": "Click", "coordinate": [125, 250]}), CLICK, BOX) == (1, 0, 0, 1)


def test_a_different_action_gets_nothing_but_format() -> None:
    assert score(call({"action": "long_press", "coordinate": [125, 250]}), CLICK, BOX) == (1, 0, 0, 1)


# ----- click and long_press ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "point, argument",
    [
        ([125, 250], 1.0),  # centre -> screen (250, 500)
        ([100, 200], 1.0),  # top-left corner -> (200, 400): edges included
        ([150, 300], 1.0),  # bottom-right corner -> (300, 600)
        ([100, 300], 1.0),
        ([125.0, 299.5], 1.0),  # -> (250, 599)
        ([99.5, 250], 0.0),  # -> (199, 500): just left of the box
        ([150.5, 250], 0.0),  # -> (301, 500)
        ([125, 199.5], 0.0),  # -> (250, 399)
        ([125, 300.5], 0.0),  # -> (250, 601)
        ([400, 800], 0.0),
    ],
)
def test_click_with_box_scales_the_point_to_screen_pixels(point: list[float], argument: float) -> None:
    assert score(call({"action": "click", "coordinate": point}), CLICK, BOX) == (1, 1, argument, 2 + argument)


def test_long_press_follows_the_click_rule() -> None:
    lab = label(action="long_press", coordinate=[125, 250], time=2)
    assert score(call({"action": "long_press", "coordinate": [110, 210], "time": 1}), lab, BOX)[2] == 1.0
    assert score(call({"action": "long_press", "coordinate": [10, 10]}), lab, BOX)[2] == 0.0


@pytest.mark.parametrize(
    "point, box, argument",
    [
        ([-1, 250], [-10, 400, 300, 600], 0.0),  # scaled (-2, 500) is in the box, but off the model image
        ([125, -0.5], [200, -10, 300, 600], 0.0),
        ([501, 250], [900, 400, 1100, 600], 0.0),  # beyond W' = 500
        ([250, 1001], [400, 1900, 600, 2100], 0.0),  # beyond H' = 1000
        ([500, 250], [900, 400, 1100, 600], 1.0),  # x = W' exactly is still on the image
        ([0, 1000], [-10, 1900, 10, 2100], 1.0),  # the image's corner
    ],
)
def test_click_must_be_on_the_model_image(point: list[float], box: list[float], argument: float) -> None:
    assert score(call({"action": "click", "coordinate": point}), CLICK, box)[2] == argument


NO_BOX_LABEL = label(action="click", coordinate=[250, 500])


@pytest.mark.parametrize("bbox", [None, [-1, -1, -1, -1]])
@pytest.mark.parametrize(
    "point, argument",
    [
        ([250, 500], 1.0),  # closeness 1
        ([349, 500], 1.0),  # (2 - 99/500) / 2 = 0.901 > 0.9
        ([350, 500], 0.0),  # (2 - 100/500) / 2 = 0.9, not > 0.9
        ([151, 500], 1.0),
        ([150, 500], 0.0),
        ([250, 699], 1.0),  # (2 - 199/1000) / 2 = 0.9005
        ([250, 701], 0.0),  # 0.8995
        ([300, 599], 1.0),  # (2 - 0.1 - 0.099) / 2 = 0.9005
        ([300, 601], 0.0),  # (2 - 0.1 - 0.101) / 2 = 0.8995
    ],
)
def test_click_without_box_uses_closeness_above_point_nine(bbox: Any, point: list[float], argument: float) -> None:
    assert score(call({"action": "click", "coordinate": point}), NO_BOX_LABEL, bbox)[2] == argument


def test_click_without_box_still_needs_the_model_image() -> None:
    edge_label = label(action="click", coordinate=[0, 500])
    assert score(call({"action": "click", "coordinate": [-1, 500]}), edge_label, None)[2] == 0.0
    assert score(call({"action": "click", "coordinate": [0, 500]}), edge_label, None)[2] == 1.0


@pytest.mark.parametrize(
    "arguments",
    [
        {"action": "click"},  # no coordinate
        {"action": "click", "coordinate": "125, 250"},
        {"action": "click", "coordinate": [125, 250, 1]},
        {"action": "click", "coordinate": [125]},
        {"action": "click", "coordinate": ["125", "250"]},
        {"action": "click", "coordinate": {"x": 125, "y": 250}},
        {"action": "click", "coordinate": None},
    ],
)
def test_malformed_coordinate_keeps_the_type_reward(arguments: dict[str, Any]) -> None:
    assert score(call(arguments), CLICK, BOX) == (1, 1, 0, 2)


def test_non_finite_coordinates_are_off_the_image() -> None:
    nan = '<think>a</think><tool_call>{"name": "mobile_use", "arguments": {"action": "click", "coordinate": [NaN, 250]}}</tool_call>'
    inf = nan.replace("NaN", "Infinity")
    assert score(nan, CLICK, BOX) == (1, 1, 0, 2)
    assert score(inf, CLICK, BOX) == (1, 1, 0, 2)


def test_json_booleans_count_as_numbers_like_in_python() -> None:
    lab = label(action="click", coordinate=[1, 1])
    assert score(call({"action": "click", "coordinate": [True, True]}), lab, [0, 0, 10, 10])[2] == 1.0


def test_an_action_label_works_like_its_dict() -> None:
    completion = call({"action": "click", "coordinate": [125, 250]})
    assert IM.score(completion, Action.click(125, 250), BOX, SCREEN, MODEL) == IM.score(completion, CLICK, BOX, SCREEN, MODEL)


# ----- type and call_user: BLEU ------------------------------------------------------------------------------


def sacrebleu_reference(pred: str, ref: str, *, effective_order: bool, tokenize: str = "none") -> float:
    """sacrebleu called directly with the documented settings."""
    from sacrebleu.metrics import BLEU

    metric = BLEU(lowercase=True, tokenize=tokenize, smooth_method="exp", max_ngram_order=4, effective_order=effective_order)
    return metric.sentence_score(pred.strip().lower(), [ref.strip().lower()]).score / 100


@pytest.mark.parametrize("kind, key", [("type", "text"), ("call_user", "content")])
def test_short_identical_text_scores_zero_without_effective_order(kind: str, key: str) -> None:
    lab = label(action=kind, **{key: "Pay 35 yuan"})  # three tokens: no 4-gram
    completion = call({"action": kind, key: "pay 35 yuan"})
    assert score(completion, lab) == (1, 1, 0, 2)
    fmt, type_, argument, total = score(completion, lab, preset=FIXED)
    assert (fmt, type_) == (1, 1) and argument == pytest.approx(1.0) and total == pytest.approx(3.0)


@pytest.mark.parametrize("kind, key", [("type", "text"), ("call_user", "content")])
def test_identical_four_token_text_scores_one_in_both(kind: str, key: str) -> None:
    lab = label(action=kind, **{key: "shall I pay now"})
    completion = call({"action": kind, key: "  Shall I PAY now "})
    assert score(completion, lab)[2] == pytest.approx(1.0)
    assert score(completion, lab, preset=FIXED)[2] == pytest.approx(1.0)


LONG_PAIRS = [
    ("Do you want me to transfer 200 yuan to Zhang Wei now?", "Should I transfer 200 yuan to Zhang Wei?"),
    ("Please confirm which contact should receive the red packet", "please confirm the contact who receives the red packet"),
    ("Which size of the jacket do you want to buy", "What size should the jacket be"),
    ("i need your password to log in", "please log in with your account first so i can continue"),
    ("search for manus", "search manus on xiaohongshu"),
]


@pytest.mark.parametrize("pred, ref", LONG_PAIRS)
@pytest.mark.parametrize("preset, effective_order, tokenize", [(IM, False, "13a"), (FIXED, True, "none")])
def test_bleu_matches_sacrebleu_called_directly(pred: str, ref: str, preset: Any, effective_order: bool,
                                                tokenize: str) -> None:
    expected = sacrebleu_reference(pred, ref, effective_order=effective_order, tokenize=tokenize)
    for kind, key in (("type", "text"), ("call_user", "content")):
        fmt, type_, argument, total = score(call({"action": kind, key: pred}), label(action=kind, **{key: ref}), preset=preset)
        assert (fmt, type_) == (1, 1)
        assert argument == expected
        assert 0.0 <= argument < 1.0


def test_bleu_tokenisation_follows_the_sacrebleu_each_preset_reproduces() -> None:
    ref = "pay the bill now , please"
    pred = "pay the bill now, please"  # 13a tokens make these identical; whitespace tokens do not
    released = score(call({"action": "type", "text": pred}), label(action="type", text=ref))[2]
    assert released == sacrebleu_reference(pred, ref, effective_order=False, tokenize="13a") == pytest.approx(1.0)
    fixed = score(call({"action": "type", "text": pred}), label(action="type", text=ref), preset=FIXED)[2]
    assert fixed == sacrebleu_reference(pred, ref, effective_order=True, tokenize="none") < 0.5


# A long question, as a model asks it (words lost, punctuation kept), against the labelled one.
LONG_LABEL = ('I found two contacts named "Wang Lei" - one at work, one from school. Which one should I send the '
              "photos to, and should I include the videos too?")
LONG_PRED = 'I found two contacts in Lei" one at work, one from school. Which one I the cost to and I the videos too?'


def test_call_user_bleu_is_the_released_script_under_sacrebleu_2() -> None:
    """The released reward builds `BLEU(Namespace(...))`; under sacrebleu 2.x that is lower-cased 13a BLEU.

    Scored on whitespace tokens (what this preset did before, and what FORMATS first said) the same pair gives
    0.383; the released script gives 0.421, and so does the preset now.
    """
    import logging
    from argparse import Namespace

    from sacrebleu.metrics import BLEU

    # what grpo_interactive.py runs: the metric built from a Namespace, then `_safe_bleu`'s strip, lower and / 100
    logging.getLogger("sacrebleu").setLevel(logging.ERROR)
    released_metric = BLEU(Namespace(tokenize="none", force=False, smooth_method="exp", smooth_value=None,
                                     max_ngram_order=4, lc=True))
    released = released_metric.sentence_score(LONG_PRED.strip().lower(), [LONG_LABEL.strip().lower()]).score / 100
    fmt, type_, argument, total = score(call({"action": "call_user", "content": LONG_PRED}),
                                        label(action="call_user", content=LONG_LABEL))
    assert (fmt, type_) == (1, 1)
    assert argument == pytest.approx(released) and round(argument, 3) == 0.421
    whitespace = sacrebleu_reference(LONG_PRED, LONG_LABEL, effective_order=False, tokenize="none")
    assert round(whitespace, 3) == 0.383  # the old value: a different number for the same pair


def test_bleu_memory_is_bounded_by_a_cap_on_the_text() -> None:
    from mobile_r1.core.rewards.bleu import BLEU_MAX_CHARS, sentence_bleu

    words = "please type this long message into the box " * (BLEU_MAX_CHARS // 20)
    assert len(words) > 2 * BLEU_MAX_CHARS
    capped = sentence_bleu(words, words[:BLEU_MAX_CHARS], effective_order=False, tokenize="13a")
    assert capped == pytest.approx(1.0)  # only the first BLEU_MAX_CHARS characters of each text are scored


@pytest.mark.parametrize("preset", [IM, FIXED])
@pytest.mark.parametrize(
    "pred, ref",
    [("", "shall I pay now"), ("   ", "shall I pay now"), ("shall I pay now", ""), ("shall I pay now", "  ")],
)
def test_empty_text_scores_zero(preset: Any, pred: str, ref: str) -> None:
    assert score(call({"action": "type", "text": pred}), label(action="type", text=ref), preset=preset) == (1, 1, 0, 2)
    assert score(call({"action": "call_user", "content": pred}), label(action="call_user", content=ref), preset=preset) == (
        1,
        1,
        0,
        2,
    )


@pytest.mark.parametrize("arguments", [{"action": "type"}, {"action": "type", "text": 42}, {"action": "type", "text": None}])
def test_malformed_text_keeps_the_type_reward(arguments: dict[str, Any]) -> None:
    assert score(call(arguments), label(action="type", text="shall I pay now")) == (1, 1, 0, 2)


def test_call_user_reads_content_not_text() -> None:
    lab = label(action="call_user", content="shall I pay now")
    assert score(call({"action": "call_user", "text": "shall I pay now"}), lab) == (1, 1, 0, 2)


# ----- swipe ---------------------------------------------------------------------------------------------------

SWIPES = {  # finger motion in the model image (500 x 1000)
    "up": [250, 800, 250, 200],
    "down": [250, 200, 250, 800],
    "left": [400, 500, 100, 500],
    "right": [100, 500, 400, 500],
}


@pytest.mark.parametrize("label_dir", list(SWIPES))
@pytest.mark.parametrize("pred_dir", list(SWIPES))
def test_swipe_needs_the_same_direction(label_dir: str, pred_dir: str) -> None:
    lx, ly, lx2, ly2 = SWIPES[label_dir]
    px, py, px2, py2 = SWIPES[pred_dir]
    lab = label(action="swipe", coordinate=[lx, ly], coordinate2=[lx2, ly2])
    completion = call({"action": "swipe", "coordinate": [px, py], "coordinate2": [px2, py2]})
    argument = 1.0 if label_dir == pred_dir else 0.0
    assert score(completion, lab) == (1, 1, argument, 2 + argument)


def test_swipe_axis_is_decided_after_normalising_by_the_image_size() -> None:
    lab = label(action="swipe", coordinate=[250, 800], coordinate2=[250, 200])  # up
    # 300 px left and 400 px up: vertical in pixels, but -0.6 of the width against -0.4 of the height.
    diagonal = call({"action": "swipe", "coordinate": [400, 500], "coordinate2": [100, 100]})
    assert score(diagonal, lab)[2] == 0.0
    left = label(action="swipe", coordinate=[400, 500], coordinate2=[100, 500])
    assert score(diagonal, left)[2] == 1.0


def test_swipe_with_equal_normalised_motion_counts_as_vertical() -> None:
    tie = call({"action": "swipe", "coordinate": [100, 200], "coordinate2": [200, 400]})  # +0.2 and +0.2
    assert score(tie, label(action="swipe", coordinate=[250, 200], coordinate2=[250, 800]))[2] == 1.0  # down
    assert score(tie, label(action="swipe", coordinate=[100, 500], coordinate2=[400, 500]))[2] == 0.0  # right


@pytest.mark.parametrize(
    "arguments",
    [
        {"action": "swipe", "coordinate": [250, 800]},
        {"action": "swipe", "coordinate": [250, 800], "coordinate2": "up"},
        {"action": "swipe", "coordinate": [250, 800], "coordinate2": [250, "200"]},
        {"action": "swipe", "coordinate": [250, 800], "coordinate2": [250, 200, 3]},
    ],
)
def test_malformed_swipe_keeps_the_type_reward(arguments: dict[str, Any]) -> None:
    lab = label(action="swipe", coordinate=[250, 800], coordinate2=[250, 200])
    assert score(call(arguments), lab) == (1, 1, 0, 2)


def test_swipe_coordinates_are_spread_like_the_released_call() -> None:
    # check_swipe_directon(*coordinate, *coordinate2, W', H') only sees four numbers in a row.
    lab = label(action="swipe", coordinate=[250, 800], coordinate2=[250, 200])
    assert score(call({"action": "swipe", "coordinate": [250], "coordinate2": [800, 250, 200]}), lab)[2] == 1.0


# ----- buttons, open, wait, terminate, key, answer -------------------------------------------------------------


@pytest.mark.parametrize(
    "button, argument",
    [("Back", 1.0), ("back", 1.0), ("BACK", 1.0), ("Home", 0.0), (" Back", 0.0), ("Back ", 0.0)],
)
def test_system_button_matches_case_insensitively_without_stripping(button: str, argument: float) -> None:
    assert score(call({"action": "system_button", "button": button}), label(action="system_button", button="Back")) == (
        1,
        1,
        argument,
        2 + argument,
    )


@pytest.mark.parametrize("text, argument", [("Settings", 1.0), ("  settings ", 1.0), ("SETTINGS", 1.0), ("Setting", 0.0), ("", 0.0)])
def test_open_matches_the_lower_cased_stripped_text(text: str, argument: float) -> None:
    assert score(call({"action": "open", "text": text}), label(action="open", text="Settings"))[2] == argument


@pytest.mark.parametrize(
    "lab, arguments",
    [
        (label(action="wait", time=2), {"action": "wait"}),
        (label(action="wait"), {"action": "wait", "time": "soon"}),
        (label(action="terminate", status="success"), {"action": "terminate", "status": "failure"}),
        (label(action="terminate", status="failure"), {"action": "terminate"}),
    ],
)
def test_wait_and_terminate_get_the_argument_reward_unchecked(lab: dict[str, Any], arguments: dict[str, Any]) -> None:
    assert score(call(arguments), lab) == (1, 1, 1, 3)


@pytest.mark.parametrize(
    "lab, arguments",
    [
        (label(action="key", text="volume_up"), {"action": "key", "text": "volume_up"}),
        (label(action="key", text="volume_up"), {"action": "key", "text": "power"}),
        (label(action="answer", text="3 pm"), {"action": "answer", "text": "3 pm"}),
    ],
)
def test_key_and_answer_get_only_the_type_reward(lab: dict[str, Any], arguments: dict[str, Any]) -> None:
    assert score(call(arguments), lab) == (1, 1, 0, 2)


# ----- the Back cross credit -------------------------------------------------------------------------------------

BACK = label(action="system_button", button="Back")
BACK_BOX = [0, 0, 100, 100]  # screen pixels: the model points 0..50


def test_click_inside_the_back_box_earns_the_argument_but_not_the_type() -> None:
    assert score(call({"action": "click", "coordinate": [25, 25]}), BACK, BACK_BOX) == (1, 0, 1, 2)
    assert score(call({"action": "click", "coordinate": [50, 50]}), BACK, BACK_BOX) == (1, 0, 1, 2)  # edge


def test_cross_credit_needs_the_box_and_a_click_inside_it() -> None:
    assert score(call({"action": "click", "coordinate": [51, 25]}), BACK, BACK_BOX) == (1, 0, 0, 1)
    assert score(call({"action": "click", "coordinate": [25, 25]}), BACK, None) == (1, 0, 0, 1)
    assert score(call({"action": "click", "coordinate": [25, 25]}), BACK, [-1, -1, -1, -1]) == (1, 0, 0, 1)
    assert score(call({"action": "click"}), BACK, BACK_BOX) == (1, 0, 0, 1)


def test_cross_credit_is_only_for_back() -> None:
    home = label(action="system_button", button="Home")
    assert score(call({"action": "click", "coordinate": [25, 25]}), home, BACK_BOX) == (1, 0, 0, 1)
    assert score(call({"action": "long_press", "coordinate": [25, 25]}), BACK, BACK_BOX) == (1, 0, 0, 1)


def test_cross_credit_does_not_check_the_model_image() -> None:
    assert score(call({"action": "click", "coordinate": [-10, -10]}), BACK, [-50, -50, 100, 100]) == (1, 0, 1, 2)


def test_no_cross_credit_the_other_way_round() -> None:
    completion = call({"action": "system_button", "button": "Back"})
    assert score(completion, label(action="click", coordinate=[25, 25]), BACK_BOX) == (1, 0, 0, 1)


# ----- range -------------------------------------------------------------------------------------------------------

ACTION_ARGS = st.sampled_from(
    [
        {"action": "click", "coordinate": [125, 250]},
        {"action": "click", "coordinate": [-5, 3000]},
        {"action": "system_button", "button": "Back"},
        {"action": "type", "text": "shall I pay now"},
        {"action": "call_user", "content": "shall I pay now"},
        {"action": "swipe", "coordinate": [1, 2], "coordinate2": [3, 4]},
        {"action": "wait"},
        {"action": "key", "text": "x"},
    ]
)


@settings(max_examples=150, deadline=None)
@given(
    think=st.text(max_size=20),
    arguments=ACTION_ARGS,
    noise=st.text(max_size=10),
    lab=st.sampled_from([CLICK, BACK, label(action="type", text="shall I pay now"), label(action="wait")]),
    preset=st.sampled_from([IM, FIXED]),
)
def test_total_stays_within_minus_one_and_three(think: str, arguments: dict[str, Any], noise: str, lab: Any, preset: Any) -> None:
    result = preset.score(noise + call(arguments, think=think) + noise, lab, BOX, SCREEN, MODEL)
    assert result.format in (-1.0, 1.0)
    assert result.components["type"] in (0.0, 1.0)
    assert -1.0 <= result.total <= 3.0 + 1e-9
