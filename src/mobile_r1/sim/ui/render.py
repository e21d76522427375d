"""Drawing onto a PIL screenshot at a scale of the logical screen, with cached fonts and text bitmaps."""

from __future__ import annotations

import math
from functools import lru_cache
from pathlib import Path
from typing import Any, Sequence

from PIL import Image, ImageDraw, ImageFont

from mobile_r1.sim.ui.theme import Color

_FONT_DIRS = ("/usr/share/fonts/truetype/dejavu", "/usr/share/fonts/dejavu", "/usr/share/fonts/TTF", "/Library/Fonts")
# Chinese, Japanese and Korean text is drawn with Android's own fallback font (Debian's fonts-droid-fallback, which
# `make install` puts on the machine), run by run: the Latin parts of a mixed line keep DejaVu Sans, as on a phone.
_CJK_FONTS = ("/usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf",
              "/usr/share/fonts-droid-fallback/truetype/DroidSansFallback.ttf",
              "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc",
              "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc")


@lru_cache(maxsize=None)
def _font_path(bold: bool) -> str | None:
    name = "DejaVuSans-Bold.ttf" if bold else "DejaVuSans.ttf"
    for folder in _FONT_DIRS:
        path = Path(folder) / name
        if path.is_file():
            return str(path)
    return None


@lru_cache(maxsize=None)
def cjk_font_path() -> str | None:
    """The font CJK text is drawn with, or None when the machine has none (`make install` installs one)."""
    return next((p for p in _CJK_FONTS if Path(p).is_file()), None)


def is_cjk(char: str) -> bool:
    """Whether `char` is drawn with the CJK font: ideographs, kana, hangul, CJK and full-width punctuation."""
    o = ord(char)
    return (0x2E80 <= o <= 0x9FFF or 0xAC00 <= o <= 0xD7AF or 0xF900 <= o <= 0xFAFF or 0xFE30 <= o <= 0xFE4F
            or 0xFF00 <= o <= 0xFFEF or 0x20000 <= o <= 0x2FA1F)


def _has_cjk(text: str) -> bool:
    return not text.isascii() and any(is_cjk(ch) for ch in text)


@lru_cache(maxsize=4096)
def runs(text: str) -> tuple[tuple[str, bool], ...]:
    """`text` cut into runs of one font: (run, is_cjk)."""
    out: list[tuple[str, bool]] = []
    for ch in text:
        cjk = is_cjk(ch)
        if out and out[-1][1] == cjk:
            out[-1] = (out[-1][0] + ch, cjk)
        else:
            out.append((ch, cjk))
    return tuple(out)


@lru_cache(maxsize=256)
def font(size: int, bold: bool = False, cjk: bool = False) -> Any:
    """A font of `size` pixels: DejaVu Sans (or, with `cjk`, the CJK font) when the system has it, else Pillow's own."""
    size = max(6, int(size))
    path = cjk_font_path() if cjk else None
    if path is None:
        path = _font_path(bold) or (_font_path(False) if bold else None)
    if path is not None:
        return ImageFont.truetype(path, size)
    return ImageFont.load_default(size=size)


@lru_cache(maxsize=65536)
def text_width(text: str, size: int, bold: bool = False) -> float:
    """Width in logical pixels of one line of text at `size` (measured at full scale, cached)."""
    if not _has_cjk(text):
        return font(size, bold).getlength(text)
    return sum(font(size, bold, cjk).getlength(run) for run, cjk in runs(text))


@lru_cache(maxsize=16384)
def _mask(text: str, size: int, bold: bool, cjk: bool = False) -> tuple[Any, tuple[int, int]]:
    return font(size, bold, cjk).getmask2(text, mode="L")


@lru_cache(maxsize=8)
def _notdef(cjk: bool) -> bytes:
    """The font's missing-glyph box, as a mask (what a character the font lacks is drawn as)."""
    mask = font(40, False, cjk).getmask2("\uffff", mode="L")[0]
    return bytes(mask)


@lru_cache(maxsize=65536)
def _missing(char: str) -> bool:
    cjk = is_cjk(char)
    return bytes(font(40, False, cjk).getmask2(char, mode="L")[0]) == _notdef(cjk)


