"""`mobile_r1/Phone-v0` under Gymnasium's stock wrappers and vector envs, each with its defaults: AsyncVectorEnv with
shared memory, FlattenObservation, RecordEpisodeStatistics and make_vec in both modes; text with Chinese in it."""

from __future__ import annotations

import re
from pathlib import Path

import gymnasium
import numpy as np
import pytest
from gymnasium.spaces.utils import flatten, unflatten
from gymnasium.vector import AsyncVectorEnv, SyncVectorEnv
from gymnasium.wrappers import FlattenObservation, RecordEpisodeStatistics

import mobile_r1.env  # noqa: F401  (registers mobile_r1/Phone-v0)
from mobile_r1.core.actions import Action
from mobile_r1.env.gym import phone_text

OPTIONS = {"suite": "nav-sim", "episodes": 3, "max_steps": 2}


def _make() -> gymnasium.Env:
    return gymnasium.make("mobile_r1/Phone-v0", **OPTIONS)


def test_record_episode_statistics_finds_info_episode_free() -> None:
    env = RecordEpisodeStatistics(_make())
    _, info = env.reset(seed=0)
    episode_id = info["episode_id"]
    done = False
    while not done:
        _, _, terminated, truncated, info = env.step(Action.back())
        done = terminated or truncated
    assert info["episode"]["l"] == 2 and info["episode"]["r"] == 0.0 and info["episode_id"] == episode_id
    env.close()


def test_flatten_observation_encodes_the_text_and_gives_it_back() -> None:
    env = FlattenObservation(_make())
    flat, _ = env.reset(seed=0)
    space = env.unwrapped.observation_space
    assert flat.shape == env.observation_space.shape and flat.dtype == np.int32
    obs = unflatten(space, flat)
    assert obs["instruction"] == env.unwrapped.episodes[0].instruction or obs["instruction"] in [
        e.instruction for e in env.unwrapped.episodes]
    assert "TextView" in obs["screen"]
    chinese = {"instruction": "给妈妈发消息：今晚回家吃饭", "screen": '[1] TextView "微信" center=(1, 2)\n'}
    assert chinese in space and unflatten(space, flatten(space, chinese)) == chinese
    assert phone_text("cat 😸") == "cat \ufffd" and phone_text("cat 😸") in space["screen"]
    env.close()


@pytest.mark.slow
def test_async_vector_env_with_shared_memory_sees_what_a_sync_one_sees() -> None:
    fns = [_make, _make]
    fast, plain = AsyncVectorEnv(fns), SyncVectorEnv(fns)  # shared_memory=True: Gymnasium's default
    try:
        assert fast.shared_memory
        got, want = fast.reset(seed=3)[0], plain.reset(seed=3)[0]
        assert tuple(got["screen"]) == tuple(want["screen"]) and "TextView" in got["screen"][0]
        assert tuple(got["instruction"]) == tuple(want["instruction"])
        actions = (Action.open("Notes"), Action.open("Notes"))
        got, want = fast.step(actions)[0], plain.step(actions)[0]
        assert tuple(got["screen"]) == tuple(want["screen"]) and "Notes" in got["screen"][0]
        for _ in range(2):  # the budget of 2 ends the episode: autoreset gives the next one's first screen
            got = fast.step(actions)[0]
            want = plain.step(actions)[0]
        assert tuple(got["screen"]) == tuple(want["screen"])
    finally:
        fast.close()
        plain.close()


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["sync", "async"])
def test_make_vec_in_both_modes(mode: str) -> None:
    envs = gymnasium.make_vec("mobile_r1/Phone-v0", num_envs=2, vectorization_mode=mode, **OPTIONS)
    obs, info = envs.reset(seed=0)
    assert len(obs["screen"]) == 2 and all("TextView" in s for s in obs["screen"])
    obs, reward, terminated, truncated, info = envs.step(envs.action_space.sample())
    assert reward.shape == (2,) and len(info["episode_id"]) == 2
    envs.close()


@pytest.mark.slow
def test_the_example_of_the_gymnasium_page_runs(capsys: pytest.CaptureFixture[str]) -> None:
    page = (Path(__file__).resolve().parents[2] / "docs" / "gymnasium.md").read_text(encoding="utf-8")
    exec(compile(re.findall(r"```python\n(.*?)```", page, re.S)[0], "docs/gymnasium.md", "exec"), {})
    printed = capsys.readouterr().out.splitlines()
    assert "'l': 3" in printed[0] and printed[1] == "(131072,)" and printed[2].startswith("[1] ")
