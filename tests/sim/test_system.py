"""System behaviours of the simulated phone, driven through actions: launcher, open, back stack, keyboard, overlays."""

from __future__ import annotations

import pytest

from mobile_r1.core import Action
from mobile_r1.env.sim import SimEnv
from mobile_r1.sim import testing as T
from mobile_r1.sim.apps import REGISTRY, App, Ctx
from mobile_r1.sim.ui.widgets import AppBar, Button, Column, Scroll, Text, Widget

APPS = ["Notes", "Settings", "Shop"]


class _Probe(App):
    """A test app exercising loading screens, permissions and a login wall."""

    name = "Probe"
    package = "com.sim.probe"
    aliases = ("probe app",)
    login_required = True

    def initial_state(self, rng):
        return {"shots": 0}

    def screen_home(self, ctx: Ctx) -> Widget:
        def shoot(c: Ctx) -> None:
            c.state["shots"] += 1
        return Column(AppBar("Probe", back=False),
                      Button("Camera", id="camera", on_click=lambda c: c.request_permission("camera", shoot)),
                      Button("Slow", id="slow", on_click=lambda c: c.push("slow", loading=3.0)),
                      Scroll(*[Text(f"row {i}", id="row") for i in range(60)], id="rows"))

    def screen_slow(self, ctx: Ctx) -> Widget:
        return Column(AppBar("Slow"), Text("Loaded content", id="loaded"))


@pytest.fixture(autouse=True)
def probe_app():
    """Install the probe app for these tests only (the registry is shared by the whole process)."""
    REGISTRY["probe"] = _Probe
    yield
    REGISTRY.pop("probe", None)


def env_with(*apps: str, **kw) -> SimEnv:
    kw.setdefault("randomize", False)
    kw.setdefault("render", False)
    return SimEnv(apps=list(apps) or APPS, **kw)


def test_launcher_has_two_pages_and_swipes_between_them() -> None:
    env = env_with()
    obs = env.reset()
    assert obs.activity == "launcher"
    assert len(env.phone.launcher_pages()) >= 2
    info = env.step(Action.swipe(900, 1200, 100, 1200))[3]
    assert info["error"] is None and env.phone.state.launcher_page == 1
    assert env.step(Action.swipe(900, 1200, 100, 1200))[3]["error"]  # no third page
    env.step(Action.swipe(100, 1200, 900, 1200))
    assert env.phone.state.launcher_page == 0


def test_tapping_a_launcher_icon_opens_the_app() -> None:
    env = env_with()
    env.reset()
    T.tap(env, id="app_notes")
    assert env.phone.activity() == "notes/home"


@pytest.mark.parametrize("name", ["notes", "MEMO", "Shop", "taobao", "mall", "com.sim.shop", " settings "])
def test_open_by_name_or_alias_any_case(name: str) -> None:
    env = env_with()
    env.reset()
    info = env.step(Action.open(name))[3]
    assert info["error"] is None and env.phone.foreground is not None


def test_unknown_app_is_an_error_not_a_crash() -> None:
    env = env_with()
    env.reset()
    key = env.phone.state_key()
    obs, _, done, info = env.step(Action.open("Nonexistent"))
    assert "no app called" in info["error"] and not done and obs.state_key == key


def test_back_stack_home_and_recents() -> None:
    env = env_with()
    env.reset(app="Settings")
    T.tap_text(env, "Display")
    assert env.phone.activity() == "settings/display"
    T.back(env)
    assert env.phone.activity() == "settings/home"
    T.tap_text(env, "Apps")
    env.step(Action.home())
    assert env.phone.activity() == "launcher"
    env.step(Action.open("settings"))
    assert env.phone.activity() == "settings/apps"  # resumed with its stack
    env.step(Action.system_button("Menu"))
    assert env.phone.activity() == "recents"
    T.tap(env, id="task")
    assert env.phone.activity() == "settings/apps"
    T.back(env)
    T.back(env)
    assert env.phone.activity() == "launcher"
    env.step(Action.open("settings"))
    assert env.phone.activity() == "settings/home"  # finished apps start fresh
    assert env.step(Action.home())[3]["error"] is None
    assert env.step(Action.home())[3]["error"] == "already on the home screen"


def test_nav_bar_buttons_work_by_tapping() -> None:
    env = env_with()
    env.reset(app="Settings")
    T.tap_text(env, "Display")
    T.tap(env, desc="Back")
    assert env.phone.activity() == "settings/home"
    T.tap(env, desc="Home")
    assert env.phone.activity() == "launcher"


def test_keyboard_focus_rules() -> None:
    env = env_with()
    env.reset(app="Notes")
    key = env.phone.state_key()
    info = env.step(Action.type_text("hello"))[3]
    assert "no text field is focused" in info["error"] and env.phone.state_key() == key
    assert not T.find_all(env, id="keyboard")
    T.tap_id(env, "new_note")
    T.tap_id(env, "title")
    assert T.find(env, id="title").focused and T.find_all(env, id="keyboard")
    env.step(Action.type_text("Plan"))
    T.tap(env, id="key_s")
    env.step(Action.key("del"))
    env.step(Action.type_text("s"))
    assert env.phone.top_frame()["fields"]["title"] == "Plans"
    T.back(env)  # first Back hides the keyboard
    assert not T.find_all(env, id="keyboard") and env.phone.activity() == "notes/edit"


def test_long_press_opens_a_context_menu_and_outside_tap_closes_it() -> None:
    env = env_with()
    env.reset(app="Notes")
    first = T.find(env, id="note_title").text
    T.long_press(env, text=first)
    assert env.phone.state.overlay is not None and env.phone.state.overlay.kind == "menu"
    assert T.find_all(env, text="Delete")
    env.step(Action.click(540, 2200))
    assert env.phone.state.overlay is None


