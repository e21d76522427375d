"""Tasks for a device from the project that defines them: the bridge through which a device backend (adb, AndroidWorld)
plays another part's suites without importing it.

AndroidWorld keeps its device interface free of tasks: a task sets itself up and judges itself on whatever device it
is given. The same split holds here. The device backends (`env.adb`, `env.androidworld`) know phones; a `TaskSource`
knows suites. The simulated phone registers one under `OUR_PHONE` ("sim", in `env.sim`); a device backend that finds
it is talking to our simulated phone (adb: the device answers `simctl`; AndroidWorld: the server sends `/ui_elements`)
looks that source up by name and asks it for

    source = task_source(OUR_PHONE)                                 # imports mobile_r1.env.sim on first use
    source.suites()                                                 # ["inquire-sim", "nav-sim"]
    refs = source.episodes("nav-sim", "test", n=10, seed=0)        # the source's own EpisodeRefs
    source.expert_demo(refs[0], via="androidworld", scale=0.3)      # the expert's run, as it plays over that API

A device backend keeps the source's episodes in its own refs (its name, the source's `meta` kept) and hands them
back to `expert_demo` as they are. The rule judge stays with the device: our simulated phone judges its own state
(`simctl judge` over adb, `task/score` over AndroidWorld's API), so a source needs no view of the phone.

A third party's source is registered with `TASK_SOURCES.register(name, factory)`, by the entry-point group
`mobile_r1.task_sources`, or named as `package.module:Name` (the core registry's rules).
"""

from __future__ import annotations

from typing import Callable, Literal, Protocol, Sequence

from mobile_r1.core.registry import Registry
from mobile_r1.env.protocol import Demonstration, EpisodeRef

# How a device takes the expert's actions: over adb our actions reach the simulated phone as they are; over
# AndroidWorld's API they become its JSON actions, which its executor performs its own way (a swipe is a scroll).
Via = Literal["adb", "androidworld"]
VIAS: tuple[Via, ...] = ("adb", "androidworld")
OUR_PHONE = "sim"  # the source of our simulated phone's suites


class TaskSource(Protocol):
    """The suites a device can play, their episodes, and the expert's demonstration of one (see the module
    docstring)."""

    name: str

    def suites(self) -> list[str]:
        """The suites `episodes` knows."""
        ...

    def episodes(self, suite: str | None, split: str = "test", n: int | None = None, seed: int = 0,
                 tasks: Sequence[str] = ()) -> list[EpisodeRef]:
        """The episodes of a suite split, as `Backend.episodes` lists them."""
        ...

    def expert_demo(self, episode: EpisodeRef, *, via: Via, ask: bool = True, self_correct: float = 0.0,
                    seed: int = 0, render: bool = False, scale: float = 0.3,
                    search_first: bool = False) -> Demonstration:
        """The expert's demonstration of `episode` (one of `episodes`' refs, or a device's copy of one), planned as
        its actions play `via` that device's interface; the options are `TaskEnv.expert_demo`'s, and `scale` that of
        the screenshots `render` draws."""
        ...


TaskSourceFactory = Callable[..., TaskSource]
TASK_SOURCES: Registry[TaskSourceFactory] = Registry("task source", builtin={OUR_PHONE: "mobile_r1.env.sim"},
                                                     entry_points="mobile_r1.task_sources")


def task_source(name: str, **options: object) -> TaskSource:
    """The task source called `name`, built with `options` (the simulated phone's: `specs`, `specs_only`)."""
    return TASK_SOURCES.get(name)(**options)


__all__ = ["TaskSource", "TaskSourceFactory", "TASK_SOURCES", "task_source", "Via", "VIAS", "OUR_PHONE"]
