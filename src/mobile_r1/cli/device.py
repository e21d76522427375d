"""`mobile-r1 device list | screen | tree | do ACTION` (look at and drive a phone over adb) and `mobile-r1 sim adbd`
(the simulated phone as an adb device)."""

from __future__ import annotations

import json
import signal
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Optional

import typer
from rich.table import Table

from mobile_r1.cli.app import app, console
from mobile_r1.cli.sim import sim_app

if TYPE_CHECKING:
    from mobile_r1.env.adb import AdbBackend

device_app = typer.Typer(help="Phones over adb: list them, capture the screen, print the UI tree, do one action.",
                         no_args_is_help=True)
app.add_typer(device_app, name="device")

SERIAL_HELP = "The device's adb serial (default: the only one attached); HOST:PORT is `adb connect`ed first."


def _backend(serial: Optional[str], render: bool = True) -> AdbBackend:
    from mobile_r1.env.adb import AdbBackend

    return AdbBackend(serial, render=render, scale=1.0, person="none")


@device_app.command("list")
def list_command(as_json: bool = typer.Option(False, "--json", help="Print JSON lines.")) -> None:
    """Every device the adb server knows: serial, state, model, and whether it is the simulated phone."""
    from mobile_r1.core.errors import InfraError
    from mobile_r1.env.adb import Device, list_devices

    rows = []
    for serial, state in list_devices():
        model, simulated = "", False
        if state == "device":
            try:
                device = Device(serial, timeout=5)
                model = device.text("getprop ro.product.model").strip()
                simulated = device.has_simctl()
            except InfraError as exc:
                model = f"({exc})"
        rows.append({"serial": serial, "state": state, "model": model, "simulated": simulated})
    if as_json:
        for row in rows:
            typer.echo(json.dumps(row))
        return
    table = Table(title=f"{len(rows)} device(s)")
    for column in ("serial", "state", "model", "simulated"):
        table.add_column(column)
    for row in rows:
        table.add_row(row["serial"], row["state"], row["model"], "yes" if row["simulated"] else "")
    console.print(table)


@device_app.command("screen")
def screen_command(
    serial: Optional[str] = typer.Option(None, "--serial", "-s", help=SERIAL_HELP),
    out: Path = typer.Option(Path("screen.png"), "--out", help="Where to write the screenshot (PNG)."),
) -> None:
    """Capture the screen (`screencap -p`) to a PNG, at the screen's own size."""
    from mobile_r1.env.adb.backend import AdbTaskEnv
    from mobile_r1.env.protocol import EpisodeRef

    backend = _backend(serial)

    env = AdbTaskEnv(backend, EpisodeRef(id="device-screen", instruction="", task="device-screen", backend="adb"))
    observation, note = env._observe()
    out.parent.mkdir(parents=True, exist_ok=True)
    observation.screenshot.save(out)
    console.print(f"wrote {out} ({observation.screen_size[0]}x{observation.screen_size[1]}, {observation.app or '?'} "
                  f"{observation.activity or ''})" + (f"; {note}" if note else ""), markup=False)


@device_app.command("tree")
def tree_command(
    serial: Optional[str] = typer.Option(None, "--serial", "-s", help=SERIAL_HELP),
    xml: bool = typer.Option(False, "--xml", help="Print the `uiautomator dump` XML as it came."),
    every: bool = typer.Option(False, "--all", help="Every element (default: those with a label or an action)."),
    as_json: bool = typer.Option(False, "--json", help="The elements as JSON lines."),
) -> None:
    """The UI elements on the screen (from `uiautomator dump`), as the agent sees them."""
    from mobile_r1.core.formats.uixml import parse_ui_xml
    from mobile_r1.env.adb import Device
    from mobile_r1.sim.tools import format_elements

    device = Device(serial)
    text, package, activity = device.dump()
    if xml:
        typer.echo(text)
        return
    elements = parse_ui_xml(text)
    if as_json:
        for e in elements:
            typer.echo(json.dumps(e.to_dict(), ensure_ascii=False))
        return
    shown = elements if every else [e for e in elements if e.label or e.clickable or e.editable or e.scrollable]
    typer.echo(f"{package or '?'}/{activity or '?'}: {len(elements)} elements")
    typer.echo(format_elements(shown))


