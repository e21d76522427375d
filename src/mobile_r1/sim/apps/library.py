"""Media libraries on the shared media store (`mobile_r1.sim.media`): Music Player (the store's audio), Video Player
(its videos) and File Manager (its files, in folders). One engine lists a collection, sorts it (by name, by length or
date, size and type for files), shows an item, and deletes one after a confirmation: the item is marked `deleted` in
the store (a recycle bin keeps it) and a `delete` effect names it.

Each app is a small identity on the engine (`LibraryApp`): names, package, colours and its collection. File Manager
adds the folders (Documents, Download, Pictures) and lists each folder sorted by name by default.

State: the items live in the media store (`media.audio`, `media.videos`, `media.files[folder=Documents]`); each app's
own state holds `played` (ids). Effects: `delete` with item "audio" / "video" (id, name, duration) or "file" (id, name,
folder, type, size_kb, position, type_position: its place in the folder sorted by name, among all files and among the
files of its type, just before the deletion).
"""

from __future__ import annotations

import hashlib
import random
from typing import Any, Callable, ClassVar

from mobile_r1.sim.apps import App, Ctx, register
from mobile_r1.sim.apps._search import sort_chips
from mobile_r1.sim.media import add_file, folder_names, live
from mobile_r1.sim.ui.widgets import (AppBar, Button, Card, Column, Divider, Icon, ListItem, Scroll, Text, Widget)

GREY = (120, 122, 130)
SHORTEST = ("shortest", "最短", "short", "短")
LONGEST = ("longest", "最长", "long", "长")


def duration_text(seconds: int) -> str:
    return f"{int(seconds) // 60:02d}:{int(seconds) % 60:02d}"


def size_text(kb: int) -> str:
    return f"{kb / 1024:.1f} MB" if kb >= 1024 else f"{kb} KB"


def _name_key(item: dict[str, Any]) -> tuple[str, int]:
    return (item["name"].lower(), item["id"])


def sort_items(items: list[dict[str, Any]], order: str) -> list[dict[str, Any]]:
    """Items as a list shows them for a sort order: name, shortest, longest (audio, videos), date, size, type."""
    if order == "shortest":
        return sorted(items, key=lambda i: (i["duration"], i["id"]))
    if order == "longest":
        return sorted(items, key=lambda i: (-i["duration"], i["id"]))
    if order == "date":
        return sorted(items, key=lambda i: (-i.get("day", 0), i["id"]))
    if order == "size":
        return sorted(items, key=lambda i: (-i.get("size_kb", 0), i["id"]))
    if order == "type":
        return sorted(items, key=lambda i: (i.get("type", ""), *_name_key(i)))
    return sorted(items, key=_name_key)


def folder_listing(store: dict[str, Any], folder: str) -> list[dict[str, Any]]:
    """A folder's files as File Manager first shows them: not deleted, sorted by name."""
    return sort_items([f for f in live(store["files"]) if f["folder"] == folder], "name")


