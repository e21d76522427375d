"""Converters between AndroidWorld JSON actions and our `Action` (work in progress)."""

from __future__ import annotations

from typing import Any

from mobile_r1.core.actions import Action
from mobile_r1.core.geometry import Frame


def from_androidworld(d: dict[str, Any], screen: Frame | None = None, elements: Any = None) -> Action:
    """Our action for an AndroidWorld JSONAction dict."""
    raise NotImplementedError


def to_androidworld(action: Action) -> dict[str, Any]:
    """The AndroidWorld JSONAction dict for `action`."""
    raise NotImplementedError
