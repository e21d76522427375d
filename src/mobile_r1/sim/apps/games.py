"""Games and Game Center. The games (Honor of Kings, Genshin Impact, Anipop) are small identities on one engine: a
start screen, a lobby and settings, enough to be installed apps that Settings lists, sizes and uninstalls. Game Center
is the store of games: featured games, a ranking, a search that answers any query, a game's page (open the installed
ones, download others) and My games.

Search answers any query: `results(state, query)` gives the catalogue's games whose name holds the query, then games
made from the query and the store's seed (a pure function a judge can call). Every app here has `category = "game"`,
which Settings shows and judges read (`android_settings.apps[category=game]`).

State: a game's `level`, `coins`, `sound`, `started`; Game Center's `catalog` {"seed", "locale"}, `downloads` (game ids
downloaded), `history` (queries), `viewed`. Effects: Game Center's `install` (game, name).
"""

from __future__ import annotations

import hashlib
import random
from typing import Any, ClassVar, Mapping

from mobile_r1.sim.apps import App, Ctx, register
from mobile_r1.sim.ui.widgets import (AppBar, Button, Card, Column, Divider, Icon, Input, ListItem, Row, Scroll, Tabs,
                                      Text, Toggle, Widget)

GREY = (120, 122, 130)


# ----- the games ------------------------------------------------------------------------------------------------------
class GameApp(App):
    """The game engine. A subclass gives the identity, its `modes` (English; shown translated) and `strings`."""

    archetype = "game"
    category: ClassVar[str] = "game"
    modes: ClassVar[tuple[str, ...]] = ()
    strings: ClassVar[dict[str, dict[str, str]]] = {"zh": {
        "Tap to start": "点击开始游戏", "Start game": "开始游戏", "Lobby": "大厅", "Level {n}": "等级 {n}",
        "{n} coins": "{n} 金币", "Sound": "声音", "Game settings": "游戏设置", "Loading the game...": "正在加载游戏...",
        "Play {mode}": "开始{mode}", "Version {v}": "版本 {v}", "Welcome back, {name}": "欢迎回来，{name}",
    }}

    def __init_subclass__(cls, **kw: Any) -> None:
        """A subclass's own `strings` are laid over the engine's (so each app's table holds only its own words)."""
        super().__init_subclass__(**kw)
        own = cls.__dict__.get("strings")
        if own is not None:
            base = GameApp.strings
            cls.strings = {loc: {**base.get(loc, {}), **own.get(loc, {})} for loc in {*base, *own}}

    def initial_state(self, rng: random.Random) -> dict[str, Any]:
        names = ("小飞侠", "夜行者", "星辰", "阿狸") if self.locale == "zh" else ("Nova", "Ranger", "Pixel", "Echo")
        return {"level": rng.randint(1, 60), "coins": rng.randint(100, 9000), "sound": True, "started": 0,
                "player": rng.choice(names)}

    def screen_home(self, ctx: Ctx) -> Widget:
        def start(c: Ctx) -> None:
            c.state["started"] += 1
            c.push("lobby", loading=1.0)

        return Column(
            AppBar(ctx.app_label, back=False, actions=[Icon("gear", desc="Game settings", size=80, id="game_settings",
                                                           on_click=lambda c: c.push("settings"))]),
            Column(Icon(self.icon, desc=ctx.app_label, size=320, bg="primary", round=False),
                   Text(ctx.app_label, size="huge", bold=True, align="center", id="game_title"),
                   Text(ctx.t("Version {v}", v="5.2.0"), size="small", color=GREY, align="center"),
                   Button("Start game", id="start_game", on_click=start), pad=80, gap=40, align="center", flex=True))

    def screen_lobby(self, ctx: Ctx) -> Widget:
        s = ctx.state
        modes = [ListItem(ctx.t("Play {mode}", mode=ctx.t(m)), id="mode",
                          on_click=lambda c, m=m: c.toast("Loading the game...")) for m in self.modes]
        return Column(AppBar("Lobby"),
                      Card(Text(ctx.t("Welcome back, {name}", name=s["player"]), size="title", bold=True),
                           Text(ctx.t("Level {n}", n=s["level"]), color=GREY, id="level"),
                           Text(ctx.t("{n} coins", n=s["coins"]), color=GREY, id="coins"), pad=36),
                      Scroll(*modes, id="modes"))

    def screen_settings(self, ctx: Ctx) -> Widget:
        def sound(c: Ctx, value: bool) -> None:
            c.state["sound"] = value

        return Column(AppBar("Game settings"), Column(Toggle("Sound", ctx.state["sound"], sound, id="sound"), pad=36))


