"""Calendar: a month grid with an agenda, day view, event details, and creating, editing and deleting events."""

from __future__ import annotations

import datetime as dt
import random
import re
from typing import Any

from mobile_r1.sim.apps import App, Ctx, new_id, register
from mobile_r1.sim.ui.widgets import (AppBar, Button, Card, Column, Grid, Icon, Input, ListItem, Row, Scroll, Tabs, Text,
                                      Widget)

TITLES = ["Team meeting", "Dentist appointment", "Lunch with Sarah", "Gym session", "Project review", "Call with mom",
          "Yoga class", "Book club", "Flight to Denver", "Haircut", "Parent-teacher meeting", "Birthday dinner",
          "Car service", "Piano lesson", "Coffee with Tom", "Quarterly planning"]
LOCATIONS = ["Office, room 4B", "Downtown Dental", "Green Cafe", "City Gym", "Online", "Home", "Airport",
             "Main Street Salon", "Riverside School", "Luigi's Trattoria", ""]
REMINDERS: list[int | None] = [None, 10, 30, 60, 1440]
REMINDER_LABELS = ["None", "10 min", "30 min", "1 hour", "1 day"]
DURATIONS = [30, 60, 120]
DURATION_LABELS = ["30 min", "1 hour", "2 hours"]
WEEKDAYS = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
TIME_RE = re.compile(r"^([01]?\d|2[0-3]):([0-5]\d)$")


def _event(ctx: Ctx, eid: int) -> dict[str, Any] | None:
    return next((e for e in ctx.state["events"] if e["id"] == eid), None)


def _date(text: str) -> dt.date | None:
    try:
        return dt.date.fromisoformat(text.strip())
    except ValueError:
        return None


def long_date(iso: str) -> str:
    """'Friday, March 14, 2025'."""
    d = _date(iso)
    return f"{d:%A}, {d:%B} {d.day}, {d.year}" if d else iso


def reminder_text(minutes: int | None) -> str:
    return "No reminder" if minutes is None else f"{REMINDER_LABELS[REMINDERS.index(minutes)]} before" \
        if minutes in REMINDERS else f"{minutes} min before"


def _on_day(ctx: Ctx, iso: str) -> list[dict[str, Any]]:
    return sorted((e for e in ctx.state["events"] if e["date"] == iso), key=lambda e: (e["time"], e["id"]))


def _delete(ctx: Ctx, eid: int) -> None:
    e = _event(ctx, eid)
    if e is None:
        return
    ctx.state["events"].remove(e)
    ctx.effect("delete", item="event", id=eid, title=e["title"], date=e["date"], time=e["time"])
    ctx.toast("Event deleted")
    ctx.reset_to("day", date=e["date"])


def _save(ctx: Ctx, *_: Any) -> None:
    eid = ctx.params.get("id")
    old = _event(ctx, eid) if eid is not None else None
    base = old or {"title": "", "date": ctx.params.get("date", ctx.state["today"]), "time": "09:00", "location": "",
                   "reminder": 10, "minutes": 60}
    title = ctx.fields.get("title", base["title"]).strip()
    date_text = ctx.fields.get("date", base["date"]).strip()
    time_text = ctx.fields.get("time", base["time"]).strip()
    if not title:
        ctx.toast("Add a title")
        return
    if _date(date_text) is None:
        ctx.toast("Enter the date as YYYY-MM-DD")
        return
    m = TIME_RE.match(time_text)
    if m is None:
        ctx.toast("Enter the time as HH:MM")
        return
    reminder = REMINDERS[int(ctx.fields.get("reminder", str(_index(REMINDERS, base["reminder"]))))]
    minutes = DURATIONS[int(ctx.fields.get("duration", str(_index(DURATIONS, base["minutes"]))))]
    values = {"title": title, "date": _date(date_text).isoformat(),  # type: ignore[union-attr]
              "time": f"{int(m.group(1)):02d}:{m.group(2)}", "location": ctx.fields.get("location", base["location"]).strip(),
              "reminder": reminder, "minutes": minutes}
    if old is None:
        event = {"id": new_id(ctx.state["events"]), **values}
        ctx.state["events"].append(event)
        ctx.toast("Event saved")
        ctx.replace("event", id=event["id"])
    else:
        old.update(values)
        ctx.toast("Event updated")
        ctx.pop()


