"""Music streaming apps (Spotify, NetEase Cloud Music): one engine with daily songs, a song search for any query, a
now-playing page, paid plans (Premium Individual / Duo / Family / Student; 黑胶VIP) bought with the payment password,
and a login wall.

Search answers any query: `songs(state, query)` generates songs whose titles contain the query from the app's catalog
seed (a pure function). The plans and their payment are the memberships the feed apps have too
(`mobile_r1.sim.apps._membership`).

State: `catalog` {"seed", "flavour", "locale"}, `library` (the home page's songs), `history` / `searches`, `playing`
(the song now playing or None), `played` (ids of the songs started, in order), and the membership part (`plans`,
`member`, `new_user`, `subscriptions`, `payment_password`, `failed_payments`); `user`, `logged_in`.
Effects: `subscription` (see `_membership`), `login`, `logout`.
"""

from __future__ import annotations

import hashlib
import random
from functools import lru_cache
from typing import Any, ClassVar, Mapping

from mobile_r1.sim.apps import App, Ctx, register
from mobile_r1.sim.apps._membership import (MONTHLY, ONE_MONTH, THREE_MONTHS, TWELVE_MONTHS, YEARLY, Memberships,
                                            member_state, tier)
from mobile_r1.sim.apps.video import MediaIcon, fmt_duration
from mobile_r1.sim.ui.widgets import (AppBar, Button, Column, Divider, Icon, Image, Input, ListItem, Row, Scroll, Tabs,
                                      Text, Widget)

GREY = (120, 122, 130)
COLORS = [(30, 215, 96), (236, 65, 65), (80, 120, 220), (240, 180, 60), (150, 90, 200), (60, 180, 180)]
ARTISTS = {"en": ("Luna Grey", "The Midnight Owls", "Sam Rivers", "Coral Bay", "Neon Harbor", "Ada Stone",
                  "Paper Planes", "Jules West"),
           "zh": ("林夕月", "南山乐队", "陈小夏", "晚风乐团", "周一一", "木子", "星河合唱团", "阿沐")}
TITLES = {"en": ("Golden Hour", "City Lights", "Slow Morning", "Paper Boats", "Run Away", "Blue Summer", "Northern Sky",
                 "Coffee and Rain", "Home Again", "Starlight Drive", "Quiet Storm", "Echoes"),
          "zh": ("晚风", "城市的光", "慢慢来", "纸船", "奔跑", "蓝色夏天", "北方的天空", "咖啡与雨", "回家", "星光公路",
                 "安静的风暴", "回声")}
VERSIONS = {"en": ("Live", "Acoustic", "Remix", "Cover", "Piano Version", "Radio Edit"),
            "zh": ("现场版", "吉他版", "混音版", "翻唱", "钢琴版", "电台版")}
USERS = {"zh": ("小明", "阿杰", "晓雯", "乐乐", "大鹏"), "en": ("Sam", "Jordan", "Casey", "Riley", "Morgan")}


def normalize_query(query: str) -> str:
    """The form results are keyed by: spaces collapsed, case folded, surrounding quotes dropped."""
    return " ".join(query.split()).casefold().strip(" '\"\u201c\u201d\u2018\u2019")


def _song(rng: random.Random, ident: str, title: str, lang: str) -> dict[str, Any]:
    return {"id": ident, "title": title, "artist": rng.choice(ARTISTS[lang]), "duration": rng.randint(130, 320),
            "plays": rng.randint(10_000, 90_000_000), "color": rng.randrange(len(COLORS))}


@lru_cache(maxsize=256)
def _search(seed: int, flavour: str, locale: str, norm: str) -> tuple[tuple[tuple[str, Any], ...], ...]:
    rng = random.Random(f"{seed}|{flavour}|{locale}|{norm}")
    lang = "zh" if locale == "zh" else "en"
    key = hashlib.sha1(norm.encode("utf-8")).hexdigest()[:8]
    versions = rng.sample(VERSIONS[lang], 5)
    out = [_song(rng, f"s{key}-1", norm, lang)]
    out += [_song(rng, f"s{key}-{i + 2}", f"{norm} ({v})" if lang == "en" else f"{norm}（{v}）", lang)
            for i, v in enumerate(versions)]
    return tuple(tuple(s.items()) for s in out)


def songs(source: Mapping[str, Any] | int, query: str, *, flavour: str = "spotify",
          locale: str = "en") -> list[dict[str, Any]]:
    """The songs a search for `query` lists (six, the first titled exactly as the normalised query); [] for an empty
    query. `source` is a music app's state or a bare catalog seed with the keywords."""
    norm = normalize_query(query)
    if not norm:
        return []
    if isinstance(source, Mapping):
        cat = source["catalog"]
        source, flavour, locale = int(cat["seed"]), cat["flavour"], cat["locale"]
    return [dict(s) for s in _search(int(source), flavour, locale, norm)]


