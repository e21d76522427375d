"""Smart Remote: the phone's infrared remote control. Adding a remote picks the appliance type and its brand, then
pairs: the phone must point at the appliance while its power key is tried, and only the person holding the phone can
see whether the appliance answered ("Did the air conditioner respond?"). The app cannot tell, so an agent must ask.
Each "No" tries the brand's next code (three in all); "Yes" keeps the remote.

State: `remotes` [{"id", "appliance", "brand", "code", "name"}]; `pairing` (the last pairing tried: appliance, brand,
code, pressed). Appliance types are kept in English (`Air conditioner`) and shown in the phone's language; brands are
kept as the phone shows them (`小米` on a Chinese phone, `Xiaomi` on an English one). Effects: `pair` (remote,
appliance, appliance_label, brand, code); `delete` (item "remote").
"""

from __future__ import annotations

import random
from typing import Any

from mobile_r1.sim.apps import App, Ctx, new_id, register
from mobile_r1.sim.ui.widgets import (AppBar, Button, Card, Column, Grid, Icon, Input, ListItem, Row, Scroll, Text,
                                      Widget)

GREY = (120, 122, 130)
APPLIANCES = (("Air conditioner", "display"), ("TV", "display"), ("Fan", "recents"), ("Set-top box", "apps"),
              ("Projector", "display"), ("Air purifier", "wifi"))
BRANDS: dict[str, tuple[tuple[str, str], ...]] = {
    "Air conditioner": (("Xiaomi", "小米"), ("Gree", "格力"), ("Midea", "美的"), ("Haier", "海尔"), ("AUX", "奥克斯"),
                        ("Hisense", "海信"), ("Daikin", "大金"), ("Panasonic", "松下"), ("TCL", "TCL"),
                        ("Mitsubishi", "三菱电机")),
    "TV": (("Xiaomi", "小米"), ("Hisense", "海信"), ("TCL", "TCL"), ("Skyworth", "创维"), ("Sony", "索尼"),
           ("Samsung", "三星"), ("Huawei", "华为"), ("Changhong", "长虹")),
    "Fan": (("Xiaomi", "小米"), ("Midea", "美的"), ("Gree", "格力"), ("Airmate", "艾美特"), ("Pioneer", "先锋")),
    "Set-top box": (("Huawei", "华为"), ("ZTE", "中兴"), ("Skyworth", "创维"), ("Xiaomi", "小米")),
    "Projector": (("XGIMI", "极米"), ("Epson", "爱普生"), ("BenQ", "明基"), ("Xiaomi", "小米")),
    "Air purifier": (("Xiaomi", "小米"), ("Philips", "飞利浦"), ("Sharp", "夏普"), ("Panasonic", "松下")),
}
CODES = 3  # codes tried per brand before giving up


def brands(appliance: str, locale: str) -> list[str]:
    """The brands offered for an appliance type, as the phone shows them."""
    return [zh if locale == "zh" else en for en, zh in BRANDS.get(appliance, ())]


def _appliance(ctx: Ctx) -> str:
    value = ctx.params.get("appliance") or APPLIANCES[0][0]
    return value if value in BRANDS else APPLIANCES[0][0]


def _keep(ctx: Ctx) -> None:
    p = ctx.params
    appliance = _appliance(ctx)
    brand, code = p.get("brand") or brands(appliance, ctx.locale)[0], int(p.get("code", 1))
    remotes = ctx.state["remotes"]
    label = ctx.t(appliance)
    remote = {"id": new_id(remotes), "appliance": appliance, "brand": brand, "code": code,
              "name": f"{brand} {label}" if ctx.locale != "zh" else f"{brand}{label}"}
    remotes.append(remote)
    ctx.state["pairing"] = None
    ctx.effect("pair", remote=remote["id"], appliance=appliance, appliance_label=label, brand=brand, code=code)
    ctx.toast("Paired with {name}", name=remote["name"])
    ctx.reset_to("home")
    ctx.push("control", id=remote["id"])


def _no_response(ctx: Ctx) -> None:
    code = int(ctx.params.get("code", 1))
    params = {"appliance": _appliance(ctx), "brand": ctx.params.get("brand", "")}
    if code >= CODES:
        ctx.state["pairing"] = None
        ctx.dialog(ctx.t("No matching remote"), ctx.t("None of the codes worked. Check the brand and try again."))
        ctx.pop()
        return
    ctx.state["pairing"] = {**params, "code": code + 1, "pressed": False}
    ctx.replace("pair", code=code + 1, pressed=False, **params)


