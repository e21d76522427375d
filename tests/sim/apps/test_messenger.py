"""The chat-with-pay apps (WeChat, QQ) driven by actions alone: the login wall, chats and search, transfers and red
packets behind the payment password and the chosen funding method, Moments (the feed, posting an album's photos,
privacy, deleting my recent posts), nickname and group aliases, signature, set-up hooks, and every screen in Chinese."""

from __future__ import annotations

from typing import Any, Callable

import pytest

from mobile_r1.core import Action
from mobile_r1.env.sim import SimEnv
from mobile_r1.env.sim.servers.adbd import AdbdServer, SimDevice
from mobile_r1.sim import testing as T
from mobile_r1.sim.apps import Ctx, load_all
from mobile_r1.sim.apps.messenger import VISIBILITY, days_ago, visibility_key
from mobile_r1.sim.media import live
from mobile_r1.sim.system import Phone
from mobile_r1.sim.ui.render import missing_glyphs
from tests.sim.apps.app_checks import (LATIN, STATUS_WORDS, Params, assert_opens_everywhere, start,
                                       visit_every_screen)

APPS = ["wechat", "qq"]


def _env(key: str, *calls: tuple[str, dict[str, Any]], locale: str = "en", seed: int = 0) -> SimEnv:
    return start(key, locale, *calls, seed=seed)


def _state(env: SimEnv, key: str = "wechat") -> dict[str, Any]:
    return env.phone.app_state(key)


def _effects(env: SimEnv, kind: str) -> list[Any]:
    return [e for e in env.phone.state.effects if e.kind == kind]


def _tap_entry(env: SimEnv, text: str) -> None:
    """Tap the list entry showing `text` (not the search field that holds the same text)."""
    hit = next(e for e in T.find_all(env, text=text) if not e.editable)
    T.act(env, Action.click(*T.clickable_of(env, hit).center))


def _search_and_open(env: SimEnv, name: str) -> None:
    T.type_into(env, "search", name)
    _tap_entry(env, name)


def _pay(env: SimEnv, password: str) -> None:
    T.type_into(env, "pay_password", password)
    T.tap_id(env, "confirm_payment")


@pytest.mark.parametrize("locale", ["en", "zh"])
@pytest.mark.parametrize("key", APPS)
def test_each_app_opens_from_its_launcher_icon_by_name_and_by_package(key: str, locale: str) -> None:
    assert_opens_everywhere(key, locale, "chat_pay")
    cls = load_all()[key]
    assert cls.currency == "CNY"
    assert (cls.package, cls.label("zh")) in (("com.tencent.mm", "微信"), ("com.tencent.mobileqq", "QQ"))


def test_logged_out_app_opens_on_its_login_wall_and_logging_in_is_recorded() -> None:
    env = _env("wechat", ("logged_out", {}))
    assert env.phone.activity() == "wechat/login"
    T.type_into(env, "username", "13800000000")
    T.type_into(env, "password", "secret")
    T.tap_id(env, "login")
    assert env.phone.activity() == "wechat/home" and _state(env)["logged_in"]
    assert [e.kind for e in env.phone.state.effects] == ["login"]


def test_search_finds_a_contact_the_setup_made_and_a_message_is_sent() -> None:
    env = _env("qq", ("contact", {"name": "Wind Chimes"}))
    _search_and_open(env, "Wind Chimes")
    assert env.phone.activity() == "qq/conversation"
    cid = env.phone.top_frame()["params"]["contact"]
    T.type_into(env, "message", "Hi, how are you feeling today?")
    T.tap_id(env, "send")
    chat = next(c for c in _state(env, "qq")["chats"] if c["kind"] == "contact" and c["target"] == cid)
    assert chat["messages"][-1]["text"] == "Hi, how are you feeling today?"
    [effect] = _effects(env, "message")
    assert effect.detail["to"] == "Wind Chimes" and effect.detail["text"] == "Hi, how are you feeling today?"


