"""Payment apps (Alipay): one engine with a home page of services the user arranges ("More", then "Edit": add a
service such as Stocks to the home page), a search for any service or mini program, mini programs that ask for an
authorisation on first open (a sheet with Allow / Deny that the user must decide) and that the user collects into "My
mini programs", transfers to friends paid from a chosen method (balance, Yu'e Bao, a bound bank card) with the payment
password, bills, and a login wall.

Search answers any query: `results(state, query)` generates the mini programs from the query and the app's catalog
seed (a pure function, so a judge computes what the phone shows from the same state); the first one is the official
mini program named exactly as the query, and services whose name contains the query come first.

State (a judge reads it by path, e.g. `alipay.home_apps`, `alipay.mini_programs[name=Subway].collected`):
  catalog        {"seed", "locale"}: what `results` draws mini programs from; `pinned`: {name: scope} set-up overrides
  user           {"name", "account"}; `friends`: [{"id", "name", "account"}]
  funds          {"balance", "yuebao", "cards": [{"bank", "last4"}]}
  home_apps      service keys on the home page, in order (at most HOME_MAX); SERVICES lists every service
  authorized     {service or mini program id: true|false}: the user's answer to its authorisation sheet
  mini_programs  every mini program opened, with "collected" (in My mini programs) and "scope"
  history        searches, most recent first; `transfers`: what was paid
  payment_password, failed_payments, logged_in
Effects: `transfer` (to, contact, account, amount, note, method, method_label, payment), `permission` (permission =
scope, app, id, granted), `login`, `logout`. Collecting a mini program and arranging the home page are state.
"""

from __future__ import annotations

import hashlib
import random
from typing import Any, Callable, ClassVar, Mapping

from mobile_r1.sim.apps import App, Ctx, new_id, register
from mobile_r1.sim.apps._payment import PAYMENT_ZH, Method, parse_amount, password_ok, pay_sheet
from mobile_r1.sim.ui.widgets import (AppBar, Button, Card, Column, Divider, Grid, Icon, Input, ListItem, Row, Scroll,
                                      Tabs, Text, Widget)

GREY = (120, 122, 130)
HOME_MAX = 11  # home apps besides "More"
TABS = ("home", "wealth", "friends", "me")


class Service:
    """A built-in service: its English name, glyph (empty: the first character of its name in the phone's language),
    category and the scope it asks for before first use (or none)."""

    __slots__ = ("key", "label", "glyph", "category", "scope")

    def __init__(self, key: str, label: str, glyph: str, category: str, scope: str | None = None) -> None:
        self.key, self.label, self.glyph, self.category, self.scope = key, label, glyph, category, scope


SERVICES: dict[str, Service] = {s.key: s for s in (
    Service("transfer", "Transfer", "send", "Convenience"),
    Service("bills", "Bills", "list", "Convenience"),
    Service("mini_programs", "Mini programs", "star", "Convenience"),
    Service("top_up", "Top-up", "", "Convenience"),
    Service("utilities", "Utilities", "home", "Convenience"),
    Service("credit_card", "Card repay", "bag", "Convenience"),
    Service("yuebao", "Yu'e Bao", "¥", "Wealth"),
    Service("stocks", "Stocks", "", "Wealth", scope="identity"),
    Service("funds", "Funds", "", "Wealth", scope="identity"),
    Service("insurance", "Insurance", "", "Wealth", scope="phone"),
    Service("huabei", "Huabei", "", "Wealth"),
    Service("sesame", "Sesame Credit", "", "Wealth", scope="identity"),
    Service("express", "Parcels", "bag", "Life", scope="phone"),
    Service("health", "Health", "heart", "Life"),
    Service("taxi", "Taxi", "", "Life", scope="location"),
    Service("movies", "Movies", "", "Life", scope="location"),
)}
CATEGORIES = ("Convenience", "Wealth", "Life")
DEFAULT_HOME = ("transfer", "yuebao", "bills", "top_up", "utilities", "credit_card", "mini_programs", "huabei")
# What an authorisation sheet asks for, by scope.
SCOPES = {"location": "your location", "phone": "your phone number", "identity": "your name and ID number"}

_MINI = {"en": ("{q}", "{q} Coupons", "{q} Delivery", "{q} Member Club", "{q} Near Me", "{q} Store Finder",
                "{q} Gift Cards"),
         "zh": ("{q}", "{q}优惠券", "{q}外卖", "{q}会员中心", "附近的{q}", "{q}门店查询", "{q}礼品卡")}
_MINI_KINDS = (("Food", "location"), ("Shopping", "phone"), ("Travel", "location"), ("Life services", "phone"))
_DATA: dict[str, dict[str, tuple[str, ...]]] = {
    "en": {"friends": ("Li Wei", "Zhang Min", "Wang Fang", "Chen Jie", "Liu Yang", "Zhao Lei", "Huang Ting",
                       "Zhou Hao", "Wu Jing", "Xu Qiang", "Sun Yue", "Ma Lin"),
           "users": ("Chen Yu", "Lin Xiao", "Wang Hao", "Zhang Qing"),
           "banks": ("China Merchants Bank", "Bank of China", "China Construction Bank", "Agricultural Bank"),
           "indices": ("Shanghai Composite", "Shenzhen Component", "ChiNext Index")},
    "zh": {"friends": ("王伟", "张敏", "王芳", "陈杰", "刘洋", "赵磊", "黄婷", "周浩", "吴静", "徐强", "孙悦", "马琳"),
           "users": ("陈宇", "林晓", "王浩", "张清"),
           "banks": ("招商银行", "中国银行", "建设银行", "农业银行"),
           "indices": ("上证指数", "深证成指", "创业板指")},
}

