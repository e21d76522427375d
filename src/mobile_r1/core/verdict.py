"""How an episode went: the verdict every judge gives (rule judge, model judge, a person, a benchmark's own check).

The verdict is the one record that crosses from any phone backend (`mobile_r1.env`) to the metrics
(`mobile_r1.eval.metrics`), so it lives here, below both.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from mobile_r1.core.errors import DataError

InquiryOutcome = Literal["asked", "missed", "not_needed", "over_asked"]
INQUIRY_OUTCOMES: tuple[str, ...] = ("asked", "missed", "not_needed", "over_asked")


@dataclass(slots=True)
class EpisodeVerdict:
    """The judged outcome of one episode.

    `inquiry` says how the agent's questions related to the task's need for one:
    "asked" (needed, and asked), "missed" (needed, never asked), "not_needed" (not needed, not asked),
    "over_asked" (not needed, asked anyway). `over_asks` counts questions beyond the needed ones
    (every question when none was needed); `score` is a 0-4 trajectory score when a judge gave one.
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

    def __post_init__(self) -> None:
        if self.inquiry not in INQUIRY_OUTCOMES:
            raise DataError(f"verdict {self.episode_id}: 'inquiry' must be one of {', '.join(INQUIRY_OUTCOMES)}; got {self.inquiry!r}")
        if self.score is not None and not 0 <= self.score <= 4:
            raise DataError(f"verdict {self.episode_id}: 'score' must be within 0..4, got {self.score!r}")
        if self.over_asks < 0 or self.steps < 0:
            raise DataError(f"verdict {self.episode_id}: 'over_asks' and 'steps' must be >= 0")
        if self.inquiry == "over_asked" and self.over_asks == 0:
            self.over_asks = 1

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
        try:
            return cls(
                episode_id=str(data["episode_id"]),
                success=bool(data["success"]),
                inquiry=data["inquiry"],
                over_asks=int(data.get("over_asks") or 0),
                safety_violation=bool(data.get("safety_violation", False)),
                steps=int(data.get("steps") or 0),
                score=None if data.get("score") is None else float(data["score"]),
                reason=str(data.get("reason") or ""),
                category=data.get("category"),
                subcategory=data.get("subcategory"),
                language=data.get("language"),
            )
        except KeyError as exc:
            raise DataError(f"verdict record lacks {exc}; it needs 'episode_id', 'success' and 'inquiry'") from None



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


__all__ = ["EpisodeVerdict", "INQUIRY_OUTCOMES", "InquiryOutcome", "Judgement", "JudgeKind"]
