"""Music Player, Video Player and File Manager on the shared media store, driven by actions alone: sorting by length,
the shortest item deleted after a confirmation, folders of files sorted by name with the n-th PDF, and the set-up
hooks that make a clear shortest item or enough PDFs."""

from __future__ import annotations

import pytest

from mobile_r1.env.sim import SimEnv
from mobile_r1.sim import testing as T
from mobile_r1.sim.apps import Ctx
from mobile_r1.sim.apps.library import folder_listing, sort_items
from mobile_r1.sim.media import folder_names, live


def _env(key: str, locale: str = "en", seed: int = 0) -> SimEnv:
    return T.start([key], key, locale=locale, seed=seed, ad_rate=0.0)


@pytest.mark.parametrize("key, collection, kind", [("music_player", "audio", "audio"),
                                                   ("video_player", "videos", "video")])
def test_the_shortest_item_is_found_by_sorting_and_deleted_after_a_confirmation(key: str, collection: str,
                                                                                kind: str) -> None:
    env = _env(key, "zh", seed=3)
    items = env.phone.media[collection]
    shortest = min(items, key=lambda i: i["duration"])
    T.tap_id(env, "sort_shortest")
    assert T.find_all(env, id="item_title")[0].text == shortest["name"]
    T.tap(env, id="item_more", index=0)
    T.tap_text(env, "删除")
    T.tap_text(env, "取消")
    assert env.phone.state.effects == []
    T.tap(env, id="item", index=0)
    assert env.phone.activity() == f"{key}/player"
    T.tap_id(env, "delete")
    T.tap_text(env, "删除")
    effect = env.phone.state.effects[-1]
    assert (effect.kind, effect.detail["item"], effect.detail["name"]) == ("delete", kind, shortest["name"])
    assert shortest["deleted"] and env.phone.activity() == f"{key}/home"
    assert shortest["name"] not in [e.text for e in T.find_all(env, id="item_title")]


def test_longest_first_and_by_name() -> None:
    env = _env("video_player")
    videos = live(env.phone.media["videos"])
    T.tap_id(env, "sort_longest")
    assert [e.text for e in T.find_all(env, id="item_title")] == [v["name"] for v in sort_items(videos, "longest")]
    T.tap_id(env, "sort_name")
    assert [e.text for e in T.find_all(env, id="item_title")] == sorted(v["name"] for v in videos)


def test_set_up_adds_a_clear_shortest_or_longest_item() -> None:
    env = _env("music_player")
    app, ctx = env.phone.apps["music_player"], Ctx(env.phone, "music_player")
    short = app.setup_extreme(ctx, name="Doorbell", extreme="最短")
    assert short < min(i["duration"] for i in env.phone.media["audio"] if i["name"] != "Doorbell")
    assert app.setup_extreme(ctx, name="Doorbell", extreme="shortest") == short
    long = app.setup_extreme(ctx, name="Live concert", extreme="longest")
    assert long == max(i["duration"] for i in env.phone.media["audio"])
    with pytest.raises(ValueError):
        app.setup_extreme(ctx, name="X", extreme="loudest")


@pytest.mark.parametrize("locale", ["en", "zh"])
def test_the_first_pdf_of_the_documents_folder_is_deleted_with_its_place_recorded(locale: str) -> None:
    env = _env("file_manager", locale, seed=5)
    docs = folder_names(locale)[0]
    app, ctx = env.phone.apps["file_manager"], Ctx(env.phone, "file_manager")
    pdfs = app.setup_files(ctx, folder=docs.lower(), kind="PDF", count=3)  # any case names the folder and type
    assert len(pdfs) >= 3 and app.setup_files(ctx, folder=docs, kind="pdf", count=3) == pdfs
    env.phone.touch()
    T.tap(env, text=docs)
    assert env.phone.activity() == "file_manager/folder"
    listing = folder_listing(env.phone.media, docs)
    assert [e.text for e in T.find_all(env, id="item_title")] == [f["name"] for f in listing]
    first = next(f for f in listing if f["type"] == "pdf")
    T.tap(env, text=first["name"])
    T.tap_id(env, "delete")
    T.tap_text(env, "Delete" if locale == "en" else "删除")
    d = env.phone.state.effects[-1].detail
    assert (d["item"], d["name"], d["folder"], d["type"], d["type_position"]) == ("file", first["name"], docs, "pdf", 1)
    assert d["position"] == listing.index(first) + 1 and first["deleted"]
    assert env.phone.activity() == "file_manager/folder"


def test_files_sort_by_size_and_open_details_from_a_long_press() -> None:
    env = _env("file_manager")
    docs = folder_names("en")[0]
    T.tap(env, text=docs)
    T.tap_id(env, "sort_size")
    files = [f for f in live(env.phone.media["files"]) if f["folder"] == docs]
    biggest = max(files, key=lambda f: f["size_kb"])
    assert T.find_all(env, id="item_title")[0].text == biggest["name"]
    T.long_press(env, text=biggest["name"])
    T.tap_text(env, "Details")
    assert env.phone.activity() == "file_manager/details" and T.find(env, id="detail_folder_title").text == "Location"
