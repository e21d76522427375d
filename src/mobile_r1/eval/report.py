"""One self-contained HTML report of evaluation runs: metric tables side by side, a chart per category, an episode browser.

    write_report([Path("runs/oracle"), Path("runs/never-ask")], Path("report.html"))

Everything is inline (CSS, a little JS, SVG charts, screenshots as base64 JPEG), so the page stands alone. Each step of
the browser shows the screenshot the agent saw with its click point or swipe arrow drawn on a copy, the thought, the
action, any question and the user's reply; each episode shows its verdict.

A run folder is data like any other: a record may hold any JSON. Only screenshots inside the run folder are embedded
(a `screenshot_path` that leads elsewhere, by `..`, an absolute path or a link, is named and left out), a file that
is not an image is shown as unreadable, and every field is shown as text whatever its type, escaped.
"""

from __future__ import annotations

import base64
import io
import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Sequence

from PIL import Image, ImageDraw, UnidentifiedImageError

from mobile_r1.core.errors import DataError
from mobile_r1.eval.metrics import Mean, MetricsReport, MetricSummary, Rate, summarize
from mobile_r1.eval.runner import load_run, needs_inquiry_summary, verdicts_of

COLORS = ("#2563eb", "#dc2626", "#16a34a", "#9333ea", "#ea580c", "#0891b2")
RATES = (("sr", "SR"), ("isr", "ISR"), ("over_inquiry", "Over-inquiry"), ("safety_violation", "Safety violations"))


@dataclass(slots=True)
class RunData:
    """One run directory as the report reads it."""

    path: Path
    name: str
    options: dict[str, Any]
    records: list[dict[str, Any]]
    report: MetricsReport
    needs_inquiry: MetricSummary | None


def read_run(path: Path) -> RunData:
    """Load a run directory written by `mobile-r1 eval --out`."""
    path = Path(path)
    options, records = load_run(path)
    if not isinstance(options, dict):
        raise DataError(f"{path / 'run.json'}: expected a JSON object of run options")
    if not records:
        raise DataError(f"{path} has no finished episodes yet")
    verdicts = verdicts_of(records)
    name = options.get("agent") or path.name
    return RunData(path, _text(name), options, records, summarize(verdicts), needs_inquiry_summary(verdicts))


def _text(value: object, limit: int = 20_000) -> str:
    """Any JSON value as display text (None as empty), cut at `limit` characters."""
    if value is None:
        return ""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[:limit] + "..."


# ----- images ---------------------------------------------------------------------------------------------------
MAX_SCREENSHOT_PIXELS = 40_000_000  # larger images are not decoded (a phone screenshot has a few million pixels)


def screenshot_file(run_dir: Path, value: object) -> tuple[Path | None, str | None]:
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


def _point(value: object) -> tuple[float, float] | None:
    if (isinstance(value, (list, tuple)) and len(value) == 2
            and all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in value)):
        return (float(value[0]), float(value[1]))
    return None


def annotated_image(path: Path, action: dict[str, Any] | None, screen_size: object, width: int = 240) -> str | None:
    """A data URL of the screenshot, downscaled to `width`, with the action's point or swipe arrow drawn on it.

    None when the file is missing, is not an image PIL can read, or is larger than `MAX_SCREENSHOT_PIXELS`.
    """
    if not path.is_file():
        return None
    try:
        with Image.open(path) as raw:
            if raw.width * raw.height > MAX_SCREENSHOT_PIXELS:
                return None
            image = raw.convert("RGB")
    except (OSError, UnidentifiedImageError, ValueError, Image.DecompressionBombError):
        return None
    scale = width / image.width
    image = image.resize((width, max(1, round(image.height * scale))), Image.Resampling.LANCZOS)
    size = _point(screen_size)
    if isinstance(action, dict):
        sx = image.width / (size[0] if size and size[0] > 0 else image.width)
        sy = image.height / (size[1] if size and size[1] > 0 else image.height)
        draw = ImageDraw.Draw(image)
        kind = action.get("action")
        point = _point(action.get("coordinate"))
        end = _point(action.get("coordinate2"))
        if point and kind == "swipe" and end:
            (x1, y1), (x2, y2) = point, end
            a, b = (x1 * sx, y1 * sy), (x2 * sx, y2 * sy)
            draw.line([a, b], fill=(234, 88, 12), width=4)
            _arrow_head(draw, a, b)
            draw.ellipse([a[0] - 5, a[1] - 5, a[0] + 5, a[1] + 5], outline=(234, 88, 12), width=3)
        elif point:
            x, y = point[0] * sx, point[1] * sy
            r = 11 if kind == "long_press" else 8
            draw.ellipse([x - r, y - r, x + r, y + r], outline=(220, 38, 38), width=3)
            draw.ellipse([x - 2, y - 2, x + 2, y + 2], fill=(220, 38, 38))
    buffer = io.BytesIO()
    image.save(buffer, format="JPEG", quality=68, optimize=True)
    return "data:image/jpeg;base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


