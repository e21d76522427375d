"""The widgets screens are built from: containers, scrolling lists, text, buttons, icons, inputs, toggles, tabs.

A screen function returns one widget tree. The phone lays it out on the logical screen (`place`), draws it
(`paint`) and turns it into UI elements (`mobile_r1.sim.ui.tree`). Handlers are plain callables that get the
app context: `on_click(ctx)`, `on_long_press(ctx)`, `on_change(ctx, value)`, `on_text(ctx, text)`,
`on_submit(ctx, text)`, `on_select(ctx, index)`.
"""

from __future__ import annotations

import contextlib
from contextvars import ContextVar
from typing import Any, Callable, Iterator, Sequence

from mobile_r1.sim.locale import tr
from mobile_r1.sim.ui import art
from mobile_r1.sim.ui.render import Canvas, glyph, text_width, wrap
from mobile_r1.sim.ui.theme import Color, Theme, hex_color, mix

Handler = Callable[[Any], None]

# Spacing factor applied to every pad and gap given to a widget built inside `spacing(...)`: the phone draws it
# from the seed so element positions vary between randomised phones.
_SPACING: ContextVar[float] = ContextVar("spacing", default=1.0)


@contextlib.contextmanager
def spacing(factor: float) -> Iterator[None]:
    """Build widgets with every pad and gap multiplied by `factor`."""
    token = _SPACING.set(factor)
    try:
        yield
    finally:
        _SPACING.reset(token)


def _sp(value: float) -> float:
    return value * _SPACING.get()


class Layout:
    """What layout needs besides widths: the theme, scroll offsets, input texts and focus of the current screen."""

    __slots__ = ("theme", "scroll", "fields", "focus", "extent")

    def __init__(self, theme: Theme, scroll: dict[str, float] | None = None, fields: dict[str, str] | None = None,
                 focus: str | None = None) -> None:
        self.theme = theme
        self.scroll = scroll if scroll is not None else {}
        self.fields = fields if fields is not None else {}
        self.focus = focus
        self.extent: dict[str, tuple[float, float]] = {}  # scroll id -> (content height, viewport height)


ROLES = ("surface", "primary", "bg", "divider", "danger")


def _color(value: Color | str | None, default: Color) -> Color:
    """A colour from (r, g, b), '#rrggbb', or a theme role name kept as text and resolved when painting."""
    if value is None:
        return default
    if isinstance(value, str):
        return value if value in ROLES else hex_color(value)  # type: ignore[return-value]
    return value


def resolve(value: Color | str | None, theme: Theme) -> Color | None:
    """Turn a theme role name into the theme's colour; other colours pass through."""
    if isinstance(value, str):
        return getattr(theme, value)
    return value


class Widget:
    """Base of every widget: an optional resource `id`, a content description, handlers and flags."""

    cls_name = "android.view.View"
    emit = True  # whether this widget becomes a node of the accessibility tree
    __slots__ = ("id", "desc", "on_click", "on_long_press", "enabled", "selected", "weight", "flex", "box",
                 "children", "pkg")

    def __init__(self, *, id: str | None = None, desc: str = "", on_click: Handler | None = None,
                 on_long_press: Handler | None = None, enabled: bool = True, selected: bool = False,
                 weight: float = 0.0, flex: bool = False) -> None:
        self.id = id
        self.desc = tr(desc) if desc else desc
        self.on_click = on_click
        self.on_long_press = on_long_press
        self.enabled = enabled
        self.selected = selected
        self.weight = weight
        self.flex = flex
        self.box: tuple[float, float, float, float] = (0, 0, 0, 0)
        self.children: list[Widget] = []
        self.pkg: str | None = None

    # ----- element properties (read by the tree builder) --------------------------------------------
    @property
    def text(self) -> str:
        return ""

    checkable = False
    editable = False
    scrollable = False
    password = False

    @property
    def checked(self) -> bool:
        return False

    def focused(self, layout: Layout) -> bool:
        return False

    @property
    def clickable(self) -> bool:
        return self.on_click is not None

    # ----- layout --------------------------------------------------------------------------------------
    def natural_width(self, lay: Layout) -> float | None:
        """The width this widget wants inside a row; None means 'share the leftover width'."""
        return None

    def measure(self, w: float, lay: Layout) -> float:
        """Height this widget takes at width `w`."""
        return 0.0

    def place(self, x: float, y: float, w: float, h: float | None, lay: Layout) -> None:
        """Set `box` (and the children's boxes); `h` is None for the natural height."""
        self.box = (x, y, x + w, y + (self.measure(w, lay) if h is None else h))

    def paint(self, c: Canvas, lay: Layout) -> None:
        """Draw this widget (children included) onto the canvas."""
        for child in self.children:
            child.paint(c, lay)


