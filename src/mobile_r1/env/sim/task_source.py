"""The simulated phone's suites for devices: the `TaskSource` (`env.task_source`) registered as "sim", through which
the adb backend (on `mobile-r1 sim adbd`) and the androidworld backend (on `mobile-r1 sim serve`) play the
simulator's suites and get the expert's demonstration of an episode, without importing the simulator."""

from __future__ import annotations

from dataclasses import replace
from typing import Sequence

from mobile_r1.core.errors import ConfigError
from mobile_r1.env.protocol import Demonstration, EpisodeRef
from mobile_r1.env.sim.backend import NAME, SimBackend
from mobile_r1.env.sim.expert import demonstrate
from mobile_r1.env.sim.over_androidworld import OverAndroidWorld
from mobile_r1.env.task_source import OUR_PHONE, TASK_SOURCES, VIAS, Via


class SimTaskSource:
    """The simulator's suites and expert, for a device that is our simulated phone.

    specs, specs_only   a folder of the user's task specs, as for `SimBackend`
    """

    name = OUR_PHONE

    def __init__(self, specs: str | None = None, specs_only: bool = False) -> None:
        self.backend = SimBackend(render=False, xml=False, specs=specs, specs_only=specs_only)

    def suites(self) -> list[str]:
        return self.backend.suites()

    def episodes(self, suite: str | None, split: str = "test", n: int | None = None, seed: int = 0,
                 tasks: Sequence[str] = ()) -> list[EpisodeRef]:
        return self.backend.episodes(suite, split, n, seed, tasks)

    def expert_demo(self, episode: EpisodeRef, *, via: Via, ask: bool = True, self_correct: float = 0.0,
                    seed: int = 0, render: bool = False, scale: float = 0.3,
                    search_first: bool = False) -> Demonstration:
        """The expert plans on a local simulated phone with the episode's task on it (the same task and seed as the
        device's); over AndroidWorld's API that phone performs each action as our server does."""
        if via not in VIAS:
            raise ConfigError(f"the simulator's expert plays over {', '.join(VIAS)}; got {via!r}")
        task = self.backend.task_episode(replace(episode, backend=NAME))  # a device's copy names its own backend
        if via == "androidworld":
            task = OverAndroidWorld.of(task)
        return demonstrate(task, ask=ask, self_correct=self_correct, seed=seed, render=render, scale=scale,
                           search_first=search_first)


TASK_SOURCES.register(OUR_PHONE, SimTaskSource, replace=True)

__all__ = ["SimTaskSource"]
