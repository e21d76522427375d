"""How well does a model trained with restated thoughts read the task? Its first `Task:` line, per evaluation run.

    python benchmarks/restated_reading.py RUN_DIR [RUN_DIR ...]     # folders written by `mobile-r1 eval --out`

A model trained with `data.thought: restated` starts every thought with the task in its spec's first train phrasing
(`Task: Add an event 'Parents evening' to my calendar`). On the test split the instruction is in a phrasing it has
never seen, so that first line shows what the model read. At each episode's first step the line is put in one of
four classes: the exact restatement (the spec's first train phrasing with the episode's own values), the right task
with other values, another task's first train phrasing, or no task phrasing at all. Each class is printed with the
episodes it holds and how many of them the model completed.
"""

from __future__ import annotations

import argparse
import re
from collections import Counter
from pathlib import Path

from mobile_r1.eval.runner import load_run
from mobile_r1.env.sim.episode import TaskEpisode, make_episode
from mobile_r1.tasks.spec import TaskSpec, fill, load_specs, template_pieces

CLASSES = ("exact", "right task, other values", "another task", "no task phrasing")
_EPISODE_ID = re.compile(r"^(?P<spec>[^/]+)/(?P<split>train|test)(?P<template>\d+)/s(?P<seed>\d+)$")


def sim_episode(run: Path, record_id: str, specs: dict[str, TaskSpec]) -> TaskEpisode:
    """The simulated-suite episode an evaluation record names (`shop.buy/test1/s7`), drawn again from its spec."""
    m = _EPISODE_ID.match(record_id)
    if m is None or m["spec"] not in specs:
        raise SystemExit(f"{run}: episode {record_id!r} is not a simulated-suite episode of a known spec")
    return make_episode(specs[m["spec"]], m["split"], int(m["template"]), int(m["seed"]))


def phrasing_pattern(template: str) -> re.Pattern[str]:
    """A template as a regular expression: each `{placeholder}` matches any text."""
    return re.compile("".join("(.+?)" if placeholder else re.escape(text) for text, placeholder in template_pieces(template)))


def classify(line: str, spec_id: str, restated: str, patterns: dict[str, re.Pattern[str]]) -> str:
    if line == restated:
        return CLASSES[0]
    matches = [s for s, p in patterns.items() if p.fullmatch(line)]
    if spec_id in matches:
        return CLASSES[1]
    return CLASSES[2] if matches else CLASSES[3]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("runs", nargs="+", type=Path, help="folders written by `mobile-r1 eval --out`")
    args = parser.parse_args()
    specs = {s.id: s for s in load_specs()}
    patterns = {s.id: phrasing_pattern(s.templates.train[0]) for s in specs.values()}
    for run in args.runs:
        _, records = load_run(run)
        counts: Counter[str] = Counter()
        completed: Counter[str] = Counter()
        for record in records:
            episode = sim_episode(run, record["id"], specs)
            spec = episode.spec
            assert episode.instruction == record["instruction"], record["id"]
            restated = fill(spec.templates.train[0], episode.params)
            steps = record.get("steps") or [{}]
            found = re.search(r"Task: (.*)", steps[0].get("model_text") or "")
            kind = classify(found.group(1).strip() if found else "", spec.id, restated, patterns)
            counts[kind] += 1
            completed[kind] += bool(record["verdict"]["success"])
        right = counts[CLASSES[0]] + counts[CLASSES[1]]
        print(f"{run}: {len(records)} episodes; the right task named in {right} "
              f"(completed {completed[CLASSES[0]] + completed[CLASSES[1]]}), otherwise completed "
              f"{completed[CLASSES[2]] + completed[CLASSES[3]]} of {len(records) - right}")
        for kind in CLASSES:
            print(f"  {kind:26s} {counts[kind]:4d} episodes, {completed[kind]:3d} completed")


if __name__ == "__main__":
    main()
