"""Tests of `mobile-r1 serve`: a real server process answering OpenAI requests on loopback, and its errors."""

from __future__ import annotations

import subprocess
import sys
import time

import httpx
import openai
import pytest

from mobile_r1.cli.main import main
from mobile_r1.serve import free_port


def test_serve_process_answers_and_stops() -> None:
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "mobile_r1.cli.main", "serve", "--model", "echo", "--port", str(port), "--name", "echo-1"],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                models = httpx.get(f"http://127.0.0.1:{port}/v1/models", timeout=2).json()
                break
            except httpx.TransportError:
                assert proc.poll() is None, proc.stdout.read().decode() if proc.stdout else ""
                assert time.monotonic() < deadline, "server did not start"
                time.sleep(0.2)
        assert models["data"][0]["id"] == "echo-1"
        client = openai.OpenAI(base_url=f"http://127.0.0.1:{port}/v1", api_key="none", max_retries=0)
        reply = client.chat.completions.create(model="echo-1", messages=[{"role": "user", "content": "hello there"}])
        assert reply.choices[0].message.content == "hello there"
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=5)


def test_serve_unknown_model_is_a_clean_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "--model", "hf:/no/such/model-dir", "--port", str(free_port())]) == 2
    err = capsys.readouterr().err
    assert "cannot load model" in err and "Traceback" not in err
