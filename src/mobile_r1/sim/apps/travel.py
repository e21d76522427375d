"""Travel apps (Trip.com, Ctrip): search flights between any two cities, one-way or round trip, economy or business,
sort the results by price, duration or rating, and buy a ticket with the payment password.

The search form needs a departure date (and a return date for a round trip), which a task line never gives: only the
traveller knows it, so the agent asks (InquireBench's "combination": the date, then the payment).

Search answers any route: `flights(state, origin, destination, cabin=..., trip=...)` generates the flights from the
cities and the app's catalog seed, a pure function a judge can call. Prices, durations and ratings differ between the
flights of one search, so "the cheapest", "the shortest" and "the highest rated" are one flight each.

State (a judge reads it by path, e.g. `trip.form.date`, `ctrip.orders[*].flight`):
  catalog      {"seed", "locale", "currency"}: what `flights` draws from
  form         the search form: {"from", "to", "trip" (one_way | round), "cabin" (economy | business), "date", "back"}
  dates        the departure dates the calendar offers (labels as the phone's language writes them)
  searches     every search run, in order: {"from", "to", "trip", "cabin", "date", "back"}
  viewed       ids of the flights whose page was opened, in order
  orders       [{"id", "flight", "from", "to", "trip", "cabin", "date", "back", "airline", "number", "amount",
               "currency", "passenger"}]: what was bought
  targets      flights a task's set-up named (`setup_target`)
  payment_password, passenger, failed_payments
Effects: `payment` (order, flight, from, to, trip, cabin, date, back, airline, number, amount, currency).
"""

from __future__ import annotations

import hashlib
import random
from functools import lru_cache
from typing import Any, ClassVar, Mapping

from mobile_r1.sim.apps import App, Ctx, new_id, register
from mobile_r1.sim.apps._search import sort_chips
from mobile_r1.sim.locale import money as format_money
from mobile_r1.sim.ui.widgets import (AppBar, Button, Column, Divider, Grid, Icon, Input, ListItem, Row, Scroll, Tabs,
                                      Text, Widget)

GREY = (120, 122, 130)
SORTS = ("default", "price", "duration", "rating")  # the results screen's `sort` param indexes this
TRIPS = ("one_way", "round")
CABINS = ("economy", "business")
AIRLINES = (("Air China", "中国国航", "CA"), ("China Eastern", "东方航空", "MU"), ("China Southern", "南方航空", "CZ"),
            ("Singapore Airlines", "新加坡航空", "SQ"), ("Emirates", "阿联酋航空", "EK"), ("Qatar Airways", "卡塔尔航空", "QR"),
            ("Thai Airways", "泰国航空", "TG"), ("AirAsia", "亚洲航空", "AK"), ("Cathay Pacific", "国泰航空", "CX"),
            ("British Airways", "英国航空", "BA"))  # (English name, Chinese name, IATA code)
MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def normalize_city(city: str) -> str:
    """The form flights are keyed by: spaces collapsed, case folded."""
    return " ".join(city.split()).casefold()


def date_label(month: int, day: int, locale: str) -> str:
    """A calendar day as the app writes it: 'Dec 5' or '12月5日'."""
    return f"{month}月{day}日" if locale == "zh" else f"{MONTHS[month - 1]} {day}"


@lru_cache(maxsize=512)
def _generate(seed: int, locale: str, currency: str, origin: str, destination: str, cabin: str,
              trip: str) -> tuple[tuple[tuple[str, Any], ...], ...]:
    rng = random.Random(f"{seed}|{locale}|{origin}|{destination}|{cabin}")
    lang = "zh" if locale == "zh" else "en"
    key = hashlib.sha1(f"{origin}|{destination}|{cabin}|{trip}".encode()).hexdigest()[:8]
    base = rng.uniform(1800, 6500) if currency == "CNY" else rng.uniform(280, 1100)
    factor = 3.2 if cabin == "business" else 1.0
    prices: set[int] = set()
    durations: set[int] = set()
    ratings: set[float] = set()
    out = []
    for i in range(rng.randint(6, 9)):
        english, chinese, code = rng.choice(AIRLINES)
        airline = chinese if lang == "zh" else english
        stops = rng.choice((0, 0, 1, 1, 2))
        duration = rng.randint(180, 540) + stops * rng.randint(90, 240)
        while duration in durations:
            duration += 5
        durations.add(duration)
        price = int(base * factor * rng.uniform(0.7, 1.6) * (1.8 if trip == "round" else 1.0))
        while price in prices:
            price += 7
        prices.add(price)
        rating = round(rng.uniform(3.6, 4.9), 1)
        while rating in ratings and len(ratings) < 14:
            rating = round(rating - 0.1 if rating > 3.1 else rating + 1.3, 1)
        ratings.add(rating)
        hour, minute = rng.randint(0, 23), rng.choice((0, 5, 15, 20, 30, 35, 45, 50))
        end = hour * 60 + minute + duration
        flight = {"id": f"{key}-{i + 1}", "airline": airline, "number": f"{code}{rng.randint(100, 989)}",
                  "depart": f"{hour:02d}:{minute:02d}", "arrive": f"{end // 60 % 24:02d}:{end % 60:02d}",
                  "next_day": end >= 24 * 60, "duration_minutes": duration, "stops": stops, "price": float(price),
                  "rating": rating, "cabin": cabin, "trip": trip}
        out.append(tuple(flight.items()))
    return tuple(out)


