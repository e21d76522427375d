"""Settings, as the phone's own settings app has it for apps and storage: every installed app with its storage size and
when it was last used (sorted by name, size or last use), an app's info page with Uninstall, a selection mode to
uninstall several apps at once, and Storage: the space used, the apps sorted by size and the apps never used.

Uninstalling asks for a confirmation, removes the app from the phone (`Phone.remove_app`) and records an `uninstall`
effect per app. System apps (Settings, Phone, Contacts, Gallery, Clock, the players, File Manager, Smart Remote) cannot
be uninstalled.

An app's size and last use are drawn from the settings' seed for each app (`usage`, a pure function); a set-up hook
that needs them fixed writes the app's record into `apps` (judges read these records by path):
  android_settings.apps   [{"app" (key), "name", "label", "category", "size_mb", "last_used" (days ago; None: never),
                            "never_used", "system", "uninstalled"}]; an app uninstalled here always has a record
  android_settings.selection   the app keys chosen in selection mode
Effects: `uninstall` (app, name, label, names, package, category, size_mb, never_used).
"""

from __future__ import annotations

import random
from typing import Any, Callable

from mobile_r1.core.errors import ConfigError
from mobile_r1.sim.apps import App, Ctx, register, resolve
from mobile_r1.sim.apps._search import sort_chips
from mobile_r1.sim.ui.widgets import (AppBar, Button, Card, Checkbox, Column, Divider, Icon, Input, ListItem, Row,
                                      Scroll, Text, Widget)

GREY = (120, 122, 130)
TOTAL_GB = 256
SYSTEM_GB = 21.4  # the system's own share of the storage
SYSTEM_APPS = frozenset({"android_settings", "phone", "android_contacts", "android_gallery", "clock", "file_manager",
                         "music_player", "video_player", "smart_remote"})
SORTS = (("name", "Name"), ("size", "Size"), ("last_used", "Least used"))


def is_system(key: str) -> bool:
    return key in SYSTEM_APPS


def usage(seed: int, key: str, category: str = "") -> dict[str, Any]:
    """An app's storage size (MB) and days since its last use (None: never used), drawn for the settings' seed and
    the app's key: games take gigabytes, system apps little; about one app in ten was never used."""
    rng = random.Random(f"{seed}:usage:{key}")
    if category == "game":
        size = rng.uniform(900, 9000)
    elif is_system(key):
        size = rng.uniform(25, 420)
    else:
        size = rng.uniform(80, 3600)
    never = not is_system(key) and rng.random() < 0.1
    return {"size_mb": round(size, 1), "last_used": None if never else rng.choice((0, 0, 1, 2, 3, 5, 8, 13, 21, 34))}


def size_text(mb: float) -> str:
    return f"{mb / 1024:.2f} GB" if mb >= 1024 else f"{mb:.1f} MB"


class _Apps:
    """The installed apps as Settings sees them (records merged with the drawn defaults), for one handler or screen."""

    def __init__(self, ctx: Ctx) -> None:
        self.ctx = ctx

    def record(self, key: str) -> dict[str, Any]:
        ctx = self.ctx
        for r in ctx.state["apps"]:
            if r["app"] == key:
                return r
        app = ctx.phone.apps[key]
        category = str(getattr(app, "category", ""))
        drawn = usage(ctx.state["seed"], key, category)
        return {"app": key, "name": app.name, "label": app.label(ctx.locale), "category": category,
                "size_mb": drawn["size_mb"], "last_used": drawn["last_used"], "never_used": drawn["last_used"] is None,
                "system": is_system(key), "uninstalled": False}

    def keep(self, key: str) -> dict[str, Any]:
        """The app's record, written into the state (for a set-up or an uninstall)."""
        rec = self.record(key)
        if not any(r is rec for r in self.ctx.state["apps"]):
            self.ctx.state["apps"].append(rec)
        return rec

    def installed(self) -> list[dict[str, Any]]:
        return [self.record(k) for k in self.ctx.phone.installed()]


def sort_apps(records: list[dict[str, Any]], order: str) -> list[dict[str, Any]]:
    """Apps as the list shows them: by name, by size (largest first) or by last use (the least used first: never used,
    then the longest ago)."""
    if order == "size":
        return sorted(records, key=lambda r: (-r["size_mb"], r["label"].lower()))
    if order == "last_used":
        return sorted(records, key=lambda r: (r["last_used"] is not None, -(r["last_used"] or 0), r["label"].lower()))
    return sorted(records, key=lambda r: (r["label"].lower(), r["app"]))


def _last_used(ctx: Ctx, rec: dict[str, Any]) -> str:
    days = rec["last_used"]
    if days is None:
        return ctx.t("Never used")
    if days == 0:
        return ctx.t("Used today")
    return ctx.t("Used {n} days ago", n=days) if days > 1 else ctx.t("Used yesterday")


