"""Colour themes and sizes of the simulated phone's UI, canonical or randomised from a seed."""

from __future__ import annotations

import colorsys
import random
from dataclasses import dataclass, replace
from functools import lru_cache

Color = tuple[int, int, int]


def hex_color(value: str) -> Color:
    """'#rrggbb' -> (r, g, b)."""
    value = value.lstrip("#")
    return (int(value[0:2], 16), int(value[2:4], 16), int(value[4:6], 16))


def mix(a: Color, b: Color, t: float) -> Color:
    """Linear blend of two colours (t = 0 gives a, 1 gives b)."""
    return (round(a[0] + (b[0] - a[0]) * t), round(a[1] + (b[1] - a[1]) * t), round(a[2] + (b[2] - a[2]) * t))


def _jitter_hue(color: Color, rng: random.Random, amount: float) -> Color:
    h, l, s = colorsys.rgb_to_hls(*(c / 255 for c in color))
    h = (h + rng.uniform(-amount, amount)) % 1.0
    l = min(0.6, max(0.3, l + rng.uniform(-0.08, 0.08)))
    r, g, b = colorsys.hls_to_rgb(h, l, s)
    return (round(r * 255), round(g * 255), round(b * 255))


@dataclass(frozen=True, slots=True)
class Theme:
    """Everything that decides how a screen looks. Sizes are in logical screen pixels (1080 wide)."""

    primary: Color = (33, 111, 219)
    on_primary: Color = (255, 255, 255)
    bg: Color = (255, 255, 255)
    surface: Color = (242, 243, 247)
    text: Color = (28, 28, 32)
    text2: Color = (110, 112, 120)
    divider: Color = (224, 225, 230)
    danger: Color = (214, 48, 49)
    font_scale: float = 1.0
    pad: int = 36
    gap: int = 24
    radius: int = 24
    spacing: float = 1.0  # factor on every pad and gap (see widgets.spacing)
    dark: bool = False

    def size(self, role: str | int) -> int:
        """Font size in logical pixels for a role ('title', 'body', 'small', 'big', 'huge') or a number."""
        return _font_size(role, self.font_scale)

    def darkened(self) -> Theme:
        """The same theme in dark mode."""
        if self.dark:
            return self
        return replace(
            self,
            bg=(20, 20, 24),
            surface=(40, 41, 46),
            text=(236, 236, 240),
            text2=(160, 162, 170),
            divider=(60, 61, 66),
            dark=True,
        )

    @classmethod
    def make(cls, primary: Color | str | None = None, rng: random.Random | None = None, dark: bool = False) -> Theme:
        """The canonical theme with this primary colour, or a randomised variant when `rng` is given."""
        if isinstance(primary, str):
            primary = hex_color(primary)
        theme = cls() if primary is None else cls(primary=primary)
        if rng is not None:
            theme = replace(
                theme,
                primary=_jitter_hue(theme.primary, rng, 0.06),
                font_scale=rng.choice((0.9, 0.95, 1.0, 1.05, 1.1)),
                pad=rng.choice((28, 32, 36, 40, 44)),
                gap=rng.choice((16, 20, 24, 28, 32)),
                radius=rng.choice((0, 12, 24, 36)),
                spacing=rng.choice((0.8, 0.9, 1.0, 1.1, 1.2)),
                surface=rng.choice(((242, 243, 247), (245, 245, 245), (238, 242, 246), (248, 244, 240))),
                bg=rng.choice(((255, 255, 255), (251, 251, 253), (253, 251, 247), (248, 250, 252))),
                text=rng.choice(((28, 28, 32), (20, 20, 20), (33, 37, 41), (40, 36, 32))),
            )
        return theme.darkened() if dark else theme


@lru_cache(maxsize=1024)
def _font_size(role: str | int, scale: float) -> int:
    base = role if isinstance(role, int) else _SIZES.get(role, 42)
    return max(8, round(base * scale))


_SIZES = {"huge": 96, "big": 60, "title": 50, "body": 42, "small": 34, "tiny": 28}
