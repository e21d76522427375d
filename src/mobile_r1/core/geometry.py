"""Coordinate frames: original screen pixels, the Qwen2.5-VL `smart_resize` image, a 0..999 grid, pre-scaling.

A `Frame` is the width and height of the space a point lives in. Converting a point between frames is a
linear rescale, because every frame here covers the whole screen:

    screen = Frame.screen(1080, 2400)
    model = Frame.qwen(1080, 2400, prescale=0.3)    # InquireMobile: scale by 0.3, then smart_resize
    screen.map((540, 1200), model)                   # -> the same point in the model image's pixels
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from mobile_r1.core.errors import ActionError

IMAGE_FACTOR = 28
MIN_PIXELS = 4 * 28 * 28
MAX_PIXELS = 16384 * 28 * 28
MAX_RATIO = 200
GRID = 1000  # a normalised grid covers 0..999
# The largest coordinate or side, in any frame, that is not absurd: screens, model images and grids are all far
# smaller; data and model outputs beyond it are refused (it also keeps float conversions away from overflow).
MAX_COORDINATE = 100_000


def round_by_factor(number: float, factor: int) -> int:
    return round(number / factor) * factor


def ceil_by_factor(number: float, factor: int) -> int:
    return math.ceil(number / factor) * factor


def floor_by_factor(number: float, factor: int) -> int:
    return math.floor(number / factor) * factor


def smart_resize(
    height: int,
    width: int,
    factor: int = IMAGE_FACTOR,
    min_pixels: int = MIN_PIXELS,
    max_pixels: int = MAX_PIXELS,
) -> tuple[int, int]:
    """Qwen2.5-VL's resize rule: (height, width) divisible by `factor`, pixels within [min, max], aspect kept.

    Argument order and defaults follow `qwen_vl_utils.smart_resize` so results agree with it exactly.
    """
    if height <= 0 or width <= 0:
        raise ActionError(f"image size must be positive, got {width}x{height}")
    if max(height, width) / min(height, width) > MAX_RATIO:
        raise ActionError(
            f"absolute aspect ratio must be smaller than {MAX_RATIO}, got {max(height, width) / min(height, width)}"
        )
    h_bar = max(factor, round_by_factor(height, factor))
    w_bar = max(factor, round_by_factor(width, factor))
    if h_bar * w_bar > max_pixels:
        beta = math.sqrt((height * width) / max_pixels)
        h_bar = floor_by_factor(height / beta, factor)
        w_bar = floor_by_factor(width / beta, factor)
    elif h_bar * w_bar < min_pixels:
        beta = math.sqrt(min_pixels / (height * width))
        h_bar = ceil_by_factor(height * beta, factor)
        w_bar = ceil_by_factor(width * beta, factor)
    return h_bar, w_bar


def prescaled_size(width: int, height: int, prescale: float) -> tuple[int, int]:
    """The size of a screenshot after `image.resize((int(W * s), int(H * s)))` (InquireMobile uses s = 0.3)."""
    if not prescale > 0:
        raise ActionError(f"prescale must be > 0, got {prescale}")
    return max(1, int(width * prescale)), max(1, int(height * prescale))


@dataclass(frozen=True, slots=True)
class Frame:
    """The width and height of a coordinate space covering the whole screen."""

    width: float
    height: float

    def __post_init__(self) -> None:
        if not (self.width > 0 and self.height > 0):
            raise ActionError(f"a frame needs a positive size, got {self.width}x{self.height}")

    @classmethod
    def screen(cls, width: int, height: int) -> Frame:
        """Original screen pixels."""
        return cls(width, height)

    @classmethod
    def qwen(
        cls,
        width: int,
        height: int,
        *,
        prescale: float = 1.0,
        factor: int = IMAGE_FACTOR,
        min_pixels: int = MIN_PIXELS,
        max_pixels: int = MAX_PIXELS,
    ) -> Frame:
        """The image a Qwen2.5-VL model sees for a `width` x `height` screen (optionally pre-scaled first)."""
        w, h = prescaled_size(width, height, prescale) if prescale != 1.0 else (width, height)
        rh, rw = smart_resize(h, w, factor=factor, min_pixels=min_pixels, max_pixels=max_pixels)
        return cls(rw, rh)

    @classmethod
    def normalized(cls) -> Frame:
        """The 0..999 grid of Qwen3-VL-style models."""
        return cls(GRID, GRID)

    @property
    def size(self) -> tuple[float, float]:
        return (self.width, self.height)

    @property
    def is_grid(self) -> bool:
        return self.width == GRID and self.height == GRID

    def map(self, point: tuple[float, float], to: Frame, *, as_int: bool = True) -> tuple[float, float]:
        """Rescale `point` from this frame into `to`; rounds to whole pixels unless `as_int=False`."""
        x = point[0] * to.width / self.width
        y = point[1] * to.height / self.height
        if not as_int:
            return (x, y)
        if to.is_grid:  # a grid has no cell 1000: clamp into 0..999
            return (min(max(round(x), 0), GRID - 1), min(max(round(y), 0), GRID - 1))
        return (round(x), round(y))

    def contains(self, point: tuple[float, float]) -> bool:
        """Whether the point lies on the image, edges included."""
        return 0 <= point[0] <= self.width and 0 <= point[1] <= self.height


def point_in_box(point: tuple[float, float], box: tuple[float, float, float, float] | list[float]) -> bool:
    """Whether `point` lies inside `[x1, y1, x2, y2]`, edges included."""
    x, y = point
    return box[0] <= x <= box[2] and box[1] <= y <= box[3]


def has_box(box: object) -> bool:
    """False for None and for the `[-1, -1, -1, -1]` "no box" marker of the data formats."""
    return isinstance(box, (list, tuple)) and len(box) == 4 and any(v != -1 for v in box)
