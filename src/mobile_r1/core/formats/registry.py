"""Every supported data format by name, detection from a file's first record, and one `load_any` entry point.

    name, episodes = load_any("android_control-00000-of-00020")        # detected: android-control
    name, episodes = load_any("data.jsonl", image_root="/data/shots")   # relative screenshot names joined there
    FIELD_MATCHERS[name]                                                # the matcher the field scores it with

| format | what | detected by |
|---|---|---|
| native | our store (`episodes.jsonl` + `images/`) | a folder holding episodes.jsonl; records with id, instruction, steps |
| mobile-r1 | Mobile-R1 `data.jsonl` + `images/` | records with trajectory, instruction |
| inquire-tasks, inquire-sft, inquire-grpo | the InquireMobile release | their record keys |
| android-control | AndroidControl TFRecord (GZIP) | a TFRecord whose examples hold goal and screenshots |
| android-control-parquet | its parquet mirror | a parquet file with screenshots_b64 |
| aitw | Android in the Wild TFRecord (GZIP) | a TFRecord whose examples hold results/action_type |
| gui-odyssey | GUI-Odyssey annotations + screenshots | a folder with annotations/, or a JSON with device_info and task_info |
| amex | AMEX instruction_anno + screenshot | a folder with instruction_anno/, or a JSON whose steps hold touch_coord |
| cagui | CAGUI (AgentCPM-GUI's Chinese-app benchmark): `<episode>/<episode>.json` step lists | a folder holding such files, or a JSON list of steps with result_action_type |
| sharegpt | per-step samples in LLaMA-Factory's ShareGPT `messages` layout (what `data export --to sharegpt` writes) | records with messages, every content a string |
| trl | per-step TRL conversational rows (what `data export --to trl` writes) | records with prompt and completion, or messages with content parts |

Every loader takes `image_root` (the folder relative screenshot names are joined to, which paths may then also reach;
see `core.formats.paths`) and `images` (False: leave screenshots embedded in the file out, for statistics).
"""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from mobile_r1.core.errors import DataError
from mobile_r1.core.formats import aitw, android_control, cagui, json_episodes
from mobile_r1.core.formats.inquire import load_inquire_grpo, load_inquire_sft, load_inquire_tasks
from mobile_r1.core.formats.jsonl import first_record
from mobile_r1.core.formats.mobile_r1 import load_mobile_r1
from mobile_r1.core.formats.samples import SHAREGPT, TRL, load_samples, sample_format
from mobile_r1.core.formats.native import episodes_file, load_episodes
from mobile_r1.core.formats.tfrecord import looks_like_tfrecord, read_examples
from mobile_r1.core.records import Episode


class Loader(Protocol):
    def __call__(self, path: Path, *, image_root: Path | None = None, images: bool = True) -> list[Episode]: ...


def _native(path: Path, *, image_root: Path | None = None, images: bool = True) -> list[Episode]:
    return load_episodes(path, image_root=image_root, images=images)


def _mobile_r1(path: Path, *, image_root: Path | None = None, images: bool = True) -> list[Episode]:
    return load_mobile_r1(path, image_root=image_root, images=images)


def _tasks(path: Path, *, image_root: Path | None = None, images: bool = True) -> list[Episode]:
    return [task.to_episode() for task in load_inquire_tasks(path)]


def _sft(path: Path, *, image_root: Path | None = None, images: bool = True) -> list[Episode]:
    return load_inquire_sft(path, image_root=image_root, images=images)


def _grpo(path: Path, *, image_root: Path | None = None, images: bool = True) -> list[Episode]:
    return load_inquire_grpo(path, image_root=image_root, images=images)


LOADERS: dict[str, Loader] = {
    "native": _native,
    "mobile-r1": _mobile_r1,
    "inquire-tasks": _tasks,
    "inquire-sft": _sft,
    "inquire-grpo": _grpo,
    android_control.FORMAT: android_control.load_android_control,
    android_control.PARQUET_FORMAT: android_control.load_android_control_parquet,
    aitw.FORMAT: aitw.load_aitw,
    json_episodes.ODYSSEY: json_episodes.load_gui_odyssey,
    json_episodes.AMEX: json_episodes.load_amex,
    cagui.FORMAT: cagui.load_cagui,
    SHAREGPT: load_samples,
    TRL: load_samples,
}
FORMAT_NAMES = tuple(LOADERS)

