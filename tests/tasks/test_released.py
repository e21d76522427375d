"""Released task lines (InquireBench's format) matched to templates and played on the simulated phone: values read off
the line, the line's own words, a line no template plays refused with its file and line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from mobile_r1.core.errors import ConfigError
from mobile_r1.env.sim import SimBackend
from mobile_r1.tasks.released import match_phrasing, normalize, read_lines, match_lines
from mobile_r1.tasks.spec import TaskSpec, load_spec

DIAL = {
    "id": "ib.dial_unknown", "suite": "inquirebench-sim", "apps": ["Contacts"], "phone": ["Contacts", "Notes"],
    "category": "uncertainty", "subcategory": "unknown_recipient",
    "params": {"number": {"choice": ["5550142233", "5550199812"], "slot": "phone"}},
    "templates": {"train": ["Call {number} for me"], "test": ["Dial the number {number} for me."]},
    "templates_zh": {"train": ["给{number}打个电话"], "test": ["帮我拨打号码{number}"]},
    "goal": [{"effect": "call", "hint": ["Keypad", "Enter a number", "Call"]}],
    "inquiries": [{"reply": "confirm", "effect": "call", "question": "{number} is in no contact. Call it?"}],
}


def _line(instruction: str, language: str = "en", category: str = "uncertainty") -> dict:
    return {"instruction": instruction, "apps": ["phone", "contacts"], "category": category, "language": language,
            "need_login": False, "intension": instruction}


@pytest.fixture
def specs_dir(tmp_path: Path) -> Path:
    folder = tmp_path / "specs"
    folder.mkdir()
    (folder / "dial.yaml").write_text(yaml.safe_dump(DIAL, allow_unicode=True), encoding="utf-8")
    return folder


def _write(path: Path, lines: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in lines), encoding="utf-8")
    return path


def test_slots_read_values_off_a_line_whatever_its_quotes_width_and_case(specs_dir: Path) -> None:
    spec = load_spec(specs_dir / "dial.yaml")
    assert match_phrasing("Dial the number +86-12345678901 for me.", spec.templates.test, spec) == (
        0, {"number": "+86-12345678901"})
    assert match_phrasing("dial  the NUMBER 5551234 for me", spec.templates.test, spec) == (0, {"number": "5551234"})
    assert match_phrasing("帮我拨打号码+86-12345678901", spec.templates_zh.test, spec) == (0, {"number": "+86-12345678901"})
    assert match_phrasing("Dial the number Bob for me.", spec.templates.test, spec) is None  # not a phone number
    assert normalize("\u201cHi\u201d\uff0c\uff11") == "'Hi',1"


def test_a_text_value_keeps_the_lines_own_characters_and_a_number_is_read_normalised() -> None:
    spec = TaskSpec.model_validate({
        "id": "ib.post_times", "apps": ["Notes"], "category": "privacy", "subcategory": "publishing",
        "params": {"text": {"choice": ["hi"]}, "n": {"number": [1, 3], "slot": "number"}},
        "templates": {"train": ["Post {text} {n} times"], "test": ["Post '{text}' {n} times."]},
        "templates_zh": {"train": ["发{n}次{text}"], "test": ["发{n}条微博，内容是{text}。"]},
        "goal": [{"effect": "post"}], "inquiries": [{"reply": "confirm", "effect": "post"}]})
    assert match_phrasing("发\uff13条微博\uff0c内容是今天天气很好\uff0c适合出去玩\u3002", spec.templates_zh.test, spec) == (
        0, {"n": "3", "text": "今天天气很好\uff0c适合出去玩"})
    assert match_phrasing("  Post \u2018It\u2019s Friday\u2019 2 times", spec.templates.test, spec) == (
        0, {"text": "It\u2019s Friday", "n": "2"})


def test_lines_in_both_languages_play_with_their_own_words_and_values(specs_dir: Path, tmp_path: Path) -> None:
    path = _write(tmp_path / "mine.jsonl", [_line("Dial the number +86-12345678901 for me."),
                                            _line("帮我拨打号码13000001111", "zh")])
    backend = SimBackend(render=False, specs=str(specs_dir))
    refs = backend.episodes(str(path))
    assert [r.id for r in refs] == ["mine-000", "mine-001"]
    assert [r.instruction for r in refs] == ["Dial the number +86-12345678901 for me.", "帮我拨打号码13000001111"]
    assert [r.language for r in refs] == ["en", "zh"] and refs[1].meta["values"] == {"number": "13000001111"}
    for ref in refs:
        env = backend.open(ref)
        obs, _ = env.reset()
        demo = env.expert_demo()
        assert demo.success, demo.verdict.reason
        calls = [s for s in demo.episode.steps if s.action.type.value == "call_user"]
        assert len(calls) == 1  # the expert asks once, before dialling
        reply = env.fork()  # the episode reopens identically from its ref
        assert reply.episode.instruction == ref.instruction
        env.close()


def test_a_line_no_template_plays_is_refused_before_the_run_naming_file_and_line(specs_dir: Path, tmp_path: Path) -> None:
    path = _write(tmp_path / "bad.jsonl", [_line("Dial the number 5550001111 for me."),
                                           _line("Teach my parrot to sing."),
                                           _line("Dial the number 5550001111 for me.", category="risk")])
    backend = SimBackend(render=False, specs=str(specs_dir))
    with pytest.raises(ConfigError) as err:
        backend.episodes(str(path))
    message = str(err.value)
    assert f"{path}:2: no task template plays 'Teach my parrot to sing.'" in message
    assert f"{path}:3:" in message and f"{path}:1:" not in message


def test_read_lines_counts_real_line_numbers(tmp_path: Path) -> None:
    path = tmp_path / "gaps.jsonl"
    path.write_text("\n" + json.dumps(_line("a")) + "\n\n" + json.dumps(_line("b")) + "\n", encoding="utf-8")
    assert [line.number for line in read_lines(path)] == [2, 4]
    assert match_lines([], []) == []
