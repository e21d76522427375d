"""The feed and video apps (Douyin, TikTok, Xiaohongshu, Bilibili, YouTube, Weibo, X, Instagram, Tencent Video,
Netflix) driven by actions alone: lists and charts, search for any query, uploader pages, the player's mobile-data
prompt, likes, posts, a new profile photo from the phone's photos, memberships with a first-charge offer, the login
wall, set-up hooks, and every screen in Chinese."""

from __future__ import annotations

from typing import Any

import pytest

from mobile_r1.core import Action
from mobile_r1.env.sim import SimEnv
from mobile_r1.sim import testing as T
from mobile_r1.sim.apps import Ctx, load_all
from mobile_r1.sim.apps.feed import (count_text, following_feed, list_items, pick, results, sort_items,
                                     uploader_videos)
from mobile_r1.sim.system import Phone
from tests.sim.apps.app_checks import (Params, assert_chinese_everywhere, assert_draws_in_both_languages,
                                       assert_opens_everywhere, start, untranslated)

APPS = ["douyin", "tiktok", "xiaohongshu", "bilibili", "youtube", "weibo", "x", "instagram", "wetv", "netflix"]
PACKAGES = {"douyin": "com.ss.android.ugc.aweme", "tiktok": "com.zhiliaoapp.musically", "xiaohongshu": "com.xingin.xhs",
            "bilibili": "tv.danmaku.bili", "youtube": "com.google.android.youtube", "weibo": "com.sina.weibo",
            "x": "com.twitter.android", "instagram": "com.instagram.android", "wetv": "com.tencent.qqlive",
            "netflix": "com.netflix.mediaclient"}


def _env(key: str, locale: str = "en", seed: int = 0, *calls: tuple[str, dict[str, Any]]) -> SimEnv:
    return start(key, locale, *calls, seed=seed)


def _state(env: SimEnv, key: str) -> dict[str, Any]:
    return env.phone.app_state(key)


def _search(env: SimEnv, query: str) -> None:
    T.tap_id(env, "search_box")
    env.step(Action.type_text(query + "\n"))


@pytest.mark.parametrize("locale", ["en", "zh"])
@pytest.mark.parametrize("key", APPS)
def test_each_app_opens_from_its_launcher_icon_by_name_and_by_package(key: str, locale: str) -> None:
    assert_opens_everywhere(key, locale, "feed")
    cls = load_all()[key]
    assert cls.package == PACKAGES[key]
    assert (cls.currency == "USD") == (key in ("tiktok", "youtube", "x", "instagram", "netflix"))


def test_other_names_people_call_the_apps_by() -> None:
    phone = Phone(apps=APPS, seed=0)
    for name, key in (("b站", "bilibili"), ("抖音", "douyin"), ("xhs", "xiaohongshu"), ("小红书", "xiaohongshu"),
                      ("twitter", "x"), ("腾讯视频", "wetv"), ("tencent video", "wetv"), ("微博", "weibo")):
        assert phone.open(name) is None and phone.foreground == key, name


def test_search_results_are_a_pure_function_of_the_catalog_and_the_query() -> None:
    a = Phone(apps=["youtube"], seed=4).app_state("youtube")
    b = Phone(apps=["youtube"], seed=4).app_state("youtube")
    c = Phone(apps=["youtube"], seed=5).app_state("youtube")
    found = results(a, "deepseekr1")
    assert found == results(b, "  DeepSeekR1 ") == results(a, "'deepseekr1'")
    assert found == results(a["catalog"]["seed"], "deepseekr1", flavour="youtube", locale="en")
    assert [v["views"] for v in found] != [v["views"] for v in results(c, "deepseekr1")]
    assert 8 <= len(found) <= 12 and results(a, "  ") == []
    assert all("deepseekr1" in v["title"] and v["query"] == "deepseekr1" for v in found)
    for field in ("views", "likes"):  # every count reads differently, and the top one is never simply first
        assert len({count_text(v[field]) for v in found}) == len(found)
        assert pick(found, field)["id"] != found[0]["id"]
    assert pick(found, "views") == sort_items(found, "views")[0]
    assert pick(found, "latest") == sort_items(found, "date")[0]
    with pytest.raises(ValueError, match="unknown choice"):
        pick(found, "prettiest")
    zh = Phone(apps=["bilibili"], seed=4, locale="zh").app_state("bilibili")
    shown = [count_text(v["views"], "zh") for v in results(zh, "搞笑视频合集")]
    assert len(set(shown)) == len(shown) and any(s.endswith("万") for s in shown)


