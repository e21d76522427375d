"""Turning a laid-out widget tree into UI elements, `uiautomator dump` XML, and hit-test targets."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from xml.sax.saxutils import quoteattr as _quoteattr

from mobile_r1.core.records import UIElement
from mobile_r1.sim.ui.widgets import Layout, Scroll, Widget

Box = tuple[int, int, int, int]


@dataclass(slots=True)
class Node:
    """One visible widget: its element record, the widget, and its depth in the tree."""

    element: UIElement
    widget: Widget
    package: str
    depth: int
    password: bool = False


def _clip(box: tuple[float, float, float, float], clip: tuple[float, float, float, float]) -> Box | None:
    x1, y1 = max(box[0], clip[0]), max(box[1], clip[1])
    x2, y2 = min(box[2], clip[2]), min(box[3], clip[3])
    if x2 - x1 < 1 or y2 - y1 < 1:
        return None
    return (int(x1), int(y1), int(x2), int(y2))


def flatten(roots: list[tuple[Widget, str]], lay_for: dict[int, Layout], screen: tuple[int, int]) -> list[Node]:
    """Pre-order list of the visible widgets of each (root, package); off-screen and scrolled-away ones are skipped.

    `lay_for` maps id(root) to the Layout it was placed with (focus and fields differ between roots).
    """
    nodes: list[Node] = []
    full = (0.0, 0.0, float(screen[0]), float(screen[1]))

    def visit(w: Widget, clip: tuple[float, float, float, float], parent: int | None, depth: int, pkg: str,
              lay: Layout) -> None:
        bounds = _clip(w.box, clip)
        if bounds is None:
            return
        pkg = w.pkg or pkg
        if not w.emit or (type(w).__name__ == "Text" and not w.text and not w.desc and w.on_click is None):
            return
        rid = f"{pkg}:id/{w.id}" if w.id else ""
        el = UIElement(
            id=len(nodes), class_name=w.cls_name, bounds=bounds, text=w.text, content_desc=w.desc, resource_id=rid,
            clickable=w.clickable, long_clickable=w.on_long_press is not None, editable=w.editable,
            scrollable=w.scrollable, checkable=w.checkable, checked=w.checked, focused=w.focused(lay),
            enabled=w.enabled, selected=w.selected, parent=parent,
        )
        nodes.append(Node(el, w, pkg, depth, bool(getattr(w, "password", False))))
        me = el.id
        inner = clip
        if isinstance(w, Scroll):
            inner = (max(clip[0], w.box[0]), max(clip[1], w.box[1]), min(clip[2], w.box[2]), min(clip[3], w.box[3]))
        for child in w.children:
            visit(child, inner, me, depth + 1, pkg, lay)

    for root, pkg in roots:
        visit(root, full, None, 0, pkg, lay_for[id(root)])
    return nodes


def to_xml(nodes: list[Node]) -> str:
    """The nodes as Android `uiautomator dump` XML (nesting follows the parent links)."""
    out = ["<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>", '<hierarchy rotation="0">']
    open_depths: list[int] = []
    child_index: dict[int | None, int] = {}
    for node in nodes:
        while open_depths and open_depths[-1] >= node.depth:
            open_depths.pop()
            out.append("</node>")
        e = node.element
        index = child_index.get(e.parent, 0)
        child_index[e.parent] = index + 1
        x1, y1, x2, y2 = e.bounds
        focusable = e.editable or e.clickable
        out.append(
            f"<node index=\"{index}\" text={quoteattr(e.text)} resource-id={quoteattr(e.resource_id)} "
            f"class=\"{e.class_name}\" package={quoteattr(node.package)} content-desc={quoteattr(e.content_desc)} "
            f"checkable=\"{_b(e.checkable)}\" checked=\"{_b(e.checked)}\" clickable=\"{_b(e.clickable)}\" "
            f"enabled=\"{_b(e.enabled)}\" focusable=\"{_b(focusable)}\" focused=\"{_b(e.focused)}\" "
            f"scrollable=\"{_b(e.scrollable)}\" long-clickable=\"{_b(e.long_clickable)}\" "
            f"password=\"{_b(node.password)}\" selected=\"{_b(e.selected)}\" bounds=\"[{x1},{y1}][{x2},{y2}]\">"
        )
        open_depths.append(node.depth)
    out.extend("</node>" for _ in open_depths)
    out.append("</hierarchy>")
    return "".join(out)


def _b(value: bool) -> str:
    return "true" if value else "false"


@lru_cache(maxsize=32768)
def quoteattr(value: str) -> str:
    """XML attribute quoting, cached (the same labels repeat from frame to frame)."""
    return _quoteattr(value)


def hit(nodes: list[Node], x: float, y: float, kind: str = "click") -> Node | None:
    """The topmost node under (x, y) that reacts to `kind` ('click', 'long_press' or 'scroll')."""
    for node in reversed(nodes):
        x1, y1, x2, y2 = node.element.bounds
        if not (x1 <= x < x2 and y1 <= y < y2):
            continue
        w = node.widget
        if kind == "click" and (w.on_click is not None or w.editable or w.clickable):
            return node
        if kind == "long_press" and w.on_long_press is not None:
            return node
        if kind == "scroll" and w.scrollable:
            return node
    return None
