"""`mobile-r1 sim render | gallery | play` through the CLI entry point."""

from __future__ import annotations

import io
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from PIL import Image

from mobile_r1.cli.main import main


def test_render_writes_png_and_prints_elements(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "cart.png"
    assert main(["sim", "render", "--app", "taobao", "--screen", "cart", "--scale", "0.3", "--out", str(out),
                 "--elements"]) == 0
    assert Image.open(out).size == (324, 720)
    printed = capsys.readouterr().out
    assert "#checkout" in printed and "Cart (0)" in printed


def test_render_xml_parses(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sim", "render", "--app", "Notes", "--xml"]) == 0
    root = ET.fromstring(capsys.readouterr().out.strip())
    assert any(n.get("resource-id") == "com.sim.notes:id/new_note" for n in root.iter("node"))


def test_render_unknown_screen_is_a_clean_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sim", "render", "--app", "Notes", "--screen", "nope"]) == 2
    assert "no screen 'nope'" in capsys.readouterr().err


def test_gallery_writes_every_screen(tmp_path: Path) -> None:
    assert main(["sim", "gallery", "--out", str(tmp_path), "--app", "notes", "--app", "shop"]) == 0
    index = (tmp_path / "index.md").read_text()
    for name in ("notes_home.png", "notes_edit.png", "shop_checkout.png", "shop_pay.png", "launcher.png"):
        assert (tmp_path / name).is_file() and name in index
    assert (tmp_path / "index.html").is_file()


def test_play_reads_piped_actions(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    script = "\n".join([
        "open Notes",
        '{"action": "click", "coordinate": [5000, 10]}',
        "type hello",
        "click 540 2330",
        "bogus",
        f"shot {tmp_path / 'x.png'}",
        "quit",
        "back",
    ]) + "\n"
    monkeypatch.setattr(sys, "stdin", io.StringIO(script))
    assert main(["sim", "play", "--canonical"]) == 0
    out = capsys.readouterr().out
    assert "screen: notes/home" in out
    assert "outside the 1080x2400 screen" in out
    assert "no text field is focused" in out
    assert "unknown action or command 'bogus'" in out
    assert (tmp_path / "x.png").is_file()
    assert sum(line.startswith("> ") for line in out.splitlines()) == 4  # quit stops before the last line


def test_render_randomized_differs_from_canonical(tmp_path: Path) -> None:
    a, b = tmp_path / "a.png", tmp_path / "b.png"
    assert main(["sim", "render", "--app", "settings", "--out", str(a)]) == 0
    assert main(["sim", "render", "--app", "settings", "--seed", "4", "--randomize", "--out", str(b)]) == 0
    assert Image.open(a).tobytes() != Image.open(b).tobytes()
