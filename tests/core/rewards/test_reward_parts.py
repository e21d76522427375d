"""Unit tests of the reward parts: BLEU settings, swipe direction, token F1, tool-call parsing and input checks."""

from __future__ import annotations

import logging

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mobile_r1.core import Action, DataError
from mobile_r1.core.rewards import RewardTarget, completion_text, sentence_bleu, swipe_direction, token_f1
from mobile_r1.core.rewards.components import first_tool_call, loose_arguments, strict_tool_call

WORDS = st.lists(st.sampled_from(["pay", "the", "bill", "now", "Please", "confirm", "yes", "red", "packet", "?"]), max_size=9)


@settings(max_examples=60, deadline=None)
@given(pred=WORDS, ref=WORDS, effective_order=st.booleans())
def test_sentence_bleu_equals_sacrebleu_sentence_score(pred: list[str], ref: list[str], effective_order: bool) -> None:
    from sacrebleu.metrics import BLEU

    hyp, reference = " ".join(pred), " ".join(ref)
    metric = BLEU(lowercase=True, tokenize="none", smooth_method="exp", max_ngram_order=4, effective_order=effective_order)
    logging.getLogger("sacrebleu").disabled = True  # its "enable effective_order" notice, once per call
    try:
        expected = metric.sentence_score(hyp.strip().lower(), [reference.strip().lower()]).score / 100
    finally:
        logging.getLogger("sacrebleu").disabled = False
    if not hyp.strip() or not reference.strip():
        expected = 0.0
    assert sentence_bleu(hyp, reference, effective_order=effective_order) == expected


def test_short_texts_need_effective_order() -> None:
    assert sentence_bleu("pay now", "pay now", effective_order=False) == 0.0
    assert sentence_bleu("pay now", "pay now", effective_order=True) == pytest.approx(1.0)
    assert sentence_bleu("pay the bill now", "pay the bill now", effective_order=False) == pytest.approx(1.0)


@pytest.mark.parametrize(
    "motion, direction",
    [
        ((0, 0, 10, 0), "right"),
        ((10, 0, 0, 0), "left"),
        ((0, 0, 0, 10), "down"),
        ((0, 10, 0, 0), "up"),
        ((0, 0, 0, 0), "up"),  # no motion falls in the vertical, non-positive class
        ((0, 0, 10, 20), "down"),  # equal after normalising by 10 x 20: vertical wins ties
        ((0, 0, 11, 20), "right"),
    ],
)
def test_swipe_direction(motion: tuple[float, float, float, float], direction: str) -> None:
    assert swipe_direction(*motion, 10, 20) == direction


@pytest.mark.parametrize(
    "pred, ref, f1",
    [
        ("a b c d", "a b c d", 1.0),
        ("a b", "a c", 0.5),
        ("a a b", "a b", 1.0),  # sets, not bags
        ("x", "xyz", 1.0),
        ("", "", 0.0),
        ("A B", "a b", 1.0),
        ("a b c", "d", 0.0),
    ],
)
def test_token_f1(pred: str, ref: str, f1: float) -> None:
    assert token_f1(pred, ref) == pytest.approx(f1)


def test_first_tool_call_takes_the_first_complete_block() -> None:
    assert first_tool_call("a <tool_call> one </tool_call> <tool_call>two</tool_call>") == "one"
    assert first_tool_call("<tool_call>\nmulti\nline\n</tool_call>") == "multi\nline"
    assert first_tool_call("<tool_call>open") is None


def test_loose_arguments_falls_back_to_the_whole_text() -> None:
    assert loose_arguments('  {"arguments": {"action": "wait"}} ') == {"action": "wait"}
    assert loose_arguments('<tool_call>{"arguments": {"action": "wait"}}</tool_call>') == {"action": "wait"}
    assert loose_arguments("[" * 100_000) is None  # too deep for the decoder: unparseable, not a crash


def test_strict_tool_call_requires_the_tool_name_and_valid_arguments() -> None:
    good = '<tool_call>{"name": "mobile_use", "arguments": {"action": "click", "coordinate": [1, 2]}}</tool_call>'
    assert strict_tool_call(good) == Action.click(1, 2)
    assert strict_tool_call(good.replace("mobile_use", "other")) is None
    assert strict_tool_call(good.replace('"click"', '"Click"')) is None
    assert strict_tool_call(good.replace('"click"', '"Click"'), lowercase_action=True) == Action.click(1, 2)
    assert strict_tool_call(good.replace("[1, 2]", "[1, true]")) is None
    assert strict_tool_call('{"name": "mobile_use", "arguments": {"action": "wait"}}') is None  # needs the block