# The step matcher each dataset is scored with in the field (see `core.matching`); formats not listed: qwen-ac.
FIELD_MATCHERS: dict[str, str] = {
    android_control.FORMAT: android_control.MATCHER,
    android_control.PARQUET_FORMAT: android_control.MATCHER,
    aitw.FORMAT: aitw.MATCHER,
    **json_episodes.MATCHERS,
    cagui.FORMAT: cagui.MATCHER,
}


def field_matcher(format_name: str) -> str:
    """The matcher preset the field uses for a dataset format (qwen-ac unless the dataset has its own)."""
    return FIELD_MATCHERS.get(format_name, "qwen-ac")


def _detect_tfrecord(path: Path) -> str:
    for place, example in read_examples(path):
        keys = set(example.features.feature.keys())
        if "results/action_type" in keys:
            return aitw.FORMAT
        if {"goal", "screenshots"} <= keys:
            return android_control.FORMAT
        raise DataError(f"{place}: a TFRecord with fields {sorted(keys)[:12]}: neither AndroidControl (goal, "
                        "screenshots, actions) nor AITW (results/action_type); pass --format explicitly")
    raise DataError(f"{path}: the TFRecord file holds no record")


def _detect_json(path: Path) -> str:
    from mobile_r1.core.reading import read_json

    record = read_json(path)
    if cagui.looks_like_cagui(record):
        return cagui.FORMAT
    if not isinstance(record, dict):
        raise DataError(f"{path}: cannot tell the format of a JSON {type(record).__name__}; pass one of "
                        f"{', '.join(FORMAT_NAMES)} explicitly")
    if {"device_info", "task_info", "steps"} <= set(record):
        return json_episodes.ODYSSEY
    steps = record.get("steps")
    if "instruction" in record and isinstance(steps, list) and any(
            isinstance(s, dict) and ("touch_coord" in s or "image_path" in s) for s in steps):
        return json_episodes.AMEX
    raise DataError(f"{path}: cannot tell the format from fields {sorted(record)}; pass one of "
                    f"{', '.join(FORMAT_NAMES)} explicitly")


def detect_format(path: str | Path) -> str:
    """Name the format of a file or folder from its layout, its magic bytes or the keys of its first record."""
    path = Path(path)
    if path.is_dir():
        if episodes_file(path).is_file():
            return "native"
        if (path / "annotations").is_dir():
            return json_episodes.ODYSSEY
        if (path / "instruction_anno").is_dir():
            return json_episodes.AMEX
        if any(True for _ in cagui.episode_files(path)):
            return cagui.FORMAT
        raise DataError(f"{path}: a folder must hold {episodes_file(path).name} (native), annotations/ (GUI-Odyssey), "
                        "instruction_anno/ (AMEX) or <episode>/<episode>.json files (CAGUI); otherwise give a file")
    if not path.is_file():
        raise DataError(f"{path}: no such file or folder")
    with open(path, "rb") as stream:
        head = stream.read(4)
    if head == b"PAR1":
        return android_control.PARQUET_FORMAT
    if path.suffix == ".json":
        return _detect_json(path)
    if path.suffix != ".jsonl" and looks_like_tfrecord(path):
        return _detect_tfrecord(path)
    record = first_record(path)
    if record is None:
        raise DataError(f"{path}: the file is empty; nothing to detect")
    keys = set(record)
    if {"id", "instruction", "steps"} <= keys:
        return "native"
    if {"trajectory", "instruction"} <= keys:
        return "mobile-r1"
    sample = sample_format(record)
    if sample is not None:
        return sample
    if "conversations" in keys:
        return "inquire-sft"
    if {"goal", "action"} <= keys:
        return "inquire-grpo"
    if {"instruction", "category", "intension"} <= keys:
        return "inquire-tasks"
    raise DataError(
        f"{path}:1: cannot tell the format from fields {sorted(keys)}; pass one of {', '.join(FORMAT_NAMES)} explicitly"
    )


def load_any(path: str | Path, format: str | None = None, *, image_root: str | Path | None = None,
             images: bool = True) -> tuple[str, list[Episode]]:
    """Load any supported file or folder as episodes; returns (format name, episodes). `format=None` detects it."""
    name = format or detect_format(path)
    if name not in LOADERS:
        raise DataError(f"unknown data format {name!r}; choose one of {', '.join(FORMAT_NAMES)}")
    root = Path(image_root) if image_root is not None else None
    if root is not None and not root.is_dir():
        raise DataError(f"--image-root {root}: no such folder")
    return name, LOADERS[name](Path(path), image_root=root, images=images)