# The engine's words in Chinese; each app lays its own over them.
ENGINE_ZH: dict[str, str] = {
    **PAYMENT_ZH,
    "Transfer": "转账", "Bills": "账单", "Mini programs": "小程序", "Top-up": "充值中心", "Utilities": "生活缴费",
    "Card repay": "信用卡还款", "Yu'e Bao": "余额宝", "Stocks": "股票", "Funds": "基金", "Insurance": "保险",
    "Huabei": "花呗", "Sesame Credit": "芝麻信用", "Parcels": "我的快递", "Health": "医疗健康", "Taxi": "打车",
    "Movies": "电影演出", "Convenience": "便民生活", "Wealth": "理财", "Life": "生活服务", "Friends": "朋友",
    "your location": "你的位置信息", "your phone number": "你的手机号码", "your name and ID number": "你的姓名和身份证号",
    "Search services and mini programs": "搜索服务、小程序", "All services": "全部应用",
    "My home apps": "首页应用", "Add {name} to home": "添加{name}到首页",
    "Remove {name} from home": "从首页移除{name}", "Added to home": "已添加到首页", "Removed from home": "已从首页移除",
    "The home page is full: remove an app first": "首页应用已满，请先移除一个", "Add to home": "添加到首页",
    "Remove from home": "从首页移除",
    "Recent searches": "最近搜索", "Mini program \u00b7 {category} \u00b7 {users} users a month":
    "小程序 \u00b7 {category} \u00b7 月活 {users}", "Service": "服务", "Official": "官方",
    "Food": "美食", "Shopping": "购物", "Travel": "出行", "Life services": "生活服务",
    "{name} requests": "{name}申请", "Get {scope}": "获取{scope}", "Deny": "拒绝",
    "{name} will use {scope} to provide its service.": "{name}将使用{scope}为你提供服务。",
    "Not authorised: {scope}": "未授权：{scope}", "{name} needs your authorisation": "{name}需要你的授权",
    "Add to My mini programs": "添加到我的小程序", "Remove from My mini programs": "从我的小程序移除",
    "Added to My mini programs": "已添加到我的小程序", "Removed from My mini programs": "已从我的小程序移除",
    "My mini programs": "我的小程序", "No mini programs yet": "还没有小程序", "{name} \u00b7 {rating} stars":
    "{name} \u00b7 {rating} 分", "Offers": "优惠活动", "New user gift": "新人礼包", "Member day": "会员日",
    "Weekend special": "周末特惠", "Transfer to a friend": "转账给朋友", "Search friends": "搜索朋友",
    "Transfer to {name}": "转账给{name}", "Add a note (optional)": "添加转账说明（选填）", "Confirm transfer": "确认转账",
    "Transfer successful": "转账成功",
    "Note: {note}": "备注：{note}", "Balance": "账户余额", "Total assets": "总资产", "Bank cards": "银行卡",
    "Yesterday's earnings {amount}": "昨日收益 {amount}", "No bills yet": "暂无账单",
    "Account: {account}": "账号：{account}", "Log out?": "退出登录？", "You will need to log in again.": "需要重新登录。",
    "Index": "指数", "Watchlist": "自选股", "No stocks in your watchlist yet": "自选股为空",
    "Remove {name}": "移除{name}", "Ready to use": "可以使用了", "More options": "更多选项",
}


# ----- the mini program generator (pure: judges import it) --------------------------------------------------------------
def normalize_query(query: str) -> str:
    """The query as search uses it: outer spaces dropped, inner runs of spaces made one."""
    return " ".join(query.split())


def _digest(text: str) -> int:
    return int(hashlib.sha1(text.encode("utf-8")).hexdigest()[:12], 16)


def service_name(key: str, locale: str) -> str:
    """A service's name in `locale`."""
    label = SERVICES[key].label
    return ENGINE_ZH.get(label, label) if locale == "zh" else label


