"""The native episode store: a JSONL file of `Episode.to_dict()` records plus an `images/` folder beside it.

    save_episodes("runs/data", episodes)          # runs/data/episodes.jsonl + runs/data/images/
    save_episodes("runs/data/train.jsonl", eps)   # runs/data/train.jsonl + runs/data/images/
    episodes = load_episodes("runs/data")         # or the .jsonl path

Screenshot paths in the file are relative to the images folder; `load_episodes` returns them absolute and refuses any
that leads outside the store's folder (`core.formats.paths`). In-memory screenshots (`Observation.screenshot`,
anything with a PIL-style `.save(path)`, such as screenshots embedded in TFRecord or parquet files) are written there
as PNG; screenshots given as absolute paths are copied in (a missing one stops the save with a DataError: a converted
store never silently loses an image). The episodes passed in are never modified.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Iterable

from mobile_r1.core.errors import DataError
from mobile_r1.core.formats.jsonl import iter_jsonl
from mobile_r1.core.formats.paths import DataRoots, resolve_data_path
from mobile_r1.core.records import Episode

EPISODES_FILE = "episodes.jsonl"
IMAGES_DIR = "images"


def episodes_file(path: str | Path) -> Path:
    """The JSONL file for a store given as a folder or as the file itself."""
    path = Path(path)
    return path if path.suffix == ".jsonl" else path / EPISODES_FILE


def images_dir(path: str | Path) -> Path:
    """The images folder of a store (beside its JSONL file); screenshot paths are relative to it."""
    return episodes_file(path).parent / IMAGES_DIR


def save_episodes(path: str | Path, episodes: Iterable[Episode]) -> Path:
    """Write episodes (and their screenshots) to a store; returns the JSONL file written."""
    target = episodes_file(path)
    images = images_dir(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    with open(target, "w", encoding="utf-8") as stream:
        for episode in episodes:
            record = episode.to_dict()
            for index, (step, data) in enumerate(zip(episode.steps, record["steps"])):
                if step.observation is None:
                    continue
                name = _store_screenshot(step.observation.screenshot, step.observation.screenshot_path, images, episode.id, index)
                if name is not None:
                    data["observation"]["screenshot_path"] = name
            stream.write(json.dumps(record, ensure_ascii=False) + "\n")
    return target


def _store_screenshot(image: object, path: str | None, images: Path, episode_id: str, index: int) -> str | None:
    """Put a step's screenshot in the images folder; returns its name there (None: leave the record as is)."""
    safe_id = "".join(c if c.isalnum() or c in "-_." else "_" for c in episode_id)
    if image is not None and hasattr(image, "save"):
        images.mkdir(parents=True, exist_ok=True)
        name = f"{safe_id}_{index:03d}.png"
        image.save(images / name)  # type: ignore[attr-defined]
        return name
    if path is not None and Path(path).is_absolute() and not Path(path).is_file():
        raise DataError(f"episode {episode_id!r} step {index}: screenshot {path} not found; the store would lose it "
                        "(restore the file, or point --image-root at the folder that holds it)")
    if path is not None and Path(path).is_absolute():
        images.mkdir(parents=True, exist_ok=True)
        source = Path(path)
        name = f"{safe_id}_{index:03d}{source.suffix}"
        if source.resolve() != (images / name).resolve():
            shutil.copyfile(source, images / name)
        return name
    return None


def load_episodes(path: str | Path, *, image_root: str | Path | None = None, images: bool = True) -> list[Episode]:
    """Read a store written by `save_episodes` (a folder or its .jsonl file).

    Screenshot paths come back absolute, resolved in the images folder (or `image_root`) and refused when they lead
    outside the store's folder (`core.formats.paths`); `images=False` drops them unread (statistics).
    """
    source = episodes_file(path)
    if not source.is_file():
        raise DataError(f"{path}: no episode store here (expected {source}); write one with save_episodes")
    roots = DataRoots.beside(source, IMAGES_DIR, image_root)
    episodes = []
    for where, record in iter_jsonl(source):
        try:
            episode = Episode.from_dict(record)
        except (DataError, ValueError, TypeError) as exc:
            raise DataError(f"{where.path}:{where.line}: {exc}") from None
        for index, step in enumerate(episode.steps):
            if step.observation is not None and step.observation.screenshot_path and not images:
                step.observation.screenshot_path = None
            elif step.observation is not None and step.observation.screenshot_path:
                field = f"steps[{index}].observation.screenshot_path"
                step.observation.screenshot_path = str(
                    resolve_data_path(step.observation.screenshot_path, roots, where, field))
        episodes.append(episode)
    return episodes
