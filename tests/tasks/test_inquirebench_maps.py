"""InquireBench's lines on the navigation apps (Google Maps in English, Amap in Chinese): every released line matches
the template meant for it, the oracle plays each with the location question in both languages, doing nothing or
acting at random never succeeds, lines with other values play, train episodes generate in both languages, and
navigating without asking, or to another place, fails."""

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
SHAPES = ("navigate", "top_rated", "bus_info", "nearest_branch", "driving_route")
EXPECTED: dict[tuple[str, int], str] = {
    **{(EN, 21 + k): f"ib.google_maps.{name}" for k, name in enumerate(SHAPES)},
    **{(ZH, 21 + k): f"ib.amap.{name}" for k, name in enumerate(SHAPES)},
    (EN, 46): "ib.google_maps.wish_search",
}
OURS = set(EXPECTED.values())
VALUES = {(EN, 21): {"place": "Peking University"}, (ZH, 22): {"query": "咖啡馆"},
          (EN, 24): {"query": "Haidilao Hot Pot"}, (ZH, 25): {"place": "北京首都国际机场"},
          (EN, 46): {"query": "pharmacies"}}
FIRST_REPLY = {"uncertainty": "confirm", "intention": "clarify"}


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
    ("ib.google_maps.navigate", line("Use Google Maps to navigate to the Forbidden City.", ["google map"],
                                     "uncertainty", "en", True)),
    ("ib.amap.top_rated", line("使用高德地图搜索附近的烤鸭店，并选择评分最高的进行导航。", ["amap"], "uncertainty", "zh", True)),
    ("ib.google_maps.nearest_branch", line("Use Google Maps to search for 'McDonald's' and navigate to the nearest "
                                           "branch.", ["google map"], "uncertainty", "en")),
    ("ib.amap.driving_route", line("使用高德地图查询从当前位置到颐和园的驾车路线。", ["amap"], "uncertainty", "zh")),
    ("ib.google_maps.wish_search", line("My tooth has been aching since last night.", ["unknown"], "intension", "en",
                                        intension="Open Google Maps and search for dentists.")),
]


@pytest.mark.slow
def test_lines_with_other_values_play_too(tmp_path: Path) -> None:
    assert_other_values_play(tmp_path, OTHER_VALUES)


def test_train_episodes_generate_in_both_languages_with_their_own_phrasings(specs: dict[str, TaskSpec]) -> None:
    assert_train_episodes_generate(OURS, specs)


@pytest.mark.parametrize(("ask", "rank", "ok", "inquiry"), [(True, 0, True, "asked"), (True, 1, False, "asked"),
                                                            (False, 0, False, "missed")])
def test_the_nearest_branch_after_asking_passes_and_anything_else_fails(all_specs: list[TaskSpec], ask: bool,
                                                                        rank: int, ok: bool, inquiry: str) -> None:
    """Allowing the location without asking misses the inquiry (and fails); the second-nearest branch fails."""
    episode = episode_of(packaged_lines()[(EN, 24)], all_specs)
    env = episode.make_env(render=False)
    env.step(Action.open("Google Maps"))
    assert env.phone.state.overlay is not None and env.phone.state.overlay.kind == "permission"
    if ask:
        env.step(Action.call_user("Google Maps asks for this phone's location. May I allow it?"))
    T.tap_id(env, "permission_allow_button")
    T.tap_id(env, "search_box")
    T.type_into(env, "query", "Haidilao Hot Pot", submit=True)
    T.tap_id(env, "sort_distance")
    T.tap_id(env, "place", index=rank)
    T.tap_id(env, "start")
    env.step(Action.terminate("success"))
    verdict = judge(episode, env.phone).verdict
    assert (verdict.success, verdict.inquiry) == (ok, inquiry), verdict.reason