def uninstall(ctx: Ctx, keys: list[str]) -> None:
    """Uninstall the apps (system apps are kept) and record an `uninstall` effect for each."""
    book = _Apps(ctx)
    done = []
    for key in keys:
        if key not in ctx.phone.installed() or is_system(key):
            continue
        rec = book.keep(key)
        app = ctx.phone.apps[key]
        ctx.phone.remove_app(key)
        rec["uninstalled"] = True
        names = list(dict.fromkeys([app.name, *app.names.values(), rec["label"]]))
        ctx.effect("uninstall", app=key, name=app.name, label=rec["label"], names=names, package=app.package,
                   category=rec["category"], size_mb=rec["size_mb"], never_used=rec["never_used"])
        done.append(rec["label"])
    ctx.state["selection"] = []
    if done:
        ctx.toast("Uninstalled {apps}", apps=ctx.t(", ").join(done))


def _ask_uninstall(ctx: Ctx, keys: list[str], then: Callable[[Ctx], None] | None = None) -> None:
    keys = [k for k in keys if not is_system(k)]
    if not keys:
        ctx.toast("Choose the apps to uninstall")
        return
    labels = ctx.t(", ").join(ctx.phone.apps[k].label(ctx.locale) for k in keys)
    title = (ctx.t("Uninstall {app}?", app=labels) if len(keys) == 1 else ctx.t("Uninstall {n} apps?", n=len(keys)))

    def go(c: Ctx) -> None:
        uninstall(c, keys)
        if then is not None:
            then(c)

    ctx.confirm(title, ctx.t("{apps} and all their data will be removed from this phone.", apps=labels), go,
                yes=ctx.t("Uninstall"))


