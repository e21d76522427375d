"""Video: a video-sharing app with a feed, trending, search, a player (play, like, comment), channels,
subscriptions and a paid Premium membership."""

from __future__ import annotations

import random
from typing import Any

from mobile_r1.sim.apps import App, Ctx, money, new_id, register
from mobile_r1.sim.ui.render import Canvas
from mobile_r1.sim.ui.widgets import (AppBar, Button, Card, Column, Divider, Icon, Image, Input, Layout, ListItem, Row,
                                      Scroll, Tabs, Text, Widget, resolve)

CHANNELS = {
    "Tech Bytes": ("Tech", ["Unboxing the newest flagship phone", "Top 5 laptops for students", "Is this budget tablet worth it",
                            "Building a gaming PC in 20 minutes", "Noise cancelling earbuds compared"]),
    "Chef Lina": ("Cooking", ["Perfect fried rice at home", "Easy lemon pasta in 15 minutes", "How to bake sourdough bread",
                              "Three quick breakfast ideas", "Spicy noodle soup recipe"]),
    "Daily Fitness": ("Fitness", ["10 minute morning workout", "Full body stretch for beginners", "Yoga for better sleep",
                                  "30 minute cardio at home", "Core workout without equipment"]),
    "Travel Diaries": ("Travel", ["A weekend in Kyoto", "Hiking the Swiss Alps", "Street food tour of Bangkok",
                                  "Road trip along the coast", "Budget travel tips for Europe"]),
    "Game Zone": ("Gaming", ["Speedrun world record attempt", "Top 10 indie games this year", "Beginner guide to chess openings",
                             "Retro console restoration", "Puzzle game full walkthrough"]),
    "Science Now": ("Science", ["How black holes form", "Why the sky is blue", "The science of sleep",
                                "Inside a volcano", "How vaccines work explained"]),
    "Music Box": ("Music", ["Lofi beats to study to", "Piano covers of pop songs", "Guitar lesson for beginners",
                            "Live acoustic session", "Jazz night playlist"]),
    "Funny Pets": ("Animals", ["Cats vs cucumbers compilation", "Dog learns to skateboard", "Parrot sings happy birthday",
                               "Hamster obstacle course", "Puppies meet snow for the first time"]),
}
COMMENTERS = ["alex_k", "mia.rose", "sam99", "lee_j", "nora.b", "tomtom", "zoe_x", "raj.p"]
COMMENTS = ["Great video, thanks!", "This helped me a lot", "First time here, subscribed", "Can you do part 2?",
            "Watched it twice already", "The editing is so good", "Love this channel", "Very clear explanation"]
COLORS = [(214, 226, 245), (245, 220, 210), (214, 238, 218), (240, 232, 200), (228, 214, 242), (206, 234, 236)]
SEARCH_SORTS = ("Relevance", "Newest", "Most viewed")
NAV = ("home", "trending", "subscriptions", "library")


class MediaIcon(Icon):
    """A play triangle or pause bars (shapes the shared glyph set lacks), on a round primary background."""

    __slots__ = ()

    def paint(self, c: Canvas, lay: Layout) -> None:
        x1, y1, x2, _ = self.box
        cx, cy, r = (x1 + x2) / 2, y1 + self.size / 2, self.size / 2
        c.ellipse((cx - r, cy - r, cx + r, cy + r), fill=resolve("primary", lay.theme))
        white = (255, 255, 255)
        if self.name == "pause":
            c.rect((cx - r * 0.38, cy - r * 0.42, cx - r * 0.12, cy + r * 0.42), fill=white)
            c.rect((cx + r * 0.12, cy - r * 0.42, cx + r * 0.38, cy + r * 0.42), fill=white)
        else:
            c.polygon([(cx - r * 0.3, cy - r * 0.45), (cx + r * 0.45, cy), (cx - r * 0.3, cy + r * 0.45)], white)


def fmt_duration(seconds: float) -> str:
    """'3:07' or '1:02:09'."""
    s = int(seconds)
    h, m, sec = s // 3600, (s // 60) % 60, s % 60
    return f"{h}:{m:02d}:{sec:02d}" if h else f"{m}:{sec:02d}"


