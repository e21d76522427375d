"""Navigation apps (Google Maps, Amap): search any place, sort the results by distance or rating, read a place's page,
ask for a route by car, transit, walking or cycling, navigate, and read a bus stop's live arrivals.

Everything about where the user is needs the location permission: the app asks for it in the system dialog on its
first start (as a freshly installed map does), and distances, routes, navigation and live arrivals wait for it. A task
line never says whether to allow it, so the agent asks the user (InquireBench's "uncertainty").

Search answers any query: `results(state, query)` generates the places from the query and the app's catalog seed, a
pure function a judge can call. The first result is the place the query names (a landmark such as "Peking University");
the others are places of that name across the city's districts (branches of a chain, shops of a kind). A query for bus
stops ("bus stop", "公交站") gives stops with the lines that call there.

State (a judge reads it by path, e.g. `google_maps.route.mode`, `amap.bus_info[*]`):
  catalog      {"seed", "flavour", "locale"}: what `results` draws places from
  asked        the location permission was asked for on a first start
  history      the queries searched, most recent first, each once; `searches`: every search in order
  viewed       ids of the places whose page was opened, in order
  route        None, or the route shown last: {"to", "name", "mode", "km", "minutes"}
  routes       every route asked for, in order (the same records)
  navigation   None, or {"to", "name", "mode", "km", "minutes", "started_at"}
  bus_info     ids of the stops whose live arrivals were shown, in order
  targets      places a task's set-up named (`setup_target`)
Effects: `navigate` (to, name, mode, km, minutes); the system's `permission`.
"""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, ClassVar, Mapping

from mobile_r1.sim.apps import App, Ctx, register
from mobile_r1.sim.apps._search import (no_results, normalize_query, open_search as _open_search, search as _search,
                                        sort_chips)
from mobile_r1.sim.apps.maps import MapView
from mobile_r1.sim.ui.widgets import (AppBar, Button, Column, Divider, Icon, Input, ListItem, Row, Scroll, Tabs, Text,
                                      Widget)

GREY = (120, 122, 130)
SORTS = ("default", "distance", "rating")  # the results screen's `sort` param indexes this
MODES = ("drive", "transit", "walk", "bike")  # the directions screen's `mode` param is one of these
MODE_LABELS = {"drive": "Drive", "transit": "Transit", "walk": "Walk", "bike": "Bike"}
SPEED_KMH = {"drive": 32.0, "transit": 22.0, "walk": 4.8, "bike": 14.0}
BUS_WORDS = ("bus stop", "bus stops", "bus station", "公交站", "公交车站", "公交站台", "公交")


# ----- the place generator (pure: judges import it) -----------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Flavour:
    """What makes one city's places its own: districts, streets and the bus lines."""

    areas: Mapping[str, tuple[str, ...]]
    streets: Mapping[str, tuple[str, ...]]
    lines: Mapping[str, tuple[str, ...]]


FLAVOURS: dict[str, Flavour] = {
    "beijing": Flavour(
        {"zh": ("海淀", "朝阳", "东城", "西城", "中关村", "五道口", "三里屯", "望京", "国贸", "王府井"),
         "en": ("Haidian", "Chaoyang", "Dongcheng", "Xicheng", "Zhongguancun", "Wudaokou", "Sanlitun", "Wangjing",
                "Guomao", "Wangfujing")},
        {"zh": ("学院路", "成府路", "中关村大街", "建国路", "东三环", "长安街", "知春路", "北四环"),
         "en": ("Xueyuan Road", "Chengfu Road", "Zhongguancun Street", "Jianguo Road", "East 3rd Ring",
                "Chang'an Avenue", "Zhichun Road", "North 4th Ring")},
        {"zh": ("302路", "331路", "375路", "特4路", "运通110", "快速公交1线", "944路"),
         "en": ("Bus 302", "Bus 331", "Bus 375", "Bus T4", "Yuntong 110", "BRT 1", "Bus 944")}),
}


def is_bus_query(query: str) -> bool:
    """Whether a query asks for bus stops ("bus stop", "公交站")."""
    return normalize_query(query) in BUS_WORDS


