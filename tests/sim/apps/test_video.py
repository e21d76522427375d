"""Video app: search, playback, likes, comments, channels, subscriptions and the paid membership, by actions alone."""

from __future__ import annotations

import pytest

from mobile_r1.env.sim import SimEnv
from mobile_r1.sim import testing as T
from mobile_r1.sim.apps import load_all
from mobile_r1.sim.apps.video import Video
from mobile_r1.sim.tools import render_screen


def _env(randomize: bool = False, seed: int = 0) -> SimEnv:
    return T.start(["Video"], "youtube", randomize=randomize, seed=seed)


def _state(env: SimEnv) -> dict:
    return env.phone.app_state("video")


def _search_and_play(env: SimEnv, title: str) -> None:
    T.tap_id(env, "search")
    T.type_into(env, "query", title, submit=True)
    T.wait(env)
    T.scroll_until(env, title, id="results")
    T.tap(env, text=title, id="video_row_title")
    T.wait(env)
    assert env.phone.activity() == "video/player"


@pytest.mark.parametrize("screen", Video.screens())
def test_every_screen_renders(screen: str) -> None:
    phone = render_screen("Video", screen)
    image = phone.screenshot(0.3)
    assert image.size == (324, 720)
    assert phone.elements() and phone.activity() == f"video/{screen}"


def test_registered_under_its_name_and_aliases() -> None:
    assert load_all()["video"] is Video
    env = _env()
    assert env.phone.activity() == "video/home"
    assert T.find_all(env, id="video")


def test_search_play_pause_like_and_comment() -> None:
    env = _env()
    v = _state(env)["videos"][4]
    _search_and_play(env, v["title"])
    player = _state(env)["player"]
    assert player["video"] == v["id"] and player["playing"]
    assert T.find(env, id="player_status").text == "Playing"
    assert _state(env)["history"][0] == v["id"]
    T.wait(env, 20)
    T.tap_id(env, "play_pause")
    player = _state(env)["player"]
    assert not player["playing"] and 20 <= player["position"] <= min(v["duration"], 23)
    frozen = player["position"]
    T.wait(env, 30)
    assert _state(env)["player"]["position"] == frozen
    assert T.find(env, id="player_status").text == "Paused"
    likes = v["likes"]
    T.tap_id(env, "like")
    assert v["id"] in _state(env)["liked"] and v["likes"] == likes + 1
    T.tap_id(env, "like")
    assert v["id"] not in _state(env)["liked"] and v["likes"] == likes
    T.type_into(env, "comment", "Loved the ending", submit=True)
    mine = [c for c in _state(env)["comments"] if c["video"] == v["id"] and c["text"] == "Loved the ending"]
    assert len(mine) == 1
    assert env.phone.state.effects[-1].kind == "comment" and env.phone.state.effects[-1].detail["video"] == v["id"]


def test_playback_ends_and_replays() -> None:
    env = _env()
    v = min(_state(env)["videos"], key=lambda x: x["duration"])
    _search_and_play(env, v["title"])
    T.wait(env, v["duration"] + 5)
    assert T.find(env, id="player_status").text == "Ended"
    T.tap_id(env, "play_pause")  # pauses at the end
    T.tap_id(env, "play_pause")  # plays again from the start
    assert _state(env)["player"]["playing"] and _state(env)["player"]["position"] == 0.0


def test_search_sorts_and_no_results() -> None:
    env = _env()
    T.tap_id(env, "search")
    T.type_into(env, "query", "zzqx", submit=True)
    T.wait(env)
    assert T.find_all(env, id="no_results")
    T.back(env)
    T.tap_id(env, "search")
    category = _state(env)["videos"][0]["category"]
    T.type_into(env, "query", category, submit=True)
    T.wait(env)
    T.tap_text(env, "Most viewed")
    want = sorted((v for v in _state(env)["videos"] if category.lower() in v["title"].lower()
                   or v["category"] == category), key=lambda v: (-v["views"], v["id"]))
    shown = [e.text for e in T.find_all(env, id="video_row_title")]
    assert shown == [v["title"] for v in want][:len(shown)] and shown
    assert _state(env)["search_history"][0] == category


