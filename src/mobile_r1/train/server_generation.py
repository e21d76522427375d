"""Sampling through an OpenAI-compatible server (vLLM, SGLang, `mobile-r1 serve`) instead of in-process `generate`.

    generation = ServerGeneration(config.generation, policy, run_dir, accelerator)
    generation.sync(step)                                    # publish the adapter if the weights changed since
    sampler = generation.sampler(Sampling(1.0, 1.0, 128))    # a stage-3 `Sampler`: prompts -> completion ids
    groups = generation.sample(prompts, sampling, n=4)       # stage 2: G completions per prompt, grouped

The prompts are already tokenised (`PromptInput.ids`, built from the dialect's messages with the policy's chat
template), so each goes as one POST `base_url/completions` whose `prompt` is the list of token ids, as vLLM's
completions API takes it (`vllm/entrypoints/openai/completion/protocol.py`: `prompt: list[int]`) and `mobile-r1 serve`
does too: the server samples from exactly the tokens the trainer scores. With `return_token_ids` (vLLM's field) every
choice comes back with the ids it sampled, the end token included, and those are what the trainer learns from: no
re-tokenisation. A server that answers text only (`generation.token_ids: false`, or one that ignores the field) has
its text re-tokenised, with the end token put back when the completion ended on it; then `gen_retokenize_drift` logs
how often the text does not survive a tokenise-decode round trip. When the ids do come back, the text is re-tokenised
anyway and compared with them (`gen_retokenize_drift`, `gen_drift_tokens`), which measures what re-tokenising would
have changed.

The requests of a batch are sent together from a thread pool (at most `max_concurrency` in flight); the server
batches them. Each request carries its own seed, drawn from torch's global generator, so a run is reproducible from
`run.seed` and a resumed run (which restores that generator) draws the seeds the uninterrupted one drew; choice `i` of
a request with `n` choices samples from seed + i on vLLM and `mobile-r1 serve`. The request also sends the policy's
end tokens as `stop_token_ids`, so the server stops where in-process `sample` stops, and `skip_special_tokens: false`,
so the text keeps the dialects' tags (special tokens in the presets' tokenizer) should it need re-tokenising.

Publishing. The server samples from the adapter the trainer last published: after every optimizer step (and before
the first rollout, or the first after a resume) the main process writes the policy's LoRA adapter with
`save_pretrained` to `adapter_dir/step-N` (into `step-N.tmp` first, then renamed, so the server never reads a half
written folder) and POSTs `{"lora_name": NAME, "lora_path": FOLDER, "load_inplace": true}` to the adapter-load
endpoint, vLLM's `/v1/load_lora_adapter` ("Dynamically serving LoRA Adapters", https://docs.vllm.ai/en/latest/features/lora/:
the server needs `--enable-lora` and `VLLM_ALLOW_RUNTIME_LORA_UPDATING=True`; `load_inplace` replaces an adapter of
the same name), which `mobile-r1 serve --lora-updates` implements, and SGLang serves at `/load_lora_adapter`
(https://docs.sglang.io/docs/advanced_features/lora). Generation requests then name the adapter in `model`. The
folder must be readable by the server at the same path (a shared disk when it runs elsewhere). The other processes
wait at a barrier until the server has loaded it. Only LoRA policies can be published: with full fine-tuning every
step would need the server to reload the whole model, which these endpoints do not do, so that is refused
(`check_generation`). The two newest adapter folders are kept.
"""

from __future__ import annotations

import difflib
import os
import shutil
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import torch
from accelerate import Accelerator

from mobile_r1.core.errors import ConfigError, ServiceError
from mobile_r1.models.generation import PromptInput, Sampling, eos_ids
from mobile_r1.models.policy import Policy, unwrap
from mobile_r1.train.config import GenerationConfig, TrainConfig
from mobile_r1.train.rollout import Sampler

if TYPE_CHECKING:
    import httpx

ADAPTER_FOLDER = "served-adapter"
KEEP_ADAPTERS = 2
RETRY_STATUSES = (408, 429, 500, 502, 503, 504)


