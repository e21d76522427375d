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
    assert main(["sim", "tasks", "--suite", "nav-sim", "--json"]) == 0
    nav = [r["id"] for r in json.loads(capsys.readouterr().out)]
    assert main(["sim", "tasks", "--suite", "nav-sim"]) == 0  # the table is a result: standard output, not standard error
    printed = capsys.readouterr()
    assert printed.err == "" and all(task in printed.out for task in nav)


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


def test_data_generate_search_first_finds_named_entries_through_the_search_field(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    runs = {}
    for name, extra in (("plain", []), ("search", ["--search-first"])):
        out = tmp_path / name
        assert main(["data", "generate", "--suite", "nav-sim", "--episodes", "18", "--out", str(out),
                     "--no-screenshots", *extra]) == 0
        assert json.loads((out / "generation.json").read_text())["search_first"] is (name == "search")
        runs[name] = {ep.id: ep for ep in load_episodes(out)}
    assert runs["plain"].keys() == runs["search"].keys()
    named = {"shop.": "product", "contacts.favorite": "contact"}
    checked = 0
    for eid, ep in runs["search"].items():
        key = next((named[k] for k in named if eid.startswith(k)), None)
        typed = [s.action.text.strip() for s in ep.steps if s.action.text and s.action.type.value == "type"]
        plain = [s.action.text for s in runs["plain"][eid].steps if s.action.type.value == "type"]
        if key is None:
            continue
        checked += 1
        assert typed == [ep.meta["params"][key]] and not plain, eid  # typed into the search field, never browsed
    assert checked >= 3
    assert "wrote 18 episodes" in capsys.readouterr().out


def test_errors_are_one_line_messages(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(["sim", "check", "--suite", "nope"]) == 2
    captured = capsys.readouterr()
    assert "unknown suite 'nope'" in captured.out + captured.err
    assert main(["data", "generate", "--suite", "nav-sim", "--episodes", "1", "--out", str(tmp_path),
                 "--self-correct", "2"]) == 2
    captured = capsys.readouterr()
    assert "--self-correct" in captured.out + captured.err


UNPIN = """id: my.unpin
apps: [Notes]
category: control
subcategory: control
description: Unpin a pinned note.
params:
  title: {pick: "notes.notes[pinned=true].title"}
templates:
  train: ["Unpin the note '{title}'"]
  test: ["Take {title} off the top of Notes"]
setup:
  - {set: "notes.notes[title={title}].pinned", value: true}
goal:
  - {state: "notes.notes[title={title}].pinned", equals: false, hint: ["{title}", "Unpin"]}
"""


def _my_specs(tmp_path: Path) -> Path:
    folder = tmp_path / "my-specs" / "notes"
    folder.mkdir(parents=True)
    (folder / "unpin.yaml").write_text(UNPIN, encoding="utf-8")
    return tmp_path / "my-specs"


def test_your_own_specs_join_the_suites_and_pass_the_check(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    specs = _my_specs(tmp_path)
    assert main(["sim", "tasks", "--specs", str(specs), "--json"]) == 0
    listed = {r["id"] for r in json.loads(capsys.readouterr().out)}
    assert "my.unpin" in listed and "notes.pin" in listed  # added to the packaged ones
    assert main(["sim", "tasks", "--specs", str(specs), "--specs-only", "--json"]) == 0
    assert [r["id"] for r in json.loads(capsys.readouterr().out)] == ["my.unpin"]
    assert main(["sim", "check", "--specs", str(specs), "--specs-only", "--suite", "inquire-sim", "--split", "test",
                 "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["summary"]["episodes"] == 4 and report["summary"]["success"] == 1.0  # 4 episodes per control task
    assert main(["sim", "check", "--specs", str(specs), "--suite", "inquire-sim", "--split", "test", "--limit", "60",
                 "--json"]) in (0, 1)
    out = tmp_path / "data"
    assert main(["data", "generate", "--suite", "nav-sim", "--split", "train", "--episodes", "3", "--out", str(out),
                 "--specs", str(specs), "--specs-only", "--no-screenshots"]) == 0
    episodes = load_episodes(out / "episodes.jsonl")
    assert len(episodes) == 3 and all(e.id.startswith("my.unpin/") for e in episodes)
    run = tmp_path / "run"
    assert main(["eval", "--agent", "oracle", "--suite", "nav-sim", "--episodes", "2", "--specs", str(specs),
                 "--specs-only", "--out", str(run)]) == 0
    assert {json.loads(line)["task"] for line in (run / "episodes.jsonl").read_text().splitlines()} == {"my.unpin"}


def test_bad_specs_are_file_and_field_errors(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    specs = _my_specs(tmp_path)
    (specs / "notes" / "broken.yaml").write_text(UNPIN.replace("id: my.unpin", "id: my.broken").replace("goal:", "gaol:"))
    assert main(["sim", "tasks", "--specs", str(specs)]) == 2
    err = capsys.readouterr().err
    assert "broken.yaml" in err and "gaol" in err and "Traceback" not in err
    (specs / "notes" / "broken.yaml").write_text(UNPIN.replace("id: my.unpin", "id: notes.pin"))
    assert main(["sim", "tasks", "--specs", str(specs)]) == 2
    err = capsys.readouterr().err
    assert "notes.pin" in err and "already used" in err
    assert main(["sim", "tasks", "--specs-only"]) == 2
    assert "--specs DIR" in capsys.readouterr().err
