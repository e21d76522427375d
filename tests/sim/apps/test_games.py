"""The games and Game Center driven by actions alone: a game starts into its lobby; Game Center lists the catalogue,
opens installed games, downloads others, and answers any search from a pure function of its state and the query."""

from __future__ import annotations

from mobile_r1.sim import testing as T
from mobile_r1.sim.apps.games import results
from mobile_r1.sim.system import Phone

GAMES = ["honor_of_kings", "genshin_impact", "anipop", "game_center"]


def test_a_game_starts_into_its_lobby_after_loading() -> None:
    env = T.start(GAMES, "genshin_impact", locale="zh", ad_rate=0.0)
    T.tap_id(env, "start_game")
    assert env.phone.activity() == "genshin_impact/lobby" and T.find_all(env, text="加载中...")
    T.wait(env, 1.0)
    assert T.find(env, id="level").text.startswith("等级")


def test_game_center_opens_installed_games_and_downloads_others() -> None:
    env = T.start(GAMES, "game_center", ad_rate=0.0)
    T.tap(env, id="bottom_nav_2")
    mine = [e.text for e in T.find_all(env, id="game_name")]
    assert sorted(mine) == ["Anipop", "Genshin Impact", "Honor of Kings"]
    T.tap(env, text="Anipop")
    assert env.phone.activity() == "game_center/game"
    T.tap_id(env, "open_game")
    assert env.phone.activity() == "anipop/home"
    T.open_app(env, "Game Center")
    T.back(env)
    T.tap(env, id="bottom_nav_0")
    T.type_into(env, "query", "Eggy", submit=True)
    assert env.phone.activity() == "game_center/search"
    names = [e.text for e in T.find_all(env, id="game_name")]
    assert names[0] == "Eggy Party" and len(names) == 5
    T.tap(env, text="Eggy Party")
    T.tap_id(env, "download")
    assert env.phone.state.effects[-1].kind == "install" and env.phone.state.effects[-1].detail["name"] == "Eggy Party"
    assert T.find(env, id="downloaded").enabled is False


def test_search_answers_any_query_from_the_state_and_the_query_alone() -> None:
    a = Phone(apps=["game_center"], seed=4, locale="zh").app_state("game_center")
    b = Phone(apps=["game_center"], seed=4, locale="zh").app_state("game_center")
    found = results(a, "赛车")
    assert found == results(b, " 赛车 ") == results(a["catalog"]["seed"], "赛车", locale="zh")
    assert len(found) == 4 and all("赛车" in g["name"] for g in found) and results(a, "") == []
    assert results(a, "原神")[0]["name"] == "原神"
