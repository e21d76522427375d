"""Stage 3 with generation in process against generation through `mobile-r1 serve`, same seeds: do they agree?

    python benchmarks/server_generation.py [--seeds 4] [--steps 3]

Builds a tiny-lm that writes one valid compact action (open Settings) with probability about one half (the random
preset writes nothing readable, so every reward would be alike and nothing would train), starts
`mobile-r1 serve --lora-updates` on it in a subprocess, and trains stage 3 on the dark-mode task for `--steps` steps
with each of `--seeds` seeds twice: `generation.backend: hf` and `generation.backend: server`. The two sample from
different random streams (in process: torch's global generator over the batch; the server: one seed per request,
drawn from it), so their rollouts differ draw by draw; what must agree is their distribution. Prints, per backend, the
mean over seeds and steps of the reward, the format-valid rate, the completion length and the success rate, with the
standard error of the mean over seeds, the difference of the means in those standard errors, and the rollout and step
times. Each step plays 2 tasks x G = 8 rollouts of one turn.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
import torch

from mobile_r1.core.actions import Action
from mobile_r1.env import make_backend
from mobile_r1.play.episode import EpisodePlay
from mobile_r1.models import load_policy
from mobile_r1.serve import free_port
from mobile_r1.train.config import TrainConfig
from mobile_r1.train.data import encode_prompt, model_view
from mobile_r1.train.run import train

DATA = {"dialect": "compact", "observation_mode": "text", "history_window": 1}
TASK = "settings.dark_mode"
KEYS = ("reward_mean", "format_valid", "completion_length", "success_rate")


def half_trained(folder: Path) -> None:
    """tiny-lm trained on four dark-mode prompts until `open Settings`, end token included, has probability 0.5."""
    torch.manual_seed(0)
    policy = load_policy("tiny-lm")
    tokenizer = policy.tokenizer
    view = model_view(TrainConfig.model_validate({"data": DATA}))
    backend = make_backend("sim", render=False, xml=False)
    prompts = []
    for episode in backend.episodes("nav-sim", "train", 4, 0, [TASK]):
        env = backend.open(episode, max_steps=1)
        env.reset()
        prompts.append(encode_prompt(policy, *view.prompt(EpisodePlay(env, unreadable="skip", started=True).request())))
        env.close()
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
        if float(logps.detach().min()) > -0.7:
            break
        optimizer.zero_grad()
        (-logps.mean() / len(target)).backward()
        optimizer.step()
    policy.save_pretrained(folder)


def config(model: Path, run_dir: Path, backend: str, base_url: str, seed: int, steps: int) -> TrainConfig:
    return TrainConfig.model_validate({
        "model": {"name": str(model), "lora": {"r": 8, "alpha": 16, "dropout": 0.0}},
        "data": DATA,
        "optim": {"lr": 2e-3, "scheduler": "constant"},
        "grpo": {"num_generations": 8, "max_completion_length": 48, "micro_batch_size": 16, "beta": 0.0},
        "task_grpo": {"suite": "nav-sim", "tasks": [TASK], "train_episodes": 8, "eval_episodes": 0,
                      "tasks_per_step": 2, "steps": steps, "max_turns": 1},
        "generation": {"backend": backend, "base_url": base_url},
        "run": {"output_dir": str(run_dir), "seed": seed, "tensorboard": False, "save_every": 1000},
    })


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=4)
    parser.add_argument("--steps", type=int, default=3)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="server-generation-"))
    os.environ.setdefault("MOBILE_R1_CACHE", str(work / "cache"))
    model = work / "model"
    half_trained(model)
    port = free_port()
    log = tempfile.TemporaryFile()
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1] / "src")}
    server = subprocess.Popen([sys.executable, "-m", "mobile_r1.cli.main", "serve", "--model", f"hf:{model}",
                               "--lora-updates", "--port", str(port)], stdout=log, stderr=subprocess.STDOUT, env=env)
    base_url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 300
        while True:
            try:
                httpx.get(base_url + "/models", timeout=2)
                break
            except httpx.TransportError:
                if server.poll() is not None or time.monotonic() > deadline:
                    log.seek(0)
                    raise SystemExit(f"the server did not start: {log.read().decode(errors='replace')}")
                time.sleep(0.2)
        per: dict[str, list[dict[str, float]]] = {"hf": [], "server": []}
        for seed in range(args.seeds):
            for backend in ("hf", "server"):
                run_dir = work / f"{backend}-{seed}"
                train(config(model, run_dir, backend, base_url, seed, args.steps), "task-grpo", progress=False)
                rows: list[dict[str, Any]] = [json.loads(line) for line in (run_dir / "metrics.jsonl").read_text().splitlines()]
                steps = [r for r in rows if r["kind"] == "train"]
                per[backend].append({k: statistics.mean(r[k] for r in steps)
                                     for k in (*KEYS, "rollout_seconds", "step_seconds")})
    finally:
        server.terminate()
        server.wait(timeout=30)
    n = args.seeds
    print(f"stage 3, dark-mode task, {args.steps} steps x 2 tasks x G=8, {n} seeds; mean over steps, then over seeds "
          "(+- standard error over seeds)")
    print(f"{'':20s}{'in process':>22s}{'through the server':>22s}{'difference / s.e.':>20s}")
    for key in (*KEYS, "rollout_seconds", "step_seconds"):
        cells, means, errors = [], [], []
        for backend in ("hf", "server"):
            values = [run[key] for run in per[backend]]
            mean = statistics.mean(values)
            error = statistics.stdev(values) / n**0.5 if n > 1 else 0.0
            means.append(mean)
            errors.append(error)
            cells.append(f"{mean:10.3f} +- {error:6.3f}")
        spread = (errors[0] ** 2 + errors[1] ** 2) ** 0.5
        ratio = f"{(means[1] - means[0]) / spread:+.2f}" if spread > 0 and key in KEYS else ""
        print(f"{key:20s}{cells[0]:>22s}{cells[1]:>22s}{ratio:>20s}")


if __name__ == "__main__":
    main()
