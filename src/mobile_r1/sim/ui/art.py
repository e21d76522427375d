"""Procedural pictures and app icons: every product, photo, avatar, thumbnail and cover drawn from its identity.

A picture is seeded by what it shows (its description and colour), so the same item looks the same in a list and on
its own page, and two items differ: a product is an object silhouette of its category (read from its title, in
English or Chinese) on a studio backdrop; a photo is a scene (beach, mountains, a city, a table, a pet, ...) with the
light of its words (sunset, night, snow, rain); an avatar is a head and shoulders; a video thumbnail is a scene or an
object with a bold frame; a music cover is abstract art. An app's launcher icon is a tile in its colour with its mark
(a drawn glyph, or its letters inside a shape its archetype picks). Everything is drawn with PIL, deterministic, and
cached per (identity, pixel size) so a screen with the same pictures costs a paste each.
"""

from __future__ import annotations

import colorsys
import contextlib
import hashlib
import math
import random
import re
from collections import OrderedDict
from contextvars import ContextVar
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Callable, Iterator

from PIL import Image, ImageDraw, ImageFilter

from mobile_r1.sim.ui.render import Canvas, font, glyph, is_cjk
from mobile_r1.sim.ui.theme import Color, mix

WHITE: Color = (255, 255, 255)
BLACK: Color = (0, 0, 0)


# ----- a cache with a byte budget ------------------------------------------------------------------------------
class _Cache:
    """Least-recently-used images, dropped oldest first once their pixels pass `budget` bytes."""

    def __init__(self, budget: int) -> None:
        self.budget, self.used = budget, 0
        self.items: OrderedDict[Any, tuple[Any, int]] = OrderedDict()

    def get(self, key: Any) -> Any:
        hit = self.items.get(key)
        if hit is None:
            return None
        self.items.move_to_end(key)
        return hit[0]

    def put(self, key: Any, value: Any, size: int) -> Any:
        old = self.items.pop(key, None)
        if old is not None:
            self.used -= old[1]
        self.items[key] = (value, size)
        self.used += size
        while self.used > self.budget and len(self.items) > 1:
            _, (_, dropped) = self.items.popitem(last=False)
            self.used -= dropped
        return value


_CACHE = _Cache(40 << 20)


def _bytes(image: Image.Image) -> int:
    return image.width * image.height * len(image.getbands())


# ----- colours ---------------------------------------------------------------------------------------------------
def _hsv(h: float, s: float, v: float) -> Color:
    r, g, b = colorsys.hsv_to_rgb(h % 1.0, max(0.0, min(1.0, s)), max(0.0, min(1.0, v)))
    return (round(r * 255), round(g * 255), round(b * 255))


def _hue(c: Color) -> float:
    return colorsys.rgb_to_hsv(*(v / 255 for v in c))[0]


def _dark(c: Color, t: float = 0.3) -> Color:
    return mix(c, BLACK, t)


def _light(c: Color, t: float = 0.4) -> Color:
    return mix(c, WHITE, t)


def _seed(*parts: object) -> random.Random:
    return random.Random(hashlib.blake2b("\x1f".join(map(str, parts)).encode(), digest_size=8).hexdigest())


# ----- drawing in unit coordinates -------------------------------------------------------------------------------
class _Frame:
    """Draws on `draw` in coordinates of a unit square (or rectangle) mapped onto a pixel box; `flip` mirrors it."""

    __slots__ = ("d", "x0", "y0", "sx", "sy", "flip")

    def __init__(self, draw: ImageDraw.ImageDraw, x0: float, y0: float, sx: float, sy: float,
                 flip: bool = False) -> None:
        self.d, self.x0, self.y0, self.sx, self.sy, self.flip = draw, x0, y0, sx, sy, flip

    def p(self, u: float, v: float) -> tuple[float, float]:
        return (self.x0 + (1 - u if self.flip else u) * self.sx, self.y0 + v * self.sy)

    def box(self, u1: float, v1: float, u2: float, v2: float) -> tuple[float, float, float, float]:
        (a, b), (c, d) = self.p(u1, v1), self.p(u2, v2)
        return (min(a, c), min(b, d), max(a, c), max(b, d))

    def poly(self, pts: list[tuple[float, float]], fill: Color) -> None:
        self.d.polygon([self.p(u, v) for u, v in pts], fill=fill)

    def ell(self, u1: float, v1: float, u2: float, v2: float, fill: Color | None = None,
            outline: Color | None = None, width: float = 0.0) -> None:
        self.d.ellipse(self.box(u1, v1, u2, v2), fill=fill, outline=outline,
                       width=max(1, round(width * self.sx)) if outline is not None else 0)

    def circle(self, u: float, v: float, r: float, fill: Color | None = None, outline: Color | None = None,
               width: float = 0.0) -> None:
        self.ell(u - r, v - r * self.sx / self.sy, u + r, v + r * self.sx / self.sy, fill, outline, width)

    def rect(self, u1: float, v1: float, u2: float, v2: float, fill: Color | None = None, r: float = 0.0,
             outline: Color | None = None, width: float = 0.0) -> None:
        b = self.box(u1, v1, u2, v2)
        w = max(1, round(width * self.sx)) if outline is not None else 0
        rad = r * min(self.sx, self.sy)
        if rad >= 1 and b[2] - b[0] > 2 * rad and b[3] - b[1] > 2 * rad:
            self.d.rounded_rectangle(b, radius=rad, fill=fill, outline=outline, width=w)
        else:
            self.d.rectangle(b, fill=fill, outline=outline, width=w)

    def line(self, pts: list[tuple[float, float]], fill: Color, width: float) -> None:
        self.d.line([self.p(u, v) for u, v in pts], fill=fill, width=max(1, round(width * self.sx)), joint="curve")

    def arc(self, u1: float, v1: float, u2: float, v2: float, start: float, end: float, fill: Color,
            width: float) -> None:
        if self.flip:
            start, end = 180 - end, 180 - start
        self.d.arc(self.box(u1, v1, u2, v2), start, end, fill=fill, width=max(1, round(width * self.sx)))

    def chord(self, u1: float, v1: float, u2: float, v2: float, start: float, end: float, fill: Color) -> None:
        if self.flip:
            start, end = 180 - end, 180 - start
        self.d.chord(self.box(u1, v1, u2, v2), start, end, fill=fill)


def _gradient(image: Image.Image, box: tuple[int, int, int, int], top: Color, bottom: Color,
              horizontal: bool = False) -> None:
    """Fill `box` of `image` with a linear gradient from `top` to `bottom` (left to right when `horizontal`): a strip
    of 16 colours stretched along the gradient, then repeated across it."""
    x1, y1, x2, y2 = box
    w, h = max(1, x2 - x1), max(1, y2 - y1)
    strip = Image.new("RGB", (16, 1) if horizontal else (1, 16))
    strip.putdata([mix(top, bottom, i / 15) for i in range(16)])
    if horizontal:
        strip = strip.resize((w, 1), Image.Resampling.BILINEAR)
    else:
        strip = strip.resize((1, h), Image.Resampling.BILINEAR)
    image.paste(strip.resize((w, h), Image.Resampling.NEAREST), (x1, y1))


# ----- object silhouettes (unit square, two or three tones) ---------------------------------------------------------
Motif = Callable[[_Frame, Color, random.Random], None]


def _m_shoe(f: _Frame, c: Color, rng: random.Random) -> None:
    f.poly([(0.08, 0.72), (0.1, 0.46), (0.22, 0.4), (0.36, 0.44), (0.5, 0.56), (0.78, 0.6), (0.92, 0.66), (0.92, 0.74),
            (0.08, 0.76)], c)
    f.rect(0.06, 0.72, 0.94, 0.8, fill=_light(c, 0.75), r=0.03)
    for i in range(3):
        f.line([(0.3 + i * 0.07, 0.48 + i * 0.02), (0.36 + i * 0.07, 0.54 + i * 0.02)], _light(c, 0.6), 0.025)
    f.poly([(0.1, 0.46), (0.22, 0.4), (0.24, 0.52), (0.1, 0.6)], _dark(c, 0.2))


def _m_shirt(f: _Frame, c: Color, rng: random.Random) -> None:
    f.poly([(0.3, 0.16), (0.42, 0.16), (0.5, 0.24), (0.58, 0.16), (0.7, 0.16), (0.92, 0.36), (0.8, 0.48), (0.72, 0.42),
            (0.72, 0.86), (0.28, 0.86), (0.28, 0.42), (0.2, 0.48), (0.08, 0.36)], c)
    f.poly([(0.42, 0.16), (0.5, 0.24), (0.58, 0.16), (0.55, 0.14), (0.45, 0.14)], _dark(c, 0.3))
    if rng.random() < 0.5:
        for i in range(3):
            f.rect(0.28, 0.5 + i * 0.11, 0.72, 0.55 + i * 0.11, fill=_light(c, 0.35))


def _m_jacket(f: _Frame, c: Color, rng: random.Random) -> None:
    f.poly([(0.3, 0.14), (0.7, 0.14), (0.86, 0.24), (0.94, 0.84), (0.8, 0.84), (0.76, 0.44), (0.76, 0.88), (0.24, 0.88),
            (0.24, 0.44), (0.2, 0.84), (0.06, 0.84), (0.14, 0.24)], c)
    f.poly([(0.4, 0.14), (0.5, 0.3), (0.6, 0.14)], _dark(c, 0.35))
    f.line([(0.5, 0.3), (0.5, 0.88)], _dark(c, 0.4), 0.02)
    for v in (0.4, 0.55, 0.7):
        f.circle(0.45, v, 0.015, fill=_light(c, 0.6))


def _m_dress(f: _Frame, c: Color, rng: random.Random) -> None:
    f.poly([(0.38, 0.12), (0.42, 0.12), (0.44, 0.22), (0.56, 0.22), (0.58, 0.12), (0.62, 0.12), (0.64, 0.4),
            (0.84, 0.9), (0.16, 0.9), (0.36, 0.4)], c)
    f.rect(0.36, 0.38, 0.64, 0.43, fill=_dark(c, 0.3))
    for i in range(4):
        f.line([(0.42 + i * 0.05, 0.46), (0.3 + i * 0.13, 0.88)], _dark(c, 0.12), 0.012)


def _m_pants(f: _Frame, c: Color, rng: random.Random) -> None:
    f.poly([(0.28, 0.12), (0.72, 0.12), (0.78, 0.9), (0.56, 0.9), (0.5, 0.4), (0.44, 0.9), (0.22, 0.9)], c)
    f.rect(0.28, 0.12, 0.72, 0.18, fill=_dark(c, 0.3))
    f.line([(0.36, 0.2), (0.38, 0.32)], _light(c, 0.4), 0.015)
    f.line([(0.64, 0.2), (0.62, 0.32)], _light(c, 0.4), 0.015)


def _m_cap(f: _Frame, c: Color, rng: random.Random) -> None:
    f.chord(0.18, 0.24, 0.82, 0.9, 180, 360, c)
    f.poly([(0.5, 0.57), (0.94, 0.56), (0.96, 0.64), (0.5, 0.64)], _dark(c, 0.25))
    f.circle(0.5, 0.25, 0.03, fill=_dark(c, 0.3))
    f.line([(0.5, 0.26), (0.5, 0.56)], _dark(c, 0.15), 0.012)


def _m_scarf(f: _Frame, c: Color, rng: random.Random) -> None:
    f.poly([(0.2, 0.2), (0.8, 0.2), (0.8, 0.36), (0.62, 0.36), (0.66, 0.86), (0.48, 0.86), (0.46, 0.36), (0.2, 0.36)], c)
    for i in range(4):
        f.rect(0.2, 0.22 + i * 0.04, 0.8, 0.235 + i * 0.04, fill=_dark(c, 0.2))
    for i in range(5):
        f.line([(0.49 + i * 0.04, 0.86), (0.49 + i * 0.04, 0.93)], c, 0.012)


def _m_sock(f: _Frame, c: Color, rng: random.Random) -> None:
    f.poly([(0.36, 0.12), (0.6, 0.12), (0.6, 0.6), (0.86, 0.72), (0.82, 0.88), (0.46, 0.86), (0.36, 0.72)], c)
    f.rect(0.36, 0.12, 0.6, 0.22, fill=_dark(c, 0.3))
    f.poly([(0.7, 0.66), (0.86, 0.72), (0.82, 0.88), (0.72, 0.87)], _light(c, 0.4))


