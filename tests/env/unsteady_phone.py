"""The toy phone showing the id of the process it runs in: played again in another process it is not the same
screen, so a Ray pool cannot bring its phones back after a worker dies (tests of that path)."""

from __future__ import annotations

import os

from mobile_r1.core.records import Observation, UIElement
from mobile_r1.env import register_backend
from mobile_r1.env.protocol import EpisodeRef

from tests.toy_phone import ToyBackend, ToyEnv


class UnsteadyEnv(ToyEnv):
    def _observe(self) -> Observation:
        observation = super()._observe()
        observation.elements.append(UIElement(3, "android.widget.TextView", (0, 2200, 1080, 2300),
                                              text=f"process {os.getpid()}"))
        return observation


class UnsteadyBackend(ToyBackend):
    name = "toy-unsteady"

    def open(self, episode: EpisodeRef, max_steps: int | None = None) -> UnsteadyEnv:
        env = super().open(episode, max_steps)
        unsteady = UnsteadyEnv(episode, max_steps)
        unsteady.capabilities = env.capabilities  # type: ignore[misc]
        return unsteady


def register() -> None:
    register_backend("toy-unsteady", lambda argument, **options: UnsteadyBackend(**options), replace=True)
