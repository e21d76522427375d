"""Stage 1 SFT: prompts in a dialect, loss on assistant tokens only, and a short run that lowers the loss."""

from __future__ import annotations

from collections import Counter

import json
import math
from pathlib import Path

import pytest
import torch
from PIL import Image

from mobile_r1.core.errors import DataError
from mobile_r1.core.formats import save_episodes
from mobile_r1.core.geometry import Frame
from mobile_r1.core.records import Episode
from mobile_r1.models import load_policy
from mobile_r1.train.config import TrainConfig
from mobile_r1.train.data import PromptSettings, repeat_by_action, step_examples
from mobile_r1.train.run import train
from mobile_r1.train.sft import IGNORE, collate_sft, encode_example


def _unmasked_text(policy, item) -> str:
    return policy.tokenizer.decode([t for t, lab in zip(item.input_ids, item.labels) if lab != IGNORE], skip_special_tokens=False)


@pytest.mark.parametrize("dialect", ["inquire", "mobile-r1", "qwen2.5vl"])
def test_only_the_assistant_text_and_end_token_are_trained(episodes: list[Episode], dialect: str) -> None:
    policy = load_policy("tiny-lm")
    if dialect != "inquire":  # only InquireMobile has call_user: such steps are left out and counted
        skipped: Counter[str] = Counter()
        kept = step_examples(episodes, PromptSettings(dialect=dialect, observation_mode="text"), skipped)
        assert skipped == Counter({f"call_user: not in the {dialect} dialect": 1})
        assert len(kept) == sum(len(e.steps) for e in episodes) - 1
        episodes = [e for e in episodes if e.id != "pay"]
    examples = step_examples(episodes, PromptSettings(dialect=dialect, observation_mode="text", history_window=2))
    assert len(examples) == sum(len(e.steps) for e in episodes)
    for example in examples:
        item = encode_example(policy, example)
        assert _unmasked_text(policy, item) == example.target + "<|im_end|>"
        first = item.labels.index(next(t for t in item.labels if t != IGNORE))
        prompt = policy.tokenizer.decode(item.input_ids[:first], skip_special_tokens=False)
        assert prompt.endswith("<|im_start|>assistant\n") and example.target not in prompt
    # the label coordinates are in the model frame (smart_resize of the screen)
    click = examples[0]
    model = Frame.qwen(1080, 2400, max_pixels=PromptSettings().max_pixels)
    x, y = Frame.screen(1080, 2400).map((540, 270), model)
    assert click.model_size == (model.width, model.height) and click.model_size[0] < 1080
    assert click.label.coordinate == (x, y) and f'"coordinate": [{x}, {y}]' in click.target


def test_thought_styles_name_the_target_as_the_prompt_lists_it(episodes: list[Episode]) -> None:
    expert = step_examples(episodes[:1], PromptSettings(dialect="compact"))
    grounded = step_examples(episodes[:1], PromptSettings(dialect="compact", thought="grounded"))
    brief = step_examples(episodes[:1], PromptSettings(dialect="compact", thought="brief"))
    first = grounded[0]
    line = '"Mom" (' + ", ".join(str(v) for v in first.label.coordinate) + ")"
    assert line in first.messages[-1]["content"]  # the same text as the screen listing the model reads
    assert f"The chat list is open; Mom is listed. I tap Mom to open the chat. Target: {line}" in first.target
    assert f"<think>\nclick {line}\n</think>" in brief[0].target
    assert "Target:" not in expert[0].target and "The chat list is open" in expert[0].target
    # typing has no target point: grounded keeps the expert's thought, brief writes the step's description
    assert grounded[1].target == expert[1].target
    assert "<think>\nType hello\n</think>" in brief[1].target
    # dialects without a point listing keep the expert's thought
    assert [e.target for e in step_examples(episodes[:1], PromptSettings(dialect="inquire", thought="grounded"))] == \
        [e.target for e in step_examples(episodes[:1], PromptSettings(dialect="inquire"))]


