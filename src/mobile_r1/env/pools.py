"""Many phones at once: a pool of Ray actors behind the environment protocol (`RayBackend`).

    pool = RayBackend("sim", address=None, workers=4, render=False)   # a local Ray cluster, or one by address
    episodes = pool.episodes("inquire-sim", "test", n=40)             # listed here, by the inner backend
    env = pool.open(episodes[0])                                      # a RemoteTaskEnv: the phone lives in an actor
    step_many([Move(env, action), ...])                               # every phone of the batch steps at once

Each actor (`PhoneHost`) builds `make_backend(spec, **options)` in its own process and hosts the environments
opened on it; a `RemoteTaskEnv` is their proxy in the caller's process: every protocol call (reset, step, skip,
judge, expert_demo with all its options) is one generic actor call, observations and verdicts come back pickled, and
the phone's capabilities are the actor's phone's. A fork is made inside the actor that holds its phone. The pool is a
`BackendWrapper` (`env.wrappers`) around the inner backend built in the caller's process: its name, suites, episodes,
`max_in_play` and `name_pool` are that backend's, and it overrides what the pool changes (`open`, `close`,
`remote_workers`; `asks_person` is False: the actors have no terminal). The evaluation runner and stage-3 rollouts
play on it unchanged; the protocol's batch calls (`step_many`, `reset_many`, `expert_demos`) issue one actor call per
phone and wait for all of them together, so the phones of a turn advance in parallel across actors.

A worker that dies (its process killed, its node gone) is replaced by a new actor, and each of its episodes is
played again from its start on the new one: the proxy keeps the calls that made its phone what it is (the last
reset, then every step and skip, and the fork it came from) and replays them, checks that the phone is back on the
screen it had (same elements, same state key, same step count) and carries on with the call that failed. The
caller sees nothing but the delay: no episode is lost, none is counted twice. This needs a backend that replays
deterministically from a seed (the simulated phone and any pure-Python backend do); one that cannot (a real device)
is opened with `recover=False`, and a lost worker is then an `InfraError` (the runner records the episode apart and
`--resume` plays it again).

A worker lost with its node is another matter: when the cluster itself fails (its raylet killed, or the dashboard
agent it shares its fate with; no live node left; a replacement worker that does not come up within `start_timeout`;
Ray's control calls failing), no episode can be played, so the pool raises `ServiceError` at once, naming what
failed: the run stops with that message, what it finished is kept, and `--resume` goes on from there.

Ray is an optional dependency (`pip install 'mobile-r1[ray]'`), imported only when a pool starts. Actors import
`mobile_r1` by name, so on a cluster of several machines it must be installed on each node; a backend registered in
the caller's process (`register_backend`) reaches the actors through `setup`: modules ("pkg.mod") to import, or
callables ("pkg.mod:register") to call, in every actor before the backend is built.

Written here rather than taken from Ray's own pool helpers (`ray.util.ActorPool`): those hand tasks to whichever
actor is free, while a phone is state that lives in one actor, must be stepped there, and must be rebuilt when that
actor dies.
"""

from __future__ import annotations

import importlib
import logging
import os
import socket
import time
from dataclasses import dataclass, field
from types import ModuleType
from typing import TYPE_CHECKING, Any, Callable, ClassVar, Literal, Mapping, Sequence, TypeVar, get_args
from urllib.parse import urlsplit

from mobile_r1.core.actions import Action
from mobile_r1.core.errors import ConfigError, EnvError, InfraError, ServiceError
from mobile_r1.core.records import Observation
from mobile_r1.core.verdict import Judgement
from mobile_r1.env.protocol import Backend, Capability, Demonstration, EnvCall, EnvMethod, EpisodeRef, StepInfo, TaskEnv
from mobile_r1.env.registry import make_backend
from mobile_r1.env.wrappers import BackendWrapper

if TYPE_CHECKING:  # Ray is optional: its types name the seam, the module is imported when a pool starts
    from ray import ObjectRef
    from ray.actor import ActorClass, ActorHandle

T = TypeVar("T")

