"""The payments app (Alipay) driven by actions alone: search for any service or mini program (a pure function of the
catalog and the query), the authorisation sheet a user must decide, collecting a mini program, adding Stocks to the
home page, a transfer paid from Yu'e Bao with the payment password, the login wall, and every screen in Chinese."""

from __future__ import annotations

from typing import Any, Callable

import pytest

from mobile_r1.core import Action
from mobile_r1.env.sim import SimEnv
from mobile_r1.env.sim.servers.adbd import AdbdServer, SimDevice
from mobile_r1.sim import testing as T
from mobile_r1.sim.apps import Ctx, load_all
from mobile_r1.sim.apps.payments import DEFAULT_HOME, SERVICES, results
from mobile_r1.sim.system import Phone
from tests.sim.apps.app_checks import Params, assert_opens_everywhere, start, untranslated, visit_every_screen


def _env(*calls: tuple[str, dict[str, Any]], locale: str = "en", seed: int = 0) -> SimEnv:
    return start("alipay", locale, *calls, seed=seed)


def _state(env: SimEnv) -> dict[str, Any]:
    return env.phone.app_state("alipay")


def _effects(env: SimEnv, kind: str) -> list[Any]:
    return [e for e in env.phone.state.effects if e.kind == kind]


def _tap_entry(env: SimEnv, text: str) -> None:
    """Tap the list entry showing `text` (not the search field that holds the same text)."""
    hit = next(e for e in T.find_all(env, text=text) if not e.editable)
    T.act(env, Action.click(*T.clickable_of(env, hit).center))


def _search(env: SimEnv, query: str) -> None:
    T.tap_id(env, "search_bar")
    T.type_into(env, "query", query, submit=True)


@pytest.mark.parametrize("locale", ["en", "zh"])
def test_alipay_opens_from_its_launcher_icon_by_name_and_by_package(locale: str) -> None:
    assert_opens_everywhere("alipay", locale, "payments",
                            also=("支付宝", "Alipay", "com.eg.android.AlipayGphone", "zhifubao"))
    assert load_all()["alipay"].currency == "CNY"


def test_search_results_are_a_pure_function_of_the_catalog_and_the_query() -> None:
    phone = Phone(apps=["alipay"], seed=4, locale="zh")
    state = phone.app_state("alipay")
    found = results(state, " 赛百味 ")
    assert found == results(state["catalog"]["seed"], "赛百味", locale="zh")
    assert found[0]["name"] == "赛百味" and found[0]["official"] and found[0]["kind"] == "mini_program"
    assert all("赛百味" in r["name"] for r in found) and 4 <= len(found) <= 6
    assert len({r["id"] for r in found}) == len(found)
    assert results(state["catalog"]["seed"] + 1, "赛百味", locale="zh") != found  # another phone, other programs
    assert results(state, "Luckin Coffee")[0]["name"] == "Luckin Coffee"  # any query plays
    assert [r["service"] for r in results(state, "股票")] == ["stocks"]  # a service's exact name: the service only
    assert results(state, "") == []
    en = results(1, "Subway", locale="en")
    assert en[0]["name"] == "Subway" and any(r["name"].startswith("Subway ") for r in en[1:])


def test_transfer_to_a_friend_paid_from_yue_bao() -> None:
    env = _env(("friend", {"name": "Li Ming"}), ("balance", {"amount": 2000, "method": "yuebao"}))
    s = _state(env)
    balance = s["funds"]["balance"]
    T.tap_id(env, "home_transfer")
    T.type_into(env, "friend_search", "Li Ming")
    _tap_entry(env, "Li Ming")
    T.type_into(env, "amount", "100")
    T.tap_id(env, "confirm_transfer")
    assert env.phone.activity() == "alipay/pay" and T.find(env, text="Balance")  # the method paid with by default
    T.tap_id(env, "pay_method")
    T.tap(env, text="Yu'e Bao: ¥2,000.00 available")
    wrong = "000000" if s["payment_password"] != "000000" else "111111"
    T.type_into(env, "pay_password", wrong)
    T.tap_id(env, "confirm_payment")
    assert _effects(env, "transfer") == [] and s["failed_payments"] == 1
    T.type_into(env, "pay_password", s["payment_password"])
    T.tap_id(env, "confirm_payment")
    [effect] = _effects(env, "transfer")
    assert effect.detail["to"] == "Li Ming" and effect.detail["amount"] == 100 and effect.detail["method"] == "yuebao"
    assert s["funds"]["yuebao"] == 1900 and s["funds"]["balance"] == balance
    assert env.phone.activity() == "alipay/paid" and T.find(env, text="Transfer successful")


