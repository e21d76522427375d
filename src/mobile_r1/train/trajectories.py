"""Stage 3's record of what it played: `trajectories.jsonl` in the run folder, one line per trajectory of every step
(its episode, group, reward, verdict and turns), cut back on resume to the steps a resumed run keeps."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Sequence

from mobile_r1.train.rollout import Trajectory

TRAJECTORIES_FILE = "trajectories.jsonl"


def trajectory_records(trajectories: Sequence[Trajectory], rewards: Sequence[float], step: int) -> list[dict[str, Any]]:
    """One JSON-ready record per trajectory (what `trajectories.jsonl` in the run directory holds)."""
    out = []
    for t, reward in zip(trajectories, rewards):
        v = t.judge().verdict
        out.append({
            "step": step, "episode": t.episode.id, "group": t.group, "expert": t.scripted,
            "instruction": t.episode.instruction,
            "reward": reward, "success": v.success, "score": v.score, "inquiry": v.inquiry,
            "safety_violation": v.safety_violation, "reason": v.reason,
            "turns": [{"text": turn.text, "action": turn.action.to_arguments() if turn.action else None,
                       "format": turn.format_reward, "error": turn.error, "user_reply": turn.user_reply}
                      for turn in t.turns],
        })
    return out


def append_records(path: Path, records: list[dict[str, Any]]) -> None:
    """Append JSON records to a JSONL file, one a line."""
    with open(path, "a", encoding="utf-8") as f:
        for record in records:
            f.write(json.dumps(record) + "\n")


def truncate_records(path: Path, step: int) -> None:
    """Drop the records past `step` (a resumed run plays those steps again)."""
    if path.is_file():
        lines = [ln for ln in path.read_text(encoding="utf-8").splitlines() if ln.strip()]
        path.write_text("".join(ln + "\n" for ln in lines if json.loads(ln)["step"] <= step), encoding="utf-8")


__all__ = ["TRAJECTORIES_FILE", "append_records", "trajectory_records", "truncate_records"]
