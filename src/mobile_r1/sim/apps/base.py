"""The App API: an app is a class with a name, a seeded JSON state, screen functions and event handlers.

    @register
    class Notes(App):
        name = "Notes"; package = "com.sim.notes"; aliases = ("memo",); color = "#f4b400"; icon = "note"

        def initial_state(self, rng):                  # JSON-serialisable, deterministic for the rng
            return {"notes": [{"id": 1, "title": "Groceries", "body": "milk"}]}

        def screen_home(self, ctx):                     # one method per screen: screen_<name>(ctx) -> Widget
            return Column(AppBar("Notes", back=False),
                          Scroll(*[ListItem(n["title"], on_click=lambda c, i=n["id"]: c.push("note", id=i))
                                   for n in ctx.state["notes"]]))

Handlers receive a `Ctx`; they change `ctx.state` (a plain dict), navigate (`push`, `pop`, `replace`), show a
`toast` or `dialog`, `request_permission`, `require_login`, or record an irreversible `effect`.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, ClassVar, Sequence

from mobile_r1.sim.locale import money as format_money
from mobile_r1.sim.ui.theme import Theme
from mobile_r1.sim.ui.widgets import AppBar, Button, Column, Input, Text, Widget

if TYPE_CHECKING:
    from mobile_r1.sim.system import Phone

Handler = Callable[["Ctx"], None]


@dataclass(slots=True)
class Effect:
    """An irreversible thing that happened: a payment, a transfer, a deletion, a post, a login, a permission."""

    kind: str
    app: str
    detail: dict[str, Any] = field(default_factory=dict)
    step: int = 0
    time: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "app": self.app, "detail": dict(self.detail), "step": self.step, "time": self.time}


class App:
    """Base class of every simulated app. Subclass it, set the class attributes, write `screen_<name>` methods.

    Class attributes:
      name            the app's English name, shown on an English launcher and matched by `open`
      key             its registry key (default: the lower-case name; set it where two apps share a name)
      names           its name in other languages ({"zh": "微信"}), shown on that launcher and matched by `open` too
      package         Android package name used in resource ids and by launch commands, e.g. "com.tencent.mm"
      archetype       the shared engine it is built on ("shopping", "feed", "chat", ...; empty for a one-off app)
      strings         its screens' text in other languages: {"zh": {"English text": "中文", ...}} (the system's table
                      has the words every app shares; see `mobile_r1.sim.locale`)
      currency        what its prices are in: "USD" ($) or "CNY" (¥)
      aliases         other names `open` accepts
      color, icon     launcher icon colour ('#rrggbb') and glyph name (see `mobile_r1.sim.ui.render.glyph`)
      home            the first screen (`screen_<home>`)
      login_required  when True the app starts behind a login wall until `state["logged_in"]` is true
    Every screen must render with no params (pick a sensible default) so galleries can show it.
    """

    name: str = ""
    key: ClassVar[str] = ""  # the registry key; `register` makes it the lower-case name unless the class sets one
    names: ClassVar[dict[str, str]] = {}
    package: str = ""
    archetype: str = ""
    strings: ClassVar[dict[str, dict[str, str]]] = {}
    currency: str = "USD"
    uses_media: ClassVar[bool] = False  # shows or picks the phone's shared photos and files (`ctx.media`)
    aliases: tuple[str, ...] = ()
    color: str = "#5f6368"
    icon: str = ""
    home: str = "home"
    gallery: ClassVar[tuple[str, ...]] = ()  # the main screens the gallery shows (default: see `main_screens`)
    login_required: bool = False
    locale: str = "en"  # the language of the phone it is installed on (set by the phone before `initial_state`)


    @classmethod
    def label(cls, locale: str = "en") -> str:
        """The app's name in `locale` (its English name where it has none there)."""
        return cls.names.get(locale, cls.name)

    def initial_state(self, rng: random.Random) -> dict[str, Any]:
        """The app's starting state: plain JSON data drawn from `rng` (deterministic for a seed)."""
        return {}

    def on_start(self, ctx: Ctx) -> None:
        """Called when the app starts cold (its back stack was empty); e.g. ask for a permission."""

    @classmethod
    def screens(cls) -> list[str]:
        """Names of the screens this app defines (its `screen_<name>` methods), home first."""
        names = [n[len("screen_"):] for n in dir(cls) if n.startswith("screen_") and callable(getattr(cls, n))]
        names.sort(key=lambda n: (n != cls.home, n == "login", n))
        return names

    @classmethod
    def main_screens(cls) -> list[str]:
        """The screens a visitor of the gallery sees first: `gallery` when the app names them, else its home screen and
        the next three of `screens()` (the login wall left out)."""
        if cls.gallery:
            return list(cls.gallery)
        return [s for s in cls.screens() if s != "login"][:4]

    def gallery_setup(self, ctx: Ctx) -> dict[str, dict[str, Any]]:
        """Make the phone show something typical for the gallery (a search made, a form filled) and return the push
        params of the screens that need them (`{"place": {"id": ...}}`); by default nothing."""
        return {}

    def render(self, screen: str, ctx: Ctx) -> Widget:
        fn = getattr(self, f"screen_{screen}", None)
        if fn is None:
            return Column(AppBar(ctx.app_label), Text(ctx.t("Unknown screen '{screen}'", screen=screen), pad=40))
        return fn(ctx)

    # ----- the login wall every app gets --------------------------------------------------------------
    def screen_login(self, ctx: Ctx) -> Widget:
        def submit(c: Ctx, *_: Any) -> None:
            user, pw = c.fields.get("username", "").strip(), c.fields.get("password", "")
            if not user or not pw:
                c.toast("Enter your account and password")
                return
            c.state["logged_in"] = True
            c.state["user"] = user
            c.effect("login", account=user)
            c.replace(self.home)

        return Column(
            AppBar(ctx.t("Log in to {app}", app=ctx.app_label), back=True),
            Column(
                Text(ctx.t("Welcome to {app}", app=ctx.app_label), size="big", bold=True),
                Text("Log in to continue", size="body", color=(120, 122, 130)),
                Input("username", hint="Phone number or email"),
                Input("password", hint="Password", password=True, on_submit=submit),
                Button("Log in", on_click=submit, id="login"),
                pad=48, gap=36,
            ),
        )


