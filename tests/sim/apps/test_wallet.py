"""Wallet app: the login wall, transfers, bills, memberships, cards and settings driven by actions alone."""

from __future__ import annotations

import pytest

from mobile_r1.core import Action
from mobile_r1.env.sim import SimEnv
from mobile_r1.sim import testing as T
from mobile_r1.sim.apps import load_all
from mobile_r1.sim.tools import render_screen


def _env(randomize: bool = False, seed: int = 0, login: bool = True) -> SimEnv:
    env = T.start(["Wallet"], "bank", randomize=randomize, seed=seed)
    if login:
        T.type_into(env, "username", "sam@mail.com")
        T.type_into(env, "password", "secret")
        T.tap_id(env, "login")
    return env


def _state(env: SimEnv) -> dict:
    return env.phone.app_state("wallet")


def _wrong(env: SimEnv) -> str:
    return "123456" if _state(env)["payment_password"] != "123456" else "654321"


def test_every_screen_renders() -> None:
    app = load_all()["wallet"]
    assert len(app.screens()) >= 4
    for screen in app.screens():
        phone = render_screen("wallet", screen)
        assert phone.activity() == f"wallet/{screen}"
        assert phone.screenshot(0.2).size == (216, 480)
        assert any(e.text for e in phone.elements())


def test_starts_behind_the_login_wall() -> None:
    env = _env(login=False)
    assert env.phone.activity() == "wallet/login" and not _state(env)["logged_in"]
    T.tap_id(env, "login")  # empty fields: nothing happens
    assert env.phone.activity() == "wallet/login" and env.phone.state.effects == []
    T.type_into(env, "username", "sam@mail.com")
    T.type_into(env, "password", "secret")
    T.tap_id(env, "login")
    assert env.phone.activity() == "wallet/home" and _state(env)["logged_in"]
    assert T.effect_kinds(env) == ["login"] and env.phone.state.effects[0].detail["account"] == "sam@mail.com"


@pytest.mark.parametrize("randomize,seed", [(False, 0), (True, 21)])
def test_transfer_to_a_saved_payee(randomize: bool, seed: int) -> None:
    env = _env(randomize, seed)
    s = _state(env)
    balance, n_tx = s["balance"], len(s["transactions"])
    payee = s["payees"][1]
    T.tap_id(env, "action_transfer")
    T.tap_text(env, payee["name"])
    T.type_into(env, "amount", "250")
    T.type_into(env, "note", "dinner")
    T.tap_id(env, "next")
    assert env.phone.activity() == "wallet/pay"
    assert payee["account"] in T.visible_texts(env)
    T.pay(env, _wrong(env))
    assert T.effect_kinds(env) == ["login"] and s["failed_payments"] == 1 and s["balance"] == balance
    T.pay(env, s["payment_password"])
    effect = env.phone.state.effects[-1]
    assert effect.kind == "transfer"
    assert effect.detail == {"to": payee["name"], "account": payee["account"], "amount": 250.0, "note": "dinner",
                             "transaction": s["transactions"][-1]["id"]}
    assert s["balance"] == round(balance - 250, 2) and len(s["transactions"]) == n_tx + 1
    assert s["transactions"][-1]["amount"] == -250.0
    assert env.phone.activity() == "wallet/done"
    T.tap_id(env, "back_home")
    assert T.find(env, id="balance").text == f"${s['balance']:,.2f}"


def test_transfer_validates_account_and_amount() -> None:
    env = _env()
    T.tap_id(env, "action_transfer")
    T.type_into(env, "account", "12ab")
    T.type_into(env, "amount", "10")
    info = T.tap_id(env, "next")
    assert env.phone.activity() == "wallet/transfer" and "account number" in info["toast"]
    T.tap_id(env, "account")
    for _ in range(4):
        env.step(Action.key("del"))
    T.type_into(env, "account", "9988776655")
    T.type_into(env, "amount", "0000000")  # the amount field now holds 100000000
    info = T.tap_id(env, "next")
    assert env.phone.activity() == "wallet/transfer" and info["toast"] == "Insufficient balance"
    assert T.effect_kinds(env) == ["login"]


