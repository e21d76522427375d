"""The simulated phone as an Android device: the shell commands adb tools use, and the `simctl` side channel.

`SimDevice` holds one simulated phone (a plain one, or a task episode set up through `simctl start`) and answers
the commands an adb client sends, as a phone's userland would:

    input tap X Y | swipe X1 Y1 X2 Y2 [MS] | draganddrop ... | text TEXT | keyevent K...
    screencap [-p] [FILE]            PNG with -p (else the raw RGBA framebuffer with its 16-byte header)
    uiautomator dump [FILE]          the screen's XML (default /sdcard/window_dump.xml)
    cat, rm, ls, echo, sleep, true, false, mkdir, touch, id, sh -c
    grep, sed, awk, cut, head, tail, wc   toybox's text tools (`toybox.py`: the common subset, bounded)
    wm size | density, getprop [KEY], settings get|put NS KEY [V], ime list|enable|disable|set|reset
    pm list packages [-3] [FILTER], pm path PKG, monkey -p PKG ... 1, am force-stop PKG
    am start -n PKG/ACT | -a android.intent.action.VIEW -d URL | -c android.intent.category.HOME
    am broadcast -a ACTION [--es|--ei|--eia KEY VALUE]   ADBKeyBoard's set: ADB_INPUT_TEXT, ADB_INPUT_B64,
                                      ADB_INPUT_CHARS, ADB_INPUT_CODE, ADB_EDITOR_CODE, ADB_CLEAR_TEXT,
                                      IME_META_KEYS / ADB_INPUT_MCODE (Ctrl+A selects the field), ADB_ACTION_*
    dumpsys window | activity [top|activities] | package PKG | display

Every launch path (monkey, `am start -n`, VIEW intents, `pm`, `dumpsys`) goes through the apps' `package`
attribute, so an app added to the simulator is found by its own package name. A VIEW intent opens the app that
handles its URL: one whose optional `url_schemes` attribute names the scheme (`weixin`, or `http`/`https` for a
browser), whose optional `url_hosts` names the host, or whose name or last package segment is the scheme (`notes:`)
or a label of an http(s) host (`https://shop.example/...` -> Shop); with no such app the answer is Android's
"unable to resolve Intent".

Files live in memory, under /sdcard, /storage and /data/local/tmp, with a quota (`file_limit` bytes a file,
`files_quota` bytes and `MAX_FILES` files in all): past it a write fails as a full disk does. Commands that touch
nothing of the phone (the text tools, sleep) run without the device's lock, so a slow one never holds up another
connection.

Gestures map onto the simulator's actions one to one (a swipe that stays in place for `LONG_PRESS_MS` or longer is
a long press; `input text` turns `%s` into spaces). A typed text followed by an Enter key in the same command line
is folded into one typing action (the simulator's `type` with a trailing newline), so one agent step stays one
step of the simulated phone. ADBKeyBoard's broadcasts type only while it is the current input method, as on a
phone.

The side channel, which no real phone has (`simctl ping` tells them apart):

    simctl ping                       "simctl 1"
    simctl apps                       the launcher's apps as JSON: label, package, aliases
    simctl start B64                  set up the episode of a simulator EpisodeRef (base64 of its JSON)
    simctl act JSON                   an action that is no gesture (call_user, answer, wait, terminate; an open
                                      of an app the phone lacks) -> step info
    simctl last                       the last action's step info (error, effects, toast, user reply) as JSON
    simctl judge                      the rule judge's Judgement of the episode as JSON
    simctl state                      the episode, its steps, the activity and the state key
    simctl reset [SEED]               a plain phone (no episode)
    simctl fault KIND [N] [--after-starts S] [--after-inputs K]
                                      misbehave, from the K-th action of the S-th episode started from now on:
                                      empty-dump, truncated-png, black-screen, empty-screen (the next N captures: an
                                      empty `screencap` output, as some secure screens give), hang (N seconds,
                                      once), gone (offline for N seconds; 0: for good); `simctl fault clear`
"""

from __future__ import annotations

import base64
import binascii
import io
import json
import re
import threading
import time
import zlib
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Callable, Iterator

from mobile_r1.core.actions import Action
from mobile_r1.core.errors import ActionError, DataError, EnvError, MobileR1Error
from mobile_r1.env.protocol import EpisodeRef
from mobile_r1.env.sim.servers.adbd.shell import MAX_LINE_OUTPUT, Shell
from mobile_r1.env.sim.servers.adbd.toybox import TOOLS, Limits, run_tool
from mobile_r1.env.sim.backend import SimBackend, SimTaskEnv
from mobile_r1.sim.driver import SimEnv
from mobile_r1.sim.system import KEYBOARD_PKG, LAUNCHER_PKG, SYSTEM_PKG, Phone

SIMCTL_VERSION = 1
LONG_PRESS_MS = 500  # a swipe that stays in place this long or longer is a long press
DEFAULT_LONG_PRESS_MS = 1000  # what the adb backend sends for a long press without a time (time=None here)
DUMP_PATH = "/sdcard/window_dump.xml"
ADBKEYBOARD_PACKAGE = "com.android.adbkeyboard"
ADBKEYBOARD_IME = "com.android.adbkeyboard/.AdbIME"
SIM_IME = f"{KEYBOARD_PKG}/.SimIME"
KEYCODES = {"HOME": 3, "BACK": 4, "ENTER": 66, "DEL": 67, "MENU": 82, "APP_SWITCH": 187, "TAB": 61, "SPACE": 62,
            "SEARCH": 84, "ESCAPE": 111, "FORWARD_DEL": 112, "VOLUME_UP": 24, "VOLUME_DOWN": 25, "POWER": 26,
            "CAMERA": 27, "DPAD_UP": 19, "DPAD_DOWN": 20, "DPAD_LEFT": 21, "DPAD_RIGHT": 22, "DPAD_CENTER": 23,
            "WAKEUP": 224, "SLEEP": 223}
