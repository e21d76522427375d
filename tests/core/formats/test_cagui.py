"""CAGUI (AgentCPM-GUI's Chinese-app benchmark): its episode files load (y-before-x points, action codes, element
boxes, screenshots beside them) and score offline with the evaluator's own matching rules."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PIL import Image

from mobile_r1.cli.main import main
from mobile_r1.core.actions import Action
from mobile_r1.core.errors import DataError
from mobile_r1.core.formats import detect_format, field_matcher, load_any
from mobile_r1.core.matching import get_matcher

W, H = 1080, 2400
BOXES = [[0.45, 0.2, 0.1, 0.1], [0.4, 0.0, 0.3, 1.0], [0.05, 0.8, 0.04, 0.15]]  # [y, x, h, w]


def step(episode: str, index: int, code: int, *, touch=(-1, -1), lift=(-1, -1), text: str = "", duration: int = 200,
         as_text: bool = True) -> dict:
    def field(value):  # the converters write these fields as JSON text
        return json.dumps(list(value)) if as_text else list(value)

    return {"episode_id": episode, "step_id": index, "instruction": "打开小红书，搜索点淘", "subset": "domestic",
            "image_path": f"domestic/{episode}/{episode}_{index}.jpeg", "image_width": W, "image_height": H,
            "ui_positions": field(BOXES) if as_text else BOXES, "result_action_type": code,
            "result_action_text": text, "result_touch_yx": field(touch), "result_lift_yx": field(lift),
            "duration": duration}


def split_folder(tmp_path: Path) -> Path:
    """test/domestic/<episode>/<episode>.json and its screenshots, as AgentCPM-GUI's evaluator reads them."""
    split = tmp_path / "CAGUI_agent" / "test"
    episodes = {
        "ep1": [step("ep1", 0, 4, touch=(0.5, 0.25), lift=(0.5, 0.25)),
                step("ep1", 1, 4, touch=(0.8, 0.5), lift=(0.3, 0.5)),
                step("ep1", 2, 3, text="点淘"),
                step("ep1", 3, 0, touch=(0.07, 0.87), lift=(0.07, 0.87), duration=1000),
                step("ep1", 4, 10)],
        "ep2": [step("ep2", 1, 7, as_text=False), step("ep2", 0, 5, as_text=False), step("ep2", 2, 1, duration=500),
                step("ep2", 3, 11)],
    }
    for name, steps in episodes.items():
        folder = split / "domestic" / name
        folder.mkdir(parents=True)
        (folder / f"{name}.json").write_text(json.dumps(steps, ensure_ascii=False), encoding="utf-8")
        for s in steps:
            Image.new("RGB", (108, 240), (30 * s["step_id"], 90, 150)).save(split / s["image_path"])
    return split


def test_a_cagui_split_loads_with_pixels_boxes_and_screenshots(tmp_path: Path) -> None:
    split = split_folder(tmp_path)
    assert detect_format(split) == "cagui" and detect_format(split / "domestic" / "ep1" / "ep1.json") == "cagui"
    assert field_matcher("cagui") == "cagui"
    name, episodes = load_any(split)
    first, second = episodes
    assert (first.id, first.instruction, first.language) == ("domestic-ep1", "打开小红书，搜索点淘", "zh")
    assert [s.action for s in first.steps] == [
        Action.click(270, 1200), Action.swipe(540, 1920, 540, 720), Action.type_text("点淘"),
        Action.long_press(940, 168, time=1.0), Action.terminate("success")]
    assert first.steps[0].bbox == (216, 1080, 324, 1320)  # the smallest box that holds the tap, not the wide row
    assert first.steps[3].bbox == (864, 120, 1026, 216)
    assert [e.bounds for e in first.steps[0].observation.elements][1] == (0, 960, 1080, 1680)
    shot = Path(first.steps[2].observation.screenshot_path)
    assert shot == (split / "domestic" / "ep1" / "ep1_2.jpeg").resolve()
    # steps come in step_id order; list fields may be lists as well as JSON text
    assert [s.action for s in second.steps] == [Action.back(), Action.system_button("Enter"), Action.wait(0.5),
                                                Action.terminate("failure")]
    # one episode file alone, and its screenshots found beside it
    _, alone = load_any(split / "domestic" / "ep2" / "ep2.json")
    assert alone[0].steps[0].observation.screenshot_path == str((split / "domestic" / "ep2" / "ep2_0.jpeg").resolve())