def _m_bag(f: _Frame, c: Color, rng: random.Random) -> None:
    if rng.random() < 0.5:  # backpack
        f.rect(0.26, 0.18, 0.74, 0.88, fill=c, r=0.14)
        f.rect(0.34, 0.56, 0.66, 0.84, fill=_dark(c, 0.2), r=0.06)
        f.arc(0.38, 0.06, 0.62, 0.3, 180, 360, _dark(c, 0.3), 0.04)
        f.line([(0.34, 0.62), (0.66, 0.62)], _light(c, 0.5), 0.015)
    else:  # handbag
        f.arc(0.32, 0.14, 0.68, 0.56, 180, 360, _dark(c, 0.3), 0.045)
        f.poly([(0.2, 0.38), (0.8, 0.38), (0.88, 0.86), (0.12, 0.86)], c)
        f.rect(0.44, 0.46, 0.56, 0.54, fill=_light(c, 0.6), r=0.02)


def _m_watch(f: _Frame, c: Color, rng: random.Random) -> None:
    f.rect(0.38, 0.06, 0.62, 0.94, fill=_dark(c, 0.25), r=0.06)
    f.circle(0.5, 0.5, 0.26, fill=_dark(c, 0.55))
    f.circle(0.5, 0.5, 0.21, fill=_light(c, 0.7))
    f.line([(0.5, 0.5), (0.5, 0.36)], _dark(c, 0.6), 0.025)
    f.line([(0.5, 0.5), (0.6, 0.55)], _dark(c, 0.6), 0.02)


def _m_phone(f: _Frame, c: Color, rng: random.Random) -> None:
    f.rect(0.3, 0.06, 0.7, 0.94, fill=(34, 36, 42), r=0.07)
    top, bottom = _light(c, 0.2), _dark(c, 0.2)
    f.rect(0.33, 0.1, 0.67, 0.9, fill=top, r=0.05)
    f.poly([(0.33, 0.6), (0.67, 0.38), (0.67, 0.9), (0.33, 0.9)], bottom)
    f.circle(0.5, 0.13, 0.012, fill=(20, 20, 24))


def _m_laptop(f: _Frame, c: Color, rng: random.Random) -> None:
    f.rect(0.16, 0.2, 0.84, 0.66, fill=(40, 42, 48), r=0.03)
    f.rect(0.19, 0.23, 0.81, 0.63, fill=_light(c, 0.3))
    f.poly([(0.19, 0.63), (0.81, 0.32), (0.81, 0.63)], c)
    f.poly([(0.1, 0.68), (0.9, 0.68), (0.96, 0.76), (0.04, 0.76)], (180, 184, 192))
    f.rect(0.42, 0.69, 0.58, 0.71, fill=(140, 144, 150))


def _m_keyboard(f: _Frame, c: Color, rng: random.Random) -> None:
    f.rect(0.06, 0.34, 0.94, 0.7, fill=_dark(c, 0.45), r=0.04)
    for row in range(3):
        for col in range(9):
            f.rect(0.1 + col * 0.093, 0.38 + row * 0.1, 0.17 + col * 0.093, 0.45 + row * 0.1, fill=_light(c, 0.5),
                   r=0.01)


def _m_mouse(f: _Frame, c: Color, rng: random.Random) -> None:
    f.ell(0.3, 0.16, 0.7, 0.86, fill=c)
    f.line([(0.5, 0.16), (0.5, 0.42)], _dark(c, 0.4), 0.02)
    f.rect(0.47, 0.24, 0.53, 0.34, fill=_light(c, 0.6), r=0.02)
    f.line([(0.5, 0.16), (0.52, 0.08), (0.62, 0.04)], _dark(c, 0.3), 0.015)


def _m_headphones(f: _Frame, c: Color, rng: random.Random) -> None:
    f.arc(0.18, 0.12, 0.82, 0.76, 180, 360, _dark(c, 0.3), 0.06)
    f.rect(0.12, 0.42, 0.3, 0.76, fill=c, r=0.06)
    f.rect(0.7, 0.42, 0.88, 0.76, fill=c, r=0.06)
    f.rect(0.24, 0.46, 0.3, 0.72, fill=_dark(c, 0.4))
    f.rect(0.7, 0.46, 0.76, 0.72, fill=_dark(c, 0.4))


def _m_speaker(f: _Frame, c: Color, rng: random.Random) -> None:
    f.rect(0.28, 0.1, 0.72, 0.9, fill=_dark(c, 0.35), r=0.08)
    f.circle(0.5, 0.32, 0.12, fill=_dark(c, 0.7))
    f.circle(0.5, 0.32, 0.05, fill=_light(c, 0.3))
    f.circle(0.5, 0.66, 0.17, fill=_dark(c, 0.7))
    f.circle(0.5, 0.66, 0.07, fill=_light(c, 0.3))


def _m_camera(f: _Frame, c: Color, rng: random.Random) -> None:
    f.rect(0.1, 0.32, 0.9, 0.8, fill=(44, 46, 52), r=0.06)
    f.rect(0.3, 0.24, 0.5, 0.34, fill=(44, 46, 52), r=0.02)
    f.rect(0.1, 0.46, 0.9, 0.66, fill=c)
    f.circle(0.52, 0.56, 0.18, fill=(30, 30, 34))
    f.circle(0.52, 0.56, 0.12, fill=_dark(c, 0.2))
    f.circle(0.48, 0.52, 0.035, fill=_light(c, 0.8))
    f.circle(0.8, 0.38, 0.03, fill=(230, 80, 60))


def _m_charger(f: _Frame, c: Color, rng: random.Random) -> None:
    f.rect(0.3, 0.12, 0.7, 0.56, fill=_light(c, 0.15), r=0.06)
    f.poly([(0.52, 0.18), (0.4, 0.36), (0.5, 0.36), (0.46, 0.5), (0.6, 0.3), (0.5, 0.3)], _light(c, 0.85))
    f.line([(0.5, 0.56), (0.5, 0.66), (0.3, 0.78), (0.62, 0.86), (0.78, 0.8)], _dark(c, 0.3), 0.03)
    f.rect(0.74, 0.74, 0.84, 0.84, fill=(150, 154, 160), r=0.01)


def _m_mug(f: _Frame, c: Color, rng: random.Random) -> None:
    f.arc(0.54, 0.38, 0.82, 0.68, 270, 90, _dark(c, 0.15), 0.05)
    f.rect(0.2, 0.32, 0.66, 0.84, fill=c, r=0.06)
    f.ell(0.2, 0.28, 0.66, 0.38, fill=_dark(c, 0.35))
    for i in range(3):
        x = 0.32 + i * 0.11
        f.line([(x, 0.24), (x + 0.03, 0.18), (x, 0.12)], (200, 200, 206), 0.015)
    f.rect(0.28, 0.5, 0.58, 0.6, fill=_light(c, 0.5), r=0.02)


def _m_bottle(f: _Frame, c: Color, rng: random.Random) -> None:
    f.rect(0.42, 0.06, 0.58, 0.16, fill=_dark(c, 0.4), r=0.02)
    f.poly([(0.44, 0.16), (0.56, 0.16), (0.56, 0.24), (0.68, 0.34), (0.68, 0.9), (0.32, 0.9), (0.32, 0.34),
            (0.44, 0.24)], c)
    f.rect(0.32, 0.46, 0.68, 0.7, fill=_light(c, 0.7))
    f.rect(0.38, 0.52, 0.62, 0.56, fill=_dark(c, 0.2))
    f.rect(0.36, 0.36, 0.41, 0.84, fill=_light(c, 0.35), r=0.02)


def _m_jar(f: _Frame, c: Color, rng: random.Random) -> None:
    f.rect(0.28, 0.16, 0.72, 0.3, fill=_dark(c, 0.35), r=0.03)
    f.rect(0.24, 0.28, 0.76, 0.88, fill=c, r=0.1)
    f.rect(0.3, 0.46, 0.7, 0.7, fill=_light(c, 0.75), r=0.03)
    f.circle(0.5, 0.58, 0.06, fill=_dark(c, 0.1))


def _m_tube(f: _Frame, c: Color, rng: random.Random) -> None:
    f.rect(0.38, 0.5, 0.62, 0.9, fill=_dark(c, 0.5), r=0.03)
    f.rect(0.36, 0.48, 0.64, 0.54, fill=(212, 180, 90))
    f.poly([(0.41, 0.48), (0.59, 0.48), (0.59, 0.22), (0.41, 0.3)], c)


def _m_box(f: _Frame, c: Color, rng: random.Random) -> None:
    f.poly([(0.5, 0.2), (0.9, 0.34), (0.5, 0.48), (0.1, 0.34)], _light(c, 0.3))
    f.poly([(0.1, 0.34), (0.5, 0.48), (0.5, 0.9), (0.1, 0.76)], c)
    f.poly([(0.5, 0.48), (0.9, 0.34), (0.9, 0.76), (0.5, 0.9)], _dark(c, 0.25))
    if rng.random() < 0.5:  # a gift ribbon
        ribbon = _hsv(_hue(c) + 0.5, 0.7, 0.85)
        f.poly([(0.28, 0.27), (0.34, 0.25), (0.74, 0.39), (0.68, 0.41)], ribbon)
        f.poly([(0.28, 0.55), (0.34, 0.57), (0.34, 0.87), (0.28, 0.85)], ribbon)


def _m_lamp(f: _Frame, c: Color, rng: random.Random) -> None:
    f.ell(0.3, 0.82, 0.7, 0.9, fill=_dark(c, 0.4))
    f.line([(0.5, 0.86), (0.42, 0.56), (0.6, 0.34)], _dark(c, 0.4), 0.035)
    f.poly([(0.48, 0.2), (0.74, 0.16), (0.86, 0.44), (0.5, 0.5)], c)
    f.poly([(0.52, 0.5), (0.86, 0.44), (0.92, 0.6), (0.6, 0.66)], (255, 240, 180))


def _m_candle(f: _Frame, c: Color, rng: random.Random) -> None:
    f.rect(0.34, 0.4, 0.66, 0.88, fill=c, r=0.04)
    f.ell(0.34, 0.36, 0.66, 0.44, fill=_light(c, 0.3))
    f.line([(0.5, 0.4), (0.5, 0.32)], (60, 60, 60), 0.012)
    f.poly([(0.5, 0.14), (0.56, 0.26), (0.5, 0.32), (0.44, 0.26)], (255, 190, 60))
    f.rect(0.34, 0.6, 0.66, 0.7, fill=_light(c, 0.6))


def _m_pillow(f: _Frame, c: Color, rng: random.Random) -> None:
    f.poly([(0.12, 0.22), (0.5, 0.28), (0.88, 0.22), (0.82, 0.5), (0.88, 0.8), (0.5, 0.74), (0.12, 0.8), (0.18, 0.5)], c)
    for i in range(3):
        f.line([(0.26, 0.36 + i * 0.14), (0.74, 0.36 + i * 0.14)], _light(c, 0.4), 0.02)


def _m_book(f: _Frame, c: Color, rng: random.Random) -> None:
    f.rect(0.24, 0.12, 0.78, 0.88, fill=c, r=0.02)
    f.rect(0.24, 0.12, 0.32, 0.88, fill=_dark(c, 0.3))
    f.rect(0.74, 0.16, 0.8, 0.86, fill=(245, 240, 228))
    f.rect(0.4, 0.26, 0.68, 0.34, fill=_light(c, 0.7))
    f.rect(0.4, 0.4, 0.6, 0.44, fill=_light(c, 0.5))


def _m_toothbrush(f: _Frame, c: Color, rng: random.Random) -> None:
    f.rect(0.42, 0.3, 0.58, 0.92, fill=c, r=0.08)
    f.rect(0.46, 0.08, 0.54, 0.32, fill=_light(c, 0.6), r=0.03)
    f.rect(0.44, 0.08, 0.48, 0.2, fill=(235, 245, 250))
    f.circle(0.5, 0.5, 0.03, fill=_light(c, 0.7))


