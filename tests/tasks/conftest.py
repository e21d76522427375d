"""Fixtures for task tests: specs by id."""

from __future__ import annotations

import pytest

from mobile_r1.tasks.spec import TaskSpec, load_specs


@pytest.fixture(scope="session")
def specs() -> dict[str, TaskSpec]:
    return {s.id: s for s in load_specs()}


@pytest.fixture(scope="session")
def all_specs(specs: dict[str, TaskSpec]) -> list[TaskSpec]:
    """Every packaged spec, as a list (what a released line is matched against)."""
    return list(specs.values())
