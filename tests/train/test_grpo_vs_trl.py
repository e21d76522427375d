"""Our GRPO engine against TRL's GRPOTrainer: same tiny model, prompts, completions and seed give the same update."""

from __future__ import annotations

import copy

import pytest
import torch

from mobile_r1.models import build_preset, load_policy
from mobile_r1.train.grpo import GRPOEngine, GRPOSettings, Sample, group_advantages

trl = pytest.importorskip("trl")
datasets = pytest.importorskip("datasets")


def _reward(completion_ids: list[list[int]], **_: object) -> list[float]:
    # a deterministic reward of the sampled tokens, so groups have variance
    return [float(sum(ids) % 7) for ids in completion_ids]


def _run_trl(model_dir: str, loss_type: str, beta: float, num_iterations: int, tmp_path) -> tuple[dict, list, list]:
    from trl import GRPOConfig, GRPOTrainer

    policy = load_policy(model_dir)
    prompts = ["Open the settings app", "Send hello to Mom"]
    lengths = {len(policy.tokenizer(p, add_special_tokens=False).input_ids) for p in prompts}
    assert len(lengths) == 1, "prompts must have equal token length (no left padding)"
    args = GRPOConfig(
        output_dir=str(tmp_path / "trl"),
        use_cpu=True,
        bf16=False,
        per_device_train_batch_size=4,
        gradient_accumulation_steps=2,
        num_generations=4,
        max_completion_length=6,
        temperature=0.7,
        learning_rate=0.5,
        lr_scheduler_type="constant",
        max_grad_norm=1.0,
        loss_type=loss_type,
        beta=beta,
        epsilon=0.2,
        epsilon_high=0.28,
        num_iterations=num_iterations,
        use_bias_correction_kl=False,
        max_steps=num_iterations,
        logging_steps=1,
        save_strategy="no",
        report_to=[],
        seed=7,
        disable_tqdm=True,
    )
    model = policy.model
    initial = copy.deepcopy(model.state_dict())
    optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
    trainer = GRPOTrainer(
        model=model,
        reward_funcs=_reward,
        args=args,
        train_dataset=datasets.Dataset.from_list([{"prompt": p} for p in prompts]),
        processing_class=policy.tokenizer,
        optimizers=(optimizer, torch.optim.lr_scheduler.LambdaLR(optimizer, lambda _: 1.0)),
    )
    captured: list = []
    original = trainer._generate

    def spy(batch_prompts):  # record the exact token ids TRL sampled
        out = original(batch_prompts)
        captured.append((out[0], out[1]))
        return out

    trainer._generate = spy
    trainer.train()
    assert len(captured) == 1
    updated = {k: v.detach().clone() for k, v in trainer.model.state_dict().items()}
    return initial, updated, captured[0]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("loss_type", "beta", "num_iterations"),
    [("dapo", 0.0, 1), ("grpo", 0.04, 2), ("dr_grpo", 0.1, 2), ("dapo", 0.04, 2)],
)
def test_one_rollout_updates_like_trl(loss_type: str, beta: float, num_iterations: int, tmp_path) -> None:
    model_dir = str(build_preset("tiny-lm"))
    initial, trl_params, (prompt_ids, completion_ids) = _run_trl(model_dir, loss_type, beta, num_iterations, tmp_path)

    policy = load_policy(model_dir)
    policy.model.load_state_dict(initial)
    settings = GRPOSettings(num_generations=4, temperature=0.7, max_completion_length=6, loss_type=loss_type,  # type: ignore[arg-type]
                            beta=beta, epsilon=0.2, epsilon_high=0.28, num_iterations=num_iterations, micro_batch_size=4)
    rewards = torch.tensor(_reward(completion_ids))
    advantages = group_advantages(rewards, 4, "group")
    assert advantages.abs().sum() > 0
    samples = [Sample(list(p), list(c), float(a)) for p, c, a in zip(prompt_ids, completion_ids, advantages)]
    optimizer = torch.optim.SGD(policy.model.parameters(), lr=0.5)
    GRPOEngine(policy, settings, optimizer).train_on(samples)

    ours = policy.model.state_dict()
    moved = max(float((trl_params[k] - initial[k]).abs().max()) for k in initial)
    assert moved > 1e-3  # the step did something
    for key in initial:
        assert torch.allclose(ours[key], trl_params[key], atol=1e-4, rtol=0), key
