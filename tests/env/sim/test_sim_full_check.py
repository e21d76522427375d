"""The whole bar, slow: the expert solves every episode of every suite split with the right inquiries."""

from __future__ import annotations

import pytest

from mobile_r1.env.sim.check import check_split


@pytest.mark.slow
@pytest.mark.parametrize("suite", ["inquire-sim", "nav-sim"])
@pytest.mark.parametrize("split", ["test", "unseen-app"])
def test_expert_meets_the_bar_on_every_episode(suite: str, split: str) -> None:
    report = check_split(suite, split)
    s = report.summary()
    bad = [(e.episode_id, e.inquiry, e.problems) for e in report.episodes if not e.success or e.problems]
    assert report.ok, (s, bad[:5])
    if suite == "nav-sim":
        assert 3 <= s["steps_min"] and s["steps_max"] <= 15
