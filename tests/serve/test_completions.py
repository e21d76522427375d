"""Tests of POST /v1/completions: token-id and text prompts, the answers chat completions give for the same tokens,
legacy log-probabilities, and the requests it refuses."""

from __future__ import annotations

from typing import Any

import httpx
import openai
import pytest

from mobile_r1.models import load_policy
from mobile_r1.serve import EchoModel, LoopbackServer


def post(server: LoopbackServer, path: str, **body: Any) -> dict[str, Any]:
    r = httpx.post(server.base_url + path, json=body, timeout=120)
    assert r.status_code == 200, r.text
    return dict(r.json())


@pytest.mark.parametrize("temperature", [0.0, 1.0])
def test_a_token_id_prompt_is_answered_as_the_chat_request_it_came_from(tiny_server: LoopbackServer,
                                                                        temperature: float) -> None:
    messages = [{"role": "user", "content": "turn on wifi and then go back"}]
    chat = post(tiny_server, "/chat/completions", messages=messages, temperature=temperature, seed=4, max_tokens=12,
                ignore_eos=True, return_token_ids=True, logprobs=True, n=2)
    prompt = chat["prompt_token_ids"]
    done = post(tiny_server, "/completions", prompt=prompt, temperature=temperature, seed=4, max_tokens=12,
                ignore_eos=True, return_token_ids=True, logprobs=1, n=2)
    assert done["object"] == "text_completion" and done["model"] == "tiny"
    assert len(done["choices"]) == 2
    for c, d in zip(chat["choices"], done["choices"]):
        assert d["prompt_token_ids"] == prompt
        assert d["token_ids"] == c["token_ids"] and len(d["token_ids"]) == 12
        assert d["text"] == c["message"]["content"] and d["finish_reason"] == "length"
        legacy = d["logprobs"]
        assert legacy["token_logprobs"] == [e["logprob"] for e in c["logprobs"]["content"]]
        assert legacy["tokens"] == [e["token"] for e in c["logprobs"]["content"]]
        assert [top[t] for top, t in zip(legacy["top_logprobs"], legacy["tokens"])] == legacy["token_logprobs"]
        assert legacy["text_offset"][0] == 0 and legacy["text_offset"][1] == len(legacy["tokens"][0])
    if temperature > 0:
        assert done["choices"][0]["token_ids"] != done["choices"][1]["token_ids"]  # seeds 4 and 5
    assert done["usage"] == {"prompt_tokens": len(prompt), "completion_tokens": 24, "total_tokens": len(prompt) + 24}


def test_a_text_prompt_is_tokenised_as_it_is(tiny_server: LoopbackServer) -> None:
    tokenizer = load_policy("tiny-lm").tokenizer
    text = "Screen:\n\"Settings\" (416, 463)\nTask: Turn on dark mode"
    done = post(tiny_server, "/completions", prompt=text, max_tokens=3, temperature=0, return_token_ids=True)
    assert done["choices"][0]["prompt_token_ids"] == tokenizer(text).input_ids
    by_ids = post(tiny_server, "/completions", prompt=tokenizer(text).input_ids, max_tokens=3, temperature=0)
    assert by_ids["choices"][0]["text"] == done["choices"][0]["text"]
    plain = post(tiny_server, "/completions", prompt=text, max_tokens=3, temperature=0)["choices"][0]
    assert "token_ids" not in plain and "prompt_token_ids" not in plain
    client = openai.OpenAI(base_url=tiny_server.base_url, api_key="none", max_retries=0)
    reply = client.completions.create(model="tiny", prompt=tokenizer(text).input_ids, max_tokens=3, temperature=0)
    assert reply.choices[0].text == done["choices"][0]["text"]


@pytest.mark.parametrize("body, status, expected", [
    ({"prompt": [[1, 2], [3]]}, 422, "one prompt per request"),
    ({"prompt": ["a", "b"]}, 422, "one prompt per request"),
    ({"prompt": []}, 422, "the prompt is empty"),
    ({"prompt": ""}, 422, "the prompt is empty"),
    ({"prompt": [5, 10**9]}, 400, "not token ids of this model"),
    ({"prompt": [5, -1]}, 422, "prompt"),
    ({"prompt": "hi", "stream": True}, 400, "stream is not supported on /v1/completions"),
    ({"prompt": "hi", "echo": True}, 400, "echo is not supported"),
    ({"prompt": "hi", "suffix": "!"}, 400, "suffix is not supported"),
    ({"prompt": "hi", "logprobs": 21}, 422, "logprobs"),
    ({"prompt": "hi", "best_of": 2}, 422, "best_of: unsupported field"),
    ({"prompt": [5] * 5000}, 400, "maximum context length"),
    ({"prompt": "hi", "max_tokens": 10**6}, 400, "max_tokens"),
])
def test_refused_completion_requests(tiny_server: LoopbackServer, body: dict[str, Any], status: int,
                                     expected: str) -> None:
    r = httpx.post(tiny_server.base_url + "/completions", json=body, timeout=30)
    assert r.status_code == status, r.text
    assert expected in r.json()["error"]["message"]


def test_a_backend_without_a_tokenizer_takes_text_prompts_only() -> None:
    with LoopbackServer(EchoModel()) as server:
        done = post(server, "/completions", prompt="hello there", max_tokens=5)
        assert done["choices"][0]["text"] == "hello there"
        r = httpx.post(server.base_url + "/completions", json={"prompt": [1, 2, 3]}, timeout=30)
        assert r.status_code == 400 and "no tokenizer" in r.json()["error"]["message"]


def test_special_tokens_stay_in_the_text_unless_skipped(tiny_server: LoopbackServer) -> None:
    tokenizer = load_policy("tiny-lm").tokenizer
    body = dict(prompt="hello", n=16, seed=1, temperature=1.0, max_tokens=64, ignore_eos=True, return_token_ids=True)
    kept = post(tiny_server, "/completions", **body)["choices"]
    skipped = post(tiny_server, "/completions", **body, skip_special_tokens=True)["choices"]
    special = set(tokenizer.all_special_ids) - {tokenizer.eos_token_id, tokenizer.pad_token_id}
    with_special = [k for k, c in enumerate(kept) if special & set(c["token_ids"])]
    assert with_special  # the draw holds special tokens (seeded: always the same draw)
    for k in range(16):
        assert kept[k]["token_ids"] == skipped[k]["token_ids"]
        shown = [t for t in kept[k]["token_ids"] if t not in (tokenizer.eos_token_id, tokenizer.pad_token_id)]
        assert kept[k]["text"] == tokenizer.decode(shown, skip_special_tokens=False)
        assert skipped[k]["text"] == tokenizer.decode(shown, skip_special_tokens=True)
    assert all(kept[k]["text"] != skipped[k]["text"] for k in with_special)