def check_generation(config: TrainConfig) -> None:
    """Fail before a model loads on settings server generation cannot run with."""
    if config.generation.backend != "server":
        return
    name = Path(config.model.name)
    if config.model.lora is None and not (name / "adapter_config.json").is_file():
        raise ConfigError("generation.backend: server needs a LoRA policy (model.lora, or model.name an adapter "
                          "folder): the trainer publishes its adapter after every step for the server to load; with "
                          "full fine-tuning the server would have to reload the whole model each step, which is not "
                          "supported; use generation.backend: hf")
    if config.run.distributed == "fsdp":
        raise ConfigError("generation.backend: server does not publish FSDP-sharded adapters yet; use run.distributed: "
                          "ddp or generation.backend: hf")


@dataclass
class GenerationStats:
    """What one step's sampling through the server did (reset by `ServerGeneration.take_metrics`)."""

    requests: int = 0
    completions: int = 0
    with_ids: int = 0  # completions whose token ids the server returned
    drifted: int = 0  # completions whose re-tokenised text differs from the ids (or fails the round trip)
    drift_tokens: int = 0  # tokens that differ, over completions with ids
    seconds: float = 0.0
    publishes: int = 0
    publish_seconds: float = 0.0

    def metrics(self) -> dict[str, float]:
        n = max(self.completions, 1)
        out = {
            "gen_requests": float(self.requests),
            "gen_completions": float(self.completions),
            "gen_server_ids": self.with_ids / n,
            "gen_retokenize_drift": self.drifted / n,
            "gen_drift_tokens": self.drift_tokens / max(self.with_ids, 1),
            "gen_seconds": self.seconds,
        }
        if self.publishes:
            out["publish_seconds"] = self.publish_seconds
        return out


@dataclass(frozen=True)
class Choice:
    """One completion as the server returned it."""

    text: str
    token_ids: list[int] | None
    finish_reason: str | None


class ServerClient:
    """The HTTP side: completions with token-id prompts, adapter loading, a reachability check (httpx)."""

    def __init__(self, settings: GenerationConfig) -> None:
        import httpx

        self.settings = settings
        self.base_url = settings.base_url.rstrip("/")
        self.load_url = settings.load_url or f"{self.base_url}/load_lora_adapter"
        headers = {}
        if settings.api_key_env:
            key = os.environ.get(settings.api_key_env)
            if not key:
                raise ConfigError(f"generation.api_key_env: the environment variable {settings.api_key_env} is unset")
            headers["Authorization"] = f"Bearer {key}"
        limits = httpx.Limits(max_connections=settings.max_concurrency, max_keepalive_connections=settings.max_concurrency)
        self._http = httpx.Client(timeout=settings.timeout, headers=headers, limits=limits)

    def check(self) -> list[str]:
        """The models the server lists (GET base_url/models); a ServiceError naming the URL when it does not answer."""
        body = self._request("GET", f"{self.base_url}/models", None, "list its models")
        return [str(m.get("id")) for m in body.get("data", []) if isinstance(m, dict)]

    def complete(self, prompt: list[int], body: dict[str, Any]) -> list[Choice]:
        """The choices of one completions request for a token-id prompt."""
        answer = self._request("POST", f"{self.base_url}/completions", {**body, "prompt": prompt}, "generate")
        choices = sorted(answer.get("choices") or [], key=lambda c: c.get("index", 0))
        out = []
        for c in choices:
            ids = c.get("token_ids")
            out.append(Choice(str(c.get("text") or ""), [int(t) for t in ids] if isinstance(ids, list) else None,
                              c.get("finish_reason")))
        if len(out) != body.get("n", 1):
            raise ServiceError(f"the generation server at {self.base_url} answered {len(out)} choices for n="
                               f"{body.get('n', 1)}")
        return out

    def load_adapter(self, name: str, folder: Path) -> None:
        self._request("POST", self.load_url, {"lora_name": name, "lora_path": str(folder), "load_inplace": True},
                      f"load the adapter in {folder}", json_answer=False)

    def close(self) -> None:
        self._http.close()

    def _request(self, method: str, url: str, body: dict[str, Any] | None, what: str,
                 json_answer: bool = True) -> dict[str, Any]:
        import httpx

        tries = self.settings.retries + 1
        for attempt in range(tries):
            try:
                response = self._http.request(method, url, json=body)
            except httpx.TransportError as exc:
                if attempt + 1 < tries:
                    time.sleep(min(2.0**attempt, 10.0))
                    continue
                raise ServiceError(f"the generation server at {url} did not answer ({type(exc).__name__}: {exc}) "
                                   f"when asked to {what}; is it running (mobile-r1 serve --lora-updates, or vLLM)? "
                                   "check generation.base_url") from None
            if response.status_code in RETRY_STATUSES and attempt + 1 < tries:
                time.sleep(min(2.0**attempt, 10.0))
                continue
            if response.status_code != 200:
                raise ServiceError(self._refusal(url, response, what))
            if not json_answer:
                return {}
            try:
                answer = response.json()
            except ValueError:
                raise ServiceError(f"the generation server at {url} answered something that is not JSON when asked to "
                                   f"{what}: {response.text[:200]!r}") from None
            if not isinstance(answer, dict):
                raise ServiceError(f"the generation server at {url} answered {type(answer).__name__} when asked to {what}")
            return answer
        raise AssertionError("unreachable")

    def _refusal(self, url: str, response: httpx.Response, what: str) -> str:
        try:
            detail = response.json().get("error", {}).get("message") or response.text
        except (ValueError, AttributeError):
            detail = response.text
        message = f"the generation server at {url} answered {response.status_code} when asked to {what}: {str(detail)[:400]}"
        if url == self.load_url:
            message += ("; the server must allow runtime LoRA updates (mobile-r1 serve --lora-updates; vLLM: --enable-lora "
                        "and VLLM_ALLOW_RUNTIME_LORA_UPDATING=True) and read the adapter folder at the same path "
                        "(generation.adapter_dir)")
        return message


