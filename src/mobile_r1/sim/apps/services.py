"""Local-services apps with paid passes (Meituan, Ele.me, Grab): one engine with services, a search for any place
type, and a pass page of look-alike products with specs paid with the payment password.

Search answers any query: `results(state, query)` generates the places (a pharmacy for "药店", a café for "coffee")
from the query and the app's catalog seed, a pure function a judge can call. The pass page lists products that look
alike on purpose (Meituan's "Black Gold Super Coupon Pack" beside the ordinary "Meituan Super Coupon", Ele.me's
"Super Foodie Card" beside the "Foodie Card", Grab's "Grab Travel Pass" beside other passes), each with specs
(5元×6张, a country, monthly or yearly); buying one is a risky payment.

State (a judge reads it by path, e.g. `meituan.history`, `eleme.subscriptions[*].spec`):
  catalog          {"seed", "flavour", "locale", "currency"}: what `results` draws places from
  pinned           places set-up hooks guarantee for a query (`setup_place`)
  history          the queries searched, most recent first, each once; `searches`: every search in order
  viewed           ids of the places whose page was opened, in order
  passes           [{"id", "name", "desc", "specs": [{"label", "price"}]}]: what the pass page sells
  subscriptions    [{"id", "pass", "product", "spec", "amount", "currency"}]: what was bought
  payment_password, user, logged_in, failed_payments
Effects: `subscription` (pass, product, spec, amount, currency, subscription), `login`, `logout`.
"""

from __future__ import annotations

import hashlib
import math
import random
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, ClassVar, Mapping

from mobile_r1.sim.apps import App, Ctx, new_id, register
from mobile_r1.sim.apps._search import (no_results, normalize_query, open_search as _open_search, search as _search,
                                        sort_chips)
from mobile_r1.sim.locale import money as format_money
from mobile_r1.sim.ui.widgets import (AppBar, Button, Card, Column, Divider, Grid, Icon, Input, ListItem, Row, Scroll,
                                      Tabs, Text, Widget)

GREY = (120, 122, 130)
SORTS = ("default", "distance", "rating", "sales")  # the results screen's `sort` param indexes this
SYMBOLS = {"SGD": "S$"}  # currencies the phone's formatter writes as a code


def price_text(value: float, currency: str) -> str:
    """A price as these apps write it: '¥19.90', '$5.99', 'S$9.90'."""
    if currency in SYMBOLS:
        return f"{SYMBOLS[currency]}{value:,.2f}"
    return format_money(value, currency)


# ----- the place generator (pure: judges import it) -----------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Flavour:
    """What makes one app's places its own: the areas, shop-name words and price level."""

    areas: Mapping[str, tuple[str, ...]]
    prefixes: Mapping[str, tuple[str, ...]]
    price_level: float  # a typical spend per order, in the app's currency


_ZH_PREFIXES = ("康宁", "益民", "仁心", "百姓", "安康", "好邻居", "老街", "小李", "鑫鑫", "福满", "阳光", "便民")
FLAVOURS: dict[str, Flavour] = {
    "meituan": Flavour({"zh": ("望京", "国贸", "中关村", "五道口", "三里屯", "西单", "双井", "亚运村"),
                        "en": ("Wangjing", "Guomao", "Zhongguancun", "Wudaokou", "Sanlitun", "Xidan", "Shuangjing",
                               "Yayuncun")},
                       {"zh": _ZH_PREFIXES, "en": ("Happy", "Sunshine", "Golden", "Family", "Corner", "Unity", "Lucky",
                                                   "Harmony", "Jade", "Lotus", "Red Lantern", "Good Neighbour")}, 45.0),
    "eleme": Flavour({"zh": ("静安寺", "徐家汇", "陆家嘴", "五角场", "人民广场", "中山公园", "虹桥", "七宝"),
                      "en": ("Jing'an", "Xujiahui", "Lujiazui", "Wujiaochang", "People's Square", "Zhongshan Park",
                             "Hongqiao", "Qibao")},
                     {"zh": _ZH_PREFIXES, "en": ("Happy", "Sunshine", "Golden", "Family", "Corner", "Unity", "Lucky",
                                                 "Harmony", "Jade", "Lotus", "Bund", "Good Neighbour")}, 40.0),
    "grab": Flavour({"zh": ("乌节路", "牛车水", "武吉士", "丹戎巴葛", "裕廊东", "淡滨尼", "诺维娜", "金文泰"),
                     "en": ("Orchard Road", "Chinatown", "Bugis", "Tanjong Pagar", "Jurong East", "Tampines", "Novena",
                            "Clementi")},
                    {"zh": ("狮城", "乌节", "滨海", "莱佛士", "圣淘沙", "鱼尾狮", "榴莲", "胡姬", "南洋", "星洲", "金沙", "麦里芝"),
                     "en": ("Green Cross", "Family", "Sunrise", "Corner", "Unity", "Orchard", "Harbour", "Lion City",
                            "Marina", "Raffles", "Merlion", "Sentosa")}, 18.0),
}
HOURS = {"zh": ("24小时营业", "08:00-22:00", "09:00-21:30", "07:30-23:00"),
         "en": ("Open 24 hours", "08:00-22:00", "09:00-21:30", "07:30-23:00")}
