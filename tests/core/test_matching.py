"""Step matching presets and offline metrics, on hand-computed cases (screen 1000 x 2000 px unless noted)."""

from __future__ import annotations

import pytest

from mobile_r1.core.actions import Action
from mobile_r1.core.errors import ConfigError
from mobile_r1.core.matching import (
    MATCHERS,
    StepMatch,
    StepMetrics,
    get_matcher,
    summarize,
    swipe_direction,
    token_f1,
)

SCREEN = (1000, 2000)
aitw, qwen, guir1 = get_matcher("aitw"), get_matcher("qwen-ac"), get_matcher("gui-r1")


def test_presets_by_name() -> None:
    assert set(MATCHERS) == {"aitw", "qwen-ac", "gui-r1", "cagui"}
    assert get_matcher("qwen-ac").name == "qwen-ac"
    with pytest.raises(ConfigError, match="aitw"):
        get_matcher("nope")


@pytest.mark.parametrize("matcher", [aitw, qwen, guir1])
def test_missing_prediction_is_a_miss(matcher) -> None:
    assert matcher.match(None, Action.click(1, 1), None, SCREEN) == StepMatch(False, None, False)


# ----- aitw ---------------------------------------------------------------------------------------------------
# Box [100, 100, 200, 150]: normalised left .1, top .05, width .1, height .025. The reference grows each side by
# 0.7 x size: x in [.03, .27] -> pixels [30, 270]; y in [.0325, .0925] -> pixels [65, 185].
BOX = [100, 100, 200, 150]


@pytest.mark.parametrize(
    "pred, hit",
    [
        ((269.5, 184.5), True),  # inside the enlarged box, 0.164 away from the label point
        ((270.5, 150), False),  # just right of it, still 0.16 away
        ((150, 185.5), True),  # below the box but within 0.14 of the label point (dy = 0.0378)
        ((31, 66), True),  # top-left corner region
        ((29.5, 120), True),  # left of the box, distance 0.0806 <= 0.14
    ],
)
def test_aitw_tap_enlarged_box(pred, hit) -> None:
    label = Action.click(110, 110)
    m = aitw.match(Action.click(*pred), label, BOX, SCREEN)
    assert m == StepMatch(True, hit, hit)


def test_aitw_box_only_counts_when_both_points_inside() -> None:
    # label far outside the box: the box does not help, only the distance
    label = Action.click(600, 1000)
    assert not aitw.match(Action.click(150, 120), label, BOX, SCREEN).exact


@pytest.mark.parametrize("dx, hit", [(140, True), (141, False)])
def test_aitw_distance_threshold_inclusive(dx, hit) -> None:
    m = aitw.match(Action.click(500 + dx, 1000), Action.click(500, 1000), None, SCREEN)
    assert m.exact is hit and m.grounding is hit


def test_aitw_short_swipe_is_a_tap() -> None:
    label = Action.click(500, 1000)
    short = Action.swipe(500, 1000, 500, 1079)  # moves 0.0395 <= 0.04: a tap
    long = Action.swipe(500, 1000, 500, 1081)  # moves 0.0405: a swipe
    assert aitw.match(short, label, None, SCREEN) == StepMatch(True, True, True)
    assert aitw.match(long, label, None, SCREEN) == StepMatch(False, None, False)


def test_aitw_swipes_match_on_main_axis_not_sign() -> None:
    up = Action.swipe(500, 1500, 500, 500)
    assert aitw.match(Action.swipe(500, 500, 500, 1500), up, None, SCREEN) == StepMatch(True, None, True)
    assert aitw.match(Action.swipe(800, 1000, 200, 1000), up, None, SCREEN) == StepMatch(True, None, False)
    # dx = 300 px = 0.3 of W, dy = 500 px = 0.25 of H: the normalised main axis is x
    assert not aitw.match(Action.swipe(500, 1000, 800, 1500), up, None, SCREEN).exact


def test_aitw_other_actions_on_type_alone() -> None:
    assert aitw.match(Action.type_text("abc"), Action.type_text("xyz"), None, SCREEN).exact
    assert aitw.match(Action.wait(), Action.wait(3), None, SCREEN).exact
    assert aitw.match(Action.call_user("a"), Action.call_user("b"), None, SCREEN).exact
    assert not aitw.match(Action.type_text("abc"), Action.click(1, 1), None, SCREEN).type_match
    # buttons and terminate status count as types in the reference
    assert not aitw.match(Action.home(), Action.back(), None, SCREEN).exact
    assert not aitw.match(Action.terminate("failure"), Action.terminate("success"), None, SCREEN).exact
    assert aitw.match(Action.back(), Action.back(), None, SCREEN).exact


