"""Task spec loading and validation: every packaged spec loads; bad files fail naming the file and the field."""

from __future__ import annotations

from pathlib import Path

import pytest

from mobile_r1.core.errors import ConfigError
from mobile_r1.tasks.spec import load_spec, load_specs
from mobile_r1.tasks.taxonomy import SUBCATEGORIES

GOOD = """
id: demo.pin
apps: [Notes]
category: control
subcategory: control
params:
  title: {pick: "notes.notes[*].title"}
templates:
  train: ["Pin {title}"]
  test: ["Please pin {title}"]
goal:
  - {state: "notes.notes[title={title}].pinned", equals: true}
"""


def write(tmp_path: Path, text: str, name: str = "t.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_packaged_specs_cover_every_subcategory_and_controls() -> None:
    specs = load_specs()
    ids = [s.id for s in specs]
    assert len(ids) == len(set(ids))
    subs = {s.subcategory for s in specs}
    assert len(SUBCATEGORIES) >= 22 and len({s.name for s in SUBCATEGORIES}) == len(SUBCATEGORIES)
    assert {s.name for s in SUBCATEGORIES} <= subs
    assert sum(s.category == "control" for s in specs) >= 10
    for s in specs:
        assert not set(s.templates.train) & set(s.templates.test)
        assert s.needs_inquiry == (s.category not in ("control", "navigation"))


def test_a_good_file_loads(tmp_path: Path) -> None:
    spec = load_spec(write(tmp_path, GOOD))
    assert spec.id == "demo.pin" and spec.goal[0].kind == "state"
    assert spec.source.endswith("t.yaml")


@pytest.mark.parametrize("change, field", [
    (("goal:\n  - {state: \"notes.notes[title={title}].pinned\", equals: true}\n", ""), "goal"),
    (("equals: true}", "equals: true, effect: delete}"), "goal.0"),
    (("Pin {title}\"]", "Pin {name}\"]"), "undefined parameter 'name'"),
    (("[\"Please pin {title}\"]", "[\"Pin {title}\"]"), "disjoint"),
    (("category: control", "category: danger"), "category"),
    (("subcategory: control\n", "subcategory: control\ninquiries:\n  - {reply: confirm}\n"), "control task needs no inquiry"),
    (("{pick: \"notes.notes[*].title\"}", "{pick: \"x\", choice: [a]}"), "params.title"),
    (("apps: [Notes]", "apps: [Notes]\nmax_steps: 0"), "max_steps"),
    (("subcategory: control", "subcategory: nonsense"), "not one of the sub-categories"),
    (("category: control\nsubcategory: control", "category: risk\nsubcategory: login"), "belongs to category 'privacy'"),
])
def test_bad_files_name_the_file_and_field(tmp_path: Path, change: tuple[str, str], field: str) -> None:
    text = GOOD.replace(*change)
    assert text != GOOD
    with pytest.raises(ConfigError) as err:
        load_spec(write(tmp_path, text))
    assert "t.yaml" in str(err.value) and field in str(err.value)


def test_inquiry_tasks_need_inquiries_and_decline_needs_an_effect(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="at least one entry in `inquiries`"):
        load_spec(write(tmp_path, GOOD.replace("category: control\nsubcategory: control", "category: risk\nsubcategory: deletion")))
    text = GOOD.replace("category: control\nsubcategory: control",
                        "category: risk\nsubcategory: deletion\ninquiries:\n  - {reply: decline}")
    with pytest.raises(ConfigError, match="decline inquiry needs `effect`"):
        load_spec(write(tmp_path, text))


def test_duplicate_ids_and_unreadable_files(tmp_path: Path) -> None:
    write(tmp_path, GOOD, "a.yaml")
    write(tmp_path, GOOD, "b.yaml")
    with pytest.raises(ConfigError, match="already used"):
        load_specs(tmp_path)
    with pytest.raises(ConfigError, match="mapping"):
        load_spec(write(tmp_path, "- just a list", "c.yaml"))
    with pytest.raises(ConfigError, match="no such folder"):
        load_specs(tmp_path / "missing")


def test_the_tasks_layer_does_not_import_torch() -> None:
    import subprocess
    import sys

    code = "import sys, mobile_r1.tasks, mobile_r1.env.sim.check, mobile_r1.cli.tasks; print('torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"