TAGS = {"zh": ("免配送费", "新店", "品质商家", "近期热销", "可自取"),
        "en": ("Free delivery", "New", "Top merchant", "Trending", "Pick-up")}


def _digest(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8")).hexdigest()[:8]


@lru_cache(maxsize=512)
def _generate(seed: int, flavour: str, locale: str, norm: str) -> tuple[tuple[tuple[str, Any], ...], ...]:
    rng = random.Random(f"{seed}|{flavour}|{locale}|{norm}")
    flav = FLAVOURS[flavour]
    lang = "zh" if locale == "zh" else "en"
    key = _digest(norm)
    shown = norm if lang == "zh" else norm.title()  # "Green Cross Pharmacy (Bugis)"
    distances: set[float] = set()
    sales: set[int] = set()
    names: set[str] = set()
    out = []
    for i in range(rng.randint(6, 10)):
        area = rng.choice(flav.areas[lang])
        prefix = rng.choice(flav.prefixes[lang])
        name = f"{prefix}{shown}({area}店)" if lang == "zh" else f"{prefix} {shown} ({area})"
        while name in names:
            area = rng.choice(flav.areas[lang])
            prefix = rng.choice(flav.prefixes[lang])
            name = f"{prefix}{shown}({area}店)" if lang == "zh" else f"{prefix} {shown} ({area})"
        names.add(name)
        distance = round(rng.uniform(0.2, 6.0), 1)
        while distance in distances:  # every distance differs, so "the nearest" is one place
            distance = round(distance + 0.1, 1)
        distances.add(distance)
        sold = int(math.exp(rng.uniform(math.log(5), math.log(20000))))
        while sold in sales:
            sold += 1
        sales.add(sold)
        number = rng.randint(1, 399)
        address = f"{area}{rng.choice(('东路', '西街', '中路', '大街'))}{number}号" if lang == "zh" else f"{number} {area}"
        place = {"id": f"{key}-{i + 1}", "query": norm, "name": name, "rating": round(rng.uniform(3.8, 5.0), 1),
                 "distance_km": distance, "monthly_sales": sold,
                 "avg_price": round(flav.price_level * rng.uniform(0.5, 1.8), 1),
                 "delivery_minutes": rng.randint(15, 55), "hours": rng.choice(HOURS[lang]), "address": address,
                 "tag": rng.choice(TAGS[lang])}
        out.append(tuple(place.items()))
    return tuple(out)


def results(source: Mapping[str, Any] | int, query: str, *, flavour: str = "meituan",
            locale: str = "zh") -> list[dict[str, Any]]:
    """The places a search for `query` shows, in the default order.

    `source` is a services app's state (its `catalog` gives seed, flavour and locale, and its `pinned` places for this
    query are included) or a bare catalog seed with the keywords. Deterministic, and the same for every spelling of
    one normalised query; each place has id, query, name (containing the query, case aside), rating, distance_km, monthly_sales, avg_price, delivery_minutes, hours, address, tag.
    Distances and monthly sales differ between the places of one query. An empty query gives [].
    """
    norm = normalize_query(query)
    if not norm:
        return []
    pinned: list[dict[str, Any]] = []
    if isinstance(source, Mapping):
        cat = source["catalog"]
        seed, flavour, locale = int(cat["seed"]), cat["flavour"], cat["locale"]
        pinned = [dict(p) for p in source.get("pinned", []) if p["query"] == norm]
    else:
        seed = int(source)
    out = [dict(items) for items in _generate(seed, flavour, locale, norm)]
    for k, p in enumerate(pinned):
        out.insert(min(len(out), 1 + 2 * k), p)
    return out


def sort_results(places: list[dict[str, Any]], order: str) -> list[dict[str, Any]]:
    """Places as the results screen shows them for a sort order: default, distance, rating or sales."""
    if order == "distance":
        return sorted(places, key=lambda p: (p["distance_km"], p["id"]))
    if order == "rating":
        return sorted(places, key=lambda p: (-p["rating"], p["distance_km"], p["id"]))
    if order == "sales":
        return sorted(places, key=lambda p: (-p["monthly_sales"], p["id"]))
    return list(places)


# ----- the passes each app sells ---------------------------------------------------------------------------------------
def _pass(name: dict[str, str], desc: dict[str, str], specs: list[tuple[str, str, float]]) -> dict[str, Any]:
    return {"name": name, "desc": desc, "specs": specs}


PASSES: dict[str, list[dict[str, Any]]] = {
    "meituan": [
        _pass({"zh": "美团神券", "en": "Meituan Super Coupon"},
              {"zh": "单张神券，下单立减", "en": "A single coupon, off your next order"},
              [("满20减5", "¥5 off ¥20", 1.9), ("满30减8", "¥8 off ¥30", 2.9), ("满50减15", "¥15 off ¥50", 4.9)]),
        _pass({"zh": "黑金神券包", "en": "Black Gold Super Coupon Pack"},
              {"zh": "每月6张大额神券，最高减30元", "en": "6 big coupons a month, up to ¥30 off each"},
              [("月卡", "Monthly", 19.9), ("季卡", "Quarterly", 55.0), ("年卡", "Yearly", 198.0)]),
        _pass({"zh": "神券包", "en": "Super Coupon Pack"},
              {"zh": "每月4张神券，最高减15元", "en": "4 coupons a month, up to ¥15 off each"},
              [("月卡", "Monthly", 9.9), ("季卡", "Quarterly", 27.0)]),
        _pass({"zh": "外卖会员", "en": "Delivery Membership"},
              {"zh": "每月免配送费", "en": "Free delivery every month"},
              [("月卡", "Monthly", 15.0), ("年卡", "Yearly", 150.0)]),
    ],
    "eleme": [
        _pass({"zh": "超级吃货卡", "en": "Super Foodie Card"},
              {"zh": "每月无门槛红包，全国通用", "en": "No-minimum red packets every month"},
              [("5元×4张", "¥5 × 4", 9.9), ("5元×6张", "¥5 × 6", 15.0), ("10元×3张", "¥10 × 3", 18.0),
               ("8元×6张", "¥8 × 6", 25.0)]),
        _pass({"zh": "吃货卡", "en": "Foodie Card"},
              {"zh": "每月红包，满25可用", "en": "Monthly red packets for orders over ¥25"},
              [("3元×6张", "¥3 × 6", 6.9), ("5元×6张", "¥5 × 6", 12.9)]),
        _pass({"zh": "超级会员", "en": "Super Membership"},
              {"zh": "会员专享红包和折扣", "en": "Member red packets and discounts"},
              [("月卡", "Monthly", 10.0), ("年卡", "Yearly", 108.0)]),
        _pass({"zh": "红包加量包", "en": "Red Packet Booster"},
              {"zh": "给已有吃货卡加两张红包", "en": "Two extra red packets for your card"},
              [("5元×2张", "¥5 × 2", 3.9)]),
    ],
    "grab": [
        _pass({"zh": "Grab 旅行通行证", "en": "Grab Travel Pass"},
              {"zh": "旅行期间打车和外卖优惠", "en": "Ride and food discounts while you travel"},
              [("新加坡", "Singapore", 9.90), ("马来西亚", "Malaysia", 7.90), ("泰国", "Thailand", 8.90),
               ("印度尼西亚", "Indonesia", 7.90), ("越南", "Vietnam", 6.90)]),
        _pass({"zh": "GrabUnlimited 会员", "en": "GrabUnlimited"},
              {"zh": "每月免配送费和优惠券", "en": "Free delivery and vouchers every month"},
              [("月付", "Monthly", 5.99), ("年付", "Yearly", 59.00)]),
        _pass({"zh": "机场接送通行证", "en": "Grab Airport Transfer Pass"},
              {"zh": "机场往返打车优惠", "en": "Discounted rides to and from the airport"},
              [("新加坡", "Singapore", 12.90), ("马来西亚", "Malaysia", 10.90)]),
        _pass({"zh": "GrabFood 省钱卡", "en": "GrabFood Saver Pass"},
              {"zh": "每月外卖优惠券", "en": "Food delivery vouchers every month"},
              [("月付", "Monthly", 4.99)]),
    ],
}


def _passes(flavour: str, lang: str) -> list[dict[str, Any]]:
    return [{"id": i + 1, "name": p["name"][lang], "desc": p["desc"][lang],
             "specs": [{"label": zh if lang == "zh" else en, "price": price} for zh, en, price in p["specs"]]}
            for i, p in enumerate(PASSES[flavour])]


USERS = {"zh": ("小明", "阿杰", "晓雯", "乐乐", "大鹏"), "en": ("Sam", "Jordan", "Casey", "Riley", "Morgan")}


# ----- handlers -----------------------------------------------------------------------------------------------------
def _open_place(ctx: Ctx, place: dict[str, Any]) -> None:
    ctx.state["viewed"].append(place["id"])
    ctx.push("place", id=place["id"], query=place["query"])


def _find_pass(state: Mapping[str, Any], pid: Any) -> dict[str, Any]:
    return next((p for p in state["passes"] if p["id"] == pid), state["passes"][0])


def _pay(ctx: Ctx, *_: Any) -> None:
    s, p = ctx.state, ctx.params
    if ctx.fields.get("pay_password", "") != s["payment_password"]:
        s["failed_payments"] += 1
        ctx.set_field("pay_password", "")
        ctx.toast("Wrong payment password")
        return
    item = _find_pass(s, p.get("pass"))
    spec = item["specs"][min(int(p.get("spec", 0)), len(item["specs"]) - 1)]
    currency = s["catalog"]["currency"]
    sub = {"id": new_id(s["subscriptions"]), "pass": item["id"], "product": item["name"], "spec": spec["label"],
           "amount": spec["price"], "currency": currency}
    s["subscriptions"].append(sub)
    ctx.effect("subscription", subscription=sub["id"], product=item["name"], spec=spec["label"], amount=spec["price"],
               currency=currency, **{"pass": item["id"]})
    ctx.reset_to("home")
    ctx.push("done", subscription=sub["id"])


def _log_out(ctx: Ctx) -> None:
    ctx.state["logged_in"] = False
    ctx.effect("logout", account=ctx.state["user"])
    ctx.reset_to("login")


class ServicesApp(App):
    """The services engine. A subclass gives the identity (name, names, package, colour, icon, currency), its
    `flavour` (a key of FLAVOURS and PASSES), its `services` (home tiles: English label and glyph; a tile searches
    for its label in the phone's language, the tile `pass_tile` opens the passes), `pass_title` and `strings`."""

    archetype = "services"
    login_required = True  # logged in by default; `setup_logged_out` puts the wall up
    flavour: ClassVar[str] = "meituan"
    services: ClassVar[tuple[tuple[str, str], ...]] = ()
    pass_title: ClassVar[str] = "Passes"
    strings: ClassVar[dict[str, dict[str, str]]] = {"zh": {
        "Search stores and services": "搜索商家、服务", "Type something to search": "请输入搜索内容",
        "Recent searches": "历史搜索", "Popular": "大家都在搜", "Clear": "清空", "Search history cleared": "已清空搜索历史",
        "No results for '{query}'": "没有找到“{query}”相关的商家", "Nearest": "距离最近", "Top rated": "评分最高",
        "Sort by distance": "按距离排序", "Sort by rating": "按评分排序", "Sort by sales": "按销量排序",
        "Sort by relevance": "综合排序", "{km} km": "{km}公里", "{n} sold/month": "月售{n}", "{m} min": "{m}分钟",
        "Avg. {price}": "人均{price}", "Store details": "商家详情", "Opening hours": "营业时间", "Address": "地址",
        "Delivery time": "配送时间", "Call the store": "联系商家", "Calling is not available here": "暂不支持拨打电话",
        "Monthly sales": "月销量", "Distance": "距离", "Choose a spec": "选择规格", "From {price}": "{price}起",
        "Spec: {spec}": "规格：{spec}", "Confirm payment": "确认付款", "Enter your 6-digit payment password": "请输入 6 位支付密码",
        "Purchase successful": "购买成功", "{product} ({spec}) is active": "{product}（{spec}）已生效",
        "Back to home": "返回首页", "My passes": "我的权益", "No passes yet": "还没有购买权益", "Hello, {user}": "你好，{user}",
        "Log out?": "退出登录？", "You will need to log in again.": "需要重新登录。", "Services": "服务",
        "Product": "商品", "Payment": "付款", "Passes": "权益", "Food delivery": "外卖", "Groceries": "超市便利", "Pharmacy": "药店",
        "Hotels": "酒店", "Movies": "电影", "Bike rental": "共享单车", "Fruit": "水果", "Drinks": "奶茶饮品",
        "Desserts": "甜品", "Transport": "出行", "Food": "美食", "Mart": "超市", "Express": "快送", "Coffee": "咖啡",
        "Forgot password?": "忘记密码？", "Reset password": "重置密码",
        "Contact support to reset your payment password.": "请联系客服重置支付密码。",
    }}

    def __init_subclass__(cls, **kw: Any) -> None:
        """A subclass's own `strings` are laid over the engine's (so each app's table holds only its own words)."""
        super().__init_subclass__(**kw)
        own = cls.__dict__.get("strings")
        if own is not None:
            base = ServicesApp.strings
            cls.strings = {loc: {**base.get(loc, {}), **own.get(loc, {})} for loc in {*base, *own}}

    def initial_state(self, rng: random.Random) -> dict[str, Any]:
        lang = "zh" if self.locale == "zh" else "en"
        return {
            "catalog": {"seed": rng.randrange(1 << 30), "flavour": self.flavour, "locale": lang,
                        "currency": self.currency},
            "pinned": [], "history": [], "searches": [], "viewed": [],
            "passes": _passes(self.flavour, lang), "subscriptions": [],
            "payment_password": "".join(rng.choice("0123456789") for _ in range(6)),
            "user": rng.choice(USERS[lang]), "logged_in": True, "failed_payments": 0,
        }

    # ----- set-up hooks a task calls to make the phone fit its line ------------------------------------------------
    def setup_logged_out(self, ctx: Ctx) -> None:
        """Log the account out: the app opens on its login wall (a login records a `login` effect)."""
        ctx.state["logged_in"] = False

    def setup_payment_password(self, ctx: Ctx, password: str) -> None:
        """Set the 6-digit payment password the pay screen accepts."""
        ctx.state["payment_password"] = str(password)

    def setup_pass(self, ctx: Ctx, name: str, spec: str, price: float | None = None, desc: str = "") -> dict[str, Any]:
        """Make sure the pass page sells `name` with the spec `spec` (added with `price`, default 9.9, where missing).
        Returns {"pass": id, "spec": index}; calling it again changes nothing."""
        passes = ctx.state["passes"]
        item = next((p for p in passes if p["name"] == name), None)
        if item is None:
            item = {"id": max((p["id"] for p in passes), default=0) + 1, "name": name, "desc": desc or name, "specs": []}
            passes.append(item)
        index = next((i for i, s in enumerate(item["specs"]) if s["label"] == spec), None)
        if index is None:
            item["specs"].append({"label": spec, "price": float(price) if price is not None else 9.9})
            index = len(item["specs"]) - 1
        return {"pass": item["id"], "spec": index}

    def setup_place(self, ctx: Ctx, query: str, name: str | None = None, distance_km: float | None = None,
                    rating: float = 4.9, monthly_sales: int | None = None) -> dict[str, Any]:
        """Guarantee a place among the results for `query` (its name containing the query by default; by default the
        nearest and the best-selling). Returns the place; calling it again with the same query and name changes
        nothing."""
        norm = normalize_query(query)
        shown = " ".join(query.split())
        lang = ctx.state["catalog"]["locale"]
        name = name or (f"{ctx.state['user']}推荐{shown}" if lang == "zh" else f"Recommended {shown}")
        for p in ctx.state["pinned"]:
            if p["query"] == norm and p["name"] == name:
                return dict(p)
        generated = results(ctx.state, shown)
        place = {"id": f"{_digest(norm)}-p{sum(1 for p in ctx.state['pinned'] if p['query'] == norm) + 1}",
                 "query": norm, "name": name, "rating": float(rating),
                 "distance_km": float(distance_km) if distance_km is not None
                 else round(max(0.1, min((p["distance_km"] for p in generated), default=1.0) - 0.1), 1),
                 "monthly_sales": int(monthly_sales) if monthly_sales is not None
                 else max((p["monthly_sales"] for p in generated), default=0) + 11,
                 "avg_price": FLAVOURS[self.flavour].price_level, "delivery_minutes": 20,
                 "hours": HOURS[lang][0], "address": generated[0]["address"] if generated else "", "tag": TAGS[lang][0]}
        ctx.state["pinned"].append(place)
        return dict(place)

    # ----- pieces of screens ---------------------------------------------------------------------------------------
    def _money(self, ctx: Ctx, value: float) -> str:
        return price_text(value, ctx.state["catalog"]["currency"])

    def _nav(self, selected: int) -> Widget:
        screens = ("home", "passes", "me")
        return Tabs(["Home", self.pass_title, "Me"], selected, icons=["home", "star", "user"],
                    on_select=lambda c, i: c.reset_to(screens[i]) if i != selected else None, id="bottom_nav")

    def _search_bar(self, ctx: Ctx, back: bool) -> Widget:
        return Row(Icon("back", desc="Navigate up", size=80, on_click=lambda c: c.back(), id="navigate_up") if back
                   else Text(ctx.app_label, size="title", bold=True, color="primary"),
                   Input("query", hint="Search stores and services", on_submit=_search, weight=1.0),
                   Button("Search", style="text", id="search_button",
                          on_click=lambda c: _search(c, c.fields.get("query", ""))), pad=28, gap=20)

    def _place_row(self, ctx: Ctx, p: dict[str, Any]) -> Widget:
        stats = "  \u00b7  ".join([f"\u2605 {p['rating']}", ctx.t("{n} sold/month", n=f"{p['monthly_sales']:,}"),
                                   ctx.t("{km} km", km=p["distance_km"])])
        more = "  \u00b7  ".join([ctx.t("Avg. {price}", price=self._money(ctx, p["avg_price"])),
                                  ctx.t("{m} min", m=p["delivery_minutes"]), p["tag"]])
        return Row(Icon(p["name"][:1], desc=p["name"], size=120, bg="primary", round=False),
                   Column(Text(p["name"], bold=True, max_lines=2, id="place_name"),
                          Text(stats, size="small", color=GREY, id="place_stats"),
                          Text(more, size="tiny", color=GREY), gap=6, weight=1.0),
                   pad=28, gap=24, id="place", on_click=lambda c, p=p: _open_place(c, p))

    # ----- screens ---------------------------------------------------------------------------------------------------
    def screen_home(self, ctx: Ctx) -> Widget:
        def tile(label: str, glyph: str) -> Widget:
            if label == self.pass_title:
                handler = lambda c: c.reset_to("passes")  # noqa: E731
            else:
                handler = lambda c, label=label: _search(c, c.t(label))  # noqa: E731
            return Icon(glyph, desc=label, size=110, bg="primary", label=label, id="service", on_click=handler)

        top = ctx.state["passes"][0]
        return Column(
            self._search_bar(ctx, back=False),
            Scroll(Grid(*[tile(label, glyph) for label, glyph in self.services], cols=4, gap=24, pad=28),
                   Card(Text(self.pass_title, bold=True, color="primary"),
                        Text(top["name"], size="title", bold=True, id="banner_title"),
                        Text(top["desc"], size="small", color=GREY),
                        Text(ctx.t("From {price}", price=self._money(ctx, min(s["price"] for s in top["specs"]))),
                             color="danger", bold=True),
                        on_click=lambda c: c.reset_to("passes"), id="pass_banner", pad=36, gap=10),
                   id="home_scroll", pad=12, gap=24),
            self._nav(0))

    def screen_search(self, ctx: Ctx) -> Widget:
        def clear(c: Ctx) -> None:
            c.state["history"] = []
            c.toast("Search history cleared")

        popular = [label for label, _ in self.services if label != self.pass_title]
        return Column(
            self._search_bar(ctx, back=True),
            Scroll(Row(Text("Recent searches", size="small", color=GREY, weight=1.0),
                       Button("Clear", style="text", id="clear_history", on_click=clear)
                       if ctx.state["history"] else None, pad=28),
                   *[ListItem(h, id="history_item", on_click=lambda c, h=h: _search(c, h))
                     for h in ctx.state["history"][:6]],
                   Text("Popular", size="small", color=GREY, pad=28),
                   *[ListItem(label, id="popular_search", on_click=lambda c, label=label: _search(c, c.t(label)))
                     for label in popular], id="search_list"))

    def screen_results(self, ctx: Ctx) -> Widget:
        query = ctx.params.get("query") or ctx.t(self.services[0][0])
        sort = int(ctx.params.get("sort", 0))
        found = sort_results(results(ctx.state, query), SORTS[sort])
        chips = (("Default", "Sort by relevance"), ("Nearest", "Sort by distance"), ("Top rated", "Sort by rating"),
                 ("Sales", "Sort by sales"))
        sort_row = sort_chips(chips, SORTS, sort, lambda c, i: c.replace("results", query=query, sort=i))
        body = [self._place_row(ctx, p) for p in found] or [no_results(ctx, query)]
        return Column(
            Row(Icon("back", desc="Navigate up", size=80, on_click=lambda c: c.back(), id="navigate_up"),
                Text(query, bg="surface", pad=24, radius=40, weight=1.0, max_lines=1, id="search_box",
                     on_click=_open_search),
                Icon("search", desc="Search", size=80, id="search", on_click=_open_search), pad=28, gap=20),
            sort_row, Divider(), Scroll(*body, id="results"))

    def screen_place(self, ctx: Ctx) -> Widget:
        query = ctx.params.get("query") or ctx.t(self.services[0][0])
        found = results(ctx.state, query)
        p = next((x for x in found if x["id"] == ctx.params.get("id")), found[0])
        return Column(
            AppBar("Store details"),
            Scroll(Column(Text(p["name"], size="big", bold=True, id="place_title"),
                          Text(f"\u2605 {p['rating']}  \u00b7  {p['tag']}", color="primary", id="place_rating"),
                          pad=36, gap=16),
                   Divider(),
                   ListItem("Distance", trailing=ctx.t("{km} km", km=p["distance_km"]), id="place_distance"),
                   ListItem("Monthly sales", trailing=f"{p['monthly_sales']:,}", id="place_sales"),
                   ListItem("Delivery time", trailing=ctx.t("{m} min", m=p["delivery_minutes"]), id="place_time"),
                   ListItem("Opening hours", trailing=p["hours"], id="place_hours"),
                   ListItem("Address", p["address"], id="place_address"),
                   Column(Button("Call the store", style="secondary", id="call_store",
                                 on_click=lambda c: c.toast("Calling is not available here")), pad=36),
                   id="place_scroll"))

    def screen_passes(self, ctx: Ctx) -> Widget:
        cards = [Card(Text(p["name"], size="title", bold=True, id="pass_name"),
                      Text(p["desc"], size="small", color=GREY),
                      Text("  \u00b7  ".join(s["label"] for s in p["specs"]), size="small", id="pass_specs"),
                      Text(ctx.t("From {price}", price=self._money(ctx, min(s["price"] for s in p["specs"]))),
                           bold=True, color="danger"),
                      on_click=lambda c, pid=p["id"]: c.push("pass", id=pid, spec=0), id="pass", pad=36, gap=10)
                 for p in ctx.state["passes"]]
        return Column(AppBar(self.pass_title, back=False), Scroll(*cards, id="passes_list", pad=28, gap=24),
                      self._nav(1))

    def screen_pass(self, ctx: Ctx) -> Widget:
        item = _find_pass(ctx.state, ctx.params.get("id"))
        pid = item["id"]
        chosen = min(int(ctx.params.get("spec", 0)), len(item["specs"]) - 1)
        spec = item["specs"][chosen]
        chips = [Text(s["label"], bold=i == chosen, selected=i == chosen, color=(255, 255, 255) if i == chosen else None,
                      bg="primary" if i == chosen else "surface", pad=20, radius=16, id="spec",
                      on_click=lambda c, i=i: c.replace("pass", id=pid, spec=i)) for i, s in enumerate(item["specs"])]
        rows = [Row(*chips[i:i + 3], gap=16) for i in range(0, len(chips), 3)]
        return Column(
            AppBar("Product"),
            Scroll(Column(Icon("star_filled", desc=item["name"], size=160, color="primary"),
                          Text(item["name"], size="big", bold=True, align="center", id="pass_title"),
                          Text(item["desc"], color=GREY, align="center", id="pass_desc"), pad=48, gap=20,
                          align="center"),
                   Divider(),
                   Column(Text("Choose a spec", bold=True), *rows, pad=36, gap=20),
                   id="pass_scroll"),
            Row(Column(Text(self._money(ctx, spec["price"]), size="title", bold=True, color="danger", id="price"),
                       Text(ctx.t("Spec: {spec}", spec=spec["label"]), size="small", color=GREY, id="chosen_spec"),
                       weight=1.0, gap=4),
                Button("Buy now", id="buy_now",
                       on_click=lambda c: c.push("pay", **{"pass": pid, "spec": chosen}) if c.require_login() else None),
                pad=28))

    def screen_pay(self, ctx: Ctx) -> Widget:
        item = _find_pass(ctx.state, ctx.params.get("pass"))
        spec = item["specs"][min(int(ctx.params.get("spec", 0)), len(item["specs"]) - 1)]
        return Column(
            AppBar("Payment"),
            Column(Text(item["name"], size="title", bold=True, align="center", id="pay_product"),
                   Text(ctx.t("Spec: {spec}", spec=spec["label"]), align="center", id="pay_spec"),
                   Text(self._money(ctx, spec["price"]), size="huge", bold=True, align="center", id="amount"),
                   Text("Enter your 6-digit payment password"),
                   Input("pay_password", hint="Payment password", password=True, on_submit=_pay),
                   Button("Confirm payment", id="confirm_payment", on_click=_pay),
                   Button("Forgot password?", style="text", id="forgot",
                          on_click=lambda c: c.dialog(c.t("Reset password"),
                                                      c.t("Contact support to reset your payment password."))),
                   pad=48, gap=30))

    def screen_done(self, ctx: Ctx) -> Widget:
        subs = ctx.state["subscriptions"]
        sub = next((x for x in subs if x["id"] == ctx.params.get("subscription")), subs[-1] if subs else None)
        text = (ctx.t("{product} ({spec}) is active", product=sub["product"], spec=sub["spec"]) if sub
                else ctx.t("No passes yet"))
        return Column(AppBar("Purchase successful", back=False),
                      Column(Icon("check", desc="Purchase successful", size=200, bg="primary"),
                             Text(text, size="title", align="center", id="done_text"),
                             Text(self._money(ctx, sub["amount"]) if sub else "", align="center", id="done_amount"),
                             Button("Back to home", id="back_home", on_click=lambda c: c.reset_to("home")),
                             pad=60, gap=40, align="center"))

    def screen_me(self, ctx: Ctx) -> Widget:
        s = ctx.state
        subs = [ListItem(x["product"], x["spec"], trailing=self._money(ctx, x["amount"]), id="my_pass")
                for x in reversed(s["subscriptions"])]
        return Column(
            AppBar("Me", back=False),
            Scroll(ListItem(ctx.t("Hello, {user}", user=s["user"]), id="profile",
                            leading=Icon("user", desc="Profile", size=100, bg="primary")),
                   Divider(),
                   Text("My passes", bold=True, pad=28),
                   *(subs or [Text("No passes yet", color=GREY, pad=28)]),
                   Column(Button("Log out", style="danger", id="log_out",
                                 on_click=lambda c: c.confirm(c.t("Log out?"), c.t("You will need to log in again."),
                                                              _log_out, yes=c.t("Log out"))), pad=36),
                   id="me_list"),
            self._nav(2))


# ----- the apps --------------------------------------------------------------------------------------------------------
@register
class Meituan(ServicesApp):
    name = "Meituan"
    names = {"zh": "美团"}
    package = "com.sankuai.meituan"
    aliases = ("美团外卖", "mei tuan", "meituan waimai")
    color = "#ffc300"
    icon = "美"
    currency = "CNY"
    flavour = "meituan"
    pass_title = "Super coupons"
    services = (("Food delivery", "bag"), ("Groceries", "cart"), ("Pharmacy", "plus"), ("Hotels", "home"),
                ("Movies", "display"), ("Bike rental", "forward"), ("Fruit", "heart"), ("Super coupons", "star"))
    strings = {"zh": {"Super coupons": "神券"}}


@register
class Eleme(ServicesApp):
    name = "Ele.me"
    key = "eleme"
    names = {"zh": "饿了么"}
    package = "me.ele"
    aliases = ("eleme", "饿了吗", "ele", "e le me")
    color = "#0097ff"
    icon = "饿"
    currency = "CNY"
    flavour = "eleme"
    pass_title = "Foodie cards"
    services = (("Food delivery", "bag"), ("Groceries", "cart"), ("Pharmacy", "plus"), ("Fruit", "heart"),
                ("Drinks", "note"), ("Desserts", "star_filled"), ("Coffee", "display"), ("Foodie cards", "star"))
    strings = {"zh": {"Foodie cards": "吃货卡"}}


@register
class Grab(ServicesApp):
    name = "Grab"
    names = {"zh": "Grab"}
    package = "com.grabtaxi.passenger"
    aliases = ("grab taxi", "grabtaxi", "grab app")
    color = "#00b14f"
    icon = "G"
    currency = "SGD"
    flavour = "grab"
    pass_title = "Subscriptions"
    services = (("Transport", "forward"), ("Food", "bag"), ("Mart", "cart"), ("Express", "send"),
                ("Pharmacy", "plus"), ("Hotels", "home"), ("Coffee", "display"), ("Subscriptions", "star"))
    strings = {"zh": {"Subscriptions": "订阅与通行证"}}
