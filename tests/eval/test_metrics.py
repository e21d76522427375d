"""Tests of the online metrics: verdict records, Wilson and t intervals, grouping by category."""

from __future__ import annotations

import math
import random

import pytest

from mobile_r1.core.errors import DataError
from mobile_r1.eval.metrics import EpisodeVerdict, mean_ci, summarize, t_critical, wilson


def verdict(i: int, **kw: object) -> EpisodeVerdict:
    base: dict[str, object] = {"episode_id": f"e{i}", "success": False, "inquiry": "missed"}
    base.update(kw)
    return EpisodeVerdict(**base)  # type: ignore[arg-type]


def test_wilson_matches_closed_form_and_edges() -> None:
    r = wilson(100, 190)
    assert r.value == pytest.approx(100 / 190)
    # Wilson interval for 100/190 computed independently.
    z = 1.959963984540054
    p, n = 100 / 190, 190
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    assert (r.low, r.high) == pytest.approx((centre - half, centre + half))
    zero = wilson(0, 20)
    assert zero.low == 0.0 and 0 < zero.high < 0.2
    full = wilson(20, 20)
    assert full.high == pytest.approx(1.0) and 0.8 < full.low < 1
    assert (wilson(0, 0).low, wilson(0, 0).high) == (0.0, 1.0)
    with pytest.raises(ValueError):
        wilson(3, 2)


def test_t_critical_table_and_expansion_agree() -> None:
    assert t_critical(1) == pytest.approx(12.706, abs=1e-3)
    assert t_critical(10) == pytest.approx(2.228, abs=1e-3)
    # The expansion beyond the table continues it smoothly and tends to the normal quantile.
    assert t_critical(31) < t_critical(30)
    assert t_critical(40) == pytest.approx(2.0211, abs=2e-4)
    assert t_critical(120) == pytest.approx(1.9799, abs=2e-4)
    assert t_critical(10**6) == pytest.approx(1.95996, abs=1e-4)


def test_mean_ci_covers_the_true_mean_most_of_the_time() -> None:
    rng = random.Random(0)
    covered = 0
    for _ in range(400):
        m = mean_ci(rng.gauss(2.0, 1.0) for _ in range(8))
        covered += m.low <= 2.0 <= m.high
    assert 0.9 <= covered / 400 <= 0.99
    single = mean_ci([3.0])  # one value says nothing of the spread: the whole range, unknown where unbounded
    assert single.value == 3.0 and math.isnan(single.low) and math.isnan(single.high) and str(single) == "3.00 [?, ?]"
    assert (mean_ci([3.0], 0, 4).low, mean_ci([3.0], 0, 4).high) == (0.0, 4.0)
    assert math.isnan(mean_ci([]).value)


def test_mean_intervals_stay_inside_what_is_possible() -> None:
    # the figures: Student-t on n = 2 reached -9.71 and 15.71 on a 0-4 score, -60.38 steps
    score = mean_ci([2.0, 4.0], 0, 4)
    assert (score.low, score.high) == (0.0, 4.0) and str(score) == "3.00 [0.00, 4.00]"
    steps = mean_ci([5, 14], 0, 15)
    assert (steps.low, steps.high) == (0.0, 15.0)
    # clipping only removes impossible values: where the t-interval lies inside the range it is unchanged
    inside = mean_ci([2.0, 2.5, 3.0, 2.0, 2.5, 3.0], 0, 4)
    free = mean_ci([2.0, 2.5, 3.0, 2.0, 2.5, 3.0])
    assert (inside.low, inside.high) == (free.low, free.high) and 0 < inside.low < inside.high < 4
    # one side bounded: only that side is clipped
    low_only = mean_ci([0.0, 1.0], 0)
    assert low_only.low == 0.0 and low_only.high == pytest.approx(0.5 + 12.7062 * 0.5)
    with pytest.raises(ValueError, match="outside the range"):
        mean_ci([5.0], 0, 4)


