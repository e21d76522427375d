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
- With `image_root`, a path that names no file where it points (an absolute path of the machine the data was made on,
  such as InquireMobile's `/mnt/.../screenshots/1.png`, or a relative one laid out differently) is looked up **by its
  file name** under `image_root`: the file of that name whose folders match the recorded path's last folders best is
  taken; two equally good candidates are refused as ambiguous, and none is refused as before. What is found this way
  lies inside `image_root` by construction (a link that leads out of it is refused like any other path).

The rule does not check that the file exists: a missing screenshot is reported where it is read.
"""

from __future__ import annotations

import os
import re
import dataclasses
from dataclasses import dataclass
from pathlib import Path

from mobile_r1.core.errors import DataError


@dataclass(frozen=True, slots=True)
class DataRoots:
    """Where a dataset's relative paths start (`base`) and which folders its paths may reach (`allowed`)."""

    base: Path
    allowed: tuple[Path, ...]
    image_root: Path | None = None
    _index: list[dict[str, list[tuple[str, ...]]]] = dataclasses.field(default_factory=list, compare=False, repr=False)

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

    def files_named(self, name: str) -> list[tuple[str, ...]]:
        """The files called `name` under `image_root`, as folder parts relative to it (the folder is listed once)."""
        if self.image_root is None:
            return []
        if not self._index:
            index: dict[str, list[tuple[str, ...]]] = {}
            top = Path(os.path.realpath(self.image_root))
            for folder, _, files in os.walk(top):
                parts = Path(folder).relative_to(top).parts
                for file in files:
                    index.setdefault(file, []).append((*parts, file))
            self._index.append(index)
        return self._index[0].get(name, [])


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
    inside = any(_inside(resolved, Path(os.path.realpath(folder))) for folder in roots.folders)
    if inside and (roots.image_root is None or resolved.exists()):
        return resolved
    if roots.image_root is not None:
        found = _by_name(value, roots, where, field)
        if found is not None:
            return found
    if inside:
        return resolved
    allowed = ", ".join(str(f) for f in roots.folders)
    hint = ("; no file of that name is under --image-root either" if roots.image_root is not None else
            ". If the images really live elsewhere, name their folder with --image-root (files are then also found "
            "there by name)")
    raise DataError(
        f"{where}: field '{field}': the path {value!r} leads outside the dataset's folder ({allowed}); paths in data "
        f"files must stay inside it{hint}"
    )


def _by_name(value: str, roots: DataRoots, where: str, field: str) -> Path | None:
    """The file under `image_root` named as `value`'s last part whose folders best match `value`'s (see the module
    docstring); None when there is none; a DataError when two match equally well."""
    parts = tuple(p for p in re.split(r"[\\/]+", value) if p not in ("", "."))
    if not parts or parts[-1] == "..":
        return None
    candidates = roots.files_named(parts[-1])
    if not candidates:
        return None

    def shared(candidate: tuple[str, ...]) -> int:
        n = 0
        while n < min(len(candidate), len(parts)) and candidate[-1 - n] == parts[-1 - n]:
            n += 1
        return n

    scored = sorted(((shared(c), c) for c in candidates), reverse=True)
    best = [c for score, c in scored if score == scored[0][0]]
    if len(best) > 1:
        shown = ", ".join("/".join(c) for c in best[:3])
        raise DataError(f"{where}: field '{field}': {value!r} names no file where it points, and --image-root holds "
                        f"{len(best)} files that match it equally well ({shown}{', ...' if len(best) > 3 else ''}); "
                        "give the folder that holds this release's images alone")
    assert roots.image_root is not None
    top = Path(os.path.realpath(roots.image_root))
    resolved = Path(os.path.realpath(top.joinpath(*best[0])))
    if not _inside(resolved, top):
        raise DataError(f"{where}: field '{field}': {'/'.join(best[0])} under --image-root is a link that leads "
                        f"outside it ({top}); paths in data files must stay inside the folders they name")
    return resolved
