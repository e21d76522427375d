"""Evaluation runs of several agents on the same episodes, side by side, each tested against the first.

    comparison = compare_runs([Path("runs/eval/untrained"), Path("runs/eval/final")])
    print(comparison_markdown(comparison))          # mobile-r1 compare runs/eval/untrained runs/eval/final

Two agents scored on the same episodes give paired outcomes, so each run is tested against the first (the base) with
the exact McNemar test: only the episodes where the two differ count, and under "no difference" each of them is a
fair coin. scipy has the binomial test this reduces to, but the toolkit's evaluation core stays free of it; the exact
sum is a few lines of `math.comb`. Three outcomes are tested: task success (SR), the right inquiry behaviour (ISR)
and, over the episodes whose task needs a question, asking it ("asked where needed").

Ask-F1 (HiL-Bench: precision and recall of the questions asked) is compared with a paired permutation test, each
episode's two verdicts swapped at random, since a harmonic mean of pooled counts has no exact test of its own; with
episodes in several languages, the right inquiry behaviour is also tested per language.

A second table gives the papers' ablation columns with 95% Wilson intervals: SR, ISR, asked where needed,
over-inquiry over the episodes whose task needs no question, and self-corrections (episodes with at least one step
back to a state the phone had left).

Models scored offline on the same labelled steps (`mobile-r1 eval-offline --out`) pair the same way, step by step:
`compare_steps` tests each one's exact steps against the first's.
"""

from __future__ import annotations

import json
import math
import random
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

from mobile_r1.core.errors import DataError
from mobile_r1.eval.counts import RunCounts, run_counts
from mobile_r1.eval.metrics import EpisodeVerdict, MetricSummary, Rate, step_budget, summarize, wilson
from mobile_r1.eval.runner import load_run, needs_inquiry_summary, verdicts_of


def exact_mcnemar(base_only: int, other_only: int) -> float:
    """Two-sided p of the exact McNemar test from the discordant pairs (1.0 when there are none)."""
    if base_only < 0 or other_only < 0:
        raise ValueError(f"discordant counts must be >= 0, got {base_only} and {other_only}")
    n = base_only + other_only
    if n == 0:
        return 1.0
    tail = sum(math.comb(n, i) for i in range(min(base_only, other_only) + 1)) / 2**n
    return min(1.0, 2 * tail)


@dataclass(frozen=True, slots=True)
class PairedTest:
    """One outcome of a run against the base on the same episodes: how many episodes only one of them got right."""

    base_only: int
    other_only: int
    p: float

    @classmethod
    def of(cls, base: Sequence[bool], other: Sequence[bool]) -> PairedTest:
        base_only = sum(b and not o for b, o in zip(base, other))
        other_only = sum(o and not b for b, o in zip(base, other))
        return cls(base_only, other_only, exact_mcnemar(base_only, other_only))


@dataclass(frozen=True, slots=True)
class RunComparison:
    """One run's metrics on the shared episodes and, for every run after the first, its tests against the first."""

    name: str
    path: str
    agent: str
    overall: MetricSummary
    asked_where_needed: Rate
    over_asked_where_not_needed: Rate
    sr_test: PairedTest | None
    isr_test: PairedTest | None
    asked_test: PairedTest | None
    ask_f1_test: F1Test | None = None
    isr_by_language: dict[str, PairedTest] = field(default_factory=dict)
    counts: RunCounts = RunCounts()

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True, slots=True)
class F1Test:
    """Ask-F1 of the base run and of this one on the same episodes, and the p-value of their difference under a paired
    permutation test: each episode's two verdicts swapped at random (`rounds` seeded draws; two-sided)."""

    base: float
    other: float
    p: float
    rounds: int

    @classmethod
    def of(cls, base: Sequence[EpisodeVerdict], other: Sequence[EpisodeVerdict], rounds: int = 10_000,
           seed: int = 0) -> F1Test:
        b = [v.ask_counts() for v in base]
        o = [v.ask_counts() for v in other]
        observed = ask_f1(o) - ask_f1(b)
        rng = random.Random(seed)
        extreme = 0
        totals_b, totals_o = _sums(b), _sums(o)
        for _ in range(rounds):
            sb, so = list(totals_b), list(totals_o)
            for cb, co in zip(b, o):
                if cb != co and rng.random() < 0.5:
                    for k in range(4):
                        sb[k] += co[k] - cb[k]
                        so[k] += cb[k] - co[k]
            if abs(_f1(so) - _f1(sb)) >= abs(observed) - 1e-12:
                extreme += 1
        return cls(ask_f1(b), ask_f1(o), (extreme + 1) / (rounds + 1), rounds)


