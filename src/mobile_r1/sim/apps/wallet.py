"""Wallet: a bank app behind a login wall with balance, cards, transactions, transfers, bills and memberships."""

from __future__ import annotations

import random
from typing import Any

from mobile_r1.sim.apps import App, Ctx, money, new_id, register
from mobile_r1.sim.ui.widgets import (AppBar, Button, Column, Divider, Icon, Input, ListItem, Row, Scroll, Tabs,
                                      Text, Toggle, Widget)

HOLDERS = ["Sam Lee", "Alex Chen", "Jordan Wu", "Taylor Kim"]
PAYEES = ["Maria Garcia", "Wei Zhang", "John Smith", "Priya Patel", "Lucas Moreau", "Hana Sato", "Omar Haddad",
          "Emily Clark"]
BANKS = ["First City Bank", "Harbor Savings", "Union Trust", "Metro Credit"]
MERCHANTS = [("Coffee House", "Food"), ("Green Grocer", "Groceries"), ("City Metro", "Transport"),
             ("Cinema One", "Entertainment"), ("Book Corner", "Shopping"), ("Fuel Stop", "Transport"),
             ("Pizza Place", "Food"), ("Pharmacy Plus", "Health"), ("Online Store", "Shopping")]
BILLERS = [("City Power", "Electricity"), ("Aqua Water", "Water"), ("FastNet", "Internet"), ("Mobile Plus", "Phone"),
           ("Metro Gas", "Gas")]
PLANS = [("Music Premium", 9.99, "month"), ("Video Plus", 15.49, "month"), ("Cloud Storage 200 GB", 2.99, "month"),
         ("News Digital", 99.0, "year"), ("Fitness Club", 29.0, "month"), ("Wallet Gold Membership", 49.0, "year")]
GREY = (120, 122, 130)
SECTIONS = ("home", "cards", "transactions", "settings")


def _amount(text: str) -> float | None:
    try:
        value = float(text.strip().lstrip("$").replace(",", ""))
    except ValueError:
        return None
    return value if value > 0 and round(value, 2) == value else None


def _by_id(items: list[dict[str, Any]], item_id: Any) -> dict[str, Any] | None:
    return next((i for i in items if i["id"] == item_id), None)


def _record(ctx: Ctx, title: str, amount: float, category: str) -> int:
    """Append a transaction (negative amounts leave the account) and return its id."""
    tid = new_id(ctx.state["transactions"])
    ctx.state["transactions"].append({"id": tid, "title": title, "amount": round(amount, 2), "category": category,
                                      "date": "Today " + ctx.clock_text})
    return tid


def _confirm(ctx: Ctx, *_: Any) -> None:
    """The payment password screen: check the password, then do the transfer, bill payment or subscription."""
    s, p = ctx.state, ctx.params
    if ctx.fields.get("pay_password", "") != s["payment_password"]:
        s["failed_payments"] += 1
        ctx.set_field("pay_password", "")
        ctx.toast("Wrong payment password")
        return
    amount = float(p.get("amount", 0.0))
    if amount > s["balance"]:
        ctx.toast("Insufficient balance")
        return
    purpose = p.get("purpose", "transfer")
    if purpose == "transfer":
        name, account, note = p.get("name", ""), p.get("account", ""), p.get("note", "")
        tid = _record(ctx, f"Transfer to {name or account}", -amount, "Transfer")
        ctx.effect("transfer", to=name, account=account, amount=amount, note=note, transaction=tid)
        done = f"{money(amount)} sent to {name or account}"
    elif purpose == "bill":
        bill = _by_id(s["bills"], p.get("bill"))
        if bill is None or bill["paid"]:
            ctx.toast("This bill is already paid")
            return
        bill["paid"] = True
        tid = _record(ctx, f"{bill['biller']} bill", -amount, "Bills")
        ctx.effect("payment", what="bill", bill=bill["id"], biller=bill["biller"], amount=amount, transaction=tid)
        done = f"{bill['biller']} bill paid: {money(amount)}"
    else:
        plan = _by_id(s["plans"], p.get("plan"))
        if plan is None or plan["active"]:
            ctx.toast("You already have this membership")
            return
        plan["active"] = True
        tid = _record(ctx, plan["name"], -amount, "Subscriptions")
        ctx.effect("subscription", plan=plan["id"], name=plan["name"], amount=amount, period=plan["period"],
                   transaction=tid)
        done = f"Subscribed to {plan['name']}"
    s["balance"] = round(s["balance"] - amount, 2)
    ctx.reset_to("home")
    ctx.push("done", text=done, transaction=tid)


