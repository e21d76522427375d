"""Generation through a server: stage 3 trained through a `mobile-r1 serve` process that hot-swaps the published adapter,
greedy rollouts equal to in-process ones, token ids kept end to end (re-tokenising measured), and the refusals."""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Iterator

import httpx
import pytest
import torch

from mobile_r1.core.actions import Action
from mobile_r1.core.errors import ConfigError, ServiceError
from mobile_r1.core.formats import save_episodes
from mobile_r1.core.records import Episode
from mobile_r1.env import make_backend
from mobile_r1.play.episode import EpisodePlay
from mobile_r1.models import Policy, load_policy
from mobile_r1.models.generation import PromptInput, Sampling
from mobile_r1.models.policy import LoraSettings, apply_lora
from mobile_r1.serve import HFEngine, LoopbackServer, ServerSettings, free_port
from mobile_r1.train.config import GenerationConfig, TrainConfig
from mobile_r1.train.data import encode_prompt, model_view
from mobile_r1.train.rollout import RolloutSettings, generate_batch
from mobile_r1.train.run import train
from mobile_r1.train.server_generation import ServerGeneration

DATA = {"dialect": "compact", "observation_mode": "text", "history_window": 1}
TASK = "settings.dark_mode"


def task_prompts(policy: Policy, n: int) -> list[PromptInput]:
    """The first-step prompts of `n` training episodes of the dark-mode task, in the compact dialect."""
    view = model_view(TrainConfig.model_validate({"data": DATA}))
    backend = make_backend("sim", render=False, xml=False)
    prompts = []
    for episode in backend.episodes("nav-sim", "train", n, 0, [TASK]):
        env = backend.open(episode, max_steps=2)
        env.reset()
        messages, images = view.prompt(EpisodePlay(env, unreadable="skip", started=True).request())
        prompts.append(encode_prompt(policy, messages, images))
        env.close()
    return prompts


def half_trained(folder: Path) -> Path:
    """tiny-lm trained until it writes one valid compact action (open Settings) with probability about one half, saved
    in `folder`: its sampled rollouts then differ in format, so GRPO has advantages to learn from (the random preset
    writes no readable action, every reward is alike and no step would change the adapter)."""
    torch.manual_seed(0)
    policy = load_policy("tiny-lm")
    tokenizer = policy.tokenizer
    prompts = task_prompts(policy, 4)
    view = model_view(TrainConfig.model_validate({"data": DATA}))
    target = tokenizer(view.dialect.render(Action(type="open", text="Settings"), thought="Open settings.")
                       + "<|im_end|>", add_special_tokens=False).input_ids
    width = max(len(p.ids) for p in prompts)
    ids = torch.tensor([[tokenizer.pad_token_id] * (width - len(p.ids)) + p.ids + target for p in prompts])
    mask = torch.tensor([[0] * (width - len(p.ids)) + [1] * (len(p.ids) + len(target)) for p in prompts])
    labels = torch.tensor(target).expand(len(prompts), -1).unsqueeze(-1)
    optimizer = torch.optim.Adam(policy.model.parameters(), lr=3e-3)
    for _ in range(400):
        logits = policy.model(input_ids=ids, attention_mask=mask).logits[:, width - 1 : -1].float()
        logps = torch.log_softmax(logits, dim=-1).gather(2, labels).squeeze(-1).sum(-1)
        if float(logps.detach().min()) > -0.7:  # the whole target, end token included, has probability 0.5 or more
            break
        optimizer.zero_grad()
        (-logps.mean() / len(target)).backward()
        optimizer.step()
    else:
        raise AssertionError("the model did not learn its action")
    policy.save_pretrained(folder)
    return folder


