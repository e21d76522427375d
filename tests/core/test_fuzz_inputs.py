"""Fuzz harness: every dialect's `parse`, every reward preset and every loader, on hostile input, within the
harness's own deadline per input. A parse returns a result and never raises; a loader returns episodes or raises a
project error (`MobileR1Error`), nothing else. With atheris installed, a bounded coverage-guided run joins in."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, Callable

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fuzzing import FUZZ, damaged_lines, reply_texts
from mobile_r1.core.actions import Action
from mobile_r1.core.dialects import ParseResult, get_dialect
from mobile_r1.core.errors import MobileR1Error
from mobile_r1.core.formats import load_match_pairs
from mobile_r1.core.formats.registry import LOADERS
from mobile_r1.core.records import Episode, Observation, Step
from mobile_r1.core.rewards import PRESETS, read_cases

DATA = Path(__file__).parent / "formats" / "data"
DIALECTS = ("qwen2.5vl", "inquire", "mobile-r1", "uitars", "compact")
LABEL = {"name": "mobile_use", "arguments": {"action": "type", "text": "hello there my friend"}}


@FUZZ
@given(reply_texts(), st.sampled_from(DIALECTS))
def test_every_dialect_parses_any_reply(text: str, name: str) -> None:
    result = get_dialect(name).parse(text)
    assert isinstance(result, ParseResult) and result.raw == text
    assert result.valid is False or (result.action is not None and result.error is None)


@FUZZ
@given(reply_texts(), st.sampled_from(list(PRESETS)))
def test_every_reward_preset_scores_any_reply(text: str, preset: str) -> None:
    result = PRESETS[preset].score(text, LABEL, [10, 20, 30, 40], [1080, 2400], [540, 1200])
    assert all(value == value for value in result.to_record().values())  # no NaN


def _first(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8").splitlines()[0])


NATIVE = Episode(id="e", instruction="Tap OK", screen_size=(1080, 2400), steps=[
    Step(Action.click(60, 50), "tap", "ok", Observation(screen_size=(1080, 2400), screenshot_path="s.png"),
         bbox=(10, 20, 110, 80)),
    Step(Action.call_user("Which one?"), user_reply="the first"),
]).to_dict()
TASK = {"instruction": "Buy it", "apps": ["taobao"], "category": "risk", "language": "en", "need_login": False,
        "intension": "Buy the cheapest one"}
GOOD: dict[str, dict[str, Any]] = {
    "native": NATIVE,
    "mobile-r1": _first(DATA / "mobile_r1_sample.jsonl"),
    "inquire-tasks": TASK,
    "inquire-sft": _first(DATA / "inquire_sft_sample.jsonl"),
    "inquire-grpo": _first(DATA / "inquire_grpo_sample.jsonl"),
}
READERS: dict[str, tuple[dict[str, Any], Callable[[Path], Any]]] = {
    **{f"load {name}": (record, LOADERS[name]) for name, record in GOOD.items()},  # the JSON-lines formats
    "match pairs": ({"pred": {"action": "click", "coordinate": [5, 6]}, "label": {"action": "click", "coordinate": [5, 7]},
                     "bbox": [0, 0, 10, 10], "screen_size": [1080, 2400]}, load_match_pairs),
    "reward cases": ({"completion": "<think>t</think><tool_call>{}</tool_call>", "label": LABEL, "bbox": None,
                      "image_size": [1080, 2400], "model_image_size": [540, 1200]}, lambda p: list(read_cases(p))),
}


def _load(reader: Callable[[Path], Any], data: bytes) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "data.jsonl"
        path.write_bytes(data)
        try:
            reader(path)
        except MobileR1Error:
            pass  # a clear, named error is the right answer to a bad file


@pytest.mark.slow
@pytest.mark.parametrize("name", list(READERS))
def test_every_loader_reads_or_names_the_problem(name: str) -> None:
    record, reader = READERS[name]

    @FUZZ
    @given(damaged_lines(record))
    def run(data: bytes) -> None:
        _load(reader, data)

    run()


# ----- the field's datasets: files of other shapes, damaged at the byte level ---------------------------------------
@st.composite
def damaged_bytes(draw: st.DrawFn, data: bytes) -> bytes:
    """`data` cut short, with bytes flipped or inserted, or emptied."""
    how = draw(st.sampled_from(["cut", "flip", "insert", "empty", "same"]))
    if how == "cut":
        return data[: draw(st.integers(0, max(0, len(data) - 1)))]
    if how == "empty":
        return b""
    if how == "same":
        return data
    out = bytearray(data)
    for _ in range(draw(st.integers(1, 8))):
        at = draw(st.integers(0, max(0, len(out) - 1)))
        value = draw(st.integers(0, 255))
        if how == "flip" and out:
            out[at] = value
        else:
            out.insert(at, value)
    return bytes(out)


def _field_files(tmp: Path) -> dict[str, tuple[Path, Path]]:
    """Format -> (the folder or file to load, the file to damage), written by the field-dataset tests' writers."""
    sys.path.insert(0, str(Path(__file__).parent / "formats"))
    import test_field_datasets as fd  # noqa: PLC0415 - the writers live with those tests

    out: dict[str, tuple[Path, Path]] = {}
    odyssey, amex = fd.odyssey_folder(tmp), fd.amex_folder(tmp)
    out["gui-odyssey"] = (odyssey, odyssey / "annotations" / "a.json")
    out["amex"] = (amex, amex / "instruction_anno" / "ep.json")
    control = fd.android_control_file(tmp / "ac")
    out["android-control"] = (control, control)
    aitw = fd.aitw_file(tmp / "aitw")
    out["aitw"] = (aitw, aitw)
    try:
        parquet = fd.android_control_parquet(tmp / "pq")
        out["android-control-parquet"] = (parquet, parquet)
    except ImportError:  # pyarrow is the 'data' extra
        pass
    return out


FIELD = ["gui-odyssey", "amex", "android-control", "aitw", "android-control-parquet"]


@pytest.mark.parametrize("name", FIELD)
def test_every_field_dataset_loader_reads_or_names_the_problem(name: str, tmp_path: Path) -> None:
    pytest.importorskip("tfrecord")
    for folder in ("ac", "aitw", "pq"):
        (tmp_path / folder).mkdir()
    files = _field_files(tmp_path)
    if name not in files:
        pytest.skip(f"{name}: its optional reader is not installed")
    target, damaged = files[name]
    good = damaged.read_bytes()
    from mobile_r1.core.formats import load_any

    @FUZZ
    @given(damaged_bytes(good))
    def run(data: bytes) -> None:
        damaged.write_bytes(data)
        try:
            load_any(target, name)
        except MobileR1Error:
            pass

    run()


# ----- atheris, where it installs ---------------------------------------------------------------------------------
@pytest.mark.slow
def test_a_bounded_atheris_run_finds_no_crash_and_no_slow_input() -> None:
    pytest.importorskip("atheris")
    target = Path(__file__).with_name("atheris_target.py")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    # -runs bounds the run; -timeout is libFuzzer's own limit per input (seconds): a slower input fails the run
    proc = subprocess.run([sys.executable, str(target), "-runs=4000", "-max_len=8192", "-timeout=2", "-seed=1"],
                          capture_output=True, text=True, timeout=600, env=env, check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "Done 4000 runs" in proc.stderr

