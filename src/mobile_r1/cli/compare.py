"""`mobile-r1 compare BASE RUN [RUN ...]`: evaluation runs on the same episodes, each tested against the first."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer

from mobile_r1.cli.app import app, console


@app.command()
def compare(
    run_dirs: list[Path] = typer.Argument(..., help="Run folders written by 'mobile-r1 eval --out' on the same "
                                                    "episodes; the first is the base every other run is tested against."),
    name: Optional[list[str]] = typer.Option(None, "--name", help="A name per run folder, in order (default: the "
                                                                  "folder names)."),
    json_out: Optional[Path] = typer.Option(None, "--json", help="Also write the comparison as JSON to this file."),
) -> None:
    """Print SR, ISR, asked where needed and score per run, with exact McNemar tests against the first run, and the
    ablation columns (SR, ISR, asked where needed, over-inquiry where no question is needed, self-corrections) with
    95% intervals."""
    from mobile_r1.eval.compare import compare_runs, comparison_markdown

    rows = compare_runs(run_dirs, name or None)
    print(comparison_markdown(rows))
    if json_out is not None:
        json_out.write_text(json.dumps([r.to_dict() for r in rows], indent=2) + "\n", encoding="utf-8")
        console.print(f"wrote {json_out}")