def _arrow_head(draw: ImageDraw.ImageDraw, a: tuple[float, float], b: tuple[float, float]) -> None:
    angle = math.atan2(b[1] - a[1], b[0] - a[0])
    for side in (-0.5, 0.5):
        draw.line([b, (b[0] - 14 * math.cos(angle + side), b[1] - 14 * math.sin(angle + side))], fill=(234, 88, 12), width=4)


# ----- the page's data (the template, templates/report.html.j2, lays it out) ------------------------------------
def _rate_cell(rate: Rate) -> dict[str, Any] | None:
    """A rate cell: the value and its 95% interval (the one interval format: `[35.2, 57.1]`)."""
    if rate.n == 0:
        return None
    return {"text": f"{100 * rate.value:.1f}%", "ci": rate.interval(), "detail": f"k={rate.k}, n={rate.n}"}


def _mean_cell(m: Mean, top: float | None = None) -> dict[str, Any] | None:
    """A mean cell with its interval, clipped to the possible range [0, top] for display."""
    if m.n == 0:
        return None
    low, high = max(0.0, m.low), m.high if top is None else min(top, m.high)
    return {"text": f"{m.value:.2f}", "ci": f"[{low:.2f}, {high:.2f}]", "detail": f"n={m.n}"}


def _groups(runs: Sequence[RunData]) -> list[tuple[str, str, list[MetricSummary | None]]]:
    """(label, css class, one summary per run) for overall, needs-inquiry, categories and sub-categories."""
    out: list[tuple[str, str, list[MetricSummary | None]]] = [("all", "total", [r.report.overall for r in runs])]
    if any(r.needs_inquiry for r in runs):
        out.append(("needs inquiry", "needs", [r.needs_inquiry for r in runs]))
    cats = sorted({c for r in runs for c in r.report.by_category})
    for cat in cats:
        out.append((cat, "cat", [r.report.by_category.get(cat) for r in runs]))
        for sub in sorted({s for r in runs for s in r.report.by_subcategory if s.startswith(cat + "/")}):
            out.append((sub.split("/", 1)[1], "sub", [r.report.by_subcategory.get(sub) for r in runs]))
    for lang in sorted({g for r in runs for g in r.report.by_language}):
        out.append((f"language {lang}", "cat", [r.report.by_language.get(lang) for r in runs]))
    return out


def metric_rows(runs: Sequence[RunData]) -> list[dict[str, Any]]:
    """The metrics table: a row per group, a cell per run (None where the run has no episode of the group)."""
    rows = []
    for label, css, summaries in _groups(runs):
        cells = [None if s is None else {
            "n": s.n, "sr": _rate_cell(s.sr), "isr": _rate_cell(s.isr), "over_inquiry": _rate_cell(s.over_inquiry),
            "safety_violation": _rate_cell(s.safety_violation), "self_correction": _rate_cell(s.self_correction),
            "steps": _mean_cell(s.mean_steps),
            "score": _mean_cell(s.mean_score, 4.0),
            "ask_f1": None if not (s.ask_precision.n or s.ask_recall.n) else {
                "text": f"{100 * s.ask_f1:.1f}%", "ci": "",
                "detail": f"precision {s.ask_precision.k}/{s.ask_precision.n}, recall {s.ask_recall.k}/{s.ask_recall.n}"},
            "late": _rate_cell(s.late) if s.late.n else None} for s in summaries]
        rows.append({"label": label, "css": css, "cells": cells})
    return rows


