"""A task episode on the simulated phone: (spec, split, template, seed), its parameters drawn from the seeded phone."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from mobile_r1.core.errors import ConfigError
from mobile_r1.env.sim.state import resolve, set_path
from mobile_r1.env.sim.user import SimulatedUser
from mobile_r1.sim.driver import SimEnv
from mobile_r1.sim.system import Phone
from mobile_r1.tasks.spec import TaskSpec, fill
from mobile_r1.tasks.suites import plan_split


def draw_params(spec: TaskSpec, phone: Phone, seed: int) -> dict[str, Any]:
    """The spec's parameters for this seed, drawn in order from the phone's fresh state (deterministic)."""
    rng = random.Random(f"{seed}:{spec.id}:params")
    params: dict[str, Any] = {}
    for name, p in spec.params.items():
        if p.pick is not None:
            pool = resolve(phone, fill(p.pick, params))
            pool = [v for v in (pool[0] if len(pool) == 1 and isinstance(pool[0], list) else pool)]
            if not pool:
                raise ConfigError(f"{spec.source or spec.id}: params.{name}: {p.pick!r} gives nothing to pick from")
            params[name] = rng.choice(pool)
        elif p.choice is not None:
            params[name] = fill(rng.choice(p.choice), params)
        elif p.lookup is not None:
            found = resolve(phone, fill(p.lookup, params))
            if not found:
                raise ConfigError(f"{spec.source or spec.id}: params.{name}: {fill(p.lookup, params)!r} finds nothing")
            params[name] = found[0]
        elif p.number is not None:
            params[name] = rng.randint(*p.number)
        else:
            params[name] = fill(p.value, params)
    return params


@dataclass
class TaskEpisode:
    """One episode of a task family. Pass it to `SimEnv.reset(task=...)`; it draws its parameters and patches state.

    `params` and `instruction` are filled when the episode is made (`make_episode`) and again, identically, by
    `setup` from the phone it is given.
    """

    spec: TaskSpec
    split: str
    template: int
    seed: int
    params: dict[str, Any] = field(default_factory=dict)
    instruction: str = ""

    @property
    def id(self) -> str:
        return f"{self.spec.id}/{self.split}{self.template}/s{self.seed}"

    @property
    def template_text(self) -> str:
        items = self.spec.templates.train if self.split == "train" else self.spec.templates.test
        return items[self.template % len(items)]

    def setup(self, phone: Phone, rng: random.Random | None = None) -> None:
        """Draw the parameters from the fresh phone, apply the spec's state patches, open the start app."""
        self.params = draw_params(self.spec, phone, self.seed)
        self.instruction = fill(self.template_text, self.params)
        for patch in self.spec.setup:
            value = fill(patch.value, self.params)
            if patch.set is not None:
                set_path(phone, fill(patch.set, self.params), value)
            else:
                set_path(phone, fill(patch.append, self.params), value, append=True)  # type: ignore[arg-type]
        if self.spec.start_app:
            error = phone.open(self.spec.start_app)
            if error:
                raise ConfigError(f"{self.spec.source}: start_app: {error}")
        phone.touch()

    def make_env(self, **kwargs: Any) -> SimEnv:
        """A SimEnv reset to this episode, with this episode's simulated user answering `call_user` (keyword
        arguments go to `SimEnv`: render, scale, xml, ...)."""
        env = SimEnv(seed=self.seed, **kwargs)
        env.reset(task=self, seed=self.seed)
        env.user = SimulatedUser(self, env.phone)
        return env


def make_episode(spec: TaskSpec, split: str, template: int, seed: int) -> TaskEpisode:
    """An episode with its parameters and instruction filled in (from a phone holding just the spec's apps)."""
    if split not in ("train", "test"):
        raise ConfigError(f"split must be train or test, got {split!r}")
    ep = TaskEpisode(spec, split, template, seed)
    phone = Phone(apps=spec.apps, seed=seed)
    ep.params = draw_params(spec, phone, seed)
    ep.instruction = fill(ep.template_text, ep.params)
    return ep


def build_split(name: str, split: str = "test", seed: int = 0, size: int | None = None,
                specs: list[TaskSpec] | None = None) -> list[TaskEpisode]:
    """The episodes of one suite split (`mobile_r1.tasks.suites.plan_split`), their parameters drawn."""
    return [make_episode(item.spec, item.template_split, item.template, item.seed)
            for item in plan_split(name, split, seed, size, specs)]


def family_episodes(specs: list[TaskSpec], split: str, count: int, seed: int) -> list[TaskEpisode]:
    """`count` episodes outside any suite: the task families take turns, with templates and seeds varied."""
    n = len(specs)
    base = (0 if split == "train" else 10**7) + 1000 * seed
    templates = "train" if split == "train" else "test"
    return [make_episode(specs[i % n], templates, i // n, base + i) for i in range(count)]
