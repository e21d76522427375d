"""The simulated phone: status bar, launcher, recents, per-app back stacks, keyboard, overlays, clock and effects.

`Phone.act(action)` applies one `Action` (coordinates in screen pixels) and returns an info dict whose
"error" says why nothing happened, if nothing did. Everything that matters lives in `Phone.state`, plain
data that `snapshot()` / `restore()` copy.
"""

from __future__ import annotations

import copy
import hashlib
import json
import marshal
import random
from functools import lru_cache
from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from mobile_r1.core.actions import Action, ActionType
from mobile_r1.core.errors import ConfigError
from mobile_r1.sim.apps import App, Ctx, Effect, load_all, resolve
from mobile_r1.sim.locale import Catalog, app_catalog, check_locale, system_catalog, tr, using
from mobile_r1.sim.media import MEDIA_KEY, initial_media
from mobile_r1.sim.ui import art
from mobile_r1.sim.ui.render import Canvas, text_width
from mobile_r1.sim.ui.theme import Color, Theme, hex_color
from mobile_r1.sim.ui.tree import Node, flatten, hit, to_xml
from mobile_r1.sim.ui.widgets import (AppBar, Button, Column, Grid, Icon, Layout, Row, Scroll, Spacer, Spinner, Text,
                                      Widget, spacing)

WIDTH, HEIGHT = 1080, 2400
STATUS_H, NAV_H, KEYBOARD_H = 90, 130, 760
STEP_SECONDS = 0.5  # simulated time every action takes
WAIT_SECONDS = 2.0  # a `wait` without a time
TOAST_SECONDS = 3.0
FIRST_PAGE, PAGE_SIZE = 8, 20  # launcher icons on page 0 (under the clock) and on later pages
SYSTEM_PKG, LAUNCHER_PKG, KEYBOARD_PKG = "com.android.systemui", "com.sim.launcher", "com.sim.inputmethod"
PERMISSION_PKG = "com.android.permissioncontroller"
KEY_ROWS = ("qwertyuiop", "asdfghjkl", "zxcvbnm")
SYSTEM_DEFAULTS: dict[str, Any] = {"wifi": True, "bluetooth": False, "dark_mode": False}


@dataclass(slots=True)
class Overlay:
    """A modal layer over the screen: an app dialog, a context menu, the permission dialog, or an ad."""

    kind: str  # "dialog" | "menu" | "permission" | "ad"
    title: str
    text: str
    buttons: list[tuple[str, Callable[[Ctx], None] | None]]
    app: str | None

    def signature(self) -> list[Any]:
        return [self.kind, self.title, self.text, [b[0] for b in self.buttons], self.app]


@dataclass(slots=True)
class PhoneState:
    """Everything that makes the phone what it is at one moment (copied by snapshots)."""

    seed: int = 0
    clock: float = 0.0
    start_minutes: int = 9 * 60 + 41
    step: int = 0
    mode: str = "home"  # "home" | "app" | "recents"
    foreground: str | None = None  # app key while mode == "app"
    launcher_page: int = 0
    launcher_order: list[str] = field(default_factory=list)
    stacks: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    apps: dict[str, dict[str, Any]] = field(default_factory=dict)
    permissions: dict[str, dict[str, bool]] = field(default_factory=dict)
    effects: list[Effect] = field(default_factory=list)
    overlay: Overlay | None = None
    toast: tuple[str, float] | None = None
    recents: list[str] = field(default_factory=list)
    log: list[dict[str, Any]] = field(default_factory=list)
    answers: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)  # apps uninstalled during the episode
    rng: random.Random = field(default_factory=random.Random)


