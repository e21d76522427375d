"""SimEnv, the raw simulated phone: observations, determinism, randomisation, snapshots, task set-up, call_user."""

from __future__ import annotations

import random
import xml.etree.ElementTree as ET

import pytest

from mobile_r1.core import Action, ConfigError
from mobile_r1.env.sim import SimEnv
from mobile_r1.sim import testing as T

APPS = ["Notes", "Settings", "Shop"]


def test_observation_carries_everything() -> None:
    env = SimEnv(apps=APPS, seed=1)
    obs = env.reset(app="Shop")
    assert obs.screenshot.size == (324, 720) and obs.screen_size == (1080, 2400)
    assert obs.app == "Shop" and obs.activity == "shop/home" and "products" in obs.app_state
    assert obs.elements and isinstance(obs.state_key, str)
    root = ET.fromstring(obs.xml)
    assert root.tag == "hierarchy" and len(list(root.iter("node"))) == len(obs.elements)


def test_render_false_skips_the_screenshot() -> None:
    env = SimEnv(apps=APPS, render=False)
    assert env.reset(app="Notes").screenshot is None


def test_reset_is_deterministic_per_seed_and_differs_between_seeds() -> None:
    a, b = SimEnv(apps=APPS), SimEnv(apps=APPS)
    oa, ob = a.reset(seed=7, app="Shop"), b.reset(seed=7, app="Shop")
    assert oa.state_key == ob.state_key and oa.screenshot.tobytes() == ob.screenshot.tobytes()
    assert [e.to_dict() for e in oa.elements] == [e.to_dict() for e in ob.elements]
    oc = a.reset(seed=8, app="Shop")
    assert oc.app_state["products"] != oa.app_state["products"]


def test_randomisation_changes_the_look_and_canonical_does_not() -> None:
    shots = {s: SimEnv(apps=APPS, ad_rate=0).reset(seed=s, app="Settings").screenshot.tobytes() for s in (1, 2, 3)}
    assert len(set(shots.values())) == 3
    canon = {s: SimEnv(apps=APPS, randomize=False).reset(seed=s, app="Settings").screenshot.tobytes() for s in (1, 2)}
    assert len(set(canon.values())) == 1


def test_state_key_ignores_the_clock_but_tracks_ui_state() -> None:
    env = SimEnv(apps=APPS, randomize=False, render=False)
    k0 = env.reset(app="Notes").state_key
    assert env.step(Action.wait(5))[0].state_key == k0
    k1 = T.tap_id(env, "new_note") and env.observe().state_key
    assert k1 != k0
    T.back(env)
    assert env.observe().state_key == k0


def test_snapshot_restore_replays_identically() -> None:
    env = SimEnv(apps=APPS, seed=3, randomize=False)
    env.reset(app="Notes")
    T.tap(env, id="note")
    snap = env.snapshot()
    key, shot = env.observe().state_key, env.observe().screenshot.tobytes()
    T.tap_id(env, "delete")
    T.tap_text(env, "Delete")
    assert env.phone.state.effects
    obs = env.restore(snap)
    assert obs.state_key == key and obs.screenshot.tobytes() == shot and not env.phone.state.effects
    # the same actions give the same result twice
    results = []
    for _ in range(2):
        env.restore(snap)
        T.tap_id(env, "delete")
        T.tap_text(env, "Delete")
        results.append((env.observe().state_key, [e.to_dict() for e in env.phone.state.effects]))
    assert results[0] == results[1]


class _Task:
    """A task that starts in the Shop, logged out, with a cart item."""

    def setup(self, phone, rng: random.Random) -> None:
        shop = phone.app_state("Shop")
        shop["logged_in"] = False
        shop["cart"] = [{"product": shop["products"][0]["id"], "qty": 1, "selected": True}]
        phone.open("Shop")


def test_reset_with_a_task_setup_and_terminate() -> None:
    env = SimEnv(apps=APPS, randomize=False, render=False, user=lambda q: "Yes, go ahead")
    obs = env.reset(task=_Task())
    assert obs.app == "Shop" and obs.app_state["logged_in"] is False and len(obs.app_state["cart"]) == 1
    obs, done, truncated, info = env.step(Action.call_user("Shall I pay?"))
    assert info["user_reply"] == "Yes, go ahead" and not done and not truncated
    assert info["action_log"][-1]["action"] == {"action": "call_user", "content": "Shall I pay?"}
    obs, done, _, info = env.step(Action.answer("42"))
    assert info["answer"] == "42" and env.phone.state.answers == ["42"] and not done
    obs, done, truncated, info = env.step(Action.terminate("success"))
    assert done and not truncated and info["terminate"] == "success"
    assert "ended" in env.step(Action.back())[3]["error"]


