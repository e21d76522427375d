"""Loading policies: presets, the local tokenizer, LoRA with the adapter-off reference, VL image inputs."""

from __future__ import annotations

import json

import pytest
import torch

from mobile_r1.core.errors import ConfigError
from mobile_r1.models import LoraSettings, build_preset, load_policy, merge_lora
from mobile_r1.models.policy import local_tokenizer
from mobile_r1.models.tokenizer import SPECIAL_TOKENS, TOKENIZER_DIR, train_tokenizer


@pytest.mark.slow
def test_the_shipped_tokenizer_is_the_one_trained_on_the_corpus_and_the_phone() -> None:
    from mobile_r1.env.sim.corpus import phone_corpus

    trained = json.loads(train_tokenizer(phone_corpus()).backend_tokenizer.to_str())
    shipped = json.loads((TOKENIZER_DIR / "tokenizer.json").read_text(encoding="utf-8"))
    assert trained == shipped


@pytest.mark.slow
def test_loading_a_model_imports_no_phone_no_expert_and_no_suite() -> None:
    import subprocess
    import sys

    code = ("import sys; from mobile_r1.models import load_policy; load_policy('tiny-lm'); "
            "print(sorted(m for m in sys.modules if m.startswith(('mobile_r1.sim', 'mobile_r1.env', 'mobile_r1.tasks'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_tokenizer_round_trips_tool_calls_and_keeps_special_tokens_whole() -> None:
    tok = local_tokenizer()
    call = json.dumps({"name": "mobile_use", "arguments": {"action": "click", "coordinate": [540, 1200]}})
    text = f"<think>I tap Mom.</think>\n<action>Open the chat</action>\n<tool_call>\n{call}\n</tool_call><|im_end|>"
    ids = tok(text, add_special_tokens=False).input_ids
    assert tok.decode(ids) == text
    for special in SPECIAL_TOKENS:
        assert len(tok(special, add_special_tokens=False).input_ids) == 1, special
    assert len(ids) < len(text) / 2  # BPE learned our vocabulary
    chat = tok.apply_chat_template([{"role": "user", "content": [{"type": "image"}, {"type": "text", "text": "go"}]}],
                                   tokenize=False, add_generation_prompt=True)
    assert chat == "<|im_start|>user\n<|vision_start|><|image_pad|><|vision_end|>go<|im_end|>\n<|im_start|>assistant\n"


def test_small_lm_preset_is_deeper_and_wider_than_tiny_lm_with_the_same_tokenizer() -> None:
    small, tiny = load_policy("small-lm"), load_policy("tiny-lm")
    assert (small.model.config.num_hidden_layers, small.model.config.hidden_size) == (4, 128)
    assert sum(p.numel() for p in small.model.parameters()) > 3 * sum(p.numel() for p in tiny.model.parameters())
    assert small.tokenizer.get_vocab() == tiny.tokenizer.get_vocab()
    assert small.tokenizer("Task: open Chat (12, 345)").input_ids == tiny.tokenizer("Task: open Chat (12, 345)").input_ids
    # small-lm's weights are drawn at 1/sqrt(hidden_size) = 0.088, tiny-lm's at transformers' 0.02
    assert abs(small.model.model.layers[0].mlp.up_proj.weight.std().item() - 128**-0.5) < 0.005
    assert abs(tiny.model.model.layers[0].mlp.up_proj.weight.std().item() - 0.02) < 0.003


def test_tiny_lm_preset_is_cached_and_generates() -> None:
    first = build_preset("tiny-lm")
    assert build_preset("tiny-lm") == first and (first / "config.json").is_file()
    policy = load_policy("tiny-lm")
    assert not policy.takes_images and policy.model.config.num_hidden_layers == 2
    ids = policy.tokenizer("hello", return_tensors="pt")
    out = policy.model.generate(**ids, max_new_tokens=4, do_sample=False)
    assert out.shape[1] == ids["input_ids"].shape[1] + 4 or policy.tokenizer.eos_token_id in out[0].tolist()


def test_lora_reference_is_the_base_model_with_the_adapter_off(set_lora_b) -> None:  # type: ignore[no-untyped-def]
    policy = load_policy("tiny-lm", lora=LoraSettings(r=4, dropout=0.0))
    trainable = [n for n, p in policy.model.named_parameters() if p.requires_grad]
    assert trainable and all("lora_" in n for n in trainable)
    ids = torch.tensor([[5, 6, 7, 8]])
    base = load_policy("tiny-lm").model(input_ids=ids).logits
    set_lora_b(policy.model, 0.5)
    adapted = policy.model(input_ids=ids).logits
    with policy.reference() as ref:
        reference = ref(input_ids=ids).logits
    assert not torch.allclose(adapted, base)
    assert torch.allclose(reference, base, atol=1e-6)
    assert sum(p.numel() for p in policy.model.parameters()) < 1.2 * sum(p.numel() for p in load_policy("tiny-lm").model.parameters())


@pytest.mark.slow
def test_merge_lora_folds_the_adapter_into_plain_weights_with_the_same_logits(set_lora_b) -> None:  # type: ignore[no-untyped-def]
    policy = load_policy("tiny-lm", lora=LoraSettings(r=4, dropout=0.0))
    set_lora_b(policy.model, 0.5)
    ids = torch.tensor([[5, 6, 7, 8]])
    with torch.no_grad():
        adapted = policy.model(input_ids=ids).logits
        merged = merge_lora(policy)
        folded = merged.model(input_ids=ids).logits
        base = load_policy("tiny-lm").model(input_ids=ids).logits
    assert not merged.uses_lora and not merged.model.training
    assert not any("lora_" in n for n, _ in merged.model.named_parameters())
    assert torch.allclose(folded, adapted, atol=1e-5) and not torch.allclose(folded, base, atol=1e-3)
    plain = load_policy("tiny-lm")
    assert merge_lora(plain) is plain


def test_full_finetune_reference_is_a_frozen_copy() -> None:
    policy = load_policy("tiny-lm")
    with policy.reference() as ref:
        assert ref is not policy.model and not any(p.requires_grad for p in ref.parameters())


def test_tiny_vl_takes_images_through_the_pil_processor() -> None:
    from PIL import Image

    policy = load_policy("tiny-vl")
    assert policy.takes_images
    text = policy.tokenizer.apply_chat_template([{"role": "user", "content": [{"type": "image"}, {"type": "text", "text": "tap"}]}],
                                               tokenize=False, add_generation_prompt=True)
    inputs = policy.processor([text], [Image.new("RGB", (108, 240), (20, 30, 200))])
    pads = int((inputs["input_ids"] == policy.tokenizer.convert_tokens_to_ids("<|image_pad|>")).sum())
    assert pads == int(inputs["image_grid_thw"].prod()) // 4
    logits = policy.model(**inputs).logits
    assert logits.shape[:2] == inputs["input_ids"].shape


def test_unknown_model_and_dtype_are_config_errors(tmp_path) -> None:
    with pytest.raises(ConfigError, match="dtype"):
        load_policy("tiny-lm", dtype="float8")
    with pytest.raises(ConfigError, match="not a preset"):
        load_policy(str(tmp_path / "nothing-here"))


@pytest.mark.slow
def test_smollm2_preset_answers() -> None:
    policy = load_policy("smollm2-135m")
    ids = policy.tokenizer.apply_chat_template([{"role": "user", "content": "What is the capital of France?"}],
                                               add_generation_prompt=True, return_tensors="pt", return_dict=True)
    out = policy.model.generate(**ids, max_new_tokens=12, do_sample=False)
    assert "Paris" in policy.tokenizer.decode(out[0, ids["input_ids"].shape[1]:])


@pytest.mark.slow
def test_gradient_checkpointing_with_lora_trains_and_matches_plain_gradients(set_lora_b) -> None:  # type: ignore[no-untyped-def]
    ids = torch.tensor([[5, 6, 7, 8, 9]])
    load_policy("tiny-lm")  # build the preset first: building it reseeds the generator lora_A is then drawn from
    grads = []
    for checkpointing in (False, True):
        torch.manual_seed(0)
        policy = load_policy("tiny-lm", lora=LoraSettings(r=4, dropout=0.0), gradient_checkpointing=checkpointing)
        set_lora_b(policy.model, 0.1)
        policy.model.train()
        policy.model(input_ids=ids, labels=ids).loss.backward()
        grads.append({n: p.grad.clone() for n, p in policy.model.named_parameters() if p.requires_grad})
    assert grads[0].keys() == grads[1].keys()
    for name in grads[0]:
        assert torch.allclose(grads[0][name], grads[1][name], atol=1e-6), name
