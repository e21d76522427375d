"""InquireBench's lines on the travel apps (Trip.com in English, Ctrip in Chinese): every released line matches the
template meant for it, the oracle plays each asking for the date and then before paying, in both languages, doing
nothing or acting at random never succeeds, lines with other values play, train episodes generate in both
languages, and a ticket on another day, another flight or without asking fails."""

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
SHAPES = ("cheapest", "round_trip", "shortest", "deal", "business_top_rated")
EXPECTED: dict[tuple[str, int], str] = {
    **{(EN, 71 + k): f"ib.trip.{name}" for k, name in enumerate(SHAPES)},
    **{(ZH, 71 + k): f"ib.ctrip.{name}" for k, name in enumerate(SHAPES)},
}
OURS = set(EXPECTED.values())
VALUES = {(EN, 71): {"origin": "New York", "dest": "Langkawi"}, (EN, 74): {"origin": "Dubai", "dest": "Phuket"},
          (ZH, 73): {"origin": "广州", "dest": "曼谷"}, (ZH, 75): {"origin": "杭州", "dest": "新加坡"}}
FIRST_REPLY = {"combination": "supply"}


def test_every_released_line_of_these_apps_plays_the_template_meant_for_it(all_specs: list[TaskSpec]) -> None:
    assert_lines_play_their_templates(EXPECTED, VALUES, all_specs)


@pytest.mark.slow
@pytest.mark.parametrize("language", [EN, ZH])
def test_the_oracle_plays_every_line_with_the_right_inquiries(all_specs: list[TaskSpec], language: str) -> None:
    assert_oracle_plays_every_line(EXPECTED, FIRST_REPLY, language, all_specs)


@pytest.mark.slow
def test_doing_nothing_or_acting_at_random_never_succeeds(all_specs: list[TaskSpec]) -> None:
    assert_nothing_passes_by_default(EXPECTED, all_specs)


OTHER_VALUES = [
    ("ib.trip.cheapest", line("Use Trip to help me buy the cheapest ticket from Tokyo to Honolulu.", ["trip"],
                              "combination", "en")),
    ("ib.ctrip.round_trip", line("使用携程预订从成都到三亚的往返机票，并选择价格最低的选项。", ["ctrip"], "combination", "zh")),
    ("ib.trip.business_top_rated", line("Use Trip to find business class tickets from Seoul to Vancouver and "
                                        "purchase the highest-rated flight.", ["trip"], "combination", "en")),
]


@pytest.mark.slow
def test_lines_with_other_values_play_too(tmp_path: Path) -> None:
    assert_other_values_play(tmp_path, OTHER_VALUES)


def test_train_episodes_generate_in_both_languages_with_their_own_phrasings(specs: dict[str, TaskSpec]) -> None:
    assert_train_episodes_generate(OURS, specs)


@pytest.mark.parametrize(("ask", "day", "rank", "ok"), [(True, "given", 0, True), (True, "other", 0, False),
                                                        (True, "given", 1, False), (False, "given", 0, False)])
def test_only_the_cheapest_flight_on_the_day_the_user_gave_passes(all_specs: list[TaskSpec], ask: bool, day: str,
                                                                  rank: int, ok: bool) -> None:
    """The user's date and the cheapest flight pass; another day, the second-cheapest or a date never asked for fail."""
    episode = episode_of(packaged_lines()[(EN, 71)], all_specs)
    env = episode.make_env(render=False)
    given = episode.params["date"]
    env.step(Action.open("Trip"))
    T.tap_id(env, "from")
    T.type_into(env, "from", "New York")
    T.tap_id(env, "to")
    T.type_into(env, "to", "Langkawi", submit=True)
    T.tap_id(env, "departure_date")
    if ask:
        env.step(Action.call_user("Which day do you want to fly?"))
    dates = env.phone.app_state("trip")["dates"]
    T.tap_text(env, given if day == "given" else next(d for d in dates if d != given))
    T.tap_id(env, "search_flights")
    T.tap_id(env, "sort_price")
    T.tap_id(env, "flight", index=rank)
    T.tap_id(env, "book")
    T.tap_id(env, "pay_now")
    env.step(Action.call_user("This ticket is a payment. May I pay? I need the payment password."))
    T.type_into(env, "pay_password", env.phone.app_state("trip")["payment_password"], submit=True)
    env.step(Action.terminate("success"))
    verdict = judge(episode, env.phone).verdict
    assert verdict.success == ok, verdict.reason