def test_history_actions_are_in_the_model_frame_as_agents_show_them(episodes: list[Episode]) -> None:
    from mobile_r1.agents.base import ModelView
    from mobile_r1.agents import AgentRequest

    settings = PromptSettings(dialect="inquire", observation_mode="text", history_window=2)
    example = step_examples(episodes[:1], settings)[2]
    view = ModelView.create("inquire", observation_mode="text", frame="qwen", max_pixels=settings.max_pixels,
                            history_window=2)
    episode = episodes[0]
    messages, _ = view.prompt(AgentRequest(episode.instruction, episode.steps[2].observation, episode.steps[:2]))
    assert messages == example.messages


def test_batched_loss_equals_each_example_scored_alone_with_full_logits(episodes: list[Episode]) -> None:
    # collate_sft lines targets up at one column and computes logits from there only; the loss must not change
    from mobile_r1.train.sft import token_loss_sum

    policy = load_policy("tiny-lm")
    examples = step_examples(episodes, PromptSettings(dialect="inquire", history_window=2))[:4]
    items = [encode_example(policy, e) for e in examples]
    assert len({item.labels.index(next(t for t in item.labels if t != IGNORE)) for item in items}) > 1  # prompts differ
    batch = collate_sft(items, policy.tokenizer.pad_token_id, torch.device("cpu"))
    starts = [(row != IGNORE).nonzero()[0].item() for row in batch["labels"]]
    assert len(set(starts)) == 1
    with torch.no_grad():
        total, count = token_loss_sum(policy.model, batch)
        alone = 0.0
        for item in items:
            ids = torch.tensor([item.input_ids])
            logits = policy.model(input_ids=ids).logits[0, :-1]
            alone += float(torch.nn.functional.cross_entropy(logits, torch.tensor(item.labels[1:]), ignore_index=IGNORE,
                                                             reduction="sum"))
    assert count == sum(sum(t != IGNORE for t in item.labels) for item in items)
    assert float(total) == pytest.approx(alone, rel=1e-5)


@pytest.mark.parametrize("prompt_weight", [0.0, 0.3])
def test_padding_to_a_multiple_changes_the_width_not_the_loss(episodes: list[Episode], prompt_weight: float) -> None:
    from mobile_r1.train.sft import token_loss_sum

    policy = load_policy("tiny-lm")
    items = [encode_example(policy, e) for e in step_examples(episodes, PromptSettings(dialect="inquire"))[:3]]
    plain = collate_sft(items, policy.tokenizer.pad_token_id, torch.device("cpu"))
    padded = collate_sft(items, policy.tokenizer.pad_token_id, torch.device("cpu"), multiple=32)
    assert plain["input_ids"].shape[1] % 32 != 0  # else the test shows nothing
    assert padded["input_ids"].shape[1] % 32 == 0 and 0 < padded["input_ids"].shape[1] - plain["input_ids"].shape[1] < 32
    assert torch.equal(padded["input_ids"][:, -plain["input_ids"].shape[1]:], plain["input_ids"])  # extra pads on the left
    with torch.no_grad():
        a, n = token_loss_sum(policy.model, plain, prompt_weight)
        b, m = token_loss_sum(policy.model, padded, prompt_weight)
    assert n == m
    assert float(b) == pytest.approx(float(a), rel=1e-5)


def test_shared_prefix_is_what_every_prompt_starts_with_and_leaves_each_a_prompt_token(episodes: list[Episode]) -> None:
    from mobile_r1.train.sft import SFTItem, shared_prefix_length

    item = lambda ids, n_prompt: SFTItem(ids, [IGNORE] * n_prompt + ids[n_prompt:], None)  # noqa: E731
    assert shared_prefix_length([item([1, 2, 3, 4, 9, 9], 5), item([1, 2, 3, 5, 9], 4)]) == 3
    assert shared_prefix_length([item([1, 2, 3, 4, 9, 9], 5), item([1, 2, 3, 5, 9], 4)], multiple=2) == 2
    assert shared_prefix_length([item([1, 2, 3, 9], 3), item([1, 2, 3, 4, 9], 4)]) == 2  # the shorter prompt keeps one
    assert shared_prefix_length([item([7, 2, 9], 2), item([1, 2, 9], 2)]) == 0

    policy = load_policy("tiny-lm")
    items = [encode_example(policy, e) for e in step_examples(episodes, PromptSettings(dialect="inquire"))[:3]]
    shared = collate_sft(items, policy.tokenizer.pad_token_id, torch.device("cpu"), share_prefix=True)
    n = shared["prefix_ids"].shape[1]
    system = policy.tokenizer.apply_chat_template([{"role": "system", "content": "x"}], tokenize=False).split("x")[0]
    assert n >= len(policy.tokenizer(system)["input_ids"])  # at least the system message's opening
    assert shared["prefix_ids"][0].tolist() == items[0].input_ids[:n]
    for row, mask, item in zip(shared["input_ids"], shared["attention_mask"], items):
        assert row[mask > 0].tolist() == item.input_ids[n:]
    alone = collate_sft(items[:1], policy.tokenizer.pad_token_id, torch.device("cpu"), share_prefix=True)
    assert "prefix_ids" not in alone  # one example: nothing to share


