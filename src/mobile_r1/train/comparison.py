"""The curriculum's comparison of its models: comparison.json, comparison.md (a row per model, paired tests against
the untrained and the SFT model, the papers' ablation columns, the held-out labelled steps) and report.html."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path
from typing import Any

from mobile_r1.core.errors import ConfigError
from mobile_r1.eval.compare import (PairedTest, ablation_columns, ablation_markdown, compare_runs, format_p,
                                    read_step_results)
from mobile_r1.eval.report import read_run, render_report
from mobile_r1.train.config import TrainConfig
from mobile_r1.train.registry import stage_class
from mobile_r1.train.scoring import ModelRow, eval_sets
from mobile_r1.train.sft import SFTRunner

UNTRAINED = "untrained"
SFT = SFTRunner.name  # the model the later ones are also compared with, and whose steps they are paired against


def model_title(label: str) -> str:
    """How the comparison names a model: "untrained", or the title of the stage it came out of."""
    if label == UNTRAINED:
        return "untrained"
    try:
        return stage_class(label).title or label
    except ConfigError:  # a stage no longer known here: its own label
        return label


def percent(value: float | None) -> str:
    """A rate as a whole percentage ("-" when there is none)."""
    return "-" if value is None else f"{100 * value:.0f}%"


def comparison_markdown(rows: list[ModelRow], suites: list[str], episodes: int, split: str,
                        keys: list[str] | None = None, intro: str | None = None) -> str:
    """The comparison as a markdown table: a row per model, SR / ISR / over-inquiry / safety / score per evaluation
    set (`keys`, default the suites)."""
    keys = keys or suites
    head = ["model"]
    for key in keys:
        head += [f"{key} SR", f"{key} ISR", f"{key} over-inq.", f"{key} safety viol.", f"{key} score"]
    lines = [intro or (f"Held-out `{split}` episodes: {episodes} per suite, the same for every model. "
                       "ISR: asked when the task needed it, stayed silent when not. Score: the judge's 0-4 grade, mean."),
             "", "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for row in rows:
        cells = [model_title(row.label)]
        for key in keys:
            s = row.scores.get(key)
            cells += ([percent(s.sr), percent(s.isr), percent(s.over_inquiry), percent(s.safety_violation),
                       "-" if s.mean_score is None else f"{s.mean_score:.2f}"] if s else ["-"] * 5)
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


Tests = dict[str, dict[str, dict[str, Any]]]  # model label -> set (suite) -> {gained, lost, p}
PAIRED = {  # what the tables under the comparison test, and how they are introduced
    "sr": "Task success against the {base} model on the same episodes (exact McNemar: + episodes only the "
          "later model completed, - only the {base} one):",
    "asked": "A question at the right step against the {base} model, on the episodes whose task needs one (exact "
             "McNemar: + episodes only the later model asked in, - only the {base} one):",
}


def paired_tests(run_dir: Path, rows: list[ModelRow], keys: list[str], base: str = UNTRAINED) -> dict[str, Tests]:
    """Each later model against the `base` one on the same episodes (exact McNemar): task success ("sr") on every
    evaluation set, and asking at the right step ("asked") on the sets with tasks that need a question. `keys` are
    the sets' folders under eval/<model>/ (and the keys of the result)."""
    out: dict[str, Tests] = {metric: {} for metric in PAIRED}
    labels = [row.label for row in rows]
    if base not in labels:
        return out
    later = labels[labels.index(base) + 1 :]
    for key in keys:
        folders = {label: run_dir / "eval" / label / key for label in [base, *later]}
        scored = [label for label, folder in folders.items() if (folder / "episodes.jsonl").is_file()]
        if base not in scored or len(scored) < 2:
            continue
        for label, compared in zip(scored[1:], compare_runs([folders[label] for label in scored])[1:]):
            for metric, test in (("sr", compared.sr_test), ("asked", compared.asked_test)):
                if test is not None:
                    out[metric].setdefault(label, {})[key] = {"gained": test.other_only, "lost": test.base_only,
                                                              "p": test.p}
    return {metric: {label: tests[label] for label in later if label in tests} for metric, tests in out.items()}


def ask_tests(run_dir: Path, rows: list[ModelRow], keys: list[str], base: str = UNTRAINED) -> dict[str, dict[str, Any]]:
    """Each later model's Ask-F1 against the `base` model's on the same episodes (paired permutation test), and with
    episodes in several languages its right inquiry behaviour per language (exact McNemar): `{model: {set: {...}}}`."""
    labels = [row.label for row in rows]
    out: dict[str, dict[str, Any]] = {}
    if base not in labels:
        return out
    later = labels[labels.index(base) + 1 :]
    for key in keys:
        folders = {label: run_dir / "eval" / label / key for label in [base, *later]}
        scored = [label for label, folder in folders.items() if (folder / "episodes.jsonl").is_file()]
        if base not in scored or len(scored) < 2:
            continue
        for label, compared in zip(scored[1:], compare_runs([folders[label] for label in scored])[1:]):
            t = compared.ask_f1_test
            if t is None:
                continue
            out.setdefault(label, {})[key] = {
                "base": t.base, "other": t.other, "p": t.p, "rounds": t.rounds,
                "isr_by_language": {lang: {"gained": test.other_only, "lost": test.base_only, "p": test.p}
                                    for lang, test in compared.isr_by_language.items()}}
    return out