@device_app.command("do")
def do_command(
    action: str = typer.Argument(..., help='An action: JSON ({"action":"click","coordinate":[540,1200]}) or a short form '
                                           "(click X Y, long_press X Y, swipe X1 Y1 X2 Y2, type TEXT, key NAME, back, "
                                           "home, menu, enter, open APP, wait [S])."),
    serial: Optional[str] = typer.Option(None, "--serial", "-s", help=SERIAL_HELP),
    confirm: str = typer.Option("risky", "--confirm", help="The safety gate: ask before risky actions (risky), before "
                                                           "every action (all), or never (none)."),
    as_json: bool = typer.Option(False, "--json", help="Print the step's info as JSON."),
) -> None:
    """Do one action on the device, behind the safety gate; print what happened and the screen after it."""
    from mobile_r1.core.actions import Action
    from mobile_r1.core.errors import ActionError
    from mobile_r1.env.adb.backend import AdbBackend
    from mobile_r1.env.person import make_person
    from mobile_r1.env.safety import CONFIRM_MODES, Gate
    from mobile_r1.sim.tools import format_elements, parse_line

    if confirm not in CONFIRM_MODES:
        raise ActionError(f"--confirm must be one of {', '.join(CONFIRM_MODES)}; got {confirm!r}")
    parsed = parse_line(action)
    if not isinstance(parsed, Action):
        raise ActionError(f"{action!r} is not an action; see `mobile-r1 device do --help`")
    person = make_person("auto")
    backend = AdbBackend(serial, render=False, person=person)
    info, after = backend.do(parsed, Gate(confirm, person) if confirm != "none" else None)
    record = {"action": parsed.to_arguments(), "error": info.error, "user_reply": info.user_reply,
              "effects": info.effects, **info.extra, "app": after.app, "activity": after.activity}
    if as_json:
        typer.echo(json.dumps(record, ensure_ascii=False))
        return
    gate = info.extra.get("gate")
    if isinstance(gate, dict):
        verdict = "approved" if gate.get("approved") else "REFUSED"
        typer.echo(f"gate: {gate.get('action_class')} ({verdict}{', asked ' + str(gate.get('by')) if gate.get('asked') else ''})")
    if info.error:
        typer.echo(f"error: {info.error}")
    if info.user_reply:
        typer.echo(f"reply: {info.user_reply}")
    typer.echo(f"now: {after.app or '?'} {after.activity or ''}")
    typer.echo(format_elements([e for e in after.elements if e.label], only_labeled=True))


@sim_app.command("adbd")
def adbd_command(
    port: int = typer.Option(5555, "--port", help="TCP port (0: a free one; the port is printed)."),
    host: str = typer.Option("127.0.0.1", "--host", help="Address to listen on (0.0.0.0 to accept other machines)."),
    seed: int = typer.Option(0, "--seed", help="Seed of the phone before any episode."),
    serial: str = typer.Option("mobile-r1-sim", "--serial", help="What `getprop ro.serialno` says."),
    adbkeyboard: bool = typer.Option(True, "--adbkeyboard/--no-adbkeyboard",
                                     help="Whether the ADBKeyBoard input method is installed (for non-ASCII typing)."),
    capture_scale: float = typer.Option(1.0, "--capture-scale", help="Scale of `screencap` images (1.0: 1080x2400)."),
    locale: str = typer.Option("en", "--locale", help="The phone's language: en or zh."),
) -> None:
    """Serve the simulated phone over the adb device protocol: `adb connect HOST:PORT`, then any adb tool drives it.
    Prints `adbd listening on HOST:PORT` once it accepts connections."""
    from mobile_r1.env.sim.servers.adbd import AdbdServer, SimDevice
    from mobile_r1.env.sim.servers.common import bind_error, check_address, check_locale_option, check_scale

    check_address(host, port)
    check_scale("--capture-scale", capture_scale)
    check_locale_option(locale)
    device = SimDevice(seed=seed, serial=serial, adbkeyboard=adbkeyboard, capture_scale=capture_scale, locale=locale)
    try:
        server = AdbdServer(device, host=host, port=port)
    except OSError as exc:
        raise bind_error(host, port, exc) from None
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    server.start()
    typer.echo(f"adbd listening on {server.serial}")
    sys.stdout.flush()
    console.print(f"adb connect {server.serial}   (Ctrl-C to stop)", markup=False)
    try:
        while not stop.wait(0.5):
            pass
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()
