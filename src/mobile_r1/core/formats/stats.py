"""Summary figures of an episode set: sizes, action types, how often the agent asks, apps and categories."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any, Sequence

from mobile_r1.core.records import Episode


@dataclass(frozen=True, slots=True)
class DataStats:
    """What `mobile-r1 data stats` reports."""

    format: str
    episodes: int
    steps: int
    steps_mean: float
    steps_min: int
    steps_max: int
    action_types: dict[str, int]
    call_user_share: float
    apps: dict[str, int]
    categories: dict[str, int]
    languages: dict[str, int]

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": self.format,
            "episodes": self.episodes,
            "steps": self.steps,
            "steps_per_episode": {"mean": self.steps_mean, "min": self.steps_min, "max": self.steps_max},
            "action_types": dict(self.action_types),
            "call_user_share": self.call_user_share,
            "apps": dict(self.apps),
            "categories": dict(self.categories),
            "languages": dict(self.languages),
        }


def compute_stats(episodes: Sequence[Episode], format: str = "native") -> DataStats:
    """Count episodes, steps, action types (most frequent first), apps, categories and the share of call_user."""
    lengths = [len(e.steps) for e in episodes]
    steps = sum(lengths)
    types = Counter(step.action.type.value for e in episodes for step in e.steps)
    apps = Counter(app for e in episodes for app in e.apps)
    categories = Counter(e.category for e in episodes if e.category)
    languages = Counter(e.language for e in episodes)
    return DataStats(
        format=format,
        episodes=len(episodes),
        steps=steps,
        steps_mean=steps / len(episodes) if episodes else 0.0,
        steps_min=min(lengths) if lengths else 0,
        steps_max=max(lengths) if lengths else 0,
        action_types=dict(types.most_common()),
        call_user_share=types.get("call_user", 0) / steps if steps else 0.0,
        apps=dict(apps.most_common()),
        categories=dict(categories.most_common()),
        languages=dict(languages.most_common()),
    )
