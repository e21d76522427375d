"""UI-TARS dialect: `Thought: ...` then `Action: click(start_box='(x,y)')` (work in progress)."""

from __future__ import annotations

from mobile_r1.core.actions import ActionType
from mobile_r1.core.dialects.base import Dialect


class UITarsDialect(Dialect):
    """UI-TARS's Thought/Action grammar."""

    name = "uitars"
    action_types = tuple(ActionType)
