"""Android `uiautomator dump` XML -> `UIElement`s (the records the simulator produces), and the tree's packages.

    elements = parse_ui_xml(xml_text)            # pre-order, ids 0..n-1, `parent` the enclosing node's id

A dump is `<hierarchy rotation="0">` holding nested `<node>`s with the attributes `text`, `resource-id`, `class`,
`package`, `content-desc`, `checkable`, `checked`, `clickable`, `enabled`, `focusable`, `focused`, `scrollable`,
`long-clickable`, `password`, `selected` and `bounds="[x1,y1][x2,y2]"`. The dump has no `editable` flag: a node is
editable when its class is a text field (`EditText` and its subclasses such as `AutoCompleteTextView`). Nodes are
numbered in document order, as the simulator numbers its elements, so a dump of the simulated phone parses back into
exactly the elements it reports.

A dump comes from a device, so it is read within bounds: nodes nest at most `MAX_DEPTH` deep (Android's own view
trees stay far below; deeper is refused, never a RecursionError) and a bound's coordinate has at most 7 digits (a
screen has a few thousand pixels); anything else is a `DataError`.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass

from mobile_r1.core.errors import DataError
from mobile_r1.core.records import UIElement

BOUNDS_RE = re.compile(r"\[(-?\d{1,7}),(-?\d{1,7})\]\[(-?\d{1,7}),(-?\d{1,7})\]")
MAX_DEPTH = 256  # levels of nested nodes
EDITABLE_CLASSES = ("EditText", "AutoCompleteTextView", "MultiAutoCompleteTextView", "ExtractEditText")


@dataclass(slots=True)
class UITree:
    """A parsed dump: the elements and, per element id, the package that drew it."""

    elements: list[UIElement]
    packages: list[str]


def _flag(node: ET.Element, name: str) -> bool:
    return node.get(name, "false") == "true"


def _editable(class_name: str) -> bool:
    short = class_name.rsplit(".", 1)[-1]
    return any(short.endswith(c) for c in EDITABLE_CLASSES)


def parse_ui_tree(text: str | bytes) -> UITree:
    """Parse a dump; raises DataError when it is empty or not a `uiautomator dump` hierarchy."""
    raw = text.decode("utf-8", errors="replace") if isinstance(text, bytes) else text
    if not raw.strip():
        raise DataError("the UI dump is empty")
    start = raw.find("<?xml")
    if start < 0:
        start = raw.find("<hierarchy")
    if start < 0:
        raise DataError(f"the UI dump is not uiautomator XML: {raw.strip()[:120]!r}")
    end = raw.rfind("</hierarchy>")
    body = raw[start:end + len("</hierarchy>")] if end >= 0 else raw[start:]
    try:
        root = ET.fromstring(body)
    except ET.ParseError as exc:
        raise DataError(f"the UI dump is not well-formed XML ({exc}); it may be truncated") from None
    if root.tag != "hierarchy":
        raise DataError(f"the UI dump's root is <{root.tag}>, not <hierarchy>")
    elements: list[UIElement] = []
    packages: list[str] = []
    # Depth first, in document order, without recursion: (node, its parent's id, its depth).
    stack: list[tuple[ET.Element, int | None, int]] = [(top, None, 1) for top in reversed(root) if top.tag == "node"]
    while stack:
        node, parent, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise DataError(f"the UI dump nests nodes deeper than {MAX_DEPTH} levels; no screen's view tree is that deep")
        bounds = node.get("bounds", "").strip()
        match = BOUNDS_RE.fullmatch(bounds)
        if match is None:
            raise DataError(f"UI dump node {len(elements)} has no bounds [x1,y1][x2,y2] (at most 7 digits each): "
                            f"{bounds[:60]!r}")
        x1, y1, x2, y2 = (int(v) for v in match.groups())
        class_name = node.get("class", "")
        me = len(elements)
        elements.append(UIElement(
            id=me, class_name=class_name, bounds=(x1, y1, x2, y2), text=node.get("text", ""),
            content_desc=node.get("content-desc", ""), resource_id=node.get("resource-id", ""),
            clickable=_flag(node, "clickable"), long_clickable=_flag(node, "long-clickable"),
            editable=_editable(class_name), scrollable=_flag(node, "scrollable"), checkable=_flag(node, "checkable"),
            checked=_flag(node, "checked"), focused=_flag(node, "focused"), enabled=_flag(node, "enabled"),
            selected=_flag(node, "selected"), parent=parent))
        packages.append(node.get("package", ""))
        stack.extend((child, me, depth + 1) for child in reversed(node) if child.tag == "node")
    return UITree(elements, packages)


def parse_ui_xml(text: str | bytes) -> list[UIElement]:
    """The elements of a `uiautomator dump` (see the module docstring)."""
    return parse_ui_tree(text).elements


__all__ = ["parse_ui_xml", "parse_ui_tree", "UITree", "MAX_DEPTH"]