def missing_glyphs(text: str) -> list[str]:
    """The characters of `text` that its font lacks, so that they would be drawn as boxes ("tofu")."""
    return sorted({ch for ch in text if not ch.isspace() and ord(ch) >= 0x20 and ch != "\x7f" and _missing(ch)})


def wrap(text: str, size: int, width: float, bold: bool = False, max_lines: int = 0) -> Sequence[str]:
    """Greedy word wrap of `text` into lines no wider than `width`; the last kept line ends in '...'. Text with CJK
    characters also breaks between characters, as it has no spaces to break at."""
    if "\n" not in text and text_width(text, size, bold) <= width:
        return [text]
    return _wrap(text, size, width, bold, max_lines)


def _pieces(paragraph: str) -> list[str]:
    """The units a line may break between: words, and in CJK text each character (with the space before a word)."""
    if not _has_cjk(paragraph):
        return paragraph.split(" ")
    out: list[str] = []
    word = ""
    for ch in paragraph:
        if is_cjk(ch):
            if word:
                out.append(word)
                word = ""
            out.append(ch)
        elif ch == " ":
            if word:
                out.append(word)
            word = " "
        else:
            word += ch
    if word:
        out.append(word)
    return out


@lru_cache(maxsize=8192)
def _wrap(text: str, size: int, width: float, bold: bool, max_lines: int) -> tuple[str, ...]:
    lines: list[str] = []
    for paragraph in text.split("\n"):
        if _has_cjk(paragraph):
            line = ""
            for piece in _pieces(paragraph):
                trial = line + piece
                if line and text_width(trial, size, bold) > width:
                    lines.append(line)
                    line = piece.lstrip(" ")
                else:
                    line = trial
            lines.append(line)
            continue
        words = paragraph.split(" ")
        line = ""
        for word in words:
            trial = f"{line} {word}" if line else word
            if line and text_width(trial, size, bold) > width:
                lines.append(line)
                line = word
            else:
                line = trial
        lines.append(line)
    if max_lines and len(lines) > max_lines:
        lines = lines[:max_lines]
        last = lines[-1]
        while last and text_width(last + "...", size, bold) > width:
            last = last[:-1]
        lines[-1] = last + "..."
    return tuple(lines)