# ----- containers --------------------------------------------------------------------------------------
class Column(Widget):
    """Children stacked top to bottom. A `flex` child (a `Scroll`, or any widget with flex=True) takes the leftover height."""

    cls_name = "android.widget.LinearLayout"
    __slots__ = ("pad", "gap", "bg", "radius", "align", "border", "_memo")

    def __init__(self, *children: Widget | None, pad: float = 0, gap: float = 0, bg: Color | str | None = None,
                 radius: float = 0, align: str = "stretch", border: Color | str | None = None, **kw: Any) -> None:
        super().__init__(**kw)
        self.children = [c for c in children if c is not None]
        self.pad, self.gap, self.radius, self.align = _sp(pad), _sp(gap), radius, align
        self._memo: tuple[float, float] | None = None
        self.bg = _color(bg, None) if bg is not None else None  # type: ignore[arg-type]
        self.border = _color(border, None) if border is not None else None  # type: ignore[arg-type]

    def measure(self, w: float, lay: Layout) -> float:
        if self._memo is not None and self._memo[0] == w:
            return self._memo[1]
        inner = w - 2 * self.pad
        hs = [c.measure(inner, lay) for c in self.children]
        h = sum(hs) + self.gap * max(0, len(hs) - 1) + 2 * self.pad
        self._memo = (w, h)
        return h

    def place(self, x: float, y: float, w: float, h: float | None, lay: Layout) -> None:
        inner = w - 2 * self.pad
        heights = [c.measure(inner, lay) if not c.flex else 0.0 for c in self.children]
        used = sum(heights) + self.gap * max(0, len(heights) - 1) + 2 * self.pad
        flex = [i for i, c in enumerate(self.children) if c.flex]
        if h is None:
            for i in flex:
                heights[i] = self.children[i].measure(inner, lay)
            h = sum(heights) + self.gap * max(0, len(heights) - 1) + 2 * self.pad
        elif flex:
            share = max(0.0, h - used) / len(flex)
            for i in flex:
                heights[i] = share
        self.box = (x, y, x + w, y + h)
        cy = y + self.pad
        for child, ch in zip(self.children, heights):
            cw = inner
            cx = x + self.pad
            if self.align == "center":
                nw = child.natural_width(lay)
                if nw is not None and nw < inner:
                    cw, cx = nw, x + (w - nw) / 2
            child.place(cx, cy, cw, ch, lay)
            cy += ch + self.gap

    def paint(self, c: Canvas, lay: Layout) -> None:
        if self.bg is not None or self.border is not None:
            c.rect(self.box, fill=resolve(self.bg, lay.theme), radius=self.radius, outline=resolve(self.border, lay.theme), width=3)
        flex = [ch for ch in self.children if ch.flex]
        if not flex:
            for child in self.children:
                child.paint(c, lay)
            return
        # Scrolling content first; fixed siblings then repaint their background over any overflow.
        for child in flex:
            child.paint(c, lay)
        bg = resolve(self.bg, lay.theme) or lay.theme.bg
        for child in self.children:
            if not child.flex:
                c.rect(child.box, fill=bg)
                child.paint(c, lay)