# ----- qwen-ac ------------------------------------------------------------------------------------------------
# Box [100, 100, 400, 300] enlarged 1.2x about its centre: [70, 80, 430, 320]. Distance limit 0.04 * 2000 = 80 px.
BIG = [100, 100, 400, 300]


@pytest.mark.parametrize(
    "pred, hit",
    [((429.5, 150), True), ((430.5, 150), False), ((150, 319.5), True), ((150, 320.5), False), ((69.5, 150), False)],
)
def test_qwen_click_in_enlarged_box(pred, hit) -> None:
    m = qwen.match(Action.click(*pred), Action.click(150, 150), BIG, SCREEN)
    assert m == StepMatch(True, hit, hit)


@pytest.mark.parametrize("dx, hit", [(80, True), (81, False)])
def test_qwen_click_distance_uses_longer_side(dx, hit) -> None:
    m = qwen.match(Action.click(500 + dx, 1000), Action.click(500, 1000), None, SCREEN)
    assert m.exact is hit


def test_qwen_long_press_like_click_and_types_must_agree() -> None:
    assert qwen.match(Action.long_press(505, 1000), Action.long_press(500, 1000), None, SCREEN).exact
    assert qwen.match(Action.click(500, 1000), Action.long_press(500, 1000), None, SCREEN) == StepMatch(False, None, False)


@pytest.mark.parametrize(
    "pred, label, ok",
    [("Hello", "hello world", True), ("hello world!", "Hello World", True), ("hello there", "hello world", False), ("  SHOES ", "shoes", True)],
)
def test_qwen_text_containment(pred, label, ok) -> None:
    assert qwen.match(Action.type_text(pred), Action.type_text(label), None, SCREEN).exact is ok
    assert qwen.match(Action.open(pred), Action.open(label), None, SCREEN).exact is ok


def test_qwen_swipe_by_direction_in_pixels() -> None:
    up = Action.swipe(500, 1500, 500, 500)
    assert qwen.match(Action.swipe(100, 900, 120, 300), up, None, SCREEN).exact
    assert not qwen.match(Action.swipe(500, 500, 500, 1500), up, None, SCREEN).exact
    down = Action.swipe(500, 500, 500, 1500)
    # dx = 300 px, dy = 500 px: down by pixels (aitw would call the main axis x)
    assert qwen.match(Action.swipe(500, 1000, 800, 1500), down, None, SCREEN).exact


def test_qwen_buttons_wait_terminate() -> None:
    assert qwen.match(Action.system_button("back"), Action.back(), None, SCREEN).exact
    assert not qwen.match(Action.home(), Action.back(), None, SCREEN).exact
    assert qwen.match(Action.wait(1), Action.wait(5), None, SCREEN).exact
    assert not qwen.match(Action.terminate("failure"), Action.terminate("success"), None, SCREEN).exact


def test_qwen_open_by_clicking_the_icon() -> None:
    label, icon = Action.open("Settings"), [100, 100, 200, 200]  # enlarged [90, 90, 210, 210], centre (150, 150)
    assert qwen.match(Action.click(205, 150), label, icon, SCREEN) == StepMatch(True, None, True)
    assert qwen.match(Action.click(150, 215), label, icon, SCREEN).exact  # outside the box, 65 px from the centre
    assert not qwen.match(Action.click(150, 231), label, icon, SCREEN).exact  # 81 px from the centre
    assert not qwen.match(Action.click(150, 150), label, None, SCREEN).type_match  # no icon box: click != open


def test_qwen_click_off_the_icon_of_an_open_label_is_the_right_type_but_a_wrong_step() -> None:
    """The Qwen2.5-VL AndroidControl evaluator answers (type True, step False) for a click on an `open` label that
    carries a candidate box but lands away from it; it used to be scored as a type mismatch here."""
    label, icon = Action.open("Settings"), [100, 100, 200, 200]
    far = qwen.match(Action.click(900, 1800), label, icon, SCREEN)
    assert far == StepMatch(True, None, False)
    from mobile_r1.core.matching import evaluate

    _, report = evaluate(qwen, [Action.click(900, 1800)], [label], [icon], [SCREEN])
    assert report.type_accuracy == 1.0 and report.step_sr == 0.0


