"""Notes, Settings and Shop driven through their main flows by actions alone, asserting on app state."""

from __future__ import annotations

from mobile_r1.core import Action
from mobile_r1.env.sim import SimEnv
from mobile_r1.sim import testing as T


def make(app: str) -> SimEnv:
    env = SimEnv(apps=["Notes", "Settings", "Shop"], randomize=False, render=False)
    env.reset(app=app)
    return env


# ----- notes ---------------------------------------------------------------------------------------------
def test_notes_create_edit_search_and_delete() -> None:
    env = make("Notes")
    notes = env.phone.app_state("notes")["notes"]
    n0 = len(notes)
    T.tap_id(env, "new_note")
    T.type_into(env, "title", "Dentist")
    T.type_into(env, "body", "Tuesday 3pm")
    T.tap_id(env, "save")
    assert len(notes) == n0 + 1 and notes[-1]["title"] == "Dentist" and notes[-1]["body"] == "Tuesday 3pm"
    assert env.phone.activity() == "notes/note"
    T.tap_id(env, "edit")
    T.type_into(env, "body", ", bring card")
    T.tap_id(env, "save")
    assert notes[-1]["body"] == "Tuesday 3pm, bring card"
    T.back(env)
    T.tap_id(env, "search")
    T.type_into(env, "query", "dentist")
    assert [e.text for e in T.find_all(env, id="note_title")] == ["Dentist"]
    T.tap(env, id="note")
    T.tap_id(env, "delete")
    T.tap_text(env, "Delete")
    assert all(n["title"] != "Dentist" for n in notes)
    assert env.phone.state.effects[-1].kind == "delete" and env.phone.state.effects[-1].detail["title"] == "Dentist"


def test_notes_pin_by_long_press_moves_note_to_top() -> None:
    env = make("Notes")
    last = T.find_all(env, id="note_title")[-1].text
    T.long_press(env, text=last)
    T.tap_text(env, "Pin")
    note = next(n for n in env.phone.app_state("notes")["notes"] if n["title"] == last)
    assert note["pinned"]
    assert T.find_all(env, id="note_title")[0].text in {n["title"] for n in env.phone.app_state("notes")["notes"] if n["pinned"]}


def test_notes_cancelled_delete_keeps_the_note() -> None:
    env = make("Notes")
    n0 = len(env.phone.app_state("notes")["notes"])
    T.tap(env, id="note")
    T.tap_id(env, "delete")
    T.tap_text(env, "Cancel")
    assert len(env.phone.app_state("notes")["notes"]) == n0 and not env.phone.state.effects


# ----- settings ------------------------------------------------------------------------------------------
def test_settings_wifi_bluetooth_dark_mode() -> None:
    env = make("Settings")
    s = env.phone.app_state("settings")
    T.tap_text(env, "Network & internet")
    T.tap(env, id="wifi_switch")
    assert s["wifi"] is False and not T.find_all(env, id="network")
    T.tap(env, id="wifi_switch")
    secure = next(n["name"] for n in s["networks"] if n["secure"] and n["name"] not in s["known_networks"])
    T.tap_text(env, secure)
    assert env.phone.activity() == "settings/wifi_password"
    T.type_into(env, "wifi_password", "short")
    T.tap_id(env, "connect")
    assert s["connected"] != secure
    T.type_into(env, "wifi_password", "enough123")
    T.tap_id(env, "connect")
    assert s["connected"] == secure
    T.back(env)
    T.tap_text(env, "Connected devices")
    if not s["bluetooth"]:
        T.tap(env, id="bluetooth_switch")
    T.tap_text(env, s["devices"][0])
    assert s["paired"] == [s["devices"][0]]
    T.back(env)
    T.tap_text(env, "Display")
    T.tap(env, id="dark_mode_switch")
    assert s["dark_mode"] is True and env.phone.theme_for("notes").dark


