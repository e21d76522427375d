"""Chat: a WeChat-like messenger with contacts, conversations, red packets, transfers, Moments and a profile."""

from __future__ import annotations

import random
from typing import Any

from mobile_r1.sim.apps import App, Ctx, money, new_id, register
from mobile_r1.sim.ui.widgets import (AppBar, Button, Card, Column, Divider, Grid, Icon, Image, Input, ListItem, Row,
                                      Scroll, Tabs, Text, Widget)

NAMES = ["Alice Wang", "Ben Carter", "Chloe Zhang", "David Liu", "Emma Brown", "Frank Zhou", "Grace Li", "Henry Park",
         "Ivy Chen", "Jack Wilson", "Kate Sun", "Leo Martin", "Mia Huang", "Noah Davis", "Olivia Wu", "Peter Ma"]
ME_NAMES = ["Sam Lee", "Alex Chen", "Jordan Wu", "Taylor Kim"]
SIGNATURES = ["Stay curious.", "Coffee first.", "Busy building things", "Life is short, eat dessert", "On the road",
              "Less is more", "Be kind", "Running every morning"]
LINES = ["Are we still on for lunch tomorrow?", "Sent you the files, check them when you can.", "Happy birthday!!",
         "Can you call me later?", "See you at the station at 6.", "Thanks for dinner last night!",
         "Did you watch the game?", "The meeting moved to 3 pm.", "I'll bring the book back on Friday.",
         "Great photos from the trip!", "Let's split the bill.", "Running 10 minutes late, sorry"]
REPLIES = ["Sure!", "Sounds good", "OK, thanks", "Haha yes", "No problem", "Got it", "Will do", "See you then"]
MOMENTS = ["Sunset at the beach today", "Finally finished my first marathon!", "New recipe: lemon pasta",
           "Weekend hike with friends", "My cat discovered the Christmas tree", "Coffee and rain, perfect Sunday",
           "Back in my home town after 5 years", "Graduation day!", "Trying the new ramen place downtown"]
AVATAR_COLORS = [(96, 125, 139), (233, 30, 99), (63, 81, 181), (0, 150, 136), (255, 152, 0), (121, 85, 72),
                 (156, 39, 176), (76, 175, 80)]
DEFAULT_AVATARS = [("Blue avatar", [90, 140, 220]), ("Green avatar", [90, 180, 120]), ("Orange avatar", [240, 150, 60]),
                   ("Purple avatar", [150, 100, 200])]
GREETINGS = ["Happy birthday!", "Thanks for lunch", "Lucky money for you", "Congrats on the new job!"]
RED_PACKET_MAX = 200.0
GREY = (120, 122, 130)
TABS = ("home", "contacts", "discover", "me")


# ----- state helpers ----------------------------------------------------------------------------------------
def _contact(ctx: Ctx, cid: int) -> dict[str, Any] | None:
    return next((c for c in ctx.state["contacts"] if c["id"] == cid), None)


def _conversation(ctx: Ctx, cid: int, create: bool = False) -> dict[str, Any] | None:
    conv = next((c for c in ctx.state["conversations"] if c["contact"] == cid), None)
    if conv is None and create:
        conv = {"contact": cid, "messages": [], "unread": 0, "updated": 0}
        ctx.state["conversations"].append(conv)
    return conv


def _touch(ctx: Ctx, conv: dict[str, Any]) -> None:
    ctx.state["clock"] += 1
    conv["updated"] = ctx.state["clock"]


def _add_message(ctx: Ctx, cid: int, kind: str, text: str, **extra: Any) -> dict[str, Any]:
    conv = _conversation(ctx, cid, create=True)
    assert conv is not None
    msg = {"id": new_id(conv["messages"]), "sender": "me", "kind": kind, "text": text, "time": ctx.clock_text, **extra}
    conv["messages"].append(msg)
    _touch(ctx, conv)
    return msg


def _amount(text: str) -> float | None:
    """A positive amount with at most two decimals, or None."""
    try:
        value = float(text.strip().lstrip("$").replace(",", ""))
    except ValueError:
        return None
    if value <= 0 or round(value, 2) != value:
        return None
    return value


def _pop_to(ctx: Ctx, screen: str) -> None:
    """Pop screens until `screen` is on top (keeps at least one screen)."""
    stack = ctx.phone.state.stacks[ctx.app_key]  # type: ignore[index]
    while len(stack) > 1 and stack[-1]["screen"] != screen:
        ctx.pop()


