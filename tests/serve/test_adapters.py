"""LoRA adapter hot-swap through /v1/load_lora_adapter and /v1/unload_lora_adapter: answers change, and come back."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

import httpx
import pytest
import torch

from mobile_r1.agents.hf_agent import generate
from mobile_r1.models import load_policy
from mobile_r1.serve import HFEngine, LoopbackServer, ServerSettings

PROMPTS = ["open the settings", "call mom", "turn on wifi"]


def make_adapter(policy: Any, folder: Path, set_lora_b: Callable[..., None], seed: int) -> Any:
    """A rank-4 LoRA adapter on `policy` with seeded non-zero B matrices, saved to `folder`; the adapted model."""
    from peft import LoraConfig, get_peft_model

    torch.manual_seed(seed)  # lora_A comes from the global generator
    model = get_peft_model(policy.model, LoraConfig(r=4, lora_alpha=8, target_modules="all-linear"))
    set_lora_b(model, 0.3, seed=seed)
    model.save_pretrained(folder)
    return model


def greedy(server: LoopbackServer, model: str) -> tuple[list[str], set[str]]:
    texts, names = [], set()
    for prompt in PROMPTS:
        r = httpx.post(server.base_url + "/chat/completions", timeout=60, json={
            "model": model, "messages": [{"role": "user", "content": prompt}], "temperature": 0, "max_tokens": 12})
        assert r.status_code == 200, r.text
        texts.append(r.json()["choices"][0]["message"]["content"])
        names.add(r.json()["model"])
    return texts, names


def admin(server: LoopbackServer, what: str, body: dict[str, Any]) -> httpx.Response:
    return httpx.post(f"{server.base_url}/{what}_lora_adapter", json=body, timeout=60)


@pytest.mark.slow
def test_adapter_hot_swap_changes_greedy_answers_and_unload_restores_them(
        tmp_path: Path, set_lora_b: Callable[..., None], lively: Callable[[], Any]) -> None:
    first = make_adapter(lively(), tmp_path / "step1", set_lora_b, seed=1)
    second = make_adapter(lively(), tmp_path / "step2", set_lora_b, seed=2)
    expected = {name: [generate(policy, [([{"role": "user", "content": p}], [])], max_new_tokens=12)[0]
                       for p in PROMPTS]
                for name, policy in (("step1", _wrap(first)), ("step2", _wrap(second)))}
    with LoopbackServer(HFEngine(lively()), model_name="base", settings=ServerSettings(lora_updates=True)) as server:
        base, names = greedy(server, "base")
        assert names == {"base"}

        r = admin(server, "load", {"lora_name": "policy", "lora_path": str(tmp_path / "step1")})
        assert r.status_code == 200 and r.text == "Success: LoRA adapter 'policy' added successfully."
        adapted, names = greedy(server, "policy")
        assert names == {"policy"} and adapted == expected["step1"] and adapted != base
        assert greedy(server, "base")[0] == base  # the base model still answers as before, beside the adapter
        assert greedy(server, "base:policy")[0] == adapted  # SGLang's way of naming an adapter
        models = httpx.get(server.base_url + "/models", timeout=10).json()["data"]
        assert [(m["id"], m["parent"], m["root"]) for m in models] == [
            ("base", None, None), ("policy", "base", str(tmp_path / "step1"))]

        # the trainer publishes its next step under the same name: the new weights replace the old
        assert admin(server, "load", {"lora_name": "policy", "lora_path": str(tmp_path / "step2")}).status_code == 200
        replaced, _ = greedy(server, "policy")
        assert replaced == expected["step2"] and replaced != adapted

        r = admin(server, "unload", {"lora_name": "policy"})
        assert r.status_code == 200 and r.text == "Success: LoRA adapter 'policy' removed successfully."
        back, names = greedy(server, "policy")  # no such adapter now: the base model answers, and says so
        assert back == base and names == {"base"}
        assert [m["id"] for m in httpx.get(server.base_url + "/models", timeout=10).json()["data"]] == ["base"]
        r = admin(server, "unload", {"lora_name": "policy"})
        assert r.status_code == 404 and "cannot be found" in r.json()["error"]["message"]


def _wrap(model: Any) -> Any:
    """A policy-like object around an adapted model, for in-process `generate`."""
    policy = load_policy("tiny-lm")
    policy.model = model
    return policy


@pytest.mark.slow
def test_bad_adapter_requests_leave_the_server_serving(tmp_path: Path, set_lora_b: Callable[..., None],
                                                       lively: Callable[[], Any]) -> None:
    make_adapter(load_policy("small-lm"), tmp_path / "other-base", set_lora_b, seed=0)  # wrong shapes for tiny-lm
    make_adapter(lively(), tmp_path / "good", set_lora_b, seed=1)
    with LoopbackServer(HFEngine(lively()), model_name="base", settings=ServerSettings(lora_updates=True)) as server:
        base, _ = greedy(server, "base")
        r = admin(server, "load", {"lora_name": "x", "lora_path": str(tmp_path / "missing")})
        assert r.status_code == 404 and "adapter_config.json" in r.json()["error"]["message"]
        r = admin(server, "load", {"lora_name": "x", "lora_path": str(tmp_path / "other-base")})
        assert r.status_code == 400 and "cannot load the LoRA adapter" in r.json()["error"]["message"]
        assert greedy(server, "x") == (base, {"base"})
        r = admin(server, "load", {"lora_name": "base", "lora_path": str(tmp_path / "good")})
        assert r.status_code == 400 and "base model's name" in r.json()["error"]["message"]
        r = admin(server, "load", {"lora_name": "good"})
        assert r.status_code == 422 and "lora_path" in r.json()["error"]["message"]
        # a failed replacement keeps the adapter that was serving
        assert admin(server, "load", {"lora_name": "good", "lora_path": str(tmp_path / "good")}).status_code == 200
        adapted, _ = greedy(server, "good")
        assert admin(server, "load", {"lora_name": "good", "lora_path": str(tmp_path / "other-base")}).status_code == 400
        assert greedy(server, "good") == (adapted, {"good"}) and adapted != base
    with LoopbackServer(HFEngine(lively())) as server:  # updates are off unless asked for
        r = admin(server, "load", {"lora_name": "good", "lora_path": str(tmp_path / "good")})
        assert r.status_code == 404 and "--lora-updates" in r.json()["error"]["message"]