class Row(Widget):
    """Children side by side, vertically centred. Children with `weight` share the width left by the others."""

    cls_name = "android.widget.LinearLayout"
    __slots__ = ("pad", "gap", "bg", "radius", "border", "_memo")

    def __init__(self, *children: Widget | None, pad: float = 0, gap: float = 24, bg: Color | str | None = None,
                 radius: float = 0, border: Color | str | None = None, **kw: Any) -> None:
        super().__init__(**kw)
        self.children = [c for c in children if c is not None]
        self.pad, self.gap, self.radius = _sp(pad), _sp(gap), radius
        self.bg = _color(bg, None) if bg is not None else None  # type: ignore[arg-type]
        self.border = _color(border, None) if border is not None else None  # type: ignore[arg-type]
        self._memo: tuple[float, list[float], list[float]] | None = None

    def _sizes(self, w: float, lay: Layout) -> tuple[list[float], list[float]]:
        if self._memo is None or self._memo[0] != w:
            widths = self._split(w, lay)
            self._memo = (w, widths, [c.measure(cw, lay) for c, cw in zip(self.children, widths)])
        return self._memo[1], self._memo[2]

    def _split(self, w: float, lay: Layout) -> list[float]:
        inner = w - 2 * self.pad - self.gap * max(0, len(self.children) - 1)
        widths: list[float | None] = []
        for child in self.children:
            widths.append(None if child.weight > 0 else child.natural_width(lay))
        fixed = sum(v for v in widths if v is not None)
        weights = [(c.weight or 1.0) if v is None else 0.0 for c, v in zip(self.children, widths)]
        total = sum(weights) or 1.0
        left = max(0.0, inner - fixed)
        return [v if v is not None else left * wt / total for v, wt in zip(widths, weights)]

    def natural_width(self, lay: Layout) -> float | None:
        widths = [c.natural_width(lay) for c in self.children]
        if any(v is None for v in widths):
            return None
        return sum(widths) + self.gap * max(0, len(widths) - 1) + 2 * self.pad  # type: ignore[arg-type]

    def measure(self, w: float, lay: Layout) -> float:
        return max(self._sizes(w, lay)[1], default=0.0) + 2 * self.pad

    def place(self, x: float, y: float, w: float, h: float | None, lay: Layout) -> None:
        widths, heights = self._sizes(w, lay)
        if h is None:
            h = max(heights, default=0.0) + 2 * self.pad
        self.box = (x, y, x + w, y + h)
        cx = x + self.pad
        for child, cw, ch in zip(self.children, widths, heights):
            child.place(cx, y + (h - ch) / 2, cw, ch, lay)
            cx += cw + self.gap

    def paint(self, c: Canvas, lay: Layout) -> None:
        if self.bg is not None or self.border is not None:
            c.rect(self.box, fill=resolve(self.bg, lay.theme), radius=self.radius, outline=resolve(self.border, lay.theme), width=3)
        for child in self.children:
            child.paint(c, lay)


class Grid(Widget):
    """Children in `cols` equal columns, row by row."""

    cls_name = "android.widget.GridView"
    __slots__ = ("cols", "gap", "pad", "_memo")

    def __init__(self, *children: Widget | None, cols: int = 2, gap: float = 24, pad: float = 0, **kw: Any) -> None:
        super().__init__(**kw)
        self.children = [c for c in children if c is not None]
        self.cols, self.gap, self.pad = max(1, cols), _sp(gap), _sp(pad)
        self._memo: tuple[float, list[float]] | None = None

    def _row_heights(self, w: float, lay: Layout) -> list[float]:
        if self._memo is None or self._memo[0] != w:
            cw = (w - 2 * self.pad - self.gap * (self.cols - 1)) / self.cols
            kids, n = self.children, self.cols
            heights = [max(c.measure(cw, lay) for c in kids[i:i + n]) for i in range(0, len(kids), n)]
            self._memo = (w, heights)
        return self._memo[1]

    def measure(self, w: float, lay: Layout) -> float:
        rows = self._row_heights(w, lay)
        return sum(rows) + self.gap * max(0, len(rows) - 1) + 2 * self.pad

    def place(self, x: float, y: float, w: float, h: float | None, lay: Layout) -> None:
        rows = self._row_heights(w, lay)
        cw = (w - 2 * self.pad - self.gap * (self.cols - 1)) / self.cols
        cy = y + self.pad
        n = self.cols
        for r, rh in enumerate(rows):
            for i, child in enumerate(self.children[r * n:(r + 1) * n]):
                child.place(x + self.pad + i * (cw + self.gap), cy, cw, rh, lay)
            cy += rh + self.gap
        end = cy - self.gap + self.pad if self.children else y + 2 * self.pad
        self.box = (x, y, x + w, y + (end - y if h is None else h))