def test_wechat_transfer_needs_the_right_password_and_pays_the_named_friend() -> None:
    env = _env("wechat", ("contact", {"name": "A Run", "account": "arun_66"}), ("balance", {"amount": 500}))
    s = _state(env)
    _search_and_open(env, "A Run")
    T.tap_id(env, "more")
    T.tap_id(env, "transfer")
    T.type_into(env, "amount", "66.66")
    T.tap_id(env, "do_transfer")
    assert env.phone.activity() == "wechat/pay"
    wrong = "000000" if s["payment_password"] != "000000" else "111111"
    _pay(env, wrong)
    assert _effects(env, "transfer") == [] and s["failed_payments"] == 1 and s["wallet"]["balance"] == 500
    _pay(env, s["payment_password"])
    [effect] = _effects(env, "transfer")
    assert effect.detail["to"] == "A Run" and effect.detail["amount"] == 66.66 and effect.detail["account"] == "arun_66"
    assert effect.detail["method"] == "balance" and s["wallet"]["balance"] == 433.34
    assert env.phone.activity() == "wechat/paid"
    T.tap_id(env, "done")
    assert env.phone.activity() == "wechat/conversation"
    assert T.find(env, id="transfer_message")


def test_qq_wallet_transfer_paid_with_the_bound_bank_card_in_chinese() -> None:
    env = _env("qq", ("contact", {"name": "风铃草"}), locale="zh")
    s = _state(env, "qq")
    balance = s["wallet"]["balance"]
    T.tap_id(env, "bottom_nav_3")
    T.tap(env, text="QQ钱包")
    T.tap_id(env, "wallet_transfer")
    T.type_into(env, "friend_search", "风铃草")
    _tap_entry(env, "风铃草")
    T.type_into(env, "amount", "50")
    T.tap_id(env, "do_transfer")
    T.tap_id(env, "pay_method")
    card = s["wallet"]["cards"][0]
    T.tap(env, text=f"{card['bank']}储蓄卡（{card['last4']}）")
    _pay(env, s["payment_password"])
    [effect] = _effects(env, "transfer")
    assert effect.detail["to"] == "风铃草" and effect.detail["amount"] == 50 and effect.detail["method"] == "card"
    assert s["wallet"]["balance"] == balance  # the card paid
    assert T.find(env, text="转账给风铃草")


def test_red_packet_in_the_family_group_records_group_amount_count_and_note() -> None:
    env = _env("wechat", ("group", {"name": "family group", "members": ["Mom", "Dad", "Sis"]}))
    s = _state(env)
    T.tap_id(env, "bottom_nav_1")
    T.tap_id(env, "group_chats")
    T.tap(env, text="family group")
    T.tap_id(env, "more")
    T.tap_id(env, "red_packet")
    assert T.find(env, id="count").text == "4 packets"
    T.tap_id(env, "fewer")
    T.type_into(env, "amount", "200")
    T.type_into(env, "note", "Happy New Year")
    T.tap_id(env, "prepare")
    _pay(env, s["payment_password"])
    [effect] = _effects(env, "red_packet")
    assert effect.detail["group"] == "family group" and effect.detail["to"] == "family group"
    assert effect.detail["amount"] == 200 and effect.detail["count"] == 3 and effect.detail["note"] == "Happy New Year"
    group = next(g for g in s["groups"] if g["name"] == "family group")
    assert sorted(c["name"] for c in s["contacts"] if c["id"] in group["members"]) == ["Dad", "Mom", "Sis"]


def test_a_red_packet_to_a_friend_holds_at_most_200() -> None:
    env = _env("wechat", ("contact", {"name": "Little Star"}))
    _search_and_open(env, "Little Star")
    T.tap_id(env, "more")
    T.tap_id(env, "red_packet")
    T.type_into(env, "amount", "250")
    T.tap_id(env, "prepare")
    assert env.phone.activity() == "wechat/red_packet"
    T.tap_id(env, "amount")
    for _ in range(3):
        env.step(Action.key("del"))
    T.type_into(env, "amount", "88.88")
    T.type_into(env, "note", "Happy Birthday")
    T.tap_id(env, "prepare")
    _pay(env, _state(env)["payment_password"])
    [effect] = _effects(env, "red_packet")
    assert effect.detail["to"] == "Little Star" and effect.detail["amount"] == 88.88 and effect.detail["count"] == 1