def _index(options: list[Any], value: Any) -> int:
    return options.index(value) if value in options else 0


def _field(input_id: str, hint: str, value: str) -> Widget:
    """An input with a clear button (typing appends to a pre-filled value, so editing starts with clearing)."""
    return Row(Input(input_id, hint=hint, value=value, weight=1.0),
               Icon("close", desc=f"Clear {hint.lower()}", size=64, id=f"clear_{input_id}",
                    on_click=lambda c: c.set_field(input_id, "")), gap=12)


@register
class Calendar(App):
    name = "Calendar"
    names = {"zh": "日历"}
    package = "com.sim.calendar"
    aliases = ("agenda", "schedule", "planner", "google calendar")
    color = "#4285f4"
    icon = "calendar"

    def initial_state(self, rng: random.Random) -> dict[str, Any]:
        today = dt.date(2025, rng.randint(1, 12), rng.randint(1, 28))
        events = []
        for title in rng.sample(TITLES, 10):
            day = today + dt.timedelta(days=rng.randint(-10, 20))
            events.append({"title": title, "date": day.isoformat(),
                           "time": f"{rng.randint(7, 20):02d}:{rng.choice(['00', '15', '30', '45'])}",
                           "minutes": rng.choice(DURATIONS), "location": rng.choice(LOCATIONS),
                           "reminder": rng.choice(REMINDERS)})
        for i, e in enumerate(events, start=1):
            e["id"] = i
        return {"today": today.isoformat(), "events": events}

    def _event_row(self, e: dict[str, Any], show_date: bool = False) -> Widget:
        eid = e["id"]
        when = f"{e['date']}  {e['time']}" if show_date else e["time"]
        sub = when + (f"  \u00b7  {e['location']}" if e["location"] else "")
        return ListItem(e["title"], sub, id="event", leading=Icon("dot", desc="Event", size=40, bg="primary"),
                        on_click=lambda c: c.push("event", id=eid))

    # ----- screens -----------------------------------------------------------------------------------------
    def screen_home(self, ctx: Ctx) -> Widget:
        today = _date(ctx.state["today"]) or dt.date(2025, 1, 1)
        month = ctx.params.get("month", today.strftime("%Y-%m"))
        y, m = int(month[:4]), int(month[5:7])
        first = dt.date(y, m, 1)
        nxt = dt.date(y + (m == 12), m % 12 + 1, 1)
        prev = (first - dt.timedelta(days=1)).strftime("%Y-%m")
        days = (nxt - first).days
        busy = {e["date"] for e in ctx.state["events"]}
        cells: list[Widget] = [Text(d, size="tiny", align="center", color=(120, 122, 130)) for d in WEEKDAYS]
        cells += [Text("") for _ in range(first.weekday())]
        for n in range(1, days + 1):
            iso = dt.date(y, m, n).isoformat()
            is_today = iso == ctx.state["today"]
            cells.append(Column(Text(str(n), align="center", bold=is_today, color=(255, 255, 255) if is_today else None,
                                     bg="primary" if is_today else None, radius=30, pad=6),
                                Text("\u2022" if iso in busy else " ", align="center", color="primary", size="small"),
                                id="day", desc=iso, on_click=lambda c, iso=iso: c.push("day", date=iso), gap=0))
        upcoming = sorted((e for e in ctx.state["events"] if e["date"] >= ctx.state["today"]),
                          key=lambda e: (e["date"], e["time"], e["id"]))[:8]
        return Column(
            AppBar(f"{first:%B} {y}", back=False, actions=[
                Icon("back", desc="Previous month", size=80, id="prev_month",
                     on_click=lambda c: c.replace("home", month=prev)),
                Icon("forward", desc="Next month", size=80, id="next_month",
                     on_click=lambda c: c.replace("home", month=nxt.strftime("%Y-%m"))),
                Button("Today", style="text", id="today",
                       on_click=lambda c: c.replace("home", month=today.strftime("%Y-%m")))]),
            Scroll(Grid(*cells, cols=7, gap=8, pad=16),
                   Text("Upcoming", bold=True, pad=36),
                   *([self._event_row(e, show_date=True) for e in upcoming]
                     or [Text("Nothing planned", pad=36, id="empty")]), id="month_scroll"),
            Row(Button("New event", icon="plus", id="new_event", weight=1.0,
                       on_click=lambda c: c.push("edit", date=c.state["today"])), pad=28),
        )

    def screen_day(self, ctx: Ctx) -> Widget:
        iso = ctx.params.get("date", ctx.state["today"])
        d = _date(iso) or dt.date(2025, 1, 1)
        before, after = (d - dt.timedelta(days=1)).isoformat(), (d + dt.timedelta(days=1)).isoformat()
        events = _on_day(ctx, iso)
        return Column(
            AppBar(f"{d:%a}, {d:%b} {d.day}", actions=[
                Icon("back", desc="Previous day", size=80, id="prev_day", on_click=lambda c: c.replace("day", date=before)),
                Icon("forward", desc="Next day", size=80, id="next_day", on_click=lambda c: c.replace("day", date=after))]),
            Text(long_date(iso), size="small", color=(120, 122, 130), pad=28, id="day_title"),
            Scroll(*([self._event_row(e) for e in events] or [Text("No events on this day", pad=60, align="center",
                                                                   id="empty")]), id="day_list"),
            Row(Button("New event", icon="plus", id="new_event", weight=1.0, on_click=lambda c: c.push("edit", date=iso)),
                pad=28),
        )

    def screen_event(self, ctx: Ctx) -> Widget:
        e = _event(ctx, ctx.params.get("id", -1)) or (ctx.state["events"][0] if ctx.state["events"] else None)
        if e is None:
            return Column(AppBar("Event"), Text("This event no longer exists", pad=60, id="missing"))
        eid = e["id"]
        start = dt.datetime.fromisoformat(f"{e['date']}T{e['time']}")
        end = start + dt.timedelta(minutes=e["minutes"])
        return Column(
            AppBar("Event", actions=[
                Icon("edit", desc="Edit", size=80, id="edit", on_click=lambda c: c.push("edit", id=eid)),
                Icon("trash", desc="Delete", size=80, id="delete",
                     on_click=lambda c: c.confirm("Delete event?", f"'{e['title']}' on {e['date']} will be removed.",
                                                  lambda c2: _delete(c2, eid), yes="Delete"))]),
            Scroll(Column(
                Text(e["title"], size="big", bold=True, id="event_title"),
                Text(long_date(e["date"]), id="event_date"),
                Text(f"{start:%H:%M} - {end:%H:%M}", id="event_time"),
                Card(Text(f"Location: {e['location'] or 'none'}", size="small", id="event_location"),
                     Text(f"Reminder: {reminder_text(e['reminder'])}", size="small", id="event_reminder")),
                pad=48, gap=28), id="event_scroll"),
        )

    def screen_edit(self, ctx: Ctx) -> Widget:
        e = _event(ctx, ctx.params.get("id", -1)) if ctx.params.get("id") is not None else None
        date = e["date"] if e else ctx.params.get("date", ctx.state["today"])
        reminder = int(ctx.fields.get("reminder", str(_index(REMINDERS, e["reminder"] if e else 10))))
        duration = int(ctx.fields.get("duration", str(_index(DURATIONS, e["minutes"] if e else 60))))
        return Column(
            AppBar("Edit event" if e else "New event", actions=[Button("Save", style="text", id="save", on_click=_save)]),
            Scroll(Column(
                _field("title", "Title", e["title"] if e else ""),
                Text("Date (YYYY-MM-DD)", size="small", color=(120, 122, 130)),
                _field("date", "Date", date),
                Text("Start time (HH:MM)", size="small", color=(120, 122, 130)),
                _field("time", "Time", e["time"] if e else "09:00"),
                _field("location", "Location", e["location"] if e else ""),
                Text("Duration", size="small", color=(120, 122, 130)),
                Tabs(DURATION_LABELS, duration, id="duration", on_select=lambda c, i: c.set_field("duration", str(i))),
                Text("Reminder", size="small", color=(120, 122, 130)),
                Tabs(REMINDER_LABELS, reminder, id="reminder", on_select=lambda c, i: c.set_field("reminder", str(i))),
                pad=36, gap=20), id="form"),
            Row(Button("Cancel", style="secondary", id="cancel", weight=1.0, on_click=lambda c: c.pop()),
                Button("Save", id="save_button", weight=1.0, on_click=_save), pad=28, gap=24),
        )
