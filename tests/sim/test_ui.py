"""Unit tests of the UI toolkit: layout, hit-testing, elements and XML, rendering."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from mobile_r1.sim.ui.render import Canvas, wrap
from mobile_r1.sim.ui.theme import Theme
from mobile_r1.sim.ui.tree import flatten, hit, to_xml
from mobile_r1.sim.ui.widgets import Button, Column, Input, Layout, Row, Scroll, Text, Toggle


def _layout(root, lay=None):
    lay = lay or Layout(Theme())
    root.place(0, 0, 1080, 2400, lay)
    return lay, flatten([(root, "com.test")], {id(root): lay}, (1080, 2400))


def test_column_stacks_children_and_flex_takes_the_rest() -> None:
    a, b = Text("top"), Button("bottom")
    body = Scroll(Text("x"), id="list")
    root = Column(a, body, b)
    _layout(root)
    assert a.box[1] == 0 and a.box[3] <= body.box[1]
    assert body.box[3] <= b.box[1] and b.box[3] == 2400


def test_row_weights_share_width() -> None:
    left, right = Text("a", weight=1.0), Text("b", weight=3.0)
    _layout(Row(left, right, gap=0))
    assert round(right.box[2] - right.box[0]) == 3 * round(left.box[2] - left.box[0])


def test_scroll_offset_hides_items_and_clips_bounds() -> None:
    items = [Text(f"item {i}", id=f"i{i}") for i in range(100)]
    lay = Layout(Theme(), scroll={"list": 600.0})
    _, nodes = _layout(Column(Scroll(*items, id="list")), lay)
    texts = [n.element.text for n in nodes if n.element.text]
    assert "item 0" not in texts and texts[0].startswith("item ")
    assert all(0 <= n.element.bounds[1] and n.element.bounds[3] <= 2400 for n in nodes)
    assert lay.extent["list"][0] > 2400


def test_hit_finds_topmost_clickable_and_ignores_plain_text() -> None:
    clicked = []
    button = Button("Go", on_click=lambda ctx: clicked.append(1), id="go")
    _, nodes = _layout(Column(Text("label"), button))
    x, y = nodes[[n.widget for n in nodes].index(button)].element.center
    assert hit(nodes, x, y).widget is button
    assert hit(nodes, 5, 5) is None


def test_elements_carry_android_fields_and_xml_matches() -> None:
    lay = Layout(Theme(), fields={"q": "shoes"}, focus="q")
    root = Column(Input("q", hint="Search"), Toggle("Wifi", True, on_change=lambda c, v: None, id="wifi"))
    _, nodes = _layout(root, lay)
    els = [n.element for n in nodes]
    field = next(e for e in els if e.editable)
    assert field.resource_id == "com.test:id/q" and field.focused and field.class_name == "android.widget.EditText"
    toggle = next(e for e in els if e.checkable)
    assert toggle.checked and toggle.text == "Wifi" and toggle.class_name == "android.widget.Switch"
    tree = ET.fromstring(to_xml(nodes))
    xml_nodes = list(tree.iter("node"))
    assert len(xml_nodes) == len(els)
    for xn, e in zip(xml_nodes, els):
        x1, y1, x2, y2 = e.bounds
        assert xn.get("bounds") == f"[{x1},{y1}][{x2},{y2}]"
        assert xn.get("resource-id") == e.resource_id and xn.get("class") == e.class_name
        assert xn.get("clickable") == ("true" if e.clickable else "false")


def test_wrap_breaks_long_text_and_ellipsizes() -> None:
    lines = wrap("one two three four five six seven eight nine ten " * 4, 42, 400)
    assert len(lines) > 2
    short = wrap("one two three four five six seven eight nine ten " * 4, 42, 400, max_lines=2)
    assert len(short) == 2 and short[-1].endswith("...")


def test_canvas_draws_at_scale() -> None:
    canvas = Canvas(1080, 2400, 0.3, (255, 255, 255))
    assert canvas.image.size == (324, 720)
    canvas.rect((0, 0, 540, 1200), fill=(255, 0, 0))
    canvas.text(600, 1300, "Hello", 42, (0, 0, 0))
    assert canvas.image.getpixel((10, 10)) == (255, 0, 0)
    assert canvas.image.getpixel((300, 700)) == (255, 255, 255)
    assert canvas.image.crop((180, 385, 250, 410)).getextrema() != ((255, 255),) * 3