class Canvas:
    """A screenshot being drawn; every call takes logical coordinates and draws them at `scale`."""

    def __init__(self, width: int, height: int, scale: float, bg: Color) -> None:
        self.scale = scale
        self.image = Image.new("RGB", (max(1, int(width * scale)), max(1, int(height * scale))), bg)
        self.draw = ImageDraw.Draw(self.image)

    @classmethod
    def wrap(cls, image: Any, scale: float = 1.0) -> Canvas:
        """A canvas that draws onto an existing image (logical coordinates times `scale` are its pixels)."""
        canvas = cls.__new__(cls)
        canvas.scale, canvas.image, canvas.draw = scale, image, ImageDraw.Draw(image)
        return canvas

    @classmethod
    def transparent(cls, width: int, height: int, scale: float = 1.0) -> Canvas:
        """A canvas over a new fully transparent RGBA image of `width` x `height` pixels (a layer to paste later)."""
        return cls.wrap(Image.new("RGBA", (max(1, width), max(1, height)), (0, 0, 0, 0)), scale)

    def pixels(self, box: tuple[float, float, float, float]) -> tuple[int, int, int, int]:
        """The pixel rectangle (x, y, width, height) that a logical box covers."""
        s = self.scale
        x, y = round(box[0] * s), round(box[1] * s)
        return x, y, max(1, round(box[2] * s) - x), max(1, round(box[3] * s) - y)

    def under(self, x: int, y: int) -> Color:
        """The colour already drawn at pixel (x, y), clamped into the image (what a rounded corner shows)."""
        img = self.image
        px = img.getpixel((min(max(0, x), img.width - 1), min(max(0, y), img.height - 1)))
        return px[:3]  # type: ignore[index,return-value]

    def paste(self, image: Any, x: int, y: int, mask: Any = None) -> None:
        """Paste a ready image (an RGBA one blends by its alpha) with its top-left at pixel (x, y)."""
        if mask is None and image.mode == "RGBA":
            mask = image
        self.image.paste(image, (x, y), mask)

    def _box(self, box: tuple[float, float, float, float]) -> tuple[int, int, int, int]:
        s = self.scale
        return (round(box[0] * s), round(box[1] * s), max(round(box[0] * s), round(box[2] * s) - 1),
                max(round(box[1] * s), round(box[3] * s) - 1))

    def rect(self, box: tuple[float, float, float, float], fill: Color | None = None, radius: float = 0,
             outline: Color | None = None, width: float = 0) -> None:
        b = self._box(box)
        r = int(radius * self.scale)
        w = max(1, round(width * self.scale)) if outline is not None else 0
        if r >= 2:
            self.draw.rounded_rectangle(b, radius=r, fill=fill, outline=outline, width=w)
        else:
            self.draw.rectangle(b, fill=fill, outline=outline, width=w)

    def ellipse(self, box: tuple[float, float, float, float], fill: Color | None = None,
                outline: Color | None = None, width: float = 0) -> None:
        w = max(1, round(width * self.scale)) if outline is not None else 0
        self.draw.ellipse(self._box(box), fill=fill, outline=outline, width=w)

    def line(self, points: list[tuple[float, float]], fill: Color, width: float = 6) -> None:
        s = self.scale
        self.draw.line([(x * s, y * s) for x, y in points], fill=fill, width=max(1, round(width * s)))

    def polygon(self, points: list[tuple[float, float]], fill: Color) -> None:
        s = self.scale
        self.draw.polygon([(x * s, y * s) for x, y in points], fill=fill)

    def text(self, x: float, y: float, text: str, size: int, color: Color, bold: bool = False) -> None:
        """Draw one line with its top-left at (x, y); text bitmaps are cached per (text, scaled size). A line with CJK
        characters is drawn run by run, each in its own font."""
        if not text:
            return
        px = max(6, round(size * self.scale))
        if not _has_cjk(text):
            self._run(x, y, text, px, color, bold, False)
            return
        for run, cjk in runs(text):
            self._run(x, y, run, px, color, bold, cjk)
            x += text_width(run, size, bold)

    def _run(self, x: float, y: float, text: str, px: int, color: Color, bold: bool, cjk: bool) -> None:
        mask, offset = _mask(text, px, bold, cjk)
        try:
            ink = self.draw._getink(color)[0]
            self.draw.draw.draw_bitmap((round(x * self.scale) + offset[0], round(y * self.scale) + offset[1]),
                                       mask, ink)
        except (AttributeError, TypeError):  # a Pillow without these internals: draw the slow way
            self.draw.text((x * self.scale, y * self.scale), text, font=font(px, bold, cjk), fill=color)


def _contrast(color: Color) -> Color:
    """White on a dark colour, near-black on a light one (the inner details of filled glyphs)."""
    return (255, 255, 255) if sum(color) < 460 else (40, 40, 44)