def _press_power(ctx: Ctx) -> None:
    params = {"appliance": _appliance(ctx), "brand": ctx.params.get("brand", ""),
              "code": int(ctx.params.get("code", 1))}
    ctx.state["pairing"] = {**params, "pressed": True}
    ctx.replace("pair", pressed=True, **params)


@register
class SmartRemote(App):
    name = "Smart Remote"
    key = "smart_remote"
    names = {"zh": "智能遥控"}
    package = "com.huawei.android.remotecontroller"
    aliases = ("smart remote control", "remote control", "remote", "智能遥控器", "遥控器", "万能遥控")
    color = "#00897b"
    icon = "wifi"
    strings = {"zh": {
        "My remotes": "我的遥控器", "Add remote": "添加遥控器", "Choose the appliance": "选择设备类型",
        "Choose the brand": "选择品牌", "Search brands": "搜索品牌", "Air conditioner": "空调", "TV": "电视",
        "Fan": "风扇", "Set-top box": "机顶盒", "Projector": "投影仪", "Air purifier": "空气净化器",
        "Pair {brand} {appliance}": "匹配{brand}{appliance}", "Code {n} of {total}": "第 {n} 组按键，共 {total} 组",
        "Point your phone at the {appliance} and tap the power key below.": "请将手机对准{appliance}，然后点击下方的电源键。",
        "Did the {appliance} respond?": "{appliance}有响应吗？",
        "Only you can see whether it turned on or off, or beeped.": "只有您能看到它是否开关机或发出提示音。",
        "Yes, it responded": "有响应", "No response": "没有响应", "Power": "电源", "No matching remote": "没有匹配的遥控器",
        "None of the codes worked. Check the brand and try again.": "所有按键都无效。请检查品牌后重试。",
        "Paired with {name}": "已匹配{name}", "No remotes yet. Add one to control an appliance.": "还没有遥控器，添加一个来控制家电吧。",
        "Mode": "模式", "Temperature up": "温度升高", "Temperature down": "温度降低", "Fan speed": "风速",
        "Volume up": "音量加", "Volume down": "音量减", "Channel up": "频道加", "Channel down": "频道减",
        "Sent: {button}": "已发送：{button}", "Delete remote": "删除遥控器", "Delete {name}?": "删除{name}？",
        "Remote deleted": "遥控器已删除", "This remote no longer exists": "该遥控器已不存在", "Pairing": "匹配中",
        "{n} brands": "{n} 个品牌", "Remote": "遥控器", "Power key": "电源键",
    }}

    def initial_state(self, rng: random.Random) -> dict[str, Any]:
        lang = "zh" if self.locale == "zh" else "en"
        en, zh = rng.choice(BRANDS["TV"])
        brand = zh if lang == "zh" else en
        tv = "电视" if lang == "zh" else "TV"
        remote = {"id": 1, "appliance": "TV", "brand": brand, "code": rng.randint(1, CODES),
                  "name": f"{brand}{tv}" if lang == "zh" else f"{brand} {tv}"}
        return {"remotes": [remote] if rng.random() < 0.5 else [], "pairing": None}

    # ----- set-up hooks ---------------------------------------------------------------------------------------------
    def setup_no_remote(self, ctx: Ctx, appliance: str, brand: str | None = None) -> None:
        """Make sure no remote for this appliance type (of `brand`, when given) is kept yet. `appliance` is the type in
        English or as the phone shows it (空调)."""
        kind = self.appliance_type(ctx, appliance)
        ctx.state["remotes"] = [r for r in ctx.state["remotes"]
                                if not (r["appliance"] == kind and (brand is None or r["brand"] == brand))]

    def appliance_type(self, ctx: Ctx, text: str) -> str:
        """The appliance type (English) that `text` names in either language."""
        want = text.strip().lower()
        for kind, _ in APPLIANCES:
            if want in (kind.lower(), ctx.t(kind).lower(), str(self.strings["zh"].get(kind, kind)).lower()):
                return kind
        raise ValueError(f"unknown appliance {text!r}; known: {', '.join(k for k, _ in APPLIANCES)}")

    # ----- screens --------------------------------------------------------------------------------------------------
    def screen_home(self, ctx: Ctx) -> Widget:
        rows = [ListItem(r["name"], ctx.t(r["appliance"]), id="remote",
                         leading=Icon(dict(APPLIANCES)[r["appliance"]], desc=ctx.t(r["appliance"]), size=90,
                                      bg="primary"),
                         on_click=lambda c, rid=r["id"]: c.push("control", id=rid)) for r in ctx.state["remotes"]]
        return Column(
            AppBar("My remotes", back=False),
            Scroll(*(rows or [Text("No remotes yet. Add one to control an appliance.", pad=60, align="center",
                                   color=GREY)]), id="remotes"),
            Row(Button("Add remote", icon="plus", id="add_remote", weight=1.0, on_click=lambda c: c.push("add")),
                pad=28))

    def screen_add(self, ctx: Ctx) -> Widget:
        tiles = [Icon(glyph, desc=kind, size=140, bg="primary", label=kind, id="appliance", round=False,
                      on_click=lambda c, kind=kind: c.push("brands", appliance=kind)) for kind, glyph in APPLIANCES]
        return Column(AppBar("Choose the appliance"), Scroll(Grid(*tiles, cols=3, gap=40, pad=48), id="appliances"))

    def screen_brands(self, ctx: Ctx) -> Widget:
        appliance = _appliance(ctx)
        typed = " ".join(ctx.fields.get("brand_query", "").split())
        query = typed.lower()
        shown = [b for b in brands(appliance, ctx.locale) if not query or query in b.lower()]
        if typed and not shown:  # the catalogue has every brand: one it does not list is found when typed
            shown.append(typed if ctx.locale == "zh" else typed[:1].upper() + typed[1:])
        rows = [ListItem(b, id="brand", on_click=lambda c, b=b: c.push("pair", appliance=appliance, brand=b, code=1,
                                                                      pressed=False)) for b in shown]
        return Column(AppBar("Choose the brand"),
                      Row(Input("brand_query", hint="Search brands", weight=1.0), pad=28),
                      Text(ctx.t("{n} brands", n=len(shown)), size="small", color=GREY, pad=28),
                      Scroll(*rows, id="brands"))

    def screen_pair(self, ctx: Ctx) -> Widget:
        appliance = _appliance(ctx)
        label = ctx.t(appliance)
        brand = ctx.params.get("brand") or brands(appliance, ctx.locale)[0]
        code = int(ctx.params.get("code", 1))
        pressed = bool(ctx.params.get("pressed"))
        title = ctx.t("Pair {brand} {appliance}", brand=brand, appliance=label)
        step: list[Widget | None]
        if not pressed:
            step = [Text(ctx.t("Point your phone at the {appliance} and tap the power key below.", appliance=label),
                         align="center", id="pair_instruction"),
                    Icon("close", desc="Power key", size=260, bg="danger", id="power", on_click=_press_power)]
        else:
            step = [Text(ctx.t("Did the {appliance} respond?", appliance=label), size="title", bold=True,
                         align="center", id="pair_question"),
                    Text("Only you can see whether it turned on or off, or beeped.", size="small", color=GREY,
                         align="center"),
                    Row(Button("No response", style="secondary", id="no_response", weight=1.0, on_click=_no_response),
                        Button("Yes, it responded", id="responded", weight=1.0, on_click=_keep), gap=24)]
        return Column(AppBar(title),
                      Column(Text(ctx.t("Code {n} of {total}", n=code, total=CODES), size="small", color=GREY,
                                  align="center", id="pair_code"),
                             *step, pad=60, gap=48, align="center", flex=True))

    def screen_control(self, ctx: Ctx) -> Widget:
        remotes = ctx.state["remotes"]
        r = next((x for x in remotes if x["id"] == ctx.params.get("id")), remotes[0] if remotes else None)
        if r is None:
            return Column(AppBar("Remote"), Text("This remote no longer exists", pad=60, color=GREY))
        rid = r["id"]
        keys = (("Power", "Mode", "Temperature up", "Temperature down", "Fan speed")
                if r["appliance"] == "Air conditioner" else ("Power", "Volume up", "Volume down", "Channel up",
                                                             "Channel down"))

        def delete(c: Ctx) -> None:
            remote = next((x for x in c.state["remotes"] if x["id"] == rid), None)
            if remote is not None:
                c.state["remotes"].remove(remote)
                c.effect("delete", item="remote", id=rid, name=remote["name"])
                c.toast("Remote deleted")
                c.pop()

        buttons = [Button(k, style="danger" if k == "Power" else "secondary", id=f"key_{k.lower().replace(' ', '_')}",
                          on_click=lambda c, k=k: c.toast("Sent: {button}", button=c.t(k))) for k in keys]
        return Column(
            AppBar(r["name"], actions=[Icon("trash", desc="Delete remote", size=80, id="delete_remote",
                                            on_click=lambda c: c.confirm(c.t("Delete {name}?", name=r["name"]), "",
                                                                         delete, yes=c.t("Delete")))]),
            Scroll(Card(Text(ctx.t(r["appliance"]), size="small", color=GREY), Text(r["name"], size="title", bold=True),
                        pad=36), Grid(*buttons, cols=2, gap=28, pad=48), id="keys", pad=28))


__all__ = ["SmartRemote", "brands", "APPLIANCES"]
