"""The services apps (Meituan, Ele.me, Grab) driven by actions alone: searching a place type, sorting the places, a
place's page, buying the right pass and spec among look-alikes with the payment password, the login wall, set-up
hooks, and every screen in Chinese."""

from __future__ import annotations

from typing import Any

import pytest

from mobile_r1.env.sim import SimEnv
from mobile_r1.sim import testing as T
from mobile_r1.sim.apps.services import price_text, results, sort_results
from mobile_r1.sim.system import Phone
from tests.sim.apps.app_checks import (Params, assert_chinese_everywhere, assert_draws_in_both_languages,
                                       assert_opens_everywhere, start)

APPS = ["meituan", "eleme", "grab"]


def _env(key: str, locale: str = "zh", *calls: tuple[str, dict[str, Any]], seed: int = 0,
         randomize: bool = False) -> SimEnv:
    """The app just started, its start-up ad (if any) closed."""
    env = start(key, locale, *calls, seed=seed, randomize=randomize)
    if T.find_all(env, id="ad_close"):
        T.tap_id(env, "ad_close")
    return env


def _pay(env: SimEnv, password: str) -> None:
    T.type_into(env, "pay_password", password)
    T.tap_id(env, "confirm_payment")


def _wrong(password: str) -> str:
    return "000000" if password != "000000" else "111111"


@pytest.mark.parametrize("locale", ["en", "zh"])
@pytest.mark.parametrize("key", APPS)
def test_each_app_opens_from_its_launcher_icon_by_name_and_by_package(key: str, locale: str) -> None:
    assert_opens_everywhere(key, locale, "services")


def test_places_are_a_pure_function_of_the_catalog_and_the_query() -> None:
    a = Phone(apps=["meituan"], seed=4, locale="zh").app_state("meituan")
    b = Phone(apps=["meituan"], seed=4, locale="zh").app_state("meituan")
    c = Phone(apps=["meituan"], seed=9, locale="zh").app_state("meituan")
    found = results(a, "药店")
    assert found == results(b, " 药店 ") == results(a["catalog"]["seed"], "药店", flavour="meituan", locale="zh")
    assert found != results(c, "药店") and results(a, "") == []
    assert 6 <= len(found) <= 10 and all("药店" in p["name"] for p in found)
    assert len({p["distance_km"] for p in found}) == len(found) and len({p["name"] for p in found}) == len(found)
    nearest = sort_results(found, "distance")[0]
    assert nearest["distance_km"] == min(p["distance_km"] for p in found)
    english = results(Phone(apps=["grab"], seed=4).app_state("grab"), "Pharmacy")
    assert all("Pharmacy" in p["name"] for p in english) and english == results(Phone(apps=["grab"], seed=4).app_state(
        "grab"), "PHARMACY ")


def test_meituan_search_for_pharmacies_is_recorded_and_sorts_by_distance() -> None:
    env = _env("meituan")
    s = env.phone.app_state("meituan")
    T.type_into(env, "query", "药店", submit=True)
    assert env.phone.activity() == "meituan/results" and s["history"] == ["药店"] and s["searches"] == ["药店"]
    names = [e.text for e in T.find_all(env, id="place_name")]
    assert names == [p["name"] for p in results(s, "药店")][:len(names)] and names
    T.tap_id(env, "sort_distance")
    nearest = sort_results(results(s, "药店"), "distance")[0]
    assert T.find_all(env, id="place_name")[0].text == nearest["name"]
    T.tap(env, id="place")
    assert env.phone.activity() == "meituan/place" and s["viewed"] == [nearest["id"]]
    assert T.find(env, id="place_title").text == nearest["name"]
    assert env.phone.state.effects == []


def test_a_service_tile_searches_for_its_place_type_in_the_phones_language() -> None:
    env = _env("meituan")
    T.tap(env, text="药店")
    assert env.phone.app_state("meituan")["history"] == ["药店"] and env.phone.activity() == "meituan/results"
    env = _env("grab", "en")
    T.tap(env, text="Pharmacy")
    assert env.phone.app_state("grab")["history"] == ["Pharmacy"]


def test_meituan_black_gold_pack_is_bought_not_the_ordinary_coupon() -> None:
    env = _env("meituan")
    s = env.phone.app_state("meituan")
    T.tap(env, id="bottom_nav_1")
    assert [e.text for e in T.find_all(env, id="pass_name")][:2] == ["美团神券", "黑金神券包"]
    T.tap_text(env, "黑金神券包")
    assert T.find(env, id="chosen_spec").text == "规格：月卡" and T.find(env, id="price").text == "¥19.90"
    T.tap_id(env, "buy_now")
    assert env.phone.activity() == "meituan/pay" and T.find(env, id="pay_product").text == "黑金神券包"
    _pay(env, _wrong(s["payment_password"]))
    assert env.phone.state.effects == [] and s["failed_payments"] == 1 and s["subscriptions"] == []
    _pay(env, s["payment_password"])
    effect = env.phone.state.effects[-1]
    assert effect.kind == "subscription"
    assert effect.detail == {"subscription": 1, "product": "黑金神券包", "spec": "月卡", "amount": 19.9, "currency": "CNY",
                             "pass": 2}
    assert s["subscriptions"][-1]["product"] == "黑金神券包" and env.phone.activity() == "meituan/done"
    assert T.find(env, id="done_text").text == "黑金神券包（月卡）已生效"