def fmt_count(n: int) -> str:
    """'950', '12K', '1.2M'."""
    if n >= 1_000_000:
        return f"{n / 1_000_000:.1f}M"
    if n >= 1_000:
        return f"{n // 1_000}K"
    return str(n)


def _video(ctx: Ctx, vid: int) -> dict[str, Any] | None:
    return next((v for v in ctx.state["videos"] if v["id"] == vid), None)


def _channel(ctx: Ctx, cid: int) -> dict[str, Any] | None:
    return next((c for c in ctx.state["channels"] if c["id"] == cid), None)


def position(ctx: Ctx) -> float:
    """Seconds into the video the player is at now (it advances with the clock while playing)."""
    p = ctx.state["player"]
    v = _video(ctx, p["video"]) if p["video"] is not None else None
    if v is None:
        return 0.0
    pos = p["position"] + (ctx.now - p["since"] if p["playing"] else 0.0)
    return min(float(v["duration"]), pos)


def _open_video(ctx: Ctx, vid: int) -> None:
    ctx.state["player"] = {"video": vid, "playing": True, "position": 0.0, "since": ctx.now}
    ctx.state["history"] = [vid] + [h for h in ctx.state["history"] if h != vid]
    v = _video(ctx, vid)
    if v is not None:
        v["views"] += 1
    ctx.push("player", loading=1.0, id=vid)


def _toggle_play(ctx: Ctx, vid: int) -> None:
    p = ctx.state["player"]
    if p["video"] != vid:
        ctx.state["player"] = {"video": vid, "playing": True, "position": 0.0, "since": ctx.now}
        return
    pos = position(ctx)
    v = _video(ctx, vid)
    if not p["playing"] and v is not None and pos >= v["duration"]:
        pos = 0.0  # replay from the start
    p["position"], p["since"], p["playing"] = pos, ctx.now, not p["playing"]


def _toggle_like(ctx: Ctx, vid: int) -> None:
    v = _video(ctx, vid)
    if v is None:
        return
    if vid in ctx.state["liked"]:
        ctx.state["liked"].remove(vid)
        v["likes"] -= 1
        ctx.toast("Removed from liked videos")
    else:
        ctx.state["liked"].append(vid)
        v["likes"] += 1
        ctx.toast("Added to liked videos")


def _subscribe(ctx: Ctx, cid: int) -> None:
    ch = _channel(ctx, cid)
    if ch is None:
        return
    if cid in ctx.state["subscriptions"]:
        def unsubscribe(c: Ctx) -> None:
            c.state["subscriptions"].remove(cid)
            chan = _channel(c, cid)
            if chan is not None:
                chan["subscribers"] -= 1
            c.toast("Subscription removed")
        ctx.confirm(f"Unsubscribe from {ch['name']}?", "", unsubscribe, yes="Unsubscribe")
        return
    ctx.state["subscriptions"].append(cid)
    ch["subscribers"] += 1
    ctx.toast(f"Subscribed to {ch['name']}")


def _comment(ctx: Ctx, vid: int, text: str) -> None:
    text = text.strip()
    if not text:
        ctx.toast("Write a comment first")
        return
    ctx.state["comments"].append({"id": new_id(ctx.state["comments"]), "video": vid,
                                  "user": ctx.state["user"], "text": text})
    ctx.effect("comment", video=vid, text=text)
    ctx.set_field("comment", "")
    ctx.toast("Comment posted")


def _buy(ctx: Ctx, *_: Any) -> None:
    plan = next((p for p in ctx.state["plans"] if p["id"] == ctx.params.get("plan")), ctx.state["plans"][0])
    if ctx.fields.get("pay_password", "") != ctx.state["payment_password"]:
        ctx.state["failed_payments"] += 1
        ctx.set_field("pay_password", "")
        ctx.toast("Wrong payment password")
        return
    ctx.state["membership"] = {"active": True, "plan": plan["id"], "price": plan["price"], "period": plan["period"]}
    ctx.effect("subscription", service="Video Premium", plan=plan["id"], plan_name=plan["name"], amount=plan["price"],
               period=plan["period"], auto_renew=True)
    ctx.reset_to("library")
    ctx.toast("Welcome to Premium")


