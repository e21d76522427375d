"""Chat-with-pay apps (WeChat, QQ): one engine with chats with contacts and groups, a search, Moments (the feed newest
first, posting photos from the phone's albums with a caption, who may see my posts, deleting my own posts), a profile
(nickname, per-group alias, signature, profile photo), transfers and red packets paid with the payment password, and a
login wall. Each app is a small identity on the engine (`MessengerApp`): names, package, colours, its words for the
feed and the wallet, and the style of its friends' names.

State (a judge reads it by path, e.g. `wechat.contacts[name=A Run].id`, `qq.groups[*].my_alias`):
  me            {"name" (nickname), "account", "signature", "region", "avatar"}
  contacts      [{"id", "name", "account", "region", "signature", "color"}]
  groups        [{"id", "name", "members": [contact ids], "my_alias"}]; `my_alias` empty means my nickname is shown
  chats         [{"id", "kind": "contact"|"group", "target", "messages", "unread", "updated"}]; a message is
                {"id", "sender": "me"|contact id, "kind": "text"|"photo"|"transfer"|"red_packet", "text", "time", ...}
  moments       [{"id", "author": contact id|"me", "name", "text", "photos": [{"desc", "color", "photo"}], "likes",
                  "hours_ago", "deleted"}]; the feed shows them by `hours_ago`, newest first
  settings      {"moments_visibility": a key of VISIBILITY}
  wallet        {"balance", "cards": [{"bank", "last4"}]}; `payments`: what was paid; `draft_photos`: picked photo ids
  payment_password, failed_payments, logged_in
Effects: `message` (to, text, chat), `transfer` (to, contact, account, amount, note, method, payment), `red_packet`
(to, group, contact, amount, count, note, method, payment), `post` (where, moment, text, photos, photo_names, albums,
album_count, whole_albums: the albums all of whose photos it posts), `delete` (item="moment", moment, text, days_ago),
`profile_change` (field nickname|signature|group_alias|avatar, old, new, groups / group), `like`, `login`, `logout`.
Who may see my posts is a setting (state), not an effect.
"""

from __future__ import annotations

import random
from typing import Any, Callable, ClassVar

from mobile_r1.sim.apps import App, Ctx, new_id, register
from mobile_r1.sim.apps._payment import PAYMENT_ZH, Method, parse_amount, password_ok, pay_sheet
from mobile_r1.sim.media import live
from mobile_r1.sim.ui.widgets import (AppBar, Button, Card, Checkbox, Column, Divider, Grid, Icon, Image, Input,
                                      ListItem, Row, Scroll, Tabs, Text, Widget)

GREY = (120, 122, 130)
RED = (250, 157, 59)
RED_PACKET_MAX = 200.0  # per packet, as WeChat
MAX_PHOTOS = 9
TABS = ("home", "contacts", "discover", "me")
AVATAR_COLORS = [(96, 125, 139), (233, 30, 99), (63, 81, 181), (0, 150, 136), (255, 152, 0), (121, 85, 72),
                 (156, 39, 176), (76, 175, 80)]
PHOTO_COLORS = [(120, 170, 220), (240, 180, 120), (150, 200, 150), (220, 140, 160), (180, 160, 220), (250, 210, 110),
                (110, 190, 190), (200, 120, 100), (160, 180, 120), (90, 130, 170), (230, 150, 200), (140, 140, 150)]

# Who may see my posts: key -> its label (the words shown; the Chinese table has them too).
VISIBILITY: dict[str, str] = {"all": "Visible to All", "friends": "Visible to Friends Only",
                              "3days": "Visible for the Last 3 Days", "month": "Visible for the Last Month",
                              "6months": "Visible for the Last 6 Months", "private": "Private (Only Me)"}

_DATA: dict[str, dict[str, tuple[str, ...]]] = {
    "en": {
        "regions": ("Shanghai", "Beijing", "Shenzhen", "Hangzhou", "Chengdu"),
        "banks": ("China Merchants Bank", "Bank of China", "China Construction Bank", "Agricultural Bank"),
        "groups": ("College classmates", "Project team", "Hiking club", "Book club"),
        "signatures": ("Stay curious.", "Coffee first.", "Busy building things", "Life is short, eat dessert",
                       "On the road", "Less is more", "Be kind", "Running every morning"),
        "lines": ("Are we still on for lunch tomorrow?", "Sent you the files, check them when you can.",
                  "Happy birthday!!", "Can you call me later?", "See you at the station at 6.",
                  "Thanks for dinner last night!", "Did you watch the game?", "The meeting moved to 3 pm.",
                  "I'll bring the book back on Friday.", "Great photos from the trip!", "Let's split the bill.",
                  "Running 10 minutes late, sorry"),
        "replies": ("Sure!", "Sounds good", "OK, thanks", "Haha yes", "No problem", "Got it", "Will do",
                    "See you then"),
        "moments": ("Sunset at the beach today", "Finally finished my first marathon!", "New recipe: lemon pasta",
                    "Weekend hike with friends", "My cat discovered the Christmas tree",
                    "Coffee and rain, perfect Sunday", "Back in my home town after 5 years", "Graduation day!",
                    "Trying the new ramen place downtown"),
        "mine": ("Morning run by the river", "Weekend baking: banana bread", "Team dinner tonight",
                 "New book, new week", "Spring flowers in the park", "Road trip day 1", "First snow this year",
                 "Concert night!"),
    },
    "zh": {
        "regions": ("上海", "北京", "深圳", "杭州", "成都"),
        "banks": ("招商银行", "中国银行", "建设银行", "农业银行"),
        "groups": ("大学同学", "项目组", "徒步俱乐部", "读书会"),
        "signatures": ("保持好奇。", "咖啡优先。", "忙着创造", "人生苦短，先吃甜点", "在路上", "少即是多", "与人为善",
                       "每天晨跑"),
        "lines": ("明天中午还一起吃饭吗？", "文件发你了，有空看一下。", "生日快乐！！", "晚点给我回个电话吧",
                  "六点车站见。", "谢谢昨晚的晚餐！", "看昨晚的比赛了吗？", "会议改到下午三点了。", "周五把书还你。",
                  "旅行的照片拍得真好！", "我们平摊吧。", "抱歉，要晚到十分钟"),
        "replies": ("好的！", "听起来不错", "好，谢谢", "哈哈是的", "没问题", "收到", "马上", "到时见"),
        "moments": ("今天海边的日落", "终于跑完了第一个马拉松！", "新菜谱：柠檬意面", "和朋友们周末爬山",
                    "我家猫发现了圣诞树", "咖啡配雨天，完美的周日", "五年后回到家乡", "毕业啦！",
                    "尝了市中心新开的拉面店"),
        "mine": ("河边晨跑", "周末烘焙：香蕉面包", "今晚团队聚餐", "新书，新的一周", "公园里的春花", "自驾游第一天",
                 "今年的第一场雪", "演唱会之夜！"),
    },
}

