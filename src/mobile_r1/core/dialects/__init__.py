"""Model dialects: the prompt a model family is given, how its output is parsed, and how its targets are written.

    from mobile_r1.core.dialects import get_dialect
    d = get_dialect("inquire")
    messages = d.build_messages("Open Taobao", observation, history, model_frame=frame)
    result = d.parse(model_text)        # ParseResult(action, thought, description, valid, error, raw)
    target = d.render(action, thought="...")   # assistant text for SFT

Known dialects: "qwen2.5vl" (plain `mobile_use` tool call), "inquire" (InquireMobile: <think> + tool call,
`call_user`, no `open`), "mobile-r1" (<think> + <action> + tool call), "uitars" (Thought:/Action: grammar),
"compact" (<think> + tool call, every action, a few-line prompt for small text-only models).
"""

from __future__ import annotations

from mobile_r1.core.dialects.androidworld import from_androidworld, to_androidworld
from mobile_r1.core.dialects.base import Dialect, ParseResult
from mobile_r1.core.dialects.compact import CompactDialect
from mobile_r1.core.dialects.observation import render_elements
from mobile_r1.core.dialects.toolcall import InquireDialect, MobileR1Dialect, QwenDialect
from mobile_r1.core.dialects.uitars import UITarsDialect
from mobile_r1.core.errors import ConfigError

DIALECTS: tuple[str, ...] = ("qwen2.5vl", "inquire", "mobile-r1", "uitars")

_FACTORIES = {
    "qwen2.5vl": QwenDialect,
    "inquire": InquireDialect,
    "mobile-r1": MobileR1Dialect,
    "uitars": UITarsDialect,
    "compact": CompactDialect,
}


def get_dialect(name: str) -> Dialect:
    """The dialect called `name` (one of `DIALECTS`), with its default settings."""
    factory = _FACTORIES.get(str(name).strip().lower())
    if factory is None:
        raise ConfigError(f"unknown dialect {name!r}; choose one of: {', '.join(DIALECTS)}")
    return factory()


__all__ = [
    "CompactDialect",
    "DIALECTS",
    "Dialect",
    "InquireDialect",
    "MobileR1Dialect",
    "ParseResult",
    "QwenDialect",
    "UITarsDialect",
    "from_androidworld",
    "get_dialect",
    "render_elements",
    "to_androidworld",
]
