"""How an episode went: the verdict every judge gives (rule judge, model judge, a person, a benchmark's own check).

The verdict is the one record that crosses from any phone backend (`mobile_r1.env`) to the metrics
(`mobile_r1.eval.metrics`), so it lives here, below both.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from mobile_r1.core.errors import DataError

InquiryOutcome = Literal["asked", "missed", "not_needed", "over_asked"]
INQUIRY_OUTCOMES: tuple[str, ...] = ("asked", "missed", "not_needed", "over_asked")
TIMINGS: tuple[str, ...] = ("timely", "early", "late", "missed")


@dataclass(slots=True)
class EpisodeVerdict:
    """The judged outcome of one episode.

    `inquiry` says how the agent's questions related to the task's need for one:
    "asked" (needed, and asked), "missed" (needed, never asked), "not_needed" (not needed, not asked),
    "over_asked" (not needed, asked anyway). `over_asks` counts questions beyond the needed ones
    (every question when none was needed); `score` is a 0-4 trajectory score when a judge gave one.
    `self_corrections` counts the steps that brought the phone back to a state it had left (a wrong screen, then
    Back): counted from the trajectory by whoever played it, None where the phone does not name its states.

    When asking happened, where a judge can tell (the rule judge): `questions` counts every question the agent asked;
    per question the task needed, `needed_at` is the step from which it was necessary (None: the moment never came),
    `asked_at` the step of the question that answered it (None: never asked) and `timing` one of "timely", "early"
    (before anything called for it), "late" (after the risky step, or past the start for a vague wish) or "missed".
    """

    episode_id: str
    success: bool
    inquiry: InquiryOutcome
    over_asks: int = 0
    safety_violation: bool = False
    steps: int = 0
    score: float | None = None
    reason: str = ""
    category: str | None = None
    subcategory: str | None = None
    language: str | None = None
    self_corrections: int | None = None
    questions: int | None = None
    needed_at: list[int | None] = field(default_factory=list)
    asked_at: list[int | None] = field(default_factory=list)
    timing: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.inquiry not in INQUIRY_OUTCOMES:
            raise DataError(f"verdict {self.episode_id}: 'inquiry' must be one of {', '.join(INQUIRY_OUTCOMES)}; got {self.inquiry!r}")
        if self.score is not None and not 0 <= self.score <= 4:
            raise DataError(f"verdict {self.episode_id}: 'score' must be within 0..4, got {self.score!r}")
        if self.over_asks < 0 or self.steps < 0 or (self.self_corrections or 0) < 0:
            raise DataError(f"verdict {self.episode_id}: 'over_asks', 'steps' and 'self_corrections' must be >= 0")
        if self.inquiry == "over_asked" and self.over_asks == 0:
            self.over_asks = 1
        bad = [t for t in self.timing if t not in TIMINGS]
        if bad:
            raise DataError(f"verdict {self.episode_id}: 'timing' values must be among {', '.join(TIMINGS)}; got {bad[0]!r}")

    def ask_counts(self) -> tuple[int, int, int, int]:
        """(questions asked, questions that met a real need, needs, needs asked about) for Ask-F1 (HiL-Bench): with
        the rule judge's timing, exact; otherwise read off the inquiry outcome (one need, one question)."""
        if self.timing:
            needs = len(self.timing)
            found = sum(t != "missed" for t in self.timing)
            questions = self.questions if self.questions is not None else found + self.over_asks
            return questions, min(found, questions), needs, found
        needed = 1 if self.inquiry_needed else 0
        found = 1 if self.inquiry == "asked" else 0
        return found + self.over_asks, found, needed, found

    @property
    def inquiry_needed(self) -> bool:
        """Whether the task needed a question (whether or not the agent asked it)."""
        return self.inquiry in ("asked", "missed")

    @property
    def inquiry_success(self) -> bool:
        """Whether the agent's asking was right for this task (asked when needed, silent when not)."""
        return self.inquiry in ("asked", "not_needed")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> EpisodeVerdict:
        """A verdict from its record (`to_dict`), every field checked: a wrong type names the field (DataError)."""
        if not isinstance(data, dict):
            raise DataError(f"a verdict must be a JSON object, got {type(data).__name__}")
        missing = [key for key in ("episode_id", "success", "inquiry") if key not in data]
        if missing:
            raise DataError(f"verdict record lacks '{missing[0]}'; it needs 'episode_id', 'success' and 'inquiry'")
        episode_id = data["episode_id"]
        if not isinstance(episode_id, (str, int)) or isinstance(episode_id, bool):
            raise DataError(f"verdict field 'episode_id': must be text, got {_kind(episode_id)}")
        name = str(episode_id)
        return cls(
            episode_id=name,
            success=_flag(data, "success", name),
            inquiry=_text(data, "inquiry", name) or "",  # type: ignore[arg-type]
            over_asks=_count(data, "over_asks", name),
            safety_violation=_flag(data, "safety_violation", name, default=False),
            steps=_count(data, "steps", name),
            score=_score(data, name),
            reason=_text(data, "reason", name) or "",
            category=_text(data, "category", name),
            subcategory=_text(data, "subcategory", name),
            language=_text(data, "language", name),
            self_corrections=None if data.get("self_corrections") is None else _count(data, "self_corrections", name),
            questions=None if data.get("questions") is None else _count(data, "questions", name),
            needed_at=_steps(data, "needed_at", name),
            asked_at=_steps(data, "asked_at", name),
            timing=[str(t) for t in _list(data, "timing", name)],
        )


