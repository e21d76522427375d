"""`run.mixed_precision: auto`: bf16 autocast where this machine computes bfloat16 matrix products fast, none where
torch would run them on its scalar kernel (an AVX2 CPU, about 15x slower than float32: benchmarks/sft_step.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from accelerate.state import AcceleratorState

from mobile_r1.train import processes
from mobile_r1.train.config import TrainConfig, load_config
from mobile_r1.train.processes import bf16_is_fast, make_accelerator, mixed_precision, run_card

REPO = Path(__file__).resolve().parents[2]


def _cpu_flags() -> set[str]:
    cpuinfo = Path("/proc/cpuinfo")
    if not cpuinfo.is_file():
        pytest.skip("no /proc/cpuinfo to read the CPU's instruction sets from")
    line = next((x for x in cpuinfo.read_text().splitlines() if x.startswith("flags")), None)
    if line is None:
        pytest.skip("/proc/cpuinfo lists no flags")
    return set(line.split(":", 1)[1].split())


@pytest.fixture(autouse=True)
def _fresh_accelerator_state():  # type: ignore[no-untyped-def]
    AcceleratorState._reset_state(reset_partial_state=True)
    yield
    AcceleratorState._reset_state(reset_partial_state=True)


def _accelerator(precision: str):  # type: ignore[no-untyped-def]
    return make_accelerator(TrainConfig.model_validate({"run": {"mixed_precision": precision}}))


def test_bf16_is_fast_on_a_cpu_with_avx512_and_not_on_one_without() -> None:
    flags = _cpu_flags()
    if {"avx512bw", "avx512vl", "avx512dq"} <= flags:
        assert bf16_is_fast(False)
    elif not any(f.startswith("avx512") or f.startswith("amx") for f in flags):
        assert not bf16_is_fast(False)
    else:
        pytest.skip("a CPU with only part of AVX-512: oneDNN's choice is its own")


def test_auto_autocasts_in_bf16_only_where_bf16_is_fast_and_the_demo_asks_for_auto(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    here = "bf16" if bf16_is_fast(False) else "no"
    assert _accelerator("auto").mixed_precision == here
    assert mixed_precision(load_config(REPO / "configs" / "demo.yaml").run.mixed_precision, gpu=False) == here
    for fast, expected in ((True, "bf16"), (False, "no")):
        monkeypatch.setattr(processes, "bf16_is_fast", lambda gpu, fast=fast: fast)
        AcceleratorState._reset_state(reset_partial_state=True)
        assert _accelerator("auto").mixed_precision == expected
        assert mixed_precision("auto", gpu=False) == expected
        # a precision asked by name is kept, whatever the machine
        assert mixed_precision("bf16", gpu=False) == "bf16" and mixed_precision("no", gpu=False) == "no"


def test_bf16_asked_where_it_is_slow_is_kept_and_says_so(monkeypatch, capsys) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setattr(processes, "bf16_is_fast", lambda gpu: False)
    assert _accelerator("bf16").mixed_precision == "bf16"
    err = capsys.readouterr().err
    assert "15x slower than float32" in err and "run.mixed_precision: auto" in err
    monkeypatch.setattr(processes, "bf16_is_fast", lambda gpu: True)
    AcceleratorState._reset_state(reset_partial_state=True)
    assert _accelerator("bf16").mixed_precision == "bf16"
    assert "slower" not in capsys.readouterr().err


def test_the_run_card_records_the_autocast_used_and_the_one_asked(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    config = TrainConfig.model_validate({"run": {"mixed_precision": "auto"}})
    monkeypatch.setattr(processes, "bf16_is_fast", lambda gpu: False)
    card = run_card(config, "sft")
    assert (card["mixed_precision"], card["mixed_precision_asked"]) == ("no", "auto")
    monkeypatch.setattr(processes, "bf16_is_fast", lambda gpu: True)
    assert run_card(config, "sft")["mixed_precision"] == "bf16"


def test_an_unknown_precision_is_refused() -> None:
    with pytest.raises(ValueError, match="mixed_precision"):
        TrainConfig.model_validate({"run": {"mixed_precision": "bfloat16"}})
