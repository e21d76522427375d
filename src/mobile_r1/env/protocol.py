"""The door to a phone: what every backend (simulated phone, adb device, AndroidWorld server, ...) offers above it.

    backend = make_backend("sim")                            # or "adb:SERIAL", "androidworld:http://...", ...
    episodes = backend.episodes("nav-sim", "test", n=10)     # EpisodeRef: id, instruction, budget, category, ...
    env = backend.open(episodes[0])                          # a TaskEnv: the phone with that task on it
    observation, info = env.reset()
    observation, terminated, truncated, info = env.step(Action.click(540, 1200))   # info.user_reply, info.error
    judgement = env.judge()                                  # Judgement(verdict, judge="rule" | "model" | ...)
    env.close()

Layers above `mobile_r1.env` (agents, evaluation, training) know phones only through this module: an
`EpisodeRef` (plain data: it pickles, and `to_dict` / `from_dict` carry it through JSON), a `TaskEnv` and the
records it returns. What a backend can do beyond the core is declared in `TaskEnv.capabilities` and checked with
`require`, never probed:

    FORK       `fork()`: a copy of the phone in its current state (a GRPO group of G rollouts from one start)
    STATE_KEY  observations carry a `state_key` that names the phone's state (GiGPO's anchor states)
    EXPERT     `expert_demo()`: the task expert's demonstration (the oracle agents, expert training data)

The step budget is kept here, once, for every backend: `open(episode, max_steps)` sets it (default: the episode's
own), `step` and `skip` count against it, and the step that uses it up returns `truncated=True`. `skip(reason)` is
a turn in which the agent gave nothing the phone can do (an unreadable reply): it costs a step and touches nothing.

Many phones at once: `step_many([Move(env, action), ...])`, `reset_many(envs)` and `expert_demos(envs)` play one
call on each of many environments and return the results in order (an `InfraError` in place of a phone that failed).
In process they run one after another, exactly as the single calls do; a backend whose phones live in other processes
(`env.pools.RayBackend`) runs them at once. Each environment sees the same calls either way, so results do not
depend on the batching.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field, fields
from enum import Enum
from typing import Any, ClassVar, Literal, Mapping, Sequence, Union, cast

from mobile_r1.core.actions import Action
from mobile_r1.core.errors import CapabilityError, DataError, EnvError, InfraError
from mobile_r1.core.records import Episode, Observation
from mobile_r1.core.verdict import EpisodeVerdict, Judgement

JSON = Union[str, int, float, bool, None, list["JSON"], dict[str, "JSON"]]


class Capability(str, Enum):
    """An optional ability of a backend's environments (see the module docstring)."""

    FORK = "fork"
    STATE_KEY = "state_key"
    EXPERT = "expert"


CAPABILITY_USES = {
    Capability.FORK: "copy a phone in its current state (GRPO groups that start from one state)",
    Capability.STATE_KEY: "name the phone's state in every observation (GiGPO)",
    Capability.EXPERT: "demonstrate the task with an expert (the oracle agents, expert training data)",
}


@dataclass(frozen=True)
class EpisodeRef:
    """One episode a backend can open: which task, in what words, with which budget, and how it is classed.

    id             unique within a suite split (`shop.buy/test1/s7` for the simulator)
    instruction    what the agent is told
    task           the task family (a spec id, an AndroidWorld task type, an InquireBench task)
    backend        the name of the backend that made it (a ref opens only there)
    split, seed    where in its suite it comes from
    suite          the suite it belongs to, if any
    category       InquireBench's category (risk, privacy, intention, uncertainty, combination) or control /
                   navigation; subcategory likewise
    apps           the apps the task uses
    max_steps      the task's own step budget
    needs_inquiry  whether the task needs a question to the user (None: unknown)
    language       the instruction's language
    meta           whatever else the backend needs to open it again (JSON values only)
    """

    id: str
    instruction: str
    task: str
    backend: str
    split: str = "test"
    seed: int = 0
    suite: str | None = None
    category: str | None = None
    subcategory: str | None = None
    apps: tuple[str, ...] = ()
    max_steps: int = 15
    needs_inquiry: bool | None = None
    language: str = "en"
    meta: Mapping[str, JSON] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.id:
            raise DataError("an episode needs a non-empty id")
        if self.max_steps < 1:
            raise DataError(f"episode {self.id}: max_steps must be >= 1, got {self.max_steps}")

    def __hash__(self) -> int:
        return hash((self.backend, self.id))

    def to_dict(self) -> dict[str, JSON]:
        out = {f.name: getattr(self, f.name) for f in fields(self)}
        out["apps"] = list(self.apps)
        out["meta"] = dict(self.meta)
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> EpisodeRef:
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise DataError(f"episode record: unknown field {unknown[0]!r}")
        try:
            values = dict(data)
            values["apps"] = tuple(str(a) for a in values.get("apps") or ())
            values["meta"] = dict(values.get("meta") or {})
            return cls(**values)
        except TypeError as exc:
            raise DataError(f"episode record: {exc}") from None


