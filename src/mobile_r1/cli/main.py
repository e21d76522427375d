"""Entry point of `mobile-r1`: registers every command module and turns project errors into clean messages."""

from __future__ import annotations

import importlib
import sys

from mobile_r1.cli.app import app, console
from mobile_r1.core.errors import MobileR1Error

# Each module registers its commands on `app` when imported; keep them light (import heavy libraries inside).
COMMAND_MODULES: list[str] = ["rescore", "serve", "match", "data", "reward", "sim", "train", "eval", "tasks", "report", "compare", "demo", "device"]


def _load_commands() -> None:
    for name in COMMAND_MODULES:
        importlib.import_module(f"mobile_r1.cli.{name}")


def main(argv: list[str] | None = None) -> int:
    """Run the CLI; a `MobileR1Error` is printed as one line, without a traceback, and exits with status 2.

    Click's standalone mode handles usage errors and `--help` itself (and exits through `SystemExit`).
    """
    _load_commands()
    try:
        app(args=argv, standalone_mode=True)
    except MobileR1Error as exc:
        console.print(f"[bold red]error:[/] {exc}", highlight=False, soft_wrap=True)
        return 2
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
