"""The phone's own apps (Phone, Contacts, Settings, Gallery, Clock, File Manager, the players, Mirror, Smart Remote,
Game Center and the games): each opens from its launcher icon, by its names and by its package in both languages; every
screen is Chinese on a Chinese phone, draws without missing glyphs and leaves the state as it was; the apps that share
a classic app's name are told apart by their keys."""

from __future__ import annotations

from typing import Any, Callable

import pytest

from mobile_r1.core import Action
from mobile_r1.env.sim import SimEnv
from mobile_r1.env.sim.episode import phone_apps
from mobile_r1.sim import testing as T
from mobile_r1.sim.apps import Ctx, load_all, resolve
from mobile_r1.sim.system import Phone
from mobile_r1.tasks.spec import TaskSpec
from tests.sim.apps.app_checks import untranslated

MINE = ["phone", "android_contacts", "android_settings", "android_gallery", "clock", "file_manager", "music_player",
        "video_player", "mirror", "smart_remote", "game_center", "honor_of_kings", "genshin_impact", "anipop"]
PACKAGES = {"phone": "com.android.dialer", "android_contacts": "com.android.contacts",
            "android_settings": "com.android.settings", "android_gallery": "com.android.gallery3d",
            "clock": "com.android.deskclock", "file_manager": "com.huawei.hidisk", "music_player": "com.huawei.music",
            "video_player": "com.huawei.himovie", "mirror": "com.huawei.mirror",
            "smart_remote": "com.huawei.android.remotecontroller", "game_center": "com.huawei.gamebox",
            "honor_of_kings": "com.tencent.tmgp.sgame", "genshin_impact": "com.miHoYo.Yuanshen",
            "anipop": "com.happyelements.AndroidAnimal"}


def _dismiss(env: SimEnv) -> None:
    """Answer a start-up permission prompt (the clock's, the mirror's) so the app's home shows."""
    overlay = env.phone.state.overlay
    if overlay is not None and overlay.kind == "permission":
        T.tap_id(env, "permission_allow_button")


@pytest.mark.parametrize("locale", ["en", "zh"])
@pytest.mark.parametrize("key", MINE)
def test_each_app_opens_from_its_launcher_icon_by_name_and_by_package(key: str, locale: str) -> None:
    cls = load_all()[key]
    assert cls.package == PACKAGES[key]
    env = SimEnv(apps=MINE, randomize=False, render=False, locale=locale, ad_rate=0.0)
    env.reset()
    label = cls.label(locale)
    for _ in range(3):
        if T.find_all(env, id=f"app_{key}"):
            break
        env.step(Action.swipe(900, 1400, 100, 1400))  # the next launcher page
    assert T.find(env, id=f"app_{key}").text == label
    T.tap(env, id=f"app_{key}")
    _dismiss(env)
    assert env.phone.activity() == f"{key}/home"
    for name in (label, cls.name, cls.package, key, *cls.aliases[:1]):
        env.step(Action.system_button("Home"))
        env.phone.state.stacks[key] = []  # a cold start each time
        assert env.phone.open(name) is None, name
        _dismiss(env)
        assert env.phone.activity() == f"{key}/home", name


def test_system_apps_sharing_a_classic_apps_name_are_told_apart_by_key() -> None:
    assert resolve("Settings") == resolve("settings") == "settings"
    assert resolve("android_settings") == "android_settings"
    assert resolve("Contacts") == "contacts" and resolve("Gallery") == "gallery"
    phone = Phone(apps=phone_apps(TaskSpec.model_validate({
        "id": "t", "apps": ["Settings"], "category": "control", "subcategory": "control", "phone": "inquirebench",
        "templates": {"train": ["a"], "test": ["b"]}, "goal": [{"screen": "android_settings/home"}]})), ad_rate=0.0)
    assert set(MINE) <= set(phone.apps) and not {"settings", "contacts", "gallery"} & set(phone.apps)
    for name, key in (("Settings", "android_settings"), ("Contacts", "android_contacts"),
                      ("Gallery", "android_gallery"), ("设置", "android_settings"), ("通讯录", "android_contacts"),
                      ("相册", "android_gallery")):
        assert resolve(name, phone.installed()) == key
        assert phone.open(name) is None and phone.foreground == key


