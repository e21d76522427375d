"""Tests of the HTML report: runs grouped by suite with their paired tests, one colour per run, counts beside the
figures, small thumbnails each embedded once, action marks drawn over them, headless Chromium."""

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
from mobile_r1.eval.report import Screens, action_mark, read_run, render_report, run_colors, thumbnail, write_report
from mobile_r1.eval.runner import EvalConfig, run_eval

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROME_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync"]
DATA_URL = re.compile(r"data:image/(?:webp|jpeg);base64,")


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    root = tmp_path_factory.mktemp("runs")
    run_eval(EvalConfig(agent="oracle", episodes=3, out=root / "oracle"))
    run_eval(EvalConfig(agent="random", episodes=3, max_steps=4, out=root / "random"))
    run_eval(EvalConfig(agent="oracle", suite="nav-sim", episodes=2, out=root / "oracle-nav"))
    return root / "oracle", root / "random", root / "oracle-nav"


def _decode(url: str) -> Image.Image:
    return Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1]))).convert("RGB")


def test_a_thumbnail_is_scaled_down_never_up(tmp_path: Path) -> None:
    path = tmp_path / "s.png"
    Image.new("RGB", (324, 720), (200, 30, 30)).save(path)
    made = thumbnail(path, 162)
    assert made is not None
    url, size, own = made
    assert DATA_URL.match(url) and size == (162, 360) and own == (324, 720)
    assert _decode(url).size == (162, 360) and _decode(url).getpixel((80, 180))[0] > 150
    assert thumbnail(path, 1000)[1] == (324, 720)  # type: ignore[index]
    (tmp_path / "bad.png").write_text("not an image")
    assert thumbnail(tmp_path / "bad.png") is None


def test_each_distinct_screen_is_embedded_once_and_a_cap_leaves_the_rest_out(tmp_path: Path) -> None:
    for i, colour in enumerate(("red", "red", "blue")):
        Image.new("RGB", (324, 720), colour).save(tmp_path / f"{i}.png")
    screens = Screens(100, 1e9)
    keys = [screens.get(tmp_path / f"{i}.png")["key"] for i in (0, 1, 2, 0)]
    assert keys[0] == keys[1] == keys[3] != keys[2] and len(screens.urls) == 2  # same content, one embed
    capped = Screens(100, 10)
    assert "cap" in capped.get(tmp_path / "2.png")["note"] and capped.urls == {} and capped.left_out == 1


def test_action_marks_a_click_and_a_swipe_in_the_screen_frame() -> None:
    click = action_mark({"action": "click", "coordinate": [540, 1200]}, (1080, 2400))
    assert click is not None and (click["kind"], click["x"], click["y"]) == ("point", 540.0, 1200.0)
    swipe = action_mark({"action": "swipe", "coordinate": [540, 1800], "coordinate2": [540, 600]}, (1080, 2400))
    assert swipe is not None and swipe["kind"] == "swipe" and (swipe["y"], swipe["y2"]) == (1800.0, 600.0)
    assert action_mark({"action": "terminate"}, (1080, 2400)) is None
    assert action_mark({"action": "click", "coordinate": [float("nan"), 3]}, (1080, 2400)) is None


@pytest.mark.slow
def test_report_groups_suites_with_paired_tests_counts_and_one_colour_per_run(runs: tuple[Path, Path, Path]) -> None:
    oracle, random_run, nav = runs
    data = [read_run(oracle), read_run(random_run), read_run(nav)]
    colours = run_colors(data)
    assert colours[0] == colours[2] != colours[1]  # one colour per agent, the same on both suites
    page = render_report(data)
    assert page.count('class="suite"') == 2 and "inquire-sim / test" in page and "nav-sim / test" in page
    assert "Paired tests against" in page and "p = " in page  # random against oracle on the same episodes
    assert ">truncated<" in page and ">gate refused<" in page  # what the verdicts alone do not say
    assert page.count("<svg") >= 2
    assert page.count('<details class="ep"') == 8
    assert len(DATA_URL.findall(page)) >= 3
    assert "http://" not in page and "https://" not in page and "<link" not in page  # nothing external
    assert data[0].records[0]["instruction"] in page
    for interval in re.findall(r"\[(-?[\d.]+), (-?[\d.]+)\]", page):  # no interval outside what is possible
        assert float(interval[0]) >= 0


def test_write_report_defaults_into_the_first_run_and_stays_small(runs: tuple[Path, Path, Path]) -> None:
    path = write_report([runs[0]])
    assert path == runs[0] / "report.html" and 10_000 < path.stat().st_size < 2_000_000


def test_report_refuses_a_folder_without_episodes(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="episodes.jsonl"):
        write_report([tmp_path])


@pytest.mark.slow
@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (apt-get install chromium; `make` does it for CI)")
def test_report_loads_in_headless_chromium(runs: tuple[Path, Path, Path], tmp_path: Path) -> None:
    page = write_report(list(runs), tmp_path / "report.html")
    profile = tmp_path / "profile"
    url = page.resolve().as_uri()
    dom = subprocess.run([CHROMIUM, *CHROME_FLAGS, f"--user-data-dir={profile}", "--dump-dom", url],
                         capture_output=True, text=True, timeout=120).stdout
    assert dom.count('<table class="metrics"') >= 2 and "Paired tests against" in dom
    assert dom.count("<svg") >= 2
    assert re.search(r'id="f-count">8 episodes shown<', dom), "the page's script ran and counted the episodes"
    shot = tmp_path / "shot.png"
    subprocess.run([CHROMIUM, *CHROME_FLAGS, f"--user-data-dir={profile}", "--window-size=1366,768",
                    f"--screenshot={shot}", url], capture_output=True, timeout=120, cwd=tmp_path)
    image = Image.open(shot).convert("RGB")
    assert image.size == (1366, 768)
    low, high = image.convert("L").getextrema()
    assert high - low > 100, "the screenshot shows a rendered page, not a blank one"
