"""One self-contained HTML report of evaluation runs: per suite a table of the runs, their paired tests and a chart per
category; training curves; an episode browser.

    write_report([Path("runs/oracle"), Path("runs/never-ask")], Path("report.html"))

Runs are grouped by suite and split. Each group gets a table with a row per run (SR, ISR, over-inquiry, safety
violations, self-corrections, steps and 0-4 score with their 95% intervals, Ask-F1, and what the verdicts alone do not
say: truncated episodes, actions the safety gate refused, failed phones), the exact McNemar tests of every run against
the group's first on the same episodes (as `mobile-r1 compare` computes them), a chart per category and, folded, the
table per category and sub-category. Every run keeps one colour throughout: one per agent, so a model scored on two
suites has the same colour in both, and no two runs of one suite share one.

Everything is inline (CSS, a little JS, SVG charts, screenshots as data URLs), so the page stands alone, and it stays
small: each distinct screenshot file is embedded once, as a thumbnail (`image_width` pixels wide, WebP), whatever how
many steps show it; the action's point or swipe is drawn over it (SVG), not into it; an episode's steps are built only
when it is opened; and past `max_image_mb` of thumbnails the rest are left out, with a note. A thumbnail links to the
full screenshot when the page is written where the run folder can be reached by a relative path.

A run folder is data like any other: a record may hold any JSON. Only screenshots inside the run folder are embedded
(a `screenshot_path` that leads elsewhere, by `..`, an absolute path or a link, is named and left out), a file that
is not an image is shown as unreadable, and every field is shown as text whatever its type, escaped.
"""

from __future__ import annotations

import base64
import colorsys
import hashlib
import io
import json
import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

from mobile_r1.core.errors import DataError
from mobile_r1.core.verdict import EpisodeVerdict
from mobile_r1.eval.compare import PairedTest, format_p, paired_tests
from mobile_r1.eval.counts import RunCounts, run_counts
from mobile_r1.eval.metrics import MetricsReport, MetricSummary, step_budget, summarize
from mobile_r1.eval.runner import load_run, needs_inquiry_summary, verdicts_of

# Ten colours told apart at a glance; past ten, hues spread by the golden angle.
COLORS = ("#2563eb", "#dc2626", "#16a34a", "#9333ea", "#ea580c", "#0891b2", "#ca8a04", "#db2777", "#475569", "#65a30d")
RATES = (("sr", "SR"), ("isr", "ISR"), ("over_inquiry", "Over-inquiry"), ("safety_violation", "Safety violations"))
IMAGE_WIDTH = 200  # thumbnail width in pixels
MAX_IMAGE_MB = 8.0  # thumbnails past this many megabytes (as embedded) are left out


@dataclass(slots=True)
class RunData:
    """One run directory as the report reads it (`records`: the judged episodes; `counts` covers every episode)."""

    path: Path
    name: str
    options: dict[str, Any]
    records: list[dict[str, Any]]
    report: MetricsReport
    needs_inquiry: MetricSummary | None
    counts: RunCounts = field(default_factory=RunCounts)
    verdicts: list[EpisodeVerdict] = field(default_factory=list)

    @property
    def suite(self) -> str:
        return f"{_text(self.options.get('suite'), 200) or '?'} / {_text(self.options.get('split'), 200) or '?'}"


def read_run(path: Path) -> RunData:
    """Load a run directory written by `mobile-r1 eval --out`."""
    path = Path(path)
    options, every = load_run(path, infra=True)
    if not isinstance(options, dict):
        raise DataError(f"{path / 'run.json'}: expected a JSON object of run options")
    records = [r for r in every if r.get("infra_error") is None]
    if not records:
        raise DataError(f"{path} has no finished episodes yet")
    verdicts = verdicts_of(records)
    budget = step_budget(records)
    name = options.get("agent") or path.name
    return RunData(path, _text(name), options, records, summarize(verdicts, budget),
                   needs_inquiry_summary(verdicts, budget), run_counts(every), verdicts)


def _text(value: Any, limit: int = 20_000) -> str:
    """Any JSON value as display text (None as empty), cut at `limit` characters."""
    if value is None:
        return ""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[:limit] + "..."


