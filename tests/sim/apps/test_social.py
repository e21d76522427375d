"""Social app: browsing logged out, the login wall on interactions, likes, comments, follows and publishing posts."""

from __future__ import annotations

import pytest

from mobile_r1.env.sim import SimEnv
from mobile_r1.sim import testing as T
from mobile_r1.sim.apps import load_all
from mobile_r1.sim.tools import render_screen


def _env(randomize: bool = False, seed: int = 0, apps: tuple[str, ...] = ("Social", "Gallery")) -> SimEnv:
    return T.start(apps, "weibo", randomize=randomize, seed=seed)


def _state(env: SimEnv) -> dict:
    return env.phone.app_state("social")


def _login(env: SimEnv, account: str = "amy@mail.com") -> None:
    assert env.phone.activity() == "social/login"
    T.type_into(env, "username", account)
    T.type_into(env, "password", "pw")
    T.tap_id(env, "login")


def test_every_screen_renders() -> None:
    app = load_all()["social"]
    assert len(app.screens()) >= 4
    for screen in app.screens():
        phone = render_screen("social", screen)
        assert phone.activity() == f"social/{screen}"
        assert phone.screenshot(0.2).size == (216, 480)
        assert any(e.text for e in phone.elements())


def test_browse_logged_out_and_like_after_logging_in() -> None:
    env = _env()
    s = _state(env)
    first = s["posts"][0]
    assert not s["logged_in"] and env.phone.activity() == "social/home"
    assert T.find(env, id="post_text").text == first["text"]
    T.tap_id(env, "post")
    assert env.phone.activity() == "social/post" and env.phone.top_frame()["params"]["id"] == first["id"]
    likes = first["likes"]
    T.tap_id(env, "like")  # the login wall
    assert first["likes"] == likes and env.phone.state.effects == []
    _login(env)
    assert env.phone.activity() == "social/post" and T.effect_kinds(env) == ["login"]
    assert s["me"]["handle"] == "amy"
    T.tap_id(env, "like")
    assert first["liked"] and first["likes"] == likes + 1
    T.tap_id(env, "like")
    assert not first["liked"] and first["likes"] == likes


def test_comment_and_follow() -> None:
    env = _env()
    s = _state(env)
    post = s["posts"][1]
    T.tap_id(env, "post", index=1)
    T.tap_id(env, "follow")
    _login(env)
    author = next(u for u in s["users"] if u["id"] == post["author"])
    followers = author["followers"]
    was_following = author["id"] in s["me"]["following"]
    T.tap_id(env, "follow")
    assert (author["id"] in s["me"]["following"]) is (not was_following)
    assert author["followers"] == followers + (-1 if was_following else 1)
    T.type_into(env, "comment", "Nice one")
    T.tap_id(env, "send_comment")
    assert post["comments"][-1] == {"author": "amy", "text": "Nice one"}
    effect = env.phone.state.effects[-1]
    assert effect.kind == "comment" and effect.detail["post"] == post["id"] and effect.detail["text"] == "Nice one"
    T.tap_id(env, "post_author")
    assert env.phone.activity() == "social/user" and T.find(env, id="user_handle").text == author["handle"]


@pytest.mark.parametrize("randomize,seed", [(False, 0), (True, 13)])
def test_compose_with_a_gallery_photo_and_publish(randomize: bool, seed: int) -> None:
    env = _env(randomize, seed)
    s = _state(env)
    T.tap_text(env, "Post")
    _login(env)
    assert env.phone.activity() == "social/compose"
    T.type_into(env, "post_text", "My first post")
    T.tap_id(env, "add_photo")
    T.tap_id(env, "permission_allow_button")
    assert env.phone.activity() == "social/pick_photo"
    photo = [p for p in env.phone.app_state("gallery")["photos"] if not p["deleted"]][1]
    T.tap(env, desc=photo["title"])
    assert env.phone.activity() == "social/compose"
    assert T.find_all(env, desc=f"Attached photo: {photo['title']}")
    T.tap_id(env, "publish")
    T.tap_id(env, "button1")  # Cancel
    assert T.effect_kinds(env) == ["login", "permission"] and all(p["author"] != "me" for p in s["posts"])
    T.tap_id(env, "publish")
    T.tap_id(env, "button2")  # Publish
    effect = env.phone.state.effects[-1]
    assert effect.kind == "post" and effect.detail["text"] == "My first post" and effect.detail["photo"] == photo["id"]
    mine = [p for p in s["posts"] if p["author"] == "me"]
    assert len(mine) == 1 and mine[0]["photo"]["id"] == photo["id"]
    assert env.phone.activity() == "social/profile"
    assert T.find(env, id="posts_count").text == "1 posts" and "My first post" in T.visible_texts(env)


def test_publish_text_only_and_empty_post_refused() -> None:
    env = _env(apps=("Social",))
    T.tap_text(env, "Post")
    _login(env)
    info = T.tap_id(env, "publish")
    assert info["toast"] == "Write something first" and env.phone.state.overlay is None
    T.type_into(env, "post_text", "Just text")
    T.tap_id(env, "publish")
    T.tap_id(env, "button2")
    assert env.phone.state.effects[-1].detail["photo"] is None


def test_profile_followers_and_search() -> None:
    env = _env()
    s = _state(env)
    T.tap_text(env, "Me")
    _login(env)
    assert env.phone.activity() == "social/profile"
    T.tap_id(env, "followers_count")
    assert [e.text for e in T.find_all(env, id="follower_title")] == s["me"]["followers"]
    T.back(env)
    T.tap_text(env, "Home")
    T.tap_id(env, "search")
    handle = s["users"][3]["handle"]
    T.type_into(env, "query", handle[:5])
    T.tap_text(env, handle)
    assert env.phone.activity() == "social/user" and T.find(env, id="user_handle").text == handle


def test_following_tab_shows_only_followed_authors() -> None:
    env = _env()
    s = _state(env)
    T.tap_text(env, "Following")
    assert not T.find_all(env, id="post")  # logged out: asks to log in
    s["logged_in"] = True
    env.phone.touch()
    shown = [e.text for e in T.find_all(env, id="post_author")]
    handles = {u["handle"] for u in s["users"] if u["id"] in s["me"]["following"]}
    assert shown and set(shown) <= handles