def _m_bar(f: _Frame, c: Color, rng: random.Random) -> None:
    f.rect(0.18, 0.24, 0.82, 0.8, fill=(92, 56, 36), r=0.03)
    for i in range(3):
        for j in range(4):
            f.rect(0.21 + j * 0.152, 0.27 + i * 0.17, 0.35 + j * 0.152, 0.42 + i * 0.17, fill=(120, 76, 48), r=0.01)
    f.poly([(0.18, 0.56), (0.82, 0.46), (0.82, 0.8), (0.18, 0.8)], c)


def _m_fruit(f: _Frame, c: Color, rng: random.Random) -> None:
    for i, (u, v, r) in enumerate(((0.36, 0.6, 0.2), (0.64, 0.6, 0.2), (0.5, 0.4, 0.19))):
        col = _hsv(_hue(c) + i * 0.08, 0.75, 0.9)
        f.circle(u, v, r, fill=col)
        f.circle(u - r * 0.35, v - r * 0.35, r * 0.25, fill=_light(col, 0.4))
    f.poly([(0.5, 0.22), (0.6, 0.12), (0.64, 0.18)], (70, 150, 70))


def _m_bowl(f: _Frame, c: Color, rng: random.Random) -> None:
    top = _hsv(_hue(c) + rng.uniform(-0.08, 0.08), 0.6, 0.9)
    f.ell(0.12, 0.36, 0.88, 0.56, fill=top)
    for i in range(6):
        u = 0.22 + i * 0.1
        f.arc(u, 0.4, u + 0.12, 0.5, 200, 340, _dark(top, 0.25), 0.015)
    f.circle(0.36, 0.44, 0.045, fill=(90, 170, 80))
    f.circle(0.62, 0.42, 0.04, fill=(230, 90, 60))
    f.chord(0.12, 0.16, 0.88, 0.9, 0, 180, c)
    f.rect(0.38, 0.86, 0.62, 0.9, fill=_dark(c, 0.2))
    f.line([(0.64, 0.12), (0.9, 0.44)], (150, 110, 70), 0.02)
    f.line([(0.7, 0.1), (0.94, 0.42)], (150, 110, 70), 0.02)


def _m_plate(f: _Frame, c: Color, rng: random.Random) -> None:
    f.ell(0.08, 0.28, 0.92, 0.84, fill=(246, 246, 242))
    f.ell(0.18, 0.36, 0.82, 0.76, fill=(232, 232, 226))
    for _ in range(5):
        u, v = rng.uniform(0.3, 0.7), rng.uniform(0.46, 0.64)
        col = _hsv(_hue(c) + rng.uniform(-0.1, 0.1), rng.uniform(0.5, 0.8), rng.uniform(0.6, 0.9))
        f.ell(u - 0.1, v - 0.06, u + 0.1, v + 0.06, fill=col)
    f.circle(0.62, 0.5, 0.04, fill=(80, 160, 70))


def _m_pizza(f: _Frame, c: Color, rng: random.Random) -> None:
    f.circle(0.5, 0.52, 0.4, fill=(214, 160, 90))
    f.circle(0.5, 0.52, 0.34, fill=(240, 200, 110))
    for _ in range(7):
        a, r = rng.uniform(0, 6.28), rng.uniform(0.05, 0.26)
        f.circle(0.5 + r * math.cos(a), 0.52 + r * math.sin(a), 0.05, fill=(196, 60, 44))
    for k in range(3):
        a = k * math.pi / 3
        f.line([(0.5 - 0.4 * math.cos(a), 0.52 - 0.4 * math.sin(a)), (0.5 + 0.4 * math.cos(a), 0.52 + 0.4 * math.sin(a))],
               (200, 150, 80), 0.012)


def _m_burger(f: _Frame, c: Color, rng: random.Random) -> None:
    f.chord(0.14, 0.2, 0.86, 0.64, 180, 360, (222, 150, 70))
    for u in (0.34, 0.5, 0.64):
        f.ell(u, 0.3, u + 0.04, 0.32, fill=(250, 236, 200))
    f.poly([(0.12, 0.44), (0.88, 0.44), (0.84, 0.5), (0.16, 0.5)], (110, 180, 70))
    f.rect(0.14, 0.5, 0.86, 0.6, fill=(110, 62, 40), r=0.04)
    f.poly([(0.16, 0.6), (0.84, 0.6), (0.8, 0.64), (0.2, 0.64)], (250, 200, 60))
    f.rect(0.16, 0.64, 0.84, 0.76, fill=(222, 150, 70), r=0.05)


def _m_cake(f: _Frame, c: Color, rng: random.Random) -> None:
    f.ell(0.1, 0.76, 0.9, 0.88, fill=(236, 236, 236))
    f.rect(0.18, 0.46, 0.82, 0.82, fill=_light(c, 0.3), r=0.03)
    f.rect(0.18, 0.6, 0.82, 0.66, fill=_dark(c, 0.2))
    f.ell(0.18, 0.4, 0.82, 0.52, fill=_light(c, 0.75))
    for u in (0.34, 0.5, 0.66):
        f.rect(u - 0.015, 0.26, u + 0.015, 0.44, fill=_hsv(_hue(c) + 0.4, 0.5, 0.95))
        f.poly([(u, 0.17), (u + 0.025, 0.23), (u, 0.27), (u - 0.025, 0.23)], (255, 190, 50))


def _m_drink(f: _Frame, c: Color, rng: random.Random) -> None:
    f.poly([(0.26, 0.22), (0.74, 0.22), (0.66, 0.9), (0.34, 0.9)], (225, 235, 240))
    f.poly([(0.28, 0.36), (0.72, 0.36), (0.66, 0.88), (0.34, 0.88)], c)
    f.line([(0.56, 0.06), (0.5, 0.6)], _hsv(_hue(c) + 0.5, 0.6, 0.9), 0.03)
    f.circle(0.42, 0.5, 0.04, fill=_light(c, 0.5))


def _m_bread(f: _Frame, c: Color, rng: random.Random) -> None:
    f.rect(0.12, 0.36, 0.88, 0.78, fill=(206, 140, 70), r=0.16)
    f.rect(0.16, 0.44, 0.84, 0.76, fill=(232, 180, 110), r=0.12)
    for i in range(3):
        f.line([(0.3 + i * 0.16, 0.4), (0.38 + i * 0.16, 0.52)], (170, 110, 50), 0.02)


def _m_taco(f: _Frame, c: Color, rng: random.Random) -> None:
    f.chord(0.12, 0.2, 0.88, 0.96, 180, 360, (110, 180, 70))
    f.circle(0.36, 0.4, 0.05, fill=(210, 60, 50))
    f.circle(0.6, 0.36, 0.05, fill=(210, 60, 50))
    f.chord(0.1, 0.3, 0.9, 1.06, 180, 360, (236, 190, 90))
    f.chord(0.2, 0.42, 0.8, 1.0, 180, 360, (222, 168, 70))


def _m_ball(f: _Frame, c: Color, rng: random.Random) -> None:
    f.circle(0.5, 0.5, 0.36, fill=c)
    f.arc(0.06, 0.14, 0.46, 0.86, 300, 60, _light(c, 0.7), 0.025)
    f.arc(0.54, 0.14, 0.94, 0.86, 120, 240, _light(c, 0.7), 0.025)
    f.line([(0.14, 0.5), (0.86, 0.5)], _light(c, 0.7), 0.02)


def _m_gamepad(f: _Frame, c: Color, rng: random.Random) -> None:
    f.rect(0.1, 0.34, 0.9, 0.7, fill=c, r=0.16)
    f.circle(0.22, 0.66, 0.12, fill=c)
    f.circle(0.78, 0.66, 0.12, fill=c)
    f.rect(0.22, 0.47, 0.36, 0.53, fill=_dark(c, 0.5))
    f.rect(0.26, 0.43, 0.32, 0.57, fill=_dark(c, 0.5))
    for (u, v), col in zip(((0.7, 0.44), (0.78, 0.52), (0.62, 0.52), (0.7, 0.6)),
                           ((230, 70, 70), (70, 160, 230), (90, 190, 90), (240, 200, 60))):
        f.circle(u, v, 0.035, fill=col)


def _m_note(f: _Frame, c: Color, rng: random.Random) -> None:
    f.poly([(0.36, 0.22), (0.78, 0.12), (0.78, 0.2), (0.36, 0.3)], c)
    f.rect(0.34, 0.22, 0.38, 0.72, fill=c)
    f.rect(0.74, 0.12, 0.78, 0.62, fill=c)
    f.ell(0.18, 0.64, 0.38, 0.8, fill=c)
    f.ell(0.58, 0.54, 0.78, 0.7, fill=c)


def _m_guitar(f: _Frame, c: Color, rng: random.Random) -> None:
    f.line([(0.5, 0.5), (0.8, 0.1)], (90, 60, 40), 0.05)
    f.circle(0.38, 0.7, 0.2, fill=c)
    f.circle(0.5, 0.52, 0.15, fill=c)
    f.circle(0.42, 0.64, 0.06, fill=_dark(c, 0.6))
    f.rect(0.76, 0.06, 0.86, 0.14, fill=(60, 40, 30))


def _m_plane(f: _Frame, c: Color, rng: random.Random) -> None:
    f.poly([(0.08, 0.5), (0.2, 0.44), (0.84, 0.44), (0.94, 0.5), (0.84, 0.56), (0.2, 0.56)], c)
    f.poly([(0.42, 0.46), (0.58, 0.46), (0.42, 0.12), (0.34, 0.12)], _dark(c, 0.2))
    f.poly([(0.42, 0.54), (0.58, 0.54), (0.42, 0.88), (0.34, 0.88)], _dark(c, 0.2))
    f.poly([(0.12, 0.48), (0.2, 0.46), (0.14, 0.3), (0.08, 0.3)], _dark(c, 0.2))


def _m_car(f: _Frame, c: Color, rng: random.Random) -> None:
    f.poly([(0.28, 0.4), (0.66, 0.4), (0.78, 0.52), (0.92, 0.56), (0.92, 0.7), (0.08, 0.7), (0.08, 0.54), (0.2, 0.52)], c)
    f.poly([(0.32, 0.44), (0.48, 0.44), (0.48, 0.52), (0.26, 0.52)], (200, 225, 240))
    f.poly([(0.52, 0.44), (0.64, 0.44), (0.72, 0.52), (0.52, 0.52)], (200, 225, 240))
    for u in (0.26, 0.74):
        f.circle(u, 0.7, 0.09, fill=(30, 30, 34))
        f.circle(u, 0.7, 0.04, fill=(180, 180, 186))


def _m_house(f: _Frame, c: Color, rng: random.Random) -> None:
    f.rect(0.2, 0.46, 0.8, 0.88, fill=_light(c, 0.6))
    f.poly([(0.12, 0.48), (0.5, 0.14), (0.88, 0.48)], c)
    f.rect(0.44, 0.64, 0.58, 0.88, fill=_dark(c, 0.3))
    f.rect(0.26, 0.56, 0.38, 0.68, fill=(170, 210, 240))
    f.rect(0.64, 0.56, 0.76, 0.68, fill=(170, 210, 240))


def _m_flower(f: _Frame, c: Color, rng: random.Random) -> None:
    f.line([(0.5, 0.5), (0.5, 0.94)], (70, 140, 70), 0.03)
    f.ell(0.5, 0.66, 0.72, 0.76, fill=(90, 170, 80))
    for k in range(6):
        a = k * math.pi / 3
        f.circle(0.5 + 0.17 * math.cos(a), 0.4 + 0.17 * math.sin(a), 0.12, fill=c)
    f.circle(0.5, 0.4, 0.09, fill=(250, 206, 70))


def _m_tree(f: _Frame, c: Color, rng: random.Random) -> None:
    f.rect(0.45, 0.56, 0.55, 0.92, fill=(120, 86, 60))
    green = _hsv(0.3 + rng.uniform(-0.05, 0.05), 0.55, 0.6)
    for u, v, r in ((0.5, 0.32, 0.2), (0.34, 0.46, 0.17), (0.66, 0.46, 0.17), (0.5, 0.5, 0.18)):
        f.circle(u, v, r, fill=green)