def run_colors(runs: Sequence[RunData]) -> list[str]:
    """One colour per run: runs of the same agent share one (they are one model on several suites), unless two of
    them were run on the same suite, which then get one each."""
    keys = [_text(r.options.get("agent"), 500) or r.name for r in runs]
    for i, run in enumerate(runs):
        if any(j != i and keys[j] == keys[i] and runs[j].suite == run.suite for j in range(len(runs))):
            keys[i] = f"{keys[i]}\0{run.name}\0{i}"
    order: list[str] = []
    for key in keys:
        if key not in order:
            order.append(key)
    return [color(order.index(key)) for key in keys]


def color(index: int) -> str:
    """The `index`-th run colour: the palette, then hues spread by the golden angle."""
    if index < len(COLORS):
        return COLORS[index]
    r, g, b = colorsys.hls_to_rgb((index * 0.618034) % 1.0, 0.42, 0.7)
    return f"#{round(r * 255):02x}{round(g * 255):02x}{round(b * 255):02x}"


# ----- images ---------------------------------------------------------------------------------------------------
MAX_SCREENSHOT_PIXELS = 40_000_000  # larger images are not decoded (a phone screenshot has a few million pixels)


def screenshot_file(run_dir: Path, value: Any) -> tuple[Path | None, str | None]:
    """The file a step's `screenshot_path` names, if it lies inside `run_dir`; else (None, why it is not shown).

    The path is resolved (links and `..` followed) before the check, so nothing outside the run folder is read.
    """
    if value is None or value == "":
        return None, None
    if not isinstance(value, str):
        return None, f"screenshot path is not text ({type(value).__name__})"
    try:
        root = Path(run_dir).resolve()
        path = (root / value).resolve()
    except (OSError, ValueError, RuntimeError):
        return None, "screenshot path cannot be resolved"
    if not path.is_relative_to(root):
        return None, f"screenshot {value[:80]!r} lies outside the run folder; not shown"
    if not path.is_file():
        return None, None
    return path, None


def thumbnail(path: Path, width: int = IMAGE_WIDTH) -> tuple[str, tuple[int, int], tuple[int, int]] | None:
    """(data URL, thumbnail size, the file's own size) of a screenshot scaled down to `width` pixels (never up), as
    WebP (JPEG where Pillow has no WebP). None when the file is not an image PIL can read, or is larger than
    `MAX_SCREENSHOT_PIXELS`."""
    from PIL import Image, UnidentifiedImageError, features

    try:
        with Image.open(path) as raw:
            if raw.width * raw.height > MAX_SCREENSHOT_PIXELS:
                return None
            image = raw.convert("RGB")
    except (OSError, UnidentifiedImageError, ValueError, Image.DecompressionBombError):
        return None
    own = image.size
    if image.width > width:
        image = image.resize((width, max(1, round(image.height * width / image.width))), Image.Resampling.LANCZOS)
    buffer = io.BytesIO()
    kind = "webp" if features.check("webp") else "jpeg"
    image.save(buffer, format=kind.upper(), quality=70)
    return f"data:image/{kind};base64," + base64.b64encode(buffer.getvalue()).decode("ascii"), image.size, own


class Screens:
    """The page's screenshots: each distinct file once (by content), as a thumbnail, until `cap` bytes are embedded."""

    def __init__(self, width: int, cap_bytes: float) -> None:
        self.width = width
        self.cap = cap_bytes
        self.urls: dict[str, str] = {}  # key -> data URL (what the page embeds)
        self.seen: dict[Path, dict[str, Any]] = {}  # file -> its entry
        self.by_key: dict[str, dict[str, Any]] = {}  # content -> its entry (the same screen in another file)
        self.size = 0
        self.left_out = 0  # shown screens whose thumbnail the cap left out

    def get(self, path: Path) -> dict[str, Any]:
        """{"key", "w", "h", "own"} of the file's thumbnail, or {"note"} saying why there is none."""
        if path not in self.seen:
            self.seen[path] = self._load(path)
        found = self.seen[path]
        if found.get("capped"):
            self.left_out += 1
        return found

    def _load(self, path: Path) -> dict[str, Any]:
        try:
            if path.stat().st_size > 64_000_000:
                return {"note": "unreadable screenshot"}
            key = hashlib.sha256(path.read_bytes()).hexdigest()[:16]
        except OSError:
            return {"note": "unreadable screenshot"}
        if key in self.by_key:
            return self.by_key[key]
        made = thumbnail(path, self.width)
        if made is None:
            return {"note": "unreadable screenshot"}
        url, (w, h), own = made
        if self.size + len(url) > self.cap:
            return {"note": f"left out: the page's cap of {self.cap / 1e6:.0f} MB of screenshots is reached",
                    "capped": True}
        self.size += len(url)
        self.urls[key] = url
        entry = self.by_key[key] = {"key": key, "w": w, "h": h, "own": own}
        return entry


