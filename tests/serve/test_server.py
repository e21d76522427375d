"""Tests of the OpenAI-compatible server over real HTTP on loopback."""

from __future__ import annotations

import httpx
import openai
import pytest
from PIL import Image

from mobile_r1.agents.chat import encode_image
from mobile_r1.core.errors import DataError
from mobile_r1.serve import EchoModel, LoopbackServer, ScriptedModel, ServerSettings, make_chat_model
from mobile_r1.serve.chat_models import HFEngine


def test_chat_completion_with_text_and_image_parts() -> None:
    backend = ScriptedModel(["first", "second"])
    image = Image.new("RGB", (56, 84), (10, 200, 30))
    with LoopbackServer(backend, model_name="scripted") as server:
        client = openai.OpenAI(base_url=server.base_url, api_key="none", max_retries=0)
        models = client.models.list()
        assert [m.id for m in models.data] == ["scripted"]
        r1 = client.chat.completions.create(
            model="scripted",
            messages=[
                {"role": "system", "content": "be brief"},
                {"role": "user", "content": [{"type": "text", "text": "what is this?"},
                                             {"type": "image_url", "image_url": {"url": encode_image(image)}}]},
            ],
            temperature=0.3,
            max_tokens=7,
        )
        r2 = client.chat.completions.create(model="scripted", messages=[{"role": "user", "content": "again"}])
    assert r1.choices[0].message.content == "first" and r2.choices[0].message.content == "second"
    messages, temperature, max_tokens = backend.requests[0]
    assert (temperature, max_tokens) == (0.3, 7)
    assert [m.role for m in messages] == ["system", "user"]
    assert messages[1].text == "what is this?"
    assert messages[1].images[0].size == (56, 84) and messages[1].images[0].tobytes() == image.tobytes()
    assert backend.requests[1][1] == 1.0  # the OpenAI default temperature


def test_errors_are_openai_shaped() -> None:
    backend = ScriptedModel([RuntimeError("out of memory"), DataError("prompt too long"), "fine"])
    with LoopbackServer(backend) as server:
        url = server.base_url + "/chat/completions"
        body = {"messages": [{"role": "user", "content": "hi"}]}
        r = httpx.post(url, json=body, timeout=10)
        assert r.status_code == 500 and "out of memory" in r.json()["error"]["message"]
        r = httpx.post(url, json=body, timeout=10)
        assert r.status_code == 400 and "prompt too long" in r.json()["error"]["message"]
        r = httpx.post(url, json={**body, "logprobs": True}, timeout=10)  # a scripted backend has no tokens
        assert r.status_code == 400 and "no tokenizer" in r.json()["error"]["message"]
        bad_image = {"messages": [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "http://x/y.png"}}]}]}
        r = httpx.post(url, json=bad_image, timeout=10)
        assert r.status_code == 400 and "data URL" in r.json()["error"]["message"]
        assert httpx.post(url, json={"messages": []}, timeout=10).status_code == 422
        assert httpx.post(url, json=body, timeout=10).json()["choices"][0]["message"]["content"] == "fine"


def test_echo_backend_and_server_stops() -> None:
    assert isinstance(make_chat_model("echo"), EchoModel)
    with LoopbackServer(make_chat_model("echo")) as server:
        client = openai.OpenAI(base_url=server.base_url, api_key="none", max_retries=0)
        reply = client.chat.completions.create(model="x", messages=[{"role": "user", "content": "ping"}])
        assert reply.choices[0].message.content == "ping"
    with pytest.raises(httpx.ConnectError):
        httpx.get(server.base_url + "/models", timeout=2)


@pytest.mark.slow
def test_a_lora_folder_is_served_with_the_adapter_folded_in(tmp_path, set_lora_b) -> None:  # type: ignore[no-untyped-def]
    import torch

    from mobile_r1.models import LoraSettings, load_policy

    trained = load_policy("tiny-lm", lora=LoraSettings(r=4, dropout=0.0))
    set_lora_b(trained.model, 0.5)
    trained.save_pretrained(tmp_path / "final")
    backend = make_chat_model(f"hf:{tmp_path / 'final'}")
    assert isinstance(backend, HFEngine) and not backend.policy.uses_lora
    ids = torch.tensor([[5, 6, 7, 8]])
    with torch.no_grad():
        assert torch.allclose(backend.policy.model(input_ids=ids).logits, trained.model(input_ids=ids).logits, atol=1e-5)


def test_plain_backends_stream_and_apply_n_and_stop() -> None:
    backend = ScriptedModel(["one. two", "three. four", "five"])
    with LoopbackServer(backend, model_name="scripted", settings=ServerSettings(lora_updates=True)) as server:
        client = openai.OpenAI(base_url=server.base_url, api_key="none", max_retries=0)
        reply = client.chat.completions.create(model="scripted", messages=[{"role": "user", "content": "x"}], n=2,
                                               stop=["."])
        assert [c.message.content for c in reply.choices] == ["one", "three"]
        assert [c.finish_reason for c in reply.choices] == ["stop", "stop"]
        chunks = list(client.chat.completions.create(model="scripted", messages=[{"role": "user", "content": "x"}],
                                                     stream=True))
        assert "".join(c.choices[0].delta.content or "" for c in chunks) == "five"
        assert chunks[0].choices[0].delta.role == "assistant" and chunks[-1].choices[0].finish_reason == "stop"
        r = httpx.post(server.base_url + "/load_lora_adapter", json={"lora_name": "a", "lora_path": "/tmp"}, timeout=10)
        assert r.status_code == 400 and "no LoRA adapters" in r.json()["error"]["message"]
        health = httpx.get(server.url + "/health", timeout=10).json()
        assert health["status"] == "ok" and health["requests_done"] == 2
