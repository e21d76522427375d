"""Settings: wifi, bluetooth, display (dark mode), per-app permissions and the phone account (system-wide state)."""

from __future__ import annotations

import random
from typing import Any

from mobile_r1.sim.apps import App, Ctx, register
from mobile_r1.sim.ui.widgets import AppBar, Button, Column, Divider, Icon, Input, ListItem, Scroll, Text, Toggle, Widget

PERMISSIONS = ("camera", "location", "microphone", "contacts", "storage", "notifications")
NETWORKS = ["HomeNet", "Cafe_Free_WiFi", "Office-5G", "Library Guest", "TP-LINK_2931", "Neighbour's WiFi",
            "Airport Free", "Hotel Lobby"]
DEVICES = ["Buds Pro", "Car Audio", "Smart Watch", "Living Room Speaker", "Keyboard K380", "Fitness Band"]


def _set(key: str, label: str) -> Any:
    def handler(ctx: Ctx, value: bool) -> None:
        ctx.state[key] = value
        ctx.toast(f"{label} {'on' if value else 'off'}")
    return handler


def _connect(ctx: Ctx, name: str) -> None:
    net = next(n for n in ctx.state["networks"] if n["name"] == name)
    if not ctx.state["wifi"]:
        ctx.toast("Turn on Wi-Fi first")
        return
    if net["secure"] and name not in ctx.state["known_networks"]:
        ctx.push("wifi_password", network=name)
        return
    ctx.state["connected"] = name
    ctx.toast(f"Connected to {name}")


def _join(ctx: Ctx, *_: Any) -> None:
    name = ctx.params.get("network", "")
    if len(ctx.fields.get("wifi_password", "")) < 8:
        ctx.toast("Password must be at least 8 characters")
        return
    ctx.state["known_networks"].append(name)
    ctx.state["connected"] = name
    ctx.toast(f"Connected to {name}")
    ctx.pop()


def _pair(ctx: Ctx, name: str) -> None:
    if not ctx.state["bluetooth"]:
        ctx.toast("Turn on Bluetooth first")
        return
    paired = ctx.state["paired"]
    if name in paired:
        paired.remove(name)
        ctx.toast(f"Forgot {name}")
    else:
        paired.append(name)
        ctx.toast(f"Paired with {name}")


def _set_permission(app_key: str, permission: str) -> Any:
    def handler(ctx: Ctx, value: bool) -> None:
        ctx.phone.state.permissions.setdefault(app_key, {})[permission] = value
        ctx.effect("permission", target_app=app_key, permission=permission, granted=value)
    return handler


def _sign_out(ctx: Ctx) -> None:
    ctx.state["account"]["signed_in"] = False
    ctx.effect("logout", account=ctx.state["account"]["email"])
    ctx.toast("Signed out")


