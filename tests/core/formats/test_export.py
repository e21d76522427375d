"""Exporters: samples in the frame of the image the model sees, files written whole or not at all, dialect gaps counted."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest
from PIL import Image

from mobile_r1.core.actions import Action
from mobile_r1.core.dialects import get_dialect
from mobile_r1.core.errors import ConfigError, DataError
from mobile_r1.core.formats import (
    FrameSettings,
    export_dataset,
    export_sharegpt,
    export_trl,
    llamafactory_dataset_info,
    load_episodes,
    load_mobile_r1,
    model_steps,
    save_episodes,
    sharegpt_record,
    step_samples,
    trl_record,
)
from mobile_r1.core.geometry import Frame, smart_resize
from mobile_r1.core.records import Episode, Observation, Step, UIElement
from mobile_r1.train.data import PromptSettings, ScreenshotWriter, step_examples

DATA = Path(__file__).parent / "data"
COORD = re.compile(r'"coordinate2?": \[(-?\d+), (-?\d+)\]')
RESOLUTION = re.compile(r"The screen's resolution is (\d+)x(\d+)\.")


def read(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Expert episodes of the simulated phone, as `mobile-r1 data generate` writes them (324 x 720 screenshots)."""
    from mobile_r1.env.demos import generate

    out = tmp_path_factory.mktemp("generated") / "expert"
    generate("inquire-sim", "train", 6, out, seed=0, scale=0.3)
    return out


def _texts(record: dict) -> list[str]:
    messages = record.get("messages") or [*record["prompt"], *record["completion"]]
    out = []
    for m in messages:
        content = m["content"]
        out.append(content if isinstance(content, str) else "".join(i.get("text", "") for i in content))
    return out


@pytest.mark.slow
@pytest.mark.parametrize("dialect", ["inquire", "qwen2.5vl"])
@pytest.mark.parametrize("to", ["sharegpt", "trl"])
def test_generated_data_lives_in_the_frame_of_the_saved_image(generated: Path, tmp_path: Path, dialect: str, to: str) -> None:
    datasets = pytest.importorskip("datasets")
    out = tmp_path / "export" / f"{to}.jsonl"
    report = export_dataset(load_episodes(generated), get_dialect(dialect), out, to=to,  # type: ignore[arg-type]
                            frames=FrameSettings(prescale=0.3), screenshots=ScreenshotWriter)
    records = read(out)
    assert report.samples == len(records) > 20
    for record in records:
        assert record["images"], "every image-mode sample shows a screenshot"
        sizes = set()
        for name in record["images"]:
            assert not Path(name).is_absolute()
            with Image.open(out.parent / name) as image:  # relative to the dataset file's folder
                sizes.add(image.size)
        (w, h), = sizes
        # the frame is smart_resize of the saved image: the processor will not resize it again
        assert smart_resize(h, w, max_pixels=1280 * 28 * 28) == (h, w)
        assert (w, h) == (336, 728)  # 1080 x 2400 screen, pre-scaled by 0.3 to 324 x 720, then smart_resize
        texts = _texts(record)
        for found in RESOLUTION.finditer(texts[0]):
            assert (int(found.group(1)), int(found.group(2))) == (w, h)
        if dialect == "qwen2.5vl":
            assert RESOLUTION.search(texts[0]) is not None
        points = [(int(x), int(y)) for text in texts for x, y in COORD.findall(text)]
        assert all(0 <= x <= w and 0 <= y <= h for x, y in points), points
        target = get_dialect(dialect).parse(texts[-1])
        assert target.valid and target.action is not None
    loaded = datasets.load_dataset("json", data_files=str(out), split="train")
    assert len(loaded) == len(records)
    if to == "sharegpt":
        info = json.loads((out.parent / "dataset_info.json").read_text(encoding="utf-8"))
        assert info[out.stem] == llamafactory_dataset_info(out.name)
    else:
        assert (out.parent / "dataset_info.json").exists() is False


def test_export_agrees_with_training_examples(generated: Path) -> None:
    episodes = load_episodes(generated)
    settings = PromptSettings(dialect="inquire", observation_mode="text", history_window=None, prescale=0.3)
    examples = step_examples(episodes, settings)
    samples = list(step_samples(episodes, get_dialect("inquire"), observation_mode="text", frames=FrameSettings(prescale=0.3)))
    assert [(e.episode_id, e.step_index) for e in examples] == [(s.episode_id, s.step) for s in samples]
    assert [e.target for e in examples] == [s.completion for s in samples]
    assert [e.messages for e in examples] == [s.prompt for s in samples]
    assert {e.model_size for e in examples} == {s.model_size for s in samples} == {(336, 728)}


