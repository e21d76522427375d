"""The `adb` backend: a real Android phone or emulator (or the simulated phone served by `mobile-r1 sim adbd`) behind
the environment protocol, as a `Backend` (`AdbBackend`) and the `TaskEnv` it opens (`AdbTaskEnv`).

    backend = make_backend("adb:emulator-5554", render=True, scale=0.3)     # the safety gate is on (confirm=risky)
    refs = backend.episodes("tasks.txt")            # a task file (InquireBench's, or one instruction per line)
    refs = backend.episodes("nav-sim", "test", 10)  # a simulator suite, on the simulated device only
    env = backend.open(refs[0]); observation, _ = env.reset(); env.step(Action.click(540, 1200)); env.judge()

Observation: the screenshot (`screencap -p`, scaled by `scale`; a black or empty capture is a secure screen: it is
reported in `StepInfo.extra["screen"]` and replaced by a notice image, never shown as the screen), the UI elements
from `uiautomator dump` (`core.formats.uixml`), the foreground app and activity (`dumpsys window`), the screen
size from `wm size`. Actions: click / long press / swipe through `input`; `type` through `input text` for ASCII,
through ADBKeyBoard's base64 broadcast for any other text (switching to that input method while it types, back at
`close`); keys and system buttons through `input keyevent`; `open` by label (`apps.resolve_app`) through `monkey`;
`wait` sleeps; `call_user` is answered by the responder (`user`: the person at the terminal, or an OpenAI-compatible
simulated user given the task's intent); `terminate` and `answer` end or record. Every device command is recorded
in `StepInfo.extra["device"]` (and the reset's in the first step's `extra["reset"]`).

On the simulated device (its `simctl` side channel answers) the simulator's suites play as they do on the simulator:
`simctl start` sets the episode up, the actions that are not gestures (call_user, answer, wait, terminate) go
through `simctl act` so the simulated phone's clock, user and log see them, the step's error and effects come back
with each gesture (`; simctl last`), `judge` is the rule judge's verdict (`simctl judge`), and the EXPERT
capability is served by the simulator's task source for the same episode (deterministic per seed), so the oracle
agents play over adb. The suites and the expert come through `env.task_source` (the source `OUR_PHONE`): this module
never imports the simulator. Task-file episodes are judged by `judge` ("person", "model", "model+person"; see
`env.judges`). A device plays one episode at a time (`max_in_play = 1`).

Device failures (gone, not answering after one reconnect, a truncated PNG, an empty UI dump) raise `InfraError`:
the evaluation records that episode apart and goes on.
"""

from __future__ import annotations

import base64
import io
import json
import time
from pathlib import Path
from typing import Any, Sequence

from mobile_r1.core.actions import Action, ActionType
from mobile_r1.core.errors import ConfigError, DataError, EnvError, InfraError, MobileR1Error
from mobile_r1.core.formats.uixml import parse_ui_xml
from mobile_r1.core.reading import Where, loads
from mobile_r1.core.records import Observation, Step
from mobile_r1.core.verdict import EpisodeVerdict, Judgement
from mobile_r1.env.adb.apps import app_label, normalize, resolve_app
from mobile_r1.env.adb.device import (ADBKEYBOARD_HELP, ADBKEYBOARD_IME, MAX_SCREEN_PIXELS, MAX_SCREEN_SIDE, Device,
                                      adbkeyboard_broadcast, quote_text)
from mobile_r1.env.adb.tasks import is_task_file, load_task_file
from mobile_r1.env.adb.users import NoResponder, OpenAIUser, PersonResponder, Responder
from mobile_r1.env.judges import Trajectory, TrajectoryJudge, make_judge
from mobile_r1.env.person import Person, make_person
from mobile_r1.env.protocol import JSON, Backend, Capability, Demonstration, EpisodeRef, StepInfo, TaskEnv
from mobile_r1.env.safety import Gate
from mobile_r1.env.task_source import OUR_PHONE, TaskSource, task_source

