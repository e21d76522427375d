"""Task files on a device (InquireBench's, and our own): `call_user` answered by the OpenAI-compatible simulated user
given the task's intent, episodes judged by the model judge, all behind `mobile-r1 serve`'s loopback server."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mobile_r1.cli.main import main
from mobile_r1.core.actions import Action
from mobile_r1.core.dialects import get_dialect
from mobile_r1.serve import LoopbackServer, ScriptedModel

from adb_fixtures import SimulatedDevice

pytestmark = pytest.mark.slow  # every test here starts the adb server and the simulated phone's adbd

INQUIRE = get_dialect("inquire")
ASK = INQUIRE.render(Action.call_user("发给哪位好友？"), thought="需要先问清楚发给谁。", description="询问用户")
DONE = INQUIRE.render(Action.terminate("success"), thought="完成了。", description="结束")
VERDICT = '{"reason": "asked before sending", "reward": 3, "status": "success", "inquiry": "success"}'


def _records(run: Path) -> list[dict]:
    return [json.loads(line) for line in (run / "episodes.jsonl").read_text().splitlines() if line.strip()]


def test_inquirebench_tasks_with_the_simulated_user_and_the_model_judge(sim_device: SimulatedDevice, shared_dir: Path,
                                                                         tmp_path: Path) -> None:
    tasks = shared_dir / "data" / "inquirebench" / "tasks_zh.jsonl"
    intents = [json.loads(line)["intension"] for line in tasks.read_text(encoding="utf-8").splitlines()[:2]]
    sim_device.simctl("reset", "0")
    agent = ScriptedModel([ASK, DONE, ASK, DONE])
    user = ScriptedModel(["发给张三吧。"])
    judge = ScriptedModel([VERDICT])
    run = tmp_path / "run"
    with LoopbackServer(agent, model_name="agent") as a, LoopbackServer(user, model_name="user") as u, \
            LoopbackServer(judge, model_name="judge") as j:
        code = main(["eval", "--agent", "openai:agent", "--base-url", a.base_url, "--dialect", "inquire",
                     "--env", f"adb:{sim_device.serial}", "--tasks", str(tasks), "--episodes", "2", "--out", str(run),
                     "--env-option", "person=none", "--env-option", "user=openai", "--env-option", "user_model=user",
                     "--env-option", f"user_base_url={u.base_url}", "--env-option", "judge=model",
                     "--env-option", "judge_model=judge", "--env-option", f"judge_base_url={j.base_url}"])
    assert code == 0
    records = _records(run)
    assert [r["id"] for r in records] == ["tasks_zh-000", "tasks_zh-001"]
    assert all(r["steps"][0]["user_reply"] == "发给张三吧。" for r in records)
    assert all(r["verdict"]["success"] and r["verdict"]["score"] == 3.0 and r["verdict"]["inquiry"] == "asked"
               for r in records)
    assert all(r["judgement"]["judge"] == "model" and r["judgement"]["asked_steps"] == [0] for r in records)
    reset = records[0]["steps"][0]["env_info"]["reset"]
    assert reset[0]["cmd"] == "input keyevent KEYCODE_HOME", "a task on a device starts from the home screen"
    for (messages, _, _), intent in zip(user.requests, intents):  # the simulated user knows the intent
        assert intent in messages[0].text and messages[1].text == "发给哪位好友？"
    judged, _, _ = judge.requests[0]
    assert intents[0] in judged[1].text and "call_user" in judged[1].text
    assert len(judged[1].images) == 3, "the screen before each of the 2 steps and the final one"
    metrics = json.loads((run / "metrics.json").read_text())
    assert metrics["episodes"] == 2 and metrics["suite"] == str(tasks)


def test_a_task_file_needs_a_judge_when_nobody_is_at_the_terminal(sim_device: SimulatedDevice, tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    tasks = tmp_path / "mine.txt"
    tasks.write_text("# my tasks\nTurn on Wi-Fi\nOpen the calendar\n")
    code = main(["eval", "--agent", "random", "--env", f"adb:{sim_device.serial}", "--tasks", str(tasks),
                 "--env-option", "person=none"])
    assert code == 2
    assert "need a judge" in capsys.readouterr().err