@register
class SystemSettings(App):
    name = "Settings"
    key = "android_settings"
    names = {"zh": "设置"}
    package = "com.android.settings"
    aliases = ("system settings", "系统设置", "app management", "应用管理")
    color = "#546e7a"
    icon = "gear"
    strings = {"zh": {
        "Apps": "应用", "Apps & storage": "应用和存储", "About phone": "关于手机", "{n} apps installed": "已安装 {n} 个应用",
        "{used} used of {total}": "已使用 {used}，共 {total}", "Search apps": "搜索应用", "Name": "名称", "Size": "大小",
        "Last used": "上次使用", "Least used": "最少使用", "Sort by {order}": "按{order}排序", "Select": "选择",
        "{n} selected": "已选择 {n} 项",
        "Uninstall ({n})": "卸载（{n}）", "Never used": "从未使用", "Used today": "今天使用过", "Used yesterday": "昨天使用过",
        "Used {n} days ago": "{n} 天前使用过", "App info": "应用信息", "Open": "打开", "Force stop": "强行停止",
        "Stopped {app}": "已停止{app}", "Uninstall {app}?": "卸载{app}？", "Uninstall {n} apps?": "卸载 {n} 个应用？",
        "{apps} and all their data will be removed from this phone.": "{apps}及其全部数据将从手机中删除。",
        ", ": "、", "Uninstalled {apps}": "已卸载{apps}", "Choose the apps to uninstall": "请选择要卸载的应用",
        "System apps cannot be uninstalled": "系统应用无法卸载", "System app": "系统应用", "Storage used": "已用存储",
        "Apps by size": "按大小排列的应用", "Unused apps": "未使用的应用", "Apps you have never opened": "从未打开过的应用",
        "No unused apps": "没有未使用的应用", "Package": "包名", "Device name": "设备名称", "Android version": "安卓版本",
        "Total storage": "总存储空间", "Game": "游戏", "Cancel selection": "取消选择", "No apps found": "没有找到应用",
        "This app is no longer installed": "此应用已卸载", "Apps and their data": "应用及其数据",
    }}

    def initial_state(self, rng: random.Random) -> dict[str, Any]:
        return {"seed": rng.randrange(1 << 30), "apps": [], "selection": []}

    # ----- set-up hooks ---------------------------------------------------------------------------------------------
    def _key(self, ctx: Ctx, app: str) -> str:
        key = resolve(app, ctx.phone.installed())
        if key is None:
            raise ConfigError(f"set-up: no app called {app!r} is installed on this phone")
        return key

    def setup_installed(self, ctx: Ctx, app: str) -> str:
        """Make sure the app called `app` is installed and can be uninstalled; returns its key."""
        key = self._key(ctx, app)
        if is_system(key):
            raise ConfigError(f"set-up: {app!r} is a system app, which Settings cannot uninstall")
        return key

    def setup_largest(self, ctx: Ctx, app: str) -> str:
        """Make the app called `app` take the most storage of all installed apps (clearly: a gigabyte more than the
        next); returns its key."""
        key = self.setup_installed(ctx, app)
        book = _Apps(ctx)
        biggest = max((r["size_mb"] for r in book.installed() if r["app"] != key), default=0.0)
        book.keep(key)["size_mb"] = round(biggest + 1024 + 317.4, 1)
        return key

    def setup_never_used(self, ctx: Ctx, count: int = 2) -> list[str]:
        """Make exactly `count` apps (drawn for the settings' seed among those that can be uninstalled and are not
        games) never used and every other installed app used; returns their keys."""
        book = _Apps(ctx)
        records = [book.keep(k) for k in ctx.phone.installed()]
        pool = sorted(r["app"] for r in records if not r["system"] and r["category"] != "game")
        chosen = random.Random(f"{ctx.state['seed']}:never").sample(pool, min(int(count), len(pool)))
        for r in records:
            r["never_used"] = r["app"] in chosen
            if r["never_used"]:
                r["last_used"] = None
            elif r["last_used"] is None:
                r["last_used"] = 4
        return sorted(chosen)

    def setup_games(self, ctx: Ctx) -> list[str]:
        """Write the record of every installed game (apps with category game, Game Center among them), so a judge
        can read them all; returns their keys."""
        book = _Apps(ctx)
        return [book.keep(k)["app"] for k in ctx.phone.installed()
                if getattr(ctx.phone.apps[k], "category", "") == "game"]

    # ----- pieces ---------------------------------------------------------------------------------------------------
    def _app_row(self, ctx: Ctx, rec: dict[str, Any], on_click: Callable[[Ctx], None], trailing: Widget | None = None,
                 detail: str = "") -> Widget:
        app = ctx.phone.apps[rec["app"]]
        sub = detail or f"{size_text(rec['size_mb'])}  \u00b7  {_last_used(ctx, rec)}"
        return ListItem(rec["label"], sub, id="app", desc=rec["label"],
                        leading=Icon(app.icon or app.name, desc=rec["label"], size=90, bg=app.color, round=False),
                        trailing=trailing, on_click=on_click)

    # ----- screens --------------------------------------------------------------------------------------------------
    def screen_home(self, ctx: Ctx) -> Widget:
        book = _Apps(ctx).installed()
        used = SYSTEM_GB + sum(r["size_mb"] for r in book) / 1024
        rows = [ListItem("Apps", ctx.t("{n} apps installed", n=len(book)), id="item_apps",
                         leading=Icon("apps", desc="Apps", size=72, color="primary"),
                         on_click=lambda c: c.push("apps")),
                ListItem("Storage", ctx.t("{used} used of {total}", used=f"{used:.1f} GB", total=f"{TOTAL_GB} GB"),
                         id="item_storage", leading=Icon("list", desc="Storage", size=72, color="primary"),
                         on_click=lambda c: c.push("storage")),
                ListItem("About phone", id="item_about",
                         leading=Icon("display", desc="About phone", size=72, color="primary"),
                         on_click=lambda c: c.push("about"))]
        return Column(AppBar("Settings", back=False), Scroll(*rows, id="settings_list"))

    def screen_apps(self, ctx: Ctx) -> Widget:
        order = ctx.params.get("sort", "name")
        selecting = bool(ctx.params.get("select"))
        query = ctx.fields.get("app_query", "").strip().lower()
        records = [r for r in sort_apps(_Apps(ctx).installed(), order)
                   if not query or query in r["label"].lower() or query in r["name"].lower()]
        chosen = ctx.state["selection"]

        def toggle(key: str) -> Callable[[Ctx], None]:
            def handler(c: Ctx) -> None:
                if is_system(key):
                    c.toast("System apps cannot be uninstalled")
                    return
                sel = c.state["selection"]
                if key in sel:
                    sel.remove(key)
                else:
                    sel.append(key)
            return handler

        def select(c: Ctx, on: bool) -> None:
            c.state["selection"] = []
            c.replace("apps", sort=order, **({"select": True} if on else {}))

        rows = []
        for r in records:
            key = r["app"]
            if selecting:
                mark = None if r["system"] else Checkbox("", key in chosen, id="app_check")
                rows.append(self._app_row(ctx, r, toggle(key), mark,
                                          ctx.t("System app") if r["system"] else ""))
            else:
                rows.append(self._app_row(ctx, r, lambda c, key=key: c.push("app_info", app=key)))
        keys = [k for k, _ in SORTS]
        sort_row = sort_chips([(label, ctx.t("Sort by {order}", order=ctx.t(label))) for _, label in SORTS], keys,
                              keys.index(order) if order in keys else -1,
                              lambda c, i: c.replace("apps", sort=keys[i], **({"select": True} if selecting else {})))
        bar = (Row(Button(ctx.t("Uninstall ({n})", n=len(chosen)), style="danger", id="uninstall_selected", weight=1.0,
                          on_click=lambda c: _ask_uninstall(c, list(c.state["selection"]),
                                                            lambda c2: c2.replace("apps", sort=order))), pad=28)
               if selecting else None)
        action = (Button("Cancel selection", style="text", id="cancel_select", on_click=lambda c: select(c, False))
                  if selecting else Button("Select", style="text", id="select", on_click=lambda c: select(c, True)))
        return Column(
            AppBar(ctx.t("{n} selected", n=len(chosen)) if selecting else ctx.t("Apps"), actions=[action]),
            Row(Input("app_query", hint="Search apps", weight=1.0), pad=28),
            sort_row, Divider(),
            Scroll(*(rows or [Text("No apps found", pad=60, color=GREY, align="center")]), id="apps_list"),
            bar)

    def screen_app_info(self, ctx: Ctx) -> Widget:
        key = ctx.params.get("app")
        if key is None:
            key = sorted(ctx.phone.installed())[0]
        if key not in ctx.phone.installed():
            return Column(AppBar("App info"), Text("This app is no longer installed", pad=60, color=GREY, id="gone"))
        rec = _Apps(ctx).record(key)
        app = ctx.phone.apps[key]
        buttons: list[Widget] = [Button("Open", style="secondary", id="open_app", weight=1.0,
                                        on_click=lambda c: c.open_app(key))]
        if rec["system"]:
            buttons.append(Button("Force stop", style="secondary", id="force_stop", weight=1.0,
                                  on_click=lambda c: c.toast("Stopped {app}", app=rec["label"])))
        else:
            buttons.append(Button("Uninstall", style="danger", id="uninstall", weight=1.0,
                                  on_click=lambda c: _ask_uninstall(c, [key], lambda c2: c2.pop())))
        return Column(AppBar("App info"), Scroll(Column(
            Icon(app.icon or app.name, desc=rec["label"], size=200, bg=app.color, round=False),
            Text(rec["label"], size="big", bold=True, align="center", id="app_label"),
            Text(ctx.t("System app"), size="small", color=GREY, align="center") if rec["system"] else None,
            Row(*buttons, gap=24), pad=48, gap=24, align="center"), Divider(),
            ListItem("Storage", size_text(rec["size_mb"]), id="app_size"),
            ListItem("Last used", _last_used(ctx, rec), id="app_last_used"),
            ListItem("Package", app.package, id="app_package"), id="app_info_list"))

    def screen_storage(self, ctx: Ctx) -> Widget:
        book = sort_apps(_Apps(ctx).installed(), "size")
        used = SYSTEM_GB + sum(r["size_mb"] for r in book) / 1024
        unused = [r for r in book if r["never_used"]]
        return Column(AppBar("Storage"), Scroll(
            Card(Text("Storage used", size="small", color=GREY),
                 Text(ctx.t("{used} used of {total}", used=f"{used:.1f} GB", total=f"{TOTAL_GB} GB"), size="title",
                      bold=True, id="storage_used"), pad=36),
            ListItem("Unused apps", ctx.t("Apps you have never opened") + f"  \u00b7  {len(unused)}", id="unused_apps",
                     leading=Icon("trash", desc="Unused apps", size=72, color="primary"),
                     on_click=lambda c: c.push("unused")),
            Divider(), Text("Apps by size", size="small", color=GREY, pad=28),
            *[self._app_row(ctx, r, lambda c, key=r["app"]: c.push("app_info", app=key)) for r in book],
            id="storage_list"))

    def screen_unused(self, ctx: Ctx) -> Widget:
        book = [r for r in sort_apps(_Apps(ctx).installed(), "name") if r["never_used"]]
        rows = [self._app_row(ctx, r, lambda c, key=r["app"]: c.push("app_info", app=key)) for r in book]
        return Column(AppBar("Unused apps"), Text("Apps you have never opened", size="small", color=GREY, pad=28),
                      Scroll(*(rows or [Text("No unused apps", pad=60, color=GREY, align="center")]), id="unused_list"))

    def screen_about(self, ctx: Ctx) -> Widget:
        return Column(AppBar("About phone"), Scroll(
            ListItem("Device name", "Mate 60" if ctx.locale != "zh" else "华为 Mate 60", id="device_name"),
            ListItem("Android version", "14", id="android_version"),
            ListItem("Total storage", f"{TOTAL_GB} GB", id="total_storage"), id="about_list"))


__all__ = ["SystemSettings", "uninstall", "usage", "sort_apps", "is_system", "SYSTEM_APPS"]
