"""The adb backend and `mobile-r1 device` through the real adb server against `mobile-r1 sim adbd`: observations equal
the simulator's, ASCII and Chinese typing (ADBKeyBoard), a secure screen, and the person at a terminal (a pty)."""

from __future__ import annotations

import json
import os
import pty
import select
import subprocess
import sys
import time
from pathlib import Path

import pytest
from PIL import Image

from mobile_r1.cli.main import main
from mobile_r1.core.actions import Action
from mobile_r1.env import make_backend
from mobile_r1.env.adb import AdbBackend
from mobile_r1.env.safety import GatedBackend
from mobile_r1.env.sim import SimEnv

from adb_fixtures import SimulatedDevice, start_adbd, stop_adbd

pytestmark = pytest.mark.slow  # every test here starts the adb server and the simulated phone's adbd


def _backend(device: SimulatedDevice, **options: object) -> AdbBackend:
    device.simctl("reset", "0")
    return AdbBackend(device.serial, person="none", **options)  # type: ignore[arg-type]


def _center(elements: list, label: str, editable: bool = False) -> tuple[int, int]:
    return next(e.center for e in elements if e.label == label and e.editable == editable)


def test_observations_over_adb_are_the_simulators(sim_device: SimulatedDevice) -> None:
    backend = _backend(sim_device, render=True, scale=0.3)
    info, observation = backend.do(Action.open("Notes"))
    local = SimEnv(seed=0, render=False)
    local.reset()
    expected, *_ = local.step(Action.open("Notes"))
    assert [e.to_dict() for e in observation.elements] == [e.to_dict() for e in expected.elements]
    assert observation.app == "Notes" and observation.activity == "com.sim.notes/.home"
    assert observation.screen_size == (1080, 2400) and observation.screenshot.size == (324, 720)
    assert "screencap -p" in [c["cmd"] for c in info.extra["device"]]
    assert any(c["cmd"].startswith("monkey -p com.sim.notes ") for c in info.extra["device"])


def test_typing_ascii_and_chinese_reaches_the_text_field(sim_device: SimulatedDevice) -> None:
    backend = _backend(sim_device, render=False)
    _, screen = backend.do(Action.open("Notes"))
    _, screen = backend.do(Action.click(*_center(screen.elements, "Search notes")))
    _, screen = backend.do(Action.click(*_center(screen.elements, "Search notes", editable=True)))
    _, screen = backend.do(Action.type_text("it's 50% done "))
    assert any(e.editable and e.text == "it's 50% done " for e in screen.elements)
    info, screen = backend.do(Action.type_text("你好，世界"))
    assert any(e.editable and e.text == "it's 50% done 你好，世界" for e in screen.elements)
    commands = [c["cmd"] for c in info.extra["device"]]
    assert any(c.startswith("ime enable com.android.adbkeyboard/.AdbIME") for c in commands)
    assert any(c.startswith("am broadcast -a ADB_INPUT_B64 --es msg ") for c in commands)
    assert "ime set com.sim.inputmethod/.SimIME" in commands, "the input method before is restored"


def test_chinese_without_adbkeyboard_is_a_clear_error(adb_server: int) -> None:
    device = start_adbd("--no-adbkeyboard")
    try:
        backend = AdbBackend(device.serial, person="none", render=False)
        info, _ = backend.do(Action.type_text("你好"))
        assert info.error is not None and "ADBKeyBoard" in info.error and "com.android.adbkeyboard" in info.error
    finally:
        stop_adbd(device)


def test_a_black_capture_is_reported_as_a_secure_screen(sim_device: SimulatedDevice) -> None:
    backend = _backend(sim_device, render=True, scale=0.3)
    sim_device.simctl("fault", "black-screen", "2")  # the screen before and after
    info, screen = backend.do(Action.wait(0.0))
    assert "secure screen" in str(info.extra["screen"])
    assert screen.screenshot.convert("L").getextrema()[1] > 0, "the agent sees a notice, not a black screen"
    assert screen.elements, "the UI elements are still there"


def test_an_empty_capture_is_reported_as_a_secure_screen(sim_device: SimulatedDevice) -> None:
    backend = _backend(sim_device, render=True, scale=0.3)
    sim_device.simctl("fault", "empty-screen", "2")  # screencap writes nothing, before and after the action
    info, screen = backend.do(Action.wait(0.0))
    assert "secure screen" in str(info.extra["screen"]) and "empty" in str(info.extra["screen"])
    assert screen.screenshot.convert("L").getextrema()[1] > 0, "the agent sees a notice, not an empty image"
    assert screen.elements, "the UI elements are still there"


def test_the_factory_puts_the_gate_in_front_by_default(sim_device: SimulatedDevice) -> None:
    assert isinstance(make_backend(f"adb:{sim_device.serial}", person="none"), GatedBackend)
    assert isinstance(make_backend(f"adb:{sim_device.serial}", person="none", confirm="none"), AdbBackend)
    with pytest.raises(Exception, match="bad options"):
        make_backend(f"adb:{sim_device.serial}", person="none", flux=1)


