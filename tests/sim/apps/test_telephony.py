"""Phone and Contacts driven by actions alone: the keypad calls any number (one in no contact shows as unknown), a new
contact asks where to save it, two contacts of one name, search, calls from Contacts shown by Phone, and the set-up
hooks."""

from __future__ import annotations

from typing import Any

import pytest

from mobile_r1.core import Action
from mobile_r1.env.sim import SimEnv
from mobile_r1.sim import testing as T
from mobile_r1.sim.apps import Ctx
from mobile_r1.sim.apps.telephony import national, number_forms
from mobile_r1.sim.system import Phone

APPS = ["phone", "android_contacts"]


def _env(app: str, locale: str = "en", **setup: Any) -> SimEnv:
    env = T.start(APPS, app, locale=locale, ad_rate=0.0)
    for hook, values in setup.items():
        getattr(env.phone.apps["android_contacts"], f"setup_{hook}")(Ctx(env.phone, "android_contacts"), **values)
    env.phone.touch()
    return env


def test_numbers_are_the_same_however_they_are_written() -> None:
    assert national("+86-12345678901") == national("12345678901") == national("0086 123 4567 8901") == "12345678901"
    assert national("+1 415 555 0100") == "+14155550100"
    assert "+86-13000001111" in number_forms("13000001111") and "13000001111" in number_forms("+86 130 0000 1111")


@pytest.mark.parametrize("locale", ["en", "zh"])
def test_keypad_calls_an_unknown_number_shown_as_unknown(locale: str) -> None:
    env = _env("phone", locale, no_contact={"number": "+86-12345678901"})
    T.type_into(env, "number", "+86-12345678901")
    assert T.find(env, id="number_owner").text == ("Unknown number" if locale == "en" else "未知号码")
    assert T.find_all(env, id="add_to_contacts")
    T.tap_id(env, "dial")
    effect = env.phone.state.effects[-1]
    assert effect.kind == "call" and effect.detail["known"] is False and effect.detail["name"] is None
    assert effect.detail["national"] == "12345678901" and "+86-12345678901" in effect.detail["forms"]
    assert env.phone.activity() == "phone/in_call"
    T.wait(env, 5.0)
    T.tap_id(env, "hang_up")
    calls = env.phone.app_state("phone")["calls"]
    assert calls[-1]["number"] == "+86-12345678901" and calls[-1]["direction"] == "outgoing"
    assert env.phone.activity() == "phone/home"


def test_keypad_names_the_contact_a_number_belongs_to() -> None:
    env = _env("phone")
    c = env.phone.app_state("android_contacts")["contacts"][0]
    T.type_into(env, "number", c["phone"])
    assert T.find(env, id="number_owner").text == c["name"] and not T.find_all(env, id="add_to_contacts")


@pytest.mark.parametrize("account, label", [("Phone", "Phone"), ("SIM", "SIM card"), ("Account", "Account")])
def test_a_new_contact_asks_where_to_save_it_then_saves_it_there(account: str, label: str) -> None:
    env = _env("android_contacts", no_contact={"name": "A Hang"})
    T.tap_id(env, "add_contact")
    assert env.phone.activity() == "android_contacts/save_location"
    T.tap(env, text=label, exact=False)
    assert env.phone.activity() == "android_contacts/edit"
    T.type_into(env, "name", "A Hang")
    T.type_into(env, "phone", "13240388773")
    T.tap_id(env, "save")
    book = env.phone.app_state("android_contacts")["contacts"]
    saved = [c for c in book if c["name"] == "A Hang"]
    assert len(saved) == 1 and saved[0]["account"] == account and "+86-13240388773" in saved[0]["forms"]
    effect = env.phone.state.effects[-1]
    assert effect.kind == "add_contact" and effect.detail["account"] == account and effect.detail["name"] == "A Hang"
    assert env.phone.activity() == "android_contacts/contact"


def test_with_a_default_account_the_form_opens_at_once_and_a_bad_number_is_refused() -> None:
    env = _env("android_contacts", save_location={"account": "SIM"})
    T.tap_id(env, "add_contact")
    assert env.phone.activity() == "android_contacts/edit"
    T.type_into(env, "name", "Teacher Li")
    T.type_into(env, "phone", "call me")
    T.tap_id(env, "save")
    assert env.phone.state.effects == [] and env.phone.activity() == "android_contacts/edit"


def test_keypad_adds_an_unknown_number_through_contacts() -> None:
    env = _env("phone", no_contact={"number": "13000001111"})
    T.type_into(env, "number", "13000001111")
    T.tap_id(env, "add_to_contacts")
    assert env.phone.activity() == "android_contacts/save_location"
    T.tap(env, text="Phone")
    T.type_into(env, "name", "Delivery Guy")
    T.tap_id(env, "save")
    saved = next(c for c in env.phone.app_state("android_contacts")["contacts"] if c["name"] == "Delivery Guy")
    assert saved["phone"] == "13000001111"


def test_two_contacts_of_one_name_are_found_by_search_and_either_can_be_called() -> None:
    env = _env("android_contacts", "zh", contact={"name": "王芳", "copies": 2})
    numbers = [c["phone"] for c in env.phone.app_state("android_contacts")["contacts"] if c["name"] == "王芳"]
    assert len(numbers) == 2 and numbers[0] != numbers[1]
    T.tap_id(env, "search_box")
    T.act(env, Action.type_text("王芳"))
    assert env.phone.top_frame()["params"]["query"] == "王芳"
    rows = T.find_all(env, id="result_title")
    assert [r.text for r in rows] == ["王芳", "王芳"]
    T.tap(env, id="result", index=1)
    T.tap_id(env, "call")
    effect = env.phone.state.effects[-1]
    assert effect.kind == "call" and effect.detail["name"] == "王芳" and effect.detail["number"] == numbers[1]
    assert env.phone.activity() == "phone/in_call" and T.find(env, id="call_name").text == "王芳"


def test_set_up_hooks_are_idempotent() -> None:
    phone = Phone(apps=APPS, seed=2)
    app, ctx = phone.apps["android_contacts"], Ctx(phone, "android_contacts")
    first = app.setup_contact(ctx, name="Wang Fang", copies=2)
    assert app.setup_contact(ctx, name="Wang Fang", copies=2) == first
    assert sum(c["name"] == "Wang Fang" for c in phone.app_state("android_contacts")["contacts"]) == 2
    app.setup_no_contact(ctx, name="Wang Fang")
    assert all(c["name"] != "Wang Fang" for c in phone.app_state("android_contacts")["contacts"])
    with pytest.raises(ValueError):
        app.setup_save_location(ctx, account="Cloud")
