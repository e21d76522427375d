"""`mobile-r1 sim tasks|taxonomy|check` and `mobile-r1 data generate` through the CLI entry point."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from mobile_r1.cli.main import main
from mobile_r1.core.errors import ConfigError
from mobile_r1.core.formats.native import load_episodes
from mobile_r1.env import make_backend
from mobile_r1.env.swap import swap_names
from tests import toy_phone


@pytest.mark.slow
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


def test_sim_taxonomy_prints_every_subcategory(capsys) -> None:  # type: ignore[no-untyped-def]
    from mobile_r1.tasks.taxonomy import SUBCATEGORIES

    assert main(["sim", "taxonomy", "--markdown"]) == 0
    out = capsys.readouterr().out
    # header, a row per sub-category, control, total (the separator has no space)
    assert out.count("\n| ") == len(SUBCATEGORIES) + 1 + 1 + 1 - 1
    assert "| Risk | red_packet |" in out


@pytest.mark.slow
def test_sim_check_reports_the_expert_figures(capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(["sim", "check", "--suite", "inquire-sim", "--limit", "8", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    s = report["summary"]
    assert s["episodes"] == 8 and s["success"] == 1.0 and s["inquiry_success"] == 1.0
    assert s["over_asking_controls"] == 0 and report["problems"] == []
    assert main(["sim", "check", "--suite", "nav-sim", "--split", "unseen-app", "--limit", "2"]) == 0
    assert "expert success 100.0%" in capsys.readouterr().out


@pytest.mark.slow
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


@pytest.mark.slow
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


def inside(box: tuple[int, int, int, int], outer: tuple[int, int, int, int]) -> bool:
    return outer[0] <= box[0] and outer[1] <= box[1] and box[2] <= outer[2] and box[3] <= outer[3]


@pytest.mark.slow
def test_data_swap_names_makes_up_every_pool_name_consistently_within_a_copy(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    source = tmp_path / "expert"
    assert main(["data", "generate", "--suite", "nav-sim", "--episodes", "18", "--out", str(source), "--no-screenshots",
                 "--search-first"]) == 0
    originals = {ep.id: ep for ep in load_episodes(source)}
    out = tmp_path / "swapped"
    assert main(["data", "swap-names", str(source), "--out", str(out), "--tasks", "shop.,contacts.favorite",
                 "--copies", "2"]) == 0
    matched = [i for i in originals if i.startswith(("shop.", "contacts.favorite"))]
    assert f"wrote {2 * len(matched)} swapped copies of {len(matched)} of the 18 episodes" in capsys.readouterr().out
    copies = load_episodes(out)
    assert [c.id for c in copies] == [f"{i}/swap{k}" for i in matched for k in (0, 1)]
    pool = re.compile(r"\b(" + "|".join(map(re.escape, make_backend("sim").name_pool())) + r")\b")
    text = (out / "episodes.jsonl").read_text(encoding="utf-8")
    assert not pool.search(text)  # no name of the simulator's pools is left anywhere
    names = {}
    for copy in copies:
        original = originals[copy.id.rsplit("/", 1)[0]]
        key = "product" if copy.id.startswith("shop.") else "contact"
        name, old = copy.meta["params"][key], original.meta["params"][key]
        assert name != old and name in copy.instruction and name in copy.meta["restated"]
        assert [s.action.type for s in copy.steps] == [s.action.type for s in original.steps]
        typed = [s.action.text.strip() for s in copy.steps if s.action.text and s.action.type.value == "type"]
        assert typed[0] == name  # the name typed into the search field is the copy's own
        tap = next(s for s in copy.steps[2:] if s.action.type.value == "click" and s.bbox is not None
                   and any(name in e.label for e in s.observation.elements if inside(e.bounds, s.bbox)))
        assert tap.action.coordinate == original.steps[copy.steps.index(tap)].action.coordinate
        names.setdefault(original.id, []).append(name)
    assert all(len(set(pair)) == 2 for pair in names.values())  # each copy has its own names
    again = tmp_path / "again"
    assert main(["data", "swap-names", str(source), "--out", str(again), "--tasks", "shop.,contacts.favorite"]) == 0
    assert (again / "episodes.jsonl").read_bytes() == (out / "episodes.jsonl").read_bytes()  # the seed reproduces it

    lines = (source / "episodes.jsonl").read_text(encoding="utf-8").splitlines()
    shot = json.loads(lines[0])
    shot["steps"][0]["observation"]["screenshot_path"] = "x.png"
    (tmp_path / "shots").mkdir()
    (tmp_path / "shots" / "episodes.jsonl").write_text(json.dumps(shot) + "\n", encoding="utf-8")
    assert main(["data", "swap-names", str(tmp_path / "shots"), "--out", str(tmp_path / "x")]) == 2
    assert "has screenshots" in capsys.readouterr().err
    assert main(["data", "swap-names", str(source), "--out", str(tmp_path / "y"), "--tasks", "nope."]) == 2
    assert "no episode of" in capsys.readouterr().err and not (tmp_path / "y").exists()
    toy_phone.register()  # a backend whose entries come from no fixed pool of names has nothing to swap
    with pytest.raises(ConfigError, match="no fixed pool of names"):
        swap_names(source, tmp_path / "z", env="toy")


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


@pytest.mark.slow
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


def test_sim_check_of_the_released_suite_names_the_lines_no_template_plays_yet(capsys) -> None:  # type: ignore[no-untyped-def]
    """The inquirebench-sim test split is the released lines a template plays; the others are named, never played."""
    from mobile_r1.env.sim import SimBackend

    assert main(["sim", "check", "--suite", "inquirebench-sim", "--split", "test", "--limit", "2", "--json"]) == 0
    lines = json.loads(capsys.readouterr().out)["summary"]["released_lines"]
    assert lines["total"] == 190 and lines["played"] + len(lines["unplayed"]) == 190
    refs = SimBackend(render=False).episodes("inquirebench-sim", split="test")
    assert len(refs) == lines["played"]
    played = {f"{Path(str(r.meta['line']['file'])).name}:{r.meta['line']['line']}" for r in refs}
    assert not played & set(lines["unplayed"])
