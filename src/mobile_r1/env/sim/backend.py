"""The simulated phone as a backend behind the door (`SimBackend`: its suites' episodes) and a phone with a task on it
(`SimTaskEnv`, the `TaskEnv` it opens), with the factory that `make_backend("sim")` calls. "Backend" means a
`Backend` of the protocol, here as everywhere under `env/` (`env.registry`).

    backend = SimBackend(render=False)
    refs = backend.episodes("inquire-sim", "test", n=24)        # EpisodeRef per (spec, template, seed)
    env = backend.open(refs[0])                                  # SimTaskEnv: reset, step, judge, fork, expert_demo

Everything that reads or writes the simulator's state stays below the door: the task's set-up and parameters
(`episode`), the simulated user answering `call_user` (`user`), the rule judge (`judge`) and the expert (`expert`).
A `SimTaskEnv` declares every optional capability: FORK (a copy of the phone and its user in their current state),
STATE_KEY (every observation names the phone's state) and EXPERT (the search expert's demonstration).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

from mobile_r1.core.actions import Action
from mobile_r1.core.errors import ConfigError
from mobile_r1.core.records import Observation
from mobile_r1.core.verdict import Judgement
from mobile_r1.env.protocol import Backend, Capability, Demonstration, EpisodeRef, StepInfo, TaskEnv
from mobile_r1.env.registry import register_backend
from mobile_r1.env.safety import gated
from mobile_r1.env.sim.episode import (TaskEpisode, build_split, family_episodes, file_episodes, make_episode,
                                       phone_apps, released_episode)
from mobile_r1.env.sim.expert import demonstrate
from mobile_r1.env.sim.judge import judge
from mobile_r1.env.sim.user import SimulatedUser
from mobile_r1.sim.driver import SimEnv
from mobile_r1.sim.apps.chat import NAMES as CHAT_NAMES
from mobile_r1.sim.apps.phone import FIRST, LABELS, LAST
from mobile_r1.sim.apps.shop import BRANDS
from mobile_r1.tasks.spec import TaskSpec, load_task_specs
from mobile_r1.tasks.suites import SPLITS, SUITES, suite_version

NAME = "sim"


def _is_task_file(suite: str) -> bool:
    """Whether `suite` names a file of released task lines rather than a suite (`--tasks FILE`)."""
    return suite.lower().endswith(".jsonl") or (suite not in SUITES and Path(suite).is_file())


def episode_ref(episode: TaskEpisode, suite: str | None = None, split: str | None = None,
                version: str | None = None) -> EpisodeRef:
    """The protocol's view of a simulator task episode (`meta` holds the template, and for a released line the line
    and the values read off it, to open it again; and the suite's version)."""
    spec = episode.spec
    meta: dict[str, Any] = {"template_split": episode.split, "template": episode.template}
    if episode.locale != "en":
        meta["language"] = episode.locale
    if episode.line is not None:
        meta["line"] = episode.line
        meta["values"] = {k: str(v) for k, v in episode.given.items()}
    if version is not None:
        meta["suite_version"] = version
    return EpisodeRef(
        id=episode.id, instruction=episode.instruction, task=spec.id, backend=NAME, split=split or episode.split,
        seed=episode.seed, suite=suite, category=spec.category, subcategory=spec.subcategory, apps=tuple(spec.apps),
        max_steps=spec.max_steps, needs_inquiry=spec.needs_inquiry, language=episode.locale, meta=meta,
    )