def _m_dog(f: _Frame, c: Color, rng: random.Random) -> None:
    fur = rng.choice(((196, 140, 80), (120, 84, 56), (226, 206, 170), (60, 52, 48), (236, 236, 230)))
    f.ell(0.22, 0.46, 0.74, 0.72, fill=fur)
    for u in (0.26, 0.36, 0.6, 0.68):
        f.rect(u, 0.64, u + 0.07, 0.88, fill=fur, r=0.02)
    f.line([(0.24, 0.54), (0.1, 0.38)], fur, 0.05)
    f.circle(0.74, 0.4, 0.15, fill=fur)
    f.ell(0.8, 0.4, 0.96, 0.52, fill=fur)
    f.poly([(0.62, 0.3), (0.7, 0.26), (0.66, 0.54), (0.58, 0.46)], _dark(fur, 0.35))
    f.circle(0.95, 0.44, 0.025, fill=(20, 20, 20))
    f.circle(0.78, 0.36, 0.022, fill=(20, 20, 20))


def _m_cat(f: _Frame, c: Color, rng: random.Random) -> None:
    fur = rng.choice(((240, 160, 80), (90, 90, 96), (236, 232, 224), (40, 40, 44), (200, 170, 130)))
    f.ell(0.28, 0.44, 0.7, 0.86, fill=fur)
    f.arc(0.5, 0.5, 0.96, 0.96, 270, 20, fur, 0.05)
    f.circle(0.46, 0.38, 0.16, fill=fur)
    f.poly([(0.32, 0.32), (0.33, 0.14), (0.44, 0.25)], fur)
    f.poly([(0.6, 0.32), (0.59, 0.14), (0.48, 0.25)], fur)
    f.circle(0.41, 0.36, 0.022, fill=(60, 160, 90))
    f.circle(0.52, 0.36, 0.022, fill=(60, 160, 90))
    f.poly([(0.45, 0.42), (0.48, 0.42), (0.465, 0.44)], (230, 120, 130))


def _m_person(f: _Frame, c: Color, rng: random.Random) -> None:
    skin = rng.choice(((241, 204, 170), (224, 172, 130), (198, 140, 100), (150, 100, 70), (250, 220, 196)))
    hair = rng.choice(((40, 32, 28), (90, 60, 40), (200, 160, 90), (20, 20, 24), (140, 80, 50)))
    f.chord(0.14, 0.6, 0.86, 1.3, 180, 360, c)
    f.rect(0.43, 0.52, 0.57, 0.66, fill=_dark(skin, 0.1))
    f.ell(0.32, 0.2, 0.68, 0.6, fill=skin)
    style = rng.randrange(3)
    if style == 0:
        f.chord(0.3, 0.14, 0.7, 0.5, 180, 360, hair)
    elif style == 1:
        f.chord(0.28, 0.14, 0.72, 0.52, 160, 380, hair)
        f.rect(0.28, 0.32, 0.35, 0.66, fill=hair)
        f.rect(0.65, 0.32, 0.72, 0.66, fill=hair)
    else:
        f.chord(0.3, 0.16, 0.7, 0.46, 180, 360, hair)
        f.circle(0.5, 0.14, 0.08, fill=hair)
    f.circle(0.43, 0.4, 0.018, fill=(40, 30, 30))
    f.circle(0.57, 0.4, 0.018, fill=(40, 30, 30))
    f.arc(0.44, 0.42, 0.56, 0.52, 20, 160, (170, 80, 70), 0.012)


def _m_dumbbell(f: _Frame, c: Color, rng: random.Random) -> None:
    f.rect(0.2, 0.46, 0.8, 0.54, fill=(120, 124, 130))
    for u in (0.12, 0.22, 0.7, 0.8):
        f.rect(u, 0.3, u + 0.08, 0.7, fill=_dark(c, 0.2), r=0.02)


def _m_planet(f: _Frame, c: Color, rng: random.Random) -> None:
    f.circle(0.5, 0.5, 0.26, fill=c)
    f.chord(0.24, 0.24, 0.76, 0.76, 200, 340, _light(c, 0.3))
    f.arc(0.06, 0.38, 0.94, 0.62, 150, 390, _light(c, 0.6), 0.02)


def _m_card(f: _Frame, c: Color, rng: random.Random) -> None:
    f.rect(0.08, 0.24, 0.92, 0.76, fill=c, r=0.06)
    f.rect(0.08, 0.34, 0.92, 0.42, fill=_dark(c, 0.45))
    f.rect(0.16, 0.5, 0.3, 0.6, fill=(222, 190, 90), r=0.02)
    f.rect(0.16, 0.66, 0.6, 0.69, fill=_light(c, 0.6))


def _m_ticket(f: _Frame, c: Color, rng: random.Random) -> None:
    f.rect(0.08, 0.3, 0.92, 0.72, fill=c, r=0.04)
    f.circle(0.66, 0.3, 0.05, fill=_light(c, 0.9))
    f.circle(0.66, 0.72, 0.05, fill=_light(c, 0.9))
    for v in (0.42, 0.5, 0.58):
        f.rect(0.16, v, 0.52, v + 0.03, fill=_light(c, 0.6))


MOTIFS: dict[str, Motif] = {
    "shoe": _m_shoe, "shirt": _m_shirt, "jacket": _m_jacket, "dress": _m_dress, "pants": _m_pants, "cap": _m_cap,
    "scarf": _m_scarf, "sock": _m_sock, "bag": _m_bag, "watch": _m_watch, "phone": _m_phone, "laptop": _m_laptop,
    "keyboard": _m_keyboard, "mouse": _m_mouse, "headphones": _m_headphones, "speaker": _m_speaker, "camera": _m_camera,
    "charger": _m_charger, "mug": _m_mug, "bottle": _m_bottle, "jar": _m_jar, "tube": _m_tube, "box": _m_box,
    "lamp": _m_lamp, "candle": _m_candle, "pillow": _m_pillow, "book": _m_book, "toothbrush": _m_toothbrush,
    "bar": _m_bar, "fruit": _m_fruit, "bowl": _m_bowl, "plate": _m_plate, "pizza": _m_pizza, "burger": _m_burger,
    "cake": _m_cake, "drink": _m_drink, "bread": _m_bread, "taco": _m_taco, "ball": _m_ball, "gamepad": _m_gamepad,
    "note": _m_note, "guitar": _m_guitar, "plane": _m_plane, "car": _m_car, "house": _m_house, "flower": _m_flower,
    "tree": _m_tree, "dog": _m_dog, "cat": _m_cat, "person": _m_person, "dumbbell": _m_dumbbell, "planet": _m_planet,
    "card": _m_card, "ticket": _m_ticket,
}
FOODS = ("bowl", "plate", "pizza", "burger", "cake", "drink", "bread", "taco", "fruit")
GOODS = ("box", "bottle", "jar", "bag", "mug", "lamp", "pillow", "book", "watch", "headphones", "shoe", "shirt", "phone",
         "speaker", "camera", "cap", "tube", "candle")

# ----- what a description shows -----------------------------------------------------------------------------------
# Words (English, lower case, or Chinese) that name an object, a scene or a light; the first listed match wins, so
# the specific words come before the general ones ("phone charger" is a charger, "phone" a phone).
_OBJECT_WORDS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("charger", ("charger", "cable", "power bank", "充电", "数据线")),
    ("headphones", ("earbud", "headphone", "earphone", "耳机")),
    ("speaker", ("speaker", "音箱", "音响")),
    ("keyboard", ("keyboard", "键盘")),
    ("mouse", ("mouse", "鼠标")),
    ("watch", ("watch", "wristwatch", "手表")),
    ("laptop", ("laptop", "computer", "gaming pc", "tablet", "电脑", "平板")),
    ("camera", ("camera", "相机")),
    ("phone", ("phone", "手机")),
    ("toothbrush", ("toothbrush", "牙刷")),
    ("shoe", ("shoe", "sneaker", "slipper", "boot", "鞋")),
    ("dress", ("dress", "skirt", "裙")),
    ("jacket", ("jacket", "coat", "hoodie", "羽绒服", "外套", "夹克", "卫衣")),
    ("pants", ("jeans", "pants", "trousers", "shorts", "裤")),
    ("scarf", ("scarf", "围巾")),
    ("sock", ("sock", "袜")),
    ("cap", ("cap", "hat", "帽")),
    ("shirt", ("shirt", "sweater", "blouse", "clothes", "衬衫", "t恤", "上衣", "毛衣", "服装", "衣")),
    ("box", ("gift", "storage", "tissue", "snack", "package", "box", "礼包", "礼盒", "纸巾", "零食", "收纳", "盒")),
    ("bag", ("backpack", "handbag", "bag", "luggage", "suitcase", "背包", "双肩包", "包")),
    ("tube", ("lipstick", "mascara", "cosmetic", "makeup", "beauty", "口红", "美妆", "化妆")),
    ("fruit", ("fruit", "apple", "orange", "mango", "banana", "avocado", "水果", "苹果", "橙", "芒果")),
    ("mug", ("mug", "coffee", "latte", "tea", "咖啡", "茶")),
    ("drink", ("juice", "lassi", "milkshake", "smoothie", "soda", "cocktail", "toast", "饮料", "果汁", "奶茶")),
    ("jar", ("honey", "jam", "nuts", "jar", "蜂蜜", "坚果", "罐")),
    ("bottle", ("bottle", "shampoo", "lotion", "sunscreen", "perfume", "detergent", "milk", "wine", "洗衣液", "牛奶",
                "防晒", "香水", "洗发", "乳液", "瓶")),
    ("bar", ("chocolate", "巧克力")),
    ("lamp", ("lamp", "light", "灯")),
    ("candle", ("candle", "蜡烛")),
    ("pillow", ("pillow", "cushion", "枕", "抱枕")),
    ("book", ("book", "novel", "manual", "syllabus", "书", "手册")),
    ("pizza", ("pizza", "披萨", "slice")),
    ("burger", ("burger", "汉堡")),
    ("cake", ("cake", "tiramisu", "dessert", "churro", "birthday", "蛋糕", "甜点", "生日")),
    ("taco", ("taco", "burrito", "wrap", "quesadilla", "nachos", "卷")),
    ("bread", ("bread", "naan", "toast", "sourdough", "面包")),
    ("bowl", ("noodle", "ramen", "udon", "rice", "soup", "salad", "bowl", "curry", "tofu", "biryani", "edamame", "wok",
              "面", "饭", "汤", "粥", "火锅", "沙拉", "麻辣")),
    ("plate", ("chicken", "dumpling", "sushi", "bento", "samosa", "rolls", "fries", "rings", "steak", "dinner", "饺",
               "寿司", "鸡", "烤", "菜")),
    ("ball", ("ball", "football", "soccer", "basketball", "tennis", "球")),
    ("gamepad", ("game", "gaming", "speedrun", "console", "puzzle", "chess", "游戏")),
    ("dumbbell", ("workout", "fitness", "cardio", "gym", "core", "健身", "锻炼")),
    ("guitar", ("guitar", "acoustic", "吉他")),
    ("note", ("music", "song", "piano", "beats", "jazz", "playlist", "melody", "音乐", "歌", "钢琴", "曲")),
    ("plane", ("flight", "plane", "airport", "航班", "机票", "飞机")),
    ("car", ("car", "taxi", "ride", "road trip", "汽车", "打车")),
    ("ticket", ("ticket", "coupon", "voucher", "pass", "票", "券")),
    ("card", ("card", "bank", "wallet", "卡", "银行")),
    ("dog", ("dog", "puppy", "puppies", "狗")),
    ("cat", ("cat", "kitten", "猫")),
    ("flower", ("flower", "rose", "tulip", "花")),
    ("planet", ("planet", "black hole", "galaxy", "volcano", "science", "宇宙", "黑洞", "星球")),
    ("house", ("hotel", "house", "home", "village", "apartment", "酒店", "民宿", "房")),
)
_SCENE_WORDS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("document", ("screenshot", "receipt", "boarding pass", "invoice", "recipe page", "directions", "截屏", "截图",
                  "收据", "登机牌", "发票")),
    ("tower", ("eiffel", "tower", "塔")),
    ("temple", ("temple", "kyoto", "pagoda", "shrine", "寺", "庙")),
    ("bridge", ("bridge", "harbour", "harbor", "桥")),
    ("wall", ("great wall", "长城")),
    ("space", ("black hole", "galaxy", "space", "universe", "宇宙", "黑洞")),
    ("volcano", ("volcano", "火山")),
    ("stage", ("concert", "live", "stage", "jazz", "party", "演唱会", "音乐会", "派对", "聚会")),
    ("beach", ("beach", "coast", "sea", "ocean", "island", "海", "沙滩")),
    ("desert", ("desert", "dune", "沙漠")),
    ("snow", ("snow", "winter", "ski", "雪")),
    ("mountain", ("mountain", "alps", "alpine", "hiking", "hike", "lake", "山", "湖", "徒步")),
    ("city", ("city", "street", "skyline", "market", "town", "downtown", "bangkok", "europe", "城市", "街", "夜市")),
    ("park", ("park", "garden", "picnic", "forest", "field", "公园", "花园", "森林", "野餐")),
    ("table", ("dinner", "breakfast", "lunch", "coffee", "recipe", "cooking", "kitchen", "food", "晚餐", "早餐",
               "美食", "烹饪", "做饭")),
    ("people", ("family", "friends", "wedding", "graduation", "baby", "selfie", "team", "grandma", "家人", "朋友",
                "婚礼", "毕业", "宝宝", "合影")),
)
_LIGHT_WORDS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("sunset", ("sunset", "dusk", "evening", "golden", "日落", "黄昏", "傍晚", "夕阳")),
    ("night", ("night", "moon", "stars", "夜", "月", "星空")),
    ("rain", ("rain", "storm", "雨")),
    ("morning", ("morning", "sunrise", "dawn", "早", "晨", "日出")),
)