def glyph(canvas: Canvas, name: str, box: tuple[float, float, float, float], color: Color) -> bool:
    """Draw a named icon shape inside `box`; False when the name has no drawing (caller draws a letter)."""
    x1, y1, x2, y2 = box
    cx, cy = (x1 + x2) / 2, (y1 + y2) / 2
    r = min(x2 - x1, y2 - y1) / 2 * 0.7
    w = max(4.0, r / 5)
    if name == "back":
        canvas.line([(cx + r * 0.5, cy - r), (cx - r * 0.5, cy), (cx + r * 0.5, cy + r)], color, w)
    elif name == "forward":
        canvas.line([(cx - r * 0.5, cy - r), (cx + r * 0.5, cy), (cx - r * 0.5, cy + r)], color, w)
    elif name == "close":
        canvas.line([(cx - r * 0.7, cy - r * 0.7), (cx + r * 0.7, cy + r * 0.7)], color, w)
        canvas.line([(cx - r * 0.7, cy + r * 0.7), (cx + r * 0.7, cy - r * 0.7)], color, w)
    elif name == "plus":
        canvas.line([(cx - r, cy), (cx + r, cy)], color, w)
        canvas.line([(cx, cy - r), (cx, cy + r)], color, w)
    elif name == "minus":
        canvas.line([(cx - r, cy), (cx + r, cy)], color, w)
    elif name == "search":
        rr = r * 0.6
        canvas.ellipse((cx - rr - r * 0.2, cy - rr - r * 0.2, cx + rr - r * 0.2, cy + rr - r * 0.2), outline=color, width=w)
        canvas.line([(cx + rr * 0.5, cy + rr * 0.5), (cx + r, cy + r)], color, w)
    elif name in ("menu", "list"):
        for dy in (-0.6, 0, 0.6):
            canvas.line([(cx - r, cy + dy * r), (cx + r, cy + dy * r)], color, w)
    elif name == "more":
        for dy in (-0.7, 0, 0.7):
            canvas.ellipse((cx - w, cy + dy * r - w, cx + w, cy + dy * r + w), fill=color)
    elif name in ("heart", "heart_filled"):
        pts = [(cx + r * 16 * math.sin(t) ** 3 / 17,
                cy - r * (13 * math.cos(t) - 5 * math.cos(2 * t) - 2 * math.cos(3 * t) - math.cos(4 * t)) / 17)
               for t in [i * math.pi / 12 for i in range(25)]]
        if name == "heart_filled":
            canvas.polygon(pts, color)
        else:
            canvas.line(pts, color, w * 0.8)
    elif name in ("star", "star_filled"):
        pts = []
        for i in range(10):
            a = -math.pi / 2 + i * math.pi / 5
            rad = r if i % 2 == 0 else r * 0.45
            pts.append((cx + rad * math.cos(a), cy + rad * math.sin(a)))
        if name == "star_filled":
            canvas.polygon(pts, color)
        else:
            canvas.line(pts + [pts[0]], color, w * 0.7)
    elif name == "cart":
        canvas.line([(cx - r, cy - r * 0.8), (cx - r * 0.6, cy - r * 0.8), (cx - r * 0.3, cy + r * 0.4),
                     (cx + r * 0.8, cy + r * 0.4), (cx + r, cy - r * 0.5), (cx - r * 0.5, cy - r * 0.5)], color, w)
        for dx in (-0.2, 0.6):
            canvas.ellipse((cx + dx * r - w, cy + r * 0.75 - w, cx + dx * r + w, cy + r * 0.75 + w), fill=color)
    elif name in ("user", "person"):
        canvas.ellipse((cx - r * 0.4, cy - r, cx + r * 0.4, cy - r * 0.2), fill=color)
        canvas.ellipse((cx - r * 0.8, cy - r * 0.05, cx + r * 0.8, cy + r * 1.4), fill=color)
    elif name == "home":
        canvas.polygon([(cx - r, cy), (cx, cy - r), (cx + r, cy)], color)
        canvas.rect((cx - r * 0.65, cy, cx + r * 0.65, cy + r), fill=color)
    elif name == "check":
        canvas.line([(cx - r * 0.8, cy), (cx - r * 0.2, cy + r * 0.6), (cx + r * 0.8, cy - r * 0.6)], color, w)
    elif name in ("trash", "delete"):
        canvas.rect((cx - r * 0.6, cy - r * 0.5, cx + r * 0.6, cy + r), outline=color, width=w)
        canvas.line([(cx - r * 0.9, cy - r * 0.65), (cx + r * 0.9, cy - r * 0.65)], color, w)
    elif name == "send":
        canvas.polygon([(cx - r, cy - r * 0.8), (cx + r, cy), (cx - r, cy + r * 0.8), (cx - r * 0.6, cy)], color)
    elif name in ("gear", "settings"):
        canvas.ellipse((cx - r, cy - r, cx + r, cy + r), outline=color, width=w * 1.4)
        canvas.ellipse((cx - r * 0.35, cy - r * 0.35, cx + r * 0.35, cy + r * 0.35), fill=color)
    elif name == "edit":
        canvas.line([(cx - r * 0.8, cy + r * 0.8), (cx + r * 0.7, cy - r * 0.7)], color, w * 1.3)
    elif name == "bag":
        canvas.rect((cx - r * 0.8, cy - r * 0.4, cx + r * 0.8, cy + r), fill=color, radius=r * 0.15)
        canvas.line([(cx - r * 0.4, cy - r * 0.4), (cx - r * 0.4, cy - r * 0.8), (cx + r * 0.4, cy - r * 0.8),
                     (cx + r * 0.4, cy - r * 0.4)], color, w)
    elif name == "note":
        canvas.rect((cx - r * 0.75, cy - r, cx + r * 0.75, cy + r), fill=color, radius=r * 0.15)
    elif name == "share":
        pts = [(cx + r * 0.6, cy - r * 0.7), (cx - r * 0.6, cy), (cx + r * 0.6, cy + r * 0.7)]
        canvas.line(pts, color, w * 0.8)
        for px, py in pts:
            canvas.ellipse((px - w * 1.5, py - w * 1.5, px + w * 1.5, py + w * 1.5), fill=color)
    elif name == "wifi":
        for k in (1.0, 0.66, 0.33):
            canvas.draw.arc(canvas._box((cx - r * k, cy - r * k + r * 0.5, cx + r * k, cy + r * k + r * 0.5)), 225, 315,
                            fill=color, width=max(1, round(w * canvas.scale)))
        canvas.ellipse((cx - w, cy + r * 0.5 - w, cx + w, cy + r * 0.5 + w), fill=color)
    elif name == "bluetooth":
        canvas.line([(cx - r * 0.5, cy - r * 0.45), (cx + r * 0.45, cy + r * 0.45), (cx, cy + r), (cx, cy - r),
                     (cx + r * 0.45, cy - r * 0.45), (cx - r * 0.5, cy + r * 0.45)], color, w * 0.8)
    elif name in ("display", "brightness"):
        canvas.ellipse((cx - r * 0.45, cy - r * 0.45, cx + r * 0.45, cy + r * 0.45), fill=color)
        for i in range(8):
            a = i * math.pi / 4
            canvas.line([(cx + r * 0.65 * math.cos(a), cy + r * 0.65 * math.sin(a)),
                         (cx + r * math.cos(a), cy + r * math.sin(a))], color, w * 0.7)
    elif name in ("apps", "grid"):
        for dx in (-0.5, 0.5):
            for dy in (-0.5, 0.5):
                canvas.rect((cx + dx * r - r * 0.35, cy + dy * r - r * 0.35, cx + dx * r + r * 0.35, cy + dy * r + r * 0.35),
                            fill=color)
    elif name == "dot":
        pass
    elif name in ("calendar", "event", "date"):
        canvas.rect((cx - r * 0.85, cy - r * 0.7, cx + r * 0.85, cy + r * 0.9), outline=color, width=w, radius=r * 0.15)
        canvas.rect((cx - r * 0.85, cy - r * 0.7, cx + r * 0.85, cy - r * 0.3), fill=color, radius=r * 0.15)
        for dx in (-0.45, 0.45):
            canvas.line([(cx + dx * r, cy - r), (cx + dx * r, cy - r * 0.55)], color, w)
        for i in range(3):
            for j in range(2):
                canvas.rect((cx + (-0.6 + i * 0.45) * r, cy + (-0.05 + j * 0.45) * r, cx + (-0.35 + i * 0.45) * r,
                             cy + (0.2 + j * 0.45) * r), fill=color)
    elif name in ("maps", "map", "pin", "location", "navigation"):
        canvas.polygon([(cx - r * 0.62, cy - r * 0.1), (cx, cy + r), (cx + r * 0.62, cy - r * 0.1)], color)
        canvas.ellipse((cx - r * 0.65, cy - r, cx + r * 0.65, cy + r * 0.3), fill=color)
        canvas.ellipse((cx - r * 0.25, cy - r * 0.6, cx + r * 0.25, cy - r * 0.1), fill=_contrast(color))
    elif name in ("video", "play", "movie", "film", "player"):
        canvas.rect((cx - r, cy - r * 0.7, cx + r, cy + r * 0.7), outline=color, width=w, radius=r * 0.25)
        canvas.polygon([(cx - r * 0.3, cy - r * 0.38), (cx + r * 0.45, cy), (cx - r * 0.3, cy + r * 0.38)], color)
    elif name == "pause":
        canvas.rect((cx - r * 0.55, cy - r * 0.7, cx - r * 0.15, cy + r * 0.7), fill=color)
        canvas.rect((cx + r * 0.15, cy - r * 0.7, cx + r * 0.55, cy + r * 0.7), fill=color)
    elif name in ("music", "audio", "song"):
        canvas.line([(cx - r * 0.3, cy + r * 0.6), (cx - r * 0.3, cy - r * 0.8), (cx + r * 0.7, cy - r),
                     (cx + r * 0.7, cy + r * 0.4)], color, w)
        canvas.ellipse((cx - r * 0.85, cy + r * 0.3, cx - r * 0.25, cy + r * 0.85), fill=color)
        canvas.ellipse((cx + r * 0.15, cy + r * 0.1, cx + r * 0.75, cy + r * 0.65), fill=color)
    elif name in ("photo", "photos", "image", "picture", "gallery"):
        canvas.rect((cx - r, cy - r * 0.8, cx + r, cy + r * 0.8), outline=color, width=w, radius=r * 0.15)
        canvas.polygon([(cx - r * 0.8, cy + r * 0.6), (cx - r * 0.2, cy - r * 0.1), (cx + r * 0.2, cy + r * 0.3),
                        (cx + r * 0.45, cy + r * 0.05), (cx + r * 0.8, cy + r * 0.6)], color)
        canvas.ellipse((cx + r * 0.25, cy - r * 0.55, cx + r * 0.6, cy - r * 0.2), fill=color)
    elif name in ("chat", "message", "messages", "bubble", "sms"):
        canvas.ellipse((cx - r, cy - r * 0.8, cx + r, cy + r * 0.6), fill=color)
        canvas.polygon([(cx - r * 0.6, cy + r * 0.3), (cx - r * 0.8, cy + r), (cx - r * 0.1, cy + r * 0.5)], color)
    elif name in ("phone", "call", "dialer"):
        canvas.line([(cx - r * 0.55, cy - r * 0.8), (cx - r * 0.75, cy - r * 0.4), (cx - r * 0.3, cy + r * 0.35),
                     (cx + r * 0.4, cy + r * 0.75), (cx + r * 0.8, cy + r * 0.55)], color, w * 1.8)
    elif name in ("mail", "email", "inbox"):
        canvas.rect((cx - r, cy - r * 0.65, cx + r, cy + r * 0.65), outline=color, width=w, radius=r * 0.1)
        canvas.line([(cx - r, cy - r * 0.6), (cx, cy + r * 0.1), (cx + r, cy - r * 0.6)], color, w)
    elif name == "camera":
        canvas.rect((cx - r, cy - r * 0.5, cx + r, cy + r * 0.75), fill=color, radius=r * 0.2)
        canvas.rect((cx - r * 0.4, cy - r * 0.8, cx + r * 0.4, cy - r * 0.4), fill=color, radius=r * 0.1)
        canvas.ellipse((cx - r * 0.45, cy - r * 0.3, cx + r * 0.45, cy + r * 0.6), fill=_contrast(color))
        canvas.ellipse((cx - r * 0.25, cy - r * 0.1, cx + r * 0.25, cy + r * 0.4), fill=color)
    elif name in ("clock", "alarm", "timer", "time"):
        canvas.ellipse((cx - r, cy - r, cx + r, cy + r), outline=color, width=w)
        canvas.line([(cx, cy - r * 0.6), (cx, cy), (cx + r * 0.45, cy + r * 0.3)], color, w)
    elif name in ("folder", "files", "file_manager"):
        canvas.polygon([(cx - r, cy - r * 0.7), (cx - r * 0.2, cy - r * 0.7), (cx, cy - r * 0.45), (cx + r, cy - r * 0.45),
                        (cx + r, cy + r * 0.75), (cx - r, cy + r * 0.75)], color)
    elif name in ("doc", "docs", "document", "file", "word", "text"):
        canvas.polygon([(cx - r * 0.7, cy - r), (cx + r * 0.3, cy - r), (cx + r * 0.7, cy - r * 0.6), (cx + r * 0.7, cy + r),
                        (cx - r * 0.7, cy + r)], color)
        for dy in (-0.3, 0.1, 0.5):
            canvas.line([(cx - r * 0.4, cy + dy * r), (cx + r * 0.4, cy + dy * r)], _contrast(color), w * 0.7)
    elif name in ("game", "games", "gamepad", "controller"):
        canvas.rect((cx - r, cy - r * 0.5, cx + r, cy + r * 0.5), fill=color, radius=r * 0.45)
        c2 = _contrast(color)
        canvas.line([(cx - r * 0.65, cy), (cx - r * 0.25, cy)], c2, w * 0.8)
        canvas.line([(cx - r * 0.45, cy - r * 0.2), (cx - r * 0.45, cy + r * 0.2)], c2, w * 0.8)
        canvas.ellipse((cx + r * 0.3, cy - r * 0.25, cx + r * 0.5, cy - r * 0.05), fill=c2)
        canvas.ellipse((cx + r * 0.5, cy + r * 0.0, cx + r * 0.7, cy + r * 0.2), fill=c2)
    elif name in ("plane", "flight", "travel", "airplane", "trip"):
        canvas.polygon([(cx - r * 0.12, cy - r), (cx + r * 0.12, cy - r), (cx + r * 0.12, cy - r * 0.2), (cx + r, cy + r * 0.25),
                        (cx + r, cy + r * 0.45), (cx + r * 0.12, cy + r * 0.2), (cx + r * 0.1, cy + r * 0.65),
                        (cx + r * 0.35, cy + r * 0.9), (cx - r * 0.35, cy + r * 0.9), (cx - r * 0.1, cy + r * 0.65),
                        (cx - r * 0.12, cy + r * 0.2), (cx - r, cy + r * 0.45), (cx - r, cy + r * 0.25),
                        (cx - r * 0.12, cy - r * 0.2)], color)
    elif name in ("wallet", "card", "credit_card", "pay", "bank"):
        canvas.rect((cx - r, cy - r * 0.65, cx + r, cy + r * 0.65), fill=color, radius=r * 0.15)
        canvas.rect((cx - r, cy - r * 0.35, cx + r, cy - r * 0.1), fill=_contrast(color))
        canvas.rect((cx + r * 0.3, cy + r * 0.2, cx + r * 0.75, cy + r * 0.4), fill=_contrast(color))
    elif name in ("lock", "security"):
        canvas.rect((cx - r * 0.7, cy - r * 0.1, cx + r * 0.7, cy + r), fill=color, radius=r * 0.12)
        canvas.draw.arc(canvas._box((cx - r * 0.45, cy - r, cx + r * 0.45, cy + r * 0.1)), 180, 360, fill=color,
                        width=max(1, round(w * canvas.scale)))
    elif name in ("bell", "notification", "notifications"):
        canvas.polygon([(cx - r * 0.8, cy + r * 0.5), (cx - r * 0.55, cy + r * 0.2), (cx - r * 0.5, cy - r * 0.4),
                        (cx, cy - r * 0.8), (cx + r * 0.5, cy - r * 0.4), (cx + r * 0.55, cy + r * 0.2),
                        (cx + r * 0.8, cy + r * 0.5)], color)
        canvas.ellipse((cx - r * 0.2, cy + r * 0.55, cx + r * 0.2, cy + r * 0.9), fill=color)
    elif name in ("globe", "browser", "web", "internet"):
        canvas.ellipse((cx - r, cy - r, cx + r, cy + r), outline=color, width=w)
        canvas.ellipse((cx - r * 0.4, cy - r, cx + r * 0.4, cy + r), outline=color, width=w * 0.8)
        canvas.line([(cx - r, cy), (cx + r, cy)], color, w * 0.8)
    elif name in ("download", "install"):
        canvas.line([(cx, cy - r), (cx, cy + r * 0.3)], color, w)
        canvas.line([(cx - r * 0.5, cy - r * 0.2), (cx, cy + r * 0.3), (cx + r * 0.5, cy - r * 0.2)], color, w)
        canvas.line([(cx - r * 0.8, cy + r * 0.8), (cx + r * 0.8, cy + r * 0.8)], color, w)
    elif name in ("mic", "microphone", "record", "recorder", "voice"):
        canvas.rect((cx - r * 0.35, cy - r, cx + r * 0.35, cy + r * 0.3), fill=color, radius=r * 0.35)
        canvas.draw.arc(canvas._box((cx - r * 0.65, cy - r * 0.4, cx + r * 0.65, cy + r * 0.6)), 0, 180, fill=color,
                        width=max(1, round(w * canvas.scale)))
        canvas.line([(cx, cy + r * 0.6), (cx, cy + r)], color, w)
    elif name in ("tv", "remote", "television", "cast"):
        canvas.rect((cx - r, cy - r * 0.7, cx + r, cy + r * 0.5), outline=color, width=w, radius=r * 0.1)
        canvas.line([(cx - r * 0.4, cy + r * 0.85), (cx + r * 0.4, cy + r * 0.85)], color, w)
    elif name in ("book", "books", "reader", "read"):
        canvas.polygon([(cx - r, cy - r * 0.7), (cx - r * 0.05, cy - r * 0.5), (cx - r * 0.05, cy + r * 0.8),
                        (cx - r, cy + r * 0.6)], color)
        canvas.polygon([(cx + r, cy - r * 0.7), (cx + r * 0.05, cy - r * 0.5), (cx + r * 0.05, cy + r * 0.8),
                        (cx + r, cy + r * 0.6)], color)
    elif name in ("cloud", "weather", "storage"):
        canvas.ellipse((cx - r, cy - r * 0.1, cx - r * 0.1, cy + r * 0.7), fill=color)
        canvas.ellipse((cx - r * 0.55, cy - r * 0.6, cx + r * 0.45, cy + r * 0.4), fill=color)
        canvas.ellipse((cx + r * 0.05, cy - r * 0.25, cx + r, cy + r * 0.7), fill=color)
        canvas.rect((cx - r * 0.6, cy + r * 0.2, cx + r * 0.6, cy + r * 0.7), fill=color)
    elif name in ("mirror", "face", "selfie"):
        canvas.ellipse((cx - r * 0.65, cy - r, cx + r * 0.65, cy + r * 0.6), outline=color, width=w)
        canvas.line([(cx, cy + r * 0.6), (cx, cy + r)], color, w)
        canvas.line([(cx - r * 0.25, cy - r * 0.55), (cx - r * 0.45, cy - r * 0.25)], color, w * 0.7)
    elif name in ("compass", "explore", "discover"):
        canvas.ellipse((cx - r, cy - r, cx + r, cy + r), outline=color, width=w)
        canvas.polygon([(cx + r * 0.5, cy - r * 0.5), (cx + r * 0.15, cy + r * 0.15), (cx - r * 0.5, cy + r * 0.5),
                        (cx - r * 0.15, cy - r * 0.15)], color)
    elif name in ("shield", "safe", "protect"):
        canvas.polygon([(cx, cy - r), (cx + r * 0.8, cy - r * 0.6), (cx + r * 0.7, cy + r * 0.3), (cx, cy + r),
                        (cx - r * 0.7, cy + r * 0.3), (cx - r * 0.8, cy - r * 0.6)], color)
    elif name == "home_circle":
        canvas.ellipse((cx - r * 0.6, cy - r * 0.6, cx + r * 0.6, cy + r * 0.6), outline=color, width=w)
    elif name == "recents":
        canvas.rect((cx - r * 0.55, cy - r * 0.55, cx + r * 0.55, cy + r * 0.55), outline=color, width=w, radius=r * 0.1)
    elif name == "spinner":
        for i in range(8):
            a = i * math.pi / 4
            shade = (color[0], color[1], color[2])
            canvas.ellipse((cx + r * math.cos(a) - w, cy + r * math.sin(a) - w, cx + r * math.cos(a) + w,
                            cy + r * math.sin(a) + w), fill=shade if i % 2 == 0 else None, outline=shade, width=2)
    else:
        return False
    return True
