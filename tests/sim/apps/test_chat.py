"""Chat app: messages, red packets, transfers, Moments and profile changes driven by actions alone."""

from __future__ import annotations

import pytest

from mobile_r1.env.sim import SimEnv
from mobile_r1.sim import testing as T
from mobile_r1.sim.apps import load_all
from mobile_r1.sim.tools import render_screen


def _env(randomize: bool = False, seed: int = 0, apps: tuple[str, ...] = ("Chat", "Gallery")) -> SimEnv:
    return T.start(apps, "wechat", randomize=randomize, seed=seed)


def _state(env: SimEnv) -> dict:
    return env.phone.app_state("chat")


def _open_chat_with(env: SimEnv, index: int = 0) -> int:
    """Open the index-th conversation of the list; returns its contact id."""
    T.tap_id(env, "conversation", index=index)
    assert env.phone.activity() == "chat/conversation"
    return env.phone.top_frame()["params"]["id"]


def test_every_screen_renders() -> None:
    app = load_all()["chat"]
    assert len(app.screens()) >= 4
    for screen in app.screens():
        phone = render_screen("chat", screen)
        assert phone.activity() == f"chat/{screen}"
        assert phone.screenshot(0.2).size == (216, 480)
        assert any(e.text for e in phone.elements())


def test_send_a_message() -> None:
    env = _env()
    cid = _open_chat_with(env, 1)
    T.type_into(env, "message", "See you at 7")
    T.tap_id(env, "send")
    conv = next(c for c in _state(env)["conversations"] if c["contact"] == cid)
    assert conv["messages"][-1]["text"] == "See you at 7" and conv["messages"][-1]["sender"] == "me"
    assert "See you at 7" in T.visible_texts(env)
    T.back(env)
    T.back(env)  # keyboard closed, then back to the list: the chat moved to the top
    assert T.find(env, id="conversation_title").text == next(
        c["name"] for c in _state(env)["contacts"] if c["id"] == cid)
    assert env.phone.state.effects == []


def _prepare_red_packet(env: SimEnv, amount: str, greeting: str) -> None:
    T.tap_id(env, "more")
    T.tap_id(env, "red_packet")
    T.type_into(env, "amount", amount)
    T.type_into(env, "greeting", greeting)
    T.tap_id(env, "prepare")


@pytest.mark.parametrize("randomize,seed", [(False, 0), (True, 11)])
def test_red_packet_needs_the_right_password(randomize: bool, seed: int) -> None:
    env = _env(randomize, seed)
    cid = _open_chat_with(env)
    balance = _state(env)["balance"]
    _prepare_red_packet(env, "8.88", "Happy new year")
    assert env.phone.activity() == "chat/pay"
    password = _state(env)["payment_password"]
    T.pay(env, "000000" if password != "000000" else "111111")
    assert _state(env)["failed_payments"] == 1 and env.phone.state.effects == []
    assert env.phone.activity() == "chat/pay"
    T.pay(env, password)
    [effect] = env.phone.state.effects
    assert effect.kind == "red_packet" and effect.detail["amount"] == 8.88
    assert effect.detail["contact"] == cid and effect.detail["greeting"] == "Happy new year"
    assert _state(env)["balance"] == round(balance - 8.88, 2)
    conv = next(c for c in _state(env)["conversations"] if c["contact"] == cid)
    assert conv["messages"][-1]["kind"] == "red_packet" and conv["messages"][-1]["amount"] == 8.88
    assert env.phone.activity() == "chat/conversation"
    assert T.find_all(env, id="red_packet_message")


def test_cancelling_a_red_packet_records_nothing() -> None:
    env = _env()
    _open_chat_with(env)
    balance = _state(env)["balance"]
    _prepare_red_packet(env, "5", "")
    T.tap_id(env, "cancel_payment")
    assert env.phone.activity() == "chat/red_packet"
    T.tap_id(env, "prepare")
    T.back(env)
    assert env.phone.activity() == "chat/red_packet"
    assert env.phone.state.effects == [] and _state(env)["balance"] == balance and _state(env)["payments"] == []


def test_red_packet_limits() -> None:
    env = _env()
    _open_chat_with(env)
    _prepare_red_packet(env, "250", "too much")
    assert env.phone.activity() == "chat/red_packet"
    T.type_into(env, "amount", "x")  # "250x" is not an amount
    T.tap_id(env, "prepare")
    assert env.phone.activity() == "chat/red_packet" and env.phone.state.effects == []


def test_transfer_from_a_contact_page() -> None:
    env = _env()
    T.tap_text(env, "Contacts")
    name = sorted(c["name"] for c in _state(env)["contacts"])[-1]
    T.tap_text(env, name)
    assert T.find(env, id="contact_name").text == name
    T.tap_id(env, "contact_transfer")
    T.type_into(env, "amount", "120.5")
    T.type_into(env, "note", "rent")
    T.tap_id(env, "do_transfer")
    T.pay(env, _state(env)["payment_password"])
    [effect] = env.phone.state.effects
    assert effect.kind == "transfer" and effect.detail["to"] == name and effect.detail["amount"] == 120.5
    assert effect.detail["note"] == "rent"
    assert env.phone.activity() == "chat/conversation"
    assert _state(env)["payments"][-1]["kind"] == "transfer"