LOCAL = "local"
HEALTH_CHECK_SECONDS = 2.0  # while a worker starts, how often the cluster's nodes are checked
# A cluster this pool starts answers every call inside its reply (Ray's default puts answers over 100 KiB, a phone's
# screenshot among them, in the node's object store). Reading the store goes through the local raylet, and a driver
# whose raylet has died exits there at once (status 1, no message), before the pool can say the cluster failed.
INLINE_ANSWERS: dict[str, object] = {"max_direct_call_object_size": 64 << 20, "task_rpc_inlined_bytes_limit": 64 << 20}
PROTOCOL_CALLS: frozenset[str] = frozenset(get_args(EnvMethod))
RAY_MISSING = "Ray is not installed; install it with `pip install 'mobile-r1[ray]'` (or `pip install ray`)"


def _ray() -> ModuleType:
    try:
        import ray
    except ImportError:  # pragma: no cover - the dev extra installs it
        raise ConfigError(RAY_MISSING) from None
    return ray


def run_setup(setup: Sequence[str]) -> None:
    """Import each "module", or call each "module:function", of `setup` (what registers a backend)."""
    for item in setup:
        module, _, function = item.partition(":")
        try:
            imported = importlib.import_module(module)
        except ImportError as exc:
            raise ConfigError(f"setup {item!r}: cannot import {module!r} ({exc}); a Ray worker imports it by name, "
                              "so it must be installed (or on the path) where the workers run") from None
        if function:
            target = getattr(imported, function, None)
            if not callable(target):
                raise ConfigError(f"setup {item!r}: {module} has no function {function!r}")
            target()


def check_reachable(address: str, timeout: float = 10.0) -> None:
    """Fail fast on a cluster address nothing answers at (Ray itself retries for minutes): HOST:PORT and
    ray://HOST:PORT are tried with one TCP connection; "auto" and other forms are left to Ray."""
    if address == "auto":
        return
    parts = urlsplit(address if "://" in address else f"gcs://{address}")
    try:
        host, port = parts.hostname, parts.port
    except ValueError:
        raise ConfigError(f"a Ray address is HOST:PORT, ray://HOST:PORT or auto; got {address!r}") from None
    if not host or not port:
        raise ConfigError(f"a Ray address is HOST:PORT, ray://HOST:PORT or auto; got {address!r}")
    try:
        socket.create_connection((host, port), timeout=timeout).close()
    except OSError as exc:
        raise InfraError(f"no Ray cluster answers at {address} ({exc}); start one (`ray start --head`) or leave the "
                         "address out for a local cluster") from None


# ----- the actor's side -------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Failed:
    """An error raised in an actor, carried back as a value so the caller raises it as it was."""

    error: BaseException


@dataclass(frozen=True, slots=True)
class Op:
    """One call that made a phone what it is, kept to play it again on a new worker."""

    kind: Literal["reset", "step", "skip", "fork"]
    action: Action | None = None
    reason: str = ""


@dataclass(frozen=True, slots=True)
class Replayed:
    """A phone played again on a worker: its key there and where it stands."""

    key: int
    observation: Observation | None
    steps: int
    terminated: bool
    truncated: bool


def _guarded(method: Callable[..., Any]) -> Callable[..., Any]:
    def call(self: PhoneHost, *args: Any, **kwargs: Any) -> Any:
        try:
            return method(self, *args, **kwargs)
        except Exception as exc:  # every error goes back to the caller, who raises it
            exc.__traceback__ = None
            return Failed(exc)

    call.__name__, call.__doc__ = method.__name__, method.__doc__
    return call