def _gallery_photos(ctx: Ctx) -> list[dict[str, Any]]:
    """Photos of the Gallery app on this phone (not deleted); empty when it is not installed."""
    return [p for p in ctx.phone.state.apps.get("gallery", {}).get("photos", []) if not p.get("deleted")]


def _avatar_widget(avatar: dict[str, Any], size: int, desc: str = "Profile photo", **kw: Any) -> Widget:
    return Image(desc=desc, height=size, width=size, color=tuple(avatar["color"]), radius=size // 5, **kw)


# ----- actions with effects ---------------------------------------------------------------------------------
def _confirm_payment(ctx: Ctx, *_: Any) -> None:
    """The payment password screen's confirm: check the password, then send the red packet or transfer."""
    p = ctx.params
    if ctx.fields.get("pay_password", "") != ctx.state["payment_password"]:
        ctx.state["failed_payments"] += 1
        ctx.set_field("pay_password", "")
        ctx.toast("Wrong payment password")
        return
    amount = float(p.get("amount", 0.0))
    if amount > ctx.state["balance"]:
        ctx.toast("Insufficient balance")
        return
    cid = int(p.get("contact", 0))
    contact = _contact(ctx, cid)
    if contact is None:
        ctx.toast("Contact not found")
        return
    ctx.state["balance"] = round(ctx.state["balance"] - amount, 2)
    kind = p.get("purpose", "transfer")
    note = str(p.get("note", ""))
    pid = new_id(ctx.state["payments"])
    ctx.state["payments"].append({"id": pid, "kind": kind, "contact": cid, "to": contact["name"], "amount": amount,
                                  "note": note, "time": ctx.clock_text})
    if kind == "red_packet":
        _add_message(ctx, cid, "red_packet", note, amount=amount, payment=pid)
        ctx.effect("red_packet", to=contact["name"], contact=cid, amount=amount, greeting=note, payment=pid)
        ctx.toast("Red packet sent")
    else:
        _add_message(ctx, cid, "transfer", note, amount=amount, payment=pid)
        ctx.effect("transfer", to=contact["name"], contact=cid, amount=amount, note=note, payment=pid)
        ctx.toast("Transfer sent")
    _pop_to(ctx, "conversation")
    if ctx.screen != "conversation" or ctx.params.get("id") != cid:
        ctx.replace("conversation", id=cid)
    ctx.params["panel"] = False


def _open_red_packet(ctx: Ctx, cid: int, mid: int) -> None:
    """Accept a red packet a contact sent: its amount goes to the Chat Pay balance."""
    conv = _conversation(ctx, cid)
    msg = next((m for m in conv["messages"] if m["id"] == mid), None) if conv else None
    if msg is None or msg.get("opened", True) or msg["sender"] == "me":
        return
    msg["opened"] = True
    ctx.state["balance"] = round(ctx.state["balance"] + msg["amount"], 2)
    contact = _contact(ctx, cid)
    ctx.effect("red_packet_open", sender=contact["name"] if contact else cid, contact=cid, amount=msg["amount"])
    ctx.toast(f"Received {money(msg['amount'])}")


def _start_payment(ctx: Ctx, purpose: str, cid: int) -> None:
    amount = _amount(ctx.fields.get("amount", ""))
    if amount is None:
        ctx.toast("Enter a valid amount")
        return
    if purpose == "red_packet" and amount > RED_PACKET_MAX:
        ctx.toast(f"A red packet can hold at most {money(RED_PACKET_MAX)}")
        return
    if amount > ctx.state["balance"]:
        ctx.toast("Insufficient balance")
        return
    default = "Best wishes" if purpose == "red_packet" else ""
    note = ctx.fields.get("greeting" if purpose == "red_packet" else "note", "").strip() or default
    ctx.push("pay", purpose=purpose, contact=cid, amount=amount, note=note)


def _open_conversation(ctx: Ctx, cid: int) -> None:
    conv = _conversation(ctx, cid)
    if conv is not None:
        conv["unread"] = 0
    ctx.push("conversation", id=cid)


def _send_text(ctx: Ctx, cid: int) -> None:
    text = ctx.fields.get("message", "").strip()
    if not text:
        ctx.toast("Type a message first")
        return
    _add_message(ctx, cid, "text", text)
    ctx.set_field("message", "")


def _post_moment(ctx: Ctx, text: str) -> None:
    me = ctx.state["me"]
    mid = new_id(ctx.state["moments"])
    ctx.state["moments"].insert(0, {"id": mid, "author": "me", "name": me["name"], "text": text, "likes": [],
                                    "comments": [], "time": "Just now"})
    ctx.effect("post", where="moments", moment=mid, text=text)
    ctx.toast("Posted")
    _pop_to(ctx, "moments")


def _set_avatar(ctx: Ctx, desc: str, color: list[int], photo_id: int | None) -> None:
    me = ctx.state["me"]
    old = dict(me["avatar"])
    me["avatar"] = {"photo_id": photo_id, "desc": desc, "color": list(color)}
    ctx.effect("profile_change", field="avatar", old=old, new=dict(me["avatar"]), photo=photo_id)
    ctx.toast("Profile photo updated")
    _pop_to(ctx, "profile")


def _save_signature(ctx: Ctx, text: str) -> None:
    me = ctx.state["me"]
    old = me["signature"]
    me["signature"] = text
    ctx.effect("profile_change", field="signature", old=old, new=text)
    ctx.toast("Signature updated")
    _pop_to(ctx, "profile")


def _toggle_like(ctx: Ctx, mid: int) -> None:
    moment = next((m for m in ctx.state["moments"] if m["id"] == mid), None)
    if moment is None:
        return
    name = ctx.state["me"]["name"]
    if name in moment["likes"]:
        moment["likes"].remove(name)
    else:
        moment["likes"].append(name)


@register
class Chat(App):
    name = "Chat"
    names = {"zh": "聊天"}
    package = "com.sim.chat"
    aliases = ("wechat", "weixin", "messenger", "im", "chat app")
    color = "#07c160"
    icon = "send"

    def initial_state(self, rng: random.Random) -> dict[str, Any]:
        names = rng.sample(NAMES, 10)
        contacts = [{"id": i + 1, "name": n, "chat_id": n.split()[0].lower() + str(rng.randint(10, 999)),
                     "region": rng.choice(["Shanghai", "Beijing", "Shenzhen", "London", "Toronto", "Sydney"]),
                     "signature": rng.choice(SIGNATURES), "color": list(rng.choice(AVATAR_COLORS))}
                    for i, n in enumerate(names)]
        conversations = []
        last = 9 * 60 + 30
        for order, c in enumerate(rng.sample(contacts, 6)):
            n = rng.randint(2, 5)
            last -= rng.randint(5, 40)
            msgs = []
            lines, replies = rng.sample(LINES, n), rng.sample(REPLIES, n)
            for j in range(n):
                sender = c["id"] if j % 2 == 0 else "me"
                text = lines[j] if sender != "me" else replies[j]
                minute = last - 2 * (n - 1 - j)
                msgs.append({"id": j + 1, "sender": sender, "kind": "text", "text": text,
                             "time": f"{minute // 60:02d}:{minute % 60:02d}"})
            if order == 1:
                minute = last + 1
                msgs.append({"id": n + 1, "sender": c["id"], "kind": "red_packet", "text": rng.choice(GREETINGS),
                             "amount": round(rng.uniform(1, 50), 2), "opened": False,
                             "time": f"{minute // 60:02d}:{minute % 60:02d}"})
            conversations.append({"contact": c["id"], "messages": msgs, "unread": rng.randint(0, 3) if order < 3 else 0,
                                  "updated": 6 - order})
        moments = []
        for i, (c, text) in enumerate(zip(rng.sample(contacts, 5), rng.sample(MOMENTS, 5))):
            likers = [x["name"] for x in rng.sample(contacts, rng.randint(0, 3)) if x["id"] != c["id"]]
            moments.append({"id": i + 1, "author": c["id"], "name": c["name"], "text": text,
                            "likes": likers, "comments": [], "time": f"{i + 1} h ago",
                            "photo": list(rng.choice(AVATAR_COLORS)) if rng.random() < 0.6 else None})
        me_name = rng.choice(ME_NAMES)
        avatar = rng.choice(DEFAULT_AVATARS)
        return {
            "me": {"name": me_name, "chat_id": me_name.split()[0].lower() + "_" + str(rng.randint(100, 999)),
                   "signature": rng.choice(SIGNATURES), "region": "Shanghai",
                   "avatar": {"photo_id": None, "desc": avatar[0], "color": list(avatar[1])}},
            "contacts": contacts, "conversations": conversations, "moments": moments,
            "balance": round(rng.uniform(300, 3000), 2), "payments": [],
            "payment_password": "".join(rng.choice("0123456789") for _ in range(6)), "failed_payments": 0,
            "clock": 10,
        }

    # ----- shared pieces --------------------------------------------------------------------------------------
    def _nav(self, selected: int) -> Widget:
        return Tabs(["Chats", "Contacts", "Discover", "Me"], selected, icons=["send", "person", "search", "user"],
                    on_select=lambda c, i: c.reset_to(TABS[i]) if i != selected else None, id="bottom_nav")

    def _contact_avatar(self, contact: dict[str, Any], size: int = 110) -> Widget:
        return Icon(contact["name"][:1], desc=f"{contact['name']} avatar", size=size, bg=tuple(contact["color"]),
                    round=False)

    # ----- screens --------------------------------------------------------------------------------------------
    def screen_home(self, ctx: Ctx) -> Widget:
        rows: list[Widget] = []
        for conv in sorted(ctx.state["conversations"], key=lambda c: -c["updated"]):
            contact = _contact(ctx, conv["contact"])
            if contact is None:
                continue
            last = conv["messages"][-1] if conv["messages"] else None
            preview = ""
            if last is not None:
                preview = {"red_packet": "[Red Packet]", "transfer": "[Transfer]"}.get(last["kind"], last["text"])
            unread = f"{conv['unread']} new" if conv["unread"] else (last["time"] if last else "")
            rows.append(ListItem(contact["name"], preview, id="conversation", leading=self._contact_avatar(contact),
                                 trailing=unread, on_click=lambda c, cid=contact["id"]: _open_conversation(c, cid)))
        return Column(
            AppBar("Chats", back=False, actions=[Icon("plus", desc="New chat", size=80, id="new_chat",
                                                      on_click=lambda c: c.reset_to("contacts"))]),
            Scroll(*(rows or [Text("No chats yet", pad=60, color=GREY)]), id="conversations"),
            self._nav(0))

    def screen_contacts(self, ctx: Ctx) -> Widget:
        rows = [ListItem(c["name"], c["signature"], id="contact", leading=self._contact_avatar(c, 96),
                         on_click=lambda x, cid=c["id"]: x.push("contact", id=cid))
                for c in sorted(ctx.state["contacts"], key=lambda c: c["name"])]
        return Column(AppBar("Contacts", back=False), Scroll(*rows, id="contacts_list"), self._nav(1))

    def screen_contact(self, ctx: Ctx) -> Widget:
        contact = _contact(ctx, ctx.params.get("id", -1)) or ctx.state["contacts"][0]
        cid = contact["id"]
        return Column(
            AppBar("Contact info"),
            Row(self._contact_avatar(contact, 180),
                Column(Text(contact["name"], size="big", bold=True, id="contact_name"),
                       Text(f"Chat ID: {contact['chat_id']}", size="small", color=GREY, id="contact_chat_id"),
                       Text(f"Region: {contact['region']}", size="small", color=GREY), weight=1.0, gap=8),
                pad=48, gap=36),
            Divider(),
            ListItem("What's Up", contact["signature"], id="contact_signature"),
            Divider(),
            Column(Button("Messages", icon="send", id="send_message",
                          on_click=lambda c: _open_conversation(c, cid)),
                   Button("Transfer", style="secondary", id="contact_transfer",
                          on_click=lambda c: c.push("transfer", contact=cid)),
                   pad=48, gap=28))

    def _bubble(self, ctx: Ctx, msg: dict[str, Any], contact: dict[str, Any]) -> Widget:
        mine = msg["sender"] == "me"
        if msg["kind"] == "red_packet":
            sealed = not mine and not msg.get("opened", True)
            cid, mid = contact["id"], msg["id"]
            status = "Tap to open" if sealed else ("Opened" if not mine else money(msg.get("amount", 0.0)))
            body: Widget = Column(
                Text("Red Packet", size="small", bold=True, color=(255, 255, 255)),
                Text(msg["text"] or "Best wishes", color=(255, 255, 255), id="message_text"),
                Text(status, size="small", color=(255, 230, 180)),
                pad=28, gap=6, bg=(250, 157, 59) if mine or sealed else (250, 200, 150), radius=20,
                id="red_packet_message", desc=f"Red packet from {contact['name']}" if not mine else "Red packet",
                on_click=(lambda c: c.confirm("Open red packet?", f"{contact['name']} sent you a red packet.",
                                              lambda c2: _open_red_packet(c2, cid, mid), yes="Open"))
                if sealed else None)
        elif msg["kind"] == "transfer":
            body = Column(Text(f"Transfer {money(msg.get('amount', 0.0))}", bold=True, color=(255, 255, 255),
                               id="message_text"),
                          Text(msg["text"] or ("Transfer to " + contact["name"] if mine else "Transfer to you"),
                               size="small", color=(255, 240, 220)),
                          pad=28, gap=6, bg=(250, 157, 59), radius=20, id="transfer_message")
        else:
            body = Text(msg["text"], pad=24, radius=20, bg=(149, 236, 105) if mine else "surface", id="message_text")
        spacer = Column(weight=0.35)
        avatar = (_avatar_widget(ctx.state["me"]["avatar"], 90, desc="My avatar") if mine
                  else self._contact_avatar(contact, 90))
        body.weight = 1.0
        row = Row(spacer, body, avatar, gap=20) if mine else Row(avatar, body, spacer, gap=20)
        return Column(row, pad=16, id="message_row")

    def screen_conversation(self, ctx: Ctx) -> Widget:
        convs = ctx.state["conversations"]
        cid = ctx.params.get("id", convs[0]["contact"] if convs else ctx.state["contacts"][0]["id"])
        contact = _contact(ctx, cid) or ctx.state["contacts"][0]
        cid = contact["id"]
        conv = _conversation(ctx, cid)
        messages = conv["messages"] if conv else []
        panel = bool(ctx.params.get("panel"))

        def toggle_panel(c: Ctx) -> None:
            c.params["panel"] = not panel

        tools = Row(Icon("R", desc="Red packet", size=110, bg=(250, 157, 59), round=False, label="Red Packet",
                         id="red_packet", on_click=lambda c: c.push("red_packet", contact=cid)),
                    Icon("$", desc="Transfer", size=110, bg=(250, 157, 59), round=False, label="Transfer",
                         id="transfer", on_click=lambda c: c.push("transfer", contact=cid)),
                    pad=36, gap=60, bg="surface") if panel else None
        return Column(
            AppBar(contact["name"], actions=[Icon("more", desc="Chat info", size=80, id="chat_info",
                                                  on_click=lambda c: c.push("contact", id=cid))]),
            Scroll(*[self._bubble(ctx, m, contact) for m in messages], id="messages", pad=12),
            Row(Input("message", hint="Message", weight=1.0, on_submit=lambda c, _t: _send_text(c, cid)),
                Icon("plus", desc="More functions", size=80, id="more", on_click=toggle_panel),
                Button("Send", id="send", on_click=lambda c: _send_text(c, cid)), pad=20, gap=16, bg="surface"),
            tools)

    def screen_red_packet(self, ctx: Ctx) -> Widget:
        contact = _contact(ctx, ctx.params.get("contact", -1)) or ctx.state["contacts"][0]
        cid = contact["id"]
        return Column(
            AppBar("Send Red Packet"),
            Column(Text(f"To: {contact['name']}", size="title", id="recipient"),
                   Input("amount", hint=f"Amount (max {money(RED_PACKET_MAX)})"),
                   Input("greeting", hint="Best wishes"),
                   Text(f"Balance: {money(ctx.state['balance'])}", size="small", color=GREY, id="balance"),
                   Button("Prepare Red Packet", id="prepare", on_click=lambda c: _start_payment(c, "red_packet", cid)),
                   pad=48, gap=36))

    def screen_transfer(self, ctx: Ctx) -> Widget:
        contact = _contact(ctx, ctx.params.get("contact", -1)) or ctx.state["contacts"][0]
        cid = contact["id"]
        return Column(
            AppBar("Transfer"),
            Column(Row(self._contact_avatar(contact, 110),
                       Text(f"Transfer to {contact['name']}", size="title", id="recipient", weight=1.0)),
                   Input("amount", hint="Amount"),
                   Input("note", hint="Add note (optional)"),
                   Text(f"Balance: {money(ctx.state['balance'])}", size="small", color=GREY, id="balance"),
                   Button("Transfer", id="do_transfer", on_click=lambda c: _start_payment(c, "transfer", cid)),
                   pad=48, gap=36))

    def screen_pay(self, ctx: Ctx) -> Widget:
        p = ctx.params
        contact = _contact(ctx, p.get("contact", -1)) or ctx.state["contacts"][0]
        what = "Red packet" if p.get("purpose") == "red_packet" else "Transfer"
        return Column(
            AppBar("Enter payment password"),
            Column(Text(f"{what} to {contact['name']}", size="title", align="center", id="pay_summary"),
                   Text(money(float(p.get("amount", 0.0))), size="huge", bold=True, align="center", id="amount"),
                   Text(f"Note: {p.get('note', '')}" if p.get("note") else "", size="small", color=GREY,
                        align="center"),
                   Text("Pay with: Chat Pay balance", size="small", color=GREY, align="center"),
                   Input("pay_password", hint="6-digit payment password", password=True, on_submit=_confirm_payment),
                   Button("Confirm", id="confirm_payment", on_click=_confirm_payment),
                   Button("Cancel", style="text", id="cancel_payment", on_click=lambda c: c.pop()),
                   pad=48, gap=32))

    def screen_discover(self, ctx: Ctx) -> Widget:
        return Column(AppBar("Discover", back=False),
                      Scroll(ListItem("Moments", "See what friends are sharing", id="moments",
                                      leading=Icon("star", size=80, color="primary"),
                                      on_click=lambda c: c.push("moments")),
                             Divider(),
                             ListItem("Chat Pay", f"Balance {money(ctx.state['balance'])}", id="chat_pay",
                                      leading=Icon("$", desc="Chat Pay", size=80, bg="primary", round=False),
                                      on_click=lambda c: c.push("chat_pay")), id="discover_list"),
                      self._nav(2))

    def screen_moments(self, ctx: Ctx) -> Widget:
        me_name = ctx.state["me"]["name"]
        cards: list[Widget] = []
        for m in ctx.state["moments"]:
            liked = me_name in m["likes"]
            mid = m["id"]
            cards.append(Column(
                Text(m["name"], bold=True, color="primary", id="moment_author"),
                Text(m["text"], id="moment_text"),
                Image(desc=f"Photo: {m['text']}", height=320, color=tuple(m["photo"])) if m.get("photo") else None,
                Row(Text(m["time"], size="small", color=GREY, weight=1.0),
                    Icon("heart_filled" if liked else "heart", desc="Unlike" if liked else "Like", size=70,
                         color="danger" if liked else None, id="like", selected=liked,
                         on_click=lambda c, mid=mid: _toggle_like(c, mid))),
                Text("Liked by " + ", ".join(m["likes"]), size="small", color=GREY, id="moment_likes")
                if m["likes"] else None,
                pad=36, gap=14, id="moment"))
            cards.append(Divider())
        return Column(
            AppBar("Moments", actions=[Icon("edit", desc="Post a moment", size=80, id="post_moment",
                                            on_click=lambda c: c.push("post_moment"))]),
            Scroll(Row(Text(ctx.state["me"]["name"], size="title", bold=True, weight=1.0),
                       _avatar_widget(ctx.state["me"]["avatar"], 140, desc="My avatar"), pad=36),
                   Divider(), *cards, id="moments_feed"))

    def screen_post_moment(self, ctx: Ctx) -> Widget:
        def post(c: Ctx) -> None:
            text = c.fields.get("moment_text", "").strip()
            if not text:
                c.toast("Write something first")
                return
            c.confirm("Post to Moments?", f"Your friends will see: \"{text}\"", lambda c2: _post_moment(c2, text),
                      yes="Post")

        return Column(
            AppBar("New moment", actions=[Button("Post", style="text", id="publish", on_click=post)]),
            Column(Input("moment_text", hint="Share your thoughts...", lines=5),
                   Text("Visible to: All friends", size="small", color=GREY), pad=36, gap=28))

    def screen_me(self, ctx: Ctx) -> Widget:
        me = ctx.state["me"]
        return Column(
            Row(_avatar_widget(me["avatar"], 170, desc="My avatar"),
                Column(Text(me["name"], size="big", bold=True, id="my_name"),
                       Text(f"Chat ID: {me['chat_id']}", size="small", color=GREY),
                       Text(me["signature"], size="small", color=GREY, id="my_signature", max_lines=1),
                       weight=1.0, gap=8),
                Icon("forward", desc="My profile", size=60), pad=48, gap=36, id="profile_card",
                on_click=lambda c: c.push("profile")),
            Divider(),
            Scroll(ListItem("Chat Pay", money(ctx.state["balance"]), id="chat_pay",
                            leading=Icon("$", desc="Chat Pay", size=80, bg="primary", round=False),
                            on_click=lambda c: c.push("chat_pay")),
                   ListItem("Moments", id="my_moments", leading=Icon("star", size=80, color="primary"),
                            on_click=lambda c: c.push("moments")),
                   ListItem("Settings", id="settings", leading=Icon("gear", size=80, color="primary"),
                            on_click=lambda c: c.toast("Settings are managed by the system")),
                   id="me_list"),
            self._nav(3))

    def screen_profile(self, ctx: Ctx) -> Widget:
        me = ctx.state["me"]
        return Column(
            AppBar("My profile"),
            Scroll(ListItem("Profile photo", me["avatar"]["desc"], id="avatar_row",
                            trailing=_avatar_widget(me["avatar"], 120),
                            on_click=lambda c: c.request_permission("storage", lambda c2: c2.push("avatar"))),
                   ListItem("Name", trailing=me["name"], id="name_row"),
                   ListItem("Chat ID", trailing=me["chat_id"], id="chat_id_row"),
                   ListItem("Region", trailing=me["region"], id="region_row"),
                   ListItem("Signature", me["signature"], id="signature_row",
                            on_click=lambda c: c.push("edit_signature")),
                   id="profile_list"))

    def screen_edit_signature(self, ctx: Ctx) -> Widget:
        current = ctx.state["me"]["signature"]

        def save(c: Ctx, *_: Any) -> None:
            text = c.fields.get("signature", "").strip()
            if not text:
                c.toast("Type a new signature")
                return
            if len(text) > 30:
                c.toast("A signature has at most 30 characters")
                return
            if text == c.state["me"]["signature"]:
                c.pop()
                return
            c.confirm("Update signature?", f"Everyone who views your profile will see: \"{text}\"",
                      lambda c2: _save_signature(c2, text), yes="Update")

        return Column(
            AppBar("Set signature", actions=[Button("Save", style="text", id="save_signature", on_click=save)]),
            Column(Text(f"Current: {current}", size="small", color=GREY, id="current_signature"),
                   Input("signature", hint="Write a new signature", lines=2, on_submit=save),
                   Text("Up to 30 characters", size="small", color=GREY), pad=36, gap=24))

    def screen_avatar(self, ctx: Ctx) -> Widget:
        photos = _gallery_photos(ctx)
        options: list[tuple[str, list[int], int | None]] = [(p["title"], list(p["color"]), p["id"]) for p in photos]
        source = "From Gallery"
        if not options:
            options = [(d, list(c), None) for d, c in DEFAULT_AVATARS]
            source = "Default avatars"

        def pick(desc: str, color: list[int], photo_id: int | None) -> Any:
            def handler(c: Ctx) -> None:
                c.confirm("Use as profile photo?", f"Your friends will see \"{desc}\" as your profile photo.",
                          lambda c2: _set_avatar(c2, desc, color, photo_id), yes="Use photo")
            return handler

        cells = [Image(desc=desc, height=300, color=tuple(color), id="avatar_option", on_click=pick(desc, color, pid))
                 for desc, color, pid in options]
        return Column(AppBar("Choose profile photo"), Text(source, size="small", color=GREY, pad=28),
                      Scroll(Grid(*cells, cols=3, gap=12, pad=12), id="avatar_grid"))

    def screen_chat_pay(self, ctx: Ctx) -> Widget:
        rows = [ListItem(f"{'Red packet' if p['kind'] == 'red_packet' else 'Transfer'} to {p['to']}",
                         p["note"] or p["time"], trailing=f"-{money(p['amount'])}", id="payment")
                for p in reversed(ctx.state["payments"])]
        return Column(AppBar("Chat Pay"),
                      Card(Text("Balance", size="small", color=GREY),
                           Text(money(ctx.state["balance"]), size="huge", bold=True, id="balance"), pad=48),
                      Text("Payments", size="small", color=GREY, pad=28),
                      Scroll(*(rows or [Text("No payments yet", pad=40, color=GREY)]), id="payments"))