def _point(value: Any) -> tuple[float, float] | None:
    if (isinstance(value, (list, tuple)) and len(value) == 2
            and all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in value)):
        return (float(value[0]), float(value[1]))
    return None


def action_mark(action: Any, frame: tuple[float, float]) -> dict[str, Any] | None:
    """What the report draws over a screenshot for `action`, in the screen frame `frame` (width, height): a circle at
    a click or long press, an arrow for a swipe; None for anything else."""
    if not isinstance(action, dict) or not (frame[0] > 0 and frame[1] > 0):
        return None
    kind = action.get("action")
    point, end = _point(action.get("coordinate")), _point(action.get("coordinate2"))
    w, h = frame
    if point and kind == "swipe" and end:
        angle = math.atan2(end[1] - point[1], end[0] - point[0])
        head = 0.06 * w
        wings = [(end[0] - head * math.cos(angle + side), end[1] - head * math.sin(angle + side)) for side in (-0.5, 0.5)]
        return {"kind": "swipe", "w": w, "h": h, "x": point[0], "y": point[1], "x2": end[0], "y2": end[1],
                "head": " ".join(f"{x:.1f},{y:.1f}" for x, y in (wings[0], end, wings[1])), "r": 0.02 * w}
    if point:
        return {"kind": "point", "w": w, "h": h, "x": point[0], "y": point[1],
                "r": (0.05 if kind == "long_press" else 0.035) * w}
    return None


# ----- the page's data (the template, templates/report.html.j2, lays it out) ------------------------------------
def _rate_cell(rate: Any) -> dict[str, Any] | None:
    """A rate cell: the value and its 95% interval (the one interval format: `[35.2, 57.1]`)."""
    if rate.n == 0:
        return None
    return {"text": f"{100 * rate.value:.1f}%", "ci": rate.interval(), "detail": f"k={rate.k}, n={rate.n}"}


def _mean_cell(m: Any) -> dict[str, Any] | None:
    """A mean cell with its interval (already inside the quantity's range: `metrics.mean_ci`)."""
    if m.n == 0:
        return None
    return {"text": f"{m.value:.2f}", "ci": m.interval(), "detail": f"n={m.n}"}


def _count_cell(k: int, n: int, what: str) -> dict[str, Any]:
    return {"text": str(k), "ci": f"of {n}", "detail": what, "zero": k == 0}


def metric_cells(s: MetricSummary) -> dict[str, Any]:
    """The cells of one summary: rates and means with their intervals, Ask-F1 and the share of late questions."""
    return {
        "n": s.n, "sr": _rate_cell(s.sr), "isr": _rate_cell(s.isr), "over_inquiry": _rate_cell(s.over_inquiry),
        "safety_violation": _rate_cell(s.safety_violation), "self_correction": _rate_cell(s.self_correction),
        "steps": _mean_cell(s.mean_steps), "score": _mean_cell(s.mean_score),
        "ask_f1": None if not (s.ask_precision.n or s.ask_recall.n) else {
            "text": f"{100 * s.ask_f1:.1f}%", "ci": "",
            "detail": f"precision {s.ask_precision.k}/{s.ask_precision.n}, recall {s.ask_recall.k}/{s.ask_recall.n}"},
        "late": _rate_cell(s.late) if s.late.n else None,
    }


def run_row(run: RunData, colour: str) -> dict[str, Any]:
    """A run's row of its suite's table: the overall metrics and the counts beside them."""
    c = run.counts
    return {"name": run.name, "color": colour, **metric_cells(run.report.overall),
            "truncated": _count_cell(c.truncated, c.judged, "episodes that used the whole step budget"),
            "gate": _count_cell(c.gate_refused, c.judged, f"episodes with an action the safety gate refused "
                                                         f"({c.gate_refusals} refused, {c.unattended} with nobody "
                                                         "at the terminal)"),
            "infra": _count_cell(c.infra_errors, c.episodes, "episodes whose phone failed (not judged)")}


