"""Phone (the dialer) and Contacts (the address book), as a stock Android phone has them: one contact store that both
show, a keypad that calls any number (a number in no contact shows as unknown), recent calls, and a new-contact form
that first asks where to save the contact (the phone, the SIM card or an account), as phones do when several are set up.

Contacts owns the store; Phone reads it and keeps the call log. A call placed from either app records a `call` effect
and shows Phone's in-call screen.

State (a judge reads it by path):
  android_contacts.contacts   [{"id", "name", "phone", "forms", "account", "email", "favorite"}]; `forms` lists the
                              usual ways to write the number ("13000001111", "+86 13000001111", "+86-13000001111" ...)
  android_contacts.accounts   [{"id", "label"}]: where a new contact can be saved (`id` Phone, SIM or Account; the
                              label as the phone shows it: 手机, SIM卡, 账号（…）)
  android_contacts.default_account   None: ask where to save every new contact; an account id: save there
  phone.calls                 the call log [{"id", "number", "name", "contact", "direction", "when", "seconds"}]
  phone.active_call           the call in progress, or None
Effects: `call` (number as dialled, national, forms, name, contact, known), `add_contact` (name, phone, forms,
account, id), `delete` (item "contact", id, name, phone).
"""

from __future__ import annotations

import hashlib
import random
import re
from typing import Any, Callable

from mobile_r1.sim.apps import App, Ctx, new_id, register
from mobile_r1.sim.ui.widgets import (AppBar, Button, Card, Column, Grid, Icon, Input, ListItem, Row, Scroll,
                                      Tabs, Text, Widget)

GREY = (120, 122, 130)
KEYS = ("1", "2", "3", "4", "5", "6", "7", "8", "9", "*", "0", "#")
NUMBER_RE = re.compile(r"^\+?[0-9][0-9 \-]{2,19}$")
RING_SECONDS = 3.0  # a call rings this long before it connects
ACCOUNTS = ("Phone", "SIM", "Account")  # where a contact can be saved (ids)
_SURNAMES = "王李张刘陈杨黄赵吴周徐孙马朱胡郭何林罗高"
_GIVEN = ("伟", "敏", "静", "磊", "洋", "艳", "勇", "军", "杰", "娟", "涛", "明", "超", "霞", "平", "刚", "桂英", "秀兰",
          "建华", "晓东", "海燕", "志强", "丽娟", "文博", "子涵", "雨轩")
_FIRST = ("Alice", "Ben", "Carla", "David", "Emma", "Farid", "Grace", "Hiro", "Isabel", "Jonas", "Kate", "Liam", "Maya",
          "Noah", "Olivia", "Pablo", "Quinn", "Rosa", "Sven", "Tara")
_LAST = ("Smith", "Garcia", "Chen", "Okafor", "Novak", "Tanaka", "Brown", "Rossi", "Kim", "Patel", "Silva", "Muller")
_WHEN = {"en": ("Today", "Yesterday", "Mon", "Tue", "Wed", "Thu", "Fri"),
         "zh": ("今天", "昨天", "周一", "周二", "周三", "周四", "周五")}


# ----- numbers (pure: judges and set-up use them) --------------------------------------------------------------------
def digits(number: str) -> str:
    """Only the digits of a phone number."""
    return re.sub(r"\D", "", number)


def national(number: str) -> str:
    """The number without the home country's code (+86 / 0086): '+86-130 0000 1111' gives '13000001111'; a number
    with another country code keeps it ('+1 415 555 0100' gives '+14155550100')."""
    text = number.strip()
    d = digits(text)
    if text.startswith("+") or d.startswith("00"):
        d = d[2:] if d.startswith("00") else d
        return d[2:] if d.startswith("86") else "+" + d
    return d


def number_forms(number: str) -> list[str]:
    """The usual ways to write one number (as typed, national, with +86 in its forms), so that a judge finds it however
    a task line writes it."""
    n = national(number)
    forms = [number.strip(), n]
    if n.startswith("+"):
        forms += [n[1:], "00" + n[1:]]
    elif n:
        forms += ["+86" + n, "+86-" + n, "+86 " + n, "86" + n, "0086" + n]
    return list(dict.fromkeys(f for f in forms if f))


