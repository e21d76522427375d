"""Food: a delivery app with sortable, filterable restaurants, menus, a basket, paid checkout and an order list.

The user starts logged out: browsing is open, checkout sits behind the login wall.
"""

from __future__ import annotations

import random
from typing import Any

from mobile_r1.sim.apps import App, Ctx, money, new_id, register
from mobile_r1.sim.ui.widgets import (AppBar, Button, Card, Column, Divider, Icon, Image, Input, ListItem, Row, Scroll,
                                      Tabs, Text, Widget)

CUISINES = {
    "Pizza": (["Mama Mia Pizza", "Slice House"],
              ["Margherita Pizza", "Pepperoni Pizza", "Garlic Bread", "Tiramisu", "Four Cheese Pizza", "Caesar Salad"]),
    "Chinese": (["Golden Wok", "Panda Kitchen"],
                ["Kung Pao Chicken", "Egg Fried Rice", "Pork Dumplings", "Mapo Tofu", "Hot and Sour Soup", "Spring Rolls"]),
    "Japanese": (["Tokyo Bento", "Ramen Ya"],
                 ["Salmon Sushi Set", "Chicken Ramen", "Tempura Udon", "Miso Soup", "Teriyaki Bowl", "Edamame"]),
    "Burgers": (["Burger Barn", "Grill Masters"],
                ["Classic Cheeseburger", "Bacon Burger", "Veggie Burger", "French Fries", "Onion Rings", "Milkshake"]),
    "Indian": (["Curry Palace", "Taj Express"],
               ["Butter Chicken", "Chicken Biryani", "Palak Paneer", "Garlic Naan", "Vegetable Samosa", "Mango Lassi"]),
    "Mexican": (["Taco Fiesta", "El Burrito"],
                ["Beef Tacos", "Chicken Burrito", "Loaded Nachos", "Cheese Quesadilla", "Guacamole and Chips", "Churros"]),
    "Healthy": (["Green Bowl", "Fresh Fit"],
                ["Quinoa Bowl", "Greek Salad", "Avocado Toast", "Smoothie Bowl", "Grilled Chicken Wrap", "Fresh Orange Juice"]),
}
SORTS = ("Popular", "Rating", "Fastest", "Nearest")
ADDRESSES = ["12 Oak Street, Apt 3", "88 River Road", "5 Hill Lane, Floor 2", "240 King Street, Office 9",
             "17 Maple Avenue"]
COLORS = [(250, 222, 200), (246, 214, 214), (222, 236, 210), (250, 236, 196), (226, 218, 244), (206, 232, 236)]


def _restaurant(ctx: Ctx, rid: int | None) -> dict[str, Any] | None:
    return next((r for r in ctx.state["restaurants"] if r["id"] == rid), None)


def _dish(ctx: Ctx, did: int) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """(restaurant, dish) of a dish id."""
    for r in ctx.state["restaurants"]:
        for d in r["menu"]:
            if d["id"] == did:
                return r, d
    return None


def _minimum(r: dict[str, Any]) -> str:
    return f"minimum {money(r['min_order'])}" if r["min_order"] else "no minimum"


def _qty(ctx: Ctx, did: int) -> int:
    return next((i["qty"] for i in ctx.state["basket"]["items"] if i["dish"] == did), 0)


def basket_lines(ctx: Ctx) -> list[dict[str, Any]]:
    """The basket as order lines: dish id, name, unit price, quantity."""
    lines = []
    for item in ctx.state["basket"]["items"]:
        found = _dish(ctx, item["dish"])
        if found is not None:
            lines.append({"dish": item["dish"], "name": found[1]["name"], "price": found[1]["price"], "qty": item["qty"]})
    return lines


def subtotal(ctx: Ctx) -> float:
    return round(sum(line["price"] * line["qty"] for line in basket_lines(ctx)), 2)


def _change(ctx: Ctx, did: int, delta: int) -> None:
    found = _dish(ctx, did)
    if found is None:
        return
    rid = found[0]["id"]
    basket = ctx.state["basket"]
    if delta > 0 and basket["items"] and basket["restaurant"] != rid:
        other = _restaurant(ctx, basket["restaurant"])

        def fresh(c: Ctx) -> None:
            c.state["basket"] = {"restaurant": rid, "items": [{"dish": did, "qty": 1}]}
            c.toast("Added to basket")

        ctx.dialog("Start a new basket?",
                   f"Your basket has dishes from {other['name'] if other else 'another restaurant'}. "
                   f"Clear it and add {found[1]['name']}?", [("Cancel", None), ("New basket", fresh)])
        return
    basket["restaurant"] = rid
    for item in basket["items"]:
        if item["dish"] == did:
            item["qty"] += delta
            if item["qty"] <= 0:
                basket["items"].remove(item)
            break
    else:
        if delta > 0:
            basket["items"].append({"dish": did, "qty": delta})
    if not basket["items"]:
        basket["restaurant"] = None


