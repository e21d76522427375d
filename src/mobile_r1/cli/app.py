"""The Typer application every command module registers on, and the shared helpers commands use."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, Iterable

import typer
from rich.console import Console

app = typer.Typer(
    name="mobile-r1",
    help="Train and evaluate phone agents that act on a screen and know when to ask the human.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
# notes, progress and errors: standard error, each note on one line (a path folded in a log cannot be grepped or pasted)
console = Console(stderr=True, soft_wrap=True)
# Results (tables, reports) go to standard output, wide enough not to fold a table when it is not a terminal.
output = Console(width=None if sys.stdout.isatty() else 180)


def _version(value: bool) -> None:
    if value:
        from importlib.metadata import PackageNotFoundError, version

        try:
            typer.echo(f"mobile-r1 {version('mobile-r1')}")
        except PackageNotFoundError:  # run from a source tree without an install
            typer.echo("mobile-r1 (not installed)")
        raise typer.Exit()


@app.callback()
def _main(version: bool = typer.Option(False, "--version", callback=_version, is_eager=True,
                                       help="Print the version and exit.")) -> None:
    """Train and evaluate phone agents that act on a screen and know when to ask the human."""


def write_jsonl(records: Iterable[dict[str, Any]], output: Path | None) -> None:
    """Write records as JSON lines to `output`, or to standard output when it is None."""
    stream = open(output, "w", encoding="utf-8") if output is not None else sys.stdout
    try:
        for record in records:
            stream.write(json.dumps(record, ensure_ascii=False) + "\n")
    finally:
        if output is not None:
            stream.close()