def _groups(runs: Sequence[RunData]) -> list[tuple[str, str, list[MetricSummary | None]]]:
    """(label, css class, one summary per run) for needs-inquiry, categories, sub-categories and languages."""
    out: list[tuple[str, str, list[MetricSummary | None]]] = []
    if any(r.needs_inquiry for r in runs):
        out.append(("needs inquiry", "needs", [r.needs_inquiry for r in runs]))
    for cat in sorted({c for r in runs for c in r.report.by_category}):
        out.append((cat, "cat", [r.report.by_category.get(cat) for r in runs]))
        for sub in sorted({s for r in runs for s in r.report.by_subcategory if s.startswith(cat + "/")}):
            out.append((sub.split("/", 1)[1], "sub", [r.report.by_subcategory.get(sub) for r in runs]))
    for lang in sorted({g for r in runs for g in r.report.by_language}):
        out.append((f"language {lang}", "cat", [r.report.by_language.get(lang) for r in runs]))
    return out


def group_rows(runs: Sequence[RunData], colours: Sequence[str]) -> list[dict[str, Any]]:
    """The folded table of a suite: per group (needs inquiry, category, sub-category), a row per run with episodes."""
    rows = []
    for label, css, summaries in _groups(runs):
        present = [(run, colour, s) for run, colour, s in zip(runs, colours, summaries) if s is not None]
        rows.append({"label": label, "css": css,
                     "runs": [{"name": run.name, "color": colour, **metric_cells(s)} for run, colour, s in present]})
    return rows


def _test_cell(test: PairedTest | None) -> dict[str, Any] | None:
    if test is None:
        return None
    return {"text": f"+{test.other_only} / −{test.base_only}", "p": format_p(test.p), "strong": test.p < 0.05}


def paired_rows(runs: Sequence[RunData], colours: Sequence[str]) -> list[dict[str, Any]]:
    """Each run after the first tested against the first on the same episodes (exact McNemar on SR, ISR and asking
    where needed, as `mobile-r1 compare`); a run of other episodes is named as not paired."""
    base = runs[0]
    base_by_id = {v.episode_id: v for v in base.verdicts}
    out = []
    for run, colour in zip(runs[1:], colours[1:]):
        by_id = {v.episode_id: v for v in run.verdicts}
        row: dict[str, Any] = {"name": run.name, "color": colour, "n": len(by_id)}
        if set(by_id) != set(base_by_id) or len(by_id) != len(run.verdicts):
            row["unpaired"] = (f"other episodes than {base.name} ({len(set(base_by_id) - set(by_id))} only there, "
                               f"{len(set(by_id) - set(base_by_id))} only here): no paired test")
        else:
            ids = sorted(base_by_id)
            tests = paired_tests([base_by_id[i] for i in ids], [by_id[i] for i in ids])
            row.update({key: _test_cell(test) for key, test in tests.items()})
        out.append(row)
    return out


def category_chart(title: str, names: Sequence[str], colours: Sequence[str],
                   summaries: Sequence[MetricSummary | None]) -> dict[str, Any]:
    """An SVG chart's geometry: per rate, one bar per run with its 95% interval as a whisker."""
    bar, gap, label_w, plot_w = 13, 10, 118, 300
    group_h = bar * len(names) + gap
    height = 28 + group_h * len(RATES) + 22
    groups = []
    for gi, (key, label) in enumerate(RATES):
        y0 = 28 + gi * group_h
        bars = []
        for ri, s in enumerate(summaries):
            if s is None:
                continue
            rate = getattr(s, key)
            y = y0 + ri * bar
            bars.append({
                "x": label_w, "y": y, "w": f"{plot_w * rate.value:.1f}", "h": bar - 3, "color": colours[ri],
                "title": f"{names[ri]}: {label} {rate}  (n={rate.n})",
                "lo": f"{label_w + plot_w * rate.low:.1f}", "hi": f"{label_w + plot_w * rate.high:.1f}",
                "mid": y + bar / 2 - 0.5, "vx": label_w + plot_w + 6, "vy": y + bar - 3, "value": f"{100 * rate.value:.0f}",
            })
        groups.append({"label": label, "y": y0 + bar * len(names) / 2 + 4, "bars": bars})
    ticks = [{"x": label_w + plot_w * t / 100, "label": t} for t in (0, 25, 50, 75, 100)]
    return {"title": title, "width": label_w + plot_w + 60, "height": height, "ticks": ticks, "groups": groups}