def test_swipe_scrolls_long_lists_and_stops_at_the_end() -> None:
    env = env_with("Probe")
    env.reset()
    env.phone.app_state("probe")["logged_in"] = True
    env.step(Action.open("probe"))
    assert T.find_all(env, text="row 0") and not T.find_all(env, text="row 59")
    T.scroll_until(env, "row 59")
    assert not T.find_all(env, text="row 0")
    assert "already at its end" in T.scroll_down(env)["error"]


def test_wait_lets_a_loading_screen_finish() -> None:
    env = env_with("Probe")
    env.reset()
    env.phone.app_state("probe")["logged_in"] = True
    env.step(Action.open("probe"))
    T.tap_id(env, "slow")
    assert T.find_all(env, desc="Loading...") and not T.find_all(env, id="loaded")
    env.step(Action.wait(3))
    assert T.find_all(env, id="loaded")


def test_login_wall_then_permission_dialog() -> None:
    env = env_with("Probe")
    env.reset(app="probe app")
    assert env.phone.activity() == "probe/login"
    T.tap_id(env, "login")
    assert env.phone.activity() == "probe/login"  # empty fields: stays
    T.type_into(env, "username", "amy")
    T.type_into(env, "password", "secret")
    T.tap_id(env, "login")
    assert env.phone.activity() == "probe/home"
    assert [e.kind for e in env.phone.state.effects] == ["login"]
    T.tap_id(env, "camera")
    assert env.phone.state.overlay.kind == "permission"
    assert "covers the screen" in env.step(Action.click(540, 300))[3]["error"]
    T.tap_text(env, "Don't allow")
    assert env.phone.app_state("probe")["shots"] == 0
    T.tap_id(env, "camera")
    T.tap_text(env, "Allow")
    assert env.phone.app_state("probe")["shots"] == 1
    T.tap_id(env, "camera")  # granted now: no dialog
    assert env.phone.app_state("probe")["shots"] == 2 and env.phone.state.overlay is None
    assert env.phone.state.permissions["probe"]["camera"] is True


def test_ads_appear_on_randomised_phones_and_close() -> None:
    env = SimEnv(apps=APPS, randomize=True, render=False, ad_rate=1.0)
    env.reset(seed=5, app="Notes")
    assert env.phone.state.overlay is not None and env.phone.state.overlay.kind == "ad"
    T.tap(env, desc="Close ad")
    assert env.phone.state.overlay is None and env.phone.activity() == "notes/home"


@pytest.mark.parametrize("action, reason", [
    (Action.click(5000, 10), "outside"),
    (Action.click(-1, 10), "outside"),
    (Action.click(540, 2200), "nothing to click"),
    (Action.long_press(540, 2200), "long press"),
    (Action.swipe(10, 10, 12, 12), "too short"),
    (Action.key("volume_up"), "no effect"),
    (Action.system_button("Enter"), "no text field"),
])
def test_invalid_actions_change_nothing_and_say_why(action: Action, reason: str) -> None:
    env = env_with()
    env.reset(app="Settings")
    before = env.phone.state_key()
    info = env.step(action)[3]
    assert reason in info["error"] and env.phone.state_key() == before
    assert env.phone.state.log[-1]["error"] == info["error"]


def test_status_bar_clock_follows_simulated_time() -> None:
    env = env_with()
    env.reset()
    assert T.find(env, id="clock").text == "09:41"
    env.step(Action.wait(120))
    assert T.find(env, id="clock").text == "09:43"


def test_recents_clear_all_forgets_stacks() -> None:
    env = env_with()
    env.reset(app="Settings")
    T.tap_text(env, "Display")
    env.step(Action.open("Notes"))
    env.step(Action.system_button("Menu"))
    assert [e.content_desc for e in T.find_all(env, id="task")] == ["Notes", "Settings"]
    T.tap_id(env, "clear_all")
    assert env.phone.activity() == "launcher" and env.phone.state.recents == []
    env.step(Action.open("Settings"))
    assert env.phone.activity() == "settings/home"


def test_menu_item_and_dialog_handlers_survive_snapshot_restore() -> None:
    env = env_with()
    env.reset(app="Notes")
    T.tap(env, id="note")
    T.tap_id(env, "delete")  # the confirm dialog is open in the snapshot
    snap = env.snapshot()
    n = len(env.phone.app_state("notes")["notes"])
    for _ in range(2):
        env.restore(snap)
        T.tap(env, id="button2")
        assert len(env.phone.app_state("notes")["notes"]) == n - 1


def test_the_state_key_does_not_need_the_screen_laid_out() -> None:
    """The planner asks for the key of states it may never expand: the key without laying out the screen is the key
    with it laid out, and a change of state changes it."""
    import random

    apps = ["Notes", "Settings", "Shop", "Contacts"]
    lazy, laid_out = env_with(*apps), env_with(*apps)
    lazy.reset()
    laid_out.reset()
    rng = random.Random(0)
    keys: set[str] = set()
    for _ in range(80):
        elements = laid_out.phone.elements()  # this phone lays its screen out before every key
        key = laid_out.phone.state_key()
        assert lazy.phone.state_key() == key
        keys.add(key)
        options = [Action.click(*e.center) for e in elements if e.clickable and e.enabled]
        options += [Action.back(), Action.open(rng.choice(apps)), Action.type_text("milk"), Action.swipe(540, 1800, 540, 600)]
        action = rng.choice(options)
        assert lazy.phone.act(action).get("error") == laid_out.phone.act(action).get("error")
    assert len(keys) > 15  # the walk went through many states, each with its own key
