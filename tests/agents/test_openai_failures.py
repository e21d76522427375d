"""The `openai:` agent against a misbehaving endpoint (a real HTTP server on loopback that answers from a script):
Retry-After honoured, malformed replies retried then recorded as an agent error, and secrets never written."""

from __future__ import annotations

import asyncio
import http.server
import json
import threading
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest

from mobile_r1.agents import AgentRequest
from mobile_r1.agents.openai_agent import OpenAIAgent
from mobile_r1.agents.options import redact_options, redact_url, validate_agent_options
from mobile_r1.cli.main import main
from mobile_r1.core.actions import Action
from mobile_r1.core.errors import ConfigError
from mobile_r1.core.records import Observation
from mobile_r1.eval.runner import EvalConfig, run_eval

CLICK = '<tool_call>\n{"name": "mobile_use", "arguments": {"action": "click", "coordinate": [3, 4]}}\n</tool_call>'
TERMINATE = '<tool_call>\n{"name": "mobile_use", "arguments": {"action": "terminate", "status": "success"}}\n</tool_call>'


def completion(text: str) -> bytes:
    return json.dumps({"id": "c", "object": "chat.completion", "created": 0, "model": "m",
                       "choices": [{"index": 0, "finish_reason": "stop",
                                    "message": {"role": "assistant", "content": text}}]}).encode()


OK = (200, {}, completion(CLICK))
NOT_JSON = (200, {}, b'{"choices": [')
NO_CHOICES = (200, {}, b'{"id": "c", "object": "chat.completion", "created": 0, "model": "m", "choices": []}')


class Endpoint:
    """Answers POSTs from `script` in turn (the last entry repeats); records each request's path and headers."""

    def __init__(self, script: list[tuple[int, dict[str, str], bytes]]) -> None:
        self.script = list(script)
        self.requests: list[str] = []
        endpoint = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                self.rfile.read(int(self.headers.get("content-length") or 0))
                endpoint.requests.append(self.path)
                status, headers, body = endpoint.script.pop(0) if len(endpoint.script) > 1 else endpoint.script[0]
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(body)))
                for key, value in headers.items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_port}/v1"

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def endpoint() -> Iterator[type[Endpoint]]:
    made: list[Endpoint] = []

    def make(script: list[tuple[int, dict[str, str], bytes]]) -> Endpoint:
        made.append(Endpoint(script))
        return made[-1]

    yield make  # type: ignore[misc]
    for e in made:
        e.close()


