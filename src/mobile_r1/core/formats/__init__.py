"""Data on disk: the native episode store, loaders for the papers' released formats, statistics and exporters.

    from mobile_r1.core.formats import load_any, save_episodes, load_episodes, compute_stats
    name, episodes = load_any("data.jsonl")          # format detected from the first record (or magic bytes)
    save_episodes("out/", episodes)                  # out/episodes.jsonl + out/images/
    export_dataset(episodes, get_dialect("inquire"), "sft.jsonl", frames=FrameSettings(prescale=0.3), ...)

Formats: native, mobile-r1, inquire-tasks, inquire-sft, inquire-grpo, android-control (TFRecord),
android-control-parquet, aitw (TFRecord), gui-odyssey, amex, cagui, sharegpt and trl (our exports, read back; see
`registry`). Labels outside their frame or box are found by `screen_labels` (`labels`). Every loader raises `DataError`
naming the file, the line (or record) and the field of a bad record, and refuses paths that lead outside the
dataset's folder (`paths.resolve_data_path`).
"""

from mobile_r1.core.formats.aitw import load_aitw
from mobile_r1.core.formats.android_control import load_android_control, load_android_control_parquet
from mobile_r1.core.formats.export import (
    ExportReport,
    ScreenshotSink,
    StepSample,
    export_dataset,
    export_sharegpt,
    export_trl,
    llamafactory_dataset_info,
    sharegpt_record,
    step_samples,
    trl_record,
)
from mobile_r1.core.formats.images import EncodedImage
from mobile_r1.core.formats.labels import BAD_LABEL_POLICIES, LabelReport, label_problem, screen_labels
from mobile_r1.core.formats.json_episodes import load_amex, load_gui_odyssey
from mobile_r1.core.formats.paths import DataRoots, resolve_data_path
from mobile_r1.core.formats.steps import FrameSettings, ModelStep, model_steps
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
from mobile_r1.core.formats.registry import FIELD_MATCHERS, FORMAT_NAMES, detect_format, field_matcher, load_any
from mobile_r1.core.formats.stats import DataStats, compute_stats

__all__ = [
    "BAD_LABEL_POLICIES",
    "LabelReport",
    "label_problem",
    "screen_labels",
    "CATEGORIES",
    "FIELD_MATCHERS",
    "FORMAT_NAMES",
    "DataRoots",
    "DataStats",
    "EncodedImage",
    "ExportReport",
    "FrameSettings",
    "ModelStep",
    "ScreenshotSink",
    "StepSample",
    "export_dataset",
    "field_matcher",
    "load_aitw",
    "load_amex",
    "load_android_control",
    "load_android_control_parquet",
    "load_gui_odyssey",
    "model_steps",
    "resolve_data_path",
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
