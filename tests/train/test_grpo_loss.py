"""The GRPO loss against textbook formulas on hand-computed tensors: aggregations, clipping, k3 KL, advantages."""

from __future__ import annotations

import math

import pytest
import torch

from mobile_r1.train.grpo import batch_normaliser, group_advantages, grpo_loss

# two sequences: lengths 3 and 1 (mask), advantages +1 and -2
LOGPS = torch.tensor([[-1.0, -0.5, -2.0], [-0.3, 0.0, 0.0]])
MASK = torch.tensor([[1, 1, 1], [1, 0, 0]])
ADV = torch.tensor([1.0, -2.0])


def _loss(loss_type: str, old: torch.Tensor | None = None, ref: torch.Tensor | None = None, beta: float = 0.0,
          eps: float = 0.2, eps_high: float | None = None, max_len: int = 5) -> float:
    norm = batch_normaliser(MASK.sum(-1).tolist(), loss_type, max_len)  # type: ignore[arg-type]
    terms = grpo_loss(LOGPS, LOGPS if old is None else old, ref, ADV, MASK, loss_type=loss_type,  # type: ignore[arg-type]
                      epsilon=eps, epsilon_high=eps_high, beta=beta, normaliser=norm)
    return float(terms.loss)


def test_on_policy_aggregations_match_hand_computation() -> None:
    # ratio = 1, so every token's loss is -A
    assert _loss("grpo") == pytest.approx(((-1 * 3) / 3 + (2 * 1) / 1) / 2)  # 0.5
    assert _loss("dapo") == pytest.approx((-1 * 3 + 2) / 4)  # -0.25
    assert _loss("dr_grpo") == pytest.approx((-1 * 3 + 2) / (2 * 5))  # -0.1


def test_clipping_uses_epsilon_low_and_high() -> None:
    # old log-probs chosen so the ratios are 1.5 (seq 0, A>0) and 0.5 (seq 1, A<0)
    old = LOGPS - torch.tensor([[math.log(1.5)] * 3, [math.log(0.5), 0.0, 0.0]])
    # seq 0: min(1.5 * 1, clip(1.5, 0.8, 1.2) * 1) = 1.2 -> token loss -1.2
    # seq 1: min(0.5 * -2, clip(0.5, 0.8, 1.2) * -2) = min(-1, -1.6) = -1.6 -> token loss 1.6
    assert _loss("dapo", old=old) == pytest.approx((-1.2 * 3 + 1.6) / 4)
    # epsilon_high = 0.28 (DAPO's clip-higher) raises the cap of seq 0 to 1.28
    assert _loss("dapo", old=old, eps_high=0.28) == pytest.approx((-1.28 * 3 + 1.6) / 4)
    assert _loss("grpo", old=old, eps_high=0.28) == pytest.approx((-1.28 + 1.6) / 2)


def test_k3_kl_term() -> None:
    ref = LOGPS + torch.tensor([[0.1, -0.2, 0.0], [0.5, 0.0, 0.0]])
    k3 = lambda d: math.exp(d) - d - 1  # noqa: E731
    beta = 0.1
    kl = [[k3(0.1), k3(-0.2), 0.0], [k3(0.5)]]
    expected = ((-1 * 3 + beta * sum(kl[0])) + (2 + beta * kl[1][0])) / 4
    assert _loss("dapo", ref=ref, beta=beta) == pytest.approx(expected)
    terms = grpo_loss(LOGPS, LOGPS, ref, ADV, MASK, loss_type="dapo", epsilon=0.2, epsilon_high=None, beta=beta, normaliser=4)
    assert terms.kl_sum == pytest.approx(sum(kl[0]) + kl[1][0])


def test_micro_batches_sum_to_the_batch_loss() -> None:
    for loss_type in ("grpo", "dapo", "dr_grpo"):
        norm = batch_normaliser(MASK.sum(-1).tolist(), loss_type, 5)  # type: ignore[arg-type]
        parts = [
            grpo_loss(LOGPS[i : i + 1], LOGPS[i : i + 1], None, ADV[i : i + 1], MASK[i : i + 1], loss_type=loss_type,  # type: ignore[arg-type]
                      epsilon=0.2, epsilon_high=None, beta=0.0, normaliser=norm).loss
            for i in range(2)
        ]
        assert float(sum(parts)) == pytest.approx(_loss(loss_type))


def test_gradient_is_the_policy_gradient() -> None:
    # on-policy dapo: d loss / d logp_t = -A_i / total_tokens on unmasked tokens, 0 elsewhere
    logps = LOGPS.clone().requires_grad_(True)
    grpo_loss(logps, logps.detach(), None, ADV, MASK, loss_type="dapo", epsilon=0.2, epsilon_high=None, beta=0.0,
              normaliser=4).loss.backward()
    expected = torch.tensor([[-0.25, -0.25, -0.25], [0.5, 0.0, 0.0]])
    assert torch.allclose(logps.grad, expected)


def test_group_advantages() -> None:
    rewards = torch.tensor([1.0, 0.0, 0.0, 1.0, 3.0, 3.0, 3.0, 3.0])
    adv = group_advantages(rewards, 4, "group")
    std = torch.tensor([1.0, 0.0, 0.0, 1.0]).std()  # unbiased, 0.5774
    assert torch.allclose(adv[:4], torch.tensor([0.5, -0.5, -0.5, 0.5]) / (std + 1e-4))
    assert torch.allclose(adv[4:], torch.zeros(4))  # no variance, no signal
    assert torch.allclose(group_advantages(rewards, 4, "none")[:4], torch.tensor([0.5, -0.5, -0.5, 0.5]))
    batch = group_advantages(rewards, 4, "batch")
    assert torch.allclose(batch[:4], torch.tensor([0.5, -0.5, -0.5, 0.5]) / (rewards.std() + 1e-4))
