"""`SimEnv`: the simulated phone as a raw environment (no task, no budget): reset, step, observe, snapshots.

The task backend (`mobile_r1.env.sim.backend`) puts a task on it; `mobile-r1 sim play` and the app tests drive it
directly. `step` returns what `TaskEnv.step` returns, `(observation, terminated, truncated, info)`; `truncated` is
always False here (budgets are the task environment's), and `info` is the phone's own dict (error, effects, toast,
user_reply, the action log).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, Callable, Protocol, Sequence

from mobile_r1.core.actions import Action, ActionType
from mobile_r1.core.errors import ConfigError
from mobile_r1.core.records import Observation
from mobile_r1.sim.system import Phone, PhoneState


class TaskSetup(Protocol):
    """What `SimEnv.reset(task=...)` needs from a task: put the fresh phone into the task's starting state (patch app
    states, log apps in or out, grant permissions, open the starting app)."""

    def setup(self, phone: Phone, rng: random.Random) -> None: ...


@dataclass(slots=True)
class Snapshot:
    """Everything needed to put a SimEnv back exactly where it was."""

    phone: PhoneState
    done: bool
    task: TaskSetup | None


class SimEnv:
    """The simulated phone as an environment.

    apps       which apps to install (names or aliases); None installs every registered app
    seed       default seed for `reset`
    locale     the phone's language, "en" or "zh" (a task may bring its own)
    randomize  draw themes, sizes, list orders, names, prices and popups from the seed (False: canonical look)
    render     put a screenshot in every observation (False skips drawing entirely)
    scale      screenshot scale of the 1080x2400 screen (0.3 gives 324x720)
    xml        put the `uiautomator dump` XML in every observation
    user       answers `call_user` questions; its reply goes to info["user_reply"]
    """

    def __init__(self, apps: Sequence[str] | None = None, seed: int = 0, randomize: bool = True, render: bool = True,
                 scale: float = 0.3, xml: bool = True, user: Callable[[str], str] | None = None,
                 ad_rate: float = 0.12, locale: str = "en") -> None:
        if not scale > 0:
            raise ConfigError(f"scale must be > 0, got {scale}")
        self.phone = Phone(apps=apps, seed=seed, randomize=randomize, ad_rate=ad_rate, locale=locale)
        self.seed, self.render, self.scale, self.xml = seed, render, scale, xml
        self.user = user
        self.task: TaskSetup | None = None
        self.done = False

    @property
    def screen_size(self) -> tuple[int, int]:
        return (self.phone.width, self.phone.height)

    def reset(self, task: TaskSetup | None = None, app: str | None = None, seed: int | None = None,
              locale: str | None = None) -> Observation:
        """A fresh phone for `seed` (default: the env's seed) in `locale` (default: the task's, else the phone's);
        then `task.setup(phone, rng)`, then open `app`."""
        seed = self.seed if seed is None else seed
        self.phone.reset(seed, locale or getattr(task, "locale", None))
        self.task, self.done = task, False
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

    def step(self, action: Action) -> tuple[Observation, bool, bool, dict[str, Any]]:
        """Apply one action (screen pixels): (observation, terminated, False, info). An invalid action changes nothing
        and says why in info['error']; `terminate` ends the episode."""
        if self.done:
            return self.observe(), True, False, {"error": "the episode has ended; call reset()", "effects": [],
                                                 "action_log": self.phone.state.log, "all_effects": self._effects()}
        info = self.phone.act(action)
        if action.type is ActionType.CALL_USER and self.user is not None:
            info["user_reply"] = self.user(action.content or "")
            self.phone.state.log[-1]["user_reply"] = info["user_reply"]
        self.done = action.type is ActionType.TERMINATE
        info["action_log"] = self.phone.state.log
        info["all_effects"] = self._effects()
        info["step"] = len(self.phone.state.log)
        return self.observe(), self.done, False, info

    def _effects(self) -> list[dict[str, Any]]:
        return [e.to_dict() for e in self.phone.state.effects]

    def snapshot(self) -> Snapshot:
        """Copy the whole env state (cheap: the state is data)."""
        return Snapshot(self.phone.snapshot(), self.done, self.task)

    def restore(self, snap: Snapshot) -> Observation:
        self.phone.restore(snap.phone)
        self.done, self.task = snap.done, snap.task
        return self.observe()
