"""Other projects' adb clients, unchanged, against the simulated phone's adbd: Debian's adb (shell_v2 and its exit
codes), adbutils, pure-python-adb and adb-shell; monkey, ADBKeyBoard, `dumpsys activity top`, the toybox text tools,
VIEW intents, and every app launched by its own package name through every path."""

from __future__ import annotations

import base64
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Iterator

import adbutils
import pytest
from adb_shell.adb_device import AdbDeviceTcp
from ppadb.client import Client as PpadbClient

from mobile_r1.core.formats.uixml import parse_ui_xml
from mobile_r1.env.sim.servers.adbd import ADBKEYBOARD_IME, SimDevice

from adbd_clients import Connected, adb_connected

pytestmark = pytest.mark.slow  # an adb server and a device per module


@pytest.fixture(scope="module")
def phone() -> Iterator[Connected]:
    yield from adb_connected(SimDevice(seed=1, capture_scale=0.3))


@pytest.fixture
def au(phone: Connected) -> adbutils.AdbDevice:
    client = adbutils.AdbClient(host="127.0.0.1", port=phone.adb_port)
    device = client.device(phone.serial)
    device.shell("simctl reset 1; ime reset")
    return device


def test_debian_adb_exits_with_the_commands_status_and_keeps_stdout_and_stderr_apart(phone: Connected) -> None:
    assert phone.adb("shell", "false").returncode == 1
    assert phone.adb("shell", "true").returncode == 0
    done = phone.adb("shell", "echo out; echo err >&2; exit 3")
    assert (done.returncode, done.stdout, done.stderr) == (3, b"out\n", b"err\n")
    assert phone.adb("shell", "nosuchtool").returncode == 127
    png = phone.adb("shell", "screencap", "-p").stdout
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and png == phone.adb("exec-out", "screencap -p").stdout
    fed = phone.adb("shell", stdin=b"echo typed\nfalse\n")  # no tty: an interactive raw shell fed by stdin
    assert (fed.returncode, fed.stdout) == (1, b"typed\n")


def test_clients_that_do_not_ask_for_shell_v2_keep_the_raw_shell(phone: Connected, au: adbutils.AdbDevice) -> None:
    assert au.shell("false; echo $?") == "1"
    assert au.shell2("false").returncode == 1  # adbutils' v1 way: an echoed marker
    assert au.shell2("echo a; false", v2=True).returncode == 1 and "shell_v2" in au.get_features()
    direct = AdbDeviceTcp(phone.server.host, phone.server.port, default_transport_timeout_s=10.0)
    assert direct.connect(rsa_keys=None, auth_timeout_s=1.0)
    try:
        assert direct.shell("false; echo $?") == "1\n"
    finally:
        direct.close()


def test_monkey_for_a_package_that_is_not_installed_answers_as_android(phone: Connected,
                                                                      au: adbutils.AdbDevice) -> None:
    done = phone.adb("shell", "monkey -p com.not.installed 1")
    assert done.returncode == 252 and b"** No activities found to run, monkey aborted." in done.stderr
    assert phone.adb("shell", "monkey -p com.not.installed 1; echo rest").stdout.endswith(b"rest\n")
    au.app_start("com.not.installed")  # adbutils' launch of a missing app: the device answers, nothing breaks
    assert "monkey aborted" in au.shell("monkey -p com.not.installed -c android.intent.category.LAUNCHER 1 2>&1")


def test_every_app_launches_by_its_own_package_through_every_path(phone: Connected, au: adbutils.AdbDevice) -> None:
    ppadb = PpadbClient(host="127.0.0.1", port=phone.adb_port).device(phone.serial)
    apps = list(phone.server.device.phone.apps.values())
    listed = {line.removeprefix("package:") for line in au.shell("pm list packages").splitlines()}
    assert {app.package for app in apps} <= listed
    for app in apps:
        au.app_start(app.package)  # monkey -p PKG -c LAUNCHER 1
        assert au.app_current().package == app.package
        au.shell("input keyevent HOME")
        au.app_start(app.package, ".MainActivity")  # am start -n PKG/.MainActivity
        top = ppadb.get_top_activity()  # dumpsys activity top | grep ACTIVITY
        assert top is not None and top.package == app.package and top.pid > 0
        assert au.app_info(app.package) is not None  # pm path + dumpsys package
        au.shell("input keyevent HOME")


def test_pure_python_adbs_helpers_read_what_they_parse(phone: Connected) -> None:
    ppadb = PpadbClient(host="127.0.0.1", port=phone.adb_port).device(phone.serial)
    assert ppadb.wm_density() == 2  # wm density | cut -d ' ' -f 3 -> 440 -> 440 // 160
    assert ppadb.wm_size() == (1080, 2400)
    ppadb.shell("am start -n com.sim.notes/.Main")
    assert ppadb.get_top_activity().package == "com.sim.notes"
    assert ppadb.shell("pm list packages | head -n 1").count("\n") == 1


def test_the_text_tools_a_client_pipes_through(au: adbutils.AdbDevice) -> None:
    assert au.shell("wm size | sed -E 's/.*: //' | awk -Fx '{print $1 * $2}'") == "2592000"
    packages = au.shell("pm list packages").splitlines()
    assert au.shell("pm list packages | wc -l") == str(len(packages))
    assert au.shell("pm list packages | tail -n 1") == packages[-1]
    assert au.shell("pm list packages | cut -d: -f2 | grep -c '^com\\.'") == str(
        sum(p.startswith("package:com.") for p in packages))
    assert au.shell("getprop | grep -F ro.product.model | sed -n 's/.*: \\[\\(.*\\)\\]/\\1/p'") == "MobileR1_Sim"
    assert au.shell("echo 'a b c' | awk '{print $NF; print NF}' | head -1") == "c"


