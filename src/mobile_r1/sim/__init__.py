"""The simulated phone: a pure-Python Android-like device with apps, state, screenshots and accessibility trees.

Nothing here imports torch. Start with `mobile_r1.env.sim.SimEnv` to drive it, or `Phone` for direct access;
apps live in `mobile_r1.sim.apps` (see docs/sim.md, "How to add an app").
"""

from mobile_r1.sim.apps import App, Ctx, Effect, register
from mobile_r1.sim.system import Phone

__all__ = ["App", "Ctx", "Effect", "Phone", "register"]
