"""Reward cases stored as JSON lines: reading and checking them, and scoring a whole file with a preset.

One line: `{"completion": str, "label": {"name": "mobile_use", "arguments": {...}}, "bbox": [x1, y1, x2, y2]
| [-1, -1, -1, -1] | null, "image_size": [W, H], "model_image_size": [W', H']}`. The label's and the
completion's coordinates are in the model image (W' x H'); the box is in screen pixels (W x H).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator

from mobile_r1.core.errors import DataError
from mobile_r1.core.reading import read_jsonl
from mobile_r1.core.rewards.base import RewardResult, RewardTarget
from mobile_r1.core.rewards.presets import RewardPreset

CASE_FIELDS = ("completion", "label", "bbox", "image_size", "model_image_size")


@dataclass(frozen=True, slots=True)
class RewardCase:
    """One completion and what it is scored against."""

    completion: str
    target: RewardTarget

    @classmethod
    def from_record(cls, record: Any) -> RewardCase:
        """Check one decoded JSON record; a DataError names the bad field."""
        if not isinstance(record, dict):
            raise DataError(f"a case must be a JSON object with {', '.join(CASE_FIELDS)}; got {type(record).__name__}")
        for key in ("completion", "label", "image_size", "model_image_size"):
            if key not in record:
                raise DataError(f"missing field '{key}'")
        completion = record["completion"]
        if not isinstance(completion, str):
            raise DataError(f"'completion' must be a string, got {type(completion).__name__}")
        target = RewardTarget.build(record["label"], record.get("bbox"), record["image_size"], record["model_image_size"])
        return cls(completion=completion, target=target)


def read_cases(path: Path) -> Iterator[RewardCase]:
    """Yield the cases of a JSONL file in order; blank lines are skipped; errors name the file and line.

    Lines go through `mobile_r1.core.reading` (UTF-8, at most 16 MiB a line, depth and number limits); a file with
    no case at all is refused too, so that an empty or mistyped input never passes for an empty result.
    """
    count = 0
    for where, record in read_jsonl(path):
        try:
            case = RewardCase.from_record(record)
        except DataError as exc:
            raise where.problem(str(exc)) from None
        count += 1
        yield case
    if count == 0:
        raise DataError(f"{path}: holds no reward case; give one JSON object per line with {', '.join(CASE_FIELDS)}")


def score_cases(preset: RewardPreset, cases: Iterator[RewardCase]) -> Iterator[RewardResult]:
    """Score each case with the preset, in order."""
    for case in cases:
        yield preset.score_target(case.completion, case.target)


def score_file(preset: RewardPreset, path: Path) -> Iterator[dict[str, float]]:
    """One output record per input line: `{"format", "accuracy", "total", ...components}`."""
    for result in score_cases(preset, read_cases(path)):
        yield result.to_record()
