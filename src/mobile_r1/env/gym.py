"""The Gymnasium face of any backend: `gymnasium.make("mobile_r1/Phone-v0", suite="nav-sim")`.

    import gymnasium, mobile_r1.env                      # importing mobile_r1.env registers the id
    env = gymnasium.make("mobile_r1/Phone-v0", suite="nav-sim", split="train", dialect="compact")
    obs, info = env.reset(seed=0)                        # obs: {"instruction": str, "screen": str}; info["episode_id"]
    obs, reward, terminated, truncated, info = env.step(model_text)   # or a mobile_r1 Action
    # reward is 0 until the episode ends; then the judge's outcome (1.0 success, else 0.0; reward="score": score / 4)

Keyword arguments: `suite`, `split` and `episodes` (how many of the split; None: all) choose the episodes,
`suite_seed` the split's seed; `backend` names the phone (`sim`, or any `make_backend` spec) with
`backend_options`; `observation` is "text" (the screen's element list, one line per element with its centre, in
screen pixels: what text-only agents read) or "image" (the screenshot as an H x W x 3 uint8 array); `dialect` is the
language of the actions; `max_steps` overrides each episode's own budget; `reward` is "success" or "score".

The action is the model's text in the env's dialect (its `<tool_call>` read with the dialect's parser; coordinates
in screen pixels), so an LLM's reply goes straight in; a `mobile_r1.core.Action` is taken as it is. The action
space is text: `sample()` writes a random valid action in the dialect. A reply with no readable action costs a
step and touches nothing (`info["error"]` says why), as in `mobile-r1 eval`. `reset(seed=...)` picks the episode
with the env's random generator (`options={"episode": index or id}` picks one by hand); the backend resets it
deterministically. `info` carries the instruction, the episode id (`episode_id`: `info["episode"]` is left to
Gymnasium's `RecordEpisodeStatistics`), the step, the user's reply to `call_user`, the phone's error, and at the end
the verdict.

Gymnasium's stock wrappers and vector envs take it with their defaults: the text spaces hold what a phone shows
(`PHONE_CHARSET`: every character of Unicode's basic plane, Chinese included; a character beyond it reaches the
agent as U+FFFD), so `AsyncVectorEnv`'s shared memory and `FlattenObservation` can encode them. Gymnasium reads a
`Text` space's shared memory once, when the vector env is made (its observations would never change); this module
registers a reader for its own text spaces that reads the memory whenever the observations are used.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.vector.utils import read_from_shared_memory

from mobile_r1.core.actions import Action
from mobile_r1.core.dialects import get_dialect
from mobile_r1.core.dialects.observation import render_elements
from mobile_r1.core.errors import ConfigError
from mobile_r1.core.records import Observation
from mobile_r1.env.protocol import EpisodeRef, TaskEnv
from mobile_r1.env.registry import make_backend

ENV_ID = "mobile_r1/Phone-v0"
MAX_TEXT = 65_536  # characters of an instruction, a screen listing or an action text
SIM_SCREEN = (1080, 2400)
REPLACEMENT = "\ufffd"
# What a phone shows: tab, newline and every character of the basic plane that is not a control or a surrogate
# (Latin, CJK and its punctuation, full-width forms...). Gymnasium's default is [A-Za-z0-9].
PHONE_CHARSET = "\t\n" + "".join(chr(c) for c in (*range(0x20, 0x7F), *range(0xA0, 0xD800), *range(0xE000, 0xFFFE)))
_IN_CHARSET = frozenset(PHONE_CHARSET)


def phone_text(text: str, max_length: int = MAX_TEXT) -> str:
    """`text` cut to `max_length` characters, with each character outside `PHONE_CHARSET` as U+FFFD."""
    text = text[:max_length]
    if all(c in _IN_CHARSET for c in text):
        return text
    return "".join(c if c in _IN_CHARSET else REPLACEMENT for c in text)


class AnyText(spaces.Text):
    """A text space over `PHONE_CHARSET` of up to `max_length` characters."""

    def __init__(self, max_length: int, *, min_length: int = 0, seed: int | None = None) -> None:
        super().__init__(max_length, min_length=min_length, charset=PHONE_CHARSET, seed=seed)


class SharedTexts(Sequence[str]):
    """The texts of `n` envs in an `AsyncVectorEnv`'s shared memory, decoded each time they are read; a deep copy
    (what the vector env hands out) is a tuple of the current texts."""

    def __init__(self, space: spaces.Text, memory: Any, n: int) -> None:
        self.space, self.memory, self.n = space, memory, n
        self.lookup = np.array([*space.character_list, ""], dtype=object)

    def texts(self) -> tuple[str, ...]:
        data = np.frombuffer(self.memory.get_obj(), dtype=np.int32).reshape((self.n, self.space.max_length))
        pad = len(self.space.character_set)
        out = []
        for row in data:
            ends = np.flatnonzero(row >= pad)
            row = row[:ends[0]] if len(ends) else row
            out.append("".join(self.lookup[row]))
        return tuple(out)

    def __getitem__(self, index: Any) -> Any:
        return self.texts()[index]

    def __len__(self) -> int:
        return self.n

    def __deepcopy__(self, memo: dict[int, Any]) -> tuple[str, ...]:
        return self.texts()

    def __repr__(self) -> str:
        return repr(self.texts())


@read_from_shared_memory.register(AnyText)
def _read_texts(space: AnyText, shared_memory: Any, n: int = 1) -> SharedTexts:
    return SharedTexts(space, shared_memory, n)


class ActionText(AnyText):
    """Model text in a dialect; also holds `Action`s. `sample()` is a random valid action written in the dialect."""

    def __init__(self, dialect: str, screen_size: tuple[int, int], seed: int | None = None) -> None:
        super().__init__(MAX_TEXT, min_length=0, seed=seed)
        self.dialect = get_dialect(dialect)
        self.screen_size = screen_size

    def contains(self, x: Any) -> bool:
        return isinstance(x, Action) or super().contains(x)

    def sample(self, mask: Any = None, probability: Any = None) -> str:
        rng = self.np_random
        w, h = self.screen_size
        kinds = [t for t in ("click", "long_press", "swipe", "type", "back", "home", "wait") if self._allowed(t)]
        kind = kinds[int(rng.integers(len(kinds)))]
        point = (int(rng.integers(w)), int(rng.integers(h)))
        if kind == "click":
            action = Action.click(*point)
        elif kind == "long_press":
            action = Action.long_press(*point)
        elif kind == "swipe":
            action = Action.swipe(*point, int(rng.integers(w)), int(rng.integers(h)))
        elif kind == "type":
            action = Action.type_text("".join(chr(int(c)) for c in rng.integers(97, 123, size=int(rng.integers(1, 9)))))
        elif kind == "back":
            action = Action.back()
        elif kind == "home":
            action = Action.home()
        else:
            action = Action.wait(1.0)
        return self.dialect.render(action, thought="A random step.", description=kind)

    def _allowed(self, kind: str) -> bool:
        samples = {"click": Action.click(0, 0), "long_press": Action.long_press(0, 0), "swipe": Action.swipe(0, 0, 1, 1),
                   "type": Action.type_text("a"), "back": Action.back(), "home": Action.home(), "wait": Action.wait(1.0)}
        return self.dialect.allows(samples[kind])


class PhoneEnv(gymnasium.Env):
    """A Gymnasium environment over the episodes of one suite split of a phone backend (see the module docstring)."""

    metadata = {"render_modes": ["rgb_array"], "render_fps": 2}  # the simulated phone takes 0.5 s per step

    def __init__(self, suite: str = "nav-sim", split: str = "train", episodes: int | None = None, suite_seed: int = 0,
                 backend: str = "sim", backend_options: dict[str, Any] | None = None,
                 observation: Literal["text", "image"] = "text", dialect: str = "compact",
                 max_steps: int | None = None, reward: Literal["success", "score"] = "success",
                 scale: float = 0.3, screen_size: tuple[int, int] = SIM_SCREEN, render_mode: str | None = None) -> None:
        if observation not in ("text", "image"):
            raise ConfigError(f"observation must be 'text' or 'image', got {observation!r}")
        if reward not in ("success", "score"):
            raise ConfigError(f"reward must be 'success' or 'score', got {reward!r}")
        if render_mode not in (None, "rgb_array"):
            raise ConfigError(f"render_mode must be None or 'rgb_array', got {render_mode!r}")
        self.render_mode = render_mode
        self.observation_mode = observation
        self.reward_kind = reward
        self.max_steps = max_steps
        self.dialect = get_dialect(dialect)
        self.screen_size = tuple(screen_size)
        render = observation == "image" or render_mode == "rgb_array"
        self.backend = make_backend(backend, render=render, scale=scale, xml=False, **(backend_options or {}))
        self.episodes: list[EpisodeRef] = self.backend.episodes(suite, split, episodes, suite_seed)
        if not self.episodes:
            raise ConfigError(f"{suite}/{split} has no episodes")
        self.image_shape = (round(self.screen_size[1] * scale), round(self.screen_size[0] * scale), 3)
        screen: spaces.Space[Any] = (AnyText(MAX_TEXT, min_length=0) if observation == "text"
                                     else spaces.Box(0, 255, self.image_shape, dtype=np.uint8))
        self.observation_space = spaces.Dict({"instruction": AnyText(MAX_TEXT, min_length=0), "screen": screen})
        self.action_space = ActionText(dialect, self.screen_size)
        self.task_env: TaskEnv | None = None
        self._observation: Observation | None = None

    # ----- the Gymnasium API -------------------------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
        super().reset(seed=seed)
        episode = self._choose(options or {})
        if self.task_env is not None:
            self.task_env.close()
        self.task_env = self.backend.open(episode, max_steps=self.max_steps)
        observation, _ = self.task_env.reset()
        self._observation = observation
        return self._obs(observation), self._info()

    def step(self, action: str | Action) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        env = self.task_env
        if env is None or self._observation is None:
            raise ConfigError("call reset() before step()")
        if isinstance(action, Action):
            observation, terminated, truncated, info = env.step(action)
        elif isinstance(action, str):
            parsed = self.dialect.parse(action)
            if parsed.action is None:
                observation, terminated, truncated, info = env.skip(parsed.error or "no action could be read")
            else:
                observation, terminated, truncated, info = env.step(parsed.action)
        else:
            raise ConfigError(f"an action is the model's text or a mobile_r1 Action, got {type(action).__name__}")
        self._observation = observation
        extra: dict[str, Any] = {"error": info.error, "user_reply": info.user_reply}
        reward = 0.0
        if terminated or truncated:
            verdict = env.judge().verdict
            reward = (verdict.score or 0.0) / 4.0 if self.reward_kind == "score" else float(verdict.success)
            extra["verdict"] = verdict.to_dict()
        return self._obs(observation), reward, terminated, truncated, self._info(**extra)

    def render(self) -> np.ndarray | None:
        if self.render_mode != "rgb_array" or self._observation is None or self._observation.screenshot is None:
            return None
        return np.array(self._observation.screenshot.convert("RGB"), dtype=np.uint8)

    def close(self) -> None:
        if self.task_env is not None:
            self.task_env.close()
            self.task_env = None
        self.backend.close()

    # ----- helpers --------------------------------------------------------------------------------------------------------
    def _choose(self, options: dict[str, Any]) -> EpisodeRef:
        wanted = options.get("episode")
        if wanted is None:
            return self.episodes[int(self.np_random.integers(len(self.episodes)))]
        if isinstance(wanted, int) and not isinstance(wanted, bool):
            if not 0 <= wanted < len(self.episodes):
                raise ConfigError(f"options['episode'] = {wanted} is outside 0..{len(self.episodes) - 1}")
            return self.episodes[wanted]
        for episode in self.episodes:
            if episode.id == wanted:
                return episode
        raise ConfigError(f"options['episode'] = {wanted!r} names no episode of this split")

    def _obs(self, observation: Observation) -> dict[str, Any]:
        assert self.task_env is not None
        instruction = phone_text(self.task_env.episode.instruction)
        if self.observation_mode == "text":
            if observation.elements_missing:
                raise ConfigError(f"observation='text' needs the screen's element list, but this backend gives none: "
                                  f"{observation.elements_missing}; use observation='image'")
            return {"instruction": instruction,
                    "screen": phone_text(render_elements(observation.elements, observation.screen_size))}
        if observation.screenshot is None:
            raise ConfigError("this backend gave no screenshot; use observation='text'")
        image = observation.screenshot.convert("RGB")
        if image.size != (self.image_shape[1], self.image_shape[0]):
            image = image.resize((self.image_shape[1], self.image_shape[0]))
        return {"instruction": instruction, "screen": np.array(image, dtype=np.uint8)}

    def _info(self, **extra: Any) -> dict[str, Any]:
        assert self.task_env is not None
        return {"episode_id": self.task_env.episode.id, "instruction": self.task_env.episode.instruction,
                "step": self.task_env.steps, "budget": self.task_env.budget, **extra}


def register() -> None:
    """Register `mobile_r1/Phone-v0` with Gymnasium (once)."""
    if ENV_ID not in gymnasium.registry:
        gymnasium.register(id=ENV_ID, entry_point="mobile_r1.env.gym:PhoneEnv")


__all__ = ["PhoneEnv", "ActionText", "AnyText", "SharedTexts", "register", "phone_text", "ENV_ID", "PHONE_CHARSET"]