# ----- every screen in Chinese ---------------------------------------------------------------------------------------
# data: file names and types, units, brands, e-mail addresses, package names (the status bar's words are allowed anyway)
DATA = {"MB", "GB", "KB", "PDF", "pdf", "Word", "Excel", "XLSX", "xlsx", "docx", "DOCX", "apk", "APK",
        "IMG", "jpg", "png", "Screenshot", "SIM", "TCL", "MOBA", "com", "mail", "example", "android", "huawei",
        "tencent",
        "tmgp", "sgame", "miHoYo", "Yuanshen", "happyelements", "AndroidAnimal", "dialer", "contacts", "settings",
        "gallery", "deskclock", "hidisk", "music", "himovie", "mirror", "remotecontroller", "gamebox", "Mate", "Mirror",
        "setup", "sam", "alex", "lin", "jo"}


def _states(phone: Phone) -> dict[str, list[dict[str, Any]]]:
    """Params to draw each screen with besides none, after giving the apps something to show."""
    ctx = lambda key: Ctx(phone, key)  # noqa: E731
    phone.apps["android_contacts"].setup_contact(ctx("android_contacts"), name="王芳", copies=2)
    dial = phone.app_state("phone")
    dial["active_call"] = {"number": "13000001111", "contact": None, "name": None, "started_at": 0.0, "muted": False,
                           "speaker": False}
    clock = phone.app_state("clock")
    clock["timer"] = {"hours": 0, "minutes": 4, "seconds": 0, "duration": 240, "total_minutes": 4.0, "started_at": 0.0,
                      "running": True, "left": 240}
    phone.app_state("android_settings")["selection"] = ["mirror"]
    phone.app_state("android_gallery")["selection"] = [1]
    phone.app_state("game_center")["history"] = ["赛车"]
    phone.media["photos"][2]["deleted"] = True
    phone.touch()
    docs = phone.media["files"][0]["folder"]
    return {
        "search": [{"query": "王芳"}, {"query": "赛车"}, {"query": "无此人"}],
        "edit": [{"account": "SIM", "phone": "13000001111"}, {"id": 1}],
        "save_location": [{"phone": "13000001111"}], "contact": [{"id": 1}],
        "album": [{"album": "截屏"}, {"album": "Favorites"}], "select": [{"album": "旅行"}],
        "photo": [{"id": 3}, {"id": 4}], "details": [{"id": 2}],
        "folder": [{"folder": docs, "sort": "size"}, {"folder": docs, "sort": "type"}],
        "home": [{"sort": "shortest"}], "player": [{"id": 2}],
        "pair": [{"appliance": "Air conditioner", "brand": "小米", "code": 1, "pressed": False},
                 {"appliance": "Air conditioner", "brand": "小米", "code": 2, "pressed": True}],
        "brands": [{"appliance": "TV"}], "control": [{"id": 1}],
        "apps": [{"sort": "size", "select": True}, {"sort": "last_used"}], "app_info": [{"app": "mirror"},
                                                                                       {"app": "clock"}],
        "game": [{"id": "g5"}], "lobby": [{}],
    }


def _apps(phone: Phone) -> dict[str, Any]:
    """The apps' states and the media store (not the system settings the status bar makes on first drawing)."""
    return {k: v for k, v in phone.state_dict()["apps"].items() if k != "_system"}


def _visit_every_screen(locale: str, check: Callable[[str, Phone], None]) -> None:
    phone = Phone(apps=MINE, seed=1, randomize=False, ad_rate=0.0, locale=locale)
    extra = _states(phone)
    for key in MINE:
        for screen in phone.apps[key].screens():
            for params in ({}, *extra.get(screen, [])):
                before = _apps(phone)
                try:
                    phone.goto(key, screen, **params)
                except Exception as exc:  # a screen must draw with any of these params
                    raise AssertionError(f"{key}/{screen} {params}: {exc}") from exc
                check(f"{key}/{screen} {params}", phone)
                assert _apps(phone) == before, f"{key}/{screen} changed the state while drawing"


def test_every_screen_is_chinese_on_a_chinese_phone() -> None:
    def check(where: str, phone: Phone) -> None:
        assert untranslated(phone, DATA) == [], where

    _visit_every_screen("zh", check)


def test_every_screen_draws_in_both_languages() -> None:
    def check(where: str, phone: Phone) -> None:
        assert phone.screenshot(0.2).size == (216, 480), where

    for locale in ("en", "zh"):
        _visit_every_screen(locale, check)
