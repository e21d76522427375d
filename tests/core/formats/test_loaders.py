"""Loaders of the released formats (fixtures built from the public record layouts) and the real task files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mobile_r1.core.actions import Action
from mobile_r1.core.errors import DataError
from mobile_r1.core.formats import (
    CATEGORIES,
    compute_stats,
    detect_format,
    load_any,
    load_inquire_grpo,
    load_inquire_sft,
    load_inquire_tasks,
    load_mobile_r1,
)

DATA = Path(__file__).parent / "data"


def write_lines(path: Path, records: list) -> Path:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r, ensure_ascii=False)) + "\n" for r in records), encoding="utf-8")
    return path


# ----- InquireBench task files ---------------------------------------------------------------------------------
def test_real_task_files(shared_dir: Path) -> None:
    expected = {"intension": 30, "risk": 25, "uncertainty": 20, "combination": 15, "privacy": 5}
    for lang in ("en", "zh"):
        tasks = load_inquire_tasks(shared_dir / "data" / "inquirebench" / f"tasks_{lang}.jsonl")
        assert len(tasks) == 95
        assert {t.language for t in tasks} == {lang}
        counts = {c: sum(t.category == c for t in tasks) for c in CATEGORIES}
        assert counts == expected
        assert all(t.apps and t.intent for t in tasks)
        assert len({t.id for t in tasks}) == 95
    first = load_inquire_tasks(shared_dir / "data" / "inquirebench" / "tasks_en.jsonl")[0]
    assert first.apps == ["wechat"] and first.category == "privacy" and first.need_login is True
    assert first.to_dict()["intension"] == first.intent


def test_task_file_through_load_any(shared_dir: Path) -> None:
    path = shared_dir / "data" / "inquirebench" / "tasks_zh.jsonl"
    name, episodes = load_any(path)
    assert name == "inquire-tasks" and len(episodes) == 95
    stats = compute_stats(episodes, name)
    assert stats.categories["intension"] == 30 and stats.steps == 0 and stats.languages == {"zh": 95}


TASK = {"instruction": "Buy it", "apps": ["taobao"], "category": "risk", "language": "en", "need_login": False, "intension": "Buy the cheapest one"}


@pytest.mark.parametrize(
    "change, field",
    [
        ({"category": "curiosity"}, "category"),
        ({"apps": "taobao"}, "apps"),
        ({"need_login": "no"}, "need_login"),
        ({"intension": None}, "intension"),
    ],
)
def test_bad_task_names_file_line_field(tmp_path: Path, change: dict, field: str) -> None:
    path = write_lines(tmp_path / "tasks.jsonl", [TASK, {**TASK, **change}])
    with pytest.raises(DataError) as info:
        load_inquire_tasks(path)
    message = str(info.value)
    assert str(path) in message and ":2:" in message and f"'{field}'" in message


# ----- Mobile-R1 trajectories --------------------------------------------------------------------------------
def test_mobile_r1_trajectories_in_screen_frame() -> None:
    episodes = load_mobile_r1(DATA / "mobile_r1_sample.jsonl")
    assert [len(e.steps) for e in episodes] == [3, 2]
    first = episodes[0]
    assert first.apps == ["闲鱼"] and first.screen_size == (1080, 2400) and first.frame == "screen"
    assert first.model_size == (540, 1200)
    # resized 540 x 1200 -> screen 1080 x 2400: coordinates double
    assert first.steps[0].action == Action.click(540, 1200)
    assert first.steps[1].action == Action.swipe(540, 1800, 540, 600)
    assert first.steps[0].bbox == (480, 1100, 600, 1300) and first.steps[1].bbox is None
    assert first.steps[0].thought == "桌面上有闲鱼图标" and first.steps[0].description == "打开闲鱼"
    assert first.steps[0].observation.screenshot_path == str(DATA / "images" / "t1_0.png")
    assert first.steps[0].model_text.startswith("<think>")
    # no resized size given: Qwen2.5-VL smart_resize of 1080 x 2400 is 1092 x 2408
    second = episodes[1]
    assert second.model_size == (1092, 2408)
    assert second.steps[0].action == Action.click(540, 1200)
    assert second.steps[0].observation.screenshot_path.endswith("t2_0.png")


def test_mobile_r1_action_names_case_insensitive(tmp_path: Path) -> None:
    record = json.loads((DATA / "mobile_r1_sample.jsonl").read_text(encoding="utf-8").splitlines()[0])
    record["trajectory"][0]["action"] = json.dumps({"name": "mobile_use", "arguments": {"action": "Tap", "coordinate": [10, 20]}})
    record["trajectory"][2]["action"] = {"name": "mobile_use", "arguments": {"action": "Terminate", "status": "success"}}
    episode = load_mobile_r1(write_lines(tmp_path / "d.jsonl", [record]))[0]
    assert episode.steps[0].action == Action.click(20, 40)
    assert episode.steps[2].action == Action.terminate("success")


@pytest.mark.parametrize(
    "change, field",
    [
        (lambda r: r.pop("instruction"), "instruction"),
        (lambda r: r.update(image_width="wide"), "image_width"),
        (lambda r: r["trajectory"][1].update(action='{"name": "mobile_use", "arguments": {"action": "fly"}}'), "trajectory[1].action"),
        (lambda r: r["trajectory"][0].update(bbox=[1, 2, 3]), "trajectory[0].bbox"),
        (lambda r: r["trajectory"][2].pop("action"), "trajectory[2].action"),
    ],
)
def test_bad_mobile_r1_record(tmp_path: Path, change, field: str) -> None:
    lines = (DATA / "mobile_r1_sample.jsonl").read_text(encoding="utf-8").splitlines()
    record = json.loads(lines[0])
    change(record)
    path = write_lines(tmp_path / "data.jsonl", [lines[1], record])
    with pytest.raises(DataError) as info:
        load_mobile_r1(path)
    assert f"{path}:2:" in str(info.value) and f"'{field}'" in str(info.value)


# ----- InquireMobile SFT and GRPO records ----------------------------------------------------------------------
def test_inquire_sft_records() -> None:
    episodes = load_inquire_sft(DATA / "inquire_sft_sample.jsonl")
    # the first two records are one trajectory (the second starts from the first one's screenshot)
    assert [len(e.steps) for e in episodes] == [2, 1]
    first = episodes[0]
    assert first.instruction == "打开小红书，搜索manus，给第二个笔记点赞。" and first.language == "zh"
    assert first.frame == "model" and first.model_size is None
    assert first.steps[0].action == Action.click(85, 537)
    assert first.steps[0].thought == "当前在手机桌面，下一步需进入小红书应用"
    assert first.steps[1].action == Action.type_text("manus")
    assert first.steps[1].info["history"] == "打开小红书应用。"
    assert first.steps[1].info["images"] == ["images/a.png", "images/b.png"]
    assert first.steps[0].observation is None
    ask = episodes[1]
    assert ask.instruction.startswith("Open WeChat, browse my Moments") and ask.language == "en"
    assert ask.steps[0].action == Action.call_user("Call the user to login WeChat.")
    with_size = load_inquire_sft(DATA / "inquire_sft_sample.jsonl", model_size=(420, 952))
    # the path is resolved inside the file's folder
    assert with_size[0].steps[1].observation.screenshot_path == str(DATA / "images" / "b.png")
    assert with_size[0].steps[1].observation.screen_size == (420, 952)


def test_inquire_grpo_records_convert_to_screen() -> None:
    episodes = load_inquire_grpo(DATA / "inquire_grpo_sample.jsonl")
    assert [len(e.steps) for e in episodes] == [2, 1]
    first = episodes[0]
    assert first.screen_size == (1440, 3200) and first.model_size == (644, 1484) and first.frame == "screen"
    # 101 * 1440 / 644 = 225.8 -> 226; 693 * 3200 / 1484 = 1494.3 -> 1494
    assert first.steps[0].action == Action.click(226, 1494)
    assert first.steps[0].bbox == (106, 1609, 318, 1821)
    assert first.steps[1].bbox is None and first.steps[1].action == Action.type_text("点淘")
    assert first.steps[1].observation.screenshot_path == str(DATA / "img" / "2.png")
    assert first.meta["system"].startswith("You are a mobile GUI agent")
    assert episodes[1].steps[0].action.is_inquiry


def test_bad_sft_and_grpo_records(tmp_path: Path) -> None:
    sft = json.loads((DATA / "inquire_sft_sample.jsonl").read_text(encoding="utf-8").splitlines()[2])
    sft["conversations"][2]["value"] = "<think>no call</think>"
    path = write_lines(tmp_path / "sft.jsonl", [sft])
    with pytest.raises(DataError, match=r"sft.jsonl:1: field 'conversations\[2\].value'"):
        load_inquire_sft(path)
    grpo = json.loads((DATA / "inquire_grpo_sample.jsonl").read_text(encoding="utf-8").splitlines()[0])
    for key, value in (("resized_width", None), ("action", "not json"), ("bbox", "box"), ("img_list", [1])):
        broken = {**grpo, key: value}
        path = write_lines(tmp_path / "grpo.jsonl", [grpo, grpo, broken])
        with pytest.raises(DataError) as info:
            load_inquire_grpo(path)
        assert ":3:" in str(info.value) and f"'{key}'" in str(info.value)


def test_not_json_names_the_line(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "x.jsonl", [TASK, "{broken"])
    with pytest.raises(DataError, match=r"x.jsonl:2: not valid JSON"):
        load_inquire_tasks(path)


# ----- detection ----------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "name, fmt",
    [("mobile_r1_sample.jsonl", "mobile-r1"), ("inquire_sft_sample.jsonl", "inquire-sft"), ("inquire_grpo_sample.jsonl", "inquire-grpo")],
)
def test_detect_format(name: str, fmt: str) -> None:
    assert detect_format(DATA / name) == fmt


def test_detect_unknown(tmp_path: Path) -> None:
    path = write_lines(tmp_path / "odd.jsonl", [{"hello": 1}])
    with pytest.raises(DataError, match="cannot tell the format"):
        load_any(path)
    with pytest.raises(DataError, match="unknown data format"):
        load_any(path, "csv")


def test_stats_of_fixtures() -> None:
    name, episodes = load_any(DATA / "mobile_r1_sample.jsonl")
    stats = compute_stats(episodes, name)
    assert (stats.episodes, stats.steps, stats.steps_min, stats.steps_max) == (2, 5, 2, 3)
    assert stats.steps_mean == pytest.approx(2.5)
    assert stats.action_types == {"click": 2, "swipe": 1, "terminate": 1, "type": 1}
    assert stats.apps == {"闲鱼": 1, "淘宝": 1}
    _, asks = load_any(DATA / "inquire_grpo_sample.jsonl")
    assert compute_stats(asks).call_user_share == pytest.approx(1 / 3)