def test_stats_convert_and_eval_offline_with_the_cagui_matcher(tmp_path: Path, capsys) -> None:
    split = split_folder(tmp_path)
    assert main(["data", "stats", str(split), "--json"]) == 0
    figures = json.loads(capsys.readouterr().out)
    assert (figures["format"], figures["episodes"], figures["steps"]) == ("cagui", 2, 9)
    assert figures["languages"] == {"zh": 2} and figures["bad_labels"]["checked"] == 3
    assert main(["data", "convert", str(split), str(tmp_path / "store")]) == 0
    assert "2 episodes (cagui)" in capsys.readouterr().out
    assert main(["eval-offline", "--agent", "random", "--data", str(split), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["preset"] == "cagui"


def test_bad_records_name_the_file_and_step(tmp_path: Path) -> None:
    folder = tmp_path / "x" / "ep"
    folder.mkdir(parents=True)
    bad = folder / "ep.json"
    bad.write_text(json.dumps([step("ep", 0, 4)]), encoding="utf-8")  # a tap without a touch point
    with pytest.raises(DataError, match=r"ep.json: \[0\]: field 'result_touch_yx': this action needs a touch point"):
        load_any(bad, images=False)
    bad.write_text(json.dumps([step("ep", 0, 2)]), encoding="utf-8")
    with pytest.raises(DataError, match="2 is not a CAGUI action"):
        load_any(bad, images=False)


def test_the_cagui_matcher_follows_the_evaluators_rules() -> None:
    m = get_matcher("cagui")
    size = (W, H)
    label = Action.click(270, 1200)  # (0.25, 0.5) normalised
    row = (0, 960, 1080, 1680)  # a full-width row, y 0.4..0.7; enlarged 1.2: y 0.37..0.73, x clamped to 0..1
    assert m.match(Action.click(972, 1200), label, row, size).exact  # 0.65 away, but inside the box
    assert m.match(Action.click(972, 1728), label, row, size).exact  # y 0.72: inside the enlarged box only
    assert not m.match(Action.click(972, 1800), label, row, size).exact  # y 0.75: outside it, and far
    assert m.match(Action.click(round(0.38 * W), 1200), label, None, size).exact  # 0.13 away: the distance rule
    far = m.match(Action.click(round(0.42 * W), 1200), label, None, size)  # 0.17 away
    assert far.type_match and far.grounding is False and not far.exact
    # long press is its own kind; wait and terminate are one "stop" whatever the status
    assert not m.match(Action.click(270, 1200), Action.long_press(270, 1200), row, size).type_match
    assert m.match(Action.long_press(280, 1210), Action.long_press(270, 1200), None, size).exact
    assert m.match(Action.terminate("failure"), Action.terminate("success"), None, size).exact
    assert m.match(Action.wait(1.0), Action.terminate("success"), None, size).exact
    assert m.match(Action.terminate("success"), Action.wait(), None, size).exact
    # swipes by the finger's direction, text by containment, buttons by name
    assert m.match(Action.swipe(500, 2000, 520, 900), Action.swipe(540, 1920, 540, 720), None, size).exact
    assert not m.match(Action.swipe(500, 900, 520, 2000), Action.swipe(540, 1920, 540, 720), None, size).exact
    assert m.match(Action.type_text("点淘 "), Action.type_text("搜索点淘"), None, size).exact
    assert not m.match(Action.back(), Action.home(), None, size).exact
    assert m.match(None, label, row, size).type_match is False
