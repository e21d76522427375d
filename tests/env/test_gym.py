"""The Gymnasium face: `mobile_r1/Phone-v0` passes Gymnasium's own checker and runs a long random loop."""

from __future__ import annotations

import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import mobile_r1.env  # noqa: F401  (registers mobile_r1/Phone-v0)
from mobile_r1.core.actions import Action
from mobile_r1.core.errors import ConfigError


@pytest.mark.slow
def test_the_checker_passes_on_text_and_image_observations_without_a_warning() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # any warning of the checker fails the test
        check_env(gymnasium.make("mobile_r1/Phone-v0", suite="nav-sim").unwrapped)
        check_env(gymnasium.make("mobile_r1/Phone-v0", suite="inquire-sim", episodes=8, observation="image",
                                 render_mode="rgb_array").unwrapped)


@pytest.mark.slow
def test_a_thousand_random_steps_through_the_gymnasium_api() -> None:
    env = gymnasium.make("mobile_r1/Phone-v0", suite="nav-sim")
    env.action_space.seed(0)
    obs, info = env.reset(seed=0)
    episodes, errors, steps = 0, 0, 0
    for _ in range(1000):
        action = env.action_space.sample()
        assert env.action_space.contains(action) and "<tool_call>" in action
        obs, reward, terminated, truncated, info = env.step(action)
        steps += 1
        assert obs in env.observation_space and reward in (0.0, 1.0)
        errors += info["error"] is not None
        if terminated or truncated:
            assert "verdict" in info and truncated  # random actions never terminate: the budget ends the episode
            episodes += 1
            obs, info = env.reset()
    env.close()
    assert steps == 1000 and episodes > 20 and 0 < errors < 1000


def test_the_oracle_steps_earn_the_judges_reward_and_model_text_is_parsed() -> None:
    env = gymnasium.make("mobile_r1/Phone-v0", suite="nav-sim", split="test", episodes=4, dialect="compact")
    obs, info = env.reset(seed=3, options={"episode": 0})
    assert obs["instruction"] == info["instruction"] == env.unwrapped.episodes[0].instruction
    backend = env.unwrapped.backend
    plan = backend.open(env.unwrapped.episodes[0]).expert_demo().plan()
    dialect = env.unwrapped.dialect
    total = 0.0
    for i, step in enumerate(plan):
        action = step.action if i % 2 else dialect.render(step.action, "go", "step")  # Actions and model text alike
        obs, reward, terminated, truncated, info = env.step(action)
        total += reward
    assert terminated and not truncated and total == 1.0 and info["verdict"]["success"]
    # an unreadable reply costs a step and says why
    env.reset(options={"episode": 1})
    _, reward, terminated, _, info = env.step("I do not know what to do")
    assert reward == 0.0 and not terminated and info["error"] and info["step"] == 1


def test_bad_arguments_are_clear_errors() -> None:
    with pytest.raises(ConfigError, match="observation"):
        gymnasium.make("mobile_r1/Phone-v0", observation="smell")
    env = gymnasium.make("mobile_r1/Phone-v0", suite="nav-sim", episodes=2)
    with pytest.raises(ConfigError, match="names no episode"):
        env.reset(options={"episode": "nope"})
    with pytest.raises(ConfigError, match="outside"):
        env.reset(options={"episode": 5})


def test_render_gives_the_screenshot() -> None:
    env = gymnasium.make("mobile_r1/Phone-v0", suite="nav-sim", episodes=2, render_mode="rgb_array")
    env.reset(seed=0)
    frame = env.render()
    assert isinstance(frame, np.ndarray) and frame.shape == (720, 324, 3) and frame.dtype == np.uint8
    env.step(Action.back())
