"""`mobile-r1 compare BASE RUN [RUN ...]`: evaluation runs on the same episodes, or offline scores of the same labelled
steps, each tested against the first."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer

from mobile_r1.cli.app import app, console


@app.command()
def compare(
    run_dirs: list[Path] = typer.Argument(..., help="Run folders written by 'mobile-r1 eval --out' on the same "
                                                    "episodes, or per-step results of 'mobile-r1 eval-offline --out' "
                                                    "on the same labelled steps (a file, or a folder of them pooled); "
                                                    "the first is the base every other run is tested against."),
    name: Optional[list[str]] = typer.Option(None, "--name", help="A name per run folder, in order (default: the "
                                                                  "folder names)."),
    json_out: Optional[Path] = typer.Option(None, "--json", help="Also write the comparison as JSON to this file."),
) -> None:
    """Print SR, ISR, asked where needed and score per run, with exact McNemar tests against the first run, and the
    ablation columns (SR, ISR, asked where needed, over-inquiry where no question is needed, self-corrections) with
    95% intervals; for per-step results, action types and exact steps, tested the same way. Warns when the runs' cards
    (card.json) differ in a setting that moves a score, naming the fields."""
    from mobile_r1.core.errors import DataError
    from mobile_r1.eval.compare import compare_runs, compare_steps, comparison_markdown, is_step_results, steps_markdown

    kinds = {is_step_results(path) for path in run_dirs}
    if len(kinds) > 1:
        raise DataError("compare takes evaluation runs (mobile-r1 eval --out) or per-step results (mobile-r1 "
                        "eval-offline --out), not both at once")
    if kinds == {True}:
        steps = compare_steps(run_dirs, name or None)
        print(steps_markdown(steps))
        rows = [r.to_dict() for r in steps]
    else:
        from mobile_r1.eval.card import card_warnings

        episodes = compare_runs(run_dirs, name or None)
        print(comparison_markdown(episodes))
        rows = [r.to_dict() for r in episodes]
        for warning in card_warnings(run_dirs, name or None):  # what else differs between the runs (card.json)
            console.print(f"warning: {warning}", markup=False, highlight=False)
    if json_out is not None:
        json_out.write_text(json.dumps(rows, indent=2) + "\n", encoding="utf-8")
        console.print(f"wrote {json_out}")
