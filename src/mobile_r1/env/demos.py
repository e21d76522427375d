"""Expert training data through the door: a suite split demonstrated by the expert of any backend that has one.

    stats = generate("nav-sim", "train", 500, "runs/nav", self_correct=0.2)    # `mobile-r1 data generate`

Each episode is opened on the backend (`sim` by default), the EXPERT capability demonstrates it, and the successful
demonstrations are written as Mobile-R1-style episodes (the native store: `episodes.jsonl` + `images/`), with each
step's accessibility text under `a11y/<episode>_<step>.txt` and the judge's verdict in `meta["verdict"]`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Callable

from mobile_r1.core.dialects.observation import render_elements
from mobile_r1.core.errors import ConfigError
from mobile_r1.core.formats.native import save_episodes
from mobile_r1.core.records import Episode
from mobile_r1.env.protocol import Capability
from mobile_r1.env.registry import make_backend

Progress = Callable[[str], None]


def generate(suite: str, split: str, episodes: int, out: str | Path, seed: int = 0, self_correct: float = 0.0,
             scale: float = 0.3, progress: Progress | None = None, keep_failed: bool = False,
             screenshots: bool = True, env: str = "sim", env_options: dict[str, Any] | None = None,
             search_first: bool = False) -> dict[str, Any]:
    """Write expert demonstrations of a split; returns counts. `screenshots=False` draws no screens (much faster, for
    training on accessibility text only); `keep_failed` keeps demonstrations the judge failed too; `env_options` go to
    the backend (the simulator's `specs` / `specs_only`: the user's task specs); `search_first`: the expert finds a
    list entry the task names through the screen's search field (see `TaskEnv.expert_demo`)."""
    if episodes < 1:
        raise ConfigError("--episodes must be at least 1")
    out = Path(out)
    backend = make_backend(env, render=False, scale=scale, xml=False, **(env_options or {}))
    chosen = backend.episodes(suite, split, n=episodes, seed=seed)
    records: list[Episode] = []
    a11y = out / "a11y"
    a11y.mkdir(parents=True, exist_ok=True)
    failed = 0
    try:
        for ref in chosen:
            with backend.open(ref) as task_env:
                task_env.require(Capability.EXPERT, "expert data generation")
                demo = task_env.expert_demo(self_correct=self_correct, seed=seed, render=screenshots,
                                            search_first=search_first)
            if not demo.success:
                failed += 1
                if not keep_failed:
                    if progress is not None:
                        progress(ref.id)
                    continue
            rec = demo.episode
            safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in rec.id)
            for i, step in enumerate(rec.steps):
                if step.observation is not None:
                    text = render_elements(step.observation.elements, step.observation.screen_size)
                    (a11y / f"{safe}_{i:03d}.txt").write_text(text, encoding="utf-8")
            rec.meta["verdict"] = demo.verdict.to_dict()
            records.append(rec)
            if progress is not None:
                progress(ref.id)
    finally:
        backend.close()
    path = save_episodes(out, records)
    stats = {"written": len(records), "failed": failed, "steps": sum(len(r.steps) for r in records),
             "self_corrections": sum(1 for r in records for s in r.steps if s.info.get("wrong")), "file": str(path)}
    (out / "generation.json").write_text(json.dumps({"suite": suite, "split": split, "seed": seed,
                                                     "self_correct": self_correct, "search_first": search_first,
                                                     **stats}, indent=2))
    return stats


__all__ = ["generate"]