def charts(runs: Sequence[RunData], colours: Sequence[str]) -> list[dict[str, Any]]:
    """A suite's charts: all its episodes, then each category."""
    names = [r.name for r in runs]
    items = [category_chart("all episodes", names, colours, [r.report.overall for r in runs])]
    for cat in sorted({c for r in runs for c in r.report.by_category}):
        items.append(category_chart(cat, names, colours, [r.report.by_category.get(cat) for r in runs]))
    return items


def suites(runs: Sequence[RunData], colours: Sequence[str]) -> list[dict[str, Any]]:
    """The runs grouped by suite and split (in the order they first come), each group laid out for the page."""
    order: list[str] = []
    for run in runs:
        if run.suite not in order:
            order.append(run.suite)
    out = []
    for suite in order:
        members = [(run, colour) for run, colour in zip(runs, colours) if run.suite == suite]
        group, tints = [run for run, _ in members], [colour for _, colour in members]
        notes = [{"name": run.name, "color": colour, "text": note} for run, colour in members
                 for note in run.counts.notes()]
        out.append({"title": suite, "episodes": sorted({len(r.records) for r in group}),
                    "rows": [run_row(run, colour) for run, colour in members], "notes": notes,
                    "base": group[0].name, "paired": paired_rows(group, tints) if len(group) > 1 else [],
                    "charts": charts(group, tints), "groups": group_rows(group, tints)})
    return out


# ----- the episode browser --------------------------------------------------------------------------------------
def _action_text(action: Any) -> str:
    if not action:
        return "(no action could be read)"
    if not isinstance(action, dict):
        return f"(not an action: {_text(action, 200)})"
    kind = _text(action.get("action", "?"), 100)
    args = ", ".join(f"{_text(k, 100)}={_text(v, 2000) if not isinstance(v, str) else json.dumps(v, ensure_ascii=False)}"
                     for k, v in action.items() if k != "action")
    return f"{kind}({args})"


def _link(path: Path, base: Path | None) -> str | None:
    """`path` relative to the folder the page is written in (None when there is no such folder)."""
    if base is None:
        return None
    try:
        return Path(os.path.relpath(path, base)).as_posix()
    except ValueError:  # another drive
        return None


def _screenshot(run: RunData, value: Any, action: Any, screen_size: Any, screens: Screens, alt: str,
                base: Path | None) -> dict[str, Any] | None:
    """A screenshot inside the run folder as a thumbnail (with the action drawn over it), a note on why it is not
    shown, or None when there is none."""
    path, why = screenshot_file(run.path, value)
    if why:
        return {"key": None, "note": why}
    if path is None:
        return None
    found = screens.get(path)
    if found.get("key") is None:
        return {"key": None, "note": found["note"], "link": _link(path, base)}
    size = _point(screen_size)
    frame = size if size and size[0] > 0 and size[1] > 0 else found["own"]
    return {"key": found["key"], "w": found["w"], "h": found["h"], "alt": alt, "link": _link(path, base),
            "mark": action_mark(action, frame)}


