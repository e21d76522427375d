"""Gallery: albums and photos to view, favourite, share, delete (to Recently deleted) and set as the Chat avatar."""

from __future__ import annotations

import random
from typing import Any

from mobile_r1.sim.apps import App, Ctx, register
from mobile_r1.sim.ui.widgets import (AppBar, Button, Column, Grid, Icon, Image, ListItem, Row, Scroll, Tabs, Text,
                                      Widget)

SUBJECTS = {
    "Camera": ["Beach sunset", "Morning coffee", "City skyline", "Birthday cake", "Park picnic", "Rainy street",
               "Dog in the garden", "Mountain lake", "Night market", "Snowy road"],
    "Travel": ["Eiffel Tower", "Great Wall", "Kyoto temple", "Desert dunes", "Harbour bridge", "Alpine village"],
    "Family": ["Family dinner", "Grandma's garden", "Graduation photo", "Baby's first steps", "Wedding toast"],
    "Screenshots": ["Boarding pass", "Bank receipt", "Chat screenshot", "Map directions", "Recipe page"],
}
PALETTE = [[236, 148, 92], [92, 160, 236], [120, 200, 140], [230, 110, 140], [160, 120, 220], [240, 200, 90],
           [90, 190, 200], [200, 160, 120], [140, 150, 170], [220, 120, 90]]
FAVORITES, DELETED = "Favorites", "Recently deleted"
GREY = (120, 122, 130)
SHARE_TARGETS = ("Chat", "Social", "Email", "Bluetooth")


def _photo(ctx: Ctx, pid: int) -> dict[str, Any] | None:
    return next((p for p in ctx.state["photos"] if p["id"] == pid), None)


def _visible(ctx: Ctx, album: str | None = None) -> list[dict[str, Any]]:
    """Photos of an album (None: all) newest first; 'Favorites' and 'Recently deleted' are virtual albums."""
    photos = ctx.state["photos"]
    if album == DELETED:
        out = [p for p in photos if p["deleted"]]
    elif album == FAVORITES:
        out = [p for p in photos if p["favorite"] and not p["deleted"]]
    else:
        out = [p for p in photos if not p["deleted"] and (album is None or p["album"] == album)]
    return sorted(out, key=lambda p: (p["date"], p["id"]), reverse=True)


def _any_photo(ctx: Ctx) -> dict[str, Any] | None:
    """The newest visible photo (the default of screens shown without params), else any, else None."""
    return next(iter(_visible(ctx) or ctx.state["photos"]), None)


def _shown(ctx: Ctx) -> dict[str, Any] | None:
    """The photo a screen was opened for (by its `id` param), or the newest one when opened without params."""
    pid = ctx.params.get("id")
    return _any_photo(ctx) if pid is None else _photo(ctx, pid)


def _gone() -> Widget:
    return Column(AppBar("Photo"), Text("This photo no longer exists", pad=60, color=GREY))


def _toggle_favorite(ctx: Ctx, pid: int) -> None:
    p = _photo(ctx, pid)
    if p is not None:
        p["favorite"] = not p["favorite"]
        ctx.toast("Added to Favorites" if p["favorite"] else "Removed from Favorites")


def _delete(ctx: Ctx, pid: int) -> None:
    p = _photo(ctx, pid)
    if p is None or p["deleted"]:
        return
    p["deleted"] = True
    p["deleted_step"] = ctx.phone.state.step
    ctx.effect("delete", item="photo", id=pid, title=p["title"], album=p["album"], permanent=False)
    ctx.toast("Moved to Recently deleted")
    ctx.pop()


def _delete_forever(ctx: Ctx, pid: int) -> None:
    p = _photo(ctx, pid)
    if p is None:
        return
    ctx.state["photos"].remove(p)
    ctx.state["purged"].append(pid)
    ctx.effect("delete", item="photo", id=pid, title=p["title"], album=p["album"], permanent=True)
    ctx.toast("Photo deleted permanently")
    if ctx.screen == "photo":
        ctx.pop()


def _restore(ctx: Ctx, pid: int) -> None:
    p = _photo(ctx, pid)
    if p is not None and p["deleted"]:
        p["deleted"] = False
        p.pop("deleted_step", None)
        ctx.toast("Photo restored")
        if ctx.screen == "photo":
            ctx.pop()


def _share(ctx: Ctx, pid: int, target: str) -> None:
    p = _photo(ctx, pid)
    if p is None:
        return
    ctx.state["shared"].append({"photo": pid, "to": target})
    ctx.effect("share", item="photo", id=pid, title=p["title"], to=target)
    ctx.toast(f"Shared to {target}")
    ctx.pop()


