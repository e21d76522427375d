"""Tests of `HFEngine` behind the HTTP server: batching, n and seeds, stop, length, usage, token ids, logprobs,
streaming and images, each checked against the model itself."""

from __future__ import annotations

import json
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable

import httpx
import openai
import pytest
import torch

from mobile_r1.agents.chat import ChatMessage, ImagePart, TextPart, decode_image
from mobile_r1.agents.hf_agent import generate
from mobile_r1.models import load_policy
from mobile_r1.serve import ChatResult, HFEngine, LoopbackServer, SamplingParams

Lively = Callable[[], Any]
PROMPTS = ["open the settings", "hi", "turn on wifi and then go back to the home screen", "call mom", "what time is it",
           "search for a pizza place nearby and show me the menu"]


def chat(server: LoopbackServer, **body: Any) -> dict[str, Any]:
    body.setdefault("messages", [{"role": "user", "content": "open the settings"}])
    r = httpx.post(server.base_url + "/chat/completions", json=body, timeout=120)
    assert r.status_code == 200, r.text
    return dict(r.json())


class Collect:
    """A sink that keeps what the engine sends."""

    cancelled = False

    def __init__(self) -> None:
        self.done = threading.Event()
        self.result: ChatResult | None = None
        self.deltas: list[Any] = []

    def delta(self, delta: Any) -> None:
        self.deltas.append(delta)

    def finish(self, result: ChatResult) -> None:
        self.result = result
        self.done.set()

    def fail(self, error: BaseException) -> None:
        raise AssertionError(f"the job failed: {error!r}")


def run_together(backend: HFEngine, requests: list[tuple[list[ChatMessage], SamplingParams]]) -> list[ChatResult]:
    """Submit every request before the batch window closes, so that they share one generate call."""
    sinks = []
    for messages, params in requests:
        sink = Collect()
        backend.submit(backend.prepare(messages, params, None), sink)
        sinks.append(sink)
    for sink in sinks:
        assert sink.done.wait(120)
    return [s.result for s in sinks if s.result is not None]


def user(text: str, *images: Any) -> list[ChatMessage]:
    return [ChatMessage("user", (TextPart(text), *(ImagePart(im) for im in images)))]


@pytest.mark.slow
@pytest.mark.parametrize("temperature", [0.0, 1.0])
def test_one_batch_answers_as_in_process_generate_does_one_by_one(temperature: float, lively: Lively) -> None:
    policy = lively()
    backend = HFEngine(policy, batch_window=1.0)  # every request below joins the first one's call
    params = SamplingParams(temperature=temperature, max_tokens=16)
    results = run_together(backend, [(user(p), params) for p in PROMPTS])
    backend.close()
    assert backend.stats()["batches"] == 1 and backend.stats()["requests_done"] == len(PROMPTS)
    alone = [generate(policy, [([{"role": "user", "content": p}], [])], temperature=temperature, max_new_tokens=16,
                      seed=0)[0] for p in PROMPTS]
    assert [r.completions[0].text for r in results] == alone
    assert len(set(alone)) > 1


@pytest.mark.slow
def test_vision_rows_keep_their_own_images_in_a_batch(png_url: Callable[[int, int], str]) -> None:
    from PIL import Image

    policy = load_policy("tiny-vl")
    images = [Image.new("RGB", (56 * (i + 1), 84), (40 * i, 200, 90)) for i in range(3)]
    params = SamplingParams(temperature=0.0, max_tokens=10)
    backend = HFEngine(policy, batch_window=1.0)
    together = run_together(backend, [(user(f"screen {i}", im), params) for i, im in enumerate(images)])
    assert backend.stats()["batches"] == 1
    backend.close()
    one_by_one = HFEngine(policy, batch_window=0.0)
    alone = [run_together(one_by_one, [(user(f"screen {i}", im), params)])[0] for i, im in enumerate(images)]
    one_by_one.close()
    assert [r.completions[0].token_ids for r in together] == [r.completions[0].token_ids for r in alone]
    assert together[0].prompt_tokens != together[1].prompt_tokens  # the images became different numbers of tokens
    # over HTTP, a VL model reads base64 images
    with LoopbackServer(HFEngine(policy), model_name="vl") as server:
        content = [{"type": "text", "text": "screen 0"}, {"type": "image_url", "image_url": {"url": png_url(56, 84)}}]
        reply = chat(server, messages=[{"role": "user", "content": content}], max_tokens=10, temperature=0)
    expected = run_together(HFEngine(policy), [(user("screen 0", decode_image(png_url(56, 84))), params)])[0]
    assert reply["choices"][0]["message"]["content"] == expected.completions[0].text


