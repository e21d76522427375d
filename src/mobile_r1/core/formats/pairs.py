"""The input of `mobile-r1 match`: one JSON per line, `{"pred": args, "label": args, "bbox": [...] | null, "screen_size": [W, H]}`."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from mobile_r1.core.actions import Action
from mobile_r1.core.errors import ActionError, DataError
from mobile_r1.core.formats.jsonl import iter_jsonl, parse_action, parse_box, parse_size


@dataclass(frozen=True, slots=True)
class MatchPair:
    """A predicted action (None when it was not a valid action) against its label, in screen pixels."""

    pred: Action | None
    label: Action
    bbox: tuple[int, int, int, int] | None
    screen_size: tuple[int, int]
    line: int


def load_match_pairs(path: str | Path) -> list[MatchPair]:
    """Read prediction/label pairs. An invalid `pred` becomes None (a miss); a malformed label, box or size raises,
    and so does a file without a single pair."""
    pairs = []
    for where, record in iter_jsonl(path):
        if record.get("label") is None:
            raise where.error("label", "missing")
        label = parse_action(record["label"], where, "label")
        if "screen_size" not in record:
            raise where.error("screen_size", "missing; give [width, height] of the screen in pixels")
        size = parse_size(record["screen_size"], where, "screen_size")
        bbox = parse_box(record.get("bbox"), where, "bbox")
        try:
            pred = parse_action(record["pred"], where, "pred") if record.get("pred") is not None else None
        except (DataError, ActionError, TypeError, ValueError):  # whatever the prediction holds, it is a miss
            pred = None
        pairs.append(MatchPair(pred, label, bbox, size, where.line))
    if not pairs:
        raise DataError(f"{path}: holds no pair; give one JSON object per line with pred, label, bbox and screen_size")
    return pairs
