"""Settings' apps and storage driven by actions alone: every installed app with its size and last use, uninstalling one
from its info page or several in selection mode after a confirmation, the storage overview sorted by size, the apps
never used, system apps kept, and the set-up hooks (the largest app, the never-used apps, the games)."""

from __future__ import annotations

import pytest

from mobile_r1.env.sim import SimEnv
from mobile_r1.sim import testing as T
from mobile_r1.sim.apps import Ctx
from mobile_r1.sim.apps.device_settings import sort_apps

APPS = ["android_settings", "phone", "clock", "mirror", "game_center", "honor_of_kings", "genshin_impact", "anipop",
        "smart_remote", "music_player", "taobao", "meituan"]


def _env(locale: str = "en", seed: int = 0) -> SimEnv:
    return T.start(APPS, "android_settings", locale=locale, seed=seed, ad_rate=0.0)


def _hook(env: SimEnv, name: str, **values: object) -> object:
    out = getattr(env.phone.apps["android_settings"], f"setup_{name}")(Ctx(env.phone, "android_settings"), **values)
    env.phone.touch()
    return out


@pytest.mark.parametrize("locale, label", [("en", "Game Center"), ("zh", "游戏中心")])
def test_an_app_is_uninstalled_from_its_info_page_after_a_confirmation(locale: str, label: str) -> None:
    env = _env(locale)
    T.tap(env, id="item_apps")
    rows = [e.text for e in T.find_all(env, id="app_title")]  # those on screen, the list sorted by name
    assert rows == sorted((env.phone.label(k) for k in APPS), key=str.lower)[:len(rows)] and len(rows) >= 6
    T.tap(env, text=label)
    assert env.phone.activity() == "android_settings/app_info"
    T.tap_id(env, "uninstall")
    T.back(env)  # closes the dialog: nothing happens
    assert "game_center" in env.phone.installed() and env.phone.state.effects == []
    T.tap_id(env, "uninstall")
    T.tap(env, id="button2")
    effect = env.phone.state.effects[-1]
    assert effect.kind == "uninstall" and effect.detail["app"] == "game_center" and label in effect.detail["names"]
    assert "game_center" not in env.phone.installed() and env.phone.activity() == "android_settings/apps"
    assert label not in [e.text for e in T.find_all(env, id="app_title")]
    record = next(r for r in env.phone.app_state("android_settings")["apps"] if r["app"] == "game_center")
    assert record["uninstalled"] is True
    T.open_app(env, label)
    assert env.phone.activity() != "game_center/home"  # gone from the phone


def test_system_apps_cannot_be_uninstalled() -> None:
    env = _env()
    T.tap(env, id="item_apps")
    T.tap(env, text="Clock")
    assert not T.find_all(env, id="uninstall") and T.find_all(env, id="force_stop")
    T.back(env)
    T.tap_id(env, "select")
    T.tap(env, text="Clock")
    assert env.phone.app_state("android_settings")["selection"] == []


def test_storage_lists_apps_by_size_and_the_largest_set_up_one_comes_first() -> None:
    env = _env(seed=7)
    assert _hook(env, "largest", app="Anipop") == "anipop"
    T.tap(env, id="item_storage")
    sizes = [e.text for e in T.find_all(env, id="app_title")]
    assert sizes[0] == "Anipop"
    T.tap(env, text="Anipop")
    T.tap_id(env, "uninstall")
    T.tap(env, id="button2")
    assert env.phone.state.effects[-1].detail["name"] == "Anipop"


def test_the_never_used_apps_are_listed_and_uninstalled_together_in_selection_mode() -> None:
    env = _env("zh", seed=3)
    never = _hook(env, "never_used", count=2)
    assert isinstance(never, list) and len(never) == 2
    records = env.phone.app_state("android_settings")["apps"]
    assert sorted(r["app"] for r in records if r["never_used"]) == never
    T.tap(env, id="item_storage")
    T.tap_id(env, "unused_apps")
    labels = [env.phone.apps[k].label("zh") for k in never]
    assert sorted(e.text for e in T.find_all(env, id="app_title")) == sorted(labels)
    T.back(env)
    T.back(env)
    T.tap(env, id="item_apps")
    T.tap_id(env, "sort_last_used")
    T.tap_id(env, "select")
    for label in labels:
        T.tap(env, text=label)
    assert sorted(env.phone.app_state("android_settings")["selection"]) == never
    T.tap_id(env, "uninstall_selected")
    T.tap(env, id="button2")
    gone = [e.detail["app"] for e in env.phone.state.effects if e.kind == "uninstall"]
    assert sorted(gone) == never and all(e.detail["never_used"] for e in env.phone.state.effects)
    assert env.phone.activity() == "android_settings/apps" and not env.phone.top_frame()["params"].get("select")


def test_the_games_hook_keeps_every_game_and_sorting_orders_the_list() -> None:
    env = _env()
    assert sorted(_hook(env, "games")) == ["anipop", "game_center", "genshin_impact", "honor_of_kings"]
    records = env.phone.app_state("android_settings")["apps"]
    assert {r["category"] for r in records} == {"game"}
    T.tap(env, id="item_apps")
    T.tap_id(env, "sort_size")
    shown = [e.text for e in T.find_all(env, id="app_title")]
    from mobile_r1.sim.apps.device_settings import _Apps  # the list's own view of the records

    expected = [r["label"] for r in sort_apps(_Apps(Ctx(env.phone, "android_settings")).installed(), "size")]
    assert shown == expected[:len(shown)]
    with pytest.raises(Exception, match="system app"):
        _hook(env, "installed", app="Clock")