def test_settings_app_permissions_and_sign_out() -> None:
    env = make("Settings")
    T.tap_text(env, "Apps")
    T.tap_text(env, "Shop")
    T.tap(env, id="perm_location")
    assert env.phone.state.permissions["shop"]["location"] is True
    assert env.phone.state.effects[-1].detail == {"target_app": "shop", "permission": "location", "granted": True}
    T.back(env)
    T.back(env)
    T.tap_text(env, "Account")
    T.tap_id(env, "sign_out")
    T.tap(env, id="button2")  # the dialog's confirm button
    assert env.phone.app_state("settings")["account"]["signed_in"] is False
    assert env.phone.state.effects[-1].kind == "logout"


# ----- shop ----------------------------------------------------------------------------------------------
def _search(env: SimEnv, query: str) -> None:
    T.tap(env, id="search_box")
    T.type_into(env, "query", query, submit=True)
    env.step(Action.wait(2))


def test_shop_search_and_sort_by_price_and_sales() -> None:
    env = make("Shop")
    _search(env, "electronics")
    names = [e.text for e in T.find_all(env, id="result_title")]
    assert names
    products = {p["name"]: p for p in env.phone.app_state("shop")["products"]}
    T.tap_text(env, "Price")
    by_price = [products[e.text]["price"] for e in T.find_all(env, id="result_title")]
    assert by_price == sorted(by_price)
    T.tap_text(env, "Sales")
    by_sales = [products[e.text]["sales"] for e in T.find_all(env, id="result_title")]
    assert by_sales == sorted(by_sales, reverse=True)
    assert env.phone.app_state("shop")["history"][0] == "electronics"


def test_shop_favourite_cart_checkout_and_pay() -> None:
    env = make("Shop")
    shop = env.phone.app_state("shop")
    _search(env, "mug")
    T.tap(env, id="result")
    pid = env.phone.top_frame()["params"]["id"]
    T.tap_id(env, "favorite")
    assert shop["favorites"] == [pid]
    T.tap_id(env, "qty_plus")
    T.tap_id(env, "add_to_cart")
    assert shop["cart"] == [{"product": pid, "qty": 2, "selected": True}]
    env.step(Action.home())
    env.step(Action.open("shop"))  # resumes on the product page
    assert env.phone.activity() == "shop/product"
    T.back(env)
    T.back(env)
    T.tap(env, id="cart", desc="Cart")
    T.tap_id(env, "checkout")
    T.tap_id(env, "place_order")
    assert env.phone.activity() == "shop/pay"
    T.type_into(env, "pay_password", "999999" if shop["payment_password"] != "999999" else "111111")
    T.tap_id(env, "confirm_payment")
    assert shop["failed_payments"] == 1 and not env.phone.state.effects and not shop["orders"]
    T.type_into(env, "pay_password", shop["payment_password"])
    info = T.tap_id(env, "confirm_payment")
    price = next(p["price"] for p in shop["products"] if p["id"] == pid)
    assert info["effects"][0]["kind"] == "payment" and info["effects"][0]["detail"]["amount"] == round(2 * price, 2)
    assert shop["orders"][0]["total"] == round(2 * price, 2) and shop["cart"] == []
    assert env.phone.activity() == "shop/order_done"
    T.tap_id(env, "view_orders")
    assert T.find_all(env, text="Order #1  \u00b7  Paid")


def test_shop_checkout_requires_login_when_logged_out() -> None:
    env = make("Shop")
    env.phone.app_state("shop")["logged_in"] = False
    env.phone.touch()
    T.tap(env, id="product")
    T.tap_id(env, "buy_now")
    assert env.phone.activity() == "shop/login"
    T.type_into(env, "username", "amy@mail.com")
    T.type_into(env, "password", "pw", submit=True)
    assert env.phone.app_state("shop")["logged_in"] and env.phone.state.effects[-1].kind == "login"


def test_shop_bottom_nav_and_empty_cart_disables_checkout() -> None:
    env = make("Shop")
    T.tap(env, text="Cart", index=1)
    assert env.phone.activity() == "shop/cart"
    assert not T.find(env, id="checkout").enabled
    assert "disabled" in T.tap_id(env, "checkout")["error"]
    T.tap(env, text="Favorites")
    assert env.phone.activity() == "shop/favorites"