def results(source: Mapping[str, Any] | int, query: str, *, locale: str = "zh") -> list[dict[str, Any]]:
    """What a search for `query` lists: services whose name contains it (an exact service name lists only services),
    then mini programs generated from the query and the seed, the official one (named exactly `query`) first.

    `source` is the app's state (its catalog's seed and locale, and the scopes set-up pinned) or a seed. Each result:
    {"id", "name", "kind": "service"|"mini_program", "service" (kind service), "category", "scope", "users",
    "rating", "official", "query"}.
    """
    pinned: Mapping[str, Any] = {}
    if isinstance(source, Mapping):
        seed, locale, pinned = int(source["catalog"]["seed"]), source["catalog"]["locale"], source.get("pinned", {})
    else:
        seed = int(source)
    q = normalize_query(query)
    if not q:
        return []
    low = q.lower()
    found: list[dict[str, Any]] = []
    exact = False
    for key, svc in SERVICES.items():
        names = (svc.label.lower(), ENGINE_ZH.get(svc.label, svc.label).lower())
        if any(low in n for n in names):
            exact = exact or low in names
            found.append({"id": f"svc_{key}", "name": service_name(key, locale), "kind": "service", "service": key,
                          "category": svc.category, "scope": svc.scope, "users": 0, "rating": 0.0, "official": True,
                          "query": q})
    if exact:
        return found
    rng = random.Random(_digest(f"{seed}:{locale}:{low}"))
    forms = _MINI.get(locale, _MINI["en"])
    extra = rng.sample(forms[1:], rng.randint(3, 5))
    users = sorted((rng.randint(20_000, 9_000_000) for _ in range(1 + len(extra))), reverse=True)
    for i, form in enumerate((forms[0], *extra)):
        name = form.format(q=q)
        category, scope = _MINI_KINDS[_digest(f"{seed}:{name}") % len(_MINI_KINDS)]
        if name in pinned:
            scope = pinned[name]
        found.append({"id": "mp_" + hashlib.sha1(f"{seed}:{locale}:{name}".encode("utf-8")).hexdigest()[:10],
                      "name": name, "kind": "mini_program", "service": None, "category": category, "scope": scope,
                      "users": users[i], "rating": round(rng.uniform(3.6, 5.0), 1), "official": i == 0, "query": q})
    return found


# ----- handlers ------------------------------------------------------------------------------------------------------
def _search(ctx: Ctx, text: str) -> None:
    q = normalize_query(text)
    if not q:
        return
    history = ctx.state["history"]
    if q in history:
        history.remove(q)
    history.insert(0, q)
    ctx.params["query"] = q
    ctx.frame["focus"] = None


def _mini(ctx: Ctx, mid: str) -> dict[str, Any] | None:
    return next((m for m in ctx.state["mini_programs"] if m["id"] == mid), None)


def _open_result(ctx: Ctx, item: dict[str, Any]) -> None:
    if item["kind"] == "service":
        _open_service(ctx, item["service"])
        return
    known = _mini(ctx, item["id"])
    if known is None:
        known = {k: item[k] for k in ("id", "name", "category", "scope", "users", "rating", "official", "query")}
        known["collected"] = False
        ctx.state["mini_programs"].append(known)
    if known["scope"] and ctx.state["authorized"].get(known["id"]) is not True:
        ctx.push("authorize", target=known["id"], then="open")
    else:
        ctx.push("mini_program", id=known["id"])


def _open_service(ctx: Ctx, key: str) -> None:
    svc = SERVICES[key]
    if svc.scope and ctx.state["authorized"].get(f"svc_{key}") is not True:
        ctx.push("authorize", target=f"svc_{key}", then="open")
        return
    screen = {"transfer": "transfer", "bills": "bills", "mini_programs": "my_mini_programs", "stocks": "stocks",
              "yuebao": "wealth"}.get(key, "service")
    ctx.push(screen, service=key)


def _add_home(ctx: Ctx, key: str) -> bool:
    home = ctx.state["home_apps"]
    if key in home:
        return True
    svc = SERVICES[key]
    if svc.scope and ctx.state["authorized"].get(f"svc_{key}") is not True:
        ctx.push("authorize", target=f"svc_{key}", then="add_home")
        return False
    if len(home) >= HOME_MAX:
        ctx.toast("The home page is full: remove an app first")
        return False
    home.append(key)
    ctx.toast("Added to home")
    return True


def _remove_home(ctx: Ctx, key: str) -> None:
    if key in ctx.state["home_apps"]:
        ctx.state["home_apps"].remove(key)
        ctx.toast("Removed from home")


def _toggle_collect(ctx: Ctx, mid: str) -> None:
    mini = _mini(ctx, mid)
    if mini is None:
        return
    mini["collected"] = not mini["collected"]  # state, not an effect: it can be undone
    ctx.toast("Added to My mini programs" if mini["collected"] else "Removed from My mini programs")


def _log_out(ctx: Ctx) -> None:
    ctx.state["logged_in"] = False
    ctx.effect("logout", account=ctx.state["user"]["account"])
    ctx.reset_to("login")


