"""The one sampling function: a batch of text prompts prefilled once per distinct prompt, without a padding mask,
gives the tokens each prompt gives alone and those of the plain left-padded `generate`; sampled tokens follow the
model's distribution after temperature and top-p."""

from __future__ import annotations

from typing import Any

import pytest
import torch
from transformers import LogitsProcessorList

from mobile_r1.models import load_policy
from mobile_r1.models.generation import (DrawProcessor, PromptInput, Sampling, draw, eos_ids, left_padded, prefilled,
                                         sample)
from mobile_r1.models.policy import unwrap


@pytest.fixture(scope="module")
def policy() -> Any:
    return load_policy("tiny-lm")


def prompts(policy: Any) -> list[PromptInput]:
    texts = ["open the settings app", "send the message to Li Lei and then go back to the home screen",
             " ".join(["a long screen listing"] * 40)]
    return [PromptInput(policy.tokenizer(t, add_special_tokens=False).input_ids) for t in texts]


def plain_generate(policy: Any, batch: dict[str, torch.Tensor], new: int, seed: int | None = None) -> list[list[int]]:
    """transformers' own generate on the left-padded batch, no prefill: what `sample` must agree with (sampled: the
    draw `sample` adds to greedy search, at temperature 1)."""
    model = unwrap(policy.model)
    options: dict[str, Any] = {"do_sample": False}
    if seed is not None:
        torch.manual_seed(seed)
        options["logits_processor"] = LogitsProcessorList([DrawProcessor(Sampling(temperature=1.0))])
    out = model.generate(**batch, max_new_tokens=new, eos_token_id=eos_ids(policy),
                         pad_token_id=policy.tokenizer.pad_token_id, **options)
    return out[:, batch["input_ids"].shape[1]:].tolist()


def test_a_prefilled_batch_decodes_as_each_prompt_alone_and_as_plain_generate(policy: Any) -> None:
    rows = prompts(policy)
    batch = left_padded(rows, policy)
    greedy = Sampling(temperature=0.0, max_new_tokens=8)
    together = sample(policy, batch, greedy)
    alone = [sample(policy, left_padded([p], policy), greedy)[0] for p in rows]  # one row: no prefill, no padding
    assert together == alone
    # the same tokens as transformers' generate on the padded batch, greedy and sampled from one seed
    eos = set(eos_ids(policy))
    plain = plain_generate(policy, batch, 8)
    assert [ids for ids in together] == [_cut(ids, eos) for ids in plain]
    sampled = sample(policy, batch, Sampling(temperature=1.0, max_new_tokens=8), seed=3)
    assert sampled == [_cut(ids, eos) for ids in plain_generate(policy, batch, 8, seed=3)]


def test_draw_follows_each_rows_distribution_and_never_draws_a_zero() -> None:
    torch.manual_seed(0)
    rows = 20_000
    probs = torch.tensor([[0.0, 0.5, 0.3, 0.0, 0.2]]).repeat(rows, 1)
    counts = torch.bincount(draw(probs), minlength=5).tolist()
    assert counts[0] == counts[3] == 0
    for index, p in ((1, 0.5), (2, 0.3), (4, 0.2)):
        assert abs(counts[index] - rows * p) < 4 * (rows * p * (1 - p)) ** 0.5, counts
    # a vocabulary of Qwen's size: half the mass on its last entry, the rest spread thinly
    wide = torch.full((200, 151_000), 0.5 / 150_999, dtype=torch.float32)
    wide[:, -1] = 0.5
    last = (draw(wide) == 150_999).float().mean().item()
    assert abs(last - 0.5) < 4 * (0.25 / 200) ** 0.5
    # a row's own generator: the same seed, the same draws
    same = [draw(probs[:50], torch.Generator().manual_seed(7)).tolist() for _ in range(2)]
    assert same[0] == same[1]


