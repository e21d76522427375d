"""The environment protocol every phone backend follows (simulated phone, adb device, AndroidWorld server)."""

from __future__ import annotations

import random
from typing import Any, Protocol, runtime_checkable

from mobile_r1.core.actions import Action
from mobile_r1.core.records import Observation


@runtime_checkable
class TaskSetup(Protocol):
    """What `reset(task=...)` needs from a task: put the phone into the task's starting state.

    `setup` may patch app states (`phone.app_state("shop")["cart"] = [...]`), log apps in or out, grant
    permissions and open the starting app (`phone.open("Shop")`). Optional methods a task may also have:
    `reward(phone, action, info) -> float` (per-step reward) and `is_done(phone) -> bool`.
    """

    def setup(self, phone: Any, rng: random.Random) -> None: ...


@runtime_checkable
class Env(Protocol):
    """A Gymnasium-like phone: `reset` to a start, then `step` actions (coordinates in screen pixels)."""

    def reset(self, task: TaskSetup | None = None, app: str | None = None, seed: int | None = None) -> Observation: ...

    def step(self, action: Action) -> tuple[Observation, float, bool, dict[str, Any]]: ...