def _pay(ctx: Ctx, *_: Any) -> None:
    if ctx.fields.get("pay_password", "") != ctx.state["payment_password"]:
        ctx.state["failed_payments"] += 1
        ctx.set_field("pay_password", "")
        ctx.toast("Wrong payment password")
        return
    lines = basket_lines(ctx)
    r = _restaurant(ctx, ctx.state["basket"]["restaurant"])
    if not lines or r is None:
        ctx.toast("Your basket is empty")
        return
    sub = subtotal(ctx)
    total = round(sub + r["fee"], 2)
    address = ctx.state["addresses"][ctx.state["address"]]
    order = {"id": new_id(ctx.state["orders"]), "restaurant": r["id"], "restaurant_name": r["name"], "items": lines,
             "subtotal": sub, "fee": r["fee"], "total": total, "address": address,
             "note": ctx.params.get("note", ""), "status": "Preparing", "eta_minutes": r["minutes"]}
    ctx.state["orders"].append(order)
    ctx.state["basket"] = {"restaurant": None, "items": []}
    r["sales"] += 1
    ctx.effect("payment", order=order["id"], amount=total, merchant=r["name"], restaurant=r["id"],
               items=[dict(line) for line in lines], address=address)
    ctx.reset_to("orders")
    ctx.push("order", id=order["id"])
    ctx.toast("Order placed")


