"""The simulated phone's adbd through an independent client: adb-shell (pure Python, no adb server) speaks the adb
transport to `AdbdServer` directly: shell and exec services, binary captures, sync, the side channel, ADBKeyBoard."""

from __future__ import annotations

import base64
import io
import json
import socket
import struct
from pathlib import Path
from typing import Iterator

import pytest
from adb_shell.adb_device import AdbDeviceTcp
from PIL import Image

from mobile_r1.core.formats.uixml import parse_ui_xml
from mobile_r1.env.sim import SimBackend
from mobile_r1.env.sim.servers.adbd import AdbdServer, SimDevice
from mobile_r1.env.sim.servers.adbd.shell import parse, tokenize
from mobile_r1.env.sim.servers.adbd.wire import A_CLSE, A_CNXN, A_OKAY, A_OPEN, Message, read_message


@pytest.fixture(scope="module")
def server() -> Iterator[AdbdServer]:
    with AdbdServer(SimDevice(seed=1, capture_scale=0.5)) as running:
        yield running


@pytest.fixture
def client(server: AdbdServer) -> Iterator[AdbDeviceTcp]:
    device = AdbDeviceTcp(server.host, server.port, default_transport_timeout_s=10.0)
    assert device.connect(rsa_keys=None, auth_timeout_s=1.0)
    server.device.files.clear()
    yield device
    device.close()


def _find(xml: str, label: str, editable: bool = False) -> tuple[int, int]:
    for e in parse_ui_xml(xml):
        if e.label == label and e.editable == editable:
            return e.center
    raise AssertionError(f"no element {label!r} on screen")


def _search_field(client: AdbDeviceTcp) -> None:
    """Open Notes' search and tap its text field."""
    client.shell("simctl reset 1")
    client.shell("monkey -p com.sim.notes -c android.intent.category.LAUNCHER 1")
    assert "com.sim.notes/." in client.shell("dumpsys window | grep mCurrentFocus")
    xml = client.exec_out("uiautomator dump /dev/tty")
    x, y = _find(xml[: xml.rindex("</hierarchy>") + 12], "Search notes")
    client.shell(f"input tap {x} {y}")
    x, y = _find(client.shell("uiautomator dump >/dev/null && cat /sdcard/window_dump.xml"), "Search notes", editable=True)
    client.shell(f"input tap {x} {y}")


def test_adb_shell_client_runs_commands(client: AdbDeviceTcp, server: AdbdServer) -> None:
    assert client.shell("wm size") == "Physical size: 1080x2400\n"
    assert client.shell("getprop ro.product.model").strip() == "MobileR1_Sim"
    assert client.shell("echo one; false && echo two; echo $?; true || echo three") == "one\n1\n"
    assert "com.sim.wallet" in client.shell("pm list packages | grep wallet")
    assert client.shell("nosuchtool --x").strip().endswith("nosuchtool: inaccessible or not found")


def test_screencap_travels_as_binary_over_exec_and_shell(client: AdbDeviceTcp, server: AdbdServer) -> None:
    for data in (client.exec_out("screencap -p", decode=False), client.shell("screencap -p", decode=False)):
        assert data[:8] == b"\x89PNG\r\n\x1a\n"
        image = Image.open(io.BytesIO(data))
        image.load()
        assert image.size == (540, 1200)
    raw = client.exec_out("screencap", decode=False)
    w, h, fmt = struct.unpack("<III", raw[:12])
    assert (w, h, fmt) == (540, 1200, 1) and len(raw) == 16 + w * h * 4


def test_gestures_reach_the_phone_and_the_dump_shows_them(client: AdbDeviceTcp, server: AdbdServer) -> None:
    _search_field(client)
    assert client.shell("uiautomator dump").strip() == "UI hierchary dumped to: /sdcard/window_dump.xml"
    client.shell("input text 'milk%sand%sbread' && input keyevent 66")
    state = json.loads(client.shell("simctl state"))
    assert state["inputs"] >= 3
    log = server.device.phone.state.log
    assert log[-1]["action"] == {"action": "type", "text": "milk and bread\n"}, "text and Enter fold into one action"
    assert "error" not in log[-1]