def ask_markdown(tests: dict[str, dict[str, Any]], base: str) -> str:
    """Ask-F1 of each model against `base` per evaluation set, with the per-language tests."""
    if not tests:
        return ""
    lines = ["", f"Ask-F1 against {model_title(base)} (paired permutation test); the right inquiry behaviour per "
             "language (exact McNemar, + only the model right, - only the base right):", ""]
    for label, by_key in tests.items():
        for key, t in by_key.items():
            langs = "".join(f"; {lang} +{x['gained']} / -{x['lost']}, {format_p(x['p'])}"
                            for lang, x in t["isr_by_language"].items())
            lines.append(f"- {model_title(label)} on {key}: {100 * t['base']:.1f}% -> {100 * t['other']:.1f}%, "
                         f"{format_p(t['p'])}{langs}")
    return "\n".join(lines) + "\n"


def ablation_tables(run_dir: Path, rows: list[ModelRow], suites: list[str], split: str) -> tuple[str, dict[str, Any]]:
    """The papers' ablation columns (SR, ISR, asked where needed, over-inquiry where no question is needed,
    self-corrections, each with its 95% Wilson interval) of every model scored on a suite's held-out episodes: the
    markdown tables and, for comparison.json, `{suite: {model: {column: {k, n, value, low, high}}}}`."""
    md: list[str] = []
    data: dict[str, Any] = {}
    for suite in suites:
        scored = [row.label for row in rows if (run_dir / "eval" / row.label / suite / "episodes.jsonl").is_file()]
        if len(scored) < 2:
            continue
        compared = compare_runs([run_dir / "eval" / label / suite for label in scored],
                                [model_title(label) for label in scored])
        data[suite] = {label: {**{name: asdict(rate) for name, rate in ablation_columns(c).items()},
                               "ask_f1": c.overall.ask_f1} for label, c in zip(scored, compared)}
        md += ["", f"The papers' ablation columns on the `{split}` episodes of {suite}:", "",
               ablation_markdown(compared, first="model")]
    return ("\n".join(md) + "\n" if md else ""), data


def step_tests(run_dir: Path, rows: list[ModelRow], base: str = SFT) -> dict[str, dict[str, Any]]:
    """Each later model's exact steps on the held-out labelled steps against the `base` model's (exact McNemar over
    the same steps, read from eval/<model>/steps.jsonl)."""
    def exact(label: str) -> dict[tuple[str, int], bool] | None:
        path = run_dir / "eval" / label / "steps.jsonl"
        if not path.is_file():
            return None
        return {key: right for key, (_, right) in read_step_results(path).items()}

    labels = [row.label for row in rows]
    reference = exact(base) if base in labels else None
    if reference is None:
        return {}
    out = {}
    for label in labels[labels.index(base) + 1 :]:
        other = exact(label)
        if other is None or set(other) != set(reference):
            continue
        keys = sorted(reference)
        test = PairedTest.of([reference[k] for k in keys], [other[k] for k in keys])
        out[label] = {"gained": test.other_only, "lost": test.base_only, "p": test.p, "steps": len(keys)}
    return out


def paired_markdown(tests: dict[str, Tests], suites: list[str], base: str = UNTRAINED) -> str:
    """The paired tests as tables under the comparison: a row per later model, a cell per evaluation set."""
    lines: list[str] = []
    for metric, by_label in tests.items():
        if not by_label:
            continue
        keys = suites
        intro = PAIRED[metric].format(base=model_title(base))
        lines += ["", intro, "", "| model | " + " | ".join(keys) + " |", "|" + "---|" * (len(keys) + 1)]
        for label, by_key in by_label.items():
            cells = [model_title(label)]
            for key in keys:
                t = by_key.get(key)
                cells.append("-" if t is None else f"+{t['gained']} / -{t['lost']}, {format_p(t['p'])}")
            lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n" if lines else ""


