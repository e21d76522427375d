"""Food app: sorting and filtering restaurants, menus, the basket, the login wall, checkout and payment, by actions alone."""

from __future__ import annotations

import pytest

from mobile_r1.core import Action
from mobile_r1.env.sim import SimEnv
from mobile_r1.sim import testing as T
from mobile_r1.sim.apps.food import Food
from mobile_r1.sim.tools import render_screen


def _env(randomize: bool = False, seed: int = 0) -> SimEnv:
    return T.start(["Food"], "doordash", randomize=randomize, seed=seed)


def _state(env: SimEnv) -> dict:
    return env.phone.app_state("food")


def _open_restaurant(env: SimEnv, name: str) -> None:
    T.type_into(env, "query", name)
    T.tap(env, text=name, id="restaurant_name")
    assert env.phone.activity() == "food/restaurant"


def _no_minimum(env: SimEnv) -> dict:
    return next(r for r in _state(env)["restaurants"] if r["min_order"] == 0)


@pytest.mark.parametrize("screen", Food.screens())
def test_every_screen_renders(screen: str) -> None:
    phone = render_screen("Food", screen)
    assert phone.screenshot(0.3).size == (324, 720)
    assert phone.elements() and phone.activity() == f"food/{screen}"


@pytest.mark.parametrize("tab,key", [(1, lambda r: (-r["rating"], r["id"])), (2, lambda r: (r["minutes"], r["id"])),
                                     (3, lambda r: (r["km"], r["id"]))])
def test_sorting_orders_the_restaurants(tab: int, key) -> None:
    env = _env()
    T.tap_id(env, f"sort_{tab}")
    want = [r["name"] for r in sorted(_state(env)["restaurants"], key=key)]
    shown = [e.text for e in T.find_all(env, id="restaurant_name")]
    assert shown and shown == want[:len(shown)]


def test_cuisine_filter_and_dish_search() -> None:
    env = _env()
    T.tap_id(env, "filter")
    T.tap_text(env, "Japanese")
    names = {r["name"] for r in _state(env)["restaurants"] if r["cuisine"] == "Japanese"}
    assert {e.text for e in T.find_all(env, id="restaurant_name")} == names
    assert T.find(env, id="filter").text == "Japanese"
    T.tap_id(env, "filter")
    T.tap_text(env, "All cuisines")
    T.type_into(env, "query", "naan")
    want = {r["name"] for r in _state(env)["restaurants"] if any("Naan" in d["name"] for d in r["menu"])}
    assert {e.text for e in T.find_all(env, id="restaurant_name")} == want


def test_basket_login_wall_checkout_and_payment() -> None:
    env = _env()
    st = _state(env)
    r = _no_minimum(env)
    first, second = r["menu"][0], r["menu"][1]
    _open_restaurant(env, r["name"])
    T.tap(env, desc=f"Add {first['name']}")
    T.tap(env, desc=f"Add {first['name']}")
    T.tap(env, desc=f"Add {second['name']}")
    T.tap(env, desc=f"Remove {second['name']}")
    T.tap(env, desc=f"Add {second['name']}")
    assert st["basket"] == {"restaurant": r["id"], "items": [{"dish": first["id"], "qty": 2}, {"dish": second["id"], "qty": 1}]}
    subtotal = round(first["price"] * 2 + second["price"], 2)
    T.tap_id(env, "view_basket")
    assert T.find(env, id="subtotal").text == f"Subtotal: ${subtotal:,.2f}"
    T.tap_id(env, "checkout")
    assert env.phone.activity() == "food/login" and not st["logged_in"]
    T.type_into(env, "username", "pat@example.com")
    T.type_into(env, "password", "secret", submit=True)
    assert st["logged_in"] and env.phone.activity() == "food/basket"
    T.tap_id(env, "checkout")
    assert env.phone.activity() == "food/checkout"
    T.tap_id(env, "address_card")
    T.tap_text(env, st["addresses"][1])
    assert st["address"] == 1 and env.phone.activity() == "food/checkout"
    T.type_into(env, "note", "No onions")
    T.tap_id(env, "pay")
    total = round(subtotal + r["fee"], 2)
    assert env.phone.activity() == "food/pay" and T.find(env, id="amount").text == f"${total:,.2f}"
    T.tap_id(env, "cancel")
    assert env.phone.activity() == "food/checkout" and "payment" not in T.effect_kinds(env)
    T.tap_id(env, "pay")
    wrong = "0" * 6 if st["payment_password"] != "0" * 6 else "1" * 6
    T.type_into(env, "pay_password", wrong, submit=True)
    assert st["failed_payments"] == 1 and st["orders"] == [] and "payment" not in T.effect_kinds(env)
    T.type_into(env, "pay_password", st["payment_password"])
    T.tap_id(env, "confirm_payment")
    assert len(st["orders"]) == 1 and st["basket"] == {"restaurant": None, "items": []}
    order = st["orders"][0]
    assert (order["restaurant"], order["total"], order["address"], order["note"]) == (r["id"], total, st["addresses"][1],
                                                                                      "No onions")
    effect = env.phone.state.effects[-1]
    assert effect.kind == "payment" and effect.detail["amount"] == total and effect.detail["merchant"] == r["name"]
    assert [(i["dish"], i["qty"]) for i in effect.detail["items"]] == [(first["id"], 2), (second["id"], 1)]
    assert T.effect_kinds(env) == ["login", "payment"]
    assert env.phone.activity() == "food/order" and T.find(env, id="order_status").text == "Preparing"
    T.back(env)
    assert [e.text for e in T.find_all(env, id="order_title")] == [f"{r['name']}  \u00b7  Preparing"]