def same_number(a: str, b: str) -> bool:
    return bool(national(a)) and national(a) == national(b)


def fmt_seconds(seconds: float) -> str:
    s = int(seconds)
    return f"{s // 60:02d}:{s % 60:02d}"


def _draw_number(rng: random.Random, lang: str) -> str:
    if lang == "zh":
        return "1" + rng.choice("3578") + "".join(rng.choice("0123456789") for _ in range(9))
    return f"+1 {rng.randint(201, 989)} 555 {rng.randint(1000, 9999)}"


def _stable_number(name: str, index: int, lang: str) -> str:
    """A number for a contact a set-up makes, the same for a name on every run."""
    seed = int(hashlib.sha1(f"{name}|{index}".encode("utf-8")).hexdigest()[:8], 16)
    return _draw_number(random.Random(seed), lang)


# ----- the store both apps share --------------------------------------------------------------------------------------
def book_key(ctx: Ctx) -> str | None:
    """The key of the installed address book (Contacts), or None."""
    for key, app in ctx.phone.apps.items():
        if isinstance(app, AddressBook) and key not in ctx.phone.state.removed:
            return key
    return None


def dialer_key(ctx: Ctx) -> str | None:
    """The key of the installed dialer (Phone), or None."""
    for key, app in ctx.phone.apps.items():
        if isinstance(app, Dialer) and key not in ctx.phone.state.removed:
            return key
    return None


def _book(ctx: Ctx, write: bool = False) -> dict[str, Any]:
    """The address book's state (empty when no Contacts app is installed); `write`: a handler will change it."""
    key = book_key(ctx)
    if key is None:
        return {"contacts": [], "accounts": [], "default_account": None}
    if write:
        ctx.phone.mark(key)
    return ctx.phone.state.apps[key]


def _contact(ctx: Ctx, cid: Any) -> dict[str, Any] | None:
    return next((c for c in _book(ctx)["contacts"] if c["id"] == cid), None)


def _by_number(ctx: Ctx, number: str) -> dict[str, Any] | None:
    return next((c for c in _book(ctx)["contacts"] if same_number(c["phone"], number)), None)


