"""The travel apps (Trip.com, Ctrip) driven by actions alone: the flight search form (cities, one-way or round trip,
cabin, dates), sorting flights by price, duration and rating, buying with the payment password, set-up hooks, and
every screen in Chinese."""

from __future__ import annotations

from typing import Any

import pytest

from mobile_r1.env.sim import SimEnv
from mobile_r1.sim import testing as T
from mobile_r1.sim.apps import Ctx
from mobile_r1.sim.apps.travel import AIRLINES, date_label, flights, sort_flights
from mobile_r1.sim.system import Phone
from tests.sim.apps.app_checks import (assert_chinese_everywhere, assert_draws_in_both_languages,
                                       assert_opens_everywhere, start)

APPS = ["trip", "ctrip"]


def _env(key: str, locale: str = "zh", *calls: tuple[str, dict[str, Any]], seed: int = 0) -> SimEnv:
    return start(key, locale, *calls, seed=seed)


def _fill(env: SimEnv, origin: str, destination: str, date: str) -> None:
    T.tap_id(env, "from")
    T.type_into(env, "from", origin)
    T.tap_id(env, "to")
    T.type_into(env, "to", destination, submit=True)
    T.tap_id(env, "departure_date")
    T.tap_text(env, date)


@pytest.mark.parametrize("locale", ["en", "zh"])
@pytest.mark.parametrize("key", APPS)
def test_each_app_opens_from_its_launcher_icon_by_name_and_by_package(key: str, locale: str) -> None:
    assert_opens_everywhere(key, locale, "travel")


def test_flights_are_a_pure_function_of_the_catalog_and_the_route() -> None:
    a = Phone(apps=["ctrip"], seed=4, locale="zh").app_state("ctrip")
    b = Phone(apps=["ctrip"], seed=4, locale="zh").app_state("ctrip")
    c = Phone(apps=["ctrip"], seed=9, locale="zh").app_state("ctrip")
    found = flights(a, "北京", "兰卡威")
    assert found == flights(b, " 北京", "兰卡威 ") == flights(a["catalog"]["seed"], "北京", "兰卡威", locale="zh")
    assert found != flights(c, "北京", "兰卡威") and flights(a, "", "兰卡威") == []
    assert 6 <= len(found) <= 9
    for field in ("price", "duration_minutes", "rating"):
        assert len({f[field] for f in found}) == len(found), field
    assert sort_flights(found, "price")[0]["price"] == min(f["price"] for f in found)
    assert sort_flights(found, "duration")[0]["duration_minutes"] == min(f["duration_minutes"] for f in found)
    assert sort_flights(found, "rating")[0]["rating"] == max(f["rating"] for f in found)
    business = flights(a, "北京", "兰卡威", cabin="business")
    assert min(f["price"] for f in business) > min(f["price"] for f in found)
    assert {f["id"] for f in business}.isdisjoint(f["id"] for f in found)
    with pytest.raises(ValueError, match="cabin must be one of"):
        flights(a, "北京", "兰卡威", cabin="first")
    assert date_label(12, 5, "zh") == "12月5日" and date_label(12, 5, "en") == "Dec 5"


def test_the_form_needs_both_cities_and_a_date() -> None:
    env = _env("trip", "en")
    T.tap_id(env, "search_flights")
    assert env.phone.activity() == "trip/home"
    T.tap_id(env, "from")
    T.type_into(env, "from", "New York")
    T.tap_id(env, "to")
    T.type_into(env, "to", "Langkawi")
    T.tap_id(env, "search_flights")
    assert env.phone.activity() == "trip/home" and env.phone.app_state("trip")["searches"] == []
    T.tap_id(env, "departure_date")
    assert env.phone.activity() == "trip/dates"
    T.tap_text(env, "Dec 5")
    assert env.phone.app_state("trip")["form"]["date"] == "Dec 5" and env.phone.activity() == "trip/home"
    T.tap_id(env, "search_flights")
    assert env.phone.activity() == "trip/results"


def test_the_cheapest_ticket_is_bought_with_the_payment_password() -> None:
    env = _env("trip", "en", ("payment_password", {"password": "246810"}))
    s = env.phone.app_state("trip")
    _fill(env, "New York", "Langkawi", "Dec 5")
    T.tap_id(env, "search_flights")
    T.tap_id(env, "sort_price")
    cheapest = sort_flights(flights(s, "New York", "Langkawi"), "price")[0]
    assert T.find_all(env, id="flight_price")[0].text == f"${cheapest['price']:,.2f}"
    T.tap_id(env, "flight")
    assert s["viewed"] == [cheapest["id"]]
    T.tap_id(env, "book")
    T.tap_id(env, "pay_now")
    T.type_into(env, "pay_password", "000000", submit=True)
    assert env.phone.state.effects == [] and s["failed_payments"] == 1
    T.type_into(env, "pay_password", "246810", submit=True)
    effect = env.phone.state.effects[-1]
    assert effect.kind == "payment" and effect.detail == {
        "order": 1, "flight": cheapest["id"], "from": "New York", "to": "Langkawi", "trip": "one_way",
        "cabin": "economy", "date": "Dec 5", "back": "", "airline": cheapest["airline"], "number": cheapest["number"],
        "amount": cheapest["price"], "currency": "USD"}
    assert env.phone.activity() == "trip/done" and s["orders"][-1]["flight"] == cheapest["id"]