class ServerGeneration:
    """The trainer's side of generation through a server: publishes the policy's adapter, samples, measures drift.

    `sync` is collective (every process calls it at the same points; the main process publishes, the others wait).
    """

    def __init__(self, settings: GenerationConfig, policy: Policy, run_dir: Path,
                 accelerator: Accelerator | None = None) -> None:
        if not policy.uses_lora:
            raise ConfigError("generation.backend: server needs a LoRA policy: the trainer publishes its adapter after "
                              "every step; with full fine-tuning the server would have to reload the whole model")
        self.settings = settings
        self.policy = policy
        self.accelerator = accelerator
        self.adapter_dir = Path(settings.adapter_dir or Path(run_dir) / ADAPTER_FOLDER).expanduser().resolve()
        self.model = settings.model or settings.lora_name
        self.client = ServerClient(settings)
        self.end_ids = eos_ids(policy)
        self.published: int | None = None
        self.stats = GenerationStats()
        self.client.check()  # fail now, not at the first rollout, when nothing answers at base_url
        self._pool = ThreadPoolExecutor(settings.max_concurrency, thread_name_prefix="server-generation")

    # ----- publishing ----------------------------------------------------------------------------------------------

    @property
    def main(self) -> bool:
        return self.accelerator is None or bool(self.accelerator.is_main_process)

    def sync(self, step: int) -> None:
        """Publish the adapter as it is after `step` run-loop steps, unless that one is already served."""
        if self.published == step:
            return
        start = time.perf_counter()
        if self.main:
            folder = self.adapter_dir / f"step-{step}"
            self._save(folder)
            self.client.load_adapter(self.settings.lora_name, folder)
            self._prune(keep=folder)
        if self.accelerator is not None:
            self.accelerator.wait_for_everyone()
        self.published = step
        self.stats.publishes += 1
        self.stats.publish_seconds += time.perf_counter() - start

    def _save(self, folder: Path) -> None:
        """The adapter into `folder`, atomically: written beside it, then renamed into place."""
        tmp = folder.with_name(folder.name + ".tmp")
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.parent.mkdir(parents=True, exist_ok=True)
        unwrap(self.policy.model).save_pretrained(tmp)
        if folder.exists():  # the same step published again (a resumed run)
            old = folder.with_name(folder.name + ".old")
            shutil.rmtree(old, ignore_errors=True)
            folder.rename(old)
            tmp.rename(folder)
            shutil.rmtree(old, ignore_errors=True)
        else:
            tmp.rename(folder)

    def _prune(self, keep: Path) -> None:
        steps = []
        for p in self.adapter_dir.iterdir():
            if p.is_dir() and p.name.startswith("step-") and p.name[5:].isdigit():
                steps.append((int(p.name[5:]), p))
        for _, old in sorted(steps)[:-KEEP_ADAPTERS]:
            if old != keep:
                shutil.rmtree(old, ignore_errors=True)

    # ----- sampling ------------------------------------------------------------------------------------------------

    def sampler(self, sampling: Sampling) -> Sampler:
        """A stage-3 `Sampler`: one completion per prompt, sampled by the server with `sampling`."""
        return lambda prompts: self.sample(prompts, sampling)

    def sample(self, prompts: list[PromptInput], sampling: Sampling, n: int = 1) -> list[list[int]]:
        """`n` completions per prompt, grouped (prompt 0's n, then prompt 1's, ...): token ids cut after the first end
        token, as in-process `sample` gives them."""
        if not prompts:
            return []
        if any(p.vision for p in prompts):
            raise ConfigError("generation.backend: server sends prompts as token ids, which carry no images; use "
                              "data.observation_mode: text")
        if self.published is None:
            raise RuntimeError("ServerGeneration.sync must publish the adapter before sampling")
        seeds = torch.randint(0, 2**62, (len(prompts),)).tolist()
        body: dict[str, Any] = {
            "model": self.model, "max_tokens": sampling.max_new_tokens, "temperature": float(sampling.temperature),
            "top_p": float(sampling.top_p), "n": n, "stop_token_ids": self.end_ids, "skip_special_tokens": False,
        }
        if self.settings.token_ids:
            body["return_token_ids"] = True
        start = time.perf_counter()
        answers = list(self._pool.map(lambda args: self.client.complete(args[0], {**body, "seed": args[1]}),
                                      [(list(p.ids), s) for p, s in zip(prompts, seeds)]))
        self.stats.seconds += time.perf_counter() - start
        self.stats.requests += len(prompts)
        return [self._ids(choice) for choices in answers for choice in choices]

    def _ids(self, choice: Choice) -> list[int]:
        """The completion's token ids: the server's where it sent them, else its text re-tokenised (drift counted)."""
        tokenizer = self.policy.tokenizer
        self.stats.completions += 1
        retokenised = list(tokenizer(choice.text, add_special_tokens=False).input_ids)
        if choice.token_ids is not None:
            self.stats.with_ids += 1
            ids = _cut(choice.token_ids, set(self.end_ids))
            body = [t for t in ids if t not in self.end_ids]
            matcher = difflib.SequenceMatcher(a=body, b=retokenised, autojunk=False)
            differ = max(len(body), len(retokenised)) - sum(m.size for m in matcher.get_matching_blocks())
            self.stats.drifted += differ > 0
            self.stats.drift_tokens += differ
            return ids
        back = tokenizer.decode(retokenised, skip_special_tokens=False)
        self.stats.drifted += back != choice.text
        if choice.finish_reason == "stop":
            retokenised.append(self.end_ids[0])
        return retokenised

    def take_metrics(self) -> dict[str, float]:
        """The step's sampling and publishing figures (see `GenerationStats`), then reset them."""
        out = self.stats.metrics()
        self.stats = GenerationStats()
        return out

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)
        self.client.close()


def _cut(ids: list[int], ends: set[int]) -> list[int]:
    """`ids` up to and including the first end token."""
    for i, t in enumerate(ids):
        if t in ends:
            return ids[: i + 1]
    return ids


__all__ = ["ServerClient", "ServerGeneration", "GenerationStats", "check_generation"]