def _sorted(contacts: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted(contacts, key=lambda c: (not c.get("favorite"), c["name"].lower(), c["id"]))


def _make_contact(contacts: list[dict[str, Any]], name: str, number: str, account: str,
                  email: str = "") -> dict[str, Any]:
    item = {"id": new_id(contacts), "name": name, "phone": number, "forms": number_forms(number), "account": account,
            "email": email, "favorite": False}
    contacts.append(item)
    return item


def place_call(ctx: Ctx, number: str) -> None:
    """Call `number` now (from any app): record the `call` effect and show Phone's in-call screen."""
    number = number.strip()
    if len(digits(number)) < 3:
        ctx.toast("Enter a phone number")
        return
    key = dialer_key(ctx)
    if key is None:
        ctx.toast("No app on this phone can make calls")
        return
    found = _by_number(ctx, number)
    ctx.phone.mark(key)
    dial = ctx.phone.state.apps[key]
    dial["active_call"] = {"number": number, "contact": found["id"] if found else None,
                           "name": found["name"] if found else None, "started_at": ctx.now,
                           "muted": False, "speaker": False}
    ctx.effect("call", number=number, national=national(number), forms=number_forms(number),
               name=found["name"] if found else None, contact=found["id"] if found else None, known=found is not None)
    if ctx.app_key == key:
        ctx.push("in_call")
    else:
        ctx.phone.goto(key, "in_call")


def _hang_up(ctx: Ctx) -> None:
    call = ctx.state["active_call"]
    if call is not None:
        elapsed = max(0.0, ctx.now - call["started_at"])
        talked = max(0.0, elapsed - RING_SECONDS)
        when = ctx.t("Today {time}", time=ctx.clock_text)
        ctx.state["calls"].append({"id": new_id(ctx.state["calls"]), "number": call["number"], "name": call["name"],
                                   "contact": call["contact"], "direction": "outgoing", "when": when,
                                   "seconds": round(talked)})
        ctx.state["active_call"] = None
        ctx.toast("Call ended {time}", time=fmt_seconds(talked))
    if ctx.screen == "in_call":
        ctx.pop()


def _new_contact(ctx: Ctx, number: str = "") -> None:
    """Start a new contact in Contacts: ask where to save it unless a default is set, then the form."""
    key = book_key(ctx)
    if key is None:
        ctx.toast("Contacts is not installed")
        return
    book = ctx.phone.state.apps[key]
    target = "edit" if book.get("default_account") else "save_location"
    params = {"phone": number} if number else {}
    if ctx.app_key == key:
        ctx.push(target, **params)
    else:
        ctx.phone.goto(key, target, **params)


# ----- the dialer -----------------------------------------------------------------------------------------------------
_SHARED_ZH = {
    "Keypad": "拨号", "Recents": "通话记录", "Enter a number": "输入号码", "Unknown number": "未知号码",
    "Delete digit": "删除数字", "Enter a phone number": "请输入电话号码", "No app on this phone can make calls": "没有可以拨打电话的应用",
    "Calling...": "正在呼叫...", "Mute": "静音", "Unmute": "取消静音", "Speaker": "免提", "Hang up": "挂断",
    "No call in progress": "当前没有通话", "Call ended {time}": "通话结束 {time}", "Today {time}": "今天 {time}",
    "On a call with {name}  {time}": "正在与{name}通话  {time}", "Return": "返回通话", "Outgoing": "呼出",
    "Incoming": "呼入", "Missed": "未接", "No recent calls": "没有通话记录", "Call {name}": "呼叫{name}",
    "Add to contacts": "添加到联系人", "Contacts is not installed": "未安装通讯录", "No contacts": "没有联系人",
    "Search contacts": "搜索联系人", "Mobile": "手机", "Contact": "联系人", "This contact no longer exists": "该联系人已不存在",
    "Favorite": "收藏", "Unfavorite": "取消收藏", "Saved in {account}": "保存在{account}",
    "Photo of {name}": "{name}的头像",
}


@register
class Dialer(App):
    """The phone app: keypad (home), recent calls, the contacts of the address book, and the in-call screen."""

    name = "Phone"
    key = "phone"
    names = {"zh": "电话"}
    package = "com.android.dialer"
    archetype = "telephony"
    aliases = ("dialer", "拨号", "call", "phone app")
    color = "#34a853"
    icon = "forward"
    strings = {"zh": dict(_SHARED_ZH)}

    def initial_state(self, rng: random.Random) -> dict[str, Any]:
        lang = "zh" if self.locale == "zh" else "en"
        when = _WHEN[lang]
        calls = []
        for i in range(1, 7):
            direction = rng.choice(("incoming", "outgoing", "missed"))
            calls.append({"id": i, "number": _draw_number(rng, lang), "name": None, "contact": None,
                          "direction": direction, "when": f"{when[min(6, (7 - i) // 2)]} {rng.randint(7, 22):02d}:"
                                                          f"{rng.randint(0, 59):02d}",
                          "seconds": 0 if direction == "missed" else rng.randint(5, 900)})
        return {"calls": calls, "active_call": None}

    def _nav(self, selected: int) -> Widget:
        screens = ("home", "recents", "contacts")
        return Tabs(["Keypad", "Recents", "Contacts"], selected, icons=["apps", "list", "person"], id="bottom_nav",
                    on_select=lambda c, i: c.reset_to(screens[i]) if i != selected else None)

    def _banner(self, ctx: Ctx) -> Widget | None:
        call = ctx.state["active_call"]
        if call is None:
            return None
        elapsed = fmt_seconds(max(0.0, ctx.now - call["started_at"]))
        return Row(Text(ctx.t("On a call with {name}  {time}", name=call["name"] or call["number"], time=elapsed),
                        color=(255, 255, 255), size="small", weight=1.0),
                   Text("Return", bold=True, color=(255, 255, 255)), bg="primary", pad=24, id="return_to_call",
                   on_click=lambda c: c.push("in_call"))

    # ----- set-up hooks ---------------------------------------------------------------------------------------------
    def setup_call_log(self, ctx: Ctx, number: str, direction: str = "missed") -> None:
        """Put a call with `number` at the top of the recent calls (once)."""
        calls = ctx.state["calls"]
        if any(c["number"] == number for c in calls):
            return
        found = _by_number(ctx, number)
        calls.append({"id": new_id(calls), "number": number, "name": found["name"] if found else None,
                      "contact": found["id"] if found else None, "direction": direction,
                      "when": ctx.t("Today {time}", time="08:15"), "seconds": 0 if direction == "missed" else 60})

    # ----- screens --------------------------------------------------------------------------------------------------
    def screen_home(self, ctx: Ctx) -> Widget:
        number = ctx.fields.get("number", "")
        known = _by_number(ctx, number) if len(digits(number)) >= 3 else None
        caption = known["name"] if known else ("Unknown number" if len(digits(number)) >= 3 else " ")

        def press(key: str) -> Callable[[Ctx], None]:
            return lambda c: c.set_field("number", c.fields.get("number", "") + key)

        def keep_dialable(c: Ctx, text: str) -> None:
            c.set_field("number", re.sub(r"[^0-9+*# \-]", "", text))

        return Column(
            AppBar("Phone", back=False),
            self._banner(ctx),
            Column(Row(Input("number", hint="Enter a number", weight=1.0, on_text=keep_dialable,
                             on_submit=lambda c, t: place_call(c, t)),
                       Icon("back", desc="Delete digit", size=70, id="backspace",
                            on_click=lambda c: c.set_field("number", c.fields.get("number", "")[:-1])), gap=12),
                   Text(caption, align="center", color=GREY, id="number_owner"),
                   Button("Add to contacts", style="text", id="add_to_contacts",
                          on_click=lambda c: _new_contact(c, c.fields.get("number", "").strip()))
                   if len(digits(number)) >= 3 and known is None else None,
                   pad=36, gap=12),
            Scroll(Grid(*[Button(k, style="secondary", size="title", on_click=press(k),
                                 id=f"key_{'star' if k == '*' else 'hash' if k == '#' else k}") for k in KEYS],
                        cols=3, gap=28, pad=60), id="keys"),
            Row(Button("Call", icon="forward", id="dial", weight=1.0,
                       on_click=lambda c: place_call(c, c.fields.get("number", ""))), pad=28),
            self._nav(0))

    def screen_recents(self, ctx: Ctx) -> Widget:
        rows: list[Widget] = []
        for k in reversed(ctx.state["calls"]):
            who = k["name"] or (_by_number(ctx, k["number"]) or {}).get("name") or k["number"]
            kind = {"incoming": "Incoming", "outgoing": "Outgoing", "missed": "Missed"}[k["direction"]]
            sub = "  \u00b7  ".join([ctx.t(kind), k["when"]] + ([fmt_seconds(k["seconds"])] if k["seconds"] else []))
            rows.append(ListItem(who, sub, id="recent_call",
                                 leading=Icon("forward" if k["direction"] == "outgoing" else "back", desc=kind, size=64,
                                              color="danger" if k["direction"] == "missed" else "primary"),
                                 trailing=Icon("forward", desc=ctx.t("Call {name}", name=who), size=70, id="call_back",
                                               on_click=lambda c, n=k["number"]: place_call(c, n))))
        return Column(AppBar("Recents", back=False), self._banner(ctx),
                      Scroll(*(rows or [Text("No recent calls", pad=60, align="center", color=GREY)]),
                             id="recents_list"),
                      self._nav(1))

    def screen_contacts(self, ctx: Ctx) -> Widget:
        query = ctx.fields.get("query", "").strip().lower()
        people = [c for c in _sorted(_book(ctx)["contacts"])
                  if not query or query in c["name"].lower() or query in digits(c["phone"])]
        rows = [ListItem(c["name"], id="contact",
                         leading=Icon(c["name"][:1], desc=ctx.t("Photo of {name}", name=c["name"]), size=90,
                                      bg="primary"),
                         on_click=lambda cx, cid=c["id"]: cx.push("contact", id=cid)) for c in people]
        return Column(AppBar("Contacts", back=False), Row(Input("query", hint="Search contacts", weight=1.0), pad=28),
                      Scroll(*(rows or [Text("No contacts", pad=60, align="center", color=GREY)]), id="contacts_list"),
                      self._nav(2))

    def screen_contact(self, ctx: Ctx) -> Widget:
        contacts = _book(ctx)["contacts"]
        cid = ctx.params.get("id")
        c = _contact(ctx, cid) if cid is not None else (contacts[0] if contacts else None)
        if c is None:
            return Column(AppBar("Contact"), Text("This contact no longer exists", pad=60, color=GREY))
        number = c["phone"]
        return Column(AppBar(c["name"]), Scroll(Column(
            Icon(c["name"][:1], desc=ctx.t("Photo of {name}", name=c["name"]), size=200, bg="primary"),
            Text(c["name"], size="big", bold=True, align="center", id="contact_name"),
            Card(Text("Mobile", size="small", color=GREY), Text(number, id="contact_phone")),
            Button("Call", icon="forward", id="call", on_click=lambda cx: place_call(cx, number)),
            pad=48, gap=28, align="center"), id="contact_scroll"))

    def screen_in_call(self, ctx: Ctx) -> Widget:
        call = ctx.state["active_call"]
        if call is None:
            return Column(AppBar("Phone"), Text("No call in progress", pad=60, color=GREY, id="no_call"))
        elapsed = max(0.0, ctx.now - call["started_at"])
        status = ctx.t("Calling...") if elapsed < RING_SECONDS else fmt_seconds(elapsed - RING_SECONDS)

        def flip(name: str) -> Callable[[Ctx], None]:
            def handler(c: Ctx) -> None:
                if c.state["active_call"] is not None:
                    c.state["active_call"][name] = not c.state["active_call"][name]
            return handler

        who = call["name"] or ctx.t("Unknown number")
        return Column(
            Column(Icon(who[:1], desc=ctx.t("Photo of {name}", name=who), size=240, bg="primary"),
                   Text(who, size="big", bold=True, align="center", id="call_name"),
                   Text(call["number"], align="center", id="call_number"),
                   Text(status, align="center", color=GREY, id="call_status"), pad=80, gap=28, align="center"),
            Scroll(Row(Button("Unmute" if call["muted"] else "Mute", style="primary" if call["muted"] else "secondary",
                              id="mute", selected=call["muted"], weight=1.0, on_click=flip("muted")),
                       Button("Speaker", style="primary" if call["speaker"] else "secondary", id="speaker",
                              selected=call["speaker"], weight=1.0, on_click=flip("speaker")), pad=60, gap=40),
                   id="call_controls"),
            Row(Button("Hang up", style="danger", icon="close", id="hang_up", weight=1.0, on_click=_hang_up), pad=60))


# ----- the address book -----------------------------------------------------------------------------------------------
def _save(ctx: Ctx, *_: Any) -> None:
    cid = ctx.params.get("id")
    old = _contact(ctx, cid) if cid is not None else None
    name = ctx.fields.get("name", old["name"] if old else "").strip()
    number = ctx.fields.get("phone", old["phone"] if old else ctx.params.get("phone", "")).strip()
    if not name:
        ctx.toast("Enter a name")
        return
    if not NUMBER_RE.match(number):
        ctx.toast("Enter a valid phone number")
        return
    if old is not None:
        old.update(name=name, phone=number, forms=number_forms(number))
        ctx.toast("Contact updated")
        ctx.pop()
        return
    account = ctx.params.get("account") or ctx.state.get("default_account") or "Phone"
    item = _make_contact(ctx.state["contacts"], name, number, account)
    ctx.effect("add_contact", id=item["id"], name=name, phone=number, forms=item["forms"], account=account)
    ctx.toast("Contact saved")
    ctx.replace("contact", id=item["id"])


def _delete_contact(ctx: Ctx, cid: int) -> None:
    c = _contact(ctx, cid)
    if c is None:
        return
    ctx.state["contacts"].remove(c)
    ctx.effect("delete", item="contact", id=cid, name=c["name"], phone=c["phone"])
    ctx.toast("Contact deleted")
    ctx.reset_to("home")


def _field(input_id: str, hint: str, value: str) -> Widget:
    """An input with a clear button (typing appends to a pre-filled value, so editing starts with clearing it)."""
    return Row(Input(input_id, hint=hint, value=value, weight=1.0),
               Icon("close", desc=f"Clear {hint.lower()}", size=64, id=f"clear_{input_id}",
                    on_click=lambda c: c.set_field(input_id, "")), gap=12)


def _search(ctx: Ctx, text: str) -> None:
    ctx.frame["params"]["query"] = text.strip()


@register
class AddressBook(App):
    """Contacts: the list (home), search, a contact's page (call, edit, delete, favourite), where to save a new contact
    (`save_location`) and the form (`edit`)."""

    name = "Contacts"
    key = "android_contacts"
    names = {"zh": "通讯录"}
    package = "com.android.contacts"
    archetype = "telephony"
    aliases = ("address book", "phone book", "联系人", "people")
    color = "#1a73e8"
    icon = "person"
    strings = {"zh": {
        **_SHARED_ZH, "Add contact": "新建联系人", "New contact": "新建联系人", "Edit contact": "编辑联系人",
        "Search {n} contacts": "搜索 {n} 位联系人", "No contacts found": "没有找到联系人", "Contact saved": "联系人已保存",
        "Contact updated": "联系人已更新", "Contact deleted": "联系人已删除", "Delete contact?": "删除联系人？",
        "{name} will be removed from your contacts.": "{name}将从通讯录中删除。", "Enter a name": "请输入姓名",
        "Enter a valid phone number": "请输入有效的电话号码", "Save new contact to": "将新联系人保存到",
        "Choose where the new contact is kept.": "请选择新联系人的保存位置。", "Saving to {account}": "保存到{account}",
        "Email": "电子邮件", "Clear name": "清除姓名", "Clear phone": "清除电话", "Clear email": "清除电子邮件",
        "Contact photo": "联系人头像", "Message": "信息", "Messages is not available": "暂不支持发送信息",
        "Results for '{query}'": "“{query}”的搜索结果", "Type a name or number": "输入姓名或号码",
    }}

    def initial_state(self, rng: random.Random) -> dict[str, Any]:
        lang = "zh" if self.locale == "zh" else "en"
        if lang == "zh":
            names = []
            while len(names) < 14:
                name = rng.choice(_SURNAMES) + rng.choice(_GIVEN)
                if name not in names:
                    names.append(name)
        else:
            names = [f"{f} {l}" for f, l in zip(rng.sample(_FIRST, 14), rng.choices(_LAST, k=14))]
        email = rng.choice(("sam", "alex", "lin", "jo")) + f"{rng.randint(10, 99)}@mail.com"
        contacts: list[dict[str, Any]] = []
        for name in names:
            _make_contact(contacts, name, _draw_number(rng, lang), rng.choice(ACCOUNTS),
                          f"{name.split()[0].lower()}@example.com" if lang == "en" and rng.random() < 0.5 else "")
            contacts[-1]["favorite"] = rng.random() < 0.15
        labels = {"zh": ("手机", "SIM卡", f"账号（{email}）"), "en": ("Phone", "SIM card", f"Account ({email})")}[lang]
        accounts = [{"id": aid, "label": label} for aid, label in zip(ACCOUNTS, labels)]
        return {"contacts": contacts, "accounts": accounts, "default_account": None}

    # ----- set-up hooks ---------------------------------------------------------------------------------------------
    def setup_contact(self, ctx: Ctx, name: str, phone: str | None = None, copies: int = 1,
                      account: str = "Phone") -> list[str]:
        """Make sure at least `copies` contacts are called `name` (two people of one name: `copies=2`), each with its
        own number (`phone` for the first, when given); returns their numbers. Calling it again changes nothing."""
        lang = "zh" if ctx.locale == "zh" else "en"
        contacts = ctx.state["contacts"]
        have = [c for c in contacts if c["name"] == name]
        for i in range(len(have), int(copies)):
            number = phone if (phone and i == 0) else _stable_number(name, i, lang)
            have.append(_make_contact(contacts, name, number, account))
        return [c["phone"] for c in have]

    def setup_no_contact(self, ctx: Ctx, name: str | None = None, number: str | None = None) -> None:
        """Make sure no contact is called `name` and none has `number` (then the number shows as unknown)."""
        ctx.state["contacts"] = [c for c in ctx.state["contacts"]
                                 if not (name and c["name"] == name)
                                 and not (number and same_number(c["phone"], number))]

    def setup_save_location(self, ctx: Ctx, account: str | None = None) -> None:
        """Where new contacts are saved: None asks every time (the default), else Phone, SIM or Account."""
        if account is not None and account not in ACCOUNTS:
            raise ValueError(f"account must be one of {', '.join(ACCOUNTS)}")
        ctx.state["default_account"] = account

    # ----- screens --------------------------------------------------------------------------------------------------
    def screen_home(self, ctx: Ctx) -> Widget:
        people = _sorted(ctx.state["contacts"])
        rows = [ListItem(c["name"], id="contact",
                         leading=Icon(c["name"][:1], desc=ctx.t("Photo of {name}", name=c["name"]), size=90,
                                      bg="primary"),
                         trailing=Icon("star_filled", desc="Favorite", size=56, color="primary")
                         if c["favorite"] else None,
                         on_click=lambda cx, cid=c["id"]: cx.push("contact", id=cid)) for c in people]

        def open_search(c: Ctx) -> None:
            c.push("search")
            c.frame["focus"] = "query"

        return Column(
            AppBar("Contacts", back=False, actions=[
                Icon("search", desc="Search contacts", size=80, id="search", on_click=open_search),
                Icon("plus", desc="Add contact", size=80, id="add_contact", on_click=lambda c: _new_contact(c))]),
            Row(Text(ctx.t("Search {n} contacts", n=len(people)), color=GREY, bg="surface", pad=24, radius=40,
                     weight=1.0, id="search_box", on_click=open_search), pad=28),
            Scroll(*(rows or [Text("No contacts", pad=60, align="center", color=GREY)]), id="contacts_list"))

    def screen_search(self, ctx: Ctx) -> Widget:
        query = str(ctx.params.get("query", "")).strip()
        low = query.lower()
        found = [c for c in _sorted(ctx.state["contacts"])
                 if low and (low in c["name"].lower() or (digits(low) and digits(low) in digits(c["phone"])))]
        rows = [ListItem(c["name"], c["phone"], id="result",
                         leading=Icon(c["name"][:1], desc=ctx.t("Photo of {name}", name=c["name"]), size=90,
                                      bg="primary"),
                         on_click=lambda cx, cid=c["id"]: cx.push("contact", id=cid)) for c in found]
        body: list[Widget] = rows if rows else [Text("No contacts found" if query else "Type a name or number", pad=60,
                                                     align="center", color=GREY, id="empty")]
        return Column(
            Row(Icon("back", desc="Navigate up", size=80, id="navigate_up", on_click=lambda c: c.back()),
                Input("query", hint="Search contacts", weight=1.0, on_text=_search, on_submit=_search), pad=28, gap=20),
            Text(ctx.t("Results for '{query}'", query=query), size="small", color=GREY, pad=28) if query else None,
            Scroll(*body, id="results"))

    def screen_contact(self, ctx: Ctx) -> Widget:
        contacts = ctx.state["contacts"]
        cid = ctx.params.get("id")
        c = _contact(ctx, cid) if cid is not None else (contacts[0] if contacts else None)
        if c is None:
            return Column(AppBar("Contact"), Text("This contact no longer exists", pad=60, color=GREY, id="missing"))
        cid, number, name = c["id"], c["phone"], c["name"]

        def favorite(cx: Ctx) -> None:
            found = _contact(cx, cid)
            if found is not None:
                found["favorite"] = not found["favorite"]
                cx.toast("Added to favorites" if found["favorite"] else "Removed from favorites")

        account = next((a for a in ctx.state["accounts"] if a["id"] == c["account"]), ctx.state["accounts"][0])
        return Column(
            AppBar("", actions=[
                Icon("star_filled" if c["favorite"] else "star", desc="Unfavorite" if c["favorite"] else "Favorite",
                     size=80, id="favorite", selected=c["favorite"], on_click=favorite),
                Icon("edit", desc="Edit", size=80, id="edit", on_click=lambda cx: cx.push("edit", id=cid)),
                Icon("trash", desc="Delete", size=80, id="delete",
                     on_click=lambda cx: cx.confirm(cx.t("Delete contact?"),
                                                    cx.t("{name} will be removed from your contacts.", name=name),
                                                    lambda c2: _delete_contact(c2, cid), yes=cx.t("Delete")))]),
            Scroll(Column(
                Icon(name[:1], desc=ctx.t("Photo of {name}", name=name), size=220, bg="primary"),
                Text(name, size="big", bold=True, align="center", id="contact_name"),
                Row(Button("Call", icon="forward", id="call", weight=1.0, on_click=lambda cx: place_call(cx, number)),
                    Button("Message", icon="send", style="secondary", id="message", weight=1.0,
                           on_click=lambda cx: cx.toast("Messages is not available")), gap=24),
                Card(Text("Mobile", size="small", color=GREY), Text(number, id="contact_phone"),
                     Text("Email", size="small", color=GREY) if c["email"] else None,
                     Text(c["email"], id="contact_email") if c["email"] else None,
                     Text(ctx.t("Saved in {account}", account=account["label"]), size="small", color=GREY,
                          id="contact_account")),
                pad=48, gap=28, align="center"), id="contact_scroll"))

    def screen_save_location(self, ctx: Ctx) -> Widget:
        number = ctx.params.get("phone", "")
        extra = {"phone": number} if number else {}
        rows = [ListItem(a["label"], id="account",
                         leading=Icon("user" if a["id"] == "Account" else "display", desc=a["label"], size=72,
                                      color="primary"),
                         on_click=lambda c, aid=a["id"]: c.replace("edit", account=aid, **extra))
                for a in ctx.state["accounts"]]
        return Column(AppBar("Save new contact to"),
                      Text("Choose where the new contact is kept.", size="small", color=GREY, pad=36),
                      Scroll(*rows, id="accounts"))

    def screen_edit(self, ctx: Ctx) -> Widget:
        c = _contact(ctx, ctx.params.get("id")) if ctx.params.get("id") is not None else None
        account_id = ctx.params.get("account") or ctx.state.get("default_account") or "Phone"
        account = next((a for a in ctx.state["accounts"] if a["id"] == account_id), ctx.state["accounts"][0])
        return Column(
            AppBar("Edit contact" if c else "New contact",
                   actions=[Button("Save", style="text", id="save", on_click=_save)]),
            Scroll(Column(
                Icon((c["name"] if c else "?")[:1], desc="Contact photo", size=180, bg="primary"),
                None if c else Text(ctx.t("Saving to {account}", account=account["label"]), size="small",
                                    color=GREY, id="saving_to"),
                _field("name", "Name", c["name"] if c else ""),
                _field("phone", "Phone", c["phone"] if c else ctx.params.get("phone", "")),
                pad=48, gap=32, align="center"), id="form"))


__all__ = ["Dialer", "AddressBook", "place_call", "digits", "national", "number_forms", "same_number"]
