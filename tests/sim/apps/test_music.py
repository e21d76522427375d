"""The music apps (Spotify, NetEase Cloud Music) driven by actions alone: songs, a search for any query, plans bought
with the payment password, the login wall, and every screen in Chinese."""

from __future__ import annotations

import pytest

from mobile_r1.env.sim import SimEnv
from mobile_r1.sim import testing as T
from mobile_r1.sim.apps import Ctx, load_all
from mobile_r1.sim.apps.music import songs
from mobile_r1.sim.system import Phone
from tests.sim.apps.app_checks import Params, assert_opens_everywhere, start, untranslated, visit_every_screen

APPS = {"spotify": "com.spotify.music", "netease_music": "com.netease.cloudmusic"}


def _env(key: str, locale: str = "en", seed: int = 0, logged_out: bool = False) -> SimEnv:
    return start(key, locale, *([("logged_out", {})] if logged_out else []), seed=seed)


@pytest.mark.parametrize("locale", ["en", "zh"])
@pytest.mark.parametrize("key", list(APPS))
def test_each_app_opens_from_its_launcher_icon_by_name_and_by_package(key: str, locale: str) -> None:
    assert_opens_everywhere(key, locale, "music")
    assert load_all()[key].package == APPS[key]


def test_song_search_is_a_pure_function_of_the_catalog_and_the_query() -> None:
    a = Phone(apps=["spotify"], seed=2).app_state("spotify")
    found = songs(a, "Golden Hour")
    assert found == songs(a, " golden   hour ") == songs(a["catalog"]["seed"], "golden hour")
    assert found[0]["title"] == "golden hour" and all("golden hour" in s["title"] for s in found)
    assert songs(a, "") == []
    env = _env("spotify")
    T.tap(env, id="bottom_nav_1")
    T.type_into(env, "query", "golden hour", submit=True)
    T.tap(env, id="song_title")
    state = env.phone.app_state("spotify")
    assert env.phone.activity() == "spotify/now_playing" and state["playing"] == found[0]["id"]
    T.tap_id(env, "play_pause")
    assert state["playing"] is None and env.phone.state.effects == []


def test_spotify_premium_duo_for_a_month_with_the_payment_password() -> None:
    env = _env("spotify", "en", 4)
    s = env.phone.app_state("spotify")
    assert [t["tier"] for t in s["plans"]] == ["Premium Individual", "Premium Duo", "Premium Family", "Premium Student"]
    T.tap_id(env, "get_premium")
    T.tap(env, desc="Choose Premium Duo, Monthly auto-renew")
    assert T.find(env, id="due").text == "$16.99"
    T.tap_id(env, "subscribe")
    assert env.phone.activity() == "spotify/member_pay" and T.find(env, id="amount").text == "$16.99"
    T.type_into(env, "pay_password", s["payment_password"])
    T.tap_id(env, "confirm_payment")
    effect = env.phone.state.effects[-1]
    assert effect.kind == "subscription" and effect.detail == {
        "subscription": 1, "product": "Spotify", "plan": "Premium Duo", "option": "Monthly auto-renew", "months": 1,
        "auto_renew": True, "amount": 16.99, "currency": "USD", "first_charge": False}
    T.tap_id(env, "back_home")
    T.tap(env, id="bottom_nav_2")
    assert T.find(env, text="Your Premium Duo (Monthly auto-renew) ends in 30 days")


def test_netease_behind_its_login_wall_sells_black_vinyl_vip_in_chinese() -> None:
    env = _env("netease_music", "zh", 1, logged_out=True)
    s = env.phone.app_state("netease_music")
    assert env.phone.activity() == "netease_music/login"
    T.type_into(env, "username", "13800138000")
    T.type_into(env, "password", "secret")
    T.tap_id(env, "login")
    T.tap(env, id="bottom_nav_2")
    T.tap_id(env, "membership")
    assert env.phone.activity() == "netease_music/membership" and T.find(env, text="会员中心")
    T.tap(env, desc="选择黑胶VIP，1个月")
    T.tap_id(env, "subscribe")
    T.type_into(env, "pay_password", s["payment_password"], submit=True)
    detail = env.phone.state.effects[-1].detail
    assert (detail["plan"], detail["months"], detail["amount"], detail["currency"]) == ("黑胶VIP", 1, 18.0, "CNY")


DATA_WORDS = {"Spotify", "Premium", "Individual", "Duo", "Family", "Student", "VIP", "SVIP"}


def _member(phone: Phone, key: str) -> Params:
    """A membership of the second plan; returns the params of the search screen."""
    tier = phone.app_state(key)["plans"][1]["tier"]
    phone.apps[key].setup_membership(Ctx(phone, key), tier)  # type: ignore[attr-defined]
    return {"search": {"query": "晚风" if phone.locale == "zh" else "golden"}}


@pytest.mark.parametrize("key", list(APPS))
def test_every_screen_is_chinese_on_a_chinese_phone_and_draws(key: str) -> None:
    def check(screen: str, phone: Phone) -> None:
        if phone.locale == "zh":
            assert untranslated(phone, DATA_WORDS) == [], f"{key}/{screen}"
        assert phone.screenshot(0.2).size == (216, 480)

    for locale in ("zh", "en"):
        visit_every_screen(key, locale, check, set(), prepare=lambda phone: _member(phone, key))
