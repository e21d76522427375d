"""Benchmark suites and their splits: `inquire-sim` and `nav-sim`, each with train / test / unseen-app episodes.

An episode is (task spec, template, seed), planned here as data (`plan_split`); the simulated phone's backend draws its
parameters from the seeded phone (`mobile_r1.env.sim.episode.build_split`). Train episodes use the
specs' train templates, test and unseen-app episodes their test templates, so no phrasing is shared. The unseen-app
split holds the specs that touch a held-out app (`HELD_OUT_APPS`); train and test never include them. Every split
is a pure function of (suite, split, seed, size).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Callable, NamedTuple

from mobile_r1.core.errors import ConfigError
from mobile_r1.tasks.spec import TaskSpec, load_specs
from mobile_r1.tasks.taxonomy import SUBCATEGORIES, check_spec_category

HELD_OUT_APPS: tuple[str, ...] = ("Food", "Gallery")
SPLITS: tuple[str, ...] = ("train", "test", "unseen-app")
SEED_BASE = {"train": 10_000_000, "test": 0, "unseen-app": 5_000_000}


@dataclass(frozen=True)
class Suite:
    """A suite: which specs it uses, and how many episodes each group gets per split.

    Groups are the inquiry sub-categories (every spec of a sub-category shares its group's episodes) and one
    group per control / navigation spec.
    """

    name: str
    description: str
    select: Callable[[TaskSpec], bool]
    per_group: dict[str, int]  # split -> episodes per sub-category group
    per_control: dict[str, int]  # split -> episodes per control spec


SUITES: dict[str, Suite] = {
    "inquire-sim": Suite(
        "inquire-sim", "When to ask: the 22 inquiry sub-categories plus control tasks where asking is over-asking.",
        lambda s: s.category != "navigation", {"train": 24, "test": 7, "unseen-app": 8}, {"train": 10, "test": 4, "unseen-app": 8}),
    "nav-sim": Suite(
        "nav-sim", "Multi-step navigation without inquiries (3 to 15 expert steps).",
        lambda s: s.category in ("control", "navigation"), {"train": 0, "test": 0, "unseen-app": 0},
        {"train": 40, "test": 15, "unseen-app": 20}),
}


def get_suite(name: str) -> Suite:
    if name not in SUITES:
        raise ConfigError(f"unknown suite {name!r}; suites: {', '.join(SUITES)}")
    return SUITES[name]


def _held_out(spec: TaskSpec) -> bool:
    held = {a.lower() for a in HELD_OUT_APPS}
    return any(a.lower() in held for a in spec.apps)


def suite_specs(name: str, split: str = "test", specs: list[TaskSpec] | None = None) -> list[TaskSpec]:
    """The specs a suite uses in a split (unseen-app: only those touching a held-out app; else none of them)."""
    suite = get_suite(name)
    if split not in SPLITS:
        raise ConfigError(f"unknown split {split!r}; splits: {', '.join(SPLITS)}")
    specs = load_specs() if specs is None else specs
    for s in specs:
        check_spec_category(s.category, s.subcategory, s.source or s.id)
    chosen = [s for s in specs if suite.select(s)]
    return [s for s in chosen if _held_out(s) == (split == "unseen-app")]


class SuiteItem(NamedTuple):
    """One planned episode of a suite split: the spec, the templates it is phrased from (train or test), which one,
    and its seed."""

    spec: TaskSpec
    template_split: str
    template: int
    seed: int


def plan_split(name: str, split: str = "test", seed: int = 0, size: int | None = None,
               specs: list[TaskSpec] | None = None) -> list[SuiteItem]:
    """The episodes of one split, deterministic for `seed`. `size` cuts (or cycles) the balanced list to that length:
    groups (an inquiry sub-category's tasks, or one control / navigation task) take turns, the inquiry groups and the
    control groups interleaved in proportion, so any prefix is a stratified sample of both."""
    suite = get_suite(name)
    chosen = suite_specs(name, split, specs)
    if not chosen:
        raise ConfigError(f"suite {name!r} has no tasks in split {split!r}")
    template_split = "train" if split == "train" else "test"
    rng = random.Random(f"{name}:{split}:{seed}")
    inquiring: list[tuple[str, list[TaskSpec], int]] = []
    for sub in SUBCATEGORIES:
        members = [s for s in chosen if s.subcategory == sub.name and s.category not in ("control", "navigation")]
        if members and suite.per_group[split]:
            inquiring.append((sub.name, members, suite.per_group[split]))
    controls = [(s.id, [s], suite.per_control[split]) for s in chosen if s.category in ("control", "navigation")]
    # The two strata take turns in proportion to their sizes, so a prefix of the list (`--episodes N`) holds tasks
    # that need a question and control tasks alike.
    keyed = [((i + 0.5) / len(inquiring), 0, g) for i, g in enumerate(inquiring)]
    keyed += [((i + 0.5) / len(controls), 1, g) for i, g in enumerate(controls)]
    groups = [g for _, _, g in sorted(keyed, key=lambda k: (k[0], k[1]))]
    plan: list[list[tuple[TaskSpec, int]]] = []
    for _, members, n in groups:
        items = []
        for i in range(n if size is None else max(n, -(-size // len(groups)))):
            spec = members[i % len(members)]
            items.append((spec, (i // len(members)) % 100))
        plan.append(items)
    # Interleave groups so a prefix of the list is balanced too.
    order: list[tuple[TaskSpec, int]] = []
    depth = max(len(p) for p in plan)
    for i in range(depth):
        for p in plan:
            if i < len(p):
                order.append(p[i])
    if size is not None:
        order = order[:size]
    items = []
    base = SEED_BASE[split] + 100_000_000 * seed
    for k, (spec, rep) in enumerate(order):
        phrasings = spec.templates_for("en")
        n_templates = len(phrasings.train if template_split == "train" else phrasings.test)
        template = (rep + rng.randrange(n_templates)) % n_templates
        ep_seed = base + 10 * k + rng.randrange(10)
        items.append(SuiteItem(spec, template_split, template, ep_seed))
    return items


def split_table(specs: list[TaskSpec] | None = None) -> list[dict[str, object]]:
    """Rows (category, sub-category, definition, train / test / unseen-app episodes of inquire-sim) for docs."""
    from mobile_r1.tasks.taxonomy import CONTROL

    specs = load_specs() if specs is None else specs
    counts: dict[tuple[str, str], int] = {}
    for split in SPLITS:
        for item in plan_split("inquire-sim", split, 0, specs=specs):
            key = (item.spec.subcategory if item.spec.category != "control" else "control", split)
            counts[key] = counts.get(key, 0) + 1
    rows = []
    for sub in (*SUBCATEGORIES, CONTROL):
        tasks = sorted(s.id for s in specs if s.subcategory == sub.name and (sub.name != "control" or s.category == "control"))
        rows.append({"category": sub.category, "subcategory": sub.name, "definition": sub.definition,
                     "tasks": tasks, "train": counts.get((sub.name, "train"), 0),
                     "test": counts.get((sub.name, "test"), 0), "unseen-app": counts.get((sub.name, "unseen-app"), 0)})
    return rows