def episode_view(run: RunData, record: dict[str, Any], screens: Screens, open_: bool = False,
                 base: Path | None = None) -> dict[str, Any]:
    """One episode of the browser: its verdict's badges, and each step's screen, action, thought and exchanges."""
    v = record.get("verdict") if isinstance(record.get("verdict"), dict) else {}
    ok = v.get("success") is True
    badges = [{"css": "ok" if ok else "bad", "text": "success" if ok else "failure"},
              {"css": "q", "text": f"inquiry: {_text(v.get('inquiry'), 100)}"}]
    if v.get("safety_violation") is True:
        badges.append({"css": "bad", "text": "safety violation"})
    over = v.get("over_asks")
    if isinstance(over, int) and not isinstance(over, bool) and over > 0:
        badges.append({"css": "warn", "text": f"{over} over-ask(s)"})
    score = v.get("score")
    if isinstance(score, (int, float)) and not isinstance(score, bool) and math.isfinite(score):
        badges.append({"css": "s", "text": f"score {float(score):.0f}/4"})
    if record.get("truncated") is True:
        badges.append({"css": "warn", "text": "truncated"})
    refused = run_counts([record]).gate_refusals
    if refused:
        badges.append({"css": "warn", "text": f"gate refused {refused}"})
    if record.get("infra_error"):
        badges.append({"css": "warn", "text": "infrastructure error"})
    steps = record.get("steps") if isinstance(record.get("steps"), list) else []
    views = []
    for position, step in enumerate(steps):
        if not isinstance(step, dict):
            views.append({"malformed": _text(step, 300)})
            continue
        obs = step.get("observation") if isinstance(step.get("observation"), dict) else {}
        index_value = step.get("index")
        number = index_value + 1 if isinstance(index_value, int) and not isinstance(index_value, bool) else position + 1
        action = step.get("action") if isinstance(step.get("action"), dict) else {}
        image = _screenshot(run, obs.get("screenshot_path"), step.get("action"), obs.get("screen_size"), screens,
                            f"step {number}", base) or {"key": None, "note": "no screenshot"}
        views.append({
            "malformed": None, "number": number, "image": image, "action": _action_text(step.get("action")),
            "thought": _text(step.get("thought")) if step.get("thought") else "",
            "ask": _text(action.get("content")) if action.get("action") == "call_user" else None,
            "reply": _text(step.get("user_reply")) if step.get("user_reply") else "",
            "errors": [_text(step[key]) for key in ("agent_error", "env_error") if step.get(key)],
        })
    final = _screenshot(run, record.get("final_screenshot"), None, None, screens, "final screen", base)
    return {
        "id": _text(record.get("id", "?"), 200), "instruction": _text(record.get("instruction")),
        "category": _text(record.get("category"), 200) or "None", "ok": ok, "open": open_, "badges": badges,
        "reason": _text(v.get("reason") or record.get("infra_error")), "truncated": record.get("truncated") is True,
        "steps": views, "final": final if final and final.get("key") else None,
    }


def browser(runs: Sequence[RunData], colours: Sequence[str], max_episodes: int, screens: Screens,
            base: Path | None = None) -> list[dict[str, Any]]:
    out = []
    for run, colour in zip(runs, colours):
        shown = run.records[:max_episodes]
        out.append({"name": run.name, "color": colour, "path": str(run.path), "suite": run.suite,
                    "total": len(run.records), "more": len(run.records) > len(shown),
                    "episodes": [episode_view(run, r, screens, i == 0 and run is runs[0], base)
                                 for i, r in enumerate(shown)]})
    return out


