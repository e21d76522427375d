"""Turning a laid-out widget tree into UI elements, `uiautomator dump` XML, and hit-test targets."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from xml.sax.saxutils import quoteattr as _quoteattr

from mobile_r1.core.records import UIElement
from mobile_r1.sim.ui.widgets import Layout, Widget

Box = tuple[int, int, int, int]


@dataclass(slots=True)
class Node:
    """One visible widget: its element record, the widget, and its depth in the tree."""

    element: UIElement
    widget: Widget
    package: str
    depth: int
    password: bool = False


def flatten(roots: list[tuple[Widget, str]], lay_for: dict[int, Layout], screen: tuple[int, int]) -> list[Node]:
    """Pre-order list of the visible widgets of each (root, package); off-screen and scrolled-away ones are skipped.

    `lay_for` maps id(root) to the Layout it was placed with (focus and fields differ between roots).
    """
    nodes: list[Node] = []
    full = (0.0, 0.0, float(screen[0]), float(screen[1]))

    def visit(w: Widget, clip: tuple[float, float, float, float], parent: int | None, depth: int, pkg: str,
              lay: Layout) -> None:
        box = w.box
        x1 = box[0] if box[0] > clip[0] else clip[0]
        y1 = box[1] if box[1] > clip[1] else clip[1]
        x2 = box[2] if box[2] < clip[2] else clip[2]
        y2 = box[3] if box[3] < clip[3] else clip[3]
        if x2 - x1 < 1 or y2 - y1 < 1 or not w.emit:
            return
        if w.pkg:
            pkg = w.pkg
        children = w.children
        if w.id is None and not w.desc and w.on_click is None and w.on_long_press is None:
            if children and parent is not None and not w.scrollable:
                # A plain layout container: left out, as `uiautomator dump --compressed` does.
                for child in children:
                    visit(child, clip, parent, depth, pkg, lay)
                return
            if not children and not w.text and w.cls_name == "android.widget.TextView":
                return  # an empty label
        editable = w.editable
        me = len(nodes)
        el = UIElement(me, w.cls_name, (int(x1), int(y1), int(x2), int(y2)), w.text, w.desc,
                       f"{pkg}:id/{w.id}" if w.id else "", w.clickable, w.on_long_press is not None, editable,
                       w.scrollable, w.checkable, w.checked, w.focused(lay) if editable else False, w.enabled,
                       w.selected, parent)
        nodes.append(Node(el, w, pkg, depth, w.password))
        if children:
            inner = clip
            if w.scrollable:
                inner = (x1, y1, x2, y2)
            for child in children:
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
        out.append(_node_xml(index, e.text, e.resource_id, e.class_name, node.package, e.content_desc, e.checkable,
                             e.checked, e.clickable, e.enabled, e.editable or e.clickable, e.focused, e.scrollable,
                             e.long_clickable, node.password, e.selected, e.bounds))
        open_depths.append(node.depth)
    out.extend("</node>" for _ in open_depths)
    out.append("</hierarchy>")
    return "".join(out)


@lru_cache(maxsize=65536)
def _node_xml(index: int, text: str, rid: str, cls: str, pkg: str, desc: str, checkable: bool, checked: bool,
              clickable: bool, enabled: bool, focusable: bool, focused: bool, scrollable: bool, long_clickable: bool,
              password: bool, selected: bool, bounds: Box) -> str:
    x1, y1, x2, y2 = bounds
    return (f"<node index=\"{index}\" text={quoteattr(text)} resource-id={quoteattr(rid)} class=\"{cls}\" "
            f"package={quoteattr(pkg)} content-desc={quoteattr(desc)} checkable=\"{_b(checkable)}\" "
            f"checked=\"{_b(checked)}\" clickable=\"{_b(clickable)}\" enabled=\"{_b(enabled)}\" "
            f"focusable=\"{_b(focusable)}\" focused=\"{_b(focused)}\" scrollable=\"{_b(scrollable)}\" "
            f"long-clickable=\"{_b(long_clickable)}\" password=\"{_b(password)}\" selected=\"{_b(selected)}\" "
            f"bounds=\"[{x1},{y1}][{x2},{y2}]\">")


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
