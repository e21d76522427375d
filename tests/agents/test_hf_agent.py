"""Tests of the `hf:` agent with the tiny offline presets: batching, the same actions behind `serve`, LoRA adapters."""

from __future__ import annotations

from pathlib import Path

import pytest

from mobile_r1.agents import AgentRequest, make_agent
from mobile_r1.agents.hf_agent import HFAgent
from mobile_r1.agents.openai_agent import OpenAIAgent
from mobile_r1.core.errors import ConfigError
from mobile_r1.core.records import Observation
from mobile_r1.models import batching, load_policy
from mobile_r1.serve import LoopbackServer
from mobile_r1.serve.chat_models import HFEngine


@pytest.fixture(scope="module")
def tiny_lm():  # type: ignore[no-untyped-def]
    return load_policy("tiny-lm")


def requests(observation: Observation, n: int) -> list[AgentRequest]:
    return [AgentRequest(f"Tap OK number {i}", observation) for i in range(n)]


def model_calls(policy, monkeypatch: pytest.MonkeyPatch) -> list[int]:  # type: ignore[no-untyped-def]
    """The batch size of every `generate` call the policy's model gets from now on."""
    calls: list[int] = []
    real = policy.model.generate

    def counting(**kw):  # type: ignore[no-untyped-def]
        calls.append(kw["input_ids"].shape[0])
        return real(**kw)

    monkeypatch.setattr(policy.model, "generate", counting)
    return calls