def steps_markdown(rows: list[ModelRow], tests: dict[str, dict[str, Any]]) -> str:
    """The held-out labelled steps: each model's type accuracy and exact-step rate, and the paired tests vs SFT."""
    scored = [row for row in rows if row.steps is not None]
    if not scored:
        return ""
    lines = ["", f"Held-out labelled steps ({scored[0].steps.steps}, predicted greedily from the labelled history; "  # type: ignore[union-attr]
             "matcher qwen-ac); exact steps against the SFT model (exact McNemar):", "",
             "| model | action type | exact step | vs SFT |", "|---|---|---|---|"]
    for row in scored:
        assert row.steps is not None
        t = tests.get(row.label)
        vs = "-" if t is None else f"+{t['gained']} / -{t['lost']}, {format_p(t['p'])}"
        lines.append(f"| {model_title(row.label)} | {percent(row.steps.type_accuracy)} | "
                     f"{percent(row.steps.step_sr)} | {vs} |")
    return "\n".join(lines) + "\n"


def write_comparison(config: TrainConfig, run_dir: Path, rows: list[ModelRow], timings: dict[str, float]) -> tuple[Path, Path, Path | None]:
    """comparison.json, comparison.md and report.html (eval/report.py over every model's runs)."""
    cur = config.curriculum
    suites = list(cur.eval_suites)
    sets = eval_sets(config, run_dir)
    indist = [s.key for s in sets if s.in_distribution]
    vs_untrained = paired_tests(run_dir, rows, suites)
    vs_sft = paired_tests(run_dir, rows, suites, base=SFT)
    data: dict[str, Any] = {
        "split": cur.eval_split, "episodes_per_suite": cur.eval_episodes, "suites": cur.eval_suites,
        "rows": [asdict(r) for r in rows], "sr_vs_untrained": vs_untrained["sr"],
        "asked_vs_untrained": vs_untrained["asked"], "sr_vs_sft": vs_sft["sr"], "asked_vs_sft": vs_sft["asked"],
        "timings_s": timings,
        "ask_f1_vs_untrained": ask_tests(run_dir, rows, suites), "ask_f1_vs_sft": ask_tests(run_dir, rows, suites, SFT),
    }
    ablation_md, data["ablation"] = ablation_tables(run_dir, rows, suites, cur.eval_split)
    md = (comparison_markdown(rows, suites, cur.eval_episodes, cur.eval_split) + paired_markdown(vs_untrained, suites)
          + paired_markdown(vs_sft, suites, base=SFT) + ask_markdown(data["ask_f1_vs_sft"], SFT) + ablation_md)
    if indist:
        in_untrained = paired_tests(run_dir, rows, indist)
        in_sft = paired_tests(run_dir, rows, indist, base=SFT)

        def by_suite(tests: Tests) -> Tests:
            return {label: {key.removesuffix("-indist"): t for key, t in by_key.items()} for label, by_key in tests.items()}

        data["in_distribution"] = {
            "split": "train", "seed": cur.eval_in_distribution_seed, "episodes_per_suite": cur.eval_in_distribution,
            "sr_vs_untrained": by_suite(in_untrained["sr"]), "asked_vs_untrained": by_suite(in_untrained["asked"]),
            "sr_vs_sft": by_suite(in_sft["sr"]), "asked_vs_sft": by_suite(in_sft["asked"]),
            "ask_f1_vs_sft": by_suite(ask_tests(run_dir, rows, indist, SFT)),
        }
        intro = (f"In-distribution episodes: {cur.eval_in_distribution} per suite of the train phrasings, with seeds and "
                 "instructions no training episode used (seed "
                 f"{cur.eval_in_distribution_seed}), the same for every model.")
        md += ("\n" + comparison_markdown(rows, suites, cur.eval_in_distribution, "train", indist, intro)
               + paired_markdown(in_untrained, indist) + paired_markdown(in_sft, indist, base=SFT))
    if any(row.steps is not None for row in rows):
        steps = step_tests(run_dir, rows)
        data["steps"] = {row.label: asdict(row.steps) for row in rows if row.steps is not None}
        data["steps_vs_sft"] = steps
        md += steps_markdown(rows, steps)
    json_path = run_dir / "comparison.json"
    json_path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    md_path = run_dir / "comparison.md"
    md_path.write_text(md, encoding="utf-8")
    runs = []
    for s in sets:
        for row in rows:
            folder = run_dir / "eval" / row.label / s.key
            if (folder / "episodes.jsonl").is_file():
                run_data = read_run(folder)
                run_data.name = f"{row.label} · {s.key}"
                runs.append(run_data)
    report = None
    if runs:
        report = run_dir / "report.html"
        curves = [(model_title(stage), run_dir / stage / "curves.png") for stage in config.curriculum.stages]
        report.write_text(render_report(runs, title="mobile-r1 curriculum: untrained vs each stage",
                                        max_episodes=4 * len(runs), curves=curves), encoding="utf-8")
    return json_path, md_path, report


__all__ = ["SFT", "UNTRAINED", "ablation_tables", "comparison_markdown", "model_title", "paired_markdown", "percent",
           "paired_tests", "step_tests", "steps_markdown", "write_comparison"]
