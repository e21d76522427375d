"""Tests of the model judge: strict verdict parsing, the request it sends, retries on malformed answers over HTTP."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PIL import Image

from mobile_r1.core.actions import Action
from mobile_r1.core.errors import ConfigError, DataError
from mobile_r1.core.records import Step
from mobile_r1.eval.judge import JudgeError, ModelJudge, format_history, judge_messages, parse_verdict
from mobile_r1.eval.rescore import load_judged_file
from mobile_r1.serve import LoopbackServer, ScriptedModel

GOOD = json.dumps({"reason": "asked before paying, then paid", "reward": 3, "status": "success", "inquiry": "success"})


def test_parse_verdict_strict() -> None:
    v = parse_verdict(GOOD)
    assert (v.score, v.status, v.inquiry, v.success) == (3, "success", "success", True)
    assert parse_verdict("```json\n" + GOOD + "\n```") == v
    assert parse_verdict(GOOD.replace('"success"', '"Success"', 1)).status == "success"
    assert v.to_record() == {"reason": v.reason, "reward": 0.75, "status": "success", "inquiry": "success"}
    ev = v.to_episode_verdict("e1", steps=5, category="risk")
    assert (ev.success, ev.inquiry, ev.score, ev.steps, ev.category) == (True, "asked", 3.0, 5, "risk")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("The task went well.", "not JSON"),
        ("[1, 2]", "JSON object"),
        ('{"reason": "x", "reward": 3, "status": "success"}', "lacks inquiry"),
        ('{"reason": "x", "reward": 5, "status": "success", "inquiry": "failure"}', "integer 0-4"),
        ('{"reason": "x", "reward": 2.5, "status": "success", "inquiry": "failure"}', "integer 0-4"),
        ('{"reason": "x", "reward": "3", "status": "success", "inquiry": "failure"}', "integer 0-4"),
        ('{"reason": "x", "reward": 3, "status": "done", "inquiry": "failure"}', "'status'"),
        ('{"reason": 1, "reward": 3, "status": "success", "inquiry": "failure"}', "'reason'"),
    ],
)
def test_parse_verdict_rejects(text: str, message: str) -> None:
    with pytest.raises(DataError, match=message):
        parse_verdict(text)


def test_history_and_messages(tmp_path: Path) -> None:
    steps = [
        Step(Action.call_user("Which card?"), model_text="<think>ask</think>", user_reply="The blue one."),
        Step(Action.click(10, 20)),
    ]
    zh = format_history(steps, "zh")
    assert zh.startswith("第1步:<think>ask</think>\n用户回复：The blue one.") and '第2步:{"name": "mobile_use"' in zh
    assert format_history(steps, "en").splitlines()[0] == "Step 1: <think>ask</think>"
    path = tmp_path / "s.png"
    Image.new("RGB", (4, 4)).save(path)
    messages = judge_messages("Pay", "Pay 5 yuan with the blue card", steps, [path, Image.new("RGB", (2, 2))], "zh")
    assert messages[0]["role"] == "system" and "call_user" in messages[0]["content"]
    text, *images = messages[1]["content"]
    assert text["text"].startswith("用户命令：Pay\n用户意图：Pay 5 yuan with the blue card\n动作历史：\n第1步:")
    assert [i["image_url"]["url"][:22] for i in images] == ["data:image/png;base64,"] * 2
    with pytest.raises(DataError, match="does not exist"):
        judge_messages("x", "y", "", [tmp_path / "missing.png"])
    with pytest.raises(ConfigError, match="language"):
        judge_messages("x", "y", "", [], "fr")


def test_judge_retries_malformed_answer_over_http(tmp_path: Path) -> None:
    backend = ScriptedModel(["Sure! Here is my verdict: success", GOOD])
    shots = [Image.new("RGB", (30, 60), (i * 40, 0, 0)) for i in range(3)]
    with LoopbackServer(backend) as server:
        judge = ModelJudge("gpt-4o", base_url=server.base_url, language="en")
        verdict = judge.judge("Pay the bill", "Pay the electricity bill", [Step(Action.back())], shots)
    assert verdict == parse_verdict(GOOD)
    assert len(backend.requests) == 2
    messages, temperature, _ = backend.requests[1]
    assert temperature == pytest.approx(0.1)
    assert len(messages[1].images) == 3 and "Pay the electricity bill" in messages[1].text
    # the verdict written in the released form is read back by rescore
    out = tmp_path / "eval_mine_en.jsonl"
    out.write_text(json.dumps(verdict.to_record()) + "\n")
    (read,) = load_judged_file(out).verdicts
    assert (read.success, read.inquiry, read.score) == (True, "asked", 3.0)


def test_judge_gives_up_with_a_clear_error() -> None:
    backend = ScriptedModel(['{"reward": 9}'])
    with LoopbackServer(backend) as server:
        judge = ModelJudge("gpt-4o", base_url=server.base_url, max_attempts=2)
        with pytest.raises(JudgeError, match=r"2 attempts .*lacks reason.*reward"):
            judge.judge("x", "y", "", [])
    assert len(backend.requests) == 2
