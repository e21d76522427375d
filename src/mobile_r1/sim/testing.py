"""Helpers to drive the simulated phone by what is on screen (for tests of apps, tasks and oracles).

Every helper takes a `SimEnv` or a `Phone`, finds an element by its text, content description or resource
id, and acts at its centre with a real action, so the code path is exactly what an agent goes through. `start`
gives an app test its phone (the apps installed, one open, its start-up ad closed); `effect_kinds`, `wait`,
`replace_text` and `pay` are the steps app tests share.
"""

from __future__ import annotations

from typing import Any, Sequence

from mobile_r1.core.actions import Action
from mobile_r1.core.errors import ActionError
from mobile_r1.core.records import UIElement
from mobile_r1.sim.driver import SimEnv


def _phone(target: Any) -> Any:
    return getattr(target, "phone", target)


def act(target: Any, action: Action) -> dict[str, Any]:
    """Apply an action through the env (when given one) or the phone; returns the info dict."""
    if hasattr(target, "step") and hasattr(target, "phone"):
        return target.step(action)[3]
    return target.act(action)


def elements(target: Any) -> list[UIElement]:
    return _phone(target).elements()


def find_all(target: Any, text: str | None = None, id: str | None = None, desc: str | None = None,
             exact: bool = True) -> list[UIElement]:
    """Elements whose text / content description / resource id (full, or the part after ':id/') match.

    While a dialog, menu or popup is open its elements come first (they are what a finger would hit).
    """
    out = []
    for e in elements(target):
        if text is not None:
            hay = (e.text, e.content_desc)
            if not (text in hay if exact else any(text.lower() in h.lower() for h in hay)):
                continue
        if desc is not None and e.content_desc != desc:
            continue
        if id is not None and e.resource_id != id and e.resource_id.split(":id/")[-1] != id:
            continue
        out.append(e)
    phone = _phone(target)
    view = phone.view()
    if view.has_overlay:
        out.sort(key=lambda e: e.id < view.overlay_start)
    return out


def find(target: Any, text: str | None = None, id: str | None = None, desc: str | None = None,
         exact: bool = True, index: int = 0) -> UIElement:
    """The `index`-th matching element; raises ActionError listing what is on screen when there is none."""
    found = find_all(target, text=text, id=id, desc=desc, exact=exact)
    if not found or index >= len(found):
        shown = sorted({e.label for e in elements(target) if e.label})
        raise ActionError(f"no element text={text!r} id={id!r} desc={desc!r} on screen "
                          f"({_phone(target).activity()}); visible: {shown}")
    return found[index]


def clickable_of(target: Any, element: UIElement) -> UIElement:
    """The element itself if clickable, else its nearest clickable ancestor (a row around a title)."""
    by_id = {e.id: e for e in elements(target)}
    e: UIElement | None = element
    while e is not None and not e.clickable:
        e = by_id.get(e.parent) if e.parent is not None else None
    return e or element


def tap(target: Any, text: str | None = None, id: str | None = None, desc: str | None = None, exact: bool = True,
        index: int = 0) -> dict[str, Any]:
    """Click the centre of the matching element (or of its clickable ancestor)."""
    e = clickable_of(target, find(target, text=text, id=id, desc=desc, exact=exact, index=index))
    return act(target, Action.click(*e.center))


def tap_text(target: Any, text: str, index: int = 0, exact: bool = True) -> dict[str, Any]:
    return tap(target, text=text, index=index, exact=exact)


def tap_id(target: Any, id: str, index: int = 0) -> dict[str, Any]:
    return tap(target, id=id, index=index)


def long_press(target: Any, text: str | None = None, id: str | None = None, index: int = 0) -> dict[str, Any]:
    e = find(target, text=text, id=id, index=index)
    by_id = {x.id: x for x in elements(target)}
    cur: UIElement | None = e
    while cur is not None and not cur.long_clickable:
        cur = by_id.get(cur.parent) if cur.parent is not None else None
    return act(target, Action.long_press(*(cur or e).center))


def type_into(target: Any, id: str, text: str, submit: bool = False) -> dict[str, Any]:
    """Tap the input with resource id `id`, type `text`, and press Enter when `submit`."""
    tap(target, id=id)
    info = act(target, Action.type_text(text))
    if submit:
        info = act(target, Action.system_button("Enter"))
    return info


def scroll_down(target: Any, id: str | None = None) -> dict[str, Any]:
    """Swipe up over a scrollable list (the first one, or the one with resource id `id`)."""
    lists = [e for e in elements(target) if e.scrollable and (id is None or e.resource_id.endswith(f"/{id}"))]
    if not lists:
        raise ActionError("nothing scrollable on screen")
    x1, y1, x2, y2 = lists[0].bounds
    cx = (x1 + x2) // 2
    return act(target, Action.swipe(cx, y2 - (y2 - y1) // 6, cx, y1 + (y2 - y1) // 6))


def scroll_until(target: Any, text: str, id: str | None = None, limit: int = 20) -> UIElement:
    """Scroll down until an element with this text is fully on screen."""
    for _ in range(limit):
        found = find_all(target, text=text)
        if found:
            return found[0]
        if scroll_down(target, id)["error"]:
            break
    return find(target, text=text)


def back(target: Any) -> dict[str, Any]:
    return act(target, Action.back())


def open_app(target: Any, name: str) -> dict[str, Any]:
    return act(target, Action.open(name))


def visible_texts(target: Any) -> list[str]:
    return [e.text for e in elements(target) if e.text]


def close_ad(target: Any) -> None:
    """Close the ad an app may show when it starts (Back, as a user would); nothing when none is open."""
    overlay = _phone(target).state.overlay
    if overlay is not None and overlay.kind == "ad":
        back(target)


def start(apps: Sequence[str], app: str | None = None, *, randomize: bool = False, seed: int = 0,
          **options: Any) -> SimEnv:
    """A phone with `apps` installed and no screenshots drawn, reset with `seed`, `app` open (a name or alias) and its
    start-up ad closed; `options` go to `SimEnv` (e.g. `locale="zh"`, `ad_rate=0`)."""
    env = SimEnv(apps=list(apps), randomize=randomize, seed=seed, render=options.pop("render", False), **options)
    env.reset(app=app)
    close_ad(env)
    return env


def effect_kinds(target: Any) -> list[str]:
    """The kinds of the effects recorded so far (payment, delete, message ...), oldest first."""
    return [effect.kind for effect in _phone(target).state.effects]


def wait(target: Any, seconds: float = 2.0) -> dict[str, Any]:
    """Let simulated time pass (loading screens, playback)."""
    return act(target, Action.wait(seconds))


def replace_text(target: Any, id: str, text: str) -> dict[str, Any]:
    """Clear the input with resource id `id` with its clear button (`clear_<id>`), then type `text` into it."""
    tap(target, id=f"clear_{id}")
    return type_into(target, id, text)


def pay(target: Any, password: str, field: str = "pay_password", confirm: str = "confirm_payment") -> dict[str, Any]:
    """Type the payment password into an open payment sheet and confirm it."""
    type_into(target, field, password)
    return tap(target, id=confirm)