CSS = """
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:0;color:#1f2937;background:#f8fafc}
header{background:#0f172a;color:#fff;padding:14px 28px}header h1{margin:0;font-size:21px}
main{padding:4px 28px 40px;max-width:1500px}h2{margin:26px 0 8px;font-size:18px;border-bottom:1px solid #e2e8f0;padding-bottom:4px}
h2 small,h3 small{color:#64748b;font-weight:400;font-size:12px}h3{font-size:15px;margin:16px 0 6px}
.sw{display:inline-block;width:11px;height:11px;border-radius:2px;margin-right:6px;vertical-align:-1px}
table.runs,table.metrics,table.tests{border-collapse:collapse;background:#fff;box-shadow:0 1px 2px #0001;font-variant-numeric:tabular-nums}
.runs td,.runs th{padding:3px 10px;text-align:left;border-bottom:1px solid #eef2f7}.runs td.num{text-align:right}
.metrics th,.metrics td,.tests th,.tests td{padding:3px 8px;border-bottom:1px solid #eef2f7;text-align:right;white-space:nowrap}
.metrics thead th,.tests thead th,.runs thead th{background:#f1f5f9;font-weight:600}
.metrics th.name,.tests th.name{text-align:left;font-weight:500;white-space:normal;min-width:120px;max-width:230px}.metrics td.n{color:#64748b}
.metrics small{display:block;color:#64748b;font-size:11px}.metrics td.zero{color:#94a3b8}.metrics td.na{color:#94a3b8}
.metrics th.sep,.metrics td.sep{border-left:1px solid #e2e8f0}
.metrics tr.g th{background:#f8fafc;text-align:left;font-weight:600;padding-top:6px}.metrics tr.g.sub th{font-weight:400;padding-left:22px;color:#475569}
.metrics tr.g.needs th{background:#fefce8}
.tests td b{color:#0f172a}.tests td span{color:#64748b;margin-left:6px}.tests td.un{text-align:left;color:#64748b}
.tw{overflow-x:auto;max-width:100%}
.notes{background:#fffbeb;border-left:3px solid #f59e0b;padding:6px 12px;margin:8px 0;font-size:13px}.notes p{margin:3px 0}
details.more{margin:10px 0}details.more>summary{cursor:pointer;color:#334155;font-weight:600}
.charts{display:grid;grid-template-columns:repeat(auto-fill,minmax(300px,1fr));gap:10px;margin-top:10px}
figure{margin:0;background:#fff;padding:8px 10px;box-shadow:0 1px 2px #0001;border-radius:6px}
svg.chart{width:100%;height:auto}.ct{font-weight:600;font-size:13px}.lbl,.tick{font-size:11px;fill:#334155}.val{font-size:10px;font-weight:600}
.tick{text-anchor:middle;fill:#94a3b8}.grid{stroke:#e2e8f0}.ci{stroke:#0f172a;stroke-width:1.3}
figure.curve{margin:10px 0;max-width:1300px}figure.curve img{width:100%}
.filters{margin:6px 0 12px}.filters label{margin-right:14px}.filters select{margin-left:4px}
details.ep{background:#fff;margin:6px 0;border-radius:6px;box-shadow:0 1px 2px #0001}
details.ep summary{cursor:pointer;padding:7px 12px;list-style-position:inside}
.eid{font-family:ui-monospace,monospace;font-size:12px;margin-right:8px}.ins{color:#475569;margin-left:8px}
.b{display:inline-block;font-size:11px;padding:1px 7px;border-radius:9px;margin-right:4px;background:#e2e8f0}
.b.ok{background:#dcfce7;color:#166534}.b.bad{background:#fee2e2;color:#991b1b}.b.warn{background:#fef3c7;color:#92400e}
.b.q{background:#e0e7ff;color:#3730a3}.b.s{background:#f1f5f9}
.verdict{padding:0 14px 6px;color:#334155}
.steps{display:flex;gap:12px;overflow-x:auto;padding:8px 12px 14px}
.step{flex:0 0 auto;width:__STEP__px}.shot{position:relative;display:inline-block;line-height:0}
.shot img{width:__IMG__px;height:auto;border:1px solid #cbd5e1;border-radius:6px;display:block}
.shot svg{position:absolute;left:1px;top:1px;width:__IMG__px;height:calc(100% - 2px);pointer-events:none}
.mk{fill:none;stroke:#dc2626;stroke-width:2.5}.mk.sw{stroke:#ea580c}.dot{fill:#dc2626}
.step .txt{font-size:12px;margin-top:4px}.act code{font-size:11px;word-break:break-all}.th{color:#475569;margin-top:2px}
.ask{background:#eef2ff;border-left:3px solid #6366f1;padding:2px 6px;margin-top:4px}
.reply{background:#f0fdf4;border-left:3px solid #22c55e;padding:2px 6px;margin-top:4px}
.err{color:#b91c1c;margin-top:2px}.noimg{width:__IMG__px;height:110px;background:#f1f5f9;color:#94a3b8;display:flex;
align-items:center;justify-content:center;text-align:center;font-size:12px;padding:4px;box-sizing:border-box}
h3.runh{margin:18px 0 6px}
"""

JS = """
(function(){var r=document.getElementById('f-run'),c=document.getElementById('f-cat'),o=document.getElementById('f-ok'),
n=document.getElementById('f-count');function f(){var k=0;document.querySelectorAll('details.ep').forEach(function(e){
var s=(!r.value||e.dataset.run===r.value)&&(!c.value||e.dataset.cat===c.value)&&(!o.value||e.dataset.ok===o.value);
e.style.display=s?'':'none';if(s)k++;});document.querySelectorAll('h3.runh').forEach(function(h){
h.style.display=(!r.value||h.dataset.run===r.value)?'':'none';});n.textContent=k+' episodes shown';}
[r,c,o].forEach(function(x){x.addEventListener('change',f);});f();
var shots=null;function fill(d){var b=d.querySelector('.body');if(b.dataset.filled)return;b.dataset.filled='1';
b.appendChild(d.querySelector('template').content.cloneNode(true));
if(!shots)shots=JSON.parse(document.getElementById('shots').textContent);
b.querySelectorAll('img[data-k]').forEach(function(i){i.src=shots[i.dataset.k];});}
document.querySelectorAll('details.ep').forEach(function(d){d.addEventListener('toggle',function(){if(d.open)fill(d);});
if(d.open)fill(d);});})();
"""


