"""Tests of offline step evaluation on the released record formats and our native store."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Sequence

import pytest

from mobile_r1.agents import AgentOutput, AgentRequest, make_agent
from mobile_r1.agents.base import Agent
from mobile_r1.core.actions import Action
from mobile_r1.core.dialects import ParseResult
from mobile_r1.core.errors import DataError
from mobile_r1.core.formats import load_any
from mobile_r1.core.matching import get_matcher
from mobile_r1.core.records import Episode
from mobile_r1.eval.offline import evaluate_offline, labelled_requests, write_step_results

DATA = Path(__file__).resolve().parents[1] / "core" / "formats" / "data"


class LabelAgent(Agent):
    """Answers each step with its label (optionally shifted), and records the history it was given."""

    def __init__(self, episodes: Sequence[Episode], shift: tuple[int, int] = (0, 0)) -> None:
        self.labels = {(e.id, i): s.action for e in episodes for i, s in enumerate(e.steps)}
        self.shift = shift
        self.histories: list[list[Action]] = []

    def act(self, request: AgentRequest) -> AgentOutput:
        self.histories.append([s.action for s in request.history])
        action = self.labels[(request.episode_id, len(request.history))]
        if action.coordinate is not None:
            action = action.map_points(lambda p: (p[0] + self.shift[0], p[1] + self.shift[1]))
        return AgentOutput(str(action), ParseResult(action, "", "", True, None, str(action)), action)


@pytest.mark.parametrize("name", ["mobile_r1_sample.jsonl", "inquire_sft_sample.jsonl", "inquire_grpo_sample.jsonl"])
def test_labels_score_perfectly_on_every_format(name: str) -> None:
    _, episodes = load_any(DATA / name)
    agent = LabelAgent(episodes)
    result = evaluate_offline(agent, episodes, get_matcher("qwen-ac"), image_root=DATA, screen_size=(1092, 2408))
    steps = sum(len(e.steps) for e in episodes)
    assert result.report.steps == steps == len(result.steps)
    assert result.report.step_sr == 1.0 and result.report.type_accuracy == 1.0
    assert result.report.preset == "qwen-ac"


def test_history_is_the_labelled_one() -> None:
    _, episodes = load_any(DATA / "mobile_r1_sample.jsonl")
    agent = LabelAgent(episodes)
    evaluate_offline(agent, episodes, get_matcher("aitw"), batch_size=2)
    first = episodes[0]
    assert agent.histories[: len(first.steps)] == [[s.action for s in first.steps[:i]] for i in range(len(first.steps))]


def test_far_clicks_miss_grounding_but_keep_the_type() -> None:
    _, episodes = load_any(DATA / "mobile_r1_sample.jsonl")
    result = evaluate_offline(LabelAgent(episodes, shift=(400, 700)), episodes, get_matcher("qwen-ac"))
    assert result.report.type_accuracy == 1.0
    assert result.report.grounding == 0.0
    assert result.report.step_sr < 1.0


def test_random_agent_runs_and_limit_cuts(tmp_path: Path) -> None:
    _, episodes = load_any(DATA / "mobile_r1_sample.jsonl")
    result = evaluate_offline(make_agent("random", seed=3), episodes, get_matcher("gui-r1"), limit=3)
    assert result.report.steps == 3
    assert 0.0 <= result.report.type_accuracy <= 1.0
    out = tmp_path / "steps.jsonl"
    write_step_results(out, result)
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(rows) == 4 and rows[-1]["summary"]["preset"] == "gui-r1"
    assert {"label", "pred", "type_match", "exact", "model_text"} <= rows[0].keys()


def test_a_record_without_any_size_asks_for_one() -> None:
    _, episodes = load_any(DATA / "inquire_sft_sample.jsonl")
    with pytest.raises(DataError, match="--screen-size"):
        evaluate_offline(LabelAgent(episodes), episodes, get_matcher("aitw"))


def test_no_labelled_steps_is_an_error() -> None:
    with pytest.raises(DataError, match="no labelled steps"):
        evaluate_offline(make_agent("random"), [Episode(id="e", instruction="x")], get_matcher("aitw"))


def test_requests_carry_screenshots_when_the_files_exist(tmp_path: Path) -> None:
    from PIL import Image

    from mobile_r1.core.records import Observation, Step

    Image.new("RGB", (108, 240), "white").save(tmp_path / "a.png")
    obs = Observation(screen_size=(1080, 2400), screenshot_path="a.png")
    ep = Episode(id="e", instruction="x", steps=[Step(action=Action.click(1, 2), observation=obs)])
    (request, step, size), = list(labelled_requests([ep], image_root=tmp_path))
    assert request.observation.screenshot is not None and size == (1080, 2400) and request.episode_id == "e"