class Scroll(Widget):
    """A vertical list that scrolls by swiping; its offset lives in the screen's state under its `id`."""

    cls_name = "androidx.recyclerview.widget.RecyclerView"
    __slots__ = ("gap", "pad", "bg")

    def __init__(self, *children: Widget | None, id: str = "list", gap: float = 0, pad: float = 0,
                 bg: Color | str | None = None, **kw: Any) -> None:
        kw.setdefault("flex", True)
        super().__init__(id=id, **kw)
        self.children = [c for c in children if c is not None]
        self.gap, self.pad = _sp(gap), _sp(pad)
        self.bg = _color(bg, None) if bg is not None else None  # type: ignore[arg-type]

    scrollable = True

    def measure(self, w: float, lay: Layout) -> float:
        inner = w - 2 * self.pad
        hs = [c.measure(inner, lay) for c in self.children]
        return sum(hs) + self.gap * max(0, len(hs) - 1) + 2 * self.pad

    def place(self, x: float, y: float, w: float, h: float | None, lay: Layout) -> None:
        inner = w - 2 * self.pad
        content = self.measure(w, lay)
        if h is None:
            h = content
        self.box = (x, y, x + w, y + h)
        limit = max(0.0, content - h)
        offset = min(max(0.0, lay.scroll.get(self.id or "", 0.0)), limit)
        if self.id:
            lay.extent[self.id] = (content, h)
            if offset != lay.scroll.get(self.id, 0.0) and self.id in lay.scroll:
                lay.scroll[self.id] = offset
        cy = y + self.pad - offset
        bottom = y + h
        for child in self.children:
            ch = child.measure(inner, lay)
            if cy + ch < y or cy > bottom:  # out of view: no need to lay out its insides
                child.box = (x + self.pad, cy, x + self.pad + inner, cy + ch)
            else:
                child.place(x + self.pad, cy, inner, ch, lay)
            cy += ch + self.gap

    def paint(self, c: Canvas, lay: Layout) -> None:
        if self.bg is not None:
            c.rect(self.box, fill=resolve(self.bg, lay.theme))
        top, bottom = self.box[1], self.box[3]
        for child in self.children:
            if child.box[3] > top and child.box[1] < bottom:
                child.paint(c, lay)


# ----- leaves --------------------------------------------------------------------------------------
class Text(Widget):
    """A text label that wraps; `size` is a role ('huge', 'big', 'title', 'body', 'small', 'tiny') or pixels."""

    cls_name = "android.widget.TextView"
    __slots__ = ("_text", "size", "bold", "color", "max_lines", "align", "pad", "bg", "radius", "_memo")

    def __init__(self, text: str, size: str | int = "body", bold: bool = False, color: Color | str | None = None,
                 max_lines: int = 0, align: str = "left", pad: float = 0, bg: Color | str | None = None,
                 radius: float = 0, **kw: Any) -> None:
        super().__init__(**kw)
        self._text = tr(str(text))
        self.size, self.bold, self.max_lines, self.align, self.pad, self.radius = size, bold, max_lines, align, _sp(pad), radius
        self.color = _color(color, None) if color is not None else None  # type: ignore[arg-type]
        self.bg = _color(bg, None) if bg is not None else None  # type: ignore[arg-type]
        self._memo: tuple[float, float] | None = None

    @property
    def text(self) -> str:
        return self._text

    def _px(self, lay: Layout) -> int:
        return lay.theme.size(self.size)

    def natural_width(self, lay: Layout) -> float | None:
        px = self._px(lay)
        return max(text_width(line, px, self.bold) for line in self._text.split("\n")) + 2 * self.pad + 2

    def measure(self, w: float, lay: Layout) -> float:
        if self._memo is not None and self._memo[0] == w:
            return self._memo[1]
        px = self._px(lay)
        lines = wrap(self._text, px, max(10.0, w - 2 * self.pad), self.bold, self.max_lines)
        h = len(lines) * px * 1.3 + 2 * self.pad
        self._memo = (w, h)
        return h

    def paint(self, c: Canvas, lay: Layout) -> None:
        x1, y1, x2, _ = self.box
        if self.bg is not None:
            c.rect(self.box, fill=resolve(self.bg, lay.theme), radius=self.radius)
        px = self._px(lay)
        color = resolve(self.color, lay.theme) or lay.theme.text
        if not self.enabled:
            color = lay.theme.text2
        y = y1 + self.pad + px * 0.1
        for line in wrap(self._text, px, max(10.0, x2 - x1 - 2 * self.pad), self.bold, self.max_lines):
            if self.align == "center":
                x = (x1 + x2 - text_width(line, px, self.bold)) / 2
            elif self.align == "right":
                x = x2 - self.pad - text_width(line, px, self.bold)
            else:
                x = x1 + self.pad
            c.text(x, y, line, px, color, self.bold)
            y += px * 1.3


