"""The pure-Python layer every other part shares: actions, coordinate frames, records, dialects, rewards, matching.

Nothing in `mobile_r1.core` imports torch; peers can import it alone to use our rewards and metrics.
"""

from mobile_r1.core.actions import BUTTONS, STATUSES, Action, ActionType
from mobile_r1.core.errors import (ActionError, CapabilityError, ConfigError, DataError, EnvError, InfraError,
                                   MobileR1Error)
from mobile_r1.core.geometry import Frame, smart_resize

__all__ = [
    "Action",
    "ActionType",
    "BUTTONS",
    "STATUSES",
    "ActionError",
    "ConfigError",
    "DataError",
    "MobileR1Error",
    "EnvError",
    "CapabilityError",
    "InfraError",
    "Frame",
    "smart_resize",
]
