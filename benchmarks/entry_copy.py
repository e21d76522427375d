"""Does the model name the list entry it must tap? Per evaluation run of a simulated suite, per task.

    python benchmarks/entry_copy.py RUN_DIR [RUN_DIR ...]     # folders written by `mobile-r1 eval --out`

Some tasks name a list entry only in part: "Star Hiro Muller in Contacts" where the screen lists
`"Hiro Muller +1 555 488 7734"`, a product whose price only the screen shows. A model trained with the compact
dialect's thoughts names the element it taps as the screen lists it
(`click "Hiro Muller +1 555 488 7734" (336, 760)`), so its thoughts show whether it found and copied that line. For
every episode the simulator's expert is replayed; the entries it taps whose label has several words, one of them in
the instruction, are the named entries (in tasks such as settings.font, a button the task names whole). Printed per
task: the episodes with such an entry, those whose thoughts name every one of them exactly, those that name each
one's words before its price or number (`Hiro Muller`), and how many the model completed.
"""

from __future__ import annotations

import argparse
import re
from collections import Counter, defaultdict
from pathlib import Path

from mobile_r1.env import expert_demos, make_backend
from mobile_r1.env.sim.backend import episode_ref
from mobile_r1.eval.runner import load_run
from mobile_r1.tasks.spec import load_specs
from restated_reading import sim_episode  # this folder's script: the episode a record's id names

_TAP = re.compile(r"^Tap '(.*)'$")
_CLICK = re.compile(r'click "([^"]*)"')
_WORD = re.compile(r"[A-Za-z]{4,}")
_VALUE = re.compile(r" (\$|\+\d).*$")  # a price or a phone number and whatever follows it


def named_entries(labels: list[str], instruction: str) -> list[str]:
    """The tapped labels of several words that share a word of four letters or more with the instruction."""
    words = instruction.lower()
    return [label for label in labels if " " in label.strip() and any(w.lower() in words for w in _WORD.findall(label))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("runs", nargs="+", type=Path, help="folders written by `mobile-r1 eval --out`")
    args = parser.parse_args()
    specs = {s.id: s for s in load_specs()}
    backend = make_backend("sim", render=False, xml=False)
    for run in args.runs:
        meta, records = load_run(run)
        episodes = [sim_episode(run, record["id"], specs) for record in records]
        refs = [episode_ref(episode, meta.get("suite"), episode.split) for episode in episodes]
        envs = [backend.open(ref) for ref in refs]
        try:
            demos = expert_demos(envs)
        finally:
            for env in envs:
                env.close()
        counts: dict[str, Counter[str]] = defaultdict(Counter)
        for record, demo in zip(records, demos):
            if isinstance(demo, Exception):
                raise SystemExit(f"{run}: the expert could not replay {record['id']}: {demo}")
            labels = [m.group(1) for m in (_TAP.match(s.description or "") for s in demo.episode.steps) if m]
            entries = named_entries(labels, record["instruction"])
            if not entries:
                continue
            thoughts = [s.get("model_text") or "" for s in record.get("steps") or []]
            quoted = [m.group(1) for m in map(_CLICK.search, thoughts) if m]
            c = counts[record["id"].split("/")[0]]
            c["episodes"] += 1
            c["named exactly"] += all(e in quoted for e in entries)
            c["words before the value"] += all(any(q.startswith(_VALUE.sub("", e)) for q in quoted) for e in entries)
            c["completed"] += bool(record["verdict"]["success"])
        total: Counter[str] = sum(counts.values(), Counter())
        print(f"{run}: {total['episodes']} of {len(records)} episodes tap a label of several words that shares a word "
              f"with the task; named exactly in {total['named exactly']}, its words before the value in "
              f"{total['words before the value']}, completed {total['completed']}")
        for task in sorted(counts):
            c = counts[task]
            print(f"  {task:26s} {c['episodes']:4d} episodes  exactly {c['named exactly']:3d}  "
                  f"words {c['words before the value']:3d}  completed {c['completed']:3d}")


if __name__ == "__main__":
    main()