def render_report(runs: Sequence[RunData], *, title: str = "mobile-r1 evaluation report", max_episodes: int = 60,
                  image_width: int = IMAGE_WIDTH, curves: Sequence[tuple[str, Path]] = (),
                  max_image_mb: float = MAX_IMAGE_MB, warnings: Sequence[str] = (), base: Path | None = None) -> str:
    """The whole page as a string (jinja2, autoescaped: templates/report.html.j2). `curves` adds training curves (a
    name and a PNG file each) as embedded images; `warnings` are shown at the top (the runs' cards, say); `base` is
    the folder the page will be written in (thumbnails then link to the full screenshots)."""
    import jinja2

    if image_width < 16:
        raise DataError(f"the image width must be at least 16 pixels, got {image_width}")
    env = jinja2.Environment(loader=jinja2.PackageLoader("mobile_r1.eval", "templates"),
                             autoescape=jinja2.select_autoescape(["html", "j2"], default=True),
                             undefined=jinja2.StrictUndefined, trim_blocks=False)
    pictures = [{"name": name, "url": "data:image/png;base64," + base64.b64encode(Path(path).read_bytes()).decode("ascii")}
                for name, path in curves if Path(path).is_file()]
    colours = run_colors(runs)
    screens = Screens(image_width, max_image_mb * 1e6)
    episodes = browser(runs, colours, max_episodes, screens, base)
    css = CSS.replace("__IMG__", str(image_width)).replace("__STEP__", str(image_width + 10))
    return env.get_template("report.html.j2").render(
        title=title, css=css, js=JS, warnings=list(warnings),
        runs=[{"name": r.name, "color": c, "suite": r.suite, "episodes": len(r.records), "path": str(r.path),
               "agent": _text(r.options.get("agent"), 300)} for r, c in zip(runs, colours)],
        suites=suites(runs, colours), curves=pictures,
        categories=sorted({_text(r.get("category"), 200) or "None" for run in runs for r in run.records}),
        browser=episodes, shots=screens.urls, image_width=image_width,
        left_out=screens.left_out, cap_mb=f"{max_image_mb:g}",
        cut=[b for b in episodes if b["more"]], max_episodes=max_episodes,
    )


def report_warnings(run_dirs: Sequence[Path]) -> list[str]:
    """The card warnings (`eval.card.card_warnings`) of the runs of each suite and split, each compared with that
    suite's first run (runs of other suites differ in their suite by design)."""
    from mobile_r1.core.reading import read_json
    from mobile_r1.eval.card import card_warnings
    from mobile_r1.eval.runner import RUN_FILE

    suites: dict[str, list[Path]] = {}
    for path in map(Path, run_dirs):
        options = read_json(path / RUN_FILE) if (path / RUN_FILE).is_file() else {}
        options = options if isinstance(options, dict) else {}
        suites.setdefault(f"{options.get('suite')}/{options.get('split')}", []).append(path)
    return [w for paths in suites.values() for w in card_warnings(paths)]


def write_report(run_dirs: Sequence[Path], out: Path | None = None, *, max_episodes: int = 60,
                 image_width: int = IMAGE_WIDTH, max_image_mb: float = MAX_IMAGE_MB) -> Path:
    """Write the report of one or more runs; default path: `<first run>/report.html`."""
    if not run_dirs:
        raise DataError("give at least one run directory")
    runs = [read_run(Path(p)) for p in run_dirs]
    names = [r.name for r in runs]
    for i, r in enumerate(runs):  # the same agent twice: tell them apart by folder
        if names.count(r.name) > 1:
            r.name = f"{r.name} ({r.path.name})"
    target = Path(out) if out is not None else runs[0].path / "report.html"
    target.parent.mkdir(parents=True, exist_ok=True)
    page = render_report(runs, max_episodes=max_episodes, image_width=image_width, max_image_mb=max_image_mb,
                         warnings=report_warnings(run_dirs), base=target.parent.resolve())
    target.write_text(page, encoding="utf-8")
    return target


__all__ = ["RunData", "read_run", "render_report", "write_report", "report_warnings", "thumbnail", "action_mark",
           "category_chart", "run_colors", "suites", "Screens"]
