"""`mobile-r1 data stats | convert | export` through the CLI: figures, conversion that keeps images, exports."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from PIL import Image

from mobile_r1.cli.main import main
from mobile_r1.core.actions import Action
from mobile_r1.core.formats import save_episodes
from mobile_r1.core.geometry import Frame
from mobile_r1.core.records import Episode, Observation, Step

DATA = Path(__file__).resolve().parents[1] / "core" / "formats" / "data"


def test_stats_json_on_mobile_r1(capsys) -> None:
    assert main(["data", "stats", str(DATA / "mobile_r1_sample.jsonl"), "--json"]) == 0
    figures = json.loads(capsys.readouterr().out)
    assert figures["format"] == "mobile-r1"
    assert (figures["episodes"], figures["steps"]) == (2, 5)
    assert figures["steps_per_episode"] == {"mean": 2.5, "min": 2, "max": 3}
    assert figures["action_types"]["click"] == 2


def test_stats_json_on_task_file(shared_dir: Path, capsys) -> None:
    assert main(["data", "stats", str(shared_dir / "data" / "inquirebench" / "tasks_en.jsonl"), "--json"]) == 0
    figures = json.loads(capsys.readouterr().out)
    assert figures["format"] == "inquire-tasks" and figures["episodes"] == 95
    assert figures["categories"] == {"intension": 30, "risk": 25, "uncertainty": 20, "combination": 15, "privacy": 5}


def test_stats_table_with_forced_format(capsys) -> None:
    # the fixture's first label (101, 693) in its 644x1484 frame is (226, 1494) on the 1440x3200 screen, outside its
    # box [106, 1609, 318, 1821]: skipped by default and counted, kept on request
    assert main(["data", "stats", str(DATA / "inquire_grpo_sample.jsonl"), "--format", "inquire-grpo"]) == 0
    captured = capsys.readouterr()
    assert "inquire-grpo" in captured.out and "call_user share" in captured.out and "50.0%" in captured.out
    assert "1 tap label(s) outside their own box of 1 checked: skipped 1 step(s)" in captured.err
    assert main(["data", "stats", str(DATA / "inquire_grpo_sample.jsonl"), "--bad-labels", "keep"]) == 0
    captured = capsys.readouterr()
    assert "33.3%" in captured.out and "kept as recorded" in captured.err


def test_stats_wrong_format_is_a_clean_error(capsys) -> None:
    assert main(["data", "stats", str(DATA / "inquire_grpo_sample.jsonl"), "--format", "mobile-r1"]) == 2
    err = capsys.readouterr().err
    assert "inquire_grpo_sample.jsonl:1" in err and "'instruction'" in err and "Traceback" not in err


def test_data_group_help(capsys) -> None:
    assert main(["data", "--help"]) == 0
    assert "stats" in capsys.readouterr().out


def _grpo_with_images(tmp_path: Path) -> Path:
    """The GRPO fixture copied beside the screenshots its img_list names."""
    folder = tmp_path / "grpo"
    (folder / "img").mkdir(parents=True)
    for i in (1, 2, 9):
        Image.new("RGB", (144, 320), (i * 20, 0, 0)).save(folder / "img" / f"{i}.png")
    path = folder / "grpo.jsonl"
    shutil.copy(DATA / "inquire_grpo_sample.jsonl", path)
    return path


def test_convert_then_stats_and_export(tmp_path: Path, capsys) -> None:
    data = _grpo_with_images(tmp_path)
    store = tmp_path / "store"
    # the fixture's first tap lies outside its own box (see above): kept here, to follow it through
    assert main(["data", "convert", str(data), str(store), "--bad-labels", "keep"]) == 0
    assert "2 episodes (inquire-grpo)" in capsys.readouterr().out
    # the screenshots came along: the store holds them, and reads them back from its own folder
    assert sorted(p.name for p in (store / "images").iterdir()) == ["grpo-1_000.png", "grpo-1_001.png", "grpo-3_000.png"]
    assert main(["data", "stats", str(store), "--json"]) == 0
    figures = json.loads(capsys.readouterr().out)
    assert figures["format"] == "native" and figures["steps"] == 2  # the kept bad label is found again, and skipped
    assert figures["bad_labels"]["outside_box"] == 1 and figures["bad_labels"]["dropped_steps"] == 1

    out = tmp_path / "sft.jsonl"
    assert main(["data", "export", str(data), "--to", "sharegpt", "--dialect", "inquire", "--out", str(out),
                 "--bad-labels", "keep"]) == 0
    printed = capsys.readouterr().out
    assert "3 samples" in printed and "dataset_info.json" in printed
    records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert len(records) == 3
    # the GRPO label (101, 693) in the 644 x 1484 model image -> screen pixels -> the export's frame
    screen, model = Frame.screen(1440, 3200), Frame.qwen(1440, 3200, max_pixels=1280 * 28 * 28)
    x, y = screen.map(Frame(644, 1484).map((101, 693), screen), model)
    assert f'"coordinate": [{x}, {y}]' in records[0]["messages"][-1]["content"]
    assert '"action": "call_user"' in records[2]["messages"][-1]["content"]
    assert all(Image.open(out.parent / p).size == (model.width, model.height) for r in records[:2] for p in r["images"])

    trl = tmp_path / "trl.jsonl"
    assert main(["data", "export", str(DATA / "mobile_r1_sample.jsonl"), "--to", "trl", "-d", "mobile-r1", "-o", str(trl),
                 "--observation-mode", "text"]) == 0
    row = json.loads(trl.read_text(encoding="utf-8").splitlines()[0])
    assert row["completion"][0]["role"] == "assistant"


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("gen") / "expert"
    assert main(["data", "generate", "--suite", "inquire-sim", "--split", "train", "--episodes", "6", "--out", str(out)]) == 0
    return out


@pytest.mark.slow
def test_export_generated_data_with_prescale(generated: Path, tmp_path: Path, capsys) -> None:
    out = tmp_path / "llamafactory" / "sft.jsonl"
    assert main(["data", "export", str(generated), "--to", "sharegpt", "--dialect", "inquire", "--prescale", "0.3",
                 "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert f"{len(records)} samples (native -> sharegpt, dialect inquire, model frame 336x728)" in printed
    skipped = sum(1 for line in printed.splitlines() if line.startswith("skipped"))
    total = sum(len(json.loads(line)["steps"]) for line in (generated / "episodes.jsonl").read_text().splitlines())
    # every step is either a sample or counted as skipped (an `open` whose icon is on another home page)
    counted = int(printed.split("skipped ")[1].split()[0]) if skipped else 0
    assert len(records) + counted == total
    assert '"open"' not in out.read_text(encoding="utf-8")
    info = json.loads((out.parent / "dataset_info.json").read_text(encoding="utf-8"))
    assert info["sft"]["file_name"] == "sft.jsonl"
    for record in records[:5]:
        assert all((out.parent / p).is_file() for p in record["images"])


@pytest.mark.slow
def test_export_without_samples_or_with_a_broken_screenshot_writes_nothing(generated: Path, tmp_path: Path, capsys) -> None:
    asking = tmp_path / "ask" / "episodes.jsonl"
    save_episodes(asking, [Episode(id="a", instruction="x", screen_size=(1080, 2400),
                                   steps=[Step(Action.call_user("Which one?"), observation=Observation((1080, 2400)))])])
    out = tmp_path / "out" / "q.jsonl"
    assert main(["data", "export", str(asking), "--dialect", "qwen2.5vl", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "nothing to export" in err and "call_user: not in the qwen2.5vl dialect" in err and "Traceback" not in err
    assert not out.exists() and not out.with_name("dataset_info.json").exists()
    broken = tmp_path / "broken"
    shutil.copytree(generated, broken)
    victim = sorted((broken / "images").iterdir())[-1]
    victim.write_bytes(b"not a png")
    assert main(["data", "export", str(broken), "--dialect", "inquire", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert victim.name in err and "cannot be read as an image" in err and "Traceback" not in err
    assert not out.exists() and [p.name for p in out.parent.iterdir()] == []


def test_convert_refuses_paths_outside_and_image_root_widens(tmp_path: Path, capsys) -> None:
    release = tmp_path / "release"
    release.mkdir()
    record = json.loads((DATA / "mobile_r1_sample.jsonl").read_text(encoding="utf-8").splitlines()[0])
    record["trajectory"][0]["image_name"] = "../../etc/passwd"
    (release / "data.jsonl").write_text(json.dumps(record, ensure_ascii=False) + "\n", encoding="utf-8")
    assert main(["data", "convert", str(release / "data.jsonl"), str(tmp_path / "store")]) == 2
    err = capsys.readouterr().err
    assert "data.jsonl:1: field 'trajectory[0].image_name'" in err and "outside the dataset's folder" in err
    assert not (tmp_path / "store" / "images").exists()
    shots = tmp_path / "shots"
    shots.mkdir()
    for i, step in enumerate(record["trajectory"]):
        step["image_name"] = str(shots / f"{i}.png")
        Image.new("RGB", (54, 120), "white").save(shots / f"{i}.png")
    (release / "data.jsonl").write_text(json.dumps(record, ensure_ascii=False) + "\n", encoding="utf-8")
    assert main(["data", "convert", str(release / "data.jsonl"), str(tmp_path / "store")]) == 2
    assert "--image-root" in capsys.readouterr().err
    assert main(["data", "convert", str(release / "data.jsonl"), str(tmp_path / "store"), "--image-root", str(shots)]) == 0
    assert "3 screenshots" in capsys.readouterr().out
    assert len(list((tmp_path / "store" / "images").iterdir())) == 3


def test_export_bad_target_is_a_clean_error(tmp_path: Path, capsys) -> None:
    assert main(["data", "export", str(DATA / "mobile_r1_sample.jsonl"), "--to", "csv", "-o", str(tmp_path / "x")]) == 2
    assert "--to must be sharegpt or trl" in capsys.readouterr().err