class PhoneHost:
    """The body of one Ray actor: the inner backend, built in the actor's process, and the phones opened on it."""

    def __init__(self, spec: str, options: Mapping[str, Any], setup: Sequence[str]) -> None:
        run_setup(setup)
        self.backend = make_backend(spec, **dict(options))
        self.envs: dict[int, TaskEnv] = {}
        self.next_key = 0

    def pid(self) -> int:
        """The actor's process id (to watch it, or to kill it in a test)."""
        return os.getpid()

    def _add(self, env: TaskEnv) -> int:
        self.next_key += 1
        self.envs[self.next_key] = env
        return self.next_key

    @_guarded
    def open(self, episode: EpisodeRef, max_steps: int | None) -> tuple[int, frozenset[Capability]]:
        env = self.backend.open(episode, max_steps)
        return self._add(env), frozenset(env.capabilities)

    @_guarded
    def call(self, key: int, method: EnvMethod, args: Sequence[object], kwargs: Mapping[str, object]) -> object:
        """One protocol call on a phone here (`EnvCall`): what it returns (a skipped turn: its info alone, the
        caller has the screen already)."""
        if method not in PROTOCOL_CALLS:
            raise EnvError(f"{method!r} is not a call of the environment protocol")
        result = getattr(self.envs[key], method)(*args, **kwargs)
        return result[3] if method == "skip" else result

    @_guarded
    def fork(self, key: int) -> int:
        return self._add(self.envs[key].fork())

    @_guarded
    def close(self, key: int) -> None:
        env = self.envs.pop(key, None)
        if env is not None:
            env.close()

    @_guarded
    def replay(self, episode: EpisodeRef, max_steps: int | None, ops: Sequence[Op]) -> Replayed:
        """Open `episode` and play `ops` on it: the phone a dead worker held, rebuilt here."""
        env = self.backend.open(episode, max_steps)
        for op in ops:
            if op.kind == "reset":
                env.reset()
            elif op.kind == "step":
                assert op.action is not None
                env.step(op.action)
            elif op.kind == "skip":
                env.skip(op.reason)
            else:
                copy = env.fork()
                env.close()
                env = copy
        return Replayed(self._add(env), env.observation, env.steps, env.terminated, env.truncated)


# ----- the caller's side ------------------------------------------------------------------------------------------


@dataclass
class Slot:
    """One worker of the pool: its actor (replaced when it dies: `generation` counts the replacements) and how many
    phones it holds."""

    index: int
    actor: ActorHandle
    generation: int = 0
    envs: int = 0


@dataclass
class PoolStats:
    """What the pool went through: workers replaced after dying, phones played again on a new worker."""

    replaced: int = 0
    recovered: int = 0


@dataclass
class Pending:
    """An actor call in flight for one proxy."""

    env: RemoteTaskEnv
    call: EnvCall
    ref: ObjectRef
    generation: int


def same_screen(a: Observation | None, b: Observation | None) -> bool:
    """Whether two observations show the same phone (screenshots aside: they are drawn from the same state)."""
    if a is None or b is None:
        return a is b
    return (a.screen_size, a.elements, a.app, a.activity, a.state_key) == (
        b.screen_size, b.elements, b.app, b.activity, b.state_key)