def category_chart(title: str, runs: Sequence[RunData], summaries: Sequence[MetricSummary | None]) -> dict[str, Any]:
    """An SVG chart's geometry: per rate, one bar per run with its 95% interval as a whisker."""
    bar, gap, label_w, plot_w = 13, 10, 118, 300
    group_h = bar * len(runs) + gap
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
                "x": label_w, "y": y, "w": f"{plot_w * rate.value:.1f}", "h": bar - 3, "color": COLORS[ri % len(COLORS)],
                "title": f"{runs[ri].name}: {label} {rate}  (n={rate.n})",
                "lo": f"{label_w + plot_w * rate.low:.1f}", "hi": f"{label_w + plot_w * rate.high:.1f}",
                "mid": y + bar / 2 - 0.5, "vx": label_w + plot_w + 6, "vy": y + bar - 3, "value": f"{100 * rate.value:.0f}",
            })
        groups.append({"label": label, "y": y0 + bar * len(runs) / 2 + 4, "bars": bars})
    ticks = [{"x": label_w + plot_w * t / 100, "label": t} for t in (0, 25, 50, 75, 100)]
    return {"title": title, "width": label_w + plot_w + 60, "height": height, "ticks": ticks, "groups": groups}


def charts(runs: Sequence[RunData]) -> list[dict[str, Any]]:
    items = [category_chart("all episodes", runs, [r.report.overall for r in runs])]
    for cat in sorted({c for r in runs for c in r.report.by_category}):
        items.append(category_chart(cat, runs, [r.report.by_category.get(cat) for r in runs]))
    return items


# ----- the episode browser --------------------------------------------------------------------------------------
def _action_text(action: object) -> str:
    if not action:
        return "(no action could be read)"
    if not isinstance(action, dict):
        return f"(not an action: {_text(action, 200)})"
    kind = _text(action.get("action", "?"), 100)
    args = ", ".join(f"{_text(k, 100)}={_text(v, 2000) if not isinstance(v, str) else json.dumps(v, ensure_ascii=False)}"
                     for k, v in action.items() if k != "action")
    return f"{kind}({args})"


def _screenshot(run: RunData, value: object, action: object, screen_size: object, image_width: int,
                alt: str) -> dict[str, Any] | None:
    """A screenshot inside the run folder as a data URL, a note on why it is not shown, or None when there is none."""
    path, why = screenshot_file(run.path, value)
    if why:
        return {"url": None, "note": why}
    if path is None:
        return None
    url = annotated_image(path, action if isinstance(action, dict) else None, screen_size, image_width)
    return {"url": url, "alt": alt} if url is not None else {"url": None, "note": "unreadable screenshot"}


def episode_view(run: RunData, record: dict[str, Any], image_width: int, open_: bool = False) -> dict[str, Any]:
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
        image = _screenshot(run, obs.get("screenshot_path"), step.get("action"), obs.get("screen_size"), image_width,
                            f"step {number}") or {"url": None, "note": "no screenshot"}
        views.append({
            "malformed": None, "number": number, "image": image, "action": _action_text(step.get("action")),
            "thought": _text(step.get("thought")) if step.get("thought") else "",
            "ask": _text(action.get("content")) if action.get("action") == "call_user" else None,
            "reply": _text(step.get("user_reply")) if step.get("user_reply") else "",
            "errors": [_text(step[key]) for key in ("agent_error", "env_error") if step.get(key)],
        })
    final = _screenshot(run, record.get("final_screenshot"), None, None, image_width, "final screen")
    return {
        "id": _text(record.get("id", "?"), 200), "instruction": _text(record.get("instruction")),
        "category": _text(record.get("category"), 200) or "None", "ok": ok, "open": open_, "badges": badges,
        "reason": _text(v.get("reason") or record.get("infra_error")), "truncated": record.get("truncated") is True,
        "steps": views, "final": final if final and final.get("url") else None,
    }


