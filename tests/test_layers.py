"""The layers are enforced, not only drawn: import-linter's contracts (pyproject.toml) hold, and nothing above the
environment protocol reaches into the simulated phone."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

SRC = Path(__file__).resolve().parents[1] / "src" / "mobile_r1"
ABOVE_THE_DOOR = ("eval", "train", "play", "agents", "serve")


def test_import_contracts_hold() -> None:
    lint = Path(sys.executable).with_name("lint-imports")
    proc = subprocess.run([str(lint), "--no-cache"], capture_output=True, text=True, cwd=SRC.parents[1], check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "broken" in proc.stdout and "0 broken" in proc.stdout


def test_no_layer_above_the_door_names_the_simulator_or_a_phone() -> None:
    pattern = re.compile(r"\.phone\b|mobile_r1\.sim")
    hits = [f"{path.relative_to(SRC)}:{n}: {line.strip()}"
            for layer in ABOVE_THE_DOOR for path in sorted((SRC / layer).rglob("*.py"))
            for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1) if pattern.search(line)]
    assert hits == []