class Button(Widget):
    """A button with a label; `style` is 'primary', 'secondary', 'text' or 'danger'."""

    cls_name = "android.widget.Button"
    __slots__ = ("_text", "style", "size", "icon")

    def __init__(self, text: str, on_click: Handler | None = None, style: str = "primary", size: str | int = "body",
                 icon: str | None = None, **kw: Any) -> None:
        super().__init__(on_click=on_click, **kw)
        self._text, self.style, self.size, self.icon = tr(str(text)), style, size, icon

    @property
    def text(self) -> str:
        return self._text

    @property
    def clickable(self) -> bool:
        return True

    def natural_width(self, lay: Layout) -> float | None:
        px = lay.theme.size(self.size)
        return text_width(self._text, px, True) + 2 * lay.theme.pad + (px * 1.4 if self.icon else 0)

    def measure(self, w: float, lay: Layout) -> float:
        return lay.theme.size(self.size) * 1.3 + 60

    def paint(self, c: Canvas, lay: Layout) -> None:
        t = lay.theme
        px = t.size(self.size)
        fill: Color | None
        if self.style == "primary":
            fill, fg, outline = t.primary, t.on_primary, None
        elif self.style == "danger":
            fill, fg, outline = t.danger, (255, 255, 255), None
        elif self.style == "secondary":
            fill, fg, outline = None, t.primary, t.primary
        else:
            fill, fg, outline = None, t.primary, None
        if not self.enabled:
            fill = mix(fill, t.bg, 0.6) if fill is not None else None
            fg = t.text2 if fill is None else fg
        if fill is not None or outline is not None:
            c.rect(self.box, fill=fill, radius=max(t.radius, 8), outline=outline, width=4)
        x1, y1, x2, y2 = self.box
        tw = text_width(self._text, px, True)
        iw = px * 1.4 if self.icon else 0
        x = (x1 + x2 - tw - iw) / 2
        if self.icon:
            glyph(c, self.icon, (x, (y1 + y2) / 2 - px * 0.6, x + px * 1.2, (y1 + y2) / 2 + px * 0.6), fg)
        c.text(x + iw, (y1 + y2) / 2 - px * 0.6, self._text, px, fg, True)


class Icon(Widget):
    """A drawn icon (see `render.glyph` names; others show their first letter), with a content description.

    `label` puts a caption under the icon (then the node's text is the label, as on launchers and tab bars).
    """

    cls_name = "android.widget.ImageView"
    __slots__ = ("name", "size", "color", "bg", "label", "round", "label_color")

    def __init__(self, name: str, desc: str = "", on_click: Handler | None = None, size: float = 96,
                 color: Color | str | None = None, bg: Color | str | None = None, label: str = "",
                 round: bool = True, label_color: Color | str | None = None, **kw: Any) -> None:
        super().__init__(desc=desc or name, on_click=on_click, **kw)
        self.name, self.size, self.label, self.round = name, size, tr(label) if label else label, round
        self.label_color = _color(label_color, None) if label_color is not None else None  # type: ignore[arg-type]
        self.color = _color(color, None) if color is not None else None  # type: ignore[arg-type]
        self.bg = _color(bg, None) if bg is not None else None  # type: ignore[arg-type]

    @property
    def text(self) -> str:
        return self.label

    def natural_width(self, lay: Layout) -> float | None:
        if self.label:
            return max(self.size, text_width(self.label, lay.theme.size("tiny")) + 8)
        return self.size

    def measure(self, w: float, lay: Layout) -> float:
        return self.size + (lay.theme.size("tiny") * 1.5 if self.label else 0)

    def paint(self, c: Canvas, lay: Layout) -> None:
        t = lay.theme
        x1, y1, x2, _ = self.box
        cx = (x1 + x2) / 2
        box = (cx - self.size / 2, y1, cx + self.size / 2, y1 + self.size)
        fg = resolve(self.color, t) or (t.primary if self.selected else t.text)
        bg = resolve(self.bg, t) if self.bg is not None else None
        mark = art.mark_for(self.name, bg) if bg is not None and not self.round else None
        if mark is not None:  # an app's icon (launcher, recents, an app list)
            x, y, w, _ = c.pixels(box)
            c.paste(art.app_icon(mark, w), x, y)
        else:
            if bg is not None:
                if self.round:
                    c.ellipse(box, fill=bg)
                else:
                    c.rect(box, fill=bg, radius=self.size * 0.22)
                fg = resolve(self.color, t) or (255, 255, 255)
            if not glyph(c, self.name, box, fg):
                letter = (self.name[:1] or "?").upper()
                px = int(self.size * 0.5)
                c.text(cx - text_width(letter, px, True) / 2, y1 + self.size * 0.2, letter, px, fg, True)
        if self.label:
            px = t.size("tiny")
            color = resolve(self.label_color, t) or (t.primary if self.selected else t.text)
            label = ellipsize(self.label, px, x2 - x1)
            lx, ly = cx - text_width(label, px) / 2, y1 + self.size + px * 0.3
            if mark is not None and sum(color) > 600:  # a light label over the wallpaper gets a soft shadow
                c.text(lx + 2, ly + 2, label, px, (20, 22, 28))
            c.text(lx, ly, label, px, color)


