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


def test_gallery_writes_the_main_screens_in_both_languages(tmp_path: Path) -> None:
    assert main(["sim", "gallery", "--out", str(tmp_path), "--app", "notes", "--app", "ctrip"]) == 0
    index = (tmp_path / "index.md").read_text(encoding="utf-8")
    for lang in ("en", "zh"):
        for name in ("notes_home.png", "ctrip_home.png", "ctrip_results.png", "ctrip_flight.png", "launcher.png"):
            assert (tmp_path / lang / name).is_file() and f"({lang}/{name})" in index
    assert not (tmp_path / "en" / "ctrip_done.png").exists()  # not a main screen
    assert "| results | ![Ctrip results en](en/ctrip_results.png) | ![Ctrip results zh](zh/ctrip_results.png) |" in index
    en, zh = (Image.open(tmp_path / lang / "ctrip_home.png") for lang in ("en", "zh"))
    assert en.size == zh.size == (216, 480) and en.tobytes() != zh.tobytes()
    assert (tmp_path / "index.html").is_file()


def test_gallery_of_every_screen_in_one_language(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sim", "gallery", "--out", str(tmp_path), "--app", "shop", "--locale", "zh", "--every"]) == 0
    assert (tmp_path / "zh" / "shop_checkout.png").is_file() and (tmp_path / "zh" / "shop_pay.png").is_file()
    assert not (tmp_path / "en").exists()
    assert main(["sim", "gallery", "--out", str(tmp_path), "--locale", "fr"]) == 2
    assert "unknown locale 'fr'" in capsys.readouterr().err


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