@register
class Food(App):
    name = "Food"
    names = {"zh": "外卖"}
    package = "com.sim.food"
    aliases = ("food delivery", "delivery", "takeaway", "takeout", "meituan", "doordash", "ubereats", "uber eats")
    color = "#ffc300"
    icon = "bag"

    def initial_state(self, rng: random.Random) -> dict[str, Any]:
        restaurants = []
        for cuisine, (names, dishes) in CUISINES.items():
            for name in names:
                menu = [{"name": d, "price": round(rng.uniform(2.5, 24.0), 2), "sales": rng.randint(3, 900),
                         "desc": f"Freshly made {d.lower()}."} for d in rng.sample(dishes, 5)]
                restaurants.append({"name": name, "cuisine": cuisine, "rating": round(rng.uniform(3.6, 4.9), 1),
                                    "minutes": rng.randint(15, 55), "fee": rng.choice([0.0, 0.99, 1.99, 2.99, 3.99]),
                                    "min_order": rng.choice([0.0, 8.0, 10.0, 15.0]), "km": round(rng.uniform(0.3, 7.5), 1),
                                    "sales": rng.randint(50, 9000), "color": rng.randrange(len(COLORS)), "menu": menu})
        rng.shuffle(restaurants)
        for i, r in enumerate(restaurants, start=1):
            r["id"] = i
            for j, d in enumerate(r["menu"], start=1):
                d["id"] = i * 100 + j
        addresses = rng.sample(ADDRESSES, 2)
        return {"restaurants": restaurants, "basket": {"restaurant": None, "items": []}, "orders": [],
                "addresses": addresses, "address": 0, "logged_in": False,
                "payment_password": "".join(rng.choice("0123456789") for _ in range(6)), "failed_payments": 0}

    def _nav(self, selected: int) -> Widget:
        screens = ("home", "basket", "orders")
        return Tabs(["Home", "Basket", "Orders"], selected, icons=["home", "bag", "list"], id="bottom_nav",
                    on_select=lambda c, i: c.reset_to(screens[i]) if i != selected else None)

    def _basket_bar(self, ctx: Ctx) -> Widget | None:
        lines = basket_lines(ctx)
        if not lines:
            return None
        count = sum(line["qty"] for line in lines)
        return Row(Icon("bag", desc="Basket", size=80, color=(255, 255, 255)),
                   Text(f"{count} item{'s' if count > 1 else ''}  \u00b7  {money(subtotal(ctx))}", bold=True,
                        color=(255, 255, 255), weight=1.0, id="basket_summary"),
                   Text("View basket", bold=True, color=(255, 255, 255)),
                   bg="primary", pad=28, id="view_basket", on_click=lambda c: c.push("basket"))

    # ----- screens -----------------------------------------------------------------------------------------
    def screen_home(self, ctx: Ctx) -> Widget:
        sort = ctx.params.get("sort", 0)
        cuisine = ctx.params.get("cuisine", "")
        q = ctx.fields.get("query", "").strip().lower()
        shown = [r for r in ctx.state["restaurants"] if (not cuisine or r["cuisine"] == cuisine) and
                 (not q or q in r["name"].lower() or q in r["cuisine"].lower()
                  or any(q in d["name"].lower() for d in r["menu"]))]
        if sort == 1:
            shown.sort(key=lambda r: (-r["rating"], r["id"]))
        elif sort == 2:
            shown.sort(key=lambda r: (r["minutes"], r["id"]))
        elif sort == 3:
            shown.sort(key=lambda r: (r["km"], r["id"]))

        def pick(label: str) -> Any:
            return lambda c: c.replace("home", sort=sort, cuisine="" if label == "All cuisines" else label)

        filters = [(label, pick(label)) for label in ["All cuisines", *CUISINES]]
        cards = [Card(Row(Image(desc=r["name"], height=180, width=180, color=COLORS[r["color"]]),
                          Column(Text(r["name"], bold=True, id="restaurant_name"),
                                 Text(f"\u2605 {r['rating']}  \u00b7  {r['cuisine']}  \u00b7  {r['km']} km", size="small"),
                                 Text(f"{r['minutes']} min  \u00b7  delivery {money(r['fee']) if r['fee'] else 'free'}"
                                      f"  \u00b7  {_minimum(r)}", size="small", color=(120, 122, 130)),
                                 weight=1.0, gap=6), gap=24),
                      on_click=lambda c, rid=r["id"]: c.push("restaurant", id=rid), id="restaurant")
                 for r in shown]
        return Column(
            Row(Text("Deliver to", size="small", color=(120, 122, 130)),
                Text(ctx.state["addresses"][ctx.state["address"]], bold=True, max_lines=1, weight=1.0, id="home_address",
                     on_click=lambda c: c.push("addresses")), pad=28, gap=16),
            Row(Input("query", hint="Search restaurants or dishes", weight=1.0),
                Button(cuisine or "Filter", style="primary" if cuisine else "secondary", size="small", id="filter",
                       on_click=lambda c: c.menu(filters, title="Cuisine")), pad=28, gap=16),
            Tabs(list(SORTS), sort, id="sort", on_select=lambda c, i: c.replace("home", sort=i, cuisine=cuisine)),
            Scroll(*(cards or [Text("No restaurants match", pad=60, align="center", id="empty")]), id="restaurants",
                   gap=20, pad=24),
            self._basket_bar(ctx),
            self._nav(0))

    def screen_restaurant(self, ctx: Ctx) -> Widget:
        r = _restaurant(ctx, ctx.params.get("id", 1)) or ctx.state["restaurants"][0]
        rows: list[Widget] = []
        for d in r["menu"]:
            did, qty = d["id"], _qty(ctx, d["id"])
            rows.append(Row(Image(desc=d["name"], height=150, width=150, color=COLORS[(did + r["color"]) % len(COLORS)]),
                            Column(Text(d["name"], bold=True, id="dish_name"),
                                   Text(f"{d['sales']} sold", size="tiny", color=(120, 122, 130)),
                                   Text(money(d["price"]), color="danger", bold=True, id="dish_price"), weight=1.0, gap=6),
                            Icon("minus", desc=f"Remove {d['name']}", size=70, id="remove_dish",
                                 on_click=lambda c, did=did: _change(c, did, -1)) if qty else None,
                            Text(str(qty), id="dish_qty") if qty else None,
                            Icon("plus", desc=f"Add {d['name']}", size=70, bg="primary", id="add_dish",
                                 on_click=lambda c, did=did: _change(c, did, 1)),
                            pad=28, gap=20, id="dish"))
        return Column(
            AppBar(r["name"]),
            Scroll(Column(Image(desc=f"{r['name']} banner", height=300, color=COLORS[r["color"]]),
                          Text(f"\u2605 {r['rating']}  \u00b7  {r['cuisine']}  \u00b7  {r['sales']:,} orders", size="small",
                               id="restaurant_info"),
                          Text(f"{r['minutes']} min  \u00b7  {r['km']} km  \u00b7  delivery "
                               f"{money(r['fee']) if r['fee'] else 'free'}  \u00b7  {_minimum(r)}",
                               size="small", color=(120, 122, 130)), pad=28, gap=12),
                   Text("Menu", bold=True, pad=28), *rows, id="menu"),
            self._basket_bar(ctx))

    def screen_basket(self, ctx: Ctx) -> Widget:
        lines = basket_lines(ctx)
        r = _restaurant(ctx, ctx.state["basket"]["restaurant"])
        sub = subtotal(ctx)
        short = round(r["min_order"] - sub, 2) if r else 0.0
        rows: list[Widget] = [Row(Column(Text(line["name"], id="basket_item"), Text(money(line["price"]), size="small"),
                                         weight=1.0, gap=4),
                                  Icon("minus", desc=f"Remove {line['name']}", size=64, id="minus",
                                       on_click=lambda c, did=line["dish"]: _change(c, did, -1)),
                                  Text(str(line["qty"]), id="basket_qty"),
                                  Icon("plus", desc=f"Add {line['name']}", size=64, id="plus",
                                       on_click=lambda c, did=line["dish"]: _change(c, did, 1)), pad=28, gap=16)
                              for line in lines]

        def clear(c: Ctx) -> None:
            c.state["basket"] = {"restaurant": None, "items": []}
            c.toast("Basket cleared")

        def checkout(c: Ctx) -> None:
            if c.require_login():
                c.push("checkout")

        body: list[Widget] = [Text(r["name"], bold=True, pad=28, id="basket_restaurant")] if r else []
        body += rows or [Text("Your basket is empty. Add dishes from a restaurant.", pad=60, align="center", id="empty")]
        if lines and short > 0:
            body.append(Text(f"Add {money(short)} more to reach the {money(r['min_order'])} minimum", size="small",  # type: ignore[index]
                             color="danger", pad=28, id="min_order_note"))
        return Column(
            AppBar("Basket", back=True, actions=[Button("Clear", style="text", id="clear_basket", enabled=bool(lines),
                                                        on_click=lambda c: c.confirm("Clear basket?", "", clear))]),
            Scroll(*body, id="basket_list"),
            Row(Text(f"Subtotal: {money(sub)}", size="title", bold=True, weight=1.0, id="subtotal"),
                Button("Checkout", id="checkout", enabled=bool(lines) and short <= 0, on_click=checkout), pad=28),
            self._nav(1))

    def screen_checkout(self, ctx: Ctx) -> Widget:
        lines = basket_lines(ctx)
        r = _restaurant(ctx, ctx.state["basket"]["restaurant"])
        sub = subtotal(ctx)
        fee = r["fee"] if r else 0.0
        total = round(sub + fee, 2)
        return Column(
            AppBar("Checkout"),
            Scroll(Column(
                Card(Text("Deliver to", size="small", color=(120, 122, 130)),
                     Row(Text(ctx.state["addresses"][ctx.state["address"]], weight=1.0, id="address"),
                         Text("Change", bold=True, color="primary", id="change_address")),
                     on_click=lambda c: c.push("addresses"), id="address_card"),
                Text(r["name"] if r else "", bold=True),
                *[ListItem(line["name"], f"x{line['qty']}", trailing=money(line["price"] * line["qty"]), id="order_line")
                  for line in lines],
                Input("note", hint="Note for the restaurant (optional)"),
                Divider(),
                Row(Text("Subtotal", weight=1.0), Text(money(sub))),
                Row(Text("Delivery fee", weight=1.0), Text(money(fee) if fee else "Free", id="fee")),
                pad=28, gap=20), id="checkout_list"),
            Row(Text(f"Total: {money(total)}", size="title", bold=True, weight=1.0, id="total"),
                Button("Pay", id="pay", enabled=bool(lines),
                       on_click=lambda c: c.push("pay", total=total, note=c.fields.get("note", "").strip())), pad=28))

    def screen_addresses(self, ctx: Ctx) -> Widget:
        def choose(i: int) -> Any:
            def handler(c: Ctx) -> None:
                c.state["address"] = i
                c.toast("Delivery address updated")
                c.pop()
            return handler

        rows = [ListItem(a, "Selected" if i == ctx.state["address"] else "", id="address_option", on_click=choose(i),
                         leading=Icon("check" if i == ctx.state["address"] else "home", desc="Address", size=70,
                                      color="primary"))
                for i, a in enumerate(ctx.state["addresses"])]

        def add(c: Ctx, *_: Any) -> None:
            text = c.fields.get("new_address", "").strip()
            if len(text) < 5:
                c.toast("Enter a full address")
                return
            c.state["addresses"].append(text)
            c.state["address"] = len(c.state["addresses"]) - 1
            c.toast("Address added")
            c.pop()

        return Column(AppBar("Delivery address"), Scroll(*rows, id="addresses_list"),
                      Row(Input("new_address", hint="Add a new address", weight=1.0, on_submit=add),
                          Button("Add", style="secondary", id="add_address", on_click=add), pad=28, gap=16))

    def screen_pay(self, ctx: Ctx) -> Widget:
        total = ctx.params.get("total", round(subtotal(ctx), 2))
        r = _restaurant(ctx, ctx.state["basket"]["restaurant"])
        return Column(
            AppBar("Payment"),
            Scroll(Column(Text(f"Pay {r['name']}" if r else "Pay", size="body", id="pay_merchant"),
                          Text(money(total), size="huge", bold=True, align="center", id="amount"),
                          Text("Enter your 6-digit payment password", size="small"),
                          Input("pay_password", hint="Payment password", password=True, on_submit=_pay),
                          Button("Confirm payment", id="confirm_payment", on_click=_pay),
                          Button("Cancel", style="text", id="cancel", on_click=lambda c: c.pop()),
                          pad=48, gap=32), id="pay_scroll"))

    def screen_orders(self, ctx: Ctx) -> Widget:
        rows: list[Widget] = [ListItem(f"{o['restaurant_name']}  \u00b7  {o['status']}",
                                       ", ".join(f"{line['name']} x{line['qty']}" for line in o["items"]),
                                       trailing=money(o["total"]), id="order",
                                       on_click=lambda c, oid=o["id"]: c.push("order", id=oid))
                              for o in reversed(ctx.state["orders"])]
        return Column(AppBar("Orders", back=False),
                      Scroll(*(rows or [Text("No orders yet", pad=60, align="center", id="empty")]), id="orders_list"),
                      self._nav(2))

    def screen_order(self, ctx: Ctx) -> Widget:
        orders = ctx.state["orders"]
        o = next((x for x in orders if x["id"] == ctx.params.get("id")), orders[-1] if orders else None)
        if o is None:
            return Column(AppBar("Order"), Text("No order to show", pad=60, id="missing"))
        return Column(
            AppBar(f"Order #{o['id']}"),
            Scroll(Column(
                Text(o["status"], size="big", bold=True, id="order_status"),
                Text(f"Arrives in about {o['eta_minutes']} min", id="order_eta"),
                Card(Text(o["restaurant_name"], bold=True, id="order_restaurant"),
                     *[Row(Text(f"{line['name']} x{line['qty']}", weight=1.0), Text(money(line["price"] * line["qty"])))
                       for line in o["items"]],
                     Row(Text("Delivery fee", weight=1.0), Text(money(o["fee"]))),
                     Row(Text("Total", bold=True, weight=1.0), Text(money(o["total"]), bold=True, id="order_total"))),
                Text(f"Deliver to: {o['address']}", size="small", id="order_address"),
                Text(f"Note: {o['note']}", size="small") if o["note"] else None,
                pad=36, gap=24), id="order_scroll"))

    def screen_login(self, ctx: Ctx) -> Widget:
        """The login wall; after logging in it returns to the screen that asked for it (the basket)."""

        def submit(c: Ctx, *_: Any) -> None:
            user, pw = c.fields.get("username", "").strip(), c.fields.get("password", "")
            if not user or not pw:
                c.toast("Enter your account and password")
                return
            c.state["logged_in"] = True
            c.state["user"] = user
            c.effect("login", account=user)
            if len(c.phone.state.stacks[c.app_key]) > 1:  # type: ignore[index]
                c.pop()
            else:
                c.replace(self.home)

        return Column(
            AppBar("Log in to Food"),
            Column(Text("Log in to order", size="big", bold=True),
                   Text("Your orders, addresses and payments in one place", size="small", color=(120, 122, 130)),
                   Input("username", hint="Phone number or email"),
                   Input("password", hint="Password", password=True, on_submit=submit),
                   Button("Log in", on_click=submit, id="login"),
                   pad=48, gap=36))
