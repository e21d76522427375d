"""Calendar app: month grid, day view, creating, editing and deleting events, by actions alone."""

from __future__ import annotations

import datetime as dt

import pytest

from mobile_r1.env.sim import SimEnv
from mobile_r1.sim import testing as T
from mobile_r1.sim.apps.calendar import Calendar
from mobile_r1.sim.tools import render_screen


def _env(randomize: bool = False, seed: int = 0) -> SimEnv:
    return T.start(["Calendar"], "agenda", randomize=randomize, seed=seed)


def _state(env: SimEnv) -> dict:
    return env.phone.app_state("calendar")


def _this_month_event(env: SimEnv) -> dict:
    st = _state(env)
    return next(e for e in sorted(st["events"], key=lambda e: e["id"]) if e["date"][:7] == st["today"][:7])


def _open_event(env: SimEnv, event: dict) -> None:
    T.tap(env, desc=event["date"])
    assert env.phone.activity() == "calendar/day"
    T.tap(env, text=event["title"], id="event_title")
    assert env.phone.activity() == "calendar/event"


@pytest.mark.parametrize("screen", Calendar.screens())
def test_every_screen_renders(screen: str) -> None:
    phone = render_screen("Calendar", screen)
    assert phone.screenshot(0.3).size == (324, 720)
    assert phone.elements() and phone.activity() == f"calendar/{screen}"


def test_month_grid_marks_today_and_pages_between_months() -> None:
    env = _env()
    today = dt.date.fromisoformat(_state(env)["today"])
    assert T.find(env, id="toolbar_title").text == f"{today:%B} {today.year}"
    days = T.find_all(env, id="day")
    assert len(days) == len({e.content_desc for e in days}) and T.find_all(env, desc=today.isoformat())
    T.tap_id(env, "next_month")
    nxt = (today.replace(day=1) + dt.timedelta(days=32)).replace(day=1)
    assert T.find(env, id="toolbar_title").text == f"{nxt:%B} {nxt.year}"
    assert T.find_all(env, desc=nxt.isoformat())
    T.tap_id(env, "today")
    assert T.find(env, id="toolbar_title").text == f"{today:%B} {today.year}"


def test_day_view_lists_that_days_events_and_steps_days() -> None:
    env = _env()
    event = _this_month_event(env)
    T.tap(env, desc=event["date"])
    same_day = sorted((e for e in _state(env)["events"] if e["date"] == event["date"]), key=lambda e: (e["time"], e["id"]))
    assert [e.text for e in T.find_all(env, id="event_title")] == [e["title"] for e in same_day]
    T.tap_id(env, "next_day")
    nxt = (dt.date.fromisoformat(event["date"]) + dt.timedelta(days=1)).isoformat()
    assert env.phone.top_frame()["params"]["date"] == nxt


def test_create_event_with_date_time_duration_and_reminder() -> None:
    env = _env()
    events = _state(env)["events"]
    n = len(events)
    T.tap_id(env, "new_event")
    T.type_into(env, "title", "Dinner with Ana")
    T.replace_text(env, "date", "2025-07-04")
    T.replace_text(env, "time", "25:00")
    T.tap_id(env, "save")
    assert len(events) == n and env.phone.activity() == "calendar/edit"  # bad time: refused with a toast
    assert env.phone.state.toast is not None and "HH:MM" in env.phone.state.toast[0]
    T.replace_text(env, "time", "19:30")
    T.type_into(env, "location", "Green Cafe")
    T.tap_text(env, "2 hours")
    T.tap_text(env, "1 day")
    T.tap_id(env, "save")
    assert len(events) == n + 1
    new = events[-1]
    assert {k: new[k] for k in ("title", "date", "time", "location", "minutes", "reminder")} == {
        "title": "Dinner with Ana", "date": "2025-07-04", "time": "19:30", "location": "Green Cafe", "minutes": 120,
        "reminder": 1440}
    assert env.phone.activity() == "calendar/event"
    assert T.find(env, id="event_time").text == "19:30 - 21:30"
    assert T.find(env, id="event_reminder").text == "Reminder: 1 day before"


def test_edit_event_title_and_reminder() -> None:
    env = _env()
    event = _this_month_event(env)
    _open_event(env, event)
    T.tap_id(env, "edit")
    T.replace_text(env, "title", "Moved meeting")
    T.tap_text(env, "None")
    T.tap_id(env, "save_button")
    assert event["title"] == "Moved meeting" and event["reminder"] is None
    assert env.phone.activity() == "calendar/event"
    assert T.find(env, id="event_title").text == "Moved meeting"


def test_delete_asks_and_cancel_keeps_the_event() -> None:
    env = _env()
    event = _this_month_event(env)
    _open_event(env, event)
    T.tap_id(env, "delete")
    T.tap_id(env, "button1")  # Cancel
    assert event in _state(env)["events"] and env.phone.state.effects == []
    T.tap_id(env, "delete")
    T.tap_text(env, "Delete")
    assert all(e["id"] != event["id"] for e in _state(env)["events"])
    effect = env.phone.state.effects[-1]
    assert effect.kind == "delete" and effect.detail == {"item": "event", "id": event["id"], "title": event["title"],
                                                         "date": event["date"], "time": event["time"]}
    assert env.phone.activity() == "calendar/day"


def test_randomized_phone_creates_and_deletes() -> None:
    env = _env(randomize=True, seed=3)
    st = _state(env)
    T.tap_id(env, "new_event")
    T.type_into(env, "title", "Vet visit")
    T.replace_text(env, "time", "08:15")
    T.tap_id(env, "save")
    new = st["events"][-1]
    assert (new["title"], new["date"], new["time"], new["reminder"], new["minutes"]) == ("Vet visit", st["today"], "08:15", 10, 60)
    T.tap_id(env, "delete")
    T.tap_text(env, "Delete")
    assert all(e["title"] != "Vet visit" for e in st["events"])
    assert [e.kind for e in env.phone.state.effects] == ["delete"]