def test_a_round_trip_in_business_class_sorted_by_rating_on_ctrip() -> None:
    env = _env("ctrip", "zh")
    s = env.phone.app_state("ctrip")
    T.tap_text(env, "往返")
    T.tap_id(env, "cabin_business")
    _fill(env, "上海", "巴厘岛", "12月5日")
    T.tap_id(env, "search_flights")
    assert env.phone.activity() == "ctrip/home"  # no return date yet
    T.tap_id(env, "return_date")
    assert "12月4日" not in T.visible_texts(env)  # the return calendar starts on the day out
    T.tap_text(env, "12月12日")
    T.tap_id(env, "search_flights")
    T.tap_id(env, "sort_rating")
    best = sort_flights(flights(s, "上海", "巴厘岛", cabin="business", trip="round"), "rating")[0]
    T.tap_id(env, "flight")
    T.tap_id(env, "book")
    T.tap_id(env, "pay_now")
    T.type_into(env, "pay_password", s["payment_password"], submit=True)
    detail = env.phone.state.effects[-1].detail
    assert (detail["flight"], detail["trip"], detail["cabin"], detail["date"], detail["back"], detail["currency"]) == (
        best["id"], "round", "business", "12月5日", "12月12日", "CNY")
    T.tap_id(env, "back_home")
    T.tap(env, id="bottom_nav_1")
    assert T.find(env, id="my_trip_title").text == "上海 → 巴厘岛"


def test_setup_target_names_the_flight_a_task_means() -> None:
    calls = (("target", {"name": "fast", "origin": "广州", "destination": "曼谷", "by": "duration"}),)
    env = _env("ctrip", "zh", *calls, seed=3)
    s = env.phone.app_state("ctrip")
    assert s["targets"]["fast"] == sort_flights(flights(s, "广州", "曼谷"), "duration")[0]
    with pytest.raises(ValueError, match="by must be one of"):
        env.phone.apps["ctrip"].setup_target(Ctx(env.phone, "ctrip"), name="x", origin="广州", destination="曼谷",
                                             by="stops")


# ----- every screen in Chinese ---------------------------------------------------------------------------------------
SCREENS = {"home", "dates", "results", "flight", "book", "pay", "done", "me"}
DATA_WORDS = {"Trip", "com", *(code for _, _, code in AIRLINES)}  # the brand, flight numbers


def _ordered(phone: Phone, key: str) -> None:
    """A round trip's form filled and one ticket bought (for the done and me screens)."""
    state = phone.app_state(key)
    state["form"].update({"from": "上海", "to": "巴厘岛", "trip": "round", "date": state["dates"][2],
                          "back": state["dates"][9]})
    flight = flights(state, "上海", "巴厘岛", trip="round")[0]
    state["orders"].append({"id": 1, "flight": flight["id"], "from": "上海", "to": "巴厘岛", "trip": "round",
                            "cabin": "economy", "date": state["dates"][2], "back": state["dates"][9],
                            "airline": flight["airline"], "number": flight["number"], "amount": flight["price"],
                            "currency": state["catalog"]["currency"], "passenger": state["passenger"]})


def _params(key: str) -> dict[str, dict[str, Any]]:
    phone = Phone(apps=[key], seed=1, randomize=False, ad_rate=0.0, locale="zh")
    _ordered(phone, key)
    flight = flights(phone.app_state(key), "上海", "巴厘岛", trip="round")[0]
    return {"results": {"sort": 2}, "flight": {"id": flight["id"]}, "book": {"id": flight["id"]},
            "pay": {"id": flight["id"]}, "done": {"order": 1}, "dates": {"which": "back"}}


@pytest.mark.parametrize("key", APPS)
def test_every_screen_is_chinese_on_a_chinese_phone(key: str) -> None:
    assert_chinese_everywhere(key, SCREENS, DATA_WORDS, _params(key), prepare=lambda phone: _ordered(phone, key))


def test_every_screen_draws_in_both_languages() -> None:
    assert_draws_in_both_languages("ctrip", SCREENS, _params("ctrip"), prepare=lambda phone: _ordered(phone, "ctrip"))
