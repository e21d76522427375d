"""Coordinate frames agree with qwen-vl-utils' smart_resize and convert points between frames."""

from __future__ import annotations

import importlib
import sys
import types

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mobile_r1.core.geometry import Frame, point_in_box, prescaled_size, smart_resize


def _reference_smart_resize():
    """qwen-vl-utils' own function. Its module imports torchvision at the top (for video), which cannot be
    installed beside our CPU torch, so an empty stand-in module is put in place for that import only."""
    saved = {k: sys.modules.get(k) for k in ("torchvision", "torchvision.io", "torchvision.transforms")}
    stub = types.ModuleType("torchvision")
    stub.io = types.ModuleType("torchvision.io")  # type: ignore[attr-defined]
    stub.transforms = types.ModuleType("torchvision.transforms")  # type: ignore[attr-defined]
    stub.transforms.InterpolationMode = types.SimpleNamespace(BICUBIC=3)  # type: ignore[attr-defined]
    sys.modules.update({"torchvision": stub, "torchvision.io": stub.io, "torchvision.transforms": stub.transforms})
    try:
        module = importlib.import_module("qwen_vl_utils.vision_process")
    finally:
        for k, v in saved.items():
            if v is None:
                sys.modules.pop(k, None)
            else:
                sys.modules[k] = v
    return module.smart_resize


reference = _reference_smart_resize()

SIZES = [(1080, 2400), (1080, 1920), (1440, 3200), (720, 1280), (324, 720), (432, 960), (28, 28), (1, 1),
         (56, 10000), (5000, 5000), (1920, 1080), (3000, 4000), (100, 200)]


@pytest.mark.parametrize(("width", "height"), SIZES)
@pytest.mark.parametrize("bounds", [(4 * 28 * 28, 16384 * 28 * 28), (3136, 12845056), (256 * 28 * 28, 1280 * 28 * 28)])
def test_smart_resize_agrees_with_qwen_vl_utils(width: int, height: int, bounds: tuple[int, int]) -> None:
    lo, hi = bounds
    assert smart_resize(height, width, 28, lo, hi) == reference(height, width, 28, lo, hi)


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 6000), st.integers(1, 6000), st.integers(1, 3000))
def test_smart_resize_agrees_on_random_sizes(width: int, height: int, max_tokens: int) -> None:
    if max(width, height) / min(width, height) > 200:
        return
    hi = max(4, max_tokens) * 28 * 28
    assert smart_resize(height, width, 28, 4 * 28 * 28, hi) == reference(height, width, 28, 4 * 28 * 28, hi)


def test_inquire_prescale_then_resize() -> None:
    assert prescaled_size(1080, 2400, 0.3) == (324, 720)
    frame = Frame.qwen(1080, 2400, prescale=0.3)
    assert frame.size == (reference(720, 324, 28)[1], reference(720, 324, 28)[0])


def test_points_move_between_frames() -> None:
    screen = Frame.screen(1080, 2400)
    model = Frame.qwen(1080, 2400)
    assert model.size == (1092, 2408)
    grid = Frame.normalized()
    assert screen.map((540, 1200), grid) == (500, 500)
    assert screen.map((1080, 2400), grid) == (999, 999)
    assert grid.map((500, 500), screen) == (540, 1200)
    x, y = screen.map((333, 777), model, as_int=False)
    assert model.map((x, y), screen, as_int=False) == pytest.approx((333, 777))


def test_box_and_image_bounds_include_edges() -> None:
    assert point_in_box((10, 10), [10, 10, 20, 20]) and point_in_box((20, 20), [10, 10, 20, 20])
    assert not point_in_box((20.5, 15), [10, 10, 20, 20])
    assert Frame(100, 200).contains((100, 200)) and not Frame(100, 200).contains((-1, 5))