Counts = tuple[int, int, int, int]


def _sums(counts: Sequence[Counts]) -> list[int]:
    return [sum(c[k] for c in counts) for k in range(4)]


def _f1(sums: Sequence[int]) -> float:
    questions, useful, needs, found = sums
    precision = useful / questions if questions else 0.0
    recall = found / needs if needs else 0.0
    return 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0


def ask_f1(counts: Sequence[Counts]) -> float:
    """Ask-F1 of pooled (questions, useful questions, needs, needs asked about) counts (`EpisodeVerdict.ask_counts`)."""
    return _f1(_sums(counts))


def _paired(base: Sequence[EpisodeVerdict], other: Sequence[EpisodeVerdict], outcome: Callable[[EpisodeVerdict], bool],
            among: Callable[[EpisodeVerdict], bool] | None = None) -> PairedTest:
    pairs = [(b, o) for b, o in zip(base, other) if among is None or among(b)]
    return PairedTest.of([outcome(b) for b, _ in pairs], [outcome(o) for _, o in pairs])


def paired_tests(base: Sequence[EpisodeVerdict], other: Sequence[EpisodeVerdict]) -> dict[str, PairedTest | None]:
    """`other` tested against `base` on the same episodes (paired by position): task success ("sr"), the right
    inquiry behaviour ("isr") and, over the episodes whose task needs a question, asking it ("asked"; None when no
    task needs one)."""
    if len(base) != len(other):
        raise ValueError(f"paired tests need the same episodes: {len(base)} and {len(other)} verdicts")
    return {
        "sr": _paired(base, other, lambda v: v.success),
        "isr": _paired(base, other, lambda v: v.inquiry_success),
        "asked": _paired(base, other, lambda v: v.inquiry == "asked", lambda v: v.inquiry_needed)
        if any(v.inquiry_needed for v in base) else None,
    }


def compare_runs(run_dirs: Sequence[Path], names: Sequence[str] | None = None) -> list[RunComparison]:
    """Read `mobile-r1 eval --out` folders holding the same episodes; the first is the base of every test."""
    if len(run_dirs) < 2:
        raise DataError("compare needs at least two run folders: the base first, then the runs to test against it")
    if names is not None and len(names) != len(run_dirs):
        raise DataError(f"got {len(names)} names for {len(run_dirs)} run folders")
    runs: list[tuple[Path, dict[str, Any], dict[str, EpisodeVerdict]]] = []
    extras: list[tuple[RunCounts, int | None]] = []
    for path in map(Path, run_dirs):
        options, every = load_run(path, infra=True)
        records = [r for r in every if r.get("infra_error") is None]
        extras.append((run_counts(every), step_budget(records)))
        if not records:
            raise DataError(f"{path} has no finished episodes yet")
        verdicts = verdicts_of(records)
        by_id = {v.episode_id: v for v in verdicts}
        if len(by_id) != len(verdicts):
            raise DataError(f"{path} holds an episode twice; compare needs one verdict per episode")
        runs.append((path, options, by_id))
    ids = sorted(runs[0][2])
    for path, _, by_id in runs[1:]:
        if set(by_id) != set(ids):
            only_base, only_here = len(set(ids) - set(by_id)), len(set(by_id) - set(ids))
            raise DataError(
                f"{path} and {runs[0][0]} hold different episodes ({only_base} only in the base, {only_here} only in "
                f"{path}); compare runs of the same --suite, --split, --seed and --episodes")
    base = [runs[0][2][i] for i in ids]
    for path, _, by_id in runs[1:]:
        for i in ids:
            if by_id[i].inquiry_needed != runs[0][2][i].inquiry_needed:
                raise DataError(f"episode {i} needs a question in one run and not in the other ({runs[0][0]}, {path}): "
                                "the runs were judged with different task specs")
    out = []
    for index, (path, options, by_id) in enumerate(runs):
        verdicts = [by_id[i] for i in ids]
        needs = needs_inquiry_summary(verdicts)
        asked = needs.isr if needs else wilson(0, 0)
        not_needed = [v for v in verdicts if not v.inquiry_needed]
        first = index == 0
        tests = None if first else paired_tests(base, verdicts)
        out.append(RunComparison(
            name=names[index] if names else path.name,
            path=str(path),
            agent=str(options.get("agent", "")),
            overall=summarize(verdicts, extras[index][1]).overall,
            asked_where_needed=asked,
            over_asked_where_not_needed=wilson(sum(v.inquiry == "over_asked" for v in not_needed), len(not_needed)),
            sr_test=None if tests is None else tests["sr"],
            isr_test=None if tests is None else tests["isr"],
            asked_test=None if tests is None or needs is None else tests["asked"],
            ask_f1_test=None if first else F1Test.of(base, verdicts),
            isr_by_language={} if first else {
                lang: _paired(base, verdicts, lambda v: v.inquiry_success, lambda v, lang=lang: v.language == lang)
                for lang in sorted({v.language for v in base if v.language}) if len({v.language for v in base}) > 1},
            counts=extras[index][0],
        ))
    return out


