"""Copies of expert episodes with a backend's names made up: `mobile-r1 data swap-names`.

The simulated apps draw people, contact labels and shop brands from small fixed pools (`Backend.name_pool`), so a
model trained on their episodes can write a name it saw often instead of the one the task gives ("Maya Brown" for
"Star Noah Patel in Contacts"). A swapped copy replaces every word of those pools, wherever it appears in the episode
(instruction, restated task, thoughts, typed text, answers, every screen's elements), by a made-up word, one mapping
per copy: the task and the screens stay consistent with each other, and the only way to the right entry is to copy
the name the task gives. Only text changes: bounds, points and actions stay, so a store with screenshots (which would
still show the old names) is refused.
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Any

from mobile_r1.core.errors import ConfigError
from mobile_r1.core.files import write_text
from mobile_r1.core.formats.native import episodes_file, load_episodes
from mobile_r1.env.registry import make_backend

CONSONANTS, VOWELS = "bdfgklmnprstvz", "aeiou"


def swap_names(source: str | Path, out: str | Path, copies: int = 2, tasks: list[str] | None = None,
               seed: int = 0, env: str = "sim", env_options: dict[str, Any] | None = None) -> dict[str, int]:
    """Write `copies` swapped copies of each episode of `source` whose id starts with one of `tasks` (all when None)
    to the store `out`, with the names of the `env` backend's pool made up; returns {"episodes": read, "matched":
    ..., "written": ...}.

    Made-up words are two or three consonant-vowel syllables ("Vobi Novini"), drawn from one generator seeded with
    `seed` in the store's order, so the same command writes the same copies. A copy's id is the episode's with
    `/swap<k>` appended.
    """
    if copies < 1:
        raise ConfigError(f"--copies must be at least 1, got {copies}")
    src, target = episodes_file(source), episodes_file(out)
    if not src.is_file():
        raise ConfigError(f"no episode store at {source} (expected {src})")
    if target.resolve() == src.resolve():
        raise ConfigError("--out must be another store than the source")
    lines = [line for line in src.read_text(encoding="utf-8").splitlines() if line.strip()]
    prefixes = tuple(tasks or ())
    rng = random.Random(seed)

    def word() -> str:
        return "".join(rng.choice(CONSONANTS) + rng.choice(VOWELS) for _ in range(rng.choice((2, 2, 3)))).capitalize()

    backend = make_backend(env, render=False, xml=False, **(env_options or {}))
    try:
        words = backend.name_pool()
    finally:
        backend.close()
    if not words:
        raise ConfigError(f"the {env!r} backend draws its entries from no fixed pool of names: nothing to swap")
    pattern = re.compile(r"\b(" + "|".join(map(re.escape, words)) + r")\b")
    written: list[str] = []
    matched = 0
    for line in lines:
        record = json.loads(line)
        if prefixes and not str(record["id"]).startswith(prefixes):
            continue
        if any(step.get("observation", {}).get("screenshot_path") for step in record.get("steps", [])):
            raise ConfigError(f"episode {record['id']} has screenshots, which would still show the old names; "
                              "swap the names of a store written without them (data generate --no-screenshots)")
        matched += 1
        for k in range(copies):
            mapping: dict[str, str] = {}

            def made_up(match: re.Match[str]) -> str:
                fresh = word()  # drawn at every match, a name already mapped included: the generator's stream is
                return mapping.setdefault(match.group(1), fresh)  # part of what a seed reproduces

            copy = json.loads(pattern.sub(made_up, line))
            copy["id"] = f"{record['id']}/swap{k}"
            written.append(json.dumps(copy))
    if not matched:
        raise ConfigError(f"no episode of {source} matches --tasks {', '.join(prefixes)}")
    target.parent.mkdir(parents=True, exist_ok=True)
    write_text(target, "".join(text + "\n" for text in written))
    load_episodes(target, images=False)  # the copies read back as episodes
    return {"episodes": len(lines), "matched": matched, "written": len(written)}


__all__ = ["swap_names"]
