"""Wrapper bases, as Gymnasium's `Wrapper`: a backend or a task environment around another that forwards every member
and capability by default, so a wrapper overrides only what it changes.

    class Logged(TaskEnvWrapper):
        def step(self, action):
            print(action)
            return self.inner.step(action)            # budget, judge, fork, expert_demo, capabilities: the inner's

`BackendWrapper` forwards the protocol (`name`, `max_in_play`, `suites`, `episodes`, `open`, `close`, `name_pool`,
`remote_workers`, `asks_person`) and, through `__getattr__`, every other public member of the inner backend (an adb
backend's `serial` and `do`, ...). `TaskEnvWrapper` forwards the episode's state (`episode`, `budget`, `steps`,
`terminated`, `truncated`, `observation`), the declared `capabilities`, every protocol call (`reset`, `step`, `skip`,
`judge`, `close`, `fork`, `expert_demo`) with all its options, and every other public member of the inner
environment. The step budget and the episode's end are kept once, by the innermost environment: a wrapper that
refuses a step passes it on as `inner.skip(reason)`, which costs the step and touches nothing. `fork()` forks the
inner environment and wraps the copy the same way (a shallow copy of the wrapper around it; a wrapper with state of its
own copies that too). `unwrapped` is the object inside every wrapper. The safety gate (`env.safety`) and the Ray pool
(`env.pools.RayBackend`) are built on these.
"""

from __future__ import annotations

import copy
from typing import Any, Sequence

from mobile_r1.core.actions import Action
from mobile_r1.core.records import Observation
from mobile_r1.core.verdict import Judgement
from mobile_r1.env.protocol import Backend, Capability, Demonstration, EpisodeRef, StepInfo, TaskEnv


class BackendWrapper(Backend):
    """A backend around `inner` that is the inner one in every member it does not override."""

    def __init__(self, inner: Backend) -> None:
        self.inner = inner

    @property  # type: ignore[override]
    def name(self) -> str:
        return self.inner.name

    @property  # type: ignore[override]
    def max_in_play(self) -> int | None:
        return self.inner.max_in_play

    @property
    def unwrapped(self) -> Backend:
        return self.inner.unwrapped

    def suites(self) -> list[str]:
        return self.inner.suites()

    def episodes(self, suite: str | None, split: str = "test", n: int | None = None, seed: int = 0,
                 tasks: Sequence[str] = ()) -> list[EpisodeRef]:
        return self.inner.episodes(suite, split, n, seed, tasks)

    def open(self, episode: EpisodeRef, max_steps: int | None = None) -> TaskEnv:
        return self.inner.open(episode, max_steps)

    def close(self) -> None:
        self.inner.close()

    def name_pool(self) -> list[str]:
        return self.inner.name_pool()

    def remote_workers(self) -> int:
        return self.inner.remote_workers()

    def asks_person(self) -> bool:
        return self.inner.asks_person()

    def __getattr__(self, name: str) -> Any:
        """Any other public member is the inner backend's."""
        if name.startswith("_") or name == "inner":
            raise AttributeError(name)
        return getattr(self.inner, name)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.inner!r})"


class TaskEnvWrapper(TaskEnv):
    """A task environment around `inner` that is the inner one in every member it does not override."""

    def __init__(self, inner: TaskEnv) -> None:  # no TaskEnv.__init__: the episode's state is the inner one's
        self.inner = inner

    # ----- the episode's state and capabilities: the inner environment's ----------------------------------------
    @property  # type: ignore[override]
    def episode(self) -> EpisodeRef:
        return self.inner.episode

    @property  # type: ignore[override]
    def budget(self) -> int:
        return self.inner.budget

    @property  # type: ignore[override]
    def steps(self) -> int:
        return self.inner.steps

    @property  # type: ignore[override]
    def terminated(self) -> bool:
        return self.inner.terminated

    @property  # type: ignore[override]
    def truncated(self) -> bool:
        return self.inner.truncated

    @property  # type: ignore[override]
    def observation(self) -> Observation | None:
        return self.inner.observation

    @property  # type: ignore[override]
    def capabilities(self) -> frozenset[Capability]:
        return self.inner.capabilities

    @property
    def unwrapped(self) -> TaskEnv:
        return self.inner.unwrapped

    # ----- the protocol: forwarded whole ---------------------------------------------------------------------------
    def reset(self) -> tuple[Observation, StepInfo]:
        return self.inner.reset()

    def step(self, action: Action) -> tuple[Observation, bool, bool, StepInfo]:
        return self.inner.step(action)

    def skip(self, reason: str) -> tuple[Observation, bool, bool, StepInfo]:
        return self.inner.skip(reason)

    def judge(self) -> Judgement:
        return self.inner.judge()

    def close(self) -> None:
        self.inner.close()

    def fork(self) -> TaskEnv:
        """The inner environment's fork, wrapped as this one is."""
        other = copy.copy(self)
        other.inner = self.inner.fork()
        return other

    def expert_demo(self, **options: Any) -> Demonstration:  # type: ignore[override]
        return self.inner.expert_demo(**options)

    # TaskEnv's hooks are not used: every protocol call above goes to the inner environment whole.
    def _reset(self) -> Observation:  # pragma: no cover
        raise NotImplementedError("a wrapper forwards reset() whole")

    def _step(self, action: Action) -> tuple[Observation, bool, StepInfo]:  # pragma: no cover
        raise NotImplementedError("a wrapper forwards step() whole")

    def __getattr__(self, name: str) -> Any:
        """Any other public member is the inner environment's."""
        if name.startswith("_") or name == "inner":
            raise AttributeError(name)
        return getattr(self.inner, name)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.inner!r})"


__all__ = ["BackendWrapper", "TaskEnvWrapper"]
