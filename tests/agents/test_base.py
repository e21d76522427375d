"""Tests of ModelView: model frames, screenshot sizing and mapping parsed actions back to screen pixels."""

from __future__ import annotations

import pytest

from mobile_r1.agents import AgentRequest, ModelView
from mobile_r1.core.actions import Action
from mobile_r1.core.errors import ConfigError
from mobile_r1.core.geometry import Frame
from mobile_r1.core.records import Observation, Step


def test_frames(observation: Observation) -> None:
    assert ModelView.create().model_frame(observation) == Frame.qwen(1080, 2400)
    small = ModelView.create(prescale=0.3, max_pixels=200 * 28 * 28)
    assert small.model_frame(observation) == Frame.qwen(1080, 2400, prescale=0.3, max_pixels=200 * 28 * 28)
    assert ModelView.create(frame="normalized").model_frame(observation) == Frame.normalized()
    text = ModelView.create(observation_mode="text")
    assert text.frame == "screen" and text.model_frame(observation) == Frame.screen(1080, 2400)


def test_prompt_images_are_resized_to_the_model_frame(observation: Observation) -> None:
    view = ModelView.create("qwen2.5vl", prescale=0.3)
    messages, images = view.prompt(AgentRequest("x", observation, [Step(Action.back())]))
    frame = view.model_frame(observation)
    assert [im.size for im in images] == [(frame.width, frame.height)]
    assert sum(1 for m in messages if isinstance(m["content"], list) for p in m["content"] if p["type"] == "image") == 1
    grid_images = ModelView.create(frame="normalized").prompt(AgentRequest("x", observation))[1]
    assert grid_images[0].size == (1080, 2400)
    _, none = ModelView.create(observation_mode="text").prompt(AgentRequest("x", observation))
    assert none == []


def test_read_maps_to_screen(observation: Observation) -> None:
    view = ModelView.create("qwen2.5vl", frame="normalized")
    text = view.dialect.render(Action.swipe(0, 999, 500, 250))
    result, action = view.read(text, observation)
    assert result.action == Action.swipe(0, 999, 500, 250)
    assert action == Action.swipe(0, 2398, 540, 600)
    _, none = view.read("nothing here", observation)
    assert none is None


def test_missing_screenshot_and_bad_options(observation: Observation) -> None:
    blind = Observation(observation.screen_size, observation.elements)
    with pytest.raises(ConfigError, match="has none"):
        ModelView.create().prompt(AgentRequest("x", blind))
    with pytest.raises(ConfigError, match="observation mode"):
        ModelView.create(observation_mode="audio")
    with pytest.raises(ConfigError, match="prescale"):
        ModelView.create(prescale=0)
