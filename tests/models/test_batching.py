"""Unit tests of `length_groups`: the batches of similar length that generation splits its prompts into."""

from __future__ import annotations

import itertools
import random

import pytest

from mobile_r1.models import batching
from mobile_r1.models.batching import length_groups


def cost(lengths: list[int], groups: list[list[int]], call_cost: int) -> int:
    return sum(len(g) * max(lengths[i] for i in g) + call_cost for g in groups)


def cheapest_by_brute_force(lengths: list[int], call_cost: int, max_size: int | None) -> int:
    """The cheapest split into runs of the prompts sorted by length, every split tried."""
    ordered = sorted(range(len(lengths)), key=lambda i: lengths[i])
    best = None
    for cuts in itertools.product([False, True], repeat=len(lengths) - 1):
        groups, current = [], [ordered[0]]
        for cut, index in zip(cuts, ordered[1:]):
            if cut:
                groups.append(current)
                current = []
            current.append(index)
        groups.append(current)
        if max_size is not None and max(map(len, groups)) > max_size:
            continue
        value = cost(lengths, groups, call_cost)
        best = value if best is None else min(best, value)
    assert best is not None
    return best


@pytest.mark.parametrize("seed", range(12))
def test_the_split_is_the_cheapest_one(seed: int) -> None:
    rng = random.Random(seed)
    lengths = [rng.choice([rng.randint(200, 400), rng.randint(900, 1200)]) for _ in range(rng.randint(1, 9))]
    call_cost = rng.choice([0, 100, 2048, 10_000])
    max_size = rng.choice([None, 2, 3])
    groups = length_groups(lengths, call_cost=call_cost, max_size=max_size)
    assert sorted(i for g in groups for i in g) == list(range(len(lengths)))  # every prompt exactly once
    assert all(g == sorted(g) for g in groups)  # in their given order within a batch
    assert max_size is None or max(map(len, groups)) <= max_size
    assert cost(lengths, groups, call_cost) == cheapest_by_brute_force(lengths, call_cost, max_size)


def test_a_few_long_prompts_get_their_own_batch() -> None:
    lengths = [330] * 90 + [1100] * 6
    groups = length_groups(lengths)
    assert [len(g) for g in groups] == [90, 6] and groups[1] == list(range(90, 96))
    # the padded tokens fall from 96 x 1100 to 90 x 330 + 6 x 1100, for one call more
    assert cost(lengths, groups, 0) == 90 * 330 + 6 * 1100


def test_the_call_cost_decides_when_a_split_pays() -> None:
    lengths = [300, 310, 320, 600]
    assert length_groups(lengths, call_cost=10_000) == [[0, 1, 2, 3]]  # a split saves 840 tokens: not worth it
    assert length_groups(lengths, call_cost=100) == [[0, 1, 2], [3]]
    assert length_groups(lengths, call_cost=0) == [[0], [1], [2], [3]]


def test_the_default_call_cost_is_the_module_constant(monkeypatch: pytest.MonkeyPatch) -> None:
    lengths = [300, 310, 320, 600]
    monkeypatch.setattr(batching, "CALL_COST_TOKENS", 100)
    assert length_groups(lengths) == [[0, 1, 2], [3]]
    monkeypatch.setattr(batching, "CALL_COST_TOKENS", 10_000)
    assert length_groups(lengths) == [[0, 1, 2, 3]]


def test_edge_cases_and_bad_arguments() -> None:
    assert length_groups([]) == []
    groups = length_groups([5, 5, 5, 5, 5], max_size=2, call_cost=1)  # equal lengths: the fewest batches
    assert sorted(map(len, groups)) == [1, 2, 2] and sorted(i for g in groups for i in g) == [0, 1, 2, 3, 4]
    with pytest.raises(ValueError, match="max_size must be >= 1"):
        length_groups([1], max_size=0)
    with pytest.raises(ValueError, match="call_cost must be >= 0"):
        length_groups([1], call_cost=-1)