def test_moments_feed_is_newest_first_and_privacy_is_a_setting() -> None:
    env = _env("wechat", ("moment", {"author": "Grace Li", "text": "Cherry blossoms everywhere", "hours_ago": 0}))
    T.tap_id(env, "bottom_nav_2")
    T.tap_id(env, "moments")
    texts = [e.text for e in T.find_all(env, id="moment_text")]
    assert texts[0] == "Cherry blossoms everywhere"
    shown = [m for m in _state(env)["moments"] if m["text"] in texts]
    assert [m["text"] for m in sorted(shown, key=lambda m: m["hours_ago"])] == texts
    T.tap_id(env, "moments_more")
    T.tap(env, text="Moments privacy")
    T.tap(env, text="Visible to Friends Only")
    assert _state(env)["settings"]["moments_visibility"] == "friends" and env.phone.state.effects == []
    assert T.find(env, desc="Selected") and env.phone.activity() == "wechat/moments_privacy"
    assert visibility_key("仅好友可见") == "friends" and set(VISIBILITY) >= {"all", "friends", "private"}


def test_cleaning_up_the_last_three_months_deletes_only_recent_posts_of_mine() -> None:
    env = _env("wechat", ("my_posts", {"days": [2, 19, 47, 130, 260]}))
    s = _state(env)
    T.tap_id(env, "bottom_nav_3")
    T.tap_id(env, "my_posts")
    recent = [m for m in s["moments"] if m["author"] == "me" and days_ago(m) <= 90]
    assert len(recent) == 3
    for _ in recent:  # the newest is listed first
        T.tap_id(env, "delete_post")
        T.tap(env, text="Delete", index=0)
    left = sorted(days_ago(m) for m in s["moments"] if m["author"] == "me" and not m["deleted"])
    assert left == [130, 260]
    assert sorted(e.detail["days_ago"] for e in _effects(env, "delete")) == [2, 19, 47]


def test_posting_the_travel_albums_photos_with_a_caption() -> None:
    env = _env("wechat", locale="zh")
    travel = [p["id"] for p in live(env.phone.media["photos"]) if p["album"] == "旅行"]
    assert travel
    T.tap_id(env, "bottom_nav_2")
    T.tap_id(env, "moments")
    T.tap_id(env, "post_moment")
    T.tap_id(env, "add_photos")
    T.tap(env, text="旅行")
    T.tap_id(env, "select_all")
    T.tap_id(env, "done_photos")
    T.type_into(env, "moment_text", "美好的回忆")
    T.tap_id(env, "publish")
    [effect] = _effects(env, "post")
    assert effect.detail["albums"] == effect.detail["whole_albums"] == ["旅行"]
    assert sorted(effect.detail["photos"]) == sorted(travel)
    assert effect.detail["text"] == "美好的回忆" and env.phone.activity() == "wechat/moments"
    assert T.find_all(env, id="moment_text")[0].text == "美好的回忆"
    T.tap_id(env, "post_moment")  # one photo of the album is not the album
    T.tap_id(env, "add_photos")
    T.tap(env, text="旅行")
    T.tap_id(env, "photo")
    T.tap_id(env, "done_photos")
    T.tap_id(env, "publish")
    assert _effects(env, "post")[-1].detail["albums"] == ["旅行"] and _effects(env, "post")[-1].detail["whole_albums"] == []