def ellipsize(text: str, size: int, width: float, bold: bool = False) -> str:
    """`text` cut to fit `width` at `size`, ending in an ellipsis where it had to be cut (as Android's labels do)."""
    if text_width(text, size, bold) <= width:
        return text
    while text and text_width(text + "\u2026", size, bold) > width:
        text = text[:-1]
    return text.rstrip() + "\u2026"


class Image(Widget):
    """A picture, drawn from its identity: `desc` says what it shows (and seeds the drawing), `color` tints it.

    What kind of picture it is (a product, a photo, an avatar, a video thumbnail, a music cover, a banner) comes from
    the words of `desc`, else from the app that shows it, else from its shape; see `mobile_r1.sim.ui.art`."""

    cls_name = "android.widget.ImageView"
    __slots__ = ("height", "color", "width", "radius")

    def __init__(self, desc: str = "image", height: float = 300, color: Color | str | None = None,
                 width: float | None = None, radius: float = 16, **kw: Any) -> None:
        super().__init__(desc=desc, **kw)
        self.height, self.width, self.radius = height, width, radius
        self.color = _color(color, (180, 200, 230))  # type: ignore[assignment]

    def natural_width(self, lay: Layout) -> float | None:
        return self.width

    def measure(self, w: float, lay: Layout) -> float:
        return self.height

    def paint(self, c: Canvas, lay: Layout) -> None:
        x1, y1, x2, y2 = self.box
        color = resolve(self.color, lay.theme) or (180, 200, 230)
        kind = art.kind_of(self.desc, x2 - x1, y2 - y1, self.radius)
        x, y, w, h = c.pixels(self.box)
        radius = round(min(self.radius, (x2 - x1) / 2, (y2 - y1) / 2) * c.scale)
        corner = c.under(x, y) if radius > 0 else (255, 255, 255)
        c.paste(art.picture(self.desc, color, kind, w, h, radius, corner), x, y)


class Input(Widget):
    """A text field. Its text lives in the screen's fields under `id` (read it with `ctx.fields[id]`).

    Tapping it focuses it and brings up the keyboard; `type` actions append to it; Enter calls `on_submit`.
    """

    cls_name = "android.widget.EditText"
    __slots__ = ("hint", "value", "password", "on_text", "on_submit", "lines", "_shown")

    def __init__(self, id: str, hint: str = "", value: str | None = None, password: bool = False,
                 on_text: Callable[[Any, str], None] | None = None, on_submit: Callable[[Any, str], None] | None = None,
                 lines: int = 1, **kw: Any) -> None:
        super().__init__(id=id, **kw)
        self.hint, self.value, self.password, self.on_text, self.on_submit, self.lines = (tr(hint) if hint else hint, value,
                                                                                          password, on_text, on_submit, lines)
        self._shown = ""

    editable = True

    @property
    def text(self) -> str:
        """As in Android dumps: the typed text (dots for passwords), or the hint while empty."""
        return self._shown or self.hint

    def place(self, x: float, y: float, w: float, h: float | None, lay: Layout) -> None:
        value = self.current(lay)
        self._shown = "\u2022" * len(value) if self.password else value
        super().place(x, y, w, h, lay)

    @property
    def clickable(self) -> bool:
        return True

    def current(self, lay: Layout) -> str:
        if self.value is not None and self.id not in lay.fields:
            return self.value
        return lay.fields.get(self.id or "", "")

    def focused(self, lay: Layout) -> bool:
        return lay.focus is not None and lay.focus == self.id

    def measure(self, w: float, lay: Layout) -> float:
        return lay.theme.size("body") * 1.3 * self.lines + 64

    def paint(self, c: Canvas, lay: Layout) -> None:
        t = lay.theme
        focused = self.focused(lay)
        c.rect(self.box, fill=t.surface, radius=max(t.radius, 8), outline=t.primary if focused else t.divider, width=4)
        px = t.size("body")
        value = self.current(lay)
        shown = ("\u2022" * len(value)) if self.password else value
        x1, y1, x2, y2 = self.box
        lines = (wrap(shown, px, x2 - x1 - 2 * 28 - 60, max_lines=self.lines) if shown
                 else [ellipsize(self.hint, px, x2 - x1 - 2 * 28)])
        color = t.text if shown else t.text2
        y = y1 + 32
        for line in lines:
            c.text(x1 + 28, y, line, px, color)
            y += px * 1.3
        if focused:
            last = lines[-1] if shown else ""
            cx = x1 + 28 + text_width(last, px) + 4
            c.rect((cx, y - px * 1.3, cx + 4, y - px * 0.2), fill=t.primary)


