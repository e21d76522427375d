"""Benchmark suites and their splits: `inquire-sim` and `nav-sim` (train / test / unseen-app), and `inquirebench-sim`
(test: InquireBench's 190 released lines; train: the same templates with other values and their own phrasings).

An episode is (task spec, template, seed), planned here as data (`plan_split`); the simulated phone's backend draws its
parameters from the seeded phone (`mobile_r1.env.sim.episode.build_split`). Train episodes use the
specs' train templates, test and unseen-app episodes their test templates, so no phrasing is shared. The unseen-app
split holds the specs that touch a held-out app (`HELD_OUT_APPS`); train and test never include them. Every split
is a pure function of (suite, split, seed, size).

Suites are fixed: the packaged specs' episodes are planned from the packaged specs alone, so a user's specs (`--specs
DIR`) add episodes of their own (each planned from its own id, woven into the list) and never change another task's
episode. `suite_version` names what a split was planned from; a run records it, so that two runs can be compared.
"""

from __future__ import annotations

import hashlib
import json
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, NamedTuple

from mobile_r1.core.errors import ConfigError
from mobile_r1.tasks.spec import SPECS_DIR, TaskSpec, load_specs
from mobile_r1.tasks.taxonomy import SUBCATEGORIES, check_spec_category

PLAN_VERSION = 2  # how splits are planned; part of every suite version

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
    splits: tuple[str, ...] = ("train", "test", "unseen-app")
    released: bool = False  # the test split is the released task lines (`tasks.released`)
    per_spec: dict[str, int] = field(default_factory=dict)  # released suites: generated episodes per spec and language


