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
    image_width: int = typer.Option(200, "--image-width", help="Width of the screenshot thumbnails in pixels."),
    max_image_mb: float = typer.Option(8.0, "--max-image-mb", help="At most this many megabytes of thumbnails in "
                                       "the page; past it, screenshots are left out with a note."),
) -> None:
    """Per suite, a table of the runs, their paired tests (exact McNemar against the suite's first run) and a chart
    per category; an episode browser with thumbnails of the screens. Warns when runs of one suite differ in a setting
    that moves a score (their cards, card.json), naming the fields."""
    from mobile_r1.eval.report import report_warnings, write_report

    path = write_report(run_dirs, out, max_episodes=max_episodes, image_width=image_width, max_image_mb=max_image_mb)
    console.print(f"wrote {path} ({path.stat().st_size / 1e6:.1f} MB)")
    for warning in report_warnings(run_dirs):
        console.print(f"warning: {warning}", markup=False, highlight=False)
