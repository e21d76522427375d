"""Tests of the random agent: covers the dialect's action space, points on elements or the screen, seeded."""

from __future__ import annotations

from collections import Counter

from mobile_r1.agents import AgentRequest, make_agent
from mobile_r1.agents.random_agent import RandomAgent
from mobile_r1.core.actions import ActionType
from mobile_r1.core.dialects import get_dialect
from mobile_r1.core.geometry import point_in_box
from mobile_r1.core.records import Observation


def test_uniform_over_the_dialect_action_space(observation: Observation) -> None:
    agent = make_agent("random", dialect="inquire", seed=1)
    outs = agent.act_batch([AgentRequest("x", observation)] * 900)
    counts = Counter(o.action.type for o in outs if o.action)
    offered = set(get_dialect("inquire").action_types)
    assert set(counts) == offered and ActionType.CALL_USER in counts and ActionType.OPEN not in counts
    expected = 900 / len(offered)
    assert all(0.6 * expected < c < 1.4 * expected for c in counts.values())
    for o in outs[:50]:
        assert o.parse.ok and o.text and get_dialect("inquire").parse(o.text).action is not None


def test_points_on_elements_or_anywhere(observation: Observation) -> None:
    boxes = [e.bounds for e in observation.elements]
    on = RandomAgent(seed=0, on_elements=1.0)
    for _ in range(200):
        a = on._point(observation)
        assert any(point_in_box(a, b) for b in boxes)
    anywhere = RandomAgent(seed=0, on_elements=0.0)
    points = [anywhere._point(observation) for _ in range(300)]
    assert all(0 <= x < 1080 and 0 <= y < 2400 for x, y in points)
    assert sum(not any(point_in_box(p, b) for b in boxes) for p in points) > 200


def test_same_seed_same_actions(observation: Observation) -> None:
    reqs = [AgentRequest("x", observation)] * 20
    a = [o.action for o in make_agent("random:7").act_batch(reqs)]
    b = [o.action for o in make_agent("random", seed=7).act_batch(reqs)]
    c = [o.action for o in make_agent("random:8").act_batch(reqs)]
    assert a == b and a != c