SUITES: dict[str, Suite] = {
    "inquire-sim": Suite(
        "inquire-sim", "When to ask: the 22 inquiry sub-categories plus control tasks where asking is over-asking.",
        lambda s: s.suite is None and s.category != "navigation", {"train": 24, "test": 7, "unseen-app": 8},
        {"train": 10, "test": 4, "unseen-app": 8}),
    "nav-sim": Suite(
        "nav-sim", "Multi-step navigation without inquiries (3 to 15 expert steps).",
        lambda s: s.suite is None and s.category in ("control", "navigation"), {"train": 0, "test": 0, "unseen-app": 0},
        {"train": 40, "test": 15, "unseen-app": 20}),
    "inquirebench-sim": Suite(
        "inquirebench-sim", "InquireBench on the simulated phone: the released lines (English and Chinese) its templates "
        "play as the test split, rule-judged (`sim check --suite inquirebench-sim` names the lines not played yet); "
        "train: the same templates with other values and their own phrasings.",
        lambda s: s.suite == "inquirebench-sim", {}, {}, splits=("train", "test"), released=True,
        per_spec={"train": 24}),
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
    if split not in suite.splits:
        raise ConfigError(f"unknown split {split!r} for suite {name!r}; splits: {', '.join(suite.splits)}")
    specs = load_specs() if specs is None else specs
    for s in specs:
        check_spec_category(s.category, s.subcategory, s.source or s.id)
    chosen = [s for s in specs if suite.select(s)]
    if suite.released:
        return chosen
    return [s for s in chosen if _held_out(s) == (split == "unseen-app")]


def is_packaged(spec: TaskSpec) -> bool:
    """Whether the spec ships with the package (rather than coming from a user's folder)."""
    if not spec.source:
        return True
    try:
        Path(spec.source).resolve().relative_to(SPECS_DIR.resolve())
    except ValueError:
        return False
    return True


def suite_version(name: str, specs: list[TaskSpec] | None = None) -> str:
    """A short hash of what the suite's splits are planned from: the planner's version and every packaged spec the
    suite uses, as data. Two runs of the same version and split played the same episodes."""
    suite = get_suite(name)
    specs = load_specs() if specs is None else specs
    chosen = sorted((s for s in specs if suite.select(s) and is_packaged(s)), key=lambda s: s.id)
    digest = hashlib.blake2b(digest_size=6)
    digest.update(json.dumps([name, PLAN_VERSION], separators=(",", ":")).encode())
    for spec in chosen:
        digest.update(json.dumps(spec.model_dump(mode="json", exclude={"source"}), sort_keys=True, default=str).encode())
    if suite.released:
        from mobile_r1.tasks.released import packaged_files

        for path in packaged_files():
            digest.update(path.read_bytes())
    return f"{name}@{digest.hexdigest()}"


class SuiteItem(NamedTuple):
    """One planned episode of a suite split: the spec, the templates it is phrased from (train or test), which one,
    its seed and its language; for a released line, the line and the values read off it."""

    spec: TaskSpec
    template_split: str
    template: int
    seed: int
    language: str = "en"
    line: dict[str, Any] | None = None
    values: dict[str, Any] | None = None


def _stable_seed(*parts: object) -> int:
    return int.from_bytes(hashlib.blake2b(":".join(map(str, parts)).encode(), digest_size=4).digest(), "big")


def plan_split(name: str, split: str = "test", seed: int = 0, size: int | None = None,
               specs: list[TaskSpec] | None = None) -> list[SuiteItem]:
    """The episodes of one split, deterministic for `seed`. `size` cuts (or cycles) the balanced list to that length:
    groups (an inquiry sub-category's tasks, or one control / navigation task) take turns, the inquiry groups and the
    control groups interleaved in proportion, so any prefix is a stratified sample of both."""
    suite = get_suite(name)
    chosen = suite_specs(name, split, specs)
    if not chosen:
        raise ConfigError(f"suite {name!r} has no tasks in split {split!r}")
    if suite.released:
        return _released_split(suite, split, seed, size, chosen)
    packaged = [s for s in chosen if is_packaged(s)]
    own = [s for s in chosen if not is_packaged(s)]
    items = _planned(suite, split, seed, None if own else size, packaged) if packaged else []
    if own:
        items = _weave(items, [_own_items(suite, split, seed, s) for s in own])
    return items[:size] if size is not None else items


def _own_items(suite: Suite, split: str, seed: int, spec: TaskSpec) -> list[SuiteItem]:
    """A user's spec's episodes, planned from its own id alone (so no other spec changes them)."""
    control = spec.category in ("control", "navigation")
    n = (suite.per_control if control else suite.per_group).get(split, 0)
    template_split = "train" if split == "train" else "test"
    count = len(spec.templates_for("en").train if template_split == "train" else spec.templates_for("en").test)
    rng = random.Random(f"{suite.name}:{split}:{seed}:{spec.id}")
    base = 90_000_000 + SEED_BASE[split] + 100_000_000 * seed
    return [SuiteItem(spec, template_split, (k + rng.randrange(count)) % count, base + _stable_seed(spec.id, k) % 10_000_000)
            for k in range(n)]


def _weave(items: list[SuiteItem], extra: list[list[SuiteItem]]) -> list[SuiteItem]:
    """`items` with each list of `extra` spread evenly through it (the relative order of `items` is kept)."""
    out: list[tuple[float, int, SuiteItem]] = [(float(i), 0, item) for i, item in enumerate(items)]
    total = max(1, len(items))
    for rank, group in enumerate(extra, 1):
        for k, item in enumerate(group):
            out.append(((k + 0.5) * total / len(group) if group else 0.0, rank, item))
    return [item for _, _, item in sorted(out, key=lambda o: (o[0], o[1]))]


def _released_split(suite: Suite, split: str, seed: int, size: int | None, chosen: list[TaskSpec]) -> list[SuiteItem]:
    """A released suite's split: the packaged task lines (test), or per spec and language generated episodes (train),
    each planned from its spec's id alone."""
    if split == "test":
        from mobile_r1.tasks.released import line_record, packaged_files, playable_lines, read_lines

        lines = [line for path in packaged_files() for line in read_lines(path)]
        items = [SuiteItem(m.spec, "test", m.template, 0, m.line.language, line_record(m.line), m.values)
                 for m in playable_lines(lines, chosen)[0]]
        return items[:size] if size is not None else items
    per_spec = suite.per_spec.get(split, 0)
    groups: list[list[SuiteItem]] = []
    for spec in sorted(chosen, key=lambda s: s.id):
        for language in spec.languages:
            count = len(spec.templates_for(language).train)
            rng = random.Random(f"{suite.name}:{split}:{seed}:{spec.id}:{language}")
            groups.append([SuiteItem(spec, "train", (k + rng.randrange(count)) % count,
                                     SEED_BASE["train"] + 100_000_000 * seed + _stable_seed(spec.id, language, k) % 50_000_000,
                                     language) for k in range(per_spec)])
    items = [g[k] for k in range(per_spec) for g in groups if k < len(g)]
    return items[:size] if size is not None else items


def _planned(suite: Suite, split: str, seed: int, size: int | None, chosen: list[TaskSpec]) -> list[SuiteItem]:
    """The packaged specs' episodes of a split (the planner of every suite version so far)."""
    name = suite.name
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
    listed = [s for s in specs if get_suite("inquire-sim").select(s)]  # the table is inquire-sim's
    for sub in (*SUBCATEGORIES, CONTROL):
        tasks = sorted(s.id for s in listed
                       if s.subcategory == sub.name and (sub.name != "control" or s.category == "control"))
        rows.append({"category": sub.category, "subcategory": sub.name, "definition": sub.definition,
                     "tasks": tasks, "train": counts.get((sub.name, "train"), 0),
                     "test": counts.get((sub.name, "test"), 0), "unseen-app": counts.get((sub.name, "unseen-app"), 0)})
    return rows