def _count(rate: Rate) -> str:
    return "-" if rate.n == 0 else f"{rate.k} of {rate.n}, {rate}"


def format_p(p: float) -> str:
    """A p-value as the tables print it: three decimals, or `p < 0.001`."""
    return "p < 0.001" if p < 0.001 else f"p = {p:.3f}"


def _test(test: PairedTest | None) -> str:
    return "" if test is None else f"+{test.other_only} / -{test.base_only}, {format_p(test.p)}"


def comparison_markdown(rows: Sequence[RunComparison]) -> str:
    """Two markdown tables: each run's SR, ISR, asked where needed and score with its paired tests against the first;
    then the ablation columns, each a count with its 95% Wilson interval."""
    base = rows[0].name
    lines = [
        f"{rows[0].overall.n} episodes, the same for every run. Tests against `{base}`: exact McNemar on the "
        "episodes where the two differ (+ only this run right, - only the base right).",
        "",
        f"| run | SR | ISR | asked where needed | score | SR vs {base} | ISR vs {base} | asked vs {base} |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        score = "-" if r.overall.mean_score.n == 0 else f"{r.overall.mean_score.value:.2f}"
        asked = "-" if r.asked_where_needed.n == 0 else f"{r.asked_where_needed.k} of {r.asked_where_needed.n}"
        lines.append(f"| {r.name} | {_count(r.overall.sr)} | {100 * r.overall.isr.value:.0f}% | {asked} | {score} | "
                     f"{_test(r.sr_test)} | {_test(r.isr_test)} | {_test(r.asked_test)} |")
    asking = [r for r in rows[1:] if r.ask_f1_test is not None]
    if asking:
        lines += ["", f"Ask-F1 against `{base}` (paired permutation test, {asking[0].ask_f1_test.rounds:,} draws)"  # type: ignore[union-attr]
                  + ("; the right inquiry behaviour per language (exact McNemar):" if asking[0].isr_by_language else ":"),
                  ""]
        for r in asking:
            t = r.ask_f1_test
            assert t is not None
            languages = "".join(f"; ISR in {lang} {_test(test)}" for lang, test in r.isr_by_language.items())
            lines.append(f"- {r.name}: Ask-F1 {100 * t.base:.1f}% -> {100 * t.other:.1f}%, {format_p(t.p)}{languages}")
    return "\n".join(lines) + "\n\n" + counts_markdown(rows) + ablation_markdown(rows)


def counts_markdown(rows: Sequence[RunComparison]) -> str:
    """What the verdicts alone do not say, per run that has any: truncated episodes, gate refusals, failed phones
    (`eval.counts`); "" when no run has any."""
    lines = [f"- {r.name}: {note}" for r in rows for note in r.counts.notes()]
    return "Beside the figures:\n\n" + "\n".join(lines) + "\n\n" if lines else ""


def ablation_columns(row: RunComparison) -> dict[str, Rate]:
    """The papers' ablation columns of one run: SR, ISR, asked where needed, over-inquiry over the episodes whose task
    needs no question, and self-corrections (n = 0 where the phone names no states)."""
    return {"sr": row.overall.sr, "isr": row.overall.isr, "asked_where_needed": row.asked_where_needed,
            "over_asked_where_not_needed": row.over_asked_where_not_needed,
            "self_correction": row.overall.self_correction, "ask_precision": row.overall.ask_precision,
            "ask_recall": row.overall.ask_recall, "late": row.overall.late, "early": row.overall.early}


def ablation_markdown(rows: Sequence[RunComparison], first: str = "run") -> str:
    """The ablation columns as a markdown table, a row per run, each cell a count with its 95% Wilson interval."""
    lines = [
        "95% Wilson intervals. Over-inquiry is counted over the episodes whose task needs no question; self-corrections "
        "are the episodes with a step back to a state the phone had left. Ask precision and recall are over questions "
        "and needs (Ask-F1, their harmonic mean, in the last column); late and early are shares of the needs asked "
        "about (after the risky step; before anything called for a question).",
        "",
        f"| {first} | SR | ISR | asked where needed | over-inquiry where no question is needed | self-corrections | "
        "ask precision | ask recall | late | early | Ask-F1 |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append("| " + " | ".join([r.name, *map(_count, ablation_columns(r).values()),
                                        f"{100 * r.overall.ask_f1:.1f}%"]) + " |")
    return "\n".join(lines)


