"""Feed and video apps (Douyin, TikTok, Xiaohongshu, Bilibili, YouTube, Weibo, X, Instagram, Tencent Video / WeTV,
Netflix): one engine with a home feed, trending lists (hot list, weekly picks, rankings), search for any query,
uploader pages, a player or a note page with likes, follows, posting, a profile with a new profile photo from the
phone's photos, paid memberships and a login wall.

Search answers any query: `results(state, query)` generates videos (or notes) from the query and the app's catalog
seed, each with views, likes, uploader and date (a pure function, so a judge computes "the most viewed video for this
query" from the same state the phone shows); `uploader_videos(state, name)` does the same for any uploader's page.
Counts shown on one list never read the same, so "the most viewed" is one item. Each app is a small identity on the
engine (`FeedApp`): names, package, colours, currency, its lists and its words.

Playing a video while the phone is off Wi-Fi opens the player paused under a dialog "You're not on Wi-Fi ... Play
anyway?" (a state the user has to settle: their data plan); the video plays only after "Play".

State (a judge reads it by path, e.g. `youtube.targets.top.id`, `bilibili.played[*].id`):
  catalog          {"seed", "flavour", "locale"}: what the generators draw from
  videos           the records of every item the phone holds (lists, liked, opened search results, set-up uploads):
                   id, title, uploader, views, likes, comments, date (YYYY-MM-DD), duration (s; 0 for notes), query,
                   color, and for notes `points` (the ingredients of a recipe, the tips of other notes) and `recipe`
  lists            {"feed": [...], "trending" | "hot" | "popular" | "weekly" | "ranking" | "explore": [...]}: entries
                   {"id", "rank"} in the order the app shows them
  liked            ids, most recent first; `following`: uploader names; `channels`: uploaders set-up hooks made
  history          queries, most recent first, each once; `searches`: every search in order
  opened           {"id", "title", "uploader", "points"} of every item whose page was opened, in order
  played           {"id", "title", "uploader", "query"} of every playback started, in order; `player`
  posts            what the user posted; `profile`: {"nickname", "avatar": {"photo", "name"} | None, "bio"}
  targets          items set-up hooks name for a task (`setup_target`): the record a judge checks against
  pinned           notes set-up hooks guarantee among a query's results (`setup_post`)
  data_allowed     whether the user allowed playing on mobile data; and the membership part (`_membership`)
Effects: `play` (video, title, uploader, query), `like` (video, title, uploader), `post` (text), `profile_change`
(field, photo, name), `subscription` (see `_membership`), `login`, `logout`.
"""

from __future__ import annotations

import datetime
import hashlib
import math
import random
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, ClassVar, Mapping

from mobile_r1.sim.apps import App, Ctx, new_id, register
from mobile_r1.sim.apps._search import no_results, open_search as _open_search, search, sort_chips
from mobile_r1.sim.apps._membership import (MONTHLY, ONE_MONTH, QUARTERLY, THREE_MONTHS, TWELVE_MONTHS, YEARLY,
                                            Memberships, member_state, tier)
from mobile_r1.sim.apps.video import MediaIcon, fmt_duration
from mobile_r1.sim.media import live
from mobile_r1.sim.ui.widgets import (AppBar, Button, Column, Divider, Grid, Icon, Image, Input, ListItem, Row,
                                      Scroll, Tabs, Text, Widget)

GREY = (120, 122, 130)
COLORS = [(214, 226, 245), (245, 220, 210), (214, 238, 218), (240, 232, 200), (228, 214, 242), (206, 234, 236),
          (244, 210, 218), (222, 226, 206)]
BASE_DATE = datetime.date(2025, 6, 30)  # "today" on every simulated phone: dates are this minus an age in days
SORTS = ("relevance", "views", "date")  # the results screen's `sort` param indexes this
RECIPE_WORDS = ("recipe", "做法", "菜谱", "怎么做", "how to cook", "how to make", "家常")


# ----- what each style of app shows (per language) -----------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Pool:
    """The words one style of app draws its items from in one language."""

    uploaders: tuple[str, ...]
    topics: tuple[str, ...]
    patterns: tuple[str, ...]  # titles of list items, with {t} (a topic)
    search: tuple[str, ...]  # titles of search results, with {q} (the query) and {d} (a descriptor)
    descriptors: tuple[str, ...]


_VIDEO_EN = Pool(
    ("Tech Insider", "Chef Mia", "FitWithSam", "Wanderlust Joe", "Science Daily", "Game Hub", "Guitar Gus",
     "Cat Corner", "Study With Lily", "Daily Dose", "Pixel Lab", "Trail Tales"),
    ("street food", "home workouts", "budget phones", "chess openings", "guitar riffs", "cat videos", "space facts",
     "study tips", "photography", "camping", "home cooking", "city walks"),
    ("Top 10 {t} moments", "I tried {t} for 30 days", "The ultimate {t} guide", "{t} explained in 8 minutes",
     "Beginner's guide to {t}", "Best of {t} this week", "Why everyone loves {t}", "{t}: what nobody tells you"),
    ("{q}", "{q} - {d}", "{d}: {q}", "{q} | {d}", "{q} ({d})"),
    ("full guide", "must watch", "explained", "highlights", "compilation", "2025 edition", "beginner friendly",
     "deep dive", "reaction", "review", "live", "tips and tricks"))
_VIDEO_ZH = Pool(
    ("科技小王", "吃货阿明", "健身达人小李", "旅行的猫", "数码老张", "游戏酱", "吉他阿飞", "喵星人日记", "学霸笔记",
     "日常碎碎念", "摄影课代表", "露营小队"),
    ("街头美食", "居家健身", "千元机", "国际象棋", "吉他弹唱", "猫咪日常", "天文冷知识", "学习方法", "手机摄影", "露营装备",
     "家常菜", "城市漫步"),
    ("一口气看完{t}", "{t}入门教程", "挑战30天{t}", "{t}高能合集", "十分钟讲清{t}", "本周最佳{t}", "为什么大家都爱{t}",
     "关于{t}没人告诉你的事"),
    ("{q}", "【{d}】{q}", "{q}｜{d}", "{q}，{d}", "{d}！{q}"),
    ("完整版", "必看", "详细讲解", "高能合集", "2025最新", "新手向", "深度解析", "实测", "干货分享", "名场面", "保姆级教程",
     "一看就会"))
_NOTE_EN = Pool(
    ("@dailyfoodie", "@urbanlens", "@techtalk", "@fitlife", "@wanderer", "@bookclub", "@coffeelover", "@plantmom",
     "@citysnaps", "@homechef", "@studygram", "@careerdiaries"),
    ("coffee", "sunsets", "home cooking", "running", "books", "plants", "street photos", "travel", "baking", "design",
     "desk setups", "weekend trips"),
    ("Loving this {t} today", "{t} tips everyone should know", "My {t} routine", "Weekend {t} diary",
     "Quick {t} update", "5 {t} ideas worth saving", "{t} mistakes I stopped making", "A {t} checklist"),
    ("{q}", "{q}: {d}", "{d} - {q}", "{q} | {d}", "My {q} notes ({d})"),
    ("worth saving", "honest review", "step by step", "my experience", "a quick guide", "tips inside", "must read",
     "beginner notes", "lessons learned", "checklist", "small wins", "what worked"))
_NOTE_ZH = Pool(
    ("生活家小美", "厨房里的阿杰", "穿搭日记", "旅行手帐", "学习打卡君", "职场小红", "健身少女", "家居灵感", "美妆研究所",
     "读书笔记", "咖啡控", "周末去哪儿"),
    ("家常菜", "通勤穿搭", "护肤", "周末旅行", "读书", "收纳", "健身", "职场", "烘焙", "咖啡", "桌面布置", "租房改造"),
    ("{t}分享｜超实用", "{t}的8个小技巧", "我的{t}日常", "{t}避坑指南", "{t}心得", "收藏！{t}清单", "{t}踩过的坑",
     "新手{t}笔记"),
    ("{q}", "{q}｜{d}", "{d}｜{q}", "{q}，{d}", "关于{q}的{d}"),
    ("建议收藏", "亲测有效", "保姆级攻略", "真实体验", "干货分享", "一篇讲清", "避坑指南", "新手必看", "经验总结",
     "清单整理", "小白友好", "超详细"))
