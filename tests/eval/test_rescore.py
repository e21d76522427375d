"""Tests of rescoring: InquireMobile's released judge files reproduce the paper's SR/ISR, and our verdict files load."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mobile_r1.core.errors import DataError
from mobile_r1.eval.metrics import EpisodeVerdict
from mobile_r1.eval.rescore import load_judged_file, rescore, verdict_from_judge

# InquireMobile paper, online InquireBench results (both languages, 190 tasks): model -> (ISR %, SR %).
PAPER = {
    "Stage1and2": (52.6, 7.9),
    "Stage1": (27.9, 2.1),
    "Stage2": (5.3, 5.8),
    "Qwen25vl": (2.6, 2.6),
    "GUI_R1": (5.3, 5.3),
    "UI_R1": (4.7, 5.8),
}


def test_released_files_reproduce_the_paper(shared_dir: Path) -> None:
    report = rescore([shared_dir / "data" / "inquirebench" / "results"])
    models = {s.name: s for s in report.models}
    for name, (isr, sr) in PAPER.items():
        assert models[name].n == 190
        assert round(100 * models[name].isr.value, 1) == isr, name
        assert round(100 * models[name].sr.value, 1) == sr, name
    assert len(report.files) == 14 and all(s.n == 95 for s in report.files)


def test_failed_status_is_not_a_success(shared_dir: Path) -> None:
    f = load_judged_file(shared_dir / "data" / "inquirebench" / "results" / "eval_UI_R1_zh.jsonl")
    assert (f.model, f.language) == ("UI_R1", "zh")
    assert sum(v.success for v in f.verdicts) == 5


def test_judge_record_maps_to_a_verdict() -> None:
    v = verdict_from_judge({"reason": "r", "reward": 0.75, "status": "success", "inquiry": "failure"}, "x")
    assert (v.success, v.inquiry, v.score, v.reason) == (True, "missed", 3.0, "r")
    assert verdict_from_judge({"reward": 2, "status": "failed", "inquiry": "success"}, "y").score == 2.0


def test_our_verdict_and_episode_files(tmp_path: Path) -> None:
    a = EpisodeVerdict("a", success=True, inquiry="asked", score=4)
    b = EpisodeVerdict("b", success=False, inquiry="over_asked")
    (tmp_path / "verdicts.jsonl").write_text(json.dumps(a.to_dict()) + "\n" + json.dumps(b.to_dict()) + "\n")
    (tmp_path / "episodes.jsonl").write_text(
        json.dumps({"id": "c", "instruction": "x", "verdict": {"success": True, "inquiry": "not_needed"}}) + "\n"
    )
    report = rescore([tmp_path])
    by_name = {s.name: s for s in report.files}
    assert by_name["verdicts.jsonl"].sr.k == 1 and by_name["verdicts.jsonl"].isr.k == 1
    assert by_name["episodes.jsonl"].isr.k == 1
    assert report.pooled is not None and report.pooled.n == 3


def test_bad_input_is_a_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"reward": 0.5, "status": "success", "inquiry": "success"}\nnot json\n')
    with pytest.raises(DataError, match="bad.jsonl:2"):
        rescore([bad])
    odd = tmp_path / "odd.jsonl"
    odd.write_text('{"foo": 1}\n')
    with pytest.raises(DataError, match="odd.jsonl:1"):
        rescore([odd])
    with pytest.raises(DataError, match="does not exist"):
        rescore([tmp_path / "missing.jsonl"])
