"""Paid memberships the feed and music engines share: tiers with options (months, auto-renewal), a new-user
first-charge offer, a current membership to renew, paid with the payment password (a `subscription` effect).

An engine mixes `Memberships` in before `App` and lists its tiers in the class attribute `plans` (one `tier(...)` per
tier). The state gets (from `member_state`):
  plans            [{"id", "tier", "desc", "options": [{"label", "months", "auto_renew", "price"}], "offer"}]: what
                   the membership page sells, in the phone's language; `offer` is the first-charge discount for new
                   users on that tier, or None
  member           the current membership {"tier", "option", "days_left"} or None
  new_user         whether first-charge offers apply; `subscriptions`: what was bought
  payment_password, failed_payments
Effect: `subscription` (subscription, product, plan, option, months, auto_renew, amount, currency, first_charge).
"""

from __future__ import annotations

import random
from typing import Any, ClassVar, Mapping

from mobile_r1.sim.apps import Ctx, new_id
from mobile_r1.sim.ui.widgets import AppBar, Button, Card, Column, Divider, Icon, Input, Row, Scroll, Text, Widget

GREY = (120, 122, 130)
# (English label, Chinese label, months, auto-renewing)
MONTHLY = ("Monthly auto-renew", "连续包月", 1, True)
QUARTERLY = ("Quarterly auto-renew", "连续包季", 3, True)
YEARLY = ("Yearly auto-renew", "连续包年", 12, True)
ONE_MONTH = ("1 month", "1个月", 1, False)
THREE_MONTHS = ("3 months", "3个月", 3, False)
TWELVE_MONTHS = ("12 months", "12个月", 12, False)

Tier = Mapping[str, Any]


def tier(name: str | tuple[str, str], desc: tuple[str, str],
         options: list[tuple[tuple[str, str, int, bool], float]]) -> Tier:
    """One tier of a membership page: its name (one for both languages, or (English, Chinese)), a description
    (English, Chinese) and its options, each an option kind above with its price."""
    names = (name, name) if isinstance(name, str) else name
    return {"name": names, "desc": desc, "options": options}


def member_state(plans: tuple[Tier, ...], lang: str, rng: random.Random) -> dict[str, Any]:
    """The membership part of an app's starting state, in language `lang`."""
    index = 1 if lang == "zh" else 0
    table = [{"id": i + 1, "tier": t["name"][index], "desc": t["desc"][index],
              "options": [{"label": kind[index], "months": kind[2], "auto_renew": kind[3], "price": price}
                          for kind, price in t["options"]], "offer": None}
             for i, t in enumerate(plans)]
    return {"plans": table, "member": None, "new_user": False, "subscriptions": [],
            "payment_password": "".join(rng.choice("0123456789") for _ in range(6)), "failed_payments": 0}


def _find_tier(state: Mapping[str, Any], name: str) -> dict[str, Any] | None:
    want = name.strip().casefold()
    return next((t for t in state["plans"] if t["tier"].casefold() == want), None)


def _chosen(state: Mapping[str, Any], params: Mapping[str, Any]) -> tuple[dict[str, Any], int] | None:
    plans = state["plans"]
    if not plans:
        return None
    item = next((t for t in plans if t["id"] == params.get("tier")), plans[0])
    return item, min(max(0, int(params.get("option", 0))), len(item["options"]) - 1)


def amount_due(state: Mapping[str, Any], item: Mapping[str, Any], option: Mapping[str, Any]) -> tuple[float, bool]:
    """What choosing `option` of tier `item` costs now, and whether the new-user first-charge discount applies."""
    offer = item.get("offer")
    if state.get("new_user") and offer:
        return round(max(0.01, option["price"] - float(offer["discount"])), 2), True
    return float(option["price"]), False


def _pay(ctx: Ctx, *_: Any) -> None:
    s = ctx.state
    if ctx.fields.get("pay_password", "") != s["payment_password"]:
        s["failed_payments"] += 1
        ctx.set_field("pay_password", "")
        ctx.toast("Wrong payment password")
        return
    found = _chosen(s, ctx.params)
    if found is None:
        return
    item, index = found
    option = item["options"][index]
    amount, first = amount_due(s, item, option)
    currency = ctx.app.currency
    sub = {"id": new_id(s["subscriptions"]), "plan": item["tier"], "option": option["label"],
           "months": option["months"], "auto_renew": option["auto_renew"], "amount": amount, "currency": currency,
           "first_charge": first}
    s["subscriptions"].append(sub)
    s["member"] = {"tier": item["tier"], "option": option["label"], "days_left": 30 * option["months"]}
    s["new_user"] = False
    ctx.effect("subscription", subscription=sub["id"], product=ctx.app.name, plan=item["tier"], option=option["label"],
               months=option["months"], auto_renew=option["auto_renew"], amount=amount, currency=currency,
               first_charge=first)
    ctx.reset_to(ctx.app.home)
    ctx.push("member_done", subscription=sub["id"])


