"""Fuzz harness over every file the command line reads: each fuzzed file ends with exit 0 or a clean exit 2 (a
project error, printed without a traceback), within the harness's own deadline per input."""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "core"))  # the shared strategies live beside the core tests

from fuzzing import FUZZ, damaged_lines, mutated  # noqa: E402
from mobile_r1.cli.main import main  # noqa: E402
from mobile_r1.core.errors import ConfigError  # noqa: E402
from mobile_r1.train.config import load_config  # noqa: E402

CASE = {"completion": "<think>t</think><tool_call>{\"name\": \"mobile_use\", \"arguments\": {\"action\": \"wait\"}}"
                      "</tool_call>", "label": {"name": "mobile_use", "arguments": {"action": "wait"}}, "bbox": None,
        "image_size": [1000, 2000], "model_image_size": [500, 1000]}
PAIR = {"pred": {"action": "click", "coordinate": [500, 1000]}, "label": {"action": "click", "coordinate": [505, 1000]},
        "bbox": [400, 900, 600, 1100], "screen_size": [1000, 2000]}
JUDGE = {"reason": "ok", "reward": 0.5, "status": "success", "inquiry": "success"}
VERDICT = {"episode_id": "e", "success": True, "inquiry": "asked", "over_asks": 0, "steps": 2, "score": 3.0}
TASK = {"instruction": "Buy it", "apps": ["taobao"], "category": "risk", "language": "en", "need_login": False,
        "intension": "Buy the cheapest one"}
FILES: dict[str, tuple[dict[str, Any], list[str]]] = {
    "reward": (CASE, ["reward", "--preset", "inquire-mobile", "--input", "{path}"]),
    "reward gui-r1": (CASE, ["reward", "--preset", "gui-r1", "--input", "{path}"]),
    "match": (PAIR, ["match", "--preset", "qwen-ac", "--input", "{path}"]),
    "rescore judge": (JUDGE, ["rescore", "{path}"]),
    "rescore verdict": (VERDICT, ["rescore", "{path}"]),
    "data stats tasks": (TASK, ["data", "stats", "{path}", "--format", "inquire-tasks"]),
}


def _exit(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    code = main(argv)
    captured = capsys.readouterr()
    assert code in (0, 2), captured.err[-2000:]
    assert "Traceback" not in captured.err


@pytest.mark.slow
@pytest.mark.parametrize("name", list(FILES))
def test_every_input_file_ends_cleanly(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    record, argv = FILES[name]

    @FUZZ
    @given(damaged_lines(record))
    def run(data: bytes) -> None:
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "eval_model_en.jsonl"
            path.write_bytes(data)
            _exit([a.replace("{path}", str(path)) for a in argv], capsys)

    run()


CONFIG = {"model": {"name": "tiny-lm"}, "data": {"train": ["d.jsonl"], "history_window": 1},
          "optim": {"lr": 1e-4, "scheduler": "linear"}, "grpo": {"num_generations": 4, "temperature": 1.0},
          "run": {"output_dir": "runs/x", "save_every": 2}}


@FUZZ
@given(mutated(CONFIG))
def test_every_training_config_loads_or_names_the_problem(config: Any) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "c.yaml"
        path.write_text(yaml.safe_dump(config, allow_unicode=True), encoding="utf-8")
        try:
            load_config(path)
        except ConfigError:
            pass


EPISODE = {"id": "e1", "instruction": "Pay", "category": "risk", "truncated": False,
           "steps": [{"index": 0, "action": {"action": "click", "coordinate": [10, 20]}, "thought": "t",
                      "observation": {"screen_size": [1080, 2400], "screenshot_path": "screens/0.png"}}],
           "final_screenshot": "screens/0.png",
           "verdict": {"success": False, "inquiry": "missed", "over_asks": 0, "safety_violation": False, "steps": 1,
                       "score": None, "reason": "r", "category": "risk", "subcategory": "risk/pay", "language": "en"}}


@pytest.mark.slow
def test_every_run_folder_reports_or_names_the_problem(capsys: pytest.CaptureFixture[str]) -> None:
    @FUZZ
    @given(damaged_lines(EPISODE))
    def run(data: bytes) -> None:
        with tempfile.TemporaryDirectory() as folder:
            run_dir = Path(folder) / "run"
            (run_dir / "screens").mkdir(parents=True)
            (run_dir / "screens" / "0.png").write_bytes(b"\x89PNG\r\n\x1a\n not really")
            (run_dir / "episodes.jsonl").write_bytes(data)
            (run_dir / "run.json").write_text(json.dumps({"agent": "x", "suite": "inquire-sim"}))
            _exit(["report", str(run_dir), "--out", str(Path(folder) / "r.html")], capsys)

    run()
