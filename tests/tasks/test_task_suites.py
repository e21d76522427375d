"""Suites and splits: sizes, balance, disjoint templates, held-out apps, reproducibility; docs table up to date."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from mobile_r1.core.errors import ConfigError
from mobile_r1.tasks.docs import BEGIN, END, taxonomy_markdown
from mobile_r1.env.sim.episode import build_split
from mobile_r1.tasks.spec import load_specs
from mobile_r1.tasks.suites import HELD_OUT_APPS, suite_specs
from mobile_r1.tasks.taxonomy import SUBCATEGORIES

DOCS = Path(__file__).resolve().parents[2] / "docs" / "tasks.md"


def test_inquire_sim_test_split_covers_every_subcategory_with_a_quarter_controls() -> None:
    eps = build_split("inquire-sim", "test")
    assert len(eps) >= 200
    subs = Counter(e.spec.subcategory for e in eps if e.spec.category != "control")
    classic = {s.subcategory for s in load_specs() if s.suite is None and s.category not in ("control", "navigation")}
    assert set(subs) == classic and len(classic) == 22 and classic <= {s.name for s in SUBCATEGORIES}
    controls = sum(e.spec.category == "control" for e in eps)
    assert controls / len(eps) >= 0.25
    assert len({e.id for e in eps}) == len(eps)


def test_nav_sim_test_split_has_only_tasks_without_inquiries() -> None:
    eps = build_split("nav-sim", "test")
    assert len(eps) >= 200 and all(not e.spec.inquiries for e in eps)
    assert {e.spec.category for e in eps} == {"control", "navigation"}
    assert all(e.spec.category != "navigation" for e in build_split("inquire-sim", "test"))


@pytest.mark.slow
@pytest.mark.parametrize("suite", ["inquire-sim", "nav-sim"])
def test_train_and_test_templates_are_disjoint(suite: str) -> None:
    train = {e.template_text for e in build_split(suite, "train")}
    test = {e.template_text for e in build_split(suite, "test")} | {e.template_text for e in build_split(suite, "unseen-app")}
    assert train and test and not train & test


@pytest.mark.slow
def test_unseen_app_split_holds_out_whole_apps() -> None:
    held = set(HELD_OUT_APPS)
    for split in ("train", "test"):
        assert all(not held & set(e.spec.apps) for e in build_split("inquire-sim", split))
    unseen = build_split("inquire-sim", "unseen-app")
    assert unseen and all(held & set(e.spec.apps) for e in unseen)


@pytest.mark.slow
def test_splits_are_reproducible_from_the_seed() -> None:
    a = [(e.id, e.instruction) for e in build_split("inquire-sim", "test", seed=0)]
    b = [(e.id, e.instruction) for e in build_split("inquire-sim", "test", seed=0)]
    c = [(e.id, e.instruction) for e in build_split("inquire-sim", "test", seed=1)]
    assert a == b and a != c
    assert [e.id for e in build_split("nav-sim", "train", size=30)] == [e.id for e in build_split("nav-sim", "train", size=30)]
    assert len(build_split("nav-sim", "train", size=900)) == 900


def test_episode_params_match_the_phone_it_runs_on() -> None:
    for ep in build_split("inquire-sim", "test")[:40]:
        before = dict(ep.params)
        ep.make_env(render=False)
        assert ep.params == before


def test_unknown_suite_or_split() -> None:
    with pytest.raises(ConfigError, match="unknown suite"):
        build_split("nope")
    with pytest.raises(ConfigError, match="unknown split"):
        suite_specs("nav-sim", "dev")


def test_docs_table_is_generated_from_the_suites() -> None:
    text = DOCS.read_text()
    table = text[text.index(BEGIN) + len(BEGIN):text.index(END)].strip()
    assert table == taxonomy_markdown(), "run `python -m mobile_r1.tasks.docs` to refresh docs/tasks.md"