def test_summaries_bound_steps_by_the_budget_and_scores_by_the_scale() -> None:
    rng = random.Random(1)
    for n in (1, 2, 3, 5, 12):
        verdicts = [verdict(i, steps=rng.randint(0, 15), score=rng.choice([0, 1, 2, 3, 4]), category="risk")
                    for i in range(n)]
        for s in (summarize(verdicts, max_steps=15).overall, summarize(verdicts, max_steps=15).by_category["risk"]):
            assert 0.0 <= s.mean_score.low <= s.mean_score.value <= s.mean_score.high <= 4.0
            assert 0.0 <= s.mean_steps.low <= s.mean_steps.value <= s.mean_steps.high <= 15.0
    # a budget the verdicts go past is no bound; without one, steps are bounded below only
    over = summarize([verdict(0, steps=20), verdict(1, steps=2)], max_steps=15).overall.mean_steps
    assert over.low == 0.0 and over.high > 20
    assert summarize([verdict(0, steps=3)]).overall.mean_steps.interval() == "[0.00, ?]"


def test_verdict_validates_and_round_trips() -> None:
    v = verdict(1, success=True, inquiry="asked", score=3, category="risk", subcategory="transfer")
    assert EpisodeVerdict.from_dict(v.to_dict()) == v
    assert v.inquiry_success and verdict(2, inquiry="not_needed").inquiry_success
    assert not verdict(3, inquiry="over_asked").inquiry_success
    assert verdict(4, inquiry="over_asked").over_asks == 1
    with pytest.raises(DataError, match="inquiry"):
        verdict(5, inquiry="maybe")
    with pytest.raises(DataError, match="score"):
        verdict(6, score=5)
    with pytest.raises(DataError, match="episode_id"):
        EpisodeVerdict.from_dict({"success": True, "inquiry": "asked"})
    # self-corrections: unknown (None) unless counted, a count when counted, never negative
    assert verdict(7).self_corrections is None
    counted = verdict(8, self_corrections=2)
    assert EpisodeVerdict.from_dict(counted.to_dict()) == counted
    with pytest.raises(DataError, match="self_corrections"):
        EpisodeVerdict.from_dict({"episode_id": "9", "success": True, "inquiry": "asked", "self_corrections": -1})


def test_summarize_overall_and_per_group() -> None:
    verdicts = [
        verdict(0, success=True, inquiry="asked", steps=4, score=4, category="risk", subcategory="transfer"),
        verdict(1, success=False, inquiry="missed", steps=6, score=1, category="risk", subcategory="transfer",
                safety_violation=True),
        verdict(2, success=True, inquiry="over_asked", steps=3, score=3, category="privacy", subcategory="login"),
        verdict(3, success=False, inquiry="not_needed", steps=5, category="privacy", over_asks=0),
    ]
    report = summarize(verdicts)
    o = report.overall
    assert o.n == 4
    assert (o.sr.k, o.isr.k, o.over_inquiry.k, o.safety_violation.k) == (2, 2, 1, 1)
    assert o.mean_steps.value == pytest.approx(4.5)
    assert o.mean_score.n == 3 and o.mean_score.value == pytest.approx(8 / 3)
    assert list(report.by_category) == ["privacy", "risk"]
    assert report.by_category["risk"].sr.k == 1 and report.by_category["risk"].safety_violation.k == 1
    assert list(report.by_subcategory) == ["privacy/login", "risk/transfer"]
    assert report.by_subcategory["risk/transfer"].n == 2
    assert report.to_dict()["overall"]["sr"]["k"] == 2
    # the self-correction rate counts only the episodes whose phone named its states
    assert o.self_correction.n == 0
    named = summarize([verdict(0, self_corrections=0), verdict(1, self_corrections=3), verdict(2)]).overall
    assert (named.self_correction.k, named.self_correction.n) == (1, 2)