def test_nickname_synced_to_every_group_and_signature_changed() -> None:
    env = _env("wechat", ("group", {"name": "family group"}))
    s = _state(env)
    T.tap_id(env, "bottom_nav_3")
    T.tap_id(env, "profile_card")
    T.tap_id(env, "nickname_row")
    T.type_into(env, "nickname", "Dream Chaser")
    T.tap_id(env, "sync_groups")
    T.tap_id(env, "save_name")
    assert s["me"]["name"] == "Dream Chaser" and all(g["my_alias"] == "Dream Chaser" for g in s["groups"])
    [effect] = _effects(env, "profile_change")
    assert effect.detail["field"] == "nickname" and effect.detail["new"] == "Dream Chaser"
    assert sorted(effect.detail["groups"]) == sorted(g["name"] for g in s["groups"])
    T.tap_id(env, "signature_row")
    T.type_into(env, "signature", "Unity of Knowledge and Action", submit=True)
    assert s["me"]["signature"] == "Unity of Knowledge and Action"
    assert _effects(env, "profile_change")[-1].detail["field"] == "signature"


def test_an_alias_set_in_one_group_only() -> None:
    env = _env("qq", ("group", {"name": "Family"}))
    s = _state(env, "qq")
    _search_and_open(env, "Family")
    T.tap_id(env, "chat_info")
    T.tap_id(env, "my_alias")
    T.type_into(env, "alias", "Big Brother")
    T.tap_id(env, "save_alias")
    assert [g["my_alias"] for g in s["groups"] if g["name"] == "Family"] == ["Big Brother"]
    assert all(not g["my_alias"] for g in s["groups"] if g["name"] != "Family")
    assert _effects(env, "profile_change")[-1].detail["group"] == "Family"


def test_setup_hooks_are_idempotent() -> None:
    phone = Phone(apps=["wechat"], seed=2, randomize=False, locale="zh")
    app, ctx = phone.apps["wechat"], Ctx(phone, "wechat")
    first = app.setup_contact(ctx, "阿润")  # type: ignore[attr-defined]
    assert app.setup_contact(ctx, "阿润") == first  # type: ignore[attr-defined]
    group = app.setup_group(ctx, "家庭群")  # type: ignore[attr-defined]
    assert app.setup_group(ctx, "家庭群") == group  # type: ignore[attr-defined]
    post = app.setup_moment(ctx, "小星星", "看海去")  # type: ignore[attr-defined]
    assert app.setup_moment(ctx, "小星星", "看海去") == post  # type: ignore[attr-defined]
    app.setup_my_posts(ctx, days=[3, 100])  # type: ignore[attr-defined]
    app.setup_my_posts(ctx, days=[3, 100])  # type: ignore[attr-defined]
    state = phone.app_state("wechat")
    assert sorted(days_ago(m) for m in state["moments"] if m["author"] == "me") == [3, 100]
    assert sum(c["name"] == "阿润" for c in state["contacts"]) == 1
    assert sum(1 for c in state["chats"] if c["kind"] == "group" and c["target"] == group) == 1


def test_monkey_over_adbd_launches_the_app_by_its_real_package() -> None:
    from adb_shell.adb_device import AdbDeviceTcp

    with AdbdServer(SimDevice(seed=1, capture_scale=0.2)) as server:
        device = AdbDeviceTcp(server.host, server.port, default_transport_timeout_s=10.0)
        assert device.connect(rsa_keys=None, auth_timeout_s=1.0)
        try:
            for package in ("com.tencent.mm", "com.tencent.mobileqq"):
                device.shell(f"monkey -p {package} -c android.intent.category.LAUNCHER 1")
                assert f"{package}/." in device.shell("dumpsys window | grep mCurrentFocus")
        finally:
            device.close()

# ----- every screen in Chinese ----------------------------------------------------------------------------------------
SCREENS = {"home", "contacts", "groups", "contact", "group_info", "edit_alias", "conversation", "red_packet", "transfer",
           "pay", "paid", "wallet", "pick_contact", "discover", "moments", "my_posts", "moments_privacy", "post_moment",
           "pick_album", "pick_photos", "me", "profile", "edit_name", "edit_signature", "pick_avatar", "settings",
           "login"}
SYSTEM_WORDS = STATUS_WORDS | {"QQ"}  # the status bar, the app's own name