def test_n_choices_are_requests_with_consecutive_seeds(tiny_server: LoopbackServer) -> None:
    several = chat(tiny_server, n=3, seed=5, temperature=1.0, max_tokens=12)
    single = [chat(tiny_server, seed=5 + i, temperature=1.0, max_tokens=12)["choices"][0]["message"]["content"]
              for i in range(3)]
    texts = [c["message"]["content"] for c in several["choices"]]
    assert [c["index"] for c in several["choices"]] == [0, 1, 2]
    assert texts == single and len(set(texts)) == 3
    # a request without a seed samples with the server's (0), so served sampling is reproducible
    assert (chat(tiny_server, temperature=1.0, max_tokens=12)["choices"][0]["message"]
            == chat(tiny_server, temperature=1.0, max_tokens=12, seed=0)["choices"][0]["message"])
    greedy = chat(tiny_server, n=2, temperature=0, max_tokens=12)["choices"]
    assert greedy[0]["message"] == greedy[1]["message"]


def test_length_usage_and_token_ids(tiny_server: LoopbackServer) -> None:
    tokenizer = load_policy("tiny-lm").tokenizer
    messages = [{"role": "system", "content": "be brief"}, {"role": "user", "content": "open the settings"}]
    reply = chat(tiny_server, messages=messages, max_tokens=7, ignore_eos=True, return_token_ids=True, n=2,
                 temperature=1.0)
    prompt = tokenizer.apply_chat_template(messages, tokenize=False, add_generation_prompt=True)
    prompt_ids = tokenizer(prompt, add_special_tokens=False).input_ids
    assert reply["prompt_token_ids"] == prompt_ids
    assert reply["model"] == "tiny"
    for choice in reply["choices"]:
        assert choice["finish_reason"] == "length" and len(choice["token_ids"]) == 7
        shown = [t for t in choice["token_ids"] if t not in (tokenizer.eos_token_id, tokenizer.pad_token_id)]
        assert choice["message"]["content"] == tokenizer.decode(shown, skip_special_tokens=False)
    assert reply["usage"] == {"prompt_tokens": len(prompt_ids), "completion_tokens": 14,
                              "total_tokens": len(prompt_ids) + 14}
    plain = chat(tiny_server, messages=messages, max_tokens=7)
    assert "prompt_token_ids" not in plain and "token_ids" not in plain["choices"][0]