@register
class Video(App):
    name = "Video"
    names = {"zh": "视频"}
    package = "com.sim.video"
    aliases = ("videos", "youtube", "bilibili", "tube", "video player")
    color = "#e62117"
    icon = "video"

    def initial_state(self, rng: random.Random) -> dict[str, Any]:
        names = list(CHANNELS)
        rng.shuffle(names)
        channels, videos = [], []
        for cid, name in enumerate(names, start=1):
            category, titles = CHANNELS[name]
            channels.append({"id": cid, "name": name, "category": category, "subscribers": rng.randint(2_000, 3_000_000),
                             "about": f"New {category.lower()} videos every week."})
            for title in rng.sample(titles, 3):
                videos.append({"title": title, "channel": cid, "category": category,
                               "duration": rng.randint(45, 2400), "views": rng.randint(300, 5_000_000),
                               "likes": rng.randint(10, 90_000), "days_ago": rng.randint(0, 60),
                               "color": rng.randrange(len(COLORS))})
        rng.shuffle(videos)
        for i, v in enumerate(videos, start=1):
            v["id"] = i
        comments = []
        for v in videos:
            for _ in range(rng.randint(1, 3)):
                comments.append({"id": len(comments) + 1, "video": v["id"], "user": rng.choice(COMMENTERS),
                                 "text": rng.choice(COMMENTS)})
        monthly = rng.choice([9.99, 11.99, 12.99, 13.99])
        plans = [{"id": "monthly", "name": "Premium Monthly", "price": monthly, "period": "month"},
                 {"id": "yearly", "name": "Premium Yearly", "price": round(monthly * 10, 2), "period": "year"},
                 {"id": "family", "name": "Premium Family", "price": round(monthly * 1.7, 2), "period": "month"}]
        return {"videos": videos, "channels": channels, "comments": comments, "subscriptions": [], "liked": [],
                "history": [], "search_history": [], "plans": plans,
                "player": {"video": None, "playing": False, "position": 0.0, "since": 0.0},
                "membership": {"active": False, "plan": None, "price": 0.0, "period": None},
                "payment_password": "".join(rng.choice("0123456789") for _ in range(6)), "failed_payments": 0,
                "user": rng.choice(["jamie", "casey", "morgan", "riley"])}

    # ----- pieces ------------------------------------------------------------------------------------------
    def _nav(self, selected: int) -> Widget:
        return Tabs(["Home", "Trending", "Subscriptions", "Library"], selected,
                    icons=["home", "star", "heart", "list"], id="bottom_nav",
                    on_select=lambda c, i: c.reset_to(NAV[i]) if i != selected else None)

    def _top(self, title: str) -> Widget:
        return AppBar(title, back=False, actions=[
            Icon("search", desc="Search", size=80, id="search", on_click=lambda c: c.push("search")),
            Icon("user", desc="Account", size=80, id="account", on_click=lambda c: c.reset_to("library"))])

    def _video_card(self, ctx: Ctx, v: dict[str, Any]) -> Widget:
        ch = _channel(ctx, v["channel"])
        vid = v["id"]
        return Card(Image(desc=f"Thumbnail: {v['title']}", height=420, color=COLORS[v["color"]]),
                    Text(v["title"], size="body", bold=True, max_lines=2, id="video_title"),
                    Text(f"{ch['name'] if ch else ''}  \u00b7  {fmt_count(v['views'])} views  \u00b7  "
                         f"{v['days_ago']} days ago  \u00b7  {fmt_duration(v['duration'])}",
                         size="small", color=(120, 122, 130), id="video_meta"),
                    on_click=lambda c: _open_video(c, vid), id="video", pad=20, gap=10)

    def _video_row(self, ctx: Ctx, v: dict[str, Any], rank: int | None = None) -> Widget:
        ch = _channel(ctx, v["channel"])
        vid = v["id"]
        title = f"{rank}. {v['title']}" if rank is not None else v["title"]
        return ListItem(title, f"{ch['name'] if ch else ''}  \u00b7  {fmt_count(v['views'])} views  \u00b7  "
                               f"{fmt_duration(v['duration'])}",
                        leading=Image(desc=f"Thumbnail: {v['title']}", height=150, width=240, color=COLORS[v["color"]]),
                        id="video_row", on_click=lambda c: _open_video(c, vid))

    # ----- screens -----------------------------------------------------------------------------------------
    def screen_home(self, ctx: Ctx) -> Widget:
        cats = ["All"] + sorted({v["category"] for v in ctx.state["videos"]})[:4]
        cat = ctx.params.get("category", 0)
        shown = [v for v in ctx.state["videos"] if cat == 0 or v["category"] == cats[cat]]
        return Column(self._top("Video"),
                      Tabs(cats, cat, on_select=lambda c, i: c.replace("home", category=i), id="categories"),
                      Scroll(*[self._video_card(ctx, v) for v in shown], id="feed", gap=24, pad=24),
                      self._nav(0))

    def screen_trending(self, ctx: Ctx) -> Widget:
        top = sorted(ctx.state["videos"], key=lambda v: (-v["views"], v["id"]))[:15]
        return Column(self._top("Trending"),
                      Scroll(*[self._video_row(ctx, v, i) for i, v in enumerate(top, start=1)], id="trending_list"),
                      self._nav(1))

    def screen_search(self, ctx: Ctx) -> Widget:
        query = ctx.params.get("query", "")
        sort = ctx.params.get("sort", 0)
        q = query.lower()
        channels = [ch for ch in ctx.state["channels"] if q and q in ch["name"].lower()]
        videos = [v for v in ctx.state["videos"]
                  if q and (q in v["title"].lower() or q in v["category"].lower()
                            or any(ch["id"] == v["channel"] for ch in channels))]
        if sort == 1:
            videos.sort(key=lambda v: (v["days_ago"], v["id"]))
        elif sort == 2:
            videos.sort(key=lambda v: (-v["views"], v["id"]))

        def submit(c: Ctx, text: str) -> None:
            text = text.strip()
            if not text:
                c.toast("Type something to search")
                return
            c.state["search_history"] = ([text] + [h for h in c.state["search_history"] if h != text])[:8]
            c.replace("search", loading=1.0, query=text, sort=0)

        body: list[Widget]
        if not query:
            body = [Text("Recent searches", size="small", color=(120, 122, 130), pad=36)] + [
                ListItem(h, id="history_item", on_click=lambda c, h=h: submit(c, h))
                for h in ctx.state["search_history"]]
        elif not videos and not channels:
            body = [Text(f"No results for '{query}'", pad=60, id="no_results")]
        else:
            body = [ListItem(ch["name"], f"Channel  \u00b7  {fmt_count(ch['subscribers'])} subscribers", id="channel_result",
                             leading=Icon("user", desc=ch["name"], size=110, bg="primary"),
                             on_click=lambda c, cid=ch["id"]: c.push("channel", id=cid)) for ch in channels]
            body += [self._video_row(ctx, v) for v in videos]
        return Column(
            Row(Icon("back", desc="Navigate up", size=80, on_click=lambda c: c.back(), id="navigate_up"),
                Input("query", hint="Search videos and channels", value=query, on_submit=submit, weight=1.0),
                Button("Search", style="text", id="search_button",
                       on_click=lambda c: submit(c, c.fields.get("query", query))), pad=28, gap=20),
            Tabs(list(SEARCH_SORTS), sort, id="sort",
                 on_select=lambda c, i: c.replace("search", query=query, sort=i)) if query else None,
            Scroll(*body, id="results"))

    def screen_player(self, ctx: Ctx) -> Widget:
        v = _video(ctx, ctx.params.get("id", 1)) or ctx.state["videos"][0]
        vid = v["id"]
        ch = _channel(ctx, v["channel"]) or ctx.state["channels"][0]
        cid = ch["id"]
        p = ctx.state["player"]
        playing = p["video"] == vid and p["playing"]
        pos = position(ctx) if p["video"] == vid else 0.0
        ended = pos >= v["duration"]
        if ended:
            playing = False
        liked = vid in ctx.state["liked"]
        subscribed = cid in ctx.state["subscriptions"]
        comments = [c for c in ctx.state["comments"] if c["video"] == vid]
        status = "Ended" if ended else ("Playing" if playing else "Paused")
        return Column(
            AppBar("Now playing", actions=[Icon("share", desc="Share", size=80, id="share",
                                                on_click=lambda c: c.toast("Link copied"))]),
            Column(Image(desc=f"Video: {v['title']}", height=560, color=COLORS[v["color"]], radius=0),
                   Row(MediaIcon("pause" if playing else "play", desc="Pause" if playing else "Play", size=90,
                            id="play_pause", on_click=lambda c: _toggle_play(c, vid)),
                       Text(f"{fmt_duration(pos)} / {fmt_duration(v['duration'])}", size="small", id="progress",
                            weight=1.0),
                       Text(status, size="small", bold=True, id="player_status"), pad=20, gap=20)),
            Scroll(Column(
                Text(v["title"], size="title", bold=True, id="player_title"),
                Text(f"{v['views']:,} views  \u00b7  {v['days_ago']} days ago", size="small", color=(120, 122, 130)),
                Row(Button(f"{'Liked' if liked else 'Like'} {fmt_count(v['likes'])}", icon="heart_filled" if liked else "heart",
                           style="primary" if liked else "secondary", id="like", selected=liked,
                           on_click=lambda c: _toggle_like(c, vid)),
                    Button("Share", style="secondary", icon="share", id="share_button",
                           on_click=lambda c: c.toast("Link copied")), gap=24),
                Divider(),
                Row(Icon("user", desc=ch["name"], size=100, bg="primary", on_click=lambda c: c.push("channel", id=cid)),
                    Column(Text(ch["name"], bold=True, id="channel_name", on_click=lambda c: c.push("channel", id=cid)),
                           Text(f"{fmt_count(ch['subscribers'])} subscribers", size="small", color=(120, 122, 130)),
                           weight=1.0, gap=4),
                    Button("Subscribed" if subscribed else "Subscribe", style="secondary" if subscribed else "danger",
                           id="subscribe", selected=subscribed, on_click=lambda c: _subscribe(c, cid)), gap=24),
                Divider(),
                Text(f"Comments ({len(comments)})", bold=True, id="comments_header"),
                *[Column(Text(c["user"], size="small", bold=True), Text(c["text"], size="small", id="comment_text"), gap=4)
                  for c in comments],
                pad=36, gap=28), id="player_scroll"),
            # The comment box stays fixed under the list so it remains visible above the keyboard.
            Row(Input("comment", hint="Add a comment", weight=1.0, on_submit=lambda c, text: _comment(c, vid, text)),
                Icon("send", desc="Post comment", size=80, id="post_comment",
                     on_click=lambda c: _comment(c, vid, c.fields.get("comment", ""))), pad=24, gap=16))

    def screen_channel(self, ctx: Ctx) -> Widget:
        ch = _channel(ctx, ctx.params.get("id", 1)) or ctx.state["channels"][0]
        cid = ch["id"]
        subscribed = cid in ctx.state["subscriptions"]
        videos = [v for v in ctx.state["videos"] if v["channel"] == cid]
        return Column(
            AppBar(ch["name"]),
            Scroll(Column(Image(desc=f"Banner of {ch['name']}", height=240, color=COLORS[cid % len(COLORS)]),
                          Row(Icon("user", desc=ch["name"], size=130, bg="primary"),
                              Column(Text(ch["name"], size="title", bold=True, id="channel_title"),
                                     Text(f"{ch['subscribers']:,} subscribers  \u00b7  {len(videos)} videos", size="small",
                                          color=(120, 122, 130), id="subscriber_count"), weight=1.0, gap=6), gap=24),
                          Text(ch["about"], size="small"),
                          Button("Subscribed" if subscribed else "Subscribe", style="secondary" if subscribed else "danger",
                                 id="subscribe", selected=subscribed, on_click=lambda c: _subscribe(c, cid)),
                          pad=36, gap=24),
                   Text("Videos", bold=True, pad=36),
                   *[self._video_row(ctx, v) for v in videos], id="channel_scroll"))

    def screen_subscriptions(self, ctx: Ctx) -> Widget:
        subs = [ch for cid in ctx.state["subscriptions"] if (ch := _channel(ctx, cid)) is not None]
        rows: list[Widget] = [ListItem(ch["name"], f"{fmt_count(ch['subscribers'])} subscribers", id="subscription",
                                       leading=Icon("user", desc=ch["name"], size=100, bg="primary"),
                                       on_click=lambda c, cid=ch["id"]: c.push("channel", id=cid)) for ch in subs]
        latest = sorted((v for v in ctx.state["videos"] if v["channel"] in ctx.state["subscriptions"]),
                        key=lambda v: (v["days_ago"], v["id"]))
        if rows:
            rows += [Text("Latest from your subscriptions", bold=True, pad=36)] + [self._video_row(ctx, v) for v in latest]
        else:
            rows = [Text("You have no subscriptions yet. Subscribe to channels to see their new videos here.",
                         pad=60, align="center", id="empty")]
        return Column(self._top("Subscriptions"), Scroll(*rows, id="subscriptions_list"), self._nav(2))

    def screen_library(self, ctx: Ctx) -> Widget:
        m = ctx.state["membership"]
        plan = next((p for p in ctx.state["plans"] if p["id"] == m["plan"]), None)
        liked = [v for vid in ctx.state["liked"] if (v := _video(ctx, vid)) is not None]
        history = [v for vid in ctx.state["history"][:10] if (v := _video(ctx, vid)) is not None]
        member = Card(Text("Premium member" if m["active"] else "Try Video Premium", bold=True, id="membership_status"),
                      Text(f"{plan['name']}: {money(plan['price'])} / {plan['period']}" if m["active"] and plan else
                           "No ads, background play and downloads", size="small"),
                      on_click=lambda c: c.push("premium"), id="premium_card")
        return Column(
            self._top("Library"),
            Scroll(Column(member, pad=28),
                   Text(f"Liked videos ({len(liked)})", bold=True, pad=36, id="liked_header"),
                   *[self._video_row(ctx, v) for v in liked],
                   Text("History", bold=True, pad=36),
                   *[self._video_row(ctx, v) for v in history], id="library_list"),
            self._nav(3))

    def screen_premium(self, ctx: Ctx) -> Widget:
        m = ctx.state["membership"]
        if m["active"]:
            plan = next((p for p in ctx.state["plans"] if p["id"] == m["plan"]), ctx.state["plans"][0])
            body: list[Widget] = [Text(f"You are on {plan['name']}", size="title", bold=True, id="current_plan"),
                                  Text(f"{money(plan['price'])} per {plan['period']}, renews automatically.")]
        else:
            body = [Text("Video Premium", size="big", bold=True),
                    Text("Ad-free videos, background play and downloads. Cancel anytime.", size="small")]
            for p in ctx.state["plans"]:
                pid = p["id"]
                body.append(Card(Text(p["name"], bold=True, id="plan_name"),
                                 Text(f"{money(p['price'])} / {p['period']}", size="title", color="danger", id="plan_price"),
                                 Button(f"Choose {p['name']}", id=f"choose_{pid}",
                                        on_click=lambda c, pid=pid: c.push("premium_pay", plan=pid)
                                        if c.require_login() else None)))
        return Column(AppBar("Premium"), Scroll(Column(*body, pad=36, gap=28), id="plans"))

    def screen_premium_pay(self, ctx: Ctx) -> Widget:
        plan = next((p for p in ctx.state["plans"] if p["id"] == ctx.params.get("plan")), ctx.state["plans"][0])
        return Column(
            AppBar("Confirm purchase"),
            Scroll(Column(
                Text(plan["name"], size="title", bold=True, id="pay_plan"),
                Text(money(plan["price"]), size="huge", bold=True, align="center", id="amount"),
                Text(f"Charged today, then every {plan['period']} until you cancel.", size="small", id="renew_note"),
                Input("pay_password", hint="6-digit payment password", password=True, on_submit=_buy),
                Button("Confirm and pay", id="confirm_payment", on_click=_buy),
                Button("Cancel", style="text", id="cancel", on_click=lambda c: c.pop()),
                pad=48, gap=32), id="pay_scroll"))
