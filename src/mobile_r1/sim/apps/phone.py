"""Contacts: the phone's address book with a dialer: contacts, details, add/edit, calls, text messages, recent calls."""

from __future__ import annotations

import random
import re
from typing import Any

from mobile_r1.sim.apps import App, Ctx, new_id, register
from mobile_r1.sim.ui.widgets import (AppBar, Button, Card, Column, Grid, Icon, Input, ListItem, Row, Scroll, Tabs, Text,
                                      Widget)

FIRST = ["Alice", "Ben", "Carla", "David", "Emma", "Farid", "Grace", "Hiro", "Isabel", "Jonas", "Kate", "Liam",
         "Maya", "Noah", "Olivia", "Pablo", "Quinn", "Rosa", "Sven", "Tara"]
LAST = ["Smith", "Garcia", "Chen", "Okafor", "Novak", "Tanaka", "Brown", "Rossi", "Kim", "Patel", "Silva", "Muller"]
LABELS = ["Mom", "Dad", "Dentist", "Office", "Plumber"]
DAYS = ["Today", "Yesterday", "Mon", "Tue", "Wed", "Thu", "Fri"]
NUMBER_RE = re.compile(r"^\+?[0-9][0-9 \-]{2,19}$")
KEYS = ["1", "2", "3", "4", "5", "6", "7", "8", "9", "*", "0", "#"]
RING_SECONDS = 3.0  # a call rings this long before it connects


def _contact(ctx: Ctx, cid: int | None) -> dict[str, Any] | None:
    return next((c for c in ctx.state["contacts"] if c["id"] == cid), None)


def digits(number: str) -> str:
    """Only the digits of a phone number (to compare numbers written differently)."""
    return re.sub(r"\D", "", number)


def _by_number(ctx: Ctx, number: str) -> dict[str, Any] | None:
    want = digits(number)
    return next((c for c in ctx.state["contacts"] if want and digits(c["phone"]) == want), None)


def fmt_seconds(seconds: float) -> str:
    s = int(seconds)
    return f"{s // 60:02d}:{s % 60:02d}"


def call_elapsed(ctx: Ctx) -> float:
    """Seconds since the active call was placed (0 with no call)."""
    call = ctx.state["active_call"]
    return max(0.0, ctx.now - call["started_at"]) if call else 0.0


def _ask_call(ctx: Ctx, number: str) -> None:
    """Confirm, then place a call to `number` (a contact's or a dialled one)."""
    number = number.strip()
    if not digits(number):
        ctx.toast("Enter a phone number")
        return
    c = _by_number(ctx, number)
    who = c["name"] if c else number

    def place(cx: Ctx) -> None:
        found = _by_number(cx, number)
        cx.state["active_call"] = {"number": number, "contact": found["id"] if found else None,
                                   "name": found["name"] if found else number, "started_at": cx.now,
                                   "muted": False, "speaker": False}
        cx.effect("call", number=number, contact=found["id"] if found else None, name=found["name"] if found else None)
        cx.push("call")

    ctx.confirm(f"Call {who}?", number, place, yes="Call")


def _hang_up(ctx: Ctx) -> None:
    call = ctx.state["active_call"]
    if call is not None:
        elapsed = call_elapsed(ctx)
        talked = max(0.0, elapsed - RING_SECONDS)
        ctx.state["calls"].append({"id": new_id(ctx.state["calls"]), "contact": call["contact"], "number": call["number"],
                                   "name": call["name"], "direction": "outgoing", "when": f"Today {ctx.clock_text}",
                                   "seconds": round(talked), "answered": elapsed >= RING_SECONDS})
        ctx.state["active_call"] = None
        ctx.toast(f"Call ended {fmt_seconds(talked)}")
    if ctx.screen == "call":
        ctx.pop()


def _send_sms(ctx: Ctx, *_: Any) -> None:
    number = ctx.params.get("number", "")
    text = ctx.fields.get("message", "").strip()
    if not text:
        ctx.toast("Write a message first")
        return
    if not digits(number):
        ctx.toast("No recipient number")
        return
    c = _by_number(ctx, number)
    ctx.state["sms"].append({"id": new_id(ctx.state["sms"]), "number": number, "contact": c["id"] if c else None,
                             "text": text, "when": f"Today {ctx.clock_text}"})
    ctx.effect("sms", number=number, contact=c["id"] if c else None, name=c["name"] if c else None, text=text)
    ctx.set_field("message", "")
    ctx.toast("Message sent")


