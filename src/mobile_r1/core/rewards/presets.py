"""Named reward presets (`PRESETS`, `get_preset`) and their TRL-style reward callables.

    preset = get_preset("inquire-mobile")
    preset.score(completion, label, bbox, image_size, model_image_size)   # -> RewardResult
    GRPOTrainer(..., reward_funcs=[preset.as_trl_reward()])               # one callable, the total
    funcs, weights = preset.as_trl_rewards()                              # parts that sum to the total
    GRPOTrainer(..., reward_funcs=funcs, args=GRPOConfig(reward_weights=weights, ...))

A TRL reward function is called as `fn(completions=[...], prompts=[...], **columns)` with one value per
completion in every dataset column; these read the columns `label`, `bbox` (optional),
`image_size` and `model_image_size` (names configurable) and ignore the rest.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import Any, Callable, Sequence

from mobile_r1.core.errors import ConfigError, DataError
from mobile_r1.core.rewards.base import RewardResult, RewardTarget, completion_text
from mobile_r1.core.rewards.bleu import BLEU_TOKENIZER, RELEASED_TOKENIZER
from mobile_r1.core.rewards.inquire import score_inquire
from mobile_r1.core.rewards.peers import score_gui_r1, score_mobile_r1, score_ui_r1

Scorer = Callable[[str, RewardTarget], RewardResult]


@dataclass(frozen=True)
class RewardPreset:
    """A named reward: a scorer plus how its total splits into weighted parts (for TRL's `reward_weights`)."""

    name: str
    description: str
    scorer: Scorer
    parts: tuple[tuple[str, float], ...]  # (component, weight): total == sum(weight * component)
    components: tuple[str, ...]  # names in `RewardResult.components`

    def score(
        self,
        completion: Any,
        label: Any,
        bbox: Any = None,
        image_size: Any = None,
        model_image_size: Any = None,
    ) -> RewardResult:
        """Score one completion (text or conversational) against a label (Action, tool call dict or JSON text).

        `bbox` is in screen pixels (None or [-1, -1, -1, -1] for none); `image_size` is the screen's
        [W, H]; `model_image_size` is [W', H'] of the image the model saw, the frame of all coordinates.
        """
        return self.scorer(completion_text(completion), RewardTarget.build(label, bbox, image_size, model_image_size))

    def score_target(self, completion: Any, target: RewardTarget) -> RewardResult:
        """Score against an already checked `RewardTarget` (skips re-validating the label)."""
        return self.scorer(completion_text(completion), target)

    @property
    def names(self) -> tuple[str, ...]:
        """Every value a result carries: format, accuracy, total and the components."""
        return ("format", "accuracy", "total", *self.components)

    def as_trl_reward(self, component: str = "total", **column_names: str) -> TrlReward:
        """A TRL reward function returning one value (the total by default) per completion."""
        if component not in self.names:
            raise ConfigError(f"preset {self.name!r} has no component {component!r}; choose one of {', '.join(self.names)}")
        return TrlReward(self, component, **column_names)

    def as_trl_rewards(self, **column_names: str) -> tuple[list[TrlReward], list[float]]:
        """Reward functions for the parts of the total and their weights: TRL's weighted sum equals `total`."""
        funcs = [TrlReward(self, part, **column_names) for part, _ in self.parts]
        return funcs, [weight for _, weight in self.parts]

    def component_rewards(self, **column_names: str) -> dict[str, TrlReward]:
        """One TRL reward function per value (format, accuracy, total, components), e.g. for logging."""
        return {name: TrlReward(self, name, **column_names) for name in self.names}


class TrlReward:
    """`(completions, **columns) -> list[float]` for one preset value; `__name__` names it in TRL's logs."""

    def __init__(
        self,
        preset: RewardPreset,
        component: str,
        *,
        label: str = "label",
        bbox: str = "bbox",
        image_size: str = "image_size",
        model_image_size: str = "model_image_size",
    ) -> None:
        self.preset = preset
        self.component = component
        self.columns = (label, bbox, image_size, model_image_size)
        self.__name__ = f"{preset.name.replace('-', '_')}_{component}"
        self.__qualname__ = self.__name__

    def __call__(self, completions: Sequence[Any], **columns: Any) -> list[float]:
        label_key, bbox_key, size_key, model_key = self.columns
        missing = [key for key in (label_key, size_key, model_key) if key not in columns]
        if missing:
            raise DataError(
                f"reward {self.__name__} needs dataset columns {label_key!r}, {size_key!r} and {model_key!r} "
                f"({bbox_key!r} optional); missing: {', '.join(missing)}"
            )
        n = len(completions)
        labels, sizes, model_sizes = columns[label_key], columns[size_key], columns[model_key]
        bboxes = columns.get(bbox_key)
        if bboxes is None:
            bboxes = [None] * n
        for key, values in ((label_key, labels), (bbox_key, bboxes), (size_key, sizes), (model_key, model_sizes)):
            if len(values) != n:
                raise DataError(f"column {key!r} has {len(values)} values for {n} completions")
        preset, component = self.preset, self.component
        return [
            preset.score(completion, label, bbox, size, model_size).get(component)
            for completion, label, bbox, size, model_size in zip(completions, labels, bboxes, sizes, model_sizes)
        ]

    def __repr__(self) -> str:
        return f"TrlReward({self.preset.name!r}, {self.component!r})"


PRESETS: dict[str, RewardPreset] = {
    preset.name: preset
    for preset in (
        RewardPreset(
            name="inquire-mobile",
            description="InquireMobile exactly (its script under sacrebleu 2.x): format (+1/-1) + type + argument "
                        "(BLEU for text: 13a tokens, no effective order), -1..3",
            scorer=partial(score_inquire, effective_order=False, tokenize=RELEASED_TOKENIZER),
            parts=(("format", 1.0), ("accuracy", 1.0)),
            components=("type", "argument"),
        ),
        RewardPreset(
            name="inquire-mobile-fixed",
            description="inquire-mobile as its script computes under sacrebleu 1.x: BLEU on whitespace tokens with "
                        "effective order, so short identical texts score 1",
            scorer=partial(score_inquire, effective_order=True, tokenize=BLEU_TOKENIZER),
            parts=(("format", 1.0), ("accuracy", 1.0)),
            components=("type", "argument"),
        ),
        RewardPreset(
            name="mobile-r1",
            description="Mobile-R1 stage 2: R_action (0/1) + R_format (0/1 over <think>, <action>, <tool_call>)",
            scorer=score_mobile_r1,
            parts=(("format", 1.0), ("accuracy", 1.0)),
            components=("type",),
        ),
        RewardPreset(
            name="gui-r1",
            description="GUI-R1: 0.8 * accuracy + 0.2 * format (click in box or < 140 px, text token F1 >= 0.5)",
            scorer=score_gui_r1,
            parts=(("format", 0.2), ("accuracy", 0.8)),
            components=("type",),
        ),
        RewardPreset(
            name="ui-r1",
            description="UI-R1: type + click-in-box + format, each 0/1",
            scorer=score_ui_r1,
            parts=(("format", 1.0), ("type", 1.0), ("coordinate", 1.0)),
            components=("type", "coordinate"),
        ),
    )
}


def get_preset(name: str) -> RewardPreset:
    """The preset called `name`; a ConfigError lists the known names otherwise."""
    try:
        return PRESETS[name]
    except KeyError:
        raise ConfigError(f"unknown reward preset {name!r}; choose one of: {', '.join(PRESETS)}") from None
