"""Shop: a shopping mall app with search, sorting by price or sales, product pages, favourites, cart and paid checkout."""

from __future__ import annotations

import random
from typing import Any

from mobile_r1.sim.apps import App, Ctx, money, new_id, register
from mobile_r1.sim.ui.widgets import (AppBar, Button, Card, Checkbox, Column, Divider, Grid, Icon, Image, Input,
                                      ListItem, Row, Scroll, Tabs, Text, Widget)

CATALOG = {
    "Electronics": ["Wireless Earbuds", "Phone Charger", "Bluetooth Speaker", "USB-C Cable", "Power Bank",
                    "Smart Watch", "Gaming Mouse", "Mechanical Keyboard"],
    "Home": ["Coffee Mug", "Desk Lamp", "Throw Pillow", "Scented Candle", "Water Bottle", "Storage Box"],
    "Fashion": ["Running Shoes", "Cotton T-Shirt", "Denim Jacket", "Wool Scarf", "Baseball Cap", "Backpack"],
    "Food": ["Green Tea", "Dark Chocolate", "Mixed Nuts", "Instant Noodles", "Coffee Beans", "Honey Jar"],
}
BRANDS = ["Acme", "Nova", "Zen", "Pico", "Orbit", "Luma", "Vela", "Kite"]
SORTS = ("Default", "Price", "Sales")
COLORS = [(200, 220, 240), (240, 210, 200), (210, 235, 210), (235, 225, 190), (225, 210, 240), (200, 230, 230)]


def _product(ctx: Ctx, pid: int) -> dict[str, Any] | None:
    return next((p for p in ctx.state["products"] if p["id"] == pid), None)


def _search(ctx: Ctx, query: str) -> list[dict[str, Any]]:
    q = query.strip().lower()
    return [p for p in ctx.state["products"] if q and (q in p["name"].lower() or q in p["category"].lower())]


def _add_to_cart(ctx: Ctx, pid: int, qty: int = 1) -> None:
    for item in ctx.state["cart"]:
        if item["product"] == pid:
            item["qty"] += qty
            break
    else:
        ctx.state["cart"].append({"product": pid, "qty": qty, "selected": True})
    ctx.toast("Added to cart")


def _toggle_fav(ctx: Ctx, pid: int) -> None:
    favs = ctx.state["favorites"]
    if pid in favs:
        favs.remove(pid)
        ctx.toast("Removed from favorites")
    else:
        favs.append(pid)
        ctx.toast("Added to favorites")


def _total(ctx: Ctx, items: list[dict[str, Any]]) -> float:
    return round(sum(_product(ctx, i["product"])["price"] * i["qty"] for i in items), 2)  # type: ignore[index]


def _checkout_items(ctx: Ctx) -> list[dict[str, Any]]:
    buy_now = ctx.params.get("buy_now")
    if buy_now is not None:
        return [{"product": buy_now, "qty": ctx.params.get("qty", 1), "selected": True}]
    return [i for i in ctx.state["cart"] if i["selected"]]


def _pay(ctx: Ctx, *_: Any) -> None:
    password = ctx.fields.get("pay_password", "")
    if password != ctx.state["payment_password"]:
        ctx.state["failed_payments"] += 1
        ctx.set_field("pay_password", "")
        ctx.toast("Wrong payment password")
        return
    items = ctx.params.get("items") or []
    total = ctx.params.get("total", 0.0)
    order = {"id": new_id(ctx.state["orders"]), "items": items, "total": total, "status": "Paid",
             "address": ctx.state["address"]}
    ctx.state["orders"].append(order)
    if not ctx.params.get("buy_now"):
        bought = {i["product"] for i in items}
        ctx.state["cart"] = [i for i in ctx.state["cart"] if i["product"] not in bought]
    for i in items:
        p = _product(ctx, i["product"])
        if p is not None:
            p["sales"] += i["qty"]
    ctx.effect("payment", order=order["id"], amount=total, items=[dict(i) for i in items], merchant="Shop")
    ctx.reset_to("home")
    ctx.push("order_done", order=order["id"])