def test_trending_most_viewed_on_mobile_data_asks_before_playing() -> None:
    env = _env("youtube", "en", 2, ("mobile_data", {}),
               ("target", {"name": "top", "source": "trending", "by": "views"}))
    s = _state(env, "youtube")
    top = s["targets"]["top"]
    assert top == max(list_items(s, "trending"), key=lambda v: v["views"]) and list_items(s, "trending")[0] != top
    T.tap(env, id="bottom_nav_1")
    assert env.phone.activity() == "youtube/trending" and T.find(env, id="rank").text == "1"
    T.scroll_until(env, top["title"])
    T.tap_text(env, top["title"])
    assert env.phone.activity() == "youtube/player" and env.phone.top_frame()["params"]["id"] == top["id"]
    assert env.phone.state.overlay is not None and env.phone.state.overlay.title == "You're not on Wi-Fi"
    T.tap_text(env, "Cancel")  # nothing plays
    assert env.phone.state.effects == [] and s["player"] == {"video": top["id"], "playing": False}
    T.tap_id(env, "play_pause")  # asked again
    T.tap_text(env, "Play")
    effect = env.phone.state.effects[-1]
    assert effect.kind == "play" and effect.detail == {"video": top["id"], "title": top["title"],
                                                       "uploader": top["uploader"], "query": ""}
    assert s["player"]["playing"] and s["data_allowed"] and s["played"][-1]["id"] == top["id"]
    T.tap_id(env, "play_pause")
    assert not s["player"]["playing"]
    T.tap_id(env, "play_pause")  # allowed once: no second prompt
    assert env.phone.state.overlay is None and len(env.phone.state.effects) == 2


def test_on_wifi_a_video_plays_at_once_and_search_sorts_by_views() -> None:
    env = _env("bilibili", "zh", 1)
    s = _state(env, "bilibili")
    _search(env, "搞笑视频合集")
    assert env.phone.activity() == "bilibili/results" and s["searches"] == ["搞笑视频合集"]
    T.tap_text(env, "最多播放")
    best = pick(results(s, "搞笑视频合集"), "views")
    assert T.find(env, id="item_title").text == best["title"]
    T.tap(env, id="item")
    assert env.phone.state.overlay is None and env.phone.state.effects[-1].kind == "play"
    assert env.phone.state.effects[-1].detail["video"] == best["id"]
    assert env.phone.state.effects[-1].detail["query"] == "搞笑视频合集"


def test_bilibili_charts_weekly_picks_and_rankings_with_likes() -> None:
    env = _env("bilibili", "zh", 3)
    s = _state(env, "bilibili")
    T.tap(env, id="bottom_nav_1")
    assert env.phone.activity() == "bilibili/trending" and T.find(env, text="每周必看")
    T.tap_text(env, "每周必看")
    assert T.find(env, id="item_title").text == list_items(s, "weekly")[0]["title"]
    T.tap_text(env, "排行榜")
    ranking = list_items(s, "ranking")
    metrics = [e.text for e in T.find_all(env, id="item_metric")]
    assert metrics and all(m.endswith("点赞") for m in metrics)
    assert pick(ranking, "likes")["id"] != ranking[0]["id"]
    T.tap(env, id="item")
    assert env.phone.activity() == "bilibili/player"


def test_an_official_account_is_found_among_look_alikes_and_its_page_sorts_by_views() -> None:
    env = _env("youtube", "en", 0, ("uploader", {"name": "OpenAI", "official": True, "lookalikes": True}),
               ("uploader", {"name": "OpenAI", "official": True, "lookalikes": True}))
    s = _state(env, "youtube")
    assert [c["name"] for c in s["channels"]] == ["OpenAI", "OpenAI Fans", "OpenAI Clips"]  # idempotent
    _search(env, "OpenAI")
    names = [e.text for e in T.find_all(env, id="channel_name")]
    assert names[0] == "OpenAI" and set(names) == {"OpenAI", "OpenAI Fans", "OpenAI Clips"}
    assert len(T.find_all(env, id="official")) == 1
    T.tap(env, id="channel")
    assert env.phone.activity() == "youtube/uploader" and env.phone.top_frame()["params"]["uploader"] == "OpenAI"
    videos = uploader_videos(s, "OpenAI")
    shown = [e.text for e in T.find_all(env, id="item_title")]
    assert shown and shown == [v["title"] for v in videos][:len(shown)]
    T.tap_text(env, "By views")
    assert T.find(env, id="item_title").text == pick(videos, "views")["title"]
    T.tap_id(env, "follow")
    assert "OpenAI" in s["following"] and T.find(env, id="follow").text == "Subscribed"