class Phone:
    """An Android-like phone running simulated apps. Coordinates are logical screen pixels (1080x2400)."""

    def __init__(self, apps: Sequence[str] | None = None, seed: int = 0, randomize: bool = True,
                 ad_rate: float = 0.12, locale: str = "en") -> None:
        registry = load_all()
        keys = list(registry) if apps is None else []
        for name in apps or ():
            key = resolve(name)
            if key is None:
                raise ConfigError(f"unknown app '{name}'; installed apps are: {', '.join(sorted(registry))}")
            keys.append(key)
        if not keys:
            raise ConfigError("a phone needs at least one app")
        self.apps: dict[str, App] = {k: registry[k]() for k in sorted(set(keys))}
        self._hints = {app.package: app.archetype or key for key, app in self.apps.items()}  # what pictures show
        for app in self.apps.values():
            art.remember(art.AppMark(app.name, app.package, app.archetype, hex_color(app.color), app.icon or app.name))
        self.width, self.height = WIDTH, HEIGHT
        self.randomize = randomize
        self.ad_rate = ad_rate if randomize else 0.0
        self.locale = check_locale(locale)
        self.state = PhoneState()
        self._version = 0
        self._view: _View | None = None
        self._view_sig: tuple[Any, ...] | None = None
        self._key_cache: tuple[tuple[Any, ...], str] | None = None  # (signature, state key), as the view is cached
        self._image_cache: dict[float, tuple[tuple[Any, ...], Any]] = {}
        self._themes: dict[tuple[str | None, bool], Theme] = {}
        self._blobs: dict[str, bytes] = {}  # app key -> its serialised state, valid while the app is not dirty
        self._dirty: set[str] = set()
        self._parsed: dict[str, tuple[bytes, dict[str, Any]]] = {}
        self._digests: dict[str, tuple[bytes, bytes]] = {}
        self._status: tuple[tuple[Any, ...], Widget] | None = None
        self._nav: Widget | None = None
        self._home: tuple[tuple[Any, ...], Widget, Layout] | None = None  # the laid-out launcher, reused
        self.reset(seed)

    # ----- lifecycle -------------------------------------------------------------------------------------
    def reset(self, seed: int = 0, locale: str | None = None) -> None:
        """Back to a fresh phone for `seed` (in `locale`, default: the phone's): new app states, home screen, empty
        logs. Each app draws its starting state in the phone's language."""
        if locale is not None and locale != self.locale:
            self.locale = check_locale(locale)
            self._status, self._nav, self._home = None, None, None
        rand = self.randomize
        st = PhoneState(seed=seed, rng=random.Random(f"{seed}:phone"))
        layout_rng = random.Random(f"{seed}:launcher")
        st.start_minutes = layout_rng.randint(7 * 60, 21 * 60) if rand else 9 * 60 + 41
        order = sorted(self.apps)
        if rand:
            layout_rng.shuffle(order)
        st.launcher_order = order
        for key, app in self.apps.items():
            app_rng = random.Random(f"{seed}:{key}" if rand else f"canonical:{key}")
            app.locale = self.locale
            data = app.initial_state(app_rng)
            data.setdefault("logged_in", not app.login_required)
            st.apps[key] = data
            st.stacks[key] = []
            st.permissions[key] = {}
        if any(app.uses_media for app in self.apps.values()):
            st.apps[MEDIA_KEY] = initial_media(random.Random(f"{seed}:media" if rand else "canonical:media"), self.locale)
        self.state = st
        self._themes = {}
        self.touch()

    def snapshot(self) -> PhoneState:
        """A deep copy of the whole state; `restore` it to start again from exactly here."""
        return copy.deepcopy(self.state)

    def restore(self, snap: PhoneState) -> None:
        self.state = copy.deepcopy(snap)
        self.touch()

    def _changed(self) -> None:
        self._version += 1

    def touch(self) -> None:
        """Tell the phone its state was changed from outside (a task patching app state): rebuild everything."""
        self._blobs.clear()
        self._changed()

    def mark(self, key: str | None) -> None:
        """Note that app `key`'s state may have changed (Ctx and `app_state` do this for you)."""
        if key is not None:
            self._dirty.add(key)

    # ----- system state helpers ------------------------------------------------------------------------
    @property
    def system(self) -> dict[str, Any]:
        """System-wide settings; the Settings app's state when installed, else defaults."""
        data = self.state.apps.get("settings")
        if data is None:
            data = self.state.apps.setdefault("_system", dict(SYSTEM_DEFAULTS))
        return data

    def theme_for(self, key: str | None) -> Theme:
        dark = bool(self.system.get("dark_mode", False))
        cached = self._themes.get((key, dark))
        if cached is None:
            color = self.apps[key].color if key in self.apps else "#1a73e8"
            rng = random.Random(f"{self.state.seed}:theme:{key}") if self.randomize else None
            cached = Theme.make(color, rng, dark)
            self._themes[(key, dark)] = cached
        return cached

    def catalog(self, key: str | None) -> Catalog | None:
        """The strings app `key`'s screens show in the phone's language (None: the system's); None in English."""
        if key is None or key not in self.apps:
            return system_catalog(self.locale)
        return app_catalog(self.locale, key, type(self.apps[key]).strings)

    def t(self, text: str, key: str | None = None, **values: object) -> str:
        """`text` in the phone's language, from app `key`'s table (or the system's), with `values` filled in."""
        catalog = self.catalog(key)
        if catalog is None:
            return text.format(**values) if values else text
        return catalog.format(text, **values)

    def label(self, key: str) -> str:
        """App `key`'s name as its launcher shows it in the phone's language."""
        return self.apps[key].label(self.locale)

    def clock_text(self) -> str:
        minutes = (self.state.start_minutes + int(self.state.clock // 60)) % (24 * 60)
        return f"{minutes // 60:02d}:{minutes % 60:02d}"

    def app_state(self, name: str) -> dict[str, Any]:
        """The live state dict of app `name` (name or alias); use this to read or change another app's state."""
        key = resolve(name, list(self.apps))
        if key is None:
            raise ConfigError(f"app '{name}' is not installed on this phone")
        self.mark(key)
        self._changed()
        return self.state.apps[key]

    @property
    def media(self) -> dict[str, Any]:
        """The phone's shared photos, videos, audio and files (`mobile_r1.sim.media`), for apps that keep media."""
        store = self.state.apps.get(MEDIA_KEY)
        if store is None:
            raise ConfigError("no app on this phone keeps photos or files (an app with `uses_media` must be installed)")
        self.mark(MEDIA_KEY)
        self._changed()
        return store

    def installed(self) -> list[str]:
        """The keys of the apps installed now (those uninstalled during the episode left out), sorted."""
        return [k for k in sorted(self.apps) if k not in self.state.removed]

    def remove_app(self, key: str) -> None:
        """Uninstall app `key`: it leaves the launcher, the recents and the foreground (the caller records the
        effect)."""
        st = self.state
        if key not in self.apps or key in st.removed:
            raise ConfigError(f"app {key!r} is not installed")
        st.removed.append(key)
        st.launcher_order = [k for k in st.launcher_order if k != key]
        if key in st.recents:
            st.recents.remove(key)
        st.stacks[key] = []
        if st.foreground == key:
            st.mode, st.foreground = "home", None
        self._changed()

    @property
    def foreground(self) -> str | None:
        return self.state.foreground if self.state.mode == "app" else None

    def top_frame(self) -> dict[str, Any] | None:
        key = self.foreground
        if key is None or not self.state.stacks[key]:
            return None
        return self.state.stacks[key][-1]

    def activity(self) -> str:
        """'launcher', 'recents' or '<app key>/<screen>'."""
        if self.state.mode != "app":
            return "launcher" if self.state.mode == "home" else "recents"
        frame = self.top_frame()
        return f"{self.foreground}/{frame['screen'] if frame else ''}"

    # ----- operations apps use through Ctx -----------------------------------------------------------------
    def push(self, key: str, screen: str, params: dict[str, Any], loading: float = 0.0) -> None:
        frame = {"screen": screen, "params": dict(params), "fields": {}, "scroll": {}, "focus": None,
                 "ready_at": self.state.clock + loading if loading > 0 else 0.0}
        self.state.stacks[key].append(frame)
        self._changed()

    def pop(self, key: str, quiet: bool = False) -> None:
        stack = self.state.stacks[key]
        if stack:
            stack.pop()
        if not stack and not quiet and self.state.foreground == key:
            self.state.mode, self.state.foreground = "home", None
        self._changed()

    def toast(self, text: str) -> None:
        """Show `text` (already in the phone's language) at the bottom of the screen for a few seconds."""
        self.state.toast = (text, self.state.clock + TOAST_SECONDS)
        self._changed()

    def show_overlay(self, kind: str, title: str, text: str, buttons: list[tuple[str, Any]], app: str | None) -> None:
        self.state.overlay = Overlay(kind, title, text, buttons, app)
        self._changed()

    def ask_permission(self, key: str, permission: str, then: Callable[[Ctx], None],
                       otherwise: Callable[[Ctx], None] | None) -> None:
        def decide(granted: bool) -> Callable[[Ctx], None]:
            # Use the phone the handler runs on, never `self`: a restored snapshot may live in another Phone.
            def handler(ctx: Ctx) -> None:
                phone = ctx.phone
                phone.state.permissions[key][permission] = granted
                phone.record_effect("permission", key, {"permission": permission, "granted": granted})
                if granted:
                    then(Ctx(phone, key))
                elif otherwise is not None:
                    otherwise(Ctx(phone, key))
                else:
                    text = phone.t("{permission} permission denied", permission=phone.t(permission))
                    phone.toast(text[:1].upper() + text[1:])
            return handler

        title = self.t("Allow {app} to access {permission}?", app=self.label(key), permission=self.t(permission))
        self.show_overlay("permission", title, "", [("Don't allow", decide(False)), ("Allow", decide(True))], key)

    def record_effect(self, kind: str, app: str, detail: dict[str, Any]) -> Effect:
        effect = Effect(kind, app, copy.deepcopy(detail), self.state.step, self.state.clock)
        self.state.effects.append(effect)
        self._changed()
        return effect

    # ----- app switching --------------------------------------------------------------------------------
    def open(self, name: str) -> str | None:
        """Bring app `name` (name or alias, any case) to the front; returns an error text or None."""
        key = resolve(name, self.installed())
        if key is None:
            return f"no app called '{name}' on this phone; installed: {', '.join(self.label(k) for k in self.installed())}"
        self._launch(key)
        return None

    def _launch(self, key: str) -> None:
        st = self.state
        st.mode, st.foreground, st.overlay = "app", key, None
        if key in st.recents:
            st.recents.remove(key)
        st.recents.insert(0, key)
        if not st.stacks[key]:
            app = self.apps[key]
            ctx = Ctx(self, key)
            if app.login_required and not st.apps[key].get("logged_in"):
                self.push(key, "login", {})
            else:
                self.push(key, app.home, {})
                app.on_start(ctx)
            if st.overlay is None and self.ad_rate and st.rng.random() < self.ad_rate:
                self._show_ad(key)
        self._changed()

    def _show_ad(self, key: str) -> None:
        offers = ("50% off everything today!", "You won a free coupon!", "Upgrade to Premium now",
                  "Flash sale ends in 10 minutes", "Claim your welcome gift")
        self.show_overlay("ad", "Special offer", self.state.rng.choice(offers), [("View", None), ("Close", None)], key)

    def goto(self, name: str, screen: str | None = None, **params: Any) -> None:
        """Show `screen` of app `name` directly (above its home screen), without ads or start hooks."""
        key = resolve(name, list(self.apps))
        if key is None:
            raise ConfigError(f"app '{name}' is not installed; installed: {', '.join(sorted(self.apps))}")
        app = self.apps[key]
        screen = screen or app.home
        if screen not in app.screens():
            raise ConfigError(f"{app.name} has no screen '{screen}'; its screens are: {', '.join(app.screens())}")
        st = self.state
        st.mode, st.foreground, st.overlay = "app", key, None
        st.stacks[key] = []
        if key not in st.recents:
            st.recents.insert(0, key)
        if screen != app.home:
            self.push(key, app.home, {})
        self.push(key, screen, params)

    def go_home(self) -> None:
        self.state.mode, self.state.foreground, self.state.overlay = "home", None, None
        self._changed()

    def back(self) -> str | None:
        """The Back button: close an overlay, else hide the keyboard, else pop a screen; error text if nothing to do."""
        st = self.state
        if st.overlay is not None:
            st.overlay = None
            self._changed()
            return None
        if st.mode == "recents":
            self.go_home()
            return None
        if st.mode == "home":
            if st.launcher_page:
                st.launcher_page = 0
                self._changed()
                return None
            return "already on the home screen"
        frame = self.top_frame()
        if frame is not None and frame["focus"] is not None:
            frame["focus"] = None
            self._changed()
            return None
        key = st.foreground
        self.pop(key)  # type: ignore[arg-type]
        return None

    # ----- actions ------------------------------------------------------------------------------------------
    def act(self, action: Action) -> dict[str, Any]:
        """Apply one action (screen pixels). Returns info: 'error' (why nothing happened) and what did happen."""
        st = self.state
        st.step += 1
        self.mark(st.foreground)
        n_effects = len(st.effects)
        info: dict[str, Any] = {"error": None}
        kind = action.type
        try:
            if kind is ActionType.CLICK:
                info["error"] = self._click(*action.coordinate)  # type: ignore[misc]
            elif kind is ActionType.LONG_PRESS:
                info["error"] = self._long_press(*action.coordinate)  # type: ignore[misc]
            elif kind is ActionType.SWIPE:
                info["error"] = self._swipe(action.coordinate, action.coordinate2)  # type: ignore[arg-type]
            elif kind is ActionType.TYPE:
                info["error"] = self._type(action.text or "")
            elif kind is ActionType.KEY:
                info["error"] = self._key(action.text or "")
            elif kind is ActionType.SYSTEM_BUTTON:
                info["error"] = self._button(action.button or "")
            elif kind is ActionType.OPEN:
                info["error"] = self.open(action.text or "")
            elif kind is ActionType.WAIT:
                st.clock += (action.time if action.time is not None else WAIT_SECONDS) - STEP_SECONDS
            elif kind is ActionType.ANSWER:
                st.answers.append(action.text or "")
                info["answer"] = action.text
            elif kind is ActionType.CALL_USER:
                info["call_user"] = action.content
            elif kind is ActionType.TERMINATE:
                info["terminate"] = action.status
        finally:
            st.clock += STEP_SECONDS
            if kind is ActionType.LONG_PRESS and action.time:
                st.clock += action.time
            if st.toast is not None and st.toast[1] <= st.clock:
                st.toast = None
                self._changed()
        self.mark(st.foreground)
        info["effects"] = [e.to_dict() for e in st.effects[n_effects:]]
        if st.toast is not None:
            info["toast"] = st.toast[0]
        entry = {"step": st.step, "action": action.to_arguments(), "activity": self.activity()}
        if info["error"]:
            entry["error"] = info["error"]
        st.log.append(entry)
        return info

    def _in_screen(self, x: float, y: float) -> str | None:
        if not (0 <= x < self.width and 0 <= y < self.height):
            return f"point ({x:g}, {y:g}) is outside the {self.width}x{self.height} screen"
        return None

    def _ctx_for(self, node: Node) -> Ctx:
        return Ctx(self, getattr(node.widget, "_app", None) or self.foreground)

    def _targets(self) -> tuple[list[Node], bool]:
        """The nodes that can take touches now, and whether a modal layer restricts them."""
        view = self.view()
        if self.state.overlay is None:
            return view.nodes, False
        return [n for n in view.nodes if n.element.id >= view.overlay_start or n.package == SYSTEM_PKG], True

    def _click(self, x: float, y: float) -> str | None:
        err = self._in_screen(x, y)
        if err:
            return err
        nodes, modal = self._targets()
        node = hit(nodes, x, y, "click")
        if node is None:
            if modal and self.state.overlay is not None and self.state.overlay.kind == "menu":
                self.state.overlay = None
                self._changed()
                return None
            if modal:
                return f"a {self.state.overlay.kind} covers the screen; use its buttons or Back"  # type: ignore[union-attr]
            return f"nothing to click at ({x:g}, {y:g})"
        w = node.widget
        if not w.enabled:
            return f"'{node.element.label or w.id}' is disabled"
        if w.editable:
            frame = self.top_frame()
            if frame is not None:
                if frame["focus"] != w.id:
                    frame["focus"] = w.id
                    self._changed()
                if w.on_click is None:
                    return None
        if w.on_click is None:
            return f"'{node.element.label or w.id or node.element.class_name}' does not react to taps"
        w.on_click(self._ctx_for(node))
        self._changed()
        return None

    def _long_press(self, x: float, y: float) -> str | None:
        err = self._in_screen(x, y)
        if err:
            return err
        nodes, modal = self._targets()
        node = hit(nodes, x, y, "long_press")
        if node is None:
            return f"nothing reacts to a long press at ({x:g}, {y:g})"
        node.widget.on_long_press(self._ctx_for(node))  # type: ignore[misc]
        self._changed()
        return None

    def _swipe(self, start: tuple[float, float], end: tuple[float, float]) -> str | None:
        err = self._in_screen(*start) or self._in_screen(*end)
        if err:
            return err
        dx, dy = end[0] - start[0], end[1] - start[1]
        if max(abs(dx), abs(dy)) < 40:
            return "swipe too short (under 40 px); use click for a tap"
        if self.state.overlay is not None:
            return f"a {self.state.overlay.kind} covers the screen; close it first"
        if abs(dx) > abs(dy):
            if self.state.mode == "home":
                pages = self.launcher_pages()
                page = self.state.launcher_page + (1 if dx < 0 else -1)
                if not 0 <= page < len(pages):
                    return "no more launcher pages that way"
                self.state.launcher_page = page
                self._changed()
                return None
            return "nothing scrolls sideways here"
        view = self.view()
        node = hit(view.nodes, start[0], start[1], "scroll")
        if node is None:
            return "nothing scrollable under the swipe start"
        sid = node.widget.id or ""
        content, port = view.extent.get(sid, (0.0, 0.0))
        frame = self._scroll_owner()
        old = frame.get(sid, 0.0)
        new = min(max(0.0, old - dy), max(0.0, content - port))
        if new == old:
            return "the list is already at its " + ("end" if dy < 0 else "top")
        frame[sid] = new
        self._changed()
        return None

    def _scroll_owner(self) -> dict[str, float]:
        frame = self.top_frame()
        if frame is not None:
            return frame["scroll"]
        return self.state.apps.setdefault("_launcher_scroll", {})

    def _focused_input(self) -> tuple[dict[str, Any], Any] | None:
        frame = self.top_frame()
        if frame is None or frame["focus"] is None or self.state.overlay is not None:
            return None
        for node in self.view().nodes:
            if node.widget.editable and node.widget.id == frame["focus"] and node.package != KEYBOARD_PKG:
                return frame, node.widget
        return None

    def _type(self, text: str) -> str | None:
        found = self._focused_input()
        if found is None:
            return "no text field is focused; tap one first"
        frame, widget = found
        submit = text.endswith("\n")
        text = text.rstrip("\n")
        ctx = Ctx(self, self.foreground)
        value = frame["fields"].get(widget.id, widget.value or "") + text
        frame["fields"][widget.id] = value
        if widget.on_text is not None:
            widget.on_text(ctx, value)
        self._changed()
        if submit:
            return self._enter()
        return None

    def _enter(self) -> str | None:
        found = self._focused_input()
        if found is None:
            return "Enter: no text field is focused"
        frame, widget = found
        if widget.on_submit is None:
            frame["focus"] = None
        else:
            widget.on_submit(Ctx(self, self.foreground), frame["fields"].get(widget.id, ""))
        self._changed()
        return None

    def _delete_char(self) -> str | None:
        found = self._focused_input()
        if found is None:
            return "delete: no text field is focused"
        frame, widget = found
        value = frame["fields"].get(widget.id, "")
        if not value:
            return "the text field is already empty"
        frame["fields"][widget.id] = value[:-1]
        if widget.on_text is not None:
            widget.on_text(Ctx(self, self.foreground), value[:-1])
        self._changed()
        return None

    def _button(self, button: str) -> str | None:
        if button == "Back":
            return self.back()
        if button == "Home":
            if self.state.mode == "home" and self.state.launcher_page == 0 and self.state.overlay is None:
                return "already on the home screen"
            self.state.launcher_page = 0
            self.go_home()
            return None
        if button == "Menu":
            self.state.mode, self.state.overlay = "recents", None
            self._changed()
            return None
        return self._enter()

    def _key(self, name: str) -> str | None:
        key = name.strip().lower().removeprefix("keycode_")
        if key in ("enter", "66"):
            return self._enter()
        if key in ("back", "4"):
            return self.back()
        if key in ("home", "3"):
            return self._button("Home")
        if key in ("app_switch", "menu", "187", "82"):
            return self._button("Menu")
        if key in ("del", "backspace", "delete", "67"):
            return self._delete_char()
        return f"key '{name}' has no effect on this phone"

    def _keyboard_type(self, char: str) -> Callable[[Ctx], None]:
        def handler(ctx: Ctx) -> None:
            self._type(char)
        return handler

    # ----- the launcher and recents -------------------------------------------------------------------------
    def launcher_pages(self) -> list[list[str]]:
        order = self.state.launcher_order
        pages = [order[:FIRST_PAGE]]
        rest = order[FIRST_PAGE:]
        while rest:
            pages.append(rest[:PAGE_SIZE])
            rest = rest[PAGE_SIZE:]
        if len(pages) < 2:
            pages.append([])
        return pages

    def _app_icon(self, key: str) -> Widget:
        app = self.apps[key]
        name = app.label(self.locale)
        icon = _LauncherIcon(app.icon or app.name, desc=name, label=name, bg=app.color, round=False,
                             size=150, color=(255, 255, 255), id=f"app_{key}", label_color=(255, 255, 255),
                             on_click=lambda ctx, k=key: self._launch(k))
        return icon

    def _launcher(self, lay: Layout) -> Widget:
        page = min(self.state.launcher_page, len(self.launcher_pages()) - 1)
        apps = self.launcher_pages()[page]
        icons = [self._app_icon(k) for k in apps]
        dots = Row(*[Icon("dot", desc=self.t("Page {n}", n=i + 1), size=24, bg=(255, 255, 255) if i == page else (150, 160, 175),
                          selected=i == page) for i in range(len(self.launcher_pages()))], gap=24)
        top: list[Widget | None] = []
        if page == 0:
            top = [Spacer(80),
                   Text(self.clock_text(), size=200, color=(255, 255, 255), align="center", id="clock"),
                   Text(self.t("Day {day} \u00b7 Sunny 22\u00b0", day=1 + int(self.state.clock // 86400)), size="body",
                        color=(235, 240, 250), align="center", id="date"),
                   Spacer(120)]
        else:
            top = [Spacer(120)]
        grid = Grid(*icons, cols=4, gap=40, pad=48, id="workspace") if icons else Text(
            "No apps here", size="body", color=(235, 240, 250), align="center", pad=60)
        return _Launcher(*top, grid, Spacer(10, flex=True), Column(dots, align="center"), Spacer(40),
                         bg=self._wallpaper(), id="launcher")

    def _wallpaper(self) -> tuple[int, int, int]:
        if not self.randomize:
            return (38, 70, 120)
        return random.Random(f"{self.state.seed}:wallpaper").choice(
            [(38, 70, 120), (60, 45, 100), (30, 90, 80), (90, 50, 60), (40, 40, 48), (20, 80, 110)])

    def _recents(self, lay: Layout) -> Widget:
        cards: list[Widget] = []
        for key in self.state.recents:
            app = self.apps[key]
            name = app.label(self.locale)
            frame = self.state.stacks[key][-1] if self.state.stacks[key] else None
            cards.append(Row(
                Icon(app.icon or app.name, desc=name, bg=app.color, size=110, round=False),
                Column(Text(name, size="title", bold=True),
                       Text(frame["screen"].replace("_", " ").title() if frame else "", size="small",
                            color=lay.theme.text2), weight=1.0, gap=8),
                Icon("close", desc=self.t("Remove {app}", app=name), size=80,
                     on_click=lambda ctx, k=key: self._forget(k), id="dismiss_task"),
                pad=36, gap=32, bg="surface", radius=32, id="task", desc=name,
                on_click=lambda ctx, k=key: self._launch(k)))
        body: Widget = Scroll(*cards, id="recents_list", gap=32, pad=40) if cards else Text(
            "No recent items", size="title", align="center", pad=200, flex=True, color=lay.theme.text2)
        return Column(Text("Recent apps", size="big", bold=True, pad=40), body,
                      Row(Spacer(1, weight=1), Button("Clear all", on_click=lambda ctx: self._forget_all(),
                                                       style="secondary", id="clear_all"), Spacer(1, weight=1),
                          pad=40) if cards else None, id="recents")

    def _forget(self, key: str) -> None:
        if key in self.state.recents:
            self.state.recents.remove(key)
        self.state.stacks[key] = []
        self._changed()

    def _forget_all(self) -> None:
        for key in list(self.state.recents):
            self._forget(key)
        self.go_home()

    # ----- building the view ------------------------------------------------------------------------------------
    def _signature(self) -> tuple[Any, ...]:
        frame = self.top_frame()
        loading = bool(frame and frame["ready_at"] > self.state.clock)
        return (self._version, self.clock_text(), loading, self.state.toast)

    def view(self) -> _View:
        """The laid-out screen (cached until something changes)."""
        sig = self._signature()
        if self._view is not None and self._view_sig == sig:
            return self._view
        self._view = self._build()
        self._view_sig = sig
        return self._view

    def _build(self) -> _View:
        with using(system_catalog(self.locale)):
            return self._build_view()

    def _build_view(self) -> _View:
        """Lay out the screen: the system's parts with the system's strings, the app's with its own."""
        st = self.state
        key = self.foreground
        frame = self.top_frame()
        theme = self.theme_for(key)
        keyboard = frame is not None and frame["focus"] is not None and st.overlay is None
        content_h = self.height - STATUS_H - NAV_H - (KEYBOARD_H if keyboard else 0)
        lay = Layout(theme, frame["scroll"] if frame else st.apps.setdefault("_launcher_scroll", {}),
                     frame["fields"] if frame else {}, frame["focus"] if frame else None)
        placed = False
        if st.mode == "home":
            dark = bool(self.system.get("dark_mode"))
            sig = (st.launcher_page, tuple(st.launcher_order), self.clock_text(), dark, st.seed, self.randomize,
                   self.locale)
            if self._home is None or self._home[0] != sig:
                home_lay = Layout(_launcher_theme(dark))
                home = self._launcher(home_lay)
                home.place(0, STATUS_H, self.width, content_h, home_lay)
                self._home = (sig, home, home_lay)
            content, lay, pkg, placed = self._home[1], self._home[2], LAUNCHER_PKG, True
        elif st.mode == "recents":
            lay = Layout(self.theme_for(None))
            content, pkg = self._recents(lay), "com.sim.recents"
        else:
            app = self.apps[key]  # type: ignore[index]
            pkg = app.package
            ctx = Ctx(self, key, mark=False)  # screens only read the state
            name = app.label(self.locale)
            with using(self.catalog(key)):
                if frame is None:
                    content = Column(Text(name, size="big"))
                elif frame["ready_at"] > st.clock:
                    content = Column(AppBar(name), Spinner("Loading..."), id="loading")
                else:
                    with spacing(theme.spacing):
                        content = app.render(frame["screen"], ctx)
        if not placed:
            content.place(0, STATUS_H, self.width, content_h, lay)
        roots: list[tuple[Widget, str]] = [(content, pkg)]
        lays: dict[int, Layout] = {id(content): lay}
        sys_lay = Layout(self.theme_for(None))
        status = self._placed_status_bar(key, theme, sys_lay)
        roots.insert(0, (status, SYSTEM_PKG))
        lays[id(status)] = sys_lay
        if keyboard:
            kb = self._keyboard(theme)
            kb.place(0, self.height - NAV_H - KEYBOARD_H, self.width, KEYBOARD_H, sys_lay)
            roots.append((kb, KEYBOARD_PKG))
            lays[id(kb)] = sys_lay
        nav = self._nav
        if nav is None:
            nav = self._nav = self._nav_bar()
            nav.place(0, self.height - NAV_H, self.width, NAV_H, sys_lay)
        roots.append((nav, SYSTEM_PKG))
        lays[id(nav)] = sys_lay
        extent = dict(lay.extent)
        overlay_root = None
        if st.overlay is not None:
            with using(self.catalog(st.overlay.app)):
                overlay_root, opkg = self._overlay(st.overlay, theme)
            olay = Layout(theme)
            w = self.width - 2 * 90
            h = overlay_root.measure(w, olay)
            y = (self.height - h) / 2 if st.overlay.kind != "menu" else max(STATUS_H + 200, (self.height - h) / 2)
            overlay_root.place(90, y, w, h, olay)
            roots.append((overlay_root, opkg))
            lays[id(overlay_root)] = olay
        if st.toast is not None:
            toast = _Toast(st.toast[0], size="small", color=(255, 255, 255), bg=(50, 50, 56), pad=28, radius=40,
                         align="center", id="toast")
            tw = min(self.width - 160, (toast.natural_width(sys_lay) or 400))
            th = toast.measure(tw, sys_lay)
            toast.place((self.width - tw) / 2, self.height - NAV_H - (KEYBOARD_H if keyboard else 0) - th - 120, tw, th,
                        sys_lay)
            roots.append((toast, "android"))
            lays[id(toast)] = sys_lay
        nodes = flatten(roots, lays, (self.width, self.height))
        overlay_start = len(nodes)
        if overlay_root is not None:
            for i, n in enumerate(nodes):
                if n.widget is overlay_root:
                    overlay_start = i
                    break
        return _View(roots, lays, nodes, extent, theme, overlay_start, overlay_root is not None)

    def _placed_status_bar(self, key: str | None, theme: Theme, lay: Layout) -> Widget:
        """The status bar, laid out; reused while what it shows is the same (it never changes after layout)."""
        sig = (self.clock_text(), bool(self.system.get("wifi", True)), bool(self.system.get("bluetooth", False)),
               key is not None and not theme.dark and self.state.mode == "app", self.state.mode, theme.dark, self.locale)
        if self._status is None or self._status[0] != sig:
            bar = self._status_bar(key, theme)
            bar.place(0, 0, self.width, STATUS_H, lay)
            self._status = (sig, bar)
        return self._status[1]

    def _status_bar(self, key: str | None, theme: Theme) -> Widget:
        dark_text = key is not None and not theme.dark and self.state.mode == "app"
        color = (30, 30, 30) if dark_text or (self.state.mode == "recents" and not theme.dark) else (255, 255, 255)
        wifi = bool(self.system.get("wifi", True))
        bt = bool(self.system.get("bluetooth", False))
        return _StatusBar(Text(self.clock_text(), size=36, color=color, bold=True, id="clock"), Spacer(1, weight=1),
                          _StatusIcon("bluetooth", "BT" if bt else "", color, desc="Bluetooth on" if bt else ""),
                          _StatusIcon("wifi", "WiFi" if wifi else "", color,
                                      desc="Wifi signal full" if wifi else "No wifi"),
                          _StatusIcon("battery", "87%", color, desc="Battery 87 percent"),
                          pad=18, gap=24, id="status_bar")

    def _nav_bar(self) -> Widget:
        color = (90, 90, 96)
        row = Row(Icon("back", desc="Back", size=90, color=color, on_click=lambda ctx: self.back(), id="back",
                       weight=1.0),
                  Icon("home_circle", desc="Home", size=90, color=color, on_click=lambda ctx: self._button("Home"),
                       id="home", weight=1.0),
                  Icon("recents", desc="Overview", size=90, color=color, on_click=lambda ctx: self._button("Menu"),
                       id="recent_apps", weight=1.0),
                  pad=20, gap=0, bg=(248, 248, 250), id="navigation_bar")
        return row

    def _keyboard(self, theme: Theme) -> Widget:
        rows: list[Widget] = []
        for letters in KEY_ROWS:
            keys = [_Key(ch, on_click=self._keyboard_type(ch), id=f"key_{ch}") for ch in letters]
            rows.append(Row(*keys, gap=12, pad=0))
        rows.append(Row(_Key("\u232b", desc="Delete", on_click=lambda ctx: self._delete_char(), id="key_delete",
                             weight=1.5),
                        _Key("space", desc="Space", on_click=self._keyboard_type(" "), id="key_space", weight=5.0),
                        _Key("Enter", desc="Enter", on_click=lambda ctx: self._enter(), id="key_enter", weight=1.5),
                        gap=12))
        return Column(*rows, pad=24, gap=20, bg=(210, 213, 220), id="keyboard")

    def _overlay(self, ov: Overlay, theme: Theme) -> tuple[Widget, str]:
        pkg = PERMISSION_PKG if ov.kind == "permission" else (self.apps[ov.app].package if ov.app in self.apps else "android")

        def press(handler: Callable[[Ctx], None] | None, app: str | None) -> Callable[[Ctx], None]:
            def run(ctx: Ctx) -> None:
                self.state.overlay = None
                self._changed()
                if handler is not None:
                    handler(Ctx(self, app))
            return run

        if ov.kind == "menu":
            items = [Text(label, size="body", pad=36, on_click=press(h, ov.app), id=f"menu_item_{i}")
                     for i, (label, h) in enumerate(ov.buttons)]
            head = [Text(ov.title, size="small", color=theme.text2, pad=36)] if ov.title else []
            return Column(*head, *items, bg=theme.bg, radius=24, border=theme.divider, id="context_menu"), pkg
        if ov.kind == "ad":
            return Column(
                Row(Text("Ad", size="tiny", color=(255, 255, 255), bg=(240, 160, 0), pad=8, radius=8),
                    Spacer(1, weight=1),
                    Icon("close", desc="Close ad", size=80, on_click=press(None, ov.app), id="ad_close"), gap=10),
                _AdImage(desc="Advertisement", height=500, color=(250, 200, 120)),
                Text(ov.title, size="big", bold=True, align="center"),
                Text(ov.text, size="body", align="center"),
                Button("View offer", on_click=press(None, ov.app), id="ad_view"),
                pad=40, gap=28, bg=theme.bg, radius=36, border=theme.divider, id="ad_popup"), pkg
        buttons = [Button(label, on_click=press(h, ov.app), style="text",
                          id="permission_allow_button" if label == "Allow" and ov.kind == "permission"
                          else "permission_deny_button" if ov.kind == "permission" else f"button{i + 1}")
                   for i, (label, h) in enumerate(ov.buttons)]
        return Column(
            Text(ov.title, size="title", bold=True, id="alertTitle"),
            Text(ov.text, size="body", color=theme.text2, id="message") if ov.text else None,
            Row(Spacer(1, weight=1), *buttons, gap=12),
            pad=56, gap=36, bg=theme.bg, radius=40, border=theme.divider, id="dialog"), pkg

    # ----- what an agent gets ------------------------------------------------------------------------------
    def elements(self) -> list[Any]:
        return [n.element for n in self.view().nodes]

    def xml(self) -> str:
        view = self.view()
        if view.xml is None:
            view.xml = to_xml(view.nodes)
        return view.xml

    def screenshot(self, scale: float = 1.0) -> Any:
        """The screen as a PIL image, `scale` times the logical size (0.3 gives 324x720)."""
        view = self.view()
        sig = self._view_sig
        cached = self._image_cache.get(scale)
        if cached is not None and cached[0] == sig:
            return cached[1]
        home = self.state.mode == "home"
        bg = self._wallpaper() if home else view.theme.bg
        canvas = Canvas(self.width, self.height, scale, bg)
        if home:
            canvas.paste(art.wallpaper(bg, canvas.image.width, canvas.image.height), 0, 0)
        for root, pkg in view.roots:
            lay = view.lays[id(root)]
            with art.painting(self._hints.get(pkg, "")):
                root.paint(canvas, lay)
        image = canvas.image
        self._image_cache = {scale: (sig, image)}
        return image

    def state_key(self) -> str:
        """A stable hash of what matters: the screen stack, overlays, app states, permissions, effects count.

        Cached as the view is (until the state changes), but without laying out the screen: a planner that reaches
        a state it has seen before needs only the key."""
        sig = self._signature()
        if self._key_cache is None or self._key_cache[0] != sig:
            self._key_cache = (sig, self._state_key())
        return self._key_cache[1]

    def app_blob(self, key: str) -> bytes:
        """The app's state serialised (marshal format 2: content and key order, no sharing), cached until dirty."""
        old = self._blobs.get(key)
        if old is not None and key not in self._dirty:
            return old
        self._dirty.discard(key)
        data = self.state.apps[key]
        try:
            blob = marshal.dumps(data, 2)
        except ValueError:  # something marshal cannot write: fall back to JSON text
            blob = marshal.dumps(json.loads(json.dumps(data, default=str)), 2)
        if old is not None and blob == old:
            return old  # unchanged: keep the object so digests and copies stay cached
        self._blobs[key] = blob
        return blob

    def app_state_copy(self, key: str) -> dict[str, Any]:
        """A copy of app `key`'s state, shared between calls while the app is unchanged: treat it as read-only."""
        blob = self.app_blob(key)
        cached = self._parsed.get(key)
        if cached is None or cached[0] is not blob:
            cached = (blob, marshal.loads(blob))
            self._parsed[key] = cached
        return cached[1]

    def _state_key(self) -> str:
        st = self.state
        frames = []
        if st.mode == "app" and st.foreground:
            for f in st.stacks[st.foreground]:
                frames.append([f["screen"], f["params"], f["fields"], f["focus"],
                               {k: int(v) for k, v in sorted(f["scroll"].items())}])
        data = [st.mode, st.foreground, st.launcher_page if st.mode == "home" else 0, frames,
                st.overlay.signature() if st.overlay else None, st.permissions, len(st.effects)]
        if st.removed:
            data.append(st.removed)
        h = hashlib.blake2b(json.dumps(data, sort_keys=True, default=str, separators=(",", ":")).encode(),
                            digest_size=12)
        h.update(b"".join(self._app_digest(key) for key in sorted(st.apps) if not key.startswith("_") or key == MEDIA_KEY))
        return h.hexdigest()

    def _app_digest(self, key: str) -> bytes:
        blob = self.app_blob(key)
        cached = self._digests.get(key)
        if cached is None or cached[0] is not blob:
            cached = (blob, hashlib.blake2b(key.encode() + b"\0" + blob, digest_size=16).digest())
            self._digests[key] = cached
        return cached[1]

    def state_dict(self) -> dict[str, Any]:
        """The phone's state as plain JSON data (without overlay handlers and the random source)."""
        st = self.state
        return {
            "seed": st.seed, "clock": st.clock, "step": st.step, "mode": st.mode, "foreground": st.foreground,
            "launcher_page": st.launcher_page, "stacks": copy.deepcopy(st.stacks), "apps": copy.deepcopy(st.apps),
            "permissions": copy.deepcopy(st.permissions), "effects": [e.to_dict() for e in st.effects],
            "overlay": st.overlay.signature() if st.overlay else None, "recents": list(st.recents),
            "answers": list(st.answers), "removed": list(st.removed),
        }


@lru_cache(maxsize=2)
def _launcher_theme(dark: bool) -> Theme:
    return Theme.make("#1a73e8", dark=dark)


@dataclass(slots=True)
class _View:
    roots: list[tuple[Widget, str]]
    lays: dict[int, Layout]
    nodes: list[Node]
    extent: dict[str, tuple[float, float]]
    theme: Theme
    overlay_start: int
    has_overlay: bool
    xml: str | None = None


class _Toast(Text):
    """A toast message; shown in the tree like Android's toast window."""

    cls_name = "android.widget.Toast"
    __slots__ = ()


class _LauncherIcon(Icon):
    """A launcher shortcut; launchers report these as text views."""

    cls_name = "android.widget.TextView"
    __slots__ = ()


class _Launcher(Column):
    """The home screen's column: the wallpaper is drawn under the whole screen, so it paints only its children."""

    __slots__ = ()

    def paint(self, c: Canvas, lay: Layout) -> None:
        for child in self.children:
            child.paint(c, lay)


class _StatusIcon(Text):
    """A status bar indicator: in the UI tree the same label it always had ('WiFi', '87%', 'BT'), on screen a drawn
    icon (the Wi-Fi fan, the battery with its charge, the Bluetooth rune), as a phone shows them."""

    __slots__ = ("icon",)

    def __init__(self, icon: str, text: str, color: Color, desc: str) -> None:
        super().__init__(text, size=30, color=color, desc=desc)
        self.icon = icon

    def paint(self, c: Canvas, lay: Layout) -> None:
        self.paint_at(c, (0.0, 0.0))

    def paint_at(self, c: Canvas, shift: tuple[float, float]) -> None:
        """Draw the icon with its box moved by `shift` (the status bar draws them onto a strip of its own)."""
        if not self.text:
            return
        x1, y1, x2, y2 = self.box
        x1, x2, y1, y2 = x1 + shift[0], x2 + shift[0], y1 + shift[1], y2 + shift[1]
        color = self.color if isinstance(self.color, tuple) else (255, 255, 255)
        cx, cy, h = (x1 + x2) / 2, (y1 + y2) / 2, 34.0
        if self.icon == "wifi":  # a filled fan of signal, as Android draws it
            c.draw.pieslice(c._box((cx - h * 0.85, cy - h * 0.6, cx + h * 0.85, cy + h * 1.1)), 225, 315, fill=color)
        elif self.icon == "battery":
            body = (cx - 26, cy - 13, cx + 22, cy + 13)
            c.rect(body, outline=color, width=3, radius=5)
            c.rect((cx + 22, cy - 6, cx + 27, cy + 6), fill=color, radius=1)
            c.rect((body[0] + 5, body[1] + 5, body[0] + 5 + (body[2] - body[0] - 10) * 0.87, body[3] - 5), fill=color)
        else:
            c.line([(cx - 8, cy - 8), (cx + 8, cy + 7), (cx, cy + h / 2), (cx, cy - h / 2), (cx + 8, cy - 7),
                    (cx - 8, cy + 8)], color, 3.5)


class _StatusBar(Row):
    """The status bar: the clock, its indicators and the mobile signal bars drawn beside them (pixels only, no node).
    The indicators are drawn once per look and scale onto a transparent strip, then pasted."""

    __slots__ = ()
    _strips: dict[tuple[Any, ...], Any] = {}

    def paint(self, c: Canvas, lay: Layout) -> None:
        icons = [w for w in self.children if isinstance(w, _StatusIcon)]
        for child in self.children:
            if child not in icons:
                child.paint(c, lay)
        shown = [w for w in icons if w.text]
        if not shown:
            return
        color = shown[0].color if isinstance(shown[0].color, tuple) else (255, 255, 255)
        key = (tuple((w.icon, w.text, w.box) for w in shown), self.box, color, c.scale)
        strip = self._strips.get(key)
        if strip is None:
            x, y, w, h = c.pixels(self.box)
            canvas = Canvas.transparent(x + w, h, c.scale)
            strip = canvas.image
            shift = (0.0, -self.box[1])
            for icon in shown:
                icon.paint_at(canvas, shift)
            right, cy = shown[0].box[0] - 20, (self.box[3] - self.box[1]) / 2
            for i in range(4):
                bx = right - 34 + i * 9
                canvas.rect((bx, cy + 14 - (i + 1) * 7, bx + 6, cy + 14), fill=color)
            if len(self._strips) > 64:
                self._strips.clear()
            self._strips[key] = strip
        c.paste(strip, 0, c.pixels(self.box)[1])


class _AdImage(Widget):
    cls_name = "android.widget.ImageView"
    __slots__ = ("height", "color")

    def __init__(self, desc: str, height: float, color: tuple[int, int, int]) -> None:
        super().__init__(desc=desc)
        self.height, self.color = height, color

    def measure(self, w: float, lay: Layout) -> float:
        return self.height

    def paint(self, c: Canvas, lay: Layout) -> None:
        x, y, w, h = c.pixels(self.box)
        c.paste(art.picture(self.desc, self.color, "banner", w, h), x, y, art.rounded_mask(w, h, round(24 * c.scale)))
        x1, y1, x2, y2 = self.box
        c.text(x1 + 60, (y1 + y2) / 2 - 60, "SALE", 120, (255, 255, 255), True)


class _Key(Widget):
    """A key of the soft keyboard."""

    cls_name = "android.widget.Button"
    __slots__ = ("label",)

    def __init__(self, label: str, desc: str = "", weight: float = 1.0, **kw: Any) -> None:
        super().__init__(desc=desc or label, weight=weight, **kw)
        self.label = label if len(label) == 1 else tr(label)

    @property
    def text(self) -> str:
        return self.label if len(self.label) == 1 and self.label.isalnum() else ""

    def measure(self, w: float, lay: Layout) -> float:
        return 150

    def paint(self, c: Canvas, lay: Layout) -> None:
        c.rect(self.box, fill=(255, 255, 255), radius=14)
        x1, y1, x2, y2 = self.box
        px = 52 if len(self.label) == 1 else 38
        c.text((x1 + x2 - text_width(self.label, px)) / 2, (y1 + y2) / 2 - px * 0.6, self.label, px, (30, 30, 30))
