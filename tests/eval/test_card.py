"""The reproducibility card: every `mobile-r1 eval --out` run writes card.json; `compare` and `report` name the fields in
which runs differ; the card of a model agent pins its prompt, frame, sampling and weights."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mobile_r1.cli.main import main
from mobile_r1.env import make_backend
from mobile_r1.eval.card import CARD_FILE, build_card, card_hash, card_warnings, read_card, write_card
from mobile_r1.eval.runner import EvalConfig


def run(out: Path, *extra: str, agent: str = "oracle") -> Path:
    assert main(["eval", "--agent", agent, "--suite", "nav-sim", "--episodes", "1", "--out", str(out), *extra]) == 0
    return out


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("runs")
    return {"oracle": run(root / "oracle"), "never": run(root / "never", agent="never-ask"),
            "short": run(root / "short", "--max-steps", "3")}


def test_every_run_writes_a_card_with_a_hash(runs: dict[str, Path]) -> None:
    card = read_card(runs["oracle"])
    assert card is not None and card["sha256"] == card_hash(card)
    assert card["model"] == {"agent": "oracle", "kind": "scripted", "id": "oracle"}
    assert card["judge"]["kinds"] == {"rule": 1} and card["judge"]["rule_version"] == card["packages"]["mobile-r1"]
    assert card["step_budget"] == {"per_task": {"15": 1}}
    assert card["suite"]["suite"] == "nav-sim" and len(card["suite"]["ids_sha256"]) == 64
    assert card["machine"]["cpus"] >= 1 and card["packages"]["python"]
    assert read_card(runs["short"])["step_budget"] == {"max_steps": 3}


def test_compare_and_report_name_the_fields_that_differ(runs: dict[str, Path], tmp_path: Path, capsys) -> None:
    # other agents on the same settings: their models differ by design, nothing else does
    assert main(["compare", str(runs["oracle"]), str(runs["never"])]) == 0
    assert "warning" not in capsys.readouterr().err
    assert main(["compare", str(runs["oracle"]), str(runs["short"])]) == 0
    err = capsys.readouterr().err
    assert f"warning: {runs['short']} differs from {runs['oracle']} in step_budget.max_steps, step_budget.per_task" in err
    assert main(["report", str(runs["oracle"]), str(runs["short"]), "--out", str(tmp_path / "r.html")]) == 0
    assert "step_budget.max_steps" in capsys.readouterr().err
    # a run written before cards existed is named as such
    old = tmp_path / "old"
    old.mkdir()
    for name in ("episodes.jsonl", "run.json", "metrics.json"):
        (old / name).write_bytes((runs["oracle"] / name).read_bytes())
    assert main(["compare", str(runs["oracle"]), str(old)]) == 0
    assert f"{old} has no card.json" in capsys.readouterr().err


def test_a_model_agents_card_pins_prompt_frame_sampling_and_weights() -> None:
    backend = make_backend("sim", render=False)
    episodes = backend.episodes("nav-sim", "test", 2)
    config = EvalConfig(agent="hf:tiny-lm", suite="nav-sim", max_steps=3)

    from mobile_r1.agents.hf_agent import HFAgent
    from mobile_r1.models import load_policy

    policy = load_policy("tiny-lm")  # loaded once; each agent prompts it its own way

    def card(**options: object) -> dict:
        return build_card(config, HFAgent(policy, **options), backend, episodes)

    base = card(dialect="qwen2.5vl", observation_mode="image", temperature=0.0)
    assert base["dialect"] == "qwen2.5vl" and base["observation"] == "image"
    assert base["image"]["frame"] == "qwen" and base["image"]["factor"] == 28
    assert base["prompt"]["system"].startswith("You are a helpful assistant.") and len(base["prompt"]["sha256"]) == 64
    assert base["model"]["kind"] == "local" and len(base["model"]["weights_sha256"]) == 64
    assert base["sampling"]["temperature"] == 0.0 and base["sampling"]["max_new_tokens"] == 256

    def differs(**options: object) -> list[str]:
        from mobile_r1.eval.card import differing

        return differing(base, card(**{"dialect": "qwen2.5vl", "observation_mode": "image", "temperature": 0.0,
                                       **options}))

    assert differs() == []
    assert differs(temperature=0.7) == ["sampling.temperature"]
    assert differs(history_window=1) == ["history.window", "prompt.sha256"]
    # the frame changes the resolution the qwen2.5vl prompt states
    assert differs(max_pixels=200_000) == ["image.max_pixels", "prompt.sha256"]
    assert differs(prescale=0.3) == ["image.prescale", "prompt.sha256"]
    assert set(differs(dialect="inquire")) == {"dialect", "prompt.sha256"}
    assert set(differs(observation_mode="text")) == {"observation", "prompt.sha256", "image.frame", "image.resample",
                                                    "coordinates.frame"}
    # the same spec with other weights: the hash tells them apart
    import torch

    with torch.no_grad():
        next(policy.model.parameters()).add_(1.0)
    assert differs() == ["model.weights_sha256"]


def test_a_resumed_run_with_other_settings_keeps_them_and_is_warned_about(runs: dict[str, Path], tmp_path: Path) -> None:
    folder = tmp_path / "resumed"
    folder.mkdir()
    first = read_card(runs["oracle"])
    write_card(folder, first)
    changed = json.loads(json.dumps(first))
    changed["packages"]["transformers"] = "0.0.1"
    write_card(folder, changed)
    card = read_card(folder)
    assert card["resumed_with_other"] == {"packages.transformers": first["packages"]["transformers"]}
    assert (folder / CARD_FILE).is_file()
    warnings = card_warnings([runs["oracle"], folder])
    assert any("was resumed with other settings (packages.transformers)" in w for w in warnings)
    assert any("differs from" in w and "packages.transformers" in w for w in warnings)