def test_the_raw_phone_has_no_budget() -> None:
    env = SimEnv(apps=APPS, render=False)
    env.reset()
    for _ in range(40):
        _, done, truncated, info = env.step(Action.wait(1))
        assert not done and not truncated and info["error"] is None


def test_bad_configuration_raises_helpful_errors() -> None:
    with pytest.raises(ConfigError, match="unknown app"):
        SimEnv(apps=["Nope"])
    with pytest.raises(ConfigError, match="no app called"):
        SimEnv(apps=APPS).reset(app="Nope")
    with pytest.raises(ConfigError, match="setup"):
        SimEnv(apps=APPS).reset(task=object())  # type: ignore[arg-type]


def test_sim_does_not_import_torch() -> None:
    import subprocess
    import sys

    code = "import sys, mobile_r1.env, mobile_r1.sim; print('torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_randomisation_moves_elements() -> None:
    def bounds(seed: int) -> list[tuple[int, int, int, int]]:
        env = SimEnv(apps=APPS, render=False, ad_rate=0)
        env.reset(seed=seed)
        env.phone.goto("settings")
        return [e.bounds for e in env.phone.elements() if e.resource_id.endswith("/item_display")]

    assert len({tuple(bounds(s)) for s in range(6)}) > 1


def test_inputs_report_typed_text_hint_and_masked_passwords() -> None:
    env = SimEnv(apps=APPS, randomize=False, render=False)
    env.reset(app="Shop")
    env.phone.goto("shop", "pay")
    assert T.find(env, id="pay_password").text == "Payment password"
    T.type_into(env, "pay_password", "1234")
    field = T.find(env, id="pay_password")
    assert field.text == "\u2022\u2022\u2022\u2022" and field.focused
    assert 'password="true"' in env.phone.xml()


def test_state_key_sees_changes_made_outside_handlers() -> None:
    env = SimEnv(apps=APPS, randomize=False, render=False)
    k0 = env.reset(app="Notes").state_key
    env.phone.app_state("notes")["notes"][0]["title"] = "Changed"
    assert env.observe().state_key != k0
    env.phone.app_state("notes")["notes"][0]["title"] = env.reset(app="Notes").app_state["notes"][0]["title"]
    assert env.observe().state_key == k0


def test_observation_app_state_is_a_copy() -> None:
    env = SimEnv(apps=APPS, randomize=False, render=False)
    obs = env.reset(app="Notes")
    obs.app_state["notes"].clear()
    assert env.phone.app_state("notes")["notes"]
    T.tap_id(env, "new_note")
    T.type_into(env, "title", "x")
    T.tap_id(env, "save")
    assert len(env.observe().app_state["notes"]) == len(env.phone.app_state("notes")["notes"])


@pytest.mark.parametrize("seed", [0, 1])
def test_random_actions_on_every_app_never_crash(seed: int) -> None:
    env = SimEnv(seed=seed, render=False)  # every registered app
    rng = random.Random(seed)
    obs = env.reset()
    names = [a.name for a in env.phone.apps.values()]
    for _ in range(150):
        targets = [e for e in obs.elements if e.clickable or e.long_clickable]
        r = rng.random()
        if r < 0.6 and targets:
            action = Action.click(*rng.choice(targets).center)
        elif r < 0.65 and targets:
            action = Action.long_press(*rng.choice(targets).center)
        elif r < 0.72:
            action = Action.type_text(rng.choice(["hi", "123456", "pizza\n"]))
        elif r < 0.8:
            action = Action.swipe(540, 1800, 540, 600)
        elif r < 0.88:
            action = Action.back()
        elif r < 0.94:
            action = Action.open(rng.choice(names))
        else:
            action = Action.wait(2)
        obs, _, done, info = env.step(action)
        assert "error" in info and obs.state_key
        assert all(0 <= e.bounds[0] <= e.bounds[2] <= 1080 and 0 <= e.bounds[1] <= e.bounds[3] <= 2400
                   for e in obs.elements)
        if done:
            obs = env.reset()


def test_permission_dialog_restored_into_another_env_acts_on_that_env() -> None:
    from mobile_r1.sim import testing as T

    first = SimEnv(apps=["Gallery"], randomize=False, render=False)
    first.reset(app="Gallery")
    assert T.find(first, "Allow") is not None  # the storage permission dialog is open
    snap = first.snapshot()
    second = SimEnv(apps=["Gallery"], randomize=False, render=False)
    second.reset(app="Gallery")
    second.restore(snap)
    T.tap_text(second, "Allow")
    assert second.phone.state.permissions["gallery"].get("storage") is True
    assert not first.phone.state.permissions.get("gallery", {}).get("storage")