def test_cancelling_a_transfer_records_nothing() -> None:
    env = _env()
    s = _state(env)
    balance, n_tx = s["balance"], len(s["transactions"])
    T.tap_id(env, "action_transfer")
    T.type_into(env, "account", "9988776655")
    T.type_into(env, "amount", "12.5")
    T.tap_id(env, "next")
    assert "Unnamed payee" in T.visible_texts(env) and "9988776655" in T.visible_texts(env)
    T.tap_id(env, "cancel_payment")
    assert env.phone.activity() == "wallet/transfer"
    T.tap_id(env, "next")
    T.back(env)
    assert env.phone.activity() == "wallet/transfer"
    assert T.effect_kinds(env) == ["login"] and s["balance"] == balance and len(s["transactions"]) == n_tx


def test_pay_a_bill() -> None:
    env = _env()
    s = _state(env)
    bill = s["bills"][0]
    balance = s["balance"]
    T.tap_id(env, "action_bills")
    T.tap_text(env, bill["biller"])
    T.tap_id(env, "pay_bill")
    T.pay(env, s["payment_password"])
    assert bill["paid"] and s["balance"] == round(balance - bill["amount"], 2)
    effect = env.phone.state.effects[-1]
    assert effect.kind == "payment" and effect.detail["bill"] == bill["id"]
    assert effect.detail["amount"] == bill["amount"] and effect.detail["what"] == "bill"
    T.tap_id(env, "back_home")
    T.tap_id(env, "action_bills")
    T.tap_text(env, bill["biller"])
    assert T.find(env, id="bill_status").text == "Paid" and not T.find(env, id="pay_bill").enabled


@pytest.mark.parametrize("randomize,seed", [(False, 0), (True, 8)])
def test_buy_and_cancel_a_membership(randomize: bool, seed: int) -> None:
    env = _env(randomize, seed)
    s = _state(env)
    plan = s["plans"][2]
    T.tap_id(env, "action_plans")
    T.tap_text(env, plan["name"])
    T.tap_id(env, "subscribe")
    T.tap_id(env, "cancel_payment")
    assert not plan["active"] and T.effect_kinds(env) == ["login"]
    T.tap_id(env, "subscribe")
    T.pay(env, _wrong(env))
    assert not plan["active"] and T.effect_kinds(env) == ["login"]
    T.pay(env, s["payment_password"])
    assert plan["active"]
    effect = env.phone.state.effects[-1]
    assert effect.kind == "subscription" and effect.detail["plan"] == plan["id"]
    assert effect.detail["amount"] == plan["price"] and effect.detail["period"] == plan["period"]
    T.tap_id(env, "back_home")
    T.tap_id(env, "action_plans")
    T.tap_text(env, plan["name"])
    T.tap_id(env, "cancel_plan")
    T.tap_id(env, "button1")  # Keep
    assert plan["active"]
    T.tap_id(env, "cancel_plan")
    T.tap_id(env, "button2")
    assert not plan["active"] and T.effect_kinds(env)[-1] == "subscription_cancel"


def test_cards_transactions_and_settings() -> None:
    env = _env()
    s = _state(env)
    T.tap_text(env, "Cards")
    T.tap_id(env, "freeze_2")
    assert s["cards"][1]["frozen"] and not s["cards"][0]["frozen"]
    T.tap_text(env, "Activity")
    latest = s["transactions"][-1]
    T.tap_id(env, "transaction")
    assert T.find(env, id="tx_title").text == latest["title"]
    T.back(env)
    T.tap_text(env, "Settings")
    T.tap_id(env, "hide_balance_switch")
    assert s["settings"]["hide_balance"]
    T.tap_text(env, "Home")
    assert T.find(env, id="balance").text == "$ ****"
    T.tap_text(env, "Settings")
    T.tap_id(env, "log_out")
    T.tap_id(env, "button2")
    assert not s["logged_in"] and env.phone.activity() == "wallet/login" and T.effect_kinds(env) == ["login", "logout"]