class Ctx:
    """What a screen or a handler can see and do. `ctx.state` is this app's state dict: mutate it freely."""

    __slots__ = ("phone", "app_key")

    def __init__(self, phone: Phone, app_key: str | None, mark: bool = True) -> None:
        self.phone = phone
        self.app_key = app_key
        if mark:  # a handler may change this app's state
            phone.mark(app_key)

    # ----- reading -------------------------------------------------------------------------------------
    @property
    def app(self) -> App:
        return self.phone.apps[self.app_key]  # type: ignore[index]

    @property
    def state(self) -> dict[str, Any]:
        return self.phone.state.apps[self.app_key]  # type: ignore[index]

    @property
    def frame(self) -> dict[str, Any]:
        """The top screen of this app's back stack: {'screen', 'params', 'fields', 'scroll', 'focus', 'ready_at'}."""
        return self.phone.state.stacks[self.app_key][-1]  # type: ignore[index]

    @property
    def screen(self) -> str:
        return self.frame["screen"]

    @property
    def params(self) -> dict[str, Any]:
        """The params the current screen was pushed with."""
        return self.frame["params"]

    @property
    def fields(self) -> dict[str, str]:
        """Texts typed into this screen's inputs, by input id."""
        return self.frame["fields"]

    @property
    def theme(self) -> Theme:
        return self.phone.theme_for(self.app_key)

    @property
    def locale(self) -> str:
        """The phone's language: "en" or "zh"."""
        return self.phone.locale

    @property
    def media(self) -> dict[str, Any]:
        """The phone's shared photos, videos, audio and files (`mobile_r1.sim.media`); mutate it freely."""
        return self.phone.media

    @property
    def app_label(self) -> str:
        """This app's name in the phone's language."""
        return self.app.label(self.phone.locale)

    def t(self, text: str, **values: object) -> str:
        """`text` in the phone's language (this app's table over the system's), with `values` filled in. Widgets
        translate what they are given by themselves; call this for templates with values and in handlers."""
        return self.phone.t(text, self.app_key, **values)

    def money(self, value: float) -> str:
        """A price in this app's currency: '$12.50' or '¥66.66'."""
        return format_money(value, self.app.currency)

    @property
    def now(self) -> float:
        """The simulated clock, in seconds since the episode started."""
        return self.phone.state.clock

    @property
    def clock_text(self) -> str:
        return self.phone.clock_text()

    @property
    def system(self) -> dict[str, Any]:
        """System settings (wifi, bluetooth, dark_mode, ...), owned by the Settings app."""
        return self.phone.system

    @property
    def logged_in(self) -> bool:
        return bool(self.state.get("logged_in", True))

    def has_permission(self, permission: str) -> bool:
        return bool(self.phone.state.permissions.get(self.app_key or "", {}).get(permission, False))

    # ----- navigating --------------------------------------------------------------------------------
    def push(self, screen: str, loading: float = 0.0, **params: Any) -> None:
        """Open `screen` on top of the back stack; with `loading` seconds it shows a spinner until the clock passes."""
        self.phone.push(self.app_key, screen, params, loading)  # type: ignore[arg-type]

    def replace(self, screen: str, loading: float = 0.0, **params: Any) -> None:
        """Swap the top screen for `screen`."""
        self.phone.pop(self.app_key, quiet=True)  # type: ignore[arg-type]
        self.phone.push(self.app_key, screen, params, loading)  # type: ignore[arg-type]

    def pop(self) -> None:
        """Close the top screen (closing the last one leaves the app for the launcher)."""
        self.phone.pop(self.app_key)  # type: ignore[arg-type]

    def back(self) -> None:
        """Exactly what the system Back button does."""
        self.phone.back()

    def reset_to(self, screen: str | None = None, **params: Any) -> None:
        """Clear the back stack and show `screen` (default: the home screen)."""
        self.phone.state.stacks[self.app_key] = []  # type: ignore[index]
        self.phone.push(self.app_key, screen or self.app.home, params, 0.0)  # type: ignore[arg-type]

    def open_app(self, name: str) -> None:
        """Switch to another app (a deep link)."""
        self.phone.open(name)

    def set_field(self, input_id: str, text: str) -> None:
        self.fields[input_id] = text

    # ----- feedback --------------------------------------------------------------------------------------
    def toast(self, text: str, **values: object) -> None:
        """A short message at the bottom of the screen that disappears after a few seconds (translated like `t`)."""
        self.phone.toast(self.t(text, **values))

    def dialog(self, title: str, text: str = "", buttons: Sequence[tuple[str, Handler | None]] = (("OK", None),)) -> None:
        """A modal dialog; each button closes it and then runs its handler (None: just close).

        Handlers outlive the step they were made in: capture ids or plain values, never dicts of the state.
        """
        self.phone.show_overlay("dialog", title, text, list(buttons), self.app_key)

    def confirm(self, title: str, text: str, on_yes: Handler, yes: str = "OK", no: str = "Cancel") -> None:
        self.dialog(title, text, [(no, None), (yes, on_yes)])

    def menu(self, items: Sequence[tuple[str, Handler | None]], title: str = "") -> None:
        """A context menu (as after a long press); tapping outside closes it."""
        self.phone.show_overlay("menu", title, "", list(items), self.app_key)

    def request_permission(self, permission: str, then: Handler, otherwise: Handler | None = None) -> None:
        """Run `then` if the app holds `permission`; else ask in the system dialog (allow runs `then`)."""
        if self.has_permission(permission):
            then(self)
            return
        self.phone.ask_permission(self.app_key, permission, then, otherwise)  # type: ignore[arg-type]

    def require_login(self) -> bool:
        """True when logged in; otherwise opens the login screen and returns False."""
        if self.logged_in:
            return True
        self.push("login")
        return False

    def effect(self, kind: str, **detail: Any) -> Effect:
        """Record an irreversible effect ('payment', 'transfer', 'delete', 'post', ...) that judges can check."""
        return self.phone.record_effect(kind, self.app_key or "system", detail)

    def random(self) -> random.Random:
        """The phone's random source (seeded; use for ads or delays, not for state that must replay)."""
        return self.phone.rng


def clone(data: Any) -> Any:
    """A deep copy of plain JSON-like data (dicts, lists, scalars), several times faster than copy.deepcopy."""
    if isinstance(data, dict):
        return {k: clone(v) for k, v in data.items()}
    if isinstance(data, list):
        return [clone(v) for v in data]
    return data


def money(value: float) -> str:
    """'$12.50'."""
    return f"${value:,.2f}"


def new_id(items: list[dict[str, Any]]) -> int:
    """The next integer id for a list of records with an 'id' key."""
    return max((int(i.get("id", 0)) for i in items), default=0) + 1
