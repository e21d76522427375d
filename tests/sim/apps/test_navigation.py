"""The navigation apps (Google Maps, Amap) driven by actions alone: the location permission asked on the first start,
searching any place, sorting by distance or rating, directions by mode, navigating, a bus stop's live arrivals,
set-up hooks, and every screen in Chinese."""

from __future__ import annotations

from typing import Any

import pytest

from mobile_r1.core import Action
from mobile_r1.env.sim import SimEnv
from mobile_r1.sim import testing as T
from mobile_r1.sim.apps import Ctx
from mobile_r1.sim.apps.navigation import arrivals, results, route_of, sort_results
from mobile_r1.sim.system import Phone
from tests.sim.apps.app_checks import (assert_chinese_everywhere, assert_draws_in_both_languages,
                                       assert_opens_everywhere, start)

APPS = ["google_maps", "amap"]


def _env(key: str, locale: str = "zh", *calls: tuple[str, dict[str, Any]], allow: bool | None = True,
         seed: int = 0) -> SimEnv:
    """The app just started; `allow` answers its location dialog (None: leave the dialog up)."""
    env = start(key, locale, *calls, seed=seed)
    if allow is not None:
        T.tap_id(env, "permission_allow_button" if allow else "permission_deny_button")
    return env


@pytest.mark.parametrize("locale", ["en", "zh"])
@pytest.mark.parametrize("key", APPS)
def test_each_app_opens_from_its_launcher_icon_by_name_and_by_package(key: str, locale: str) -> None:
    assert_opens_everywhere(key, locale, "navigation", home=False)  # the first start asks for the location


def test_the_first_start_asks_for_the_location_and_remembers_the_answer() -> None:
    env = _env("google_maps", "en", allow=None)
    overlay = env.phone.state.overlay
    assert overlay is not None and overlay.kind == "permission" and "location" in overlay.title
    T.tap_id(env, "permission_deny_button")
    assert env.phone.state.effects[-1].detail == {"permission": "location", "granted": False}
    assert T.find(env, id="my_location_title").text == "Location is off"
    env.step(Action.system_button("Home"))
    env.phone.state.stacks["google_maps"] = []
    env.phone.open("Google Maps")
    assert env.phone.state.overlay is None  # asked once
    T.tap_id(env, "my_location")  # asking again is the user's choice
    T.tap_id(env, "permission_allow_button")
    assert env.phone.state.permissions["google_maps"]["location"] is True
    assert T.find(env, id="my_location_title").text == "Your location"


def test_places_are_a_pure_function_of_the_catalog_and_the_query() -> None:
    a = Phone(apps=["amap"], seed=4, locale="zh").app_state("amap")
    b = Phone(apps=["amap"], seed=4, locale="zh").app_state("amap")
    c = Phone(apps=["amap"], seed=9, locale="zh").app_state("amap")
    found = results(a, "海底捞火锅")
    assert found == results(b, " 海底捞火锅 ") == results(a["catalog"]["seed"], "海底捞火锅", flavour="beijing", locale="zh")
    assert found != results(c, "海底捞火锅") and results(a, "") == []
    assert 5 <= len(found) <= 8 and found[0]["name"] == "海底捞火锅"
    assert all(p["name"].startswith("海底捞火锅") for p in found)
    assert len({p["distance_km"] for p in found}) == len(found) and len({p["rating"] for p in found}) == len(found)
    assert sort_results(found, "distance")[0]["distance_km"] == min(p["distance_km"] for p in found)
    assert sort_results(found, "rating")[0]["rating"] == max(p["rating"] for p in found)
    stops = results(a, "公交站")
    assert all(p["kind"] == "bus_stop" and len(p["lines"]) == 3 for p in stops)
    assert [line for line, _, _ in arrivals(stops[0])] != [] and arrivals(stops[0]) == arrivals(dict(stops[0]))
    english = results(Phone(apps=["google_maps"], seed=4).app_state("google_maps"), "Peking University")
    assert english[0]["name"] == "Peking University" and english[1]["name"].startswith("Peking University (")