@register
class HonorOfKings(GameApp):
    name = "Honor of Kings"
    key = "honor_of_kings"
    names = {"zh": "王者荣耀"}
    package = "com.tencent.tmgp.sgame"
    aliases = ("王者", "kings", "arena of valor")
    color = "#c62828"
    icon = "王"
    modes = ("Ranked match", "Classic 5v5", "Entertainment")
    strings = {"zh": {"Ranked match": "排位赛", "Classic 5v5": "经典 5v5", "Entertainment": "娱乐模式"}}


@register
class GenshinImpact(GameApp):
    name = "Genshin Impact"
    key = "genshin_impact"
    names = {"zh": "原神"}
    package = "com.miHoYo.Yuanshen"
    aliases = ("genshin", "yuanshen")
    color = "#5c6bc0"
    icon = "原"
    modes = ("Adventure", "Co-op", "Events")
    strings = {"zh": {"Adventure": "冒险", "Co-op": "联机", "Events": "活动"}}


@register
class Anipop(GameApp):
    name = "Anipop"
    names = {"zh": "开心消消乐"}
    package = "com.happyelements.AndroidAnimal"
    aliases = ("消消乐", "happy elimination", "happy match")
    color = "#43a047"
    icon = "消"
    modes = ("Next level", "Daily challenge", "Weekly race")
    strings = {"zh": {"Next level": "下一关", "Daily challenge": "每日挑战", "Weekly race": "周赛"}}


# ----- Game Center ----------------------------------------------------------------------------------------------------
# The store's own catalogue: (English name, Chinese name, genre, size in MB, rating); installed games are linked by
# name.
CATALOG: tuple[tuple[str, str, str, int, float], ...] = (
    ("Honor of Kings", "王者荣耀", "MOBA", 15800, 4.6), ("Genshin Impact", "原神", "RPG", 29600, 4.7),
    ("Anipop", "开心消消乐", "Puzzle", 980, 4.5), ("Game for Peace", "和平精英", "Shooter", 12400, 4.5),
    ("Honkai: Star Rail", "崩坏：星穹铁道", "RPG", 21500, 4.8), ("Eggy Party", "蛋仔派对", "Party", 6100, 4.4),
    ("Onmyoji", "阴阳师", "RPG", 8800, 4.3), ("Plants vs. Zombies", "植物大战僵尸", "Strategy", 420, 4.6),
    ("Happy Landlords", "欢乐斗地主", "Cards", 650, 4.2), ("Golden Spatula", "金铲铲之战", "Strategy", 5200, 4.4),
)
GENRES = {"MOBA": "MOBA", "RPG": "角色扮演", "Puzzle": "消除", "Shooter": "射击", "Party": "休闲派对",
          "Strategy": "策略", "Cards": "棋牌", "Casual": "休闲", "Racing": "竞速"}
_SUFFIXES = {"en": ("Legends", "Saga", "Rush", "World", "Heroes", "Tycoon"),
             "zh": ("传说", "物语", "大作战", "世界", "英雄", "大亨")}


def _digest(text: str) -> int:
    return int(hashlib.sha1(text.encode("utf-8")).hexdigest()[:8], 16)


def catalog_games(locale: str) -> list[dict[str, Any]]:
    """The store's own games, named in the phone's language."""
    return [{"id": f"g{i + 1}", "name": zh if locale == "zh" else en, "name_en": en, "genre": genre, "size_mb": size,
             "rating": rating, "downloads": 10_000_000 + _digest(en) % 90_000_000}
            for i, (en, zh, genre, size, rating) in enumerate(CATALOG)]