@pytest.fixture
def waits(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """Every wait the agent asks for (asyncio or anyio), recorded instead of slept."""
    recorded: list[float] = []

    async def fake(delay: float, *args: object, **kwargs: object) -> None:
        recorded.append(float(delay))

    monkeypatch.setattr(asyncio, "sleep", fake)
    monkeypatch.setattr(anyio, "sleep", fake)
    return recorded


OBS = Observation(screen_size=(1080, 2400))


def test_retry_after_is_honoured(endpoint, waits: list[float]) -> None:  # type: ignore[no-untyped-def]
    server = endpoint([(429, {"retry-after": "30"}, b'{"error": {"message": "slow down"}}'), OK])
    out = OpenAIAgent("m", base_url=server.base_url, observation_mode="text").act(AgentRequest("x", OBS))
    assert out.action == Action.click(3, 4) and len(server.requests) == 2
    assert 30.0 in waits  # the server's delay, not the agent's own backoff


def test_malformed_replies_are_asked_again(endpoint, waits: list[float]) -> None:  # type: ignore[no-untyped-def]
    server = endpoint([NOT_JSON, NO_CHOICES, OK])
    out = OpenAIAgent("m", base_url=server.base_url, observation_mode="text").act(AgentRequest("x", OBS))
    assert out.action == Action.click(3, 4) and out.error is None and len(server.requests) == 3


def test_an_endpoint_that_keeps_answering_malformed_gives_an_agent_error(endpoint, waits: list[float]) -> None:  # type: ignore[no-untyped-def]
    server = endpoint([NOT_JSON])
    agent = OpenAIAgent("m", base_url=server.base_url, observation_mode="text", malformed_attempts=2)
    out = agent.act(AgentRequest("x", OBS))
    assert out.action is None and not out.parse.valid and len(server.requests) == 2
    assert out.error is not None and "sent 2 malformed replies" in out.error and "not JSON" in out.error


def test_an_agent_error_ends_the_episode_and_the_run_goes_on(endpoint, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    server = endpoint([NO_CHOICES])
    config = EvalConfig(agent="openai:m", episodes=2, workers=2, observation="text", out=tmp_path / "run",
                        agent_options={"base_url": server.base_url, "malformed_attempts": 2, "malformed_delay": 0})
    result = run_eval(config)
    assert result.ran == 2 and len(result.verdicts) == 2
    for line in (tmp_path / "run" / "episodes.jsonl").read_text().splitlines():
        (step,) = json.loads(line)["steps"]
        assert "malformed replies" in step["agent_error"] and step["action"] is None


def test_a_key_given_as_an_option_is_refused_before_anything_is_written(tmp_path: Path,
                                                                       capsys: pytest.CaptureFixture[str]) -> None:
    run = tmp_path / "run"
    code = main(["eval", "--agent", "openai:m", "--option", "api_key=sk-live-secret-123", "--out", str(run),
                 "--episodes", "1"])
    assert code == 2 and not run.exists()
    err = " ".join(capsys.readouterr().err.split())
    assert "never passed as options" in err and "api_key_env=NAME" in err and "sk-live-secret-123" not in err


def test_an_unknown_option_is_refused_before_anything_is_written(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    run = tmp_path / "run"
    assert main(["eval", "--agent", "openai:m", "--option", "colour=red", "--out", str(run)]) == 2
    assert not run.exists() and "takes no option 'colour'" in capsys.readouterr().err


def test_a_key_inside_the_base_url_is_never_written(endpoint, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    server = endpoint([(200, {}, completion(TERMINATE))])
    secret = "sk-live-secret-1234567890"
    url = server.base_url.replace("http://", f"http://user:{secret}@")
    run = tmp_path / "run"
    assert main(["eval", "--agent", "openai:m", "--base-url", url, "--observation", "text", "--episodes", "1",
                 "--out", str(run)]) == 0
    options = json.loads((run / "run.json").read_text())["agent_options"]
    assert options["base_url"] == server.base_url.replace("http://", "http://***@")
    for path in run.rglob("*"):
        if path.is_file():
            assert secret.encode() not in path.read_bytes(), path
    # resuming with the same URL is the same run
    assert main(["eval", "--agent", "openai:m", "--base-url", url, "--observation", "text", "--episodes", "1",
                 "--out", str(run), "--resume"]) == 0


@pytest.mark.parametrize("url, shown", [
    ("https://user:sk-123456789@api.example.com/v1", "https://***@api.example.com/v1"),
    ("https://api.example.com/v1?api_key=sk-123456789&region=eu", "https://api.example.com/v1?api_key=***&region=eu"),
    ("https://api.example.com/v1?key=abc&access_token=t", "https://api.example.com/v1?key=***&access_token=***"),
    ("https://api.example.com/keys/sk-abcdef1234567890/v1", "https://api.example.com/keys/***/v1"),
    ("http://127.0.0.1:8000/v1", "http://127.0.0.1:8000/v1"),
])
def test_redact_url(url: str, shown: str) -> None:
    assert redact_url(url) == shown


def test_redact_options_and_validate() -> None:
    assert redact_options({"base_url": "http://u:p@h/v1", "api_key_env": "MY_KEY", "max_new_tokens": 8}) == {
        "base_url": "http://***@h/v1", "api_key_env": "MY_KEY", "max_new_tokens": 8}
    validate_agent_options("openai:m", {"api_key_env": "MY_KEY", "temperature": 0.2, "base_url": "http://h/v1"})
    validate_agent_options("hf:tiny-lm", {"max_new_tokens": 8, "batch_size": 2})
    for bad in ({"token": "t"}, {"password": "p"}, {"client_secret": "s"}):
        with pytest.raises(ConfigError, match="never passed as options"):
            validate_agent_options("oracle", bad)
