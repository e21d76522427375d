"""The GRPO engine's anchors: the KL reference is the stage's starting policy (LoRA or not, resumed or not), old and
reference log-probs are computed under the update's autocast, sample weights aggregate as documented, and a stage
trained alone uses its curriculum learning rate."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import torch
import yaml

from mobile_r1.models import LoraSettings, load_policy
from mobile_r1.models.policy import apply_lora
from mobile_r1.train.grpo import GRPOEngine, GRPOSettings, Sample, batch_normaliser, collate, grpo_loss, token_logps


def _samples(policy: Any, n: int = 4) -> list[Sample]:
    tok = policy.tokenizer
    prompt = tok("open the notes app", add_special_tokens=False).input_ids
    return [Sample(prompt, tok(f"click {i} {i + 1}", add_special_tokens=False).input_ids, advantage=float(i % 2) - 0.5)
            for i in range(n)]


def _logps(policy: Any, samples: list[Sample], model: Any = None) -> torch.Tensor:
    batch = collate(samples, policy.tokenizer.pad_token_id, policy.device)
    with torch.no_grad():
        return token_logps(model if model is not None else policy.model, batch, 1.0)


def test_under_lora_the_reference_is_the_stages_starting_adapter_not_the_base_model(set_lora_b: Any) -> None:
    policy = apply_lora(load_policy("tiny-lm"), LoraSettings(r=4, alpha=8, dropout=0.0))
    set_lora_b(policy.model, 0.05, seed=0)  # the previous stage's adapter: the starting policy differs from the base
    samples = _samples(policy)
    start = _logps(policy, samples)
    with policy.model.disable_adapter():
        base = _logps(policy, samples)
    assert not torch.allclose(start, base, atol=1e-4)
    policy.freeze_reference()
    engine = GRPOEngine(policy, GRPOSettings(beta=0.04, num_generations=2, micro_batch_size=4),
                        torch.optim.AdamW([p for p in policy.model.parameters() if p.requires_grad], lr=5e-2))
    for _ in range(3):
        engine.train_on(_samples(policy))
    moved = _logps(policy, samples)
    assert not torch.allclose(moved, start, atol=1e-4)  # training changed the policy
    with policy.reference() as ref:
        assert torch.allclose(_logps(policy, samples, ref), start, atol=1e-6)  # the anchor did not move
    assert torch.allclose(_logps(policy, samples), moved)  # and the trained adapter is back in place


def test_without_lora_the_reference_is_a_frozen_copy_of_the_starting_model() -> None:
    policy = load_policy("tiny-lm")
    samples = _samples(policy)
    start = _logps(policy, samples)
    policy.freeze_reference()
    engine = GRPOEngine(policy, GRPOSettings(beta=0.04, micro_batch_size=4),
                        torch.optim.AdamW(policy.model.parameters(), lr=1e-2))
    engine.train_on(_samples(policy))
    with policy.reference() as ref:
        assert torch.allclose(_logps(policy, samples, ref), start, atol=1e-6)
        assert not any(p.requires_grad for p in ref.parameters())


def test_old_and_reference_logps_are_computed_under_the_updates_autocast() -> None:
    from accelerate import Accelerator
    from accelerate.state import AcceleratorState

    AcceleratorState._reset_state(reset_partial_state=True)  # an earlier test in this process may have made one
    accelerator = Accelerator(cpu=True, mixed_precision="bf16")
    try:
        _check_autocast(accelerator)
    finally:
        AcceleratorState._reset_state(reset_partial_state=True)  # other tests in this process build their own


def _check_autocast(accelerator: Any) -> None:
    policy = load_policy("tiny-lm")
    engine = GRPOEngine(policy, GRPOSettings(beta=0.04, num_iterations=2, micro_batch_size=4),
                        torch.optim.AdamW(policy.model.parameters(), lr=0.0), accelerator=accelerator)
    samples = _samples(policy)
    engine._fill_logps(samples)
    batch = collate(samples, policy.tokenizer.pad_token_id, policy.device)
    with torch.no_grad(), accelerator.autocast():
        under = token_logps(policy.model, batch, 1.0)
    with torch.no_grad():
        plain = token_logps(policy.model, batch, 1.0)
    assert not torch.equal(under, plain)  # bf16 autocast changes the log-probs
    for sample, row in zip(samples, under):
        n = len(sample.completion_ids)
        assert torch.equal(sample.old_logps, row[:n].cpu())  # so the first iteration's ratio is exactly 1
        assert torch.equal(sample.ref_logps, row[:n].cpu())
    update = engine.train_on(samples)[0]
    assert update["clip_ratio"] == 0.0 and update["kl"] == pytest.approx(0.0, abs=1e-7)


def test_sample_weights_aggregate_as_documented() -> None:
    logps = torch.log(torch.tensor([[0.5, 0.5, 0.5], [0.25, 0.25, 0.0]]).clamp(min=1e-9))
    mask = torch.tensor([[1, 1, 1], [1, 1, 0]])
    adv = torch.tensor([1.0, -1.0])
    weights = torch.tensor([1 / 3, 1 / 2])  # each sequence's tokens share a weight of 1
    lengths = [3, 2]
    for loss_type in ("grpo", "dapo", "dr_grpo"):
        plain = grpo_loss(logps, logps.detach(), None, adv, mask, loss_type=loss_type, epsilon=0.2, epsilon_high=None,
                          beta=0.0, normaliser=batch_normaliser(lengths, loss_type, 3))  # type: ignore[arg-type]
        ones = grpo_loss(logps, logps.detach(), None, adv, mask, loss_type=loss_type, epsilon=0.2, epsilon_high=None,
                         beta=0.0, weights=torch.ones(2),
                         normaliser=batch_normaliser(lengths, loss_type, 3, [1.0, 1.0]))  # type: ignore[arg-type]
        assert torch.equal(plain.loss, ones.loss)  # weights of 1 change nothing, bit for bit
    weighted = grpo_loss(logps, logps.detach(), None, adv, mask, loss_type="dapo", epsilon=0.2, epsilon_high=None,
                         beta=0.0, weights=weights, normaliser=batch_normaliser(lengths, "dapo", 3, weights.tolist()))
    # on policy the loss is -A per token: (-(1/3) * 3 * 1 + (1/2) * 2 * 1) / (1/3 * 3 + 1/2 * 2) = 0
    assert float(weighted.loss) == pytest.approx(0.0, abs=1e-7)


@pytest.mark.slow
def test_a_stage_trained_alone_uses_its_curriculum_rate_and_a_resumed_run_keeps_its_reference(tmp_path: Path) -> None:
    from mobile_r1.core.actions import Action
    from mobile_r1.core.dialects import get_dialect
    from mobile_r1.train.run import train

    class Killed(Exception):
        pass

    tokenizer = load_policy("tiny-lm").tokenizer
    dialect = get_dialect("compact")

    def sampler(prompts: list[Any]) -> list[list[int]]:  # half the rollouts write a valid step, half garbage
        texts = [dialect.render(Action.back(), "go back", "back") if i % 2 == 0 else "no idea" for i in range(len(prompts))]
        return [tokenizer(t + "<|im_end|>", add_special_tokens=False).input_ids for t in texts]

    def config(name: str) -> Path:
        data = {
            "model": {"name": "tiny-lm"},
            "data": {"dialect": "compact", "observation_mode": "text", "history_window": 1},
            "optim": {"lr": 3.0e-3, "scheduler": "constant"},
            "grpo": {"num_generations": 2, "max_completion_length": 6, "micro_batch_size": 8, "beta": 0.1},
            "task_grpo": {"suite": "nav-sim", "tasks": ["settings.dark_mode", "notes.pin"], "train_episodes": 4,
                          "eval_episodes": 0, "tasks_per_step": 1, "steps": 3, "max_turns": 2, "format_weight": 1.0},
            "run": {"output_dir": str(tmp_path / name), "tensorboard": False, "save_every": 1},
            "curriculum": {"stage_lr": {"sft": 3.0e-3, "task-grpo": 2.0e-2}},
        }
        path = tmp_path / f"{name}.yaml"
        path.write_text(yaml.safe_dump(data))
        return path

    def records(name: str) -> list[dict[str, Any]]:
        lines = (tmp_path / name / "metrics.jsonl").read_text().splitlines()
        return [r for r in map(json.loads, lines) if r["kind"] == "train"]

    train(config("straight"), "task-grpo", progress=False, sampler=sampler)
    assert {r["lr"] for r in records("straight")} == {2.0e-2}  # the stage's own rate, not the SFT rate

    def kill(step: int, metrics: dict[str, float]) -> None:
        if step == 2:
            raise Killed

    with pytest.raises(Killed):
        train(config("killed"), "task-grpo", progress=False, on_step=kill, sampler=sampler)
    train(config("killed"), "task-grpo", progress=False, resume=True, sampler=sampler)
    ours, reference = records("killed"), records("straight")
    assert [r["step"] for r in ours] == [1, 2, 3]
    # the KL to the reference after the resume equals the uninterrupted run's: the anchor is the stage's start, not
    # the weights the resumed run loaded
    assert any(r["kl"] > 1e-6 for r in reference[1:])
    for a, b in zip(ours, reference):
        assert a["kl"] == pytest.approx(b["kl"], rel=1e-5, abs=1e-9) and a["loss"] == pytest.approx(b["loss"], abs=1e-6)


def test_a_run_after_one_with_another_mixed_precision_in_the_same_process_starts_afresh() -> None:
    from accelerate import Accelerator
    from accelerate.state import AcceleratorState

    from mobile_r1.train.config import TrainConfig
    from mobile_r1.train.processes import make_accelerator

    AcceleratorState._reset_state(reset_partial_state=True)
    Accelerator(cpu=True, mixed_precision="bf16")  # e.g. TRL's trainer earlier in this process
    try:
        accelerator = make_accelerator(TrainConfig.model_validate({"run": {"mixed_precision": "no"}}))
        assert accelerator.mixed_precision == "no"
    finally:
        AcceleratorState._reset_state(reset_partial_state=True)
