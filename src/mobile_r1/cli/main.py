"""Entry point of `mobile-r1`: registers every command module and turns project errors into clean messages."""

from __future__ import annotations

import importlib
import os
import sys

from rich.markup import escape

from mobile_r1.cli.app import app, console
from mobile_r1.core.errors import MobileR1Error
from mobile_r1.train.threads import share_cores

# Each module registers its commands on `app` when imported; keep them light (import heavy libraries inside).
# Options whose value may be left out (`--ray` alone): the value they take then.
OPTIONAL_VALUES: dict[str, str] = {"--ray": "local"}
COMMAND_MODULES: list[str] = ["rescore", "serve", "match", "data", "reward", "sim", "train", "eval", "tasks", "report",
                              "compare", "demo", "device", "check_agent"]


def _load_commands() -> None:
    for name in COMMAND_MODULES:
        importlib.import_module(f"mobile_r1.cli.{name}")


def fill_optional_values(argv: list[str]) -> list[str]:
    """`--ray` followed by nothing or by another option becomes `--ray local` (Typer has no options with an optional
    value; `--ray=ADDRESS` and `--ray ADDRESS` pass through)."""
    out: list[str] = []
    for index, arg in enumerate(argv):
        out.append(arg)
        if arg == "--":
            out.extend(argv[index + 1:])
            break
        if arg in OPTIONAL_VALUES and (index + 1 == len(argv) or argv[index + 1].startswith("-")):
            out.append(OPTIONAL_VALUES[arg])
    return out


def main(argv: list[str] | None = None) -> int:
    """Run the CLI; a `MobileR1Error` is printed as one line, without a traceback, and exits with status 2.

    Click's standalone mode handles usage errors and `--help` itself (and exits through `SystemExit`).
    """
    share_cores()  # before torch loads: OpenMP's waiting threads sleep, so a run beside other jobs does not spin
    if not sys.stderr.isatty():  # a log gets our progress lines, not the libraries' bars (model loading, downloads)
        os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    _load_commands()
    try:
        app(args=fill_optional_values(sys.argv[1:] if argv is None else list(argv)), standalone_mode=True)
    except MobileR1Error as exc:
        # the message is plain text: escape it, so that `[x1, y1, x2, y2]` is printed, not taken for markup
        # and printable: a lone surrogate quoted from a bad file is shown as its escape, not a UnicodeEncodeError
        message = str(exc).encode("utf-8", "backslashreplace").decode("utf-8")
        console.print(f"[bold red]error:[/] {escape(message)}", highlight=False, soft_wrap=True)
        return 2
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
