"""Shopping apps (Taobao, JD, Pinduoduo, Vipshop, Amazon Shopping): one engine with search for any query, sorting,
product pages, favourites, sharing with a friend, a cart and checkout with a payment password.

Search answers any query: `results(state, query)` generates the listings from the query and the app's catalog seed
(a pure function, so a judge computes "the cheapest item for this query" from the same state the phone shows). Every
listing's title contains the query. Each app is a small identity on the engine (`ShoppingApp`): names, package,
colours, currency and a data flavour (price level, badges, shop names).

State (a judge reads it by path, e.g. `taobao.history`, `amazon.cart[*].product`):
  catalog          {"seed", "flavour", "locale", "currency"}: what `results` draws listings from
  pinned           listings set-up hooks guarantee for a query (`setup_product`)
  items            every listing the user opened, carted, favourited or bought (full records, by `id`)
  history          the queries searched, most recent first, each once; `searches`: every search in order
  viewed           ids of the listings whose details page was opened, in order
  cart             [{"product": id, "qty", "selected"}]; `favorites`: [id]; `orders`; `shares`
  friends          [{"name"}]: who the share sheet lists; `targets`: listings a task names (`setup_target`)
  payment_password, address, user, logged_in, failed_payments
Effects: `payment` (order, amount, items, merchant), `share` (product, title, to, price), `login`, `logout`.
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
from mobile_r1.sim.ui.widgets import (AppBar, Button, Card, Checkbox, Column, Divider, Grid, Icon, Image, Input,
                                      ListItem, Row, Scroll, Tabs, Text, Widget)

GREY = (120, 122, 130)
COLORS = [(238, 214, 200), (206, 222, 240), (214, 236, 214), (240, 228, 190), (226, 214, 240), (204, 232, 232),
          (244, 210, 218), (222, 226, 206)]
SORTS = ("default", "sales", "price_asc", "price_desc")  # the results screen's `sort` param indexes this


# ----- the listing generator (pure: judges import it) ----------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Flavour:
    """What makes one app's listings its own: price level, badges, shop name styles, sold-count wording."""

    price_factor: float
    badges: Mapping[str, tuple[str, ...]]
    shop_styles: Mapping[str, tuple[str, ...]]  # templates with {name}
    discount: bool = False  # show the list price and the discount (Vipshop, Amazon)


FLAVOURS: dict[str, Flavour] = {
    "taobao": Flavour(1.0, {"zh": ("包邮", "天猫", "退货宝", "淘宝直播"), "en": ("Free shipping", "Tmall", "Free returns", "Live")},
                      {"zh": ("{name}旗舰店", "{name}专营店", "{name}的小店"), "en": ("{name} Flagship Store", "{name} Shop")}),
    "jd": Flavour(1.08, {"zh": ("京东自营", "京东物流", "PLUS专享", "次日达"),
                         "en": ("JD self-operated", "JD Logistics", "PLUS price", "Next-day delivery")},
                  {"zh": ("{name}京东自营旗舰店", "{name}官方旗舰店", "{name}专卖店"),
                   "en": ("{name} JD Flagship Store", "{name} Official Store")}),
    "pinduoduo": Flavour(0.72, {"zh": ("百亿补贴", "拼单", "品牌", "极速退款"), "en": ("Subsidy", "Group buy", "Brand", "Fast refund")},
                         {"zh": ("{name}官方店", "{name}工厂店", "{name}百货"), "en": ("{name} Official", "{name} Factory Store")}),
    "vipshop": Flavour(0.85, {"zh": ("品牌特卖", "正品保障", "限时抢购", "唯品自营"),
                              "en": ("Brand sale", "Authentic", "Flash sale", "Vipshop direct")},
                       {"zh": ("{name}品牌特卖", "{name}专场"), "en": ("{name} Brand Sale", "{name} Outlet")}, discount=True),
    "amazon": Flavour(1.0, {"zh": ("Prime", "亚马逊之选", "畅销", "限时秒杀"),
                            "en": ("Prime", "Amazon's Choice", "Best Seller", "Limited-time deal")},
                      {"zh": ("{name}海外旗舰店", "{name}专营店"), "en": ("{name} Store", "{name} Direct")}, discount=True),
}
SHOP_NAMES = {"zh": ("优品", "潮流", "悦享", "星辰", "云朵", "拾光", "森林", "木子", "橙心", "锦绣", "南风", "初见"),
              "en": ("Northwind", "BlueHarbor", "Maple", "UrbanNest", "Summit", "Brightline", "Evergreen", "Pioneer",
                     "Atlas", "Cedar Lane", "Lumen", "Oakridge")}
DESCRIPTORS = {"zh": ("2025新款", "官方正品", "热卖爆款", "高品质", "限时特惠", "男女同款", "送礼佳品", "经典款", "加厚款",
                      "轻薄款", "大容量", "升级款"),
               "en": ("2025 New", "Official", "Premium", "Best Seller", "Lightweight", "Classic", "Gift Edition",
                      "Limited Edition", "Value Pack", "Unisex", "Deluxe", "Upgraded")}
