"""A task episode on the simulated phone: (spec, split, template, seed), its parameters drawn from the seeded phone."""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass, field
from typing import Any

from mobile_r1.core.errors import ConfigError
from mobile_r1.env.sim.state import resolve, set_path
from mobile_r1.env.sim.user import SimulatedUser
from mobile_r1.sim.apps import Ctx, load_all, resolve as resolve_app
from mobile_r1.sim.driver import SimEnv
from mobile_r1.sim.system import Phone
from mobile_r1.tasks.numerals import numeral_value
from mobile_r1.tasks.released import line_record, match_lines, read_lines
from mobile_r1.tasks.spec import CLASSIC_PHONE, Inquiry, TaskSpec, fill
from mobile_r1.tasks.suites import plan_split


def draw_params(spec: TaskSpec, phone: Phone, seed: int, locale: str = "en", given: dict[str, Any] | None = None,
                lookups: bool = True) -> dict[str, Any]:
    """The spec's parameters for this seed, drawn in order from the phone's fresh state (deterministic). `given`
    values (read off a released task line) replace the drawn ones; with `lookups=False` the state lookups are left
    for `lookup_params` (after the set-up has made what they look up)."""
    rng = random.Random(f"{seed}:{spec.id}:params")
    params: dict[str, Any] = {}
    given = given or {}
    for name, p in spec.params.items():
        if p.pick is not None:
            pool = resolve(phone, fill(p.pick, params))
            pool = [v for v in (pool[0] if len(pool) == 1 and isinstance(pool[0], list) else pool)]
            if not pool:
                raise ConfigError(f"{spec.source or spec.id}: params.{name}: {p.pick!r} gives nothing to pick from")
            params[name] = rng.choice(pool)
        elif p.choice is not None:
            choices = p.choice_zh if locale == "zh" and p.choice_zh else p.choice
            params[name] = fill(rng.choice(choices), params)
        elif p.lookup is not None:
            if lookups:
                found = resolve(phone, fill(p.lookup, params))
                if not found:
                    raise ConfigError(f"{spec.source or spec.id}: params.{name}: {fill(p.lookup, params)!r} finds nothing")
                params[name] = found[0]
            continue
        elif p.number is not None:
            params[name] = rng.randint(*p.number)
        elif p.numeral is not None:
            params[name] = numeral_value(fill(p.numeral, params))
        else:
            params[name] = fill(p.value, params)
        if name in given:
            params[name] = given[name]
    for name, value in given.items():
        params.setdefault(name, value)
    return params


def lookup_params(spec: TaskSpec, phone: Phone, params: dict[str, Any]) -> None:
    """Fill the spec's `lookup` parameters from the phone as it is now (after the set-up)."""
    for name, p in spec.params.items():
        if p.lookup is not None and name not in params:
            found = resolve(phone, fill(p.lookup, params))
            if not found:
                raise ConfigError(f"{spec.source or spec.id}: params.{name}: {fill(p.lookup, params)!r} finds nothing")
            params[name] = found[0]


def phone_apps(spec: TaskSpec) -> tuple[str, ...]:
    """The apps on an episode's phone: the spec's list, the classic twelve, or (`inquirebench`) every registered app
    but the classic twelve (by registry key, as system apps share the classic apps' names: `android_settings`)."""
    if spec.phone == "inquirebench":
        classic = {resolve_app(name) for name in CLASSIC_PHONE}
        return tuple(sorted(key for key in load_all() if key not in classic))
    return spec.phone_apps


def with_login(spec: TaskSpec) -> TaskSpec:
    """The spec with a login question first: the user logs `spec.login` in when asked (an episode that starts logged
    out)."""
    key = resolve_app(spec.login or "")
    if key is None:
        raise ConfigError(f"{spec.source or spec.id}: login: no app called {spec.login!r}")
    login = Inquiry(reply="login", app=spec.login, screen=f"{key}/login")
    return spec.model_copy(update={"inquiries": [login, *spec.inquiries]})


@dataclass
class TaskEpisode:
    """One episode of a task family. Pass it to `SimEnv.reset(task=...)`; it draws its parameters and patches state.

    `params` and `instruction` are filled when the episode is made (`make_episode`, `released_episode`) and again,
    identically, by `setup` from the phone it is given. An episode of a released task line (`line`) keeps the line's
    words and the values read off it (`given`); `need_login` starts it with the spec's `login` app logged out (its
    `spec` then asks for the login first).
    """

    spec: TaskSpec
    split: str
    template: int
    seed: int
    params: dict[str, Any] = field(default_factory=dict)
    instruction: str = ""
    locale: str = "en"
    given: dict[str, Any] = field(default_factory=dict)
    line: dict[str, Any] | None = None
    need_login: bool = False
    start_activity: str = "launcher"  # the screen the episode starts on (set by `setup`)

    @property
    def id(self) -> str:
        if self.line is not None:
            return str(self.line["id"])
        suffix = "" if self.locale == "en" else f"/{self.locale}"
        return f"{self.spec.id}/{self.split}{self.template}/s{self.seed}{suffix}"

    @property
    def template_text(self) -> str:
        phrasings = self.spec.templates_for(self.locale)
        items = phrasings.train if self.split == "train" else phrasings.test
        return items[self.template % len(items)]

    @property
    def intent(self) -> str:
        """What the user means (a vague wish's clarification): the released line's `intension`, the spec's intent
        filled in, or the instruction itself."""
        if self.line is not None:
            return str(self.line.get("intension") or self.instruction)
        intents = self.spec.intents_for(self.locale)
        if intents:
            return str(fill(intents[self.template % len(intents)], self.params))
        return self.instruction

    @property
    def staged(self) -> bool:
        """Whether the set-up makes what the task names (set-up hooks, values from a line, a login to undo): then the
        lookups come after the patches."""
        return self.line is not None or self.need_login or any(p.setup for p in self.spec.setup)

    def setup(self, phone: Phone, rng: random.Random | None = None) -> None:
        """Draw the parameters from the fresh phone, apply the spec's state patches, open the start app."""
        self.params = draw_params(self.spec, phone, self.seed, self.locale, self.given, lookups=not self.staged)
        for patch in self.spec.setup:
            if patch.setup is not None:
                run_setup(phone, patch.app or "", patch.setup, fill(patch.with_, self.params))
                continue
            value = fill(patch.value, self.params)
            if patch.set is not None:
                set_path(phone, fill(patch.set, self.params), value)
            else:
                set_path(phone, fill(patch.append, self.params), value, append=True)  # type: ignore[arg-type]
        if self.need_login:
            phone.app_state(self.spec.login or "")["logged_in"] = False
        if self.staged:
            lookup_params(self.spec, phone, self.params)
        self.instruction = str(self.line["instruction"]) if self.line is not None else fill(self.template_text, self.params)
        if self.spec.start_app:
            error = phone.open(self.spec.start_app)
            if error:
                raise ConfigError(f"{self.spec.source}: start_app: {error}")
        phone.touch()
        self.start_activity = phone.activity()

    def make_env(self, **kwargs: Any) -> SimEnv:
        """A SimEnv reset to this episode, with this episode's simulated user answering `call_user` (keyword
        arguments go to `SimEnv`: render, scale, xml, ...)."""
        kwargs.setdefault("apps", phone_apps(self.spec))
        env = SimEnv(seed=self.seed, locale=self.locale, **kwargs)
        env.reset(task=self, seed=self.seed)
        env.user = SimulatedUser(self, env.phone)
        return env


