"""Tests of the HTML report: tables side by side, per-category SVG charts, annotated screenshots, headless Chromium."""

from __future__ import annotations

import base64
import io
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from PIL import Image

from mobile_r1.core.errors import DataError
from mobile_r1.eval.report import annotated_image, read_run, render_report, write_report
from mobile_r1.eval.runner import EvalConfig, run_eval

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROME_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync"]


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("runs")
    run_eval(EvalConfig(agent="oracle", episodes=3, out=root / "oracle"))
    run_eval(EvalConfig(agent="random", episodes=3, max_steps=4, out=root / "random"))
    return root / "oracle", root / "random"


def _decode(url: str) -> Image.Image:
    return Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1]))).convert("RGB")


def test_annotated_image_marks_the_click_point(tmp_path: Path) -> None:
    path = tmp_path / "s.png"
    Image.new("RGB", (324, 720), "white").save(path)
    url = annotated_image(path, {"action": "click", "coordinate": [540, 1200]}, (1080, 2400), width=162)
    assert url is not None and url.startswith("data:image/jpeg;base64,")
    image = _decode(url)
    assert image.size == (162, 360)
    r, g, b = image.getpixel((81, 180))  # the centre dot at (540, 1200) scaled by 162/1080
    assert r > 150 and g < 120 and b < 120
    plain = _decode(annotated_image(path, None, (1080, 2400), width=162) or "")
    assert min(plain.getpixel((81, 180))) > 240


def test_annotated_image_draws_a_swipe_arrow(tmp_path: Path) -> None:
    path = tmp_path / "s.png"
    Image.new("RGB", (324, 720), "white").save(path)
    url = annotated_image(path, {"action": "swipe", "coordinate": [540, 1800], "coordinate2": [540, 600]},
                          (1080, 2400), width=162)
    image = _decode(url or "")
    r, g, b = image.getpixel((81, 180))  # the middle of the arrow's shaft
    assert r > 150 and b < 120
    assert annotated_image(tmp_path / "missing.png", None, (1080, 2400)) is None


@pytest.mark.slow
def test_report_puts_runs_side_by_side_with_charts_and_steps(runs: tuple[Path, Path], tmp_path: Path) -> None:
    oracle, random_run = runs
    page = render_report([read_run(oracle), read_run(random_run)])
    assert page.count('<th colspan="10" class="run"') == 2 and page.count('<th>self-corr.</th>') == 2
    assert ">oracle<" in page and ">random<" in page
    assert page.count("<svg") >= 2 and "<rect" in page
    assert page.count('<details class="ep"') == 6
    assert page.count("data:image/jpeg;base64,") >= 6
    assert "http://" not in page and "https://" not in page and "<link" not in page  # nothing external
    records = read_run(oracle).records
    assert records[0]["instruction"] in page


def test_write_report_defaults_into_the_first_run(runs: tuple[Path, Path]) -> None:
    path = write_report([runs[0]])
    assert path == runs[0] / "report.html" and path.stat().st_size > 10_000


def test_report_refuses_a_folder_without_episodes(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="episodes.jsonl"):
        write_report([tmp_path])


@pytest.mark.slow
@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (apt-get install chromium; `make` does it for CI)")
def test_report_loads_in_headless_chromium(runs: tuple[Path, Path], tmp_path: Path) -> None:
    page = write_report(list(runs), tmp_path / "report.html")
    profile = tmp_path / "profile"
    url = page.resolve().as_uri()
    dom = subprocess.run([CHROMIUM, *CHROME_FLAGS, f"--user-data-dir={profile}", "--dump-dom", url],
                         capture_output=True, text=True, timeout=120).stdout
    assert "<table class=\"metrics\"" in dom
    assert dom.count("<svg") >= 2
    assert len(re.findall(r'<img src="data:image/jpeg;base64,', dom)) >= 6
    assert re.search(r'id="f-count">6 episodes shown<', dom), "the page's script ran and counted the episodes"
    shot = tmp_path / "shot.png"
    subprocess.run([CHROMIUM, *CHROME_FLAGS, f"--user-data-dir={profile}", "--window-size=1200,1600",
                    f"--screenshot={shot}", url], capture_output=True, timeout=120, cwd=tmp_path)
    image = Image.open(shot).convert("L")
    assert image.size == (1200, 1600)
    low, high = image.getextrema()
    assert high - low > 100, "the screenshot shows a rendered page, not a blank one"