@pytest.mark.parametrize(("prompt_weight", "multiple", "lora"), [
    (0.0, 1, False),
    pytest.param(0.3, 1, False, marks=pytest.mark.slow),  # the prompt loss, padding and LoRA: gradients of the whole
    pytest.param(0.3, 32, False, marks=pytest.mark.slow),  # model compared, seconds each
    pytest.param(0.3, 32, True, marks=pytest.mark.slow),
])
def test_a_shared_prefix_gives_the_same_loss_and_gradients(episodes: list[Episode], prompt_weight: float,
                                                           multiple: int, lora: bool, set_lora_b) -> None:  # type: ignore[no-untyped-def]
    from mobile_r1.models import LoraSettings
    from mobile_r1.train.sft import token_loss_sum

    torch.manual_seed(0)  # lora_A is drawn from the global generator
    policy = load_policy("tiny-lm", lora=LoraSettings(r=4, dropout=0.0) if lora else None)
    if lora:  # a peft model takes the cache through its wrapper
        set_lora_b(policy.model, 0.05, seed=0)
    items = [encode_example(policy, e) for e in step_examples(episodes, PromptSettings(dialect="inquire"))[1:5]]
    results = []
    for share in (False, True):
        batch = collate_sft(items, policy.tokenizer.pad_token_id, torch.device("cpu"), multiple, share_prefix=share)
        assert ("prefix_ids" in batch) == share
        policy.model.zero_grad()
        loss, count = token_loss_sum(policy.model, batch, prompt_weight)
        loss.backward()
        results.append((float(loss.detach()), count, [p.grad.clone() for p in policy.model.parameters() if p.requires_grad]))
    (whole, n, grads), (shared, m, shared_grads) = results
    assert n == m and shared == pytest.approx(whole, rel=1e-5)
    for g, h in zip(grads, shared_grads):
        # LoRA gradients are products of two small matrices: the two paths' rounding differs by ~1e-5 of the largest
        scale = (1e-5 if lora else 1e-6) * float(g.abs().max())
        assert torch.allclose(g, h, rtol=1e-4, atol=scale)


def test_prompt_loss_weight_adds_the_prompt_tokens_language_model_loss(episodes: list[Episode]) -> None:
    from mobile_r1.train.sft import token_loss_sum

    policy = load_policy("tiny-lm")
    items = [encode_example(policy, e) for e in step_examples(episodes, PromptSettings(dialect="inquire"))[:3]]
    batch = collate_sft(items, policy.tokenizer.pad_token_id, torch.device("cpu"))
    with torch.no_grad():
        target, count = token_loss_sum(policy.model, batch)
        weighted, same_count = token_loss_sum(policy.model, batch, prompt_weight=0.25)
        prompt = 0.0
        for item in items:
            n = item.labels.index(next(t for t in item.labels if t != IGNORE))  # prompt tokens; the first is never predicted
            logits = policy.model(input_ids=torch.tensor([item.input_ids])).logits[0, : n - 1]
            prompt += float(torch.nn.functional.cross_entropy(logits, torch.tensor(item.input_ids[1:n]), reduction="sum"))
    assert same_count == count
    assert float(weighted) == pytest.approx(float(target) + 0.25 * prompt, rel=1e-5)
    assert prompt > 0


def test_history_window_limits_the_prompt(episodes: list[Episode]) -> None:
    last = lambda w: step_examples(episodes[:1], PromptSettings(history_window=w))[3].messages[-1]["content"]  # noqa: E731
    text0, text3 = json.dumps(last(0)), json.dumps(last(3))
    assert "Open the chat with Mom" not in text0 and "Open the chat with Mom" in text3


