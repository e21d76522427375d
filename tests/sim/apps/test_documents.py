"""The office apps (Microsoft Word, WPS Office) driven by actions alone: the login wall, a new document, spreadsheet or
presentation written, its font chosen, saved under a name in a format, and every screen in Chinese."""

from __future__ import annotations

import re
from typing import Any, Callable

import pytest

from mobile_r1.core import Action
from mobile_r1.env.sim import SimEnv
from mobile_r1.sim import testing as T
from mobile_r1.sim.apps import Ctx, load_all
from mobile_r1.sim.apps.documents import FONTS
from mobile_r1.sim.system import Phone
from mobile_r1.sim.ui.render import missing_glyphs

APPS = ["microsoft_word", "wps_office"]


class Setup:
    """A task-like set-up: calls the app's set-up hooks on the fresh phone, as task templates do."""

    def __init__(self, key: str, *calls: tuple[str, dict[str, Any]]) -> None:
        self.key, self.calls = key, calls

    def setup(self, phone: Phone, rng: Any) -> None:
        app = phone.apps[self.key]
        for name, values in self.calls:
            getattr(app, f"setup_{name}")(Ctx(phone, self.key), **values)


def _env(key: str, locale: str = "en", *calls: tuple[str, dict[str, Any]]) -> SimEnv:
    env = SimEnv(apps=[key], seed=0, randomize=False, render=False, locale=locale)
    env.reset(task=Setup(key, *calls) if calls else None, app=key)
    return env


@pytest.mark.parametrize("locale", ["en", "zh"])
@pytest.mark.parametrize("key", APPS)
def test_each_app_opens_from_its_launcher_icon_by_name_and_by_package(key: str, locale: str) -> None:
    cls = load_all()[key]
    env = SimEnv(apps=[key], randomize=False, render=False, locale=locale)
    env.reset()
    T.tap(env, text=cls.label(locale))
    assert env.phone.activity() == f"{key}/home"
    for name in (cls.label(locale), cls.name, cls.package, *cls.aliases[:1]):
        env.step(Action.system_button("Home"))
        env.phone.state.stacks[key] = []  # a cold start each time
        assert env.phone.open(name) is None and env.phone.activity() == f"{key}/home"
    assert cls.archetype == "documents"


def test_a_titled_document_in_another_font_is_saved_with_everything_it_holds() -> None:
    env = _env("microsoft_word")
    s = env.phone.app_state("microsoft_word")
    T.tap_id(env, "new_document")
    assert env.phone.activity() == "microsoft_word/editor" and s["draft"]["font"] == "Calibri"
    T.type_into(env, "title", "Project Progress Report", submit=True)
    T.tap_id(env, "body")
    T.type_into(env, "body", "Current progress is 80% complete")
    T.tap_id(env, "font")
    T.tap_text(env, "Times New Roman")
    assert s["draft"] == {"kind": "document", "title": "Project Progress Report",
                          "text": "Current progress is 80% complete", "font": "Times New Roman"}
    T.tap_id(env, "save")
    T.tap_id(env, "save_file")
    effect = env.phone.state.effects[-1]
    assert effect.kind == "save" and effect.detail == {
        "file": 4, "name": "Document1", "type": "document", "format": "docx", "title": "Project Progress Report",
        "text": "Current progress is 80% complete", "font": "Times New Roman"}
    assert s["files"][0]["name"] == "Document1" and s["draft"] is None and env.phone.activity() == "microsoft_word/home"
    assert T.find(env, id="file_title").text == "Document1.docx"


def test_a_spreadsheet_saved_under_a_new_name_in_another_format_on_wps() -> None:
    env = _env("wps_office", "zh")
    T.tap_id(env, "new_spreadsheet")
    T.type_into(env, "body", "欢迎使用自动化工具")
    T.tap_id(env, "save")
    assert T.find(env, text="工作簿1") and T.find(env, id="format_xlsx").selected
    T.tap_id(env, "format_csv")
    T.tap_id(env, "file_name")
    T.replace_text(env, "file_name", "欢迎表")
    T.tap_id(env, "save_file")
    detail = env.phone.state.effects[-1].detail
    assert (detail["type"], detail["name"], detail["format"], detail["text"], detail["font"]) == (
        "spreadsheet", "欢迎表", "csv", "欢迎使用自动化工具", "微软雅黑")


def test_an_empty_name_is_refused_and_nothing_is_saved() -> None:
    env = _env("wps_office", "en")
    T.tap_id(env, "new_presentation")
    T.type_into(env, "body", "Meeting time: 3 PM")
    T.tap_id(env, "save")
    T.tap_id(env, "file_name")
    T.replace_text(env, "file_name", "  ")
    T.tap_id(env, "save_file")
    assert env.phone.state.effects == [] and env.phone.activity() == "wps_office/save"


def test_logged_out_the_app_opens_on_its_login_wall_and_creating_needs_the_account() -> None:
    env = _env("microsoft_word", "en", ("logged_out", {}))
    assert env.phone.activity() == "microsoft_word/login"
    T.type_into(env, "username", "me@example.com")
    T.type_into(env, "password", "pw")
    T.tap_id(env, "login")
    assert env.phone.activity() == "microsoft_word/home" and env.phone.state.effects[-1].kind == "login"
    T.tap(env, id="bottom_nav_1")
    T.tap_id(env, "log_out")
    T.tap_text(env, "Log out", index=0)
    assert env.phone.activity() == "microsoft_word/login" and env.phone.state.effects[-1].kind == "logout"


# ----- every screen in Chinese ---------------------------------------------------------------------------------------
LATIN = re.compile(r"[A-Za-z]{2,}")
DATA_WORDS = {"WiFi", "WLAN", "Word", "WPS", "Office", "docx", "xlsx", "pptx", "pdf", "txt", "csv", "example", "com",
              *(w for font in FONTS for w in LATIN.findall(font)),
              "chen", "wei", "li", "na"}  # the status bar, brands, formats, font names, the account


def _untranslated(phone: Phone) -> list[str]:
    bad = []
    for e in phone.elements():
        for label in (e.text, e.content_desc):
            if label and (missing_glyphs(label) or any(w not in DATA_WORDS for w in LATIN.findall(label))):
                bad.append(label)
    return bad


def _visit_every_screen(key: str, locale: str, check: Callable[[str, Phone], None]) -> None:
    phone = Phone(apps=[key], seed=1, randomize=False, ad_rate=0.0, locale=locale)
    params = phone.apps[key].gallery_setup(Ctx(phone, key))
    phone.touch()
    seen = []
    for screen in phone.apps[key].screens():
        for p in ({}, params.get(screen)):
            if p is None:
                continue
            before = phone.state_dict()["apps"][key]
            phone.goto(key, screen, **p)
            check(screen, phone)
            assert phone.state_dict()["apps"][key] == before, f"{key}/{screen} changed the state while drawing"
        seen.append(screen)
    assert {"home", "editor", "fonts", "save", "me", "login"} <= set(seen)


@pytest.mark.parametrize("key", APPS)
def test_every_screen_is_chinese_on_a_chinese_phone(key: str) -> None:
    def check(screen: str, phone: Phone) -> None:
        assert _untranslated(phone) == [], f"{key}/{screen}"
        assert phone.activity() == f"{key}/{screen}"

    _visit_every_screen(key, "zh", check)


def test_every_screen_draws_in_both_languages() -> None:
    def check(screen: str, phone: Phone) -> None:
        assert phone.screenshot(0.2).size == (216, 480)

    for locale in ("en", "zh"):
        _visit_every_screen("wps_office", locale, check)
