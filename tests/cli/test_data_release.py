"""Released data as it is: screenshot paths of the authors' machine found by name under --image-root, and labels outside
their frame or box counted and skipped or kept, through `data stats | convert | export` and `eval-offline`."""

from __future__ import annotations

import json
from pathlib import Path

from PIL import Image

from mobile_r1.cli.main import main
from mobile_r1.core.formats import load_any

AUTHOR = "/home/author/GUI-R1/new_images"


def grpo_record(goal: str, action: dict, images: list[str], *, size=(720, 1280), resized=(720, 1280),
                bbox=(-1, -1, -1, -1)) -> dict:
    return {"goal": goal, "action": json.dumps({"name": "mobile_use", "arguments": action}), "bbox": list(bbox),
            "width": size[0], "height": size[1], "resized_width": resized[0], "resized_height": resized[1],
            "img_list": images, "system": "", "query": f"用户任务: {goal}\n历史动作: \n当前屏幕截图:\n<image>\n"}


def release(tmp_path: Path) -> tuple[Path, Path]:
    """InquireMobile-style GRPO records naming screenshots by absolute paths of another machine, and a folder that holds
    those files (in a layout of its own): a 720x1280 trajectory whose labels are fine, and a 1440x3200 one whose second
    label lies beyond its declared 644x1484 frame (the released data has such a trajectory)."""
    shots = tmp_path / "downloaded" / "new_images"
    shots.mkdir(parents=True)
    for name, size in (("a1", (720, 1280)), ("a2", (720, 1280)), ("b1", (1440, 3200)), ("b2", (1440, 3200))):
        Image.new("RGB", (size[0] // 8, size[1] // 8), (40, 80, 120)).save(shots / f"{name}.png")
    records = [
        grpo_record("Like the second note", {"action": "click", "coordinate": [85, 537]}, [f"{AUTHOR}/a1.png"],
                    bbox=(52, 497, 125, 567)),
        grpo_record("Like the second note", {"action": "terminate", "status": "success"},
                    [f"{AUTHOR}/a1.png", f"{AUTHOR}/a2.png"]),
        grpo_record("Follow the author", {"action": "click", "coordinate": [101, 693]}, [f"{AUTHOR}/b1.png"],
                    size=(1440, 3200), resized=(644, 1484), bbox=(180, 1450, 270, 1540)),
        grpo_record("Follow the author", {"action": "click", "coordinate": [667, 85]},
                    [f"{AUTHOR}/b1.png", f"{AUTHOR}/b2.png"], size=(1440, 3200), resized=(644, 1484),
                    bbox=(1302, 184, 1371, 255)),
    ]
    data = tmp_path / "release" / "interactive_grpo.jsonl"
    data.parent.mkdir()
    data.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    return data, tmp_path / "downloaded"


def test_convert_finds_the_authors_paths_by_name_under_image_root(tmp_path: Path, capsys) -> None:
    data, root = release(tmp_path)
    assert main(["data", "convert", str(data), str(tmp_path / "refused")]) == 2
    assert "leads outside the dataset's folder" in capsys.readouterr().err
    store = tmp_path / "store"
    assert main(["data", "convert", str(data), str(store), "--image-root", str(root)]) == 0
    captured = capsys.readouterr()
    assert "2 episodes (inquire-grpo)" in captured.out and "3 screenshots" in captured.out
    assert "1 label(s) outside their frame of 3 checked: skipped 1 step(s)" in captured.err
    assert "click coordinate (1491, 183) is off the 1440x3200 screen" in captured.err
    _, episodes = load_any(store)
    shots = [Path(s.observation.screenshot_path) for e in episodes for s in e.steps]
    assert [Image.open(p).size for p in shots] == [(90, 160), (90, 160), (180, 400)]


def test_keep_keeps_a_bad_label_as_recorded_and_stats_count_it(tmp_path: Path, capsys) -> None:
    data, root = release(tmp_path)
    assert main(["data", "stats", str(data), "--json", "--bad-labels", "keep"]) == 0
    figures = json.loads(capsys.readouterr().out)
    assert figures["steps"] == 4 and figures["bad_labels"] == {
        "policy": "keep", "checked": 3, "outside_frame": 1, "outside_box": 0, "dropped_steps": 0, "dropped_episodes": 0,
        "examples": ["episode 'interactive_grpo-3' step 1: outside its frame: click coordinate (1491, 183) is off the "
                     "1440x3200 screen"]}
    store = tmp_path / "kept"
    assert main(["data", "convert", str(data), str(store), "--image-root", str(root), "--bad-labels", "keep"]) == 0
    _, episodes = load_any(store)
    assert episodes[1].steps[1].action.coordinate == (1491, 183)  # as recorded: never moved into the frame
    assert main(["data", "stats", str(data), "--bad-labels", "move"]) == 2
    assert "--bad-labels must be skip or keep" in capsys.readouterr().err


def test_a_name_found_twice_equally_well_is_refused_and_folders_break_ties(tmp_path: Path, capsys) -> None:
    data, root = release(tmp_path)
    (root / "copy" / "new_images").mkdir(parents=True)
    Image.new("RGB", (90, 160)).save(root / "copy" / "new_images" / "a1.png")
    assert main(["data", "convert", str(data), str(tmp_path / "store"), "--image-root", str(root)]) == 2
    err = capsys.readouterr().err
    assert "2 files that match it equally well" in err and "img_list[0]" in err
    # one more folder of the recorded path in common picks the right one
    (root / "copy" / "new_images" / "a1.png").rename(root / "copy" / "new_images" / "a1-other.png")
    (root / "GUI-R1" / "new_images").mkdir(parents=True)
    for name in ("a1", "a2"):
        Image.new("RGB", (45, 80)).save(root / "GUI-R1" / "new_images" / f"{name}.png")
    _, episodes = load_any(data, image_root=root)
    assert episodes[0].steps[0].observation.screenshot_path == str((root / "GUI-R1" / "new_images" / "a1.png").resolve())


def test_a_link_under_image_root_that_leads_out_is_refused(tmp_path: Path, capsys) -> None:
    data, root = release(tmp_path)
    (root / "new_images" / "a1.png").unlink()
    (root / "new_images" / "a1.png").symlink_to("/etc/passwd")
    assert main(["data", "stats", str(data), "--image-root", str(root)]) == 0  # statistics read no path
    assert main(["data", "convert", str(data), str(tmp_path / "store"), "--image-root", str(root)]) == 2
    assert "leads outside" in capsys.readouterr().err


def test_eval_offline_takes_image_root_and_bad_labels(tmp_path: Path, capsys) -> None:
    data, root = release(tmp_path)
    assert main(["eval-offline", "--agent", "random", "--data", str(data), "--json"]) == 2
    assert "--image-root" in capsys.readouterr().err
    assert main(["eval-offline", "--agent", "random", "--data", str(data), "--image-root", str(root), "--json"]) == 0
    captured = capsys.readouterr()
    summary = json.loads(captured.out)
    assert summary["steps"] == 3 and summary["preset"] == "qwen-ac"
    assert "1 label(s) outside their frame" in captured.err