def browser(runs: Sequence[RunData], max_episodes: int, image_width: int) -> list[dict[str, Any]]:
    out = []
    for run in runs:
        shown = run.records[:max_episodes]
        out.append({"name": run.name, "path": str(run.path), "total": len(run.records), "more": len(run.records) > len(shown),
                    "episodes": [episode_view(run, r, image_width, open_=i == 0) for i, r in enumerate(shown)]})
    return out


CSS = """
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:0;color:#1f2937;background:#f8fafc}
header{background:#0f172a;color:#fff;padding:18px 28px}header h1{margin:0;font-size:22px}header p{margin:4px 0 0;color:#cbd5e1}
main{padding:8px 28px 40px;max-width:1500px}h2{margin:28px 0 10px;font-size:18px;border-bottom:1px solid #e2e8f0;padding-bottom:4px}
table.metrics{border-collapse:collapse;background:#fff;box-shadow:0 1px 2px #0001;font-variant-numeric:tabular-nums}
.metrics th,.metrics td{padding:4px 9px;border-bottom:1px solid #eef2f7;text-align:right;white-space:nowrap}
.metrics thead th{background:#f1f5f9;font-weight:600}.metrics thead th.g{text-align:left;vertical-align:bottom}.metrics th.run{text-align:center}.metrics tbody th{text-align:left;font-weight:500}
.metrics small{display:block;color:#64748b;font-size:11px}.metrics tr.total{background:#eff6ff;font-weight:600}
.metrics tr.needs{background:#fefce8}.metrics tr.sub th{padding-left:24px;color:#475569;font-weight:400}
.metrics tr.cat th{font-weight:600}.metrics td.na{text-align:center;color:#94a3b8}
.tw{overflow-x:auto;max-width:100%}.metrics tbody th,.metrics thead th.g{position:sticky;left:0;background:#fff;z-index:1}
.metrics tr.total th{background:#eff6ff}.metrics tr.needs th{background:#fefce8}.metrics thead th.g{background:#f1f5f9}
.metrics.compact small{display:none}.metrics.compact th,.metrics.compact td{padding:3px 6px}
.metrics td.n{color:#64748b;border-left:1px solid #e2e8f0}
.legend span{display:inline-block;margin-right:16px}.legend i{display:inline-block;width:12px;height:12px;margin-right:5px;vertical-align:-1px;border-radius:2px}
.charts{display:grid;grid-template-columns:repeat(auto-fill,minmax(330px,1fr));gap:12px}
figure{margin:0;background:#fff;padding:8px 10px;box-shadow:0 1px 2px #0001;border-radius:6px}
svg.chart{width:100%;height:auto}.ct{font-weight:600;font-size:13px}.lbl,.tick{font-size:11px;fill:#334155}.val{font-size:10px;font-weight:600}
.tick{text-anchor:middle;fill:#94a3b8}.grid{stroke:#e2e8f0}.ci{stroke:#0f172a;stroke-width:1.3}
.filters{margin:6px 0 12px}.filters label{margin-right:14px}.filters select{margin-left:4px}
details.ep{background:#fff;margin:6px 0;border-radius:6px;box-shadow:0 1px 2px #0001}
details.ep summary{cursor:pointer;padding:8px 12px;list-style-position:inside}
.eid{font-family:ui-monospace,monospace;font-size:12px;margin-right:8px}.ins{color:#475569;margin-left:8px}
.b{display:inline-block;font-size:11px;padding:1px 7px;border-radius:9px;margin-right:4px;background:#e2e8f0}
.b.ok{background:#dcfce7;color:#166534}.b.bad{background:#fee2e2;color:#991b1b}.b.warn{background:#fef3c7;color:#92400e}
.b.q{background:#e0e7ff;color:#3730a3}.b.s{background:#f1f5f9}
.verdict{padding:0 14px 6px;color:#334155}figure.curve{margin:10px 0;max-width:1400px}figure.curve img{width:100%}
.steps{display:flex;gap:12px;overflow-x:auto;padding:8px 12px 14px}
.step{flex:0 0 auto;width:250px}.step img{width:240px;border:1px solid #cbd5e1;border-radius:6px;display:block}
.step .txt{font-size:12px;margin-top:4px}.act code{font-size:11px;word-break:break-all}.th{color:#475569;margin-top:2px}
.ask{background:#eef2ff;border-left:3px solid #6366f1;padding:2px 6px;margin-top:4px}
.reply{background:#f0fdf4;border-left:3px solid #22c55e;padding:2px 6px;margin-top:4px}
.err{color:#b91c1c;margin-top:2px}.noimg{width:240px;height:120px;background:#f1f5f9;color:#94a3b8;display:flex;align-items:center;justify-content:center}
h3.runh{margin:18px 0 6px}h3.runh small{color:#64748b;font-weight:400;font-size:12px}
"""

