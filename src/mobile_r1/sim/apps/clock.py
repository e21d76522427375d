"""Clock: alarms and a countdown timer, as the phone's own clock app has them. On its first start it asks for the
notification permission (a timer that rings needs it).

The timer is set with hours, minutes and seconds (or a preset) and started; the running timer counts down on the
phone's simulated clock and can be paused, resumed and reset.

State: `alarms` [{"id", "hour", "minute", "label", "enabled"}]; `timer`: None, or {"hours", "minutes", "seconds",
"duration" (seconds), "total_minutes", "started_at", "running", "left" (seconds left when paused)}; `asked` (the
notification permission was asked for). Effects: `delete` (item "alarm"); the system's `permission`.
"""

from __future__ import annotations

import math
import random
import re
from typing import Any, Callable

from mobile_r1.sim.apps import App, Ctx, new_id, register
from mobile_r1.sim.ui.widgets import (AppBar, Button, Column, Divider, Icon, Input, Row, Scroll, Tabs, Text,
                                      Toggle, Widget)

GREY = (120, 122, 130)
PRESETS = (1, 3, 5, 10)  # minutes


def timer_left(state: dict[str, Any], now: float) -> float:
    """Seconds the timer has left at simulated time `now` (0 with no timer or when it has rung)."""
    timer = state.get("timer")
    if not timer:
        return 0.0
    if not timer["running"]:
        return float(timer["left"])
    return max(0.0, timer["duration"] - (now - timer["started_at"]))


def clock_text(seconds: float) -> str:
    """hh:mm:ss, counting a started second as whole (as timers show what is left)."""
    s = math.ceil(seconds)
    return f"{s // 3600:02d}:{s % 3600 // 60:02d}:{s % 60:02d}"


def _number(ctx: Ctx, field: str, high: int) -> int:
    text = ctx.fields.get(field, "").strip()
    return min(high, int(text)) if text.isdigit() else 0


def _digits_only(field: str) -> Callable[[Ctx, str], None]:
    def keep(ctx: Ctx, text: str) -> None:
        ctx.set_field(field, re.sub(r"\D", "", text)[:2])
    return keep


def start_timer(ctx: Ctx, hours: int, minutes: int, seconds: int) -> None:
    duration = hours * 3600 + minutes * 60 + seconds
    if duration <= 0:
        ctx.toast("Set a time first")
        return
    ctx.state["timer"] = {"hours": hours, "minutes": minutes, "seconds": seconds, "duration": duration,
                          "total_minutes": round(duration / 60, 4), "started_at": ctx.now, "running": True,
                          "left": duration}
    ctx.toast("Timer started: {time}", time=clock_text(duration))


def _pause(ctx: Ctx) -> None:
    timer = ctx.state["timer"]
    if timer and timer["running"]:
        timer["left"] = timer_left(ctx.state, ctx.now)
        timer["running"] = False


def _resume(ctx: Ctx) -> None:
    timer = ctx.state["timer"]
    if timer and not timer["running"] and timer["left"] > 0:
        timer["duration"] = timer["left"]
        timer["started_at"] = ctx.now
        timer["running"] = True


def _add_alarm(ctx: Ctx, *_: Any) -> None:
    hour, minute = _number(ctx, "alarm_hour", 23), _number(ctx, "alarm_minute", 59)
    if not ctx.fields.get("alarm_hour", "").strip():
        ctx.toast("Enter the hour")
        return
    alarms = ctx.state["alarms"]
    alarms.append({"id": new_id(alarms), "hour": hour, "minute": minute,
                   "label": ctx.fields.get("alarm_label", "").strip(), "enabled": True})
    ctx.toast("Alarm set for {time}", time=f"{hour:02d}:{minute:02d}")
    ctx.pop()


def _delete_alarm(ctx: Ctx, aid: int) -> None:
    alarm = next((a for a in ctx.state["alarms"] if a["id"] == aid), None)
    if alarm is None:
        return
    ctx.state["alarms"].remove(alarm)
    ctx.effect("delete", item="alarm", id=aid, time=f"{alarm['hour']:02d}:{alarm['minute']:02d}")
    ctx.toast("Alarm deleted")