def test_navigating_to_the_highest_rated_coffee_shop() -> None:
    env = _env("google_maps", "en")
    s = env.phone.app_state("google_maps")
    T.tap_id(env, "search_box")
    T.type_into(env, "query", "coffee shops", submit=True)
    assert env.phone.activity() == "google_maps/results" and s["searches"] == ["coffee shops"]
    T.tap_id(env, "sort_rating")
    best = sort_results(results(s, "coffee shops"), "rating")[0]
    assert T.find_all(env, id="place_name")[0].text == best["name"]
    T.tap(env, id="place")
    assert env.phone.activity() == "google_maps/place" and s["viewed"] == [best["id"]]
    T.tap_id(env, "start")
    effect = env.phone.state.effects[-1]
    route = route_of(best, "drive")
    assert effect.kind == "navigate" and effect.detail == {"to": best["id"], "name": best["name"], "mode": "drive",
                                                           "km": route["km"], "minutes": route["minutes"]}
    assert env.phone.activity() == "google_maps/navigating" and s["navigation"]["to"] == best["id"]
    T.tap_id(env, "end_navigation")
    assert s["navigation"] is None and env.phone.activity() == "google_maps/home"


def test_a_driving_route_is_chosen_on_the_directions_screen() -> None:
    env = _env("amap", "zh")
    s = env.phone.app_state("amap")
    T.tap_id(env, "search_box")
    T.type_into(env, "query", "北京首都国际机场", submit=True)
    T.tap(env, id="place")  # the first result: the place the query names
    T.tap_id(env, "directions")
    T.wait(env)  # the route loads
    assert env.phone.activity() == "amap/directions" and s["route"]["mode"] == "transit"  # Amap opens on transit
    T.tap_text(env, "驾车")
    airport = results(s, "北京首都国际机场")[0]
    assert s["route"] == route_of(airport, "drive") and len(s["routes"]) == 2
    assert T.find(env, text="北京首都国际机场") and T.find(env, id="route_mode").text == "驾车"
    assert env.phone.state.effects[-1].kind == "permission"  # a route is no effect


def test_a_denied_location_blocks_directions_until_allowed() -> None:
    env = _env("google_maps", "en", allow=False)
    s = env.phone.app_state("google_maps")
    T.tap_id(env, "search_box")
    T.type_into(env, "query", "Haidilao Hot Pot", submit=True)
    T.tap_id(env, "sort_distance")
    assert env.phone.state.overlay is not None and env.phone.state.overlay.kind == "permission"
    T.tap_id(env, "permission_allow_button")
    nearest = sort_results(results(s, "Haidilao Hot Pot"), "distance")[0]
    assert T.find_all(env, id="place_name")[0].text == nearest["name"]
    assert env.phone.activity() == "google_maps/results"


def test_the_nearest_bus_stops_live_arrivals() -> None:
    env = _env("google_maps", "en")
    s = env.phone.app_state("google_maps")
    T.tap_id(env, "search_box")
    T.type_into(env, "query", "bus stop", submit=True)
    T.tap_id(env, "sort_distance")
    nearest = sort_results(results(s, "bus stop"), "distance")[0]
    T.tap(env, id="place")
    T.tap_id(env, "bus_info")
    assert env.phone.activity() == "google_maps/bus" and s["bus_info"] == [nearest["id"]]
    assert [e.text for e in T.find_all(env, id="arrival_title")][0] == arrivals(nearest)[0][0]


def test_setup_target_names_the_place_a_task_means() -> None:
    calls = (("target", {"name": "near", "query": "海底捞火锅", "by": "distance"}),
             ("target", {"name": "best", "query": "咖啡馆", "by": "rating"}))
    env = _env("amap", "zh", *calls, seed=3)
    s = env.phone.app_state("amap")
    assert s["targets"]["near"] == sort_results(results(s, "海底捞火锅"), "distance")[0]
    assert s["targets"]["best"]["rating"] == max(p["rating"] for p in results(s, "咖啡馆"))
    with pytest.raises(ValueError, match="by must be one of"):
        env.phone.apps["amap"].setup_target(Ctx(env.phone, "amap"), name="x", query="咖啡馆", by="price")


# ----- every screen in Chinese ---------------------------------------------------------------------------------------
SCREENS = {"home", "search", "results", "place", "directions", "navigating", "bus"}


def _navigating(phone: Phone, key: str) -> None:
    stop = results(phone.app_state(key), "公交站")[0]
    phone.app_state(key)["navigation"] = {**route_of(stop, "walk"), "started_at": 0.0}


@pytest.mark.parametrize("key", APPS)
def test_every_screen_is_chinese_on_a_chinese_phone(key: str) -> None:
    assert_chinese_everywhere(key, SCREENS, prepare=lambda phone: _navigating(phone, key))


def test_every_screen_draws_in_both_languages() -> None:
    assert_draws_in_both_languages("amap", SCREENS, prepare=lambda phone: _navigating(phone, "amap"))