@register
class Settings(App):
    name = "Settings"
    names = {"zh": "设置"}
    package = "com.android.settings"
    aliases = ("setting", "system settings", "preferences")
    color = "#1a73e8"
    icon = "gear"

    def initial_state(self, rng: random.Random) -> dict[str, Any]:
        nets = rng.sample(NETWORKS, 5)
        name = rng.choice(["Alex Chen", "Sam Lee", "Jordan Wu", "Taylor Kim"])
        return {
            "wifi": True, "bluetooth": rng.random() < 0.5, "dark_mode": False, "font_size": "Default",
            "brightness": rng.choice([40, 60, 80]), "connected": nets[0], "known_networks": [nets[0]],
            "networks": [{"name": n, "secure": i % 3 != 2, "signal": rng.randint(1, 4)} for i, n in enumerate(nets)],
            "devices": rng.sample(DEVICES, 4), "paired": [],
            "account": {"name": name, "email": name.split()[0].lower() + "@mail.com", "signed_in": True},
        }

    def screen_home(self, ctx: Ctx) -> Widget:
        s = ctx.state
        rows = [
            ("Network & internet", f"Wi-Fi: {s['connected'] if s['wifi'] and s['connected'] else 'off'}", "wifi", "wifi"),
            ("Connected devices", f"Bluetooth {'on' if s['bluetooth'] else 'off'}", "bluetooth", "bluetooth"),
            ("Display", f"Dark theme {'on' if s['dark_mode'] else 'off'}", "display", "display"),
            ("Apps", "Permissions, default apps", "apps", "apps"),
            ("Account", s["account"]["email"] if s["account"]["signed_in"] else "Not signed in", "account", "user"),
        ]
        items: list[Widget] = [ListItem(title, sub, id=f"item_{screen}", leading=Icon(glyph, size=72, color="primary"),
                          on_click=lambda c, sc=screen: c.push(sc)) for title, sub, screen, glyph in rows]
        return Column(AppBar("Settings", back=False), Scroll(*items, id="settings_list"))

    def screen_wifi(self, ctx: Ctx) -> Widget:
        s = ctx.state
        nets: list[Widget] = []
        if s["wifi"]:
            for n in s["networks"]:
                status = "Connected" if n["name"] == s["connected"] else ("Saved" if n["name"] in s["known_networks"]
                                                                          else ("Secured" if n["secure"] else "Open"))
                nets.append(ListItem(n["name"], status, id="network", trailing=f"{'|' * n['signal']}",
                                     on_click=lambda c, name=n["name"]: _connect(c, name)))
        else:
            nets.append(Text("Turn on Wi-Fi to see available networks", pad=48, color=(120, 122, 130)))
        return Column(AppBar("Wi-Fi"),
                      Column(Toggle("Use Wi-Fi", s["wifi"], _set("wifi", "Wi-Fi"), id="wifi_switch"), pad=36),
                      Divider(), Scroll(*nets, id="networks"))

    def screen_wifi_password(self, ctx: Ctx) -> Widget:
        name = ctx.params.get("network", ctx.state["networks"][0]["name"])
        return Column(AppBar(name),
                      Column(Text(f"Enter the password for {name}", size="body"),
                             Input("wifi_password", hint="Password", password=True, on_submit=_join),
                             Button("Connect", on_click=_join, id="connect"), pad=48, gap=36))

    def screen_bluetooth(self, ctx: Ctx) -> Widget:
        s = ctx.state
        devices: list[Widget] = []
        if s["bluetooth"]:
            for d in s["devices"]:
                devices.append(ListItem(d, "Paired" if d in s["paired"] else "Tap to pair", id="device",
                                        leading=Icon("bluetooth", size=64, color="primary"),
                                        on_click=lambda c, name=d: _pair(c, name)))
        else:
            devices.append(Text("Bluetooth is off", pad=48, color=(120, 122, 130)))
        return Column(AppBar("Bluetooth"),
                      Column(Toggle("Use Bluetooth", s["bluetooth"], _set("bluetooth", "Bluetooth"),
                                    id="bluetooth_switch"), pad=36),
                      Divider(), Scroll(*devices, id="devices"))

    def screen_display(self, ctx: Ctx) -> Widget:
        s = ctx.state

        def cycle_font(c: Ctx) -> None:
            options = ["Small", "Default", "Large"]
            c.state["font_size"] = options[(options.index(c.state["font_size"]) + 1) % 3]

        return Column(AppBar("Display"), Scroll(Column(
            Toggle("Dark theme", s["dark_mode"], _set("dark_mode", "Dark theme"), id="dark_mode_switch",
                   subtitle="Use a dark background everywhere"),
            Divider(),
            ListItem("Font size", s["font_size"], on_click=cycle_font, id="font_size"),
            ListItem("Brightness level", f"{s['brightness']}%", id="brightness"),
            pad=36), id="display_list"))

    def screen_apps(self, ctx: Ctx) -> Widget:
        rows = [ListItem(app.name, f"{sum(ctx.phone.state.permissions.get(k, {}).values())} permissions allowed",
                         id="app", leading=Icon(app.icon or app.name, size=80, bg=app.color, round=False),
                         on_click=lambda c, key=k: c.push("app_permissions", app=key))
                for k, app in sorted(ctx.phone.apps.items(), key=lambda kv: kv[1].name)]
        return Column(AppBar("Apps"), Scroll(*rows, id="apps_list"))

    def screen_app_permissions(self, ctx: Ctx) -> Widget:
        key = ctx.params.get("app") or sorted(ctx.phone.apps)[0]
        app = ctx.phone.apps[key]
        granted = ctx.phone.state.permissions.get(key, {})
        toggles = [Toggle(p.capitalize(), bool(granted.get(p, False)), _set_permission(key, p), id=f"perm_{p}")
                   for p in PERMISSIONS]
        return Column(AppBar(f"{app.name} permissions"),
                      Scroll(Column(*toggles, pad=36), id="permissions"))

    def screen_account(self, ctx: Ctx) -> Widget:
        acc = ctx.state["account"]
        if not acc["signed_in"]:
            def sign_in(c: Ctx) -> None:
                c.state["account"]["signed_in"] = True
                c.effect("login", account=c.state["account"]["email"])
            return Column(AppBar("Account"), Column(Text("Not signed in", size="title"),
                                                    Button("Sign in", on_click=sign_in, id="sign_in"), pad=48, gap=36))
        return Column(AppBar("Account"), Column(
            Icon("user", desc="Profile photo", size=200, bg="primary"),
            Text(acc["name"], size="big", bold=True, id="account_name"),
            Text(acc["email"], size="body", id="account_email"),
            Button("Sign out", style="danger", id="sign_out",
                   on_click=lambda c: c.confirm("Sign out?", "You will need to sign in again to sync.", _sign_out,
                                                yes="Sign out")),
            pad=48, gap=36, align="center"))
