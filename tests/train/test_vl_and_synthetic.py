"""The GRPO engine on a VL model with screenshots, LoRA training, and the synthetic smoke data."""

from __future__ import annotations

import pytest
import torch
from PIL import Image

from mobile_r1.core.records import Episode
from mobile_r1.models import LoraSettings, load_policy
from mobile_r1.train.action_grpo import LabelledStepSource
from mobile_r1.train.data import PromptSettings, step_examples
from mobile_r1.train.grpo import GRPOEngine, GRPOSettings
from mobile_r1.train.synthetic import synthetic_episodes


@pytest.mark.slow
def test_grpo_step_on_tiny_vl_with_screenshots_and_lora(episodes: list[Episode]) -> None:
    for episode in episodes:
        for step in episode.steps:
            step.observation.screenshot = Image.new("RGB", step.observation.screen_size, (200, 40, 40))
    torch.manual_seed(0)
    policy = load_policy("tiny-vl", lora=LoraSettings(r=4, dropout=0.0))
    settings = PromptSettings(observation_mode="image", history_window=1, prescale=0.1, max_pixels=64 * 28 * 28)
    examples = step_examples(episodes, settings)[:2]
    grpo = GRPOSettings(num_generations=2, max_completion_length=6, beta=0.04, num_iterations=2, micro_batch_size=3)
    rollout = LabelledStepSource(examples, "inquire-mobile", "inquire").rollout(policy, grpo, 0)
    assert all(s.vision is not None and "pixel_values" in s.vision for s in rollout.samples)
    for i, s in enumerate(rollout.samples):  # force a learning signal whatever the random model wrote
        s.advantage = 1.0 if i % 2 else -1.0
    before = {n: p.detach().clone() for n, p in policy.model.named_parameters() if p.requires_grad}
    frozen = {n: p.detach().clone() for n, p in policy.model.named_parameters() if not p.requires_grad}
    optimizer = torch.optim.AdamW([p for p in policy.model.parameters() if p.requires_grad], lr=1e-2)
    metrics = GRPOEngine(policy, grpo, optimizer).train_on(rollout.samples)
    assert len(metrics) == 2 and metrics[0]["kl"] == 0.0 and metrics[1]["kl"] > 0.0
    after = dict(policy.model.named_parameters())
    assert any(not torch.equal(before[n], after[n]) for n in before)
    assert all(torch.equal(frozen[n], after[n]) for n in frozen)  # LoRA: the base stays put


def test_synthetic_episodes_are_deterministic_and_varied() -> None:
    a, b = synthetic_episodes(50, seed=3), synthetic_episodes(50, seed=3)
    assert [e.to_dict() for e in a] == [e.to_dict() for e in b]
    kinds = {e.steps[0].action.type.value for e in a}
    assert kinds == {"click", "type", "call_user"}
    for e in a:
        step = e.steps[0]
        if step.action.type.value == "click":
            x1, y1, x2, y2 = step.bbox
            assert x1 <= step.action.coordinate[0] <= x2 and y1 <= step.action.coordinate[1] <= y2