PREFIXES = {"zh": ("【官方正品】", "【品牌直营】", "【限时秒杀】", "", "", ""), "en": ("", "", "", "New ", "Genuine ", "Top-rated ")}
CURRENCY_RATE = {"CNY": 7.0, "USD": 1.0}
# Typical prices in US dollars for words a query may contain (the first match wins); others get a price from the
# query's hash, so every query has its own price level.
PRICE_HINTS: tuple[tuple[tuple[str, ...], float], ...] = (
    (("iphone", "手机", "phone", "huawei", "华为", "samsung", "三星", "小米", "xiaomi"), 900.0),
    (("laptop", "笔记本", "电脑", "macbook", "ipad", "平板", "computer"), 750.0),
    (("鞋垫", "insole"), 8.0),
    (("耳机", "headphone", "earbud", "airpods"), 90.0),
    (("sneaker", "运动鞋", "鞋", "shoe", "boot"), 85.0),
    (("口红", "lipstick"), 32.0),
    (("粉底", "foundation"), 45.0),
    (("帽", "cap", "hat"), 25.0),
    (("袜", "sock"), 6.0),
    (("围巾", "scarf", "scarves"), 25.0),
    (("手套", "glove"), 20.0),
    (("芒果", "mango"), 12.0),
    (("三文鱼", "salmon", "刺身", "sashimi"), 30.0),
    (("拉面", "ramen", "noodle", "面"), 6.0),
    (("冰淇淋", "冰激淋", "冰激凌", "ice cream"), 8.0),
    (("眼药水", "eye drop"), 10.0),
    (("褪黑素", "melatonin"), 12.0),
    (("lululemon", "瑜伽", "yoga"), 90.0),
    (("衣服", "clothes", "shirt", "t恤", "dress", "连衣裙", "jacket", "外套", "卫衣", "hoodie"), 35.0),
)


