"""Data on disk: the native episode store, loaders for the papers' released formats, statistics and exporters.

    from mobile_r1.core.formats import load_any, save_episodes, load_episodes, compute_stats
    name, episodes = load_any("data.jsonl")          # format detected from the first record
    save_episodes("out/", episodes)                  # out/episodes.jsonl + out/images/

Every loader raises `DataError` naming the file, the line and the field of a bad record.
"""

from mobile_r1.core.formats.export import (
    StepSample,
    export_sharegpt,
    export_trl,
    llamafactory_dataset_info,
    sharegpt_record,
    step_samples,
    trl_record,
)
from mobile_r1.core.formats.inquire import (
    CATEGORIES,
    InquireTask,
    load_inquire_grpo,
    load_inquire_sft,
    load_inquire_tasks,
)
from mobile_r1.core.formats.mobile_r1 import load_mobile_r1
from mobile_r1.core.formats.native import images_dir, load_episodes, save_episodes
from mobile_r1.core.formats.pairs import MatchPair, load_match_pairs
from mobile_r1.core.formats.registry import FORMAT_NAMES, detect_format, load_any
from mobile_r1.core.formats.stats import DataStats, compute_stats

__all__ = [
    "CATEGORIES",
    "FORMAT_NAMES",
    "DataStats",
    "StepSample",
    "export_sharegpt",
    "export_trl",
    "llamafactory_dataset_info",
    "sharegpt_record",
    "step_samples",
    "trl_record",
    "InquireTask",
    "MatchPair",
    "compute_stats",
    "detect_format",
    "images_dir",
    "load_any",
    "load_episodes",
    "load_inquire_grpo",
    "load_inquire_sft",
    "load_inquire_tasks",
    "load_match_pairs",
    "load_mobile_r1",
    "save_episodes",
]