JS = """
(function(){var r=document.getElementById('f-run'),c=document.getElementById('f-cat'),o=document.getElementById('f-ok'),
n=document.getElementById('f-count');function f(){var k=0;document.querySelectorAll('details.ep').forEach(function(e){
var s=(!r.value||e.dataset.run===r.value)&&(!c.value||e.dataset.cat===c.value)&&(!o.value||e.dataset.ok===o.value);
e.style.display=s?'':'none';if(s)k++;});document.querySelectorAll('h3.runh').forEach(function(h){
h.style.display=(!r.value||h.dataset.run===r.value)?'':'none';});n.textContent=k+' episodes shown';}
[r,c,o].forEach(function(x){x.addEventListener('change',f);});f();})();
"""


def render_report(runs: Sequence[RunData], *, title: str = "mobile-r1 evaluation report", max_episodes: int = 60,
                  image_width: int = 240, curves: Sequence[tuple[str, Path]] = ()) -> str:
    """The whole page as a string (jinja2, autoescaped: templates/report.html.j2); `curves` adds training curves
    (a name and a PNG file each) as embedded images."""
    import jinja2  # installed with transformers and fastapi, not by the core package: loaded for a report only

    env = jinja2.Environment(loader=jinja2.PackageLoader("mobile_r1.eval", "templates"),
                             autoescape=jinja2.select_autoescape(["html", "j2"], default=True),
                             undefined=jinja2.StrictUndefined, trim_blocks=False)
    pictures = [{"name": name, "url": "data:image/png;base64," + base64.b64encode(Path(path).read_bytes()).decode("ascii")}
                for name, path in curves if Path(path).is_file()]
    return env.get_template("report.html.j2").render(
        title=title, css=CSS, js=JS,
        about=[{"name": r.name, "suite": str(r.options.get("suite", "?")), "split": str(r.options.get("split", "?")),
                "episodes": len(r.records)} for r in runs],
        runs=[{"name": r.name, "color": COLORS[i % len(COLORS)]} for i, r in enumerate(runs)],
        groups=metric_rows(runs), charts=charts(runs), curves=pictures,
        categories=sorted({_text(r.get("category"), 200) or "None" for run in runs for r in run.records}),
        browser=browser(runs, max_episodes, image_width),
    )


def write_report(run_dirs: Sequence[Path], out: Path | None = None, *, max_episodes: int = 60,
                 image_width: int = 240) -> Path:
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
    target.write_text(render_report(runs, max_episodes=max_episodes, image_width=image_width), encoding="utf-8")
    return target


__all__ = ["RunData", "read_run", "render_report", "write_report", "annotated_image", "category_chart", "metric_rows"]
