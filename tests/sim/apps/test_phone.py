"""Contacts app: contacts, add/edit, confirmed calls, text messages, keypad, recents and deletion, by actions alone."""

from __future__ import annotations

import pytest

from mobile_r1.core import Action
from mobile_r1.env.sim import SimEnv
from mobile_r1.sim import testing as T
from mobile_r1.sim.apps.phone import Contacts
from mobile_r1.sim.tools import render_screen


def _env(randomize: bool = False, seed: int = 0) -> SimEnv:
    return T.start(["Contacts"], "phone", randomize=randomize, seed=seed)


def _state(env: SimEnv) -> dict:
    return env.phone.app_state("contacts")


def _open_contact(env: SimEnv, name: str) -> None:
    T.type_into(env, "query", name.split()[0])
    T.tap(env, text=name, id="contact_title")
    assert env.phone.activity() == "contacts/contact"
    assert T.find(env, id="contact_name").text == name


@pytest.mark.parametrize("screen", Contacts.screens())
def test_every_screen_renders(screen: str) -> None:
    phone = render_screen("Contacts", screen)
    assert phone.screenshot(0.3).size == (324, 720)
    assert phone.elements() and phone.activity() == f"contacts/{screen}"


def test_list_is_favorites_then_alphabetical_and_search_filters() -> None:
    env = _env()
    people = sorted(_state(env)["contacts"], key=lambda c: (not c["favorite"], c["name"].lower(), c["id"]))
    shown = [e.text for e in T.find_all(env, id="contact_title")]
    assert shown and shown == [c["name"] for c in people][:len(shown)]
    target = people[-1]
    T.type_into(env, "query", target["name"].split()[1].lower())
    shown = [e.text for e in T.find_all(env, id="contact_title")]
    assert target["name"] in shown and all(target["name"].split()[1].lower() in s.lower() for s in shown)


def test_add_and_edit_a_contact() -> None:
    env = _env()
    contacts = _state(env)["contacts"]
    n = len(contacts)
    T.tap_id(env, "add_contact")
    T.type_into(env, "name", "Zed Walker")
    T.type_into(env, "phone", "abc")
    T.tap_id(env, "save")
    assert len(contacts) == n and env.phone.activity() == "contacts/edit"  # invalid number refused
    T.replace_text(env, "phone", "+1 555 010 2030")
    T.type_into(env, "email", "zed@example.com")
    T.tap_id(env, "save")
    assert len(contacts) == n + 1
    assert {k: contacts[-1][k] for k in ("name", "phone", "email")} == {
        "name": "Zed Walker", "phone": "+1 555 010 2030", "email": "zed@example.com"}
    assert env.phone.activity() == "contacts/contact"
    T.tap_id(env, "edit")
    T.replace_text(env, "name", "Zed Walker Jr")
    T.tap_id(env, "save")
    assert contacts[-1]["name"] == "Zed Walker Jr" and T.find(env, id="contact_name").text == "Zed Walker Jr"
    T.tap_id(env, "favorite")
    assert contacts[-1]["favorite"]


def test_call_needs_confirmation_and_hang_up_logs_it() -> None:
    env = _env()
    st = _state(env)
    c = st["contacts"][2]
    calls = len(st["calls"])
    _open_contact(env, c["name"])
    T.tap_id(env, "call")
    assert env.phone.state.overlay is not None and env.phone.state.overlay.title == f"Call {c['name']}?"
    T.tap_id(env, "button1")  # Cancel
    assert st["active_call"] is None and "call" not in T.effect_kinds(env)
    T.tap_id(env, "call")
    T.tap_id(env, "button2")  # Call
    assert env.phone.activity() == "contacts/call"
    assert st["active_call"]["contact"] == c["id"] and st["active_call"]["number"] == c["phone"]
    assert env.phone.state.effects[-1].kind == "call"
    assert env.phone.state.effects[-1].detail == {"number": c["phone"], "contact": c["id"], "name": c["name"]}
    assert T.find(env, id="call_status").text == "Calling..."
    env.step(Action.wait(12.5))
    T.tap_id(env, "mute")  # the screen is redrawn on the next change, showing the timer
    assert st["active_call"]["muted"]
    assert T.find(env, id="call_status").text == "00:10"
    T.tap_id(env, "hang_up")
    assert st["active_call"] is None and len(st["calls"]) == calls + 1
    last = st["calls"][-1]
    assert (last["contact"], last["direction"], last["answered"]) == (c["id"], "outgoing", True)
    assert 10 <= last["seconds"] <= 12
    assert env.phone.activity() == "contacts/contact"