def test_adbkeyboard_types_chinese_only_while_it_is_the_input_method(client: AdbDeviceTcp, server: AdbdServer) -> None:
    _search_field(client)
    msg = base64.b64encode("你好世界".encode()).decode()
    assert "result=0" in client.shell(f"am broadcast -a ADB_INPUT_B64 --es msg {msg}")  # not the input method yet
    assert "com.android.adbkeyboard/.AdbIME" in client.shell("ime list -a -s")
    client.shell("ime enable com.android.adbkeyboard/.AdbIME; ime set com.android.adbkeyboard/.AdbIME")
    assert client.shell("settings get secure default_input_method").strip() == "com.android.adbkeyboard/.AdbIME"
    assert "result=-1" in client.shell(f"am broadcast -a ADB_INPUT_B64 --es msg {msg}")
    texts = [e.text for e in parse_ui_xml(client.shell("uiautomator dump /sdcard/t.xml >/dev/null; cat /sdcard/t.xml"))]
    assert "你好世界" in texts
    client.shell("ime set com.sim.inputmethod/.SimIME")


def test_sync_pull_push_and_stat(client: AdbDeviceTcp, server: AdbdServer, tmp_path: Path) -> None:
    client.shell("uiautomator dump /sdcard/pulled.xml")
    local = tmp_path / "pulled.xml"
    client.pull("/sdcard/pulled.xml", str(local))
    assert local.read_bytes() == server.device.files["/sdcard/pulled.xml"]
    source = tmp_path / "up.txt"
    source.write_text("hello device")
    client.push(str(source), "/sdcard/up.txt")
    assert client.shell("cat /sdcard/up.txt") == "hello device"
    mode, size, _ = client.stat("/sdcard/up.txt")
    assert size == len("hello device") and mode & 0o100000


def test_side_channel_starts_and_judges_a_simulator_episode(client: AdbDeviceTcp) -> None:
    ref = SimBackend(render=False).episodes("nav-sim", "test", n=1)[0]
    payload = base64.b64encode(json.dumps(ref.to_dict()).encode()).decode()
    assert client.shell("simctl ping").strip() == "simctl 1"
    started = json.loads(client.shell(f"simctl start {payload}"))
    assert started["episode"] == ref.id
    reply = json.loads(client.shell('simctl act \'{"action": "call_user", "content": "Shall I go on?"}\''))
    assert reply["user_reply"] and reply["step"] == 1
    client.shell('simctl act \'{"action": "terminate", "status": "failure"}\'')
    judged = json.loads(client.shell("simctl judge"))
    assert judged["verdict"]["success"] is False and judged["verdict"]["episode_id"] == ref.id
    assert judged["asked_steps"] == [1] and judged["verdict"]["inquiry"] == "over_asked"
    client.shell("simctl reset")
    assert "no episode to judge" in client.shell("simctl judge")
    assert "unknown fault" in client.shell("simctl fault meteor")


def test_the_transport_refuses_unknown_services_and_ignores_messages_before_cnxn(server: AdbdServer) -> None:
    with socket.create_connection((server.host, server.port), timeout=5) as sock:
        sock.sendall(Message(A_OPEN, 1, 0, b"shell:echo early\x00").pack())  # before CNXN: ignored
        sock.sendall(Message(A_CNXN, 0x01000001, 256 * 1024, b"host::features=shell_v2\x00").pack())
        hello = read_message(sock, verify=False)
        assert hello.command == A_CNXN and hello.data.startswith(b"device::ro.product.name=mobile_r1_sim;")
        sock.sendall(Message(A_OPEN, 7, 0, b"framebuffer:\x00").pack())
        refused = read_message(sock)
        assert (refused.command, refused.arg0, refused.arg1) == (A_CLSE, 0, 7)
        sock.sendall(Message(A_OPEN, 8, 0, b"exec:echo hi\x00").pack())
        ready = read_message(sock)
        assert ready.command == A_OKAY and ready.arg1 == 8
        data = read_message(sock)
        assert data.data == b"hi\n"


def test_shell_parsing() -> None:
    words = [t.text for t in tokenize("""input text 'it'"'"'s%sok' "a \\"b\\" $?" c\\ d""")]
    assert words == ["input", "text", "it's%sok", 'a "b" \x00?', "c d"]
    program = parse("rm -f /x; uiautomator dump /x >/dev/null 2>&1 && cat /x | grep -E 'a|b' || echo no")
    assert [op for _, op in program] == [";", "&&", "||", ";"]
    assert [c.argv[0] for c in program[1][0].commands] == ["uiautomator"]
    assert program[1][0].commands[0].stdout == ("/dev/null", False) and program[1][0].commands[0].stderr == "&1"
    assert [c.argv[0] for c in program[2][0].commands] == ["cat", "grep"]