# ----- gui-r1 -------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("dx, hit", [(139, True), (140, False)])
def test_guir1_distance_strict(dx, hit) -> None:
    m = guir1.match(Action.click(500 + dx, 1000), Action.click(500, 1000), [0, 0, 1000, 2000], SCREEN)
    assert m == StepMatch(True, hit, hit)


def test_guir1_distance_normalised_per_axis() -> None:
    # dx = 0.1 W, dy = 0.1 H: distance 0.1414 >= 0.14
    assert not guir1.match(Action.click(600, 1200), Action.click(500, 1000), None, SCREEN).exact
    assert guir1.match(Action.click(600, 1190), Action.click(500, 1000), None, SCREEN).exact  # 0.1346


@pytest.mark.parametrize(
    "pred, label, f1",
    [
        ("buy blue shoes", "buy red shoes", 2 / 3),
        ("red", "buy red shoes", 0.5),
        ("cheap", "buy red shoes", 0.0),
        ("设置", "打开设置", 1.0),  # single tokens: containment
        ("[Search]", "search", 1.0),
        ("", "x", 0.0),
    ],
)
def test_token_f1(pred, label, f1) -> None:
    assert token_f1(pred, label) == pytest.approx(f1)


def test_guir1_text_threshold() -> None:
    label = Action.type_text("buy red shoes")
    assert guir1.match(Action.type_text("red"), label, None, SCREEN).exact  # F1 0.5
    assert not guir1.match(Action.type_text("red boots now please"), label, None, SCREEN).exact  # F1 1/3.5 = 0.286


def test_swipe_direction() -> None:
    assert swipe_direction((0, 10), (0, 0)) == "up"
    assert swipe_direction((0, 0), (5, 5)) == "down"  # a tie goes to the vertical axis
    assert swipe_direction((5, 0), (0, 1)) == "left"
    assert swipe_direction((1, 1), (1, 1)) is None


# ----- metrics ------------------------------------------------------------------------------------------------
def test_summary_on_a_hand_computed_set() -> None:
    c = Action.click(500, 1000)
    rows = [
        (Action.click(500, 1000), c),  # right type, grounded, exact
        (Action.click(900, 1900), c),  # right type, wrong place
        (Action.click(1, 1), Action.type_text("abc")),  # wrong type
        (Action.call_user("other words"), Action.call_user("q?")),  # asked when it should: tp, exact
        (Action.type_text("x"), Action.call_user("q?")),  # did not ask: fn
        (Action.call_user("why?"), c),  # asked without need: fp
        (None, Action.terminate("success")),  # no valid prediction
    ]
    preds, labels = [p for p, _ in rows], [l for _, l in rows]
    matches = [guir1.match(p, l, None, SCREEN) for p, l in rows]
    report = summarize(matches, preds, labels, preset=guir1.name)
    assert report.preset == "gui-r1"
    assert report.steps == 7
    assert report.type_accuracy == pytest.approx(3 / 7)
    assert report.grounding == pytest.approx(1 / 2)
    assert report.step_sr == pytest.approx(2 / 7)
    click = report.per_type["click"]
    assert (click.steps, click.type_match, click.grounding_steps, click.exact) == (3, 2, 2, 1)
    assert report.per_type["call_user"].step_sr == pytest.approx(1 / 2)
    q = report.inquiry
    assert (q.tp, q.fp, q.fn) == (1, 1, 1)
    assert q.precision == pytest.approx(0.5) and q.recall == pytest.approx(0.5) and q.f1 == pytest.approx(0.5)
    d = report.to_dict()
    assert d["preset"] == "gui-r1" and d["inquiry"]["f1"] == pytest.approx(0.5)


def test_inquiry_f1_uneven() -> None:
    metrics = StepMetrics("aitw")
    ask, act = Action.call_user("?"), Action.back()
    for pred, label in [(ask, ask), (ask, ask), (ask, act), (act, ask), (act, ask), (act, act)]:
        metrics.add(aitw.match(pred, label, None, SCREEN), pred, label)
    q = metrics.report().inquiry
    # P = 2/3, R = 2/4, F1 = 2PR/(P+R) = 4/7
    assert q.precision == pytest.approx(2 / 3) and q.recall == pytest.approx(0.5) and q.f1 == pytest.approx(4 / 7)


def test_empty_metrics_are_zero() -> None:
    report = StepMetrics("qwen-ac").report()
    assert report.steps == 0 and report.grounding is None and report.inquiry.f1 == 0.0