def _delete(ctx: Ctx, cid: int) -> None:
    c = _contact(ctx, cid)
    if c is None:
        return
    ctx.state["contacts"].remove(c)
    ctx.effect("delete", item="contact", id=cid, name=c["name"], phone=c["phone"])
    ctx.toast("Contact deleted")
    ctx.reset_to("home")


def _save(ctx: Ctx, *_: Any) -> None:
    cid = ctx.params.get("id")
    old = _contact(ctx, cid) if cid is not None else None
    name = ctx.fields.get("name", old["name"] if old else "").strip()
    phone = ctx.fields.get("phone", old["phone"] if old else "").strip()
    email = ctx.fields.get("email", old["email"] if old else "").strip()
    if not name:
        ctx.toast("Enter a name")
        return
    if not NUMBER_RE.match(phone):
        ctx.toast("Enter a valid phone number")
        return
    if old is None:
        new = {"id": new_id(ctx.state["contacts"]), "name": name, "phone": phone, "email": email, "favorite": False}
        ctx.state["contacts"].append(new)
        ctx.toast("Contact saved")
        ctx.replace("contact", id=new["id"])
    else:
        old.update(name=name, phone=phone, email=email)
        ctx.toast("Contact updated")
        ctx.pop()


def _field(input_id: str, hint: str, value: str) -> Widget:
    """An input with a clear button (typing appends to a pre-filled value, so editing starts with clearing)."""
    return Row(Input(input_id, hint=hint, value=value, weight=1.0),
               Icon("close", desc=f"Clear {hint.lower()}", size=64, id=f"clear_{input_id}",
                    on_click=lambda c: c.set_field(input_id, "")), gap=12)


