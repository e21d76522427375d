"""`mobile-r1 sim ...`: render a screen of the simulated phone, write a gallery of every screen, play by hand."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Optional

import typer

from mobile_r1.cli.app import app, console

sim_app = typer.Typer(help="The built-in simulated phone: look at its screens and drive it by hand.",
                      no_args_is_help=True)
app.add_typer(sim_app, name="sim")


@sim_app.command("render")
def render(
    app_name: str = typer.Option(..., "--app", help="App name or alias, e.g. Shop."),
    screen: Optional[str] = typer.Option(None, "--screen", help="Screen name (default: the app's home screen)."),
    seed: int = typer.Option(0, "--seed", help="Seed of the app state (and of the look with --randomize)."),
    scale: float = typer.Option(0.3, "--scale", help="Screenshot scale of the 1080x2400 screen."),
    out: Optional[Path] = typer.Option(None, "--out", help="Write the screenshot PNG here."),
    xml: bool = typer.Option(False, "--xml", help="Print the uiautomator-style XML."),
    elements: bool = typer.Option(False, "--elements", help="Print the UI elements."),
    randomize: bool = typer.Option(False, "--randomize/--canonical", help="Randomised look or the canonical one."),
) -> None:
    """Render one screen of one app to a PNG and/or print its elements or XML."""
    from mobile_r1.sim.tools import format_elements, render_screen

    phone = render_screen(app_name, screen, seed, randomize)
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        phone.screenshot(scale).save(out)
        console.print(f"wrote {out} ({phone.activity()})")
    if elements:
        typer.echo(format_elements(phone.elements()))
    if xml:
        typer.echo(phone.xml())
    if out is None and not xml and not elements:
        typer.echo(format_elements(phone.elements(), only_labeled=True))


@sim_app.command("gallery")
def gallery(
    out: Path = typer.Option(Path("docs/gallery"), "--out", help="Folder for the PNGs and index.md / index.html."),
    scale: float = typer.Option(0.2, "--scale", help="Screenshot scale."),
    seed: int = typer.Option(0, "--seed", help="Seed of the app states."),
    randomize: bool = typer.Option(False, "--randomize/--canonical", help="Randomised look or the canonical one."),
    app_names: Optional[list[str]] = typer.Option(None, "--app", help="Only these apps (repeatable)."),
    locales: Optional[list[str]] = typer.Option(None, "--locale", help="Only these languages: en, zh (repeatable; "
                                                "default both)."),
    every: bool = typer.Option(False, "--every/--main", help="Every screen, or each app's main screens."),
) -> None:
    """Write one PNG per main screen of every app in English and Chinese, with an index showing them side by side."""
    from rich.progress import Progress

    from mobile_r1.sim.tools import write_gallery

    with Progress(console=console, transient=True) as bar:
        task = bar.add_task("rendering", total=None)
        entries = write_gallery(out, scale, seed, randomize, app_names, locales or ("en", "zh"), every,
                                progress=lambda name: bar.update(task, description=name, advance=1))
    console.print(f"wrote {len(entries)} screens in {len(locales or ('en', 'zh'))} languages and {out / 'index.md'}")


@sim_app.command("play")
def play(
    app_name: Optional[str] = typer.Option(None, "--app", help="Open this app first."),
    seed: int = typer.Option(0, "--seed", help="Seed of the phone."),
    randomize: bool = typer.Option(True, "--randomize/--canonical", help="Randomised phone or the canonical one."),
    shots: Optional[Path] = typer.Option(None, "--shots", help="Save a screenshot after every step into this folder."),
    scale: float = typer.Option(0.3, "--scale", help="Screenshot scale."),
) -> None:
    """Drive the phone from the terminal: one action per line (JSON or short forms; 'help' lists them)."""
    from mobile_r1.env.sim import SimEnv
    from mobile_r1.sim.tools import HELP, play as run

    env = SimEnv(seed=seed, randomize=randomize, scale=scale, render=False)
    env.reset(app=app_name)
    if sys.stdin.isatty():
        typer.echo(HELP)
    steps = run(env, sys.stdin, sys.stdout, shots, scale)
    console.print(f"{steps} steps")


@sim_app.command("serve")
def serve(
    api: str = typer.Option("androidworld", "--api", help="Which API to serve the phone with: androidworld."),
    port: int = typer.Option(5000, "--port", help="TCP port (AndroidWorld's server uses 5000; 0 picks a free one)."),
    host: str = typer.Option("127.0.0.1", "--host", help="Address to bind (0.0.0.0 to accept other machines)."),
    suite: str = typer.Option("nav-sim", "--suite", help="Task family at start: a suite (its test split) or "
                              "SUITE/SPLIT; clients change it with /suite/reinitialize."),
    seed: int = typer.Option(42, "--seed", help="Suite seed at start (AndroidWorld's server starts with 42)."),
    combinations: int = typer.Option(2, "--n-task-combinations", help="Instances per task type at start."),
    scale: float = typer.Option(1.0, "--scale", help="Screenshot scale of the 1080x2400 screen, in (0, 2] "
                                "(AndroidWorld sends full-size screenshots: 1.0)."),
    gzip: bool = typer.Option(False, "--gzip/--no-gzip", help="Compress large answers for clients that accept gzip "
                              "(worth it over a network, not on loopback)."),
) -> None:
    """Serve the simulated phone with AndroidWorld's HTTP API (its task families are our suites; one extra endpoint,
    /ui_elements, gives the screen's UI elements). Prints the URL once it accepts connections, then serves until
    Ctrl-C."""
    from mobile_r1.core.errors import ConfigError
    from mobile_r1.env.sim.servers.androidworld import SimAndroidWorld, serve as run_server
    from mobile_r1.env.sim.servers.common import check_address, check_scale

    if api != "androidworld":
        raise ConfigError(f"--api {api!r}: the phone can be served with: androidworld")
    check_scale("--scale", scale)
    check_address(host, port)
    state = SimAndroidWorld(suite, seed, combinations, scale)

    def ready(url: str) -> None:
        typer.echo(f"serving the simulated phone with AndroidWorld's API on {url}")
        sys.stdout.flush()
        console.print("Ctrl-C to stop; e.g. mobile-r1 eval --env androidworld:" + url +
                      f" --suite {suite.partition('/')[0]} --agent oracle", markup=False)

    run_server(state, host=host, port=port, gzip=gzip, ready=ready)
