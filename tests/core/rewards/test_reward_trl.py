"""The preset registry and the TRL-style reward callables `(completions, **columns) -> list[float]`."""

from __future__ import annotations

import json
from typing import Any

import pytest

from mobile_r1.core import ConfigError, DataError
from mobile_r1.core.rewards import PRESETS, RewardResult, get_preset


def call(arguments: dict[str, Any], *, step: bool = False) -> str:
    action = "<action>Do it</action>" if step else ""
    return f"<think>t</think>{action}<tool_call>{json.dumps({'name': 'mobile_use', 'arguments': arguments})}</tool_call>"


LABEL = {"name": "mobile_use", "arguments": {"action": "click", "coordinate": [125, 250]}}
COMPLETIONS = [
    call({"action": "click", "coordinate": [125, 250]}),
    call({"action": "click", "coordinate": [125, 250]}, step=True),
    call({"action": "click", "coordinate": [400, 900]}),
    "no tags at all",
    call({"action": "system_button", "button": "Back"}),
]
N = len(COMPLETIONS)
COLUMNS: dict[str, Any] = {
    "label": [LABEL] * N,
    "bbox": [[200, 400, 300, 600]] * N,
    "image_size": [[1000, 2000]] * N,
    "model_image_size": [[500, 1000]] * N,
}


def test_registry_names() -> None:
    assert list(PRESETS) == ["inquire-mobile", "inquire-mobile-fixed", "mobile-r1", "gui-r1", "ui-r1"]
    assert get_preset("gui-r1") is PRESETS["gui-r1"]


def test_unknown_preset_lists_the_names() -> None:
    with pytest.raises(ConfigError, match="inquire-mobile, inquire-mobile-fixed, mobile-r1, gui-r1, ui-r1"):
        get_preset("inquire")


@pytest.mark.parametrize("name", list(PRESETS))
def test_trl_total_matches_score(name: str) -> None:
    preset = PRESETS[name]
    fn = preset.as_trl_reward()
    assert fn.__name__ == name.replace("-", "_") + "_total"
    extra = {"prompts": ["p"] * N, "completion_ids": [[1]] * N, "trainer_state": object(), "goal": ["g"] * N}
    values = fn(completions=COMPLETIONS, **COLUMNS, **extra)
    expected = [preset.score(c, LABEL, COLUMNS["bbox"][0], [1000, 2000], [500, 1000]).total for c in COMPLETIONS]
    assert values == expected
    assert all(isinstance(v, float) for v in values)


@pytest.mark.parametrize("name", list(PRESETS))
def test_trl_parts_and_weights_sum_to_the_total(name: str) -> None:
    preset = PRESETS[name]
    funcs, weights = preset.as_trl_rewards()
    per_func = [fn(COMPLETIONS, **COLUMNS) for fn in funcs]
    totals = preset.as_trl_reward()(COMPLETIONS, **COLUMNS)
    for i in range(N):
        assert sum(w * values[i] for w, values in zip(weights, per_func)) == pytest.approx(totals[i])
    assert len({fn.__name__ for fn in funcs}) == len(funcs)


def test_conversational_completions() -> None:
    preset = PRESETS["inquire-mobile"]
    chats = [[{"role": "assistant", "content": c}] for c in COMPLETIONS]
    assert preset.as_trl_reward()(chats, **COLUMNS) == preset.as_trl_reward()(COMPLETIONS, **COLUMNS)
    assert preset.as_trl_reward()(chats, **COLUMNS) == [3.0, 1.0, 2.0, -1.0, 1.0]  # <action> breaks its format


def test_one_callable_per_component() -> None:
    preset = PRESETS["inquire-mobile"]
    rewards = preset.component_rewards()
    assert list(rewards) == ["format", "accuracy", "total", "type", "argument"]
    assert [fn.__name__ for fn in rewards.values()] == [
        "inquire_mobile_format",
        "inquire_mobile_accuracy",
        "inquire_mobile_total",
        "inquire_mobile_type",
        "inquire_mobile_argument",
    ]
    assert rewards["format"](COMPLETIONS, **COLUMNS) == [1.0, -1.0, 1.0, -1.0, 1.0]
    assert rewards["type"](COMPLETIONS, **COLUMNS) == [1.0, 1.0, 1.0, 0.0, 0.0]
    assert rewards["argument"](COMPLETIONS, **COLUMNS) == [1.0, 1.0, 0.0, 0.0, 0.0]
    assert PRESETS["ui-r1"].as_trl_reward("coordinate")(COMPLETIONS, **COLUMNS) == [1.0, 1.0, 0.0, 0.0, 0.0]


def test_unknown_component() -> None:
    with pytest.raises(ConfigError, match="argument"):
        PRESETS["inquire-mobile"].as_trl_reward("coordinate")


def test_json_label_column_missing_bbox_column_and_custom_names() -> None:
    preset = PRESETS["inquire-mobile"]
    fn = preset.as_trl_reward(label="action", image_size="size", model_image_size="resized")
    values = fn(
        [call({"action": "click", "coordinate": [250, 500]})],
        action=[json.dumps({"name": "mobile_use", "arguments": {"action": "click", "coordinate": [250, 500]}})],
        size=[[1000, 2000]],
        resized=[[500, 1000]],
    )
    assert values == [3.0]  # no box: the closeness rule, which the label point passes


def test_missing_columns_raise_a_clear_error() -> None:
    fn = PRESETS["gui-r1"].as_trl_reward()
    with pytest.raises(DataError, match="model_image_size"):
        fn(COMPLETIONS, label=COLUMNS["label"], image_size=COLUMNS["image_size"])
    with pytest.raises(DataError, match="'bbox' has 1 values for 5 completions"):
        fn(COMPLETIONS, **{**COLUMNS, "bbox": [None]})


def test_result_record_and_lookup() -> None:
    result = RewardResult(format=1.0, accuracy=1.5, total=2.5, components={"type": 1.0, "argument": 0.5})
    assert result.to_record() == {"format": 1.0, "accuracy": 1.5, "total": 2.5, "type": 1.0, "argument": 0.5}
    assert result.get("argument") == 0.5
    with pytest.raises(KeyError, match="format, accuracy, total, type, argument"):
        result.get("coordinate")


def test_core_rewards_do_not_import_torch() -> None:
    import subprocess
    import sys

    code = "import sys, mobile_r1.core.rewards as r; r.get_preset('inquire-mobile'); print('torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


def test_trl_sees_a_named_synchronous_reward_function() -> None:
    trl_utils = pytest.importorskip("trl.trainer.utils")
    fn = PRESETS["ui-r1"].as_trl_reward("coordinate")
    assert trl_utils.get_callable_name(fn) == "ui_r1_coordinate"
    assert not trl_utils.is_async_callable(fn)