@register
class Contacts(App):
    name = "Contacts"
    names = {"zh": "联系人"}
    package = "com.sim.contacts"
    aliases = ("phone", "dialer", "people", "address book", "phone book", "call", "contact")
    color = "#0b8043"
    icon = "person"

    def initial_state(self, rng: random.Random) -> dict[str, Any]:
        names = [f"{f} {l}" for f, l in zip(rng.sample(FIRST, 12), rng.choices(LAST, k=12))] + rng.sample(LABELS, 2)
        contacts = []
        for i, name in enumerate(names, start=1):
            first = name.split()[0].lower()
            contacts.append({"id": i, "name": name, "phone": f"+1 555 {rng.randint(100, 999)} {rng.randint(1000, 9999)}",
                             "email": f"{first}@example.com" if rng.random() < 0.6 else "",
                             "favorite": rng.random() < 0.2})
        calls = []
        for i in range(1, 10):
            c = rng.choice(contacts)
            direction = rng.choice(["incoming", "outgoing", "missed"])
            calls.append({"id": i, "contact": c["id"], "number": c["phone"], "name": c["name"], "direction": direction,
                          "when": f"{DAYS[min(6, (9 - i) // 2)]} {rng.randint(7, 22):02d}:{rng.randint(0, 59):02d}",
                          "seconds": 0 if direction == "missed" else rng.randint(5, 1500),
                          "answered": direction != "missed"})
        return {"contacts": contacts, "calls": calls, "sms": [], "active_call": None}

    def _nav(self, selected: int) -> Widget:
        screens = ("home", "recents", "keypad")
        return Tabs(["Contacts", "Recents", "Keypad"], selected, icons=["person", "list", "apps"], id="bottom_nav",
                    on_select=lambda c, i: c.reset_to(screens[i]) if i != selected else None)

    def _call_banner(self, ctx: Ctx) -> Widget | None:
        call = ctx.state["active_call"]
        if call is None:
            return None
        return Row(Text(f"On a call with {call['name']}  {fmt_seconds(call_elapsed(ctx))}", color=(255, 255, 255),
                        weight=1.0, size="small"),
                   Text("Return", bold=True, color=(255, 255, 255)), bg="primary", pad=24, id="return_to_call",
                   on_click=lambda c: c.push("call"))

    # ----- screens -----------------------------------------------------------------------------------------
    def screen_home(self, ctx: Ctx) -> Widget:
        q = ctx.fields.get("query", "").strip().lower()
        people = sorted(ctx.state["contacts"], key=lambda c: (not c["favorite"], c["name"].lower(), c["id"]))
        if q:
            people = [c for c in people if q in c["name"].lower() or q in digits(c["phone"]) or q in c["email"].lower()]
        rows: list[Widget] = [ListItem(c["name"], c["phone"], id="contact",
                                       leading=Icon(c["name"][:1], desc=c["name"], size=100, bg="primary"),
                                       trailing=Icon("star_filled", desc="Favorite", size=56, color="primary")
                                       if c["favorite"] else None,
                                       on_click=lambda cx, cid=c["id"]: cx.push("contact", id=cid)) for c in people]
        return Column(
            AppBar("Contacts", back=False, actions=[Icon("plus", desc="Add contact", size=80, id="add_contact",
                                                         on_click=lambda c: c.push("edit"))]),
            self._call_banner(ctx),
            Row(Input("query", hint=f"Search {len(ctx.state['contacts'])} contacts", weight=1.0), pad=28),
            Scroll(*(rows or [Text("No contacts found", pad=60, align="center", id="empty")]), id="contacts_list"),
            self._nav(0))

    def screen_contact(self, ctx: Ctx) -> Widget:
        c = _contact(ctx, ctx.params.get("id", -1)) or (ctx.state["contacts"][0] if ctx.state["contacts"] else None)
        if c is None:
            return Column(AppBar("Contact"), Text("This contact no longer exists", pad=60, id="missing"))
        cid, number, name = c["id"], c["phone"], c["name"]

        def favorite(cx: Ctx) -> None:
            found = _contact(cx, cid)
            if found is not None:
                found["favorite"] = not found["favorite"]
                cx.toast("Added to favorites" if found["favorite"] else "Removed from favorites")

        history = [k for k in ctx.state["calls"] if k["contact"] == cid][-3:]
        return Column(
            AppBar("", actions=[
                Icon("star_filled" if c["favorite"] else "star", desc="Unfavorite" if c["favorite"] else "Favorite",
                     size=80, id="favorite", selected=c["favorite"], on_click=favorite),
                Icon("edit", desc="Edit", size=80, id="edit", on_click=lambda cx: cx.push("edit", id=cid)),
                Icon("trash", desc="Delete", size=80, id="delete",
                     on_click=lambda cx: cx.confirm("Delete contact?", f"{name} will be removed from your contacts.",
                                                    lambda c2: _delete(c2, cid), yes="Delete"))]),
            Scroll(Column(
                Icon(name[:1], desc=f"Photo of {name}", size=220, bg="primary"),
                Text(name, size="big", bold=True, align="center", id="contact_name"),
                Row(Button("Call", icon="forward", id="call", weight=1.0, on_click=lambda cx: _ask_call(cx, number)),
                    Button("Message", icon="send", style="secondary", id="message", weight=1.0,
                           on_click=lambda cx: cx.push("sms", number=number)), gap=24),
                Card(Text("Mobile", size="small", color=(120, 122, 130)), Text(number, id="contact_phone"),
                     Text("Email", size="small", color=(120, 122, 130)) if c["email"] else None,
                     Text(c["email"], id="contact_email") if c["email"] else None),
                Text("Recent calls", bold=True) if history else None,
                *[Text(f"{k['direction'].capitalize()}  \u00b7  {k['when']}  \u00b7  {fmt_seconds(k['seconds'])}",
                       size="small", id="contact_call") for k in reversed(history)],
                pad=48, gap=28, align="center"), id="contact_scroll"))

    def screen_edit(self, ctx: Ctx) -> Widget:
        c = _contact(ctx, ctx.params.get("id")) if ctx.params.get("id") is not None else None
        return Column(
            AppBar("Edit contact" if c else "New contact", actions=[Button("Save", style="text", id="save", on_click=_save)]),
            Scroll(Column(
                Icon((c["name"] if c else "?")[:1], desc="Contact photo", size=180, bg="primary"),
                _field("name", "Name", c["name"] if c else ""),
                _field("phone", "Phone", c["phone"] if c else ""),
                _field("email", "Email", c["email"] if c else ""),
                pad=48, gap=32, align="center"), id="form"))

    def screen_call(self, ctx: Ctx) -> Widget:
        call = ctx.state["active_call"]
        if call is None:
            return Column(AppBar("Call"), Text("No call in progress", pad=60, id="no_call"))
        elapsed = call_elapsed(ctx)
        status = "Calling..." if elapsed < RING_SECONDS else fmt_seconds(elapsed - RING_SECONDS)

        def flip(key: str) -> Any:
            def handler(cx: Ctx) -> None:
                if cx.state["active_call"] is not None:
                    cx.state["active_call"][key] = not cx.state["active_call"][key]
            return handler

        return Column(
            Column(Icon(call["name"][:1], desc=f"Photo of {call['name']}", size=260, bg="primary"),
                   Text(call["name"], size="big", bold=True, align="center", id="call_name"),
                   Text(call["number"], align="center", id="call_number"),
                   Text(status, align="center", color=(120, 122, 130), id="call_status"),
                   pad=80, gap=28, align="center"),
            Scroll(Row(Button("Unmute" if call["muted"] else "Mute", style="primary" if call["muted"] else "secondary",
                              id="mute", selected=call["muted"], weight=1.0, on_click=flip("muted")),
                       Button("Speaker", style="primary" if call["speaker"] else "secondary", id="speaker",
                              selected=call["speaker"], weight=1.0, on_click=flip("speaker")), pad=60, gap=40),
                   id="call_controls"),
            Row(Button("Hang up", style="danger", icon="close", id="hang_up", weight=1.0, on_click=_hang_up), pad=60),
        )

    def screen_sms(self, ctx: Ctx) -> Widget:
        number = ctx.params.get("number", "")
        c = _by_number(ctx, number) if number else None
        sent = [m for m in ctx.state["sms"] if number and digits(m["number"]) == digits(number)]
        bubbles = [Row(Column(Text(m["text"], color=(255, 255, 255), id="sms_text"),
                              Text(m["when"], size="tiny", color=(230, 230, 240)), bg="primary", radius=28, pad=24, gap=6,
                              weight=1.0), pad=28) for m in sent]
        return Column(
            AppBar(c["name"] if c else (number or "New message")),
            Text(f"To: {number}" if number else "No recipient", size="small", color=(120, 122, 130), pad=28, id="sms_to"),
            Scroll(*(bubbles or [Text("No messages yet", pad=60, align="center", color=(120, 122, 130), id="empty")]), id="sms_list"),
            Row(Input("message", hint="Text message", weight=1.0, on_submit=_send_sms),
                Icon("send", desc="Send", size=80, id="send", on_click=_send_sms), pad=28, gap=16),
        )

    def screen_recents(self, ctx: Ctx) -> Widget:
        rows: list[Widget] = []
        for k in reversed(ctx.state["calls"]):
            number, cid = k["number"], k["contact"]
            arrow = {"incoming": "Incoming", "outgoing": "Outgoing", "missed": "Missed"}[k["direction"]]
            rows.append(ListItem(k["name"], f"{arrow}  \u00b7  {k['when']}" +
                                 (f"  \u00b7  {fmt_seconds(k['seconds'])}" if k["seconds"] else ""),
                                 id="recent_call", desc=f"{arrow} call {k['name']}",
                                 leading=Icon("forward" if k["direction"] == "outgoing" else "back",
                                              desc=arrow, size=64, color="danger" if k["direction"] == "missed" else "primary"),
                                 trailing=Icon("forward", desc=f"Call {k['name']}", size=70, id="call_back",
                                               on_click=lambda cx, n=number: _ask_call(cx, n)),
                                 on_click=(lambda cx, cid=cid: cx.push("contact", id=cid)) if _contact(ctx, cid)
                                 else (lambda cx, n=number: _ask_call(cx, n))))
        return Column(AppBar("Recents", back=False), self._call_banner(ctx),
                      Scroll(*(rows or [Text("No recent calls", pad=60, align="center", id="empty")]), id="recents_list"),
                      self._nav(1))

    def screen_keypad(self, ctx: Ctx) -> Widget:
        number = ctx.fields.get("number", "")

        def press(key: str) -> Any:
            return lambda cx: cx.set_field("number", cx.fields.get("number", "") + key)

        known = _by_number(ctx, number) if number else None
        return Column(
            AppBar("Keypad", back=False),
            self._call_banner(ctx),
            Column(Row(Input("number", hint="Enter a number", weight=1.0),
                       Icon("back", desc="Delete digit", size=70, id="backspace",
                            on_click=lambda cx: cx.set_field("number", cx.fields.get("number", "")[:-1])), gap=12),
                   Text(known["name"] if known else " ", align="center", color=(120, 122, 130), id="matched_contact"),
                   pad=36, gap=12),
            Scroll(Grid(*[Button(k, style="secondary", size="title", id=f"key_{'star' if k == '*' else 'hash' if k == '#' else k}",
                                 on_click=press(k)) for k in KEYS], cols=3, gap=28, pad=60), id="keys"),
            Row(Button("Call", icon="forward", id="dial", weight=1.0,
                       on_click=lambda cx: _ask_call(cx, cx.fields.get("number", ""))),
                Button("Message", style="secondary", id="dial_message", weight=1.0,
                       on_click=lambda cx: cx.push("sms", number=cx.fields.get("number", "").strip())
                       if digits(cx.fields.get("number", "")) else cx.toast("Enter a phone number")), pad=28, gap=24),
            self._nav(2))