class ServeProcess:
    """`mobile-r1 serve --model hf:FOLDER --lora-updates` in a subprocess on a free port."""

    def __init__(self, model: Path, name: str = "base") -> None:
        self.port = free_port()
        self.name = name
        self.log = tempfile.TemporaryFile()  # not a pipe: nobody reads it while the server runs
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "mobile_r1.cli.main", "serve", "--model", f"hf:{model}", "--name", name,
             "--lora-updates", "--port", str(self.port), "--max-batch", "16", "--batch-window-ms", "20"],
            stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 180
        while True:
            try:
                httpx.get(f"{self.url}/health", timeout=2)
                return
            except httpx.TransportError:
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    self.log.seek(0)
                    shown = self.log.read().decode(errors="replace")
                    self.stop()
                    raise AssertionError(f"the server did not start: {shown}")
                time.sleep(0.2)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def base_url(self) -> str:
        return self.url + "/v1"

    def greedy(self, model: str, prompt: list[int], tokens: int = 48) -> list[int]:
        """The served model's greedy continuation of `prompt`, past its end token (so a change anywhere shows)."""
        r = httpx.post(self.base_url + "/completions", json={"model": model, "prompt": prompt, "max_tokens": tokens,
                                                              "temperature": 0, "ignore_eos": True,
                                                              "return_token_ids": True}, timeout=120)
        assert r.status_code == 200, r.text
        assert r.json()["model"] == model
        return list(r.json()["choices"][0]["token_ids"])

    def stop(self) -> None:
        self.proc.terminate()
        try:
            self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=5)
        self.log.close()


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return half_trained(tmp_path_factory.mktemp("half-trained"))


@pytest.fixture(scope="module")
def served(model_dir: Path) -> Iterator[ServeProcess]:
    server = ServeProcess(model_dir)
    yield server
    server.stop()


def stage3_config(model: Path, run_dir: Path, generation: dict[str, Any], **task: Any) -> TrainConfig:
    return TrainConfig.model_validate({
        "model": {"name": str(model), "lora": {"r": 8, "alpha": 16, "dropout": 0.0}},
        "data": DATA,
        "optim": {"lr": 2e-2, "scheduler": "constant"},
        "grpo": {"num_generations": 8, "max_completion_length": 48, "micro_batch_size": 16, "beta": 0.0},
        # one turn: once Settings is open the model, which learnt one action on the home screen, writes nothing
        # readable, and two-turn rollouts all scored alike
        "task_grpo": {"suite": "nav-sim", "tasks": [TASK], "train_episodes": 2, "eval_episodes": 0,
                      "tasks_per_step": 1, "steps": 2, "max_turns": 1, **task},
        "generation": generation,
        "run": {"output_dir": str(run_dir), "tensorboard": False, "save_every": 100},
    })


def records(run_dir: Path, kind: str) -> list[dict[str, Any]]:
    lines = (run_dir / "metrics.jsonl").read_text().splitlines()
    return [r for r in map(json.loads, lines) if r["kind"] == kind]


def in_process_greedy(policy: Policy, prompt: list[int], tokens: int = 48) -> list[int]:
    """`generate`'s greedy continuation of `prompt`, past its end token, as the server decodes it."""
    import copy

    model = policy.model
    config = copy.deepcopy(model.generation_config)
    config.eos_token_id = None
    config.do_sample = False
    model.eval()
    with torch.no_grad():
        out = model.generate(input_ids=torch.tensor([prompt]), attention_mask=torch.ones(1, len(prompt), dtype=torch.long),
                             generation_config=config, max_new_tokens=tokens, pad_token_id=policy.tokenizer.pad_token_id)
    return out[0, len(prompt):].tolist()


