"""InquireBench on the simulated phone, agent by agent: the table of docs/tasks.md ("InquireBench on the simulated phone").

    python benchmarks/inquirebench_table.py                            # the scripted agents (about 6 minutes on 2 cores)
    python benchmarks/inquirebench_table.py --agent hf:runs/demo/final --label "demo's model"   # and a trained model
    python benchmarks/inquirebench_table.py --run runs/rl-cpu-inquire/eval/sft/inquirebench-sim --label SFT  # a run

Each agent plays every released line the `inquirebench-sim` suite plays (its test split: both task files, English and
Chinese), rule-judged; each cell is tasks done · ISR · Ask-F1 · mean 0-4 score, overall, per category and per
language. The runs are kept under --out (default runs/inquirebench-table), one folder per agent, so `mobile-r1 compare`
and `mobile-r1 report` can read them.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from mobile_r1.eval.metrics import MetricsReport, MetricSummary, step_budget, summarize
from mobile_r1.eval.runner import EvalConfig, load_run, run_eval, verdicts_of

SCRIPTED = ("oracle", "never-ask", "always-ask", "random")


def cell(s: MetricSummary | None) -> str:
    if s is None or s.n == 0:
        return "-"
    return f"{s.sr.k} · {100 * s.isr.value:.0f}% · {100 * s.ask_f1:.0f}% · {s.mean_score.value:.2f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--agent", action="append", default=[], help="Further agents to score (repeatable).")
    parser.add_argument("--label", action="append", default=[],
                        help="A column title for each --agent, then each --run, in order.")
    parser.add_argument("--run", action="append", type=Path, default=[],
                        help="A finished `mobile-r1 eval --suite inquirebench-sim --split test` folder to add (repeatable; "
                        "its --label follows the agents').")
    parser.add_argument("--out", type=Path, default=Path("runs/inquirebench-table"))
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--no-scripted", action="store_true", help="Only the --agent agents.")
    args = parser.parse_args()
    agents = ([] if args.no_scripted else list(SCRIPTED)) + args.agent
    extra = [str(a) for a in args.agent] + [str(r) for r in args.run]  # --label names these, in this order
    named = [args.label[i] if i < len(args.label) else f"`{item}`" for i, item in enumerate(extra)]
    labels = ([] if args.no_scripted else [f"`{a}`" for a in SCRIPTED]) + named
    reports: list[MetricsReport] = []
    for agent in agents:
        started = time.perf_counter()
        result = run_eval(EvalConfig(agent=agent, suite="inquirebench-sim", split="test", workers=args.workers,
                                     out=args.out / agent.replace(":", "-").replace("/", "_")))
        print(f"{agent}: {len(result.verdicts)} episodes in {time.perf_counter() - started:.0f} s", flush=True)
        reports.append(result.report)
    for run in args.run:
        _, records = load_run(run)
        reports.append(summarize(verdicts_of(records), step_budget(records)))
    first = reports[0]
    rows = [("all lines", first.overall.n, [r.overall for r in reports])]
    rows += [(cat, first.by_category[cat].n, [r.by_category.get(cat) for r in reports])
             for cat in sorted(first.by_category, key=lambda c: -first.by_category[c].n)]
    rows += [(lang, first.by_language[lang].n, [r.by_language.get(lang) for r in reports])
             for lang in sorted(first.by_language)]
    print()
    print("| lines | n | " + " | ".join(labels) + " |")
    print("|---|---:|" + "---|" * len(labels))
    for name, n, summaries in rows:
        print(f"| {name} | {n} | " + " | ".join(cell(s) for s in summaries) + " |")


if __name__ == "__main__":
    main()