def _home(*apps: str) -> Observation:
    icons = [UIElement(id=i, class_name="android.widget.TextView", bounds=(100 + 300 * i, 600, 300 + 300 * i, 800),
                       text=app, content_desc=app, clickable=True) for i, app in enumerate(apps)]
    return Observation(screen_size=(1080, 2400), elements=icons)


def test_open_becomes_a_click_on_the_launcher_icon_or_is_skipped() -> None:
    opening = Episode(id="e", instruction="Buy a lamp", screen_size=(1080, 2400), steps=[
        Step(Action.open("Shop"), thought="open it", description="Open Shop", observation=_home("Notes", "Shop")),
        Step(Action.click(540, 1200), description="Tap buy", observation=_home()),
    ])
    hidden = Episode(id="h", instruction="Chat", screen_size=(1080, 2400),
                     steps=[Step(Action.open("Chat"), observation=_home("Notes"))])
    skipped: Counter[str] = Counter()
    steps = list(model_steps([opening, hidden], get_dialect("inquire"), FrameSettings(max_pixels=1080 * 2400), skipped))
    assert [(s.episode.id, s.index) for s in steps] == [("e", 0), ("e", 1)]
    first = steps[0]
    frame = first.frame
    assert first.step.action == Action.click(*Frame.screen(1080, 2400).map((500, 700), frame))
    assert first.step.bbox == (400, 600, 600, 800) and first.converted_from == "open"
    assert steps[1].history[0].action.type.value == "click"  # later steps see the step as the dialect says it
    assert skipped == Counter({"open: no launcher icon for 'Chat' on screen": 1})
    # the qwen2.5vl dialect has `open`: nothing to convert
    kept = list(model_steps([hidden], get_dialect("qwen2.5vl"), FrameSettings()))
    assert kept[0].step.action == Action.open("Chat")


def test_nothing_to_export_is_an_error_and_leaves_no_file(tmp_path: Path) -> None:
    asking = Episode(id="a", instruction="x", screen_size=(1080, 2400),
                     steps=[Step(Action.call_user("Which one?"), observation=_home())])
    out = tmp_path / "empty.jsonl"
    with pytest.raises(DataError, match=r"nothing to export.*1 x call_user: not in the qwen2.5vl dialect"):
        export_dataset([asking], get_dialect("qwen2.5vl"), out, observation_mode="text")
    assert list(tmp_path.iterdir()) == []


def test_an_error_midway_leaves_no_partial_file(tmp_path: Path) -> None:
    shot = tmp_path / "data" / "images" / "a.png"
    shot.parent.mkdir(parents=True)
    Image.new("RGB", (108, 240), "white").save(shot)
    good = Step(Action.click(10, 10), observation=Observation((1080, 2400), screenshot_path=str(shot)))
    bad = Step(Action.click(10, 10), observation=Observation((1080, 2400), screenshot_path=str(shot.with_name("gone.png"))))
    episodes = [Episode(id=f"e{i}", instruction="x", steps=[good]) for i in range(3)] + [
        Episode(id="broken", instruction="x", steps=[bad])]
    out = tmp_path / "out" / "sft.jsonl"
    with pytest.raises(DataError, match="gone.png"):
        export_dataset(episodes, get_dialect("qwen2.5vl"), out, screenshots=ScreenshotWriter)
    assert list(out.parent.iterdir()) == []  # neither the file, nor its images, nor dataset_info.json
    # an earlier complete export survives a failed one
    export_dataset(episodes[:3], get_dialect("qwen2.5vl"), out, screenshots=ScreenshotWriter)
    before = out.read_text(encoding="utf-8")
    with pytest.raises(DataError):
        export_dataset(episodes, get_dialect("qwen2.5vl"), out, screenshots=ScreenshotWriter)
    assert out.read_text(encoding="utf-8") == before and len(list((out.parent / "sft_images").iterdir())) == 1


def test_assistant_history_needs_mask_history(generated: Path, tmp_path: Path) -> None:
    episodes = load_episodes(generated)[:2]
    uitars = get_dialect("uitars")
    with pytest.raises(ConfigError, match="--mask-history"):
        export_dataset(episodes, uitars, tmp_path / "u.jsonl", observation_mode="text")
    report = export_dataset(episodes, uitars, tmp_path / "u.jsonl", observation_mode="text", mask_history=True)
    records = read(tmp_path / "u.jsonl")
    assert report.samples == len(records) and any(
        [m["role"] for m in r["messages"]].count("assistant") > 1 for r in records)
    with pytest.raises(ConfigError, match="prompt-completion"):
        export_dataset(episodes, uitars, tmp_path / "t.jsonl", to="trl", trl_style="messages", observation_mode="text")
    export_dataset(episodes, uitars, tmp_path / "t.jsonl", to="trl", observation_mode="text")
    assert all(row["completion"][0]["role"] == "assistant" for row in read(tmp_path / "t.jsonl"))


