"""Shared pytest fixtures."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"


@pytest.fixture
def shared_dir() -> Path:
    """The `../shared` folder beside the checkout (InquireBench task files and judge results)."""
    if not SHARED.is_dir():
        pytest.skip("../shared is not beside this checkout")
    return SHARED