# the random tiny-lm's next-token logits span about 1.6, so only a low temperature gives a distribution whose shape a
# few thousand draws can check: at 0.1 the likeliest token holds about a third of the mass
@pytest.mark.parametrize("temperature,top_p", [(0.1, 1.0), (0.1, 0.5), (0.1, 0.8), (0.07, 1.0)])
def test_sampled_tokens_follow_the_models_distribution_after_temperature_and_top_p(policy: Any, temperature: float,
                                                                                top_p: float) -> None:
    prompt = prompts(policy)[1]
    with torch.no_grad():
        logits = unwrap(policy.model)(input_ids=torch.tensor([prompt.ids])).logits[0, -1].float()

    def expected(t: float) -> torch.Tensor:
        probs = torch.softmax(logits / t, dim=-1)
        if top_p < 1.0:  # the smallest set of the likeliest tokens holding top_p of the mass, renormalised
            ordered, order = probs.sort(descending=True)
            keep = ordered.cumsum(0) - ordered < top_p
            probs = torch.zeros_like(probs).scatter(0, order[keep], ordered[keep])
            probs /= probs.sum()
        return probs

    rows = 3000
    batch = left_padded([prompt], policy, repeat=rows)
    firsts = torch.tensor([ids[0] for ids in sample(policy, batch, Sampling(temperature, top_p, 1), seed=1)])
    want, wider = expected(temperature), expected(temperature * 1.5)
    assert want[firsts].min().item() > 0  # nothing outside the nucleus
    top = want.topk(10).indices
    for tokens in (top[:1], top):  # the likeliest token, and the ten likeliest together
        p = want[tokens].sum().item()
        seen = torch.isin(firsts, tokens).float().mean().item()
        sigma = (p * (1 - p) / rows) ** 0.5
        assert abs(seen - p) <= 4 * sigma, (tokens.tolist(), seen, p)
    p_wider = wider[top[:1]].sum().item()
    # another temperature moves the likeliest token's share by far more than the 4 sigma allowed above
    assert abs(want[top[:1]].sum().item() - p_wider) > 12 * (p_wider * (1 - p_wider) / rows) ** 0.5


def _cut(ids: list[int], ends: set[int]) -> list[int]:
    cut = next((i for i, t in enumerate(ids) if t in ends), None)
    return ids[: cut + 1] if cut is not None else ids


def test_the_cache_holds_each_row_alone_at_the_right_end_with_zeros_under_the_padding(policy: Any) -> None:
    rows = prompts(policy)
    batch = left_padded(rows, policy)
    model = unwrap(policy.model)
    cache = prefilled(model, batch, policy.tokenizer.pad_token_id, room=6)
    assert cache is not None
    width = batch["input_ids"].shape[1]
    for r, p in enumerate(rows):
        n = len(p.ids) - 1
        own = prefilled(model, {"input_ids": torch.tensor([p.ids + p.ids[-1:]]),
                                "attention_mask": torch.ones(1, len(p.ids) + 1, dtype=torch.long)},
                        policy.tokenizer.pad_token_id, room=0)  # the row alone, one token longer: its n + 1 keys
        assert own is not None
        for layer, alone in zip(cache.layers, own.layers):
            assert layer.keys.shape[2] == width - 1 + 6  # room for six new tokens, not yet written
            assert torch.count_nonzero(layer.keys[r, :, : width - 1 - n]) == 0
            assert torch.count_nonzero(layer.keys[r, :, width - 1 :]) == 0
            torch.testing.assert_close(layer.keys[r, :, width - 1 - n : width - 1], alone.keys[0, :, :n], rtol=1e-4,
                                       atol=1e-5)
            torch.testing.assert_close(layer.values[r, :, width - 1 - n : width - 1], alone.values[0, :, :n],
                                       rtol=1e-4, atol=1e-5)


def test_each_distinct_prompt_is_prefilled_once(policy: Any) -> None:
    """Stage 2 samples G completions of each prompt: the prefill runs each distinct prompt once."""
    rows = prompts(policy)[:2]
    batch = left_padded(rows, policy, repeat=4)  # 8 rows, 2 distinct prompts
    seen: list[tuple[int, ...]] = []
    model = unwrap(policy.model)
    hook = model.register_forward_pre_hook(lambda _m, _a, kw: seen.append(tuple(kw["input_ids"].shape)),
                                           with_kwargs=True)
    try:
        out = sample(policy, batch, Sampling(temperature=0.0, max_new_tokens=4))
    finally:
        hook.remove()
    longest = max(len(p.ids) for p in rows)
    assert seen[0] == (2, longest - 1)  # the prefill: two rows, each prompt but its last token
    assert seen[1] == (8, 1)  # then generate: every row's last prompt token, on the cache
    assert out[:4] == [out[0]] * 4 and out[4:] == [out[4]] * 4


def test_batches_it_cannot_prefill_are_left_to_generate(policy: Any) -> None:
    model = unwrap(policy.model)
    pad = policy.tokenizer.pad_token_id
    one_token = {"input_ids": torch.tensor([[5], [6]]), "attention_mask": torch.ones(2, 1, dtype=torch.long)}
    assert prefilled(model, one_token, pad, 4) is None
    right_padded = {"input_ids": torch.tensor([[5, 6, pad], [5, 6, 7]]),
                    "attention_mask": torch.tensor([[1, 1, 0], [1, 1, 1]])}
    assert prefilled(model, right_padded, pad, 4) is None
    with_images = {**left_padded(prompts(policy), policy), "pixel_values": torch.zeros(1, 3)}
    assert prefilled(model, with_images, pad, 4) is None