_SHOW_EN = Pool(
    ("Netflix Originals", "Studio North", "Blue Harbor Films", "Maple Pictures", "Atlas Studios", "Lumen Media"),
    ("Stranger Days", "The Crown Court", "Midnight Harbor", "Red Orchard", "Silent Coast", "Paper Kingdom",
     "Northern Lights", "The Glass House", "Summer Road", "City of Echoes"),
    ("{t}: Season 1", "{t}: Episode 1", "{t}: The Movie", "{t}: Behind the Scenes", "{t}: Season 2 trailer"),
    ("{q}", "{q}: {d}", "{q} ({d})"),
    ("trailer", "full movie", "season 1", "documentary", "behind the scenes", "special", "director's cut",
     "episode 1", "anniversary edition", "remastered", "limited series", "recap"))
_SHOW_ZH = Pool(
    ("腾讯视频出品", "北辰影业", "蓝港影视", "枫叶传媒", "星河工作室", "光影文化"),
    ("长夜将明", "山河故人", "繁星之城", "南风知我意", "少年歌行", "月下江湖", "灯火阑珊", "云中谣", "海上明月", "青春不散"),
    ("{t} 第1集", "{t} 第2集", "{t} 电影版", "{t} 幕后花絮", "{t} 第二季预告"),
    ("{q}", "{q}：{d}", "{q}（{d}）"),
    ("预告片", "完整版", "第一季", "纪录片", "幕后花絮", "特别篇", "导演剪辑版", "第1集", "周年纪念版", "修复版", "独家",
     "精彩回顾"))
POOLS: dict[str, dict[str, Pool]] = {"video": {"en": _VIDEO_EN, "zh": _VIDEO_ZH},
                                     "short": {"en": _VIDEO_EN, "zh": _VIDEO_ZH},
                                     "note": {"en": _NOTE_EN, "zh": _NOTE_ZH}, "show": {"en": _SHOW_EN, "zh": _SHOW_ZH}}
# The style of items each flavour shows: video pages, short videos, notes (text and pictures) or shows
STYLES: dict[str, str] = {"youtube": "video", "bilibili": "video", "douyin": "short", "tiktok": "short",
                          "xiaohongshu": "note", "weibo": "note", "x": "note", "instagram": "note", "wetv": "show",
                          "netflix": "show"}
# How long an item of each style plays (seconds; notes do not play)
DURATIONS = {"video": (120, 1800), "short": (8, 90), "show": (1500, 3600), "note": (0, 0)}
# The points a note lists: the ingredients and seasonings of a recipe, or the tips of any other note
RECIPE_POINTS = {"en": ("light soy sauce", "oyster sauce", "minced garlic", "a pinch of sugar", "black vinegar",
                        "Sichuan pepper", "sesame oil", "chopped scallions", "cornstarch slurry", "white pepper"),
                 "zh": ("生抽", "蚝油", "蒜末", "少许白糖", "香醋", "花椒", "香油", "葱花", "水淀粉", "白胡椒粉")}
TIP_POINTS = {"en": ("start small", "keep a routine", "take notes", "ask for feedback", "plan ahead", "rest well",
                     "track your progress", "stay curious", "set one goal a week", "review every Sunday"),
              "zh": ("从小事做起", "坚持打卡", "做好笔记", "多请教前辈", "提前规划", "注意休息", "记录进度", "保持好奇心",
                     "每周定一个目标", "每周日复盘")}
LOOKALIKES = {"en": ("{name} Fans", "{name} Clips"), "zh": ("{name}粉丝站", "{name}精彩剪辑")}
USERS = {"zh": ("小明", "阿杰", "晓雯", "乐乐", "大鹏"), "en": ("Sam", "Jordan", "Casey", "Riley", "Morgan")}
BIOS = {"zh": "记录生活，分享快乐", "en": "Sharing the good bits"}


# ----- numbers and dates as the apps write them -------------------------------------------------------------------
def count_text(n: int, lang: str = "en") -> str:
    """'987', '12.3K', '1.2M' (English) or '987', '12.3万', '1.2亿' (Chinese)."""
    if lang == "zh":
        if n >= 100_000_000:
            return f"{n / 100_000_000:.1f}亿"
        return f"{n / 10_000:.1f}万" if n >= 10_000 else str(n)
    if n >= 1_000_000_000:
        return f"{n / 1_000_000_000:.1f}B"
    if n >= 1_000_000:
        return f"{n / 1_000_000:.1f}M"
    return f"{n / 1_000:.1f}K" if n >= 1_000 else str(n)


def _snap(n: int, lang: str) -> int:
    """`n` rounded to what `count_text` shows, so that the shown count is the exact count."""
    steps = ((100_000_000, 10_000_000), (10_000, 1_000)) if lang == "zh" else (
        (1_000_000_000, 100_000_000), (1_000_000, 100_000), (1_000, 100))
    for limit, step in steps:
        if n >= limit:
            return max(limit, int(round(n / step)) * step)
    return max(1, n)


def _counts(rng: random.Random, n: int, lo: float, hi: float, lang: str) -> list[int]:
    """`n` counts drawn log-uniformly in [lo, hi] that all read differently."""
    out: list[int] = []
    shown: set[str] = set()
    while len(out) < n:
        value = _snap(int(math.exp(rng.uniform(math.log(lo), math.log(hi)))), lang)
        if count_text(value, lang) not in shown:
            shown.add(count_text(value, lang))
            out.append(value)
    return out


def _likes(rng: random.Random, views: list[int], lang: str) -> list[int]:
    """A like count under each view count, all reading differently."""
    out: list[int] = []
    shown: set[str] = set()
    for v in views:
        for _ in range(200):
            value = _snap(max(1, int(v * rng.uniform(0.01, 0.12))), lang)
            if count_text(value, lang) not in shown:
                break
        shown.add(count_text(value, lang))
        out.append(value)
    return out


