"""One Android device through the adb server (`adbutils`, the maintained pure-Python client of the adb server).

    device = Device("emulator-5554")            # or "192.168.1.7:5555" (connected first), None: the only device
    device.run("input tap 540 1200")            # a command line on the device (`exec:`: raw bytes, no terminal)
    device.screencap(), device.dump(), device.focus(), device.screen_size(), device.packages()
    device.log                                  # every command run: what, how long, how many bytes, what failed

Every command is one device round trip (one `exec:` stream). A command that fails is handled once: the device is
reconnected (`adb connect` again for a network serial, a wait for it otherwise) and the command sent again, if
that is safe (it is for reads; an action is sent again only when it never reached the device). A second failure
raises `core.errors.InfraError`, which an evaluation records apart from the judged episodes.

What a device sends is bounded: a command's output is read in chunks, at most `MAX_OUTPUT_BYTES` of it (more is an
`InfraError`, sent again never), within `timeout` seconds in all (a device that trickles bytes counts as not
answering); `wm size` must name a screen of at most `MAX_SCREEN_SIDE` pixels a side and `MAX_SCREEN_PIXELS` in all
(anything else is an `EnvError`: that is no phone this backend can observe).
"""

from __future__ import annotations

import base64
import os
import re
import shlex
import socket
import time
from dataclasses import asdict, dataclass
from typing import Any

from mobile_r1.core.errors import ConfigError, EnvError, InfraError
from mobile_r1.env.protocol import JSON

DUMP_FILE = "/sdcard/mobile_r1_dump.xml"
FOCUS_RE = re.compile(r"mCurrentFocus=Window\{[^}]*?\s(?P<package>[\w.]+)/(?P<activity>[^\s}]+)\}")
FOCUSED_APP_RE = re.compile(r"(?:mFocusedApp|mResumedActivity)[=:].*?\s(?P<package>[\w.]+)/(?P<activity>[^\s}]+)")
SIZE_RE = re.compile(r"(Override|Physical) size:\s*(\d+)x(\d+)")
MAX_OUTPUT_BYTES = 64 * 2**20  # one command's output (a phone's PNG capture or UI dump is a few MiB)
MAX_SCREEN_SIDE = 16_384  # pixels; phones, tablets and foldables have a few thousand
MAX_SCREEN_PIXELS = 40_000_000  # width x height
READ_CHUNK = 256 * 1024
ADBKEYBOARD_PACKAGE = "com.android.adbkeyboard"
ADBKEYBOARD_IME = "com.android.adbkeyboard/.AdbIME"
ADBKEYBOARD_HELP = ("ADBKeyBoard (https://github.com/senzhk/ADBKeyBoard, package com.android.adbkeyboard): install its "
                    "APK with `adb install ADBKeyboard.apk`; mobile-r1 switches to it when it types such text")


@dataclass(slots=True)
class DeviceCommand:
    """One command sent to the device (as a trajectory records it)."""

    cmd: str
    seconds: float
    bytes: int
    error: str | None = None
    attempt: int = 1

    def to_dict(self) -> dict[str, JSON]:
        return {k: v for k, v in asdict(self).items() if v is not None and not (k == "attempt" and v == 1)}


class _Unreachable(Exception):
    """The command never reached the device (safe to send again)."""


class _Lost(Exception):
    """The device stopped answering while the command ran (it may or may not have happened)."""


def adb_client(host: str | None = None, port: int | None = None) -> Any:
    """An adbutils client of the adb server (default: $ANDROID_ADB_SERVER_HOST / $ANDROID_ADB_SERVER_PORT, else
    127.0.0.1:5037); the server is started when it is not running."""
    try:
        import adbutils
    except ImportError:  # pragma: no cover - a main dependency
        raise ConfigError("the adb backend needs adbutils: pip install adbutils") from None
    host = host or os.environ.get("ANDROID_ADB_SERVER_HOST") or "127.0.0.1"
    port = int(port or os.environ.get("ANDROID_ADB_SERVER_PORT") or 5037)
    return adbutils.AdbClient(host=host, port=port)