def _digest(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8")).hexdigest()[:8]


def _unique(value: float, taken: set[float], step: float) -> float:
    while value in taken:
        value = round(value + step, 1)
    taken.add(value)
    return value


@lru_cache(maxsize=512)
def _generate(seed: int, flavour: str, locale: str, shown: str) -> tuple[tuple[tuple[str, Any], ...], ...]:
    norm = normalize_query(shown)
    rng = random.Random(f"{seed}|{flavour}|{locale}|{norm}")
    flav = FLAVOURS[flavour]
    lang = "zh" if locale == "zh" else "en"
    key = _digest(norm)
    areas = list(flav.areas[lang])
    rng.shuffle(areas)
    bus = norm in BUS_WORDS
    count = rng.randint(5, 8)
    distances: set[float] = set()
    ratings: set[float] = set()
    out = []
    for i in range(count):
        area = areas[i % len(areas)]
        street = rng.choice(flav.streets[lang])
        if bus:
            name = f"{street}{rng.choice(('东口', '西口', '南站', '北站'))}" if lang == "zh" else \
                f"{street} {rng.choice(('East', 'West', 'North', 'South'))} Stop"
        elif i == 0:
            name = shown  # the place the query names
        else:
            name = f"{shown}({area}店)" if lang == "zh" else f"{shown} ({area})"
        distance = _unique(round(rng.uniform(0.2, 9.0) if not bus else rng.uniform(0.1, 1.5), 1), distances, 0.1)
        rating = _unique(round(rng.uniform(3.5, 4.9), 1), ratings, -0.1) if len(ratings) < 14 else 4.0
        number = rng.randint(1, 399)
        address = f"{area}区{street}{number}号" if lang == "zh" else f"{number} {street}, {area}"
        place = {"id": f"{key}-{i + 1}", "query": norm, "name": name, "kind": "bus_stop" if bus else "place",
                 "rating": rating, "distance_km": distance, "address": address, "area": area,
                 "lines": sorted(rng.sample(flav.lines[lang], 3)) if bus else []}
        out.append(tuple(place.items()))
    return tuple(out)


def results(source: Mapping[str, Any] | int, query: str, *, flavour: str = "beijing",
            locale: str = "zh") -> list[dict[str, Any]]:
    """The places a search for `query` shows, in the default order (the named place first).

    `source` is a navigation app's state (its `catalog` gives seed, flavour and locale) or a bare catalog seed with
    the keywords. Deterministic and the same for every spacing and case of one query (names keep the spelling of the
    first search: the query as typed, spaces collapsed). Each place has id, query, name, kind (place | bus_stop),
    rating, distance_km, address, area, lines (bus stops). Distances differ between the places of one query, and so do
    ratings, so "the nearest" and "the highest rated" are one place. An empty query gives [].
    """
    shown = " ".join(query.split())
    if not shown:
        return []
    if isinstance(source, Mapping):
        cat = source["catalog"]
        seed, flavour, locale = int(cat["seed"]), cat["flavour"], cat["locale"]
    else:
        seed = int(source)
    return [dict(items) for items in _generate(seed, flavour, locale, shown)]


def sort_results(places: list[dict[str, Any]], order: str) -> list[dict[str, Any]]:
    """Places as the results screen shows them for a sort order: default, distance or rating."""
    if order == "distance":
        return sorted(places, key=lambda p: (p["distance_km"], p["id"]))
    if order == "rating":
        return sorted(places, key=lambda p: (-p["rating"], p["distance_km"], p["id"]))
    return list(places)


def route_of(place: Mapping[str, Any], mode: str) -> dict[str, Any]:
    """The route to a place by `mode`: road distance (a little longer than the straight line) and minutes."""
    km = round(place["distance_km"] * (1.3 if mode in ("drive", "transit") else 1.1) + 0.1, 1)
    minutes = max(2, round(km / SPEED_KMH[mode] * 60 + (6 if mode == "transit" else 2)))
    return {"to": place["id"], "name": place["name"], "mode": mode, "km": km, "minutes": minutes}


def arrivals(place: Mapping[str, Any]) -> list[tuple[str, int, int]]:
    """A bus stop's live arrivals: (line, minutes to the next bus, stops away), soonest first."""
    rng = random.Random(f"arrivals|{place['id']}")
    rows = [(line, rng.randint(1, 15), rng.randint(1, 6)) for line in place.get("lines", [])]
    return sorted(rows, key=lambda r: (r[1], r[0]))


# ----- handlers ------------------------------------------------------------------------------------------------------
def _find(state: Mapping[str, Any], query: str, pid: Any) -> dict[str, Any] | None:
    return next((p for p in results(state, query) if p["id"] == pid), None)


def _open_place(ctx: Ctx, place: dict[str, Any]) -> None:
    ctx.state["viewed"].append(place["id"])
    ctx.push("place", id=place["id"], query=place["query"])


def _sort(ctx: Ctx, query: str, index: int) -> None:
    if SORTS[index] == "distance":  # the nearest first needs to know where the phone is
        ctx.request_permission("location", lambda c: c.replace("results", query=query, sort=index),
                               lambda c: c.toast("Sorting by distance needs your location"))
    else:
        ctx.replace("results", query=query, sort=index)


def _directions(ctx: Ctx, query: str, pid: str, mode: str) -> None:
    def show(c: Ctx) -> None:
        place = _find(c.state, query, pid)
        if place is None:
            return
        route = route_of(place, mode)
        c.state["route"] = dict(route)
        c.state["routes"].append(dict(route))
        if c.screen == "directions":
            c.replace("directions", query=query, id=pid, mode=mode)
        else:
            c.push("directions", loading=1.0, query=query, id=pid, mode=mode)

    ctx.request_permission("location", show, lambda c: c.toast("Directions from your location need the location permission"))


def _start(ctx: Ctx, query: str, pid: str, mode: str) -> None:
    def go(c: Ctx) -> None:
        place = _find(c.state, query, pid)
        if place is None:
            return
        route = route_of(place, mode)
        c.state["navigation"] = {**route, "started_at": c.now}
        c.effect("navigate", to=place["id"], name=place["name"], mode=mode, km=route["km"], minutes=route["minutes"])
        c.reset_to("navigating")

    ctx.request_permission("location", go, lambda c: c.toast("Navigation needs the location permission"))


def _bus_info(ctx: Ctx, query: str, pid: str) -> None:
    def show(c: Ctx) -> None:
        c.state["bus_info"].append(pid)
        c.push("bus", query=query, id=pid)

    ctx.request_permission("location", show, lambda c: c.toast("Live arrivals need the location permission"))


def _end(ctx: Ctx) -> None:
    ctx.state["navigation"] = None
    ctx.toast("Navigation ended")
    ctx.reset_to("home")


class NavigationApp(App):
    """The navigation engine. A subclass gives the identity (name, names, package, colour, icon), its `flavour` (a key
    of FLAVOURS), the `chips` on its home screen (English label and glyph; a chip searches for its label in the phone's
    language), the mode its directions open with (`default_mode`) and its own words in `strings`."""

    archetype = "navigation"
    gallery = ("home", "results", "place", "directions", "bus")
    flavour: ClassVar[str] = "beijing"
    default_mode: ClassVar[str] = "drive"
    chips: ClassVar[tuple[tuple[str, str], ...]] = ()
    strings: ClassVar[dict[str, dict[str, str]]] = {"zh": {
        "Search here": "在这里搜索", "Type something to search": "请输入搜索内容", "Recent searches": "历史搜索",
        "Clear": "清空", "Search history cleared": "已清空搜索历史", "No results for '{query}'": "没有找到“{query}”",
        "Relevance": "综合排序", "Nearest": "距离最近", "Top rated": "评分最高", "Sort by relevance": "按相关度排序",
        "Sort by distance": "按距离排序", "Sort by rating": "按评分排序", "{km} km": "{km}公里",
        "Sorting by distance needs your location": "按距离排序需要位置信息", "Your location": "我的位置",
        "Location is off": "未开启定位", "Turn on location": "开启定位", "Directions": "路线", "Start": "开始导航",
        "Drive": "驾车", "Transit": "公交", "Walk": "步行", "Bike": "骑行", "{minutes} min": "{minutes}分钟",
        "{minutes} min · {km} km": "{minutes}分钟 · {km}公里", "From": "起点", "To": "终点", "Route": "路线",
        "Directions from your location need the location permission": "从当前位置出发的路线需要位置权限",
        "Navigation needs the location permission": "导航需要位置权限", "Navigating": "导航中",
        "Heading to {name}": "前往{name}", "Arrive in {minutes} min": "预计{minutes}分钟后到达", "End": "结束导航",
        "Navigation ended": "导航已结束", "Address": "地址", "Rating": "评分", "Distance": "距离",
        "Real-time bus info": "实时公交", "Live arrivals": "实时到站", "Live arrivals need the location permission":
        "实时公交需要位置权限", "Next bus in {minutes} min": "{minutes}分钟后到站", "{n} stops away": "还有{n}站",
        "Lines": "途经线路", "Bus stop": "公交站", "Place": "地点", "Place details": "地点详情",
        "Save": "收藏", "Saved": "已收藏", "Share": "分享", "Explore": "探索", "Navigate up": "返回",
        "Restaurants": "美食", "Coffee": "咖啡", "Bus stops": "公交站", "Gas stations": "加油站", "Hotels": "酒店",
        "Pharmacies": "药店", "Parking": "停车场", "Scenic spots": "景点", "Search": "搜索", "Map": "地图",
    }}

    def __init_subclass__(cls, **kw: Any) -> None:
        """A subclass's own `strings` are laid over the engine's (so each app's table holds only its own words)."""
        super().__init_subclass__(**kw)
        own = cls.__dict__.get("strings")
        if own is not None:
            base = NavigationApp.strings
            cls.strings = {loc: {**base.get(loc, {}), **own.get(loc, {})} for loc in {*base, *own}}

    def initial_state(self, rng: random.Random) -> dict[str, Any]:
        lang = "zh" if self.locale == "zh" else "en"
        return {"catalog": {"seed": rng.randrange(1 << 30), "flavour": self.flavour, "locale": lang},
                "asked": False, "history": [], "searches": [], "viewed": [], "route": None, "routes": [],
                "navigation": None, "bus_info": [], "targets": {}}

    def on_start(self, ctx: Ctx) -> None:
        if not ctx.has_permission("location") and not ctx.state["asked"]:
            ctx.state["asked"] = True
            ctx.request_permission("location", lambda c: None)

    # ----- set-up hooks a task calls to make the phone fit its line ------------------------------------------------
    def setup_first_start(self, ctx: Ctx) -> None:
        """The app has never run: it asks for the location permission when it starts (the default)."""
        ctx.state["asked"] = False
        ctx.phone.state.permissions.setdefault(ctx.app_key or "", {}).pop("location", None)

    def setup_located(self, ctx: Ctx) -> None:
        """The app already holds the location permission (asked and allowed before the task)."""
        ctx.state["asked"] = True
        ctx.phone.state.permissions.setdefault(ctx.app_key or "", {})["location"] = True

    def setup_target(self, ctx: Ctx, name: str, query: str, by: str = "default") -> dict[str, Any]:
        """Record in `targets[name]` the place a task names among the results for `query`: the first as the results
        screen sorts them by `by` (`default`: the place the query names, `distance`: the nearest, `rating`: the
        highest rated). Returns the place."""
        if by not in SORTS:
            raise ValueError(f"setup_target: by must be one of {', '.join(SORTS)}, not {by!r}")
        found = sort_results(results(ctx.state, query), by)
        if not found:
            raise ValueError(f"setup_target: no place for {query!r}")
        ctx.state["targets"][name] = dict(found[0])
        return dict(found[0])

    def gallery_setup(self, ctx: Ctx) -> dict[str, dict[str, Any]]:
        """The gallery's phone: the location allowed, a search for the first chip and one for bus stops."""
        self.setup_located(ctx)
        query, stops = ctx.t(self.chips[0][0]), ctx.t("Bus stops")
        ctx.state["history"] = [query, stops]
        place, stop = results(ctx.state, query)[0], results(ctx.state, stops)[0]
        return {"results": {"query": query, "sort": 0}, "place": {"query": query, "id": place["id"]},
                "directions": {"query": query, "id": place["id"], "mode": self.default_mode},
                "bus": {"query": stops, "id": stop["id"]}}

    # ----- pieces of screens ---------------------------------------------------------------------------------------
    def _back_row(self, *rest: Widget) -> Widget:
        return Row(Icon("back", desc="Navigate up", size=80, on_click=lambda c: c.back(), id="navigate_up"), *rest,
                   pad=28, gap=20)

    def _distance(self, ctx: Ctx, p: Mapping[str, Any]) -> str:
        return ctx.t("{km} km", km=p["distance_km"]) if ctx.has_permission("location") else ""

    def _place_row(self, ctx: Ctx, p: dict[str, Any]) -> Widget:
        stats = "  \u00b7  ".join(x for x in (f"\u2605 {p['rating']}", self._distance(ctx, p), p["address"]) if x)
        mark = ctx.t("Bus stop")[:1] if p["kind"] == "bus_stop" else p["name"][:1]
        return Row(Icon(mark, desc=p["name"], size=100, bg="primary"),
                   Column(Text(p["name"], bold=True, max_lines=2, id="place_name"),
                          Text(stats, size="small", color=GREY, max_lines=2, id="place_stats"), gap=6, weight=1.0),
                   pad=28, gap=24, id="place", on_click=lambda c, p=p: _open_place(c, p))

    # ----- screens ---------------------------------------------------------------------------------------------------
    def screen_home(self, ctx: Ctx) -> Widget:
        located = ctx.has_permission("location")
        chips = [Text(label, desc=label, bg="surface", pad=18, radius=30, id="chip",
                      on_click=lambda c, label=label: _search(c, c.t(label))) for label, _ in self.chips]
        return Column(
            Row(Text(ctx.app_label, size="title", bold=True, color="primary"),
                Text("Search here", bg="surface", color=GREY, pad=24, radius=40, weight=1.0, id="search_box",
                     on_click=_open_search),
                Icon("search", desc="Search", size=80, id="search", on_click=_open_search), pad=28, gap=20),
            Row(*chips[:4], pad=12, gap=12, id="chips"),
            MapView("Map", 900, me=located),
            ListItem("Your location" if located else "Location is off",
                     trailing="" if located else ctx.t("Turn on location"), id="my_location",
                     on_click=None if located else lambda c: c.request_permission("location", lambda c2: None)),
            Scroll(*[ListItem(h, id="history_item", on_click=lambda c, h=h: _search(c, h))
                     for h in ctx.state["history"][:4]], id="home_history"))

    def screen_search(self, ctx: Ctx) -> Widget:
        def clear(c: Ctx) -> None:
            c.state["history"] = []
            c.toast("Search history cleared")

        return Column(
            self._back_row(Input("query", hint="Search here", on_submit=_search, weight=1.0),
                           Button("Search", style="text", id="search_button",
                                  on_click=lambda c: _search(c, c.fields.get("query", "")))),
            Scroll(Row(Text("Recent searches", size="small", color=GREY, weight=1.0),
                       Button("Clear", style="text", id="clear_history", on_click=clear)
                       if ctx.state["history"] else None, pad=28),
                   *[ListItem(h, id="history_item", on_click=lambda c, h=h: _search(c, h))
                     for h in ctx.state["history"][:6]],
                   *[ListItem(label, id="suggestion", on_click=lambda c, label=label: _search(c, c.t(label)))
                     for label, _ in self.chips], id="search_list"))

    def screen_results(self, ctx: Ctx) -> Widget:
        query = ctx.params.get("query") or ctx.t(self.chips[0][0])
        sort = int(ctx.params.get("sort", 0))
        found = sort_results(results(ctx.state, query), SORTS[sort])
        labels = (("Relevance", "Sort by relevance"), ("Nearest", "Sort by distance"), ("Top rated", "Sort by rating"))
        sort_row = sort_chips(labels, SORTS, sort, lambda c, i: _sort(c, query, i))
        body = [self._place_row(ctx, p) for p in found] or [no_results(ctx, query)]
        return Column(
            self._back_row(Text(query, bg="surface", pad=24, radius=40, weight=1.0, max_lines=1, id="search_box",
                                on_click=_open_search)),
            sort_row, Divider(), Scroll(*body, id="results"))

    def screen_place(self, ctx: Ctx) -> Widget:
        query = ctx.params.get("query", "")
        p = _find(ctx.state, query, ctx.params.get("id")) or results(ctx.state, query or "?")[0]
        pid, mode = p["id"], self.default_mode
        bus = p["kind"] == "bus_stop"
        actions = [Button("Directions", style="secondary", icon="forward", id="directions", weight=1.0,
                          on_click=lambda c: _directions(c, query, pid, mode)),
                   Button("Start", icon="send", id="start", weight=1.0, on_click=lambda c: _start(c, query, pid, mode))]
        if bus:
            actions.insert(0, Button("Real-time bus info", icon="recents", id="bus_info", weight=1.0,
                                     on_click=lambda c: _bus_info(c, query, pid)))
        return Column(
            AppBar("Place details"),
            MapView(p["name"], 420, me=ctx.has_permission("location"), route=False),
            Scroll(Column(Text(p["name"], size="big", bold=True, id="place_title"),
                          Text(f"\u2605 {p['rating']}  \u00b7  " + ctx.t("Bus stop" if bus else "Place"),
                               color="primary", id="place_rating"), pad=36, gap=16),
                   Divider(),
                   ListItem("Distance", trailing=self._distance(ctx, p) or ctx.t("Location is off"), id="place_distance"),
                   ListItem("Address", p["address"], id="place_address"),
                   ListItem("Lines", " / ".join(p["lines"]), id="place_lines") if bus else None,
                   id="place_scroll"),
            Row(*actions, pad=28, gap=16))

    def screen_directions(self, ctx: Ctx) -> Widget:
        query, pid = ctx.params.get("query", ""), ctx.params.get("id")
        mode = ctx.params.get("mode", self.default_mode)
        p = _find(ctx.state, query, pid) or results(ctx.state, query or "?")[0]
        route = route_of(p, mode)
        tabs = Tabs([MODE_LABELS[m] for m in MODES], MODES.index(mode), id="modes",
                    on_select=lambda c, i: _directions(c, query, p["id"], MODES[i]) if MODES[i] != mode else None)
        return Column(
            AppBar("Directions"),
            tabs,
            ListItem("From", ctx.t("Your location"), id="route_from"),
            ListItem("To", p["name"], id="route_to"),
            MapView(ctx.t("Route"), 700, me=True, route=True),
            Column(Text(ctx.t("{minutes} min · {km} km", minutes=route["minutes"], km=route["km"]), size="title",
                        bold=True, id="route_summary"),
                   Text(ctx.t(MODE_LABELS[mode]), color=GREY, id="route_mode"), pad=36, gap=8),
            Row(Button("Start", icon="send", id="start", weight=1.0,
                       on_click=lambda c: _start(c, query, p["id"], mode)), pad=28))

    def screen_navigating(self, ctx: Ctx) -> Widget:
        nav = ctx.state["navigation"]
        if nav is None:
            return Column(AppBar("Navigating", back=False), Text("Navigation ended", pad=60),
                          Button("End", id="end_navigation", on_click=_end))
        left = max(0, nav["minutes"] - int((ctx.now - nav["started_at"]) // 60))
        return Column(
            AppBar("Navigating", back=False),
            MapView(ctx.t("Heading to {name}", name=nav["name"]), 1100, me=True, route=True),
            Column(Text(ctx.t("Heading to {name}", name=nav["name"]), size="title", bold=True, id="nav_to"),
                   Text(ctx.t("Arrive in {minutes} min", minutes=left), id="nav_eta"),
                   Text(ctx.t(MODE_LABELS[nav["mode"]]), color=GREY, id="nav_mode"), pad=36, gap=10),
            Row(Button("End", style="danger", id="end_navigation", weight=1.0, on_click=_end), pad=28))

    def screen_bus(self, ctx: Ctx) -> Widget:
        query = ctx.params.get("query", "")
        p = _find(ctx.state, query, ctx.params.get("id")) or results(ctx.state, query or "?")[0]
        rows = [ListItem(line, ctx.t("{n} stops away", n=away),
                         trailing=ctx.t("Next bus in {minutes} min", minutes=minutes), id="arrival",
                         leading=Icon(ctx.t("Bus stop")[:1], desc=line, size=80, bg="primary"))
                for line, minutes, away in arrivals(p)]
        return Column(AppBar("Live arrivals"),
                      Column(Text(p["name"], size="title", bold=True, id="stop_name"),
                             Text(p["address"], size="small", color=GREY), pad=36, gap=8),
                      Divider(), Scroll(*rows, id="arrivals"))


# ----- the apps --------------------------------------------------------------------------------------------------------
@register
class GoogleMaps(NavigationApp):
    name = "Google Maps"
    key = "google_maps"
    names = {"zh": "谷歌地图"}
    package = "com.google.android.apps.maps"
    aliases = ("google map", "googlemaps", "gmaps")
    color = "#1a73e8"
    icon = "G"
    default_mode = "drive"
    chips = (("Restaurants", "bag"), ("Coffee", "display"), ("Gas stations", "forward"), ("Hotels", "home"),
             ("Bus stops", "recents"), ("Pharmacies", "plus"))
    strings = {"zh": {}}


@register
class Amap(NavigationApp):
    name = "Amap"
    key = "amap"
    names = {"zh": "高德地图"}
    package = "com.autonavi.minimap"
    aliases = ("高德", "gaode", "gaode map", "autonavi")
    color = "#1677ff"
    icon = "高"
    default_mode = "transit"
    chips = (("Restaurants", "bag"), ("Scenic spots", "star"), ("Parking", "forward"), ("Bus stops", "recents"),
             ("Hotels", "home"), ("Coffee", "display"))
    strings = {"zh": {"Search here": "查找地点、公交、地铁"}}


__all__ = ["NavigationApp", "GoogleMaps", "Amap", "results", "sort_results", "route_of", "arrivals", "is_bus_query",
           "normalize_query"]
