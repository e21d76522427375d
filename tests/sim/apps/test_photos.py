"""Gallery and Mirror on the shared media store, driven by actions alone: the timeline and its n-th photo, albums with
Favorites and Recently deleted kept as the store keeps them, deleting one photo or a whole album's after a
confirmation, and Mirror's camera permission and snapshot saved to the gallery."""

from __future__ import annotations

import pytest

from mobile_r1.env.sim import SimEnv
from mobile_r1.sim import testing as T
from mobile_r1.sim.apps import Ctx
from mobile_r1.sim.apps.photos import albums, photo_date, timeline
from mobile_r1.sim.media import album_names


def _gallery(locale: str = "en", seed: int = 0) -> SimEnv:
    return T.start(["android_gallery", "mirror"], "android_gallery", locale=locale, seed=seed, ad_rate=0.0)


@pytest.mark.parametrize("locale", ["en", "zh"])
def test_albums_and_the_favourite_are_the_media_stores(locale: str) -> None:
    env = _gallery(locale, seed=4)
    store = env.phone.media
    T.tap(env, id="bottom_nav_1")
    shown = [e.text for e in T.find_all(env, id="album_name")]
    names = album_names(locale)
    assert shown[:len(albums(store, locale))] == albums(store, locale)
    assert names[1] in shown and names[2] in shown  # Screenshots / 截屏 and Travel / 旅行
    favorite = next(p for p in store["photos"] if p["favorite"])
    T.tap(env, text="Favorites" if locale == "en" else "我的收藏")
    assert env.phone.activity() == "android_gallery/album"
    cells = T.find_all(env, id="photo")
    assert len(cells) == 1 and cells[0].content_desc.startswith(favorite["subject"])
    T.back(env)
    T.tap(env, text=names[2])
    travel = [p for p in timeline(store) if p["album"] == names[2]]
    assert len(T.find_all(env, id="photo")) == len(travel)


def test_the_third_photo_is_deleted_after_a_confirmation_and_moves_to_recently_deleted() -> None:
    env = _gallery()
    store = env.phone.media
    third = timeline(store)[2]
    T.tap(env, id="photo", index=2)
    assert env.phone.top_frame()["params"]["id"] == third["id"]
    assert T.find(env, id="photo_info").text.startswith(photo_date(third["day"], "en"))
    T.tap_id(env, "delete")
    T.tap_text(env, "Cancel")
    assert env.phone.state.effects == [] and not third["deleted"]
    T.tap_id(env, "delete")
    T.tap_text(env, "Delete")
    effect = env.phone.state.effects[-1]
    assert effect.kind == "delete" and effect.detail["positions"] == [3] and effect.detail["ids"] == [third["id"]]
    assert effect.detail["count"] == 1 and third["deleted"] and env.phone.activity() == "android_gallery/home"
    T.tap(env, id="bottom_nav_1")
    T.tap(env, text="Recently deleted")
    assert [e.text for e in T.find_all(env, id="deleted_photo_title")] == [third["name"]]
    T.tap_id(env, "restore")
    assert not third["deleted"]


def test_every_screenshot_and_nothing_else_is_deleted_with_select_all() -> None:
    env = _gallery("zh", seed=2)
    store = env.phone.media
    shots = [p["id"] for p in timeline(store) if p["album"] == "截屏"]
    T.tap(env, id="bottom_nav_1")
    T.tap(env, text="截屏")
    T.tap_id(env, "select")
    assert env.phone.activity() == "android_gallery/select"
    T.tap_id(env, "select_all")
    assert sorted(env.phone.app_state("android_gallery")["selection"]) == sorted(shots)
    T.tap_id(env, "delete_selected")
    T.tap_text(env, "删除")
    effect = env.phone.state.effects[-1]
    assert sorted(effect.detail["ids"]) == sorted(shots) and set(effect.detail["albums"]) == {"截屏"}
    assert all(p["deleted"] == (p["id"] in shots) for p in store["photos"])
    assert env.phone.activity() == "android_gallery/album" and not T.find_all(env, id="photo")


def test_selecting_photos_one_by_one_deletes_just_those() -> None:
    env = _gallery()
    line = timeline(env.phone.media)
    T.tap_id(env, "select")
    T.tap(env, id="photo", index=0)
    T.tap(env, id="photo", index=3)
    T.tap(env, id="photo", index=0)  # a second tap leaves it out again
    T.tap_id(env, "delete_selected")
    T.tap_text(env, "Delete")
    assert env.phone.state.effects[-1].detail["positions"] == [4]
    assert [p["id"] for p in env.phone.media["photos"] if p["deleted"]] == [line[3]["id"]]


def test_set_up_makes_one_favourite_and_fills_an_album() -> None:
    env = _gallery()
    app, ctx = env.phone.apps["android_gallery"], Ctx(env.phone, "android_gallery")
    name = timeline(env.phone.media)[5]["name"]
    assert app.setup_favorite(ctx, name=name) == name
    assert [p["name"] for p in env.phone.media["photos"] if p["favorite"]] == [name]
    made = app.setup_album(ctx, album="Screenshots", count=6, screenshot=True)
    assert len(made) == 6 and app.setup_album(ctx, album="Screenshots", count=6, screenshot=True) == made


def test_mirror_asks_for_the_camera_then_saves_its_snapshot_to_the_gallery() -> None:
    env = T.start(["android_gallery", "mirror"], None, ad_rate=0.0)
    T.open_app(env, "Mirror")
    assert env.phone.state.overlay is not None and env.phone.state.overlay.kind == "permission"
    T.tap_id(env, "permission_deny_button")
    assert T.find_all(env, id="allow_camera") and not T.find_all(env, id="capture")
    T.tap_id(env, "allow_camera")
    T.tap_id(env, "permission_allow_button")
    assert env.phone.state.permissions["mirror"]["camera"] is True
    before = len(timeline(env.phone.media))
    T.tap_id(env, "capture")
    T.tap_id(env, "save_photo")
    effect = env.phone.state.effects[-1]
    assert effect.kind == "capture" and effect.detail["album"] == "Mirror"
    newest = timeline(env.phone.media)[0]
    assert newest["id"] == effect.detail["id"] and len(timeline(env.phone.media)) == before + 1
    T.open_app(env, "Gallery")
    assert T.find_all(env, id="photo")[0].content_desc.startswith("Mirror")