class Memberships:
    """The membership pages an engine mixes in (before `App`): `membership`, `member_pay`, `member_done`, and the
    set-up hooks. `plans` lists the tiers; `member_title` is the page's English title (translated per app)."""

    plans: ClassVar[tuple[Tier, ...]] = ()
    member_title: ClassVar[str] = "Membership"
    MEMBER_ZH: ClassVar[dict[str, str]] = {
        "Membership": "会员", "You are not a member yet": "你还不是会员",
        "Your {tier} ({option}) ends in {days} days": "你的{tier}（{option}）将在 {days} 天后到期",
        "New users: {amount} off the first charge": "新用户专享：首充立减{amount}", "Renew": "续费",
        "Subscribe for {price}": "支付 {price} 开通", "First charge {price}": "首充 {price}", "Auto-renews": "自动续费",
        "Choose {tier}, {option}": "选择{tier}，{option}",
        "Confirm payment": "确认付款", "Enter your 6-digit payment password": "请输入 6 位支付密码",
        "Payment": "付款", "Forgot password?": "忘记密码？", "Reset password": "重置密码",
        "Contact support to reset your payment password.": "请联系客服重置支付密码。",
        "Subscription active": "开通成功", "{tier} ({option}) is active": "{tier}（{option}）已开通",
        "Back to home": "返回首页", "No memberships here": "这里没有会员服务", "{n} months": "{n} 个月",
    }

    # ----- set-up hooks -----------------------------------------------------------------------------------------
    def setup_payment_password(self, ctx: Ctx, password: str) -> None:
        """Set the 6-digit payment password the membership pay screen accepts."""
        ctx.state["payment_password"] = str(password)

    def setup_new_user_offer(self, ctx: Ctx, tier: str, discount: float | None = None) -> None:
        """Make the user a new user with a first-charge discount on tier `tier` only (by default half the price of
        its cheapest option); other tiers get none. Calling it again with the same tier changes nothing."""
        item = _find_tier(ctx.state, tier)
        if item is None:
            raise ValueError(f"{ctx.app.name} sells no tier called {tier!r}")
        for t in ctx.state["plans"]:
            if t is not item:
                t["offer"] = None
        if item["offer"] is None or discount is not None:
            cheapest = min(o["price"] for o in item["options"])
            item["offer"] = {"discount": float(discount) if discount is not None else round(cheapest / 2, 2)}
        ctx.state["new_user"] = True

    def setup_membership(self, ctx: Ctx, tier: str, option: str = "", days_left: int = 3) -> None:
        """Give the user a current membership of `tier` that ends in `days_left` days (a renewal task)."""
        item = _find_tier(ctx.state, tier)
        if item is None:
            raise ValueError(f"{ctx.app.name} sells no tier called {tier!r}")
        label = option or item["options"][0]["label"]
        ctx.state["member"] = {"tier": item["tier"], "option": label, "days_left": int(days_left)}
        ctx.state["new_user"] = False

    # ----- screens ---------------------------------------------------------------------------------------------------
    def _status_text(self, ctx: Ctx) -> str:
        member = ctx.state.get("member")
        if not member:
            return ctx.t("You are not a member yet")
        return ctx.t("Your {tier} ({option}) ends in {days} days", tier=member["tier"], option=member["option"],
                     days=member["days_left"])

    def screen_membership(self, ctx: Ctx) -> Widget:
        s = ctx.state
        found = _chosen(s, ctx.params)
        if found is None:
            return Column(AppBar(self.member_title), Text("No memberships here", pad=60, align="center"))
        chosen, chosen_option = found
        cards: list[Widget] = []
        for item in s["plans"]:
            chips: list[Widget] = []
            for i, option in enumerate(item["options"]):
                on = item["id"] == chosen["id"] and i == chosen_option
                chips.append(Column(
                    Text(option["label"], bold=on, size="small", align="center", id="option_label"),
                    Text(ctx.money(option["price"]), size="small", color="danger", align="center", id="option_price"),
                    bg="primary" if on else "surface", border="primary" if on else "divider", radius=16, pad=14, gap=4,
                    weight=1.0, selected=on, id="option",
                    desc=ctx.t("Choose {tier}, {option}", tier=item["tier"], option=option["label"]),
                    on_click=lambda c, t=item["id"], k=i: c.replace("membership", tier=t, option=k)))
            rows = [Row(*chips[k:k + 3], gap=14) for k in range(0, len(chips), 3)]
            offer = item.get("offer")
            badge = (Text(ctx.t("New users: {amount} off the first charge", amount=ctx.money(offer["discount"])),
                          size="small", color=(255, 255, 255), bg="danger", pad=10, radius=12, id="offer")
                     if offer and s.get("new_user") else None)
            cards.append(Card(Row(Text(item["tier"], size="title", bold=True, id="tier_name", weight=1.0), badge),
                              Text(item["desc"], size="small", color=GREY, id="tier_desc"), *rows,
                              id="tier", pad=28, gap=14))
        option = chosen["options"][chosen_option]
        amount, first = amount_due(s, chosen, option)
        price = ctx.money(amount)
        member = s.get("member")
        renew = bool(member and member["tier"] == chosen["tier"])
        return Column(
            AppBar(self.member_title),
            Scroll(Card(Icon("star_filled", desc=self.member_title, size=100, color="primary"),
                        Text(self._status_text(ctx), align="center", id="member_status"), pad=28, gap=10),
                   *cards, id="plans_list", pad=28, gap=24),
            Row(Column(Text(ctx.t("First charge {price}", price=price) if first else price, size="title", bold=True,
                            color="danger", id="due"),
                       Text(f"{chosen['tier']} \u00b7 {option['label']}", size="small", color=GREY, id="selection"),
                       weight=1.0, gap=4),
                Button(ctx.t("Renew") if renew else ctx.t("Subscribe for {price}", price=price), id="subscribe",
                       on_click=lambda c, t=chosen["id"], k=chosen_option: (
                           c.push("member_pay", tier=t, option=k) if c.require_login() else None)),
                pad=28))

    def screen_member_pay(self, ctx: Ctx) -> Widget:
        found = _chosen(ctx.state, ctx.params)
        if found is None:
            return Column(AppBar("Payment"), Text("No memberships here", pad=60, align="center"))
        item, index = found
        option = item["options"][index]
        amount, _ = amount_due(ctx.state, item, option)
        extra = ctx.t("Auto-renews") if option["auto_renew"] else ctx.t("{n} months", n=option["months"])
        return Column(
            AppBar("Payment"),
            Column(Text(f"{ctx.app_label} \u00b7 {item['tier']}", size="title", bold=True, align="center",
                        id="pay_product"),
                   Text(f"{option['label']} \u00b7 {extra}", align="center", id="pay_option"),
                   Text(ctx.money(amount), size="huge", bold=True, align="center", id="amount"),
                   Text("Enter your 6-digit payment password"),
                   Input("pay_password", hint="Payment password", password=True, on_submit=_pay),
                   Button("Confirm payment", id="confirm_payment", on_click=_pay),
                   Button("Forgot password?", style="text", id="forgot",
                          on_click=lambda c: c.dialog(c.t("Reset password"),
                                                      c.t("Contact support to reset your payment password."))),
                   pad=48, gap=30))

    def screen_member_done(self, ctx: Ctx) -> Widget:
        subs = ctx.state["subscriptions"]
        sub = next((x for x in subs if x["id"] == ctx.params.get("subscription")), subs[-1] if subs else None)
        text = (ctx.t("{tier} ({option}) is active", tier=sub["plan"], option=sub["option"]) if sub
                else ctx.t("You are not a member yet"))
        return Column(AppBar("Subscription active", back=False),
                      Column(Icon("check", desc="Subscription active", size=200, bg="primary"),
                             Text(text, size="title", align="center", id="done_text"),
                             Text(ctx.money(sub["amount"]) if sub else "", align="center", id="done_amount"),
                             Divider(),
                             Button("Back to home", id="back_home", on_click=lambda c: c.reset_to(c.app.home)),
                             pad=60, gap=40, align="center"))


__all__ = ["Memberships", "tier", "member_state", "amount_due", "MONTHLY", "QUARTERLY", "YEARLY", "ONE_MONTH",
           "THREE_MONTHS", "TWELVE_MONTHS"]
