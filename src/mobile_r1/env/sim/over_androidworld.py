"""The expert for our suites' episodes played through AndroidWorld's API on our simulated phone's server.

AndroidWorld's actions say less than ours: a swipe becomes a `scroll` of an element (from its centre to its edge,
not the finger's own path), typed text is always followed by Enter, `wait` is one second. A plan made on a phone
that takes our actions as they are would drift on the server. So the expert plans on a local simulated phone that
performs each of its actions the way the server does: turned into AndroidWorld's JSON action by our client
(`env.androidworld.wire.to_json_action`), then performed as AndroidWorld's executor would
(`env.sim.servers.androidworld.actuation`). The phone and its task are the server's (same task, same seed), so the
plan replays exactly on the server. The `androidworld` backend reaches this through the simulator's task source
(`env.sim.task_source`, `via="androidworld"`).
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any, Callable

from mobile_r1.core.actions import Action, ActionType
from mobile_r1.core.errors import ActionError
from mobile_r1.env.androidworld.wire import to_json_action
from mobile_r1.env.sim.episode import TaskEpisode
from mobile_r1.env.sim.servers.androidworld import actuation
from mobile_r1.sim.driver import SimEnv
from mobile_r1.sim.system import Phone


def act_over_androidworld(phone: Phone, action: Action, native: Callable[[Action], dict[str, Any]]) -> dict[str, Any]:
    """What `action` does to `phone` when it goes through AndroidWorld's API (`native` is the phone's own act): the
    phone's info, with the first error and every effect of the actions it became."""
    if action.type is ActionType.CALL_USER:
        return native(action)  # our client answers it locally; the expert still needs the simulated user's reply
    try:
        json_action = to_json_action(action, phone.elements())
    except ActionError as exc:
        return {"error": str(exc), "effects": []}
    info: dict[str, Any] = {"error": None, "effects": []}
    for step in actuation(json_action, phone.elements(), (phone.width, phone.height)):
        result = native(step)
        error, effects = info["error"] or result.get("error"), info["effects"] + list(result.get("effects") or [])
        info.update(result)
        info["error"], info["effects"] = error, effects
    return info


class OverAndroidWorld(TaskEpisode):
    """A task episode whose phone takes every action as our AndroidWorld server performs it."""

    @classmethod
    def of(cls, task: TaskEpisode) -> OverAndroidWorld:
        """The same episode (task, template, seed, parameters), its actions taken over AndroidWorld's API."""
        return cls(**{f.name: getattr(task, f.name) for f in fields(TaskEpisode)})

    def make_env(self, **kwargs: Any) -> SimEnv:
        env = super().make_env(**kwargs)
        phone, native = env.phone, env.phone.act
        phone.act = lambda action: act_over_androidworld(phone, action, native)  # type: ignore[method-assign]
        return env


__all__ = ["OverAndroidWorld", "act_over_androidworld"]
