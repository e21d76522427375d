"""The shopping apps (Taobao, JD, Pinduoduo, Vipshop, Amazon Shopping) driven by actions alone: search for any query,
sorting, the details page, favourites, sharing with a friend, cart and paid checkout, the login wall, set-up hooks,
and every screen in Chinese."""

from __future__ import annotations

from typing import Any

import pytest

from mobile_r1.core import Action
from mobile_r1.env.sim import SimEnv
from mobile_r1.sim import testing as T
from mobile_r1.sim.apps import Ctx, load_all
from mobile_r1.sim.apps.shopping import pick, results, sort_results
from mobile_r1.sim.system import Phone
from tests.sim.apps.app_checks import (Params, assert_chinese_everywhere, assert_draws_in_both_languages,
                                       assert_opens_everywhere, start, untranslated)

APPS = ["taobao", "jd", "pinduoduo", "vipshop", "amazon_shopping"]


def _env(key: str, locale: str = "en", seed: int = 0, randomize: bool = False,
         *calls: tuple[str, dict[str, Any]]) -> SimEnv:
    """The app just started, its start-up ad (if any) closed."""
    env = start(key, locale, *calls, seed=seed, randomize=randomize)
    if T.find_all(env, id="ad_close"):
        T.tap_id(env, "ad_close")
    return env


def _state(env: SimEnv, key: str) -> dict[str, Any]:
    return env.phone.app_state(key)


def _search(env: SimEnv, query: str) -> None:
    T.type_into(env, "query", query, submit=True)


def _sort(env: SimEnv, order: str) -> None:
    T.tap_id(env, f"sort_{order}")


@pytest.mark.parametrize("locale", ["en", "zh"])
@pytest.mark.parametrize("key", APPS)
def test_each_app_opens_from_its_launcher_icon_by_name_and_by_package(key: str, locale: str) -> None:
    assert_opens_everywhere(key, locale, "shopping")
    assert load_all()[key].currency == ("USD" if key == "amazon_shopping" else "CNY")


def test_listings_are_a_pure_function_of_the_catalog_and_the_query() -> None:
    a = Phone(apps=["taobao"], seed=4).app_state("taobao")
    b = Phone(apps=["taobao"], seed=4).app_state("taobao")
    c = Phone(apps=["taobao"], seed=5).app_state("taobao")
    found = results(a, "ski gloves")
    assert found == results(b, "  ski   gloves ") == results(a["catalog"]["seed"], "ski gloves", flavour="taobao",
                                                             locale="en", currency="CNY")
    assert results(a, "Ski GLOVES") == found  # one query however it is spelt
    assert [p["id"] for p in found] != [p["id"] for p in results(a, "socks")]
    assert [p["price"] for p in found] != [p["price"] for p in results(c, "ski gloves")]
    assert 8 <= len(found) <= 12 and results(a, "   ") == []
    assert all("ski gloves" in p["title"].lower() and p["query"] == "ski gloves" for p in found)
    assert len({p["price"] for p in found}) == len(found) and len({p["sales"] for p in found}) == len(found)
    assert pick(a, "ski gloves", "cheapest") == sort_results(found, "price_asc")[0]
    assert pick(a, "ski gloves", "most_expensive") == sort_results(found, "price_desc")[0]
    assert pick(a, "ski gloves", "best_selling") == sort_results(found, "sales")[0]
    with pytest.raises(ValueError, match="unknown choice"):
        pick(a, "ski gloves", "prettiest")
    # the same query costs more on JD than on Pinduoduo on average, and Amazon prices in dollars
    phone = Phone(apps=["jd", "pinduoduo", "amazon_shopping"], seed=4)
    avg = {}
    for key in ("jd", "pinduoduo", "amazon_shopping"):
        prices = [p["price"] for p in results(phone.app_state(key), "iphone 16 pro max")]
        avg[key] = sum(prices) / len(prices)
    assert avg["jd"] > avg["pinduoduo"] > avg["amazon_shopping"] > 500


def test_amazon_search_sort_by_price_and_add_the_cheapest_to_the_cart() -> None:
    env = _env("amazon_shopping")
    s = _state(env, "amazon_shopping")
    _search(env, "iPhone 16 Pro Max")
    assert env.phone.activity() == "amazon_shopping/results" and s["history"] == ["iPhone 16 Pro Max"]
    shown = [e.text for e in T.find_all(env, id="result_title")]
    assert shown and all("iphone 16 pro max" in t for t in shown)
    _sort(env, "price_asc")
    prices = [e.text for e in T.find_all(env, id="result_price")]
    assert prices == sorted(prices, key=lambda t: float(t.strip("$").replace(",", "")))
    cheapest = pick(s, "iphone 16 pro max", "cheapest")
    assert prices[0] == f"${cheapest['price']:,.2f}"
    T.tap(env, id="result")
    assert env.phone.activity() == "amazon_shopping/product" and env.phone.top_frame()["params"]["id"] == cheapest["id"]
    assert s["viewed"] == [cheapest["id"]]
    T.tap_id(env, "add_to_cart")
    assert [line["product"] for line in s["cart"]] == [cheapest["id"]]
    assert env.phone.state.effects == []  # nothing irreversible so far
    T.tap_id(env, "cart")
    assert T.find(env, id="item_title").text == cheapest["title"]


