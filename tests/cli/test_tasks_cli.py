"""`mobile-r1 sim tasks|taxonomy|check` and `mobile-r1 data generate` through the CLI entry point."""

from __future__ import annotations

import json
from pathlib import Path

from mobile_r1.cli.main import main
from mobile_r1.core.formats.native import load_episodes


def test_sim_tasks_lists_tasks_with_categories(capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(["sim", "tasks", "--suite", "nav-sim", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert rows and all(r["category"] in ("control", "navigation") and not r["inquiries"] for r in rows)
    assert {"control", "navigation"} == {r["category"] for r in rows}
    assert main(["sim", "tasks", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert {"risk", "privacy", "intention", "uncertainty", "combination", "control"} <= {r["category"] for r in rows}


def test_sim_taxonomy_prints_22_subcategories(capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(["sim", "taxonomy", "--markdown"]) == 0
    out = capsys.readouterr().out
    assert out.count("\n| ") == 22 + 1 + 1 + 1 - 1  # header, 22 rows, control, total (separator has no space)
    assert "| Risk | red_packet |" in out


def test_sim_check_reports_the_expert_figures(capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(["sim", "check", "--suite", "inquire-sim", "--limit", "8", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    s = report["summary"]
    assert s["episodes"] == 8 and s["success"] == 1.0 and s["inquiry_success"] == 1.0
    assert s["over_asking_controls"] == 0 and report["problems"] == []
    assert main(["sim", "check", "--suite", "nav-sim", "--split", "unseen-app", "--limit", "2"]) == 0
    assert "expert success 100.0%" in capsys.readouterr().out


def test_data_generate_writes_records_screens_and_a11y(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "gen"
    assert main(["data", "generate", "--suite", "inquire-sim", "--split", "train", "--episodes", "2", "--out", str(out),
                 "--self-correct", "1.0", "--scale", "0.15"]) == 0
    assert "wrote 2 episodes" in capsys.readouterr().out
    episodes = load_episodes(out)
    assert len(episodes) == 2
    for ep in episodes:
        assert ep.instruction and ep.category and ep.meta["split"] == "train"
        for i, step in enumerate(ep.steps):
            assert step.thought and step.description
            assert (out / "images" / step.observation.screenshot_path).is_file()  # type: ignore[union-attr, operator]
        assert len(list((out / "a11y").glob("*.txt"))) >= len(ep.steps)
    assert json.loads((out / "generation.json").read_text())["written"] == 2
    assert any(s.info.get("wrong") for ep in episodes for s in ep.steps)


def test_errors_are_one_line_messages(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(["sim", "check", "--suite", "nope"]) == 2
    captured = capsys.readouterr()
    assert "unknown suite 'nope'" in captured.out + captured.err
    assert main(["data", "generate", "--suite", "nav-sim", "--episodes", "1", "--out", str(tmp_path),
                 "--self-correct", "2"]) == 2
    captured = capsys.readouterr()
    assert "--self-correct" in captured.out + captured.err