def _set_avatar(ctx: Ctx, pid: int) -> None:
    """Make the photo the Chat profile photo (the Chat app's state holds the profile)."""
    p = _photo(ctx, pid)
    chat = ctx.phone.state.apps.get("chat")
    if p is None:
        return
    if chat is None:
        ctx.toast("Chat is not installed")
        return
    old = dict(chat["me"]["avatar"])
    chat["me"]["avatar"] = {"photo_id": pid, "desc": p["title"], "color": list(p["color"])}
    ctx.effect("profile_change", target_app="chat", field="avatar", photo=pid, title=p["title"], old=old,
               new=dict(chat["me"]["avatar"]))
    ctx.toast("Set as Chat profile photo")


@register
class Gallery(App):
    name = "Gallery"
    names = {"zh": "相册"}
    package = "com.sim.gallery"
    aliases = ("photos", "photo", "album", "albums", "pictures", "camera roll")
    color = "#1e88e5"
    icon = "star"

    def initial_state(self, rng: random.Random) -> dict[str, Any]:
        photos = []
        for album, titles in SUBJECTS.items():
            for title in rng.sample(titles, min(len(titles), rng.randint(4, len(titles)))):
                month, day = rng.randint(1, 11), rng.randint(1, 28)
                photos.append({"title": title, "album": album, "date": f"2026-{month:02d}-{day:02d}",
                               "color": list(rng.choice(PALETTE)), "size_mb": round(rng.uniform(0.4, 6.0), 1),
                               "favorite": rng.random() < 0.2, "deleted": False})
        rng.shuffle(photos)
        for i, p in enumerate(photos):
            p["id"] = i + 1
        return {"photos": photos, "shared": [], "purged": []}

    def on_start(self, ctx: Ctx) -> None:
        if not ctx.has_permission("storage"):
            ctx.request_permission("storage", lambda c: None,
                                   lambda c: c.toast("Gallery needs access to your photos"))

    # ----- shared pieces --------------------------------------------------------------------------------------
    def _nav(self, selected: int) -> Widget:
        return Tabs(["Photos", "Albums"], selected, icons=["star", "list"], id="bottom_nav",
                    on_select=lambda c, i: c.reset_to(("home", "albums")[i]) if i != selected else None)

    def _grid(self, photos: list[dict[str, Any]], album: str | None) -> Widget:
        cells = [Image(desc=p["title"], height=250, color=tuple(p["color"]), radius=6, id="photo",
                       on_click=lambda c, pid=p["id"]: c.push("photo", id=pid, album=album))
                 for p in photos]
        return Grid(*cells, cols=4, gap=8, pad=8)

    def _no_access(self) -> Widget:
        return Column(Icon("star", desc="Photos", size=160, color="primary"),
                      Text("Allow Gallery to access your photos and videos to see them here.", align="center"),
                      Button("Allow access", id="allow_access",
                             on_click=lambda c: c.request_permission("storage", lambda c2: c2.toast("Access allowed"))),
                      pad=80, gap=40, align="center")

    # ----- screens --------------------------------------------------------------------------------------------
    def screen_home(self, ctx: Ctx) -> Widget:
        if not ctx.has_permission("storage"):
            return Column(AppBar("Photos", back=False), Column(self._no_access(), flex=True), self._nav(0))
        photos = _visible(ctx)
        return Column(
            AppBar("Photos", back=False, actions=[Icon("search", desc="Search photos", size=80, id="search",
                                                       on_click=lambda c: c.toast("Search is not available"))]),
            Text(f"{len(photos)} photos", size="small", color=GREY, pad=24, id="photo_count"),
            Scroll(self._grid(photos, None), id="photo_grid"),
            self._nav(0))

    def screen_albums(self, ctx: Ctx) -> Widget:
        if not ctx.has_permission("storage"):
            return Column(AppBar("Albums", back=False), Column(self._no_access(), flex=True), self._nav(1))
        cards: list[Widget] = []
        for album in [*SUBJECTS, FAVORITES, DELETED]:
            photos = _visible(ctx, album)
            cover = photos[0]["color"] if photos else [220, 222, 228]
            cards.append(Column(Image(desc=f"{album} album cover", height=300, color=tuple(cover)),
                                Text(album, bold=True, id="album_name"),
                                Text(f"{len(photos)} items", size="small", color=GREY), gap=8, id="album",
                                on_click=lambda c, a=album: c.push("recently_deleted" if a == DELETED else "album",
                                                                   album=a)))
        return Column(AppBar("Albums", back=False), Scroll(Grid(*cards, cols=2, gap=28, pad=28), id="albums_grid"),
                      self._nav(1))

    def screen_album(self, ctx: Ctx) -> Widget:
        album = ctx.params.get("album", "Camera")
        photos = _visible(ctx, album)
        body = self._grid(photos, album) if photos else Text("No photos", pad=60, color=GREY, align="center")
        return Column(AppBar(album), Text(f"{len(photos)} items", size="small", color=GREY, pad=24),
                      Scroll(body, id="album_grid"))

    def screen_photo(self, ctx: Ctx) -> Widget:
        p = _shown(ctx)
        if p is None:
            return _gone()
        pid = p["id"]
        if p["deleted"]:
            return Column(
                AppBar(p["title"]),
                Column(Image(desc=p["title"], height=1100, color=tuple(p["color"]), radius=0, id="photo_view"),
                       Text("This photo is in Recently deleted", size="small", color=GREY, align="center"),
                       flex=True, gap=24),
                Row(Button("Restore", style="secondary", id="restore", weight=1.0, on_click=lambda c: _restore(c, pid)),
                    Button("Delete permanently", style="danger", id="delete_forever", weight=1.0,
                           on_click=lambda c: c.confirm("Delete permanently?", "This photo cannot be recovered.",
                                                        lambda c2: _delete_forever(c2, pid), yes="Delete")),
                    pad=28, gap=24))
        fav = p["favorite"]

        def more(c: Ctx) -> None:
            c.menu([("Set as Chat profile photo",
                     lambda c2: c2.confirm("Set as profile photo?",
                                           f"\"{p['title']}\" will become your Chat profile photo, visible to your "
                                           "contacts.", lambda c3: _set_avatar(c3, pid), yes="Set")),
                    ("Details", lambda c2: c2.push("details", id=pid))], title=p["title"])

        return Column(
            AppBar(p["title"], actions=[Icon("more", desc="More options", size=80, id="more", on_click=more)]),
            Column(Image(desc=p["title"], height=1100, color=tuple(p["color"]), radius=0, id="photo_view"),
                   Text(f"{p['date']}  \u00b7  {p['album']}", size="small", color=GREY, align="center",
                        id="photo_info"),
                   flex=True, gap=24),
            Row(Icon("heart_filled" if fav else "heart", desc="Unfavorite" if fav else "Favorite", size=90,
                     color="danger" if fav else None, selected=fav, id="favorite", label="Favorite", weight=1.0,
                     on_click=lambda c: _toggle_favorite(c, pid)),
                Icon("share", desc="Share", size=90, id="share", label="Share", weight=1.0,
                     on_click=lambda c: c.push("share", id=pid)),
                Icon("edit", desc="Edit", size=90, id="edit", label="Edit", weight=1.0,
                     on_click=lambda c: c.toast("Editing is not available")),
                Icon("trash", desc="Delete", size=90, id="delete", label="Delete", weight=1.0,
                     on_click=lambda c: c.confirm("Delete photo?", f"\"{p['title']}\" will be moved to Recently "
                                                  "deleted.", lambda c2: _delete(c2, pid), yes="Delete")),
                pad=24, gap=0, id="photo_actions"))

    def screen_details(self, ctx: Ctx) -> Widget:
        p = _shown(ctx)
        if p is None:
            return _gone()
        return Column(AppBar("Details"),
                      Scroll(ListItem("Title", p["title"], id="detail_title"),
                             ListItem("Album", p["album"], id="detail_album"),
                             ListItem("Date", p["date"], id="detail_date"),
                             ListItem("Size", f"{p['size_mb']} MB", id="detail_size"), id="details_list"))

    def screen_share(self, ctx: Ctx) -> Widget:
        p = _shown(ctx)
        if p is None:
            return _gone()
        pid = p["id"]
        targets = [Icon(t[:1], desc=f"Share to {t}", size=130, bg="primary", round=False, label=t,
                        id=f"share_{t.lower()}",
                        on_click=lambda c, t=t: c.confirm(f"Share to {t}?", f"\"{p['title']}\" will be sent to {t}.",
                                                          lambda c2: _share(c2, pid, t), yes="Share"))
                   for t in SHARE_TARGETS]
        return Column(AppBar("Share photo"),
                      Column(Image(desc=p["title"], height=600, color=tuple(p["color"])),
                             Text(p["title"], size="title", align="center", id="share_title"),
                             Text("Share to", size="small", color=GREY), Grid(*targets, cols=4, gap=20),
                             pad=48, gap=32))

    def screen_recently_deleted(self, ctx: Ctx) -> Widget:
        photos = _visible(ctx, DELETED)
        rows = [ListItem(p["title"], f"{p['album']}  \u00b7  {p['date']}", id="deleted_photo",
                         leading=Image(desc=p["title"], height=130, width=130, color=tuple(p["color"])),
                         trailing=Button("Restore", style="text", id="restore",
                                         on_click=lambda c, pid=p["id"]: _restore(c, pid)),
                         on_click=lambda c, pid=p["id"]: c.push("photo", id=pid))
                for p in photos]
        return Column(AppBar(DELETED),
                      Text("Photos stay here until you delete them permanently.", size="small", color=GREY, pad=28),
                      Scroll(*(rows or [Text("Nothing here", pad=60, color=GREY, align="center")]), id="deleted_list"))
