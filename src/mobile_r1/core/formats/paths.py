"""The one rule for file paths found inside data files: they resolve inside the dataset's folder, or are refused.

Every loader that reads a path out of a record (a screenshot name, an annotation file) calls `resolve_data_path`:

    root = DataRoots(base=path.parent / "images", allowed=(path.parent,), image_root=image_root)
    shot = resolve_data_path(record["image"], root, where, "trajectory[0].image")

- A relative path is joined to `base` (the folder the format says its images live in), or to `image_root` when the
  user gave one (`--image-root`).
- The result is resolved (`..` collapsed, symbolic links followed) and must lie inside one of the allowed folders:
  the dataset's own folder, and `image_root` when given. `../../etc/passwd`, an absolute `/etc/passwd` and a link
  inside `images/` that points outside are all refused with a `DataError` naming the file, the line and the field.
- An absolute path is accepted only when it already lies inside an allowed folder (a store written with absolute
  paths to its own images).

The rule does not check that the file exists: a missing screenshot is reported where it is read.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from mobile_r1.core.errors import DataError


@dataclass(frozen=True, slots=True)
class DataRoots:
    """Where a dataset's relative paths start (`base`) and which folders its paths may reach (`allowed`)."""

    base: Path
    allowed: tuple[Path, ...]
    image_root: Path | None = None

    @classmethod
    def beside(cls, data_file: Path, images: str | None = None, image_root: str | Path | None = None) -> DataRoots:
        """Roots for a data file: relative paths start at `images` beside it (or the file's folder), which is allowed."""
        folder = Path(data_file).parent
        base = folder / images if images else folder
        root = Path(image_root) if image_root is not None else None
        return cls(base=base, allowed=(folder,), image_root=root)

    @property
    def start(self) -> Path:
        """The folder relative paths are joined to."""
        return self.image_root if self.image_root is not None else self.base

    @property
    def folders(self) -> tuple[Path, ...]:
        """Every folder a path may resolve into."""
        return self.allowed + ((self.image_root,) if self.image_root is not None else ())


def _inside(path: Path, folder: Path) -> bool:
    try:
        path.relative_to(folder)
    except ValueError:
        return False
    return True


def _place(where: object) -> str:
    path, line = getattr(where, "path", None), getattr(where, "line", None)
    return f"{path}:{line}" if path is not None and line is not None else str(where)


def resolve_data_path(value: object, roots: DataRoots, where: object, field: str) -> Path:
    """The absolute path of a file named in a data record, refused unless it lies inside an allowed folder.

    `where` names the record (a `Where` from `iter_jsonl`, or any text such as "file.json"); the error says
    `<where>: field '<field>': ...`, as every loader's errors do.
    """
    where = _place(where)
    if not isinstance(value, str) or not value.strip():
        raise DataError(f"{where}: field '{field}': must be a file name, got {value!r}")
    if "\x00" in value:
        raise DataError(f"{where}: field '{field}': a file name may not contain a NUL character")
    raw = Path(value)
    candidate = raw if raw.is_absolute() else roots.start / raw
    resolved = Path(os.path.realpath(candidate))
    for folder in roots.folders:
        if _inside(resolved, Path(os.path.realpath(folder))):
            return resolved
    allowed = ", ".join(str(f) for f in roots.folders)
    raise DataError(
        f"{where}: field '{field}': the path {value!r} leads outside the dataset's folder ({allowed}); paths in data "
        "files must stay inside it. If the images really live elsewhere, name their folder with --image-root"
    )