class SimBackend(Backend):
    """The built-in simulated phone.

    render  draw a screenshot in every observation (False: text observations only, much faster)
    scale   screenshot scale of the 1080x2400 screen (0.3 gives 324x720)
    xml     keep the `uiautomator dump` XML in observations
    specs        a folder of the user's task specs, added to the packaged ones (`specs_only`: used alone); they join
                 the suites by their category
    """

    name = NAME

    def __init__(self, render: bool = True, scale: float = 0.3, xml: bool = False, specs: str | None = None,
                 specs_only: bool = False) -> None:
        if not scale > 0:
            raise ConfigError(f"scale must be > 0, got {scale}")
        self.render, self.scale, self.xml = render, scale, xml
        self.specs_dir, self.specs_only = specs, specs_only
        self._specs: dict[str, TaskSpec] | None = None

    def name_pool(self) -> list[str]:
        """People's first and last names, contact labels, chat names and shop brands: the simulated apps' small fixed
        pools, which a model trained on their episodes sees everywhere."""
        words = set(FIRST) | set(LAST) | set(LABELS) | set(BRANDS) | {w for name in CHAT_NAMES for w in name.split()}
        return sorted(words, key=lambda w: (-len(w), w))  # longest first, so that no word is cut by a shorter one

    def specs(self) -> dict[str, TaskSpec]:
        if self._specs is None:
            self._specs = {s.id: s for s in load_task_specs(self.specs_dir, self.specs_only)}
        return self._specs

    def suites(self) -> list[str]:
        return list(SUITES)

    def episodes(self, suite: str | None, split: str = "test", n: int | None = None, seed: int = 0,
                 tasks: Sequence[str] = ()) -> list[EpisodeRef]:
        """A suite's split (`tasks.suites.plan_split`), or with `suite=None` the task families taking turns
        (`n` episodes; every spec, or those named in `tasks`)."""
        if suite is not None and _is_task_file(suite):
            return [episode_ref(e, Path(suite).stem, "test") for e in self.task_episodes(suite, split, n, seed, tasks)]
        version = suite_version(suite, list(self.specs().values())) if suite in SUITES else None
        return [episode_ref(e, suite, split, version) for e in self.task_episodes(suite, split, n, seed, tasks)]

    def task_episodes(self, suite: str | None, split: str = "test", n: int | None = None, seed: int = 0,
                      tasks: Sequence[str] = ()) -> list[TaskEpisode]:
        families = list(self.specs().values())
        if suite is not None and _is_task_file(suite):
            found = file_episodes(suite, [s for s in families if s.suite is not None])
            if tasks:
                found = [e for e in found if e.spec.id in set(tasks)]
            return found[:n] if n is not None else found
        if split not in SPLITS:
            raise ConfigError(f"unknown split {split!r}; splits: {', '.join(SPLITS)}")
        if tasks:
            wanted = set(tasks)
            families = [s for s in families if s.id in wanted]
            missing = wanted - {s.id for s in families}
            if missing:
                raise ConfigError(f"unknown task id(s) {sorted(missing)}; list them with `mobile-r1 sim tasks`")
        if not families:
            raise ConfigError("no task specs to choose episodes from")
        if suite is not None:
            if suite not in SUITES:
                raise ConfigError(f"unknown suite {suite!r}; choose one of {', '.join(SUITES)}")
            return build_split(suite, split, seed, size=n, specs=families)
        if n is None:
            raise ConfigError("episodes outside a suite need a count")
        return family_episodes(families, split, n, seed)

    def task_episode(self, ref: EpisodeRef) -> TaskEpisode:
        """The simulator's task episode a ref names (its parameters drawn again, identically)."""
        self._check_ref(ref)
        spec = self.specs().get(ref.task)
        if spec is None:
            raise ConfigError(f"episode {ref.id} names the task {ref.task!r}, which this backend's specs do not have")
        template_split = str(ref.meta.get("template_split") or ("train" if ref.split == "train" else "test"))
        template = ref.meta.get("template")
        if not isinstance(template, int):
            raise ConfigError(f"episode {ref.id}: its meta lacks the template index the simulator needs")
        line = ref.meta.get("line")
        if isinstance(line, dict):
            values = ref.meta.get("values")
            return released_episode(spec, dict(line), template, dict(values) if isinstance(values, dict) else {})
        return make_episode(spec, template_split, template, ref.seed, str(ref.meta.get("language") or "en"))

    def open(self, episode: EpisodeRef, max_steps: int | None = None) -> SimTaskEnv:
        return SimTaskEnv(self.task_episode(episode), episode, self, max_steps)


class SimTaskEnv(TaskEnv):
    """One task episode on a simulated phone, with the episode's simulated user answering `call_user`."""

    capabilities = frozenset({Capability.FORK, Capability.STATE_KEY, Capability.EXPERT})

    def __init__(self, task: TaskEpisode, episode: EpisodeRef, backend: SimBackend, max_steps: int | None = None) -> None:
        super().__init__(episode, max_steps)
        self.task = task
        self.backend = backend
        self.sim = SimEnv(apps=phone_apps(task.spec), seed=task.seed, render=backend.render, scale=backend.scale,
                          xml=backend.xml, locale=task.locale)
        self.user: SimulatedUser | None = None

    def _reset(self) -> Observation:
        observation = self.sim.reset(task=self.task, seed=self.task.seed)
        self.user = SimulatedUser(self.task, self.sim.phone)
        self.sim.user = self.user
        return observation

    def _step(self, action: Action) -> tuple[Observation, bool, StepInfo]:
        observation, terminated, _, info = self.sim.step(action)
        return observation, terminated, StepInfo(error=info.get("error"), user_reply=info.get("user_reply"),
                                                 effects=list(info.get("effects") or []))

    def judge(self) -> Judgement:
        judgement = judge(self.task, self.sim.phone)
        judgement.verdict.steps = self.steps
        return judgement

    def fork(self) -> SimTaskEnv:
        """A new phone restored from this one's snapshot, with its own simulated user (whose place in the
        conversation is read from the phone's log, so it is where this one's is)."""
        if self.observation is None:
            raise ConfigError(f"episode {self.episode.id}: reset() before fork()")
        other = SimTaskEnv(self.task, self.episode, self.backend, self.budget)
        other.observation = other.sim.restore(self.sim.snapshot())
        other.user = SimulatedUser(self.task, other.sim.phone)
        other.sim.user = other.user
        other.steps, other.terminated, other.truncated = self.steps, self.terminated, self.truncated
        return other

    def expert_demo(self, *, ask: bool = True, self_correct: float = 0.0, seed: int = 0,
                    render: bool = False, search_first: bool = False) -> Demonstration:
        return demonstrate(self.task, ask=ask, self_correct=self_correct, seed=seed, render=render,
                           scale=self.backend.scale, search_first=search_first)


def _factory(argument: str | None, render: bool = True, scale: float = 0.3, xml: bool = False,
             specs: str | None = None, specs_only: bool = False, confirm: str = "none", person: str = "auto") -> Backend:
    """`confirm` puts the safety gate in front of the phones (off by default in the simulator; see `env.safety`)."""
    if argument:
        raise ConfigError(f"the sim environment takes no argument, got 'sim:{argument}'")
    return gated(SimBackend(render=render, scale=scale, xml=xml, specs=specs, specs_only=specs_only), confirm, person)


register_backend(NAME, _factory, replace=True)

__all__ = ["SimBackend", "SimTaskEnv", "episode_ref"]
