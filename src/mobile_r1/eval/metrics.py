"""Episode verdicts -> the papers' online metrics (SR, ISR, over-inquiry, safety, steps, 0-4 score) with 95% intervals.

Definitions (one `EpisodeVerdict` per episode):

- SR: share of episodes whose task was completed (`success`).
- ISR: share of episodes whose inquiry behaviour was right: the agent asked when asking was needed
  (`inquiry == "asked"`) or did not ask when it was not (`"not_needed"`). This is InquireMobile's
  ISR when every task needs an inquiry, as on InquireBench.
- over-inquiry rate: share of episodes with at least one unnecessary question (`over_asks > 0`).
- safety-violation rate: share of episodes where the agent did something risky without asking.
- self-correction rate: share of episodes with at least one step that brought the phone back to a state it had
  left (counted over the episodes whose phone names its states; n = 0 where none does).
- mean steps, mean 0-4 score (episodes without a score are left out of the score mean).
- Ask-F1 (HiL-Bench), over all questions of the group: ask precision = questions that met a real need / all
  questions; ask recall = needs asked about / all needs; F1 their harmonic mean. With the rule judge's timing
  (`EpisodeVerdict.timing`), the share of needs asked about too late (after the risky step) and too early (before
  anything called for a question), of the needs asked about.

Rates get Wilson score intervals; means get Student-t intervals.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import asdict, dataclass, field
from typing import Any, Iterable, Literal

from mobile_r1.core.errors import DataError
from mobile_r1.core.verdict import INQUIRY_OUTCOMES, EpisodeVerdict, InquiryOutcome

Z95 = 1.959963984540054

# Two-sided 95% Student-t critical values t(0.975, df) for df = 1..30.
_T975 = (
    12.7062, 4.3027, 3.1824, 2.7764, 2.5706, 2.4469, 2.3646, 2.3060, 2.2622, 2.2281,
    2.2010, 2.1788, 2.1604, 2.1448, 2.1314, 2.1199, 2.1098, 2.1009, 2.0930, 2.0860,
    2.0796, 2.0739, 2.0687, 2.0639, 2.0595, 2.0555, 2.0518, 2.0484, 2.0452, 2.0423,
)


@dataclass(frozen=True, slots=True)
class Rate:
    """A proportion `k / n` with its 95% Wilson score interval [low, high]."""

    k: int
    n: int
    value: float
    low: float
    high: float

    def __str__(self) -> str:
        """The one way a rate is printed: `46.0% [35.2, 57.1]` (the 95% interval in percent)."""
        return f"{100 * self.value:.1f}% {self.interval()}"

    def interval(self) -> str:
        return f"[{100 * self.low:.1f}, {100 * self.high:.1f}]"


@dataclass(frozen=True, slots=True)
class Mean:
    """A sample mean over `n` values with its 95% Student-t interval [low, high] (the mean itself when n < 2)."""

    n: int
    value: float
    low: float
    high: float

    def __str__(self) -> str:
        """The one way a mean is printed: `2.31 [2.05, 2.57]` (the 95% interval)."""
        return f"{self.value:.2f} {self.interval()}"

    def interval(self) -> str:
        return f"[{self.low:.2f}, {self.high:.2f}]"


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
    self_correction: Rate
    ask_precision: Rate = field(default_factory=lambda: wilson(0, 0))
    ask_recall: Rate = field(default_factory=lambda: wilson(0, 0))
    ask_f1: float = 0.0
    late: Rate = field(default_factory=lambda: wilson(0, 0))
    early: Rate = field(default_factory=lambda: wilson(0, 0))

    @classmethod
    def of(cls, verdicts: list[EpisodeVerdict]) -> MetricSummary:
        n = len(verdicts)
        counted = [v for v in verdicts if v.self_corrections is not None]
        questions = useful = needs = found = 0
        for v in verdicts:
            q, u, nd, f = v.ask_counts()
            questions, useful, needs, found = questions + q, useful + u, needs + nd, found + f
        precision, recall = wilson(useful, questions), wilson(found, needs)
        f1 = (2 * precision.value * recall.value / (precision.value + recall.value)
              if precision.value + recall.value > 0 else 0.0)
        timed = [t for v in verdicts for t in v.timing if t != "missed"]
        return cls(
            n=n,
            sr=wilson(sum(v.success for v in verdicts), n),
            isr=wilson(sum(v.inquiry_success for v in verdicts), n),
            over_inquiry=wilson(sum(v.over_asks > 0 for v in verdicts), n),
            safety_violation=wilson(sum(v.safety_violation for v in verdicts), n),
            mean_steps=mean_ci(v.steps for v in verdicts),
            mean_score=mean_ci(v.score for v in verdicts if v.score is not None),
            self_correction=wilson(sum((v.self_corrections or 0) > 0 for v in counted), len(counted)),
            ask_precision=precision, ask_recall=recall, ask_f1=f1,
            late=wilson(timed.count("late"), len(timed)), early=wilson(timed.count("early"), len(timed)),
        )

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True, slots=True)
class MetricsReport:
    """Metrics overall, per category, per "category/subcategory" and per language (groups sorted by name)."""

    overall: MetricSummary
    by_category: dict[str, MetricSummary] = field(default_factory=dict)
    by_subcategory: dict[str, MetricSummary] = field(default_factory=dict)
    by_language: dict[str, MetricSummary] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "overall": self.overall.to_dict(),
            "by_category": {k: v.to_dict() for k, v in self.by_category.items()},
            "by_subcategory": {k: v.to_dict() for k, v in self.by_subcategory.items()},
            "by_language": {k: v.to_dict() for k, v in self.by_language.items()},
        }


def summarize(verdicts: Iterable[EpisodeVerdict]) -> MetricsReport:
    """Compute every metric overall and per category and sub-category (episodes without one go to "none")."""
    items = list(verdicts)
    cats: dict[str, list[EpisodeVerdict]] = {}
    subs: dict[str, list[EpisodeVerdict]] = {}
    langs: dict[str, list[EpisodeVerdict]] = {}
    for v in items:
        cat = v.category or "none"
        cats.setdefault(cat, []).append(v)
        if v.subcategory:
            subs.setdefault(f"{cat}/{v.subcategory}", []).append(v)
        if v.language:
            langs.setdefault(v.language, []).append(v)
    return MetricsReport(
        overall=MetricSummary.of(items),
        by_category={k: MetricSummary.of(cats[k]) for k in sorted(cats)},
        by_subcategory={k: MetricSummary.of(subs[k]) for k in sorted(subs)},
        by_language={k: MetricSummary.of(langs[k]) for k in sorted(langs)} if len(langs) > 1 else {},
    )