@dataclass(frozen=True, slots=True)
class StepRunComparison:
    """One model's predictions of the shared labelled steps and, for every model after the first, its exact steps
    tested against the first's."""

    name: str
    path: str
    type_match: Rate
    exact: Rate
    exact_test: PairedTest | None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


StepKey = tuple[str, int]


def is_step_results(path: Path) -> bool:
    """Whether `path` holds per-step results (a JSON-lines file, or a folder of them without an evaluation run's
    episodes.jsonl) rather than a `mobile-r1 eval --out` folder."""
    path = Path(path)
    return path.is_file() or (path.is_dir() and not (path / "episodes.jsonl").is_file())


def read_step_results(path: Path) -> dict[StepKey, tuple[bool, bool]]:
    """(action type right, step exact) per (episode id, step) from per-step results: one JSON-lines file written by
    `mobile-r1 eval-offline --out` (or a curriculum's eval/<model>/steps.jsonl), or every such file of a folder,
    pooled (a model scored on each suite's steps into one folder)."""
    path = Path(path)
    files = [path] if path.is_file() else sorted(path.glob("*.jsonl"))
    if not files:
        raise DataError(f"{path} holds neither an evaluation run (episodes.jsonl, from `mobile-r1 eval --out`) nor "
                        "per-step results (*.jsonl, from `mobile-r1 eval-offline --out`)")
    out: dict[StepKey, tuple[bool, bool]] = {}
    for file in files:
        for number, line in enumerate(file.read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
                if "summary" in record:
                    continue
                key, value = (str(record["episode_id"]), int(record["step"])), (bool(record["type_match"]),
                                                                               bool(record["exact"]))
            except (json.JSONDecodeError, KeyError, TypeError, ValueError) as e:
                raise DataError(f"{file}:{number} is not a per-step result of `mobile-r1 eval-offline --out` ({e})") \
                    from None
            if key in out:
                raise DataError(f"{file}:{number}: step {key[1]} of episode {key[0]} is scored twice in {path}")
            out[key] = value
    if not out:
        raise DataError(f"{path} holds no scored step")
    return out


def compare_steps(paths: Sequence[Path], names: Sequence[str] | None = None) -> list[StepRunComparison]:
    """Read per-step results of several models on the same labelled steps (`read_step_results`); the first is the
    base every other model's exact steps are tested against."""
    if len(paths) < 2:
        raise DataError("compare needs at least two runs: the base first, then the runs to test against it")
    if names is not None and len(names) != len(paths):
        raise DataError(f"got {len(names)} names for {len(paths)} runs")
    runs = [(Path(p), read_step_results(Path(p))) for p in paths]
    keys = sorted(runs[0][1])
    for path, steps in runs[1:]:
        if set(steps) != set(keys):
            only_base, only_here = len(set(keys) - set(steps)), len(set(steps) - set(keys))
            raise DataError(f"{path} and {runs[0][0]} hold different steps ({only_base} only in the base, {only_here} "
                            f"only in {path}); compare models scored on the same --data")
    base = [runs[0][1][k][1] for k in keys]
    out = []
    for index, (path, steps) in enumerate(runs):
        typed, exact = [steps[k][0] for k in keys], [steps[k][1] for k in keys]
        out.append(StepRunComparison(
            name=names[index] if names else path.name, path=str(path),
            type_match=wilson(sum(typed), len(keys)), exact=wilson(sum(exact), len(keys)),
            exact_test=None if index == 0 else PairedTest.of(base, exact)))
    return out


def steps_markdown(rows: Sequence[StepRunComparison]) -> str:
    """A markdown table of each model's action types and exact steps (95% Wilson intervals), with its exact steps
    tested against the first model's."""
    base = rows[0].name
    lines = [
        f"{rows[0].exact.n} labelled steps, the same for every run; 95% Wilson intervals. Tests against `{base}`: "
        "exact McNemar on the steps where the two differ (+ only this run exact, - only the base exact).",
        "",
        f"| run | action type | exact step | exact vs {base} |",
        "|---|---|---|---|",
    ]
    for r in rows:
        lines.append(f"| {r.name} | {_count(r.type_match)} | {_count(r.exact)} | {_test(r.exact_test)} |")
    return "\n".join(lines)


__all__ = ["exact_mcnemar", "PairedTest", "RunComparison", "paired_tests", "compare_runs", "counts_markdown", "comparison_markdown", "ablation_columns",
           "ablation_markdown", "StepRunComparison", "is_step_results", "read_step_results", "compare_steps",
           "steps_markdown"]