def _word(w: str) -> str:
    """A keyword as a pattern: English words whole (with a plural ending: 'cat' finds 'cats', not 'education'),
    Chinese ones anywhere."""
    w = w.strip()
    return rf"\b{re.escape(w)}(?:s|es)?\b" if w.isascii() else re.escape(w)


@lru_cache(maxsize=16)
def _compiled(table: tuple[tuple[str, tuple[str, ...]], ...]) -> tuple[tuple[str, re.Pattern[str]], ...]:
    return tuple((tag, re.compile("|".join(_word(w) for w in words))) for tag, words in table)


def _first(text: str, table: tuple[tuple[str, tuple[str, ...]], ...]) -> str | None:
    """The first tag of `table` one of whose words occurs in `text`."""
    for tag, pattern in _compiled(table):
        if pattern.search(text):
            return tag
    return None


@lru_cache(maxsize=8192)
def subject(desc: str) -> tuple[str | None, str | None, str | None]:
    """(object, scene, light) named by a description, each None where it names none."""
    text = desc.lower()
    return _first(text, _OBJECT_WORDS), _first(text, _SCENE_WORDS), _first(text, _LIGHT_WORDS)


KINDS = ("product", "food", "photo", "avatar", "video", "cover", "banner")
_KIND_WORDS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("avatar", ("avatar", "profile photo", "profile picture", "头像")),
    ("photo", ("album cover", "相册封面")),
    ("video", ("thumbnail", "video", "缩略图", "视频", "封面")),
    ("banner", ("banner", "横幅", "advert")),
    ("cover", ("album art", "cover art", "专辑")),
    ("photo", ("photo", "picture", "album", "image", "照片", "相册", "图片", "相片")),
)
# What an app's pictures are when their words do not say, by its archetype or key.
_APP_KINDS = {"shopping": "product", "shop": "product", "mall": "product", "food": "food", "services": "food",
              "delivery": "food", "video": "video", "feed": "video", "music": "cover", "gallery": "photo",
              "social": "photo", "chat": "photo", "chat_pay": "photo", "payments": "banner", "wallet": "banner",
              "maps": "photo", "travel": "photo"}

_HINT: ContextVar[str] = ContextVar("picture_hint", default="")


@contextlib.contextmanager
def painting(app: str) -> Iterator[None]:
    """Paint with `app` (an app's archetype or key) as the hint of what its undescribed pictures show."""
    token = _HINT.set(app)
    try:
        yield
    finally:
        _HINT.reset(token)


@lru_cache(maxsize=8192)
def _kind(desc: str, hint: str, w: int, h: int, round_: bool) -> str:
    text = desc.lower()
    found = _first(text, _KIND_WORDS)
    if found is not None:
        return found
    if round_ and abs(w - h) <= 2 and w <= 220:
        return "avatar"
    by_app = _APP_KINDS.get(hint)
    if by_app is not None:
        if by_app == "video" and h > w * 1.2:
            return "photo"
        return by_app
    return "photo" if w >= h * 1.3 else "product"


def kind_of(desc: str, width: float, height: float, radius: float = 0.0) -> str:
    """What a picture of this description and size shows ('product', 'photo', 'avatar', ...): its words first, then
    the app painting it (`painting`), then its shape."""
    w, h = round(width), round(height)
    return _kind(desc, _HINT.get(), w, h, radius >= 0.18 * min(w, h) > 0)


# ----- scenes (the whole picture, in unit coordinates of its rectangle) -------------------------------------------
def _sky(img: Image.Image, rng: random.Random, light: str | None, horizon: float) -> tuple[Color, Color]:
    """Paint the sky down to `horizon`; returns (sky colour at the horizon, the light's tint for the ground)."""
    w, h = img.size
    if light == "sunset":
        top, low, tint = _hsv(0.7 + rng.uniform(-0.05, 0.05), 0.5, 0.55), _hsv(0.07 + rng.uniform(-0.03, 0.03), 0.7, 1.0), (250, 150, 80)
    elif light == "night":
        top, low, tint = _hsv(0.66, 0.7, 0.18), _hsv(0.64, 0.6, 0.38), (20, 30, 70)
    elif light == "morning":
        top, low, tint = _hsv(0.56, 0.35, 0.95), _hsv(0.12, 0.3, 1.0), (255, 230, 190)
    elif light == "rain":
        top, low, tint = (120, 128, 140), (176, 182, 190), (110, 118, 130)
    else:
        top = _hsv(0.58 + rng.uniform(-0.04, 0.04), rng.uniform(0.45, 0.7), rng.uniform(0.85, 1.0))
        low, tint = _light(top, 0.55), (255, 255, 255)
    _gradient(img, (0, 0, w, max(1, round(h * horizon))), top, low)
    return low, tint


def _sun(f: _Frame, rng: random.Random, light: str | None, horizon: float) -> None:
    u = rng.uniform(0.15, 0.85)
    if light == "night":
        f.circle(u, horizon * 0.35, 0.06, fill=(240, 236, 210))
        for _ in range(14):
            f.circle(rng.random(), rng.uniform(0, horizon * 0.8), 0.006, fill=(230, 230, 240))
    elif light == "sunset":
        f.circle(u, horizon * 0.85, 0.11, fill=(255, 210, 120))
    elif light != "rain":
        f.circle(u, horizon * rng.uniform(0.25, 0.5), 0.07, fill=(255, 240, 170))
        for _ in range(rng.randint(0, 2)):
            cu, cv = rng.uniform(0.1, 0.9), rng.uniform(0.08, horizon * 0.5)
            for k in range(3):
                f.circle(cu + (k - 1) * 0.06, cv + (0.01 if k != 1 else -0.01), 0.05, fill=(250, 250, 252))


def _ground(c: Color, tint: Color, light: str | None) -> Color:
    if light == "night":
        return mix(c, (20, 26, 50), 0.6)
    return mix(c, tint, 0.25)


def _s_beach(img: Image.Image, f: _Frame, rng: random.Random, light: str | None) -> None:
    hz = rng.uniform(0.45, 0.58)
    _, tint = _sky(img, rng, light, hz)
    _sun(f, rng, light, hz)
    sea = _ground(_hsv(0.54 + rng.uniform(-0.03, 0.03), 0.65, 0.8), tint, light)
    f.rect(0, hz, 1, 1, fill=sea)
    for i in range(4):
        v = hz + 0.05 + i * 0.05
        f.line([(rng.uniform(0, 0.4), v), (rng.uniform(0.6, 1), v)], _light(sea, 0.3), 0.006)
    sand = _ground((238, 214, 170), tint, light)
    f.poly([(0, 0.74), (0.4, 0.7), (1, 0.78), (1, 1), (0, 1)], sand)
    if rng.random() < 0.5:  # a palm
        u = rng.choice((0.15, 0.82))
        f.line([(u, 0.9), (u + 0.03, 0.6), (u + 0.08, 0.4)], (110, 80, 50), 0.02)
        for a in (-2.6, -2.0, -1.2, -0.5, 0.2):
            f.line([(u + 0.08, 0.4), (u + 0.08 + 0.14 * math.cos(a), 0.4 + 0.12 * math.sin(a) + 0.05)],
                   _ground((60, 140, 70), tint, light), 0.02)
    else:  # an umbrella
        u = rng.uniform(0.25, 0.75)
        f.line([(u, 0.62), (u, 0.9)], (90, 90, 90), 0.008)
        f.chord(u - 0.14, 0.55, u + 0.14, 0.7, 180, 360, _hsv(rng.random(), 0.7, 0.95))


def _peaks(f: _Frame, rng: random.Random, base: float, height: float, color: Color, snow: bool) -> None:
    n = rng.randint(2, 4)
    pts = [(0.0, 1.0), (0.0, base)]
    tops = []
    for i in range(n):
        u = (i + rng.uniform(0.2, 0.8)) / n
        v = base - height * rng.uniform(0.5, 1.0)
        pts.append((u, v))
        tops.append((u, v))
        pts.append(((i + 1) / n, base - height * rng.uniform(0.0, 0.3)))
    pts.append((1.0, 1.0))
    f.poly(pts, color)
    if snow:
        for u, v in tops:
            f.poly([(u, v), (u + 0.05, v + 0.06), (u - 0.05, v + 0.06)], (250, 250, 252))


def _s_mountain(img: Image.Image, f: _Frame, rng: random.Random, light: str | None, snow: bool = False) -> None:
    hz = rng.uniform(0.5, 0.62)
    _, tint = _sky(img, rng, light, hz)
    _sun(f, rng, light, hz)
    far = _ground(_hsv(0.6 + rng.uniform(-0.05, 0.05), 0.25, 0.72), tint, light)
    near = _ground(_hsv(0.3 + rng.uniform(-0.06, 0.06), 0.5, 0.5), tint, light)
    _peaks(f, rng, hz, 0.3, far, snow or rng.random() < 0.4)
    _peaks(f, rng, hz + 0.1, 0.18, near, snow)
    if rng.random() < 0.5:  # a lake
        f.rect(0, 0.78, 1, 1, fill=_light(far, 0.2))
        f.line([(0.2, 0.86), (0.5, 0.86)], _light(far, 0.5), 0.005)
    else:
        f.rect(0, 0.84, 1, 1, fill=_dark(near, 0.15))


def _s_city(img: Image.Image, f: _Frame, rng: random.Random, light: str | None) -> None:
    hz = 0.78
    _, tint = _sky(img, rng, light, hz)
    _sun(f, rng, light, 0.5)
    lit = light == "night"
    u = -0.02
    while u < 1.0:
        bw = rng.uniform(0.08, 0.16)
        top = rng.uniform(0.25, 0.62)
        col = _ground(_hsv(rng.uniform(0.5, 0.7), rng.uniform(0.05, 0.25), rng.uniform(0.45, 0.8)), tint, light)
        f.rect(u, top, u + bw, hz, fill=col)
        rows = int((hz - top) / 0.07)
        if lit:  # lit windows here and there
            for _ in range(rows):
                k = rng.randrange(max(1, int(bw / 0.04)))
                v = top + 0.02 + rng.randrange(max(1, rows)) * 0.07
                f.rect(u + 0.012 + k * 0.04, v, u + 0.032 + k * 0.04, v + 0.03, fill=(255, 214, 120))
        else:  # bands of windows, floor by floor
            band = _light(col, 0.35)
            for row in range(rows):
                v = top + 0.025 + row * 0.07
                f.rect(u + 0.012, v, u + bw - 0.012, v + 0.03, fill=band)
        u += bw + rng.uniform(0.0, 0.02)
    f.rect(0, hz, 1, 1, fill=_ground((90, 92, 100), tint, light))
    f.rect(0, 0.88, 1, 0.9, fill=(230, 230, 200))
    if lit:
        for _ in range(6):
            f.circle(rng.random(), rng.uniform(0.8, 0.96), 0.012, fill=(255, 180, 80))
    if light == "rain":
        for _ in range(30):
            x, y = rng.random(), rng.random()
            f.line([(x, y), (x - 0.02, y + 0.06)], (200, 210, 225), 0.004)


