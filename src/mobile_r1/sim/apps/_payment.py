"""The payment sheet the wallet apps share (WeChat, QQ, Alipay): what is paid, the funding method chosen from a menu,
and the 6-digit payment password checked against `state["payment_password"]`.

An app lists its funding methods as `Method`s (a balance with what it holds, a bound bank card without a limit); the
sheet keeps the chosen one in its screen params (`method`), so a judge reads it from the effect the app records.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Sequence

from mobile_r1.sim.apps.base import Ctx
from mobile_r1.sim.ui.widgets import AppBar, Button, Column, Icon, Input, ListItem, Scroll, Text, Widget

GREY = (120, 122, 130)
_AMOUNT = re.compile(r"^\s*[¥$]?\s*([0-9][0-9,]*(?:\.[0-9]+)?)\s*(?:元|块|yuan|rmb|cny)?\s*$", re.IGNORECASE)

# The sheet's own words in Chinese (each app lays its table over these).
PAYMENT_ZH: dict[str, str] = {
    "Pay with": "付款方式", "Choose a payment method": "选择付款方式", "Enter a valid amount": "请输入正确的金额",
    "Enter your 6-digit payment password": "请输入 6 位支付密码", "Confirm payment": "确认付款",
    "Not enough money in {method}": "{method}余额不足", "Payment successful": "支付成功",
    "{method}: {amount} available": "{method}：可用 {amount}", "{bank} debit card ({last4})": "{bank}储蓄卡（{last4}）",
}


@dataclass(frozen=True, slots=True)
class Method:
    """A way to pay: `key` ("balance", "card", "yuebao"), its label in the phone's language, and what it holds (None:
    no limit, as a bank card)."""

    key: str
    label: str
    available: float | None = None

    def covers(self, amount: float) -> bool:
        return self.available is None or amount <= self.available + 1e-9


def parse_amount(text: str) -> float | None:
    """A positive amount with at most two decimals from what a user types ("66.66", "¥200", "50元"), or None."""
    m = _AMOUNT.match(text or "")
    if m is None:
        return None
    try:
        value = float(m.group(1).replace(",", ""))
    except ValueError:
        return None
    if value <= 0 or round(value, 2) != value:
        return None
    return value


def chosen(methods: Sequence[Method], key: str | None) -> Method:
    """The method with `key` (the first one when there is none)."""
    return next((m for m in methods if m.key == key), methods[0])


def password_ok(ctx: Ctx) -> bool:
    """Whether the typed payment password is right; a wrong one is counted (`failed_payments`), cleared and toasted."""
    if ctx.fields.get("pay_password", "") == ctx.state["payment_password"]:
        return True
    ctx.state["failed_payments"] = ctx.state.get("failed_payments", 0) + 1
    ctx.set_field("pay_password", "")
    ctx.toast("Wrong payment password")
    return False


def _pick_method(key: str) -> Callable[[Ctx], None]:
    def handler(c: Ctx) -> None:
        c.params["method"] = key
    return handler


def pay_sheet(ctx: Ctx, title: str, amount: float, lines: Sequence[Widget], methods: Sequence[Method],
              on_confirm: Callable[..., None], extra: Sequence[Widget] = ()) -> Widget:
    """The payment screen: the amount, `lines` saying what it pays, the method row (tap: a menu of `methods`), the
    password field and the confirm button (`on_confirm(ctx)`; it should call `password_ok` first)."""
    method = chosen(methods, ctx.params.get("method"))
    items = [(m.label if m.available is None else ctx.t("{method}: {amount} available", method=m.label,
                                                         amount=ctx.money(m.available)), _pick_method(m.key))
             for m in methods]
    return Column(
        AppBar(title),
        Scroll(Column(Text(ctx.money(amount), size="huge", bold=True, align="center", id="amount"), pad=40),
               *lines,
               ListItem("Pay with", method.label, id="pay_method", trailing=Icon("forward", desc="Choose a payment method",
                                                                                 size=50),
                        on_click=lambda c: c.menu(items, title=c.t("Choose a payment method"))),
               *extra,
               Column(Input("pay_password", hint="Enter your 6-digit payment password", password=True,
                            on_submit=lambda c, *_: on_confirm(c)),
                      Button("Confirm payment", id="confirm_payment", on_click=on_confirm),
                      Button("Cancel", style="text", id="cancel_payment", on_click=lambda c: c.pop()),
                      pad=40, gap=24),
               id="pay_scroll"))


__all__ = ["Method", "PAYMENT_ZH", "parse_amount", "chosen", "password_ok", "pay_sheet", "GREY"]