def _digest(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8")).hexdigest()[:8]


def _base_price(norm: str) -> float:
    for words, price in PRICE_HINTS:
        if any(w in norm for w in words):
            return price
    u = int(_digest("price:" + norm), 16) / 0xFFFFFFFF
    return math.exp(math.log(5.0) + u * (math.log(150.0) - math.log(5.0)))


def _round_price(value: float, currency: str) -> float:
    if currency == "USD":
        return max(0.99, math.floor(value) + 0.99)
    return round(max(1.0, value), 1) if value >= 10 else round(max(0.5, value), 2)


@lru_cache(maxsize=512)
def _generate(seed: int, flavour: str, locale: str, currency: str, norm: str) -> tuple[tuple[tuple[str, Any], ...], ...]:
    rng = random.Random(f"{seed}|{flavour}|{locale}|{currency}|{norm}")
    flav = FLAVOURS[flavour]
    lang = "zh" if locale == "zh" else "en"
    base = _base_price(norm) * CURRENCY_RATE.get(currency, 1.0) * flav.price_factor
    key = _digest(norm)
    prices: set[float] = set()
    sales: set[int] = set()
    out = []
    for i in range(rng.randint(8, 12)):
        price = _round_price(base * rng.uniform(0.55, 1.7), currency)
        while price in prices:  # every price differs, so "the cheapest" is one listing
            price = round(price + (1.0 if currency == "USD" else 0.1), 2)
        prices.add(price)
        sold = int(math.exp(rng.uniform(math.log(3), math.log(80000))))
        while sold in sales:
            sold += 1
        sales.add(sold)
        d1, d2 = rng.sample(DESCRIPTORS[lang], 2)
        prefix = rng.choice(PREFIXES[lang])
        title = f"{prefix}{norm} {d1} {d2}" if lang == "zh" else f"{prefix}{norm} - {d1}, {d2}"
        shop = rng.choice(flav.shop_styles[lang]).format(name=rng.choice(SHOP_NAMES[lang]))
        listing = {"id": f"{key}-{i + 1}", "query": norm, "title": title, "shop": shop, "price": price,
                   "list_price": _round_price(price * rng.uniform(1.25, 2.6), currency) if flav.discount else price,
                   "sales": sold, "rating": round(rng.uniform(3.6, 5.0), 1),
                   "reviews": max(1, int(sold * rng.uniform(0.05, 0.4))), "badge": rng.choice(flav.badges[lang]),
                   "color": rng.randrange(len(COLORS))}
        out.append(tuple(listing.items()))
    return tuple(out)


def results(source: Mapping[str, Any] | int, query: str, *, flavour: str = "taobao", locale: str = "zh",
            currency: str = "CNY") -> list[dict[str, Any]]:
    """The listings a search for `query` shows, in the default (relevance) order.

    `source` is a shopping app's state (its `catalog` gives seed, flavour, locale and currency, and its `pinned`
    listings for this query are included) or a bare catalog seed with the keywords. Deterministic, and the same for
    every spelling of one normalised query; each listing has id, query, title (containing the normalised query),
    shop, price, list_price, sales, rating, reviews, badge. Prices and sales counts differ between the listings of
    one query. An empty query gives [].
    """
    norm = normalize_query(query)
    if not norm:
        return []
    pinned: list[dict[str, Any]] = []
    if isinstance(source, Mapping):
        cat = source["catalog"]
        seed, flavour, locale, currency = int(cat["seed"]), cat["flavour"], cat["locale"], cat["currency"]
        pinned = [dict(p) for p in source.get("pinned", []) if p["query"] == norm]
    else:
        seed = int(source)
    out = [dict(items) for items in _generate(seed, flavour, locale, currency, norm)]
    for k, p in enumerate(pinned):
        out.insert(min(len(out), 1 + 2 * k), p)
    return out


def sort_results(listings: list[dict[str, Any]], order: str) -> list[dict[str, Any]]:
    """Listings as the results screen shows them for a sort order: default, sales, price_asc or price_desc."""
    if order == "sales":
        return sorted(listings, key=lambda p: (-p["sales"], p["id"]))
    if order == "price_asc":
        return sorted(listings, key=lambda p: (p["price"], p["id"]))
    if order == "price_desc":
        return sorted(listings, key=lambda p: (-p["price"], p["id"]))
    return list(listings)


def pick(source: Mapping[str, Any] | int, query: str, which: str, **catalog: Any) -> dict[str, Any]:
    """The one listing a task names for a query: which = cheapest | most_expensive | best_selling | top_rated."""
    found = results(source, query, **catalog)
    if not found:
        raise ValueError("an empty query has no listings")
    keys = {"cheapest": lambda p: (p["price"], p["id"]), "most_expensive": lambda p: (-p["price"], p["id"]),
            "best_selling": lambda p: (-p["sales"], p["id"]), "top_rated": lambda p: (-p["rating"], -p["sales"], p["id"])}
    if which not in keys:
        raise ValueError(f"unknown choice {which!r}; use one of {', '.join(keys)}")
    return min(found, key=keys[which])


# ----- helpers the engine's handlers share ---------------------------------------------------------------------------
def _listing(state: Mapping[str, Any], pid: str | None, query: str = "") -> dict[str, Any] | None:
    """A listing by id: from the records the state keeps, else regenerated from its query."""
    for p in state["items"]:
        if p["id"] == pid:
            return p
    for p in results(state, query):
        if p["id"] == pid:
            return p
    return None


def _remember(ctx: Ctx, product: dict[str, Any]) -> None:
    if all(p["id"] != product["id"] for p in ctx.state["items"]):
        ctx.state["items"].append(dict(product))


def _open_product(ctx: Ctx, product: dict[str, Any]) -> None:
    _remember(ctx, product)
    ctx.state["viewed"].append(product["id"])
    ctx.push("product", id=product["id"], query=product["query"])


def _toggle_favorite(ctx: Ctx, pid: str, query: str) -> None:
    product = _listing(ctx.state, pid, query)
    if product is None:
        return
    favs = ctx.state["favorites"]
    if pid in favs:
        favs.remove(pid)
        ctx.toast("Removed from favorites")
    else:
        _remember(ctx, product)
        favs.append(pid)
        ctx.toast("Added to favorites")


def _add_to_cart(ctx: Ctx, pid: str, query: str) -> None:
    product = _listing(ctx.state, pid, query)
    if product is None:
        return
    _remember(ctx, product)
    for line in ctx.state["cart"]:
        if line["product"] == pid:
            line["qty"] += 1
            break
    else:
        ctx.state["cart"].append({"product": pid, "qty": 1, "selected": True})
    ctx.toast("Added to cart")


def _share(ctx: Ctx, pid: str, query: str, friend: str) -> None:
    product = _listing(ctx.state, pid, query)
    if product is None:
        return
    _remember(ctx, product)
    ctx.state["shares"].append({"product": pid, "to": friend})
    ctx.effect("share", product=pid, title=product["title"], to=friend, price=product["price"])
    ctx.pop()
    ctx.toast("Shared with {name}", name=friend)


def _buy_now(ctx: Ctx, pid: str, query: str) -> None:
    product = _listing(ctx.state, pid, query)
    if product is not None and ctx.require_login():
        _remember(ctx, product)
        ctx.push("checkout", buy_now=pid)


def _lines(state: Mapping[str, Any], lines: list[dict[str, Any]]) -> list[tuple[dict[str, Any], int]]:
    out = []
    for line in lines:
        product = _listing(state, line["product"])
        if product is not None:
            out.append((product, int(line["qty"])))
    return out


def _total(state: Mapping[str, Any], lines: list[dict[str, Any]]) -> float:
    return round(sum(p["price"] * q for p, q in _lines(state, lines)), 2)


def _pay(ctx: Ctx, *_: Any) -> None:
    s, p = ctx.state, ctx.params
    if ctx.fields.get("pay_password", "") != s["payment_password"]:
        s["failed_payments"] += 1
        ctx.set_field("pay_password", "")
        ctx.toast("Wrong payment password")
        return
    lines = [dict(line) for line in p.get("lines", [])]
    if not lines:
        ctx.toast("Nothing to pay for")
        return
    bought = _lines(s, lines)
    total = _total(s, lines)
    order = {"id": new_id(s["orders"]), "status": "Paid", "total": total, "address": s["address"],
             "items": [{"product": prod["id"], "title": prod["title"], "qty": q, "price": prod["price"]}
                       for prod, q in bought]}
    s["orders"].append(order)
    if not p.get("buy_now"):
        ids = {line["product"] for line in lines}
        s["cart"] = [line for line in s["cart"] if line["product"] not in ids]
    ctx.effect("payment", order=order["id"], amount=total, items=[dict(i) for i in order["items"]],
               merchant=ctx.app.name)
    ctx.reset_to("home")
    ctx.push("order_done", order=order["id"])


def _log_out(ctx: Ctx) -> None:
    ctx.state["logged_in"] = False
    ctx.effect("logout", account=ctx.state["user"])
    ctx.reset_to("login")


FRIENDS = {"zh": ("张伟", "李娜", "王芳", "刘洋", "陈静", "赵磊", "孙悦", "周杰", "吴敏", "郑浩"),
           "en": ("Alex Chen", "Maria Lopez", "Sam Taylor", "Priya Shah", "Tom Becker", "Lena Park", "Omar Haddad",
                  "Chloe Martin", "Ben Okafor", "Nina Rossi")}
USERS = {"zh": ("小明", "阿杰", "晓雯", "乐乐", "大鹏"), "en": ("Sam", "Jordan", "Casey", "Riley", "Morgan")}
ADDRESSES = {"zh": ("北京市朝阳区望京街10号", "上海市浦东新区世纪大道88号", "广州市天河区体育西路5号", "杭州市西湖区文三路218号"),
             "en": ("12 Oak Street, Springfield", "88 River Road, Lakeside", "5 Hill Lane, Westwood",
                    "240 King Street, Seattle")}


class ShoppingApp(App):
    """The shopping engine. A subclass gives the identity (name, names, package, colour, icon, currency), its
    `flavour` (a key of FLAVOURS), `feed` (home-feed and hot queries per language) and its own `strings`, which are
    laid over the engine's."""

    archetype = "shopping"
    login_required = True  # logged in by default; `setup_logged_out` puts the wall up
    flavour: ClassVar[str] = "taobao"
    feed: ClassVar[dict[str, tuple[str, ...]]] = {"zh": ("连衣裙", "蓝牙耳机", "运动鞋", "零食大礼包", "防晒霜"),
                                                  "en": ("dress", "bluetooth earbuds", "running shoes", "snacks",
                                                         "sunscreen")}
    strings: ClassVar[dict[str, dict[str, str]]] = {"zh": {
        "Search products": "搜索商品", "Type something to search": "请输入搜索内容", "Recommended for you": "猜你喜欢",
        "Recent searches": "历史搜索", "Hot searches": "热门搜索", "Clear": "清空", "Search history cleared": "已清空搜索历史",
        "No results for '{query}'": "没有找到“{query}”相关的商品", "Featured": "综合", "Price \u2191": "价格\u2191",
        "Price \u2193": "价格\u2193", "Sort by sales": "按销量排序", "Price: low to high": "价格从低到高",
        "Price: high to low": "价格从高到低", "Sort by relevance": "综合排序", "{n} sold": "已售 {n}",
        "{rating} stars, {n} reviews": "{rating} 分，{n} 条评价", "Was {price}": "原价 {price}", "{d} off": "{d}折",
        "Product details": "商品详情", "Favorite": "收藏", "Unfavorite": "取消收藏", "Shop": "店铺",
        "Free delivery in 2-3 days. 7-day returns.": "包邮，2-3 天送达。支持 7 天无理由退货。", "Share to": "分享给",
        "Send to a friend": "发送给好友", "Send to {name}?": "发送给{name}？", "Copy link": "复制链接",
        "Link copied": "链接已复制", "Shared with {name}": "已分享给{name}",
        "Cart ({n})": "购物车（{n}）", "Your cart is empty": "购物车是空的", "Total: {total}": "合计：{total}",
        "Select {title}": "选择{title}", "Decrease {title}": "减少{title}", "Increase {title}": "增加{title}",
        "Removed from cart": "已从购物车移除", "Confirm order": "确认订单", "Deliver to": "收货地址",
        "Payment method": "支付方式", "{app} balance": "{app}余额", "x{n}": "x{n}", "Payment": "付款",
        "Enter your 6-digit payment password": "请输入 6 位支付密码", "Confirm payment": "确认付款",
        "Nothing to pay for": "没有要支付的商品", "Forgot password?": "忘记密码？", "Reset password": "重置密码",
        "Contact support to reset your payment password.": "请联系客服重置支付密码。", "Payment successful": "支付成功",
        "Order #{id} paid: {total}": "订单 #{id} 已支付：{total}", "Back to home": "返回首页", "View orders": "查看订单",
        "My orders": "我的订单", "No orders yet": "还没有订单", "Order #{id}": "订单 #{id}", "Paid": "已支付",
        "{n} items": "{n} 件商品", "My favorites": "我的收藏", "No favorites yet": "还没有收藏", "Hello, {user}": "你好，{user}",
        "Log out?": "退出登录？", "You will need to log in again.": "需要重新登录。",
        "Clothes": "服装", "Shoes": "鞋靴", "Beauty": "美妆", "Phones": "手机", "Snacks": "零食", "Badge: {badge}": "标签：{badge}",
    }}

    def __init_subclass__(cls, **kw: Any) -> None:
        """A subclass's own `strings` are laid over the engine's (so each app's table holds only its own words)."""
        super().__init_subclass__(**kw)
        own = cls.__dict__.get("strings")
        if own is not None:
            base = ShoppingApp.strings
            cls.strings = {loc: {**base.get(loc, {}), **own.get(loc, {})} for loc in {*base, *own}}

    # ----- state -----------------------------------------------------------------------------------------
    def initial_state(self, rng: random.Random) -> dict[str, Any]:
        lang = "zh" if self.locale == "zh" else "en"
        return {
            "catalog": {"seed": rng.randrange(1 << 30), "flavour": self.flavour, "locale": lang,
                        "currency": self.currency},
            "pinned": [], "items": [], "history": [], "searches": [], "viewed": [], "cart": [], "favorites": [],
            "orders": [], "shares": [],
            "friends": [{"name": n} for n in rng.sample(FRIENDS[lang], 5)],
            "payment_password": "".join(rng.choice("0123456789") for _ in range(6)),
            "address": rng.choice(ADDRESSES[lang]), "user": rng.choice(USERS[lang]),
            "logged_in": True, "failed_payments": 0,
        }

    # ----- set-up hooks a task calls to make the phone fit its line ------------------------------------------------
    def setup_logged_out(self, ctx: Ctx) -> None:
        """Log the account out: the app opens on its login wall (a login records a `login` effect)."""
        ctx.state["logged_in"] = False

    def setup_friend(self, ctx: Ctx, name: str) -> None:
        """Make sure the share sheet lists a friend called `name` (first in the list)."""
        friends = [f for f in ctx.state["friends"] if f["name"] != name]
        ctx.state["friends"] = [{"name": name}] + friends

    def setup_payment_password(self, ctx: Ctx, password: str) -> None:
        """Set the 6-digit payment password the pay screen accepts."""
        ctx.state["payment_password"] = str(password)

    def setup_product(self, ctx: Ctx, query: str, title: str | None = None, price: float | None = None,
                      sales: int | None = None, shop: str | None = None, rating: float = 4.8) -> dict[str, Any]:
        """Guarantee a listing among the results for `query` (title containing the query by default; price and sales
        by default just under the cheapest and above the best-selling generated listing). Returns the listing;
        calling it again with the same query and title changes nothing."""
        norm = normalize_query(query)
        shown = " ".join(query.split())
        title = title or f"{shown} {'精选' if ctx.state['catalog']['locale'] == 'zh' else 'Select'}"
        for p in ctx.state["pinned"]:
            if p["query"] == norm and p["title"] == title:
                return dict(p)
        generated = results(ctx.state, shown)
        cheapest = min((p["price"] for p in generated), default=10.0)
        pid = f"{_digest(norm)}-p{sum(1 for p in ctx.state['pinned'] if p['query'] == norm) + 1}"
        product = {"id": pid, "query": norm, "title": title, "shop": shop or ctx.app_label,
                   "price": float(price) if price is not None else round(max(0.5, cheapest * 0.9), 2),
                   "list_price": float(price) if price is not None else round(max(0.5, cheapest * 0.9), 2),
                   "sales": int(sales) if sales is not None else max((p["sales"] for p in generated), default=0) + 7,
                   "rating": float(rating), "reviews": 100, "badge": FLAVOURS[self.flavour].badges[
                       ctx.state["catalog"]["locale"]][0], "color": 0}
        ctx.state["pinned"].append(product)
        return dict(product)

    def setup_cart(self, ctx: Ctx, query: str, count: int = 1) -> list[str]:
        """Put the first `count` listings of `query` in the cart (once each); returns their ids."""
        ids = []
        for product in results(ctx.state, query)[:count]:
            _remember(ctx, product)
            if all(line["product"] != product["id"] for line in ctx.state["cart"]):
                ctx.state["cart"].append({"product": product["id"], "qty": 1, "selected": True})
            ids.append(product["id"])
        return ids

    def setup_target(self, ctx: Ctx, name: str, query: str, by: str = "price_asc") -> dict[str, Any]:
        """Record in `targets[name]` the listing a task names among the results for `query`: the first as the results
        screen sorts them by `by` (`sales`: the best-selling, `price_asc`: the cheapest, `price_desc`: the most
        expensive, `default`). Returns the listing (also kept in `items`)."""
        if by not in SORTS:
            raise ValueError(f"setup_target: by must be one of {', '.join(SORTS)}, not {by!r}")
        found = sort_results(results(ctx.state, query), by)
        if not found:
            raise ValueError(f"setup_target: no listing for {query!r}")
        _remember(ctx, found[0])
        ctx.state.setdefault("targets", {})[name] = dict(found[0])
        return dict(found[0])

    # ----- shared pieces of screens ----------------------------------------------------------------------------
    def _nav(self, selected: int) -> Widget:
        screens = ("home", "favorites", "cart", "me")
        return Tabs(["Home", "Favorites", "Cart", "Me"], selected, icons=["home", "heart", "cart", "user"],
                    on_select=lambda c, i: c.reset_to(screens[i]) if i != selected else None, id="bottom_nav")

    def _sold(self, ctx: Ctx, n: int) -> str:
        return ctx.t("{n} sold", n=f"{n:,}")

    def _card(self, ctx: Ctx, p: dict[str, Any]) -> Widget:
        return Card(Image(desc=p["title"], height=240, color=COLORS[p["color"]]),
                    Text(p["title"], size="small", max_lines=2, id="product_title"),
                    Text(ctx.money(p["price"]), bold=True, color="danger", id="product_price"),
                    Text(self._sold(ctx, p["sales"]), size="tiny", color=GREY),
                    on_click=lambda c, p=p: _open_product(c, p), id="product", pad=20, gap=8)

    def _row(self, ctx: Ctx, p: dict[str, Any]) -> Widget:
        """One search result: image, title, price, sold count, rating, shop and badge."""
        extra = ctx.t("Was {price}", price=ctx.money(p["list_price"])) if p["list_price"] > p["price"] else ""
        return Row(Image(desc=p["title"], height=200, width=200, color=COLORS[p["color"]]),
                   Column(Text(p["title"], max_lines=2, id="result_title"),
                          Row(Text(ctx.money(p["price"]), size="title", bold=True, color="danger", id="result_price"),
                              Text(extra, size="tiny", color=GREY) if extra else None,
                              Text(self._sold(ctx, p["sales"]), size="small", color=GREY, id="result_sales"), gap=16),
                          Text(f"\u2605 {p['rating']}  \u00b7  {p['shop']}  \u00b7  {p['badge']}", size="tiny", color=GREY,
                               max_lines=1),
                          gap=6, weight=1.0),
                   pad=28, gap=24, id="result", on_click=lambda c, p=p: _open_product(c, p))

    def _current(self, ctx: Ctx) -> dict[str, Any]:
        """The listing a product / share screen shows (default: the first of the home feed)."""
        product = _listing(ctx.state, ctx.params.get("id"), ctx.params.get("query", ""))
        if product is None:
            lang = ctx.state["catalog"]["locale"]
            product = results(ctx.state, self.feed[lang][0])[0]
        return product

    # ----- screens ---------------------------------------------------------------------------------------------------
    def screen_home(self, ctx: Ctx) -> Widget:
        lang = ctx.state["catalog"]["locale"]
        feed = [p for q in self.feed[lang] for p in results(ctx.state, q)[:2]]
        cats = ("Clothes", "Shoes", "Beauty", "Phones", "Snacks")
        return Column(
            Text(ctx.app_label, size="title", bold=True, color="primary", pad=28, id="app_title"),
            Row(Input("query", hint="Search products", on_submit=_search, weight=1.0),
                Button("Search", style="text", id="search_button",
                       on_click=lambda c: _search(c, c.fields.get("query", ""))),
                pad=28, gap=20),
            Row(*[Text(cat, size="small", bg="surface", pad=18, radius=30, id="category",
                       on_click=lambda c, cat=cat: _search(c, c.t(cat))) for cat in cats], pad=28, gap=16),
            Scroll(Text("Recommended for you", bold=True, pad=28),
                   Grid(*[self._card(ctx, p) for p in feed], cols=2, gap=24, pad=28), id="feed"),
            self._nav(0))

    def screen_search(self, ctx: Ctx) -> Widget:
        lang = ctx.state["catalog"]["locale"]

        def clear(c: Ctx) -> None:
            c.state["history"] = []
            c.toast("Search history cleared")

        history = [Text(h, size="small", bg="surface", pad=18, radius=30, id="history_item",
                         on_click=lambda c, h=h: _search(c, h)) for h in ctx.state["history"]]
        hot = [ListItem(q, id="hot_search", on_click=lambda c, q=q: _search(c, q)) for q in self.feed[lang]]
        return Column(
            Row(Icon("back", desc="Navigate up", size=80, on_click=lambda c: c.back(), id="navigate_up"),
                Input("query", hint="Search products", on_submit=_search, weight=1.0),
                Button("Search", style="text", id="search_button",
                       on_click=lambda c: _search(c, c.fields.get("query", ""))), pad=28, gap=20),
            Scroll(Row(Text("Recent searches", size="small", color=GREY, weight=1.0),
                       Button("Clear", style="text", id="clear_history", on_click=clear) if history else None, pad=28),
                   *[Row(h, pad=28) for h in history[:6]],
                   Text("Hot searches", size="small", color=GREY, pad=28), *hot, id="search_list"))

    def screen_results(self, ctx: Ctx) -> Widget:
        lang = ctx.state["catalog"]["locale"]
        query = ctx.params.get("query") or self.feed[lang][0]
        sort = int(ctx.params.get("sort", 0))
        found = sort_results(results(ctx.state, query), SORTS[sort])
        chips = (("Featured", "Sort by relevance"), ("Sales", "Sort by sales"), ("Price \u2191", "Price: low to high"),
                 ("Price \u2193", "Price: high to low"))
        sort_row = sort_chips(chips, SORTS, sort, lambda c, i: c.replace("results", query=query, sort=i))
        body = [self._row(ctx, p) for p in found] or [no_results(ctx, query)]
        return Column(
            Row(Icon("back", desc="Navigate up", size=80, on_click=lambda c: c.back(), id="navigate_up"),
                Text(query, bg="surface", pad=24, radius=40, weight=1.0, max_lines=1, id="search_box",
                     on_click=_open_search),
                Icon("search", desc="Search", size=80, id="search", on_click=_open_search), pad=28, gap=20),
            sort_row, Divider(), Scroll(*body, id="results"))

    def screen_product(self, ctx: Ctx) -> Widget:
        p = self._current(ctx)
        pid, query = p["id"], p["query"]
        fav = pid in ctx.state["favorites"]
        stars = ctx.t("{rating} stars, {n} reviews", rating=p["rating"], n=f"{p['reviews']:,}")
        discount = ""
        if p["list_price"] > p["price"]:
            ratio = p["price"] / p["list_price"]
            # Chinese shops write the share of the list price paid ("3.5折"), English ones the share taken off
            discount = ctx.t("{d} off", d=f"{ratio * 10:.1f}" if ctx.locale == "zh" else f"{round((1 - ratio) * 100)}%")
        return Column(
            AppBar("Product details", actions=[
                Icon("share", desc="Share", size=80, id="share", on_click=lambda c: c.push("share", id=pid, query=query)),
                Icon("cart", desc="Cart", size=80, id="cart", on_click=lambda c: c.push("cart"))]),
            Scroll(Column(
                Image(desc=p["title"], height=640, color=COLORS[p["color"]]),
                Row(Text(ctx.money(p["price"]), size="big", bold=True, color="danger", id="price"),
                    Text(ctx.t("Was {price}", price=ctx.money(p["list_price"])), size="small", color=GREY,
                         id="list_price") if discount else None,
                    Text(discount, size="small", color="danger", id="discount") if discount else None,
                    Text("", weight=1.0),
                    Icon("heart_filled" if fav else "heart", desc="Unfavorite" if fav else "Favorite", size=90,
                         color="danger", id="favorite", selected=fav,
                         on_click=lambda c: _toggle_favorite(c, pid, query)), gap=20),
                Text(p["title"], size="title", bold=True, id="product_title"),
                Text(f"{self._sold(ctx, p['sales'])}  \u00b7  {stars}", size="small", color=GREY, id="product_stats"),
                Text(p["badge"], size="small", color="primary", bg="surface", pad=12, radius=16, id="badge",
                     desc=ctx.t("Badge: {badge}", badge=p["badge"])),
                Divider(),
                ListItem(p["shop"], "Shop", id="shop", leading=Icon("bag", desc="Shop", size=80, bg="primary")),
                Text("Free delivery in 2-3 days. 7-day returns.", size="small", color=GREY),
                pad=36, gap=24), id="product_scroll"),
            Row(Button("Add to cart", style="secondary", id="add_to_cart", weight=1.0,
                       on_click=lambda c: _add_to_cart(c, pid, query)),
                Button("Buy now", id="buy_now", weight=1.0, on_click=lambda c: _buy_now(c, pid, query)),
                pad=28, gap=24))

    def screen_share(self, ctx: Ctx) -> Widget:
        p = self._current(ctx)
        pid, query = p["id"], p["query"]
        def ask(name: str) -> Any:
            def handler(c: Ctx) -> None:
                c.confirm(c.t("Send to {name}?", name=name), p["title"], lambda c2: _share(c2, pid, query, name),
                          yes=c.t("Send"))
            return handler

        friends = [ListItem(f["name"], id="friend", leading=Icon(f["name"][:1], desc=f["name"], size=90, bg="primary"),
                            on_click=ask(f["name"])) for f in ctx.state["friends"]]
        return Column(
            AppBar("Share to"),
            Card(Row(Image(desc=p["title"], height=140, width=140, color=COLORS[p["color"]]),
                     Column(Text(p["title"], size="small", max_lines=2), Text(ctx.money(p["price"]), bold=True,
                                                                               color="danger"), weight=1.0, gap=8),
                     gap=20), pad=28),
            Text("Send to a friend", size="small", color=GREY, pad=28),
            Scroll(*friends,
                   Column(Button("Copy link", style="secondary", id="copy_link",
                                 on_click=lambda c: c.toast("Link copied")), pad=36), id="friends"))

    def screen_cart(self, ctx: Ctx) -> Widget:
        cart = ctx.state["cart"]

        def select(index: int) -> Any:
            def handler(c: Ctx, value: bool) -> None:
                c.state["cart"][index]["selected"] = value
            return handler

        def change(index: int, delta: int) -> Any:
            def handler(c: Ctx) -> None:
                line = c.state["cart"][index]
                line["qty"] += delta
                if line["qty"] <= 0:
                    c.state["cart"].pop(index)
                    c.toast("Removed from cart")
            return handler

        rows: list[Widget] = []
        for i, line in enumerate(cart):
            p = _listing(ctx.state, line["product"])
            if p is None:
                continue
            rows.append(Row(Checkbox("", line["selected"], select(i), id="select_item",
                                     desc=ctx.t("Select {title}", title=p["title"])),
                            Column(Text(p["title"], max_lines=2, id="item_title"),
                                   Text(ctx.money(p["price"]), bold=True, color="danger"), weight=1.0, gap=6),
                            Icon("minus", desc=ctx.t("Decrease {title}", title=p["title"]), size=64,
                                 on_click=change(i, -1), id="minus"),
                            Text(str(line["qty"]), id="item_qty"),
                            Icon("plus", desc=ctx.t("Increase {title}", title=p["title"]), size=64,
                                 on_click=change(i, 1), id="plus"),
                            pad=28, gap=16, id="cart_item"))
        selected = [line for line in cart if line["selected"]]
        return Column(
            AppBar(ctx.t("Cart ({n})", n=len(cart)), back=False),
            Scroll(*(rows or [Text("Your cart is empty", pad=80, align="center")]), id="cart_list"),
            Row(Text(ctx.t("Total: {total}", total=ctx.money(_total(ctx.state, selected))), size="title", bold=True,
                     weight=1.0, id="total"),
                Button("Checkout", id="checkout", enabled=bool(selected),
                       on_click=lambda c: c.push("checkout") if c.require_login() else None), pad=28),
            self._nav(2))

    def screen_checkout(self, ctx: Ctx) -> Widget:
        buy_now = ctx.params.get("buy_now")
        lines = ([{"product": buy_now, "qty": 1, "selected": True}] if buy_now is not None
                 else [dict(line) for line in ctx.state["cart"] if line["selected"]])
        total = _total(ctx.state, lines)
        rows = [ListItem(p["title"], ctx.t("x{n}", n=q), trailing=ctx.money(p["price"] * q), id="order_item")
                for p, q in _lines(ctx.state, lines)]
        return Column(
            AppBar("Confirm order"),
            Scroll(Card(Text("Deliver to", size="small", color=GREY), Text(ctx.state["address"], id="address")),
                   *rows,
                   Card(Text("Payment method", size="small", color=GREY),
                        Text(ctx.t("{app} balance", app=ctx.app_label), id="payment_method")),
                   id="checkout_list", gap=24, pad=28),
            Row(Text(ctx.t("Total: {total}", total=ctx.money(total)), size="title", bold=True, weight=1.0, id="total"),
                Button("Place order", id="place_order", enabled=bool(rows),
                       on_click=lambda c: c.push("pay", lines=lines, total=total, buy_now=buy_now is not None)),
                pad=28))

    def screen_pay(self, ctx: Ctx) -> Widget:
        total = float(ctx.params.get("total", 0.0))
        return Column(
            AppBar("Payment"),
            Column(Text("Enter your 6-digit payment password"),
                   Text(ctx.money(total), size="huge", bold=True, align="center", id="amount"),
                   Input("pay_password", hint="Payment password", password=True, on_submit=_pay),
                   Button("Confirm payment", id="confirm_payment", on_click=_pay),
                   Button("Forgot password?", style="text", id="forgot",
                          on_click=lambda c: c.dialog(c.t("Reset password"),
                                                      c.t("Contact support to reset your payment password."))),
                   pad=48, gap=36))

    def screen_order_done(self, ctx: Ctx) -> Widget:
        orders = ctx.state["orders"]
        order = next((o for o in orders if o["id"] == ctx.params.get("order")), orders[-1] if orders else None)
        text = (ctx.t("Order #{id} paid: {total}", id=order["id"], total=ctx.money(order["total"])) if order
                else ctx.t("No orders yet"))
        return Column(AppBar("Payment successful", back=False),
                      Column(Icon("check", desc="Payment successful", size=200, bg="primary"),
                             Text(text, size="title", align="center", id="order_summary"),
                             Button("View orders", style="secondary", id="view_orders",
                                    on_click=lambda c: c.reset_to("orders")),
                             Button("Back to home", id="back_home", on_click=lambda c: c.reset_to("home")),
                             pad=60, gap=40, align="center"))

    def screen_orders(self, ctx: Ctx) -> Widget:
        rows = [ListItem(ctx.t("Order #{id}", id=o["id"]),
                         f"{ctx.t('{n} items', n=sum(i['qty'] for i in o['items']))}  \u00b7  {o['items'][0]['title']}",
                         trailing=f"{ctx.money(o['total'])} {ctx.t(o['status'])}", id="order")
                for o in reversed(ctx.state["orders"])]
        return Column(AppBar("My orders"),
                      Scroll(*(rows or [Text("No orders yet", pad=80, align="center")]), id="orders_list"))

    def screen_favorites(self, ctx: Ctx) -> Widget:
        rows = []
        for pid in reversed(ctx.state["favorites"]):
            p = _listing(ctx.state, pid)
            if p is not None:
                rows.append(ListItem(p["title"], f"{ctx.money(p['price'])}  \u00b7  {p['shop']}", id="favorite_item",
                                     leading=Image(desc=p["title"], height=120, width=120, color=COLORS[p["color"]]),
                                     on_click=lambda c, p=p: _open_product(c, p)))
        return Column(AppBar("My favorites", back=False),
                      Scroll(*(rows or [Text("No favorites yet", pad=80, align="center")]), id="favorites_list"),
                      self._nav(1))

    def screen_me(self, ctx: Ctx) -> Widget:
        s = ctx.state
        return Column(
            AppBar("Me", back=False),
            Scroll(ListItem(ctx.t("Hello, {user}", user=s["user"]), s["address"], id="profile",
                            leading=Icon("user", desc="Profile", size=100, bg="primary")),
                   Divider(),
                   ListItem("My orders", trailing=str(len(s["orders"])), id="my_orders",
                            leading=Icon("list", desc="My orders", size=70), on_click=lambda c: c.push("orders")),
                   ListItem("My favorites", trailing=str(len(s["favorites"])), id="my_favorites",
                            leading=Icon("heart", desc="My favorites", size=70),
                            on_click=lambda c: c.reset_to("favorites")),
                   ListItem("Recent searches", trailing=str(len(s["history"])), id="my_searches",
                            leading=Icon("search", desc="Recent searches", size=70), on_click=_open_search),
                   Column(Button("Log out", style="danger", id="log_out",
                                 on_click=lambda c: c.confirm(c.t("Log out?"), c.t("You will need to log in again."),
                                                              _log_out, yes=c.t("Log out"))), pad=36),
                   id="me_list"),
            self._nav(3))


# ----- the apps --------------------------------------------------------------------------------------------------------
@register
class Taobao(ShoppingApp):
    name = "Taobao"
    names = {"zh": "淘宝"}
    package = "com.taobao.taobao"
    aliases = ("淘宝网", "tao bao", "手机淘宝")
    color = "#ff5000"
    icon = "淘"
    currency = "CNY"
    flavour = "taobao"
    strings = {"zh": {"{n} sold": "{n}人付款"}}


@register
class JD(ShoppingApp):
    name = "JD"
    names = {"zh": "京东"}
    package = "com.jingdong.app.mall"
    aliases = ("jingdong", "jd.com", "京东商城", "jd mall")
    color = "#e1251b"
    icon = "京"
    currency = "CNY"
    flavour = "jd"
    feed = {"zh": ("手机", "笔记本电脑", "洗衣液", "牛奶", "电动牙刷"),
            "en": ("phone", "laptop", "laundry detergent", "milk", "electric toothbrush")}
    strings = {"zh": {"{n} sold": "已售{n}"}}


@register
class Pinduoduo(ShoppingApp):
    name = "Pinduoduo"
    names = {"zh": "拼多多"}
    package = "com.xunmeng.pinduoduo"
    aliases = ("pdd", "拼夕夕", "pin duo duo")
    color = "#e02e24"
    icon = "拼"
    currency = "CNY"
    flavour = "pinduoduo"
    feed = {"zh": ("纸巾", "水果", "拖鞋", "收纳盒", "袜子"), "en": ("tissues", "fruit", "slippers", "storage box", "socks")}
    strings = {"zh": {"{n} sold": "已拼{n}件"}}


@register
class Vipshop(ShoppingApp):
    name = "Vipshop"
    names = {"zh": "唯品会"}
    package = "com.achievo.vipshop"
    aliases = ("weipinhui", "vip.com", "wei pin hui")
    color = "#f10180"
    icon = "唯"
    currency = "CNY"
    flavour = "vipshop"
    feed = {"zh": ("运动鞋", "羽绒服", "口红", "双肩包", "牛仔裤"), "en": ("sneakers", "down jacket", "lipstick", "backpack", "jeans")}
    strings = {"zh": {"{n} sold": "已售{n}件"}}


@register
class AmazonShopping(ShoppingApp):
    name = "Amazon Shopping"
    key = "amazon_shopping"  # resolves by its name too (normalised names ignore the underscore)
    names = {"zh": "亚马逊购物"}
    package = "com.amazon.mShop.android.shopping"
    aliases = ("amazon", "亚马逊", "amazon.com")
    color = "#232f3e"
    icon = "cart"
    currency = "USD"
    flavour = "amazon"
    feed = {"zh": ("保温杯", "电子书阅读器", "维生素", "登山包", "咖啡豆"),
            "en": ("water bottle", "kindle", "vitamins", "hiking backpack", "coffee beans")}
    strings = {"zh": {"{n} sold": "已售 {n}"}}