def _s_desert(img: Image.Image, f: _Frame, rng: random.Random, light: str | None) -> None:
    hz = rng.uniform(0.5, 0.6)
    _, tint = _sky(img, rng, light, hz)
    _sun(f, rng, light, hz)
    for i, v in enumerate((hz, hz + 0.12, hz + 0.24)):
        col = _ground(_hsv(0.08, 0.5 - i * 0.05, 0.95 - i * 0.1), tint, light)
        u = rng.uniform(-0.3, 0.3)
        f.chord(u - 0.4, v, u + 1.4, v + 0.5, 180, 360, col)
        f.rect(0, v + 0.25, 1, 1, fill=col)
    if rng.random() < 0.5:
        u = rng.uniform(0.2, 0.8)
        green = (70, 130, 70)
        f.rect(u - 0.02, 0.62, u + 0.02, 0.86, fill=green, r=0.02)
        f.rect(u - 0.07, 0.68, u - 0.05, 0.76, fill=green)
        f.rect(u - 0.07, 0.74, u, 0.76, fill=green)


def _s_snow(img: Image.Image, f: _Frame, rng: random.Random, light: str | None) -> None:
    _s_mountain(img, f, rng, light or "morning", snow=True)
    f.chord(-0.4, 0.72, 1.4, 1.4, 180, 360, (244, 246, 250))
    f.rect(0, 0.9, 1, 1, fill=(244, 246, 250))
    for _ in range(rng.randint(2, 4)):
        u, v = rng.uniform(0.05, 0.95), rng.uniform(0.72, 0.86)
        f.poly([(u, v - 0.14), (u + 0.05, v), (u - 0.05, v)], (40, 90, 60))
        f.poly([(u, v - 0.14), (u + 0.025, v - 0.08), (u - 0.025, v - 0.08)], (250, 250, 252))
    for _ in range(25):
        f.circle(rng.random(), rng.random(), 0.006, fill=(255, 255, 255))


def _s_park(img: Image.Image, f: _Frame, rng: random.Random, light: str | None) -> None:
    hz = rng.uniform(0.45, 0.58)
    _, tint = _sky(img, rng, light, hz)
    _sun(f, rng, light, hz)
    grass = _ground(_hsv(0.28 + rng.uniform(-0.04, 0.04), 0.5, 0.72), tint, light)
    f.rect(0, hz, 1, 1, fill=grass)
    f.chord(-0.2, hz - 0.08, 0.7, hz + 0.2, 180, 360, _dark(grass, 0.12))
    for _ in range(rng.randint(2, 4)):
        u = rng.uniform(0.05, 0.95)
        s = rng.uniform(0.18, 0.3)
        _m_tree(_Frame(f.d, f.x0 + (u - s / 2) * f.sx, f.y0 + (hz - s * 0.75) * f.sy, s * f.sx, s * f.sy), grass, rng)
    f.poly([(0.42, 1.0), (0.5, hz + 0.05), (0.54, hz + 0.05), (0.7, 1.0)], _ground((214, 196, 160), tint, light))
    for _ in range(10):
        f.circle(rng.random(), rng.uniform(hz + 0.1, 0.98), 0.01, fill=_hsv(rng.random(), 0.6, 1.0))


def _s_tower(img: Image.Image, f: _Frame, rng: random.Random, light: str | None) -> None:
    _s_park(img, f, rng, light)
    col = (70, 60, 56) if light != "night" else (230, 190, 110)
    u = rng.uniform(0.35, 0.65)
    f.poly([(u - 0.16, 0.8), (u - 0.02, 0.12), (u + 0.02, 0.12), (u + 0.16, 0.8), (u + 0.1, 0.8), (u, 0.5),
            (u - 0.1, 0.8)], col)
    f.rect(u - 0.11, 0.56, u + 0.11, 0.59, fill=col)
    f.rect(u - 0.07, 0.38, u + 0.07, 0.4, fill=col)
    f.line([(u, 0.12), (u, 0.04)], col, 0.008)


def _s_temple(img: Image.Image, f: _Frame, rng: random.Random, light: str | None) -> None:
    _s_park(img, f, rng, light)
    u = rng.uniform(0.35, 0.65)
    red, roof = (180, 50, 40), (60, 50, 50)
    for i in range(3):
        v = 0.7 - i * 0.16
        wdt = 0.24 - i * 0.05
        f.rect(u - wdt * 0.7, v - 0.1, u + wdt * 0.7, v, fill=red)
        f.poly([(u - wdt, v - 0.08), (u + wdt, v - 0.08), (u + wdt * 0.6, v - 0.15), (u - wdt * 0.6, v - 0.15)], roof)
    f.line([(u, 0.37), (u, 0.28)], roof, 0.01)


def _s_bridge(img: Image.Image, f: _Frame, rng: random.Random, light: str | None) -> None:
    hz = 0.6
    _, tint = _sky(img, rng, light, hz)
    _sun(f, rng, light, hz)
    water = _ground(_hsv(0.56, 0.6, 0.7), tint, light)
    f.rect(0, hz, 1, 1, fill=water)
    col = _ground((150, 150, 160), tint, light)
    f.arc(0.1, 0.3, 0.9, 0.9, 180, 360, col, 0.025)
    f.rect(0, 0.6, 1, 0.64, fill=_dark(col, 0.2))
    for u in (0.22, 0.5, 0.78):
        f.line([(u, 0.6), (u, 0.6 - 0.3 * math.sin(math.pi * (u - 0.1) / 0.8))], col, 0.006)
    f.rect(0.08, 0.4, 0.12, 0.86, fill=_dark(col, 0.3))
    f.rect(0.88, 0.4, 0.92, 0.86, fill=_dark(col, 0.3))


def _s_wall(img: Image.Image, f: _Frame, rng: random.Random, light: str | None) -> None:
    hz = 0.5
    _, tint = _sky(img, rng, light, hz)
    _sun(f, rng, light, hz)
    _peaks(f, rng, 0.62, 0.2, _ground((90, 140, 80), tint, light), False)
    stone = _ground((190, 170, 140), tint, light)
    pts = [(0.0, 0.7), (0.2, 0.58), (0.4, 0.66), (0.6, 0.52), (0.8, 0.6), (1.0, 0.5)]
    f.line(pts, stone, 0.05)
    for (u1, v1), (u2, v2) in zip(pts, pts[1:]):
        for k in range(4):
            t = k / 4
            u, v = u1 + (u2 - u1) * t, v1 + (v2 - v1) * t
            f.rect(u, v - 0.06, u + 0.025, v - 0.02, fill=stone)
    f.rect(0.56, 0.4, 0.64, 0.52, fill=_dark(stone, 0.15))


def _s_space(img: Image.Image, f: _Frame, rng: random.Random, light: str | None) -> None:
    w, h = img.size
    _gradient(img, (0, 0, w, h), (8, 8, 24), _hsv(0.72 + rng.uniform(-0.05, 0.05), 0.6, 0.3))
    for _ in range(40):
        f.circle(rng.random(), rng.random(), rng.uniform(0.002, 0.007), fill=(240, 240, 255))
    u, v = rng.uniform(0.3, 0.7), rng.uniform(0.3, 0.6)
    for k, col in enumerate(((250, 150, 60), (250, 200, 100), (200, 80, 40))):
        f.arc(u - 0.3 + k * 0.04, v - 0.1 + k * 0.01, u + 0.3 - k * 0.04, v + 0.1 - k * 0.01, 0, 360, col, 0.015)
    f.circle(u, v, 0.09, fill=(0, 0, 0))


def _s_volcano(img: Image.Image, f: _Frame, rng: random.Random, light: str | None) -> None:
    hz = 0.6
    _sky(img, rng, light or "sunset", hz)
    f.poly([(0.0, 1.0), (0.4, 0.34), (0.6, 0.34), (1.0, 1.0)], (70, 56, 52))
    f.poly([(0.4, 0.34), (0.6, 0.34), (0.56, 0.42), (0.5, 0.38), (0.44, 0.44)], (240, 90, 30))
    f.line([(0.5, 0.36), (0.46, 0.6), (0.5, 0.8)], (240, 110, 40), 0.015)
    for k in range(4):
        f.circle(0.5 + k * 0.05 * (1 if k % 2 else -1), 0.26 - k * 0.07, 0.06 + k * 0.015, fill=(120, 116, 118))


def _s_stage(img: Image.Image, f: _Frame, rng: random.Random, light: str | None) -> None:
    w, h = img.size
    hue = rng.random()
    _gradient(img, (0, 0, w, h), _hsv(hue, 0.7, 0.15), _hsv(hue + 0.1, 0.8, 0.45))
    beams = img.copy()
    g = _Frame(ImageDraw.Draw(beams), f.x0, f.y0, f.sx, f.sy)
    for k in range(rng.randint(2, 4)):
        u = rng.uniform(0.1, 0.9)
        g.poly([(u - 0.01, 0.0), (u + 0.01, 0.0), (u + 0.16, 0.7), (u - 0.16, 0.7)], _hsv(hue + 0.15 * k, 0.3, 1.0))
    img.paste(Image.blend(img, beams, 0.4))
    f.rect(0.38, 0.4, 0.46, 0.66, fill=(14, 14, 20), r=0.02)  # a singer at the microphone
    f.circle(0.42, 0.36, 0.045, fill=(14, 14, 20))
    f.line([(0.54, 0.66), (0.54, 0.42), (0.5, 0.4)], (60, 60, 66), 0.01)
    f.rect(0, 0.66, 1, 0.72, fill=_hsv(hue, 0.4, 0.25))
    for _ in range(12):
        u, s = rng.random(), rng.uniform(0.05, 0.08)
        f.circle(u, 0.82, s * 0.5, fill=(14, 14, 20))
        f.chord(u - s, 0.86, u + s, 1.1, 180, 360, (14, 14, 20))
    f.rect(0, 0.92, 1, 1, fill=(14, 14, 20))


def _s_table(img: Image.Image, f: _Frame, rng: random.Random, light: str | None) -> None:
    w, h = img.size
    wood = rng.choice(((170, 120, 80), (200, 160, 116), (120, 84, 60), (236, 232, 224), (214, 230, 236)))
    _gradient(img, (0, 0, w, h), _light(wood, 0.1), _dark(wood, 0.15))
    for _ in range(6):
        v = rng.random()
        f.line([(0, v), (1, v + rng.uniform(-0.05, 0.05))], _dark(wood, 0.1), 0.004)
    if rng.random() < 0.5:  # a place mat
        f.ell(0.1, 0.08, 0.9, 0.96, fill=_hsv(rng.random(), 0.25, 0.92))


def _s_room(img: Image.Image, f: _Frame, rng: random.Random, light: str | None) -> None:
    wall = _hsv(rng.random(), rng.uniform(0.1, 0.25), rng.uniform(0.85, 0.95))
    f.rect(0, 0, 1, 0.72, fill=wall)
    f.rect(0, 0.72, 1, 1, fill=rng.choice(((170, 130, 96), (200, 180, 150), (120, 110, 104))))
    u = rng.uniform(0.1, 0.5)
    f.rect(u, 0.12, u + 0.3, 0.5, fill=(170, 210, 240))
    f.line([(u + 0.15, 0.12), (u + 0.15, 0.5)], WHITE, 0.01)
    f.rect(0.1, 0.56, 0.9, 0.8, fill=_hsv(rng.random(), 0.4, 0.6), r=0.04)


