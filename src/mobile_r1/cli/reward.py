"""`mobile-r1 reward`: score completions against labelled actions with a named reward preset."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from mobile_r1.cli.app import app, console, write_jsonl
from mobile_r1.core.rewards import PRESETS, get_preset, read_cases


@app.command()
def reward(
    preset: str = typer.Option(..., "--preset", "-p", help=f"Reward preset: {', '.join(PRESETS)}."),
    input: Path = typer.Option(
        ...,
        "--input",
        "-i",
        help='JSONL of {"completion", "label", "bbox", "image_size", "model_image_size"} records.',
    ),
    output: Optional[Path] = typer.Option(None, "--output", "-o", help="Write the JSONL results here (default: stdout)."),
) -> None:
    """Print one {"format", "accuracy", "total", ...components} record per input line, in order."""
    from rich.progress import track

    chosen = get_preset(preset)
    cases = list(read_cases(input))  # check every line before writing anything
    records = (chosen.score_target(case.completion, case.target).to_record() for case in cases)
    if output is not None and len(cases) >= 1000:
        records = track(records, total=len(cases), description=f"scoring ({chosen.name})", console=console)
    write_jsonl(records, output)
    if output is not None:
        console.print(f"{len(cases)} completions scored with {chosen.name} -> {output}")