def _list(data: dict[str, Any], key: str, episode: str) -> list[Any]:
    value = data.get(key)
    if value is None:
        return []
    if not isinstance(value, list) or len(value) > 1000:
        raise DataError(f"verdict {episode}: field '{key}': must be a list (at most 1,000 items), got {_kind(value)}")
    return value


def _steps(data: dict[str, Any], key: str, episode: str) -> list[int | None]:
    out: list[int | None] = []
    for item in _list(data, key, episode):
        if item is not None and (isinstance(item, bool) or not isinstance(item, int) or not 0 <= item <= 1_000_000):
            raise DataError(f"verdict {episode}: field '{key}': steps are whole numbers or null, got {_kind(item)}")
        out.append(item)
    return out


def _kind(value: Any) -> str:
    text = json.dumps(value) if isinstance(value, (str, int, float, list, dict)) else repr(value)
    return f"{type(value).__name__} {text if len(text) <= 40 else text[:37] + '...'}"


def _flag(data: dict[str, Any], key: str, episode: str, default: bool | None = None) -> bool:
    value = data.get(key, default)
    if not isinstance(value, bool):
        raise DataError(f"verdict {episode}: field '{key}': must be true or false, got {_kind(value)}")
    return value


def _count(data: dict[str, Any], key: str, episode: str) -> int:
    value = data.get(key)
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 1_000_000:
        raise DataError(f"verdict {episode}: field '{key}': must be a whole number from 0 to 1,000,000, got {_kind(value)}")
    return value


def _score(data: dict[str, Any], episode: str) -> float | None:
    value = data.get("score")
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 4:
        raise DataError(f"verdict {episode}: field 'score': must be a number from 0 to 4 or null, got {_kind(value)}")
    return float(value)


def _text(data: dict[str, Any], key: str, episode: str) -> str | None:
    value = data.get(key)
    if value is not None and not isinstance(value, str):
        raise DataError(f"verdict {episode}: field '{key}': must be text or null, got {_kind(value)}")
    return value


JudgeKind = Literal["rule", "model", "person", "benchmark"]


@dataclass(slots=True)
class Judgement:
    """A judged episode: the verdict, who gave it, and the details a judge can give about it.

    judge            rule (the simulator's rule judge, from app state), model (an LLM judge), person (the owner of
                     a device), benchmark (a benchmark's own success check, such as AndroidWorld's `task/score`)
    asked_steps      the steps (0-based) at which the agent called the user
    inquiries        per question the task needed: "in_time", "late" or "missed" (rule judge only)
    progress         the share of the task's plan reached, 0..1, where a judge can tell
    invalid_actions  actions that changed nothing (the device said why)
    """

    verdict: EpisodeVerdict
    judge: JudgeKind = "rule"
    asked_steps: list[int] = field(default_factory=list)
    inquiries: list[str] = field(default_factory=list)
    progress: float | None = None
    invalid_actions: int = 0

    def details(self) -> dict[str, Any]:
        """Everything but the verdict, JSON-ready (what a run's episode record keeps under "judgement")."""
        return {"judge": self.judge, "inquiries": list(self.inquiries), "asked_steps": list(self.asked_steps),
                "progress": self.progress, "invalid_actions": self.invalid_actions}


__all__ = ["EpisodeVerdict", "INQUIRY_OUTCOMES", "TIMINGS", "InquiryOutcome", "Judgement", "JudgeKind"]
