"""What broke `mobile-r1 serve` when tried adversarially: each is refused with a clear 4xx and the server keeps serving."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Callable, Iterator

import httpx
import pytest

from mobile_r1.models import load_policy
from mobile_r1.serve import HFEngine, LoopbackServer, ServerSettings

HI = [{"role": "user", "content": "hi"}]
PngUrl = Callable[[int, int], str]


def post(server: LoopbackServer, body: Any = None, *, content: bytes | None = None, timeout: float = 60) -> httpx.Response:
    url = server.base_url + "/chat/completions"
    if content is not None:
        return httpx.post(url, content=content, headers={"content-type": "application/json"}, timeout=timeout)
    return httpx.post(url, json=body, timeout=timeout)


def message(response: httpx.Response) -> str:
    return str(response.json()["error"]["message"])


def still_serving(server: LoopbackServer) -> None:
    assert httpx.get(server.url + "/health", timeout=10).json()["status"] == "ok"
    reply = post(server, {"messages": HI, "max_tokens": 3, "temperature": 0})
    assert reply.status_code == 200 and reply.json()["usage"]["completion_tokens"] >= 1


def test_huge_max_tokens_is_refused(tiny_server: LoopbackServer) -> None:
    r = post(tiny_server, {"messages": HI, "max_tokens": 10**9})
    assert r.status_code == 400 and "max_tokens=1000000000" in message(r) and "4096" in message(r)
    r = post(tiny_server, {"messages": HI, "max_tokens": 4090})  # under the limit, over the room the prompt leaves
    assert r.status_code == 400 and "maximum context length is 4096" in message(r)
    still_serving(tiny_server)


def test_prompt_longer_than_the_context_is_refused_before_generation(tiny_server: LoopbackServer) -> None:
    five_mb = "tap the button " * (5 * 2**20 // 15)
    r = post(tiny_server, {"messages": [{"role": "user", "content": five_mb}]})
    # refused from the size of its text alone, without tokenising 5 MB
    assert r.status_code == 400 and "bytes of text" in message(r) and "context is 4096 tokens" in message(r)
    r = post(tiny_server, {"messages": [{"role": "user", "content": "hi"}] * 1000})  # 1,000 messages
    assert r.status_code == 400 and "maximum context length is 4096 tokens" in message(r)
    still_serving(tiny_server)


@pytest.mark.parametrize(("content", "expected"), [
    (5, "content must be a string or a list of parts"),
    (["a"], "part 0 must be"),
    ([{"type": "audio", "data": "x"}], "part 0 must be"),
    ([{"type": "text", "text": 5}], "valid string"),
])
def test_malformed_content_is_a_422(tiny_server: LoopbackServer, content: Any, expected: str) -> None:
    r = post(tiny_server, {"messages": [{"role": "user", "content": content}]})
    assert r.status_code == 422 and expected in message(r) and "messages.0.content" in message(r)


def test_nan_temperature_and_bad_json(tiny_server: LoopbackServer) -> None:
    r = post(tiny_server, content=b'{"messages": [{"role": "user", "content": "hi"}], "temperature": NaN}')
    assert r.status_code == 422 and "temperature" in message(r) and "finite" in message(r)
    r = post(tiny_server, content=b'{"messages": [{"role": "user", "content": "hi"}')
    assert r.status_code == 400 and "not valid JSON" in message(r)
    r = post(tiny_server, content=b"[" * 100_000 + b"]" * 100_000)
    assert r.status_code == 400 and "JSON" in message(r)
    r = post(tiny_server, content=b'["a list"]')
    assert r.status_code == 400 and "JSON object" in message(r)
    r = post(tiny_server, content=b'{"messages": [{"role": "user", "content": "\\ud800"}]}')
    assert r.status_code == 400 and "not valid Unicode" in message(r)
    still_serving(tiny_server)


def test_unsupported_fields_are_named(tiny_server: LoopbackServer) -> None:
    r = post(tiny_server, {"messages": HI, "frobnicate": 1})
    assert r.status_code == 422 and "frobnicate: unsupported field" in message(r)
    r = post(tiny_server, {"messages": HI, "tools": [{"type": "function", "function": {"name": "f"}}]})
    assert r.status_code == 400 and "tools are not supported" in message(r)
    r = post(tiny_server, {"messages": HI, "presence_penalty": 0.5})
    assert r.status_code == 400 and "presence_penalty" in message(r)
    r = post(tiny_server, {"messages": [{"role": "tool", "content": "x"}]})
    assert r.status_code == 422 and "messages.0.role" in message(r)
    r = post(tiny_server, {"messages": HI, "n": 1000})
    assert r.status_code == 400 and "n=1000" in message(r)
    r = post(tiny_server, {"messages": HI, "top_logprobs": 3})
    assert r.status_code == 400 and "needs logprobs" in message(r)
    r = post(tiny_server, {"messages": HI, "stop_token_ids": [10**6]})
    assert r.status_code == 400 and "not token ids" in message(r)
    assert post(tiny_server, {"messages": []}).status_code == 422


def test_decompression_bomb_png_is_refused_from_its_header(tiny_server: LoopbackServer, png_url: PngUrl) -> None:
    bomb = png_url(20000, 20000)
    assert len(bomb) < 70_000  # 48 KB of PNG, base64-encoded
    content = [{"type": "text", "text": "what is this?"}, {"type": "image_url", "image_url": {"url": bomb}}]
    r = post(tiny_server, {"messages": [{"role": "user", "content": content}]})
    assert r.status_code == 400 and "pixels" in message(r)
    still_serving(tiny_server)


@pytest.mark.filterwarnings("ignore::PIL.Image.DecompressionBombWarning")  # PIL warns on opening; we refuse after
def test_many_huge_images_are_refused_before_decoding(tiny_server: LoopbackServer, png_url: PngUrl) -> None:
    big = {"type": "image_url", "image_url": {"url": png_url(12000, 12000)}}
    r = post(tiny_server, {"messages": [{"role": "user", "content": [big] * 8}]})
    assert r.status_code == 400 and "12000x12000" in message(r) and "above the limit of 16777216" in message(r)
    # each under the bound, together over it
    four = {"type": "image_url", "image_url": {"url": png_url(4000, 4000)}}
    r = post(tiny_server, {"messages": [{"role": "user", "content": [four] * 4}]})
    assert r.status_code == 400 and "in all" in message(r)
    # within both bounds, the text model still refuses images, after decoding them
    small = {"type": "image_url", "image_url": {"url": png_url(28, 28)}}
    r = post(tiny_server, {"messages": [{"role": "user", "content": [small]}]})
    assert r.status_code == 400 and "reads no images" in message(r)
    still_serving(tiny_server)


@pytest.mark.slow
def test_fifty_concurrent_clients_are_all_answered(tiny_server: LoopbackServer) -> None:
    before = httpx.get(tiny_server.url + "/health", timeout=10).json()

    def ask(i: int) -> httpx.Response:
        return post(tiny_server, {"messages": [{"role": "user", "content": f"task {i}"}], "max_tokens": 4,
                                  "temperature": 0}, timeout=120)

    with ThreadPoolExecutor(50) as pool:
        replies = list(pool.map(ask, range(50)))
    assert [r.status_code for r in replies] == [200] * 50
    after = httpx.get(tiny_server.url + "/health", timeout=10).json()
    assert after["requests_done"] - before["requests_done"] == 50
    assert after["batches"] - before["batches"] < 50  # requests shared generate calls
    assert after["waiting"] == 0 and after["running"] == 0


@pytest.fixture(scope="module")
def small_body_server() -> Iterator[LoopbackServer]:
    backend = HFEngine(load_policy("tiny-lm"))
    with LoopbackServer(backend, settings=ServerSettings(max_request_bytes=2**20)) as server:
        yield server


def test_request_size_is_bounded(small_body_server: LoopbackServer) -> None:
    big = {"messages": [{"role": "user", "content": "x" * 2**21}]}
    r = post(small_body_server, big)
    assert r.status_code == 413 and "1048576 bytes" in message(r)

    def chunks() -> Iterator[bytes]:  # no Content-Length: the limit holds while reading
        yield b'{"messages": [{"role": "user", "content": "'
        for _ in range(40):
            yield b"y" * 65536
        yield b'"}]}'

    r = httpx.post(small_body_server.base_url + "/chat/completions", content=chunks(), timeout=30)
    assert r.status_code == 413
    still_serving(small_body_server)


def test_health_and_models_answer_while_a_long_batch_runs(tiny_server: LoopbackServer) -> None:
    body = {"messages": HI, "max_tokens": 3000, "ignore_eos": True, "temperature": 0, "stream": True}
    with httpx.stream("POST", tiny_server.base_url + "/chat/completions", json=body, timeout=60) as stream:
        lines = stream.iter_lines()
        assert next(lines).startswith("data: ")  # the request is queued ...
        while '"content": ""' in (line := next(lines)) or not line:
            pass  # ... and generating
        health = httpx.get(tiny_server.url + "/health", timeout=10).json()
        assert health["running"] >= 1
        models = httpx.get(tiny_server.base_url + "/models", timeout=10).json()
        assert models["data"][0]["id"] == "tiny"
        # another client is answered while the long request goes on: the batch makes room for it
        short = post(tiny_server, {"messages": [{"role": "user", "content": "quick"}], "max_tokens": 2})
        assert short.status_code == 200
        assert '"finish_reason": "length"' not in next(lines)  # the long one is still generating
    # leaving the block closed the stream: its generation stops and the server is idle again
    finished = threading.Event()

    def idle() -> bool:
        health = httpx.get(tiny_server.url + "/health", timeout=10).json()
        return health["running"] == 0 and health["waiting"] == 0

    for _ in range(600):
        if idle():
            finished.set()
            break
        finished.wait(0.05)
    assert finished.is_set()
    assert httpx.get(tiny_server.url + "/health", timeout=10).json()["preemptions"] >= 1
    still_serving(tiny_server)


def test_a_client_that_gives_up_stops_its_generation(tiny_server: LoopbackServer) -> None:
    before = httpx.get(tiny_server.url + "/health", timeout=10).json()["rows_aborted"]
    with pytest.raises(httpx.ReadTimeout):
        post(tiny_server, {"messages": HI, "max_tokens": 4000, "ignore_eos": True}, timeout=1.0)
    for _ in range(600):
        health = httpx.get(tiny_server.url + "/health", timeout=10).json()
        if health["rows_aborted"] > before:
            break
        threading.Event().wait(0.05)
    assert health["rows_aborted"] == before + 1 and health["running"] == 0
    still_serving(tiny_server)


def test_a_full_queue_answers_503() -> None:
    backend = HFEngine(load_policy("tiny-lm"), max_waiting=2, batch_window=600.0)  # rows wait out the window
    with LoopbackServer(backend) as server:
        body = {"messages": HI, "max_tokens": 2}
        with ThreadPoolExecutor(2) as pool:
            queued = pool.submit(post, server, {**body, "n": 2})
            for _ in range(600):
                if httpx.get(server.url + "/health", timeout=10).json()["waiting"] == 2:
                    break
                threading.Event().wait(0.05)
            r = post(server, body)
            assert r.status_code == 503 and "retry later" in message(r)
            backend.close()  # closing ends the window: the queued request runs and is answered
            assert queued.result().status_code == 200
