"""Maps: search places, read their details, compare drive / transit / walk routes, navigate, and keep saved places.

Showing the current location, asking for directions and navigating need the location permission, asked for
in the system dialog the first time.
"""

from __future__ import annotations

import random
from typing import Any

from mobile_r1.sim.apps import App, Ctx, register
from mobile_r1.sim.ui.render import Canvas
from mobile_r1.sim.ui.widgets import (AppBar, Button, Card, Column, Divider, Icon, Image, Input, Layout, ListItem, Row,
                                      Scroll, Tabs, Text, Widget, resolve)

PLACES = {
    "Restaurants": ["Golden Dragon", "Luigi's Trattoria", "Sakura Sushi", "The Burger Joint", "Spice Garden"],
    "Coffee": ["Bean There Cafe", "Morning Brew", "Corner Coffee"],
    "Parks": ["Riverside Park", "Maple Park", "Botanical Garden"],
    "Gas stations": ["QuickFuel Station", "Green Gas Station"],
    "Shopping": ["City Mall", "Westfield Market"],
    "Health": ["St. Mary Hospital", "City Pharmacy"],
    "Transport": ["Central Station", "Airport Terminal 1"],
    "Culture": ["Public Library", "Grand Cinema", "National Museum"],
}
STREETS = ["Main Street", "Oak Avenue", "River Road", "Park Lane", "Hill Street", "Elm Street", "Lake Drive",
           "Bridge Road", "King Street", "Market Street"]
LINES = ["Bus 12", "Bus 47", "Metro Line 2", "Metro Line 5", "Tram 3"]
MODES = ("drive", "transit", "walk")
MODE_LABELS = {"drive": "Drive", "transit": "Transit", "walk": "Walk"}
CHIPS = ("Restaurants", "Coffee", "Parks", "Gas stations")
MAP_COLOR = (222, 234, 214)


class MapView(Image):
    """A drawn street map: a road grid, a park, a river, and optionally the user's dot and a route to a pin."""

    __slots__ = ("me", "route")

    def __init__(self, desc: str, height: float, me: bool = False, route: bool = False, **kw: Any) -> None:
        super().__init__(desc=desc, height=height, color=MAP_COLOR, radius=0, **kw)
        self.me, self.route = me, route

    def paint(self, c: Canvas, lay: Layout) -> None:
        x1, y1, x2, y2 = self.box
        w, h = x2 - x1, y2 - y1
        c.rect(self.box, fill=(236, 238, 232))
        c.rect((x1 + w * 0.58, y1 + h * 0.08, x1 + w * 0.9, y1 + h * 0.3), fill=(200, 228, 190), radius=20)
        c.line([(x1, y1 + h * 0.75), (x1 + w * 0.4, y1 + h * 0.68), (x2, y1 + h * 0.82)], (170, 205, 240), 40)
        for k in (0.18, 0.45, 0.72):
            c.line([(x1 + w * k, y1), (x1 + w * k, y2)], (255, 255, 255), 22)
        for k in (0.2, 0.5):
            c.line([(x1, y1 + h * k), (x2, y1 + h * k)], (255, 255, 255), 22)
        c.line([(x1, y1 + h * 0.95), (x2, y1 + h * 0.35)], (250, 214, 120), 26)
        primary = resolve("primary", lay.theme) or (52, 168, 83)
        mx, my = x1 + w * 0.45, y1 + h * 0.5
        if self.route:
            px, py = x1 + w * 0.72, y1 + h * 0.2
            c.line([(mx, my), (x1 + w * 0.45, y1 + h * 0.2), (px, py)], primary, 18)
            c.ellipse((px - 30, py - 30, px + 30, py + 30), fill=(214, 48, 49))
        if self.me:
            c.ellipse((mx - 44, my - 44, mx + 44, my + 44), fill=(200, 220, 250))
            c.ellipse((mx - 24, my - 24, mx + 24, my + 24), fill=(26, 115, 232))


def _place(ctx: Ctx, pid: int) -> dict[str, Any] | None:
    return next((p for p in ctx.state["places"] if p["id"] == pid), None)


def fmt_minutes(minutes: int) -> str:
    """'45 min' or '1 h 20 min'."""
    return f"{minutes // 60} h {minutes % 60} min" if minutes >= 60 else f"{minutes} min"