def test_eleme_super_foodie_card_with_the_spec_the_user_names() -> None:
    env = _env("eleme")
    s = env.phone.app_state("eleme")
    T.tap(env, id="pass_banner")
    T.tap_text(env, "超级吃货卡")
    T.tap_text(env, "5元×6张")
    assert T.find(env, id="chosen_spec").text == "规格：5元×6张" and T.find(env, id="price").text == "¥15.00"
    T.tap_id(env, "buy_now")
    T.type_into(env, "pay_password", s["payment_password"], submit=True)
    detail = env.phone.state.effects[-1].detail
    assert (detail["product"], detail["spec"], detail["amount"]) == ("超级吃货卡", "5元×6张", 15.0)
    T.tap_id(env, "back_home")
    T.tap(env, id="bottom_nav_2")
    assert T.find(env, id="my_pass_title").text == "超级吃货卡"


def test_grab_travel_pass_for_singapore_in_singapore_dollars() -> None:
    env = _env("grab", "en", ("payment_password", {"password": "135790"}))
    T.tap(env, text="Subscriptions", index=0)
    T.tap_text(env, "Grab Travel Pass")
    T.tap_text(env, "Malaysia")
    assert T.find(env, id="price").text == "S$7.90"
    T.tap_text(env, "Singapore")
    assert T.find(env, id="price").text == "S$9.90"
    T.tap_id(env, "buy_now")
    assert T.find(env, id="amount").text == "S$9.90"
    _pay(env, "135790")
    detail = env.phone.state.effects[-1].detail
    assert (detail["product"], detail["spec"], detail["amount"], detail["currency"]) == ("Grab Travel Pass",
                                                                                          "Singapore", 9.9, "SGD")
    assert price_text(1234.5, "SGD") == "S$1,234.50" and price_text(2, "CNY") == "¥2.00"


def test_logged_out_app_opens_on_its_login_wall() -> None:
    env = _env("eleme", "zh", ("logged_out", {}))
    assert env.phone.activity() == "eleme/login"
    T.type_into(env, "username", "13800138000")
    T.type_into(env, "password", "pw")
    T.tap_id(env, "login")
    assert env.phone.activity() == "eleme/home" and env.phone.state.effects[-1].kind == "login"
    T.tap(env, id="bottom_nav_2")
    T.tap_id(env, "log_out")
    T.tap_text(env, "退出登录", index=0)
    assert env.phone.activity() == "eleme/login" and env.phone.state.effects[-1].kind == "logout"


def test_setup_hooks_add_a_pass_spec_and_a_guaranteed_nearest_place() -> None:
    calls = (("pass", {"name": "超级吃货卡", "spec": "20元×2张", "price": 29.9}),
             ("pass", {"name": "超级吃货卡", "spec": "20元×2张", "price": 29.9}),
             ("place", {"query": "药店", "name": "仁和药店(望京店)"}))
    env = _env("eleme", "zh", *calls, seed=5, randomize=True)
    s = env.phone.app_state("eleme")
    card = next(p for p in s["passes"] if p["name"] == "超级吃货卡")
    assert [x["label"] for x in card["specs"]].count("20元×2张") == 1
    assert sort_results(results(s, "药店"), "distance")[0]["name"] == "仁和药店(望京店)"
    T.type_into(env, "query", "药店", submit=True)
    assert "仁和药店(望京店)" in [e.text for e in T.find_all(env, id="place_name")]


# ----- every screen in Chinese ---------------------------------------------------------------------------------------
SCREENS = {"home", "search", "results", "place", "passes", "pass", "pay", "done", "me", "login"}
DATA_WORDS = {"Grab", "GrabUnlimited", "GrabFood"}  # brand names


def _bought(phone: Phone, key: str) -> Params:
    """Two searches made and a pass bought; returns the params of the screens that show a search, a place, a pass."""
    state = phone.app_state(key)
    state["history"] = ["药店", "咖啡"]
    item = state["passes"][1]
    state["subscriptions"].append({"id": 1, "pass": item["id"], "product": item["name"], "spec": item["specs"][0]["label"],
                                   "amount": item["specs"][0]["price"], "currency": state["catalog"]["currency"]})
    place = results(state, "药店")[0]
    return {"results": {"query": "药店", "sort": 1}, "place": {"id": place["id"], "query": "药店"},
            "pass": {"id": 1, "spec": 1}, "pay": {"pass": 2, "spec": 0}, "done": {"subscription": 1}}


@pytest.mark.parametrize("key", APPS)
def test_every_screen_is_chinese_on_a_chinese_phone(key: str) -> None:
    assert_chinese_everywhere(key, SCREENS, DATA_WORDS, prepare=lambda phone: _bought(phone, key))


def test_every_screen_draws_in_both_languages() -> None:
    assert_draws_in_both_languages("grab", SCREENS, prepare=lambda phone: _bought(phone, "grab"))