def flights(source: Mapping[str, Any] | int, origin: str, destination: str, *, cabin: str = "economy",
            trip: str = "one_way", locale: str = "zh", currency: str = "CNY") -> list[dict[str, Any]]:
    """The flights a search from `origin` to `destination` shows, in the default (recommended) order.

    `source` is a travel app's state (its `catalog` gives seed, locale and currency) or a bare catalog seed with
    `locale` and `currency`.
    Deterministic, and the same for every spacing and case of the cities; each flight has id, airline, number, depart,
    arrive, next_day, duration_minutes, stops, price (the whole trip: both ways for a round trip), rating, cabin, trip.
    Empty cities give [].
    """
    o, d = normalize_city(origin), normalize_city(destination)
    if not o or not d:
        return []
    if cabin not in CABINS or trip not in TRIPS:
        raise ValueError(f"cabin must be one of {CABINS} and trip one of {TRIPS}")
    if isinstance(source, Mapping):
        cat = source["catalog"]
        seed, locale, currency = int(cat["seed"]), cat["locale"], cat["currency"]
    else:
        seed = int(source)
    return [dict(items) for items in _generate(seed, locale, currency, o, d, cabin, trip)]


def sort_flights(found: list[dict[str, Any]], order: str) -> list[dict[str, Any]]:
    """Flights as the results screen shows them for a sort order: default, price, duration or rating."""
    if order == "price":
        return sorted(found, key=lambda f: (f["price"], f["id"]))
    if order == "duration":
        return sorted(found, key=lambda f: (f["duration_minutes"], f["id"]))
    if order == "rating":
        return sorted(found, key=lambda f: (-f["rating"], f["price"], f["id"]))
    return list(found)