def test_absolute_image_paths_and_dataset_info_keeps_other_entries(generated: Path, tmp_path: Path) -> None:
    (tmp_path / "dataset_info.json").write_text(json.dumps({"mine": {"file_name": "mine.json"}}), encoding="utf-8")
    episodes = load_episodes(generated)[:1]
    export_dataset(episodes, get_dialect("inquire"), tmp_path / "abs.jsonl", screenshots=ScreenshotWriter,
                   image_paths="absolute")
    for record in read(tmp_path / "abs.jsonl"):
        assert all(Path(p).is_absolute() and Path(p).is_file() for p in record["images"])
    info = json.loads((tmp_path / "dataset_info.json").read_text(encoding="utf-8"))
    assert set(info) == {"mine", "abs"}


# ----- records and the release fixtures -----------------------------------------------------------------------------
def test_sharegpt_one_record_per_step_with_image_tokens(tmp_path: Path) -> None:
    episodes = load_mobile_r1(DATA / "mobile_r1_sample.jsonl")
    out = tmp_path / "sft.jsonl"
    assert export_sharegpt(episodes, get_dialect("mobile-r1"), out) == 5
    records = read(out)
    for record in records:
        roles = [m["role"] for m in record["messages"]]
        assert roles == ["system", "user", "assistant"]
        text = "".join(m["content"] for m in record["messages"])
        assert text.count("<image>") == len(record["images"]) >= 1
    second = records[1]
    # the screen-frame swipe (540, 1800) -> (540, 600), in the 672 x 1484 smart_resize frame of the 1080 x 2400 screen
    model = Frame.qwen(1080, 2400, max_pixels=1280 * 28 * 28)
    assert (model.width, model.height) == (672, 1484)
    assert '"coordinate": [336, 1113], "coordinate2": [336, 371]' in second["messages"][-1]["content"]
    assert second["messages"][-1]["content"].startswith("<think>\n进入搜索\n</think>\n<action>\n上滑\n</action>")
    assert second["images"][-1] == str(DATA / "images" / "t1_1.png")  # without a writer: the record's own file
    assert "打开闲鱼搜索GTX 5090" in second["messages"][1]["content"]


def test_trl_rows(tmp_path: Path) -> None:
    episodes = load_mobile_r1(DATA / "mobile_r1_sample.jsonl")
    out = tmp_path / "trl.jsonl"
    assert export_trl(episodes, get_dialect("qwen2.5vl"), out) == 5
    row = read(out)[0]
    assert set(row) == {"prompt", "completion", "images"}
    assert row["completion"] == [
        {"role": "assistant", "content": '<tool_call>\n{"name": "mobile_use", "arguments": {"action": "click", "coordinate": [336, 742]}}\n</tool_call>'}
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


def test_text_mode_needs_no_screenshots(tmp_path: Path) -> None:
    button = UIElement(id=1, class_name="android.widget.Button", bounds=(0, 0, 540, 240), text="Wi-Fi", clickable=True)
    obs = Observation(screen_size=(1080, 2400), elements=[button], screenshot_path="shot.png")
    episode = Episode(id="e", instruction="Turn on Wi-Fi", steps=[Step(Action.click(270, 120), thought="tap", observation=obs)],
                      screen_size=(1080, 2400))
    save_episodes(tmp_path / "store", [episode])
    text = list(step_samples(load_episodes(tmp_path / "store"), get_dialect("inquire"), observation_mode="text",
                             frames=FrameSettings(prescale=0.5)))[0]
    assert text.images == [] and "Wi-Fi" in json.dumps(text.prompt, ensure_ascii=False)
    assert text.model_size == (532, 1204)  # smart_resize of 540 x 1200
    assert '"coordinate": [133, 60]' in text.completion


def test_missing_screenshot_names_the_step() -> None:
    no_shot = Episode(id="e1", instruction="x", steps=[Step(Action.back(), observation=Observation(screen_size=(100, 200)))])
    with pytest.raises(DataError, match="episode 'e1' step 0: the step has no screenshot"):
        list(step_samples([no_shot], get_dialect("inquire")))


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
