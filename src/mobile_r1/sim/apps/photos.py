"""Gallery and Mirror: the phone's own photo apps, on the shared media store (`mobile_r1.sim.media`).

Gallery shows the store's photos as the store keeps them (newest first): the Photos timeline (the n-th photo is the
n-th there), albums (every album the photos are in, e.g. Camera, Screenshots, Travel, with Favorites and Recently
deleted), a photo's page (favourite, details, delete), and a selection mode to delete several photos at once. Deleting
asks for confirmation, marks the photos `deleted` in the store (they move to Recently deleted) and records one
`delete` effect. Mirror is a camera app: it asks for the camera permission when it first starts, shows the mirror, and
its snapshot saves a photo into the store (album Mirror), recorded as a `capture` effect.

State: the photos are in the media store (`media.photos[album=Travel]`, `media.photos[favorite=true]`); Gallery's own
state is `selection` (ids chosen in selection mode). Effects: `delete` (item "photo", ids, names, albums, positions,
screenshots, count, permanent; `positions` are 1-based places in the Photos timeline just before the deletion),
`capture` (id, name, album).
"""

from __future__ import annotations

import datetime
import random
from typing import Any, Callable

from mobile_r1.sim.apps import App, Ctx, register
from mobile_r1.sim.media import add_photo, album_names, live
from mobile_r1.sim.ui.widgets import (AppBar, Button, Checkbox, Column, Grid, Icon, Image, ListItem, Row, Scroll, Tabs,
                                      Text, Widget)

GREY = (120, 122, 130)
PALETTE = [(236, 148, 92), (92, 160, 236), (120, 200, 140), (230, 110, 140), (160, 120, 220), (240, 200, 90),
           (90, 190, 200), (200, 160, 120), (140, 150, 170), (220, 120, 90), (110, 170, 110), (200, 110, 200)]
FAVORITES, DELETED = "Favorites", "Recently deleted"
MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
MIRROR_ALBUM = {"en": "Mirror", "zh": "镜子"}


def photo_date(day: int, locale: str) -> str:
    """A store photo's date (its `day` counts from 1 January 2025): 'Apr 10, 2025' or '2025年4月10日'."""
    d = datetime.date(2025, 1, 1) + datetime.timedelta(days=max(0, int(day) - 1))
    return f"{d.year}年{d.month}月{d.day}日" if locale == "zh" else f"{MONTHS[d.month - 1]} {d.day}, {d.year}"


def timeline(store: dict[str, Any]) -> list[dict[str, Any]]:
    """The Photos timeline: the photos not deleted, newest first (the store's order)."""
    return live(store["photos"])


def albums(store: dict[str, Any], locale: str) -> list[str]:
    """The albums the photos are in: the phone's usual albums first, then any other, in order of appearance."""
    present = [p["album"] for p in timeline(store)]
    order = [a for a in album_names(locale) if a in present]
    return order + [a for a in dict.fromkeys(present) if a not in order]


def _shown(store: dict[str, Any], album: str | None) -> list[dict[str, Any]]:
    if album == DELETED:
        return [p for p in store["photos"] if p["deleted"]]
    if album == FAVORITES:
        return [p for p in timeline(store) if p["favorite"]]
    return [p for p in timeline(store) if album is None or p["album"] == album]


def _photo(store: dict[str, Any], pid: Any) -> dict[str, Any] | None:
    return next((p for p in store["photos"] if p["id"] == pid), None)


def delete_photos(ctx: Ctx, ids: list[int]) -> None:
    """Move photos to Recently deleted and record one `delete` effect with their places in the timeline."""
    store = ctx.media
    line = timeline(store)
    chosen = [p for p in line if p["id"] in ids]
    if not chosen:
        return
    positions = [line.index(p) + 1 for p in chosen]
    for p in chosen:
        p["deleted"] = True
    ctx.state["selection"] = []
    ctx.effect("delete", item="photo", ids=[p["id"] for p in chosen], names=[p["name"] for p in chosen],
               albums=[p["album"] for p in chosen], positions=positions,
               screenshots=[bool(p.get("screenshot")) for p in chosen], count=len(chosen), permanent=False)
    ctx.toast("{n} items moved to Recently deleted", n=len(chosen))


def _delete_forever(ctx: Ctx, pid: int) -> None:
    store = ctx.media
    p = _photo(store, pid)
    if p is None or not p["deleted"]:
        return
    store["photos"].remove(p)
    ctx.effect("delete", item="photo", ids=[pid], names=[p["name"]], albums=[p["album"]], positions=[],
               screenshots=[bool(p.get("screenshot"))], count=1, permanent=True)
    ctx.toast("Photo deleted permanently")
    if ctx.screen == "photo":
        ctx.pop()


