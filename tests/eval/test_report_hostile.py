"""A run folder is data: the report embeds only screenshots inside it, shows fields of any type as escaped text, and
refuses a verdict of the wrong type with its field named."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from mobile_r1.cli.main import main
from mobile_r1.eval.report import write_report

VERDICT = {"success": False, "inquiry": "missed", "over_asks": 0, "safety_violation": False, "steps": 2, "score": None,
           "reason": "r", "category": "risk", "subcategory": "risk/pay", "language": "en"}


def run_folder(root: Path, steps: list[Any], **record: Any) -> Path:
    run = root / "run"
    (run / "screens").mkdir(parents=True)
    Image.new("RGB", (108, 240), "white").save(run / "screens" / "ok.png")
    line = {"id": "e1", "instruction": "Pay", "category": "risk", "steps": steps, "verdict": VERDICT, **record}
    (run / "episodes.jsonl").write_text(json.dumps(line) + "\n", encoding="utf-8")
    (run / "run.json").write_text(json.dumps({"agent": "x", "suite": "inquire-sim", "split": "test"}), encoding="utf-8")
    return run


def step(path: Any, **extra: Any) -> dict[str, Any]:
    return {"index": 0, "action": {"action": "click", "coordinate": [10, 20]}, "thought": "t",
            "observation": {"screen_size": [1080, 2400], "screenshot_path": path}, **extra}


def test_only_screenshots_inside_the_run_folder_are_embedded(tmp_path: Path) -> None:
    outside = tmp_path / "secret.png"
    Image.new("RGB", (108, 240), "red").save(outside)
    steps = [step("screens/ok.png"), step("/etc/passwd"), step("../secret.png"), step(str(outside)),
             step("screens/link.png"), step("screens/notes.txt"), step(["screens/ok.png"])]
    run = run_folder(tmp_path / "inner", steps, final_screenshot="/etc/passwd")
    (tmp_path / "inner" / "secret.png").write_bytes(outside.read_bytes())  # what "../secret.png" reaches
    os.symlink(outside, run / "screens" / "link.png")
    (run / "screens" / "notes.txt").write_text("not an image")
    page = write_report([run], tmp_path / "report.html").read_text(encoding="utf-8")
    assert page.count("<img") == 1  # screens/ok.png alone
    assert page.count("lies outside the run folder; not shown") == 4  # /etc/passwd, .., the absolute path, the link
    assert "unreadable screenshot" in page and "screenshot path is not text (list)" in page


def test_fields_of_any_type_are_shown_as_escaped_text(tmp_path: Path) -> None:
    hostile = [
        {"index": "x", "action": ["click"], "thought": {"a": "<b>bold</b>"}, "observation": "screen",
         "user_reply": 5, "env_error": ["<script>alert(1)</script>"]},
        "not a step",
        step("screens/ok.png", action={"action": "click", "coordinate": ["a", None]}, index=None),
        step("screens/ok.png", observation={"screen_size": "big", "screenshot_path": "screens/ok.png"}),
    ]
    run = run_folder(tmp_path, hostile, id=7, instruction=["<i>pay</i>"], category=None, truncated="yes")
    page = write_report([run], tmp_path / "report.html").read_text(encoding="utf-8")
    assert "<script>alert" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "&lt;b&gt;bold&lt;/b&gt;" in page and "&lt;i&gt;pay&lt;/i&gt;" in page
    assert "malformed step" in page and "(not an action: [&#34;click&#34;])" in page


@pytest.mark.parametrize("field, value", [("over_asks", "x"), ("score", "high"), ("success", "false"),
                                          ("steps", [1]), ("reason", {"a": 1})])
def test_a_verdict_field_of_the_wrong_type_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str], field: str,
                                                    value: Any) -> None:
    run = run_folder(tmp_path, [step("screens/ok.png")])
    line = json.loads((run / "episodes.jsonl").read_text())
    line["verdict"] = {**VERDICT, field: value}
    (run / "episodes.jsonl").write_text(json.dumps(line) + "\n")
    assert main(["report", str(run), "--out", str(tmp_path / "r.html")]) == 2
    captured = capsys.readouterr()
    assert f"field '{field}'" in " ".join(captured.err.split()) and "Traceback" not in captured.err


@pytest.mark.parametrize("text", ['[1, 2]', '{"id": "e1", "verdict": [1]}'])
def test_a_record_that_is_not_an_episode_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str) -> None:
    run = run_folder(tmp_path, [])
    (run / "episodes.jsonl").write_text(text + "\n")
    assert main(["report", str(run), "--out", str(tmp_path / "r.html")]) == 2
    assert "episode record 1: expected an object with a 'verdict' object" in capsys.readouterr().err
