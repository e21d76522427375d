"""Gallery app: the photos permission, favourites, deletion to Recently deleted, sharing, setting the Chat avatar."""

from __future__ import annotations

import pytest

from mobile_r1.env.sim import SimEnv
from mobile_r1.sim import testing as T
from mobile_r1.sim.apps import load_all
from mobile_r1.sim.tools import render_screen


def _env(randomize: bool = False, seed: int = 0, apps: tuple[str, ...] = ("Gallery", "Chat"),
         allow: bool = True) -> SimEnv:
    env = T.start(apps, "photos", randomize=randomize, seed=seed)
    T.tap_id(env, "permission_allow_button" if allow else "permission_deny_button")
    return env


def _state(env: SimEnv) -> dict:
    return env.phone.app_state("gallery")


def _newest(env: SimEnv, n: int = 0) -> dict:
    """The n-th photo of the grid (newest first), as the home screen orders them."""
    photos = sorted((p for p in _state(env)["photos"] if not p["deleted"]), key=lambda p: (p["date"], p["id"]),
                    reverse=True)
    return photos[n]


def _open_photo(env: SimEnv, photo: dict) -> None:
    T.tap(env, desc=photo["title"])
    assert env.phone.activity() == "gallery/photo"
    assert env.phone.top_frame()["params"]["id"] == photo["id"]


def test_every_screen_renders() -> None:
    app = load_all()["gallery"]
    assert len(app.screens()) >= 4
    for screen in app.screens():
        phone = render_screen("gallery", screen)
        phone.state.permissions["gallery"]["storage"] = True
        phone.touch()
        assert phone.activity() == f"gallery/{screen}"
        assert phone.screenshot(0.2).size == (216, 480)
        assert any(e.text or e.content_desc for e in phone.elements())


def test_first_start_asks_for_the_photos_permission() -> None:
    env = _env(allow=False)
    assert env.phone.state.permissions["gallery"]["storage"] is False
    assert T.find_all(env, id="allow_access") and not T.find_all(env, id="photo")
    T.tap_id(env, "allow_access")
    T.tap_id(env, "permission_allow_button")
    assert env.phone.state.permissions["gallery"]["storage"] is True
    assert len(T.find_all(env, id="photo")) > 4
    assert [e.detail["granted"] for e in env.phone.state.effects] == [False, True]
    T.back(env)
    T.open_app(env, "Gallery")  # a cold start with the permission held asks nothing
    assert env.phone.state.overlay is None


def test_favourite_and_the_favorites_album() -> None:
    env = _env()
    photo = _newest(env, 1)
    was = photo["favorite"]
    _open_photo(env, photo)
    T.tap_id(env, "favorite")
    assert photo["favorite"] is (not was)
    T.back(env)
    T.tap_text(env, "Albums")
    T.tap_text(env, "Favorites")
    shown = {e.content_desc for e in T.find_all(env, id="photo")}
    expected = {p["title"] for p in _state(env)["photos"] if p["favorite"] and not p["deleted"]}
    assert shown == expected and (photo["title"] in shown) is (not was)


@pytest.mark.parametrize("randomize,seed", [(False, 0), (True, 9)])
def test_delete_moves_to_recently_deleted_after_confirmation(randomize: bool, seed: int) -> None:
    env = _env(randomize, seed)
    photo = _newest(env, 0)
    count = len(T.find_all(env, id="photo"))
    _open_photo(env, photo)
    T.tap_id(env, "delete")
    T.tap_id(env, "button1")  # Cancel
    assert not photo["deleted"] and env.phone.state.effects[-1].kind == "permission"
    T.tap_id(env, "delete")
    T.tap_id(env, "button2")  # Delete
    assert photo["deleted"]
    effect = env.phone.state.effects[-1]
    assert effect.kind == "delete" and effect.detail["id"] == photo["id"] and effect.detail["permanent"] is False
    assert env.phone.activity() == "gallery/home" and len(T.find_all(env, id="photo")) == count - 1
    T.tap_text(env, "Albums")
    T.tap_text(env, "Recently deleted")
    assert T.find(env, id="deleted_photo_title").text == photo["title"]
    T.tap_id(env, "restore")
    assert not photo["deleted"] and not T.find_all(env, id="deleted_photo")
    assert T.effect_kinds(env) == ["permission", "delete"]


