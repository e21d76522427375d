"""Trainable policies (torch): load a causal LM or a Qwen2/2.5-VL model by id, path or offline preset, with LoRA."""

from mobile_r1.models.policy import (PRESETS, LoraSettings, Policy, build_preset, cache_dir, check_model_spec, load_policy,
                                     merge_lora, unwrap)

__all__ = ["PRESETS", "LoraSettings", "Policy", "build_preset", "cache_dir", "check_model_spec", "load_policy", "merge_lora",
           "unwrap"]
