"""`mobile-r1 rescore PATH...`: SR and ISR of judged runs (InquireMobile's released judge files or our verdicts)."""

from __future__ import annotations

import json
from pathlib import Path

import typer
from rich.console import Console
from rich.table import Table

from mobile_r1.cli.app import app


@app.command()
def rescore(
    paths: list[Path] = typer.Argument(..., help="Judge or verdict files (JSON lines), or folders of them."),
    as_json: bool = typer.Option(False, "--json", help="Print the report as JSON on standard output."),
) -> None:
    """Report SR and ISR per file, per model (languages pooled) and over all files, with 95% Wilson intervals."""
    from mobile_r1.eval.rescore import rescore as run_rescore

    report = run_rescore(paths)
    if as_json:
        typer.echo(json.dumps(report.to_dict(), ensure_ascii=False, indent=2))
        return
    out = Console(width=120)
    for title, scores in (("per file", report.files), ("per model", report.models + [report.pooled])):
        table = Table(title=f"Rescored {title}")
        for column in ("name", "n", "SR", "ISR", "mean score 0-4"):
            table.add_column(column, justify="left" if column == "name" else "right")
        for s in scores:
            if s is None:
                continue
            score = f"{s.mean_score.value:.2f}" if s.mean_score.n else "-"
            table.add_row(s.name, str(s.n), str(s.sr), str(s.isr), score)
        out.print(table)