def test_delete_permanently() -> None:
    env = _env()
    photo = _newest(env, 2)
    _open_photo(env, photo)
    T.tap_id(env, "delete")
    T.tap_id(env, "button2")
    T.tap_text(env, "Albums")
    T.tap_text(env, "Recently deleted")
    T.tap_id(env, "deleted_photo")
    T.tap_id(env, "delete_forever")
    T.tap_id(env, "button2")
    assert photo["id"] not in {p["id"] for p in _state(env)["photos"]} and _state(env)["purged"] == [photo["id"]]
    assert [e.detail.get("permanent") for e in env.phone.state.effects] == [None, False, True]
    assert env.phone.activity() == "gallery/recently_deleted" and not T.find_all(env, id="deleted_photo")


def test_share_asks_before_sending() -> None:
    env = _env()
    photo = _newest(env, 3)
    _open_photo(env, photo)
    T.tap_id(env, "share")
    T.tap_id(env, "share_chat")
    T.back(env)
    assert T.effect_kinds(env) == ["permission"]
    T.tap_id(env, "share_chat")
    T.tap_id(env, "button2")
    assert _state(env)["shared"] == [{"photo": photo["id"], "to": "Chat"}]
    assert env.phone.state.effects[-1].kind == "share" and env.phone.state.effects[-1].detail["to"] == "Chat"


@pytest.mark.parametrize("randomize,seed", [(False, 0), (True, 2)])
def test_set_as_chat_avatar(randomize: bool, seed: int) -> None:
    env = _env(randomize, seed)
    photo = _newest(env, 1)
    _open_photo(env, photo)
    T.tap_id(env, "more")
    T.tap_text(env, "Set as Chat profile photo")
    T.tap_id(env, "button2")
    avatar = env.phone.app_state("chat")["me"]["avatar"]
    assert avatar["photo_id"] == photo["id"] and avatar["color"] == photo["color"]
    effect = env.phone.state.effects[-1]
    assert effect.kind == "profile_change" and effect.detail["target_app"] == "chat"
    assert effect.detail["photo"] == photo["id"]
    T.open_app(env, "Chat")  # the Chat profile shows the new photo
    if T.find_all(env, id="ad_close"):
        T.tap_id(env, "ad_close")
    T.tap_text(env, "Me")
    T.tap_id(env, "profile_card")
    assert T.find_all(env, text=photo["title"])


def test_set_as_avatar_without_chat_changes_nothing() -> None:
    env = _env(apps=("Gallery",))
    _open_photo(env, _newest(env, 0))
    T.tap_id(env, "more")
    T.tap_text(env, "Set as Chat profile photo")
    info = T.tap_id(env, "button2")
    assert info["toast"] == "Chat is not installed" and T.effect_kinds(env) == ["permission"]


def test_details_screen() -> None:
    env = _env()
    photo = _newest(env, 0)
    _open_photo(env, photo)
    T.tap_id(env, "more")
    T.tap_text(env, "Details")
    texts = T.visible_texts(env)
    assert photo["date"] in texts and photo["album"] in texts and f"{photo['size_mb']} MB" in texts


def test_a_pending_confirmation_survives_snapshot_and_restore() -> None:
    env = _env()
    photo = _newest(env, 0)
    _open_photo(env, photo)
    T.tap_id(env, "delete")
    snap = env.snapshot()
    T.tap_id(env, "button2")
    assert photo["deleted"]
    env.restore(snap)
    restored = next(p for p in _state(env)["photos"] if p["id"] == photo["id"])
    assert not restored["deleted"] and T.effect_kinds(env) == ["permission"]
    T.tap_id(env, "button2")  # the dialog's handler acts on the restored state
    assert restored["deleted"] and T.effect_kinds(env) == ["permission", "delete"]


def test_a_purged_photo_screen_says_so() -> None:
    env = _env()
    photo = _newest(env, 0)
    _open_photo(env, photo)
    T.tap_id(env, "delete")
    T.tap_id(env, "button2")
    _state(env)["photos"].remove(next(p for p in _state(env)["photos"] if p["id"] == photo["id"]))
    env.phone.goto("gallery", "photo", id=photo["id"])
    assert "This photo no longer exists" in T.visible_texts(env)