def test_vipshop_behind_its_login_wall_favourites_the_best_selling_item_in_chinese() -> None:
    env = _env("vipshop", "zh", 0, False, ("logged_out", {}))
    s = _state(env, "vipshop")
    assert env.phone.activity() == "vipshop/login"
    T.type_into(env, "username", "13800138000")
    T.type_into(env, "password", "secret")
    T.tap_id(env, "login")
    assert env.phone.activity() == "vipshop/home" and [e.kind for e in env.phone.state.effects] == ["login"]
    _search(env, "耐克的运动鞋")
    _sort(env, "sales")
    best = pick(s, "耐克的运动鞋", "best_selling")
    T.tap(env, id="result")
    assert env.phone.top_frame()["params"]["id"] == best["id"]
    T.tap_id(env, "favorite")
    assert s["favorites"] == [best["id"]] and T.find(env, id="favorite").content_desc == "取消收藏"
    T.back(env)
    T.back(env)
    T.tap(env, text="收藏")
    assert env.phone.activity() == "vipshop/favorites" and T.find(env, id="favorite_item_title").text == best["title"]


def test_the_details_page_of_the_most_expensive_item_by_sorting_high_to_low() -> None:
    env = _env("jd", "zh")
    s = _state(env, "jd")
    _search(env, "雅诗兰黛的粉底液")
    _sort(env, "price_desc")
    T.tap(env, id="result")
    top = pick(s, "雅诗兰黛的粉底液", "most_expensive")
    assert env.phone.activity() == "jd/product" and s["viewed"][-1] == top["id"]
    assert T.find(env, id="price").text == f"¥{top['price']:,.2f}" and T.find(env, id="product_title").text == top["title"]


def test_sharing_the_cheapest_item_with_a_friend_the_task_names() -> None:
    env = _env("amazon_shopping", "en", 3, True, ("friend", {"name": "A Run"}))
    s = _state(env, "amazon_shopping")
    _search(env, "Lancôme lipstick")
    _sort(env, "price_asc")
    T.tap(env, id="result")
    T.tap_id(env, "share")
    assert env.phone.activity() == "amazon_shopping/share" and T.find_all(env, id="friend_title")[0].text == "A Run"
    T.tap_text(env, "A Run")
    assert env.phone.state.effects == [] and T.find(env, text="Send to A Run?")  # the sheet asks before sending
    T.tap_text(env, "Send")
    cheapest = pick(s, "Lancôme lipstick", "cheapest")
    effect = env.phone.state.effects[-1]
    assert effect.kind == "share" and effect.detail == {"product": cheapest["id"], "title": cheapest["title"],
                                                        "to": "A Run", "price": cheapest["price"]}
    assert env.phone.activity() == "amazon_shopping/product" and s["shares"] == [{"product": cheapest["id"], "to": "A Run"}]


def test_cart_checkout_pays_only_with_the_right_payment_password() -> None:
    env = _env("taobao", "zh", 7, True)
    s = _state(env, "taobao")
    _search(env, "袜子")
    first, second = results(s, "袜子")[:2]
    T.tap(env, id="result")
    T.tap_id(env, "add_to_cart")
    T.back(env)
    T.tap(env, id="result", index=1)
    T.tap_id(env, "add_to_cart")
    T.tap_id(env, "add_to_cart")
    T.tap_id(env, "cart")
    assert [(line["product"], line["qty"]) for line in s["cart"]] == [(first["id"], 1), (second["id"], 2)]
    total = round(first["price"] + 2 * second["price"], 2)
    assert T.find(env, id="total").text == f"合计：¥{total:,.2f}"
    T.tap_id(env, "checkout")
    T.tap_id(env, "place_order")
    assert env.phone.activity() == "taobao/pay"
    wrong = "000000" if s["payment_password"] != "000000" else "111111"
    T.type_into(env, "pay_password", wrong)
    T.tap_id(env, "confirm_payment")
    assert env.phone.state.effects == [] and s["failed_payments"] == 1 and env.phone.activity() == "taobao/pay"
    T.type_into(env, "pay_password", s["payment_password"])
    T.tap_id(env, "confirm_payment")
    effect = env.phone.state.effects[-1]
    assert effect.kind == "payment" and effect.detail["amount"] == total and effect.detail["merchant"] == "Taobao"
    assert [(i["product"], i["qty"]) for i in effect.detail["items"]] == [(first["id"], 1), (second["id"], 2)]
    assert s["cart"] == [] and s["orders"][-1]["total"] == total and env.phone.activity() == "taobao/order_done"


