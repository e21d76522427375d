"""Maps app: search, place details, saved places, the location permission, routes and navigation, by actions alone."""

from __future__ import annotations

import pytest

from mobile_r1.env.sim import SimEnv
from mobile_r1.sim import testing as T
from mobile_r1.sim.apps.maps import Maps, fmt_minutes
from mobile_r1.sim.tools import render_screen


def _env(randomize: bool = False, seed: int = 0) -> SimEnv:
    return T.start(["Maps"], "google maps", randomize=randomize, seed=seed)


def _state(env: SimEnv) -> dict:
    return env.phone.app_state("maps")


def _overlay(env: SimEnv) -> str | None:
    ov = env.phone.state.overlay
    return ov.kind if ov is not None else None


def _open_place(env: SimEnv, name: str) -> None:
    T.tap_id(env, "search_box")
    T.type_into(env, "query", name, submit=True)
    T.wait(env)
    T.tap(env, text=name, id="place_title")
    assert env.phone.activity() == "maps/place"
    assert T.find(env, id="place_name").text == name


@pytest.mark.parametrize("screen", Maps.screens())
def test_every_screen_renders(screen: str) -> None:
    phone = render_screen("Maps", screen)
    assert phone.screenshot(0.3).size == (324, 720)
    assert phone.elements() and phone.activity() == f"maps/{screen}"


def test_search_by_category_lists_places_nearest_first() -> None:
    env = _env()
    T.tap_id(env, "chip_1")  # Coffee
    T.wait(env)
    want = sorted((p for p in _state(env)["places"] if p["category"] == "Coffee"), key=lambda p: (p["km"], p["id"]))
    assert [e.text for e in T.find_all(env, id="place_title")] == [p["name"] for p in want]
    assert env.phone.top_frame()["params"]["query"] == "Coffee"
    T.back(env)
    T.tap_id(env, "search_box")
    T.type_into(env, "query", "nowhere at all", submit=True)
    T.wait(env)
    assert T.find_all(env, id="no_results")


def test_save_a_place_and_find_it_in_saved() -> None:
    env = _env()
    p = _state(env)["places"][3]
    _open_place(env, p["name"])
    T.tap_id(env, "save")
    assert _state(env)["saved"] == [p["id"]]
    T.back(env)
    T.back(env)
    T.tap_id(env, "bottom_nav_1")
    assert [e.text for e in T.find_all(env, id="place_title")] == [p["name"]]
    T.tap_text(env, p["name"])
    T.tap_id(env, "save")
    assert _state(env)["saved"] == []


def test_my_location_asks_for_the_permission_first() -> None:
    env = _env()
    T.tap_id(env, "my_location")
    assert _overlay(env) == "permission" and not _state(env)["location"]["shown"]
    T.tap_id(env, "permission_deny_button")
    assert not _state(env)["location"]["shown"]
    assert env.phone.state.permissions["maps"]["location"] is False
    T.tap_id(env, "my_location")
    T.tap_id(env, "permission_allow_button")
    assert _state(env)["location"]["shown"]
    assert T.find(env, id="location_text").text == f"You are here: {_state(env)['location']['address']}"
    kinds = [(e.kind, e.detail["granted"]) for e in env.phone.state.effects]
    assert kinds == [("permission", False), ("permission", True)]


def test_directions_route_options_and_navigation() -> None:
    env = _env()
    p = _state(env)["places"][5]
    _open_place(env, p["name"])
    T.tap_id(env, "directions")
    assert _overlay(env) == "permission"
    T.tap_id(env, "permission_deny_button")
    assert env.phone.activity() == "maps/place" and _overlay(env) is None
    T.tap_id(env, "directions")
    T.tap_id(env, "permission_allow_button")
    T.wait(env)
    assert env.phone.activity() == "maps/directions"
    best = {m: min(r["minutes"] for r in p["routes"][m]) for m in ("drive", "transit", "walk")}
    assert [e.text for e in T.find_all(env, id="modes_0") + T.find_all(env, id="modes_1") + T.find_all(env, id="modes_2")] \
        == [f"Drive {best['drive']} min", f"Transit {best['transit']} min", f"Walk {best['walk']} min"]
    T.tap_id(env, "modes_1")
    route = p["routes"]["transit"][1]
    T.tap_id(env, "route", index=1)
    T.tap_id(env, "start")
    nav = _state(env)["navigation"]
    assert (nav["destination"], nav["mode"], nav["via"], nav["minutes"]) == (p["id"], "transit", route["via"], route["minutes"])
    assert env.phone.activity() == "maps/navigate"
    effect = env.phone.state.effects[-1]
    assert effect.kind == "navigate" and effect.detail["mode"] == "transit" and effect.detail["destination"] == p["id"]
    T.wait(env, 120)
    assert T.find(env, id="eta").text == fmt_minutes(route["minutes"] - 2)
    T.tap_id(env, "end_navigation")
    assert _state(env)["navigation"] is None
    assert _state(env)["trips"] == [{"destination": p["id"], "name": p["name"], "mode": "transit",
                                     "minutes": route["minutes"], "arrived": False}]
    assert env.phone.activity() == "maps/home"


def test_walking_to_arrival_records_an_arrived_trip() -> None:
    env = _env()
    p = min(_state(env)["places"], key=lambda x: x["km"])
    env.phone.state.permissions["maps"]["location"] = True
    _open_place(env, p["name"])
    T.tap_id(env, "directions")
    T.wait(env)
    assert _overlay(env) is None  # already granted: no dialog
    T.tap_text(env, f"Walk {p['routes']['walk'][0]['minutes']} min")
    T.tap_id(env, "start")
    assert _state(env)["navigation"]["mode"] == "walk"
    T.wait(env, p["routes"]["walk"][0]["minutes"] * 60 + 1)
    assert T.find(env, id="instruction").text == "You have arrived"
    T.tap_id(env, "end_navigation")
    assert _state(env)["trips"][-1]["arrived"] is True
    T.tap_id(env, "bottom_nav_2")
    assert [e.text for e in T.find_all(env, id="trip_title")] == [p["name"]]


def test_randomized_phone_navigates() -> None:
    env = _env(randomize=True, seed=5)
    p = _state(env)["places"][0]
    _open_place(env, p["name"])
    T.tap_id(env, "directions")
    T.tap_id(env, "permission_allow_button")
    T.wait(env)
    T.tap_id(env, "modes_0")
    T.tap_id(env, "start")
    nav = _state(env)["navigation"]
    assert nav["destination"] == p["id"] and nav["mode"] == "drive" and nav["minutes"] == p["routes"]["drive"][0]["minutes"]
    assert [e.kind for e in env.phone.state.effects] == ["permission", "navigate"]