class RemoteTaskEnv(TaskEnv):
    """A phone in a Ray actor, seen through the protocol. The step budget and the episode's end are kept here as for
    any TaskEnv (the actor's phone keeps the same count); `ops` is what a new worker replays if this one dies."""

    def __init__(self, pool: RayBackend, slot: Slot, key: int, episode: EpisodeRef, max_steps: int | None,
                 capabilities: frozenset[Capability], ops: Sequence[Op] = ()) -> None:
        super().__init__(episode, max_steps)
        self.pool, self.slot, self.key, self.generation = pool, slot, key, slot.generation
        self.capabilities = capabilities  # type: ignore[misc]  # the inner backend's, per phone
        self.max_steps = max_steps
        self.ops: list[Op] = list(ops)
        self.closed = False

    @property
    def fresh(self) -> bool:
        """Nothing to play again: the phone was opened and never reset."""
        return not self.ops

    # TaskEnv's hooks are not used: every protocol call below goes to the actor whole.
    def _reset(self) -> Observation:  # pragma: no cover
        raise NotImplementedError

    def _step(self, action: Action) -> tuple[Observation, bool, StepInfo]:  # pragma: no cover
        raise NotImplementedError

    # ----- the protocol ------------------------------------------------------------------------------------------
    def reset(self) -> tuple[Observation, StepInfo]:
        return self._one(EnvCall(self, "reset"))  # type: ignore[no-any-return]

    def step(self, action: Action) -> tuple[Observation, bool, bool, StepInfo]:
        return self._one(EnvCall(self, "step", (action,)))  # type: ignore[no-any-return]

    def skip(self, reason: str) -> tuple[Observation, bool, bool, StepInfo]:
        return self._one(EnvCall(self, "skip", (reason,)))  # type: ignore[no-any-return]

    def judge(self) -> Judgement:
        return self._one(EnvCall(self, "judge"))  # type: ignore[no-any-return]

    def expert_demo(self, **options: Any) -> Demonstration:  # type: ignore[override]
        self.require(Capability.EXPERT, "expert_demo()")
        return self._one(EnvCall(self, "expert_demo", (), options))  # type: ignore[no-any-return]

    def fork(self) -> RemoteTaskEnv:
        """A copy of this phone made in the actor that holds it."""
        self.require(Capability.FORK, "fork()")
        if self.observation is None:
            raise EnvError(f"episode {self.episode.id}: reset() before fork()")
        key = self.pool._call(self, lambda: self.slot.actor.fork.remote(self.key))
        other = RemoteTaskEnv(self.pool, self.slot, key, self.episode, self.max_steps, self.capabilities,
                              [*self.ops, Op("fork")])
        other.budget, other.steps, other.observation = self.budget, self.steps, self.observation
        other.terminated, other.truncated = self.terminated, self.truncated
        self.slot.envs += 1
        return other

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        self.slot.envs -= 1
        if self.generation == self.slot.generation:  # a phone on a dead worker is gone already
            ray = _ray()
            try:
                ray.get(self.slot.actor.close.remote(self.key))
            except ray.exceptions.RayActorError:
                pass

    @classmethod
    def _gather(cls, calls: Sequence[EnvCall]) -> list[object]:
        """Every call sent to its actor first, then every answer awaited: the phones work in parallel."""
        for call in calls:
            assert isinstance(call.env, RemoteTaskEnv)
            call.env._check(call)
        pending: list[Pending | InfraError] = []
        for call in calls:
            try:
                pending.append(call.env._send(call))  # type: ignore[attr-defined]
            except InfraError as exc:  # its phone could not be brought back on a new worker
                pending.append(exc)
        out: list[object] = []
        error: BaseException | None = None
        for p in pending:
            if isinstance(p, InfraError):
                out.append(p)
                continue
            try:
                out.append(p.env._receive(p))
            except InfraError as exc:
                out.append(exc)
            except Exception as exc:  # raised once every phone of the batch has answered, as a loop would raise it
                out.append(None)
                error = error or exc
        if error is not None:
            raise error
        return out

    # ----- calls ---------------------------------------------------------------------------------------------------
    def _one(self, call: EnvCall) -> object:
        self._check(call)
        return self._receive(self._send(call))

    def _check(self, call: EnvCall) -> None:
        if self.closed:
            raise EnvError(f"episode {self.episode.id}: the phone was closed")
        if call.method in ("step", "skip"):
            self._live()

    def _remote(self, call: EnvCall) -> ObjectRef:
        return self.slot.actor.call.remote(self.key, call.method, call.args, dict(call.kwargs))

    def _send(self, call: EnvCall) -> Pending:
        self.pool._sync(self)
        return Pending(self, call, self._remote(call), self.slot.generation)

    def _receive(self, pending: Pending) -> object:
        call = pending.call
        value = self.pool._get(self, pending.ref, pending.generation, lambda: self._remote(call))
        return self._after(call, value)

    def _after(self, call: EnvCall, value: Any) -> object:
        """Keep the local state (budget, end, observation) and the replay log in step with the actor's phone."""
        if call.method == "reset":
            observation, info = value
            self.steps, self.terminated, self.truncated = 0, False, False
            self.observation = observation
            self.ops = [Op("reset")]
            return observation, info
        if call.method == "step":
            observation, terminated, _, info = value
            self.ops.append(Op("step", action=call.args[0]))  # type: ignore[arg-type]
            return self._count(observation, terminated, info)
        if call.method == "skip":
            self.ops.append(Op("skip", reason=str(call.args[0])))
            assert self.observation is not None
            return self._count(self.observation, False, value)
        return value

    def _restore(self) -> None:
        """Play this phone again from its start on its slot's (new) worker and check that it is back where it was."""
        ray = _ray()
        slot = self.slot
        replayed = _unwrap(ray.get(slot.actor.replay.remote(self.episode, self.max_steps, self.ops)))
        if (replayed.steps, replayed.terminated, replayed.truncated) != (self.steps, self.terminated, self.truncated) \
                or not same_screen(replayed.observation, self.observation):
            raise InfraError(f"episode {self.episode.id}: its Ray worker died and replaying the episode on a new one did "
                             "not bring the phone back to where it was (the backend does not replay deterministically; "
                             "open it with recover=False)")
        self.key, self.generation = replayed.key, slot.generation
        self.pool.stats.recovered += 1


