"""Batches of prompts of similar length for `generate`.

A left-padded batch runs every prompt at the length of its longest one. The prompts of a multi-turn evaluation differ
a lot in length (most screens list a few dozen elements, a long list screen a few hundred), so one long prompt can
make a turn of 96 episodes several times as costly as it need be: in the demo's evaluation, turns whose longest
prompt was three times the mean took 9-15 s in one batch and 3 s grouped (`benchmarks/generate_groups.py`).
Splitting the batch costs a `generate` call more per group, so the split is chosen to minimise both together. No
library offers this for `transformers.generate` (servers such as vLLM schedule sequences one by one and need no
padding), hence it is here.
"""

from __future__ import annotations

from typing import Sequence

# What one more generate() call costs, counted in padded prompt tokens. Scoring the demo's final model on 96 inquire-sim
# test episodes on the 2-core CPU took 36.3, 31.7, 31.5, 31.9 and 35.3 s with 512, 1024, 2048, 4096 and 8192.
CALL_COST_TOKENS = 2048


def length_groups(lengths: Sequence[int], *, max_size: int | None = None,
                  call_cost: int | None = None) -> list[list[int]]:
    """Indices of `lengths` split into batches of similar length, each of at most `max_size` prompts.

    Minimises, over the splits of the prompts sorted by length, the padded prompt tokens (each batch's size times its
    longest prompt, summed) plus `call_cost` per batch (default `CALL_COST_TOKENS`): an exact dynamic programme,
    O(n * max_size). Each batch keeps its prompts in their given order; batches come shortest first.
    """
    if call_cost is None:
        call_cost = CALL_COST_TOKENS
    if max_size is not None and max_size < 1:
        raise ValueError(f"max_size must be >= 1, got {max_size}")
    if call_cost < 0:
        raise ValueError(f"call_cost must be >= 0, got {call_cost}")
    order = sorted(range(len(lengths)), key=lambda i: (lengths[i], i))
    n = len(order)
    limit = n if max_size is None else max_size
    best = [0] * (n + 1)  # best[j]: the cheapest split of the j shortest prompts
    cut = [0] * (n + 1)  # cut[j]: where the last batch of that split starts
    for j in range(1, n + 1):
        longest = lengths[order[j - 1]]
        best[j], cut[j] = min((best[i] + (j - i) * longest + call_cost, i) for i in range(max(0, j - limit), j))
    groups: list[list[int]] = []
    j = n
    while j > 0:
        groups.append(sorted(order[cut[j] : j]))
        j = cut[j]
    return groups[::-1]