def _field_text(au: adbutils.AdbDevice) -> str:
    xml = au.shell("uiautomator dump /sdcard/f.xml >/dev/null && cat /sdcard/f.xml")
    return next(e.text for e in parse_ui_xml(xml) if e.editable and e.focused)


def _search_field(au: adbutils.AdbDevice) -> None:
    au.app_start("com.sim.notes")
    elements = parse_ui_xml(au.shell("uiautomator dump /dev/tty").rsplit("UI hier", 1)[0])
    x, y = next(e.center for e in elements if e.label == "Search notes")
    au.click(x, y)
    elements = parse_ui_xml(au.shell("uiautomator dump /dev/tty").rsplit("UI hier", 1)[0])
    x, y = next(e.center for e in elements if e.editable)
    au.click(x, y)


def _b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def test_adbkeyboards_whole_broadcast_set(au: adbutils.AdbDevice) -> None:
    _search_field(au)
    au.shell(f"ime enable {ADBKEYBOARD_IME}; ime set {ADBKEYBOARD_IME}")
    au.shell(f"am broadcast -a ADB_INPUT_B64 --es msg {_b64('Buy bread 面包')}")
    assert _field_text(au) == "Buy bread 面包"
    au.shell("am broadcast -a ADB_CLEAR_TEXT")  # Open-AutoGLM retypes: clear, then type
    au.shell(f"am broadcast -a ADB_INPUT_B64 --es msg {_b64('Buy rice')}")
    assert _field_text(au) == "Buy rice"
    au.shell("am broadcast -a ADB_INPUT_CHARS --eia chars '32,20320,22909'")
    assert _field_text(au) == "Buy rice 你好"
    au.shell("am broadcast -a ADB_INPUT_CODE --ei code 67")  # KEYCODE_DEL
    assert _field_text(au) == "Buy rice 你"
    au.shell("am broadcast -a IME_META_KEYS --es mcode '4096,29'; am broadcast -a ADB_INPUT_CODE --ei code 67")
    assert _field_text(au) == "Search notes"  # Ctrl+A, Delete: empty (the hint shows)
    au.shell("am broadcast -a IME_META_KEYS --es mcode '4096,29'")
    au.shell("am broadcast -a ADB_INPUT_TEXT --es msg milk")
    assert _field_text(au) == "milk"  # typed over the selection
    au.shell("am broadcast -a ADB_EDITOR_CODE --ei code 3")  # IME_ACTION_SEARCH submits
    assert not any(e.focused and e.editable for e in parse_ui_xml(au.dump_hierarchy()))
    assert "Reset current and enabled IMEs" in au.shell("ime reset")
    assert au.shell("settings get secure default_input_method") != ADBKEYBOARD_IME


def test_view_intents_reach_the_app_that_handles_them(phone: Connected, au: adbutils.AdbDevice) -> None:
    assert phone.adb("shell", "am start -a android.intent.action.VIEW -d notes://list").returncode == 0
    assert au.app_current().package == "com.sim.notes"
    assert phone.adb("shell", "am start -a android.intent.action.VIEW -d https://shop.example.com/item/3").returncode == 0
    assert au.app_current().package == "com.sim.shop"
    nobody = phone.adb("shell", "am start -a android.intent.action.VIEW -d https://nobody.example.org/")
    assert nobody.returncode == 1 and b"unable to resolve Intent" in nobody.stderr
    assert au.app_current().package == "com.sim.shop"


def test_adb_connect_right_after_sim_adbd_prints_its_address() -> None:
    process = subprocess.Popen([sys.executable, "-m", "mobile_r1.cli.main", "sim", "adbd", "--port", "0",
                                "--capture-scale", "0.2"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        assert process.stdout is not None
        address = process.stdout.readline().split()[-1]
        host, port = address.rsplit(":", 1)
        direct = AdbDeviceTcp(host, int(port), default_transport_timeout_s=10.0)
        assert direct.connect(rsa_keys=None, auth_timeout_s=1.0)
        assert direct.shell("echo up") == "up\n"
        direct.close()
    finally:
        process.terminate()
        process.wait(timeout=10)


def test_the_examples_of_the_adb_clients_page_run(phone: Connected) -> None:
    page = (Path(__file__).resolve().parents[3] / "docs" / "adb-clients.md").read_text(encoding="utf-8")
    env = {**os.environ, "ANDROID_ADB_SERVER_PORT": str(phone.adb_port)}
    bash, python = re.findall(r"```bash\n(.*?)```", page, re.S), re.findall(r"```python\n(.*?)```", page, re.S)
    assert bash and python

    def ours(text: str) -> str:
        return text.replace("127.0.0.1:5555", phone.serial).replace("5037", str(phone.adb_port))

    for line in bash[0].splitlines():
        if line.startswith("mobile-r1 sim adbd"):
            continue  # the fixture serves the device
        done = subprocess.run(["bash", "-c", ours(line)], env=env, capture_output=True, timeout=60)
        assert done.returncode == 0, (line, done.stderr)
    done = subprocess.run([sys.executable, "-c", ours(python[0])], env=env, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[:2] == ["com.sim.notes", "1"]