@register
class Shop(App):
    name = "Shop"
    names = {"zh": "商城"}
    package = "com.sim.shop"
    aliases = ("shopping", "mall", "store", "taobao", "shopee", "amazon")
    color = "#ff5722"
    icon = "cart"

    def initial_state(self, rng: random.Random) -> dict[str, Any]:
        products = []
        for category, names in CATALOG.items():
            for name in names:
                products.append({"name": f"{rng.choice(BRANDS)} {name}", "category": category,
                                 "price": round(rng.uniform(3, 150), 2), "sales": rng.randint(5, 20000),
                                 "rating": round(rng.uniform(3.5, 5.0), 1), "color": rng.randrange(len(COLORS))})
        rng.shuffle(products)
        for i, p in enumerate(products):
            p["id"] = i + 1
        return {"products": products, "cart": [], "favorites": [], "orders": [], "history": [],
                "payment_password": "".join(rng.choice("0123456789") for _ in range(6)),
                "address": rng.choice(["12 Oak Street, Springfield", "88 River Road, Lakeside", "5 Hill Lane, Westwood"]),
                "failed_payments": 0}

    def _card(self, p: dict[str, Any]) -> Widget:
        pid = p["id"]
        return Card(Image(desc=p["name"], height=260, color=COLORS[p["color"]]),
                    Text(p["name"], size="small", max_lines=2, id="product_name"),
                    Text(money(p["price"]), size="body", bold=True, color="danger", id="price"),
                    Text(f"{p['sales']:,} sold", size="tiny", color=(120, 122, 130)),
                    on_click=lambda c: c.push("product", id=pid), id="product", pad=20, gap=8)

    def _nav(self, selected: int) -> Widget:
        screens = ("home", "cart", "favorites", "orders")
        return Tabs(["Home", "Cart", "Favorites", "Orders"], selected, icons=["home", "cart", "heart", "list"],
                    on_select=lambda c, i: c.reset_to(screens[i]) if i != selected else None, id="bottom_nav")

    def screen_home(self, ctx: Ctx) -> Widget:
        cats = list(CATALOG)
        cat = ctx.params.get("category", 0)
        shown = [p for p in ctx.state["products"] if p["category"] == cats[cat]][:8]
        return Column(
            Row(Text("Shop", size="title", bold=True, color="primary"),
                Text("Search products", size="body", color=(130, 132, 140), bg="surface", pad=24, radius=40,
                     weight=1.0, id="search_box", on_click=lambda c: c.push("search")),
                Icon("cart", desc="Cart", size=80, id="cart", on_click=lambda c: c.push("cart")), pad=28, gap=24),
            Tabs(cats, cat, on_select=lambda c, i: c.replace("home", category=i), id="categories"),
            Scroll(Grid(*[self._card(p) for p in shown], cols=2, gap=24, pad=28), id="feed"),
            self._nav(0),
        )

    def screen_search(self, ctx: Ctx) -> Widget:
        query = ctx.params.get("query", "")
        sort = ctx.params.get("sort", 0)
        results = _search(ctx, query)
        if sort == 1:
            results.sort(key=lambda p: (p["price"], p["id"]))
        elif sort == 2:
            results.sort(key=lambda p: (-p["sales"], p["id"]))

        def submit(c: Ctx, text: str) -> None:
            if not text.strip():
                c.toast("Type something to search")
                return
            c.state["history"] = ([text.strip()] + [h for h in c.state["history"] if h != text.strip()])[:8]
            c.replace("search", loading=1.0, query=text.strip(), sort=0)
            c.set_field("query", text.strip())

        body: list[Widget]
        if not query:
            body = [Text("Recent searches", size="small", color=(120, 122, 130), pad=36)] + [
                ListItem(h, id="history_item", on_click=lambda c, h=h: submit(c, h)) for h in ctx.state["history"]]
        elif not results:
            body = [Text(f"No results for '{query}'", pad=60)]
        else:
            body = [ListItem(p["name"], f"{money(p['price'])}  \u00b7  {p['sales']:,} sold  \u00b7  \u2605 {p['rating']}",
                             id="result", leading=Image(desc=p["name"], height=150, width=150, color=COLORS[p["color"]]),
                             on_click=lambda c, pid=p["id"]: c.push("product", id=pid)) for p in results]
        return Column(
            Row(Icon("back", desc="Navigate up", size=80, on_click=lambda c: c.back(), id="navigate_up"),
                Input("query", hint="Search products", value=query, on_submit=submit, weight=1.0),
                Button("Search", style="text", id="search_button",
                       on_click=lambda c: submit(c, c.fields.get("query", query))), pad=28, gap=20),
            Tabs(list(SORTS), sort, on_select=lambda c, i: c.replace("search", query=query, sort=i), id="sort")
            if query else None,
            Scroll(*body, id="results"),
        )

    def screen_product(self, ctx: Ctx) -> Widget:
        p = _product(ctx, ctx.params.get("id", 1)) or ctx.state["products"][0]
        pid = p["id"]
        fav = pid in ctx.state["favorites"]
        qty = ctx.params.get("qty", 1)
        return Column(
            AppBar("Product", actions=[Icon("share", desc="Share", size=80, id="share",
                                            on_click=lambda c: c.toast("Link copied"))]),
            Scroll(Column(
                Image(desc=p["name"], height=700, color=COLORS[p["color"]]),
                Row(Text(money(p["price"]), size="big", bold=True, color="danger", id="price", weight=1.0),
                    Icon("heart_filled" if fav else "heart", desc="Unfavorite" if fav else "Favorite", size=90,
                         color="danger", id="favorite", selected=fav, on_click=lambda c: _toggle_fav(c, pid))),
                Text(p["name"], size="title", bold=True, id="product_title"),
                Text(f"{p['sales']:,} sold  \u00b7  rating {p['rating']}  \u00b7  {p['category']}", size="small",
                     color=(120, 122, 130)),
                Divider(),
                Row(Text("Quantity", weight=1.0),
                    Icon("minus", desc="Decrease quantity", size=70, id="qty_minus", enabled=qty > 1,
                         on_click=lambda c: c.replace("product", id=pid, qty=max(1, qty - 1))),
                    Text(str(qty), size="title", id="quantity"),
                    Icon("plus", desc="Increase quantity", size=70, id="qty_plus",
                         on_click=lambda c: c.replace("product", id=pid, qty=qty + 1))),
                Text("Free delivery in 2-3 days. 7-day returns.", size="small", color=(120, 122, 130)),
                pad=36, gap=28), id="product_scroll"),
            Row(Button("Add to cart", style="secondary", id="add_to_cart", weight=1.0,
                       on_click=lambda c: _add_to_cart(c, pid, qty)),
                Button("Buy now", id="buy_now", weight=1.0,
                       on_click=lambda c: c.push("checkout", buy_now=pid, qty=qty) if c.require_login() else None),
                pad=28, gap=24),
        )

    def screen_cart(self, ctx: Ctx) -> Widget:
        cart = ctx.state["cart"]

        def select(index: int) -> Any:
            def handler(c: Ctx, value: bool) -> None:
                c.state["cart"][index]["selected"] = value
            return handler

        def change(index: int, delta: int) -> Any:
            def handler(c: Ctx) -> None:
                item = c.state["cart"][index]
                item["qty"] += delta
                if item["qty"] <= 0:
                    c.state["cart"].pop(index)
                    c.toast("Removed from cart")
            return handler

        rows: list[Widget] = []
        for i, item in enumerate(cart):
            p = _product(ctx, item["product"])
            if p is None:
                continue
            rows.append(Row(Checkbox("", item["selected"], select(i), id="select_item"),
                            Column(Text(p["name"], max_lines=1, id="item_name"),
                                   Text(money(p["price"]), bold=True, color="danger"), weight=1.0, gap=6),
                            Icon("minus", desc=f"Decrease {p['name']}", size=64, on_click=change(i, -1), id="minus"),
                            Text(str(item["qty"]), id="item_qty"),
                            Icon("plus", desc=f"Increase {p['name']}", size=64, on_click=change(i, 1), id="plus"),
                            pad=28, gap=16, id="cart_item"))
        selected = [i for i in cart if i["selected"]]
        total = _total(ctx, selected)
        if not rows:
            rows = [Text("Your cart is empty", pad=80, align="center")]
        return Column(
            AppBar(f"Cart ({len(cart)})", back=True),
            Scroll(*rows, id="cart_list"),
            Row(Text(f"Total: {money(total)}", size="title", bold=True, weight=1.0, id="total"),
                Button("Checkout", id="checkout", enabled=bool(selected),
                       on_click=lambda c: c.push("checkout") if c.require_login() else None), pad=28),
            self._nav(1),
        )

    def screen_checkout(self, ctx: Ctx) -> Widget:
        items = _checkout_items(ctx)
        total = _total(ctx, items)
        rows = [ListItem(_product(ctx, i["product"])["name"], f"x{i['qty']}",  # type: ignore[index]
                         trailing=money(_product(ctx, i["product"])["price"] * i["qty"]), id="order_item")  # type: ignore[index]
                for i in items]
        buy_now = ctx.params.get("buy_now")
        return Column(
            AppBar("Confirm order"),
            Scroll(Card(Text("Deliver to", size="small", color=(120, 122, 130)), Text(ctx.state["address"], id="address")),
                   *rows,
                   Card(Text("Payment", size="small", color=(120, 122, 130)), Text("Shop Pay balance", id="payment_method")),
                   id="checkout_list", gap=24, pad=28),
            Row(Text(f"Total: {money(total)}", size="title", bold=True, weight=1.0, id="total"),
                Button("Place order", id="place_order", enabled=bool(items),
                       on_click=lambda c: c.push("pay", items=[dict(i) for i in items], total=total,
                                                 buy_now=buy_now)), pad=28),
        )

    def screen_pay(self, ctx: Ctx) -> Widget:
        total = ctx.params.get("total", 0.0)
        return Column(
            AppBar("Payment"),
            Column(Text("Enter your 6-digit payment password", size="body"),
                   Text(money(total), size="huge", bold=True, align="center", id="amount"),
                   Input("pay_password", hint="Payment password", password=True, on_submit=_pay),
                   Button("Confirm payment", id="confirm_payment", on_click=_pay),
                   Button("Forgot password?", style="text", id="forgot",
                          on_click=lambda c: c.dialog("Reset password", "Contact support to reset your payment password.")),
                   pad=48, gap=36),
        )

    def screen_order_done(self, ctx: Ctx) -> Widget:
        orders = ctx.state["orders"]
        order = next((o for o in orders if o["id"] == ctx.params.get("order")), orders[-1] if orders else None)
        text = f"Order #{order['id']} paid: {money(order['total'])}" if order else "No order"
        return Column(AppBar("Payment successful"),
                      Column(Icon("check", desc="Success", size=200, bg="primary"),
                             Text(text, size="title", align="center", id="order_summary"),
                             Button("View orders", id="view_orders", on_click=lambda c: c.reset_to("orders")),
                             Button("Continue shopping", style="secondary", id="continue",
                                    on_click=lambda c: c.reset_to("home")),
                             pad=60, gap=40, align="center"))

    def screen_orders(self, ctx: Ctx) -> Widget:
        rows = [ListItem(f"Order #{o['id']}  \u00b7  {o['status']}",
                         ", ".join(_product(ctx, i["product"])["name"] for i in o["items"]),  # type: ignore[index]
                         trailing=money(o["total"]), id="order")
                for o in reversed(ctx.state["orders"])] or [Text("No orders yet", pad=80, align="center")]
        return Column(AppBar("My orders", back=True), Scroll(*rows, id="orders_list"), self._nav(3))

    def screen_favorites(self, ctx: Ctx) -> Widget:
        favs = [p for pid in ctx.state["favorites"] if (p := _product(ctx, pid)) is not None]
        rows = [ListItem(p["name"], money(p["price"]), id="favorite_item",
                         on_click=lambda c, pid=p["id"]: c.push("product", id=pid)) for p in favs]
        return Column(AppBar("Favorites", back=True),
                      Scroll(*(rows or [Text("No favorites yet", pad=80, align="center")]), id="favorites_list"),
                      self._nav(2))
