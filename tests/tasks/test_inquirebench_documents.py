"""InquireBench's lines on the office apps (Microsoft Word in English, WPS in Chinese): every released line matches
the template meant for it, the oracle logs in through the user and saves the file in both languages, doing nothing or
acting at random never succeeds, lines with other values play, train episodes generate in both languages, and a file
missing what the line asks for fails."""

from __future__ import annotations

from pathlib import Path

import pytest

from mobile_r1.core.actions import Action
from mobile_r1.env.sim.judge import judge
from mobile_r1.sim import testing as T
from mobile_r1.tasks.spec import TaskSpec
from tests.tasks.released_lines import (assert_lines_play_their_templates, assert_nothing_passes_by_default,
                                        assert_oracle_plays_every_line, assert_other_values_play,
                                        assert_train_episodes_generate, episode_of, line, packaged_lines)

EN, ZH = "tasks_en.jsonl", "tasks_zh.jsonl"
SHAPES = ("document", "spreadsheet", "font", "presentation", "titled")
EXPECTED: dict[tuple[str, int], str] = {
    **{(EN, 11 + k): f"ib.word.{name}" for k, name in enumerate(SHAPES)},
    **{(ZH, 11 + k): f"ib.wps.{name}" for k, name in enumerate(SHAPES)},
}
OURS = set(EXPECTED.values())
VALUES = {(EN, 11): {"text": "Hello, this is gui agent!"},
          (EN, 13): {"text": "Task list: 1. Complete the report 2. Submit for approval", "font": "Times New Roman"},
          (ZH, 13): {"text": "任务清单：1. 完成报告 2. 提交审批", "font": "宋体"},
          (ZH, 15): {"title": "项目进度报告", "text": "当前进度已完成80%"}}
FIRST_REPLY = {"combination": "login"}


def test_every_released_line_of_these_apps_plays_the_template_meant_for_it(all_specs: list[TaskSpec]) -> None:
    assert_lines_play_their_templates(EXPECTED, VALUES, all_specs)


@pytest.mark.slow
@pytest.mark.parametrize("language", [EN, ZH])
def test_the_oracle_plays_every_line_with_the_right_inquiry(all_specs: list[TaskSpec], language: str) -> None:
    assert_oracle_plays_every_line(EXPECTED, FIRST_REPLY, language, all_specs)


@pytest.mark.slow
def test_doing_nothing_or_acting_at_random_never_succeeds(all_specs: list[TaskSpec]) -> None:
    assert_nothing_passes_by_default(EXPECTED, all_specs)


OTHER_VALUES = [
    ("ib.word.font", line("Use Microsoft Word to create a document containing 'Shopping list: milk, eggs', set the "
                          "font to Arial, and save the file.", ["microsoft word"], "combination", "en", True)),
    ("ib.wps.presentation", line("使用wps制作一个包含'年度总结大会'的演示文稿，并将文件保存为pptx格式。", ["wps"], "combination",
                                 "zh", True)),
    ("ib.wps.titled", line("使用wps编写一个标题为'旅行计划'的文档，并在正文中写入'五月去杭州'，然后保存文件。", ["wps"],
                           "combination", "zh", True)),
]


@pytest.mark.slow
def test_lines_with_other_values_play_too(tmp_path: Path) -> None:
    assert_other_values_play(tmp_path, OTHER_VALUES)


def test_train_episodes_generate_in_both_languages_with_their_own_phrasings(specs: dict[str, TaskSpec]) -> None:
    assert_train_episodes_generate(OURS, specs)


@pytest.mark.parametrize(("font", "ok"), [("Times New Roman", True), ("Arial", False), (None, False)])
def test_only_the_font_the_line_names_passes(all_specs: list[TaskSpec], font: str | None, ok: bool) -> None:
    episode = episode_of(packaged_lines()[(EN, 13)], all_specs)
    env = episode.make_env(render=False)
    env.step(Action.open("Microsoft Word"))
    assert env.phone.activity() == "microsoft_word/login"
    env.step(Action.call_user("Microsoft Word asks me to sign in. Could you log in?"))
    assert env.phone.activity() == "microsoft_word/home"
    T.tap_id(env, "new_document")
    T.tap_id(env, "body")
    T.type_into(env, "body", "Task list: 1. Complete the report 2. Submit for approval")
    if font is not None:
        T.tap_id(env, "font")
        T.tap_text(env, font)
    T.tap_id(env, "save")
    T.tap_id(env, "save_file")
    env.step(Action.terminate("success"))
    verdict = judge(episode, env.phone).verdict
    assert (verdict.success, verdict.inquiry) == (ok, "asked"), verdict.reason