class LibraryApp(App):
    """The library engine. A subclass gives the identity and `collection` ("audio" or "videos"), `item_kind` (the
    effect's item), the `sorts` its list offers, the glyph of its rows and `strings`."""

    archetype = "library"
    uses_media = True
    collection: ClassVar[str] = "audio"
    item_kind: ClassVar[str] = "audio"
    sorts: ClassVar[tuple[tuple[str, str], ...]] = (("name", "Name"), ("shortest", "Shortest first"),
                                                    ("longest", "Longest first"))
    row_icon: ClassVar[str] = "note"
    title: ClassVar[str] = "Library"
    strings: ClassVar[dict[str, dict[str, str]]] = {"zh": {
        "Name": "名称", "Shortest first": "时长最短", "Longest first": "时长最长", "Sort by": "排序方式",
        "More options": "更多选项", "Details": "详情", "Delete '{name}'?": "删除“{name}”？",
        "It will be deleted from this phone.": "该文件将从手机中删除。", "Deleted '{name}'": "已删除“{name}”",
        "Duration": "时长", "File name": "文件名", "Nothing here": "这里什么都没有", "{n} items": "{n} 项",
        "Now playing": "正在播放", "This item no longer exists": "该项已不存在", "Playing '{name}'": "正在播放“{name}”",
        "Size": "大小", "Date": "日期", "Type": "类型", "Folder": "文件夹", "Location": "位置",
    }}

    def __init_subclass__(cls, **kw: Any) -> None:
        """A subclass's own `strings` are laid over the engine's (so each app's table holds only its own words)."""
        super().__init_subclass__(**kw)
        own = cls.__dict__.get("strings")
        if own is not None:
            base = LibraryApp.strings
            cls.strings = {loc: {**base.get(loc, {}), **own.get(loc, {})} for loc in {*base, *own}}

    def initial_state(self, rng: random.Random) -> dict[str, Any]:
        return {"played": []}

    # ----- the collection -------------------------------------------------------------------------------------------
    def items(self, ctx: Ctx) -> list[dict[str, Any]]:
        return live(ctx.media[self.collection])

    def _item(self, ctx: Ctx, iid: Any) -> dict[str, Any] | None:
        items = ctx.media[self.collection]
        if iid is None:
            shown = live(items)
            return shown[0] if shown else None
        return next((i for i in items if i["id"] == iid), None)

    def delete_detail(self, ctx: Ctx, item: dict[str, Any]) -> dict[str, Any]:
        """What the `delete` effect says of an item."""
        return {"item": self.item_kind, "id": item["id"], "name": item["name"], "duration": item.get("duration")}

    def _delete(self, ctx: Ctx, iid: int) -> None:
        item = self._item(ctx, iid)
        if item is None or item["deleted"]:
            return
        detail = self.delete_detail(ctx, item)
        item["deleted"] = True
        ctx.effect("delete", **detail)
        ctx.toast("Deleted '{name}'", name=item["name"])
        if ctx.screen in ("player", "details"):
            ctx.pop()

    def ask_delete(self, ctx: Ctx, iid: int) -> None:
        item = self._item(ctx, iid)
        if item is None:
            return
        ctx.confirm(ctx.t("Delete '{name}'?", name=item["name"]), ctx.t("It will be deleted from this phone."),
                    lambda c: self._delete(c, iid), yes=ctx.t("Delete"))

    def _menu(self, iid: int) -> Callable[[Ctx], None]:
        def handler(ctx: Ctx) -> None:
            item = self._item(ctx, iid)
            if item is None:
                return
            ctx.menu([(ctx.t(self.open_word), lambda c: self.open_item(c, iid)),
                      (ctx.t("Details"), lambda c: c.push("details", id=iid)),
                      (ctx.t("Delete"), lambda c: self.ask_delete(c, iid))], title=item["name"])
        return handler

    open_word: ClassVar[str] = "Play"

    def open_item(self, ctx: Ctx, iid: int) -> None:
        ctx.state["played"].append(iid)
        ctx.push("player", id=iid)

    def row(self, ctx: Ctx, item: dict[str, Any]) -> Widget:
        return ListItem(item["name"], duration_text(item["duration"]), id="item",
                        leading=Icon(self.row_icon, desc=item["name"], size=80, color="primary"),
                        trailing=Icon("more", desc="More options", size=70, id="item_more",
                                      on_click=self._menu(item["id"])),
                        on_click=lambda c, iid=item["id"]: self.open_item(c, iid), on_long_press=self._menu(item["id"]))

    def sort_bar(self, ctx: Ctx, screen: str, chosen: str, **params: Any) -> Widget:
        """The sort chips of `screen`, `chosen` (a key of `sorts`, or none of them) selected."""
        keys = [key for key, _ in self.sorts]
        return sort_chips([(label, ctx.t(label)) for _, label in self.sorts], keys,
                          keys.index(chosen) if chosen in keys else -1,
                          lambda c, i: c.replace(screen, sort=keys[i], **params))

    # ----- set-up hooks ---------------------------------------------------------------------------------------------
    def setup_item(self, ctx: Ctx, name: str, duration: int) -> None:
        """Make sure the library holds an item called `name` lasting `duration` seconds (added once)."""
        items = ctx.media[self.collection]
        if any(i["name"] == name and not i["deleted"] for i in items):
            return
        items.append({"id": max((i["id"] for i in items), default=0) + 1, "name": name, "duration": int(duration),
                      "deleted": False})

    def setup_extreme(self, ctx: Ctx, name: str, extreme: str = "shortest") -> int:
        """Add an item called `name` that is clearly the shortest (or, with `extreme` 'longest' / '最长', the longest)
        of the library; returns its duration in seconds. Calling it again changes nothing."""
        items = live(ctx.media[self.collection])
        existing = next((i for i in items if i["name"] == name), None)
        if existing is not None:
            return int(existing["duration"])
        others = [i["duration"] for i in items]
        word = str(extreme).strip().lower()
        if word in LONGEST:
            duration = max(others, default=60) + 97
        elif word in SHORTEST:
            duration = max(1, min(others, default=10) - 3)
        else:
            raise ValueError(f"extreme must be shortest or longest, got {extreme!r}")
        self.setup_item(ctx, name, duration)
        return duration

    # ----- screens --------------------------------------------------------------------------------------------------
    def screen_home(self, ctx: Ctx) -> Widget:
        order = ctx.params.get("sort", self.sorts[0][0])
        items = sort_items(self.items(ctx), order)
        rows = [self.row(ctx, i) for i in items] or [Text("Nothing here", pad=60, align="center", color=GREY)]
        return Column(AppBar(self.title, back=False), self.sort_bar(ctx, "home", order),
                      Text(ctx.t("{n} items", n=len(items)), size="small", color=GREY, pad=24, id="item_count"),
                      Divider(), Scroll(*rows, id="items"))

    def screen_player(self, ctx: Ctx) -> Widget:
        item = self._item(ctx, ctx.params.get("id"))
        if item is None or item["deleted"]:
            return Column(AppBar("Now playing"), Text("This item no longer exists", pad=60, color=GREY))
        iid = item["id"]
        return Column(
            AppBar("Now playing", actions=[
                Icon("more", desc="Details", size=80, id="details", on_click=lambda c: c.push("details", id=iid)),
                Icon("trash", desc="Delete", size=80, id="delete", on_click=lambda c: self.ask_delete(c, iid))]),
            Column(Icon(self.row_icon, desc=item["name"], size=400, bg="primary"),
                   Text(item["name"], size="big", bold=True, align="center", id="playing_name"),
                   Text(duration_text(item["duration"]), align="center", color=GREY, id="playing_duration"),
                   Text(ctx.t("Playing '{name}'", name=item["name"]), size="small", align="center", color=GREY),
                   pad=60, gap=28, align="center", flex=True))

    def screen_details(self, ctx: Ctx) -> Widget:
        item = self._item(ctx, ctx.params.get("id"))
        if item is None:
            return Column(AppBar("Details"), Text("This item no longer exists", pad=60, color=GREY))
        iid = item["id"]
        return Column(AppBar("Details"), Scroll(*self.detail_rows(ctx, item), Column(
            Button("Delete", style="danger", icon="trash", id="delete_item",
                   on_click=lambda c: self.ask_delete(c, iid)),
            pad=36), id="details_list"))

    def detail_rows(self, ctx: Ctx, item: dict[str, Any]) -> list[Widget]:
        return [ListItem("File name", item["name"], id="detail_name"),
                ListItem("Duration", duration_text(item["duration"]), id="detail_duration")]


