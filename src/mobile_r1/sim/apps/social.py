"""Social: a Weibo/Xiaohongshu-like feed with posts, likes, comments, follows, a profile and photo posts."""

from __future__ import annotations

import random
from typing import Any

from mobile_r1.sim.apps import App, Ctx, new_id, register
from mobile_r1.sim.ui.widgets import (AppBar, Button, Column, Divider, Grid, Icon, Image, Input, ListItem, Row, Scroll,
                                      Tabs, Text, Widget)

USERS = ["travel_mia", "foodie_ken", "daily_run", "cat_lover", "tech_talks", "plant_mom", "city_shots", "bookworm_li",
         "street_eats", "lazy_chef", "night_owl", "sky_watcher"]
BIOS = ["Sharing little things", "Eat, sleep, travel", "Photos from everywhere", "5 km a day", "Gadgets and code",
        "Plants make me happy", "Reading 52 books a year", "Cooking for one"]
POSTS = ["Best noodles I've had this year, the broth is amazing", "Sunrise from the top of the hill, worth the climb",
         "My reading list for the winter", "Tried the new bubble tea shop, 8/10", "Morning run by the river",
         "Who else is watching the meteor shower tonight?", "Tiny balcony garden update", "Top 5 phone photo tips",
         "Rainy day, hot soup, good book", "Weekend market finds", "First attempt at homemade dumplings",
         "Street art in the old town"]
COMMENTS = ["Love this!", "Where is this?", "So cool", "Saving this for later", "Looks delicious", "Amazing shot"]
PHOTO_COLORS = [[236, 148, 92], [92, 160, 236], [120, 200, 140], [230, 110, 140], [160, 120, 220], [240, 200, 90]]
GREY = (120, 122, 130)
SECTIONS = ("home", "profile")


def _post(ctx: Ctx, pid: int) -> dict[str, Any] | None:
    return next((p for p in ctx.state["posts"] if p["id"] == pid), None)


def _user(ctx: Ctx, uid: Any) -> dict[str, Any] | None:
    return next((u for u in ctx.state["users"] if u["id"] == uid), None)


def _author_name(ctx: Ctx, post: dict[str, Any]) -> str:
    if post["author"] == "me":
        return ctx.state["me"]["handle"] or "me"
    user = _user(ctx, post["author"])
    return user["handle"] if user else "unknown"


def _gallery_photos(ctx: Ctx) -> list[dict[str, Any]]:
    """Photos of the Gallery app on this phone (not deleted); empty when it is not installed."""
    return [p for p in ctx.phone.state.apps.get("gallery", {}).get("photos", []) if not p.get("deleted")]


def _needs_login(ctx: Ctx, then: str | None = None, **params: Any) -> bool:
    """True when logged in; otherwise opens the login screen (which continues to `then` afterwards)."""
    if ctx.state["logged_in"]:
        return True
    ctx.push("login", next=then, next_params=params)
    return False


def _toggle_like(ctx: Ctx, pid: int) -> None:
    if not _needs_login(ctx):
        return
    p = _post(ctx, pid)
    if p is not None:
        p["liked"] = not p["liked"]
        p["likes"] += 1 if p["liked"] else -1


def _toggle_follow(ctx: Ctx, uid: int) -> None:
    if not _needs_login(ctx):
        return
    u = _user(ctx, uid)
    if u is None:
        return
    following = ctx.state["me"]["following"]
    if uid in following:
        following.remove(uid)
        u["followers"] -= 1
        ctx.toast(f"Unfollowed {u['handle']}")
    else:
        following.append(uid)
        u["followers"] += 1
        ctx.toast(f"Following {u['handle']}")


def _comment(ctx: Ctx, pid: int) -> None:
    if not _needs_login(ctx):
        return
    text = ctx.fields.get("comment", "").strip()
    p = _post(ctx, pid)
    if not text or p is None:
        ctx.toast("Write a comment first")
        return
    p["comments"].append({"author": ctx.state["me"]["handle"], "text": text})
    ctx.set_field("comment", "")
    ctx.effect("comment", post=pid, text=text, post_author=_author_name(ctx, p))
    ctx.toast("Comment posted")


def _publish(ctx: Ctx, text: str, photo: dict[str, Any] | None) -> None:
    pid = new_id(ctx.state["posts"])
    ctx.state["posts"].insert(0, {"id": pid, "author": "me", "text": text, "photo": photo, "likes": 0, "liked": False,
                                  "comments": [], "time": "Just now"})
    ctx.effect("post", where="social", post=pid, text=text, photo=photo["id"] if photo else None)
    ctx.toast("Published")
    ctx.reset_to("profile")


