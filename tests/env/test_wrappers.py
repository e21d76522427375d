"""Wrappers forward every member and capability of what they wrap (as Gymnasium's `Wrapper`): the safety gate around
a backend and its phones is that backend in everything but the gate."""

from __future__ import annotations

import inspect
from typing import Any

from mobile_r1.core.actions import Action
from mobile_r1.env import Backend, Capability, TaskEnv
from mobile_r1.env.person import NoPerson
from mobile_r1.env.safety import Gate, GatedBackend, GatedTaskEnv
from mobile_r1.env.sim import SimBackend
from mobile_r1.env.wrappers import BackendWrapper, TaskEnvWrapper

import toy_phone


class OnePhone(toy_phone.ToyBackend):
    """A backend with more than the protocol's defaults: one episode at a time, a pool of names, a member of its own."""

    max_in_play = 1
    label = "the one phone"

    def name_pool(self) -> list[str]:
        return ["Ada", "Lin"]

    def remote_workers(self) -> int:
        return 3

    def describe(self, what: str) -> str:
        return f"{self.label}: {what}"


def _public(obj: object) -> list[str]:
    return [name for name in dir(obj) if not name.startswith("_")]


def _same_members(wrapped: object, inner: object) -> None:
    """Every public member of `inner` is on `wrapped`: data members equal, methods of no argument giving the same."""
    for name in _public(inner):
        assert hasattr(wrapped, name), f"{type(wrapped).__name__} drops {name!r}"
        mine, theirs = getattr(wrapped, name), getattr(inner, name)
        if not callable(theirs):
            assert mine == theirs or name == "unwrapped", name
        elif inspect.ismethod(theirs) and not [p for p in inspect.signature(theirs).parameters.values()
                                               if p.default is p.empty and p.kind in (p.POSITIONAL_ONLY,
                                                                                      p.POSITIONAL_OR_KEYWORD)]:
            if name not in ("close", "reset", "fork", "expert_demo", "judge", "start"):  # calls that change or cost
                assert mine() == theirs(), name


def test_a_gated_backend_exposes_every_public_member_of_the_one_it_wraps() -> None:
    for inner in (SimBackend(render=False), OnePhone()):
        wrapped = GatedBackend(inner, Gate("risky", NoPerson()))
        _same_members(wrapped, inner)
        assert wrapped.unwrapped is inner and isinstance(wrapped, BackendWrapper)
    wrapped = GatedBackend(OnePhone(), Gate("risky", NoPerson()))
    assert (wrapped.name, wrapped.max_in_play, wrapped.name_pool(), wrapped.remote_workers()) == ("toy", 1, ["Ada", "Lin"], 3)
    assert wrapped.describe("ready") == "the one phone: ready"  # a member the protocol does not have
    assert not wrapped.asks_person()  # nobody at this terminal is asked


def test_a_gated_phone_exposes_every_public_member_of_the_one_it_wraps() -> None:
    backend = GatedBackend(SimBackend(render=False), Gate("risky", NoPerson()))
    env = backend.open(backend.episodes("inquire-sim", "test", 3)[0])
    env.reset()
    env.step(Action.swipe(540, 1800, 540, 600))
    assert isinstance(env, GatedTaskEnv) and isinstance(env, TaskEnvWrapper)
    _same_members(env, env.inner)
    assert env.steps == env.inner.steps == 1 and env.sim is env.inner.sim  # the simulator's own members too
    assert env.capabilities == {Capability.FORK, Capability.STATE_KEY, Capability.EXPERT}
    fork = env.fork()
    assert isinstance(fork, GatedTaskEnv) and fork.inner is not env.inner and fork.unwrapped is fork.inner
    assert (fork.steps, fork.observation) == (env.steps, env.observation) and fork.gate is env.gate


def test_a_refused_step_costs_the_inner_phone_a_turn_and_touches_nothing() -> None:
    toy_phone.register()
    backend = GatedBackend(toy_phone.ToyBackend(), Gate("risky", NoPerson()))
    episode = next(e for e in backend.episodes("toy", "test", 3) if e.task == "toy.delete")
    env = backend.open(episode, max_steps=2)
    env.reset()
    _, terminated, truncated, info = env.step(Action.click(800, 1100))  # Delete: risky, nobody to approve it
    assert not terminated and not truncated and info.step == 1 and not info.extra["gate"]["approved"]
    assert "safety gate" in (info.error or "") and env.inner.steps == 1 and not env.inner.state.deleted  # type: ignore[attr-defined]
    _, _, truncated, _ = env.step(Action.click(300, 1100))  # Plus: no risk, and the budget's last step
    assert truncated and env.done and env.inner.state.count == 1  # type: ignore[attr-defined]
    assert env.judge().verdict.steps == 2
    # the expert gets exactly the options asked for (this phone's expert knows fewer than the protocol's)
    assert [s.action.type.value for s in env.expert_demo(ask=True).episode.steps] == ["call_user", "click", "terminate"]
    assert [s.action.type.value for s in env.expert_demo(ask=False).episode.steps] == ["click", "terminate"]


def test_a_wrapper_overrides_only_what_it_changes() -> None:
    class Counting(TaskEnvWrapper):
        def __init__(self, inner: TaskEnv) -> None:
            super().__init__(inner)
            self.actions: list[Action] = []

        def step(self, action: Action) -> Any:
            self.actions.append(action)
            return self.inner.step(action)

    class Renamed(BackendWrapper):
        def open(self, episode: Any, max_steps: int | None = None) -> TaskEnv:
            return Counting(self.inner.open(episode, max_steps))

    backend: Backend = Renamed(toy_phone.ToyBackend())
    env = backend.open(backend.episodes("toy", "test", 1)[0])
    env.reset()
    env.step(Action.click(300, 1100))
    env.step(Action.terminate())
    assert isinstance(env, Counting) and len(env.actions) == 2 and env.done and env.judge().verdict.success
    assert env.has(Capability.FORK) and isinstance(env.fork(), Counting)
