"""`mobile-r1 report RUN_DIR [RUN_DIR ...]`: one self-contained HTML page of evaluation runs."""

from __future__ import annotations

from pathlib import Path

import typer

from mobile_r1.cli.app import app, console


@app.command()
def report(
    run_dirs: list[Path] = typer.Argument(..., help="Run directories written by 'mobile-r1 eval --out'."),
    out: Path | None = typer.Option(None, "--out", help="The HTML file (default: FIRST_RUN/report.html)."),
    max_episodes: int = typer.Option(60, "--max-episodes", help="Episodes per run in the browser."),
    image_width: int = typer.Option(240, "--image-width", help="Width of the embedded screenshots in pixels."),
) -> None:
    """Metric tables side by side, a chart per category and an episode browser with annotated screenshots. Warns when
    the runs' cards (card.json) differ in a setting that moves a score, naming the fields."""
    from mobile_r1.eval.card import card_warnings
    from mobile_r1.eval.report import write_report

    path = write_report(run_dirs, out, max_episodes=max_episodes, image_width=image_width)
    console.print(f"wrote {path} ({path.stat().st_size / 1e6:.1f} MB)")
    for warning in card_warnings(run_dirs):
        console.print(f"warning: {warning}", markup=False, highlight=False)