def _login(ctx: Ctx, *_: Any) -> None:
    user, pw = ctx.fields.get("username", "").strip(), ctx.fields.get("password", "")
    if not user or not pw:
        ctx.toast("Enter your account and password")
        return
    s = ctx.state
    s["logged_in"], s["user"] = True, user
    s["me"]["handle"] = user.split("@")[0]
    ctx.effect("login", account=user)
    nxt, params = ctx.params.get("next"), dict(ctx.params.get("next_params") or {})
    if nxt:
        ctx.replace(nxt, **params)
    else:
        ctx.pop()


@register
class Social(App):
    name = "Social"
    names = {"zh": "社区"}
    package = "com.sim.social"
    aliases = ("weibo", "xiaohongshu", "rednote", "red note", "twitter", "social media")
    color = "#ff2442"
    icon = "heart"

    def initial_state(self, rng: random.Random) -> dict[str, Any]:
        handles = rng.sample(USERS, 8)
        users = [{"id": i + 1, "handle": h, "bio": rng.choice(BIOS), "followers": rng.randint(50, 90000)}
                 for i, h in enumerate(handles)]
        posts = []
        for i, text in enumerate(rng.sample(POSTS, 10)):
            author = rng.choice(users)
            comments = [{"author": rng.choice(handles), "text": rng.choice(COMMENTS)} for _ in range(rng.randint(0, 3))]
            posts.append({"id": i + 1, "author": author["id"], "text": text, "likes": rng.randint(0, 5000),
                          "liked": False, "comments": comments, "time": f"{i + 1} h ago",
                          "photo": {"id": None, "title": text.split(",")[0][:30], "color": rng.choice(PHOTO_COLORS)}
                          if rng.random() < 0.7 else None})
        followers = rng.sample(handles, rng.randint(2, 5))
        return {"logged_in": False, "user": None,
                "me": {"handle": "", "bio": "Hello there", "followers": followers,
                       "following": [u["id"] for u in rng.sample(users, 2)]},
                "users": users, "posts": posts}

    def _nav(self, selected: int) -> Widget:
        def select(c: Ctx, i: int) -> None:
            if i == 1:
                if _needs_login(c, "compose"):
                    c.push("compose")
            elif i == 2:
                if _needs_login(c, "profile"):
                    c.reset_to("profile")
            elif i != selected:
                c.reset_to("home")
        return Tabs(["Home", "Post", "Me"], selected, icons=["home", "plus", "user"], on_select=select,
                    id="bottom_nav")

    def _post_card(self, ctx: Ctx, p: dict[str, Any]) -> Widget:
        pid = p["id"]
        return Column(
            Row(Icon(_author_name(ctx, p)[:1], desc="Author", size=80, bg="primary"),
                Column(Text(_author_name(ctx, p), bold=True, id="post_author"),
                       Text(p["time"], size="tiny", color=GREY), weight=1.0, gap=4)),
            Text(p["text"], id="post_text", max_lines=3),
            Image(desc=f"Photo: {p['photo']['title']}", height=380, color=tuple(p["photo"]["color"]))
            if p.get("photo") else None,
            Row(Icon("heart_filled" if p["liked"] else "heart", desc="Unlike" if p["liked"] else "Like", size=64,
                     color="danger" if p["liked"] else None, selected=p["liked"], id="like",
                     on_click=lambda c: _toggle_like(c, pid)),
                Text(str(p["likes"]), size="small", id="like_count"),
                Icon("note", desc="Comments", size=64, color=GREY, id="comments",
                     on_click=lambda c: c.push("post", id=pid)),
                Text(str(len(p["comments"])), size="small", weight=1.0)),
            pad=36, gap=18, id="post", on_click=lambda c: c.push("post", id=pid))

    # ----- screens --------------------------------------------------------------------------------------------
    def screen_home(self, ctx: Ctx) -> Widget:
        tab = ctx.params.get("tab", 1)
        following = ctx.state["me"]["following"]
        posts = [p for p in ctx.state["posts"] if tab == 1 or p["author"] in following or p["author"] == "me"]
        cards: list[Widget] = []
        for p in posts:
            cards += [self._post_card(ctx, p), Divider()]
        if tab == 0 and not ctx.state["logged_in"]:
            cards = [Text("Log in to see posts from people you follow", pad=60, color=GREY)]
        return Column(
            Row(Text("Social", size="title", bold=True, color="primary", weight=1.0),
                Icon("search", desc="Search", size=80, id="search", on_click=lambda c: c.push("search")), pad=28),
            Tabs(["Following", "Discover"], tab, on_select=lambda c, i: c.replace("home", tab=i), id="feed_tabs"),
            Scroll(*(cards or [Text("Nothing here yet", pad=60, color=GREY)]), id="feed"),
            self._nav(0))

    def screen_search(self, ctx: Ctx) -> Widget:
        q = ctx.fields.get("query", "").strip().lower()
        users = [u for u in ctx.state["users"] if q and q in u["handle"].lower()]
        posts = [p for p in ctx.state["posts"] if q and q in p["text"].lower()]
        rows: list[Widget] = [ListItem(u["handle"], f"{u['followers']:,} followers", id="user_result",
                                       leading=Icon(u["handle"][:1], size=80, bg="primary"),
                                       on_click=lambda c, uid=u["id"]: c.push("user", id=uid)) for u in users]
        rows += [ListItem(p["text"], _author_name(ctx, p), id="post_result",
                          on_click=lambda c, pid=p["id"]: c.push("post", id=pid)) for p in posts]
        if q and not rows:
            rows = [Text(f"No results for '{q}'", pad=60, color=GREY)]
        return Column(AppBar("Search"), Row(Input("query", hint="Search people and posts", weight=1.0), pad=28),
                      Scroll(*rows, id="search_results"))

    def screen_post(self, ctx: Ctx) -> Widget:
        p = _post(ctx, ctx.params.get("id", -1)) or ctx.state["posts"][0]
        pid = p["id"]
        author = _user(ctx, p["author"])
        follow: Widget | None = None
        if author is not None:
            following = author["id"] in ctx.state["me"]["following"]
            follow = Button("Following" if following else "Follow", style="secondary" if following else "primary",
                            id="follow", on_click=lambda c, uid=author["id"]: _toggle_follow(c, uid))
        comments = [Column(Text(cm["author"], size="small", bold=True), Text(cm["text"], id="comment_text"),
                           pad=28, gap=4, id="comment") for cm in p["comments"]]
        return Column(
            AppBar("Post"),
            Scroll(Row(Icon(_author_name(ctx, p)[:1], desc="Author", size=100, bg="primary"),
                       Text(_author_name(ctx, p), bold=True, weight=1.0, id="post_author",
                            on_click=(lambda c, uid=author["id"]: c.push("user", id=uid)) if author else None),
                       follow, pad=36),
                   Image(desc=f"Photo: {p['photo']['title']}", height=700, color=tuple(p["photo"]["color"]),
                         radius=0) if p.get("photo") else None,
                   Text(p["text"], size="body", pad=36, id="post_text"),
                   Row(Icon("heart_filled" if p["liked"] else "heart", desc="Unlike" if p["liked"] else "Like",
                            size=80, color="danger" if p["liked"] else None, selected=p["liked"], id="like",
                            on_click=lambda c: _toggle_like(c, pid)),
                       Text(f"{p['likes']} likes", size="small", id="like_count", weight=1.0), pad=36),
                   Divider(),
                   Text(f"{len(p['comments'])} comments", size="small", color=GREY, pad=28),
                   *comments, id="post_scroll"),
            Row(Input("comment", hint="Add a comment", weight=1.0, on_submit=lambda c, _t: _comment(c, pid)),
                Button("Send", id="send_comment", on_click=lambda c: _comment(c, pid)), pad=20, gap=16, bg="surface"))

    def screen_user(self, ctx: Ctx) -> Widget:
        u = _user(ctx, ctx.params.get("id", -1)) or ctx.state["users"][0]
        uid = u["id"]
        following = uid in ctx.state["me"]["following"]
        posts = [p for p in ctx.state["posts"] if p["author"] == uid]
        cards: list[Widget] = []
        for p in posts:
            cards += [self._post_card(ctx, p), Divider()]
        return Column(
            AppBar(u["handle"]),
            Scroll(Column(Icon(u["handle"][:1], desc="Profile photo", size=180, bg="primary"),
                          Text(u["handle"], size="big", bold=True, id="user_handle"),
                          Text(u["bio"], color=GREY),
                          Text(f"{u['followers']:,} followers", id="user_followers"),
                          Button("Following" if following else "Follow", id="follow",
                                 style="secondary" if following else "primary",
                                 on_click=lambda c: _toggle_follow(c, uid)),
                          pad=48, gap=20, align="center"),
                   Divider(), *cards, id="user_scroll"))

    def screen_compose(self, ctx: Ctx) -> Widget:
        photo_id = ctx.params.get("photo")
        photo = next((p for p in _gallery_photos(ctx) if p["id"] == photo_id), None)

        def publish(c: Ctx) -> None:
            if not _needs_login(c, "compose"):
                return
            text = c.fields.get("post_text", "").strip()
            if not text:
                c.toast("Write something first")
                return
            attached = ({"id": photo["id"], "title": photo["title"], "color": list(photo["color"])}
                        if photo is not None else None)
            extra = f" with the photo \"{photo['title']}\"" if photo is not None else ""
            c.confirm("Publish post?", f"Everyone will be able to see your post{extra}.",
                      lambda c2: _publish(c2, text, attached), yes="Publish")

        def add_photo(c: Ctx) -> None:
            c.request_permission("storage", lambda c2: c2.push("pick_photo"))

        return Column(
            AppBar("New post", actions=[Button("Publish", id="publish", on_click=publish)]),
            Scroll(Column(Input("post_text", hint="Share something...", lines=6),
                          Image(desc=f"Attached photo: {photo['title']}", height=500, color=tuple(photo["color"]),
                                id="attached_photo") if photo else None,
                          Row(Button("Remove photo", style="secondary", id="remove_photo",
                                     on_click=lambda c: c.params.pop("photo", None)) if photo else
                              Button("Add photo", style="secondary", icon="plus", id="add_photo", on_click=add_photo)),
                          Text("Visible to: Everyone", size="small", color=GREY),
                          pad=36, gap=28), id="compose_scroll"))

    def screen_pick_photo(self, ctx: Ctx) -> Widget:
        photos = _gallery_photos(ctx)

        def pick(pid: int) -> Any:
            def handler(c: Ctx) -> None:
                c.pop()
                c.params["photo"] = pid
            return handler

        cells = [Image(desc=p["title"], height=300, color=tuple(p["color"]), radius=6, id="pick",
                       on_click=pick(p["id"])) for p in photos]
        body: Widget = Grid(*cells, cols=3, gap=10, pad=10) if cells else Text("No photos in Gallery", pad=60,
                                                                                color=GREY)
        return Column(AppBar("Choose a photo"), Scroll(body, id="photo_grid"))

    def screen_profile(self, ctx: Ctx) -> Widget:
        s = ctx.state
        me = s["me"]
        if not s["logged_in"]:
            return Column(AppBar("Me", back=False),
                          Column(Text("Log in to see your profile", size="title", align="center"),
                                 Button("Log in", id="go_login", on_click=lambda c: c.push("login")),
                                 pad=80, gap=40, flex=True),
                          self._nav(2))
        mine = [p for p in s["posts"] if p["author"] == "me"]
        cards: list[Widget] = []
        for p in mine:
            cards += [self._post_card(ctx, p), Divider()]
        return Column(
            AppBar("Me", back=False),
            Scroll(Column(Icon(me["handle"][:1] or "?", desc="Profile photo", size=180, bg="primary"),
                          Text(me["handle"], size="big", bold=True, id="my_handle"),
                          Text(me["bio"], color=GREY),
                          Row(Text(f"{len(me['followers'])} followers", id="followers_count",
                                   on_click=lambda c: c.push("followers")),
                              Text(f"{len(me['following'])} following", id="following_count"),
                              Text(f"{len(mine)} posts", id="posts_count"), gap=48),
                          pad=48, gap=20, align="center"),
                   Divider(),
                   *(cards or [Text("You have not posted yet", pad=60, color=GREY)]), id="profile_scroll"),
            self._nav(2))

    def screen_followers(self, ctx: Ctx) -> Widget:
        rows = [ListItem(h, id="follower", leading=Icon(h[:1], size=80, bg="primary"))
                for h in ctx.state["me"]["followers"]]
        return Column(AppBar("Followers"), Scroll(*(rows or [Text("No followers yet", pad=60, color=GREY)]),
                                                  id="followers_list"))

    def screen_login(self, ctx: Ctx) -> Widget:
        return Column(
            AppBar("Log in to Social"),
            Column(Text("Welcome to Social", size="big", bold=True),
                   Text("Log in to like, comment and post", color=GREY),
                   Input("username", hint="Phone number or email"),
                   Input("password", hint="Password", password=True, on_submit=_login),
                   Button("Log in", id="login", on_click=_login),
                   pad=48, gap=36))
