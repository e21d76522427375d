"""JSON records written whole or not at all."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mobile_r1.core.files import write_json


def test_write_json_replaces_the_file_whole_and_a_failed_write_leaves_the_old_one(tmp_path: Path,
                                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    import mobile_r1.core.files as files

    path = tmp_path / "state.json"
    write_json(path, {"step": 1, "name": "Café"})
    assert path.read_text(encoding="utf-8") == '{\n  "step": 1,\n  "name": "Café"\n}\n'
    write_json(path, {"step": 2})
    assert json.loads(path.read_text(encoding="utf-8")) == {"step": 2}
    with pytest.raises(TypeError):  # data that cannot be written: the last good version stays
        write_json(path, {"step": 3, "bad": object()})

    def interrupted(src: Path, dst: Path) -> None:  # the new version written in full, then the rename fails
        assert json.loads(Path(src).read_text(encoding="utf-8")) == {"step": 4}
        raise OSError("interrupted")

    monkeypatch.setattr(files.os, "replace", interrupted)
    with pytest.raises(OSError, match="interrupted"):
        write_json(path, {"step": 4})
    assert json.loads(path.read_text(encoding="utf-8")) == {"step": 2}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["state.json"]  # no temporary file left behind