def test_adding_from_another_restaurant_asks_to_start_a_new_basket() -> None:
    env = _env()
    st = _state(env)
    a, b = st["restaurants"][0], st["restaurants"][1]
    _open_restaurant(env, a["name"])
    T.tap(env, desc=f"Add {a['menu'][0]['name']}")
    T.back(env)
    T.tap_id(env, "query")
    for _ in a["name"]:
        T.act(env, Action.key("del"))
    _open_restaurant(env, b["name"])
    T.tap(env, desc=f"Add {b['menu'][0]['name']}")
    assert env.phone.state.overlay is not None and env.phone.state.overlay.title == "Start a new basket?"
    T.tap_id(env, "button1")  # Cancel
    assert st["basket"] == {"restaurant": a["id"], "items": [{"dish": a["menu"][0]["id"], "qty": 1}]}
    T.tap(env, desc=f"Add {b['menu'][0]['name']}")
    T.tap_text(env, "New basket")
    assert st["basket"] == {"restaurant": b["id"], "items": [{"dish": b["menu"][0]["id"], "qty": 1}]}


def test_minimum_order_blocks_checkout_and_clear_asks() -> None:
    env = _env()
    st = _state(env)
    r = next(x for x in st["restaurants"] if x["min_order"] > min(d["price"] for d in x["menu"]))
    cheap = min(r["menu"], key=lambda d: d["price"])
    _open_restaurant(env, r["name"])
    T.tap(env, desc=f"Add {cheap['name']}")
    T.tap_id(env, "view_basket")
    assert T.find_all(env, id="min_order_note") and not T.find(env, id="checkout").enabled
    T.tap_id(env, "clear_basket")
    T.tap_id(env, "button1")  # Cancel
    assert st["basket"]["items"]
    T.tap_id(env, "clear_basket")
    T.tap_id(env, "button2")
    assert st["basket"] == {"restaurant": None, "items": []}


def test_randomized_phone_orders_food() -> None:
    env = _env(randomize=True, seed=21)
    st = _state(env)
    st["logged_in"] = True
    env.phone.touch()
    r = _no_minimum(env)
    dish = r["menu"][2]
    _open_restaurant(env, r["name"])
    T.scroll_until(env, dish["name"], id="menu")
    T.tap(env, desc=f"Add {dish['name']}")
    T.tap_id(env, "view_basket")
    T.tap_id(env, "checkout")
    T.tap_id(env, "pay")
    T.type_into(env, "pay_password", st["payment_password"], submit=True)
    assert T.effect_kinds(env) == ["payment"] and st["orders"][0]["items"][0]["dish"] == dish["id"]
    assert env.phone.state.effects[0].detail["amount"] == round(dish["price"] + r["fee"], 2)