@pytest.mark.slow
def test_stage3_through_the_server_trains_and_the_server_serves_each_update(model_dir: Path, served: ServeProcess,
                                                                            tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    prompt = task_prompts(load_policy(str(model_dir)), 1)[0].ids
    base_answer = served.greedy("base", prompt)
    after_first: list[list[int]] = []

    def on_step(step: int, metrics: dict[str, float]) -> None:
        if step == 1:
            after_first.append(served.greedy("policy", prompt))

    config = stage3_config(model_dir, run_dir, {"backend": "server", "base_url": served.base_url})
    # a step large enough to move the greedy answer: at 2e-2 the first update (grad norm 0.16) left its 48 tokens
    # as they were, so the swap could not be seen in them
    config.optim.lr = 5e-2
    train(config, "task-grpo", progress=False, on_step=on_step)

    steps = records(run_dir, "train")
    assert [r["step"] for r in steps] == [1, 2]
    for r in steps:
        assert {"reward_mean", "loss", "format_valid", "publish_seconds"} <= r.keys()
        assert r["gen_completions"] == r["samples"] > 0 and r["gen_requests"] == r["gen_completions"]
        assert r["gen_server_ids"] == 1.0  # every completion trained on the ids the server sampled
    assert steps[0]["reward_std"] > 0 and steps[0]["grad_norm"] > 0  # the rollouts differed: there was a gradient
    # the adapter was published after each step; the newest two folders are kept, the server serves the last
    published = run_dir / "served-adapter"
    assert sorted(p.name for p in published.iterdir()) == ["step-1", "step-2"]
    assert (published / "step-2" / "adapter_config.json").is_file()
    models = httpx.get(served.base_url + "/models", timeout=10).json()["data"]
    assert {m["id"]: m["root"] for m in models}["policy"] == str(published / "step-2")
    # hot swap: after the first update the served adapter answers otherwise than the base (= the policy before it) ...
    assert after_first and after_first[0] != base_answer
    # ... and after the last one exactly as the trained policy does in process
    trained = load_policy(str(run_dir / "final"))
    assert served.greedy("policy", prompt) == in_process_greedy(trained, prompt)


@pytest.mark.slow
def test_greedy_play_through_the_server_is_the_in_process_play(model_dir: Path, served: ServeProcess,
                                                               tmp_path: Path) -> None:
    """Same seed in process and through the server: the greedy evaluations before training play the same tokens, so
    they score alike; the sampled rollouts draw from other random streams (compared in benchmarks/server_generation.py)."""
    runs = {}
    for backend in ("hf", "server"):
        config = stage3_config(model_dir, tmp_path / backend, {"backend": backend, "base_url": served.base_url,
                                                               "lora_name": "compare"},
                               eval_episodes=2, steps=1)
        runs[backend] = train(config, "task-grpo", progress=False)
    evals = {b: records(tmp_path / b, "eval") for b in runs}
    assert [r["step"] for r in evals["server"]] == [0, 1]
    first = {b: {k: v for k, v in evals[b][0].items()} for b in runs}
    assert first["server"] == first["hf"]
    for b in runs:
        assert records(tmp_path / b, "train")[0]["samples"] > 0


class Killed(Exception):
    pass


@pytest.mark.slow
def test_a_resumed_run_through_the_server_replays_what_the_killed_one_would_have(model_dir: Path, served: ServeProcess,
                                                                                 tmp_path: Path) -> None:
    """Each request's seed comes from torch's generator, which a checkpoint restores, and the resumed run publishes the
    restored adapter before its first rollout: it samples what the uninterrupted run sampled."""

    def config(name: str) -> TrainConfig:
        c = stage3_config(model_dir, tmp_path / name, {"backend": "server", "base_url": served.base_url,
                                                       "lora_name": name}, steps=3)
        c.run.save_every = 1
        return c

    train(config("straight"), "task-grpo", progress=False)

    def kill(step: int, metrics: dict[str, float]) -> None:
        if step == 2:
            raise Killed

    with pytest.raises(Killed):
        train(config("killed"), "task-grpo", progress=False, on_step=kill)
    train(config("killed"), "task-grpo", progress=False, resume=True)
    ours, reference = records(tmp_path / "killed", "train"), records(tmp_path / "straight", "train")
    assert [r["step"] for r in ours] == [1, 2, 3]
    for a, b in zip(ours, reference):
        for key in ("loss", "reward_mean", "completion_length", "format_valid"):
            assert a[key] == pytest.approx(b[key], abs=1e-6), (a["step"], key)
    played = [json.loads(line) for line in (tmp_path / "killed" / "trajectories.jsonl").read_text().splitlines()]
    straight = [json.loads(line) for line in (tmp_path / "straight" / "trajectories.jsonl").read_text().splitlines()]
    assert [t["turns"] for t in played] == [t["turns"] for t in straight]


@pytest.mark.slow
def test_stage2_samples_its_groups_through_the_server(model_dir: Path, served: ServeProcess, tmp_path: Path,
                                                      episodes: list[Episode]) -> None:
    data = save_episodes(tmp_path / "data", episodes)
    config = TrainConfig.model_validate({
        "model": {"name": str(model_dir), "lora": {"r": 8, "alpha": 16, "dropout": 0.0}},
        "data": {**DATA, "train": [str(data)], "eval": [str(data)], "eval_max_steps": 2},
        "optim": {"lr": 2e-2},
        "grpo": {"prompts_per_step": 2, "num_generations": 3, "max_completion_length": 16, "micro_batch_size": 6},
        "generation": {"backend": "server", "base_url": served.base_url, "lora_name": "stage2"},
        "run": {"output_dir": str(tmp_path / "run"), "max_steps": 2, "tensorboard": False},
    })
    train(config, "action-grpo", progress=False)
    steps = records(tmp_path / "run", "train")
    assert [r["step"] for r in steps] == [1, 2]
    for r in steps:  # one request with n = G per labelled step, every completion trained on the server's ids
        assert (r["gen_requests"], r["gen_completions"], r["gen_server_ids"]) == (2, 6, 1.0)
        assert {"reward_mean", "loss", "publish_seconds"} <= r.keys()
    models = {m["id"]: m["root"] for m in httpx.get(served.base_url + "/models", timeout=10).json()["data"]}
    assert models["stage2"] == str(tmp_path / "run" / "served-adapter" / "step-2")


def lively(seed: int = 0) -> Policy:
    """tiny-lm with its matrices redrawn at std 0.125: its greedy answers differ from prompt to prompt (the preset's
    are all newlines)."""
    policy = load_policy("tiny-lm")
    generator = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for weight in policy.model.parameters():
            if weight.dim() >= 2:
                weight.normal_(0, 0.125, generator=generator)
    return policy


@pytest.mark.slow
def test_token_ids_are_kept_end_to_end_and_re_tokenising_is_measured(tmp_path: Path) -> None:
    trainer = apply_lora(lively(), LoraSettings(r=4, alpha=8, dropout=0.0))
    prompts = task_prompts(trainer, 3) + [PromptInput(trainer.tokenizer("Task: call mom").input_ids)]
    greedy = RolloutSettings(temperature=0.0, max_new_tokens=24)
    expected = generate_batch(trainer, prompts, greedy)
    backend = HFEngine(lively(), batch_window=0.05)
    with LoopbackServer(backend, model_name="base", settings=ServerSettings(lora_updates=True)) as server:
        settings = GenerationConfig(backend="server", base_url=server.base_url)
        with_ids = ServerGeneration(settings, trainer, tmp_path)
        with_ids.sync(0)
        got = with_ids.sampler(Sampling(0.0, 1.0, 24))(prompts)
        assert got == expected  # the server's greedy tokens are in-process generate's, end token and all
        kept = with_ids.take_metrics()
        assert kept["gen_server_ids"] == 1.0 and kept["gen_completions"] == 4 and kept["publish_seconds"] > 0
        # random text does not always tokenise back to the tokens that wrote it: what re-tokenising would have cost
        tokenizer = trainer.tokenizer
        end, pad = tokenizer.eos_token_id, tokenizer.pad_token_id

        def text_of(ids: list[int]) -> str:
            return str(tokenizer.decode([t for t in ids if t not in (end, pad)]))

        drifted = [ids for ids in got
                   if tokenizer(text_of(ids), add_special_tokens=False).input_ids != [t for t in ids if t != end]]
        assert drifted and kept["gen_retokenize_drift"] == len(drifted) / 4
        assert kept["gen_drift_tokens"] > 0

        text_only = ServerGeneration(settings.model_copy(update={"token_ids": False, "lora_name": "other"}), trainer,
                                     tmp_path / "b")
        text_only.sync(0)
        retokenised = text_only.sampler(Sampling(0.0, 1.0, 24))(prompts)
        metrics = text_only.take_metrics()
        assert metrics["gen_server_ids"] == 0.0
        assert retokenised != got  # the drift is real: those completions come back as other tokens
        for ids, mine in zip(retokenised, got):
            assert ids == tokenizer(text_of(mine), add_special_tokens=False).input_ids + ([end] if mine[-1] == end else [])
        with_ids.close()
        text_only.close()


def test_generation_settings_are_checked(tmp_path: Path) -> None:
    full = stage3_config(Path("tiny-lm"), tmp_path / "full", {"backend": "server"})
    full.model.lora = None
    with pytest.raises(ConfigError, match="full fine-tuning"):
        train(full, "task-grpo", progress=False)
    with pytest.raises(ValueError, match="carry no images"):
        TrainConfig.model_validate({"data": {"observation_mode": "image"}, "generation": {"backend": "server"}})
    with pytest.raises(ValueError, match="http"):
        GenerationConfig(base_url="localhost:8000/v1")
    nobody = stage3_config(Path("tiny-lm"), tmp_path / "nobody", {"backend": "server",
                                                                  "base_url": f"http://127.0.0.1:{free_port()}/v1",
                                                                  "retries": 0})
    with pytest.raises(ServiceError, match="did not answer"):
        train(nobody, "task-grpo", progress=False)