def results(source: Mapping[str, Any] | int, query: str, *, locale: str = "zh") -> list[dict[str, Any]]:
    """The games a search for `query` shows: the catalogue's games whose name holds it, then four games made from the
    query and the store's seed (`source`: Game Center's state, or a seed with the locale). Deterministic; an empty
    query gives []."""
    norm = " ".join(query.split()).casefold()
    if not norm:
        return []
    if isinstance(source, Mapping):
        seed, locale = int(source["catalog"]["seed"]), source["catalog"]["locale"]
    else:
        seed = int(source)
    found = [g for g in catalog_games(locale) if norm in g["name"].casefold() or norm in g["name_en"].casefold()]
    rng = random.Random(f"{seed}|{locale}|{norm}")
    shown = " ".join(query.split())
    for i, suffix in enumerate(rng.sample(_SUFFIXES["zh" if locale == "zh" else "en"], 4)):
        name = f"{shown}{suffix}" if locale == "zh" else f"{shown.title()} {suffix}"
        found.append({"id": f"q{_digest(norm) % 100000}-{i + 1}", "name": name, "name_en": name,
                      "genre": rng.choice(("Casual", "Puzzle", "Racing", "RPG")), "size_mb": rng.randint(80, 3000),
                      "rating": round(rng.uniform(3.5, 4.9), 1), "downloads": rng.randint(10_000, 5_000_000)})
    return found


def _installed_key(ctx: Ctx, game: dict[str, Any]) -> str | None:
    for key in ctx.phone.installed():
        app = ctx.phone.apps[key]
        if getattr(app, "category", "") == "game" and game["name_en"] in (app.name, *app.aliases):
            return key
    return None


def _find(ctx: Ctx, gid: str) -> dict[str, Any]:
    for g in catalog_games(ctx.state["catalog"]["locale"]):
        if g["id"] == gid:
            return g
    for q in ctx.state["history"]:
        for g in results(ctx.state, q):
            if g["id"] == gid:
                return g
    return catalog_games(ctx.state["catalog"]["locale"])[0]


def _search(ctx: Ctx, text: str) -> None:
    query = " ".join(text.split())
    if not query:
        ctx.toast("Type a game to search")
        return
    ctx.state["history"] = [query] + [h for h in ctx.state["history"] if h != query][:9]
    ctx.replace("search", query=query)


def _download(ctx: Ctx, gid: str) -> None:
    game = _find(ctx, gid)
    if gid not in ctx.state["downloads"]:
        ctx.state["downloads"].append(gid)
        ctx.effect("install", game=gid, name=game["name"])
    ctx.toast("Downloading {name}", name=game["name"])


def _size(mb: float) -> str:
    return f"{mb / 1024:.1f} GB" if mb >= 1024 else f"{int(mb)} MB"