@register
class MusicPlayer(LibraryApp):
    name = "Music Player"
    key = "music_player"
    names = {"zh": "音乐"}
    package = "com.huawei.music"
    aliases = ("music", "音乐播放器", "music library", "音乐库")
    color = "#e53935"
    icon = "note"
    collection = "audio"
    item_kind = "audio"
    title = "Music library"
    strings = {"zh": {"Music library": "音乐库"}}


@register
class VideoPlayer(LibraryApp):
    name = "Video Player"
    key = "video_player"
    names = {"zh": "视频播放器"}
    package = "com.huawei.himovie"
    aliases = ("videos", "video library", "视频库", "本地视频")
    color = "#3949ab"
    icon = "display"
    collection = "videos"
    item_kind = "video"
    row_icon = "display"
    title = "Video library"
    strings = {"zh": {"Video library": "视频库"}}


# ----- the file manager -----------------------------------------------------------------------------------------------
_TYPE_WORDS = {"pdf": "PDF", "docx": "Word", "xlsx": "Excel", "pptx": "PowerPoint", "apk": "APK", "jpg": "JPG",
               "txt": "TXT"}


@register
class FileManager(LibraryApp):
    """Files by folder: the folders of shared storage (home), a folder's files sorted by name, date, size or type, a
    file's details, and delete with a confirmation."""

    name = "File Manager"
    key = "file_manager"
    names = {"zh": "文件管理"}
    package = "com.huawei.hidisk"
    aliases = ("files", "file explorer", "文件", "文件管理器")
    color = "#f9a825"
    icon = "list"
    collection = "files"
    item_kind = "file"
    row_icon = "note"
    title = "Files"
    open_word = "Open"
    sorts = (("name", "Name"), ("date", "Date"), ("size", "Size"), ("type", "Type"))
    strings = {"zh": {"Files": "文件", "Browse": "浏览", "Folders": "文件夹", "Recent files": "最近文件",
                      "Internal storage": "内部存储", "Open": "打开", "Opened '{name}'": "已打开“{name}”",
                      "Preview": "预览", "{type} document": "{type} 文档", "{n} files": "{n} 个文件"}}

    def delete_detail(self, ctx: Ctx, item: dict[str, Any]) -> dict[str, Any]:
        listing = folder_listing(ctx.media, item["folder"])
        same_type = [f for f in listing if f["type"] == item["type"]]
        return {"item": "file", "id": item["id"], "name": item["name"], "folder": item["folder"], "type": item["type"],
                "size_kb": item["size_kb"], "position": listing.index(item) + 1,
                "type_position": same_type.index(item) + 1}

    def row(self, ctx: Ctx, item: dict[str, Any]) -> Widget:
        sub = f"{size_text(item['size_kb'])}  \u00b7  {_TYPE_WORDS.get(item['type'], item['type'].upper())}"
        return ListItem(item["name"], sub, id="item",
                        leading=Icon("note", desc=item["type"].upper(), size=80, color="primary"),
                        trailing=Icon("more", desc="More options", size=70, id="item_more",
                                      on_click=self._menu(item["id"])),
                        on_click=lambda c, iid=item["id"]: self.open_item(c, iid), on_long_press=self._menu(item["id"]))

    def folder(self, ctx: Ctx, text: str) -> str:
        """The folder `text` names, whatever its case ('documents' is Documents), else `text` itself."""
        return next((f for f in self.folders(ctx) if f.lower() == text.strip().lower()), text.strip())

    def folders(self, ctx: Ctx) -> list[str]:
        present = [f["folder"] for f in live(ctx.media["files"])]
        names = list(folder_names(ctx.locale))
        return names + [f for f in dict.fromkeys(present) if f not in names]

    # ----- set-up hooks ---------------------------------------------------------------------------------------------
    def setup_files(self, ctx: Ctx, folder: str, kind: str = "pdf", count: int = 2) -> list[str]:
        """Make sure `folder` (any case) holds at least `count` files of type `kind` (pdf, docx, xlsx ...); returns
        their names in the folder's order. New files get names of their own (stable for the folder and type)."""
        store = ctx.media
        kind, folder = kind.lower(), self.folder(ctx, folder)
        have = [f for f in folder_listing(store, folder) if f["type"] == kind]
        words = ("Notes", "Scan", "Receipt", "Report", "Form", "Ticket") if ctx.locale != "zh" else (
            "笔记", "扫描件", "收据", "报告", "表格", "票据")
        i = 0
        while len(have) < int(count):
            stem = words[i % len(words)] + (f" {i // len(words) + 2}" if i >= len(words) else "")
            name = f"{stem}.{kind}"
            i += 1
            if any(f["name"] == name for f in store["files"]):
                continue
            size = 50 + int(hashlib.sha1(name.encode("utf-8")).hexdigest()[:4], 16) % 4000
            have.append(add_file(store, name, folder, kind, size))
        return [f["name"] for f in folder_listing(store, folder) if f["type"] == kind]

    # ----- screens --------------------------------------------------------------------------------------------------
    def screen_home(self, ctx: Ctx) -> Widget:
        files = live(ctx.media["files"])
        rows = [ListItem(folder, ctx.t("{n} files", n=sum(f["folder"] == folder for f in files)), id="folder",
                         leading=Icon("list", desc=folder, size=80, color="primary"),
                         on_click=lambda c, folder=folder: c.push("folder", folder=folder))
                for folder in self.folders(ctx)]
        recent = sort_items(files, "date")[:3]
        return Column(AppBar("Files", back=False),
                      Scroll(Text("Internal storage", size="small", color=GREY, pad=28), *rows,
                             Divider(), Text("Recent files", size="small", color=GREY, pad=28),
                             *[self.row(ctx, f) for f in recent], id="folders"))

    def screen_folder(self, ctx: Ctx) -> Widget:
        folder = ctx.params.get("folder") or self.folders(ctx)[0]
        order = ctx.params.get("sort", "name")
        files = sort_items([f for f in live(ctx.media["files"]) if f["folder"] == folder], order)
        rows = [self.row(ctx, f) for f in files] or [Text("Nothing here", pad=60, align="center", color=GREY)]
        return Column(AppBar(folder), self.sort_bar(ctx, "folder", order, folder=folder),
                      Text(ctx.t("{n} files", n=len(files)), size="small", color=GREY, pad=24, id="item_count"),
                      Divider(), Scroll(*rows, id="items"))

    def screen_player(self, ctx: Ctx) -> Widget:
        item = self._item(ctx, ctx.params.get("id"))
        if item is None or item["deleted"]:
            return Column(AppBar("Preview"), Text("This item no longer exists", pad=60, color=GREY))
        iid = item["id"]
        kind = _TYPE_WORDS.get(item["type"], item["type"].upper())
        return Column(
            AppBar(item["name"], actions=[
                Icon("more", desc="Details", size=80, id="details", on_click=lambda c: c.push("details", id=iid)),
                Icon("trash", desc="Delete", size=80, id="delete", on_click=lambda c: self.ask_delete(c, iid))]),
            Column(Card(Text(ctx.t("{type} document", type=kind), size="small", color=GREY),
                        Text(item["name"], size="title", bold=True, id="preview_name"),
                        Text(size_text(item["size_kb"]), size="small", color=GREY), pad=48, gap=16),
                   pad=36, flex=True))

    def detail_rows(self, ctx: Ctx, item: dict[str, Any]) -> list[Widget]:
        return [ListItem("File name", item["name"], id="detail_name"),
                ListItem("Location", item["folder"], id="detail_folder"),
                ListItem("Type", _TYPE_WORDS.get(item["type"], item["type"].upper()), id="detail_type"),
                ListItem("Size", size_text(item["size_kb"]), id="detail_size")]


__all__ = ["LibraryApp", "MusicPlayer", "VideoPlayer", "FileManager", "sort_items", "folder_listing", "duration_text"]