@pytest.mark.parametrize(
    "completion, text",
    [
        ("plain", "plain"),
        ([{"role": "assistant", "content": "chat"}], "chat"),
        ([{"role": "assistant", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}], "ab"),
        ({"role": "assistant", "content": "one"}, "one"),
    ],
)
def test_completion_text(completion: object, text: str) -> None:
    assert completion_text(completion) == text


@pytest.mark.parametrize("completion", [None, 3, [], [{"role": "assistant"}]])
def test_completion_text_rejects_other_shapes(completion: object) -> None:
    with pytest.raises(DataError, match="completion"):
        completion_text(completion)


def test_target_accepts_dicts_bare_arguments_json_text_and_actions() -> None:
    expected = RewardTarget(Action.click(1, 2), None, (10, 20), (5, 10))
    args = {"action": "click", "coordinate": [1, 2]}
    for lab in (args, {"name": "mobile_use", "arguments": args}, '{"name": "mobile_use", "arguments": {"action": "click", "coordinate": [1, 2]}}', Action.click(1, 2)):
        assert RewardTarget.build(lab, None, [10, 20], [5, 10]) == expected
    assert RewardTarget.build(args, [-1, -1, -1, -1], [10, 20], [5, 10]).bbox is None
    assert RewardTarget.build(args, [-1, 0, 5, 5], [10, 20], [5, 10]).bbox is None  # only bbox[0] is checked
    assert RewardTarget.build(args, [0, 0, 5, 5.5], [10, 20], [5, 10]).bbox == (0, 0, 5, 5.5)


@pytest.mark.parametrize(
    "lab, bbox, size, model, field",
    [
        ({"action": "fly"}, None, [10, 20], [5, 10], "label"),
        ({"name": "mobile_use", "arguments": {"action": "click"}}, None, [10, 20], [5, 10], "label.arguments"),
        ({"name": "other", "arguments": {"action": "wait"}}, None, [10, 20], [5, 10], "label.name"),
        ("not json", None, [10, 20], [5, 10], "label"),
        (["click"], None, [10, 20], [5, 10], "label"),
        ({"action": "wait"}, [1, 2, 3], [10, 20], [5, 10], "bbox"),
        ({"action": "wait"}, "box", [10, 20], [5, 10], "bbox"),
        ({"action": "wait"}, [0, 0, 1, float("nan")], [10, 20], [5, 10], "bbox"),
        ({"action": "wait"}, None, [10, 0], [5, 10], "image_size"),
        ({"action": "wait"}, None, None, [5, 10], "image_size"),
        ({"action": "wait"}, None, [10, 20], [5], "model_image_size"),
        ({"action": "wait"}, None, [10, 20], [True, 10], "model_image_size"),
    ],
)
def test_target_errors_name_the_field(lab: object, bbox: object, size: object, model: object, field: str) -> None:
    with pytest.raises(DataError, match=f"'{field}'"):
        RewardTarget.build(lab, bbox, size, model)


# Scores of the released script's `_safe_bleu` run under sacrebleu 1.5.1, which reads its Namespace
# (tokenize='none', lc=True, exp smoothing) and scores sentences with effective order.
SACREBLEU_1_5_1 = [
    ("pay 35 yuan", "pay 35 yuan", 1.0000000000000004),
    ("do you want me to transfer 200 yuan to zhang wei now?", "should i transfer 200 yuan to zhang wei?", 0.3170233138523431),
    ("search for manus", "search manus on xiaohongshu", 0.24840753130578644),
    ("pay the bill now, please", "pay the bill now , please", 0.3498330125272253),
]


@pytest.mark.parametrize("pred, ref, expected", SACREBLEU_1_5_1)
def test_effective_order_bleu_reproduces_sacrebleu_1_5_1(pred: str, ref: str, expected: float) -> None:
    assert sentence_bleu(pred, ref, effective_order=True) == pytest.approx(expected, abs=1e-12)


def test_target_reads_dataset_struct_labels_with_empty_fields() -> None:
    # A `datasets` struct column gives every key of every row, with None where a row has no value.
    row = {"name": None, "arguments": {"action": "click", "coordinate": [1, 2], "text": None, "button": None, "time": None}}
    assert RewardTarget.build(row, None, [10, 20], [5, 10]).label == Action.click(1, 2)
