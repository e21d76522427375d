"""`SimEnv`: the Env protocol on the built-in simulated phone, plus snapshots and a pool that steps many envs."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from mobile_r1.core.actions import Action, ActionType
from mobile_r1.core.errors import ConfigError
from mobile_r1.core.records import Observation
from mobile_r1.env.base import TaskSetup
from mobile_r1.sim.system import Phone, PhoneState


@dataclass(slots=True)
class Snapshot:
    """Everything needed to put a SimEnv back exactly where it was."""

    phone: PhoneState
    steps: int
    done: bool
    task: Any


class SimEnv:
    """The simulated phone as an environment.

    apps       which apps to install (names or aliases); None installs every registered app
    seed       default seed for `reset`
    randomize  draw themes, sizes, list orders, names, prices and popups from the seed (False: canonical look)
    render     put a screenshot in every observation (False skips drawing entirely)
    scale      screenshot scale of the 1080x2400 screen (0.3 gives 324x720)
    xml        put the `uiautomator dump` XML in every observation
    max_steps  end the episode after this many steps (None: only `terminate` ends it)
    user       answers `call_user` questions; its reply goes to info["user_reply"]
    """

    def __init__(self, apps: Sequence[str] | None = None, seed: int = 0, randomize: bool = True, render: bool = True,
                 scale: float = 0.3, xml: bool = True, max_steps: int | None = None,
                 user: Callable[[str], str] | None = None, ad_rate: float = 0.12) -> None:
        if not scale > 0:
            raise ConfigError(f"scale must be > 0, got {scale}")
        self.phone = Phone(apps=apps, seed=seed, randomize=randomize, ad_rate=ad_rate)
        self.seed, self.render, self.scale, self.xml = seed, render, scale, xml
        self.max_steps, self.user = max_steps, user
        self.task: Any = None
        self.steps = 0
        self.done = False

    @property
    def screen_size(self) -> tuple[int, int]:
        return (self.phone.width, self.phone.height)

    def reset(self, task: TaskSetup | None = None, app: str | None = None, seed: int | None = None) -> Observation:
        """A fresh phone for `seed` (default: the env's seed); then `task.setup(phone, rng)`, then open `app`."""
        seed = self.seed if seed is None else seed
        self.phone.reset(seed)
        self.task, self.steps, self.done = task, 0, False
        if task is not None:
            if not callable(getattr(task, "setup", None)):
                raise ConfigError("a task passed to reset() needs a setup(phone, rng) method")
            task.setup(self.phone, random.Random(f"{seed}:task"))
            self.phone.touch()
        if app is not None:
            error = self.phone.open(app)
            if error:
                raise ConfigError(error)
        return self.observe()

    def observe(self) -> Observation:
        """The observation of the current screen."""
        phone = self.phone
        key = phone.foreground
        return Observation(
            screen_size=self.screen_size,
            elements=phone.elements(),
            screenshot=phone.screenshot(self.scale) if self.render else None,
            xml=phone.xml() if self.xml else None,
            app=phone.apps[key].name if key else None,
            activity=phone.activity(),
            state_key=phone.state_key(),
            app_state=phone.app_state_copy(key) if key else None,
        )

    def step(self, action: Action) -> tuple[Observation, float, bool, dict[str, Any]]:
        """Apply one action (screen pixels). Invalid actions change nothing and explain why in info['error']."""
        if self.done:
            obs = self.observe()
            return obs, 0.0, True, {"error": "the episode has ended; call reset()", "effects": [],
                                    "action_log": self.phone.state.log, "all_effects": self._effects()}
        info = self.phone.act(action)
        self.steps += 1
        if action.type is ActionType.CALL_USER and self.user is not None:
            info["user_reply"] = self.user(action.content or "")
            self.phone.state.log[-1]["user_reply"] = info["user_reply"]
        reward = 0.0
        reward_fn = getattr(self.task, "reward", None)
        if callable(reward_fn):
            reward = float(reward_fn(self.phone, action, info))
        done = action.type is ActionType.TERMINATE
        is_done = getattr(self.task, "is_done", None)
        if callable(is_done) and is_done(self.phone):
            done = True
        if self.max_steps is not None and self.steps >= self.max_steps:
            done = True
            info["truncated"] = True
        self.done = done
        info["action_log"] = self.phone.state.log
        info["all_effects"] = self._effects()
        info["step"] = self.steps
        return self.observe(), reward, done, info

    def _effects(self) -> list[dict[str, Any]]:
        return [e.to_dict() for e in self.phone.state.effects]

    def snapshot(self) -> Snapshot:
        """Copy the whole env state (cheap: the state is data)."""
        return Snapshot(self.phone.snapshot(), self.steps, self.done, self.task)

    def restore(self, snap: Snapshot) -> Observation:
        self.phone.restore(snap.phone)
        self.steps, self.done, self.task = snap.steps, snap.done, snap.task
        return self.observe()


class EnvPool:
    """Many SimEnvs stepped together in this process.

    A list, not worker processes: one step costs well under a few milliseconds, less than pickling its
    screenshot between processes would; run several pools in separate processes to use more cores.
    """

    def __init__(self, envs: Sequence[SimEnv]) -> None:
        self.envs = list(envs)

    @classmethod
    def make(cls, n: int, **kwargs: Any) -> EnvPool:
        return cls([SimEnv(**kwargs) for _ in range(n)])

    def __len__(self) -> int:
        return len(self.envs)

    def reset(self, tasks: Sequence[TaskSetup | None] | None = None, app: str | None = None,
              seeds: Sequence[int | None] | None = None) -> list[Observation]:
        n = len(self.envs)
        tasks = list(tasks) if tasks is not None else [None] * n
        seeds = list(seeds) if seeds is not None else [None] * n
        return [env.reset(task=t, app=app, seed=s) for env, t, s in zip(self.envs, tasks, seeds)]

    def step(self, actions: Sequence[Action | None]) -> list[tuple[Observation, float, bool, dict[str, Any]] | None]:
        """Step env i with actions[i]; None skips that env (its entry is None)."""
        if len(actions) != len(self.envs):
            raise ConfigError(f"got {len(actions)} actions for {len(self.envs)} environments")
        return [env.step(a) if a is not None else None for env, a in zip(self.envs, actions)]

    def restore_all(self, snap: Snapshot) -> list[Observation]:
        """Put every env into the same snapshot (a GRPO group starting from one state)."""
        return [env.restore(snap) for env in self.envs]