def _first_line(error: BaseException) -> str:
    lines = str(error).strip().splitlines()
    return lines[0][:200] if lines else type(error).__name__


def _unwrap(value: T | Failed) -> T:
    if isinstance(value, Failed):
        raise value.error
    return value


class RayBackend(BackendWrapper):
    """A pool of Ray actors, each building `make_backend(spec, **options)` and hosting phones; every member it does
    not override is the inner backend's, built here (see the module docstring).

    spec             the inner backend (`sim`, a name registered with `register_backend`, ...)
    address          None or "local": a local Ray cluster (the one this process already joined, RAY_ADDRESS, or a new
                     one); else a cluster's address ("auto", "HOST:6379", "ray://HOST:10001")
    workers          actors in the pool (None: one per CPU of the cluster)
    setup            modules to import / "module:function"s to call in each actor before the backend is built
    cpus_per_worker  the CPUs Ray reserves for each actor
    recover          replay the phones of a worker that dies on its replacement (False: each of them ends in an
                     InfraError; the worker is replaced all the same, for the phones opened after)
    max_recoveries   how often one call may find its worker dead before it gives up (an InfraError)
    start_timeout    seconds to wait for a new actor to come up
    options          the inner backend's options (render, scale, xml, ...)
    """

    def __init__(self, spec: str = "sim", *, address: str | None = None, workers: int | None = None,
                 setup: Sequence[str] = (), cpus_per_worker: float = 1.0, recover: bool = True, max_recoveries: int = 3,
                 start_timeout: float = 120.0, **options: Any) -> None:
        if workers is not None and workers < 1:
            raise ConfigError(f"a Ray pool needs at least one worker, got {workers}")
        if not cpus_per_worker > 0:
            raise ConfigError(f"cpus_per_worker must be > 0, got {cpus_per_worker}")
        self.spec, self.address, self.workers = spec, address, workers
        self.setup, self.options = tuple(setup), dict(options)
        self.cpus_per_worker, self.recover, self.max_recoveries = cpus_per_worker, recover, max_recoveries
        self.start_timeout = start_timeout
        self.stats = PoolStats()
        self.slots: list[Slot] = []
        self._local: Backend | None = None
        self._owns_ray = False
        self._host: ActorClass | None = None  # PhoneHost as a Ray actor class

    # ----- the inner backend, built here: episodes are listed by it ------------------------------------------------
    def local(self) -> Backend:
        """The inner backend built in this process (to list episodes; phones are opened in the actors)."""
        if self._local is None:
            run_setup(self.setup)
            self._local = make_backend(self.spec, **self.options)
        return self._local

    @property
    def inner(self) -> Backend:  # type: ignore[override]
        return self.local()

    def asks_person(self) -> bool:
        return False  # the phones are the actors', and an actor has no terminal

    # ----- the pool -----------------------------------------------------------------------------------------------
    def start(self) -> RayBackend:
        """Join (or start) the Ray cluster and bring the workers up; `open` does this on first use."""
        if self.slots:
            return self
        self.local()  # a bad spec or options fail here, before any actor starts
        ray = _ray()
        if not ray.is_initialized():
            address = None if self.address in (None, LOCAL) else self.address
            if address is not None:
                check_reachable(address)
            # a new local cluster is ours to configure; RAY_ADDRESS names one someone else started
            starts = address is None and not os.environ.get("RAY_ADDRESS")
            try:
                ray.init(address=address, include_dashboard=False, log_to_driver=False, logging_level=logging.ERROR,
                         configure_logging=False, _system_config=INLINE_ANSWERS if starts else None)
            except ConnectionError as exc:
                raise InfraError(f"cannot reach the Ray cluster at {self.address!r}: {exc}") from None
            self._owns_ray = True
        total = float(ray.cluster_resources().get("CPU", 0.0))
        size = self.workers or max(1, int(total // self.cpus_per_worker))
        if size * self.cpus_per_worker > total:
            raise ConfigError(f"{size} Ray workers of {self.cpus_per_worker:g} CPU each do not fit the cluster's "
                              f"{total:g} CPUs; ask for fewer workers (ray_workers / --ray-workers)")
        self._host = ray.remote(PhoneHost)
        actors = [self._spawn() for _ in range(size)]
        self._wait_ready(actors)
        self.slots = [Slot(i, actor) for i, actor in enumerate(actors)]
        return self

    def remote_workers(self) -> int:
        return len(self.start().slots)

    def worker_pids(self) -> list[int]:
        """The process id of each worker, in slot order."""
        ray = _ray()
        return [int(pid) for pid in ray.get([s.actor.pid.remote() for s in self.start().slots])]

    def _spawn(self) -> ActorHandle:
        return self._host.options(num_cpus=self.cpus_per_worker, max_restarts=0).remote(
            self.spec, self.options, self.setup)

    def _wait_ready(self, actors: Sequence[ActorHandle]) -> None:
        """Wait for new actors to answer; the cluster's health is checked every few seconds meanwhile, so a cluster
        that has lost its nodes ends the wait at once (ServiceError), as does `start_timeout`."""
        ray = _ray()
        deadline = time.monotonic() + self.start_timeout
        pending = [a.pid.remote() for a in actors]
        while True:
            try:
                ray.get(pending, timeout=max(0.1, min(HEALTH_CHECK_SECONDS, deadline - time.monotonic())))
                return
            except ray.exceptions.GetTimeoutError:
                self._check_cluster()
                if time.monotonic() >= deadline:
                    raise self._failed(f"it did not start {len(actors)} phone worker(s) within "
                                       f"{self.start_timeout:g} s (is it busy? are its CPUs taken?)") from None
            except ray.exceptions.RayActorError as exc:
                self._check_cluster()
                cause = getattr(exc, "cause", None) or exc
                raise InfraError(f"a Ray phone worker failed to start: {cause}") from None
            except ray.exceptions.RayError as exc:
                raise self._failed(f"{type(exc).__name__}: {_first_line(exc)}") from None

    def _check_cluster(self) -> None:
        """ServiceError when the cluster cannot host a phone worker now: no live node, too few CPUs on the live
        ones, or its control service not answering."""
        ray = _ray()
        try:
            nodes = ray.nodes()
        except Exception as exc:  # the cluster's control service is gone
            raise self._failed(f"its control service does not answer ({type(exc).__name__}: {_first_line(exc)})") from None
        alive = [n for n in nodes if n.get("Alive")]
        if not alive:
            why = sorted({str(n.get("DeathReasonMessage") or "no reason given") for n in nodes})
            raise self._failed(f"none of its {len(nodes)} node(s) is alive ({'; '.join(why)[:300]})")
        cpus = sum(float((n.get("Resources") or {}).get("CPU", 0.0)) for n in alive)
        if cpus < self.cpus_per_worker:
            raise self._failed(f"its live node(s) have {cpus:g} CPUs, fewer than one phone worker needs "
                               f"({self.cpus_per_worker:g})")

    def _failed(self, what: str) -> ServiceError:
        where = "the local Ray cluster" if self.address in (None, LOCAL) else f"the Ray cluster at {self.address}"
        return ServiceError(f"{where} failed: {what}. No episode can be played on it; what was finished is kept: "
                            "run the same command again with --resume to go on" + (
                                "" if self.address in (None, LOCAL) else " (check the cluster with `ray status`)"))

    def open(self, episode: EpisodeRef, max_steps: int | None = None) -> RemoteTaskEnv:
        """A phone with `episode` on it, on the worker that holds the fewest phones."""
        self.start()
        slot = min(self.slots, key=lambda s: (s.envs, s.index))
        key, capabilities = self._call(_Opening(self, slot, episode), lambda: slot.actor.open.remote(episode, max_steps))
        slot.envs += 1
        return RemoteTaskEnv(self, slot, key, episode, max_steps, capabilities)

    def close(self) -> None:
        """Stop the workers (and the local cluster, if this pool started it); a cluster that has failed is let go
        quietly."""
        if not self.slots and not self._owns_ray:
            return
        ray = _ray()
        for slot in self.slots:
            try:
                ray.kill(slot.actor, no_restart=True)
            except Exception:  # already gone
                pass
        self.slots = []
        if self._owns_ray:
            self._owns_ray = False
            try:
                ray.shutdown()
            except Exception:  # its processes are gone already
                pass

    # ----- calls and recovery ---------------------------------------------------------------------------------------
    def _lost(self, slot: Slot, generation: int) -> None:
        """The worker of `slot` died (as seen by a call made in `generation`): replace it, once; a ServiceError when
        the cluster itself has failed (nothing could replace it)."""
        if slot.generation != generation:
            return  # another phone of that worker saw it first
        self._check_cluster()
        ray = _ray()
        try:
            ray.kill(slot.actor, no_restart=True)
        except Exception:
            pass
        actor = self._spawn()
        self._wait_ready([actor])
        slot.actor, slot.generation = actor, slot.generation + 1
        self.stats.replaced += 1

    def _sync(self, env: _Holder) -> None:
        """Bring `env`'s phone back on its slot's new worker if the one it was on has died since."""
        ray = _ray()
        for _ in range(self.max_recoveries + 1):
            if env.generation == env.slot.generation:
                return
            if not self.recover and not env.fresh:
                raise self._gone(env)
            generation = env.slot.generation
            try:
                env._restore()
            except ray.exceptions.RayActorError:
                self._lost(env.slot, generation)
        raise self._gone(env)

    def _get(self, env: _Holder, ref: ObjectRef, generation: int, again: Callable[[], ObjectRef]) -> Any:
        """The answer of a call; if its worker died, the phone is rebuilt on a new one and the call made again."""
        ray = _ray()
        for _ in range(self.max_recoveries + 1):
            try:
                return _unwrap(ray.get(ref))
            except ray.exceptions.RayActorError:
                self._lost(env.slot, generation)  # later phones go to a new worker; this one is gone with it
                if not self.recover and not env.fresh:
                    raise self._gone(env) from None
                self._sync(env)
                generation, ref = env.slot.generation, again()
            except (ray.exceptions.RayError, ConnectionError) as exc:  # not the worker: Ray's own machinery
                if isinstance(exc, ray.exceptions.RayTaskError):
                    raise
                raise self._failed(f"{type(exc).__name__}: {_first_line(exc)}") from None
        raise self._gone(env)

    def _call(self, env: _Holder, send: Callable[[], ObjectRef]) -> Any:
        self._sync(env)
        return self._get(env, send(), env.slot.generation, send)

    def _gone(self, env: _Holder) -> InfraError:
        episode = env.episode.id
        if not self.recover:
            return InfraError(f"episode {episode}: the Ray worker holding its phone died (the pool does not replay "
                              "episodes: recover=False)")
        return InfraError(f"episode {episode}: its Ray worker died {self.max_recoveries + 1} times in a row")


@dataclass
class _Opening:
    """A phone being opened: it has a slot and an episode but nothing to replay yet."""

    pool: RayBackend
    slot: Slot
    episode: EpisodeRef
    generation: int = field(init=False)

    def __post_init__(self) -> None:
        self.generation = self.slot.generation

    fresh: ClassVar[bool] = True

    def _restore(self) -> None:
        self.generation = self.slot.generation


_Holder = RemoteTaskEnv | _Opening


def make_pool(spec: str, ray: str | None, workers: int | None = None, **options: Any) -> Backend:
    """`make_backend(spec, **options)`, or with `ray` (an address, or "local") the Ray pool around it."""
    if ray is None:
        return make_backend(spec, **options)
    return RayBackend(spec, address=ray, workers=workers, **options)


__all__ = ["RayBackend", "RemoteTaskEnv", "PhoneHost", "PoolStats", "make_pool", "same_screen", "run_setup",
           "check_reachable", "LOCAL"]