def test_a_method_that_holds_too_little_pays_nothing() -> None:
    env = _env(("friend", {"name": "Li Ming"}), ("balance", {"amount": 20}))
    s = _state(env)
    T.tap_id(env, "home_transfer")
    _tap_entry(env, "Li Ming")
    T.type_into(env, "amount", "100")
    T.tap_id(env, "confirm_transfer")
    T.type_into(env, "pay_password", s["payment_password"])
    T.tap_id(env, "confirm_payment")
    assert _effects(env, "transfer") == [] and s["funds"]["balance"] == 20
    assert env.phone.state.toast is not None and "Balance" in env.phone.state.toast[0]


def test_adding_stocks_to_the_home_page_asks_for_an_authorisation_first() -> None:
    env = _env(("home", {"remove": ["stocks"]}))
    s = _state(env)
    assert "stocks" not in s["home_apps"] and s["home_apps"] == list(DEFAULT_HOME)
    T.tap_id(env, "more_apps")
    T.tap_id(env, "edit_home")
    T.tap(env, desc="Add Stocks to home")
    assert env.phone.activity() == "alipay/authorize"
    assert T.find(env, id="authorize_scope").text == "Get your name and ID number"
    T.tap_id(env, "deny")
    assert "stocks" not in s["home_apps"] and _effects(env, "permission")[-1].detail["granted"] is False
    T.tap(env, desc="Add Stocks to home")
    T.tap_id(env, "allow")
    assert s["home_apps"][-1] == "stocks" and env.phone.activity() == "alipay/all_services"
    [_, granted] = _effects(env, "permission")
    assert granted.detail == {"permission": "identity", "app": "Stocks", "id": "svc_stocks", "scope": "identity",
                              "granted": True}
    T.back(env)
    assert T.find(env, id="home_stocks")


def test_searching_a_mini_program_authorising_it_and_collecting_it_in_chinese() -> None:
    env = _env(("mini_program", {"name": "赛百味", "scope": "location"}), locale="zh")
    s = _state(env)
    _search(env, "赛百味")
    _tap_entry(env, "赛百味")
    assert env.phone.activity() == "alipay/authorize"
    assert T.find(env, id="authorize_scope").text == "获取你的位置信息"
    T.tap_id(env, "allow")
    assert env.phone.activity() == "alipay/mini_program" and not T.find_all(env, id="not_authorised")
    T.tap_id(env, "mini_more")
    T.tap(env, text="添加到我的小程序")
    [mini] = s["mini_programs"]
    assert mini["name"] == "赛百味" and mini["collected"] and mini["id"] == results(s, "赛百味")[0]["id"]
    assert [e.kind for e in env.phone.state.effects] == ["permission"]
    env.step(Action.system_button("Home"))
    env.phone.open("支付宝")
    T.back(env)
    T.back(env)
    T.tap_id(env, "bottom_nav_3")
    T.tap_id(env, "me_minis")
    assert [e.text for e in T.find_all(env, id="my_mini_title")] == ["赛百味"]