def run_setup(phone: Phone, app: str, name: str, values: dict[str, Any]) -> None:
    """Call app `app`'s set-up hook `setup_<name>(ctx, **values)`."""
    key = resolve_app(app, list(phone.apps))
    if key is None:
        raise ConfigError(f"set-up {name!r}: app {app!r} is not on this phone")
    hook = getattr(phone.apps[key], f"setup_{name}", None)
    if hook is None:
        raise ConfigError(f"set-up {name!r}: {phone.apps[key].name} has no hook setup_{name}")
    hook(Ctx(phone, key), **values)


def make_episode(spec: TaskSpec, split: str, template: int, seed: int, locale: str = "en") -> TaskEpisode:
    """An episode with its parameters and instruction filled in (from a phone holding just the spec's apps)."""
    if split not in ("train", "test"):
        raise ConfigError(f"split must be train or test, got {split!r}")
    need_login = spec.login is not None and random.Random(f"{seed}:{spec.id}:login").random() < spec.login_rate
    ep = TaskEpisode(with_login(spec) if need_login else spec, split, template, seed, locale=locale,
                     need_login=need_login)
    _fill(ep)
    return ep


def released_episode(spec: TaskSpec, line: dict[str, Any], template: int, values: dict[str, Any]) -> TaskEpisode:
    """The episode of a released task line (`tasks.released.line_record`) played by `spec`'s test phrasing
    `template`, with the values read off the line. Its seed comes from the line's id, so it is the same every run."""
    language = "zh" if str(line.get("language", "en")).lower().startswith("zh") else "en"
    need_login = bool(line.get("need_login")) and spec.login is not None
    seed = int.from_bytes(hashlib.blake2b(str(line["id"]).encode(), digest_size=4).digest(), "big")
    ep = TaskEpisode(with_login(spec) if need_login else spec, "test", template, seed, locale=language,
                     given=dict(values), line=dict(line), need_login=need_login)
    _fill(ep)
    return ep


def _fill(ep: TaskEpisode) -> None:
    """Fill the episode's parameters and instruction on a phone of its own (as `setup` will on the real one)."""
    # The spec's own apps are enough to draw from (app states are seeded per app), except on a named phone, where a
    # name may also be a classic app's (`Settings`): there the phone's own apps.
    few = not ep.staged and ep.spec.phone != "inquirebench"
    phone = Phone(apps=ep.spec.apps if few else phone_apps(ep.spec), seed=ep.seed, locale=ep.locale)
    if ep.staged:
        ep.setup(phone)
    else:
        ep.params = draw_params(ep.spec, phone, ep.seed, ep.locale)
        ep.instruction = fill(ep.template_text, ep.params)


def build_split(name: str, split: str = "test", seed: int = 0, size: int | None = None,
                specs: list[TaskSpec] | None = None) -> list[TaskEpisode]:
    """The episodes of one suite split (`mobile_r1.tasks.suites.plan_split`), their parameters drawn."""
    return [released_episode(item.spec, item.line, item.template, item.values or {}) if item.line is not None
            else make_episode(item.spec, item.template_split, item.template, item.seed, item.language)
            for item in plan_split(name, split, seed, size, specs)]


def file_episodes(path: str, specs: list[TaskSpec]) -> list[TaskEpisode]:
    """The episodes of a released task file (InquireBench's `tasks_*.jsonl`, or lines phrased as it phrases them): each
    line played by the template it matches; a ConfigError names every line none plays, before anything runs."""
    lines = read_lines(path)
    return [released_episode(m.spec, line_record(m.line), m.template, m.values) for m in match_lines(lines, specs)]


def family_episodes(specs: list[TaskSpec], split: str, count: int, seed: int) -> list[TaskEpisode]:
    """`count` episodes outside any suite: the task families take turns, with templates and seeds varied."""
    n = len(specs)
    base = (0 if split == "train" else 10**7) + 1000 * seed
    templates = "train" if split == "train" else "test"
    return [make_episode(specs[i % n], templates, i // n, base + i) for i in range(count)]
