"""Clock driven by actions alone: the notification permission asked on the first start, a timer of minutes and
seconds started, counting down on the phone's clock, paused and reset, presets, and alarms."""

from __future__ import annotations

import pytest

from mobile_r1.sim import testing as T
from mobile_r1.sim.apps import Ctx
from mobile_r1.sim.apps.clock import timer_left


@pytest.mark.parametrize("locale", ["en", "zh"])
def test_first_start_asks_for_notifications_and_a_four_minute_timer_counts_down(locale: str) -> None:
    env = T.start(["clock"], None, locale=locale, ad_rate=0.0)
    T.open_app(env, "Clock" if locale == "en" else "时钟")
    overlay = env.phone.state.overlay
    assert overlay is not None and overlay.kind == "permission"
    T.tap_id(env, "permission_allow_button")
    assert env.phone.state.permissions["clock"]["notifications"] is True
    assert env.phone.state.effects[-1].kind == "permission"
    T.tap(env, id="bottom_nav_1")
    T.type_into(env, "timer_minutes", "four")  # only digits go in
    assert env.phone.top_frame()["fields"]["timer_minutes"] == ""
    T.type_into(env, "timer_minutes", "4")
    T.tap_id(env, "start_timer")
    timer = env.phone.app_state("clock")["timer"]
    assert (timer["duration"], timer["total_minutes"], timer["running"]) == (240, 4.0, True)
    assert T.find(env, id="timer_left").text == "00:04:00"
    T.wait(env, 60)
    assert T.find(env, id="timer_left").text == "00:03:00"
    T.tap_id(env, "pause")
    left = timer_left(env.phone.app_state("clock"), env.phone.state.clock)
    T.wait(env, 30)
    assert timer_left(env.phone.app_state("clock"), env.phone.state.clock) == left
    T.tap_id(env, "reset")
    assert env.phone.app_state("clock")["timer"] is None


def test_the_permission_is_asked_once_and_a_preset_starts_a_timer() -> None:
    env = T.start(["clock"], "clock", ad_rate=0.0)
    T.tap_id(env, "permission_deny_button")
    T.back(env)
    env.phone.state.stacks["clock"] = []
    T.open_app(env, "Clock")
    assert env.phone.state.overlay is None
    T.tap(env, id="bottom_nav_1")
    T.tap_id(env, "preset_5")
    assert env.phone.app_state("clock")["timer"]["total_minutes"] == 5.0
    app = env.phone.apps["clock"]
    app.setup_first_start(Ctx(env.phone, "clock"))
    assert env.phone.app_state("clock")["asked"] is False
    assert "notifications" not in env.phone.state.permissions["clock"]


def test_an_alarm_is_added_switched_off_and_deleted() -> None:
    env = T.start(["clock"], "clock", ad_rate=0.0)
    T.tap_id(env, "permission_allow_button")
    before = len(env.phone.app_state("clock")["alarms"])
    T.tap_id(env, "add_alarm")
    T.type_into(env, "alarm_hour", "6")
    T.type_into(env, "alarm_minute", "30")
    T.tap_id(env, "save")
    alarms = env.phone.app_state("clock")["alarms"]
    assert len(alarms) == before + 1 and (alarms[-1]["hour"], alarms[-1]["minute"]) == (6, 30)
    T.tap(env, text="06:30")
    assert alarms[-1]["enabled"] is False
    T.tap(env, id="delete_alarm", index=before)
    assert env.phone.state.effects[-1].kind == "delete" and len(env.phone.app_state("clock")["alarms"]) == before
