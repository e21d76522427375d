"""The phone's shared media and files, as Android keeps them for every app (MediaStore and shared storage): photos in
albums, videos, audio and documents in folders. The gallery, the players and the file manager show it; any app's
picker (a chat's photo button, a profile picture) reads it; task set-up and the judge reach it as the state path root
`media` (`media.photos[album=Travel]`).

    store = phone.media                     # the live dict: {"photos": [...], "videos": [...], "audio": [...], "files": [...]}
    add_photo(store, "IMG_0007.jpg", album="Travel", favorite=True)

Every item has an integer `id` (unique within its list), a `name` and a `deleted` flag; deleting an item marks it and
moves it to the recycle bin (`deleted: true`), as phones do, so a judge can tell what went.
"""

from __future__ import annotations

import random
from typing import Any

MEDIA_KEY = "_media"  # where the store lives among the phone's app states

_ALBUMS = {"en": ("Camera", "Screenshots", "Travel", "Family", "Food"),
           "zh": ("相机", "截屏", "旅行", "家人", "美食")}
_SUBJECTS = {"en": ("beach", "mountain", "street", "cat", "dinner", "sunset", "friends", "park", "city", "flowers"),
             "zh": ("海边", "山景", "街道", "猫咪", "晚餐", "日落", "朋友", "公园", "城市", "花")}
_VIDEOS = {"en": ("Birthday party", "Concert clip", "Hiking trip", "Cooking tutorial", "Puppy playing", "Snowfall"),
           "zh": ("生日聚会", "演唱会片段", "徒步旅行", "烹饪教程", "小狗玩耍", "下雪了")}
_AUDIO = {"en": ("Voice memo", "Morning song", "Piano practice", "Meeting recording", "Ringtone demo", "Podcast intro"),
          "zh": ("语音备忘", "晨曲", "钢琴练习", "会议录音", "铃声试听", "播客开场")}
_DOCS = {"en": ("Annual report", "Lease agreement", "Travel itinerary", "Invoice", "User manual", "Course syllabus"),
         "zh": ("年度报告", "租赁合同", "旅行行程", "发票", "用户手册", "课程大纲")}
_FOLDERS = {"en": ("Documents", "Download", "Pictures"), "zh": ("文档", "下载", "图片")}


def album_names(locale: str) -> tuple[str, ...]:
    """The albums a phone in `locale` starts with: camera, screenshots, travel, family, food."""
    return _ALBUMS.get(locale, _ALBUMS["en"])


def folder_names(locale: str) -> tuple[str, ...]:
    """The shared-storage folders: documents, downloads, pictures."""
    return _FOLDERS.get(locale, _FOLDERS["en"])


def initial_media(rng: random.Random, locale: str = "en") -> dict[str, Any]:
    """A seeded store: about a dozen photos over five albums (one marked favourite, some screenshots), six videos and
    six audio files of different lengths, and PDFs and other documents in the documents folder."""
    albums = album_names(locale)
    subjects = _SUBJECTS.get(locale, _SUBJECTS["en"])
    photos: list[dict[str, Any]] = []
    counts = {albums[0]: rng.randint(4, 6), albums[1]: rng.randint(2, 4), albums[2]: rng.randint(2, 4),
              albums[3]: rng.randint(1, 3), albums[4]: rng.randint(1, 2)}
    day = 100
    for album, n in counts.items():
        for _ in range(n):
            day += rng.randint(1, 9)
            shot = album == albums[1]
            name = f"Screenshot_2025{day:04d}.png" if shot else f"IMG_2025{day:04d}_{rng.randint(100000, 235959)}.jpg"
            photos.append({"name": name, "album": album, "subject": rng.choice(subjects), "favorite": False,
                           "screenshot": shot, "day": day, "color": rng.randrange(12), "deleted": False})
    photos.sort(key=lambda p: -p["day"])  # newest first, as galleries show them
    favorite = rng.choice([p for p in photos if not p["screenshot"]])
    favorite["favorite"] = True
    for i, p in enumerate(photos, 1):
        p["id"] = i
    videos = [{"id": i, "name": name, "duration": d, "deleted": False}
              for i, (name, d) in enumerate(zip(_VIDEOS.get(locale, _VIDEOS["en"]), rng.sample(range(8, 600), 6)), 1)]
    audio = [{"id": i, "name": name, "duration": d, "deleted": False}
             for i, (name, d) in enumerate(zip(_AUDIO.get(locale, _AUDIO["en"]), rng.sample(range(5, 400), 6)), 1)]
    docs = _DOCS.get(locale, _DOCS["en"])
    folders = folder_names(locale)
    files: list[dict[str, Any]] = []
    for name in docs:
        kind = rng.choice(("pdf", "pdf", "docx", "xlsx"))
        files.append({"name": f"{name}.{kind}", "folder": folders[0], "type": kind, "size_kb": rng.randint(40, 9000),
                      "day": rng.randint(100, 400), "deleted": False})
    files.append({"name": "setup.apk", "folder": folders[1], "type": "apk", "size_kb": rng.randint(9000, 90000),
                  "day": rng.randint(100, 400), "deleted": False})
    if not any(f["type"] == "pdf" for f in files):
        files[0]["type"], files[0]["name"] = "pdf", f"{docs[0]}.pdf"
    for i, f in enumerate(files, 1):
        f["id"] = i
    return {"photos": photos, "videos": videos, "audio": audio, "files": files}


def _next_id(items: list[dict[str, Any]]) -> int:
    return max((int(i["id"]) for i in items), default=0) + 1


def add_photo(store: dict[str, Any], name: str, album: str, favorite: bool = False, screenshot: bool = False,
              subject: str = "", color: int = 0) -> dict[str, Any]:
    """Put a new photo at the top of the store (the newest) and return it."""
    photos = store["photos"]
    day = max((p["day"] for p in photos), default=100) + 1
    photo = {"id": _next_id(photos), "name": name, "album": album, "subject": subject, "favorite": favorite,
             "screenshot": screenshot, "day": day, "color": color, "deleted": False}
    photos.insert(0, photo)
    return photo


def add_file(store: dict[str, Any], name: str, folder: str, kind: str, size_kb: int = 100) -> dict[str, Any]:
    files = store["files"]
    item = {"id": _next_id(files), "name": name, "folder": folder, "type": kind, "size_kb": size_kb,
            "day": max((f["day"] for f in files), default=100) + 1, "deleted": False}
    files.append(item)
    return item


def live(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The items not deleted, in the store's order."""
    return [i for i in items if not i.get("deleted")]


__all__ = ["MEDIA_KEY", "initial_media", "add_photo", "add_file", "live", "album_names", "folder_names"]