def test_stop_strings_and_stop_tokens(tiny_server: LoopbackServer) -> None:
    free = chat(tiny_server, temperature=0, max_tokens=30, ignore_eos=True, return_token_ids=True)["choices"][0]
    text = free["message"]["content"]
    stop = next(text[k:k + 2] for k in range(len(text) // 2, len(text) - 2) if "\ufffd" not in text[k:k + 2])
    cut = chat(tiny_server, temperature=0, max_tokens=30, ignore_eos=True, stop=[stop, "never appears"])
    assert cut["choices"][0]["message"]["content"] == text[: text.find(stop)]
    assert cut["choices"][0]["finish_reason"] == "stop"
    kept = chat(tiny_server, temperature=0, max_tokens=30, ignore_eos=True, stop=stop, include_stop_str_in_output=True)
    assert kept["choices"][0]["message"]["content"] == text[: text.find(stop) + len(stop)]
    token = free["token_ids"][4]
    by_id = chat(tiny_server, temperature=0, max_tokens=30, ignore_eos=True, stop_token_ids=[token],
                 return_token_ids=True)["choices"][0]
    assert by_id["token_ids"] == free["token_ids"][: free["token_ids"].index(token) + 1]
    assert by_id["finish_reason"] == "stop"


def test_logprobs_are_the_models_own(tiny_server: LoopbackServer, lively: Lively) -> None:
    policy = lively()
    reply = chat(tiny_server, temperature=1.0, seed=3, max_tokens=8, ignore_eos=True, logprobs=True, top_logprobs=3,
                 return_token_ids=True)
    choice = reply["choices"][0]
    content = choice["logprobs"]["content"]
    ids = reply["prompt_token_ids"] + choice["token_ids"]
    with torch.no_grad():
        logits = policy.model(input_ids=torch.tensor([ids])).logits[0]
    expected = torch.log_softmax(logits.float(), dim=-1)
    start = len(reply["prompt_token_ids"])
    assert len(content) == len(choice["token_ids"]) == 8
    for k, (token, entry) in enumerate(zip(choice["token_ids"], content)):
        assert entry["logprob"] == pytest.approx(float(expected[start + k - 1, token]), abs=1e-4)
        assert entry["token"] == policy.tokenizer.decode([token])
        tops = [t["logprob"] for t in entry["top_logprobs"]]
        assert len(tops) == 3 and tops == sorted(tops, reverse=True) and tops[0] >= entry["logprob"]
        assert tops[0] == pytest.approx(float(expected[start + k - 1].max()), abs=1e-4)


def test_streaming_gives_what_the_whole_answer_gives(tiny_server: LoopbackServer) -> None:
    body = {"messages": [{"role": "user", "content": "turn on wifi"}], "n": 2, "temperature": 1.0, "seed": 11,
            "max_tokens": 20, "ignore_eos": True, "return_token_ids": True, "logprobs": True}
    whole = chat(tiny_server, **body)
    with httpx.stream("POST", tiny_server.base_url + "/chat/completions", timeout=60,
                      json={**body, "stream": True, "stream_options": {"include_usage": True}}) as r:
        assert r.headers["content-type"].startswith("text/event-stream")
        lines = [line for line in r.iter_lines() if line]
    assert all(line.startswith("data: ") for line in lines) and lines[-1] == "data: [DONE]"
    chunks = [json.loads(line[6:]) for line in lines[:-1]]
    assert all(c["object"] == "chat.completion.chunk" and c["id"] == chunks[0]["id"] for c in chunks)
    assert chunks[0]["prompt_token_ids"] == whole["prompt_token_ids"]
    assert [c["delta"] for c in chunks[0]["choices"]] == [{"role": "assistant", "content": ""}] * 2
    assert chunks[-1]["choices"] == [] and chunks[-1]["usage"] == whole["usage"]
    for index, choice in enumerate(whole["choices"]):
        mine = [c["choices"][0] for c in chunks[1:-1] if c["choices"][0]["index"] == index]
        assert "".join(c["delta"].get("content", "") for c in mine) == choice["message"]["content"]
        assert sum((c["token_ids"] for c in mine), []) == choice["token_ids"]
        assert sum((c["logprobs"]["content"] for c in mine if c["logprobs"]), []) == choice["logprobs"]["content"]
        assert [c["finish_reason"] for c in mine if c["finish_reason"]] == ["length"]
    # the OpenAI client reads the stream
    client = openai.OpenAI(base_url=tiny_server.base_url, api_key="none", max_retries=0)
    stream = client.chat.completions.create(model="tiny", messages=body["messages"], temperature=1.0, seed=11,
                                            max_tokens=20, stream=True, extra_body={"ignore_eos": True})
    assert "".join(c.choices[0].delta.content or "" for c in stream if c.choices) == \
        whole["choices"][0]["message"]["content"]


def test_stream_holds_back_the_start_of_a_stop_string(tiny_server: LoopbackServer) -> None:
    free = chat(tiny_server, temperature=0, max_tokens=30, ignore_eos=True)["choices"][0]["message"]["content"]
    stop = free[len(free) // 2: len(free) // 2 + 3]
    with httpx.stream("POST", tiny_server.base_url + "/chat/completions", timeout=60,
                      json={"messages": [{"role": "user", "content": "open the settings"}], "temperature": 0,
                            "max_tokens": 30, "ignore_eos": True, "stop": [stop], "stream": True}) as r:
        pieces = [json.loads(line[6:])["choices"][0]["delta"].get("content", "")
                  for line in r.iter_lines() if line.startswith("data: {")]
    assert "".join(pieces) == free[: free.find(stop)]
    assert not any(stop in p for p in pieces)


def test_concurrent_openai_clients(tiny_server: LoopbackServer) -> None:
    client = openai.OpenAI(base_url=tiny_server.base_url, api_key="none", max_retries=0)

    def ask(prompt: str) -> str:
        reply = client.chat.completions.create(model="tiny", messages=[{"role": "user", "content": prompt}],
                                               temperature=0, max_tokens=10)
        assert reply.usage is not None and reply.usage.completion_tokens >= 1
        return reply.choices[0].message.content or ""

    with ThreadPoolExecutor(len(PROMPTS)) as pool:
        together = list(pool.map(ask, PROMPTS))
    assert together == [ask(p) for p in PROMPTS]
