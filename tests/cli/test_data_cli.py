"""`mobile-r1 data stats`: figures for each supported format, as a table or JSON."""

from __future__ import annotations

import json
from pathlib import Path


from mobile_r1.cli.main import main

DATA = Path(__file__).resolve().parents[1] / "core" / "formats" / "data"


def test_stats_json_on_mobile_r1(capsys) -> None:
    assert main(["data", "stats", str(DATA / "mobile_r1_sample.jsonl"), "--json"]) == 0
    figures = json.loads(capsys.readouterr().out)
    assert figures["format"] == "mobile-r1"
    assert (figures["episodes"], figures["steps"]) == (2, 5)
    assert figures["steps_per_episode"] == {"mean": 2.5, "min": 2, "max": 3}
    assert figures["action_types"]["click"] == 2


def test_stats_json_on_task_file(shared_dir: Path, capsys) -> None:
    assert main(["data", "stats", str(shared_dir / "data" / "inquirebench" / "tasks_en.jsonl"), "--json"]) == 0
    figures = json.loads(capsys.readouterr().out)
    assert figures["format"] == "inquire-tasks" and figures["episodes"] == 95
    assert figures["categories"] == {"intension": 30, "risk": 25, "uncertainty": 20, "combination": 15, "privacy": 5}


def test_stats_table_with_forced_format(capsys) -> None:
    assert main(["data", "stats", str(DATA / "inquire_grpo_sample.jsonl"), "--format", "inquire-grpo"]) == 0
    out = capsys.readouterr().out
    assert "inquire-grpo" in out and "call_user share" in out and "33.3%" in out


def test_stats_wrong_format_is_a_clean_error(capsys) -> None:
    assert main(["data", "stats", str(DATA / "inquire_grpo_sample.jsonl"), "--format", "mobile-r1"]) == 2
    err = capsys.readouterr().err
    assert "inquire_grpo_sample.jsonl:1" in err and "'instruction'" in err and "Traceback" not in err


def test_data_group_help(capsys) -> None:
    assert main(["data", "--help"]) == 0
    assert "stats" in capsys.readouterr().out


def test_convert_then_stats_and_export(tmp_path: Path, capsys) -> None:
    store = tmp_path / "store"
    assert main(["data", "convert", str(DATA / "inquire_grpo_sample.jsonl"), str(store)]) == 0
    assert "2 episodes (inquire-grpo)" in capsys.readouterr().out
    assert main(["data", "stats", str(store), "--json"]) == 0
    figures = json.loads(capsys.readouterr().out)
    assert figures["format"] == "native" and figures["steps"] == 3

    out = tmp_path / "sft.jsonl"
    assert main(["data", "export", str(DATA / "inquire_grpo_sample.jsonl"), "--to", "sharegpt", "--dialect", "inquire", "--out", str(out)]) == 0
    assert "3 samples" in capsys.readouterr().out
    records = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert len(records) == 3
    # the GRPO label (101, 693) in the 644 x 1484 model image survives the round trip through screen pixels
    assert '"coordinate": [101, 693]' in records[0]["messages"][-1]["content"]
    assert '"action": "call_user"' in records[2]["messages"][-1]["content"]

    trl = tmp_path / "trl.jsonl"
    assert main(["data", "export", str(DATA / "mobile_r1_sample.jsonl"), "--to", "trl", "-d", "mobile-r1", "-o", str(trl)]) == 0
    row = json.loads(trl.read_text(encoding="utf-8").splitlines()[0])
    assert row["completion"][0]["role"] == "assistant"


def test_export_bad_target_is_a_clean_error(tmp_path: Path, capsys) -> None:
    assert main(["data", "export", str(DATA / "mobile_r1_sample.jsonl"), "--to", "csv", "-o", str(tmp_path / "x")]) == 2
    assert "--to must be sharegpt or trl" in capsys.readouterr().err