@pytest.mark.slow
def test_batched_generation(tiny_lm, observation: Observation, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    calls = model_calls(tiny_lm, monkeypatch)
    agent = HFAgent(tiny_lm, dialect="qwen2.5vl", max_new_tokens=8, batch_size=3)
    assert agent.view.observation_mode == "text" and agent.view.frame == "screen"
    outs = agent.act_batch(requests(observation, 5))
    assert sorted(calls) == [2, 3] and len(outs) == 5  # prompts of one length: batches of at most batch_size
    for out in outs:
        assert isinstance(out.text, str) and out.parse.raw == out.text
        assert (out.action is None) == (out.parse.action is None)


def mixed_requests(observation: Observation) -> list[AgentRequest]:
    """Five requests, the second and fourth with instructions about a hundred tokens longer than the others'."""
    long = "Open the settings and then " + "look around the screen carefully " * 20
    return [AgentRequest(long if i in (1, 3) else f"Tap OK number {i}", observation) for i in range(5)]


@pytest.mark.slow
def test_prompts_of_similar_length_share_a_batch(observation: Observation, monkeypatch: pytest.MonkeyPatch) -> None:
    import torch

    monkeypatch.setattr(batching, "CALL_COST_TOKENS", 64)  # a generate call costs 64 prompt tokens: worth a split here
    policy = load_policy("tiny-lm")
    generator = torch.Generator().manual_seed(0)
    with torch.no_grad():  # weights far from the preset's small ones, so that greedy replies differ by prompt
        for weight in policy.model.parameters():
            weight.add_(torch.randn(weight.shape, generator=generator))
    reqs = mixed_requests(observation)
    options = dict(dialect="inquire", max_new_tokens=12, batch_size=8)
    calls = model_calls(policy, monkeypatch)
    one_batch = HFAgent(policy, group_by_length=False, **options).act_batch(reqs)
    assert calls == [5]
    calls.clear()
    grouped = HFAgent(policy, **options).act_batch(reqs)
    assert sorted(calls) == [2, 3]  # the two long prompts apart from the three short ones
    # greedy replies come back in the requests' order, the same as in one padded batch and as one at a time
    assert [o.text for o in grouped] == [o.text for o in one_batch]
    alone = [HFAgent(policy, **options).act(r).text for r in reqs]
    assert [o.text for o in grouped] == alone
    assert len(set(alone)) > 1


def test_a_tokenizer_output_not_known_to_the_grouping_keeps_each_batch_whole(observation: Observation,
                                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """An encoding with outputs `generate` cannot cut into batches is made per run of `batch_size` prompts."""
    import torch

    policy = load_policy("tiny-lm")
    real = policy.tokenizer

    class WithExtra:  # the tokenizer, plus one more output per prompt
        def __call__(self, texts, **kwargs):  # type: ignore[no-untyped-def]
            out = dict(real(texts, **kwargs))
            return {**out, "extra": torch.full_like(out["input_ids"], len(texts))}

        def __getattr__(self, name: str):  # type: ignore[no-untyped-def]
            return getattr(real, name)

    seen: list[tuple[int, int]] = []

    def scripted_generate(input_ids, extra, **_):  # type: ignore[no-untyped-def]
        seen.append((input_ids.shape[0], int(extra[0, 0])))
        return torch.cat([input_ids, torch.full((input_ids.shape[0], 2), real.eos_token_id)], dim=1)

    policy.tokenizer = WithExtra()
    monkeypatch.setattr(policy.model, "generate", scripted_generate)
    outs = HFAgent(policy, dialect="inquire", max_new_tokens=4, batch_size=2).act_batch(mixed_requests(observation))
    assert seen == [(2, 2), (2, 2), (1, 1)] and len(outs) == 5  # each run encoded on its own, in the given order


@pytest.mark.slow
def test_vision_prompts_keep_their_own_images_when_grouped(observation: Observation,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(batching, "CALL_COST_TOKENS", 64)
    policy = load_policy("tiny-vl")
    reqs = mixed_requests(observation)
    agent = HFAgent(policy, dialect="inquire", prescale=0.3, max_new_tokens=10, batch_size=8)
    prompts = [agent.view.prompt(r) for r in reqs]
    texts = [policy.processor.apply_chat_template(m, tokenize=False, add_generation_prompt=True) for m, _ in prompts]
    lengths = [len(policy.processor.tokenizer(t).input_ids) for t in texts]
    assert len(batching.length_groups(lengths)) == 2  # the image tokens are the same for every prompt: two groups
    grouped = [o.text for o in agent.act_batch(reqs)]
    alone = [agent.act(r).text for r in reqs]
    assert grouped == alone and all(grouped)


@pytest.mark.slow
@pytest.mark.parametrize("temperature", [0.0, 1.0])
def test_same_actions_directly_and_behind_serve(tiny_lm, observation: Observation, temperature: float) -> None:  # type: ignore[no-untyped-def]
    reqs = requests(observation, 3)
    direct = HFAgent(tiny_lm, dialect="inquire", max_new_tokens=24, temperature=temperature, batch_size=1, seed=0)
    expected = direct.act_batch(reqs)
    with LoopbackServer(HFEngine(tiny_lm, seed=0)) as server:
        served = OpenAIAgent("tiny-lm", base_url=server.base_url, dialect="inquire", observation_mode="text",
                             max_tokens=24, temperature=temperature, concurrency=1)
        got = served.act_batch(reqs)
    assert [o.text for o in got] == [o.text for o in expected]
    assert [o.action for o in got] == [o.action for o in expected]
    if temperature > 0:  # sampling really happened, so the equality above compares sampled texts
        greedy = HFAgent(tiny_lm, dialect="inquire", max_new_tokens=24, temperature=0.0).act(reqs[0])
        assert expected[0].text != greedy.text


def test_text_model_refuses_images(tiny_lm, observation: Observation) -> None:  # type: ignore[no-untyped-def]
    agent = HFAgent(tiny_lm, observation_mode="image", max_new_tokens=4)
    with pytest.raises(ConfigError, match="reads no images"):
        agent.act(AgentRequest("x", observation))


@pytest.mark.slow
def test_lora_adapter_loads(tiny_lm, observation: Observation, tmp_path: Path, set_lora_b) -> None:  # type: ignore[no-untyped-def]
    import torch
    from peft import LoraConfig, get_peft_model

    policy = load_policy("tiny-lm")
    torch.manual_seed(0)  # lora_A is drawn from the global generator, whose state depends on what ran before
    model = get_peft_model(policy.model, LoraConfig(r=4, lora_alpha=8, target_modules="all-linear"))
    set_lora_b(model, 0.5, seed=0)
    model.save_pretrained(tmp_path / "adapter")
    policy.model = model
    reqs = requests(observation, 2)
    options = dict(dialect="inquire", max_new_tokens=16, temperature=1.0, seed=3, batch_size=1)
    in_memory = [o.text for o in HFAgent(policy, **options).act_batch(reqs)]
    base = [o.text for o in HFAgent(tiny_lm, **options).act_batch(reqs)]
    on_base = make_agent("hf:tiny-lm", adapter=str(tmp_path / "adapter"), **options)
    as_model = make_agent(f"hf:{tmp_path / 'adapter'}", **options)
    assert [o.text for o in on_base.act_batch(reqs)] == in_memory
    assert [o.text for o in as_model.act_batch(reqs)] == in_memory
    # loaded by the agent itself, the adapter is folded into the weights (faster generation, same outputs)
    assert not as_model.policy.uses_lora and not any("lora_" in n for n, _ in as_model.policy.model.named_parameters())
    assert make_agent(f"hf:{tmp_path / 'adapter'}", merge_adapter=False, **options).policy.uses_lora
    assert HFAgent(policy, **options).policy.model is model  # a policy handed in (a training run's) is left as it is
    ids = torch.tensor([[5, 6, 7, 8]])
    with torch.no_grad():
        assert not torch.allclose(model(input_ids=ids).logits, tiny_lm.model(input_ids=ids).logits, atol=1e-3)
    assert in_memory != base


@pytest.mark.slow
def test_vision_model_same_actions_behind_serve(observation: Observation) -> None:
    policy = load_policy("tiny-vl")
    reqs = requests(observation, 2)
    direct = HFAgent(policy, dialect="inquire", prescale=0.3, max_new_tokens=12, temperature=1.0, batch_size=1)
    assert direct.view.observation_mode == "image"
    expected = direct.act_batch(reqs)
    with LoopbackServer(HFEngine(policy, seed=0)) as server:
        served = OpenAIAgent("tiny-vl", base_url=server.base_url, dialect="inquire", prescale=0.3, max_tokens=12,
                             temperature=1.0, concurrency=1)
        got = served.act_batch(reqs)
    assert [o.text for o in got] == [o.text for o in expected]
    assert all(o.text for o in expected)


def test_generated_tags_reach_the_parser(tiny_lm, observation: Observation, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    """tiny-lm's tokenizer holds <think> and <tool_call> as special tokens: decoding must keep them."""
    import torch

    reply = '<think>\nopen it\n</think>\n<tool_call>\n{"name": "mobile_use", "arguments": {"action": "wait"}}\n</tool_call>'
    reply_ids = tiny_lm.tokenizer(reply + "<|im_end|>", add_special_tokens=False).input_ids
    pad = tiny_lm.tokenizer.pad_token_id

    def scripted_generate(input_ids, **_):  # type: ignore[no-untyped-def]
        tail = torch.tensor([reply_ids + [pad, pad]] * input_ids.shape[0])
        return torch.cat([input_ids, tail], dim=1)

    monkeypatch.setattr(tiny_lm.model, "generate", scripted_generate)
    out = HFAgent(tiny_lm, dialect="inquire", max_new_tokens=64).act(requests(observation, 1)[0])
    assert out.text == reply
    assert out.parse.ok and out.action is not None and out.action.type.value == "wait"


def test_a_saved_view_gives_the_defaults_and_arguments_win(tiny_lm, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from mobile_r1.agents.base import VIEW_FILE, ModelView

    folder = tmp_path / "model"
    tiny_lm.save_pretrained(folder)
    assert HFAgent(str(folder)).view.options()["dialect"] == "qwen2.5vl"  # no view file: the plain defaults
    saved = ModelView.create("compact", observation_mode="text", frame="qwen", max_pixels=1003520, history_window=3)
    saved.save(folder)
    assert HFAgent(str(folder)).view.options() == saved.options()
    mine = HFAgent(str(folder), dialect="inquire", frame="screen", history_window=1).view.options()
    assert (mine["dialect"], mine["frame"], mine["history_window"], mine["max_pixels"]) == ("inquire", "screen", 1, 1003520)
    (folder / VIEW_FILE).write_text('{"dialect": "compact", "colour": "red"}')
    with pytest.raises(ConfigError, match="unknown view option 'colour'"):
        HFAgent(str(folder))
    (folder / VIEW_FILE).write_text("not json")
    with pytest.raises(ConfigError, match="prompt_view.json:1: not valid JSON"):
        HFAgent(str(folder))