def remaining_minutes(ctx: Ctx) -> int:
    """Minutes left of the current navigation (the clock runs while navigating)."""
    nav = ctx.state["navigation"]
    if nav is None:
        return 0
    return max(0, nav["minutes"] - int((ctx.now - nav["started_at"]) // 60))


def _show_location(ctx: Ctx) -> None:
    def shown(c: Ctx) -> None:
        c.state["location"]["shown"] = True
        c.toast(f"You are at {c.state['location']['address']}")

    ctx.request_permission("location", shown)


def _directions(ctx: Ctx, pid: int) -> None:
    ctx.request_permission("location", lambda c: c.push("directions", loading=1.0, id=pid, mode="drive", route=0),
                           lambda c: c.toast("Directions from your location need the location permission"))


def _start(ctx: Ctx, pid: int, mode: str, index: int) -> None:
    def go(c: Ctx) -> None:
        p = _place(c, pid)
        if p is None:
            return
        route = p["routes"][mode][min(index, len(p["routes"][mode]) - 1)]
        c.state["navigation"] = {"destination": pid, "name": p["name"], "mode": mode, "via": route["via"],
                                 "minutes": route["minutes"], "km": route["km"], "started_at": c.now}
        c.state["location"]["shown"] = True
        c.effect("navigate", destination=pid, name=p["name"], mode=mode, via=route["via"], minutes=route["minutes"])
        c.reset_to("navigate")

    ctx.request_permission("location", go, lambda c: c.toast("Navigation needs the location permission"))


def _end(ctx: Ctx) -> None:
    nav = ctx.state["navigation"]
    if nav is not None:
        arrived = remaining_minutes(ctx) == 0
        ctx.state["trips"].append({"destination": nav["destination"], "name": nav["name"], "mode": nav["mode"],
                                   "minutes": nav["minutes"], "arrived": arrived})
        ctx.state["navigation"] = None
        ctx.toast("You have arrived" if arrived else "Navigation ended")
    ctx.reset_to("home")


def _toggle_save(ctx: Ctx, pid: int) -> None:
    saved = ctx.state["saved"]
    if pid in saved:
        saved.remove(pid)
        ctx.toast("Removed from saved places")
    else:
        saved.append(pid)
        ctx.toast("Saved")


@register
class Maps(App):
    name = "Maps"
    names = {"zh": "地图"}
    package = "com.sim.maps"
    aliases = ("map", "google maps", "navigation", "navigator", "gps", "amap")
    color = "#34a853"
    icon = "maps"

    def initial_state(self, rng: random.Random) -> dict[str, Any]:
        places = []
        for category, names in PLACES.items():
            for name in names:
                km = round(rng.uniform(0.4, 18.0), 1)
                street = rng.choice(STREETS)
                drive = max(2, round(km * rng.uniform(1.6, 2.6) + rng.randint(1, 5)))
                alt = rng.choice([s for s in STREETS if s != street])
                transit = max(4, round(km * rng.uniform(2.5, 4.0) + rng.randint(4, 12)))
                routes = {
                    "drive": [{"via": street, "minutes": drive, "km": km},
                              {"via": alt, "minutes": drive + rng.randint(2, 9), "km": round(km * rng.uniform(1.05, 1.3), 1)}],
                    "transit": [{"via": rng.choice(LINES), "minutes": transit, "km": km},
                                {"via": rng.choice(LINES), "minutes": transit + rng.randint(3, 15), "km": km}],
                    "walk": [{"via": street, "minutes": max(3, round(km * 12)), "km": km}],
                }
                places.append({"name": name, "category": category, "address": f"{rng.randint(1, 240)} {street}",
                               "rating": round(rng.uniform(3.2, 4.9), 1), "reviews": rng.randint(8, 4200), "km": km,
                               "hours": rng.choice(["Open 24 hours", "Open until 22:00", "Open until 18:00",
                                                    "Closes soon: 20:00", "Open until 23:30"]),
                               "phone": f"+1 555 {rng.randint(100, 999)} {rng.randint(1000, 9999)}", "routes": routes})
        rng.shuffle(places)
        for i, p in enumerate(places, start=1):
            p["id"] = i
        return {"places": places, "saved": [], "search_history": [], "navigation": None, "trips": [],
                "location": {"address": f"{rng.randint(1, 99)} {rng.choice(STREETS)}", "shown": False}}

    def _nav(self, selected: int) -> Widget:
        screens = ("home", "saved", "trips")
        return Tabs(["Explore", "Saved", "Trips"], selected, icons=["search", "star", "list"], id="bottom_nav",
                    on_select=lambda c, i: c.reset_to(screens[i]) if i != selected else None)

    def _place_row(self, p: dict[str, Any]) -> Widget:
        pid = p["id"]
        return ListItem(p["name"], f"{p['category']}  \u00b7  \u2605 {p['rating']}  \u00b7  {p['km']} km  \u00b7  {p['address']}",
                        leading=Icon("dot", desc=p["category"], size=90, bg="primary"), id="place",
                        on_click=lambda c: c.push("place", id=pid))

    # ----- screens -----------------------------------------------------------------------------------------
    def screen_home(self, ctx: Ctx) -> Widget:
        loc = ctx.state["location"]
        nav = ctx.state["navigation"]
        where = f"You are here: {loc['address']}" if loc["shown"] else "Your location is hidden"
        return Column(
            Row(Text("Search here", color=(130, 132, 140), bg="surface", pad=28, radius=40, weight=1.0, id="search_box",
                     on_click=lambda c: c.push("search")),
                Icon("user", desc="Account", size=80, id="account"), pad=28, gap=20),
            Row(*[Button(chip, style="secondary", size="small", id=f"chip_{i}",
                         on_click=lambda c, chip=chip: c.push("search", loading=1.0, query=chip))
                  for i, chip in enumerate(CHIPS[:3])], pad=20, gap=16),
            Scroll(Column(
                MapView(desc="Map showing your location" if loc["shown"] else "Map", height=1000, me=loc["shown"],
                        route=nav is not None),
                Row(Text(where, size="small", weight=1.0, id="location_text"),
                    Icon("dot", desc="Show my location", size=90, bg="primary", id="my_location",
                         on_click=_show_location), pad=28),
                Card(Text(f"Navigating to {nav['name']}", bold=True),
                     Text(f"{MODE_LABELS[nav['mode']]}  \u00b7  {fmt_minutes(remaining_minutes(ctx))} left", size="small"),
                     on_click=lambda c: c.push("navigate"), id="resume_navigation") if nav else None,
                pad=0, gap=16), id="map_scroll"),
            self._nav(0))

    def screen_search(self, ctx: Ctx) -> Widget:
        query = ctx.params.get("query", "")
        q = query.strip().lower()
        hits = sorted((p for p in ctx.state["places"] if q and (q in p["name"].lower() or q in p["category"].lower()
                                                              or q in p["address"].lower())),
                      key=lambda p: (p["km"], p["id"]))

        def submit(c: Ctx, text: str) -> None:
            text = text.strip()
            if not text:
                c.toast("Type a place or an address")
                return
            c.state["search_history"] = ([text] + [h for h in c.state["search_history"] if h != text])[:8]
            c.replace("search", loading=1.0, query=text)

        body: list[Widget]
        if not q:
            body = [Text("Recent", size="small", color=(120, 122, 130), pad=36)] + [
                ListItem(h, id="history_item", on_click=lambda c, h=h: submit(c, h)) for h in ctx.state["search_history"]]
        elif not hits:
            body = [Text(f"No places found for '{query}'", pad=60, id="no_results")]
        else:
            body = [self._place_row(p) for p in hits]
        return Column(
            Row(Icon("back", desc="Navigate up", size=80, on_click=lambda c: c.back(), id="navigate_up"),
                Input("query", hint="Search for a place or address", value=query, on_submit=submit, weight=1.0),
                Button("Search", style="text", id="search_button",
                       on_click=lambda c: submit(c, c.fields.get("query", query))), pad=28, gap=20),
            Scroll(*body, id="results"))

    def screen_place(self, ctx: Ctx) -> Widget:
        p = _place(ctx, ctx.params.get("id", 1)) or ctx.state["places"][0]
        pid = p["id"]
        saved = pid in ctx.state["saved"]
        return Column(
            AppBar(p["name"], actions=[Icon("share", desc="Share", size=80, id="share",
                                            on_click=lambda c: c.toast("Link copied"))]),
            Scroll(Column(
                Image(desc=f"Photo of {p['name']}", height=420, color=MAP_COLOR),
                Text(p["name"], size="big", bold=True, id="place_name"),
                Text(f"\u2605 {p['rating']}  ({p['reviews']:,} reviews)  \u00b7  {p['category']}", size="small",
                     id="place_rating"),
                Row(Button("Directions", icon="forward", id="directions", weight=1.0,
                           on_click=lambda c: _directions(c, pid)),
                    Button("Saved" if saved else "Save", icon="star_filled" if saved else "star", style="secondary",
                           id="save", selected=saved, weight=1.0, on_click=lambda c: _toggle_save(c, pid)), gap=24),
                Divider(),
                Text(p["address"], id="place_address"),
                Text(p["hours"], size="small", id="place_hours"),
                Text(p["phone"], size="small", id="place_phone"),
                Text(f"{p['km']} km from you", size="small", color=(120, 122, 130), id="place_distance"),
                pad=36, gap=24), id="place_scroll"))

    def screen_directions(self, ctx: Ctx) -> Widget:
        p = _place(ctx, ctx.params.get("id", 1)) or ctx.state["places"][0]
        pid = p["id"]
        mode = ctx.params.get("mode", "drive")
        chosen = ctx.params.get("route", 0)
        best = {m: min(r["minutes"] for r in p["routes"][m]) for m in MODES}
        rows: list[Widget] = []
        for i, r in enumerate(p["routes"][mode]):
            label = f"{fmt_minutes(r['minutes'])}  \u00b7  {r['km']} km"
            sub = f"via {r['via']}" + ("  \u00b7  fastest" if r["minutes"] == best[mode] else "")
            rows.append(ListItem(label, sub, id="route", desc=f"{MODE_LABELS[mode]} route {i + 1}",
                                 leading=Icon("check" if i == chosen else "dot", desc="Selected" if i == chosen else "Route",
                                              size=70, color="primary"),
                                 on_click=lambda c, i=i: c.replace("directions", id=pid, mode=mode, route=i)))
        return Column(
            AppBar("Directions"),
            Card(Text("From: Your location", size="small", id="from"), Text(f"To: {p['name']}", bold=True, id="to"),
                 pad=28),
            Tabs([f"{MODE_LABELS[m]} {best[m]} min" for m in MODES], MODES.index(mode), id="modes",
                 on_select=lambda c, i: c.replace("directions", id=pid, mode=MODES[i], route=0)),
            Scroll(*rows, id="routes"),
            Row(Button("Start", icon="forward", id="start", weight=1.0, on_click=lambda c: _start(c, pid, mode, chosen)),
                pad=28),
        )

    def screen_navigate(self, ctx: Ctx) -> Widget:
        nav = ctx.state["navigation"]
        if nav is None:
            return Column(AppBar("Navigation"), Text("No active navigation. Search a place and tap Directions.", pad=60,
                                                     id="no_navigation"))
        left = remaining_minutes(ctx)
        head = "You have arrived" if left == 0 else (f"Head along {nav['via']}" if nav["mode"] != "transit"
                                                    else f"Walk to the stop and take {nav['via']}")
        return Column(
            Column(Text(head, size="big", bold=True, color=(255, 255, 255), id="instruction"),
                   Text(f"{MODE_LABELS[nav['mode']]} to {nav['name']}", color=(255, 255, 255), id="nav_destination"),
                   bg="primary", pad=40, gap=12),
            Scroll(MapView(desc=f"Route to {nav['name']}", height=1100, me=True, route=True), id="nav_map"),
            Row(Column(Text(fmt_minutes(left), size="title", bold=True, id="eta"),
                       Text(f"{nav['km']} km  \u00b7  via {nav['via']}", size="small"), weight=1.0, gap=4),
                Button("End", style="danger", id="end_navigation", on_click=_end), pad=36),
        )

    def screen_saved(self, ctx: Ctx) -> Widget:
        saved = [p for pid in ctx.state["saved"] if (p := _place(ctx, pid)) is not None]
        rows = [self._place_row(p) for p in saved] or [
            Text("No saved places. Tap Save on a place to keep it here.", pad=60, align="center", id="empty")]
        return Column(AppBar("Saved places", back=False), Scroll(*rows, id="saved_list"), self._nav(1))

    def screen_trips(self, ctx: Ctx) -> Widget:
        rows: list[Widget] = [ListItem(t["name"], f"{MODE_LABELS[t['mode']]}  \u00b7  {fmt_minutes(t['minutes'])}  \u00b7  "
                                                  f"{'arrived' if t['arrived'] else 'ended early'}", id="trip",
                                       on_click=lambda c, pid=t["destination"]: c.push("place", id=pid))
                              for t in reversed(ctx.state["trips"])]
        return Column(AppBar("Trips", back=False),
                      Scroll(*(rows or [Text("No trips yet", pad=60, align="center", id="empty")]), id="trips_list"),
                      self._nav(2))
