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
console = Console(stderr=True)


def write_jsonl(records: Iterable[dict[str, Any]], output: Path | None) -> None:
    """Write records as JSON lines to `output`, or to standard output when it is None."""
    stream = open(output, "w", encoding="utf-8") if output is not None else sys.stdout
    try:
        for record in records:
            stream.write(json.dumps(record, ensure_ascii=False) + "\n")
    finally:
        if output is not None:
            stream.close()