def _restore(ctx: Ctx, pid: int) -> None:
    p = _photo(ctx.media, pid)
    if p is not None and p["deleted"]:
        p["deleted"] = False
        ctx.toast("Photo restored")
        if ctx.screen == "photo":
            ctx.pop()


def _ask_delete(ctx: Ctx, ids: list[int]) -> None:
    if not ids:
        ctx.toast("Select the photos to delete")
        return
    ctx.confirm(ctx.t("Delete {n} items?", n=len(ids)),
                ctx.t("They will be moved to Recently deleted and removed for good after 30 days."),
                lambda c: _after_delete(c, ids), yes=ctx.t("Delete"))


def _after_delete(ctx: Ctx, ids: list[int]) -> None:
    delete_photos(ctx, ids)
    if ctx.screen in ("photo", "select"):
        ctx.pop()


@register
class SystemGallery(App):
    """The phone's gallery on the shared media store (see the module docstring)."""

    name = "Gallery"
    key = "android_gallery"
    names = {"zh": "图库"}
    package = "com.android.gallery3d"
    uses_media = True
    aliases = ("photos", "相册", "album", "pictures")
    color = "#e8710a"
    icon = "star"
    strings = {"zh": {
        "Photos": "照片", "Albums": "相册", "Select": "选择", "Select all": "全选", "Deselect all": "全不选",
        "{n} photos": "{n} 张照片", "{n} items": "{n} 项", "{n} selected": "已选择 {n} 项", "Favorites": "我的收藏",
        "Recently deleted": "最近删除", "No photos": "没有照片", "Delete {n} items?": "删除 {n} 项？",
        "They will be moved to Recently deleted and removed for good after 30 days.": "这些照片将移至“最近删除”，30 天后永久删除。",
        "{n} items moved to Recently deleted": "已将 {n} 项移至“最近删除”", "Select the photos to delete": "请选择要删除的照片",
        "Photo deleted permanently": "照片已永久删除", "Photo restored": "照片已恢复", "Restore": "恢复",
        "Delete permanently": "永久删除", "Delete permanently?": "永久删除？", "This photo cannot be recovered.": "照片将无法恢复。",
        "This photo is in Recently deleted": "此照片在“最近删除”中", "Favorite": "收藏", "Unfavorite": "取消收藏",
        "Added to Favorites": "已添加到收藏", "Removed from Favorites": "已从收藏中移除", "Album": "相册",
        "Date": "日期", "File name": "文件名", "Subject": "内容", "This photo no longer exists": "此照片已不存在",
        "Photos stay here for 30 days before they are deleted for good.": "照片在此保留 30 天后将被永久删除。",
        "Nothing here": "这里什么都没有", "{subject}, {date}": "{subject}，{date}", "{album} album": "{album}相册",
        "Selected": "已选择", "Screenshot": "截屏", "Info": "信息",
    }}

    def initial_state(self, rng: random.Random) -> dict[str, Any]:
        return {"selection": []}

    # ----- set-up hooks ---------------------------------------------------------------------------------------------
    def setup_favorite(self, ctx: Ctx, name: str | None = None) -> str:
        """Make one photo (the one called `name`, else the store's favourite or its newest camera photo) the only
        favourite; returns its name."""
        photos = timeline(ctx.media)
        target = next((p for p in photos if p["name"] == name), None) if name else None
        target = target or next((p for p in photos if p["favorite"]), None) or next(
            (p for p in photos if not p["screenshot"]), photos[0])
        for p in ctx.media["photos"]:
            p["favorite"] = p is target
        return target["name"]

    def setup_album(self, ctx: Ctx, album: str, count: int = 3, screenshot: bool = False) -> list[str]:
        """Make sure the album `album` (any case: 'screenshots' is Screenshots) holds at least `count` photos (new
        ones are added at the top of the timeline); returns the names of its photos, newest first."""
        store = ctx.media
        album = next((a for a in albums(store, ctx.locale) if a.lower() == album.strip().lower()), album.strip())
        have = sum(1 for p in timeline(store) if p["album"] == album)
        for i in range(have, int(count)):
            stem = "Screenshot" if screenshot else "IMG"
            add_photo(store, f"{stem}_2025{900 + i:04d}.{'png' if screenshot else 'jpg'}", album,
                      screenshot=screenshot, subject=album, color=i % len(PALETTE))
        return [p["name"] for p in timeline(store) if p["album"] == album]

    # ----- pieces ---------------------------------------------------------------------------------------------------
    def _nav(self, selected: int) -> Widget:
        return Tabs(["Photos", "Albums"], selected, icons=["star", "list"], id="bottom_nav",
                    on_select=lambda c, i: c.reset_to(("home", "albums")[i]) if i != selected else None)

    def _cell(self, ctx: Ctx, p: dict[str, Any], on_click: Callable[[Ctx], None], selected: bool = False) -> Widget:
        desc = ctx.t("{subject}, {date}", subject=p["subject"] or p["name"], date=photo_date(p["day"], ctx.locale))
        return Image(desc=desc, height=250, color=PALETTE[p["color"] % len(PALETTE)], radius=6, id="photo",
                     selected=selected, on_click=on_click)

    def _grid(self, ctx: Ctx, photos: list[dict[str, Any]], album: str | None) -> Widget:
        if not photos:
            return Text("No photos", pad=60, color=GREY, align="center", id="empty")
        return Grid(*[self._cell(ctx, p, lambda c, pid=p["id"]: c.push("photo", id=pid, album=album))
                      for p in photos], cols=4, gap=8, pad=8)

    @staticmethod
    def _start_select(ctx: Ctx, album: str | None) -> None:
        ctx.state["selection"] = []
        ctx.push("select", **({"album": album} if album else {}))

    # ----- screens --------------------------------------------------------------------------------------------------
    def screen_home(self, ctx: Ctx) -> Widget:
        photos = _shown(ctx.media, None)
        return Column(
            AppBar("Photos", back=False, actions=[Button("Select", style="text", id="select",
                                                         on_click=lambda c: self._start_select(c, None))]),
            Text(ctx.t("{n} photos", n=len(photos)), size="small", color=GREY, pad=24, id="photo_count"),
            Scroll(self._grid(ctx, photos, None), id="photo_grid"),
            self._nav(0))

    def screen_albums(self, ctx: Ctx) -> Widget:
        store = ctx.media
        cards: list[Widget] = []
        for album in [*albums(store, ctx.locale), FAVORITES, DELETED]:
            photos = _shown(store, album)
            cover = PALETTE[photos[0]["color"] % len(PALETTE)] if photos else (220, 222, 228)
            label = ctx.t(album) if album in (FAVORITES, DELETED) else album
            cards.append(Column(Image(desc=ctx.t("{album} album", album=label), height=300, color=cover),
                                Text(label, bold=True, id="album_name"),
                                Text(ctx.t("{n} items", n=len(photos)), size="small", color=GREY), gap=8, id="album",
                                on_click=lambda c, a=album: c.push("recently_deleted" if a == DELETED else "album",
                                                                   album=a)))
        return Column(AppBar("Albums", back=False), Scroll(Grid(*cards, cols=2, gap=28, pad=28), id="albums_grid"),
                      self._nav(1))

    def screen_album(self, ctx: Ctx) -> Widget:
        store = ctx.media
        album = ctx.params.get("album") or (albums(store, ctx.locale) or [FAVORITES])[0]
        photos = _shown(store, album)
        title = ctx.t(album) if album in (FAVORITES, DELETED) else album
        return Column(AppBar(title, actions=[Button("Select", style="text", id="select",
                                                    on_click=lambda c: self._start_select(c, album))]),
                      Text(ctx.t("{n} items", n=len(photos)), size="small", color=GREY, pad=24, id="album_count"),
                      Scroll(self._grid(ctx, photos, album), id="album_grid"))

    def screen_select(self, ctx: Ctx) -> Widget:
        album = ctx.params.get("album")
        photos = _shown(ctx.media, album)
        chosen = ctx.state["selection"]
        ids = [p["id"] for p in photos]

        def toggle(pid: int) -> Callable[[Ctx], None]:
            def handler(c: Ctx) -> None:
                sel = c.state["selection"]
                if pid in sel:
                    sel.remove(pid)
                else:
                    sel.append(pid)
            return handler

        def all_or_none(c: Ctx) -> None:
            sel = c.state["selection"]
            c.state["selection"] = [] if all(i in sel for i in ids) else list(ids)

        cells = [Column(self._cell(ctx, p, toggle(p["id"]), p["id"] in chosen),
                        Checkbox(p["subject"] or p["name"], p["id"] in chosen, id="photo_check"), gap=4)
                 for p in photos]
        everything = bool(ids) and all(i in chosen for i in ids)
        return Column(
            AppBar(ctx.t("{n} selected", n=len(chosen)), actions=[
                Button("Deselect all" if everything else "Select all", style="text", id="select_all",
                       on_click=all_or_none)]),
            Scroll(Grid(*cells, cols=3, gap=12, pad=12) if cells else Text("No photos", pad=60, color=GREY),
                   id="select_grid"),
            Row(Button("Delete", style="danger", icon="trash", id="delete_selected", weight=1.0,
                       on_click=lambda c: _ask_delete(c, list(c.state["selection"]))), pad=28))

    def screen_photo(self, ctx: Ctx) -> Widget:
        store = ctx.media
        pid = ctx.params.get("id")
        p = _photo(store, pid) if pid is not None else next(iter(timeline(store) or store["photos"]), None)
        if p is None:
            return Column(AppBar("Photos"), Text("This photo no longer exists", pad=60, color=GREY))
        pid = p["id"]
        color = PALETTE[p["color"] % len(PALETTE)]
        info = f"{photo_date(p['day'], ctx.locale)}  \u00b7  {p['album']}"
        if p["deleted"]:
            return Column(
                AppBar(p["name"]),
                Column(Image(desc=p["subject"] or p["name"], height=1100, color=color, radius=0, id="photo_view"),
                       Text("This photo is in Recently deleted", size="small", color=GREY, align="center"),
                       flex=True, gap=24),
                Row(Button("Restore", style="secondary", id="restore", weight=1.0, on_click=lambda c: _restore(c, pid)),
                    Button("Delete permanently", style="danger", id="delete_forever", weight=1.0,
                           on_click=lambda c: c.confirm(c.t("Delete permanently?"),
                                                        c.t("This photo cannot be recovered."),
                                                        lambda c2: _delete_forever(c2, pid), yes=c.t("Delete"))),
                    pad=28, gap=24))
        fav = p["favorite"]

        def favorite(c: Ctx) -> None:
            photo = _photo(c.media, pid)
            if photo is not None:
                photo["favorite"] = not photo["favorite"]
                c.toast("Added to Favorites" if photo["favorite"] else "Removed from Favorites")

        return Column(
            AppBar(p["name"]),
            Column(Image(desc=p["subject"] or p["name"], height=1100, color=color, radius=0, id="photo_view"),
                   Text(info, size="small", color=GREY, align="center", id="photo_info"), flex=True, gap=24),
            Row(Icon("heart_filled" if fav else "heart", desc="Unfavorite" if fav else "Favorite", size=90,
                     color="danger" if fav else None, selected=fav, id="favorite", label="Favorite", weight=1.0,
                     on_click=favorite),
                Icon("more", desc="Info", size=90, id="details", label="Info", weight=1.0,
                     on_click=lambda c: c.push("details", id=pid)),
                Icon("trash", desc="Delete", size=90, id="delete", label="Delete", weight=1.0,
                     on_click=lambda c: _ask_delete(c, [pid])),
                pad=24, gap=0, id="photo_actions"))

    def screen_details(self, ctx: Ctx) -> Widget:
        store = ctx.media
        p = _photo(store, ctx.params.get("id")) or next(iter(timeline(store) or store["photos"]), None)
        if p is None:
            return Column(AppBar("Info"), Text("This photo no longer exists", pad=60, color=GREY))
        return Column(AppBar("Info"), Scroll(
            ListItem("File name", p["name"], id="detail_name"),
            ListItem("Album", p["album"], id="detail_album"),
            ListItem("Date", photo_date(p["day"], ctx.locale), id="detail_date"),
            ListItem("Subject", p["subject"] or "-", id="detail_subject"),
            ListItem("Favorite", ctx.t("Yes") if p["favorite"] else ctx.t("No"), id="detail_favorite"),
            id="details_list"))

    def screen_recently_deleted(self, ctx: Ctx) -> Widget:
        photos = _shown(ctx.media, DELETED)
        rows = [ListItem(p["name"], f"{p['album']}  \u00b7  {photo_date(p['day'], ctx.locale)}", id="deleted_photo",
                         leading=Image(desc=p["subject"] or p["name"], height=130, width=130,
                                       color=PALETTE[p["color"] % len(PALETTE)]),
                         trailing=Button("Restore", style="text", id="restore",
                                         on_click=lambda c, pid=p["id"]: _restore(c, pid)),
                         on_click=lambda c, pid=p["id"]: c.push("photo", id=pid))
                for p in photos]
        return Column(AppBar("Recently deleted"),
                      Text("Photos stay here for 30 days before they are deleted for good.", size="small", color=GREY,
                           pad=28),
                      Scroll(*(rows or [Text("Nothing here", pad=60, color=GREY, align="center")]), id="deleted_list"))


