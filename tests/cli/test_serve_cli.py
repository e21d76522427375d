"""Tests of `mobile-r1 serve`: a real server process answering OpenAI requests on loopback, and its errors."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable, Iterator

import httpx
import openai
import pytest

from mobile_r1.cli.main import main
from mobile_r1.serve import free_port


def start(*args: str) -> tuple[subprocess.Popen[bytes], int]:
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "mobile_r1.cli.main", "serve", "--port", str(port), *args],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 120
    while True:
        try:
            httpx.get(f"http://127.0.0.1:{port}/health", timeout=2)
            return proc, port
        except httpx.TransportError:
            assert proc.poll() is None, proc.stdout.read().decode() if proc.stdout else ""
            assert time.monotonic() < deadline, "server did not start"
            time.sleep(0.2)


def stop(proc: subprocess.Popen[bytes]) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=5)


@pytest.fixture
def server() -> Iterator[Callable[..., int]]:
    procs: list[subprocess.Popen[bytes]] = []

    def run(*args: str) -> int:
        proc, port = start(*args)
        procs.append(proc)
        return port

    yield run
    for proc in procs:
        stop(proc)


def outward_address() -> str | None:
    """An address of this machine other than loopback, if it has one."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            s.connect(("192.0.2.1", 9))  # no packet is sent: this only picks the outgoing interface
            address = str(s.getsockname()[0])
        except OSError:
            return None
    return None if address.startswith("127.") else address


@pytest.mark.slow
def test_serve_process_answers_and_stops(server: Callable[..., int]) -> None:
    port = server("--model", "echo", "--name", "echo-1")
    models = httpx.get(f"http://127.0.0.1:{port}/v1/models", timeout=2).json()
    assert models["data"][0]["id"] == "echo-1"
    client = openai.OpenAI(base_url=f"http://127.0.0.1:{port}/v1", api_key="none", max_retries=0)
    reply = client.chat.completions.create(model="echo-1", messages=[{"role": "user", "content": "hello there"}])
    assert reply.choices[0].message.content == "hello there"
    address = outward_address()
    if address is not None:  # bound to 127.0.0.1 only: the machine's other address does not answer
        with pytest.raises(httpx.ConnectError):
            httpx.get(f"http://{address}:{port}/health", timeout=2)


@pytest.mark.slow
def test_serve_a_model_with_adapters(server: Callable[..., int], tmp_path: Path,
                                     set_lora_b: Callable[..., None]) -> None:
    import torch
    from peft import LoraConfig, get_peft_model

    from mobile_r1.models import load_policy

    torch.manual_seed(0)
    model = get_peft_model(load_policy("tiny-lm").model, LoraConfig(r=4, lora_alpha=8, target_modules="all-linear"))
    set_lora_b(model, 0.5, seed=0)
    model.save_pretrained(tmp_path / "adapter")
    port = server("--model", "hf:tiny-lm", "--name", "tiny", "--max-batch", "4", "--lora", f"first={tmp_path / 'adapter'}",
                  "--lora-updates", "--max-tokens-limit", "64")
    base = f"http://127.0.0.1:{port}/v1"
    assert [m["id"] for m in httpx.get(base + "/models", timeout=5).json()["data"]] == ["tiny", "first"]
    r = httpx.post(base + "/load_lora_adapter", json={"lora_name": "second", "lora_path": str(tmp_path / "adapter")},
                   timeout=30)
    assert r.status_code == 200
    client = openai.OpenAI(base_url=base, api_key="none", max_retries=0)
    reply = client.chat.completions.create(model="second", messages=[{"role": "user", "content": "hi"}], max_tokens=5,
                                           temperature=0)
    assert reply.model == "second" and reply.usage is not None and reply.usage.prompt_tokens > 0
    with pytest.raises(openai.BadRequestError, match="limit of 64"):
        client.chat.completions.create(model="tiny", messages=[{"role": "user", "content": "hi"}], max_tokens=65)


def test_serve_unknown_model_is_a_clean_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "--model", "hf:/no/such/model-dir", "--port", str(free_port())]) == 2
    err = capsys.readouterr().err
    assert "cannot load model" in err and "Traceback" not in err
    assert main(["serve", "--model", "echo", "--lora", "nameonly", "--port", str(free_port())]) == 2
    assert "NAME=FOLDER" in capsys.readouterr().err
