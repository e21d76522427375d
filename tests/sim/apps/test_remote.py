"""Smart Remote driven by actions alone: adding a Xiaomi air conditioner, the pairing step only the person holding the
phone can judge (did it respond?), the next code after "No", the remote kept after "Yes", and its keys."""

from __future__ import annotations

import pytest

from mobile_r1.sim import testing as T
from mobile_r1.sim.apps import Ctx


@pytest.mark.parametrize("locale, appliance, brand", [("en", "Air conditioner", "Xiaomi"), ("zh", "空调", "小米")])
def test_pairing_a_xiaomi_air_conditioner_waits_for_the_persons_answer(locale: str, appliance: str, brand: str) -> None:
    env = T.start(["smart_remote"], "smart_remote", locale=locale, ad_rate=0.0)
    env.phone.apps["smart_remote"].setup_no_remote(Ctx(env.phone, "smart_remote"), appliance=appliance)
    env.phone.touch()
    T.tap_id(env, "add_remote")
    T.tap(env, text=appliance)
    T.type_into(env, "brand_query", brand[:2])
    assert [e.text for e in T.find_all(env, id="brand_title")] == [brand]
    T.tap(env, id="brand")
    assert env.phone.activity() == "smart_remote/pair"
    assert not T.find_all(env, id="responded")  # nothing to answer before the power key is tried
    T.tap_id(env, "power")
    assert T.find_all(env, id="pair_question") and env.phone.state.effects == []
    T.tap_id(env, "no_response")
    assert env.phone.top_frame()["params"]["code"] == 2 and not T.find_all(env, id="responded")
    T.tap_id(env, "power")
    T.tap_id(env, "responded")
    effect = env.phone.state.effects[-1]
    assert effect.kind == "pair" and effect.detail["brand"] == brand and effect.detail["code"] == 2
    assert effect.detail["appliance"] == "Air conditioner" and effect.detail["appliance_label"] == appliance
    assert env.phone.activity() == "smart_remote/control"
    T.tap_id(env, "key_temperature_up")
    assert env.phone.state.toast is not None
    T.back(env)
    assert brand in [e.text for e in T.find_all(env, id="remote_title")][-1]


def test_three_codes_without_an_answer_end_the_pairing() -> None:
    env = T.start(["smart_remote"], "smart_remote", ad_rate=0.0)
    T.tap_id(env, "add_remote")
    T.tap(env, text="Fan")
    T.tap(env, text="Midea")
    for _ in range(3):
        T.tap_id(env, "power")
        T.tap_id(env, "no_response")
    assert env.phone.state.overlay is not None and env.phone.activity() == "smart_remote/brands"
    assert env.phone.state.effects == []


def test_set_up_names_an_appliance_in_either_language() -> None:
    env = T.start(["smart_remote"], "smart_remote", locale="zh", ad_rate=0.0)
    app, ctx = env.phone.apps["smart_remote"], Ctx(env.phone, "smart_remote")
    assert app.appliance_type(ctx, "空调") == app.appliance_type(ctx, "air conditioner") == "Air conditioner"
    app.setup_no_remote(ctx, appliance="电视")
    env.phone.touch()
    T.tap_id(env, "add_remote")
    T.tap(env, text="空调")
    T.type_into(env, "brand_query", "东芝")  # a brand the list does not show is found when typed
    assert [e.text for e in T.find_all(env, id="brand_title")] == ["东芝"]
    assert all(r["appliance"] != "TV" for r in env.phone.app_state("smart_remote")["remotes"])
    with pytest.raises(ValueError):
        app.appliance_type(ctx, "toaster")