def list_devices(host: str | None = None, port: int | None = None) -> list[tuple[str, str]]:
    """(serial, state) of every device the adb server knows."""
    client = adb_client(host, port)
    try:
        with client.make_connection() as c:
            c.send_command("host:devices")
            c.check_okay()
            text = c.read_string_block()
    except Exception as exc:
        raise InfraError(f"the adb server at {client.host}:{client.port} did not answer ({exc}); is `adb` installed? "
                         "(`adb start-server`)") from None
    return [(serial, state) for serial, state in (line.split("\t", 1) for line in text.splitlines() if "\t" in line)]


def is_network_serial(serial: str) -> bool:
    return bool(re.fullmatch(r"[\w.\-\[\]:]+:\d+", serial)) and not serial.startswith("emulator-")


class Device:
    """A device by serial (see the module docstring).

    serial     the adb serial; a network one (`HOST:PORT`) is `adb connect`ed when the server does not know it;
               None picks the only device there is
    timeout    seconds one command may take before the device counts as not answering
    host, port the adb server (default as `adb_client`)
    """

    def __init__(self, serial: str | None = None, timeout: float = 20.0, host: str | None = None,
                 port: int | None = None) -> None:
        self.client = adb_client(host, port)
        self.timeout = timeout
        self.log: list[DeviceCommand] = []
        self.reconnects = 0
        self._size: tuple[int, int] | None = None
        self._packages: set[str] | None = None
        self._simctl: bool | None = None
        self.serial = self._pick(serial)

    # ----- connection ----------------------------------------------------------------------------------------------
    def _pick(self, serial: str | None) -> str:
        known = dict(list_devices(self.client.host, self.client.port))
        if serial is None:
            ready = [s for s, state in known.items() if state == "device"]
            if len(ready) != 1:
                listed = ", ".join(f"{s} ({st})" for s, st in known.items()) or "none"
                raise ConfigError(f"name the device: --env adb:SERIAL ({len(ready)} devices ready; known: {listed})")
            return ready[0]
        if known.get(serial) != "device":
            if is_network_serial(serial):
                self._connect(serial)
            elif serial not in known:
                listed = ", ".join(known) or "none"
                raise InfraError(f"no device {serial!r} is attached (the adb server knows: {listed}); check the cable, "
                                 "`adb devices`, or `adb connect HOST:PORT` for a network device")
            else:
                raise InfraError(f"device {serial} is {known[serial]!r}, not ready (unlock it and allow USB debugging)")
        return serial

    def _connect(self, serial: str) -> None:
        """`adb connect` until the device is ready, for at most `timeout` seconds."""
        deadline = time.monotonic() + self.timeout
        answer = ""
        while True:
            try:
                answer = str(self.client.connect(serial, timeout=max(1.0, deadline - time.monotonic())))
            except Exception as exc:
                answer = str(exc) or type(exc).__name__
            if "connected to" in answer:
                while time.monotonic() < deadline:
                    if dict(list_devices(self.client.host, self.client.port)).get(serial) == "device":
                        return
                    time.sleep(0.05)
            if time.monotonic() >= deadline:
                raise InfraError(f"adb connect {serial}: {answer.strip() or 'no answer'} (for {self.timeout:g} s)")
            try:
                self.client.disconnect(serial)
            except Exception:
                pass
            time.sleep(0.2)

    def reconnect(self) -> None:
        """One attempt to get the device back: `adb disconnect` + `adb connect` for a network serial, a short wait
        for a USB one."""
        self.reconnects += 1
        if is_network_serial(self.serial):
            try:
                self.client.disconnect(self.serial)
            except Exception:
                pass
            self._connect(self.serial)
        else:
            try:
                self.client.wait_for(self.serial, state="device", timeout=min(self.timeout, 10))
            except Exception as exc:
                raise InfraError(f"device {self.serial} is gone ({exc})") from None

    # ----- commands ---------------------------------------------------------------------------------------------------
    def _exec(self, cmd: str, timeout: float) -> bytes:
        from adbutils.errors import AdbError

        device = self.client.device(self.serial)
        try:
            connection = device.open_transport(timeout=timeout)
            connection.send_command("exec:" + cmd)
            connection.check_okay()
        except (AdbError, OSError, EOFError) as exc:
            raise _Unreachable(str(exc) or type(exc).__name__) from None
        try:
            data = self._read_all(connection.conn, cmd, timeout)
        except (AdbError, OSError, EOFError) as exc:
            raise _Lost(str(exc) or type(exc).__name__) from None
        finally:
            connection.close()
        if not data and self.state() != "device":  # the stream ended because the device went away
            raise _Lost("the device went away during the command")
        return data

    def _read_all(self, sock: socket.socket, cmd: str, timeout: float) -> bytes:
        """The stream's bytes until the device closes it: chunks into one buffer (linear time), at most
        `MAX_OUTPUT_BYTES`, within `timeout` seconds in all."""
        deadline = time.monotonic() + timeout
        out = bytearray()
        chunk = bytearray(READ_CHUNK)
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise _Lost(f"the output did not end within {timeout:g} s ({len(out):,} bytes came)")
            sock.settimeout(left)
            try:
                n = sock.recv_into(chunk)
            except socket.timeout:
                raise _Lost(f"the output did not end within {timeout:g} s ({len(out):,} bytes came)") from None
            if n == 0:
                return bytes(out)
            if len(out) + n > MAX_OUTPUT_BYTES:
                raise InfraError(f"device {self.serial} sent more than {MAX_OUTPUT_BYTES // 2**20} MiB for "
                                 f"`{_short(cmd)}`; no phone's answer is that long (the output was refused)")
            out += chunk[:n]

    def state(self) -> str:
        """What the adb server says of the device now ("device", "offline", ...; "absent" when it does not know it)."""
        try:
            return dict(list_devices(self.client.host, self.client.port)).get(self.serial, "absent")
        except InfraError:
            return "absent"

    def run(self, cmd: str, *, timeout: float | None = None, action: bool = False) -> bytes:
        """Run a command line on the device and return its output (raw bytes). `action=True` marks a command with an
        effect on the phone: after a failure in flight it is not sent again."""
        limit = timeout or self.timeout
        for attempt in (1, 2):
            start = time.perf_counter()
            try:
                data = self._exec(cmd, limit)
            except (_Unreachable, _Lost) as exc:
                lost = isinstance(exc, _Lost)
                why = f"{'no answer' if lost else 'unreachable'}: {exc}"
                self.log.append(DeviceCommand(cmd, round(time.perf_counter() - start, 4), 0, why, attempt))
                if attempt == 2:
                    raise InfraError(f"device {self.serial} failed twice on `{_short(cmd)}` ({why})") from None
                try:
                    self.reconnect()
                except InfraError as gone:
                    raise InfraError(f"device {self.serial} stopped answering during `{_short(cmd)}` ({why}) and "
                                     f"did not come back: {gone}") from None
                if lost and action:
                    raise InfraError(f"device {self.serial} stopped answering during `{_short(cmd)}` ({why}); it "
                                     "is back, but the action may or may not have happened") from None
                continue
            self.log.append(DeviceCommand(cmd, round(time.perf_counter() - start, 4), len(data), None, attempt))
            return data
        raise AssertionError("unreachable")

    def text(self, cmd: str, **kw: Any) -> str:
        return self.run(cmd, **kw).decode("utf-8", errors="replace")

    def take_log(self) -> list[dict[str, JSON]]:
        """The commands run since the last call, as trajectory records."""
        out = [c.to_dict() for c in self.log]
        self.log.clear()
        return out

    # ----- what the backend reads ---------------------------------------------------------------------------------------
    def screen_size(self) -> tuple[int, int]:
        """The screen in pixels (`wm size`; an override wins over the physical size)."""
        if self._size is None:
            text = self.text("wm size")
            sizes = {kind: (_int(w), _int(h)) for kind, w, h in SIZE_RE.findall(text)}
            size = sizes.get("Override") or sizes.get("Physical")
            if size is None:
                raise InfraError(f"`wm size` gave no screen size: {text.strip()[:120]!r}")
            width, height = size
            if not (0 < width <= MAX_SCREEN_SIDE and 0 < height <= MAX_SCREEN_SIDE
                    and width * height <= MAX_SCREEN_PIXELS):
                raise EnvError(f"device {self.serial} says its screen is {_digits(width)}x{_digits(height)} pixels "
                               f"(`wm size`); a screen this backend observes has 1 to {MAX_SCREEN_SIDE:,} pixels a "
                               f"side and at most {MAX_SCREEN_PIXELS:,} in all (reset an override with "
                               "`adb shell wm size reset`)")
            self._size = size
        return self._size

    def screencap(self) -> bytes:
        """The screen as PNG bytes (`screencap -p`; empty on some devices when the screen is secure)."""
        return self.run("screencap -p")

    def dump(self) -> tuple[str, str | None, str | None]:
        """(the UI tree's XML, the foreground package, its activity) in one round trip."""
        text = self.text(f"rm -f {DUMP_FILE}; uiautomator dump {DUMP_FILE} >/dev/null 2>&1; cat {DUMP_FILE} 2>/dev/null; echo; "
                         "dumpsys window | grep -E 'mCurrentFocus|mFocusedApp'")
        cut = text.rfind("</hierarchy>")
        xml, tail = (text[:cut + len("</hierarchy>")], text[cut:]) if cut >= 0 else ("", text)
        if cut < 0:
            start = text.find("<?xml")
            xml = text[start:] if start >= 0 else ""
        match = FOCUS_RE.search(tail) or FOCUSED_APP_RE.search(tail)
        return xml, (match.group("package") if match else None), (match.group("activity") if match else None)

    def packages(self, refresh: bool = False) -> set[str]:
        if self._packages is None or refresh:
            text = self.text("pm list packages")
            self._packages = {line.split(":", 1)[1].strip() for line in text.splitlines() if line.startswith("package:")}
        return self._packages

    def has_simctl(self) -> bool:
        """Whether this is the simulated device (its `simctl` side channel answers); asked once."""
        if self._simctl is None:
            self._simctl = self.text("simctl ping 2>/dev/null").startswith("simctl ")
        return self._simctl

    def simctl(self, *args: str, action: bool = False) -> str:
        return self.text("simctl " + " ".join(shlex.quote(a) for a in args), action=action)

    def input_methods(self) -> tuple[str, list[str]]:
        """(the current input method, the installed ones) in one round trip."""
        text = self.text("settings get secure default_input_method; ime list -a -s")
        lines = [line.strip() for line in text.splitlines() if line.strip()]
        return (lines[0] if lines else ""), lines[1:]


