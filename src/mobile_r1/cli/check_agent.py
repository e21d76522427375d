"""`mobile-r1 check-agent --dialect D`: the expert's actions through a dialect's writer, parser and coordinate mapping
at several screen sizes; every step that does not come back the same is reported (exit status 1)."""

from __future__ import annotations

import json
from typing import Optional

import typer
from rich.table import Table

from mobile_r1.cli.app import app, console, output


def _screens(text: str) -> list[tuple[int, int]]:
    from mobile_r1.core.errors import ConfigError

    out = []
    for item in text.split(","):
        try:
            w, h = (int(v) for v in item.strip().lower().split("x"))
        except ValueError:
            raise ConfigError(f"--screens takes WxH sizes separated by commas (720x1280,1080x2400), got {item!r}") from None
        if not (0 < w <= 100_000 and 0 < h <= 100_000):
            raise ConfigError(f"--screens: {item!r} is not a screen size")
        out.append((w, h))
    return out


@app.command("check-agent")
def check_agent(
    dialect: str = typer.Option(..., "--dialect", "-d", help="The dialect to check: qwen2.5vl, inquire, mobile-r1, "
                                "uitars, compact."),
    observation: str = typer.Option("image", "--observation", help="image or text (text answers in screen pixels)."),
    frame: Optional[str] = typer.Option(None, "--frame", help="The frame the model answers in: qwen (smart-resized "
                                        "image), normalized (0..999) or screen (default: qwen for image, screen for "
                                        "text)."),
    prescale: float = typer.Option(1.0, "--prescale", help="Scale of the screenshot before smart_resize (InquireMobile: "
                                   "0.3)."),
    max_pixels: Optional[int] = typer.Option(None, "--max-pixels", help="Upper pixel bound of smart_resize."),
    min_pixels: Optional[int] = typer.Option(None, "--min-pixels", help="Lower pixel bound of smart_resize."),
    suite: str = typer.Option("inquire-sim", "--suite", help="The suite whose expert is replayed."),
    split: str = typer.Option("test", "--split", help="Its split."),
    episodes: int = typer.Option(8, "--episodes", help="How many of its episodes."),
    env: str = typer.Option("sim", "--env", help="The backend whose expert plays them (one that has an expert)."),
    screens: str = typer.Option("720x1280,1080x1920,1080x2400,1440x3200,1600x2560", "--screens",
                                help="Screen sizes to check at, WxH separated by commas."),
    as_json: bool = typer.Option(False, "--json", help="Print the report as JSON on standard output."),
) -> None:
    """Replay the expert's actions through the dialect (model frame, written text, parser, screen pixels) at several
    screen sizes; report every step that does not come back the same and exit 1 if there is one."""
    from mobile_r1.agents.base import ModelView
    from mobile_r1.core.geometry import MAX_PIXELS, MIN_PIXELS
    from mobile_r1.eval.check_agent import check_dialect, expert_steps

    if episodes < 1:
        from mobile_r1.core.errors import ConfigError

        raise ConfigError(f"--episodes must be >= 1, got {episodes}")
    view = ModelView.create(dialect, observation_mode=observation, frame=frame, prescale=prescale,
                            min_pixels=min_pixels or MIN_PIXELS, max_pixels=max_pixels or MAX_PIXELS)
    sizes = _screens(screens)
    steps = expert_steps(suite, split, episodes, env=env)
    report = check_dialect(view, steps, sizes)
    if as_json:
        typer.echo(json.dumps(report.to_dict(), ensure_ascii=False))
    else:
        figures = report.to_dict()
        output.print(f"{dialect} ({observation} observations, frame {view.frame}): {len(steps)} expert steps of "
                     f"{suite}/{split}", markup=False, highlight=False)
        table = Table()
        for column in ("screen", "checked", "differ"):
            table.add_column(column, justify="left" if column == "screen" else "right")
        for size, row in figures["screens"].items():
            table.add_row(size, str(row["checked"]), str(row["differ"]), style="red" if row["differ"] else None)
        output.print(table)
        if report.unsaid:
            output.print("not in the dialect (not checked): " + ", ".join(
                f"{kind} x {n}" for kind, n in report.unsaid.most_common()), markup=False, highlight=False)
        for problem in report.problems[:10]:
            console.print(f"{problem.episode_id} step {problem.index} at {problem.screen[0]}x{problem.screen[1]}: "
                          f"{problem.problem}\n  sent {problem.sent}\n  wrote {problem.text!r}", markup=False,
                          highlight=False)
        if len(report.problems) > 10:
            console.print(f"... and {len(report.problems) - 10} more (--json lists them all)")
    if not report.ok:
        raise typer.Exit(1)