# The engine's words in Chinese; each app lays its own (tab names, the feed's and the wallet's names) over them.
ENGINE_ZH: dict[str, str] = {
    **PAYMENT_ZH,
    # chats, search, contacts, groups
    "No chats yet": "暂无聊天", "Search contacts, groups and chats": "搜索联系人、群聊和聊天记录", "Group chats": "群聊",
    "No group chats yet": "暂无群聊", "{name}: {words}": "{name}：{words}", "[Red Packet]": "[红包]", "[Transfer]": "[转账]",
    "[Photo]": "[图片]", "{n} new": "{n} 条新消息", "Message": "消息", "More functions": "更多功能",
    "Type a message first": "请先输入消息", "Red Packet": "红包", "Transfer": "转账",
    "Chat info": "聊天信息", "Group info": "群聊信息", "{name} ({n})": "{name}（{n}）", "Members": "群成员",
    "Group name": "群聊名称", "My alias in group": "我在本群的昵称", "Not set": "未设置",
    "Set my alias in {group}": "设置我在{group}的昵称", "New alias": "新昵称", "Type an alias": "请输入昵称",
    "Alias updated": "群昵称已修改", "Region: {region}": "地区：{region}", "{label}: {account}": "{label}：{account}",
    "Signature": "个性签名", "Send message": "发消息", "Contact info": "详细资料",
    # pay
    "Send Red Packet": "发红包", "To: {name}": "发给：{name}", "Total amount": "总金额",
    "Quantity": "红包个数", "{n} packets": "{n} 个", "Fewer packets": "减少红包个数", "More packets": "增加红包个数",
    "Best wishes": "恭喜发财，大吉大利", "Prepare Red Packet": "塞钱进红包",
    "A red packet can hold at most {max}": "单个红包金额不可超过 {max}", "Transfer to {name}": "转账给{name}",
    "Add transfer note (optional)": "添加转账说明（选填）", "Red packet to {name}": "发红包给{name}",
    "Red packet": "红包", "Note: {note}": "备注：{note}", "Red packet sent": "红包已发出", "Transfer sent": "转账成功",
    "{what} to {name}": "{what}给{name}", "{count} red packets": "{count} 个红包",
    "Transfer {amount}": "转账 {amount}", "Transferred to you": "转账给你",
    "Bank cards": "银行卡", "Payments": "账单",
    "No payments yet": "暂无账单", "Transfer to a friend": "转账给朋友", "Choose a friend": "选择朋友",
    "Search friends": "搜索朋友", "{kind} to {name}": "{kind}给{name}",
    # moments
    "Post": "发表", "Delete this post?": "删除这条动态？", "Deleted": "已删除",
    "Just now": "刚刚", "{n} h ago": "{n}小时前", "{n} days ago": "{n}天前", "Liked by {names}": "{names}觉得很赞",
    "My posts": "我的动态", "No posts yet": "还没有动态", "Delete \u201c{words}\u201d": "删除“{words}”",
    "Photo: {words}": "图片：{words}", "New post": "发表动态", "Say something...": "这一刻的想法...",
    "Add photos": "添加照片", "Who can see: {label}": "谁可以看：{label}", "Write something or add photos first":
    "请先写点什么或添加照片", "Posted": "已发表", "Remove photo {n}": "移除第 {n} 张照片",
    "All photos": "全部照片", "Choose an album": "选择相册", "{n} photos": "{n} 张照片",
    "Select all": "全选", "Done ({n})": "完成（{n}）", "At most {n} photos": "最多选择 {n} 张照片",
    "Photo {n}: {subject}, {album}": "第 {n} 张照片：{subject}，{album}",
    "Photo {n}: {subject}": "第 {n} 张照片：{subject}", "No photos": "没有照片",
    "Who can see my posts": "谁可以看我的动态", "Saved": "已保存", "{feed} privacy": "{feed}权限",
    "Visible to All": "所有人可见", "Visible to Friends Only": "仅好友可见", "Visible for the Last 3 Days": "最近三天可见",
    "Visible for the Last Month": "最近一个月可见", "Visible for the Last 6 Months": "最近半年可见",
    "Private (Only Me)": "仅自己可见", "Unlike": "取消赞", "Selected": "已选中",
    # me, profile, settings
    "My profile": "个人信息", "Profile photo": "头像", "Nickname": "昵称", "Set nickname": "设置昵称",
    "Current: {value}": "当前：{value}", "New nickname": "新昵称", "Type a nickname": "请输入昵称",
    "Use it as my alias in all group chats": "同步更新到所有群聊", "At most {n} characters": "最多 {n} 个字",
    "Nickname updated": "昵称已修改", "Set signature": "设置个性签名", "New signature": "新的个性签名",
    "Type a signature": "请输入个性签名", "Signature updated": "个性签名已修改", "Region": "地区",
    "Choose profile photo": "选择头像", "Use as profile photo?": "设为头像？",
    "Your friends will see this photo as your profile photo.": "朋友们将看到这张照片作为你的头像。",
    "Use photo": "使用照片", "Profile photo updated": "头像已更换", "Privacy": "隐私",
    "Log out?": "退出登录？", "You will need to log in again.": "需要重新登录。", "My avatar": "我的头像",
    "{n} members": "{n} 人",
}


# ----- small state helpers ---------------------------------------------------------------------------------------------
def _by_id(items: list[dict[str, Any]], iid: Any) -> dict[str, Any] | None:
    return next((i for i in items if i["id"] == iid), None)


def _by_name(items: list[dict[str, Any]], name: str) -> dict[str, Any] | None:
    want = name.strip().lower()
    return next((i for i in items if i["name"].strip().lower() == want), None)


def _chat(state: dict[str, Any], kind: str, target: int, create: bool = False) -> dict[str, Any] | None:
    chat = next((c for c in state["chats"] if c["kind"] == kind and c["target"] == target), None)
    if chat is None and create:
        chat = {"id": new_id(state["chats"]), "kind": kind, "target": target, "messages": [], "unread": 0,
                "updated": 0}
        state["chats"].append(chat)
    return chat


def _touch(state: dict[str, Any], chat: dict[str, Any]) -> None:
    state["clock"] = state.get("clock", 0) + 1
    chat["updated"] = state["clock"]


def _post(ctx: Ctx, kind: str, target: int, msg_kind: str, text: str, **extra: Any) -> dict[str, Any]:
    chat = _chat(ctx.state, kind, target, create=True)
    assert chat is not None
    msg = {"id": new_id(chat["messages"]), "sender": "me", "kind": msg_kind, "text": text, "time": ctx.clock_text,
           **extra}
    chat["messages"].append(msg)
    _touch(ctx.state, chat)
    return msg


def _target_name(state: dict[str, Any], kind: str, target: int) -> str:
    items = state["groups"] if kind == "group" else state["contacts"]
    found = _by_id(items, target)
    return found["name"] if found else ""


def _pop_flow(ctx: Ctx) -> None:
    """Close the screens of a payment flow (pay, transfer, red packet, friend picker)."""
    stack = ctx.phone.state.stacks[ctx.app_key]  # type: ignore[index]
    while len(stack) > 1 and stack[-1]["screen"] in ("pay", "transfer", "red_packet", "pick_contact"):
        ctx.pop()


def _pop_to(ctx: Ctx, screen: str) -> None:
    stack = ctx.phone.state.stacks[ctx.app_key]  # type: ignore[index]
    while len(stack) > 1 and stack[-1]["screen"] != screen:
        ctx.pop()


def days_ago(post: dict[str, Any]) -> int:
    """How many whole days ago a Moments post was made."""
    return int(post["hours_ago"]) // 24