def quote_text(text: str) -> str:
    """`input text`'s argument for ASCII text: spaces as %s (what `input text` turns back into spaces), quoted for
    the device's shell."""
    return shlex.quote(text.replace(" ", "%s"))


def adbkeyboard_broadcast(text: str) -> str:
    """ADBKeyBoard's broadcast that types any text (Chinese included), base64 so no shell quoting can mangle it."""
    return f"am broadcast -a ADB_INPUT_B64 --es msg {base64.b64encode(text.encode('utf-8')).decode('ascii')}"


def _int(digits: str) -> int:
    """A decimal number from the device; a very long one stands as -1 (never converted: Python refuses, slowly)."""
    return int(digits) if len(digits) <= 18 else -1


def _digits(n: int) -> str:
    return str(n) if n >= 0 else "(a number of more than 18 digits)"


def _short(cmd: str) -> str:
    return cmd if len(cmd) <= 80 else cmd[:77] + "..."


__all__ = ["Device", "DeviceCommand", "list_devices", "adb_client", "quote_text", "adbkeyboard_broadcast",
           "ADBKEYBOARD_IME", "ADBKEYBOARD_PACKAGE", "ADBKEYBOARD_HELP", "is_network_serial", "MAX_OUTPUT_BYTES",
           "MAX_SCREEN_PIXELS", "MAX_SCREEN_SIDE"]