def test_a_denied_mini_program_opens_without_the_authorisation_and_asks_again_next_time() -> None:
    env = _env(("mini_program", {"name": "Subway", "scope": "location"}))
    _search(env, "Subway")
    _tap_entry(env, "Subway")
    T.tap_id(env, "deny")
    assert env.phone.activity() == "alipay/mini_program" and T.find(env, id="not_authorised")
    T.back(env)
    _tap_entry(env, "Subway")
    assert env.phone.activity() == "alipay/authorize"


def test_logged_out_alipay_opens_on_its_login_wall() -> None:
    env = _env(("logged_out", {}))
    assert env.phone.activity() == "alipay/login"
    T.type_into(env, "username", "13800000000")
    T.type_into(env, "password", "pw")
    T.tap_id(env, "login")
    assert env.phone.activity() == "alipay/home" and [e.kind for e in env.phone.state.effects] == ["login"]


def test_monkey_over_adbd_launches_the_app_by_its_real_package() -> None:
    from adb_shell.adb_device import AdbDeviceTcp

    with AdbdServer(SimDevice(seed=1, capture_scale=0.2)) as server:
        device = AdbDeviceTcp(server.host, server.port, default_transport_timeout_s=10.0)
        assert device.connect(rsa_keys=None, auth_timeout_s=1.0)
        try:
            for package in ("com.eg.android.AlipayGphone",):
                device.shell(f"monkey -p {package} -c android.intent.category.LAUNCHER 1")
                assert f"{package}/." in device.shell("dumpsys window | grep mCurrentFocus")
        finally:
            device.close()

# ----- every screen in Chinese ----------------------------------------------------------------------------------------
SCREENS = {"home", "all_services", "search", "service", "stocks", "authorize", "mini_program", "my_mini_programs",
           "transfer", "transfer_amount", "pay", "paid", "bills", "wealth", "friends", "me", "settings", "login"}


def _paid(phone: Phone) -> Params:
    """A friend, a collected mini program, a search and a transfer; returns the params of the screens that show one of
    them (several for some)."""
    app, ctx = phone.apps["alipay"], Ctx(phone, "alipay")
    name = "李明" if phone.locale == "zh" else "Li Ming"
    fid = app.setup_friend(ctx, name)  # type: ignore[attr-defined]
    app.setup_mini_program(ctx, "赛百味", collected=True)  # type: ignore[attr-defined]
    state = phone.app_state("alipay")
    mini = state["mini_programs"][0]["id"]
    state["history"] = ["赛百味"]
    state["transfers"].append({"id": 1, "to": name, "contact": fid, "amount": 100.0, "note": "", "method": "yuebao",
                               "time": "09:00"})
    return {
        "all_services": [{"edit": True}], "search": [{"query": "赛百味"}, {"query": "股票"}],
        "authorize": [{"target": mini}, {"target": "svc_stocks", "then": "add_home"}],
        "mini_program": [{"id": mini}], "service": [{"service": k} for k in SERVICES],
        "transfer_amount": [{"contact": fid}], "pay": [{"contact": fid, "amount": 100.0, "note": "还钱", "method": "card"}],
        "paid": [{"payment": 1}]}


def _visit_every_screen(locale: str, check: Callable[[str, Phone], None]) -> None:
    """Every screen (`visit_every_screen`), then the menu of payment methods."""
    phone = visit_every_screen("alipay", locale, check, SCREENS, prepare=_paid)
    fid = phone.app_state("alipay")["transfers"][0]["contact"]
    phone.goto("alipay", "pay", contact=fid, amount=100.0)
    T.tap_id(phone, "pay_method")
    check("pay (menu)", phone)


def test_every_screen_is_chinese_on_a_chinese_phone() -> None:
    def check(screen: str, phone: Phone) -> None:
        assert untranslated(phone) == [], f"alipay/{screen}"

    _visit_every_screen("zh", check)


def test_every_screen_draws_in_both_languages() -> None:
    def check(screen: str, phone: Phone) -> None:
        assert phone.screenshot(0.2).size == (216, 480)

    for locale in ("en", "zh"):
        _visit_every_screen(locale, check)