class PaymentsApp(App):
    """The payments engine. A subclass gives the identity (name, names, package, colour, icon, currency) and its own
    `strings`, laid over the engine's."""

    archetype = "payments"
    currency = "CNY"
    login_required = True  # logged in by default; `setup_logged_out` puts the wall up
    tab_names: ClassVar[tuple[str, str, str, str]] = ("Home", "Wealth", "Friends", "Me")
    strings: ClassVar[dict[str, dict[str, str]]] = {"zh": ENGINE_ZH}

    def __init_subclass__(cls, **kw: Any) -> None:
        """A subclass's own `strings` are laid over the engine's."""
        super().__init_subclass__(**kw)
        own = cls.__dict__.get("strings")
        if own is not None:
            base = PaymentsApp.strings
            cls.strings = {loc: {**base.get(loc, {}), **own.get(loc, {})} for loc in {*base, *own}}

    def _lang(self) -> str:
        return "zh" if self.locale == "zh" else "en"

    # ----- state -------------------------------------------------------------------------------------------------
    def initial_state(self, rng: random.Random) -> dict[str, Any]:
        data = _DATA[self._lang()]
        friends = [{"id": i + 1, "name": n, "account": _phone(rng)} for i, n in enumerate(rng.sample(data["friends"], 8))]
        return {
            "catalog": {"seed": rng.randrange(1 << 30), "locale": self._lang()}, "pinned": {},
            "user": {"name": rng.choice(data["users"]), "account": _phone(rng)},
            "friends": friends,
            "funds": {"balance": round(rng.uniform(500, 3000), 2), "yuebao": round(rng.uniform(3000, 30000), 2),
                      "cards": [{"bank": rng.choice(data["banks"]), "last4": f"{rng.randint(0, 9999):04d}"}]},
            "home_apps": list(DEFAULT_HOME), "authorized": {}, "mini_programs": [], "history": [], "transfers": [],
            "indices": [{"name": n, "value": round(rng.uniform(1800, 11000), 2),
                         "change": round(rng.uniform(-2.5, 2.5), 2)} for n in data["indices"]],
            "payment_password": "".join(rng.choice("0123456789") for _ in range(6)), "failed_payments": 0,
            "logged_in": True,
        }

    # ----- set-up hooks a task calls to make the phone fit its line --------------------------------------------------
    def setup_logged_out(self, ctx: Ctx) -> None:
        """Log the account out: the app opens on its login wall."""
        ctx.state["logged_in"] = False

    def setup_friend(self, ctx: Ctx, name: str, account: str | None = None) -> int:
        """Make sure a friend called `name` exists (with `account` when given); returns their id."""
        want = name.strip().lower()
        friend = next((f for f in ctx.state["friends"] if f["name"].strip().lower() == want), None)
        if friend is None:
            friend = {"id": new_id(ctx.state["friends"]), "name": name,
                      "account": account or _phone(random.Random(f"friend:{name}"))}
            ctx.state["friends"].append(friend)
        elif account:
            friend["account"] = account
        return int(friend["id"])

    def setup_balance(self, ctx: Ctx, amount: float, method: str = "balance") -> None:
        """Set what `method` holds: "balance" or "yuebao" (bank cards have no limit)."""
        if method not in ("balance", "yuebao"):
            raise ValueError("method must be balance or yuebao")
        ctx.state["funds"][method] = round(float(amount), 2)

    def setup_payment_password(self, ctx: Ctx, password: str) -> None:
        ctx.state["payment_password"] = str(password)

    def setup_home(self, ctx: Ctx, apps: list[str] | None = None, remove: list[str] | None = None) -> None:
        """Set the home page's services (keys of SERVICES), or take `remove` off it (e.g. ["stocks"])."""
        if apps is not None:
            ctx.state["home_apps"] = [a for a in apps if a in SERVICES][:HOME_MAX]
        for key in remove or ():
            if key in ctx.state["home_apps"]:
                ctx.state["home_apps"].remove(key)

    def setup_mini_program(self, ctx: Ctx, name: str, scope: str | None = "location", collected: bool = False) -> None:
        """Make the mini program a search for `name` lists first ask for `scope` (location, phone, identity or None)
        on first open; with `collected` it is already in My mini programs."""
        if scope is not None and scope not in SCOPES:
            raise ValueError(f"scope must be one of {', '.join(SCOPES)} or None")
        ctx.state["pinned"][name] = scope
        if collected:
            item = results(ctx.state, name)[0]
            known = _mini(ctx, item["id"])
            if known is None:
                known = {k: item[k] for k in ("id", "name", "category", "scope", "users", "rating", "official", "query")}
                ctx.state["mini_programs"].append(known)
            known["collected"] = True

    # ----- shared pieces -------------------------------------------------------------------------------------------
    def _nav(self, selected: int) -> Widget:
        return Tabs(list(self.tab_names), selected, icons=["home", "star", "person", "user"], id="bottom_nav",
                    on_select=lambda c, i: c.reset_to(TABS[i]) if i != selected else None)

    def _tile(self, ctx: Ctx, key: str, on_click: Callable[[Ctx], None] | None, id: str = "service") -> Widget:
        svc = SERVICES[key]
        return Icon(svc.glyph or ctx.t(svc.label)[:1], desc=svc.label, size=100, bg="primary", round=False,
                    label=svc.label, id=id, on_click=on_click)

    def _methods(self, ctx: Ctx) -> list[Method]:
        f = ctx.state["funds"]
        return ([Method("balance", ctx.t("Balance"), float(f["balance"])),
                 Method("yuebao", ctx.t("Yu'e Bao"), float(f["yuebao"]))]
                + [Method("card" if i == 0 else f"card{i + 1}", ctx.t("{bank} debit card ({last4})", bank=c["bank"],
                                                                      last4=c["last4"]))
                   for i, c in enumerate(f["cards"])])

    # ----- home, search, services ------------------------------------------------------------------------------------
    def screen_home(self, ctx: Ctx) -> Widget:
        s = ctx.state
        tiles = [self._tile(ctx, k, lambda c, k=k: _open_service(c, k), id=f"home_{k}") for k in s["home_apps"]]
        tiles.append(Icon("more", desc="More", size=100, bg="primary", round=False, label="More", id="more_apps",
                          on_click=lambda c: c.push("all_services")))
        return Column(
            Row(Text(ctx.app_label, size="title", bold=True, color=(255, 255, 255)),
                Row(Icon("search", desc="Search", size=60, color=(120, 122, 130)),
                    Text("Search services and mini programs", size="small", color=GREY, weight=1.0, max_lines=1),
                    bg=(255, 255, 255), radius=30, pad=16, gap=12, weight=1.0, id="search_bar",
                    on_click=lambda c: c.push("search")),
                pad=28, gap=24, bg="primary"),
            Scroll(Grid(*tiles, cols=4, gap=28, pad=32, id="home_apps"),
                   Divider(),
                   Card(Text("Yu'e Bao", bold=True),
                        Text(ctx.money(s["funds"]["yuebao"]), size="big", bold=True, id="yuebao_amount"),
                        on_click=lambda c: c.reset_to("wealth"), id="yuebao_card"),
                   id="home_scroll", pad=12),
            self._nav(0))

    def screen_all_services(self, ctx: Ctx) -> Widget:
        s = ctx.state
        editing = bool(ctx.params.get("edit"))

        def toggle_edit(c: Ctx) -> None:
            c.params["edit"] = not editing

        def cell(key: str, on_home: bool) -> Widget:
            name = ctx.t(SERVICES[key].label)
            if not editing:
                return self._tile(ctx, key, lambda c, k=key: _open_service(c, k))
            if on_home:
                badge = Icon("minus", desc=ctx.t("Remove {name} from home", name=name), size=56, bg="danger",
                             id="remove_home", on_click=lambda c, k=key: _remove_home(c, k))
            else:
                badge = Icon("plus", desc=ctx.t("Add {name} to home", name=name), size=56, bg="primary", id="add_home",
                             on_click=lambda c, k=key: _add_home(c, k))
            return Column(self._tile(ctx, key, None, id="service_tile"), badge, gap=4, align="center")

        sections: list[Widget] = [
            Row(Text("My home apps", bold=True, weight=1.0),
                Button("Done" if editing else "Edit", style="text", id="edit_home", on_click=toggle_edit), pad=28),
            Grid(*[cell(k, True) for k in s["home_apps"]], cols=4, gap=24, pad=28, id="home_grid"),
            Divider()]
        for cat in CATEGORIES:
            keys = [k for k, v in SERVICES.items() if v.category == cat and (not editing or k not in s["home_apps"])]
            if not keys:
                continue
            sections += [Text(cat, bold=True, pad=28),
                         Grid(*[cell(k, k in s["home_apps"]) for k in keys], cols=4, gap=24, pad=28,
                              id=f"category_{cat.lower()}")]
        return Column(AppBar("All services"), Scroll(*sections, id="services_scroll"))

    def screen_search(self, ctx: Ctx) -> Widget:
        query = ctx.params.get("query", "")
        rows: list[Widget] = []
        if query:
            for item in results(ctx.state, query):
                if item["kind"] == "service":
                    sub = ctx.t("Service")
                    lead = self._tile(ctx, item["service"], None, id="result_icon")
                else:
                    sub = ctx.t("Mini program \u00b7 {category} \u00b7 {users} users a month",
                                category=ctx.t(item["category"]), users=f"{item['users']:,}")
                    lead = Icon(item["name"][:1], desc=item["name"], size=100, bg=(80, 120, 200), round=False)
                rows.append(ListItem(item["name"], sub, id="result", leading=lead,
                                     trailing=ctx.t("Official") if item["official"] and item["kind"] != "service"
                                     else None,
                                     on_click=lambda c, it=item: _open_result(c, it)))
            if not rows:
                rows.append(Text("No results", pad=60, color=GREY, align="center"))
        else:
            history = ctx.state["history"]
            if history:
                rows.append(Text("Recent searches", size="small", color=GREY, pad=28))
                rows += [ListItem(h, id="history", leading=Icon("search", desc="Search", size=60, color=GREY),
                                  on_click=lambda c, h=h: _search(c, h)) for h in history[:8]]
        return Column(
            AppBar("Search", actions=[Button("Search", style="text", id="search_go",
                                             on_click=lambda c: _search(c, c.fields.get("query", "")))]),
            Column(Input("query", hint="Search services and mini programs", on_submit=_search), pad=20),
            Scroll(*rows, id="results"))

    def screen_service(self, ctx: Ctx) -> Widget:
        key = ctx.params.get("service", "top_up")
        key = key if key in SERVICES else "top_up"
        svc = SERVICES[key]
        on_home = key in ctx.state["home_apps"]
        return Column(
            AppBar(svc.label),
            Column(Icon(svc.glyph or ctx.t(svc.label)[:1], desc=svc.label, size=200, bg="primary", round=False),
                   Text(svc.label, size="big", bold=True, align="center", id="service_name"),
                   Text("Ready to use", color=GREY, align="center"),
                   Button("Remove from home" if on_home else "Add to home", style="secondary" if on_home else "primary",
                          id="toggle_home",
                          on_click=(lambda c: _remove_home(c, key)) if on_home else (lambda c: _add_home(c, key))),
                   pad=60, gap=32, align="center"))

    def screen_stocks(self, ctx: Ctx) -> Widget:
        on_home = "stocks" in ctx.state["home_apps"]
        rows = [ListItem(i["name"], f"{i['value']:,.2f}", id="index",
                         trailing=Text(f"{i['change']:+.2f}%", size="small",
                                       color=(220, 50, 50) if i["change"] >= 0 else (30, 150, 60)))
                for i in ctx.state["indices"]]
        return Column(
            AppBar("Stocks"),
            Scroll(Text("Index", size="small", color=GREY, pad=28), *rows,
                   Text("Watchlist", size="small", color=GREY, pad=28),
                   Text("No stocks in your watchlist yet", color=GREY, pad=40),
                   Column(Button("Remove from home" if on_home else "Add to home",
                                 style="secondary" if on_home else "primary", id="toggle_home",
                                 on_click=(lambda c: _remove_home(c, "stocks")) if on_home
                                 else (lambda c: _add_home(c, "stocks"))), pad=40),
                   id="stocks_scroll"))

    def _target(self, ctx: Ctx, tid: str) -> tuple[str, str | None]:
        """The name and scope of a service ("svc_<key>") or an opened mini program."""
        if tid.startswith("svc_") and tid[4:] in SERVICES:
            svc = SERVICES[tid[4:]]
            return ctx.t(svc.label), svc.scope
        mini = _mini(ctx, tid)
        if mini is not None:
            return mini["name"], mini["scope"]
        return ctx.t("Stocks"), "identity"

    def screen_authorize(self, ctx: Ctx) -> Widget:
        tid = str(ctx.params.get("target", "svc_stocks"))
        then = ctx.params.get("then", "open")
        name, scope = self._target(ctx, tid)
        scope_text = ctx.t(SCOPES.get(scope or "phone", "your phone number"))

        def decide(granted: bool) -> Callable[[Ctx], None]:
            def handler(c: Ctx) -> None:
                c.state["authorized"][tid] = granted
                c.effect("permission", permission=scope, app=name, id=tid, scope=scope, granted=granted)
                c.pop()
                if tid.startswith("svc_"):
                    key = tid[4:]
                    if not granted:
                        c.toast("{name} needs your authorisation", name=name)
                    elif then == "add_home":
                        _add_home(c, key)
                    else:
                        _open_service(c, key)
                else:
                    c.push("mini_program", id=tid)
            return handler

        return Column(
            AppBar(name, back=True),
            Column(Icon(name[:1], desc=name, size=160, bg=(80, 120, 200), round=False),
                   Text(ctx.t("{name} requests", name=name), size="title", bold=True, align="center",
                        id="authorize_title"),
                   Text(ctx.t("Get {scope}", scope=scope_text), size="big", align="center", id="authorize_scope"),
                   Text(ctx.t("{name} will use {scope} to provide its service.", name=name, scope=scope_text),
                        color=GREY, align="center"),
                   pad=60, gap=36, align="center"),
            Row(Button("Deny", style="secondary", id="deny", on_click=decide(False), weight=1.0),
                Button("Allow", id="allow", on_click=decide(True), weight=1.0), pad=48, gap=28))

    def screen_mini_program(self, ctx: Ctx) -> Widget:
        minis = ctx.state["mini_programs"]
        mini = _mini(ctx, ctx.params.get("id", "")) or (minis[0] if minis else None)
        if mini is None:  # nothing opened yet (a gallery): a coffee shop's mini program
            mini = {**results(ctx.state, "咖啡" if ctx.locale == "zh" else "Coffee")[0], "collected": False}
        mid = mini["id"]
        collected = bool(mini.get("collected"))
        label = "Remove from My mini programs" if collected else "Add to My mini programs"
        denied = mini["scope"] and ctx.state["authorized"].get(mid) is not True
        offers = [ListItem(o, id="offer", leading=Icon("star", desc=o, size=70, color="primary"))
                  for o in ("New user gift", "Member day", "Weekend special")]
        return Column(
            AppBar(mini["name"], actions=[
                Icon("star_filled" if collected else "star", desc=label, size=80, id="collect",
                     color="primary" if collected else None, selected=collected,
                     on_click=lambda c: _toggle_collect(c, mid)),
                Icon("more", desc="More options", size=80, id="mini_more",
                     on_click=lambda c: c.menu([(c.t(label), lambda c2: _toggle_collect(c2, mid)),
                                                (c.t("Close"), lambda c2: c2.pop())]))]),
            Scroll(Column(Icon(mini["name"][:1], desc=mini["name"], size=160, bg=(80, 120, 200), round=False),
                          Text(mini["name"], size="big", bold=True, align="center", id="mini_name"),
                          Text(ctx.t("{name} \u00b7 {rating} stars", name=ctx.t(mini["category"]), rating=mini["rating"]),
                               color=GREY, align="center"),
                          Text(ctx.t("Not authorised: {scope}", scope=ctx.t(SCOPES[mini["scope"]])), size="small",
                               color="danger", align="center", id="not_authorised") if denied else None,
                          pad=48, gap=20, align="center"),
                   Text("Offers", size="small", color=GREY, pad=28), *offers, id="mini_scroll"))

    def screen_my_mini_programs(self, ctx: Ctx) -> Widget:
        rows = [ListItem(m["name"], ctx.t(m["category"]), id="my_mini",
                         leading=Icon(m["name"][:1], desc=m["name"], size=90, bg=(80, 120, 200), round=False),
                         trailing=Icon("close", desc=ctx.t("Remove {name}", name=m["name"]), size=60, id="uncollect",
                                       on_click=lambda c, mid=m["id"]: _toggle_collect(c, mid)),
                         on_click=lambda c, mid=m["id"]: c.push("mini_program", id=mid))
                for m in ctx.state["mini_programs"] if m.get("collected")]
        return Column(AppBar("My mini programs", actions=[Icon("search", desc="Search", size=80, id="search",
                                                               on_click=lambda c: c.push("search"))]),
                      Scroll(*(rows or [Text("No mini programs yet", pad=60, color=GREY)]), id="my_minis"))

    # ----- transfer ------------------------------------------------------------------------------------------------
    def _friend_rows(self, ctx: Ctx, query: str, then: Callable[[Ctx, int], None]) -> list[Widget]:
        q = query.strip().lower()
        return [ListItem(f["name"], f["account"], id="friend",
                         leading=Icon(f["name"][:1], desc=f["name"], size=96, bg="primary", round=False),
                         on_click=lambda c, fid=f["id"]: then(c, fid))
                for f in sorted(ctx.state["friends"], key=lambda f: f["name"].lower())
                if not q or q in f["name"].lower() or q == f["account"]]

    def screen_transfer(self, ctx: Ctx) -> Widget:
        rows = self._friend_rows(ctx, ctx.fields.get("friend_search", ""),
                                 lambda c, fid: c.push("transfer_amount", contact=fid))
        return Column(AppBar("Transfer"),
                      Column(Input("friend_search", hint="Search friends"), pad=20),
                      Text("Transfer to a friend", size="small", color=GREY, pad=28),
                      Scroll(*(rows or [Text("No results", pad=60, color=GREY)]), id="friends"))

    def screen_transfer_amount(self, ctx: Ctx) -> Widget:
        friend = next((f for f in ctx.state["friends"] if f["id"] == ctx.params.get("contact")), ctx.state["friends"][0])
        fid = friend["id"]

        def nxt(c: Ctx, *_: Any) -> None:
            amount = parse_amount(c.fields.get("amount", ""))
            if amount is None:
                c.toast("Enter a valid amount")
                return
            c.push("pay", contact=fid, amount=amount, note=c.fields.get("note", "").strip())

        return Column(
            AppBar("Transfer"),
            Column(Row(Icon(friend["name"][:1], desc=friend["name"], size=110, bg="primary", round=False),
                       Column(Text(ctx.t("Transfer to {name}", name=friend["name"]), size="title", id="recipient"),
                              Text(ctx.t("Account: {account}", account=friend["account"]), size="small", color=GREY),
                              gap=6, weight=1.0)),
                   Input("amount", hint="Amount"),
                   Input("note", hint="Add a note (optional)"),
                   Button("Confirm transfer", id="confirm_transfer", on_click=nxt),
                   pad=48, gap=32))

    def _confirm(self, ctx: Ctx, *_: Any) -> None:
        p = ctx.params
        friend = next((f for f in ctx.state["friends"] if f["id"] == p.get("contact")), None)
        amount = float(p.get("amount", 0.0))
        if friend is None or amount <= 0:
            ctx.toast("Enter a valid amount")
            return
        methods = self._methods(ctx)
        method = next((m for m in methods if m.key == p.get("method")), methods[0])
        if not password_ok(ctx):
            return
        if not method.covers(amount):
            ctx.toast("Not enough money in {method}", method=method.label)
            return
        if method.key in ("balance", "yuebao"):
            ctx.state["funds"][method.key] = round(ctx.state["funds"][method.key] - amount, 2)
        note = str(p.get("note", ""))
        pid = new_id(ctx.state["transfers"])
        ctx.state["transfers"].append({"id": pid, "to": friend["name"], "contact": friend["id"], "amount": amount,
                                       "note": note, "method": method.key, "time": ctx.clock_text})
        ctx.effect("transfer", to=friend["name"], contact=friend["id"], account=friend["account"], amount=amount,
                   note=note, method=method.key, method_label=method.label, payment=pid)
        ctx.toast("Transfer successful")
        stack = ctx.phone.state.stacks[ctx.app_key]  # type: ignore[index]
        while len(stack) > 1 and stack[-1]["screen"] in ("pay", "transfer_amount", "transfer", "friend"):
            ctx.pop()
        ctx.push("paid", payment=pid)

    def screen_pay(self, ctx: Ctx) -> Widget:
        p = ctx.params
        friend = next((f for f in ctx.state["friends"] if f["id"] == p.get("contact")), ctx.state["friends"][0])
        lines: list[Widget] = [Text(ctx.t("Transfer to {name}", name=friend["name"]), size="title", align="center",
                                    id="pay_summary")]
        if p.get("note"):
            lines.append(Text(ctx.t("Note: {note}", note=p["note"]), size="small", color=GREY, align="center"))
        return pay_sheet(ctx, ctx.t("Confirm transfer"), float(p.get("amount", 0.0)), [Column(*lines, pad=24, gap=12)],
                         self._methods(ctx), self._confirm)

    def screen_paid(self, ctx: Ctx) -> Widget:
        transfers = ctx.state["transfers"]
        t = next((x for x in transfers if x["id"] == ctx.params.get("payment")), transfers[-1] if transfers else None)
        return Column(
            AppBar("Transfer successful", back=False),
            Column(Icon("check", desc="Transfer successful", size=200, bg="primary"),
                   Text(ctx.t("Transfer to {name}", name=t["to"] if t else ""), size="title", align="center",
                        id="paid_to"),
                   Text(ctx.money(t["amount"] if t else 0.0), size="huge", bold=True, align="center", id="paid_amount"),
                   Button("Done", id="done", on_click=lambda c: c.reset_to("home")), pad=60, gap=36, align="center"))

    def screen_bills(self, ctx: Ctx) -> Widget:
        rows = [ListItem(ctx.t("Transfer to {name}", name=t["to"]), t["note"] or t["time"],
                         trailing=f"-{ctx.money(t['amount'])}", id="bill") for t in reversed(ctx.state["transfers"])]
        return Column(AppBar("Bills"), Scroll(*(rows or [Text("No bills yet", pad=60, color=GREY)]), id="bills_list"))

    # ----- tabs ----------------------------------------------------------------------------------------------------
    def screen_wealth(self, ctx: Ctx) -> Widget:
        f = ctx.state["funds"]
        total = f["balance"] + f["yuebao"]
        return Column(
            AppBar(self.tab_names[1], back=False),
            Scroll(Card(Text("Total assets", size="small", color=GREY),
                        Text(ctx.money(total), size="huge", bold=True, id="total_assets"), pad=48),
                   ListItem("Yu'e Bao", ctx.t("Yesterday's earnings {amount}",
                                              amount=ctx.money(round(f["yuebao"] * 0.00005, 2))),
                            trailing=ctx.money(f["yuebao"]), id="yuebao"),
                   ListItem("Balance", trailing=ctx.money(f["balance"]), id="balance"),
                   ListItem("Funds", id="funds", leading=self._tile(ctx, "funds", None, id="funds_icon"),
                            on_click=lambda c: _open_service(c, "funds")),
                   ListItem("Stocks", id="stocks", leading=self._tile(ctx, "stocks", None, id="stocks_icon"),
                            on_click=lambda c: _open_service(c, "stocks")),
                   id="wealth_scroll"),
            self._nav(1))

    def screen_friends(self, ctx: Ctx) -> Widget:
        rows = self._friend_rows(ctx, ctx.fields.get("friend_search", ""),
                                 lambda c, fid: c.push("transfer_amount", contact=fid))
        return Column(AppBar(self.tab_names[2], back=False),
                      Column(Input("friend_search", hint="Search friends"), pad=20),
                      Scroll(*(rows or [Text("No results", pad=60, color=GREY)]), id="friends"),
                      self._nav(2))

    def screen_me(self, ctx: Ctx) -> Widget:
        s = ctx.state
        f = s["funds"]
        cards = [ListItem(ctx.t("{bank} debit card ({last4})", bank=c["bank"], last4=c["last4"]), id="bank_card")
                 for c in f["cards"]]
        return Column(
            Row(Icon(s["user"]["name"][:1], desc=s["user"]["name"], size=150, bg="primary", round=False),
                Column(Text(s["user"]["name"], size="big", bold=True, id="user_name"),
                       Text(ctx.t("Account: {account}", account=s["user"]["account"]), size="small", color=GREY),
                       gap=8, weight=1.0), pad=48, gap=36),
            Divider(),
            Scroll(ListItem("Balance", trailing=ctx.money(f["balance"]), id="me_balance"),
                   ListItem("Yu'e Bao", trailing=ctx.money(f["yuebao"]), id="me_yuebao",
                            on_click=lambda c: c.reset_to("wealth")),
                   Text("Bank cards", size="small", color=GREY, pad=28), *cards,
                   Divider(),
                   ListItem("Bills", id="me_bills", on_click=lambda c: c.push("bills")),
                   ListItem("My mini programs", id="me_minis", on_click=lambda c: c.push("my_mini_programs")),
                   ListItem("Settings", id="settings", on_click=lambda c: c.push("settings")),
                   id="me_list"),
            self._nav(3))

    def screen_settings(self, ctx: Ctx) -> Widget:
        return Column(AppBar("Settings"),
                      Column(Button("Log out", style="danger", id="log_out",
                                    on_click=lambda c: c.confirm(c.t("Log out?"), c.t("You will need to log in again."),
                                                                 _log_out, yes=c.t("Log out"))), pad=36))


def _phone(rng: random.Random) -> str:
    return f"1{rng.randint(30, 89)}****{rng.randint(0, 9999):04d}"


# ----- the apps ----------------------------------------------------------------------------------------------------------
@register
class Alipay(PaymentsApp):
    name = "Alipay"
    names = {"zh": "支付宝"}
    package = "com.eg.android.AlipayGphone"
    aliases = ("zhifubao", "zhi fu bao", "ali pay", "支付宝钱包")
    color = "#1677ff"
    icon = "支"
    strings = {"zh": {"Home": "首页", "Me": "我的"}}
