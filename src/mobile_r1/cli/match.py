"""`mobile-r1 match`: score predicted actions against labelled steps with a named matcher preset."""

from __future__ import annotations

import json
from pathlib import Path

import typer
from rich.table import Table

from mobile_r1.cli.app import app, console
from mobile_r1.core.matching import MATCHERS, MetricsReport, get_matcher, score_pairs


@app.command()
def match(
    input: Path = typer.Option(..., "--input", "-i", help='JSONL of {"pred", "label", "bbox", "screen_size"} records.'),
    preset: str = typer.Option("aitw", "--preset", "-p", help=f"Matcher preset: {', '.join(MATCHERS)}."),
) -> None:
    """Print one JSON per pair (type_match, grounding, exact), then a JSON summary; a table goes to stderr."""
    from mobile_r1.core.formats import load_match_pairs

    matcher = get_matcher(preset)
    pairs = load_match_pairs(input)
    matches, report = score_pairs(matcher, pairs)
    for m in matches:
        typer.echo(json.dumps(m.to_dict()))
    typer.echo(json.dumps({"summary": report.to_dict()}, ensure_ascii=False))
    console.print(_table(report))  # standard output holds the JSON lines


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}%"


def _table(report: MetricsReport) -> Table:
    table = Table(title=f"Step matching ({report.preset}), {report.steps} steps")
    for column in ("label type", "steps", "Type", "Grounding", "Step SR"):
        table.add_column(column, justify="left" if column == "label type" else "right")
    for name, stats in report.per_type.items():
        table.add_row(name, str(stats.steps), _pct(stats.type_accuracy), _pct(stats.grounding), _pct(stats.step_sr))
    table.add_row("all", str(report.steps), _pct(report.type_accuracy), _pct(report.grounding), _pct(report.step_sr), style="bold")
    q = report.inquiry
    table.caption = f"inquiry (call_user): P {_pct(q.precision)}  R {_pct(q.recall)}  F1 {_pct(q.f1)}"
    return table