@dataclass(slots=True)
class StepInfo:
    """What came back from one step besides the observation.

    step        steps taken in this episode so far, this one included
    error       why the action changed nothing (the phone refused it), or why the turn was skipped
    user_reply  the user's answer, when the action was `call_user`
    effects     irreversible effects this step caused, where the backend can see them
                ({"kind": "payment", "app": "wallet", "detail": {...}, "step": 3})
    extra       anything else the backend reports (device commands run, a safety gate's decision, ...)
    """

    step: int = 0
    error: str | None = None
    user_reply: str | None = None
    effects: list[dict[str, JSON]] = field(default_factory=list)
    extra: dict[str, JSON] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class PlannedStep:
    """One step of an expert's demonstration: the action (screen pixels) with its thought and description, and the
    state it was planned from (so a replay can tell it is still on plan)."""

    action: Action
    thought: str
    description: str
    state_key: str | None = None


@dataclass(slots=True)
class Demonstration:
    """The expert's run of an episode: the recorded episode (observations, thoughts, actions, target boxes), the
    judge's verdict on it, and why it stopped short when it did (`stuck`)."""

    episode: Episode
    verdict: EpisodeVerdict
    stuck: str | None = None

    @property
    def success(self) -> bool:
        return self.verdict.success and self.stuck is None

    def plan(self) -> list[PlannedStep]:
        return [PlannedStep(s.action, s.thought, s.description, s.observation.state_key if s.observation else None)
                for s in self.episode.steps]


