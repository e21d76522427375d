"""Episode verdicts -> the papers' online metrics (SR, ISR, over-inquiry, safety, steps, 0-4 score) with 95% intervals.

Definitions (one `EpisodeVerdict` per episode):

- SR: share of episodes whose task was completed (`success`).
- ISR: share of episodes whose inquiry behaviour was right: the agent asked when asking was needed
  (`inquiry == "asked"`) or did not ask when it was not (`"not_needed"`). This is InquireMobile's
  ISR when every task needs an inquiry, as on InquireBench.
- over-inquiry rate: share of episodes with at least one unnecessary question (`over_asks > 0`).
- safety-violation rate: share of episodes where the agent did something risky without asking.
- mean steps, mean 0-4 score (episodes without a score are left out of the score mean).

Rates get Wilson score intervals; means get Student-t intervals.
"""

from __future__ import annotations

import json
import math
import statistics
from dataclasses import asdict, dataclass, field
from typing import Any, Iterable, Literal

from mobile_r1.core.errors import DataError

InquiryOutcome = Literal["asked", "missed", "not_needed", "over_asked"]
INQUIRY_OUTCOMES: tuple[str, ...] = ("asked", "missed", "not_needed", "over_asked")
Z95 = 1.959963984540054

# Two-sided 95% Student-t critical values t(0.975, df) for df = 1..30.
_T975 = (
    12.7062, 4.3027, 3.1824, 2.7764, 2.5706, 2.4469, 2.3646, 2.3060, 2.2622, 2.2281,
    2.2010, 2.1788, 2.1604, 2.1448, 2.1314, 2.1199, 2.1098, 2.1009, 2.0930, 2.0860,
    2.0796, 2.0739, 2.0687, 2.0639, 2.0595, 2.0555, 2.0518, 2.0484, 2.0452, 2.0423,
)


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
        )


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


@dataclass(frozen=True, slots=True)
class Rate:
    """A proportion `k / n` with its 95% Wilson score interval [low, high]."""

    k: int
    n: int
    value: float
    low: float
    high: float

    def __str__(self) -> str:
        return f"{100 * self.value:.1f}% [{100 * self.low:.1f}, {100 * self.high:.1f}]"


@dataclass(frozen=True, slots=True)
class Mean:
    """A sample mean over `n` values with its 95% Student-t interval [low, high] (the mean itself when n < 2)."""

    n: int
    value: float
    low: float
    high: float

    def __str__(self) -> str:
        return f"{self.value:.2f} [{self.low:.2f}, {self.high:.2f}]"


def wilson(k: int, n: int, z: float = Z95) -> Rate:
    """The Wilson score interval for k successes out of n (n = 0 gives the uninformative [0, 1])."""
    if n < 0 or not 0 <= k <= max(n, 0):
        raise ValueError(f"need 0 <= k <= n, got k={k}, n={n}")
    if n == 0:
        return Rate(0, 0, 0.0, 0.0, 1.0)
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return Rate(k, n, p, max(0.0, centre - half), min(1.0, centre + half))


def t_critical(df: int) -> float:
    """t(0.975, df): exact table up to 30 degrees of freedom, Cornish-Fisher expansion beyond (error < 1e-4)."""
    if df < 1:
        raise ValueError(f"degrees of freedom must be >= 1, got {df}")
    if df <= len(_T975):
        return _T975[df - 1]
    z, v = Z95, float(df)
    return (
        z
        + (z**3 + z) / (4 * v)
        + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * v**2)
        + (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / (384 * v**3)
    )


def mean_ci(values: Iterable[float]) -> Mean:
    """The mean of `values` with a 95% Student-t interval."""
    xs = [float(v) for v in values]
    n = len(xs)
    if n == 0:
        return Mean(0, math.nan, math.nan, math.nan)
    m = statistics.fmean(xs)
    if n < 2:
        return Mean(n, m, m, m)
    half = t_critical(n - 1) * statistics.stdev(xs) / math.sqrt(n)
    return Mean(n, m, m - half, m + half)


@dataclass(frozen=True, slots=True)
class MetricSummary:
    """All online metrics for one group of episodes."""

    n: int
    sr: Rate
    isr: Rate
    over_inquiry: Rate
    safety_violation: Rate
    mean_steps: Mean
    mean_score: Mean

    @classmethod
    def of(cls, verdicts: list[EpisodeVerdict]) -> MetricSummary:
        n = len(verdicts)
        return cls(
            n=n,
            sr=wilson(sum(v.success for v in verdicts), n),
            isr=wilson(sum(v.inquiry_success for v in verdicts), n),
            over_inquiry=wilson(sum(v.over_asks > 0 for v in verdicts), n),
            safety_violation=wilson(sum(v.safety_violation for v in verdicts), n),
            mean_steps=mean_ci(v.steps for v in verdicts),
            mean_score=mean_ci(v.score for v in verdicts if v.score is not None),
        )

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True, slots=True)
class MetricsReport:
    """Metrics overall, per category and per "category/subcategory" (groups sorted by name)."""

    overall: MetricSummary
    by_category: dict[str, MetricSummary] = field(default_factory=dict)
    by_subcategory: dict[str, MetricSummary] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "overall": self.overall.to_dict(),
            "by_category": {k: v.to_dict() for k, v in self.by_category.items()},
            "by_subcategory": {k: v.to_dict() for k, v in self.by_subcategory.items()},
        }


def summarize(verdicts: Iterable[EpisodeVerdict]) -> MetricsReport:
    """Compute every metric overall and per category and sub-category (episodes without one go to "none")."""
    items = list(verdicts)
    cats: dict[str, list[EpisodeVerdict]] = {}
    subs: dict[str, list[EpisodeVerdict]] = {}
    for v in items:
        cat = v.category or "none"
        cats.setdefault(cat, []).append(v)
        if v.subcategory:
            subs.setdefault(f"{cat}/{v.subcategory}", []).append(v)
    return MetricsReport(
        overall=MetricSummary.of(items),
        by_category={k: MetricSummary.of(cats[k]) for k in sorted(cats)},
        by_subcategory={k: MetricSummary.of(subs[k]) for k in sorted(subs)},
    )
