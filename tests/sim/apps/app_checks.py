"""Checks every app test makes, written once: a phone set up as a task would set it up, an app opened every way a user
or a client opens it, every screen visited without changing the state, and every label of a Chinese screen
translated (data such as brand names aside)."""

from __future__ import annotations

import re
from typing import Any, Callable, Iterable

from mobile_r1.core import Action
from mobile_r1.env.sim import SimEnv
from mobile_r1.sim import testing as T
from mobile_r1.sim.apps import Ctx, load_all
from mobile_r1.sim.system import Phone
from mobile_r1.sim.ui.render import missing_glyphs

LATIN = re.compile(r"[A-Za-z]{2,}")
STATUS_WORDS = frozenset({"WiFi", "WLAN"})  # the status bar's labels, Latin in every language


class Setup:
    """A task-like set-up: calls the app's set-up hooks on the fresh phone, as task templates do."""

    def __init__(self, key: str, *calls: tuple[str, dict[str, Any]]) -> None:
        self.key, self.calls = key, calls

    def setup(self, phone: Phone, rng: Any) -> None:
        app = phone.apps[self.key]
        for name, values in self.calls:
            getattr(app, f"setup_{name}")(Ctx(phone, self.key), **values)


def start(key: str, locale: str, *calls: tuple[str, dict[str, Any]], seed: int = 0, randomize: bool = False) -> SimEnv:
    """The app `key` just started on a phone in `locale` (canonical unless `randomize`), after the set-up hooks
    `calls`."""
    env = SimEnv(apps=[key], seed=seed, randomize=randomize, render=False, locale=locale)
    env.reset(task=Setup(key, *calls) if calls else None, app=key)
    return env


def assert_opens_everywhere(key: str, locale: str, archetype: str, home: bool = True, also: Iterable[str] = ()) -> None:
    """The app opens from its launcher icon and by its name, label, package, first alias and the names `also` (a cold
    start each time); `home`: on its home screen (else only in front: an app that asks for something on its first
    start)."""
    cls = load_all()[key]
    env = SimEnv(apps=[key], randomize=False, render=False, locale=locale)
    env.reset()
    T.tap(env, text=cls.label(locale))
    assert env.phone.activity() == f"{key}/home" if home else env.phone.state.foreground == key
    for name in (cls.label(locale), cls.name, cls.package, *cls.aliases[:1], *also):
        env.step(Action.system_button("Home"))
        env.phone.state.stacks[key] = []
        assert env.phone.open(name) is None and env.phone.state.foreground == key, name
        assert not home or env.phone.activity() == f"{key}/home"
    assert cls.archetype == archetype


def untranslated(phone: Phone, data_words: Iterable[str] = ()) -> list[str]:
    """The labels on screen with an English word (two Latin letters or more, not in `data_words`) or a glyph the
    font cannot draw."""
    allowed = STATUS_WORDS | set(data_words)
    return [label for e in phone.elements() for label in (e.text, e.content_desc)
            if label and (missing_glyphs(label) or any(w not in allowed for w in LATIN.findall(label)))]


Params = dict[str, dict[str, Any] | list[dict[str, Any]]]  # a screen's push params: one set, or several to draw it with


def visit_every_screen(key: str, locale: str, check: Callable[[str, Phone], None], must_see: set[str],
                       params: Params | None = None,
                       prepare: Callable[[Phone], Params | None] | None = None) -> Phone:
    """Show every screen of the app (with no params, then with each of `params[screen]`; the app's `gallery_setup`
    fills the phone first, then `prepare`, which may return more params), run `check` on each, and assert drawing
    changed no state and `must_see` were seen. Returns the phone, for checks of menus and dialogs after."""
    phone = Phone(apps=[key], seed=1, randomize=False, ad_rate=0.0, locale=locale)
    given: Params = {**phone.apps[key].gallery_setup(Ctx(phone, key)), **(params or {})}
    if prepare is not None:
        given.update(prepare(phone) or {})
    phone.touch()
    seen = []
    for screen in phone.apps[key].screens():
        more = given.get(screen, [])
        for p in [{}, *([more] if isinstance(more, dict) else more)]:
            before = phone.state_dict()["apps"][key]
            phone.goto(key, screen, **p)
            check(screen, phone)
            assert phone.state_dict()["apps"][key] == before, f"{key}/{screen} changed the state while drawing"
        seen.append(screen)
    assert must_see <= set(seen)
    return phone


def assert_chinese_everywhere(key: str, must_see: set[str], data_words: Iterable[str] = (),
                              params: Params | None = None,
                              prepare: Callable[[Phone], Params | None] | None = None) -> None:
    """Every screen of the app on a Chinese phone is fully translated (`visit_every_screen`)."""
    def check(screen: str, phone: Phone) -> None:
        assert untranslated(phone, data_words) == [], f"{key}/{screen}"
        assert phone.activity() == f"{key}/{screen}"

    visit_every_screen(key, "zh", check, must_see, params, prepare)


def assert_draws_in_both_languages(key: str, must_see: set[str], params: Params | None = None,
                                   prepare: Callable[[Phone], Params | None] | None = None) -> None:
    """Every screen of the app draws a screenshot in English and in Chinese."""
    def check(screen: str, phone: Phone) -> None:
        assert phone.screenshot(0.2).size == (216, 480)

    for locale in ("en", "zh"):
        visit_every_screen(key, locale, check, must_see, params, prepare)