def _find(state: Mapping[str, Any], sid: str | None) -> dict[str, Any] | None:
    return next((s for s in state["library"] if s["id"] == sid), None)


def _search_for(ctx: Ctx, text: str) -> None:
    query = " ".join(text.split())
    if not query:
        ctx.toast("Type something to search")
        return
    s = ctx.state
    s["history"] = ([query] + [h for h in s["history"] if normalize_query(h) != normalize_query(query)])[:10]
    s["searches"].append(query)
    ctx.replace("search", query=query)


def _play(ctx: Ctx, song: dict[str, Any]) -> None:
    if _find(ctx.state, song["id"]) is None:
        ctx.state["library"].append(dict(song))
    ctx.state["playing"] = song["id"]
    ctx.state["played"].append(song["id"])
    ctx.push("now_playing", id=song["id"])


def _log_out(ctx: Ctx) -> None:
    ctx.state["logged_in"] = False
    ctx.effect("logout", account=ctx.state["user"])
    ctx.reset_to("login")


class MusicApp(Memberships, App):
    """The music engine. A subclass gives the identity (name, names, package, colour, icon, currency), its
    `flavour`, its plans (`plans`, `member_title`) and its own `strings`, laid over the engine's."""

    archetype = "music"
    login_required = True  # logged in by default; `setup_logged_out` puts the wall up
    flavour: ClassVar[str] = "spotify"
    strings: ClassVar[dict[str, dict[str, str]]] = {"zh": {
        **Memberships.MEMBER_ZH,
        "Home": "首页", "Good morning, {user}": "早上好，{user}", "Made for you": "为你推荐", "Search songs": "搜索歌曲",
        "Type something to search": "请输入搜索内容", "Recent searches": "历史搜索", "Songs": "单曲",
        "Now playing": "正在播放", "{n} plays": "{n}次播放",
        "Hello, {user}": "你好，{user}", "Log out?": "退出登录？", "You will need to log in again.": "需要重新登录。",
        "Get {title}": "开通{title}",
    }}

    def __init_subclass__(cls, **kw: Any) -> None:
        """A subclass's own `strings` are laid over the engine's (so each app's table holds only its own words)."""
        super().__init_subclass__(**kw)
        own = cls.__dict__.get("strings")
        if own is not None:
            base = MusicApp.strings
            cls.strings = {loc: {**base.get(loc, {}), **own.get(loc, {})} for loc in {*base, *own}}

    def initial_state(self, rng: random.Random) -> dict[str, Any]:
        lang = "zh" if self.locale == "zh" else "en"
        library = [_song(rng, f"d-{i + 1}", title, lang) for i, title in enumerate(rng.sample(TITLES[lang], 8))]
        return {"catalog": {"seed": rng.randrange(1 << 30), "flavour": self.flavour, "locale": lang},
                "library": library, "history": [], "searches": [], "playing": None, "played": [],
                "user": rng.choice(USERS[lang]), "logged_in": True, **member_state(self.plans, lang, rng)}

    def setup_logged_out(self, ctx: Ctx) -> None:
        """Log the account out: the app opens on its login wall (a login records a `login` effect)."""
        ctx.state["logged_in"] = False

    # ----- screens -------------------------------------------------------------------------------------------------
    def _nav(self, selected: int) -> Widget:
        screens = ("home", "search", "me")
        return Tabs(["Home", "Search", "Me"], selected, icons=["home", "search", "user"],
                    on_select=lambda c, i: c.reset_to(screens[i]) if i != selected else None, id="bottom_nav")

    def _song_row(self, ctx: Ctx, song: dict[str, Any]) -> Widget:
        return ListItem(song["title"], f"{song['artist']}  \u00b7  {fmt_duration(song['duration'])}", id="song",
                        leading=Image(desc=song["title"], height=110, width=110, color=COLORS[song["color"]]),
                        on_click=lambda c, song=song: _play(c, song))

    def screen_home(self, ctx: Ctx) -> Widget:
        s = ctx.state
        return Column(
            Row(Text(ctx.t("Good morning, {user}", user=s["user"]), size="title", bold=True, weight=1.0, id="greeting"),
                Icon("star_filled", desc=self.member_title, size=80, color="primary", id="premium",
                     on_click=lambda c: c.push("membership")), pad=28),
            Scroll(Column(Button(ctx.t("Get {title}", title=ctx.t(self.member_title)), id="get_premium",
                                 on_click=lambda c: c.push("membership")), pad=28),
                   Text("Made for you", bold=True, pad=28), *[self._song_row(ctx, song) for song in s["library"][:8]],
                   id="home_list"),
            self._nav(0))

    def screen_search(self, ctx: Ctx) -> Widget:
        query = ctx.params.get("query", "")
        found = songs(ctx.state, query) if query else []
        history = [ListItem(h, id="history_item", on_click=lambda c, h=h: _search_for(c, h))
                   for h in ctx.state["history"]]
        body = ([Text("Songs", bold=True, pad=28), *[self._song_row(ctx, song) for song in found]] if found
                else [Text("Recent searches", size="small", color=GREY, pad=28), *history])
        return Column(
            Row(Input("query", hint="Search songs", value=query, on_submit=_search_for, weight=1.0),
                Button("Search", style="text", id="search_button",
                       on_click=lambda c: _search_for(c, c.fields.get("query", ""))), pad=28, gap=20),
            Scroll(*body, id="search_list"), self._nav(1))

    def screen_now_playing(self, ctx: Ctx) -> Widget:
        s = ctx.state
        song = _find(s, ctx.params.get("id")) or s["library"][0]
        playing = s["playing"] == song["id"]

        def toggle(c: Ctx, sid: str = song["id"]) -> None:
            c.state["playing"] = None if c.state["playing"] == sid else sid

        return Column(AppBar("Now playing"),
                      Column(Image(desc=song["title"], height=700, color=COLORS[song["color"]]),
                             Text(song["title"], size="big", bold=True, id="song_title"),
                             Text(song["artist"], color=GREY, id="song_artist"),
                             Text(ctx.t("{n} plays", n=f"{song['plays']:,}"), size="small", color=GREY),
                             Row(MediaIcon("pause" if playing else "play", desc="Pause" if playing else "Play",
                                           size=140, id="play_pause", on_click=toggle),
                                 Text(fmt_duration(song["duration"]), color=GREY), gap=30),
                             pad=40, gap=24))

    def screen_me(self, ctx: Ctx) -> Widget:
        s = ctx.state
        return Column(
            AppBar("Me", back=False),
            Scroll(ListItem(ctx.t("Hello, {user}", user=s["user"]), id="profile",
                            leading=Icon("user", desc="Profile", size=100, bg="primary")),
                   Divider(),
                   ListItem(self.member_title, self._status_text(ctx), id="membership",
                            leading=Icon("star", desc=self.member_title, size=70),
                            on_click=lambda c: c.push("membership")),
                   Column(Button("Log out", style="danger", id="log_out",
                                 on_click=lambda c: c.confirm(c.t("Log out?"), c.t("You will need to log in again."),
                                                              _log_out, yes=c.t("Log out"))), pad=36),
                   id="me_list"),
            self._nav(2))