def test_image_prompts_mask_image_tokens_and_prescale(episodes: list[Episode]) -> None:
    for episode in episodes:
        for step in episode.steps:
            step.observation.screenshot = Image.new("RGB", step.observation.screen_size, (30, 90, 200))
    policy = load_policy("tiny-vl")
    settings = PromptSettings(dialect="inquire", observation_mode="image", history_window=1, prescale=0.1, max_pixels=64 * 28 * 28)
    examples = step_examples(episodes[:1], settings)
    example = examples[1]
    frame = Frame.qwen(1080, 2400, prescale=0.1, max_pixels=64 * 28 * 28)
    assert len(example.images) == 2 and example.images[0].size == example.model_size == (frame.width, frame.height)
    item = encode_example(policy, example)
    assert _unmasked_text(policy, item) == example.target + "<|im_end|>"
    pad = policy.tokenizer.convert_tokens_to_ids("<|image_pad|>")
    assert item.input_ids.count(pad) == int(item.vision["image_grid_thw"].prod(-1).sum()) // 4
    batch = collate_sft([item, encode_example(policy, examples[2])], policy.tokenizer.pad_token_id, torch.device("cpu"))
    assert policy.model(**{k: v for k, v in batch.items() if k != "labels"}).logits.shape[0] == 2


def write_config(tmp_path: Path, episodes: list[Episode], **sections: dict) -> TrainConfig:
    data_file = save_episodes(tmp_path / "data", episodes)
    raw = {
        "model": {"name": "tiny-lm"},
        "data": {"train": [str(data_file)], "eval": [str(data_file)], "dialect": "inquire", "history_window": 1,
                 "eval_max_steps": 2},
        "optim": {"lr": 3e-3, "scheduler": "constant"},
        "sft": {"epochs": 3, "batch_size": 4, "micro_batch_size": 2, "eval_max_new_tokens": 48},
        "run": {"output_dir": str(tmp_path / "run"), "save_every": 2, "tensorboard": True},
    }
    for name, values in sections.items():
        raw[name].update(values)
    return TrainConfig.model_validate(raw)


def _records(run_dir: Path, kind: str) -> list[dict]:
    lines = (run_dir / "metrics.jsonl").read_text().splitlines()
    return [r for r in map(json.loads, lines) if r["kind"] == kind]


@pytest.mark.slow
def test_sft_run_lowers_the_loss_and_writes_the_run_directory(tmp_path: Path, episodes: list[Episode]) -> None:
    config = write_config(tmp_path, episodes, run={"max_steps": 6})
    result = train(config, "sft", progress=False)
    run = result.run_dir
    losses = [r["loss"] for r in _records(run, "train")]
    assert len(losses) == 6 and losses[-1] < losses[0]
    evals = _records(run, "eval")
    assert [e["step"] for e in evals] == [0, 6] and evals[-1]["eval_loss"] < evals[0]["eval_loss"]
    assert (run / "config.yaml").is_file() and any((run / "tensorboard").iterdir())
    assert [p.name for p in sorted((run / "checkpoints").iterdir())] == ["step-2", "step-4"]
    final = load_policy(str(run / "final"))
    trained = dict(final.model.named_parameters())
    assert not torch.equal(trained["model.embed_tokens.weight"], dict(load_policy("tiny-lm").model.named_parameters())["model.embed_tokens.weight"])