def _s_document(img: Image.Image, f: _Frame, rng: random.Random, light: str | None) -> None:
    w, h = img.size
    accent = _hsv(rng.random(), 0.6, 0.75)
    f.rect(0, 0, 1, 1, fill=(246, 246, 248))
    f.rect(0, 0, 1, 0.14, fill=accent)
    f.rect(0.06, 0.04, 0.4, 0.09, fill=_light(accent, 0.6), r=0.01)
    layout = rng.randrange(3)
    v = 0.2
    while v < 0.9:
        if layout == 1:  # a receipt: label and amount
            f.rect(0.08, v, 0.08 + rng.uniform(0.2, 0.45), v + 0.035, fill=(190, 192, 198), r=0.01)
            f.rect(0.74, v, 0.92, v + 0.035, fill=(120, 122, 130), r=0.01)
            v += 0.08
        elif layout == 2:  # a chat
            left = rng.random() < 0.5
            bw = rng.uniform(0.3, 0.6)
            f.rect(0.06 if left else 0.94 - bw, v, 0.06 + bw if left else 0.94, v + 0.08,
                   fill=WHITE if left else _light(accent, 0.55), r=0.02)
            v += 0.12
        else:  # a page of text with a picture
            if abs(v - 0.44) < 0.04:
                f.rect(0.08, v, 0.92, v + 0.2, fill=_light(accent, 0.7), r=0.02)
                v += 0.24
            f.rect(0.08, v, 0.08 + rng.uniform(0.5, 0.84), v + 0.03, fill=(200, 202, 208), r=0.01)
            v += 0.06
    if layout == 1:
        for k in range(18):  # a bar code
            f.rect(0.2 + k * 0.034, 0.86, 0.2 + k * 0.034 + rng.choice((0.01, 0.02)), 0.95, fill=(40, 40, 44))


SCENES: dict[str, Callable[..., None]] = {
    "beach": _s_beach, "mountain": _s_mountain, "city": _s_city, "desert": _s_desert, "snow": _s_snow,
    "park": _s_park, "tower": _s_tower, "temple": _s_temple, "bridge": _s_bridge, "wall": _s_wall, "space": _s_space,
    "volcano": _s_volcano, "stage": _s_stage, "table": _s_table, "room": _s_room, "document": _s_document,
}
OUTDOORS = ("beach", "mountain", "city", "desert", "snow", "park")
# Where an object shown in a photo stands when the words name no scene.
_SCENE_OF = {"dog": "park", "cat": "room", "person": "park", "flower": "park", "tree": "park", "car": "city",
             "plane": "beach", "house": "mountain", "planet": "space", "guitar": "stage", "note": "stage",
             "ball": "park", "dumbbell": "room", "gamepad": "room", "laptop": "room", "lamp": "room", "book": "table"}


# ----- pictures -----------------------------------------------------------------------------------------------------
def _object(f: _Frame, name: str, color: Color, rng: random.Random, cx: float, cy: float, size: float,
            flip: bool = False) -> None:
    """Draw motif `name` centred at (cx, cy) of frame `f`, `size` times the frame's shorter side."""
    s = min(f.sx, f.sy) * size
    x0, y0 = f.x0 + cx * f.sx - s / 2, f.y0 + cy * f.sy - s / 2
    MOTIFS[name](_Frame(f.d, x0, y0, s, s, flip), color, rng)


def _object_color(rng: random.Random, base: Color) -> Color:
    hue = _hue(base) + rng.uniform(-0.12, 0.12) + (0.5 if rng.random() < 0.3 else 0.0)
    return _hsv(hue, rng.uniform(0.45, 0.8), rng.uniform(0.55, 0.9))


def _pattern(f: _Frame, rng: random.Random, color: Color) -> None:
    style = rng.randrange(5)
    if style == 1:
        for i in range(6):
            for j in range(4):
                f.circle((i + 0.5 + 0.5 * (j % 2)) / 6, (j + 0.5) / 4, 0.014, fill=color)
    elif style == 2:
        for i in range(-3, 6):
            f.line([(i * 0.2, 0), (i * 0.2 + 0.6, 1)], color, 0.03)
    elif style == 3:
        f.circle(rng.uniform(0.3, 0.7), rng.uniform(0.3, 0.6), 0.34, fill=color)
    elif style == 4:
        f.rect(0, rng.uniform(0.55, 0.7), 1, 1, fill=color)


def _product(img: Image.Image, f: _Frame, rng: random.Random, color: Color, obj: str | None, food: bool) -> None:
    w, h = img.size
    name = obj if obj in MOTIFS else rng.choice(FOODS if food else GOODS)
    if food:
        _s_table(img, f, rng, None)
    else:
        _gradient(img, (0, 0, w, h), _light(color, 0.55), _dark(color, 0.04))
        _pattern(f, rng, mix(_light(color, 0.55), color, 0.5))
        f.ell(0.22, 0.8, 0.78, 0.9, fill=_dark(color, 0.14))
    _object(f, name, _object_color(rng, color), rng, 0.5, 0.5, 0.8 if food else 0.76, rng.random() < 0.5)


def _people(img: Image.Image, f: _Frame, rng: random.Random, color: Color, light: str | None) -> None:
    SCENES[rng.choice(("park", "room", "beach", "city"))](img, f, rng, light)
    n = rng.randint(2, 3)
    for i in range(n):
        _object(f, "person", _hsv(rng.random(), 0.55, 0.8), rng, (i + 0.5) / n, 0.74 + rng.uniform(-0.04, 0.04),
                rng.uniform(0.5, 0.62))


def _photo(img: Image.Image, f: _Frame, rng: random.Random, color: Color, obj: str | None, scene: str | None,
           light: str | None) -> None:
    if scene == "people":
        _people(img, f, rng, color, light)
        return
    scene = scene or _SCENE_OF.get(obj or "") or ("table" if obj in FOODS or obj == "mug" else None)
    if scene is None:
        scene = OUTDOORS[int(rng.random() * len(OUTDOORS))]
    SCENES[scene](img, f, rng, light)
    if scene == "table":
        _object(f, obj if obj in MOTIFS else rng.choice(("plate", "bowl", "mug", "cake", "pizza")),
                _object_color(rng, color), rng, 0.5, 0.52, 0.78)
    elif obj in MOTIFS and scene not in ("document", "space", "stage") and obj != "planet":
        _object(f, obj, _object_color(rng, color), rng, rng.uniform(0.35, 0.65), 0.7, 0.5, rng.random() < 0.5)


def _avatar(img: Image.Image, f: _Frame, rng: random.Random, color: Color) -> None:
    w, h = img.size
    r = rng.random()
    if r < 0.15:  # a landscape as the avatar
        SCENES[rng.choice(OUTDOORS)](img, f, rng, rng.choice((None, None, "sunset", "night")))
        return
    _gradient(img, (0, 0, w, h), _light(color, 0.35), color)
    if r < 0.3:
        _object(f, rng.choice(("cat", "dog", "flower")), _light(color, 0.6), rng, 0.5, 0.52, 0.9)
    else:
        _object(f, "person", _hsv(_hue(color) + 0.5, 0.5, 0.7), rng, 0.5, 0.56, 1.0)


def _video(img: Image.Image, f: _Frame, rng: random.Random, color: Color, obj: str | None, scene: str | None,
           light: str | None, player: bool) -> None:
    w, h = img.size
    if obj in MOTIFS and scene is None and obj not in _SCENE_OF:
        a, b = _hsv(_hue(color) + rng.uniform(-0.1, 0.1), 0.75, 0.9), _hsv(_hue(color) + 0.45, 0.8, 0.55)
        _gradient(img, (0, 0, w, h), a, b, horizontal=rng.random() < 0.5)
        cx, cy = rng.uniform(0.3, 0.7), rng.uniform(0.4, 0.6)
        for k in range(12):
            t = k * math.pi / 6
            f.poly([(cx, cy), (cx + 2 * math.cos(t), cy + 2 * math.sin(t)),
                    (cx + 2 * math.cos(t + 0.2), cy + 2 * math.sin(t + 0.2))], _light(a, 0.15))
        left = rng.random() < 0.5
        _object(f, obj, _object_color(rng, color), rng, 0.3 if left else 0.7, 0.52, 0.78)
        if rng.random() < 0.6:
            _object(f, "person", _hsv(rng.random(), 0.6, 0.8), rng, 0.8 if left else 0.2, 0.62, 0.8)
    else:
        _photo(img, f, rng, color, obj, scene, light)
    if player:
        f.circle(0.5, 0.5, 0.09, fill=(30, 30, 34))
        f.poly([(0.47, 0.44), (0.55, 0.5), (0.47, 0.56)], WHITE)
        f.rect(0.0, 0.96, 1.0, 1.0, fill=(80, 80, 86))
        f.rect(0.0, 0.96, rng.uniform(0.1, 0.6), 1.0, fill=(230, 40, 40))
    elif rng.random() < 0.5:  # a bold corner, as thumbnails have
        accent = _hsv(rng.random(), 0.85, 0.95)
        f.poly([(0.0, 0.0), (0.3, 0.0), (0.0, 0.45)] if rng.random() < 0.5 else [(1.0, 1.0), (0.7, 1.0), (1.0, 0.55)],
               accent)


def _cover(img: Image.Image, f: _Frame, rng: random.Random, color: Color, obj: str | None) -> None:
    w, h = img.size
    hue = _hue(color) + rng.uniform(-0.1, 0.1)
    a, b = _hsv(hue, 0.6, 0.9), _hsv(hue + rng.uniform(0.2, 0.5), 0.7, 0.45)
    _gradient(img, (0, 0, w, h), a, b)
    style = rng.randrange(5)
    ink = _hsv(hue + 0.5, 0.5, 0.95)
    if style == 0:
        for k in range(6, 0, -1):
            f.circle(0.5, 0.5, k * 0.07, fill=mix(a, ink, k / 7))
    elif style == 1:
        for k in range(7):
            f.rect(0, k / 7, 1, k / 7 + 0.07, fill=mix(b, ink, k / 8))
    elif style == 2:
        for _ in range(6):
            u, v = rng.random(), rng.random()
            f.poly([(u, v), (u + rng.uniform(0.1, 0.3), v + rng.uniform(-0.2, 0.2)), (u, v + rng.uniform(0.1, 0.3))],
                   _hsv(hue + rng.uniform(-0.3, 0.3), 0.6, 0.9))
    elif style == 3:
        for k in range(5):
            v = 0.3 + k * 0.12
            f.line([(x / 10, v + 0.05 * math.sin(x + k)) for x in range(11)], ink, 0.025)
    else:
        f.circle(rng.uniform(0.3, 0.7), rng.uniform(0.3, 0.7), 0.3, fill=ink)
        f.circle(rng.uniform(0.3, 0.7), rng.uniform(0.3, 0.7), 0.18, fill=b)
    if obj in MOTIFS or rng.random() < 0.3:
        _object(f, obj if obj in MOTIFS else rng.choice(("note", "guitar", "person", "planet")), _light(b, 0.1), rng,
                0.5, 0.55, 0.6)


def _banner(img: Image.Image, f: _Frame, rng: random.Random, color: Color, obj: str | None) -> None:
    w, h = img.size
    a = _hsv(_hue(color) + rng.uniform(-0.06, 0.06), 0.65, 0.95)
    _gradient(img, (0, 0, w, h), a, _hsv(_hue(color) + 0.08, 0.8, 0.7), horizontal=True)
    for _ in range(4):
        f.circle(rng.uniform(0, 1), rng.uniform(0, 1), rng.uniform(0.1, 0.3), fill=_light(a, rng.uniform(0.1, 0.3)))
    f.rect(0.06, 0.3, 0.46, 0.4, fill=WHITE, r=0.05)
    f.rect(0.06, 0.48, 0.32, 0.56, fill=_light(a, 0.6), r=0.04)
    _object(f, obj if obj in MOTIFS else rng.choice(("box", "ticket", "card", "bag")), _object_color(rng, color),
            rng, 0.75, 0.5, 0.9)


def _draw(kind: str, desc: str, color: Color, w: int, h: int) -> Image.Image:
    rng = _seed(kind, desc, color)
    obj, scene, light = subject(desc)
    if kind == "photo" and scene is None and obj is None:
        scene = "people" if rng.random() < 0.15 else None
    img = Image.new("RGB", (w, h), color)
    f = _Frame(ImageDraw.Draw(img), 0, 0, w, h)
    if kind in ("product", "food"):
        _product(img, f, rng, color, obj, kind == "food")
    elif kind == "avatar":
        _avatar(img, f, rng, color)
    elif kind == "video":
        _video(img, f, rng, color, obj, scene, light, desc.lower().startswith(("video", "视频")))
    elif kind == "cover":
        _cover(img, f, rng, color, obj)
    elif kind == "banner":
        _banner(img, f, rng, color, obj)
    else:
        _photo(img, f, rng, color, obj, scene, light)
    return img


