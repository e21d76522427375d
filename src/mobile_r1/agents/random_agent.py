"""The `random` agent: a uniformly random action from the dialect's action space, pointing at elements or anywhere."""

from __future__ import annotations

import random
from typing import Any, Sequence

from mobile_r1.agents.base import Agent, AgentOutput, AgentRequest
from mobile_r1.agents.registry import register_agent
from mobile_r1.core.actions import BUTTONS, Action, ActionType
from mobile_r1.core.dialects import ParseResult, get_dialect
from mobile_r1.core.errors import ConfigError
from mobile_r1.core.records import Observation

WORDS = ("hello", "yes", "ok", "search", "photo", "music", "tomorrow", "mom", "pay", "settings", "note", "map")
KEYS = ("volume_up", "volume_down", "enter", "back", "home")
APPS = ("Settings", "Messages", "Contacts", "Camera", "Clock", "Browser", "Gallery", "Calendar")


class RandomAgent(Agent):
    """Picks an action type uniformly from the dialect's action space, then random arguments.

    A point lands inside a random on-screen element's bounds with probability `on_elements` (when the screen
    has elements), else anywhere on the screen. The model text is the action rendered in the dialect, in
    screen pixels. Seeded: the same seed and requests give the same actions.
    """

    name = "random"

    def __init__(self, *, dialect: str = "qwen2.5vl", seed: int = 0, on_elements: float = 0.5) -> None:
        if not 0 <= on_elements <= 1:
            raise ConfigError(f"on_elements must be a probability in [0, 1], got {on_elements}")
        self.dialect = get_dialect(dialect)
        self.types: tuple[ActionType, ...] = tuple(self.dialect.action_types) or tuple(ActionType)
        self.on_elements = on_elements
        self.rng = random.Random(seed)

    @classmethod
    def from_spec(cls, argument: str | None, **options: Any) -> RandomAgent:
        """The agent `random` or `random:SEED` names."""
        if argument:
            try:
                options.setdefault("seed", int(argument))
            except ValueError:
                raise ConfigError(f"random:SEED takes an integer seed, got {argument!r}") from None
        return cls(**options)

    def _point(self, obs: Observation, allow_elements: bool = True) -> tuple[int, int]:
        w, h = obs.screen_size
        elements = [e for e in obs.elements if e.bounds[2] > e.bounds[0] and e.bounds[3] > e.bounds[1]]
        if allow_elements and elements and self.rng.random() < self.on_elements:
            x1, y1, x2, y2 = self.rng.choice(elements).bounds
            return (self.rng.randint(max(x1, 0), min(x2, w - 1)), self.rng.randint(max(y1, 0), min(y2, h - 1)))
        return (self.rng.randrange(w), self.rng.randrange(h))

    def _text(self) -> str:
        return " ".join(self.rng.choice(WORDS) for _ in range(self.rng.randint(1, 4)))

    def sample(self, obs: Observation) -> Action:
        """One random action for this screen, in screen pixels."""
        kind = self.rng.choice(self.types)
        if kind is ActionType.CLICK:
            return Action.click(*self._point(obs))
        if kind is ActionType.LONG_PRESS:
            return Action.long_press(*self._point(obs), time=float(self.rng.randint(1, 3)))
        if kind is ActionType.SWIPE:
            return Action.swipe(*self._point(obs), *self._point(obs, allow_elements=False))
        if kind is ActionType.TYPE:
            return Action.type_text(self._text())
        if kind is ActionType.KEY:
            return Action.key(self.rng.choice(KEYS))
        if kind is ActionType.SYSTEM_BUTTON:
            return Action.system_button(self.rng.choice(BUTTONS))
        if kind is ActionType.OPEN:
            return Action.open(self.rng.choice(APPS))
        if kind is ActionType.WAIT:
            return Action.wait(float(self.rng.randint(1, 3)))
        if kind is ActionType.TERMINATE:
            return Action.terminate(self.rng.choice(("success", "failure")))
        if kind is ActionType.CALL_USER:
            return Action.call_user(f"Do you mean {self._text()}?")
        return Action.answer(self._text())

    def act_batch(self, requests: Sequence[AgentRequest]) -> list[AgentOutput]:
        outputs = []
        for r in requests:
            action = self.sample(r.observation)
            text = self.dialect.render(action, thought="random", description=str(action))
            result = ParseResult(action, "random", str(action), True, None, text)
            outputs.append(AgentOutput(text=text, parse=result, action=action))
        return outputs


register_agent("random", RandomAgent.from_spec, replace=True)