CODE_NAMES = {code: name for name, code in KEYCODES.items()}
FAULTS = ("empty-dump", "truncated-png", "black-screen", "empty-screen", "hang", "gone")
FILE_LIMIT = 64 * 1024 * 1024  # bytes one file may hold
FILES_QUOTA = 256 * 1024 * 1024  # bytes all files may hold
MAX_FILES = 4096
WRITABLE = ("/sdcard/", "/data/local/tmp/", "/storage/")
VIEW = "android.intent.action.VIEW"
KEYBOARD_ACTIONS = ("ADB_INPUT_TEXT", "ADB_INPUT_B64", "ADB_INPUT_CHARS", "ADB_INPUT_CODE", "ADB_INPUT_MCODE",
                    "IME_META_KEYS", "ADB_EDITOR_CODE", "ADB_CLEAR_TEXT", "ADB_ACTION_SEARCH", "ADB_ACTION_GO",
                    "ADB_ACTION_DONE", "ADB_ACTION_NEXT", "ADB_ACTION_SEND")
META_CTRL = 0x1000 | 0x2000 | 0x4000  # KeyEvent.META_CTRL_ON | META_CTRL_LEFT_ON | META_CTRL_RIGHT_ON
KEYCODE_A = 29
MONKEY_ABORTED = 252  # monkey's exit status when nothing could be launched
GENERIC_SEGMENTS = frozenset({"com", "org", "net", "cn", "io", "android", "app", "apps", "www", "m", "sim", "mobile"})


@dataclass(slots=True)
class Fault:
    kind: str
    count: float  # captures / dumps left, or seconds (hang, gone)
    after_starts: int = 0  # armed once this many more episodes have started (`simctl start`) ...
    after_inputs: int = 0  # ... and then this many more actions have run


