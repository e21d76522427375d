"""Numbers a task line writes in words ('four', 'third', '四', '第三') read as numbers, and a spec parameter that reads
one off a line's value."""

from __future__ import annotations

import pytest

from mobile_r1.core.errors import ConfigError
from mobile_r1.env.sim.episode import draw_params
from mobile_r1.sim.system import Phone
from mobile_r1.tasks.numerals import numeral_value
from mobile_r1.tasks.spec import TaskSpec


@pytest.mark.parametrize("text, value", [
    ("4", 4), ("4th", 4), ("four", 4), ("Four", 4), ("third", 3), ("first", 1), ("twelfth", 12), ("fourth", 4),
    ("twenty-one", 21), ("twentieth", 20), ("a", 1), ("四", 4), ("两", 2), ("十", 10), ("十二", 12), ("二十一", 21),
    ("第三", 3), ("第一", 1), ("一百二十", 120), ("第 3", 3),
])
def test_numbers_in_words_digits_and_chinese(text: str, value: int) -> None:
    assert numeral_value(text) == value


def test_a_word_that_is_no_number_is_refused_saying_what_is_read() -> None:
    with pytest.raises(ConfigError, match="English words"):
        numeral_value("several")


def test_a_numeral_parameter_reads_the_number_of_the_value_a_line_gives() -> None:
    spec = TaskSpec.model_validate({
        "id": "t.timer", "apps": ["Notes"], "category": "control", "subcategory": "control",
        "params": {"words": {"choice": ["five"], "slot": "word"}, "minutes": {"numeral": "{words}"}},
        "templates": {"train": ["Set a {words}-minute timer"], "test": ["A {words} minute timer"]},
        "goal": [{"screen": "notes/home"}]})
    phone = Phone(apps=["Notes"], seed=1)
    assert draw_params(spec, phone, 1)["minutes"] == 5
    assert draw_params(spec, phone, 1, given={"words": "四"}) == {"words": "四", "minutes": 4}
    with pytest.raises(ValueError, match="exactly one of"):
        TaskSpec.model_validate({**spec.model_dump(exclude={"source"}), "params": {
            "minutes": {"numeral": "{words}", "value": 3}}})
