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

Every interval stays inside what the quantity can be. Rates get Wilson score intervals (always within 0-100%).
Means get the Student-t interval clipped to the range the values can take: the 0-4 score within [0, 4], steps
within [0, the largest step budget] (`max_steps`; unbounded above where it is not known). The true mean always lies
in that range, so clipping never drops it: the interval keeps the t-interval's coverage and loses only impossible
values (on n = 2 the t-interval's half-width is 12.7 standard errors, far beyond a 0-4 scale). A single value says
nothing about the spread: its interval is the whole range. Read n beside a mean: with a few values (or values that
all agree) the t-interval is only as good as its normal approximation.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import asdict, dataclass, field
from typing import Any, Iterable, Mapping, Sequence

from mobile_r1.core.verdict import EpisodeVerdict

Z95 = 1.959963984540054
SCORE_MAX = 4.0  # the judge's trajectory score runs from 0 to 4

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
    """A sample mean over `n` values with its 95% interval [low, high] inside the values' range (`mean_ci`); an end
    nobody knows (one value of a quantity unbounded on that side; no values) is NaN and printed `?`."""

    n: int
    value: float
    low: float
    high: float

    def __str__(self) -> str:
        """The one way a mean is printed: `2.31 [2.05, 2.57]` (the 95% interval)."""
        return f"{self.value:.2f} {self.interval()}"

    def interval(self) -> str:
        return f"[{_end(self.low)}, {_end(self.high)}]"


def _end(value: float) -> str:
    return "?" if math.isnan(value) else f"{value:.2f}"


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


def mean_ci(values: Iterable[float], low: float | None = None, high: float | None = None) -> Mean:
    """The mean of `values` with its 95% Student-t interval clipped to [low, high], the range the values can take
    (None: unbounded on that side). One value gives the whole range (NaN for an unbounded side); see the module
    docstring for why clipping keeps the coverage."""
    xs = [float(v) for v in values]
    n = len(xs)
    if n == 0:
        return Mean(0, math.nan, math.nan, math.nan)
    outside = [x for x in xs if (low is not None and x < low) or (high is not None and x > high)]
    if outside:
        raise ValueError(f"value {outside[0]} lies outside the range [{low}, {high}] given for it")
    m = statistics.fmean(xs)
    floor = -math.inf if low is None else float(low)
    ceiling = math.inf if high is None else float(high)
    if n < 2:
        lo, hi = floor, ceiling
    else:
        half = t_critical(n - 1) * statistics.stdev(xs) / math.sqrt(n)
        lo, hi = max(floor, m - half), min(ceiling, m + half)
    return Mean(n, m, lo if math.isfinite(lo) else math.nan, hi if math.isfinite(hi) else math.nan)


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
    def of(cls, verdicts: list[EpisodeVerdict], max_steps: int | None = None) -> MetricSummary:
        """The metrics of `verdicts`; `max_steps`, the largest step budget among them, bounds the steps interval."""
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
            mean_steps=mean_ci((v.steps for v in verdicts), 0, _ceiling(max_steps, verdicts)),
            mean_score=mean_ci((v.score for v in verdicts if v.score is not None), 0, SCORE_MAX),
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


def _ceiling(max_steps: int | None, verdicts: Sequence[EpisodeVerdict]) -> int | None:
    """The steps' upper bound: the step budget, or none where it is unknown (or a verdict went past it: a budget that
    does not hold is no bound)."""
    if max_steps is None or any(v.steps > max_steps for v in verdicts):
        return None
    return max_steps


def step_budget(records: Iterable[Mapping[str, Any]]) -> int | None:
    """The largest step budget (`budget`) among a run's episode records; None when a record gives none."""
    budgets = [r.get("budget") for r in records if r.get("infra_error") is None]
    if not budgets or any(isinstance(b, bool) or not isinstance(b, int) or b < 0 for b in budgets):
        return None
    return max(budgets)  # type: ignore[type-var]


def summarize(verdicts: Iterable[EpisodeVerdict], max_steps: int | None = None) -> MetricsReport:
    """Compute every metric overall and per category and sub-category (episodes without one go to "none");
    `max_steps` (the largest step budget, `step_budget`) bounds the steps intervals."""
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
        overall=MetricSummary.of(items, max_steps),
        by_category={k: MetricSummary.of(cats[k], max_steps) for k in sorted(cats)},
        by_subcategory={k: MetricSummary.of(subs[k], max_steps) for k in sorted(subs)},
        by_language={k: MetricSummary.of(langs[k], max_steps) for k in sorted(langs)} if len(langs) > 1 else {},
    )