class Toggle(Widget):
    """A labelled switch; tapping it calls `on_change(ctx, new_value)`."""

    cls_name = "android.widget.Switch"
    __slots__ = ("_text", "value", "on_change", "subtitle")

    def __init__(self, text: str, checked: bool, on_change: Callable[[Any, bool], None] | None = None,
                 subtitle: str = "", **kw: Any) -> None:
        super().__init__(**kw)
        self._text, self.value, self.on_change, self.subtitle = tr(text), bool(checked), on_change, tr(subtitle) if subtitle else subtitle
        if on_change is not None:
            self.on_click = lambda ctx: on_change(ctx, not self.value)

    checkable = True

    @property
    def text(self) -> str:
        return self._text

    @property
    def checked(self) -> bool:
        return self.value

    def measure(self, w: float, lay: Layout) -> float:
        t = lay.theme
        return t.size("body") * 1.3 + (t.size("small") * 1.3 if self.subtitle else 0) + 2 * t.gap + 20

    def paint(self, c: Canvas, lay: Layout) -> None:
        t = lay.theme
        x1, y1, x2, y2 = self.box
        px = t.size("body")
        ty = y1 + t.gap + 10
        c.text(x1, ty, self._text, px, t.text)
        if self.subtitle:
            c.text(x1, ty + px * 1.3, self.subtitle, t.size("small"), t.text2)
        cy = (y1 + y2) / 2
        track = (x2 - 130, cy - 30, x2 - 10, cy + 30)
        c.rect(track, fill=t.primary if self.value else t.divider, radius=30)
        kx = x2 - 70 if self.value else x2 - 130
        c.ellipse((kx + 4, cy - 26, kx + 56, cy + 26), fill=(255, 255, 255))


class Checkbox(Widget):
    """A labelled check box; tapping it calls `on_change(ctx, new_value)`."""

    cls_name = "android.widget.CheckBox"
    __slots__ = ("_text", "value", "on_change")

    def __init__(self, text: str, checked: bool, on_change: Callable[[Any, bool], None] | None = None, **kw: Any) -> None:
        super().__init__(**kw)
        self._text, self.value, self.on_change = tr(text), bool(checked), on_change
        if on_change is not None:
            self.on_click = lambda ctx: on_change(ctx, not self.value)

    checkable = True

    @property
    def text(self) -> str:
        return self._text

    @property
    def checked(self) -> bool:
        return self.value

    def natural_width(self, lay: Layout) -> float | None:
        return 90 + text_width(self._text, lay.theme.size("body"))

    def measure(self, w: float, lay: Layout) -> float:
        return max(70.0, lay.theme.size("body") * 1.3 + 24)

    def paint(self, c: Canvas, lay: Layout) -> None:
        t = lay.theme
        x1, y1, x2, y2 = self.box
        cy = (y1 + y2) / 2
        box = (x1, cy - 30, x1 + 60, cy + 30)
        c.rect(box, fill=t.primary if self.value else None, outline=t.primary if self.value else t.text2, width=5, radius=8)
        if self.value:
            glyph(c, "check", box, (255, 255, 255))
        c.text(x1 + 84, cy - t.size("body") * 0.6, self._text, t.size("body"), t.text)


class Tab(Widget):
    """One tab of a `Tabs` bar (a node of its own, `selected` when current)."""

    cls_name = "android.widget.TextView"
    __slots__ = ("_text", "icon")

    def __init__(self, text: str, icon: str | None = None, **kw: Any) -> None:
        super().__init__(**kw)
        self._text, self.icon = tr(text), icon

    @property
    def text(self) -> str:
        return self._text

    def measure(self, w: float, lay: Layout) -> float:
        return (lay.theme.size("tiny") * 1.4 + 80) if self.icon else lay.theme.size("body") * 1.3 + 56

    def paint(self, c: Canvas, lay: Layout) -> None:
        t = lay.theme
        x1, y1, x2, y2 = self.box
        color = t.primary if self.selected else t.text2
        if self.icon:
            glyph(c, self.icon, ((x1 + x2) / 2 - 34, y1 + 12, (x1 + x2) / 2 + 34, y1 + 80), color)
            px = t.size("tiny")
            c.text((x1 + x2 - text_width(self._text, px)) / 2, y1 + 86, self._text, px, color)
        else:
            px = t.size("body")
            c.text((x1 + x2 - text_width(self._text, px, self.selected)) / 2, y1 + 24, self._text, px, color, self.selected)
            if self.selected:
                c.rect((x1 + 20, y2 - 8, x2 - 20, y2), fill=t.primary)


