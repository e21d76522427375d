"""Fixtures for agent tests: a small screen with elements and a screenshot."""

from __future__ import annotations

import pytest
from PIL import Image

from mobile_r1.core.records import Observation, UIElement


@pytest.fixture
def observation() -> Observation:
    image = Image.new("RGB", (1080, 2400), (240, 240, 240))
    for x in range(0, 1080, 60):  # some structure so a resize is not a no-op
        image.paste((x % 255, 40, 90), (x, 0, x + 30, 2400))
    elements = [
        UIElement(1, "android.widget.Button", (100, 200, 300, 400), text="OK", clickable=True),
        UIElement(2, "android.widget.EditText", (0, 1000, 1080, 1100), text="", editable=True, clickable=True),
        UIElement(3, "android.widget.TextView", (50, 50, 500, 120), text="Settings"),
    ]
    return Observation((1080, 2400), elements, screenshot=image, app="Settings")