@register
class GameCenter(App):
    name = "Game Center"
    key = "game_center"
    names = {"zh": "游戏中心"}
    package = "com.huawei.gamebox"
    category: ClassVar[str] = "game"
    aliases = ("game store", "games", "游戏", "游戏商店")
    color = "#ff6f00"
    icon = "apps"
    strings = {"zh": {
        "Game Center": "游戏中心", "Featured": "精选", "Rankings": "排行榜", "My games": "我的游戏", "Search games": "搜索游戏",
        "Type a game to search": "请输入要搜索的游戏", "Download": "下载", "Downloading {name}": "正在下载{name}",
        "Downloaded": "已下载", "Installed": "已安装", "{n} downloads": "{n} 次下载", "Genre": "类型",
        "Size": "大小", "Rating": "评分", "Game details": "游戏详情", "No games installed": "没有已安装的游戏",
        "Top games this week": "本周热门", "Results for '{query}'": "“{query}”的搜索结果", "About this game": "关于此游戏",
        "A popular {genre} game.": "一款热门的{genre}游戏。", **GENRES,
    }}

    def initial_state(self, rng: random.Random) -> dict[str, Any]:
        return {"catalog": {"seed": rng.randrange(1 << 30), "locale": "zh" if self.locale == "zh" else "en"},
                "downloads": [], "history": [], "viewed": []}

    def _nav(self, selected: int) -> Widget:
        screens = ("home", "rankings", "mine")
        return Tabs(["Featured", "Rankings", "My games"], selected, icons=["star", "list", "user"], id="bottom_nav",
                    on_select=lambda c, i: c.reset_to(screens[i]) if i != selected else None)

    def _row(self, ctx: Ctx, g: dict[str, Any], rank: int | None = None) -> Widget:
        installed = _installed_key(ctx, g)
        stats = "  \u00b7  ".join([ctx.t(g["genre"]), f"\u2605 {g['rating']}", _size(g["size_mb"])])
        action: Widget
        if installed:
            action = Button("Open", style="secondary", id="open_game", on_click=lambda c, k=installed: c.open_app(k))
        elif g["id"] in ctx.state["downloads"]:
            action = Text("Downloaded", size="small", color=GREY)
        else:
            action = Button("Download", style="secondary", id="download",
                            on_click=lambda c, gid=g["id"]: _download(c, gid))
        title = f"{rank}. {g['name']}" if rank else g["name"]
        return Row(Icon(g["name"][:1], desc=g["name"], size=110, bg="primary", round=False),
                   Column(Text(title, bold=True, max_lines=1, id="game_name"), Text(stats, size="small", color=GREY),
                          gap=6, weight=1.0), action,
                   pad=28, gap=24, id="game", on_click=lambda c, gid=g["id"]: self._open(c, gid))

    @staticmethod
    def _open(ctx: Ctx, gid: str) -> None:
        ctx.state["viewed"].append(gid)
        ctx.push("game", id=gid)

    def _search_bar(self, ctx: Ctx) -> Widget:
        return Row(Input("query", hint="Search games", weight=1.0, on_submit=_search),
                   Icon("search", desc="Search", size=80, id="search_button",
                        on_click=lambda c: _search(c, c.fields.get("query", ""))), pad=28, gap=16)

    def screen_home(self, ctx: Ctx) -> Widget:
        games = catalog_games(ctx.state["catalog"]["locale"])
        top = games[4]
        return Column(
            AppBar("Game Center", back=False), self._search_bar(ctx),
            Scroll(Card(Text("Featured", size="small", color="primary"), Text(top["name"], size="big", bold=True),
                        Text(ctx.t("A popular {genre} game.", genre=ctx.t(top["genre"])), color=GREY),
                        on_click=lambda c: self._open(c, top["id"]), id="featured", pad=36),
                   *[self._row(ctx, g) for g in games], id="games", pad=12, gap=8),
            self._nav(0))

    def screen_rankings(self, ctx: Ctx) -> Widget:
        games = sorted(catalog_games(ctx.state["catalog"]["locale"]), key=lambda g: (-g["downloads"], g["id"]))
        return Column(AppBar("Rankings", back=False), Text("Top games this week", size="small", color=GREY, pad=28),
                      Scroll(*[self._row(ctx, g, i + 1) for i, g in enumerate(games)], id="ranking"), self._nav(1))

    def screen_mine(self, ctx: Ctx) -> Widget:
        mine = [g for g in catalog_games(ctx.state["catalog"]["locale"]) if _installed_key(ctx, g)]
        rows = [self._row(ctx, g) for g in mine] or [Text("No games installed", pad=60, color=GREY, align="center")]
        return Column(AppBar("My games", back=False), Scroll(*rows, id="my_games"), self._nav(2))

    def screen_search(self, ctx: Ctx) -> Widget:
        query = ctx.params.get("query") or ""
        found = results(ctx.state, query)
        return Column(Row(Icon("back", desc="Navigate up", size=80, id="navigate_up", on_click=lambda c: c.back()),
                          Input("query", hint="Search games", weight=1.0, on_submit=_search), pad=28, gap=16),
                      Text(ctx.t("Results for '{query}'", query=query), size="small", color=GREY, pad=28)
                      if query else None,
                      Scroll(*[self._row(ctx, g) for g in found], id="results"))

    def screen_game(self, ctx: Ctx) -> Widget:
        g = _find(ctx, ctx.params.get("id") or "g1")
        installed = _installed_key(ctx, g)
        if installed:
            button = Button("Open", id="open_game", on_click=lambda c, k=installed: c.open_app(k))
        elif g["id"] in ctx.state["downloads"]:
            button = Button("Downloaded", style="secondary", id="downloaded", enabled=False)
        else:
            button = Button("Download", id="download", on_click=lambda c, gid=g["id"]: _download(c, gid))
        return Column(AppBar("Game details"), Scroll(Column(
            Icon(g["name"][:1], desc=g["name"], size=220, bg="primary", round=False),
            Text(g["name"], size="big", bold=True, align="center", id="game_title"),
            Text(ctx.t("{n} downloads", n=f"{g['downloads']:,}"), size="small", color=GREY, align="center"),
            button, pad=48, gap=24, align="center"), Divider(),
            ListItem("Genre", ctx.t(g["genre"]), id="game_genre"),
            ListItem("Rating", f"\u2605 {g['rating']}", id="game_rating"),
            ListItem("Size", _size(g["size_mb"]), id="game_size"),
            ListItem("About this game", ctx.t("A popular {genre} game.", genre=ctx.t(g["genre"])), id="game_about"),
            id="game_scroll"))


__all__ = ["GameApp", "HonorOfKings", "GenshinImpact", "Anipop", "GameCenter", "results", "catalog_games"]