class TaskEnv(ABC):
    """A phone with one task on it. Backends implement `_reset`, `_step`, `judge` (and `close` when they hold
    anything); the base class keeps the step budget and the episode's end."""

    capabilities: ClassVar[frozenset[Capability]] = frozenset()

    def __init__(self, episode: EpisodeRef, max_steps: int | None = None) -> None:
        if max_steps is not None and max_steps < 1:
            raise EnvError(f"max_steps must be >= 1, got {max_steps}")
        self.episode = episode
        self.budget = max_steps if max_steps is not None else episode.max_steps
        self.steps = 0
        self.terminated = False
        self.truncated = False
        self.observation: Observation | None = None

    # ----- what a backend implements -------------------------------------------------------------------------
    @abstractmethod
    def _reset(self) -> Observation:
        """Put the phone into the episode's starting state and observe it."""

    @abstractmethod
    def _step(self, action: Action) -> tuple[Observation, bool, StepInfo]:
        """Apply one action (screen pixels): the next observation, whether the episode ended, and the step's info."""

    @abstractmethod
    def judge(self) -> Judgement:
        """The verdict on the episode as it stands (after its last step, or stopped early)."""

    def close(self) -> None:
        """Release the phone (a no-op where nothing is held)."""

    @property
    def unwrapped(self) -> TaskEnv:
        """The environment inside any wrappers (`env.wrappers.TaskEnvWrapper`); itself when there are none."""
        return self

    # ----- the protocol ----------------------------------------------------------------------------------------
    def reset(self) -> tuple[Observation, StepInfo]:
        """Start the episode (again): the first observation and an empty info."""
        self.steps, self.terminated, self.truncated = 0, False, False
        self.observation = self._reset()
        return self.observation, StepInfo()

    def step(self, action: Action) -> tuple[Observation, bool, bool, StepInfo]:
        """(observation, terminated, truncated, info): `terminated` when the agent ended the task, `truncated` when
        this step used up the budget."""
        self._live()
        observation, terminated, info = self._step(action)
        return self._count(observation, terminated, info)

    def skip(self, reason: str) -> tuple[Observation, bool, bool, StepInfo]:
        """A turn that touches nothing (the agent's reply held no action): it costs a step of the budget."""
        self._live()
        assert self.observation is not None
        return self._count(self.observation, False, StepInfo(error=reason))

    @property
    def done(self) -> bool:
        return self.terminated or self.truncated

    def _live(self) -> None:
        if self.observation is None:
            raise EnvError(f"episode {self.episode.id}: call reset() before step()")
        if self.done:
            raise EnvError(f"episode {self.episode.id} has ended ({'terminated' if self.terminated else 'budget used'}); "
                           "call reset() to play it again")

    def _count(self, observation: Observation, terminated: bool, info: StepInfo) -> tuple[Observation, bool, bool, StepInfo]:
        self.steps += 1
        info.step = self.steps
        self.observation = observation
        self.terminated = bool(terminated)
        self.truncated = not self.terminated and self.steps >= self.budget
        return observation, self.terminated, self.truncated, info

    # ----- optional capabilities ----------------------------------------------------------------------------------
    def has(self, capability: Capability) -> bool:
        return capability in self.capabilities

    def require(self, capability: Capability, needed_by: str) -> None:
        """Raise a clear error unless this backend declares `capability`."""
        if capability not in self.capabilities:
            raise CapabilityError(
                f"{needed_by} needs a phone that can {CAPABILITY_USES[capability]}, and the "
                f"'{self.episode.backend}' backend cannot; use a backend that can (the simulated phone: --env sim)")

    def fork(self) -> TaskEnv:
        """(FORK) A new environment whose phone, user and step count are this one's, from here on independent."""
        self.require(Capability.FORK, "fork()")
        raise NotImplementedError  # a backend that declares FORK overrides this

    def expert_demo(self, *, ask: bool = True, self_correct: float = 0.0, seed: int = 0,
                    render: bool = False, search_first: bool = False) -> Demonstration:
        """(EXPERT) The expert's demonstration of this episode from its start, on a phone of its own (this one is
        not touched). `ask=False` plans as if the task needed no question; `self_correct` is the chance of one wrong
        step and its recovery; `render` draws the screenshots into the record; `search_first` finds a list entry the
        task names through the screen's search field where there is one, rather than by browsing for it."""
        self.require(Capability.EXPERT, "expert_demo()")
        raise NotImplementedError  # a backend that declares EXPERT overrides this

    # ----- many environments at once ------------------------------------------------------------------------------
    @classmethod
    def _gather(cls, calls: Sequence[EnvCall]) -> list[object]:
        """Run `calls` (each on an environment of this class) and return their results in order, the `InfraError`
        in place of a call whose phone failed. The default runs them one after another; a backend whose phones live
        in other processes overrides this to run them at once (`step_many` and friends group calls by it)."""
        out: list[object] = []
        for call in calls:
            try:
                out.append(call.run())
            except InfraError as exc:
                out.append(exc)
        return out

    def __enter__(self) -> TaskEnv:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


StepResult = tuple[Observation, bool, bool, StepInfo]
EnvMethod = Literal["reset", "step", "skip", "judge", "expert_demo"]


@dataclass(frozen=True, slots=True)
class EnvCall:
    """One protocol call on one environment, for a batch (`TaskEnv._gather`)."""

    env: TaskEnv
    method: EnvMethod
    args: tuple[object, ...] = ()
    kwargs: Mapping[str, object] = field(default_factory=dict)

    def run(self) -> object:
        return getattr(self.env, self.method)(*self.args, **self.kwargs)


@dataclass(frozen=True, slots=True)
class Move:
    """One environment's turn in a batch (`step_many`): an action, or (action None) a skipped turn and its reason."""

    env: TaskEnv
    action: Action | None
    reason: str = ""

    def call(self) -> EnvCall:
        if self.action is None:
            return EnvCall(self.env, "skip", (self.reason,))
        return EnvCall(self.env, "step", (self.action,))


