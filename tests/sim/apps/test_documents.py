"""The office apps (Microsoft Word, WPS Office) driven by actions alone: the login wall, a new document, spreadsheet or
presentation written, its font chosen, saved under a name in a format, and every screen in Chinese."""

from __future__ import annotations

import re
from typing import Any

import pytest

from mobile_r1.env.sim import SimEnv
from mobile_r1.sim import testing as T
from mobile_r1.sim.apps.documents import FONTS
from tests.sim.apps.app_checks import (assert_chinese_everywhere, assert_draws_in_both_languages,
                                       assert_opens_everywhere, start)

APPS = ["microsoft_word", "wps_office"]


def _env(key: str, locale: str = "en", *calls: tuple[str, dict[str, Any]]) -> SimEnv:
    return start(key, locale, *calls)


@pytest.mark.parametrize("locale", ["en", "zh"])
@pytest.mark.parametrize("key", APPS)
def test_each_app_opens_from_its_launcher_icon_by_name_and_by_package(key: str, locale: str) -> None:
    assert_opens_everywhere(key, locale, "documents")


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
SCREENS = {"home", "editor", "fonts", "save", "me", "login"}
DATA_WORDS = {"Word", "WPS", "Office", "docx", "xlsx", "pptx", "pdf", "txt", "csv", "example", "com", "chen", "wei",
              "li", "na", *(w for font in FONTS for w in re.findall(r"[A-Za-z]{2,}", font))}  # brands, formats, fonts


@pytest.mark.parametrize("key", APPS)
def test_every_screen_is_chinese_on_a_chinese_phone(key: str) -> None:
    assert_chinese_everywhere(key, SCREENS, DATA_WORDS)


def test_every_screen_draws_in_both_languages() -> None:
    assert_draws_in_both_languages("wps_office", SCREENS)