NAME = "adb"
KEYS = {"back": 4, "home": 3, "menu": 187, "enter": 66}
LONG_PRESS_MS = 1000  # a long press without a time
SWIPE_MS = 300
WAIT_SECONDS = 2.0
SECURE_NOTICE = "secure screen: the phone returned a {what} capture (the app blocks screenshots); the UI elements are still listed"


def _num(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def _ascii_typable(text: str) -> bool:
    return text.isascii() and all(c.isprintable() for c in text)


def _simctl_json(text: str, what: str, serial: str) -> Any:
    """The JSON value the simulated device's side channel answered (its output's last line), read under the
    project's reading rules (depth, numbers); anything else is an InfraError naming the command."""
    lines = text.strip().splitlines()
    line = lines[-1] if lines else ""
    try:
        return loads(line, Where(Path(f"device {serial}: `simctl {what}`"), None, InfraError))
    except MobileR1Error as exc:
        raise InfraError(f"{exc} (the simulated device's side channel answered {line[:80]!r})") from None


def _sim_apps(text: str, serial: str) -> list[tuple[str, str, list[str]]]:
    """(package, label, aliases) of each app `simctl apps` lists; an answer of another shape is an EnvError."""
    apps = _simctl_json(text, "apps", serial)
    out = []
    for app in apps if isinstance(apps, list) else [None]:
        aliases = app.get("aliases", []) if isinstance(app, dict) else None
        if not (isinstance(app, dict) and isinstance(app.get("package"), str) and isinstance(app.get("label"), str)
                and isinstance(aliases, list) and all(isinstance(a, str) for a in aliases)):
            raise EnvError(f"device {serial}: `simctl apps` is not a list of {{package, label, aliases}} objects "
                           f"({text.strip()[:80]!r}); is this `mobile-r1 sim adbd`?")
        out.append((app["package"], app["label"], aliases))
    return out


class AdbBackend(Backend):
    """Phones through the adb server (see the module docstring).

    serial        the device (None: the only one attached; `HOST:PORT` is connected first)
    render, scale observations carry the screenshot, scaled (0.3: 1080x2400 -> 324x720)
    xml           keep the UI dump's XML in observations
    timeout       seconds a device command may take
    settle        seconds to wait after an action before observing (None: 1.0 on a phone, 0 on the simulated device)
    person        "auto" (the terminal, when there is one), "tty", "none", or a Person
    user          who answers call_user on task-file episodes: "auto" (the person at the terminal, else the simulated
                  user when `user_model` is given, else the fixed no-person reply), "person", "openai", "none"
    user_model, user_base_url, user_api_key_env   the OpenAI-compatible simulated user
    judge         who judges task-file episodes: "auto" (the person at the terminal, else the model judge when
                  `judge_model` is given), "person", "model", "model+person"
    judge_model, judge_base_url, judge_api_key_env, judge_language   the model judge (`eval.judge.ModelJudge`)
    adb_host, adb_port   the adb server
    """

    name = NAME
    max_in_play = 1  # a device plays one episode at a time

    def __init__(self, serial: str | None = None, *, render: bool = True, scale: float = 0.3, xml: bool = False,
                 timeout: float = 20.0, settle: float | None = None, person: Person | str = "auto", user: str = "auto",
                 user_model: str | None = None, user_base_url: str | None = None, user_api_key_env: str = "OPENAI_API_KEY",
                 judge: str = "auto", judge_model: str | None = None, judge_base_url: str | None = None,
                 judge_api_key_env: str = "OPENAI_API_KEY", judge_language: str | None = None,
                 adb_host: str | None = None, adb_port: int | None = None, specs: str | None = None) -> None:
        if not scale > 0:
            raise ConfigError(f"scale must be > 0, got {scale}")
        self.render, self.scale, self.xml = render, scale, xml
        self.person = make_person(person) if isinstance(person, str) else person
        self.user_spec, self.user_model, self.user_base_url, self.user_api_key_env = user, user_model, user_base_url, user_api_key_env
        self.judge_spec, self.judge_model, self.judge_base_url = judge, judge_model, judge_base_url
        self.judge_api_key_env, self.judge_language = judge_api_key_env, judge_language
        self.specs = specs
        self.device = Device(serial, timeout=timeout, host=adb_host, port=adb_port)
        self.device.screen_size()  # a device that names no usable screen is refused before anything is written
        self.sim = self.device.has_simctl()
        self.settle = settle if settle is not None else (0.0 if self.sim else 1.0)
        self.labels: dict[str, str] = {}  # normalized label or alias -> package (the device's own launcher labels)
        self.names: dict[str, str] = {}  # package -> label
        if self.sim:
            for package, label, aliases in _sim_apps(self.device.simctl("apps"), self.device.serial):
                self.names[package] = label
                for name in [label, *aliases]:
                    self.labels.setdefault(normalize(name), package)
        self.device.take_log()
        self._responder: Responder | None = None
        self._judges: dict[str, TrajectoryJudge] = {}
        self._open: AdbTaskEnv | None = None
        self._tasks: TaskSource | None = None

    @property
    def serial(self) -> str:
        return self.device.serial

    def suites(self) -> list[str]:
        return self.task_source().suites() if self.sim else []

    def asks_person(self) -> bool:
        return self.person.present  # the owner answers call_user and judges task-file episodes

    # ----- episodes ----------------------------------------------------------------------------------------------
    def episodes(self, suite: str | None, split: str = "test", n: int | None = None, seed: int = 0,
                 tasks: Sequence[str] = ()) -> list[EpisodeRef]:
        """A task file's tasks (`suite` is its path), or on the simulated device a simulator suite's episodes."""
        if suite is not None and is_task_file(suite):
            refs = load_task_file(suite)
            if tasks:
                refs = [r for r in refs if r.task in set(tasks)]
            self._check_judge()
            return refs[:n] if n is not None else refs
        ours = self.task_source().suites()
        if suite is not None and suite not in ours:
            raise ConfigError(f"unknown suite {suite!r} for a device: pass --tasks FILE (InquireBench's tasks_*.jsonl, "
                              "or one instruction per line in a .txt), or a simulator suite on the simulated device")
        if not self.sim:
            raise ConfigError(f"device {self.serial} is a real phone: simulator suites ({', '.join(ours)}) play "
                              "only on the simulated device (`mobile-r1 sim adbd`); pass --tasks FILE")
        return [sim_ref_on_adb(r) for r in self.task_source().episodes(suite, split, n, seed, tasks)]

    def task_source(self) -> TaskSource:
        """The simulator's suites and expert, for the simulated device (`env.task_source`)."""
        if self._tasks is None:
            self._tasks = task_source(OUR_PHONE, specs=self.specs)
        return self._tasks

    def open(self, episode: EpisodeRef, max_steps: int | None = None) -> AdbTaskEnv:
        self._check_ref(episode)
        if self._open is not None and not self._open.closed:
            raise ConfigError(f"device {self.serial} already has episode {self._open.episode.id} on it: a device plays "
                              "one episode at a time (use --workers 1)")
        if episode.meta.get("sim") is not None and not self.sim:
            raise ConfigError(f"episode {episode.id} is a simulator episode; it plays only on the simulated device")
        env = AdbTaskEnv(self, episode, max_steps)
        self._open = env
        return env

    # ----- who answers, who judges ----------------------------------------------------------------------------------
    def responder(self) -> Responder:
        if self._responder is None:
            spec = self.user_spec
            if spec == "auto":
                spec = "person" if self.person.present else ("openai" if self.user_model else "none")
            if spec == "person":
                self._responder = PersonResponder(self.person)
            elif spec == "openai":
                self._responder = OpenAIUser(self.user_model or "", self.user_base_url, self.user_api_key_env)
            elif spec == "none":
                self._responder = NoResponder()
            else:
                raise ConfigError(f"user must be auto, person, openai or none; got {self.user_spec!r}")
        return self._responder

    def _check_judge(self) -> None:
        spec = self.judge_spec
        if spec == "auto" and not self.person.present and not self.judge_model:
            raise ConfigError("episodes from a task file need a judge: run in a terminal (you judge each episode), or "
                              "use the model judge: --env-option judge=model --env-option judge_model=gpt-4o "
                              "[--env-option judge_base_url=URL]")
        if "model" in spec and not self.judge_model:
            raise ConfigError("the model judge needs a model: --env-option judge_model=NAME")

    def trajectory_judge(self, language: str) -> TrajectoryJudge:
        """The judge of task-file episodes (the model judge reads the episode's language unless `judge_language`)."""
        key = self.judge_language or language
        if key not in self._judges:
            spec = self.judge_spec
            if spec == "auto":
                spec = "person" if self.person.present else "model"
            options: dict[str, Any] = {}
            if "model" in spec:
                self._check_judge()
                options = {"model": self.judge_model, "base_url": self.judge_base_url,
                           "api_key_env": self.judge_api_key_env, "language": key}
            self._judges[key] = make_judge(spec, person=self.person, **options)
        return self._judges[key]

    def do(self, action: Action, gate: Gate | None = None) -> tuple[StepInfo, Observation]:
        """One action on the device as it is, outside any episode (`mobile-r1 device do`), behind `gate` when given:
        the step's info and the screen after it."""
        ref = EpisodeRef(id="device-do", instruction="(one action by hand)", task="device-do", backend=NAME)
        env = AdbTaskEnv(self, ref)
        before, _ = env._observe()
        info = StepInfo(step=1)
        if gate is not None:
            decision = gate.decide(ref, 1, before, action)
            info.extra["gate"] = decision.to_dict()
            if not decision.approved:
                info.error, info.user_reply = "the safety gate stopped this action", decision.reply
                info.extra["device"] = self.device.take_log()  # type: ignore[assignment]
                return info, before
        if action.type is ActionType.CALL_USER:
            info.user_reply = self.responder().answer(action.content or "", ref)
        elif action.type is not ActionType.TERMINATE:
            env._act(action, info)
            env._settle()
        after, note = env._observe()
        env.close()
        if note:
            info.extra["screen"] = note
        info.extra["device"] = self.device.take_log()  # type: ignore[assignment]
        return info, after

    def close(self) -> None:
        if self._open is not None:
            self._open.close()


def sim_ref_on_adb(ref: EpisodeRef) -> EpisodeRef:
    """A simulator episode as an episode of the adb backend (the simulator's ref kept in `meta["sim"]`)."""
    data = ref.to_dict()
    data["backend"] = NAME
    data["meta"] = {"sim": ref.to_dict()}
    return EpisodeRef.from_dict(data)


class AdbTaskEnv(TaskEnv):
    """One episode on a device (see the module docstring)."""

    capabilities = frozenset()

    def __init__(self, backend: AdbBackend, episode: EpisodeRef, max_steps: int | None = None) -> None:
        super().__init__(episode, max_steps)
        self.backend = backend
        self.device = backend.device
        sim = episode.meta.get("sim")
        self.sim_ref = EpisodeRef.from_dict(sim) if isinstance(sim, dict) else None
        if self.sim_ref is not None:
            self.capabilities = frozenset({Capability.EXPERT})  # type: ignore[misc]
        self.history: list[Step] = []
        self.closed = False
        self._ime_before: str | None = None
        self._reset_log: list[dict[str, JSON]] = []

    # ----- the protocol -----------------------------------------------------------------------------------------------
    def _reset(self) -> Observation:
        try:
            return self._start()
        except InfraError:
            self.close()  # the episode never started: the device is free for the next one
            raise

    def _start(self) -> Observation:
        self.closed = False
        self.device.take_log()
        if self.sim_ref is not None:
            payload = base64.b64encode(json.dumps(self.sim_ref.to_dict()).encode("utf-8")).decode("ascii")
            out = self.device.simctl("start", payload, action=True)
            if not out.lstrip().startswith("{"):
                raise InfraError(f"the simulated device could not start episode {self.sim_ref.id}: {out.strip()[:200]}")
        else:
            self.device.run("input keyevent KEYCODE_HOME", action=True)
            self._settle()
        self.history = []
        observation, notes = self._observe()
        self._reset_log = self.device.take_log()
        if notes:
            self._reset_log.append({"screen": notes})
        return observation

    def _step(self, action: Action) -> tuple[Observation, bool, StepInfo]:
        before = self.observation
        info = StepInfo()
        if self._reset_log:
            info.extra["reset"] = self._reset_log  # type: ignore[assignment]
            self._reset_log = []
        terminated = self._act(action, info)
        if not terminated and action.type not in (ActionType.CALL_USER, ActionType.ANSWER):
            self._settle()
        observation, notes = self._observe()
        if notes:
            info.extra["screen"] = notes
        info.extra["device"] = self.device.take_log()  # type: ignore[assignment]
        self.history.append(Step(action=action, observation=before, user_reply=info.user_reply))
        return observation, terminated, info

    def judge(self) -> Judgement:
        if self.sim_ref is not None:
            data = _simctl_json(self.device.simctl("judge"), "judge", self.device.serial)
            if not isinstance(data, dict) or not isinstance(data.get("verdict"), dict):
                raise InfraError(f"device {self.device.serial}: `simctl judge` gave no verdict ({str(data)[:80]!r})")
            try:
                verdict = EpisodeVerdict.from_dict(data["verdict"])
            except (DataError, KeyError, TypeError, ValueError) as exc:
                raise InfraError(f"device {self.device.serial}: `simctl judge` gave an unusable verdict ({exc})") from None
            verdict.steps = self.steps
            verdict.episode_id = self.episode.id
            return Judgement(verdict, judge="rule", asked_steps=list(data.get("asked_steps") or []),
                             inquiries=list(data.get("inquiries") or []), progress=data.get("progress"),
                             invalid_actions=int(data.get("invalid_actions") or 0))
        judge = self.backend.trajectory_judge(self.episode.language)
        judgement = judge.judge(Trajectory(self.episode, list(self.history), self.observation))
        judgement.verdict.steps = self.steps
        return judgement

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        if self._ime_before:
            try:
                self.device.run(f"ime set {self._ime_before}", action=True)
            except InfraError:
                pass
            self._ime_before = None

    def expert_demo(self, *, ask: bool = True, self_correct: float = 0.0, seed: int = 0,
                    render: bool = False, search_first: bool = False) -> Demonstration:
        """(EXPERT, simulator episodes) The expert's demonstration on a local simulator for the same episode."""
        self.require(Capability.EXPERT, "expert_demo()")
        assert self.sim_ref is not None
        return self.backend.task_source().expert_demo(self.sim_ref, via="adb", ask=ask, self_correct=self_correct,
                                                      seed=seed, render=render, scale=self.backend.scale,
                                                      search_first=search_first)

    # ----- observing -----------------------------------------------------------------------------------------------------
    def _settle(self) -> None:
        if self.backend.settle > 0:
            time.sleep(self.backend.settle)

    def _observe(self) -> tuple[Observation, str | None]:
        """The screen now, and a note when it is a secure screen."""
        device = self.device
        width, height = device.screen_size()
        note = None
        screenshot = None
        if self.backend.render:
            screenshot, note = self._screenshot(width, height)
        elements = None
        for attempt in (1, 2):
            xml, package, activity = device.dump()
            try:
                elements = parse_ui_xml(xml)
                break
            except DataError as exc:
                if attempt == 2:
                    raise InfraError(f"device {device.serial}: the UI dump is unusable twice in a row ({exc})") from None
        assert elements is not None
        return Observation(
            screen_size=(width, height), elements=elements, screenshot=screenshot,
            xml=xml if self.backend.xml else None,
            app=app_label(package, self.backend.names) if package else None,
            activity=f"{package}/{activity}" if package and activity else None), note

    def _screenshot(self, width: int, height: int) -> tuple[Any, str | None]:
        from PIL import Image

        size = (max(1, int(width * self.backend.scale)), max(1, int(height * self.backend.scale)))
        for attempt in (1, 2):
            data = self.device.screencap()
            if not data:
                return _notice(size, "empty"), SECURE_NOTICE.format(what="empty")
            image, problem = _decode_capture(data)
            if image is not None:
                break
            if attempt == 2:
                raise InfraError(f"device {self.device.serial}: the screenshot is {problem} twice in a row")
        assert image is not None
        image = image.convert("RGB")
        if image.size != size:
            image = image.resize(size, Image.Resampling.BILINEAR)
        if image.convert("L").getextrema()[1] == 0:
            return _notice(size, "black"), SECURE_NOTICE.format(what="black")
        return image, None

    # ----- acting ------------------------------------------------------------------------------------------------------------
    def _gesture(self, cmd: str, info: StepInfo) -> str:
        """Run a command with an effect; on the simulated device its step info comes back in the same round trip."""
        if self.sim_ref is None:
            return self.device.text(cmd, action=True)
        out = self.device.text(cmd + "; simctl last", action=True)
        lines = out.strip().splitlines()
        if lines and lines[-1].startswith("{"):
            self._merge(_simctl_json(lines[-1], "last", self.device.serial), info)
            return "\n".join(lines[:-1])
        return out

    def _simctl_act(self, action: Action, info: StepInfo) -> None:
        out = self.device.simctl("act", action.to_json(), action=True)
        lines = out.strip().splitlines()
        if not lines or not lines[-1].startswith("{"):
            raise InfraError(f"the simulated device did not take {action.type.value}: {out.strip()[:200]}")
        self._merge(_simctl_json(lines[-1], "act", self.device.serial), info)

    @staticmethod
    def _merge(data: Any, info: StepInfo) -> None:
        if not isinstance(data, dict):
            raise InfraError(f"the simulated device's step report is not a JSON object: {str(data)[:80]!r}")
        info.error = data.get("error") or None
        info.effects = list(data.get("effects") or [])
        if data.get("user_reply") is not None:
            info.user_reply = data["user_reply"]
        if data.get("toast"):
            info.extra["toast"] = data["toast"]

    def _act(self, action: Action, info: StepInfo) -> bool:
        """Apply `action`; True when it ended the episode."""
        kind = action.type
        sim = self.sim_ref is not None
        if kind is ActionType.CLICK:
            x, y = action.coordinate  # type: ignore[misc]
            self._gesture(f"input tap {_num(x)} {_num(y)}", info)
        elif kind is ActionType.LONG_PRESS:
            x, y = action.coordinate  # type: ignore[misc]
            ms = LONG_PRESS_MS if action.time is None else max(1, int(round(action.time * 1000)))
            self._gesture(f"input swipe {_num(x)} {_num(y)} {_num(x)} {_num(y)} {ms}", info)
        elif kind is ActionType.SWIPE:
            (x1, y1), (x2, y2) = action.coordinate, action.coordinate2  # type: ignore[misc]
            self._gesture(f"input swipe {_num(x1)} {_num(y1)} {_num(x2)} {_num(y2)} {SWIPE_MS}", info)
        elif kind is ActionType.TYPE:
            self._type(action.text or "", info)
        elif kind is ActionType.KEY:
            name = (action.text or "").strip()
            code = name if name.isdigit() else "KEYCODE_" + name.upper().removeprefix("KEYCODE_").replace(" ", "_")
            self._gesture(f"input keyevent {code}", info)
        elif kind is ActionType.SYSTEM_BUTTON:
            self._gesture(f"input keyevent {KEYS[(action.button or '').lower()]}", info)
        elif kind is ActionType.OPEN:
            self._open_app(action, info)
        elif kind in (ActionType.WAIT, ActionType.TERMINATE, ActionType.ANSWER) and sim:
            self._simctl_act(action, info)
        elif kind is ActionType.CALL_USER:
            if sim:
                self._simctl_act(action, info)
            else:
                info.user_reply = self.backend.responder().answer(action.content or "", self.episode)
        elif kind is ActionType.WAIT:
            time.sleep(min(action.time if action.time is not None else WAIT_SECONDS, 60.0))
        elif kind is ActionType.ANSWER:
            info.extra["answer"] = action.text or ""
        return kind is ActionType.TERMINATE

    def _type(self, text: str, info: StepInfo) -> None:
        enter = text.endswith("\n")
        body = text.rstrip("\n")
        if not body and not enter:
            if self.sim_ref is not None:
                self._simctl_act(Action.type_text(text), info)
            return
        parts = []
        if body:
            if _ascii_typable(body):
                parts.append(f"input text {quote_text(body)}")
            else:
                problem = self._adbkeyboard()
                if problem:
                    info.error = problem
                    return
                parts.append(adbkeyboard_broadcast(body))
        if enter:
            parts.append("input keyevent 66")
        self._gesture(" && ".join(parts), info)

    def _adbkeyboard(self) -> str | None:
        """Make ADBKeyBoard the input method (remembering the one before); the error text when it is not installed."""
        current, installed = self.device.input_methods()
        if current == ADBKEYBOARD_IME:
            return None
        if ADBKEYBOARD_IME not in installed:
            return (f"typing non-ASCII text needs the ADBKeyBoard input method, which is not on device "
                    f"{self.device.serial}: {ADBKEYBOARD_HELP}")
        self.device.run(f"ime enable {ADBKEYBOARD_IME} >/dev/null; ime set {ADBKEYBOARD_IME}", action=True)
        if self._ime_before is None and current:
            self._ime_before = current
        return None

    def _open_app(self, action: Action, info: StepInfo) -> None:
        label = action.text or ""
        package = resolve_app(label, self.device.packages(), self.backend.labels)
        if package is None:
            package = resolve_app(label, self.device.packages(refresh=True), self.backend.labels)
        if package is None:
            if self.sim_ref is not None:  # the simulated phone refuses it itself, as the simulator does
                self._simctl_act(action, info)
            else:
                info.error = (f"no app called {label!r} on device {self.device.serial} (name it by its label, e.g. "
                              "WeChat or 微信, or by its package)")
            return
        out = self._gesture(f"monkey -p {package} -c android.intent.category.LAUNCHER 1", info)
        if "No activities found" in out or "monkey aborted" in out:
            info.error = info.error or f"{package} has no launcher activity to open"


def _decode_capture(data: bytes) -> tuple[Any, str]:
    """(the decoded image, "") of a `screencap -p` answer, or (None, what is wrong with it); the size in the PNG's
    header is checked before a pixel is decoded."""
    from PIL import Image

    try:
        image = Image.open(io.BytesIO(data))
        width, height = image.size
    except Image.DecompressionBombError as exc:  # PIL's own limit, far above a screen's
        return None, f"larger than a screen ({exc}), so it was not decoded"
    except (OSError, SyntaxError, ValueError) as exc:
        return None, f"not a whole PNG ({len(data)} bytes, {exc}); the capture was cut short"
    if width * height > MAX_SCREEN_PIXELS or max(width, height) > MAX_SCREEN_SIDE:
        return None, (f"larger than a screen ({width:,}x{height:,} pixels; at most {MAX_SCREEN_SIDE:,} a side and "
                      f"{MAX_SCREEN_PIXELS:,} in all), so it was not decoded")
    try:
        image.load()
    except (OSError, SyntaxError, ValueError) as exc:
        return None, f"not a whole PNG ({len(data)} bytes, {exc}); the capture was cut short"
    return image, ""


def _notice(size: tuple[int, int], what: str) -> Any:
    """The image an agent gets instead of a blocked capture: a grey card that says so."""
    from PIL import Image, ImageDraw

    image = Image.new("RGB", size, (96, 96, 96))
    draw = ImageDraw.Draw(image)
    words = SECURE_NOTICE.format(what=what).split()
    lines, line = [], ""
    for word in words:
        if len(line) + len(word) > 28:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}".strip()
    lines.append(line)
    for i, text in enumerate(lines):
        draw.text((10, 10 + 14 * i), text, fill=(255, 255, 255))
    return image


__all__ = ["AdbBackend", "AdbTaskEnv", "sim_ref_on_adb", "NAME"]
