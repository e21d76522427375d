"""`mobile-r1 data ...`: inspect and convert datasets (the `data` sub-command group; more commands join it)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer
from rich.console import Console
from rich.table import Table

from mobile_r1.cli.app import app

data_app = typer.Typer(help="Inspect and convert datasets: native episodes, Mobile-R1 and InquireMobile files.", no_args_is_help=True)
app.add_typer(data_app, name="data")


@data_app.command("stats")
def stats(
    path: Path = typer.Argument(..., help="A data file (.jsonl) or a native episode folder."),
    format: Optional[str] = typer.Option(
        None, "--format", "-f", help="native, mobile-r1, inquire-tasks, inquire-sft or inquire-grpo (default: detect)."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print the figures as JSON on standard output."),
) -> None:
    """Episodes, steps, steps per episode, action types, share of call_user, apps and categories."""
    from mobile_r1.core.formats import compute_stats, load_any

    name, episodes = load_any(path, format)
    figures = compute_stats(episodes, name)
    if as_json:
        typer.echo(json.dumps(figures.to_dict(), ensure_ascii=False, indent=2))
        return
    out = Console(width=120)
    table = Table(title=f"{path} ({name})")
    table.add_column("figure")
    table.add_column("value", justify="right")
    table.add_row("episodes", str(figures.episodes))
    table.add_row("steps", str(figures.steps))
    table.add_row("steps per episode", f"mean {figures.steps_mean:.2f}, min {figures.steps_min}, max {figures.steps_max}")
    table.add_row("call_user share", f"{100 * figures.call_user_share:.1f}%")
    for title, counts in (
        ("action", figures.action_types),
        ("category", figures.categories),
        ("language", figures.languages),
        ("app", figures.apps),
    ):
        for key, count in counts.items():
            table.add_row(f"{title}: {key}", str(count))
    out.print(table)
