"""Text rendering of a screen's UI elements (an accessibility-tree listing) for text-only observations.

One line per useful element: its index (the element id, so an index action can be mapped back), a short class
name, its text and content description, state flags, and its centre and bounds converted into the frame the
model answers in:

    [3] Button "Send" clickable center=(270, 600) bounds=(240, 575, 300, 625)
"""

from __future__ import annotations

import json
from collections.abc import Iterable

from mobile_r1.core.geometry import Frame
from mobile_r1.core.records import UIElement

NO_ELEMENTS = "(no interactive elements on screen)"


def is_useful(element: UIElement) -> bool:
    """Whether an element is worth showing: it has a visible area and either a label or an interaction."""
    x1, y1, x2, y2 = element.bounds
    if x2 <= x1 or y2 <= y1:
        return False
    interactive = element.clickable or element.long_clickable or element.editable or element.scrollable
    return bool(element.text or element.content_desc or interactive or element.checkable)


def _short_class(class_name: str) -> str:
    return class_name.rsplit(".", 1)[-1] or "View"


def _quote(text: str) -> str:
    """A one-line, unambiguous quoting of element text (JSON string syntax, unicode kept)."""
    return json.dumps(text, ensure_ascii=False)


def render_element(element: UIElement, screen: Frame, model_frame: Frame | None = None) -> str:
    """One line describing `element`; coordinates in `model_frame` when given, else in screen pixels."""
    target = model_frame or screen
    parts = [f"[{element.id}]", _short_class(element.class_name)]
    if element.text:
        parts.append(_quote(element.text))
    if element.content_desc and element.content_desc != element.text:
        parts.append(f"desc={_quote(element.content_desc)}")
    if element.resource_id:
        parts.append(f"id={element.resource_id.rsplit('/', 1)[-1]}")
    for flag, name in (
        (element.clickable, "clickable"),
        (element.long_clickable, "long-clickable"),
        (element.editable, "editable"),
        (element.scrollable, "scrollable"),
        (element.focused, "focused"),
        (element.selected, "selected"),
    ):
        if flag:
            parts.append(name)
    if element.checkable:
        parts.append("checked" if element.checked else "unchecked")
    if not element.enabled:
        parts.append("disabled")
    x1, y1, x2, y2 = element.bounds
    cx, cy = screen.map(element.center, target)
    bx1, by1 = screen.map((x1, y1), target)
    bx2, by2 = screen.map((x2, y2), target)
    parts.append(f"center=({cx}, {cy})")
    parts.append(f"bounds=({bx1}, {by1}, {bx2}, {by2})")
    return " ".join(parts)


def render_elements(
    elements: Iterable[UIElement], screen_size: tuple[int, int], model_frame: Frame | None = None
) -> str:
    """The accessibility-tree text of a screen: one line per useful element, in the order given."""
    screen = Frame.screen(*screen_size)
    lines = [render_element(e, screen, model_frame) for e in elements if is_useful(e)]
    return "\n".join(lines) if lines else NO_ELEMENTS