def test_buy_now_pays_for_one_item_and_keeps_the_cart() -> None:
    env = _env("pinduoduo", "en", 0, False, ("cart", {"query": "tissues"}), ("payment_password", {"password": "246810"}))
    s = _state(env, "pinduoduo")
    kept = list(s["cart"])
    _search(env, "ski gloves")
    T.tap(env, id="result")
    T.tap_id(env, "buy_now")
    T.tap_id(env, "place_order")
    T.type_into(env, "pay_password", "246810", submit=True)
    product = results(s, "ski gloves")[0]
    assert env.phone.state.effects[-1].detail["amount"] == product["price"] and s["cart"] == kept


def test_setup_product_guarantees_a_listing_that_is_the_cheapest_and_best_selling() -> None:
    env = _env("taobao", "zh", 2, True, ("product", {"query": "当季芒果"}), ("product", {"query": "当季芒果"}))
    s = _state(env, "taobao")
    assert len(s["pinned"]) == 1  # idempotent
    pinned = s["pinned"][0]
    assert "当季芒果" in pinned["title"]
    assert pick(s, "当季芒果", "cheapest")["id"] == pick(s, "当季芒果", "best_selling")["id"] == pinned["id"]
    _search(env, "当季芒果")
    assert pinned["title"] in [e.text for e in T.find_all(env, id="result_title")]


def test_search_history_records_every_search_and_the_search_screen_reuses_it() -> None:
    env = _env("taobao", "zh")
    s = _state(env, "taobao")
    _search(env, "围巾")
    T.tap_id(env, "search_box")
    assert env.phone.activity() == "taobao/search" and env.phone.top_frame()["focus"] == "query"
    env.step(Action.type_text("滑雪手套\n"))
    assert env.phone.activity() == "taobao/results" and env.phone.top_frame()["params"]["query"] == "滑雪手套"
    T.tap_id(env, "search_box")
    T.tap_text(env, "围巾")
    assert s["history"] == ["围巾", "滑雪手套"] and s["searches"] == ["围巾", "滑雪手套", "围巾"]
    T.tap_id(env, "search_box")
    T.tap_id(env, "clear_history")
    assert s["history"] == [] and s["searches"] == ["围巾", "滑雪手套", "围巾"]


def test_log_out_from_me_puts_the_login_wall_up() -> None:
    env = _env("jd")
    T.tap(env, id="bottom_nav_3")
    T.tap_id(env, "log_out")
    T.tap_text(env, "Log out")
    assert env.phone.activity() == "jd/login" and not _state(env, "jd")["logged_in"]
    assert env.phone.state.effects[-1].kind == "logout"


# ----- every screen in Chinese ---------------------------------------------------------------------------------------
SCREENS = {"home", "search", "results", "product", "share", "cart", "checkout", "pay", "order_done", "orders",
           "favorites", "me", "login"}
DATA_WORDS = {"Prime", "PLUS", "iphone", "pro", "max", "mlb"}  # brand badges, queries


def _ordered(phone: Phone, key: str) -> Params:
    """A cart, a favourite, searches and a paid order; returns the params of the screens that show one of them."""
    phone.apps[key].setup_cart(Ctx(phone, key), "mlb的棒球帽", count=2)  # type: ignore[attr-defined]
    state = phone.app_state(key)
    first = results(state, "iphone 16 pro max")[0]
    state["favorites"].append(state["items"][0]["id"])
    state["history"] = ["iphone 16 pro max", "围巾"]
    state["orders"].append({"id": 1, "status": "Paid", "total": 12.5, "address": state["address"],
                            "items": [{"product": first["id"], "title": first["title"], "qty": 1, "price": 12.5}]})
    return {"results": {"query": "iphone 16 pro max", "sort": 2}, "product": {"id": first["id"], "query": first["query"]},
            "share": {"id": first["id"], "query": first["query"]}, "order_done": {"order": 1},
            "pay": {"lines": [{"product": first["id"], "qty": 1}], "total": first["price"]}}


@pytest.mark.parametrize("key", APPS)
def test_every_screen_is_chinese_on_a_chinese_phone(key: str) -> None:
    assert_chinese_everywhere(key, SCREENS, DATA_WORDS, prepare=lambda phone: _ordered(phone, key))


def test_every_screen_draws_in_both_languages() -> None:
    assert_draws_in_both_languages("taobao", SCREENS, prepare=lambda phone: _ordered(phone, "taobao"))


def test_the_share_sheet_and_its_dialog_speak_chinese() -> None:
    env = _env("taobao", "zh", 0, False, ("friend", {"name": "王小二"}))
    _search(env, "围巾")
    T.tap(env, id="result")
    T.tap_id(env, "share")
    T.tap_text(env, "王小二")
    assert T.find(env, text="发送给王小二？") and untranslated(env.phone, DATA_WORDS) == []
    T.tap_text(env, "发送")
    assert env.phone.state.effects[-1].detail["to"] == "王小二" and env.phone.activity() == "taobao/product"
    assert env.phone.state.toast is not None and env.phone.state.toast[0] == "已分享给王小二"
