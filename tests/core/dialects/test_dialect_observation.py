"""The accessibility-tree text of a screen (render_elements)."""

from __future__ import annotations

from mobile_r1.core import Frame
from mobile_r1.core.dialects import render_elements
from mobile_r1.core.dialects.observation import NO_ELEMENTS
from mobile_r1.core.records import UIElement


def test_lines_flags_and_frames() -> None:
    elements = [
        UIElement(0, "android.widget.FrameLayout", (0, 0, 1080, 2400)),
        UIElement(4, "android.widget.CheckBox", (100, 100, 200, 200), text="Agree", checkable=True, checked=True,
                  resource_id="com.app:id/agree", clickable=True),
        UIElement(5, "android.widget.EditText", (0, 300, 1080, 400), content_desc='Say "hi"\nhere', editable=True,
                  focused=True, enabled=False),
        UIElement(6, "android.widget.TextView", (10, 10, 10, 50), text="zero width"),
        UIElement(7, "android.widget.ImageView", (0, 500, 100, 600)),
    ]
    text = render_elements(elements, (1080, 2400))
    assert text.splitlines() == [
        '[4] CheckBox "Agree" id=agree clickable checked center=(150, 150) bounds=(100, 100, 200, 200)',
        '[5] EditText desc="Say \\"hi\\"\\nhere" editable focused disabled center=(540, 350) bounds=(0, 300, 1080, 400)',
    ]
    half = render_elements(elements, (1080, 2400), Frame(540, 1200))
    assert "center=(75, 75) bounds=(50, 50, 100, 100)" in half
    grid = render_elements(elements, (1080, 2400), Frame.normalized())
    assert "bounds=(0, 125, 999, 167)" in grid


def test_empty_screen() -> None:
    assert render_elements([], (1080, 2400)) == NO_ELEMENTS