# ----- Mirror ---------------------------------------------------------------------------------------------------------
def _save_snapshot(ctx: Ctx) -> None:
    store = ctx.media
    album = MIRROR_ALBUM["zh" if ctx.locale == "zh" else "en"]
    n = sum(1 for p in store["photos"] if p["album"] == album) + 1
    photo = add_photo(store, f"Mirror_2025{n:04d}.jpg", album, subject=ctx.t("Mirror"), color=ctx.state["shade"])
    ctx.state["saved"].append(photo["id"])
    ctx.effect("capture", id=photo["id"], name=photo["name"], album=album)
    ctx.toast("Saved to Gallery")
    ctx.pop()


@register
class Mirror(App):
    """A mirror on the front camera: it needs the camera permission (asked on its first start); the snapshot button
    freezes the picture, which can be saved to the gallery."""

    name = "Mirror"
    names = {"zh": "镜子"}
    package = "com.huawei.mirror"
    uses_media = True
    aliases = ("makeup mirror", "化妆镜", "镜子应用")
    color = "#8e24aa"
    icon = "user"
    strings = {"zh": {
        "Mirror": "镜子", "Take photo": "拍照", "Mirror view": "镜面画面", "Save to gallery": "保存到图库",
        "Discard": "放弃", "Saved to Gallery": "已保存到图库", "Snapshot": "快照", "Brightness": "亮度",
        "Zoom": "缩放", "The mirror needs the camera.": "镜子需要使用相机。", "Allow camera": "允许使用相机",
        "Brighter": "调亮", "Dimmer": "调暗", "Zoom in": "放大", "Zoom out": "缩小", "Level {n}": "{n} 级",
    }}

    def initial_state(self, rng: random.Random) -> dict[str, Any]:
        return {"brightness": 3, "zoom": 1, "shade": rng.randrange(len(PALETTE)), "saved": []}

    def on_start(self, ctx: Ctx) -> None:
        if not ctx.has_permission("camera"):
            ctx.request_permission("camera", lambda c: None)

    def screen_home(self, ctx: Ctx) -> Widget:
        if not ctx.has_permission("camera"):
            return Column(AppBar("Mirror", back=False), Column(
                Icon("user", desc="Mirror", size=200, color="primary"),
                Text("The mirror needs the camera.", align="center"),
                Button("Allow camera", id="allow_camera",
                       on_click=lambda c: c.request_permission("camera", lambda c2: None)),
                pad=80, gap=40, align="center", flex=True))
        s = ctx.state

        def change(key: str, step: int, low: int, high: int) -> Callable[[Ctx], None]:
            def handler(c: Ctx) -> None:
                c.state[key] = max(low, min(high, c.state[key] + step))
            return handler

        return Column(
            AppBar("Mirror", back=False),
            Image(desc="Mirror view", height=1250, color=PALETTE[s["shade"]], radius=40, id="mirror_view"),
            Row(Icon("minus", desc="Dimmer", size=80, id="dimmer", on_click=change("brightness", -1, 1, 5)),
                Text(ctx.t("Level {n}", n=s["brightness"]), desc="Brightness", align="center", weight=1.0,
                     id="brightness"),
                Icon("plus", desc="Brighter", size=80, id="brighter", on_click=change("brightness", 1, 1, 5)),
                Icon("minus", desc="Zoom out", size=80, id="zoom_out", on_click=change("zoom", -1, 1, 3)),
                Icon("plus", desc="Zoom in", size=80, id="zoom_in", on_click=change("zoom", 1, 1, 3)), pad=28, gap=20),
            Row(Button("Take photo", icon="display", id="capture", weight=1.0, on_click=lambda c: c.push("preview")),
                pad=28))

    def screen_preview(self, ctx: Ctx) -> Widget:
        return Column(
            AppBar("Snapshot"),
            Image(desc="Snapshot", height=1300, color=PALETTE[ctx.state["shade"]], radius=40, id="snapshot"),
            Row(Button("Discard", style="secondary", id="discard", weight=1.0, on_click=lambda c: c.pop()),
                Button("Save to gallery", id="save_photo", weight=1.0, on_click=_save_snapshot), pad=28, gap=24))


__all__ = ["SystemGallery", "Mirror", "delete_photos", "timeline", "albums", "photo_date"]