@register
class Wallet(App):
    name = "Wallet"
    names = {"zh": "钱包"}
    package = "com.sim.wallet"
    aliases = ("bank", "banking", "mobile banking", "alipay", "e-wallet", "money")
    color = "#0b57d0"
    icon = "bag"
    login_required = True

    def initial_state(self, rng: random.Random) -> dict[str, Any]:
        payees = [{"id": i + 1, "name": n, "bank": rng.choice(BANKS),
                   "account": "".join(rng.choice("0123456789") for _ in range(10))}
                  for i, n in enumerate(rng.sample(PAYEES, 5))]
        txs = []
        for i in range(12):
            merchant, cat = rng.choice(MERCHANTS)
            amount = -round(rng.uniform(3, 120), 2)
            if i % 5 == 4:
                merchant, cat, amount = "Salary", "Income", round(rng.uniform(2000, 4000), 2)
            txs.append({"id": i + 1, "title": merchant, "amount": amount, "category": cat,
                        "date": f"Nov {20 - i if i < 19 else 1}"})
        txs.reverse()
        for i, t in enumerate(txs):
            t["id"] = i + 1
        bills = [{"id": i + 1, "biller": b, "kind": k, "amount": round(rng.uniform(20, 180), 2),
                  "due": f"Dec {rng.randint(1, 28)}", "paid": False}
                 for i, (b, k) in enumerate(rng.sample(BILLERS, 4))]
        plans = [{"id": i + 1, "name": n, "price": price, "period": period, "active": False}
                 for i, (n, price, period) in enumerate(rng.sample(PLANS, len(PLANS)))]
        return {
            "holder": rng.choice(HOLDERS), "account": "62" + "".join(rng.choice("0123456789") for _ in range(8)),
            "balance": round(rng.uniform(1500, 9000), 2),
            "cards": [{"id": i + 1, "bank": rng.choice(BANKS), "kind": kind, "last4": f"{rng.randint(0, 9999):04d}",
                       "frozen": False} for i, kind in enumerate(["Debit", "Credit"])],
            "transactions": txs, "payees": payees, "bills": bills, "plans": plans,
            "settings": {"notifications": True, "hide_balance": False, "biometric": False, "daily_limit": 5000.0},
            "payment_password": "".join(rng.choice("0123456789") for _ in range(6)), "failed_payments": 0,
        }

    def _nav(self, selected: int) -> Widget:
        return Tabs(["Home", "Cards", "Activity", "Settings"], selected, icons=["home", "bag", "list", "gear"],
                    id="bottom_nav", on_select=lambda c, i: c.reset_to(SECTIONS[i]) if i != selected else None)

    def _balance_text(self, ctx: Ctx) -> str:
        return "$ ****" if ctx.state["settings"]["hide_balance"] else money(ctx.state["balance"])

    def _tx_row(self, t: dict[str, Any]) -> Widget:
        sign = "+" if t["amount"] > 0 else "-"
        return ListItem(t["title"], f"{t['date']}  \u00b7  {t['category']}", id="transaction",
                        trailing=Text(f"{sign}{money(abs(t['amount']))}", size="small",
                                      color=(30, 140, 60) if t["amount"] > 0 else None),
                        on_click=lambda c, tid=t["id"]: c.push("transaction", id=tid))

    # ----- screens --------------------------------------------------------------------------------------------
    def screen_home(self, ctx: Ctx) -> Widget:
        s = ctx.state
        actions = [("Transfer", "send", "transfer"), ("Pay bills", "note", "bills"),
                   ("Memberships", "star", "plans"), ("Cards", "bag", "cards")]
        recent = [self._tx_row(t) for t in list(reversed(s["transactions"]))[:5]]
        return Column(
            AppBar("Wallet", back=False, actions=[Icon("user", desc="Account", size=80, id="account",
                                                       on_click=lambda c: c.reset_to("settings"))]),
            Scroll(
                Column(Column(Text(f"Hello, {s['holder']}", size="small", color=(220, 230, 255)),
                              Text("Available balance", size="small", color=(220, 230, 255)),
                              Text(self._balance_text(ctx), size="huge", bold=True, color=(255, 255, 255),
                                   id="balance"),
                              Text(f"Account \u2022\u2022\u2022\u2022 {s['account'][-4:]}", size="small",
                                   color=(220, 230, 255)), pad=48, gap=10, bg="primary", radius=32),
                       pad=28),
                Row(*[Icon(glyph, desc=label, size=110, bg="primary", label=label, id=f"action_{screen}", weight=1.0,
                           on_click=lambda c, sc=screen: c.push(sc)) for label, glyph, screen in actions],
                    pad=28, gap=0),
                Row(Text("Recent activity", bold=True, weight=1.0),
                    Button("See all", style="text", id="see_all", on_click=lambda c: c.reset_to("transactions")),
                    pad=28),
                *recent, id="home_scroll"),
            self._nav(0))

    def screen_cards(self, ctx: Ctx) -> Widget:
        rows = []
        for card in ctx.state["cards"]:
            cid = card["id"]

            def freeze(c: Ctx, value: bool, cid: int = cid) -> None:
                card_now = _by_id(c.state["cards"], cid)
                if card_now is not None:
                    card_now["frozen"] = value
                    c.toast("Card frozen" if value else "Card unfrozen")

            rows.append(Column(
                Column(Text(card["bank"], color=(255, 255, 255), bold=True),
                       Text(f"{card['kind']} card", size="small", color=(220, 230, 255)),
                       Text("  ".join(["\u2022\u2022\u2022\u2022"] * 3 + [card["last4"]]),
                            size="title", color=(255, 255, 255), id="card_number"),
                       bg=(90, 94, 110) if card["frozen"] else "primary", radius=28, pad=48, gap=16),
                Toggle("Freeze card", card["frozen"], freeze, id=f"freeze_{cid}"), pad=28, gap=8, id="card"))
        return Column(AppBar("My cards", back=False), Scroll(*rows, id="cards_list"), self._nav(1))

    def screen_transactions(self, ctx: Ctx) -> Widget:
        rows = [self._tx_row(t) for t in reversed(ctx.state["transactions"])]
        return Column(AppBar("Activity", back=False), Scroll(*rows, id="transactions_list"), self._nav(2))

    def screen_transaction(self, ctx: Ctx) -> Widget:
        t = _by_id(ctx.state["transactions"], ctx.params.get("id")) or ctx.state["transactions"][-1]
        sign = "+" if t["amount"] > 0 else "-"
        return Column(AppBar("Transaction details"),
                      Column(Text(t["title"], size="title", align="center", id="tx_title"),
                             Text(f"{sign}{money(abs(t['amount']))}", size="huge", bold=True, align="center",
                                  id="tx_amount"), pad=48, gap=20),
                      Divider(),
                      ListItem("Date", trailing=t["date"], id="tx_date"),
                      ListItem("Category", trailing=t["category"], id="tx_category"),
                      ListItem("Reference", trailing=f"TX{t['id']:06d}", id="tx_reference"))

    def screen_transfer(self, ctx: Ctx) -> Widget:
        def use_payee(pid: int) -> Any:
            def handler(c: Ctx) -> None:
                payee = _by_id(c.state["payees"], pid)
                if payee is not None:
                    c.set_field("account", payee["account"])
                    c.set_field("name", payee["name"])
            return handler

        def nxt(c: Ctx, *_: Any) -> None:
            account = c.fields.get("account", "").replace(" ", "")
            name = c.fields.get("name", "").strip()
            amount = _amount(c.fields.get("amount", ""))
            if not (account.isdigit() and 8 <= len(account) <= 16):
                c.toast("Enter a valid account number (8-16 digits)")
                return
            if amount is None:
                c.toast("Enter a valid amount")
                return
            if amount > c.state["balance"]:
                c.toast("Insufficient balance")
                return
            if amount > c.state["settings"]["daily_limit"]:
                c.toast(f"Over your daily limit of {money(c.state['settings']['daily_limit'])}")
                return
            known = next((p for p in c.state["payees"] if p["account"] == account), None)
            c.push("pay", purpose="transfer", account=account, name=name or (known["name"] if known else ""),
                   amount=amount, note=c.fields.get("note", "").strip())

        payees = [ListItem(p["name"], f"{p['bank']}  \u00b7  \u2022\u2022\u2022\u2022{p['account'][-4:]}", id="payee",
                           leading=Icon(p["name"][:1], desc=p["name"], size=90, bg="primary"),
                           on_click=use_payee(p["id"])) for p in ctx.state["payees"]]
        return Column(
            AppBar("Transfer money"),
            Scroll(Column(Input("account", hint="Account number"), Input("name", hint="Payee name (optional)"),
                          Input("amount", hint="Amount"), Input("note", hint="Note (optional)"),
                          Text(f"Available: {self._balance_text(ctx)}", size="small", color=GREY, id="available"),
                          Button("Next", id="next", on_click=nxt), pad=36, gap=24),
                   Text("Saved payees", size="small", color=GREY, pad=28), *payees, id="transfer_scroll"))

    def screen_pay(self, ctx: Ctx) -> Widget:
        p = ctx.params
        purpose = p.get("purpose", "transfer")
        amount = float(p.get("amount", 0.0))
        lines: list[Widget]
        if purpose == "transfer":
            title = "Confirm transfer"
            lines = [ListItem("To", trailing=p.get("name") or "Unnamed payee", id="pay_to"),
                     ListItem("Account", trailing=str(p.get("account", "")), id="pay_account"),
                     ListItem("Note", trailing=p.get("note") or "-", id="pay_note")]
        elif purpose == "bill":
            bill = _by_id(ctx.state["bills"], p.get("bill")) or ctx.state["bills"][0]
            title = "Confirm bill payment"
            lines = [ListItem("Biller", trailing=bill["biller"], id="pay_to"),
                     ListItem("Bill", trailing=f"{bill['kind']}, due {bill['due']}", id="pay_bill")]
        else:
            plan = _by_id(ctx.state["plans"], p.get("plan")) or ctx.state["plans"][0]
            title = "Confirm subscription"
            lines = [ListItem("Membership", trailing=plan["name"], id="pay_to"),
                     ListItem("Renews", trailing=f"every {plan['period']} until cancelled", id="pay_period")]
        return Column(
            AppBar(title),
            Scroll(Column(Text(money(amount), size="huge", bold=True, align="center", id="amount"), pad=48),
                   *lines,
                   Column(Input("pay_password", hint="6-digit payment password", password=True, on_submit=_confirm),
                          Button("Confirm and pay", id="confirm_payment", on_click=_confirm),
                          Button("Cancel", style="text", id="cancel_payment", on_click=lambda c: c.pop()),
                          pad=36, gap=24), id="pay_scroll"))

    def screen_done(self, ctx: Ctx) -> Widget:
        return Column(AppBar("Success", back=False),
                      Column(Icon("check", desc="Success", size=200, bg="primary"),
                             Text(ctx.params.get("text", "Done"), size="title", align="center", id="done_text"),
                             Button("Back to home", id="back_home", on_click=lambda c: c.reset_to("home")),
                             pad=60, gap=40, align="center"))

    def screen_bills(self, ctx: Ctx) -> Widget:
        rows = [ListItem(b["biller"], f"{b['kind']}  \u00b7  due {b['due']}", id="bill",
                         trailing="Paid" if b["paid"] else money(b["amount"]),
                         on_click=lambda c, bid=b["id"]: c.push("bill", id=bid)) for b in ctx.state["bills"]]
        return Column(AppBar("Pay bills"), Scroll(*rows, id="bills_list"))

    def screen_bill(self, ctx: Ctx) -> Widget:
        b = _by_id(ctx.state["bills"], ctx.params.get("id")) or ctx.state["bills"][0]
        bid = b["id"]
        return Column(AppBar(b["biller"]),
                      Column(Text(f"{b['kind']} bill", size="title", id="bill_kind"),
                             Text(money(b["amount"]), size="huge", bold=True, id="bill_amount"),
                             Text(f"Due {b['due']}", color=GREY),
                             Text("Paid" if b["paid"] else "Unpaid", bold=True, id="bill_status",
                                  color=(30, 140, 60) if b["paid"] else "danger"),
                             Button("Pay now", id="pay_bill", enabled=not b["paid"],
                                    on_click=lambda c: c.push("pay", purpose="bill", bill=bid, amount=b["amount"])),
                             pad=48, gap=28))

    def screen_plans(self, ctx: Ctx) -> Widget:
        rows = [ListItem(p["name"], f"{money(p['price'])} / {p['period']}", id="plan",
                         trailing="Active" if p["active"] else "",
                         leading=Icon("star_filled" if p["active"] else "star", size=80, color="primary"),
                         on_click=lambda c, pid=p["id"]: c.push("plan", id=pid)) for p in ctx.state["plans"]]
        return Column(AppBar("Memberships"), Scroll(*rows, id="plans_list"))

    def screen_plan(self, ctx: Ctx) -> Widget:
        p = _by_id(ctx.state["plans"], ctx.params.get("id")) or ctx.state["plans"][0]
        pid = p["id"]

        def cancel(c: Ctx) -> None:
            plan = _by_id(c.state["plans"], pid)
            if plan is not None and plan["active"]:
                plan["active"] = False
                c.effect("subscription_cancel", plan=pid, name=plan["name"])
                c.toast("Membership cancelled")

        action = (Button("Cancel membership", style="danger", id="cancel_plan",
                         on_click=lambda c: c.confirm("Cancel membership?", f"{p['name']} will stop renewing.", cancel,
                                                      yes="Cancel membership", no="Keep"))
                  if p["active"] else
                  Button(f"Subscribe for {money(p['price'])}", id="subscribe",
                         on_click=lambda c: c.push("pay", purpose="subscription", plan=pid, amount=p["price"])))
        return Column(AppBar(p["name"]),
                      Column(Icon("star_filled", desc="Membership", size=160, color="primary"),
                             Text(p["name"], size="big", bold=True, align="center", id="plan_name"),
                             Text(f"{money(p['price'])} per {p['period']}, renews automatically", align="center",
                                  id="plan_price"),
                             Text("Active" if p["active"] else "Not subscribed", color=GREY, align="center",
                                  id="plan_status"),
                             action, pad=60, gap=32, align="center"))

    def screen_settings(self, ctx: Ctx) -> Widget:
        st = ctx.state["settings"]

        def setter(key: str, label: str) -> Any:
            def handler(c: Ctx, value: bool) -> None:
                c.state["settings"][key] = value
                c.toast(f"{label} {'on' if value else 'off'}")
            return handler

        def log_out(c: Ctx) -> None:
            c.state["logged_in"] = False
            c.effect("logout", account=c.state.get("user", c.state["holder"]))
            c.reset_to("login")

        return Column(
            AppBar("Settings", back=False),
            Scroll(ListItem(ctx.state["holder"], f"Account {ctx.state['account']}", id="profile",
                            leading=Icon("user", size=100, bg="primary")),
                   Divider(),
                   Column(Toggle("Notifications", st["notifications"], setter("notifications", "Notifications"),
                                 id="notifications_switch"),
                          Toggle("Hide balance", st["hide_balance"], setter("hide_balance", "Hide balance"),
                                 id="hide_balance_switch"),
                          Toggle("Fingerprint login", st["biometric"], setter("biometric", "Fingerprint login"),
                                 id="biometric_switch"), pad=36),
                   ListItem("Daily transfer limit", money(st["daily_limit"]), id="daily_limit"),
                   Divider(),
                   Column(Button("Log out", style="danger", id="log_out",
                                 on_click=lambda c: c.confirm("Log out?", "You will need to log in again.", log_out,
                                                              yes="Log out")), pad=36),
                   id="settings_list"),
            self._nav(3))