@register
class Clock(App):
    name = "Clock"
    names = {"zh": "时钟"}
    package = "com.android.deskclock"
    aliases = ("alarm", "timer", "闹钟", "计时器", "alarm clock")
    color = "#0277bd"
    icon = "recents"
    strings = {"zh": {
        "Alarm": "闹钟", "Timer": "计时器", "Alarms": "闹钟", "Add alarm": "添加闹钟", "New alarm": "新建闹钟",
        "Hour": "时", "Minute": "分", "Label": "标签", "Hours": "小时", "Minutes": "分钟", "Seconds": "秒",
        "Start": "开始", "Resume": "继续", "Reset": "重置", "Set a time first": "请先设置时间",
        "Timer started: {time}": "计时器已开始：{time}", "Time's up": "时间到", "Running": "计时中", "Paused": "已暂停",
        "{n} min": "{n} 分钟", "Enter the hour": "请输入小时", "Alarm set for {time}": "闹钟已设为 {time}",
        "Alarm deleted": "闹钟已删除", "No alarms": "没有闹钟", "Delete alarm": "删除闹钟", "On": "开启",
        "Off": "关闭", "Every day": "每天", "Presets": "常用时长", "Time left": "剩余时间", "Turn on": "开启",
        "Notifications are off: the timer cannot ring.": "通知已关闭：计时结束时无法提醒。",
    }}

    def initial_state(self, rng: random.Random) -> dict[str, Any]:
        alarms = []
        for hour, minute in sorted({(rng.randint(5, 9), rng.choice((0, 15, 30, 45))) for _ in range(3)}):
            alarms.append({"id": len(alarms) + 1, "hour": hour, "minute": minute, "label": "",
                           "enabled": rng.random() < 0.6})
        return {"alarms": alarms, "timer": None, "asked": False}

    def on_start(self, ctx: Ctx) -> None:
        if not ctx.has_permission("notifications") and not ctx.state["asked"]:
            ctx.state["asked"] = True
            ctx.request_permission("notifications", lambda c: None)

    # ----- set-up hooks ---------------------------------------------------------------------------------------------
    def setup_first_start(self, ctx: Ctx) -> None:
        """The app has never run: it asks for the notification permission when it starts (the default)."""
        ctx.state["asked"] = False
        ctx.phone.state.permissions.setdefault(ctx.app_key or "clock", {}).pop("notifications", None)

    def _nav(self, selected: int) -> Widget:
        screens = ("home", "timer")
        return Tabs(["Alarm", "Timer"], selected, icons=["recents", "display"], id="bottom_nav",
                    on_select=lambda c, i: c.reset_to(screens[i]) if i != selected else None)

    # ----- screens --------------------------------------------------------------------------------------------------
    def screen_home(self, ctx: Ctx) -> Widget:
        rows: list[Widget] = []
        for a in ctx.state["alarms"]:
            aid = a["id"]

            def flip(c: Ctx, value: bool, aid: int = aid) -> None:
                alarm = next((x for x in c.state["alarms"] if x["id"] == aid), None)
                if alarm is not None:
                    alarm["enabled"] = value

            rows.append(Row(Toggle(f"{a['hour']:02d}:{a['minute']:02d}", a["enabled"], flip, id="alarm_switch",
                                   subtitle=a["label"] or "Every day", weight=1.0),
                            Icon("trash", desc="Delete alarm", size=70, id="delete_alarm",
                                 on_click=lambda c, aid=aid: _delete_alarm(c, aid)), pad=36, gap=24, id="alarm"))
        return Column(AppBar("Alarms", back=False, actions=[Icon("plus", desc="Add alarm", size=80, id="add_alarm",
                                                                 on_click=lambda c: c.push("add_alarm"))]),
                      Scroll(*(rows or [Text("No alarms", pad=60, align="center", color=GREY)]), id="alarms"),
                      self._nav(0))

    def screen_add_alarm(self, ctx: Ctx) -> Widget:
        return Column(AppBar("New alarm", actions=[Button("Save", style="text", id="save", on_click=_add_alarm)]),
                      Column(Row(Input("alarm_hour", hint="Hour", weight=1.0, on_text=_digits_only("alarm_hour")),
                                 Text(":", size="big"),
                                 Input("alarm_minute", hint="Minute", weight=1.0, on_text=_digits_only("alarm_minute")),
                                 gap=20),
                             Input("alarm_label", hint="Label"), pad=48, gap=36))

    def screen_timer(self, ctx: Ctx) -> Widget:
        timer = ctx.state["timer"]
        left = timer_left(ctx.state, ctx.now)
        if timer is not None and (left > 0 or not timer["running"]):
            status = "Running" if timer["running"] else "Paused"
            return Column(
                AppBar("Timer", back=False),
                Column(Text("Time left", align="center", color=GREY),
                       Text(clock_text(left), size=160, bold=True, align="center", id="timer_left"),
                       Text(status, align="center", color="primary", id="timer_status"),
                       pad=80, gap=24, align="center", flex=True),
                Row(Button("Pause" if timer["running"] else "Resume", style="secondary", id="pause", weight=1.0,
                           on_click=_pause if timer["running"] else _resume),
                    Button("Reset", style="danger", id="reset", weight=1.0,
                           on_click=lambda c: c.state.update(timer=None)), pad=28, gap=24),
                self._nav(1))
        done = [Text("Time's up", size="title", bold=True, align="center", color="danger", id="times_up")
                ] if timer else []
        if not ctx.has_permission("notifications"):
            done.append(Row(Text("Notifications are off: the timer cannot ring.", size="small", color="danger",
                                 weight=1.0),
                            Button("Turn on", style="text", id="notifications_on",
                                   on_click=lambda c: c.request_permission("notifications", lambda c2: None)), gap=16))
        presets = Row(*[Button(ctx.t("{n} min", n=n), style="secondary", id=f"preset_{n}", weight=1.0,
                               on_click=lambda c, n=n: start_timer(c, 0, n, 0)) for n in PRESETS], gap=16)
        return Column(
            AppBar("Timer", back=False),
            Scroll(Column(*done,
                          Row(Input("timer_hours", hint="Hours", weight=1.0, on_text=_digits_only("timer_hours")),
                              Input("timer_minutes", hint="Minutes", weight=1.0, on_text=_digits_only("timer_minutes")),
                              Input("timer_seconds", hint="Seconds", weight=1.0, on_text=_digits_only("timer_seconds")),
                              gap=20),
                          Divider(), Text("Presets", size="small", color=GREY), presets, pad=48, gap=36),
                   id="timer_form"),
            Row(Button("Start", icon="forward", id="start_timer", weight=1.0,
                       on_click=lambda c: start_timer(c, _number(c, "timer_hours", 99), _number(c, "timer_minutes", 59),
                                                      _number(c, "timer_seconds", 59))), pad=28),
            self._nav(1))


__all__ = ["Clock", "timer_left", "start_timer"]