def picture(desc: str, color: Color, kind: str, width: int, height: int, radius: int = 0,
            corner: Color = WHITE) -> Image.Image:
    """The picture of `desc` (in `color`, of `kind`) at `width` x `height` pixels, drawn once and cached; with a
    `radius` its corners are rounded onto the `corner` colour (what lies under them), so it pastes without a mask.

    It is drawn at a size rounded up to a step of 8 pixels and resized to the exact size, so the same item in boxes a few pixels apart (themes vary their spacing) is drawn once."""
    width, height = max(1, width), max(1, height)
    key = ("pic", kind, desc, color, width, height, radius, corner if radius > 0 else None)
    hit = _CACHE.get(key)
    if hit is not None:
        return hit
    if radius > 0:
        square = picture(desc, color, kind, width, height)
        out = Image.new("RGB", (width, height), corner)
        out.paste(square, (0, 0), rounded_mask(width, height, radius))
        return _CACHE.put(key, out, width * height * 3)
    qw, qh = -(-width // 8) * 8, -(-height // 8) * 8
    base_key = ("pic", kind, desc, color, qw, qh)
    base = _CACHE.get(base_key)
    if base is None:
        if qw * qh <= 8_000:  # a small picture (an avatar, a list thumbnail): drawn twice as large and reduced
            base = _draw(kind, desc, color, qw * 2, qh * 2).reduce(2)
        else:  # larger ones at size, as the rest of the screen is drawn (four times cheaper than drawing larger)
            base = _draw(kind, desc, color, qw, qh)
        _CACHE.put(base_key, base, _bytes(base))
    if (qw, qh) == (width, height):
        return base
    return _CACHE.put(key, base.resize((width, height), Image.Resampling.BILINEAR), width * height * 3)


@lru_cache(maxsize=512)
def rounded_mask(width: int, height: int, radius: int) -> Image.Image | None:
    """An antialiased rounded-rectangle mask (None when the corners are square)."""
    if radius < 1:
        return None
    mask = Image.new("L", (width * 2, height * 2), 0)
    ImageDraw.Draw(mask).rounded_rectangle((0, 0, width * 2 - 1, height * 2 - 1), radius=radius * 2, fill=255)
    return mask.reduce(2)


# ----- app icons ------------------------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class AppMark:
    """What an app's icon is drawn from: its identity."""

    name: str
    package: str
    archetype: str
    color: Color
    icon: str  # a glyph name (`render.glyph`), or up to three letters or characters ('微', 'QQ'), or empty


_MARKS: dict[tuple[str, Color], AppMark] = {}


def remember(mark: AppMark) -> None:
    """Make `Icon(mark.icon or mark.name, bg=mark.color, round=False)` anywhere (launcher, recents, settings) draw the
    app's icon."""
    _MARKS[(mark.icon or mark.name, mark.color)] = mark


def mark_for(name: str, color: Color) -> AppMark | None:
    """The app whose icon is `name` in `color`, if one was remembered."""
    return _MARKS.get((name, color))


# Which shape holds an app's letters, by archetype; other archetypes take one from their package's hash.
_SHAPES = {"chat": "bubble", "chat_pay": "bubble", "messenger": "bubble", "social": "bubble", "shopping": "bag",
           "shop": "bag", "services": "circle", "food": "circle", "delivery": "circle", "payments": "shield",
           "wallet": "shield", "bank": "shield", "feed": "screen", "video": "screen", "music": "disc", "maps": "pin",
           "travel": "pin", "documents": "page", "office": "page", "files": "page", "system": "squircle"}
_ANY_SHAPE = ("circle", "squircle", "hexagon", "shield", "bubble")


def _shape(f: _Frame, name: str, fill: Color, back: Color) -> tuple[float, float]:
    """Draw the holding shape; returns the centre of its letters."""
    if name == "bubble":
        f.ell(0.14, 0.18, 0.86, 0.74, fill=fill)
        f.poly([(0.28, 0.64), (0.22, 0.86), (0.46, 0.72)], fill)
        return 0.5, 0.46
    if name == "bag":
        f.arc(0.34, 0.14, 0.66, 0.46, 180, 360, fill, 0.06)
        f.rect(0.18, 0.32, 0.82, 0.84, fill=fill, r=0.1)
        return 0.5, 0.58
    if name == "shield":
        f.poly([(0.5, 0.12), (0.84, 0.24), (0.8, 0.58), (0.5, 0.88), (0.2, 0.58), (0.16, 0.24)], fill)
        return 0.5, 0.46
    if name == "screen":
        f.rect(0.14, 0.2, 0.86, 0.76, fill=fill, r=0.14)
        f.poly([(0.64, 0.76), (0.78, 0.76), (0.72, 0.86)], fill)
        return 0.5, 0.48
    if name == "disc":
        f.circle(0.5, 0.5, 0.36, fill=fill)
        f.arc(0.2, 0.2, 0.8, 0.8, 200, 250, back, 0.025)
        return 0.5, 0.5
    if name == "pin":
        f.poly([(0.26, 0.5), (0.5, 0.9), (0.74, 0.5)], fill)
        f.circle(0.5, 0.42, 0.3, fill=fill)
        return 0.5, 0.42
    if name == "page":
        f.poly([(0.22, 0.12), (0.62, 0.12), (0.8, 0.3), (0.8, 0.88), (0.22, 0.88)], fill)
        f.poly([(0.62, 0.12), (0.62, 0.3), (0.8, 0.3)], _dark(fill, 0.15))
        return 0.5, 0.54
    if name == "hexagon":
        f.poly([(0.5 + 0.37 * math.cos(k * math.pi / 3 + math.pi / 6), 0.5 + 0.37 * math.sin(k * math.pi / 3 + math.pi / 6))
                for k in range(6)], fill)
        return 0.5, 0.5
    if name == "squircle":
        f.rect(0.16, 0.16, 0.84, 0.84, fill=fill, r=0.22)
        return 0.5, 0.5
    f.circle(0.5, 0.5, 0.35, fill=fill)
    return 0.5, 0.5


def _emblem(f: _Frame, rng: random.Random, fill: Color, back: Color) -> None:
    """A geometric mark for an app with neither a glyph nor letters, chosen by its identity."""
    style = rng.randrange(5)
    if style == 0:
        for k, r in enumerate((0.32, 0.22, 0.12)):
            f.circle(0.5, 0.5, r, fill=fill if k % 2 == 0 else back)
    elif style == 1:
        for k in range(4):
            a = k * math.pi / 2 + math.pi / 4
            f.circle(0.5 + 0.14 * math.cos(a), 0.5 + 0.14 * math.sin(a), 0.15, fill=fill)
        f.circle(0.5, 0.5, 0.08, fill=back)
    elif style == 2:
        f.poly([(0.5, 0.16), (0.84, 0.5), (0.5, 0.84), (0.16, 0.5)], fill)
        f.poly([(0.5, 0.34), (0.66, 0.5), (0.5, 0.66), (0.34, 0.5)], back)
    elif style == 3:
        pts = []
        for k in range(16):
            a = k * math.pi / 8 - math.pi / 2
            r = 0.36 if k % 2 == 0 else 0.14
            pts.append((0.5 + r * math.cos(a), 0.5 + r * math.sin(a)))
        f.poly(pts, fill)
    else:
        for k in range(3):
            f.rect(0.2 + k * 0.06, 0.24 + k * 0.14, 0.68 + k * 0.06, 0.38 + k * 0.14, fill=fill, r=0.04)


def app_icon(mark: AppMark, px: int) -> Image.Image:
    """The app's launcher icon, `px` pixels square (RGBA): a rounded tile with a soft shadow, filled with the app's
    colour (or white, for some apps, with the mark in colour), and its mark: its drawn glyph, its letters in
    the shape its archetype picks, or a geometric emblem from its identity."""
    key = ("icon", mark, px)
    hit = _CACHE.get(key)
    if hit is not None:
        return hit
    ss = 4 if px < 64 else 2
    size = px * ss
    rng = _seed("icon", mark.package, mark.name, mark.icon)
    img = Image.new("RGBA", (size, size), (0, 0, 0, 0))
    inset, radius = size * 0.05, size * 0.22
    shadow = Image.new("L", (size, size), 0)
    ImageDraw.Draw(shadow).rounded_rectangle((inset, inset * 1.8, size - inset, size - inset * 0.2), radius=radius,
                                             fill=70)
    img.paste((0, 0, 0, 255), (0, 0, size, size), shadow.resize((size // 8 or 1, size // 8 or 1)).resize((size, size)))
    color = mark.color
    light_tile = rng.random() < 0.2 and sum(color) < 600
    tile = Image.new("RGB", (size, size))
    if light_tile:
        _gradient(tile, (0, 0, size, size), WHITE, (232, 234, 238))
        ink, back = color, WHITE
    else:
        _gradient(tile, (0, 0, size, size), _light(color, 0.22), _dark(color, 0.1))
        ink, back = WHITE, color
        if sum(color) > 600:  # a very light colour: dark marks read better
            ink = _dark(color, 0.65)
    draw = ImageDraw.Draw(tile)
    f = _Frame(draw, 0, 0, size, size)
    decor = rng.randrange(4)
    if decor == 1:
        f.circle(0.9, 0.1, 0.4, fill=mix(tile.getpixel((size // 2, size // 8)), WHITE, 0.1))
    elif decor == 2:
        f.poly([(0.0, 0.7), (0.7, 0.0), (1.0, 0.0), (0.0, 1.0)], mix(tile.getpixel((size // 2, size // 2)), WHITE, 0.08))
    elif decor == 3:
        f.chord(-0.3, 0.7, 1.3, 1.5, 180, 360, mix(tile.getpixel((size // 2, size - 2)), BLACK, 0.08))
    name = mark.icon or ""
    box = (size * 0.22, size * 0.22, size * 0.78, size * 0.78)
    if name and glyph(Canvas.wrap(tile), name, box, ink):
        pass
    elif name and len(name) <= 3:
        shape = _SHAPES.get(mark.archetype) or _ANY_SHAPE[int(rng.random() * len(_ANY_SHAPE))]
        cx, cy = _shape(f, shape, ink, back)
        wide = sum(2 if ord(ch) > 0x2E80 else 1 for ch in name)
        px_text = size * (0.46 if wide <= 1 else 0.3 if wide <= 2 else 0.21)
        fnt = font(round(px_text), True, any(is_cjk(ch) for ch in name))
        draw.text((cx * size, cy * size), name, font=fnt, fill=back, anchor="mm")
    else:
        _emblem(f, rng, ink, back)
    img.paste(tile, (0, 0), _tile_mask(size, inset, radius))
    out = img.resize((px, px), Image.Resampling.LANCZOS) if ss > 1 else img
    return _CACHE.put(key, out, _bytes(out))


@lru_cache(maxsize=64)
def _tile_mask(size: int, inset: float, radius: float) -> Image.Image:
    mask = Image.new("L", (size, size), 0)
    ImageDraw.Draw(mask).rounded_rectangle((inset, inset, size - inset, size - inset), radius=radius, fill=255)
    return mask


# ----- wallpaper ------------------------------------------------------------------------------------------------------
def wallpaper(color: Color, width: int, height: int) -> Image.Image:
    """A launcher wallpaper in `color`: a soft diagonal gradient with blurred blobs (smooth at any size)."""
    key = ("wall", color, width, height)
    hit = _CACHE.get(key)
    if hit is not None:
        return hit
    rng = _seed("wallpaper", color)
    sw, sh = max(4, width // 6), max(4, height // 6)
    small = Image.new("RGB", (sw, sh))
    _gradient(small, (0, 0, sw, sh), _light(color, 0.15), _hsv(_hue(color) + 0.06, 0.55, 0.3))
    f = _Frame(ImageDraw.Draw(small), 0, 0, sw, sh)
    for _ in range(5):
        f.circle(rng.uniform(-0.1, 1.1), rng.uniform(0.0, 1.0), rng.uniform(0.25, 0.5),
                 fill=_hsv(_hue(color) + rng.uniform(-0.1, 0.1), rng.uniform(0.3, 0.6), rng.uniform(0.3, 0.6)))
    small = small.filter(ImageFilter.GaussianBlur(max(2, sw // 5)))
    out = small.resize((width, height), Image.Resampling.BICUBIC)
    return _CACHE.put(key, out, _bytes(out))