def test_an_uploaders_series_on_a_topic_newest_first() -> None:
    env = _env("bilibili", "zh", 0, ("uploader", {"name": "老番茄", "topic": "游戏解说", "count": 3}),
               ("target", {"name": "top", "source": "uploader", "uploader": "老番茄", "topic": "游戏解说", "by": "latest"}))
    s = _state(env, "bilibili")
    videos = uploader_videos(s, "老番茄")
    series = [v for v in videos if "游戏解说" in v["title"]]
    assert len(series) == 3 and len({v["date"] for v in series}) == 3
    assert s["targets"]["top"]["id"] == series[0]["id"] and series[0]["date"] == max(v["date"] for v in series)
    assert [v["date"] for v in videos] == sorted((v["date"] for v in videos), reverse=True)
    _search(env, "老番茄")
    T.tap(env, id="channel")
    assert T.find_all(env, text=series[0]["title"])


def test_subscriptions_and_liked_lists() -> None:
    env = _env("youtube", "en", 5, ("target", {"name": "sub", "source": "subscriptions", "by": "first"}),
               ("liked", {"title": "My favourite talk"}))
    s = _state(env, "youtube")
    T.tap(env, id="bottom_nav_2")
    assert env.phone.activity() == "youtube/following"
    assert T.find(env, id="item_title").text == following_feed(s)[0]["title"] == s["targets"]["sub"]["title"]
    T.tap(env, id="bottom_nav_3")
    T.tap_id(env, "liked")
    assert env.phone.activity() == "youtube/liked" and T.find(env, id="item_title").text == "My favourite talk"


def test_douyin_behind_its_login_wall_likes_the_top_of_the_hot_list() -> None:
    env = _env("douyin", "zh", 0, ("logged_out", {}))
    s = _state(env, "douyin")
    assert env.phone.activity() == "douyin/login"
    T.type_into(env, "username", "13800138000")
    T.type_into(env, "password", "secret")
    T.tap_id(env, "login")
    assert env.phone.activity() == "douyin/home" and [e.kind for e in env.phone.state.effects] == ["login"]
    T.tap(env, id="bottom_nav_1")
    hot = list_items(s, "hot")
    assert [v["heat"] for v in hot] == sorted((v["heat"] for v in hot), reverse=True)
    assert T.find(env, id="item_metric").text.endswith("热度")
    T.tap(env, id="item")
    T.tap_id(env, "like")
    effect = env.phone.state.effects[-1]
    assert effect.kind == "like" and effect.detail == {"video": hot[0]["id"], "title": hot[0]["title"],
                                                       "uploader": hot[0]["uploader"]}
    assert s["liked"][0] == hot[0]["id"] and T.find(env, id="like").content_desc == "已赞"
    T.tap_id(env, "like")  # unliking records nothing
    assert env.phone.state.effects[-1] is effect and hot[0]["id"] not in s["liked"]


@pytest.mark.parametrize("key,locale", [("x", "en"), ("weibo", "zh")])
def test_posting_a_text(key: str, locale: str) -> None:
    env = _env(key, locale)
    T.tap_id(env, "compose")
    T.tap_id(env, "publish")
    assert env.phone.state.effects == [] and env.phone.activity() == f"{key}/compose"
    T.type_into(env, "post_text", "今天周五天气很好，适合出去玩" if locale == "zh" else "Friday at last!")
    T.tap_id(env, "publish")
    effect = env.phone.state.effects[-1]
    assert effect.kind == "post" and effect.detail["text"] in ("今天周五天气很好，适合出去玩", "Friday at last!")
    assert env.phone.activity() == f"{key}/me" and T.find(env, id="my_post_title").text == effect.detail["text"]


