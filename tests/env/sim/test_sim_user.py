"""The simulated user: replies per policy from the hidden truth, state changes for logins, deterministic per seed."""

from __future__ import annotations

from mobile_r1.core.actions import Action
from mobile_r1.env.sim.user import NOT_NEEDED, PHRASES


def ask(env, text: str = "May I?") -> str:  # type: ignore[no-untyped-def]
    return env.step(Action.call_user(text))[3]["user_reply"]


def test_confirm_reply_carries_the_hidden_password_and_later_questions_are_not_needed(episode) -> None:  # type: ignore[no-untyped-def]
    ep = episode("shop.buy")
    env = ep.make_env(render=False)
    reply = ask(env)
    assert reply.startswith("Yes") and env.phone.app_state("shop")["payment_password"] in reply
    assert ask(env) in NOT_NEEDED
    assert [e["user_reply"] for e in env.phone.state.log if "user_reply" in e][0] == reply


def test_decline_and_default_confirm_phrases(episode) -> None:  # type: ignore[no-untyped-def]
    assert ask(episode("shop.buy_declined").make_env(render=False)) in PHRASES["decline"]
    assert ask(episode("notes.delete").make_env(render=False)) in PHRASES["confirm"]


def test_clarify_names_the_hidden_intent_and_supply_gives_the_value(episode) -> None:  # type: ignore[no-untyped-def]
    ep = episode("shop.vague_snack")
    assert ep.params["product"] in ask(ep.make_env(render=False))
    ep = episode("settings.wifi_password")
    assert ep.params["wifi_password"] in ask(ep.make_env(render=False))
    assert ep.params["wifi_password"] not in ep.instruction


def test_login_reply_logs_the_app_in_and_leaves_the_login_screen(episode) -> None:  # type: ignore[no-untyped-def]
    env = episode("wallet.balance_login").make_env(render=False)
    env.step(Action.open("Wallet"))
    assert env.phone.activity() == "wallet/login"
    reply = ask(env, "Could you log in for me?")
    assert reply in PHRASES["login"]
    assert env.phone.app_state("wallet")["logged_in"] is True
    assert env.phone.activity() == "wallet/home"
    login = [e for e in env.phone.state.effects if e.kind == "login"]
    assert login and login[0].detail["by"] == "user"


def test_replies_are_deterministic_per_seed_and_survive_snapshots(episode) -> None:  # type: ignore[no-untyped-def]
    a = ask(episode("notes.delete", seed=5).make_env(render=False))
    b = ask(episode("notes.delete", seed=5).make_env(render=False))
    assert a == b
    env = episode("notes.delete", seed=5).make_env(render=False)
    snap = env.snapshot()
    first = ask(env)
    env.restore(snap)
    assert ask(env) == first  # the user counts questions from the restored log
