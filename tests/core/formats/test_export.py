"""Exporters: LLaMA-Factory ShareGPT and TRL rows, rendered through dialects, coordinates in the model frame."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mobile_r1.core.actions import Action
from mobile_r1.core.dialects import get_dialect
from mobile_r1.core.errors import ConfigError, DataError
from mobile_r1.core.formats import (
    export_sharegpt,
    export_trl,
    llamafactory_dataset_info,
    load_episodes,
    load_mobile_r1,
    save_episodes,
    sharegpt_record,
    step_samples,
    trl_record,
)
from mobile_r1.core.records import Episode, Observation, Step, UIElement

DATA = Path(__file__).parent / "data"


def read(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_sharegpt_one_record_per_step_with_image_tokens(tmp_path: Path) -> None:
    episodes = load_mobile_r1(DATA / "mobile_r1_sample.jsonl")
    out = tmp_path / "sft.jsonl"
    assert export_sharegpt(episodes, get_dialect("mobile-r1"), out) == 5
    records = read(out)
    assert len(records) == 5
    for record in records:
        roles = [m["role"] for m in record["messages"]]
        assert roles == ["system", "user", "assistant"]
        text = "".join(m["content"] for m in record["messages"])
        assert text.count("<image>") == len(record["images"]) >= 1
    second = records[1]
    # the screen-frame swipe (540, 1800) -> (540, 600) goes back to the 540 x 1200 model frame
    assert '"coordinate": [270, 900], "coordinate2": [270, 300]' in second["messages"][-1]["content"]
    assert second["messages"][-1]["content"].startswith("<think>\n进入搜索\n</think>\n<action>\n上滑\n</action>")
    assert second["images"][-1].endswith("t1_1.png")
    assert "打开闲鱼搜索GTX 5090" in second["messages"][1]["content"]


def test_trl_rows(tmp_path: Path) -> None:
    episodes = load_mobile_r1(DATA / "mobile_r1_sample.jsonl")
    out = tmp_path / "trl.jsonl"
    assert export_trl(episodes, get_dialect("qwen2.5vl"), out) == 5
    row = read(out)[0]
    assert set(row) == {"prompt", "completion", "images"}
    assert row["completion"] == [
        {"role": "assistant", "content": '<tool_call>\n{"name": "mobile_use", "arguments": {"action": "click", "coordinate": [270, 600]}}\n</tool_call>'}
    ]
    images_in_prompt = sum(
        1 for m in row["prompt"] if isinstance(m["content"], list) for item in m["content"] if item["type"] == "image"
    )
    assert images_in_prompt == len(row["images"]) == 1
    export_trl(episodes, get_dialect("qwen2.5vl"), out, style="messages")
    row = read(out)[0]
    assert row["messages"][-1]["role"] == "assistant" and "prompt" not in row
    with pytest.raises(ConfigError):
        trl_record(next(step_samples(episodes, get_dialect("qwen2.5vl"))), style="chat")  # type: ignore[arg-type]


def test_text_mode_needs_no_screenshots_and_native_paths_resolve(tmp_path: Path) -> None:
    button = UIElement(id=1, class_name="android.widget.Button", bounds=(0, 0, 540, 240), text="Wi-Fi", clickable=True)
    obs = Observation(screen_size=(1080, 2400), elements=[button], screenshot_path="shot.png")
    episode = Episode(id="e", instruction="Turn on Wi-Fi", steps=[Step(Action.click(270, 120), thought="tap", observation=obs)],
                      screen_size=(1080, 2400), model_size=(540, 1200))
    store = tmp_path / "store"
    save_episodes(store, [episode])
    loaded = load_episodes(store)
    text = list(step_samples(loaded, get_dialect("inquire"), observation_mode="text"))[0]
    assert text.images == [] and "Wi-Fi" in json.dumps(text.prompt, ensure_ascii=False)
    assert '"coordinate": [135, 60]' in text.completion
    image = list(step_samples(loaded, get_dialect("inquire"), image_root=store / "images"))[0]
    assert image.images == [str(store / "images" / "shot.png")]


def test_missing_screenshot_and_unsupported_action_name_the_step() -> None:
    no_shot = Episode(id="e1", instruction="x", steps=[Step(Action.back(), observation=Observation(screen_size=(100, 200)))])
    with pytest.raises(DataError, match="episode 'e1' step 0: the step has no screenshot"):
        list(step_samples([no_shot], get_dialect("inquire")))
    opening = Episode(id="e2", instruction="x", steps=[Step(Action.open("Taobao"))], screen_size=(100, 200))
    with pytest.raises(DataError, match="episode 'e2' step 0"):  # InquireMobile's action space has no `open`
        list(step_samples([opening], get_dialect("inquire")))


def test_sharegpt_record_checks_image_count() -> None:
    sample = next(step_samples(load_mobile_r1(DATA / "mobile_r1_sample.jsonl"), get_dialect("mobile-r1")))
    record = sharegpt_record(sample)
    assert record["images"] == sample.images
    broken = type(sample)(sample.prompt, sample.completion, [], sample.episode_id, sample.step)
    with pytest.raises(DataError, match="1 <image> tokens but 0 images"):
        sharegpt_record(broken)


def test_dataset_info_entry() -> None:
    info = llamafactory_dataset_info("sft.jsonl")
    assert info["formatting"] == "sharegpt" and info["columns"] == {"messages": "messages", "images": "images"}
    assert info["tags"]["system_tag"] == "system"