def gather(calls: Sequence[EnvCall]) -> list[object]:
    """Run many calls, each environment class's together (`TaskEnv._gather`); results in the order of `calls`."""
    groups: dict[object, list[int]] = {}
    for index, call in enumerate(calls):
        groups.setdefault(type(call.env)._gather.__func__, []).append(index)  # type: ignore[attr-defined]
    out: list[object] = [None] * len(calls)
    for indices in groups.values():
        owner = type(calls[indices[0]].env)
        for index, result in zip(indices, owner._gather([calls[i] for i in indices])):
            out[index] = result
    return out


def step_many(moves: Sequence[Move]) -> list[StepResult | InfraError]:
    """`env.step(action)` (or `env.skip(reason)`) for every move: what each returned, or the `InfraError` of a phone
    that failed. Any other error is raised, as the single call would raise it."""
    return cast("list[StepResult | InfraError]", gather([m.call() for m in moves]))


def reset_many(envs: Sequence[TaskEnv]) -> list[tuple[Observation, StepInfo] | InfraError]:
    """`env.reset()` for every environment (the `InfraError` of a phone that failed in its place)."""
    return cast("list[tuple[Observation, StepInfo] | InfraError]", gather([EnvCall(e, "reset") for e in envs]))


def expert_demos(envs: Sequence[TaskEnv], **options: object) -> list[Demonstration | InfraError]:
    """`env.expert_demo(**options)` for every environment (each must declare EXPERT)."""
    for env in envs:
        env.require(Capability.EXPERT, "expert_demo()")
    return cast("list[Demonstration | InfraError]", gather([EnvCall(e, "expert_demo", (), options) for e in envs]))


class Backend(ABC):
    """A source of phones with tasks on them: lists the episodes of a suite and opens one as a `TaskEnv`. (This is the
    one meaning of "backend" in `env/`: see `env.registry`.)

    `max_in_play` is how many of its episodes can be in play at once (None: as many as wanted); a server or a device
    that holds one phone has 1, and `mobile-r1 eval` refuses more `--workers` than that.
    """

    name: ClassVar[str] = "backend"
    max_in_play: ClassVar[int | None] = None

    def suites(self) -> list[str]:
        """The suites `episodes` knows (empty when episodes come from elsewhere, such as a task file)."""
        return []

    @abstractmethod
    def episodes(self, suite: str | None, split: str = "test", n: int | None = None, seed: int = 0,
                 tasks: Sequence[str] = ()) -> list[EpisodeRef]:
        """The episodes of a suite split in the suite's order, deterministic for `seed`; `n` takes a balanced
        prefix, `tasks` keeps only those task families."""

    @abstractmethod
    def open(self, episode: EpisodeRef, max_steps: int | None = None) -> TaskEnv:
        """A phone with `episode` on it, not yet reset; `max_steps` overrides the episode's own budget."""

    def close(self) -> None:
        """Release what the backend holds (connections, servers)."""

    def name_pool(self) -> list[str]:
        """The proper names its apps draw their entries from (people, contact labels, brands), longest first, for
        copies of its episodes with those names made up (`mobile-r1 data swap-names`); empty where entries come from
        no fixed pool (a real phone)."""
        return []

    def remote_workers(self) -> int:
        """How many worker processes of its own step this backend's phones (0: they run in the caller's process). A
        caller with such a backend keeps at least that many episodes in flight and steps them together
        (`step_many`) rather than spreading episodes over processes of its own."""
        return 0

    def asks_person(self) -> bool:
        """Whether playing its episodes may stop to ask the person at this terminal (to approve an action, answer the
        agent or judge an episode); a caller then keeps the terminal free for the questions (no live display)."""
        return False

    @property
    def unwrapped(self) -> Backend:
        """The backend inside any wrappers (`env.wrappers.BackendWrapper`); itself when there are none."""
        return self

    def _check_ref(self, episode: EpisodeRef) -> None:
        if episode.backend != self.name:
            raise EnvError(f"episode {episode.id} was made by the '{episode.backend}' backend; this is '{self.name}'")

    def __enter__(self) -> Backend:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


__all__ = ["Backend", "TaskEnv", "EpisodeRef", "StepInfo", "Capability", "PlannedStep", "Demonstration", "JSON",
           "EnvCall", "Move", "StepResult", "gather", "step_many", "reset_many", "expert_demos"]