def _distinct(counts: list[int], lang: str) -> int:
    """A count near the middle of sorted `counts` that reads differently from all of them."""
    value = _snap(counts[len(counts) // 2] + 7, lang) if counts else 1000
    shown = {count_text(c, lang) for c in counts}
    while count_text(value, lang) in shown:
        value = _snap(int(value * 1.05) + 1, lang)
    return value


def date_of(age: int) -> str:
    """The date `age` days before the phone's today, as 'YYYY-MM-DD'."""
    return (BASE_DATE - datetime.timedelta(days=age)).isoformat()


def normalize_query(query: str) -> str:
    """The form results are keyed by: spaces collapsed, case folded, surrounding quotes and full stops dropped."""
    return " ".join(query.split()).casefold().strip(" '\"\u201c\u201d\u2018\u2019.\u3002")


def _digest(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8")).hexdigest()[:8]


def is_recipe(norm: str) -> bool:
    """Whether a query asks how to cook something (its notes then list ingredients)."""
    return any(w in norm for w in RECIPE_WORDS)


# ----- the generators (pure: judges import them) ----------------------------------------------------------------------
def _item(rng: random.Random, style: str, lang: str, ident: str, title: str, uploader: str, views: int, likes: int,
          age: int, query: str = "", recipe: bool = False) -> dict[str, Any]:
    lo, hi = DURATIONS[style]
    record: dict[str, Any] = {"id": ident, "title": title, "uploader": uploader, "views": views, "likes": likes,
                              "comments": max(1, likes // rng.randint(8, 30)), "date": date_of(age), "query": query,
                              "duration": rng.randint(lo, hi) if hi else 0, "color": rng.randrange(len(COLORS))}
    if style == "note":
        record["recipe"] = recipe
        record["points"] = rng.sample((RECIPE_POINTS if recipe else TIP_POINTS)[lang], 3)
    return record


def _title(pattern: str, topic: str) -> str:
    """A list item's title from a pattern and a topic, starting with a capital letter."""
    text = pattern.format(t=topic)
    return text[:1].upper() + text[1:]


def _style(flavour: str) -> str:
    return STYLES.get(flavour, "video")


def _not_first(items: list[dict[str, Any]]) -> None:
    """Reorder in place so that neither the most viewed nor the most liked item comes first."""
    tops = {max(range(len(items)), key=lambda i: items[i][f]) for f in ("views", "likes")}
    if 0 in tops:
        k = next(i for i in range(1, len(items)) if i not in tops)
        items[0], items[k] = items[k], items[0]


@lru_cache(maxsize=512)
def _search(seed: int, flavour: str, locale: str, norm: str) -> tuple[tuple[tuple[str, Any], ...], ...]:
    rng = random.Random(f"{seed}|{flavour}|{locale}|search|{norm}")
    style, lang = _style(flavour), ("zh" if locale == "zh" else "en")
    pool = POOLS[style][lang]
    n = rng.randint(8, 12)
    views = _counts(rng, n, 900, 30_000_000, lang)
    likes = _likes(rng, views, lang)
    ages = rng.sample(range(1, 900), n)
    key = _digest(norm)
    titles: list[str] = []
    out = []
    for i in range(n):
        title = norm
        for _ in range(20):
            title = rng.choice(pool.search).format(q=norm, d=rng.choice(pool.descriptors))
            if title not in titles:
                break
        titles.append(title)
        record = _item(rng, style, lang, f"q{key}-{i + 1}", title, rng.choice(pool.uploaders), views[i], likes[i],
                       ages[i], norm, is_recipe(norm))
        out.append(record)
    _not_first(out)  # relevance is an order of its own: never simply the most viewed (or liked) first
    return tuple(tuple(record.items()) for record in out)


def _catalog(source: Mapping[str, Any] | int, flavour: str, locale: str) -> tuple[int, str, str]:
    if isinstance(source, Mapping):
        cat = source["catalog"]
        return int(cat["seed"]), cat["flavour"], cat["locale"]
    return int(source), flavour, locale


def results(source: Mapping[str, Any] | int, query: str, *, flavour: str = "youtube",
            locale: str = "en") -> list[dict[str, Any]]:
    """The items a search for `query` shows, in the default (relevance) order.

    `source` is a feed app's state (its `catalog` gives seed, flavour and locale, and its `pinned` notes whose query
    the search contains come first) or a bare catalog seed with the keywords. Deterministic, and the same for every
    spelling of one normalised query; each item has id, title (containing the normalised query), uploader, views,
    likes, comments, date, duration, query (and points, recipe for notes). Views and likes read differently within one
    query. An empty query gives []."""
    norm = normalize_query(query)
    if not norm:
        return []
    seed, flavour, locale = _catalog(source, flavour, locale)
    pinned = []
    if isinstance(source, Mapping):
        pinned = [dict(p) for p in source.get("pinned", []) if p["query"] in norm]
    return pinned + [dict(items) for items in _search(seed, flavour, locale, norm)]


@lru_cache(maxsize=512)
def _uploads(seed: int, flavour: str, locale: str, name: str) -> tuple[tuple[tuple[str, Any], ...], ...]:
    rng = random.Random(f"{seed}|{flavour}|{locale}|uploader|{name}")
    style, lang = _style(flavour), ("zh" if locale == "zh" else "en")
    pool = POOLS[style][lang]
    n = rng.randint(6, 9)
    views = _counts(rng, n, 2_000, 8_000_000, lang)
    likes = _likes(rng, views, lang)
    ages = sorted(rng.sample(range(1, 400), n))
    key = _digest(name)
    out = []
    for i in range(n):
        title = _title(rng.choice(pool.patterns), rng.choice(pool.topics))
        out.append(tuple(_item(rng, style, lang, f"u{key}-{i + 1}", title, name, views[i], likes[i], ages[i]).items()))
    return tuple(out)


def uploader_videos(source: Mapping[str, Any] | int, name: str, *, flavour: str = "youtube",
                    locale: str = "en") -> list[dict[str, Any]]:
    """The items uploader `name`'s page lists, newest first: generated from the name and the catalog seed, with the
    uploads set-up hooks gave it (`setup_uploader`); generated titles never contain the topic of such an upload."""
    seed, flavour, locale = _catalog(source, flavour, locale)
    own: list[dict[str, Any]] = []
    if isinstance(source, Mapping):
        own = [dict(v) for v in source.get("videos", []) if v.get("channel") == name]
    topics = [v["topic"] for v in own if v.get("topic")]
    made = [dict(items) for items in _uploads(seed, flavour, locale, name)]
    made = [v for v in made if not any(t.casefold() in v["title"].casefold() for t in topics)]
    return sorted(own + made, key=lambda v: (v["date"], v["id"]), reverse=True)


def channel_info(state: Mapping[str, Any], name: str) -> dict[str, Any]:
    """An uploader's page header: the one a set-up hook made, else one drawn from the name."""
    for c in state.get("channels", []):
        if c["name"] == name:
            return dict(c)
    rng = random.Random(f"{state['catalog']['seed']}|channel|{name}")
    lang = state["catalog"]["locale"]
    return {"name": name, "official": False, "followers": _snap(int(math.exp(rng.uniform(8, 15))), lang),
            "bio": BIOS[lang]}


def sort_items(items: list[dict[str, Any]], order: str) -> list[dict[str, Any]]:
    """Items as a list shows them for a sort order: relevance (as given), views, likes or date (newest first)."""
    if order == "views":
        return sorted(items, key=lambda v: (-v["views"], v["id"]))
    if order == "likes":
        return sorted(items, key=lambda v: (-v["likes"], v["id"]))
    if order == "date":
        return sorted(items, key=lambda v: (v["date"], v["id"]), reverse=True)
    return list(items)


def pick(items: list[dict[str, Any]], by: str, topic: str = "") -> dict[str, Any]:
    """The one item a task names among `items` (in their shown order): by = first | views | likes | latest, among
    those whose title contains `topic` when given."""
    chosen = [v for v in items if topic.casefold() in v["title"].casefold()] if topic else list(items)
    if not chosen:
        raise ValueError(f"no item{' about ' + repr(topic) if topic else ''} to pick from")
    if by == "first":
        return chosen[0]
    if by in ("views", "likes"):
        return sort_items(chosen, by)[0]
    if by == "latest":
        return sort_items(chosen, "date")[0]
    raise ValueError(f"unknown choice {by!r}; use first, views, likes or latest")


def following_feed(state: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The newest items of the uploaders the user follows (three each), newest first."""
    items = [v for name in state["following"] for v in uploader_videos(state, name)[:3]]
    return sort_items(items, "date")


def list_items(state: Mapping[str, Any], name: str) -> list[dict[str, Any]]:
    """The items of one of the app's lists (`feed`, `trending`, `hot`, `weekly`, ...) in the order it shows them."""
    by_id = {v["id"]: v for v in state["videos"]}
    return [by_id[e["id"]] for e in state["lists"].get(name, []) if e["id"] in by_id]


# ----- handlers the screens share ----------------------------------------------------------------------------------
def _record(state: Mapping[str, Any], vid: str | None) -> dict[str, Any] | None:
    return next((v for v in state["videos"] if v["id"] == vid), None)


def _remember(ctx: Ctx, item: dict[str, Any]) -> None:
    if _record(ctx.state, item["id"]) is None:
        ctx.state["videos"].append(dict(item))


def _search_for(ctx: Ctx, text: str) -> None:
    search(ctx, text, normalize_query)  # history kept once per query as the feed keys it (quotes dropped)


def _start(ctx: Ctx, vid: str) -> None:
    v = _record(ctx.state, vid)
    if v is None:
        return
    ctx.state["player"] = {"video": vid, "playing": True}
    ctx.state["played"].append({"id": vid, "title": v["title"], "uploader": v["uploader"], "query": v["query"]})
    ctx.effect("play", video=vid, title=v["title"], uploader=v["uploader"], query=v["query"])


def _allow_and_play(ctx: Ctx, vid: str) -> None:
    ctx.state["data_allowed"] = True
    _start(ctx, vid)


def _play(ctx: Ctx, vid: str) -> None:
    """Start playback, asking first while the phone is on mobile data."""
    if ctx.system.get("wifi", True) or ctx.state["data_allowed"]:
        _start(ctx, vid)
        return
    v = _record(ctx.state, vid)
    mb = max(5, int((v or {}).get("duration", 60) * 0.6))
    ctx.dialog(ctx.t("You're not on Wi-Fi"),
               ctx.t("Playing this video will use about {mb} MB of mobile data. Play anyway?", mb=mb),
               [("Cancel", None), ("Play", lambda c, vid=vid: _allow_and_play(c, vid))])


def _open_item(ctx: Ctx, item: dict[str, Any]) -> None:
    _remember(ctx, item)
    if isinstance(ctx.app, FeedApp) and ctx.app.kind == "note":
        if all(o["id"] != item["id"] for o in ctx.state["opened"]):
            ctx.state["opened"].append({"id": item["id"], "title": item["title"], "uploader": item["uploader"],
                                        "points": list(item.get("points", []))})
        ctx.push("note", id=item["id"])
        return
    if all(o["id"] != item["id"] for o in ctx.state["opened"]):
        ctx.state["opened"].append({"id": item["id"], "title": item["title"], "uploader": item["uploader"],
                                    "points": []})
    ctx.state["player"] = {"video": item["id"], "playing": False}
    ctx.push("player", id=item["id"])
    _play(ctx, item["id"])


def _toggle_play(ctx: Ctx, vid: str) -> None:
    p = ctx.state["player"]
    if p["video"] == vid and p["playing"]:
        p["playing"] = False
        return
    _play(ctx, vid)


def _toggle_like(ctx: Ctx, vid: str) -> None:
    v = _record(ctx.state, vid)
    if v is None:
        return
    liked = ctx.state["liked"]
    if vid in liked:
        liked.remove(vid)
        v["likes"] = max(0, v["likes"] - 1)
        ctx.toast("Like removed")
        return
    liked.insert(0, vid)
    v["likes"] += 1
    ctx.effect("like", video=vid, title=v["title"], uploader=v["uploader"])
    ctx.toast("Liked")


def _toggle_follow(ctx: Ctx, name: str) -> None:
    following = ctx.state["following"]
    if name in following:
        following.remove(name)
        ctx.toast("Unfollowed {name}", name=name)
    else:
        following.append(name)
        ctx.toast("Followed {name}", name=name)


def _publish(ctx: Ctx, *_: Any) -> None:
    text = ctx.fields.get("post_text", "").strip()
    if not text:
        ctx.toast("Write something first")
        return
    posts = ctx.state["posts"]
    posts.insert(0, {"id": new_id(posts), "text": text, "date": BASE_DATE.isoformat()})
    ctx.effect("post", text=text)
    ctx.reset_to("me")
    ctx.toast("Posted")


def _set_avatar(ctx: Ctx, pid: int) -> None:
    photo = next((p for p in ctx.media["photos"] if p["id"] == pid), None)
    if photo is None:
        return
    ctx.state["profile"]["avatar"] = {"photo": pid, "name": photo["name"]}
    ctx.effect("profile_change", field="avatar", photo=pid, name=photo["name"])
    ctx.reset_to("me")
    ctx.toast("Profile photo updated")


def _log_out(ctx: Ctx) -> None:
    ctx.state["logged_in"] = False
    ctx.effect("logout", account=ctx.state["user"])
    ctx.reset_to("login")


# ----- the engine ----------------------------------------------------------------------------------------------------
class FeedApp(Memberships, App):
    """The feed and video engine. A subclass gives the identity (name, names, package, colour, icon, currency), its
    `flavour` (a key of STYLES: what its items look like), `kind` (video: a player; note: a note page), its `lists`
    ((key, English label) of the tabs its trending screen shows), the labels of its bottom tabs, its memberships
    (`plans`, `member_title`) and its own `strings`, laid over the engine's."""

    archetype = "feed"
    login_required = True  # logged in by default; `setup_logged_out` puts the wall up
    uses_media = True  # the profile photo comes from the phone's photos
    flavour: ClassVar[str] = "youtube"
    kind: ClassVar[str] = "video"
    lists: ClassVar[tuple[tuple[str, str], ...]] = (("trending", "Trending"),)
    trend_tab: ClassVar[str] = "Trending"
    follow_tab: ClassVar[str] = "Following"
    follow_word: ClassVar[tuple[str, str]] = ("Follow", "Followed")
    liked_title: ClassVar[str] = "Liked videos"
    strings: ClassVar[dict[str, dict[str, str]]] = {"zh": {
        **Memberships.MEMBER_ZH,
        "Home": "首页", "Type something to search": "请输入搜索内容", "Recent searches": "历史搜索",
        "Hot searches": "热门搜索", "Clear": "清空", "Search history cleared": "已清空搜索历史",
        "No results for '{query}'": "没有找到“{query}”相关的内容", "Relevance": "综合排序", "Most viewed": "最多播放",
        "Newest": "最新发布", "Sort by relevance": "按综合排序", "Sort by views": "按播放量排序",
        "Sort by date": "按发布时间排序", "{n} views": "{n}次播放", "{n} likes": "{n}点赞", "{n} heat": "{n}热度",
        "{n} followers": "{n}粉丝", "{n} comments": "{n}条评论", "Official": "官方认证",
        "Trending": "热门", "Hot list": "热榜", "Popular": "热门", "Weekly picks": "每周必看", "Rankings": "排行榜",
        "Hot search": "热搜", "Explore": "发现", "Top charts": "热播榜", "Top 10": "十大热门", "Following": "关注",
        "Subscriptions": "订阅", "Followed": "已关注", "Subscribed": "已订阅",
        "Followed {name}": "已关注{name}", "Unfollowed {name}": "已取消关注{name}",
        "Like removed": "已取消点赞", "Now playing": "正在播放", "Note": "笔记",
        "Post": "发布", "New post": "发帖", "What's on your mind?": "分享新鲜事…", "Write something first": "请先输入内容",
        "Posted": "已发布", "My posts": "我的发布", "No posts yet": "还没有发布内容", "Liked videos": "点赞的视频",
        "Liked posts": "赞过的内容", "Nothing here yet": "这里还没有内容", "Edit profile": "编辑资料",
        "Profile photo": "头像", "Nickname": "昵称", "Bio": "简介", "Change profile photo": "更换头像",
        "Choose a photo": "选择照片", "All photos": "全部照片", "Favorite": "收藏",
        "Change profile photo?": "更换头像？", "Use {name} as your profile photo? Others will see it.":
            "将{name}设为头像？其他人都能看到。", "Profile photo updated": "头像已更新", "No photos": "没有照片",
        "You're not on Wi-Fi": "当前非 WLAN 网络",
        "Playing this video will use about {mb} MB of mobile data. Play anyway?":
            "播放该视频将消耗约 {mb} MB 流量，是否继续播放？",
        "Log out?": "退出登录？", "You will need to log in again.": "需要重新登录。",
        "Ingredients": "用料", "Key points": "要点", "Save this for later!": "建议收藏！", "Latest": "最新",
        "By views": "最热", "Rank {n}": "第{n}名", "Open {name}'s page": "打开{name}的主页",
    }}

    def __init_subclass__(cls, **kw: Any) -> None:
        """A subclass's own `strings` are laid over the engine's (so each app's table holds only its own words)."""
        super().__init_subclass__(**kw)
        own = cls.__dict__.get("strings")
        if own is not None:
            base = FeedApp.strings
            cls.strings = {loc: {**base.get(loc, {}), **own.get(loc, {})} for loc in {*base, *own}}

    # ----- state -----------------------------------------------------------------------------------------
    def initial_state(self, rng: random.Random) -> dict[str, Any]:
        lang = "zh" if self.locale == "zh" else "en"
        style = _style(self.flavour)
        pool = POOLS[style][lang]
        videos: list[dict[str, Any]] = []
        lists: dict[str, list[dict[str, Any]]] = {}
        for key in ("feed", *(k for k, _ in self.lists)):
            lists[key] = self._make_list(rng, key, style, lang, pool, videos)
        liked_items = self._make_items(rng, "liked", 5, style, lang, pool)
        videos += liked_items
        liked = [v["id"] for v in liked_items]
        user = rng.choice(USERS[lang])
        return {
            "catalog": {"seed": rng.randrange(1 << 30), "flavour": self.flavour, "locale": lang},
            "videos": videos, "lists": lists, "liked": liked, "following": rng.sample(pool.uploaders, 3),
            "channels": [], "pinned": [], "targets": {}, "history": [], "searches": [], "opened": [], "played": [],
            "player": {"video": None, "playing": False}, "posts": [],
            "profile": {"nickname": user, "avatar": None, "bio": BIOS[lang]}, "user": user, "logged_in": True,
            "data_allowed": False, **member_state(self.plans, lang, rng),
        }

    def _make_items(self, rng: random.Random, prefix: str, n: int, style: str, lang: str,
                    pool: Pool) -> list[dict[str, Any]]:
        """`n` items of a list (ids `<prefix>-1` ...), with distinct titles and counts that read differently."""
        views = _counts(rng, n, 5_000, 50_000_000, lang)
        likes = _likes(rng, views, lang)
        ages = rng.sample(range(0, 60), n)
        out = []
        titles: set[str] = set()
        for i in range(n):
            title = ""
            for _ in range(30):
                title = _title(rng.choice(pool.patterns), rng.choice(pool.topics))
                if title not in titles:
                    break
            titles.add(title)
            out.append(_item(rng, style, lang, f"{prefix}-{i + 1}", title, rng.choice(pool.uploaders), views[i],
                             likes[i], ages[i]))
        return out

    def _make_list(self, rng: random.Random, key: str, style: str, lang: str, pool: Pool,
                   videos: list[dict[str, Any]]) -> list[dict[str, Any]]:
        items = self._make_items(rng, key, 10, style, lang, pool)
        if key == "hot":  # the hot list is ranked by heat (and carries it)
            for item, heat in zip(items, sorted(_counts(rng, len(items), 200_000, 90_000_000, lang), reverse=True)):
                item["heat"] = heat
        elif key != "feed":  # a chart's order is its own: never simply the most viewed (or most liked) first
            _not_first(items)
        videos += items
        return [{"id": v["id"], "rank": i + 1} for i, v in enumerate(items)]

    # ----- set-up hooks a task calls to make the phone fit its line ------------------------------------------------
    def setup_logged_out(self, ctx: Ctx) -> None:
        """Log the account out: the app opens on its login wall (a login records a `login` effect)."""
        ctx.state["logged_in"] = False

    def setup_mobile_data(self, ctx: Ctx) -> None:
        """Take the phone off Wi-Fi (on mobile data): playing a video asks "Play anyway?" first."""
        ctx.system["wifi"] = False
        ctx.state["data_allowed"] = False

    def setup_uploader(self, ctx: Ctx, name: str, topic: str = "", count: int = 1, official: bool = False,
                       lookalikes: bool = False, followers: int | None = None) -> None:
        """Make uploader `name` known (search finds it; its page lists its uploads): with `count` uploads whose titles
        contain `topic` (at different dates, newest first; no other upload of the page mentions the topic), marked
        official when `official`, and with `lookalikes` two unofficial accounts whose names contain the name. Calling
        it again with the same values changes nothing."""
        s = ctx.state
        lang = s["catalog"]["locale"]
        channel = next((c for c in s["channels"] if c["name"] == name), None)
        if channel is None:
            info = channel_info(s, name)
            info["official"] = bool(official)
            if followers is not None:
                info["followers"] = int(followers)
            elif official:
                info["followers"] = max(info["followers"], _snap(5_000_000, lang))
            s["channels"].append(info)
        if lookalikes:
            for i, style in enumerate(LOOKALIKES[lang]):
                other = style.format(name=name)
                if all(c["name"] != other for c in s["channels"]):
                    s["channels"].append({"name": other, "official": False, "followers": _snap(12_000 // (i + 1), lang),
                                          "bio": BIOS[lang]})
        if topic:
            have = [v for v in s["videos"] if v.get("channel") == name and v.get("topic") == topic]
            rng = random.Random(f"{s['catalog']['seed']}|upload|{name}|{topic}")
            style = _style(self.flavour)
            pool = POOLS[style][lang]
            views = _counts(rng, count, 20_000, 5_000_000, lang)
            likes = _likes(rng, views, lang)
            ages = sorted(rng.sample(range(2, 120), count))
            key = _digest(f"{name}|{topic}")
            for i in range(len(have), count):
                title = (f"{topic}｜{rng.choice(pool.descriptors)}" if lang == "zh"
                         else f"{topic} - {rng.choice(pool.descriptors)}")
                if count > 1:
                    title += f" (part {count - i})" if lang == "en" else f"（第{count - i}期）"
                record = _item(rng, style, lang, f"c{key}-{i + 1}", title, name, views[i], likes[i], ages[i])
                record.update(channel=name, topic=topic)
                s["videos"].append(record)

    def setup_post(self, ctx: Ctx, query: str, title: str | None = None, recipe: bool = False) -> dict[str, Any]:
        """Guarantee an item first among the results of every search containing `query` (a recipe note listing
        ingredients when `recipe`). Returns it; calling it again with the same query and title changes nothing."""
        s = ctx.state
        norm = normalize_query(query)
        lang = s["catalog"]["locale"]
        shown = " ".join(query.split())
        if title is None:
            title = (f"{shown}的做法｜超下饭家常菜" if recipe else f"{shown}｜建议收藏") if lang == "zh" else (
                f"How to make {shown} at home" if recipe else f"{shown}: worth saving")
        for p in s["pinned"]:
            if p["query"] == norm and p["title"] == title:
                return dict(p)
        rng = random.Random(f"{s['catalog']['seed']}|pinned|{norm}|{title}")
        style = _style(self.flavour)
        others = results(s, shown)  # middling counts: it leads the list by relevance alone
        views, likes = (_distinct(sorted(v[f] for v in others), lang) for f in ("views", "likes"))
        record = _item(rng, style, lang, f"p{_digest(norm + title)}", title, rng.choice(POOLS[style][lang].uploaders),
                       views, likes, 3, norm, recipe)
        s["pinned"].append(record)
        return dict(record)

    def setup_target(self, ctx: Ctx, name: str, source: str, by: str = "first", query: str = "", uploader: str = "",
                     topic: str = "") -> dict[str, Any]:
        """Record in `targets[name]` the item a task names, as the phone shows it: among the items of `source` (a
        list key such as `trending`, `hot`, `weekly`, `ranking`; or `feed`, `liked`, `subscriptions`, `search` for
        `query`, `uploader` for `uploader`'s page), the first, or the one with the most views or likes, or the latest
        (`by`), among those whose title contains `topic` when given. Returns the item (its record is kept in
        `videos`)."""
        s = ctx.state
        if source == "search":
            items = results(s, query)
        elif source == "uploader":
            items = uploader_videos(s, uploader)
        elif source == "subscriptions":
            items = following_feed(s)
        elif source == "liked":
            items = [v for vid in s["liked"] if (v := _record(s, vid)) is not None]
        else:
            items = list_items(s, source)
        item = pick(items, by, topic)
        _remember(ctx, item)
        s["targets"][name] = dict(item)
        return dict(item)

    def setup_liked(self, ctx: Ctx, title: str) -> dict[str, Any]:
        """Put an item called `title` first among the liked items (made when the phone has none of that title)."""
        s = ctx.state
        item = next((v for v in s["videos"] if v["title"] == title), None)
        if item is None:
            lang = s["catalog"]["locale"]
            rng = random.Random(f"{s['catalog']['seed']}|liked|{title}")
            style = _style(self.flavour)
            item = _item(rng, style, lang, f"l{_digest(title)}", title, rng.choice(POOLS[style][lang].uploaders),
                         _snap(250_000, lang), _snap(12_000, lang), 1)
            s["videos"].append(item)
        s["liked"] = [item["id"]] + [v for v in s["liked"] if v != item["id"]]
        return dict(item)

    # ----- pieces of screens ---------------------------------------------------------------------------------------
    def _lang(self, ctx: Ctx) -> str:
        return str(ctx.state["catalog"]["locale"])

    def _count(self, ctx: Ctx, template: str, n: int) -> str:
        return ctx.t(template, n=count_text(n, self._lang(ctx)))

    def _nav(self, selected: int) -> Widget:
        screens = ("home", "trending", "following", "me")
        return Tabs(["Home", self.trend_tab, self.follow_tab, "Me"], selected, icons=["home", "star", "list", "user"],
                    on_select=lambda c, i: c.reset_to(screens[i]) if i != selected else None, id="bottom_nav")

    def _meta(self, ctx: Ctx, v: dict[str, Any]) -> str:
        if self.kind == "note":
            return f"{v['uploader']}  \u00b7  {self._count(ctx, '{n} likes', v['likes'])}"
        return (f"{v['uploader']}  \u00b7  {self._count(ctx, '{n} views', v['views'])}  \u00b7  {v['date']}")

    def _row(self, ctx: Ctx, v: dict[str, Any], lead: Widget | None = None, extra: str = "") -> Widget:
        """One item of a list: thumbnail (with its length), title, uploader, views or likes, date."""
        length = fmt_duration(v["duration"]) if v.get("duration") else ""
        return Row(lead,
                   Column(Image(desc=v["title"], height=170, width=280, color=COLORS[v["color"] % len(COLORS)]),
                          Text(length, size="tiny", color=GREY, align="right") if length else None, gap=2),
                   Column(Text(v["title"], max_lines=2, id="item_title"),
                          Text(self._meta(ctx, v), size="small", color=GREY, max_lines=2, id="item_meta"),
                          Text(extra, size="small", color="danger", id="item_metric") if extra else None,
                          gap=6, weight=1.0),
                   pad=24, gap=20, id="item", on_click=lambda c, v=v: _open_item(c, v))

    def _search_bar(self, ctx: Ctx, text: str = "") -> Widget:
        return Row(Icon("search", desc="Search", size=56, color=GREY),
                   Text(text or ctx.t("Search"), color=None if text else GREY, max_lines=1, weight=1.0),
                   bg="surface", pad=20, radius=40, gap=16, id="search_box", on_click=_open_search)

    # ----- screens ---------------------------------------------------------------------------------------------------
    def screen_home(self, ctx: Ctx) -> Widget:
        feed = list_items(ctx.state, "feed")
        return Column(
            Row(Text(ctx.app_label, size="title", bold=True, color="primary", id="app_title"),
                self._search_bar(ctx),
                Icon("plus", desc="New post", size=80, id="compose", on_click=lambda c: c.push("compose")),
                pad=28, gap=20),
            Scroll(*[self._row(ctx, v) for v in feed], id="feed"),
            self._nav(0))

    def screen_trending(self, ctx: Ctx) -> Widget:
        index = min(int(ctx.params.get("list", 0)), len(self.lists) - 1)
        key = self.lists[index][0]
        tabs = (Tabs([label for _, label in self.lists], index, id="list_tabs",
                     on_select=lambda c, i: c.replace("trending", list=i) if i != index else None)
                if len(self.lists) > 1 else None)
        rows = []
        for rank, v in enumerate(list_items(ctx.state, key), 1):
            if key == "hot":
                metric = self._count(ctx, "{n} heat", v.get("heat", v["views"]))
            elif key == "ranking":
                metric = self._count(ctx, "{n} likes", v["likes"])
            else:
                metric = ""
            badge = Text(str(rank), size="title", bold=True, color="danger" if rank <= 3 else GREY, id="rank",
                         desc=ctx.t("Rank {n}", n=rank))
            rows.append(self._row(ctx, v, lead=badge, extra=metric))
        return Column(AppBar(self.lists[index][1], back=False, actions=[
                          Icon("search", desc="Search", size=80, id="search", on_click=_open_search)]),
                      tabs, Scroll(*rows, id="chart"), self._nav(1))

    def screen_search(self, ctx: Ctx) -> Widget:
        def clear(c: Ctx) -> None:
            c.state["history"] = []
            c.toast("Search history cleared")

        history = [Text(h, size="small", bg="surface", pad=18, radius=30, id="history_item",
                        on_click=lambda c, h=h: _search_for(c, h)) for h in ctx.state["history"]]
        lang = self._lang(ctx)
        hot = [ListItem(t, id="hot_search", on_click=lambda c, t=t: _search_for(c, t))
               for t in POOLS[_style(self.flavour)][lang].topics[:6]]
        return Column(
            Row(Icon("back", desc="Navigate up", size=80, on_click=lambda c: c.back(), id="navigate_up"),
                Input("query", hint="Search", on_submit=_search_for, weight=1.0),
                Button("Search", style="text", id="search_button",
                       on_click=lambda c: _search_for(c, c.fields.get("query", ""))), pad=28, gap=20),
            Scroll(Row(Text("Recent searches", size="small", color=GREY, weight=1.0),
                       Button("Clear", style="text", id="clear_history", on_click=clear) if history else None, pad=28),
                   *[Row(h, pad=28) for h in history[:6]],
                   Text("Hot searches", size="small", color=GREY, pad=28), *hot, id="search_list"))

    def _channel_card(self, ctx: Ctx, info: dict[str, Any]) -> Widget:
        lang = self._lang(ctx)
        followers = ctx.t("{n} followers", n=count_text(info["followers"], lang))
        return Row(Icon("user", desc=ctx.t("Open {name}'s page", name=info["name"]), size=110, bg="primary"),
                   Column(Row(Text(info["name"], bold=True, id="channel_name"),
                              Text("Official", size="tiny", color=(255, 255, 255), bg="primary", pad=8, radius=10,
                                   id="official") if info.get("official") else None, gap=12),
                          Text(followers, size="small", color=GREY, id="channel_followers"), gap=6, weight=1.0),
                   pad=28, gap=24, id="channel", on_click=lambda c, n=info["name"]: c.push("uploader", uploader=n))

    def _matching_channels(self, ctx: Ctx, query: str) -> list[dict[str, Any]]:
        s = ctx.state
        norm = normalize_query(query)
        names = [c["name"] for c in s["channels"]] + list(s["following"]) + [v["uploader"] for v in s["videos"]]
        out = []
        for name in dict.fromkeys(names):
            if norm and (norm in name.casefold() or name.casefold() in norm):
                out.append(channel_info(s, name))
        return sorted(out, key=lambda c: (not c.get("official"), -c["followers"], c["name"]))[:4]

    def screen_results(self, ctx: Ctx) -> Widget:
        lang = self._lang(ctx)
        query = ctx.params.get("query") or POOLS[_style(self.flavour)][lang].topics[0]
        sort = min(int(ctx.params.get("sort", 0)), len(SORTS) - 1)
        found = sort_items(results(ctx.state, query), SORTS[sort])
        chips = (("Relevance", "Sort by relevance"), ("Most viewed", "Sort by views"), ("Newest", "Sort by date"))
        sort_row = sort_chips(chips, SORTS, sort, lambda c, i: c.replace("results", query=query, sort=i), pad=16)
        channels = [self._channel_card(ctx, c) for c in self._matching_channels(ctx, query)] if sort == 0 else []
        body = [self._row(ctx, v) for v in found] or [no_results(ctx, query)]
        return Column(
            Row(Icon("back", desc="Navigate up", size=80, on_click=lambda c: c.back(), id="navigate_up"),
                self._search_bar(ctx, query), pad=28, gap=20),
            sort_row, Divider(), Scroll(*channels, *body, id="results"))

    def _current(self, ctx: Ctx) -> dict[str, Any]:
        """The item a player / note screen shows (default: the first of the home feed)."""
        v = _record(ctx.state, ctx.params.get("id"))
        return v if v is not None else list_items(ctx.state, "feed")[0]

    def _uploader_row(self, ctx: Ctx, name: str) -> Widget:
        follow, followed = self.follow_word
        on = name in ctx.state["following"]
        return Row(Icon("user", desc=ctx.t("Open {name}'s page", name=name), size=90, bg="primary",
                        on_click=lambda c: c.push("uploader", uploader=name), id="uploader_avatar"),
                   Text(name, bold=True, weight=1.0, id="uploader_name",
                        on_click=lambda c: c.push("uploader", uploader=name)),
                   Button(followed if on else follow, style="secondary" if on else "primary", id="follow",
                          on_click=lambda c: _toggle_follow(c, name)), gap=20)

    def screen_player(self, ctx: Ctx) -> Widget:
        v = self._current(ctx)
        vid = v["id"]
        p = ctx.state["player"]
        playing = p["video"] == vid and p["playing"]
        liked = vid in ctx.state["liked"]
        lang = self._lang(ctx)
        return Column(
            AppBar("Now playing"),
            Scroll(Column(
                Image(desc=v["title"], height=560, color=COLORS[v["color"] % len(COLORS)]),
                Row(MediaIcon("pause" if playing else "play", desc="Pause" if playing else "Play", size=110,
                              id="play_pause", on_click=lambda c: _toggle_play(c, vid)),
                    Text(fmt_duration(v["duration"]) if v.get("duration") else "", color=GREY, weight=1.0,
                         id="duration"),
                    gap=24),
                Text(v["title"], size="title", bold=True, id="video_title"),
                Text(f"{ctx.t('{n} views', n=count_text(v['views'], lang))}  \u00b7  {v['date']}", size="small",
                     color=GREY, id="video_meta"),
                Row(Icon("heart_filled" if liked else "heart", desc="Liked" if liked else "Like", size=90,
                         color="danger", label=count_text(v["likes"], lang), id="like", selected=liked,
                         on_click=lambda c: _toggle_like(c, vid)),
                    Text(ctx.t("{n} comments", n=count_text(v["comments"], lang)), size="small", color=GREY,
                         weight=1.0, id="comments"), gap=28),
                Divider(),
                self._uploader_row(ctx, v["uploader"]),
                pad=28, gap=22), id="player_scroll"))

    def screen_note(self, ctx: Ctx) -> Widget:
        v = self._current(ctx)
        vid = v["id"]
        liked = vid in ctx.state["liked"]
        lang = self._lang(ctx)
        heading = "Ingredients" if v.get("recipe") else "Key points"
        points = [Text(f"{i}. {point}", id="note_point") for i, point in enumerate(v.get("points", []), 1)]
        return Column(
            AppBar("Note"),
            Scroll(Column(
                self._uploader_row(ctx, v["uploader"]),
                Image(desc=v["title"], height=520, color=COLORS[v["color"] % len(COLORS)]),
                Text(v["title"], size="title", bold=True, id="note_title"),
                Text(heading, bold=True, id="note_heading"), *points,
                Text("Save this for later!", size="small", color=GREY),
                Text(v["date"], size="small", color=GREY, id="note_date"),
                Row(Icon("heart_filled" if liked else "heart", desc="Liked" if liked else "Like", size=90,
                         color="danger", label=count_text(v["likes"], lang), id="like", selected=liked,
                         on_click=lambda c: _toggle_like(c, vid)),
                    Text(ctx.t("{n} comments", n=count_text(v["comments"], lang)), size="small", color=GREY,
                         weight=1.0, id="comments"), gap=28),
                pad=28, gap=20), id="note_scroll"))

    def screen_uploader(self, ctx: Ctx) -> Widget:
        s = ctx.state
        name = ctx.params.get("uploader") or s["following"][0]
        info = channel_info(s, name)
        sort = 1 if ctx.params.get("sort") == "views" else 0
        items = sort_items(uploader_videos(s, name), "views" if sort else "date")
        follow, followed = self.follow_word
        on = name in s["following"]
        chips = Row(*[Text(label, bold=i == sort, selected=i == sort, color="primary" if i == sort else None, pad=16,
                           bg="surface", radius=24, id=f"sort_{key}",
                           on_click=lambda c, key=key: c.replace("uploader", uploader=name, sort=key))
                      for i, (label, key) in enumerate((("Latest", "date"), ("By views", "views")))], pad=20, gap=16)
        return Column(
            AppBar(name),
            Scroll(Column(Row(Icon("user", desc=name, size=140, bg="primary"),
                              Column(Row(Text(name, size="title", bold=True, id="channel_title"),
                                         Text("Official", size="tiny", color=(255, 255, 255), bg="primary", pad=8,
                                              radius=10, id="official") if info.get("official") else None, gap=12),
                                     Text(ctx.t("{n} followers", n=count_text(info["followers"], self._lang(ctx))),
                                          size="small", color=GREY, id="channel_followers"),
                                     Text(info.get("bio", ""), size="small", color=GREY), gap=6, weight=1.0), gap=24),
                          Button(followed if on else follow, style="secondary" if on else "primary", id="follow",
                                 on_click=lambda c: _toggle_follow(c, name)),
                          pad=28, gap=20),
                   chips, Divider(), *[self._row(ctx, v) for v in items], id="uploads"))

    def screen_following(self, ctx: Ctx) -> Widget:
        s = ctx.state
        chips = Row(*[Text(n, size="small", bg="surface", pad=16, radius=24, max_lines=1, id="followed",
                           on_click=lambda c, n=n: c.push("uploader", uploader=n)) for n in s["following"][:4]],
                    pad=20, gap=14)
        rows = [self._row(ctx, v) for v in following_feed(s)]
        return Column(AppBar(self.follow_tab, back=False), chips, Divider(),
                      Scroll(*(rows or [Text("Nothing here yet", pad=80, align="center")]), id="following_feed"),
                      self._nav(2))

    def screen_me(self, ctx: Ctx) -> Widget:
        s = ctx.state
        avatar = s["profile"]["avatar"]
        face: Widget = (Image(desc=ctx.t("Profile photo") + f": {avatar['name']}", height=140, width=140, radius=70,
                              color=COLORS[avatar["photo"] % len(COLORS)], id="avatar") if avatar
                        else Icon("user", desc="Profile photo", size=140, bg="primary", id="avatar"))
        posts = [ListItem(p["text"], p["date"], id="my_post", max_lines=2) for p in s["posts"][:5]]
        return Column(
            AppBar("Me", back=False, actions=[Icon("plus", desc="New post", size=80, id="compose",
                                                   on_click=lambda c: c.push("compose"))]),
            Scroll(Row(face, Column(Text(s["profile"]["nickname"], size="title", bold=True, id="nickname"),
                                    Text(s["profile"]["bio"], size="small", color=GREY), weight=1.0, gap=8),
                       Button("Edit profile", style="secondary", id="edit_profile",
                              on_click=lambda c: c.push("profile")),
                       pad=28, gap=24),
                   Divider(),
                   ListItem(self.liked_title, trailing=str(len(s["liked"])), id="liked",
                            leading=Icon("heart", desc=self.liked_title, size=70), on_click=lambda c: c.push("liked")),
                   ListItem(self.member_title, self._status_text(ctx), id="membership",
                            leading=Icon("star", desc=self.member_title, size=70),
                            on_click=lambda c: c.push("membership")) if self.plans else None,
                   Text("My posts", bold=True, pad=28),
                   *(posts or [Text("No posts yet", color=GREY, pad=28)]),
                   Column(Button("Log out", style="danger", id="log_out",
                                 on_click=lambda c: c.confirm(c.t("Log out?"), c.t("You will need to log in again."),
                                                              _log_out, yes=c.t("Log out"))), pad=36),
                   id="me_list"),
            self._nav(3))

    def screen_liked(self, ctx: Ctx) -> Widget:
        s = ctx.state
        rows = [self._row(ctx, v) for vid in s["liked"] if (v := _record(s, vid)) is not None]
        return Column(AppBar(self.liked_title),
                      Scroll(*(rows or [Text("Nothing here yet", pad=80, align="center")]), id="liked_list"))

    def screen_profile(self, ctx: Ctx) -> Widget:
        p = ctx.state["profile"]
        current = p["avatar"]["name"] if p["avatar"] else ""
        return Column(AppBar("Edit profile"),
                      Scroll(ListItem("Change profile photo", current, id="change_avatar",
                                      leading=Icon("user", desc="Profile photo", size=90, bg="primary"),
                                      on_click=lambda c: c.push("avatar")),
                             ListItem("Nickname", p["nickname"], id="nickname_row"),
                             ListItem("Bio", p["bio"], id="bio_row"), id="profile_list"))

    def screen_avatar(self, ctx: Ctx) -> Widget:
        favorites_only = bool(ctx.params.get("favorites"))
        photos = [p for p in live(ctx.media["photos"]) if p["favorite"] or not favorites_only]
        on = int(favorites_only)
        chips = Row(*[Text(label, bold=i == on, selected=i == on, pad=16, bg="surface",
                           radius=24, color="primary" if i == on else None, id=f"album_{i}",
                           on_click=lambda c, i=i: c.replace("avatar", favorites=bool(i)))
                      for i, label in enumerate(("All photos", "Favorites"))], pad=20, gap=16)

        def ask(photo: dict[str, Any]) -> Any:
            def handler(c: Ctx) -> None:
                c.confirm(c.t("Change profile photo?"),
                          c.t("Use {name} as your profile photo? Others will see it.", name=photo["name"]),
                          lambda c2, pid=photo["id"]: _set_avatar(c2, pid), yes=c.t("Confirm"))
            return handler

        tiles = [Column(Image(desc=p["name"], height=300, color=COLORS[p["color"] % len(COLORS)]),
                        Text(p["name"], size="tiny", max_lines=1, id="photo_name"),
                        Text(f"\u2665 {ctx.t('Favorite')}" if p["favorite"] else p["album"], size="tiny",
                             color="danger" if p["favorite"] else GREY, id="photo_album"),
                        gap=6, id="photo", on_click=ask(p)) for p in photos]
        return Column(AppBar("Choose a photo"), chips,
                      Scroll(Grid(*tiles, cols=2, gap=20, pad=24) if tiles else Text("No photos", pad=60),
                             id="photos"))

    def screen_compose(self, ctx: Ctx) -> Widget:
        return Column(AppBar("New post", actions=[Button("Post", id="publish", on_click=_publish)]),
                      Column(Input("post_text", hint="What's on your mind?", lines=5, on_submit=_publish),
                             pad=28, gap=20))


# ----- the apps ---------------------------------------------------------------------------------------------------
@register
class Douyin(FeedApp):
    name = "Douyin"
    names = {"zh": "抖音"}
    package = "com.ss.android.ugc.aweme"
    aliases = ("抖音短视频", "dou yin", "douyin app")
    color = "#161823"
    icon = "抖"
    currency = "CNY"
    flavour = "douyin"
    lists = (("hot", "Hot list"),)
    trend_tab = "Hot list"
    strings = {"zh": {"{n} views": "{n}播放", "Like": "赞", "Liked": "已赞"}}


@register
class TikTok(FeedApp):
    name = "TikTok"
    names = {"zh": "TikTok"}
    package = "com.zhiliaoapp.musically"
    aliases = ("tik tok", "tiktok app", "抖音国际版")
    color = "#010101"
    icon = "TT"
    currency = "USD"
    flavour = "tiktok"
    lists = (("hot", "Trending"),)
    strings = {"zh": {"Trending": "热榜"}}


@register
class Xiaohongshu(FeedApp):
    name = "Xiaohongshu"
    names = {"zh": "小红书"}
    package = "com.xingin.xhs"
    aliases = ("xhs", "rednote", "red note", "little red book", "小红薯", "RED")
    color = "#ff2442"
    icon = "书"
    currency = "CNY"
    flavour = "xiaohongshu"
    kind = "note"
    lists = (("hot", "Hot list"),)
    trend_tab = "Hot list"
    liked_title = "Liked posts"
    strings = {"zh": {"Liked posts": "赞过的笔记", "New post": "发笔记"}}


@register
class Bilibili(FeedApp):
    name = "Bilibili"
    names = {"zh": "哔哩哔哩"}
    package = "tv.danmaku.bili"
    aliases = ("b站", "哔哩哔哩弹幕网", "bili", "bilibili app", "b 站")
    color = "#fb7299"
    icon = "B"
    currency = "CNY"
    flavour = "bilibili"
    lists = (("popular", "Popular"), ("weekly", "Weekly picks"), ("ranking", "Rankings"))
    trend_tab = "Popular"
    member_title = "Premium membership"
    plans = (tier(("Premium", "大会员"), ("Ad-free, HD and member-only shows", "免广告、高清画质、会员专享内容"),
                  [(MONTHLY, 15.0), (QUARTERLY, 45.0), (ONE_MONTH, 25.0), (THREE_MONTHS, 68.0)]),
             tier(("Super Premium", "超级大会员"), ("Everything in Premium, 4K and early access", "大会员全部权益，4K 画质和抢先看"),
                  [(MONTHLY, 25.0), (YEARLY, 168.0), (ONE_MONTH, 35.0), (TWELVE_MONTHS, 198.0)]))
    strings = {"zh": {"{n} views": "{n}播放", "Premium membership": "大会员", "Me": "我的"}}


@register
class YouTube(FeedApp):
    name = "YouTube"
    names = {"zh": "YouTube"}
    package = "com.google.android.youtube"
    aliases = ("youtube app", "油管", "you tube")
    color = "#ff0000"
    icon = "YT"
    currency = "USD"
    flavour = "youtube"
    lists = (("trending", "Trending"),)
    follow_tab = "Subscriptions"
    follow_word = ("Subscribe", "Subscribed")
    member_title = "YouTube Premium"
    plans = (tier(("Individual", "个人版"), ("Ad-free videos, downloads and background play", "无广告、可下载、后台播放"),
                  [(MONTHLY, 13.99), (YEARLY, 139.99)]),
             tier(("Family", "家庭版"), ("Up to 5 family members", "最多 5 位家庭成员"), [(MONTHLY, 22.99)]),
             tier(("Student", "学生版"), ("For verified students", "经认证的学生"), [(MONTHLY, 7.99)]))
    strings = {"zh": {"{n} views": "{n}次观看", "YouTube Premium": "YouTube Premium 会员"}}


@register
class Weibo(FeedApp):
    name = "Weibo"
    names = {"zh": "微博"}
    package = "com.sina.weibo"
    aliases = ("sina weibo", "新浪微博", "wei bo")
    color = "#e6162d"
    icon = "微"
    currency = "CNY"
    flavour = "weibo"
    kind = "note"
    lists = (("hot", "Hot search"),)
    trend_tab = "Hot search"
    liked_title = "Liked posts"
    strings = {"zh": {"Note": "微博正文", "New post": "写微博", "Liked posts": "我的赞", "Post": "发送"}}


@register
class X(FeedApp):
    name = "X"
    names = {"zh": "X"}
    package = "com.twitter.android"
    aliases = ("twitter", "推特", "x app", "x (twitter)")
    color = "#0f1419"
    icon = "X"
    currency = "USD"
    flavour = "x"
    kind = "note"
    lists = (("trending", "Trending"),)
    liked_title = "Liked posts"
    member_title = "Premium"
    plans = (tier(("Basic", "基础版"), ("Edit posts and longer posts", "编辑帖子、发长帖"), [(MONTHLY, 3.0), (YEARLY, 32.0)]),
             tier("Premium", ("Blue checkmark, fewer ads and Grok", "蓝色认证、更少广告和 Grok"),
                  [(MONTHLY, 8.0), (YEARLY, 84.0)]),
             tier("Premium+", ("No ads and the largest reply boost", "无广告、最大回复加权"), [(MONTHLY, 40.0), (YEARLY, 395.0)]))
    strings = {"zh": {"Note": "帖子", "New post": "发帖", "Premium": "Premium 会员"}}


@register
class Instagram(FeedApp):
    name = "Instagram"
    names = {"zh": "Instagram"}
    package = "com.instagram.android"
    aliases = ("ins", "ig", "insta")
    color = "#c13584"
    icon = "IG"
    currency = "USD"
    flavour = "instagram"
    kind = "note"
    lists = (("explore", "Explore"),)
    trend_tab = "Explore"
    liked_title = "Liked posts"
    strings = {"zh": {"Note": "帖子"}}


@register
class WeTV(FeedApp):
    name = "WeTV"
    names = {"zh": "腾讯视频"}
    package = "com.tencent.qqlive"
    aliases = ("tencent video", "腾讯视频app", "qq video", "tencentvideo")
    color = "#ff6022"
    icon = "腾"
    currency = "CNY"
    flavour = "wetv"
    lists = (("ranking", "Top charts"),)
    trend_tab = "Top charts"
    member_title = "VIP membership"
    plans = (tier("VIP", ("Member-only dramas and no ads", "会员剧集抢先看，免广告"),
                  [(MONTHLY, 25.0), (ONE_MONTH, 30.0), (THREE_MONTHS, 78.0), (TWELVE_MONTHS, 253.0)]),
             tier("SVIP", ("VIP plus TV screens and 4K", "VIP 全部权益，支持电视端和 4K"),
                  [(MONTHLY, 35.0), (ONE_MONTH, 45.0), (THREE_MONTHS, 118.0), (TWELVE_MONTHS, 368.0)]))
    strings = {"zh": {"VIP membership": "VIP会员"}}


@register
class Netflix(FeedApp):
    name = "Netflix"
    names = {"zh": "Netflix"}
    package = "com.netflix.mediaclient"
    aliases = ("网飞", "奈飞", "netflix app")
    color = "#e50914"
    icon = "N"
    currency = "USD"
    flavour = "netflix"
    lists = (("trending", "Top 10"),)
    trend_tab = "Top 10"
    follow_tab = "My List"
    member_title = "Membership"
    plans = (tier(("Standard with ads", "标准方案（含广告）"), ("HD, with ads", "高清，有广告"), [(MONTHLY, 7.99)]),
             tier(("Standard", "标准方案"), ("HD, no ads, 2 screens", "高清、无广告、2 块屏幕"), [(MONTHLY, 17.99)]),
             tier(("Premium", "高级方案"), ("4K, no ads, 4 screens", "4K、无广告、4 块屏幕"), [(MONTHLY, 24.99)]))
    strings = {"zh": {"My List": "我的片单", "Membership": "会员方案"}}