def _untranslated(phone: Phone, key: str) -> list[str]:
    state = phone.app_state(key)
    data = [c["account"] for c in state["contacts"]] + [state["me"]["account"]]
    bad = []
    for e in phone.elements():
        for label in (e.text, e.content_desc):
            rest = label
            for value in data:
                rest = rest.replace(value, "")
            if label and (missing_glyphs(label) or any(w not in SYSTEM_WORDS for w in LATIN.findall(rest))):
                bad.append(label)
    return bad


def _chatted(phone: Phone, key: str) -> Params:
    """A contact and a group, photos picked, a red packet, a transfer and a photo sent in the group, a group alias;
    returns the params of the screens that show one of them."""
    app, ctx = phone.apps[key], Ctx(phone, key)
    zh = phone.locale == "zh"
    cid = app.setup_contact(ctx, "阿润" if zh else "A Run")  # type: ignore[attr-defined]
    gid = app.setup_group(ctx, "家庭群" if zh else "family group")  # type: ignore[attr-defined]
    state = phone.app_state(key)
    state["draft_photos"] = [p["id"] for p in live(phone.media["photos"])[:2]]
    state["payments"].append({"id": 1, "kind": "red_packet", "to": "家庭群", "chat": "group", "target": gid,
                              "amount": 200.0, "count": 4, "note": "新年快乐", "method": "balance", "time": "09:00"})
    chat = next(c for c in state["chats"] if c["kind"] == "group" and c["target"] == gid)
    chat["messages"] += [{"id": 9, "sender": "me", "kind": "red_packet", "text": "新年快乐", "time": "09:00",
                          "amount": 200.0, "count": 4},
                         {"id": 10, "sender": "me", "kind": "transfer", "text": "", "time": "09:01", "amount": 5.0},
                         {"id": 11, "sender": "me", "kind": "photo", "text": "海边", "time": "09:02",
                          "color": [1, 2, 3]}]
    state["groups"][0]["my_alias"] = "大哥"
    phone.touch()
    return {
        "conversation": [{"group": gid, "panel": True}, {"contact": cid, "panel": True}],
        "red_packet": [{"group": gid, "count": 4}, {"contact": cid}], "transfer": [{"contact": cid}],
        "pay": [{"purpose": "red_packet", "kind": "group", "target": gid, "amount": 200.0, "count": 4, "note": "新年快乐"},
                {"purpose": "transfer", "kind": "contact", "target": cid, "amount": 66.66, "method": "card"}],
        "paid": [{"payment": 1}], "group_info": [{"group": gid}], "edit_alias": [{"group": gid}],
        "contact": [{"id": cid}], "pick_photos": [{"album": live(phone.media["photos"])[0]["album"]}],
        "edit_name": [{"sync": True}], "home": [{}]}


def _visit_every_screen(key: str, locale: str, check: Callable[[str, Phone], None]) -> None:
    """Every screen (`visit_every_screen`), then the search results, a menu and a dialog."""
    phone = visit_every_screen(key, locale, check, SCREENS, prepare=lambda phone: _chatted(phone, key))
    phone.goto(key, "home")
    phone.top_frame()["fields"]["search"] = "阿" if locale == "zh" else "A"
    phone.touch()
    check("home (search)", phone)
    phone.goto(key, "moments")
    T.tap_id(phone, "moments_more")
    check("moments (menu)", phone)
    phone.back()
    phone.goto(key, "my_posts")
    T.tap_id(phone, "delete_post")
    check("my_posts (dialog)", phone)


@pytest.mark.parametrize("key", APPS)
def test_every_screen_is_chinese_on_a_chinese_phone(key: str) -> None:
    def check(screen: str, phone: Phone) -> None:
        assert _untranslated(phone, key) == [], f"{key}/{screen}"

    _visit_every_screen(key, "zh", check)


def test_every_screen_draws_in_both_languages() -> None:
    def check(screen: str, phone: Phone) -> None:
        assert phone.screenshot(0.2).size == (216, 480)

    for locale in ("en", "zh"):
        _visit_every_screen("wechat", locale, check)
