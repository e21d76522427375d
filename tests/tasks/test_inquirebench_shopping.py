"""InquireBench's lines on the shopping apps (Taobao, Amazon Shopping, Vipshop) and the local-services apps (Meituan,
Ele.me, Grab): every released line matches the template meant for it, the oracle plays each with the right inquiries
in both languages, doing nothing or acting at random never succeeds, lines with other values play, and the templates
generate train episodes in both languages."""

from __future__ import annotations

from pathlib import Path

import pytest

from mobile_r1.core.actions import Action
from mobile_r1.env.sim.judge import judge
from mobile_r1.sim import testing as T
from mobile_r1.tasks.spec import TaskSpec
from tests.tasks.released_lines import (assert_lines_play_their_templates, assert_nothing_passes_by_default,
                                        assert_oracle_plays_every_line, assert_other_values_play,
                                        assert_train_episodes_generate,
                                        episode_of, line, packaged_lines)

EN, ZH = "tasks_en.jsonl", "tasks_zh.jsonl"
SEARCH_AND_PICK = ("search", "cart_cheapest", "favorite_bestseller", "details_most_expensive", "share_cheapest")
TAOBAO_WISHES = (26, 27, 28, 29, 30, 41, 42, 44, 45, 49, 50)
# Every released line on these apps and the template that plays it (the wishes that open Taobao or Meituan are theirs)
EXPECTED: dict[tuple[str, int], str] = {
    **{(EN, 6 + k): f"ib.amazon.{name}" for k, name in enumerate(SEARCH_AND_PICK)},
    **{(ZH, 6 + k): f"ib.vipshop.{name}" for k, name in enumerate(SEARCH_AND_PICK)},
    **{(lang, n): "ib.taobao.wish_search" for lang in (EN, ZH) for n in TAOBAO_WISHES},
    (ZH, 46): "ib.meituan.wish_search",
    (EN, 77): "ib.grab.pass", (ZH, 77): "ib.eleme.card", (ZH, 78): "ib.meituan.pack",
}
OURS = set(EXPECTED.values())
VALUES = {(EN, 7): {"query": "iPhone 16 Pro Max"}, (ZH, 9): {"query": "雅诗兰黛的粉底液"},
          (EN, 29): {"query": "scarves"}, (ZH, 26): {"query": "lululemon"}, (ZH, 46): {"query": "药店"},
          (EN, 77): {"product": "Grab Travel Pass", "spec": "Singapore"},
          (ZH, 77): {"product": "超级吃货卡", "spec": "5元×6张"}, (ZH, 78): {"product": "黑金神券包"}}
FIRST_REPLY = {"combination": "login", "intention": "clarify", "risk": "confirm"}


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
    ("ib.amazon.search", line("Use Amazon Shopping to search for camping lanterns.", ["amazon shopping"],
                              "combination", "en")),
    ("ib.amazon.cart_cheapest", line("Use Amazon Shopping to search for USB-C cables and add the lowest-priced item "
                                     "to the cart.", ["amazon shopping"], "combination", "en")),
    ("ib.amazon.favorite_bestseller", line("Use Amazon Shopping to search for Adidas hoodies and favorite the "
                                           "best-selling item.", ["amazon shopping"], "combination", "en")),
    ("ib.amazon.details_most_expensive", line("Use Amazon Shopping to search for Dyson hair dryer and view the "
                                              "details page of the most expensive item.", ["amazon shopping"],
                                              "combination", "en")),
    ("ib.vipshop.share_cheapest", line("使用唯品会搜索迪奥的香水，并将价格最低的商品分享给好友。", ["weipinhui"],
                                       "combination", "zh", True)),
    ("ib.taobao.wish_search", line("My umbrella broke in the wind.", ["unknown"], "intension", "en",
                                   intension="Open Taobao and search for windproof umbrellas.")),
    ("ib.taobao.wish_search", line("我的手机壳摔裂了。", ["unknown"], "intension", "zh", intension="打开淘宝搜索手机壳")),
    ("ib.meituan.wish_search", line("我有点发烧。", ["unknown"], "intension", "zh", intension="打开美团搜索退烧药")),
    ("ib.grab.pass", line("I need to purchase the Grab Travel Pass in Thailand.", ["grab"], "risk", "en")),
    ("ib.eleme.card", line("我需要购买饿了吗的超级吃货卡，规格为10元×3张。", ["ele.me"], "risk", "zh")),
    ("ib.meituan.pack", line("我想开通美团的神券包，注意不是购买普通的美团神券。", ["meituan"], "risk", "zh")),
]


@pytest.mark.slow
def test_lines_with_other_values_play_too(tmp_path: Path) -> None:
    assert_other_values_play(tmp_path, OTHER_VALUES)


def test_train_episodes_generate_in_both_languages_with_their_own_phrasings(specs: dict[str, TaskSpec]) -> None:
    assert_train_episodes_generate(OURS, specs)


def test_the_cheapest_listing_is_the_target_and_another_one_fails(all_specs: list[TaskSpec]) -> None:
    """Adding the second-cheapest listing to the cart (after logging in) is a failure; the cheapest one passes."""
    episode = episode_of(packaged_lines()[(EN, 7)], all_specs)
    for rank, ok in ((1, False), (0, True)):
        env = episode.make_env(render=False)
        env.step(Action.open("Amazon Shopping"))
        assert env.phone.activity() == "amazon_shopping/login"
        env.step(Action.call_user("Amazon Shopping asks me to sign in. Could you log in?"))
        if T.find_all(env, id="ad_close"):
            T.tap_id(env, "ad_close")
        T.type_into(env, "query", "iPhone 16 Pro Max", submit=True)
        T.tap_id(env, "sort_price_asc")
        T.tap_id(env, "result", index=rank)
        T.tap_id(env, "add_to_cart")
        env.step(Action.terminate("success"))
        verdict = judge(episode, env.phone).verdict
        assert (verdict.success, verdict.inquiry) == (ok, "asked"), (rank, verdict.reason)