def test_a_recipe_note_lists_its_ingredients() -> None:
    env = _env("xiaohongshu", "zh", 0, ("post", {"query": "尖椒鸡蛋", "recipe": True}),
               ("target", {"name": "recipe", "source": "search", "query": "尖椒鸡蛋", "by": "first"}))
    s = _state(env, "xiaohongshu")
    pinned = s["targets"]["recipe"]
    assert pinned["recipe"] and len(pinned["points"]) == 3 and "尖椒鸡蛋" in pinned["title"]
    found = results(s, "尖椒鸡蛋")
    assert found[0]["id"] == pinned["id"] and pick(found, "views") != pinned and pick(found, "likes") != pinned
    assert len({count_text(v["views"], "zh") for v in found}) == len(found)  # it keeps the counts apart
    _search(env, "尖椒鸡蛋的做法")  # a search containing the dish finds the note first
    assert T.find(env, id="item_title").text == pinned["title"]
    T.tap(env, id="item")
    assert env.phone.activity() == "xiaohongshu/note" and T.find(env, id="note_heading").text == "用料"
    points = [e.text for e in T.find_all(env, id="note_point")]
    assert points == [f"{i}. {p}" for i, p in enumerate(pinned["points"], 1)]
    assert s["opened"][-1] == {"id": pinned["id"], "title": pinned["title"], "uploader": pinned["uploader"],
                               "points": pinned["points"]}
    assert env.phone.state.effects == []  # reading plays nothing


def test_the_favourite_photo_becomes_the_profile_photo_after_a_confirmation() -> None:
    env = _env("xiaohongshu", "en", 3)
    photo = next(p for p in env.phone.media["photos"] if p["favorite"])
    T.tap(env, id="bottom_nav_3")
    T.tap_id(env, "edit_profile")
    T.tap_id(env, "change_avatar")
    assert env.phone.activity() == "xiaohongshu/avatar"
    T.tap_text(env, "Favorites")
    names = [e.text for e in T.find_all(env, id="photo_name")]
    assert names == [photo["name"]]
    T.tap(env, id="photo")
    assert T.find(env, text="Change profile photo?")
    T.tap_text(env, "Cancel")
    assert env.phone.state.effects == []
    T.tap(env, id="photo")
    T.tap_text(env, "Confirm")
    effect = env.phone.state.effects[-1]
    assert effect.kind == "profile_change" and effect.detail == {"field": "avatar", "photo": photo["id"],
                                                                 "name": photo["name"]}
    assert env.phone.activity() == "xiaohongshu/me" and photo["name"] in T.find(env, id="avatar").content_desc


def test_wetv_first_charge_offer_and_payment_password() -> None:
    env = _env("wetv", "zh", 0, ("new_user_offer", {"tier": "SVIP"}), ("new_user_offer", {"tier": "svip"}))
    s = _state(env, "wetv")
    assert [t["offer"] is not None for t in s["plans"]] == [False, True] and s["new_user"]
    T.tap(env, id="bottom_nav_3")
    T.tap_id(env, "membership")
    assert env.phone.activity() == "wetv/membership" and len(T.find_all(env, id="offer")) == 1
    T.tap(env, desc="选择SVIP，3个月")
    svip = s["plans"][1]
    option = next(o for o in svip["options"] if o["months"] == 3 and not o["auto_renew"])
    due = round(option["price"] - svip["offer"]["discount"], 2)
    assert T.find(env, id="due").text == f"首充 ¥{due:,.2f}"
    T.tap_id(env, "subscribe")
    wrong = "000000" if s["payment_password"] != "000000" else "111111"
    T.type_into(env, "pay_password", wrong, submit=True)
    assert env.phone.state.effects == [] and s["failed_payments"] == 1
    T.type_into(env, "pay_password", s["payment_password"], submit=True)
    effect = env.phone.state.effects[-1]
    assert effect.kind == "subscription" and effect.detail == {
        "subscription": 1, "product": "WeTV", "plan": "SVIP", "option": "3个月", "months": 3, "auto_renew": False,
        "amount": due, "currency": "CNY", "first_charge": True}
    assert env.phone.activity() == "wetv/member_done" and not s["new_user"] and s["member"]["tier"] == "SVIP"