def _age(ctx: Ctx, hours: int) -> str:
    if hours < 1:
        return ctx.t("Just now")
    if hours < 24:
        return ctx.t("{n} h ago", n=hours)
    if hours < 48:
        return ctx.t("Yesterday")
    return ctx.t("{n} days ago", n=hours // 24)


def _account(rng: random.Random, style: str) -> str:
    if style == "number":
        return str(rng.randint(10 ** 8, 10 ** 10 - 1))
    return "wxid_" + "".join(rng.choice("abcdefghijkmnpqrstuvwxyz23456789") for _ in range(10))


# ----- handlers with effects -------------------------------------------------------------------------------------------
def _send_text(ctx: Ctx, kind: str, target: int) -> None:
    text = ctx.fields.get("message", "").strip()
    if not text:
        ctx.toast("Type a message first")
        return
    _post(ctx, kind, target, "text", text)
    ctx.set_field("message", "")
    ctx.effect("message", to=_target_name(ctx.state, kind, target), chat=kind, target=target, text=text)


def _open_chat(ctx: Ctx, kind: str, target: int) -> None:
    chat = _chat(ctx.state, kind, target)
    if chat is not None:
        chat["unread"] = 0
    if "search" in ctx.fields:
        ctx.set_field("search", "")
    ctx.frame["focus"] = None
    ctx.push("conversation", **{kind: target})


def _start_payment(ctx: Ctx, purpose: str, kind: str, target: int) -> None:
    amount = parse_amount(ctx.fields.get("amount", ""))
    if amount is None:
        ctx.toast("Enter a valid amount")
        return
    count = int(ctx.params.get("count", 1)) if purpose == "red_packet" else 1
    if purpose == "red_packet" and amount / count > RED_PACKET_MAX + 1e-9:
        ctx.toast("A red packet can hold at most {max}", max=ctx.money(RED_PACKET_MAX))
        return
    if purpose == "red_packet" and amount < 0.01 * count:
        ctx.toast("Enter a valid amount")
        return
    note = ctx.fields.get("note", "").strip()
    if purpose == "red_packet" and not note:
        note = ctx.t("Best wishes")
    ctx.push("pay", purpose=purpose, kind=kind, target=target, amount=amount, count=count, note=note)


def _set_count(ctx: Ctx, value: int) -> None:
    ctx.params["count"] = max(1, min(100, value))


def _delete_moment(ctx: Ctx, mid: int) -> None:
    post = _by_id(ctx.state["moments"], mid)
    if post is None or post["deleted"] or post["author"] != "me":
        return
    post["deleted"] = True
    ctx.effect("delete", item="moment", moment=mid, text=post["text"], days_ago=days_ago(post),
               hours_ago=post["hours_ago"])
    ctx.toast("Deleted")


def _toggle_like(ctx: Ctx, mid: int) -> None:
    post = _by_id(ctx.state["moments"], mid)
    if post is None:
        return
    me = ctx.state["me"]["name"]
    if me in post["likes"]:
        post["likes"].remove(me)
    else:
        post["likes"].append(me)
        ctx.effect("like", item="moment", moment=mid, author=post["name"])


def _set_visibility(ctx: Ctx, key: str) -> None:
    old = ctx.state["settings"]["moments_visibility"]
    if old == key:
        return
    ctx.state["settings"]["moments_visibility"] = key  # a setting, not an effect: it can be changed back
    ctx.toast("Saved")


def _toggle_photo(ctx: Ctx, pid: int) -> None:
    picked = ctx.state["draft_photos"]  # kept sorted: the same photos picked in any order are the same draft
    if pid in picked:
        picked.remove(pid)
    elif len(picked) >= MAX_PHOTOS:
        ctx.toast("At most {n} photos", n=MAX_PHOTOS)
    else:
        picked.append(pid)
        picked.sort()


def _select_all(ctx: Ctx, ids: list[int]) -> None:
    picked = ctx.state["draft_photos"]
    for pid in ids:
        if pid not in picked:
            if len(picked) >= MAX_PHOTOS:
                ctx.toast("At most {n} photos", n=MAX_PHOTOS)
                break
            picked.append(pid)
    picked.sort()


def _done_photos(ctx: Ctx) -> None:
    _pop_to(ctx, "post_moment")


def _new_post(ctx: Ctx) -> None:
    ctx.state["draft_photos"] = []
    ctx.push("post_moment")


def _log_out(ctx: Ctx) -> None:
    ctx.state["logged_in"] = False
    ctx.effect("logout", account=ctx.state["me"]["account"])
    ctx.reset_to("login")


class MessengerApp(App):
    """The chat-with-pay engine. A subclass gives the identity (name, names, package, colour, icon), its words
    (`tab_names`, `feed_name`, `wallet_name`, `balance_name`, `account_label`), how its users are named (`friend_names`,
    `my_names` per language, `account_style`), and its own `strings`, laid over the engine's."""

    archetype = "chat_pay"
    currency = "CNY"
    uses_media = True
    login_required = True  # logged in by default; `setup_logged_out` puts the wall up
    tab_names: ClassVar[tuple[str, str, str, str]] = ("Chats", "Contacts", "Discover", "Me")
    feed_name: ClassVar[str] = "Moments"
    wallet_name: ClassVar[str] = "WeChat Pay"
    balance_name: ClassVar[str] = "Balance"
    account_label: ClassVar[str] = "WeChat ID"
    account_style: ClassVar[str] = "wxid"
    friend_names: ClassVar[dict[str, tuple[str, ...]]] = {}
    my_names: ClassVar[dict[str, tuple[str, ...]]] = {}
    strings: ClassVar[dict[str, dict[str, str]]] = {"zh": ENGINE_ZH}

    def __init_subclass__(cls, **kw: Any) -> None:
        """A subclass's own `strings` are laid over the engine's (so each app's table holds only its own words)."""
        super().__init_subclass__(**kw)
        own = cls.__dict__.get("strings")
        if own is not None:
            base = MessengerApp.strings
            cls.strings = {loc: {**base.get(loc, {}), **own.get(loc, {})} for loc in {*base, *own}}

    # ----- state -------------------------------------------------------------------------------------------------
    def initial_state(self, rng: random.Random) -> dict[str, Any]:
        lang = "zh" if self.locale == "zh" else "en"
        data = _DATA[lang]
        names = rng.sample(self.friend_names[lang], 10)
        contacts = [{"id": i + 1, "name": n, "account": _account(rng, self.account_style),
                     "region": rng.choice(data["regions"]), "signature": rng.choice(data["signatures"]),
                     "color": list(rng.choice(AVATAR_COLORS))} for i, n in enumerate(names)]
        groups = []
        for g, gname in enumerate(rng.sample(data["groups"], 2)):
            members = sorted(c["id"] for c in rng.sample(contacts, rng.randint(3, 6)))
            groups.append({"id": g + 1, "name": gname, "members": members, "my_alias": ""})
        chats: list[dict[str, Any]] = []
        minute = 9 * 60 + 30
        for order, c in enumerate(rng.sample(contacts, 5)):
            n = rng.randint(2, 4)
            minute -= rng.randint(5, 40)
            lines, replies = rng.sample(data["lines"], n), rng.sample(data["replies"], n)
            msgs = [{"id": j + 1, "sender": c["id"] if j % 2 == 0 else "me", "kind": "text",
                     "text": lines[j] if j % 2 == 0 else replies[j],
                     "time": f"{(minute - 2 * (n - j)) // 60:02d}:{(minute - 2 * (n - j)) % 60:02d}"} for j in range(n)]
            chats.append({"id": len(chats) + 1, "kind": "contact", "target": c["id"], "messages": msgs,
                          "unread": rng.randint(0, 3) if order < 2 else 0, "updated": 10 - order})
        for g in groups:
            speakers = rng.sample(g["members"], min(3, len(g["members"])))
            lines = rng.sample(data["lines"], len(speakers))
            msgs = [{"id": j + 1, "sender": s, "kind": "text", "text": line, "time": f"{8 + j:02d}:{10 * j:02d}"}
                    for j, (s, line) in enumerate(zip(speakers, lines))]
            chats.append({"id": len(chats) + 1, "kind": "group", "target": g["id"], "messages": msgs,
                          "unread": rng.randint(0, 9), "updated": rng.randint(1, 9)})
        moments = []
        hours = sorted(rng.sample(range(1, 96), 5))
        for i, (c, text, h) in enumerate(zip(rng.sample(contacts, 5), rng.sample(data["moments"], 5), hours)):
            likers = [x["name"] for x in rng.sample(contacts, rng.randint(0, 3)) if x["id"] != c["id"]]
            photos = [{"desc": text, "color": list(rng.choice(PHOTO_COLORS)), "photo": None}
                      for _ in range(rng.choice((0, 1, 1, 3)))]
            moments.append({"id": i + 1, "author": c["id"], "name": c["name"], "text": text, "photos": photos,
                            "likes": likers, "hours_ago": h, "deleted": False})
        me_name = rng.choice(self.my_names[lang])
        for j, (text, days) in enumerate(zip(rng.sample(data["mine"], 5), (2, 19, 47, 130, 260))):
            moments.append({"id": len(moments) + 1, "author": "me", "name": me_name, "text": text,
                            "photos": [{"desc": text, "color": list(rng.choice(PHOTO_COLORS)), "photo": None}],
                            "likes": [], "hours_ago": days * 24 + rng.randint(1, 20), "deleted": False})
        banks = data["banks"]
        return {
            "me": {"name": me_name, "account": _account(rng, self.account_style),
                   "signature": rng.choice(data["signatures"]), "region": rng.choice(data["regions"]),
                   "avatar": {"photo": None, "desc": "", "color": list(rng.choice(AVATAR_COLORS))}},
            "contacts": contacts, "groups": groups, "chats": chats, "moments": moments,
            "settings": {"moments_visibility": "all"},
            "wallet": {"balance": round(rng.uniform(800, 3000), 2),
                       "cards": [{"bank": rng.choice(banks), "last4": f"{rng.randint(0, 9999):04d}"}]},
            "payments": [], "draft_photos": [],
            "payment_password": "".join(rng.choice("0123456789") for _ in range(6)), "failed_payments": 0,
            "logged_in": True, "clock": 20,
        }

    # ----- set-up hooks a task calls to make the phone fit its line --------------------------------------------------
    def setup_logged_out(self, ctx: Ctx) -> None:
        """Log the account out: the app opens on its login wall (logging in records a `login` effect)."""
        ctx.state["logged_in"] = False

    def setup_contact(self, ctx: Ctx, name: str, account: str | None = None, chat: bool = True,
                      message: str | None = None) -> int:
        """Make sure a friend called `name` exists (with `account` as their WeChat ID / QQ number when given) and,
        with `chat`, that a chat with them is in the chats list; returns the contact's id."""
        contact = _by_name(ctx.state["contacts"], name)
        rng = random.Random(f"contact:{name}")
        if contact is None:
            contact = {"id": new_id(ctx.state["contacts"]), "name": name,
                       "account": account or _account(rng, self.account_style),
                       "region": rng.choice(_DATA[self._lang()]["regions"]),
                       "signature": rng.choice(_DATA[self._lang()]["signatures"]),
                       "color": list(rng.choice(AVATAR_COLORS))}
            ctx.state["contacts"].append(contact)
        elif account:
            contact["account"] = account
        if chat and _chat(ctx.state, "contact", contact["id"]) is None:
            conv = _chat(ctx.state, "contact", contact["id"], create=True)
            assert conv is not None
            text = message or rng.choice(_DATA[self._lang()]["lines"])
            conv["messages"].append({"id": 1, "sender": contact["id"], "kind": "text", "text": text, "time": "08:15"})
            conv["updated"] = max((c["updated"] for c in ctx.state["chats"]), default=0) + 1
        return int(contact["id"])

    def setup_group(self, ctx: Ctx, name: str, members: list[str] | int = 5, chat: bool = True) -> int:
        """Make sure a group chat called `name` exists, with `members` (friends' names, made when missing, or a number
        of existing friends) and a few messages; returns the group's id."""
        group = _by_name(ctx.state["groups"], name)
        if group is None:
            rng = random.Random(f"group:{name}")
            if isinstance(members, int):
                ids = sorted(c["id"] for c in rng.sample(ctx.state["contacts"], min(members, len(ctx.state["contacts"]))))
            else:
                ids = sorted(self.setup_contact(ctx, m, chat=False) for m in members)
            group = {"id": new_id(ctx.state["groups"]), "name": name, "members": ids, "my_alias": ""}
            ctx.state["groups"].append(group)
        if chat and _chat(ctx.state, "group", group["id"]) is None:
            conv = _chat(ctx.state, "group", group["id"], create=True)
            assert conv is not None
            rng = random.Random(f"group-chat:{name}")
            lines = rng.sample(_DATA[self._lang()]["lines"], 2)
            conv["messages"] = [{"id": j + 1, "sender": s, "kind": "text", "text": line, "time": f"08:{20 + j:02d}"}
                                for j, (s, line) in enumerate(zip(group["members"], lines))]
            conv["updated"] = max((c["updated"] for c in ctx.state["chats"]), default=0) + 1
        return int(group["id"])

    def setup_balance(self, ctx: Ctx, amount: float) -> None:
        """Set the wallet's balance (the bound bank card has no limit)."""
        ctx.state["wallet"]["balance"] = round(float(amount), 2)

    def setup_payment_password(self, ctx: Ctx, password: str) -> None:
        ctx.state["payment_password"] = str(password)

    def setup_profile(self, ctx: Ctx, nickname: str | None = None, signature: str | None = None) -> None:
        """Set my nickname and/or signature as they are before the task."""
        if nickname:
            old = ctx.state["me"]["name"]
            ctx.state["me"]["name"] = nickname
            for post in ctx.state["moments"]:
                if post["author"] == "me" and post["name"] == old:
                    post["name"] = nickname
        if signature:
            ctx.state["me"]["signature"] = signature

    def setup_my_posts(self, ctx: Ctx, days: list[int] | None = None, texts: list[str] | None = None) -> None:
        """Replace my own Moments posts with posts made `days` days ago (default 2, 19, 47, 130 and 260: three within
        the last three months), with `texts` when given."""
        days = [int(d) for d in (days if days is not None else [2, 19, 47, 130, 260])]
        pool = texts or list(_DATA[self._lang()]["mine"])
        ctx.state["moments"] = [m for m in ctx.state["moments"] if m["author"] != "me"]
        me = ctx.state["me"]["name"]
        for i, d in enumerate(days):
            text = pool[i % len(pool)]
            ctx.state["moments"].append({"id": new_id(ctx.state["moments"]), "author": "me", "name": me, "text": text,
                                         "photos": [{"desc": text, "color": list(PHOTO_COLORS[i % 12]), "photo": None}],
                                         "likes": [], "hours_ago": d * 24 + 3, "deleted": False})

    def setup_moment(self, ctx: Ctx, author: str, text: str, hours_ago: int = 1, photos: int = 1) -> int:
        """Add a friend's Moments post (`author` is made a friend when missing; the same post is added once); returns
        the post's id."""
        cid = self.setup_contact(ctx, author, chat=False)
        same = next((m for m in ctx.state["moments"] if m["author"] == cid and m["text"] == text), None)
        if same is not None:
            return int(same["id"])
        post = {"id": new_id(ctx.state["moments"]), "author": cid, "name": author, "text": text,
                "photos": [{"desc": text, "color": list(PHOTO_COLORS[i % 12]), "photo": None} for i in range(int(photos))],
                "likes": [], "hours_ago": int(hours_ago), "deleted": False}
        ctx.state["moments"].append(post)
        return int(post["id"])

    def setup_visibility(self, ctx: Ctx, value: str) -> None:
        """Set who may see my posts (a key of VISIBILITY, or its label in either language)."""
        ctx.state["settings"]["moments_visibility"] = visibility_key(value)

    def setup_wanted_visibility(self, ctx: Ctx, value: str) -> str:
        """Record in `targets["visibility"]` the key of the visibility a task asks for (a key of VISIBILITY, or its
        label in either language), for its goal to compare with `settings.moments_visibility`; makes sure the
        current setting differs from it (Visible to All, else Private). Returns the key."""
        key = visibility_key(value)
        ctx.state.setdefault("targets", {})["visibility"] = key
        if ctx.state["settings"]["moments_visibility"] == key:
            ctx.state["settings"]["moments_visibility"] = "all" if key != "all" else "private"
        return key

    def _lang(self) -> str:
        return "zh" if self.locale == "zh" else "en"

    # ----- shared pieces -------------------------------------------------------------------------------------------
    def _nav(self, selected: int) -> Widget:
        return Tabs(list(self.tab_names), selected, icons=["send", "person", "search", "user"], id="bottom_nav",
                    on_select=lambda c, i: c.reset_to(TABS[i]) if i != selected else None)

    def _avatar(self, contact: dict[str, Any], size: int = 110) -> Widget:
        return Icon(contact["name"][:1], desc=contact["name"], size=size, bg=tuple(contact["color"]), round=False)

    def _my_avatar(self, ctx: Ctx, size: int) -> Widget:
        a = ctx.state["me"]["avatar"]
        return Image(desc="My avatar", height=size, width=size, color=tuple(a["color"]), radius=size // 5)

    def _methods(self, ctx: Ctx) -> list[Method]:
        wallet = ctx.state["wallet"]
        methods = [Method("balance", ctx.t(self.balance_name), float(wallet["balance"]))]
        methods += [Method("card" if i == 0 else f"card{i + 1}",
                           ctx.t("{bank} debit card ({last4})", bank=card["bank"], last4=card["last4"]))
                    for i, card in enumerate(wallet["cards"])]
        return methods

    # ----- chats ---------------------------------------------------------------------------------------------------
    def _chat_row(self, ctx: Ctx, chat: dict[str, Any]) -> Widget | None:
        s = ctx.state
        if chat["kind"] == "group":
            group = _by_id(s["groups"], chat["target"])
            if group is None:
                return None
            title = group["name"]
            leading = Icon(group["name"][:1], desc=group["name"], size=110, bg=(120, 140, 170), round=False)
        else:
            contact = _by_id(s["contacts"], chat["target"])
            if contact is None:
                return None
            title = contact["name"]
            leading = self._avatar(contact)
        last = chat["messages"][-1] if chat["messages"] else None
        preview = ""
        if last is not None:
            preview = {"red_packet": ctx.t("[Red Packet]"), "transfer": ctx.t("[Transfer]"),
                       "photo": ctx.t("[Photo]")}.get(last["kind"], last["text"])
            if chat["kind"] == "group" and last["sender"] != "me":
                sender = _by_id(s["contacts"], last["sender"])
                preview = ctx.t("{name}: {words}", name=sender["name"] if sender else "", words=preview)
        trailing = ctx.t("{n} new", n=chat["unread"]) if chat["unread"] else (last["time"] if last else "")
        kind, target = chat["kind"], chat["target"]
        return ListItem(title, preview, id="chat", leading=leading, trailing=trailing,
                        on_click=lambda c: _open_chat(c, kind, target))

    def screen_home(self, ctx: Ctx) -> Widget:
        s = ctx.state
        query = ctx.fields.get("search", "").strip().lower()
        rows: list[Widget] = []
        if query:
            people = [c for c in s["contacts"] if query in c["name"].lower() or query == c["account"].lower()]
            groups = [g for g in s["groups"] if query in g["name"].lower()]
            if people:
                rows.append(Text("Contacts", size="small", color=GREY, pad=24))
                rows += [ListItem(c["name"], ctx.t("{label}: {account}", label=ctx.t(self.account_label),
                                                   account=c["account"]),
                                  id="search_contact", leading=self._avatar(c, 96),
                                  on_click=lambda x, cid=c["id"]: _open_chat(x, "contact", cid)) for c in people]
            if groups:
                rows.append(Text("Group chats", size="small", color=GREY, pad=24))
                rows += [ListItem(g["name"], ctx.t("{n} members", n=len(g["members"]) + 1), id="search_group",
                                  leading=Icon(g["name"][:1], desc=g["name"], size=96, bg=(120, 140, 170), round=False),
                                  on_click=lambda x, gid=g["id"]: _open_chat(x, "group", gid)) for g in groups]
            if not rows:
                rows.append(Text("No results", pad=60, color=GREY, align="center"))
        else:
            for chat in sorted(s["chats"], key=lambda c: -c["updated"]):
                row = self._chat_row(ctx, chat)
                if row is not None:
                    rows.append(row)
            if not rows:
                rows.append(Text("No chats yet", pad=60, color=GREY, align="center"))
        return Column(
            AppBar(ctx.app_label, back=False),
            Column(Input("search", hint="Search contacts, groups and chats"), pad=20),
            Scroll(*rows, id="chats"),
            self._nav(0))

    def screen_contacts(self, ctx: Ctx) -> Widget:
        rows = [ListItem(c["name"], c["signature"], id="contact", leading=self._avatar(c, 96),
                         on_click=lambda x, cid=c["id"]: x.push("contact", id=cid))
                for c in sorted(ctx.state["contacts"], key=lambda c: c["name"].lower())]
        return Column(
            AppBar(self.tab_names[1], back=False),
            Scroll(ListItem("Group chats", id="group_chats", leading=Icon("person", desc="Group chats", size=96,
                                                                          bg=(120, 140, 170), round=False),
                            on_click=lambda c: c.push("groups")),
                   Divider(), *rows, id="contacts_list"),
            self._nav(1))

    def screen_groups(self, ctx: Ctx) -> Widget:
        rows = [ListItem(g["name"], ctx.t("{n} members", n=len(g["members"]) + 1), id="group",
                         leading=Icon(g["name"][:1], desc=g["name"], size=96, bg=(120, 140, 170), round=False),
                         on_click=lambda c, gid=g["id"]: _open_chat(c, "group", gid)) for g in ctx.state["groups"]]
        return Column(AppBar("Group chats"),
                      Scroll(*(rows or [Text("No group chats yet", pad=60, color=GREY)]), id="groups_list"))

    def screen_contact(self, ctx: Ctx) -> Widget:
        contact = _by_id(ctx.state["contacts"], ctx.params.get("id")) or ctx.state["contacts"][0]
        cid = contact["id"]
        return Column(
            AppBar("Contact info"),
            Row(self._avatar(contact, 180),
                Column(Text(contact["name"], size="big", bold=True, id="contact_name"),
                       Text(ctx.t("{label}: {account}", label=ctx.t(self.account_label), account=contact["account"]),
                            size="small", color=GREY, id="contact_account"),
                       Text(ctx.t("Region: {region}", region=contact["region"]), size="small", color=GREY),
                       weight=1.0, gap=8), pad=48, gap=36),
            Divider(),
            ListItem("Signature", contact["signature"], id="contact_signature"),
            Divider(),
            Column(Button("Send message", icon="send", id="send_message",
                          on_click=lambda c: _open_chat(c, "contact", cid)),
                   Button("Transfer", style="secondary", id="contact_transfer",
                          on_click=lambda c: c.push("transfer", contact=cid)),
                   pad=48, gap=28))

    def screen_group_info(self, ctx: Ctx) -> Widget:
        group = _by_id(ctx.state["groups"], ctx.params.get("group")) or ctx.state["groups"][0]
        gid = group["id"]
        people = [p for p in (_by_id(ctx.state["contacts"], m) for m in group["members"]) if p is not None]
        cells = [Column(self._avatar(p, 110), Text(p["name"], size="tiny", align="center", max_lines=1), gap=6,
                        align="center") for p in people]
        return Column(
            AppBar(ctx.t("{name} ({n})", name=ctx.t("Group info"), n=len(people) + 1)),
            Scroll(Text("Members", size="small", color=GREY, pad=28),
                   Grid(*cells, cols=5, gap=12, pad=24, id="members"),
                   Divider(),
                   ListItem("Group name", trailing=group["name"], id="group_name"),
                   ListItem("My alias in group", trailing=group["my_alias"] or ctx.t("Not set"), id="my_alias",
                            on_click=lambda c: c.push("edit_alias", group=gid)),
                   id="group_info_list"))

    def screen_edit_alias(self, ctx: Ctx) -> Widget:
        group = _by_id(ctx.state["groups"], ctx.params.get("group")) or ctx.state["groups"][0]
        gid = group["id"]

        def save(c: Ctx, *_: Any) -> None:
            text = c.fields.get("alias", "").strip()
            if not text:
                c.toast("Type an alias")
                return
            g = _by_id(c.state["groups"], gid)
            if g is None:
                return
            old = g["my_alias"]
            g["my_alias"] = text
            c.effect("profile_change", field="group_alias", group=g["name"], group_id=gid, old=old, new=text)
            c.toast("Alias updated")
            c.pop()

        return Column(
            AppBar(ctx.t("Set my alias in {group}", group=group["name"]),
                   actions=[Button("Save", style="text", id="save_alias", on_click=save)]),
            Column(Text(ctx.t("Current: {value}", value=group["my_alias"] or ctx.t("Not set")), size="small",
                        color=GREY, id="current_alias"),
                   Input("alias", hint="New alias", on_submit=save), pad=36, gap=24))

    def _bubble(self, ctx: Ctx, msg: dict[str, Any], kind: str) -> Widget:
        s = ctx.state
        mine = msg["sender"] == "me"
        sender = None if mine else _by_id(s["contacts"], msg["sender"])
        if msg["kind"] in ("red_packet", "transfer"):
            head = (ctx.t("Red packet") if msg["kind"] == "red_packet"
                    else ctx.t("Transfer {amount}", amount=ctx.money(float(msg.get("amount", 0.0)))))
            body: Widget = Column(Text(head, size="small", bold=True, color=(255, 255, 255)),
                                  Text(msg["text"] or ctx.t("Transferred to you"), color=(255, 255, 255),
                                       id="message_text"),
                                  pad=28, gap=6, bg=RED, radius=20, id=f"{msg['kind']}_message")
        elif msg["kind"] == "photo":
            body = Image(desc=ctx.t("Photo: {words}", words=msg["text"]), height=260,
                         color=tuple(msg.get("color", PHOTO_COLORS[0])),
                         id="photo_message")
        else:
            body = Text(msg["text"], pad=24, radius=20, bg=(149, 236, 105) if mine else "surface", id="message_text")
        if kind == "group" and sender is not None:
            body = Column(Text(sender["name"], size="tiny", color=GREY), body, gap=4)
        body.weight = 1.0
        avatar = self._my_avatar(ctx, 90) if mine else (self._avatar(sender, 90) if sender else None)
        spacer = Column(weight=0.35)
        row = Row(spacer, body, avatar, gap=20) if mine else Row(avatar, body, spacer, gap=20)
        return Column(row, pad=16, id="message_row")

    def screen_conversation(self, ctx: Ctx) -> Widget:
        s = ctx.state
        p = ctx.params
        if "group" in p:
            kind, target = "group", p["group"]
        elif "contact" in p:
            kind, target = "contact", p["contact"]
        else:
            first = sorted(s["chats"], key=lambda c: -c["updated"])[0]
            kind, target = first["kind"], first["target"]
        record = _by_id(s["groups"] if kind == "group" else s["contacts"], target)
        if record is None:
            kind, record = "contact", s["contacts"][0]
        target = record["id"]
        chat = _chat(s, kind, target)
        messages = chat["messages"] if chat else []
        title = (ctx.t("{name} ({n})", name=record["name"], n=len(record["members"]) + 1) if kind == "group"
                 else record["name"])
        panel = bool(p.get("panel"))

        def toggle_panel(c: Ctx) -> None:
            c.params["panel"] = not panel

        info = (lambda c: c.push("group_info", group=target)) if kind == "group" else (
            lambda c: c.push("contact", id=target))
        tools: list[Widget] = [Icon("红" if ctx.locale == "zh" else "R", desc="Red Packet", size=110, bg=RED,
                                    round=False, label="Red Packet",
                                    id="red_packet", on_click=lambda c: c.push("red_packet", **{kind: target}))]
        if kind == "contact":
            tools.append(Icon("¥", desc="Transfer", size=110, bg=RED, round=False, label="Transfer", id="transfer",
                              on_click=lambda c: c.push("transfer", contact=target)))
        return Column(
            AppBar(title, actions=[Icon("more", desc="Chat info", size=80, id="chat_info", on_click=info)]),
            Scroll(*[self._bubble(ctx, m, kind) for m in messages], id="messages", pad=12),
            Row(Input("message", hint="Message", weight=1.0, on_submit=lambda c, _t: _send_text(c, kind, target)),
                Icon("plus", desc="More functions", size=80, id="more", on_click=toggle_panel),
                Button("Send", id="send", on_click=lambda c: _send_text(c, kind, target)), pad=20, gap=16, bg="surface"),
            Row(*tools, pad=36, gap=60, bg="surface") if panel else None)

    # ----- pay -----------------------------------------------------------------------------------------------------
    def screen_red_packet(self, ctx: Ctx) -> Widget:
        s = ctx.state
        p = ctx.params
        kind = "group" if "group" in p else "contact"
        record = _by_id(s["groups"] if kind == "group" else s["contacts"], p.get(kind))
        if record is None:
            kind, record = "contact", s["contacts"][0]
        target = record["id"]
        fields: list[Widget] = []
        if kind == "group":
            count = int(p.get("count", len(record["members"]) + 1))
            fields.append(Row(Text("Quantity", weight=1.0),
                              Icon("minus", desc="Fewer packets", size=70, id="fewer",
                                   on_click=lambda c: _set_count(c, count - 1)),
                              Text(ctx.t("{n} packets", n=count), id="count"),
                              Icon("plus", desc="More packets", size=70, id="more_packets",
                                   on_click=lambda c: _set_count(c, count + 1)), gap=24))

        def prepare(c: Ctx) -> None:
            if kind == "group":
                c.params["count"] = count
            _start_payment(c, "red_packet", kind, target)

        return Column(
            AppBar("Send Red Packet"),
            Column(Text(ctx.t("To: {name}", name=record["name"]), size="title", id="recipient"),
                   *fields,
                   Input("amount", hint="Total amount" if kind == "group" else "Amount"),
                   Input("note", hint="Best wishes"),
                   Text(ctx.t("A red packet can hold at most {max}", max=ctx.money(RED_PACKET_MAX)), size="small",
                        color=GREY),
                   Button("Prepare Red Packet", id="prepare", on_click=prepare),
                   pad=48, gap=32))

    def screen_transfer(self, ctx: Ctx) -> Widget:
        contact = _by_id(ctx.state["contacts"], ctx.params.get("contact")) or ctx.state["contacts"][0]
        cid = contact["id"]
        return Column(
            AppBar("Transfer"),
            Column(Row(self._avatar(contact, 110),
                       Column(Text(ctx.t("Transfer to {name}", name=contact["name"]), size="title", id="recipient"),
                              Text(ctx.t("{label}: {account}", label=ctx.t(self.account_label),
                                         account=contact["account"]), size="small", color=GREY), gap=6, weight=1.0)),
                   Input("amount", hint="Amount"),
                   Input("note", hint="Add transfer note (optional)"),
                   Button("Transfer", id="do_transfer", on_click=lambda c: _start_payment(c, "transfer", "contact", cid)),
                   pad=48, gap=32))

    def _confirm(self, ctx: Ctx, *_: Any) -> None:
        p = ctx.params
        amount = float(p.get("amount", 0.0))
        kind, target = p.get("kind", "contact"), p.get("target")
        record = _by_id(ctx.state["groups"] if kind == "group" else ctx.state["contacts"], target)
        if record is None or amount <= 0:
            ctx.toast("Enter a valid amount")
            return
        methods = self._methods(ctx)
        method = next((m for m in methods if m.key == p.get("method")), methods[0])
        if not password_ok(ctx):
            return
        if not method.covers(amount):
            ctx.toast("Not enough money in {method}", method=method.label)
            return
        if method.key == "balance":
            ctx.state["wallet"]["balance"] = round(ctx.state["wallet"]["balance"] - amount, 2)
        purpose = p.get("purpose", "transfer")
        note = str(p.get("note", ""))
        count = int(p.get("count", 1))
        pid = new_id(ctx.state["payments"])
        ctx.state["payments"].append({"id": pid, "kind": purpose, "to": record["name"], "chat": kind, "target": target,
                                      "amount": amount, "count": count, "note": note, "method": method.key,
                                      "time": ctx.clock_text})
        _post(ctx, kind, target, purpose, note, amount=amount, count=count, payment=pid)
        common = {"to": record["name"], "amount": amount, "note": note, "method": method.key,
                  "method_label": method.label, "payment": pid}
        if purpose == "red_packet":
            ctx.effect("red_packet", group=record["name"] if kind == "group" else None,
                       contact=target if kind == "contact" else None, count=count, **common)
            ctx.toast("Red packet sent")
        else:
            ctx.effect("transfer", contact=target, account=record["account"], **common)
            ctx.toast("Transfer sent")
        _pop_flow(ctx)
        ctx.push("paid", payment=pid)

    def screen_pay(self, ctx: Ctx) -> Widget:
        p = ctx.params
        kind = p.get("kind", "contact")
        record = _by_id(ctx.state["groups"] if kind == "group" else ctx.state["contacts"], p.get("target"))
        name = record["name"] if record else ctx.state["contacts"][0]["name"]
        red = p.get("purpose") == "red_packet"
        lines: list[Widget] = [Text(ctx.t("Red packet to {name}", name=name) if red else ctx.t("Transfer to {name}",
                                                                                              name=name),
                                    size="title", align="center", id="pay_summary")]
        if red and int(p.get("count", 1)) > 1:
            lines.append(Text(ctx.t("{count} red packets", count=int(p["count"])), size="small", color=GREY,
                              align="center"))
        if p.get("note"):
            lines.append(Text(ctx.t("Note: {note}", note=p["note"]), size="small", color=GREY, align="center",
                              id="pay_note"))
        return pay_sheet(ctx, ctx.t(self.wallet_name), float(p.get("amount", 0.0)),
                         [Column(*lines, pad=24, gap=12)], self._methods(ctx), self._confirm)

    def screen_paid(self, ctx: Ctx) -> Widget:
        payments = ctx.state["payments"]
        pay = _by_id(payments, ctx.params.get("payment")) or (payments[-1] if payments else None)
        what = ctx.t("Red packet") if pay and pay["kind"] == "red_packet" else ctx.t("Transfer")
        kind, target = (pay["chat"], pay["target"]) if pay else ("contact", ctx.state["contacts"][0]["id"])

        def done(c: Ctx) -> None:
            c.pop()
            if c.screen != "conversation":
                c.push("conversation", **{kind: target})

        return Column(
            AppBar("Payment successful", back=False),
            Column(Icon("check", desc="Payment successful", size=200, bg="primary"),
                   Text(ctx.t("{what} to {name}", what=what, name=pay["to"] if pay else ""), size="title",
                        align="center", id="paid_to"),
                   Text(ctx.money(pay["amount"] if pay else 0.0), size="huge", bold=True, align="center",
                        id="paid_amount"),
                   Button("Done", id="done", on_click=done), pad=60, gap=36, align="center"))

    def screen_wallet(self, ctx: Ctx) -> Widget:
        w = ctx.state["wallet"]
        rows = [ListItem(ctx.t("{kind} to {name}", kind=ctx.t("Red packet") if x["kind"] == "red_packet"
                                else ctx.t("Transfer"), name=x["to"]),
                         x["note"] or x["time"], trailing=f"-{ctx.money(x['amount'])}", id="payment")
                for x in reversed(ctx.state["payments"])]
        cards = [ListItem(ctx.t("{bank} debit card ({last4})", bank=c["bank"], last4=c["last4"]), id="bank_card",
                          leading=Icon("bag", desc="Bank cards", size=80, color="primary")) for c in w["cards"]]
        return Column(
            AppBar(ctx.t(self.wallet_name)),
            Scroll(Card(Text(self.balance_name, size="small", color=GREY),
                        Text(ctx.money(w["balance"]), size="huge", bold=True, id="balance"), pad=48),
                   Column(Button("Transfer to a friend", id="wallet_transfer", on_click=lambda c: c.push("pick_contact")),
                          pad=28),
                   Text("Bank cards", size="small", color=GREY, pad=28), *cards,
                   Text("Payments", size="small", color=GREY, pad=28),
                   *(rows or [Text("No payments yet", pad=40, color=GREY)]), id="wallet_list"))

    def screen_pick_contact(self, ctx: Ctx) -> Widget:
        query = ctx.fields.get("friend_search", "").strip().lower()
        rows = [ListItem(c["name"], c["account"], id="friend", leading=self._avatar(c, 96),
                         on_click=lambda x, cid=c["id"]: x.push("transfer", contact=cid))
                for c in sorted(ctx.state["contacts"], key=lambda c: c["name"].lower())
                if not query or query in c["name"].lower() or query == c["account"].lower()]
        return Column(AppBar("Choose a friend"), Column(Input("friend_search", hint="Search friends"), pad=20),
                      Scroll(*(rows or [Text("No results", pad=60, color=GREY)]), id="friends"))

    # ----- moments -------------------------------------------------------------------------------------------------
    def screen_discover(self, ctx: Ctx) -> Widget:
        return Column(AppBar(self.tab_names[2], back=False),
                      Scroll(ListItem(self.feed_name, id="moments", leading=Icon("star", desc=self.feed_name, size=80,
                                                                              color="primary"),
                                      on_click=lambda c: c.push("moments")),
                             Divider(),
                             ListItem(self.wallet_name, id="wallet", leading=Icon("¥", desc=self.wallet_name, size=80,
                                                                                  bg="primary", round=False),
                                      on_click=lambda c: c.push("wallet")), id="discover_list"),
                      self._nav(2))

    def _post_card(self, ctx: Ctx, m: dict[str, Any]) -> Widget:
        me = ctx.state["me"]["name"]
        liked = me in m["likes"]
        mid = m["id"]
        mine = m["author"] == "me"
        photos = [Image(desc=ctx.t("Photo: {words}", words=ph["desc"]), height=220, color=tuple(ph["color"]),
                        id="moment_photo") for ph in m["photos"]]
        actions: list[Widget | None] = [Text(_age(ctx, m["hours_ago"]), size="small", color=GREY, weight=1.0,
                                             id="moment_time")]
        if mine:
            actions.append(Button("Delete", style="text", size="small", id="delete_moment",
                                  on_click=lambda c: c.confirm(c.t("Delete this post?"), m["text"],
                                                               lambda c2: _delete_moment(c2, mid), yes=c.t("Delete"))))
        actions.append(Icon("heart_filled" if liked else "heart", desc="Unlike" if liked else "Like", size=70,
                            color="danger" if liked else None, id="like", selected=liked,
                            on_click=lambda c: _toggle_like(c, mid)))
        return Column(
            Text(me if mine else m["name"], bold=True, color="primary", id="moment_author"),
            Text(m["text"], id="moment_text"),
            Grid(*photos, cols=3, gap=8) if photos else None,
            Row(*actions, gap=16),
            Text(ctx.t("Liked by {names}", names=", ".join(m["likes"])), size="small", color=GREY, id="moment_likes")
            if m["likes"] else None,
            pad=36, gap=14, id="moment")

    def screen_moments(self, ctx: Ctx) -> Widget:
        posts = sorted((m for m in ctx.state["moments"] if not m["deleted"]), key=lambda m: (m["hours_ago"], -m["id"]))
        cards: list[Widget] = []
        for m in posts:
            cards += [self._post_card(ctx, m), Divider()]
        feed = ctx.t(self.feed_name)
        menu = [(ctx.t("My posts"), lambda c: c.push("my_posts")),
                (ctx.t("{feed} privacy", feed=feed), lambda c: c.push("moments_privacy"))]
        return Column(
            AppBar(self.feed_name, actions=[
                Icon("more", desc="More", size=80, id="moments_more", on_click=lambda c: c.menu(menu)),
                Icon("edit", desc="New post", size=80, id="post_moment", on_click=_new_post)]),
            Scroll(Row(Text(ctx.state["me"]["name"], size="title", bold=True, weight=1.0, id="my_name"),
                       self._my_avatar(ctx, 140), pad=36),
                   Divider(), *(cards or [Text("No posts yet", pad=60, color=GREY)]), id="moments_feed"))

    def screen_my_posts(self, ctx: Ctx) -> Widget:
        mine = sorted((m for m in ctx.state["moments"] if m["author"] == "me" and not m["deleted"]),
                      key=lambda m: m["hours_ago"])
        rows = [ListItem(m["text"], _age(ctx, m["hours_ago"]), id="my_post",
                         leading=Image(desc=ctx.t("Photo: {words}", words=m["photos"][0]["desc"]), height=110, width=110,
                                       color=tuple(m["photos"][0]["color"])) if m["photos"] else None,
                         trailing=Icon("trash", desc=ctx.t("Delete \u201c{words}\u201d", words=m["text"]), size=70,
                                       id="delete_post",
                                       on_click=lambda c, mid=m["id"], t=m["text"]: c.confirm(
                                           c.t("Delete this post?"), t, lambda c2: _delete_moment(c2, mid),
                                           yes=c.t("Delete"))))
                for m in mine]
        return Column(AppBar("My posts"), Scroll(*(rows or [Text("No posts yet", pad=60, color=GREY)]), id="my_posts"))

    def screen_moments_privacy(self, ctx: Ctx) -> Widget:
        current = ctx.state["settings"]["moments_visibility"]
        rows = [ListItem(label, id=f"visibility_{key}",
                         trailing=Icon("check", desc="Selected", size=60, color="primary") if key == current else None,
                         on_click=lambda c, k=key: _set_visibility(c, k)) for key, label in VISIBILITY.items()]
        return Column(AppBar(ctx.t("{feed} privacy", feed=ctx.t(self.feed_name))),
                      Text("Who can see my posts", size="small", color=GREY, pad=28),
                      Scroll(*rows, id="visibility_list"))

    def screen_post_moment(self, ctx: Ctx) -> Widget:
        store = ctx.media
        picked = [p for p in (_by_id(store["photos"], pid) for pid in ctx.state["draft_photos"]) if p is not None]

        def publish(c: Ctx) -> None:
            text = c.fields.get("moment_text", "").strip()
            photos = [p for p in (_by_id(c.media["photos"], pid) for pid in c.state["draft_photos"]) if p is not None]
            ids = [p["id"] for p in photos]
            if not text and not photos:
                c.toast("Write something or add photos first")
                return
            mid = new_id(c.state["moments"])
            c.state["moments"].append({"id": mid, "author": "me", "name": c.state["me"]["name"], "text": text,
                                       "photos": [{"desc": p["subject"] or p["album"],
                                                   "color": list(PHOTO_COLORS[p["color"] % 12]), "photo": p["id"]}
                                                  for p in photos],
                                       "likes": [], "hours_ago": 0, "deleted": False})
            albums = sorted({p["album"] for p in photos})
            whole = [a for a in albums if all(p["id"] in ids for p in live(c.media["photos"]) if p["album"] == a)]
            c.effect("post", where="moments", moment=mid, text=text, photos=ids,
                     photo_names=[p["name"] for p in photos], albums=albums, album_count=len(albums),
                     whole_albums=whole, visibility=c.state["settings"]["moments_visibility"])
            c.state["draft_photos"] = []
            c.toast("Posted")
            _pop_to(c, "moments")
            if c.screen != "moments":
                c.replace("moments")

        def remove(pid: int) -> Callable[[Ctx], None]:
            def handler(c: Ctx) -> None:
                if pid in c.state["draft_photos"]:
                    c.state["draft_photos"].remove(pid)
            return handler

        thumbs: list[Widget] = [Image(desc=ctx.t("Remove photo {n}", n=i + 1), height=200,
                                      color=PHOTO_COLORS[p["color"] % 12], id="picked_photo", on_click=remove(p["id"]))
                                for i, p in enumerate(picked)]
        if len(picked) < MAX_PHOTOS:
            thumbs.append(Column(Icon("plus", desc="Add photos", size=120, id="add_photos",
                                      on_click=lambda c: c.push("pick_album")), align="center", pad=40))
        label = ctx.t(VISIBILITY[ctx.state["settings"]["moments_visibility"]])
        return Column(
            AppBar("New post", actions=[Button("Post", style="text", id="publish", on_click=publish)]),
            Scroll(Column(Input("moment_text", hint="Say something...", lines=4), pad=36),
                   Grid(*thumbs, cols=3, gap=12, pad=36, id="post_photos"),
                   ListItem(ctx.t("Who can see: {label}", label=label), id="post_visibility",
                            on_click=lambda c: c.push("moments_privacy")),
                   id="post_scroll"))

    def screen_pick_album(self, ctx: Ctx) -> Widget:
        photos = live(ctx.media["photos"])
        albums: list[str] = []
        for p in photos:
            if p["album"] not in albums:
                albums.append(p["album"])
        rows = [ListItem(ctx.t("All photos"), ctx.t("{n} photos", n=len(photos)), id="album_row",
                         on_click=lambda c: c.push("pick_photos"))]
        rows += [ListItem(a, ctx.t("{n} photos", n=sum(p["album"] == a for p in photos)), id="album_row",
                          leading=Image(desc=a, height=100, width=100,
                                        color=PHOTO_COLORS[next(p["color"] for p in photos if p["album"] == a) % 12]),
                          on_click=lambda c, a=a: c.push("pick_photos", album=a)) for a in albums]
        n = len(ctx.state["draft_photos"])
        return Column(AppBar("Choose an album", actions=[Button(ctx.t("Done ({n})", n=n), style="text",
                                                                id="done_photos", on_click=_done_photos)]),
                      Scroll(*rows, id="albums"))

    def screen_pick_photos(self, ctx: Ctx) -> Widget:
        album = ctx.params.get("album")
        shown = [p for p in live(ctx.media["photos"]) if album is None or p["album"] == album]
        picked = ctx.state["draft_photos"]
        cells = []
        for i, p in enumerate(shown):
            pid = p["id"]
            cells.append(Column(
                Image(desc=ctx.t("Photo {n}: {subject}", n=i + 1, subject=p["subject"]) if album else
                      ctx.t("Photo {n}: {subject}, {album}", n=i + 1, subject=p["subject"], album=p["album"]),
                      height=240, color=PHOTO_COLORS[p["color"] % 12], id="photo", selected=pid in picked,
                      on_click=lambda c, pid=pid: _toggle_photo(c, pid)),
                Checkbox(p["subject"] or str(i + 1), pid in picked, id="photo_check"),  # shows the choice; tap the photo
                gap=4))
        ids = [p["id"] for p in shown]
        return Column(
            AppBar(album or ctx.t("All photos"), actions=[
                Button("Select all", style="text", id="select_all", on_click=lambda c: _select_all(c, ids)),
                Button(ctx.t("Done ({n})", n=len(picked)), style="text", id="done_photos", on_click=_done_photos)]),
            Scroll(Grid(*cells, cols=3, gap=12, pad=12) if cells else Text("No photos", pad=60, color=GREY),
                   id="photo_grid"))

    # ----- me ----------------------------------------------------------------------------------------------------------
    def screen_me(self, ctx: Ctx) -> Widget:
        me = ctx.state["me"]
        return Column(
            Row(self._my_avatar(ctx, 170),
                Column(Text(me["name"], size="big", bold=True, id="my_nickname"),
                       Text(ctx.t("{label}: {account}", label=ctx.t(self.account_label), account=me["account"]),
                            size="small", color=GREY, id="my_account"),
                       Text(me["signature"], size="small", color=GREY, id="my_signature", max_lines=1),
                       weight=1.0, gap=8),
                Icon("forward", desc="My profile", size=60), pad=48, gap=36, id="profile_card",
                on_click=lambda c: c.push("profile")),
            Divider(),
            Scroll(ListItem(self.wallet_name, ctx.money(ctx.state["wallet"]["balance"]), id="wallet",
                            leading=Icon("¥", desc=self.wallet_name, size=80, bg="primary", round=False),
                            on_click=lambda c: c.push("wallet")),
                   ListItem("My posts", id="my_posts", leading=Icon("star", desc="My posts", size=80, color="primary"),
                            on_click=lambda c: c.push("my_posts")),
                   ListItem("Settings", id="settings", leading=Icon("gear", desc="Settings", size=80, color="primary"),
                            on_click=lambda c: c.push("settings")),
                   id="me_list"),
            self._nav(3))

    def screen_profile(self, ctx: Ctx) -> Widget:
        me = ctx.state["me"]
        return Column(
            AppBar("My profile"),
            Scroll(ListItem("Profile photo", id="avatar_row", trailing=self._my_avatar(ctx, 120),
                            on_click=lambda c: c.push("pick_avatar")),
                   ListItem("Nickname", trailing=me["name"], id="nickname_row", on_click=lambda c: c.push("edit_name")),
                   ListItem(self.account_label, trailing=me["account"], id="account_row"),
                   ListItem("Signature", me["signature"], id="signature_row",
                            on_click=lambda c: c.push("edit_signature")),
                   ListItem("Region", trailing=me["region"], id="region_row"),
                   id="profile_list"))

    def screen_edit_name(self, ctx: Ctx) -> Widget:
        sync = bool(ctx.params.get("sync"))

        def save(c: Ctx, *_: Any) -> None:
            text = c.fields.get("nickname", "").strip()
            if not text:
                c.toast("Type a nickname")
                return
            if len(text) > 20:
                c.toast("At most {n} characters", n=20)
                return
            me = c.state["me"]
            old = me["name"]
            me["name"] = text
            synced = []
            if sync:
                for g in c.state["groups"]:
                    g["my_alias"] = text
                    synced.append(g["name"])
            for post in c.state["moments"]:
                if post["author"] == "me":
                    post["name"] = text
            c.effect("profile_change", field="nickname", old=old, new=text, groups=synced)
            c.toast("Nickname updated")
            c.pop()

        def set_sync(c: Ctx, value: bool) -> None:
            c.params["sync"] = value

        return Column(
            AppBar("Set nickname", actions=[Button("Save", style="text", id="save_name", on_click=save)]),
            Column(Text(ctx.t("Current: {value}", value=ctx.state["me"]["name"]), size="small", color=GREY,
                        id="current_nickname"),
                   Input("nickname", hint="New nickname", on_submit=save),
                   Checkbox("Use it as my alias in all group chats", sync, on_change=set_sync, id="sync_groups"),
                   Text(ctx.t("At most {n} characters", n=20), size="small", color=GREY), pad=36, gap=24))

    def screen_edit_signature(self, ctx: Ctx) -> Widget:
        def save(c: Ctx, *_: Any) -> None:
            text = c.fields.get("signature", "").strip()
            if not text:
                c.toast("Type a signature")
                return
            if len(text) > 30:
                c.toast("At most {n} characters", n=30)
                return
            old = c.state["me"]["signature"]
            c.state["me"]["signature"] = text
            c.effect("profile_change", field="signature", old=old, new=text)
            c.toast("Signature updated")
            c.pop()

        return Column(
            AppBar("Set signature", actions=[Button("Save", style="text", id="save_signature", on_click=save)]),
            Column(Text(ctx.t("Current: {value}", value=ctx.state["me"]["signature"]), size="small", color=GREY,
                        id="current_signature"),
                   Input("signature", hint="New signature", lines=2, on_submit=save),
                   Text(ctx.t("At most {n} characters", n=30), size="small", color=GREY), pad=36, gap=24))

    def screen_pick_avatar(self, ctx: Ctx) -> Widget:
        photos = live(ctx.media["photos"])

        def pick(pid: int) -> Callable[[Ctx], None]:
            def use(c: Ctx) -> None:
                photo = _by_id(c.media["photos"], pid)
                if photo is None:
                    return
                me = c.state["me"]
                old = dict(me["avatar"])
                me["avatar"] = {"photo": pid, "desc": photo["name"], "color": list(PHOTO_COLORS[photo["color"] % 12])}
                c.effect("profile_change", field="avatar", old=old.get("photo"), new=pid, photo_name=photo["name"])
                c.toast("Profile photo updated")
                _pop_to(c, "profile")

            def handler(c: Ctx) -> None:
                c.confirm(c.t("Use as profile photo?"), c.t("Your friends will see this photo as your profile photo."),
                          use, yes=c.t("Use photo"))
            return handler

        cells = [Image(desc=ctx.t("Photo {n}: {subject}, {album}", n=i + 1, subject=p["subject"], album=p["album"]),
                       height=300, color=PHOTO_COLORS[p["color"] % 12], id="avatar_option", on_click=pick(p["id"]))
                 for i, p in enumerate(photos)]
        return Column(AppBar("Choose profile photo"),
                      Scroll(Grid(*cells, cols=3, gap=12, pad=12) if cells else Text("No photos", pad=60, color=GREY),
                             id="avatar_grid"))

    def screen_settings(self, ctx: Ctx) -> Widget:
        key = ctx.state["settings"]["moments_visibility"]
        return Column(
            AppBar("Settings"),
            Scroll(Text("Privacy", size="small", color=GREY, pad=28),
                   ListItem(ctx.t("{feed} privacy", feed=ctx.t(self.feed_name)), VISIBILITY[key], id="feed_privacy",
                            on_click=lambda c: c.push("moments_privacy")),
                   Divider(),
                   Column(Button("Log out", style="danger", id="log_out",
                                 on_click=lambda c: c.confirm(c.t("Log out?"), c.t("You will need to log in again."),
                                                              _log_out, yes=c.t("Log out"))), pad=36),
                   id="settings_list"))


def visibility_key(value: str) -> str:
    """The key of VISIBILITY for a key or a label in English or Chinese ("Visible to Friends Only", "仅好友可见")."""
    want = value.strip().lower()
    for key, label in VISIBILITY.items():
        if want in (key, label.lower(), ENGINE_ZH.get(label, "")):
            return key
    raise ValueError(f"unknown Moments visibility {value!r}; choose one of {', '.join(VISIBILITY)}")


# ----- the apps ----------------------------------------------------------------------------------------------------
@register
class WeChat(MessengerApp):
    name = "WeChat"
    names = {"zh": "微信"}
    package = "com.tencent.mm"
    aliases = ("weixin", "wei xin", "wx")
    color = "#07c160"
    icon = "微"
    friend_names = {
        "en": ("Alice Wang", "Ben Carter", "Chloe Zhang", "David Liu", "Emma Brown", "Frank Zhou", "Grace Li",
               "Henry Park", "Ivy Chen", "Jack Wilson", "Kate Sun", "Leo Martin", "Mia Huang", "Noah Davis",
               "Olivia Wu", "Peter Ma"),
        "zh": ("王芳", "李娜", "张伟", "刘洋", "陈静", "杨帆", "赵磊", "黄丽", "周杰", "吴敏", "徐强", "孙悦", "马超",
               "朱琳", "胡斌", "郭婷"),
    }
    my_names = {"en": ("Sam Lee", "Alex Chen", "Jordan Wu", "Taylor Kim"), "zh": ("林小雨", "陈晨", "王小明", "张子涵")}
    strings = {"zh": {"Chats": "微信", "Contacts": "通讯录", "Discover": "发现", "Moments": "朋友圈",
                      "WeChat Pay": "微信支付", "Balance": "零钱", "WeChat ID": "微信号",
                      "Who can see my posts": "谁可以看我的朋友圈", "New post": "发朋友圈", "My posts": "我的朋友圈",
                      "{feed} privacy": "{feed}权限"}}


@register
class QQ(MessengerApp):
    name = "QQ"
    names = {"zh": "QQ"}
    package = "com.tencent.mobileqq"
    aliases = ("mobile qq", "tencent qq", "手机qq", "腾讯qq", "qq钱包")
    color = "#12b7f5"
    icon = "QQ"
    tab_names = ("Messages", "Contacts", "Updates", "Me")
    feed_name = "Qzone"
    wallet_name = "QQ Wallet"
    balance_name = "Balance"
    account_label = "QQ number"
    account_style = "number"
    friend_names = {
        "en": ("Blue Sky", "Little Fox", "Morning Dew", "Star Gazer", "Quiet River", "Paper Plane", "Summer Rain",
               "Lazy Cat", "Maple Leaf", "Night Owl", "Cloud Walker", "Sea Breeze", "Green Tea", "Silver Moon"),
        "zh": ("蓝天", "小狐狸", "晨露", "追星星的人", "静水流深", "纸飞机", "夏日微雨", "懒猫", "枫叶", "夜猫子",
               "云端漫步", "海风", "绿茶", "银色月光"),
    }
    my_names = {"en": ("Sunny Day", "Happy Panda", "Wandering Poet", "Bright Star"),
                "zh": ("阳光少年", "快乐熊猫", "流浪诗人", "明亮的星")}
    strings = {"zh": {"Messages": "消息", "Contacts": "联系人", "Updates": "动态", "Qzone": "QQ空间",
                      "QQ Wallet": "QQ钱包", "Balance": "余额", "QQ number": "QQ号"}}