def test_device_commands(sim_device: SimulatedDevice, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sim_device.simctl("reset", "0")
    assert main(["device", "list", "--json"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert {"serial": sim_device.serial, "state": "device", "model": "MobileR1_Sim", "simulated": True} in rows
    assert main(["device", "do", "open Notes", "--serial", sim_device.serial, "--json"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert record["app"] == "Notes" and record["gate"]["action_class"] == "none" and not record["gate"]["asked"]
    shot = tmp_path / "screen.png"
    assert main(["device", "screen", "--serial", sim_device.serial, "--out", str(shot)]) == 0
    assert Image.open(shot).size == (1080, 2400)
    assert main(["device", "tree", "--serial", sim_device.serial]) == 0
    out = capsys.readouterr().out
    assert out.startswith("com.sim.notes/.home:") and "New note" in out
    assert main(["device", "tree", "--serial", sim_device.serial, "--xml"]) == 0
    assert capsys.readouterr().out.startswith("<?xml")
    assert main(["device", "do", "fly away", "--serial", sim_device.serial]) == 2


def _run_in_pty(args: list[str], answers: list[tuple[str, str]], timeout: float = 60.0) -> tuple[int, str]:
    """Run the CLI with a terminal on stdin/stdout/stderr; answer each prompt (text to wait for, line to type)."""
    master, slave = pty.openpty()
    process = subprocess.Popen([sys.executable, "-m", "mobile_r1.cli.main", *args], stdin=slave, stdout=slave,
                               stderr=slave, start_new_session=True, env={**os.environ, "COLUMNS": "200"})
    os.close(slave)
    seen, pending = "", list(answers)
    deadline = time.time() + timeout
    while time.time() < deadline:
        ready, _, _ = select.select([master], [], [], 0.2)
        if ready:
            try:
                chunk = os.read(master, 4096).decode("utf-8", errors="replace")
            except OSError:
                break
            seen += chunk
        if pending and pending[0][0] in seen:
            os.write(master, (pending.pop(0)[1] + "\n").encode())
            seen += "\n<answered>\n"
        if process.poll() is not None and not ready:
            break
    process.wait(timeout=10)
    os.close(master)
    return process.returncode, seen


def test_the_person_at_the_terminal_approves_or_refuses(sim_device: SimulatedDevice) -> None:
    sim_device.simctl("reset", "0")
    serial = ["--serial", sim_device.serial]
    assert main(["device", "do", "open Notes", *serial]) == 0
    assert main(["device", "do", "click 540 307", *serial]) == 0  # the first note
    # With no terminal the Delete icon is refused without asking anyone.
    proc = subprocess.run([sys.executable, "-m", "mobile_r1.cli.main", "device", "do", "click 1014 155", *serial,
                           "--json"], stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60)
    record = json.loads(proc.stdout)
    assert record["gate"]["approved"] is False and record["gate"]["by"] == "no-person"
    assert record["activity"] == "com.sim.notes/.note" and "No person is at the terminal" in record["user_reply"]
    code, seen = _run_in_pty(["device", "do", "click 1014 155", *serial], [("allow it?", "y")])  # the Delete icon
    assert code == 0, seen
    assert "this looks like: deletion" in seen and "gate: deletion (approved, asked person)" in seen
    assert "Delete note?" in seen
    code, seen = _run_in_pty(["device", "do", "click 816 1298", *serial], [("allow it?", "keep it, please")])
    assert code == 0, seen
    assert "REFUSED" in seen and "reply: keep it, please" in seen
    assert json.loads(sim_device.simctl("state"))["effects"] == [], "nothing was deleted"
    code, seen = _run_in_pty(["device", "do", "click 816 1298", *serial], [("allow it?", "y")])
    assert code == 0 and "approved" in seen
    assert [e["kind"] for e in json.loads(sim_device.simctl("state"))["effects"]] == ["delete"]


def test_a_command_that_times_out_gets_one_reconnect(sim_device: SimulatedDevice) -> None:
    from mobile_r1.core.errors import InfraError
    from mobile_r1.env.adb import Device

    device = Device(sim_device.serial, timeout=1.0)
    sim_device.simctl("fault", "hang", "2.5")
    assert device.text("echo back").strip() == "back"  # a read is sent again after the reconnect
    first, second = device.log[-2:]
    assert first.error is not None and "no answer" in first.error and second.attempt == 2 and second.error is None
    assert device.reconnects == 1
    sim_device.simctl("fault", "hang", "2.5")
    with pytest.raises(InfraError, match="may or may not have happened"):
        device.run("input tap 5 5", action=True)  # an action that may have happened is not sent twice


def test_an_episode_that_cannot_start_frees_the_device(sim_device: SimulatedDevice) -> None:
    from mobile_r1.core.errors import InfraError

    backend = AdbBackend(sim_device.serial, person="none", render=False, timeout=1.0)
    first, second = backend.episodes("nav-sim", "test", 2)
    sim_device.simctl("fault", "gone", "2", "--after-starts", "1")  # away for 2 s right after the set-up
    with pytest.raises(InfraError, match="did not come back|failed twice"):
        backend.open(first).reset()
    time.sleep(2.0)
    observation, _ = backend.open(second).reset()  # the next episode gets the device (reconnected)
    assert observation.elements and backend.device.reconnects >= 1