@pytest.mark.slow
def test_action_repeats_show_rare_decisions_more_often_and_lengthen_the_epoch(tmp_path: Path, episodes: list[Episode]) -> None:
    examples = step_examples(episodes, PromptSettings(dialect="compact", observation_mode="text"))
    kinds = [e.label.type.value for e in examples]
    assert "click" in kinds and any(k != "click" for k in kinds)
    repeated = repeat_by_action(examples, {"click": 3})
    assert [e.label.type.value for e in repeated].count("click") == 3 * kinds.count("click")
    assert len(repeated) == len(examples) + 2 * kinds.count("click")
    assert [e for e in repeated if e.label.type.value != "click"] == [e for e in examples if e.label.type.value != "click"]

    plain = train(write_config(tmp_path / "a", episodes, sft={"epochs": 1}, data={"eval_max_steps": 0}), "sft", progress=False)
    more = train(write_config(tmp_path / "b", episodes, sft={"epochs": 1, "action_repeats": {"click": 3}},
                              data={"eval_max_steps": 0}), "sft", progress=False)
    n_plain, n_more = len(_records(plain.run_dir, "train")), len(_records(more.run_dir, "train"))
    inquire = step_examples(episodes, PromptSettings(dialect="inquire", observation_mode="text"))
    clicks = sum(1 for e in inquire if e.label.type.value == "click")
    assert (n_plain, n_more) == (-(-len(inquire) // 4), -(-(len(inquire) + 2 * clicks) // 4))
    with pytest.raises(ValueError, match="unknown action type 'clik'"):
        write_config(tmp_path / "c", episodes, sft={"action_repeats": {"clik": 2}})


@pytest.mark.slow
def test_prompt_loss_weight_trains_a_text_model_and_is_refused_for_image_prompts(tmp_path: Path, episodes: list[Episode]) -> None:
    config = write_config(tmp_path / "text", episodes, sft={"prompt_loss_weight": 0.1}, run={"max_steps": 2})
    result = train(config, "sft", progress=False)
    assert len(_records(result.run_dir, "train")) == 2 and (result.run_dir / "final").is_dir()
    with pytest.raises(ValueError, match="prompt_loss_weight is for text observations"):
        write_config(tmp_path / "image", episodes, data={"observation_mode": "image"}, sft={"prompt_loss_weight": 0.1})


@pytest.mark.slow
def test_share_prompt_prefix_trains_as_the_whole_prompts_do(tmp_path: Path, episodes: list[Episode],
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    from mobile_r1.train import sft

    shared: list[bool] = []
    real = sft.token_loss_sum

    def recording(model, batch, prompt_weight=0.0):
        shared.append("prefix_ids" in batch)
        return real(model, batch, prompt_weight)

    monkeypatch.setattr(sft, "token_loss_sum", recording)
    losses = {}
    for share in (False, True):
        config = write_config(tmp_path / str(share), episodes, data={"eval_max_steps": 0}, run={"max_steps": 3},
                              sft={"share_prompt_prefix": share, "prompt_loss_weight": 0.2})
        losses[share] = [r["loss"] for r in _records(train(config, "sft", progress=False).run_dir, "train")]
    assert shared == [False] * 6 + [True] * 6  # 3 steps of 2 micro-batches each
    assert losses[True] == pytest.approx(losses[False], rel=1e-4) and len(losses[True]) == 3


@pytest.mark.slow
def test_pad_to_multiple_of_reaches_every_training_batch(tmp_path: Path, episodes: list[Episode],
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    from mobile_r1.train import sft

    widths: list[int] = []
    real = sft.token_loss_sum

    def recording(model, batch, prompt_weight=0.0):
        widths.append(batch["input_ids"].shape[1])
        return real(model, batch, prompt_weight)

    monkeypatch.setattr(sft, "token_loss_sum", recording)
    config = write_config(tmp_path, episodes, sft={"pad_to_multiple_of": 24}, data={"eval_max_steps": 0},
                          run={"max_steps": 3})
    train(config, "sft", progress=False)
    assert len(widths) == 6 and all(w % 24 == 0 for w in widths)  # 3 steps of 2 micro-batches
    with pytest.raises(ValueError, match="pad_to_multiple_of"):
        write_config(tmp_path / "bad", episodes, sft={"pad_to_multiple_of": 0})


def test_attention_kernel_is_switched_for_the_block_and_gives_the_same_loss(episodes: list[Episode]) -> None:
    from mobile_r1.train.sft import token_loss_sum

    policy = load_policy("tiny-lm")
    model = policy.model
    assert model.config._attn_implementation == "sdpa"
    items = [encode_example(policy, e) for e in step_examples(episodes, PromptSettings(dialect="inquire"))[:4]]
    batch = collate_sft(items, policy.tokenizer.pad_token_id, torch.device("cpu"), 8)
    losses = {}
    for kernel in (None, "eager"):
        with policy.attention(kernel):
            losses[kernel] = float(token_loss_sum(model, batch, 0.1)[0])
            assert model.config._attn_implementation == (kernel or "sdpa")
        assert model.config._attn_implementation == "sdpa"  # restored after the block
    assert losses["eager"] == pytest.approx(losses[None], rel=1e-5)
    with pytest.raises(ZeroDivisionError), policy.attention("eager"):  # restored when the block fails too
        1 / 0
    assert model.config._attn_implementation == "sdpa"


@pytest.mark.slow
def test_sft_attention_setting_reaches_the_training_passes_only(tmp_path: Path, episodes: list[Episode],
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    from mobile_r1.train import sft

    kernels: list[str] = []
    real = sft.token_loss_sum

    def recording(model, batch, prompt_weight=0.0):
        kernels.append(model.config._attn_implementation)
        return real(model, batch, prompt_weight)

    monkeypatch.setattr(sft, "token_loss_sum", recording)
    config = write_config(tmp_path, episodes, sft={"attention": "eager"}, run={"max_steps": 1},
                          data={"eval_max_steps": 2})
    result = train(config, "sft", progress=False)
    # the held-out loss of 2 steps before and after training with the model's own kernel; one step of two
    # micro-batches in eager between them
    assert kernels == ["sdpa", "sdpa", "eager", "eager", "sdpa", "sdpa"]
    assert (result.run_dir / "final" / "config.json").is_file()
    with pytest.raises(ValueError, match="attention"):
        write_config(tmp_path / "bad", episodes, sft={"attention": "flash"})


@pytest.mark.slow
def test_restated_thought_writes_the_task_in_its_first_train_phrasing(tmp_path: Path, episodes: list[Episode]) -> None:
    from mobile_r1.core.formats import load_episodes
    from mobile_r1.env.demos import generate
    from mobile_r1.tasks.spec import fill, load_specs

    generate("nav-sim", "test", 3, tmp_path / "gen", screenshots=False)
    generated = load_episodes(tmp_path / "gen" / "episodes.jsonl")
    specs = {s.id: s for s in load_specs()}
    settings = PromptSettings(dialect="compact", observation_mode="text", thought="restated")
    restated = step_examples(generated, settings)
    brief = step_examples(generated, PromptSettings(dialect="compact", observation_mode="text", thought="brief"))
    assert len(restated) == len(brief) == sum(len(e.steps) for e in generated)
    for episode in generated:
        spec = specs[episode.meta["task"]]
        first = fill(spec.templates.train[0], episode.meta["params"])
        assert episode.meta["restated"] == first
        assert episode.instruction != first  # a test phrasing: the model learns to restate what it has not seen
    for r, b in zip(restated, brief):
        episode = next(e for e in generated if e.id == r.episode_id)
        # the restatement, then the brief thought; the prompt and the tool call stay as they were
        assert r.target == b.target.replace("<think>\n", f"<think>\nTask: {episode.meta['restated']}\n", 1)
        assert r.messages == b.messages and r.label == b.label
    with pytest.raises(DataError, match="restated"):  # episodes without the phrasing (converted data) are refused
        step_examples(episodes, settings)


@pytest.mark.slow
def test_instruction_dropout_leaves_out_phrasing_words_and_keeps_every_value(tmp_path: Path,
                                                                            episodes: list[Episode]) -> None:
    from dataclasses import replace

    from mobile_r1.core.formats import load_episodes
    from mobile_r1.env.demos import generate
    from mobile_r1.tasks.spec import fill
    from mobile_r1.train.data import drop_instruction_words

    generate("nav-sim", "train", 18, tmp_path / "gen", screenshots=False)
    generated = load_episodes(tmp_path / "gen" / "episodes.jsonl")
    assert drop_instruction_words(generated, 0.0, 0) is generated
    dropped = drop_instruction_words(generated, 0.5, 0)
    assert [e.id for e in dropped] == [e.id for e in generated]
    changed = 0
    for before, after in zip(generated, dropped):
        assert fill(before.meta["phrasing"], before.meta["params"]) == before.instruction
        assert after.steps == before.steps and after.meta == before.meta  # only the instruction changes
        for name, value in before.meta["params"].items():
            if "{" + name + "}" in before.meta["phrasing"]:
                assert str(value) in after.instruction  # the values the actions copy always stay
        words, kept = before.instruction.split(), after.instruction.split()
        it = iter(words)
        assert all(w in it for w in kept)  # what is left is the instruction with words left out, in order
        changed += len(kept) < len(words)
    assert changed >= 9  # half the phrasing words of 18 instructions: nearly all of them lose one
    assert [e.instruction for e in drop_instruction_words(generated, 0.5, 0)] == [e.instruction for e in dropped]
    assert [e.instruction for e in drop_instruction_words(generated, 0.5, 1)] != [e.instruction for e in dropped]
    with pytest.raises(DataError, match="meta\\['phrasing'\\]"):  # converted data lacks the phrasing
        drop_instruction_words(episodes, 0.25, 0)
    wrong = replace(generated[0], instruction="Something else")
    with pytest.raises(DataError, match="not its instruction"):
        drop_instruction_words([wrong], 0.25, 0)


@pytest.mark.slow
def test_instruction_dropout_reaches_the_training_prompts_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from mobile_r1.core.formats import load_episodes
    from mobile_r1.env.demos import generate
    from mobile_r1.train import data as data_module

    generate("nav-sim", "train", 6, tmp_path / "gen", screenshots=False)
    generated = load_episodes(tmp_path / "gen" / "episodes.jsonl")
    seen: list[list[str]] = []
    real = data_module.step_examples

    def recording(episodes, settings):
        seen.append([e.instruction for e in episodes])
        return real(episodes, settings)

    monkeypatch.setattr(data_module, "step_examples", recording)
    config = write_config(tmp_path, generated, data={"dialect": "compact", "instruction_dropout": 0.5},
                          run={"max_steps": 1})
    train(config, "sft", progress=False)
    full = [e.instruction for e in generated]
    train_seen, eval_seen = seen
    assert eval_seen == full  # held-out prompts keep the whole instruction
    assert len(train_seen) == len(full) and train_seen != full
    assert all(len(t.split()) <= len(f.split()) for t, f in zip(train_seen, full))
    with pytest.raises(ValueError, match="instruction_dropout"):
        write_config(tmp_path / "bad", generated, data={"instruction_dropout": 1.0})


@pytest.mark.slow
def test_experiment_trackers_through_accelerate_offline(tmp_path: Path, episodes: list[Episode],
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WANDB_MODE", "offline")
    monkeypatch.delenv("MLFLOW_TRACKING_URI", raising=False)
    monkeypatch.chdir(tmp_path)  # nothing may land in the working directory
    config = write_config(tmp_path, episodes, run={"max_steps": 2, "report_to": ["tensorboard", "wandb", "mlflow"],
                                                   "project": "tracked"})
    run = train(config, "sft", progress=False).run_dir
    assert any((run / "tensorboard").rglob("events.out.tfevents*"))
    assert list((run / "wandb").glob("offline-run-*")), "wandb writes its offline run under the run folder"
    import mlflow

    mlflow.set_tracking_uri((run / "mlruns").resolve().as_uri())
    experiment = mlflow.get_experiment_by_name("tracked")
    assert experiment is not None
    runs = mlflow.search_runs([experiment.experiment_id], output_format="list")
    assert len(runs) == 1 and "train/loss" in runs[0].data.metrics and runs[0].data.params["optim.lr"] == "0.003"
    history = mlflow.MlflowClient().get_metric_history(runs[0].info.run_id, "train/loss")
    assert [m.step for m in history] == [1, 2]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data", "run"]


def test_an_unknown_tracker_is_a_config_error(tmp_path: Path, episodes: list[Episode]) -> None:
    with pytest.raises(Exception, match="report_to"):
        write_config(tmp_path, episodes, run={"report_to": ["neptune"]})


@pytest.mark.slow
def test_progress_is_a_line_per_interval_when_the_console_is_not_a_terminal(tmp_path: Path, episodes: list[Episode],
                                                                            capsys: pytest.CaptureFixture[str]) -> None:
    config = write_config(tmp_path, episodes, run={"max_steps": 3, "tensorboard": False})
    train(config, "sft", progress=True)
    err = capsys.readouterr().err
    assert "sft: 3/3 (" in err and "loss=" in err  # the last line, printed when the stage ends


class _NanGradient(torch.autograd.Function):
    """Passes its input on unchanged and sends a NaN gradient back: a micro-batch that overflows in backward only."""

    @staticmethod
    def forward(ctx, x):  # type: ignore[override]
        return x.clone()

    @staticmethod
    def backward(ctx, grad):  # type: ignore[override]
        return grad * float("nan")


@pytest.mark.slow
def test_a_step_whose_gradient_is_not_finite_is_skipped_and_the_run_goes_on(
    tmp_path: Path, episodes: list[Episode], monkeypatch: pytest.MonkeyPatch
) -> None:
    import mobile_r1.train.sft as sft

    calls = {"n": 0}
    real = sft.token_loss_sum

    def overflowing_on_step_2(model, batch, prompt_weight=0.0):
        loss, count = real(model, batch, prompt_weight)
        calls["n"] += torch.is_grad_enabled()  # training passes only (the held-out loss runs without a graph)
        return (_NanGradient.apply(loss) if calls["n"] == 2 else loss), count  # micro_batch = batch: call n is step n

    monkeypatch.setattr(sft, "token_loss_sum", overflowing_on_step_2)
    config = write_config(tmp_path, episodes, run={"max_steps": 3, "save_every": 1},
                          sft={"batch_size": 4, "micro_batch_size": 4})
    run = train(config, "sft", progress=False).run_dir
    assert [r["nonfinite_grad"] for r in _records(run, "train")] == [0.0, 1.0, 0.0]
    assert all(math.isfinite(r["loss"]) for r in _records(run, "train"))

    def weights(step: int) -> dict[str, torch.Tensor]:
        return torch.load(run / "checkpoints" / f"step-{step}" / "state.pt", weights_only=False)["model"]

    after_1, after_2 = weights(1), weights(2)
    assert all(torch.equal(after_1[k], after_2[k]) for k in after_1)  # the skipped step left the weights as they were
    final = dict(load_policy(str(run / "final")).model.named_parameters())
    assert all(torch.isfinite(p).all() for p in final.values())
    assert not torch.equal(final["model.embed_tokens.weight"], after_2["model.embed_tokens.weight"])  # step 3 trained


@pytest.mark.slow
def test_target_words_names_a_list_entry_by_its_words_before_its_numbers(tmp_path: Path) -> None:
    from mobile_r1.core.formats import load_episodes
    from mobile_r1.env.demos import generate
    from mobile_r1.train.data import target_words

    assert target_words('"Dentist +1 555 884 3116" (336, 752)') == '"Dentist" (336, 752)'
    assert target_words('"Zen Throw Pillow $141.60" focused (498, 1007)') == '"Zen Throw Pillow" focused (498, 1007)'
    # nothing to cut: no digit, a label that starts with one, no label
    for line in ('"Message" edit (250, 1356)', '"12:30 alarm" (10, 20)', "(44, 99)"):
        assert target_words(line) == line

    generate("nav-sim", "train", 18, tmp_path / "gen", screenshots=False)
    generated = load_episodes(tmp_path / "gen" / "episodes.jsonl")
    base = dict(dialect="compact", observation_mode="text", thought="restated")
    line = step_examples(generated, PromptSettings(**base))
    words = step_examples(generated, PromptSettings(**base, target_name="words"))
    assert len(line) == len(words)
    changed = 0
    for a, b in zip(line, words):
        # the prompt and the tool call stay; only the thought's name of the tapped entry loses its numbers
        assert a.messages == b.messages and a.label == b.label
        if a.target != b.target:
            changed += 1
            named = a.target.split("\n")[2].split(" ", 1)[1]  # `click "Dentist +1 555 884 3116" (336, 752)`
            assert b.target == a.target.replace(named, target_words(named), 1)
            assert not any(ch.isdigit() for ch in target_words(named).rsplit(" (", 1)[0])
    assert changed > 0  # the contacts and products the expert taps carry numbers


def test_target_name_setting_reaches_the_prompt_settings() -> None:
    from mobile_r1.train.config import TrainConfig
    from mobile_r1.train.data import prompt_settings

    config = TrainConfig.model_validate({"data": {"dialect": "compact", "thought": "restated", "target_name": "words"}})
    assert prompt_settings(config, None).target_name == "words"
    assert prompt_settings(TrainConfig.model_validate({}), None).target_name == "line"
    with pytest.raises(ValueError, match="target_name"):
        TrainConfig.model_validate({"data": {"target_name": "digits"}})
