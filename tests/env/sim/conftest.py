"""Fixtures for task tests: specs by id and episodes made from them."""

from __future__ import annotations

import pytest

from mobile_r1.env.sim.episode import TaskEpisode, make_episode
from mobile_r1.tasks.spec import TaskSpec, load_specs


@pytest.fixture(scope="session")
def specs() -> dict[str, TaskSpec]:
    return {s.id: s for s in load_specs()}


@pytest.fixture
def episode(specs: dict[str, TaskSpec]):  # type: ignore[no-untyped-def]
    def make(task: str, seed: int = 3, split: str = "test", template: int = 0) -> TaskEpisode:
        return make_episode(specs[task], split, template, seed)
    return make