def duration_text(ctx: Ctx, minutes: int) -> str:
    return ctx.t("{h}h {m}m", h=minutes // 60, m=minutes % 60)


# ----- handlers ------------------------------------------------------------------------------------------------------
def _set(field: str) -> Any:
    def keep(ctx: Ctx, text: str) -> None:
        ctx.state["form"][field] = " ".join(text.split())
    return keep


def _search(ctx: Ctx, *_: Any) -> None:
    form = ctx.state["form"]
    if not form["from"] or not form["to"]:
        ctx.toast("Enter where you fly from and to")
        return
    if not form["date"]:
        ctx.toast("Choose a departure date")
        return
    if form["trip"] == "round" and not form["back"]:
        ctx.toast("Choose a return date")
        return
    ctx.state["searches"].append(dict(form))
    ctx.push("results", sort=0)


def _pick_date(ctx: Ctx, which: str, label: str) -> None:
    form = ctx.state["form"]
    form[which] = label
    if which == "date" and form["back"] and ctx.state["dates"].index(form["back"]) < ctx.state["dates"].index(label):
        form["back"] = ""
    ctx.pop()


def _find(state: Mapping[str, Any], fid: Any) -> dict[str, Any] | None:
    form = state["form"]
    return next((f for f in flights(state, form["from"], form["to"], cabin=form["cabin"], trip=form["trip"])
                 if f["id"] == fid), None)


def _open_flight(ctx: Ctx, flight: dict[str, Any]) -> None:
    ctx.state["viewed"].append(flight["id"])
    ctx.push("flight", id=flight["id"])


def _pay(ctx: Ctx, *_: Any) -> None:
    s = ctx.state
    if ctx.fields.get("pay_password", "") != s["payment_password"]:
        s["failed_payments"] += 1
        ctx.set_field("pay_password", "")
        ctx.toast("Wrong payment password")
        return
    flight = _find(s, ctx.params.get("id"))
    if flight is None:
        ctx.toast("This flight is no longer available")
        return
    form, currency = s["form"], s["catalog"]["currency"]
    order = {"id": new_id(s["orders"]), "flight": flight["id"], "from": form["from"], "to": form["to"],
             "trip": form["trip"], "cabin": form["cabin"], "date": form["date"],
             "back": form["back"] if form["trip"] == "round" else "", "airline": flight["airline"],
             "number": flight["number"], "amount": flight["price"], "currency": currency, "passenger": s["passenger"]}
    s["orders"].append(order)
    ctx.effect("payment", order=order["id"], flight=flight["id"], **{"from": order["from"]}, to=order["to"],
               trip=order["trip"], cabin=order["cabin"], date=order["date"], back=order["back"],
               airline=order["airline"], number=order["number"], amount=order["amount"], currency=currency)
    ctx.reset_to("home")
    ctx.push("done", order=order["id"])


class TravelApp(App):
    """The travel engine. A subclass gives the identity (name, names, package, colour, icon, currency) and its own
    words in `strings`; `first_month` and `first_day` start the calendar it offers."""

    archetype = "travel"
    gallery = ("home", "dates", "results", "flight", "book")
    first_month: ClassVar[int] = 12
    first_day: ClassVar[int] = 1
    days: ClassVar[int] = 14
    strings: ClassVar[dict[str, dict[str, str]]] = {"zh": {
        "Flights": "机票", "One-way": "单程", "Round-trip": "往返", "From": "出发城市", "To": "到达城市",
        "Departure date": "出发日期", "Return date": "返程日期", "Choose": "请选择", "Economy": "经济舱",
        "Business": "商务舱", "Search flights": "搜索机票", "Enter where you fly from and to": "请填写出发和到达城市",
        "Choose a departure date": "请选择出发日期", "Choose a return date": "请选择返程日期",
        "Recommended": "推荐排序", "Lowest price": "低价优先", "Shortest": "耗时最短", "Top rated": "评分最高",
        "Sort by recommendation": "按推荐排序", "Sort by price, low to high": "按价格从低到高排序",
        "Sort by duration": "按飞行时长排序", "Sort by rating": "按评分排序", "Nonstop": "直飞",
        "{n} stop(s)": "经停{n}次", "{h}h {m}m": "{h}小时{m}分", "+1 day": "+1天", "Flight details": "航班详情",
        "Airline": "航空公司", "Flight": "航班号", "Duration": "飞行时长", "Stops": "经停", "Rating": "评分",
        "Cabin": "舱位", "Price": "价格", "Book": "预订", "Booking": "预订", "Passenger": "乘机人", "Trip": "行程",
        "Total": "总价", "Pay now": "去支付", "Payment": "支付", "Enter your 6-digit payment password":
        "请输入 6 位支付密码", "Payment password": "支付密码", "Confirm payment": "确认支付",
        "Wrong payment password": "支付密码错误", "This flight is no longer available": "该航班已售罄",
        "Booking confirmed": "预订成功", "Back to home": "返回首页", "My trips": "我的行程", "No trips yet": "还没有行程",
        "Home": "首页", "Me": "我的", "{a} → {b}": "{a} → {b}", "Round trip price": "往返总价",
        "Choose a date": "选择日期", "No flights": "没有航班", "Deals": "特价", "Swap": "交换",
        "{date} → {back}": "{date} → {back}", "Hello, {user}": "你好，{user}",
    }}

    def __init_subclass__(cls, **kw: Any) -> None:
        """A subclass's own `strings` are laid over the engine's (so each app's table holds only its own words)."""
        super().__init_subclass__(**kw)
        own = cls.__dict__.get("strings")
        if own is not None:
            base = TravelApp.strings
            cls.strings = {loc: {**base.get(loc, {}), **own.get(loc, {})} for loc in {*base, *own}}

    def initial_state(self, rng: random.Random) -> dict[str, Any]:
        lang = "zh" if self.locale == "zh" else "en"
        dates = [date_label(self.first_month, self.first_day + i, lang) for i in range(self.days)]
        passenger = rng.choice(("张伟", "王芳", "李娜", "刘洋") if lang == "zh" else
                               ("Alex Chen", "Sam Lee", "Jordan Wu", "Taylor Lin"))
        return {"catalog": {"seed": rng.randrange(1 << 30), "locale": lang, "currency": self.currency},
                "form": {"from": "", "to": "", "trip": "one_way", "cabin": "economy", "date": "", "back": ""},
                "dates": dates, "searches": [], "viewed": [], "orders": [], "targets": {},
                "payment_password": "".join(rng.choice("0123456789") for _ in range(6)), "passenger": passenger,
                "failed_payments": 0}

    # ----- set-up hooks a task calls to make the phone fit its line ------------------------------------------------
    def setup_payment_password(self, ctx: Ctx, password: str) -> None:
        """Set the 6-digit payment password the pay screen accepts."""
        ctx.state["payment_password"] = str(password)

    def setup_target(self, ctx: Ctx, name: str, origin: str, destination: str, cabin: str = "economy",
                     trip: str = "one_way", by: str = "price") -> dict[str, Any]:
        """Record in `targets[name]` the flight a task names among those from `origin` to `destination`: the first as
        the results screen sorts them by `by` (`price`: the cheapest, `duration`: the shortest, `rating`: the highest
        rated, `default`). Returns the flight."""
        if by not in SORTS:
            raise ValueError(f"setup_target: by must be one of {', '.join(SORTS)}, not {by!r}")
        found = sort_flights(flights(ctx.state, origin, destination, cabin=cabin, trip=trip), by)
        if not found:
            raise ValueError(f"setup_target: no flight from {origin!r} to {destination!r}")
        ctx.state["targets"][name] = dict(found[0])
        return dict(found[0])

    def gallery_setup(self, ctx: Ctx) -> dict[str, dict[str, Any]]:
        """The gallery's phone: the form filled for a one-way flight and the first flight chosen."""
        zh = ctx.state["catalog"]["locale"] == "zh"
        ctx.state["form"].update({"from": "北京" if zh else "New York", "to": "兰卡威" if zh else "Langkawi",
                                  "date": ctx.state["dates"][4]})
        form = ctx.state["form"]
        first = flights(ctx.state, form["from"], form["to"])[0]
        return {"results": {"sort": 1}, "flight": {"id": first["id"]}, "book": {"id": first["id"]},
                "pay": {"id": first["id"]}, "dates": {"which": "date"}}

    # ----- pieces of screens ---------------------------------------------------------------------------------------
    def _money(self, ctx: Ctx, value: float) -> str:
        return format_money(value, ctx.state["catalog"]["currency"])

    def _nav(self, selected: int) -> Widget:
        screens = ("home", "me")
        return Tabs(["Home", "Me"], selected, icons=["home", "user"], id="bottom_nav",
                    on_select=lambda c, i: c.reset_to(screens[i]) if i != selected else None)

    def _chip(self, label: str, on: bool, id: str, handler: Any) -> Widget:
        return Text(label, bold=on, selected=on, color=(255, 255, 255) if on else None, bg="primary" if on else "surface",
                    pad=20, radius=16, align="center", weight=1.0, id=id, on_click=handler)

    def _flight_row(self, ctx: Ctx, f: dict[str, Any]) -> Widget:
        stops = ctx.t("Nonstop") if f["stops"] == 0 else ctx.t("{n} stop(s)", n=f["stops"])
        times = f"{f['depart']} → {f['arrive']}" + (f" {ctx.t('+1 day')}" if f["next_day"] else "")
        facts = "  \u00b7  ".join([duration_text(ctx, f["duration_minutes"]), stops, f"\u2605 {f['rating']}"])
        return Row(Icon(f["airline"][:1], desc=f["airline"], size=100, bg="primary"),
                   Column(Text(times, bold=True, id="flight_times"),
                          Text(f"{f['airline']} {f['number']}", size="small", id="flight_name"),
                          Text(facts, size="small", color=GREY, id="flight_facts"), gap=6, weight=1.0),
                   Text(self._money(ctx, f["price"]), bold=True, color="danger", id="flight_price"),
                   pad=28, gap=20, id="flight", on_click=lambda c, f=f: _open_flight(c, f))

    # ----- screens ---------------------------------------------------------------------------------------------------
    def screen_home(self, ctx: Ctx) -> Widget:
        form = ctx.state["form"]
        trip = TRIPS.index(form["trip"])

        def set_trip(c: Ctx, i: int) -> None:
            c.state["form"]["trip"] = TRIPS[i]

        def set_cabin(c: Ctx, cabin: str) -> None:
            c.state["form"]["cabin"] = cabin

        rows: list[Widget | None] = [
            Tabs(["One-way", "Round-trip"], trip, id="trip_type", on_select=set_trip),
            Input("from", hint="From", value=form["from"], on_text=_set("from"), on_submit=lambda c, t: None),
            Input("to", hint="To", value=form["to"], on_text=_set("to"), on_submit=lambda c, t: None),
            ListItem("Departure date", trailing=form["date"] or ctx.t("Choose"), id="departure_date",
                     on_click=lambda c: c.push("dates", which="date")),
            ListItem("Return date", trailing=form["back"] or ctx.t("Choose"), id="return_date",
                     on_click=lambda c: c.push("dates", which="back")) if form["trip"] == "round" else None,
            Row(*[self._chip(label, form["cabin"] == cabin, f"cabin_{cabin}",
                             lambda c, cabin=cabin: set_cabin(c, cabin))
                  for cabin, label in (("economy", "Economy"), ("business", "Business"))], gap=16),
            Button("Search flights", icon="search", id="search_flights", on_click=_search),
        ]
        return Column(AppBar("Flights", back=False),
                      Scroll(Column(*rows, pad=36, gap=28), id="flight_form"),
                      self._nav(0))

    def screen_dates(self, ctx: Ctx) -> Widget:
        which = ctx.params.get("which", "date")
        form = ctx.state["form"]
        dates = ctx.state["dates"]
        first = dates.index(form["date"]) if which == "back" and form["date"] in dates else 0
        chips = [self._chip(label, form[which] == label, "date", lambda c, label=label: _pick_date(c, which, label))
                 for label in dates[first:]]
        return Column(AppBar("Departure date" if which == "date" else "Return date"),
                      Scroll(Column(Text("Choose a date", size="small", color=GREY),
                                    Grid(*chips, cols=4, gap=16), pad=36, gap=24), id="calendar"))

    def screen_results(self, ctx: Ctx) -> Widget:
        form = ctx.state["form"]
        sort = int(ctx.params.get("sort", 0))
        found = sort_flights(flights(ctx.state, form["from"], form["to"], cabin=form["cabin"], trip=form["trip"]),
                             SORTS[sort])
        labels = (("Recommended", "Sort by recommendation"), ("Lowest price", "Sort by price, low to high"),
                  ("Shortest", "Sort by duration"), ("Top rated", "Sort by rating"))
        sort_row = sort_chips(labels, SORTS, sort, lambda c, i: c.replace("results", sort=i))
        when = form["date"] if form["trip"] == "one_way" else ctx.t("{date} → {back}", date=form["date"],
                                                                    back=form["back"])
        cabin = ctx.t("Business" if form["cabin"] == "business" else "Economy")
        return Column(
            AppBar(ctx.t("{a} → {b}", a=form["from"], b=form["to"])),
            Text(f"{when}  \u00b7  {cabin}", size="small", color=GREY, pad=24, id="search_summary"),
            sort_row, Divider(),
            Scroll(*([self._flight_row(ctx, f) for f in found] or [Text("No flights", pad=60)]), id="flights"))

    def screen_flight(self, ctx: Ctx) -> Widget:
        f = _find(ctx.state, ctx.params.get("id"))
        if f is None:
            return Column(AppBar("Flight details"), Text("This flight is no longer available", pad=60))
        stops = ctx.t("Nonstop") if f["stops"] == 0 else ctx.t("{n} stop(s)", n=f["stops"])
        form = ctx.state["form"]
        return Column(
            AppBar("Flight details"),
            Scroll(Column(Text(ctx.t("{a} → {b}", a=form["from"], b=form["to"]), size="big", bold=True,
                               id="flight_title"),
                          Text(f"{f['depart']} → {f['arrive']}", size="title", id="flight_times"), pad=36, gap=12),
                   Divider(),
                   ListItem("Airline", trailing=f["airline"], id="flight_airline"),
                   ListItem("Flight", trailing=f["number"], id="flight_number"),
                   ListItem("Duration", trailing=duration_text(ctx, f["duration_minutes"]), id="flight_duration"),
                   ListItem("Stops", trailing=stops, id="flight_stops"),
                   ListItem("Rating", trailing=f"\u2605 {f['rating']}", id="flight_rating"),
                   ListItem("Cabin", trailing=ctx.t("Business" if f["cabin"] == "business" else "Economy"),
                            id="flight_cabin"),
                   id="flight_scroll"),
            Row(Column(Text(self._money(ctx, f["price"]), size="title", bold=True, color="danger", id="price"),
                       Text("Round trip price" if f["trip"] == "round" else "Price", size="small", color=GREY),
                       weight=1.0, gap=4),
                Button("Book", id="book", on_click=lambda c, fid=f["id"]: c.push("book", id=fid)), pad=28))

    def screen_book(self, ctx: Ctx) -> Widget:
        f = _find(ctx.state, ctx.params.get("id"))
        if f is None:
            return Column(AppBar("Booking"), Text("This flight is no longer available", pad=60))
        form = ctx.state["form"]
        when = form["date"] if form["trip"] == "one_way" else ctx.t("{date} → {back}", date=form["date"],
                                                                    back=form["back"])
        return Column(
            AppBar("Book"),
            Scroll(ListItem("Trip", f"{ctx.t('{a} → {b}', a=form['from'], b=form['to'])}  \u00b7  {when}",
                            id="book_trip"),
                   ListItem("Flight", f"{f['airline']} {f['number']}  {f['depart']} → {f['arrive']}", id="book_flight"),
                   ListItem("Passenger", ctx.state["passenger"], id="book_passenger",
                            leading=Icon("user", desc="Passenger", size=80, bg="primary")),
                   id="book_scroll"),
            Row(Column(Text("Total", size="small", color=GREY),
                       Text(self._money(ctx, f["price"]), size="title", bold=True, color="danger", id="total"),
                       weight=1.0, gap=4),
                Button("Pay now", id="pay_now", on_click=lambda c, fid=f["id"]: c.push("pay", id=fid)), pad=28))

    def screen_pay(self, ctx: Ctx) -> Widget:
        f = _find(ctx.state, ctx.params.get("id"))
        amount = self._money(ctx, f["price"]) if f else ""
        return Column(
            AppBar("Payment"),
            Column(Text(f"{f['airline']} {f['number']}" if f else "", size="title", bold=True, align="center",
                        id="pay_flight"),
                   Text(amount, size="huge", bold=True, align="center", id="amount"),
                   Text("Enter your 6-digit payment password"),
                   Input("pay_password", hint="Payment password", password=True, on_submit=_pay),
                   Button("Confirm payment", id="confirm_payment", on_click=_pay), pad=48, gap=30))

    def screen_done(self, ctx: Ctx) -> Widget:
        orders = ctx.state["orders"]
        order = next((o for o in orders if o["id"] == ctx.params.get("order")), orders[-1] if orders else None)
        return Column(AppBar("Booking confirmed", back=False),
                      Column(Icon("check", desc="Booking confirmed", size=200, bg="primary"),
                             Text(ctx.t("{a} → {b}", a=order["from"], b=order["to"]) if order else "", size="title",
                                  align="center", id="done_trip"),
                             Text(f"{order['airline']} {order['number']}  \u00b7  {order['date']}" if order else "",
                                  align="center", id="done_flight"),
                             Button("Back to home", id="back_home", on_click=lambda c: c.reset_to("home")),
                             pad=60, gap=40, align="center"))

    def screen_me(self, ctx: Ctx) -> Widget:
        s = ctx.state
        trips = [ListItem(ctx.t("{a} → {b}", a=o["from"], b=o["to"]), f"{o['airline']} {o['number']}  \u00b7  "
                          f"{o['date']}", trailing=self._money(ctx, o["amount"]), id="my_trip")
                 for o in reversed(s["orders"])]
        return Column(AppBar("Me", back=False),
                      Scroll(ListItem(ctx.t("Hello, {user}", user=s["passenger"]), id="profile",
                                      leading=Icon("user", desc="Passenger", size=100, bg="primary")),
                             Divider(), Text("My trips", bold=True, pad=28),
                             *(trips or [Text("No trips yet", color=GREY, pad=28)]), id="me_list"),
                      self._nav(1))


# ----- the apps --------------------------------------------------------------------------------------------------------
@register
class TripCom(TravelApp):
    name = "Trip.com"
    key = "trip"
    names = {"zh": "Trip.com"}
    package = "ctrip.english"
    aliases = ("trip", "tripcom", "trip dot com")
    color = "#287dfa"
    icon = "T"
    currency = "USD"
    strings = {"zh": {}}


@register
class Ctrip(TravelApp):
    name = "Ctrip"
    names = {"zh": "携程旅行"}
    package = "ctrip.android.view"
    aliases = ("携程", "xiecheng", "ctrip travel")
    color = "#2577e3"
    icon = "携"
    currency = "CNY"
    strings = {"zh": {"Flights": "机票预订"}}


__all__ = ["TravelApp", "TripCom", "Ctrip", "flights", "sort_flights", "date_label", "normalize_city"]