class SimDevice:
    """One simulated phone served as an Android device (see the module docstring).

    seed          the plain phone's seed (before any episode)
    serial        what `getprop ro.serialno` says
    adbkeyboard   whether ADBKeyBoard is installed (it is not the current input method until `ime set`)
    capture_scale scale of `screencap` images (1.0: the full 1080x2400 screen, as a phone captures it)
    specs         a folder of task specs for `simctl start` (default: the packaged ones)
    file_limit, files_quota   bytes one in-memory file, and all of them, may hold
    max_output    bytes one command line may write
    locale        the plain phone's language, en or zh (`getprop persist.sys.locale` says en-US or zh-CN); an
                  episode's phone speaks its task's language
    """

    def __init__(self, seed: int = 0, serial: str = "mobile-r1-sim", adbkeyboard: bool = True,
                 capture_scale: float = 1.0, specs: str | None = None, file_limit: int = FILE_LIMIT,
                 files_quota: int = FILES_QUOTA, max_output: int = MAX_LINE_OUTPUT, locale: str = "en") -> None:
        self.serial = serial
        self.file_limit, self.files_quota, self.max_output = file_limit, files_quota, max_output
        self.adbkeyboard = adbkeyboard
        self.capture_scale = capture_scale
        self.lock = threading.RLock()
        self.backend = SimBackend(render=False, scale=capture_scale, xml=False, specs=specs)
        self.plain = SimEnv(seed=seed, render=False, xml=False, locale=locale)
        self.plain.reset()
        self.episode: SimTaskEnv | None = None
        self.files: dict[str, bytes] = {}
        self.ime_enabled = [SIM_IME] + ([ADBKEYBOARD_IME] if adbkeyboard else [])
        self.ime_current = SIM_IME
        self.pending_type: str | None = None
        self.selected_all = False  # Ctrl+A (ADBKeyBoard's meta keys) selected the focused field's text
        self.last_info: dict[str, Any] = {}
        self.faults: list[Fault] = []
        self.gone_until: float | None = None
        self.on_gone: Callable[[], None] | None = None
        self.inputs = 0
        self.commands_run = 0
        self._png: tuple[Any, bytes] | None = None
        self.props = {
            "ro.product.name": "mobile_r1_sim", "ro.product.model": "MobileR1_Sim", "ro.product.device": "sim",
            "ro.product.manufacturer": "mobile-r1", "ro.product.brand": "mobile-r1", "ro.build.version.sdk": "34",
            "ro.build.version.release": "14", "ro.serialno": serial, "ro.product.cpu.abi": "x86_64",
            "ro.build.characteristics": "emulator,phone", "sys.boot_completed": "1", "ro.kernel.qemu": "1",
            "persist.sys.locale": "zh-CN" if locale == "zh" else "en-US",
            "ro.product.locale": "zh-CN" if locale == "zh" else "en-US",
        }

    # ----- the phone --------------------------------------------------------------------------------------------
    @property
    def phone(self) -> Phone:
        return self.episode.sim.phone if self.episode is not None else self.plain.phone

    def act(self, action: Action) -> dict[str, Any]:
        """Apply one action to the phone; the step info (also kept for `simctl last`)."""
        self.flush_type()
        return self._act(action)

    def _act(self, action: Action) -> dict[str, Any]:
        self.selected_all = False
        if self.episode is not None:
            if self.episode.done:
                info: dict[str, Any] = {"error": "the episode has ended; simctl start another", "effects": []}
            else:
                _, _, _, step = self.episode.step(action)
                info = {"error": step.error, "effects": step.effects, "user_reply": step.user_reply, "step": step.step}
        else:
            _, _, _, raw = self.plain.step(action)
            info = {"error": raw.get("error"), "effects": raw.get("effects") or [], "user_reply": raw.get("user_reply"),
                    "step": raw.get("step")}
        toast = self.phone.state.toast
        if toast is not None:
            info["toast"] = toast[0]
        self.last_info = {k: v for k, v in info.items() if v is not None}
        return self.last_info

    def type_text(self, text: str) -> None:
        """Typed text waits for the next command: an Enter right after it is folded into the same action. Text
        typed over a selection (Ctrl+A) replaces it."""
        if self.selected_all and self.pending_type is None:
            self.clear_field()
        self.pending_type = (self.pending_type or "") + text

    def focused_text(self) -> str:
        """What the focused text field holds ("" when none is focused)."""
        frame = self.phone.top_frame()
        if frame is None or frame.get("focus") is None:
            return ""
        return str(frame.get("fields", {}).get(frame["focus"], ""))

    def clear_field(self) -> None:
        """Empty the focused text field, one Delete per character (as ADBKeyBoard's deleteSurroundingText)."""
        self.flush_type()
        for _ in range(len(self.focused_text())):
            if self._act(Action.key("del")).get("error"):
                break
        self.selected_all = False

    def flush_type(self, enter: bool = False) -> None:
        if self.pending_type is not None:
            text, self.pending_type = self.pending_type, None
            self._act(Action.type_text(text + ("\n" if enter else "")))

    def line_done(self) -> None:
        """The end of a command line: pending typing is applied."""
        with self.lock:
            self.flush_type()

    def package_of(self, key: str | None) -> str:
        return self.phone.apps[key].package if key else LAUNCHER_PKG

    def pid_of(self, package: str) -> int:
        """A stable process id for a package (what `dumpsys activity top` shows)."""
        return 1000 + zlib.crc32(package.encode()) % 30000

    def view_handler(self, url: str) -> str | None:
        """The key of the app that handles a VIEW intent for `url` (see the module docstring), or None."""
        scheme, _, rest = url.partition(":")
        scheme = scheme.lower()
        host = rest.lstrip("/").split("/", 1)[0].split("?", 1)[0].split("@")[-1].split(":")[0].lower()
        apps = self.phone.apps
        for key, app in apps.items():
            if scheme in tuple(getattr(app, "url_schemes", ())) and scheme not in ("http", "https"):
                return key
        if scheme in ("http", "https") and host:
            for key, app in apps.items():
                if any(host == h or host.endswith("." + h) for h in getattr(app, "url_hosts", ())):
                    return key
            labels = set(host.split(".")) - GENERIC_SEGMENTS
            for key, app in apps.items():
                if labels & (set(app.package.lower().split(".")) - GENERIC_SEGMENTS):
                    return key
            for key, app in apps.items():  # a browser
                if scheme in tuple(getattr(app, "url_schemes", ())):
                    return key
            return None
        for key, app in apps.items():
            if scheme and scheme in (app.key.replace(" ", ""), app.package.rsplit(".", 1)[-1].lower()):
                return key
        return None

    def app_by_package(self, package: str) -> str | None:
        for key, app in self.phone.apps.items():
            if app.package == package:
                return key
        return None

    def focus(self) -> tuple[str, str]:
        """(package, activity class) of the window in front."""
        phone = self.phone
        if phone.state.mode == "home":
            return LAUNCHER_PKG, ".Launcher"
        if phone.state.mode == "recents":
            return SYSTEM_PKG, ".recents.RecentsActivity"
        activity = phone.activity()
        screen = activity.split("/", 1)[1] if "/" in activity else activity
        return self.package_of(phone.foreground), "." + (re.sub(r"\W", "_", screen) or "Main")

    @contextmanager
    def unlocked(self) -> Iterator[None]:
        """Let go of the device's lock (held for the command line) while a command that touches nothing of the
        phone runs: a text tool or a sleep never holds up another connection."""
        try:
            self.lock.release()
        except RuntimeError:  # not held by this thread
            yield
            return
        try:
            yield
        finally:
            self.lock.acquire()

    # ----- faults -----------------------------------------------------------------------------------------------
    def _fault(self, kind: str) -> Fault | None:
        for fault in self.faults:
            if fault.kind == kind and fault.after_starts <= 0 and fault.after_inputs <= 0:
                return fault
        return None

    def _use(self, fault: Fault) -> None:
        fault.count -= 1
        if fault.count <= 0:
            self.faults.remove(fault)

    def is_gone(self) -> bool:
        if self.gone_until is None:
            return False
        if self.gone_until and time.monotonic() >= self.gone_until:
            self.gone_until = None
            return False
        return True

    def _count_input(self) -> None:
        self.inputs += 1
        for fault in self.faults:
            if fault.after_starts <= 0 and fault.after_inputs > 0:
                fault.after_inputs -= 1
        self._trigger_gone()

    def _count_start(self) -> None:
        for fault in self.faults:
            if fault.after_starts > 0:
                fault.after_starts -= 1

    def _trigger_gone(self) -> None:
        fault = self._fault("gone")
        if fault is not None:
            self.faults.remove(fault)
            self.gone_until = time.monotonic() + fault.count if fault.count > 0 else 0.0
            if self.on_gone is not None:
                self.on_gone()

    def before_command(self) -> None:
        """Called before every command line: a pending hang holds it."""
        fault = self._fault("hang")
        if fault is not None:
            self.faults.remove(fault)
            time.sleep(fault.count)
        self._trigger_gone()

    # ----- files ------------------------------------------------------------------------------------------------
    def read_file(self, path: str) -> bytes | None:
        if path == "/dev/null":
            return b""
        return self.files.get(path)

    def write_file(self, path: str, data: bytes, append: bool = False) -> str | None:
        """Store a file; the reason when it cannot be (a path outside the writable folders, or over the quota)."""
        if path == "/dev/null":
            return None
        problem = self.can_store(path, len(data), append)
        if problem:
            return problem
        self.files[path] = (self.files.get(path, b"") + data) if append else data
        return None

    def can_store(self, path: str, size: int, append: bool = False) -> str | None:
        """Why `size` more bytes cannot be written to `path` (None when they can)."""
        if not path.startswith(WRITABLE):
            return "Permission denied"
        old = len(self.files.get(path, b""))
        new = old + size if append else size
        if new > self.file_limit:
            return "File too large"
        if path not in self.files and len(self.files) >= MAX_FILES:
            return "No space left on device"
        if sum(len(v) for v in self.files.values()) - old + new > self.files_quota:
            return "No space left on device"
        return None

    # ----- captures ---------------------------------------------------------------------------------------------
    def png(self) -> bytes:
        from PIL import Image

        fault = self._fault("empty-screen")
        if fault is not None:
            self._use(fault)
            return b""
        fault = self._fault("black-screen")
        if fault is not None:
            self._use(fault)
            w, h = self.phone.width, self.phone.height
            image = Image.new("RGB", (max(1, int(w * self.capture_scale)), max(1, int(h * self.capture_scale))))
            data = _png(image)
        else:
            image = self.phone.screenshot(self.capture_scale)  # the phone keeps the image while the screen is unchanged
            if self._png is None or self._png[0] is not image:
                self._png = (image, _png(image))
            data = self._png[1]
        fault = self._fault("truncated-png")
        if fault is not None:
            self._use(fault)
            data = data[: len(data) // 2]
        return data

    def raw_frame(self) -> bytes:
        image = self.phone.screenshot(self.capture_scale).convert("RGBA")
        w, h = image.size
        return w.to_bytes(4, "little") + h.to_bytes(4, "little") + (1).to_bytes(4, "little") + bytes(4) + image.tobytes()

    def dump(self) -> bytes:
        fault = self._fault("empty-dump")
        if fault is not None:
            self._use(fault)
            return b""
        return self.phone.xml().encode("utf-8")

    # ----- the shell ------------------------------------------------------------------------------------------------
    def shell(self) -> Shell:
        return Shell(_Commands(self), self.max_output)

    def run_line(self, line: str) -> bytes:
        """Run one command line (as `shell:LINE` or `exec:LINE`) and return its output."""
        chunks, _ = self.run_chunks(line)
        return b"".join(data for _, data in chunks)

    def run_chunks(self, line: str, shell: Shell | None = None) -> tuple[list[tuple[int, bytes]], int]:
        """Run one command line in `shell` (a new one by default): its (fd, bytes) output and exit status."""
        self.before_command()
        with self.lock:
            self.commands_run += 1
            return (shell or self.shell()).run(line)


def _png(image: Any) -> bytes:
    out = io.BytesIO()
    image.save(out, format="PNG", compress_level=1)
    return out.getvalue()


def _num(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise DataError(f"not a number: {text!r}") from None
    return value


class _Commands:
    """The device's commands (see the module docstring); `run` -> (stdout, stderr, status)."""

    def __init__(self, device: SimDevice) -> None:
        self.d = device
        self.limits = Limits(output=device.max_output)

    def read_file(self, path: str) -> bytes | None:
        return self.d.read_file(path)

    def write_file(self, path: str, data: bytes, append: bool = False) -> str | None:
        return self.d.write_file(path, data, append)

    def line_done(self) -> None:
        self.limits.reset()
        self.d.line_done()

    def run(self, argv: list[str], stdin: bytes) -> tuple[bytes, bytes, int]:
        name = argv[0].rsplit("/", 1)[-1]
        if name == "toybox" and len(argv) > 1:
            argv, name = argv[1:], argv[1]
        if name in TOOLS:
            self.d.flush_type()
            with self.d.unlocked():
                return run_tool(name, argv[1:], stdin, self.d.read_file, self.limits)
        handler = getattr(self, "cmd_" + name.replace("-", "_"), None)
        if handler is None:
            self.d.flush_type()
            return b"", f"/system/bin/sh: {argv[0]}: inaccessible or not found\n".encode(), 127
        if name not in ("input", "am"):  # typing waits only for an Enter (input keyevent, or ADBKeyBoard's code)
            self.d.flush_type()
        try:
            result = handler(argv[1:], stdin)
        except (DataError, ActionError, EnvError) as exc:
            return b"", f"{name}: {exc}\n".encode(), 1
        if isinstance(result, tuple):
            out, err, code = result
            return _bytes(out), _bytes(err), code
        return _bytes(result), b"", 0

    # ----- gestures and keys -------------------------------------------------------------------------------------
    def cmd_input(self, args: list[str], stdin: bytes) -> tuple[bytes, bytes, int] | str:
        d = self.d
        while args and (args[0] in ("touchscreen", "touchpad", "keyboard", "mouse", "trackball", "stylus", "dpad")
                        or args[0] == "-d"):
            args = args[2:] if args[0] == "-d" else args[1:]
        if not args:
            return b"", b"Usage: input [<source>] <command> [<arg>...]\n", 1
        sub, rest = args[0], args[1:]
        if sub != "keyevent":
            d.flush_type()
        if sub == "tap" and len(rest) >= 2:
            d._count_input()
            d.act(Action.click(_num(rest[0]), _num(rest[1])))
        elif sub in ("swipe", "draganddrop") and len(rest) >= 4:
            d._count_input()
            x1, y1, x2, y2 = (_num(v) for v in rest[:4])
            ms = _num(rest[4]) if len(rest) > 4 else 300.0
            if abs(x2 - x1) < 1 and abs(y2 - y1) < 1:
                if ms >= LONG_PRESS_MS:
                    d.act(Action.long_press(x1, y1, None if ms == DEFAULT_LONG_PRESS_MS else ms / 1000))
                else:
                    d.act(Action.click(x1, y1))
            else:
                d.act(Action.swipe(x1, y1, x2, y2))
        elif sub == "text" and rest:
            d._count_input()
            d.type_text(" ".join(rest).replace("%s", " "))
        elif sub == "keyevent" and rest:
            d._count_input()
            codes = [c for c in rest if not c.startswith("--")]
            for code in codes:
                self._key(code)
        else:
            return b"", f"input: unknown or incomplete command '{' '.join(args)}'\n".encode(), 1
        return ""

    def _key(self, code: str) -> None:
        d = self.d
        name = code.upper().removeprefix("KEYCODE_")
        if name.isdigit():
            name = CODE_NAMES.get(int(name), name)
        if name == "ENTER" and d.pending_type is not None:
            d.flush_type(enter=True)
            return
        d.flush_type()
        if name in ("DEL", "FORWARD_DEL") and d.selected_all:
            d.clear_field()
            return
        if name == "HOME":
            d.act(Action.system_button("Home"))
        elif name == "BACK":
            d.act(Action.system_button("Back"))
        elif name == "APP_SWITCH":
            d.act(Action.system_button("Menu"))
        elif name == "ENTER":
            d.act(Action.key("Enter"))
        else:
            d.act(Action.key(name))

    # ----- captures -------------------------------------------------------------------------------------------------
    def cmd_screencap(self, args: list[str], stdin: bytes) -> bytes | tuple[bytes, bytes, int]:
        png = "-p" in args
        files = [a for a in args if not a.startswith("-") and not a.isdigit()]
        with self.d.lock:
            if files:
                png = png or files[0].endswith(".png")
                data = self.d.png() if png else self.d.raw_frame()
                problem = self.d.write_file(files[0], data)
                return (b"", f"Error opening file: {files[0]} ({problem})\n".encode(), 1) if problem else b""
            return self.d.png() if png else self.d.raw_frame()

    def cmd_uiautomator(self, args: list[str], stdin: bytes) -> str | tuple[bytes, bytes, int]:
        if not args or args[0] != "dump":
            return b"", b"Usage: uiautomator dump [--compressed] [file]\n", 1
        files = [a for a in args[1:] if not a.startswith("-")]
        path = files[0] if files else DUMP_PATH
        data = self.d.dump()
        if path == "/dev/tty":
            return data.decode("utf-8") + "\nUI hierchary dumped to: /dev/tty\n"
        problem = self.d.write_file(path, data)
        if problem:
            return b"", f"ERROR: could not write {path}: {problem}\n".encode(), 1
        return f"UI hierchary dumped to: {path}\n"

    # ----- files and the basics ---------------------------------------------------------------------------------------
    def cmd_cat(self, args: list[str], stdin: bytes) -> bytes | tuple[bytes, bytes, int]:
        if not args:
            return stdin
        out = bytearray()
        for path in args:
            data = stdin if path == "-" else self.d.read_file(path)
            if data is None:
                return bytes(out), f"cat: {path}: No such file or directory\n".encode(), 1
            if len(out) + len(data) > self.limits.output:
                return bytes(out), f"cat: output over the device's {self.limits.output} byte limit\n".encode(), 1
            out += data
        return bytes(out)

    def cmd_rm(self, args: list[str], stdin: bytes) -> str | tuple[bytes, bytes, int]:
        force = any(a.startswith("-") and "f" in a for a in args)
        for path in (a for a in args if not a.startswith("-")):
            if self.d.files.pop(path, None) is None and not force:
                return b"", f"rm: {path}: No such file or directory\n".encode(), 1
        return ""

    def cmd_ls(self, args: list[str], stdin: bytes) -> str:
        paths = [a for a in args if not a.startswith("-")] or ["/sdcard"]
        names = sorted(p.rsplit("/", 1)[-1] for p in self.d.files if any(p.startswith(q.rstrip("/") + "/") for q in paths))
        return "".join(n + "\n" for n in names)

    def cmd_echo(self, args: list[str], stdin: bytes) -> str:
        if args and args[0] == "-n":
            return " ".join(args[1:])
        return " ".join(args) + "\n"

    def cmd_true(self, args: list[str], stdin: bytes) -> str:
        return ""

    def cmd_false(self, args: list[str], stdin: bytes) -> tuple[bytes, bytes, int]:
        return b"", b"", 1

    def cmd_mkdir(self, args: list[str], stdin: bytes) -> str:
        return ""

    def cmd_touch(self, args: list[str], stdin: bytes) -> str | tuple[bytes, bytes, int]:
        for path in (a for a in args if not a.startswith("-")):
            if path not in self.d.files:
                problem = self.d.write_file(path, b"")
                if problem:
                    return b"", f"touch: {path}: {problem}\n".encode(), 1
        return ""

    def cmd_sleep(self, args: list[str], stdin: bytes) -> str:
        seconds = _num(args[0]) if args else 0.0
        with self.d.unlocked():
            time.sleep(min(max(seconds, 0.0), 5.0) if seconds == seconds else 0.0)
        return ""

    def cmd_id(self, args: list[str], stdin: bytes) -> str:
        return "uid=2000(shell) gid=2000(shell) groups=2000(shell) context=u:r:shell:s0\n"

    def cmd_whoami(self, args: list[str], stdin: bytes) -> str:
        return "shell\n"

    def cmd_sh(self, args: list[str], stdin: bytes) -> tuple[bytes, bytes, int]:
        if len(args) >= 2 and args[0] == "-c":
            output, status = self.d.shell().run_line(args[1])
            return output, b"", status
        return b"", b"sh: only 'sh -c COMMAND' is supported here\n", 1

    # ----- system services ---------------------------------------------------------------------------------------------
    def cmd_wm(self, args: list[str], stdin: bytes) -> str | tuple[bytes, bytes, int]:
        phone = self.d.phone
        if args[:1] == ["size"]:
            return f"Physical size: {phone.width}x{phone.height}\n"
        if args[:1] == ["density"]:
            return "Physical density: 440\n"
        return b"", b"usage: wm size | wm density\n", 1

    def cmd_getprop(self, args: list[str], stdin: bytes) -> str:
        if args:
            return self.d.props.get(args[0], args[1] if len(args) > 1 else "") + "\n"
        return "".join(f"[{k}]: [{v}]\n" for k, v in sorted(self.d.props.items()))

    def cmd_settings(self, args: list[str], stdin: bytes) -> str | tuple[bytes, bytes, int]:
        d = self.d
        if len(args) >= 3 and args[0] == "get" and args[1] == "secure":
            if args[2] == "default_input_method":
                return d.ime_current + "\n"
            if args[2] == "enabled_input_methods":
                return ":".join(d.ime_enabled) + "\n"
            return "null\n"
        if len(args) >= 3 and args[0] == "get":
            return "null\n"
        if len(args) >= 4 and args[0] == "put":
            if args[1] == "secure" and args[2] == "default_input_method":
                return self.cmd_ime(["set", args[3]], stdin)
            return ""
        return b"", b"usage: settings get|put NAMESPACE KEY [VALUE]\n", 1

    def _installed_imes(self) -> list[str]:
        return [SIM_IME] + ([ADBKEYBOARD_IME] if self.d.adbkeyboard else [])

    def cmd_ime(self, args: list[str], stdin: bytes) -> str | tuple[bytes, bytes, int]:
        d = self.d
        if args[:1] == ["list"]:
            shown = self._installed_imes() if "-a" in args else d.ime_enabled
            return "".join(i + "\n" for i in shown) if "-s" in args else "".join(f"{i}:\n  mId={i}\n" for i in shown)
        if args[:1] == ["reset"]:
            disabled = [i for i in d.ime_enabled if i != SIM_IME]
            d.ime_enabled, d.ime_current = [SIM_IME], SIM_IME
            return ("Reset current and enabled IMEs for user #0\n" + f"  Selected: {SIM_IME}\n"
                    + "".join(f"   Disabled: {i}\n" for i in disabled))
        if len(args) >= 2 and args[0] in ("enable", "disable", "set"):
            ime = args[1]
            if ime not in self._installed_imes():
                return b"", f"Unknown input method {ime} cannot be {args[0]}d\n".encode(), 1
            if args[0] == "enable":
                if ime not in d.ime_enabled:
                    d.ime_enabled.append(ime)
                return f"Input method {ime}: now enabled\n"
            if args[0] == "disable":
                if ime in d.ime_enabled and ime != SIM_IME:
                    d.ime_enabled.remove(ime)
                if d.ime_current == ime:
                    d.ime_current = SIM_IME
                return f"Input method {ime}: now disabled\n"
            if ime not in d.ime_enabled:
                d.ime_enabled.append(ime)
            d.ime_current = ime
            return f"Input method {ime} selected for user #0\n"
        return b"", b"usage: ime list [-a] [-s] | ime enable|disable|set ID | ime reset\n", 1

    def _packages(self) -> list[str]:
        d = self.d
        return sorted({app.package for app in d.phone.apps.values()} | {LAUNCHER_PKG, SYSTEM_PKG, KEYBOARD_PKG}
                      | ({ADBKEYBOARD_PACKAGE} if d.adbkeyboard else set()))

    def cmd_pm(self, args: list[str], stdin: bytes) -> str | tuple[bytes, bytes, int]:
        packages = self._packages()
        if args[:2] == ["list", "packages"]:
            rest = [a for a in args[2:] if not a.startswith("-")]
            if "-3" in args:
                packages = [p for p in packages if p not in (LAUNCHER_PKG, SYSTEM_PKG, KEYBOARD_PKG, "com.android.settings")]
            if rest:
                packages = [p for p in packages if rest[0] in p]
            if "-f" in args:
                return "".join(f"package:/data/app/{p}/base.apk={p}\n" for p in packages)
            return "".join(f"package:{p}\n" for p in packages)
        if args[:1] == ["path"] and len(args) > 1:
            return f"package:/data/app/{args[1]}/base.apk\n" if args[1] in packages else (b"", b"", 1)
        return b"", b"usage: pm list packages [-3] [-f] [FILTER] | pm path PACKAGE\n", 1

    def _launch(self, package: str) -> bool:
        d = self.d
        key = d.app_by_package(package)
        if key is None:
            return False
        d.act(Action.open(package))  # by package: two apps may share a name (Contacts, Settings)
        return True

    def cmd_monkey(self, args: list[str], stdin: bytes) -> str | tuple[bytes, bytes, int]:
        if "-p" not in args or args.index("-p") + 1 >= len(args):
            return b"", b"usage: monkey -p PACKAGE [-c CATEGORY] COUNT\n", 1
        package = args[args.index("-p") + 1]
        self.d._count_input()
        echoed = "".join(f"  bash arg: {a}\n" for a in args)
        if not self._launch(package):
            return echoed, "** No activities found to run, monkey aborted.\n", MONKEY_ABORTED
        return echoed + "Events injected: 1\n## Network stats: elapsed time=12ms (0ms mobile, 0ms wifi, 12ms not connected)\n"

    def cmd_am(self, args: list[str], stdin: bytes) -> str | tuple[bytes, bytes, int]:
        d = self.d
        if not args:
            return b"", b"usage: am start|force-stop|broadcast ...\n", 1
        sub = args[0]
        if sub != "broadcast":
            d.flush_type()
        options = _intent_options(args[1:])
        if sub in ("start", "start-activity"):
            component = options.get("-n")
            d._count_input()
            if component:
                package = component.split("/", 1)[0]
                if not self._launch(package):
                    return (f"Starting: Intent {{ cmp={component} }}\n", f"Error type 3\nError: Activity class "
                            f"{{{component}}} does not exist.\n", 1)
                return f"Starting: Intent {{ cmp={component} }}\n"
            if "android.intent.category.HOME" in options.get("-c", ""):
                d.act(Action.system_button("Home"))
                return "Starting: Intent { act=android.intent.action.MAIN cat=[android.intent.category.HOME] }\n"
            if options.get("-d"):
                return self._view(options.get("-a") or VIEW, options["-d"])
            if options.get("-p"):
                intent = f"Intent {{ act={options.get('-a') or 'android.intent.action.MAIN'} pkg={options['-p']} }}"
                if self._launch(options["-p"]):
                    return f"Starting: {intent}\n"
                return f"Starting: {intent}\n", f"Error: Activity not started, unable to resolve {intent}\n", 1
            return b"", b"Error: am start needs -n PACKAGE/ACTIVITY, -d URL or -c android.intent.category.HOME\n", 1
        if sub == "force-stop":
            return ""
        if sub == "broadcast":
            return self._broadcast(options)
        return b"", f"am: unknown command '{sub}'\n".encode(), 1

    def _view(self, action: str, url: str) -> str | tuple[str, str, int]:
        d = self.d
        intent = f"Intent {{ act={action} dat={url} }}"
        key = d.view_handler(url) if action == VIEW else None
        if key is None:
            return (f"Starting: {intent}\n", f"Error: Activity not started, unable to resolve Intent {{ act={action} "
                    f"dat={url} flg=0x10000000 }}\n", 1)
        d.act(Action.open(d.phone.apps[key].package))
        return f"Starting: {intent}\n"

    def _broadcast(self, options: dict[str, str]) -> str:
        d = self.d
        action = options.get("-a", "")
        head = f"Broadcasting: Intent {{ act={action} flg=0x400000 (has extras) }}\n"
        if action not in KEYBOARD_ACTIONS or d.ime_current != ADBKEYBOARD_IME:
            d.flush_type()
            return head + "Broadcast completed: result=0\n"
        d._count_input()
        if action in ("ADB_INPUT_TEXT", "ADB_INPUT_B64", "ADB_INPUT_CHARS"):
            text: str | None = options.get("msg")
            if action == "ADB_INPUT_B64":
                try:  # Android's decoder skips whitespace and refuses other stray characters (nothing is typed)
                    text = base64.b64decode("".join((text or "").split()), validate=True).decode("utf-8", "replace")
                except (binascii.Error, ValueError):
                    text = None
            elif action == "ADB_INPUT_CHARS":
                try:
                    text = "".join(chr(int(c)) for c in options.get("chars", "").split(",") if c.strip())
                except (ValueError, OverflowError):
                    text = None
            if text:
                d.type_text(text)
            if action == "ADB_INPUT_TEXT" and options.get("mcode"):
                self._meta_keys(options["mcode"])
        elif action in ("IME_META_KEYS", "ADB_INPUT_MCODE"):
            self._meta_keys(options.get("mcode", ""))
        elif action == "ADB_INPUT_CODE":
            code = options.get("code", "")
            if code.lstrip("-").isdigit() and int(code) != -1:
                self._key(code)
        elif action == "ADB_CLEAR_TEXT":
            d.clear_field()
        else:  # ADB_EDITOR_CODE and the ADB_ACTION_* shortcuts: the field's editor action (search, go, send, done)
            self._key("66")
        return head + "Broadcast completed: result=-1\n"

    def _meta_keys(self, mcode: str) -> None:
        """ADBKeyBoard's meta keys: pairs META,KEYCODE (META may be A+B); Ctrl+A selects the field's text, other
        keys are pressed as they are."""
        parts = [p.strip() for p in mcode.split(",")]
        for meta_text, code_text in zip(parts[0::2], parts[1::2]):
            try:
                meta = 0
                for m in meta_text.replace("^", "").split("+"):
                    meta |= int(m)
                code = int(code_text)
            except ValueError:
                continue
            if meta & META_CTRL and code == KEYCODE_A:
                self.d.flush_type()
                self.d.selected_all = True
            else:
                self._key(str(code))

    def cmd_dumpsys(self, args: list[str], stdin: bytes) -> str:
        package, activity = self.d.focus()
        what = args[0] if args else ""
        if what in ("window", ""):
            return (f"WINDOW MANAGER WINDOWS (dumpsys window windows)\n  mCurrentFocus=Window{{1f2e3d4 u0 "
                    f"{package}/{activity}}}\n  mFocusedApp=ActivityRecord{{5a6b7c8 u0 {package}/{activity} t12}}\n")
        if what == "display":
            phone = self.d.phone
            return (f"DISPLAY MANAGER (dumpsys display)\n  DisplayDeviceInfo{{\"Built-in Screen\": uniqueId=\"local:0\", "
                    f"{phone.width} x {phone.height}, modeId 1, density 440, rotation 0, orientation=0}}\n")
        if what == "activity" and args[1:2] == ["top"]:
            return (f"TASK 10{self.d.pid_of(package) % 1000:03d}:{package} id=12 userId=0\n"
                    f"  ACTIVITY {package}/{activity} 5a6b7c8 pid={self.d.pid_of(package)}\n")
        if what == "activity":
            return (f"ACTIVITY MANAGER ACTIVITIES (dumpsys activity activities)\n  mResumedActivity: ActivityRecord"
                    f"{{5a6b7c8 u0 {package}/{activity} t12}}\n")
        if what == "package" and len(args) > 1:
            return self._package_dump(args[1])
        return ""

    def _package_dump(self, package: str) -> str:
        if package not in self._packages():
            return f"Unable to find package: {package}\n"
        uid = 10000 + self.d.pid_of(package) % 10000
        return (f"Packages:\n  Package [{package}] ({self.d.pid_of(package):x}):\n    userId={uid}\n"
                f"    pkg=Package{{{self.d.pid_of(package):x} {package}}}\n    versionCode=1 minSdk=24 targetSdk=34\n"
                "    versionName=1.0\n    pkgFlags=[ HAS_CODE ALLOW_CLEAR_USER_DATA ]\n"
                "    firstInstallTime=2024-01-01 00:00:00\n    lastUpdateTime=2024-01-01 00:00:00\n")

    # ----- the side channel ----------------------------------------------------------------------------------------------
    def cmd_simctl(self, args: list[str], stdin: bytes) -> str | tuple[bytes, bytes, int]:
        d = self.d
        if not args:
            return b"", b"usage: simctl ping|apps|start|act|last|judge|state|reset|fault\n", 1
        sub, rest = args[0], args[1:]
        try:
            if sub == "ping":
                return f"simctl {SIMCTL_VERSION}\n"
            if sub == "apps":
                apps = [{"label": a.name, "package": a.package, "aliases": list(a.aliases)} for a in d.phone.apps.values()]
                return json.dumps(apps) + "\n"
            if sub == "start":
                return self._start(rest)
            if sub == "act":
                if not rest:
                    raise DataError("simctl act needs an action as JSON")
                action = Action.from_json(rest[0])
                d._count_input()
                return json.dumps(d.act(action)) + "\n"
            if sub == "last":
                return json.dumps(d.last_info) + "\n"
            if sub == "judge":
                if d.episode is None:
                    raise DataError("no episode to judge: simctl start one first")
                judgement = d.episode.judge()
                return json.dumps({"verdict": judgement.verdict.to_dict(), **judgement.details()}) + "\n"
            if sub == "state":
                phone = d.phone
                return json.dumps({"episode": d.episode.episode.id if d.episode else None,
                                   "steps": d.episode.steps if d.episode else None, "activity": phone.activity(),
                                   "state_key": phone.state_key(), "effects": [e.to_dict() for e in phone.state.effects],
                                   "ime": d.ime_current, "commands": d.commands_run, "inputs": d.inputs}) + "\n"
            if sub == "reset":
                d.episode = None
                d.plain.reset(seed=int(rest[0]) if rest else None)
                d.pending_type, d.last_info = None, {}
                return "ok\n"
            if sub == "fault":
                return self._fault(rest)
        except MobileR1Error as exc:
            return b"", f"simctl {sub}: {exc}\n".encode(), 1
        except (ValueError, TypeError) as exc:
            return b"", f"simctl {sub}: {exc}\n".encode(), 1
        return b"", f"simctl: unknown command '{sub}'\n".encode(), 1

    def _start(self, rest: list[str]) -> str:
        d = self.d
        if not rest:
            raise DataError("simctl start needs an episode (base64 of an EpisodeRef's JSON)")
        try:
            data = json.loads(base64.b64decode(rest[0], validate=True).decode("utf-8"))
        except (binascii.Error, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise DataError(f"not base64 of an episode's JSON ({exc})") from None
        ref = EpisodeRef.from_dict(data)
        env = d.backend.open(ref, max_steps=1_000_000)
        env.reset()
        d.episode, d.pending_type, d.last_info = env, None, {}
        d._count_start()
        return json.dumps({"episode": ref.id, "instruction": env.task.instruction}) + "\n"

    def _fault(self, rest: list[str]) -> str:
        d = self.d
        if not rest:
            raise DataError(f"simctl fault needs a kind: {', '.join(FAULTS)} or clear")
        kind = rest[0]
        if kind == "clear":
            d.faults.clear()
            d.gone_until = None
            return "ok\n"
        if kind not in FAULTS:
            raise DataError(f"unknown fault {kind!r}; faults: {', '.join(FAULTS)}, clear")
        after, starts = 0, 0
        numbers = []
        i = 1
        while i < len(rest):
            if rest[i] == "--after-inputs" and i + 1 < len(rest):
                after = int(rest[i + 1])
                i += 2
            elif rest[i] == "--after-starts" and i + 1 < len(rest):
                starts = int(rest[i + 1])
                i += 2
            else:
                numbers.append(float(rest[i]))
                i += 1
        count = numbers[0] if numbers else (0.0 if kind == "gone" else 1.0)
        d.faults.append(Fault(kind, count, starts, after))
        return "ok\n"


def _intent_options(args: list[str]) -> dict[str, str]:
    """`am` options: -a ACTION, -n COMPONENT, -c CATEGORY, --es/--ei/--ez KEY VALUE (extras by their key)."""
    out: dict[str, str] = {}
    i = 0
    while i < len(args):
        a = args[i]
        if a in ("--es", "--ei", "--ez", "--el", "--ef", "--eu", "--esa", "--eia", "--ela", "--efa") and i + 2 < len(args):
            out[args[i + 1]] = args[i + 2]
            i += 3
        elif a.startswith("-") and i + 1 < len(args) and a not in ("-W", "-S", "--user"):
            out[a] = (out[a] + "," if a in out else "") + args[i + 1]
            i += 2
        elif a == "--user":
            i += 2
        else:  # a positional intent: a component PACKAGE/CLASS or a URI
            if "/" in a and "://" not in a and ":" not in a.split("/", 1)[0]:
                out.setdefault("-n", a)
            elif ":" in a:
                out.setdefault("-d", a)
            i += 1
    return out


def _bytes(value: str | bytes) -> bytes:
    return value.encode() if isinstance(value, str) else value


__all__ = ["SimDevice", "SIMCTL_VERSION", "ADBKEYBOARD_IME", "ADBKEYBOARD_PACKAGE", "DUMP_PATH", "LONG_PRESS_MS",
           "DEFAULT_LONG_PRESS_MS", "FAULTS", "FILE_LIMIT", "FILES_QUOTA", "MAX_FILES"]