def test_trending_is_ordered_by_views() -> None:
    env = _env()
    T.tap_id(env, "bottom_nav_1")
    assert env.phone.activity() == "video/trending"
    top = sorted(_state(env)["videos"], key=lambda v: (-v["views"], v["id"]))
    shown = [e.text for e in T.find_all(env, id="video_row_title")]
    assert shown and shown == [f"{i}. {v['title']}" for i, v in enumerate(top, start=1)][:len(shown)]


def test_subscribe_from_player_channel_page_and_unsubscribe_with_confirmation() -> None:
    env = _env()
    v = _state(env)["videos"][0]
    ch = next(c for c in _state(env)["channels"] if c["id"] == v["channel"])
    subs = ch["subscribers"]
    _search_and_play(env, v["title"])
    T.tap_id(env, "subscribe")
    assert _state(env)["subscriptions"] == [ch["id"]] and ch["subscribers"] == subs + 1
    T.tap_id(env, "channel_name")
    assert env.phone.activity() == "video/channel"
    assert T.find(env, id="subscribe").text == "Subscribed"
    T.tap_id(env, "subscribe")
    T.tap_id(env, "button1")  # Cancel
    assert _state(env)["subscriptions"] == [ch["id"]]
    T.back(env)
    T.back(env)
    T.back(env)
    T.tap_id(env, "bottom_nav_2")
    assert [e.text for e in T.find_all(env, id="subscription_title")] == [ch["name"]]
    T.tap_text(env, ch["name"])
    T.tap_id(env, "subscribe")
    T.tap_text(env, "Unsubscribe")
    assert _state(env)["subscriptions"] == [] and ch["subscribers"] == subs


def test_premium_purchase_needs_the_password_and_cancel_records_nothing() -> None:
    env = _env()
    st = _state(env)
    plan = next(p for p in st["plans"] if p["id"] == "yearly")
    T.tap_id(env, "bottom_nav_3")
    T.tap_id(env, "premium_card")
    T.tap_id(env, "choose_yearly")
    assert env.phone.activity() == "video/premium_pay"
    T.tap_id(env, "cancel")
    assert env.phone.activity() == "video/premium" and "subscription" not in T.effect_kinds(env)
    T.tap_id(env, "choose_yearly")
    wrong = "0" * 6 if st["payment_password"] != "0" * 6 else "1" * 6
    T.type_into(env, "pay_password", wrong)
    T.tap_id(env, "confirm_payment")
    assert st["failed_payments"] == 1 and not st["membership"]["active"] and "subscription" not in T.effect_kinds(env)
    T.type_into(env, "pay_password", st["payment_password"])
    T.tap_id(env, "confirm_payment")
    assert st["membership"] == {"active": True, "plan": "yearly", "price": plan["price"], "period": "year"}
    effect = env.phone.state.effects[-1]
    assert effect.kind == "subscription" and effect.detail["amount"] == plan["price"] and effect.detail["plan"] == "yearly"
    assert env.phone.activity() == "video/library"
    assert T.find(env, id="membership_status").text == "Premium member"


def test_randomized_phone_runs_the_main_flows() -> None:
    env = _env(randomize=True, seed=11)
    st = _state(env)
    v = st["videos"][2]
    _search_and_play(env, v["title"])
    T.tap_id(env, "like")
    T.scroll_until(env, "Subscribe")
    T.tap_id(env, "subscribe")
    assert v["id"] in st["liked"] and v["channel"] in st["subscriptions"]
    T.back(env)
    T.back(env)
    T.tap_id(env, "bottom_nav_3")
    T.tap_id(env, "premium_card")
    T.tap_id(env, "choose_monthly")
    T.type_into(env, "pay_password", st["payment_password"], submit=True)
    assert st["membership"]["active"] and T.effect_kinds(env).count("subscription") == 1
    assert st != SimEnv(apps=["Video"], randomize=True, seed=12, render=False).reset(app="Video").app_state
