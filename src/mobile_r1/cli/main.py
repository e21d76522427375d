"""Entry point of `mobile-r1`: registers every command module and turns project errors into clean messages."""

from __future__ import annotations

import importlib
import sys

from mobile_r1.cli.app import app, console
from mobile_r1.core.errors import MobileR1Error

# Each module registers its commands on `app` when imported; keep them light (import heavy libraries inside).
COMMAND_MODULES: list[str] = ["rescore", "serve", "match", "data", "reward"]


def _load_commands() -> None:
    for name in COMMAND_MODULES:
        importlib.import_module(f"mobile_r1.cli.{name}")


def main(argv: list[str] | None = None) -> int:
    """Run the CLI; a `MobileR1Error` is printed as one line, without a traceback, and exits with status 2."""
    _load_commands()
    try:
        result = app(args=argv, standalone_mode=False)
    except MobileR1Error as exc:
        console.print(f"[bold red]error:[/] {exc}", highlight=False)
        return 2
    except SystemExit as exc:  # typer/click exit paths (--help, usage errors)
        return int(exc.code or 0)
    except Exception as exc:  # click usage errors raised in non-standalone mode
        import click

        if isinstance(exc, click.exceptions.ClickException):
            exc.show()
            return exc.exit_code
        if isinstance(exc, click.exceptions.Abort):
            console.print("aborted")
            return 1
        raise
    return result if isinstance(result, int) else 0


if __name__ == "__main__":
    sys.exit(main())