def test_renewing_a_membership_that_ends_soon() -> None:
    env = _env("bilibili", "zh", 0, ("membership", {"tier": "超级大会员", "days_left": 3}))
    T.tap(env, id="bottom_nav_3")
    assert T.find(env, id="membership_title").text == "大会员"
    T.tap_id(env, "membership")
    assert T.find(env, id="member_status").text == "你的超级大会员（连续包月）将在 3 天后到期"
    T.tap(env, desc="选择超级大会员，连续包月")
    assert T.find(env, id="subscribe").text == "续费"


def test_log_out_from_me_puts_the_login_wall_up() -> None:
    env = _env("instagram")
    T.tap(env, id="bottom_nav_3")
    T.tap_id(env, "log_out")
    T.tap_text(env, "Log out")
    assert env.phone.activity() == "instagram/login" and not _state(env, "instagram")["logged_in"]
    assert env.phone.state.effects[-1].kind == "logout"


# ----- every screen in Chinese ---------------------------------------------------------------------------------------
SCREENS = {"home", "trending", "search", "results", "player", "note", "uploader", "following", "me", "liked", "profile",
           "avatar", "compose", "membership", "member_pay", "member_done", "login"}
# brand and plan names, photo file names, units: data, not UI words
DATA_WORDS = {"YouTube", "TikTok", "Instagram", "Netflix", "Premium", "VIP", "SVIP", "Grok", "IMG", "jpg", "png",
              "Screenshot", "BOSS", "MB"}


def _filled(phone: Phone, key: str) -> Params:
    """An official uploader with look-alikes, a new-user offer and a membership, searches, a post, a subscription and
    a profile photo; returns the params of the screens that show one of them."""
    app = phone.apps[key]
    ctx = Ctx(phone, key)
    state = phone.app_state(key)
    zh = phone.locale == "zh"
    who, topic, words = ("官方账号", "话题", ["第一", "第二"]) if zh else ("Official One", "topic", ["first", "second"])
    app.setup_uploader(ctx, who, topic=topic, count=2, official=True, lookalikes=True)  # type: ignore[attr-defined]
    if state["plans"]:
        app.setup_new_user_offer(ctx, state["plans"][-1]["tier"])  # type: ignore[attr-defined]
        app.setup_membership(ctx, state["plans"][0]["tier"])  # type: ignore[attr-defined]
    state["history"] = words
    state["posts"].append({"id": 1, "text": words[0], "date": "2025-06-30"})
    tier = state["plans"][0] if state["plans"] else {"tier": words[0], "options": [{"label": words[1]}]}
    state["subscriptions"].append({"id": 1, "plan": tier["tier"], "option": tier["options"][0]["label"], "months": 1,
                                   "auto_renew": True, "amount": 1.0, "currency": "CNY", "first_charge": False})
    state["profile"]["avatar"] = {"photo": 1, "name": "IMG_1.jpg"}
    phone.touch()
    first = list_items(state, "feed")[0]
    return {"results": {"query": who, "sort": 0}, "player": {"id": first["id"]}, "note": {"id": first["id"]},
            "uploader": {"uploader": who}, "trending": {"list": len(app.lists) - 1},  # type: ignore[attr-defined]
            "avatar": {"favorites": True}, "member_done": {"subscription": 1},
            "membership": {"tier": len(state["plans"]), "option": 1}, "member_pay": {"tier": 1, "option": 0}}


@pytest.mark.parametrize("key", APPS)
def test_every_screen_is_chinese_on_a_chinese_phone(key: str) -> None:
    assert_chinese_everywhere(key, SCREENS, DATA_WORDS, prepare=lambda phone: _filled(phone, key))


def test_every_screen_draws_in_both_languages() -> None:
    assert_draws_in_both_languages("bilibili", SCREENS, prepare=lambda phone: _filled(phone, "bilibili"))


def test_the_mobile_data_dialog_speaks_chinese() -> None:
    env = _env("youtube", "zh", 0, ("mobile_data", {}))
    T.tap(env, id="item")
    assert T.find(env, text="当前非 WLAN 网络") and T.find(env, text="播放")
    assert untranslated(env.phone, DATA_WORDS) == []
