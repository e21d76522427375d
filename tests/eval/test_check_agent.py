"""`mobile-r1 check-agent`: the expert's actions through a dialect and back at several screen sizes; a dialect that loses
something is reported step by step and the command fails."""

from __future__ import annotations

import json
import re

from mobile_r1.agents.base import ModelView
from mobile_r1.cli.main import main
from mobile_r1.core.actions import Action
from mobile_r1.core.dialects import QwenDialect
from mobile_r1.eval.check_agent import ExpertStep, check_dialect


def test_the_tool_call_dialects_come_back_the_same(capsys) -> None:
    assert main(["check-agent", "--dialect", "inquire", "--prescale", "0.3", "--episodes", "2", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["ok"] and report["problems"] == [] and report["frame"] == "qwen"
    assert set(report["screens"]) == {"720x1280", "1080x1920", "1080x2400", "1440x3200", "1600x2560"}
    assert all(row["checked"] > 5 and row["differ"] == 0 for row in report["screens"].values())
    assert main(["check-agent", "--dialect", "qwen2.5vl", "--frame", "normalized", "--episodes", "2",
                 "--screens", "720x1280,1600x2560"]) == 0
    out = capsys.readouterr().out
    assert "frame normalized" in out and "not in the dialect (not checked): call_user x 1" in out


def test_uitars_loses_the_wait_duration_and_the_command_fails(capsys) -> None:
    # nav-sim's experts wait for the maps to load; UI-TARS's wait() has no duration
    assert main(["check-agent", "--dialect", "uitars", "--suite", "nav-sim", "--episodes", "6", "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert not report["ok"] and report["problems"]
    assert {p["problem"] for p in report["problems"]} == {"'time' 1.0 came back as None"}
    assert all(p["sent"]["action"] == "wait" and p["back"] == {"action": "wait"} for p in report["problems"])


class ShiftingDialect(QwenDialect):
    """A dialect whose writer is off by a few model pixels: what a wrong rounding or an off-by-one looks like."""

    def render(self, action: Action, thought: str = "", description: str = "") -> str:
        text = super().render(action, thought, description)
        return re.sub(r'"coordinate": \[(\d+), (\d+)\]', lambda m: f'"coordinate": [{int(m[1]) + 3}, {m[2]}]', text)


def test_a_point_moved_by_more_than_the_rounding_is_reported() -> None:
    steps = [ExpertStep("probe", 0, Action.click(540, 1200), (1080, 2400)),
             ExpertStep("probe", 1, Action.type_text('He said "hi"\nthen left \\ 好'), (1080, 2400)),
             ExpertStep("probe", 2, Action.swipe(1079, 2399, 0, 0), (1080, 2400))]
    good = check_dialect(ModelView.create("qwen2.5vl"), steps, [(720, 1280), (1440, 3200)])
    assert good.ok and sum(good.checked.values()) == 6
    bad = check_dialect(ModelView.create(ShiftingDialect()), steps, [(720, 1280), (1440, 3200)])
    assert [(p.index, p.screen) for p in bad.problems] == [(0, (720, 1280)), (0, (1440, 3200)), (2, (720, 1280)),
                                                         (2, (1440, 3200))]
    assert "more than the rounding allows" in bad.problems[0].problem and bad.problems[0].back["action"] == "click"