def test_moments_like_and_post_with_confirmation() -> None:
    env = _env()
    T.tap_text(env, "Discover")
    T.tap_id(env, "moments")
    first = _state(env)["moments"][0]
    T.tap_id(env, "like")
    assert _state(env)["me"]["name"] in first["likes"]
    T.tap_id(env, "post_moment")
    T.type_into(env, "moment_text", "Hello from the sim")
    T.tap_id(env, "publish")
    T.tap_id(env, "button1")  # Cancel
    assert env.phone.state.effects == [] and env.phone.activity() == "chat/post_moment"
    T.tap_id(env, "publish")
    T.tap_id(env, "button2")  # Post
    [effect] = env.phone.state.effects
    assert effect.kind == "post" and effect.detail["text"] == "Hello from the sim"
    assert _state(env)["moments"][0]["text"] == "Hello from the sim"
    assert env.phone.activity() == "chat/moments"


def test_change_signature_confirms_first() -> None:
    env = _env()
    T.tap_text(env, "Me")
    T.tap_id(env, "profile_card")
    T.tap_id(env, "signature_row")
    old = _state(env)["me"]["signature"]
    T.type_into(env, "signature", "Out of office")
    T.tap_id(env, "save_signature")
    T.back(env)  # Back closes the dialog: nothing changes
    assert _state(env)["me"]["signature"] == old and env.phone.state.effects == []
    T.tap_id(env, "save_signature")
    T.tap_id(env, "button2")
    assert _state(env)["me"]["signature"] == "Out of office"
    [effect] = env.phone.state.effects
    assert effect.kind == "profile_change" and effect.detail == {"field": "signature", "old": old,
                                                                 "new": "Out of office"}
    assert env.phone.activity() == "chat/profile"


@pytest.mark.parametrize("randomize,seed", [(False, 0), (True, 4)])
def test_change_avatar_from_gallery_photos(randomize: bool, seed: int) -> None:
    env = _env(randomize, seed)
    T.tap_text(env, "Me")
    T.tap_id(env, "profile_card")
    T.tap_id(env, "avatar_row")
    T.tap_id(env, "permission_allow_button")
    assert env.phone.activity() == "chat/avatar"
    photo = [p for p in env.phone.app_state("gallery")["photos"] if not p["deleted"]][2]
    T.tap(env, desc=photo["title"])
    T.tap_id(env, "button2")
    me = _state(env)["me"]
    assert me["avatar"]["photo_id"] == photo["id"] and me["avatar"]["desc"] == photo["title"]
    assert T.effect_kinds(env) == ["permission", "profile_change"]
    assert env.phone.state.effects[1].detail["field"] == "avatar"


def test_avatar_without_gallery_offers_defaults() -> None:
    env = _env(apps=("Chat",))
    T.tap_text(env, "Me")
    T.tap_id(env, "profile_card")
    T.tap_id(env, "avatar_row")
    T.tap_id(env, "permission_allow_button")
    T.tap_id(env, "avatar_option", index=3)
    T.tap_id(env, "button1")  # Cancel
    assert T.effect_kinds(env) == ["permission"]
    T.tap_id(env, "avatar_option", index=3)
    T.tap_id(env, "button2")
    assert _state(env)["me"]["avatar"]["photo_id"] is None and T.effect_kinds(env) == ["permission", "profile_change"]


def test_state_is_seeded() -> None:
    a = SimEnv(apps=["Chat"], seed=1).phone.app_state("chat")
    b = SimEnv(apps=["Chat"], seed=1).phone.app_state("chat")
    c = SimEnv(apps=["Chat"], seed=2).phone.app_state("chat")
    assert a == b and a != c
    assert len(a["payment_password"]) == 6 and a["payment_password"].isdigit()


def test_open_a_red_packet_a_friend_sent() -> None:
    env = _env()
    s = _state(env)
    conv, msg = next((c, m) for c in s["conversations"] for m in c["messages"]
                     if m["kind"] == "red_packet" and m["sender"] != "me")
    name = next(c["name"] for c in s["contacts"] if c["id"] == conv["contact"])
    balance = s["balance"]
    T.tap_text(env, name)
    T.tap(env, desc=f"Red packet from {name}")
    T.tap_id(env, "button1")  # Cancel
    assert not msg["opened"] and env.phone.state.effects == []
    T.tap(env, desc=f"Red packet from {name}")
    T.tap_id(env, "button2")
    assert msg["opened"] and s["balance"] == round(balance + msg["amount"], 2)
    [effect] = env.phone.state.effects
    assert effect.kind == "red_packet_open" and effect.detail["amount"] == msg["amount"]
    assert "Opened" in T.visible_texts(env)