@register
class Spotify(MusicApp):
    name = "Spotify"
    names = {"zh": "Spotify"}
    package = "com.spotify.music"
    aliases = ("spotify music", "声破天")
    color = "#1db954"
    icon = "S"
    currency = "USD"
    flavour = "spotify"
    member_title = "Premium"
    plans = (tier("Premium Individual", ("1 Premium account", "1 个 Premium 账号"), [(MONTHLY, 11.99), (YEARLY, 119.0)]),
             tier("Premium Duo", ("2 Premium accounts for a couple", "两人共享 2 个 Premium 账号"), [(MONTHLY, 16.99)]),
             tier("Premium Family", ("Up to 6 Premium accounts", "最多 6 个 Premium 账号"), [(MONTHLY, 19.99)]),
             tier("Premium Student", ("For students at an accredited school", "面向在校学生"), [(MONTHLY, 5.99)]))
    strings = {"zh": {"Premium": "Premium 会员"}}


@register
class NetEaseCloudMusic(MusicApp):
    name = "NetEase Cloud Music"
    key = "netease_music"
    names = {"zh": "网易云音乐"}
    package = "com.netease.cloudmusic"
    aliases = ("netease cloudmusic", "netease music", "网易云", "cloudmusic", "cloud music")
    color = "#c20c0c"
    icon = "网"
    currency = "CNY"
    flavour = "netease"
    member_title = "VIP center"
    plans = (tier(("Black Vinyl VIP", "黑胶VIP"), ("High-quality downloads and member songs", "无损音质下载、会员曲库"),
                  [(MONTHLY, 15.0), (ONE_MONTH, 18.0), (THREE_MONTHS, 50.0), (TWELVE_MONTHS, 158.0)]),
             tier(("Black Vinyl SVIP", "黑胶SVIP"), ("Everything in VIP plus audiobooks and spatial audio",
                                                     "黑胶VIP 全部权益，加有声书和空间音频"),
                  [(MONTHLY, 20.0), (ONE_MONTH, 25.0), (TWELVE_MONTHS, 228.0)]))
    strings = {"zh": {"VIP center": "会员中心"}}
