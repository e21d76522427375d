"""The native episode store: save/load round trips, screenshots into the images folder, bad records."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PIL import Image

from mobile_r1.core.actions import Action
from mobile_r1.core.errors import DataError
from mobile_r1.core.formats import detect_format, images_dir, load_any, load_episodes, save_episodes
from mobile_r1.core.records import Episode, Observation, Step, UIElement


def sample_episodes() -> list[Episode]:
    button = UIElement(id=0, class_name="android.widget.Button", bounds=(10, 20, 110, 80), text="OK", clickable=True)
    steps = [
        Step(
            action=Action.click(60, 50),
            thought="tap OK",
            description="confirm",
            observation=Observation(screen_size=(1080, 2400), elements=[button], app="settings", state_key="s0"),
            bbox=(10, 20, 110, 80),
            info={"k": 1},
        ),
        Step(action=Action.call_user("Which account?"), user_reply="the work one"),
        Step(action=Action.swipe(500, 1500, 500, 500), model_text="<tool_call>...</tool_call>"),
        Step(action=Action.terminate("success")),
    ]
    return [
        Episode(id="e1", instruction="Turn on wifi", steps=steps, apps=["settings"], screen_size=(1080, 2400),
                category="intension", intent="Turn on wifi at work", language="en", success=True, meta={"seed": 3}),
        Episode(id="e2", instruction="打开淘宝", frame="model", model_size=(1092, 2408), language="zh"),
    ]


@pytest.mark.parametrize("target", ["store", "store/train.jsonl"])
def test_round_trip(tmp_path: Path, target: str) -> None:
    episodes = sample_episodes()
    written = save_episodes(tmp_path / target, episodes)
    assert written.is_file()
    loaded = load_episodes(tmp_path / target)
    assert [e.to_dict() for e in loaded] == [e.to_dict() for e in episodes]
    assert loaded[0].steps[0].observation.elements[0].text == "OK"
    assert detect_format(written) == "native"
    name, again = load_any(tmp_path / target)
    assert name == "native" and len(again) == 2


def test_screenshots_go_to_the_images_folder(tmp_path: Path) -> None:
    source = tmp_path / "shot.png"
    Image.new("RGB", (4, 8), "red").save(source)
    episode = Episode(
        id="ep/1",
        instruction="x",
        steps=[
            Step(Action.back(), observation=Observation(screen_size=(4, 8), screenshot=Image.new("RGB", (4, 8), "blue"))),
            Step(Action.back(), observation=Observation(screen_size=(4, 8), screenshot_path=str(source))),
        ],
    )
    save_episodes(tmp_path / "out", [episode])
    loaded = load_episodes(tmp_path / "out")[0]
    paths = [Path(s.observation.screenshot_path) for s in loaded.steps]  # loaded back absolute, in images/
    assert [p.name for p in paths] == ["ep_1_000.png", "ep_1_001.png"] and all(p.is_file() for p in paths)
    assert all(p.parent == (tmp_path / "out" / "images").resolve() for p in paths)
    folder = images_dir(tmp_path / "out")
    names = [p.name for p in paths]
    assert Image.open(folder / names[0]).getpixel((0, 0)) == (0, 0, 255)
    assert Image.open(folder / names[1]).getpixel((0, 0)) == (255, 0, 0)
    # the episodes given were not changed
    assert episode.steps[1].observation.screenshot_path == str(source)


def test_missing_store(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="no episode store"):
        load_episodes(tmp_path)


def test_bad_record_names_line_and_step(tmp_path: Path) -> None:
    path = save_episodes(tmp_path / "s.jsonl", sample_episodes())
    lines = path.read_text(encoding="utf-8").splitlines()
    bad = json.loads(lines[0])
    bad["steps"][2]["action"] = {"action": "swipe", "coordinate": [1, 2]}
    path.write_text(lines[1] + "\n" + json.dumps(bad) + "\n", encoding="utf-8")
    with pytest.raises(DataError) as info:
        load_episodes(path)
    assert f"{path}:2:" in str(info.value) and "step 2" in str(info.value) and "coordinate2" in str(info.value)
