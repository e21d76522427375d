"""`mobile-r1 data ...`: inspect and convert datasets (the `data` sub-command group; more commands join it)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Optional

import typer
from rich.console import Console
from rich.table import Table

from mobile_r1.cli.app import app

def _require_episodes(path: Path, episodes: list[object]) -> None:
    """An input without a single record is an error (a mistyped or truncated file), not an empty result."""
    from mobile_r1.core.errors import DataError

    if not episodes:
        raise DataError(f"{path}: holds no records; nothing to read")


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
    _require_episodes(path, episodes)
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


@data_app.command("convert")
def convert(
    path: Path = typer.Argument(..., help="A data file in any supported format."),
    out: Path = typer.Argument(..., help="Native store to write: a folder, or a .jsonl file (images/ goes beside it)."),
    format: Optional[str] = typer.Option(None, "--format", "-f", help="Input format (default: detect)."),
) -> None:
    """Convert a dataset into the native episode store."""
    from mobile_r1.core.formats import load_any, save_episodes

    name, episodes = load_any(path, format)
    _require_episodes(path, episodes)
    written = save_episodes(out, episodes)
    typer.echo(f"{len(episodes)} episodes ({name}) -> {written}")


@data_app.command("export")
def export(
    path: Path = typer.Argument(..., help="A data file in any supported format, or a native store folder."),
    out: Path = typer.Option(..., "--out", "-o", help="The JSONL file to write."),
    to: str = typer.Option("sharegpt", "--to", help="sharegpt (LLaMA-Factory) or trl."),
    dialect: str = typer.Option("inquire", "--dialect", "-d", help="Prompt/target dialect: qwen2.5vl, inquire, mobile-r1, uitars."),
    format: Optional[str] = typer.Option(None, "--format", "-f", help="Input format (default: detect)."),
    observation_mode: str = typer.Option("image", "--observation-mode", help="image (screenshots) or text (accessibility tree)."),
    history_window: Optional[int] = typer.Option(None, "--history-window", help="Keep only the last N steps of history."),
    image_root: Optional[Path] = typer.Option(None, "--image-root", help="Folder relative screenshot paths are joined to."),
    trl_style: str = typer.Option("prompt-completion", "--trl-style", help="prompt-completion or messages."),
) -> None:
    """Write one training sample per step, rendered through a dialect, for LLaMA-Factory or TRL."""
    from mobile_r1.core.dialects import get_dialect
    from mobile_r1.core.errors import ConfigError
    from mobile_r1.core.formats import export_sharegpt, export_trl, images_dir, load_any

    name, episodes = load_any(path, format)
    _require_episodes(path, episodes)
    if image_root is None and name == "native":
        image_root = images_dir(path)
    if observation_mode not in ("image", "text"):
        raise ConfigError(f"--observation-mode must be image or text, got {observation_mode!r}")
    options = dict(observation_mode=observation_mode, history_window=history_window, image_root=image_root)
    if to == "sharegpt":
        count = export_sharegpt(episodes, get_dialect(dialect), out, **options)  # type: ignore[arg-type]
    elif to == "trl":
        count = export_trl(episodes, get_dialect(dialect), out, style=trl_style, **options)  # type: ignore[arg-type]
    else:
        raise ConfigError(f"--to must be sharegpt or trl, got {to!r}")
    typer.echo(f"{count} samples ({name} -> {to}, dialect {dialect}) -> {out}")
