"""Paths found in data files stay inside the dataset's folder: `../` and absolute paths elsewhere are refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mobile_r1.core.errors import DataError
from mobile_r1.core.formats import DataRoots, load_any, resolve_data_path, save_episodes

MOBILE_R1 = {
    "app_name": "Shop", "instruction": "buy", "image_width": 1080, "image_height": 2400,
    "trajectory": [{"image": "0.png", "action": '{"name": "mobile_use", "arguments": {"action": "Tap", "coordinate": [10, 20]}}'}],
}
GRPO = {"goal": "x", "action": '{"name": "mobile_use", "arguments": {"action": "wait"}}', "width": 1080, "height": 2400,
        "resized_width": 644, "resized_height": 1484, "img_list": ["a.png"]}


def _dataset(tmp_path: Path, image: str) -> Path:
    folder = tmp_path / "release"
    (folder / "images").mkdir(parents=True)
    (folder / "images" / "0.png").write_bytes(b"png")
    record = json.loads(json.dumps(MOBILE_R1))
    record["trajectory"][0]["image"] = image
    (folder / "data.jsonl").write_text(json.dumps(record) + "\n", encoding="utf-8")
    return folder / "data.jsonl"


@pytest.mark.parametrize("image", ["../../etc/passwd", "/etc/passwd", "../../../../../../etc/passwd"])
def test_mobile_r1_refuses_paths_outside(tmp_path: Path, image: str) -> None:
    path = _dataset(tmp_path, image)
    with pytest.raises(DataError) as info:
        load_any(path)
    message = str(info.value)
    assert f"{path}:1: field 'trajectory[0].image'" in message and "outside the dataset's folder" in message


def test_inside_paths_resolve_and_image_root_widens(tmp_path: Path) -> None:
    path = _dataset(tmp_path, "0.png")
    _, episodes = load_any(path)
    assert episodes[0].steps[0].observation.screenshot_path == str((path.parent / "images" / "0.png").resolve())
    shots = tmp_path / "elsewhere"
    shots.mkdir()
    (shots / "0.png").write_bytes(b"png")
    _, episodes = load_any(path, image_root=shots)
    assert episodes[0].steps[0].observation.screenshot_path == str((shots / "0.png").resolve())
    # an absolute path into the named folder is allowed too, and still nothing beyond it
    outside = _dataset(tmp_path / "second", str(shots / "0.png"))
    with pytest.raises(DataError):
        load_any(outside)
    assert load_any(outside, image_root=shots)[1][0].steps[0].observation.screenshot_path == str((shots / "0.png").resolve())
    with pytest.raises(DataError, match="outside"):
        load_any(_dataset(tmp_path / "third", "../../../etc/passwd"), image_root=shots)


def test_a_link_that_leads_outside_is_refused(tmp_path: Path) -> None:
    path = _dataset(tmp_path, "link.png")
    (path.parent / "images" / "link.png").symlink_to("/etc/passwd")
    with pytest.raises(DataError, match="field 'trajectory\\[0\\].image'"):
        load_any(path)


def test_grpo_and_native_stores_follow_the_same_rule(tmp_path: Path) -> None:
    grpo = tmp_path / "grpo.jsonl"
    for image in ("../../etc/passwd", "/etc/passwd"):
        grpo.write_text(json.dumps({**GRPO, "img_list": [image]}) + "\n", encoding="utf-8")
        with pytest.raises(DataError, match=r"grpo.jsonl:1: field 'img_list\[0\]'"):
            load_any(grpo)
    store = tmp_path / "store"
    store.mkdir()
    record = {"id": "e", "instruction": "x", "steps": [
        {"action": {"action": "wait"}, "observation": {"screen_size": [10, 20], "screenshot_path": "../../../etc/passwd"}}]}
    (store / "episodes.jsonl").write_text(json.dumps(record) + "\n", encoding="utf-8")
    with pytest.raises(DataError, match=r"episodes.jsonl:1: field 'steps\[0\].observation.screenshot_path'"):
        load_any(store)
    # statistics read no image: they work on such a file, and nothing is resolved
    _, episodes = load_any(store, images=False)
    assert episodes[0].steps[0].observation.screenshot_path is None


def test_convert_never_copies_a_file_from_outside(tmp_path: Path) -> None:
    path = _dataset(tmp_path, "../../etc/passwd")
    with pytest.raises(DataError):
        _, episodes = load_any(path)
        save_episodes(tmp_path / "out", episodes)
    assert not (tmp_path / "out").exists()


def test_resolve_data_path_rejects_non_names(tmp_path: Path) -> None:
    roots = DataRoots.beside(tmp_path / "data.jsonl", "images")
    for bad in (None, "", 3, "a\x00b"):
        with pytest.raises(DataError, match="field 'f'"):
            resolve_data_path(bad, roots, "data.jsonl:4", "f")
    assert resolve_data_path("x/../y.png", roots, "w", "f") == (tmp_path / "images" / "y.png").resolve()


def test_tag_extraction_is_the_lazy_regex_without_its_quadratic_time() -> None:
    import re

    from hypothesis import given, settings, strategies as st

    from mobile_r1.core.formats.inquire import between

    @settings(max_examples=300, deadline=200)
    @given(st.lists(st.sampled_from(["<tool_call>", "</tool_call>", "x", " ", "{}", "<"]), max_size=40))
    def same(parts: list[str]) -> None:
        text = "".join(parts)
        assert between(text, "<tool_call>", "</tool_call>") == re.findall(r"<tool_call>(.*?)</tool_call>", text, re.S)

    same()
    assert between("<tool_call>" * 200_000, "<tool_call>", "</tool_call>") == []  # a flood of unclosed tags: linear
