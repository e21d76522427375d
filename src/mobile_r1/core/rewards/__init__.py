"""Single-step rewards for action-level RL: a completion scored against one labelled `mobile_use` action.

    from mobile_r1.core.rewards import get_preset
    preset = get_preset("inquire-mobile")
    result = preset.score(completion, {"name": "mobile_use", "arguments": {"action": "click", "coordinate": [85, 537]}},
                          bbox=[52, 497, 125, 567], image_size=[720, 1280], model_image_size=[448, 840])
    result.total, result.format, result.accuracy, result.components["type"]

Presets: `inquire-mobile` (the released InquireMobile reward, exactly), `inquire-mobile-fixed` (same with
BLEU effective order on), `mobile-r1`, `gui-r1`, `ui-r1`. Each also gives TRL reward functions
(`as_trl_reward`, `as_trl_rewards`, `component_rewards`).
"""

from mobile_r1.core.rewards.base import RewardResult, RewardTarget, completion_text
from mobile_r1.core.rewards.bleu import sentence_bleu
from mobile_r1.core.rewards.cases import RewardCase, read_cases, score_cases, score_file
from mobile_r1.core.rewards.components import inquire_format, swipe_direction, token_f1
from mobile_r1.core.rewards.presets import PRESETS, RewardPreset, TrlReward, get_preset

__all__ = [
    "PRESETS",
    "RewardCase",
    "RewardPreset",
    "RewardResult",
    "RewardTarget",
    "TrlReward",
    "completion_text",
    "get_preset",
    "inquire_format",
    "read_cases",
    "score_cases",
    "score_file",
    "sentence_bleu",
    "swipe_direction",
    "token_f1",
]