def test_send_a_text_message() -> None:
    env = _env()
    st = _state(env)
    c = st["contacts"][1]
    _open_contact(env, c["name"])
    T.tap_id(env, "message")
    assert T.find(env, id="sms_to").text == f"To: {c['phone']}"
    T.tap_id(env, "send")
    assert st["sms"] == [] and "sms" not in T.effect_kinds(env)  # nothing written: nothing sent
    T.type_into(env, "message", "Running 10 minutes late", submit=True)
    assert [(m["contact"], m["text"]) for m in st["sms"]] == [(c["id"], "Running 10 minutes late")]
    effect = env.phone.state.effects[-1]
    assert effect.kind == "sms" and effect.detail["number"] == c["phone"] and effect.detail["text"] == "Running 10 minutes late"
    assert [e.text for e in T.find_all(env, id="sms_text")] == ["Running 10 minutes late"]


def test_delete_contact_with_confirmation() -> None:
    env = _env()
    st = _state(env)
    c = st["contacts"][4]
    _open_contact(env, c["name"])
    T.tap_id(env, "delete")
    T.tap_id(env, "button1")  # Cancel
    assert c in st["contacts"] and env.phone.state.effects == []
    T.tap_id(env, "delete")
    T.tap_id(env, "button2")  # Delete
    assert all(x["id"] != c["id"] for x in st["contacts"])
    assert env.phone.state.effects[-1].kind == "delete"
    assert env.phone.state.effects[-1].detail == {"item": "contact", "id": c["id"], "name": c["name"], "phone": c["phone"]}
    assert env.phone.activity() == "contacts/home"


def test_keypad_dial_and_recents() -> None:
    env = _env()
    st = _state(env)
    T.tap_id(env, "bottom_nav_2")
    for key in "5550199":
        T.tap_id(env, f"key_{key}")
    T.tap_id(env, "backspace")
    T.tap_id(env, "key_8")
    assert env.phone.top_frame()["fields"]["number"] == "5550198"
    T.tap_id(env, "dial")
    T.tap_id(env, "button2")
    assert st["active_call"]["number"] == "5550198" and st["active_call"]["contact"] is None
    T.tap_id(env, "hang_up")
    assert st["calls"][-1]["answered"] is False and st["calls"][-1]["seconds"] == 0
    T.tap_id(env, "bottom_nav_1")
    assert T.find_all(env, id="recent_call_title")[0].text == "5550198"
    T.tap_id(env, "call_back")
    T.tap_id(env, "button2")
    assert [e.kind for e in env.phone.state.effects] == ["call", "call"]
    assert env.phone.state.effects[-1].detail["number"] == "5550198"


def test_randomized_phone_calls_and_texts() -> None:
    env = _env(randomize=True, seed=9)
    st = _state(env)
    c = st["contacts"][0]
    _open_contact(env, c["name"])
    T.tap_id(env, "call")
    T.tap_id(env, "button2")
    T.tap_id(env, "hang_up")
    T.tap_id(env, "message")
    T.type_into(env, "message", "hello", submit=True)
    assert T.effect_kinds(env) == ["call", "sms"] and st["sms"][-1]["contact"] == c["id"]
