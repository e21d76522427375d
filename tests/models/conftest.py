"""Fixtures for model tests: a private preset cache."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterator

import pytest


@pytest.fixture(scope="session", autouse=True)
def preset_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Build presets once per test session in a private folder (or $MOBILE_R1_TEST_CACHE), never the user's cache."""
    folder = Path(os.environ.get("MOBILE_R1_TEST_CACHE") or tmp_path_factory.mktemp("mobile-r1-cache"))
    old = os.environ.get("MOBILE_R1_CACHE")
    os.environ["MOBILE_R1_CACHE"] = str(folder)
    yield folder
    if old is None:
        os.environ.pop("MOBILE_R1_CACHE", None)
    else:
        os.environ["MOBILE_R1_CACHE"] = old