class Tabs(Row):
    """A bar of tabs; tapping tab i calls `on_select(ctx, i)`. With `icons` it is a bottom navigation bar."""

    cls_name = "android.widget.TabWidget"
    __slots__ = ()

    def __init__(self, items: Sequence[str], selected: int, on_select: Callable[[Any, int], None] | None = None,
                 icons: Sequence[str] | None = None, id: str = "tabs", bg: Color | str | None = None, **kw: Any) -> None:
        tabs = []
        for i, label in enumerate(items):
            handler = (lambda ctx, i=i: on_select(ctx, i)) if on_select is not None else None
            tabs.append(Tab(label, icon=icons[i] if icons else None, id=f"{id}_{i}", on_click=handler,
                            selected=i == selected, weight=1.0))
        super().__init__(*tabs, gap=0, id=id, bg=bg, **kw)

    def paint(self, c: Canvas, lay: Layout) -> None:
        c.rect(self.box, fill=resolve(self.bg, lay.theme) or lay.theme.bg)
        c.rect((self.box[0], self.box[1], self.box[2], self.box[1] + 3), fill=lay.theme.divider)
        for child in self.children:
            child.paint(c, lay)


class Divider(Widget):
    """A thin horizontal line."""

    emit = False
    __slots__ = ()

    def measure(self, w: float, lay: Layout) -> float:
        return 3

    def paint(self, c: Canvas, lay: Layout) -> None:
        c.rect(self.box, fill=lay.theme.divider)


class Spacer(Widget):
    """Empty space of a fixed height (or, with flex=True, all the leftover height)."""

    emit = False
    __slots__ = ("height",)

    def __init__(self, height: float = 24, **kw: Any) -> None:
        super().__init__(**kw)
        self.height = height

    def natural_width(self, lay: Layout) -> float | None:
        return None if self.weight else self.height

    def measure(self, w: float, lay: Layout) -> float:
        return self.height


class Spinner(Widget):
    """A loading indicator with a caption."""

    cls_name = "android.widget.ProgressBar"
    __slots__ = ("caption",)

    def __init__(self, caption: str = "Loading...", **kw: Any) -> None:
        kw.setdefault("flex", True)
        super().__init__(desc=caption, **kw)
        self.caption = self.desc

    def measure(self, w: float, lay: Layout) -> float:
        return 300

    def paint(self, c: Canvas, lay: Layout) -> None:
        x1, y1, x2, y2 = self.box
        cx, cy = (x1 + x2) / 2, (y1 + y2) / 2
        glyph(c, "spinner", (cx - 60, cy - 120, cx + 60, cy), lay.theme.primary)
        px = lay.theme.size("body")
        c.text(cx - text_width(self.caption, px) / 2, cy + 30, self.caption, px, lay.theme.text2)


# ----- composite helpers (plain functions returning widgets) ---------------------------------------------
def AppBar(title: str, back: bool = True, actions: Sequence[Widget] = (), id: str = "toolbar") -> Widget:
    """The top bar of a screen: a back arrow (acts like the Back button), the title, action icons."""
    arrow = Icon("back", desc="Navigate up", on_click=lambda ctx: ctx.back(), size=80, id="navigate_up") if back else None
    title_w = Text(title, size="title", bold=True, max_lines=1, weight=1.0, id="toolbar_title")
    return Row(arrow, title_w, *actions, pad=28, gap=28, id=id)


def ListItem(title: str, subtitle: str = "", on_click: Handler | None = None, on_long_press: Handler | None = None,
             leading: Widget | None = None, trailing: Widget | str | None = None, id: str | None = None,
             desc: str = "", max_lines: int = 1) -> Widget:
    """A list row: optional leading icon or image, a title with a subtitle, optional trailing text or widget."""
    body = Column(Text(title, size="body", max_lines=max_lines, id=f"{id}_title" if id else None),
                  Text(subtitle, size="small", color=(120, 122, 130), max_lines=2) if subtitle else None,
                  gap=6, weight=1.0)
    tail = Text(trailing, size="small", color=(120, 122, 130)) if isinstance(trailing, str) else trailing
    return Row(leading, body, tail, pad=36, gap=32, on_click=on_click, on_long_press=on_long_press, id=id, desc=desc)


def Card(*children: Widget | None, on_click: Handler | None = None, id: str | None = None,
         on_long_press: Handler | None = None, pad: float = 28, gap: float = 12) -> Widget:
    """A rounded panel on the surface colour that groups its children."""
    return Column(*children, pad=pad, gap=gap, bg="surface", radius=24, on_click=on_click, on_long_press=on_long_press, id=id)
