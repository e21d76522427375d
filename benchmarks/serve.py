"""Throughput of `mobile-r1 serve` with dynamic batching against one request at a time, and adapter load times.

    python benchmarks/serve.py [--model hf:small-lm] [--clients 16] [--max-tokens 64] [--rounds 3] [--fresh-clients]

Starts `mobile-r1 serve` twice as a real HTTP server in a subprocess, once with batching (`--max-batch` = clients) and
once with `--max-batch 1`, and, alternating between them round by round, sends `--clients` chat requests at once from
as many threads through one pooled `httpx.Client` per server (as the trainer's `ServerClient` and the OpenAI SDK keep
one; `--fresh-clients` opens a new client per request, about 30 ms of the client's CPU each here), each a different
prompt sampled with its own seed and `ignore_eos`, so both servers generate exactly `--max-tokens` tokens per request.
Prints requests/s and tokens/s of each (the median of `--rounds` rounds, after a warm-up round) and their ratio.
Then, with `--lora-updates`, times POST /v1/load_lora_adapter for a fresh name and for replacing a loaded one (what
a trainer does after every optimizer step), for tiny-lm and small-lm adapters of rank 16 on every linear layer (the
training default).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Iterator

import httpx

from mobile_r1.serve import free_port

PROMPTS = [
    "open the settings app", "turn on wifi", "call mom", "send a message to mom saying hello", "set an alarm for 7",
    "search for pizza nearby", "play the next song", "take a photo", "open the calendar for tomorrow",
    "share this video", "delete the last file", "turn the brightness up", "open the browser and search the weather",
    "add a new contact", "buy the item in the cart", "log in to my account",
]


def start(model: str, *args: str) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1] / "src")}
    log = tempfile.TemporaryFile()  # not a pipe: nobody reads it while the server runs
    proc = subprocess.Popen([sys.executable, "-m", "mobile_r1.cli.main", "serve", "--model", model, "--port", str(port),
                             "--name", "bench", *args], stdout=subprocess.DEVNULL, stderr=log, env=env)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 300
    while True:
        try:
            httpx.get(url + "/health", timeout=2)
            return proc, url
        except httpx.TransportError:
            if proc.poll() is not None or time.monotonic() > deadline:
                log.seek(0)
                raise SystemExit(f"the server did not start: {log.read().decode(errors='replace')}")
            time.sleep(0.2)


def stop(proc: subprocess.Popen[bytes]) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()


def one_round(url: str, clients: int, max_tokens: int, http: httpx.Client | None = None) -> tuple[float, int]:
    """Seconds for `clients` concurrent requests, and the completion tokens they got (`http`: the pooled client to send
    them with; None opens a new one for each request)."""

    def ask(i: int) -> int:
        body = {"model": "bench", "messages": [{"role": "user", "content": PROMPTS[i % len(PROMPTS)]}],
                "max_tokens": max_tokens, "ignore_eos": True, "temperature": 1.0, "seed": i}
        post = http.post if http is not None else httpx.post
        r = post(url + "/v1/chat/completions", json=body, timeout=600)
        r.raise_for_status()
        return int(r.json()["usage"]["completion_tokens"])

    with ThreadPoolExecutor(clients) as pool:
        start_time = time.perf_counter()
        tokens = sum(pool.map(ask, range(clients)))
        return time.perf_counter() - start_time, tokens


def throughput(model: str, clients: int, max_tokens: int, rounds: int, window_ms: float = 20.0,
               fresh_clients: bool = False) -> dict[str, tuple[float, float, dict]]:
    """Requests/s, tokens/s and /health counters of a batching server and a one-at-a-time one.

    Both servers run side by side and their rounds alternate, so that a machine shared with other work slows both
    alike; each figure is the median over the rounds."""
    window = ("--batch-window-ms", str(window_ms))
    servers = {"batched": start(model, "--max-batch", str(clients), *window),
               "one at a time": start(model, "--max-batch", "1", *window)}
    limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)
    pools = {name: None if fresh_clients else httpx.Client(limits=limits) for name in servers}
    try:
        for name, (_, url) in servers.items():
            one_round(url, clients, max_tokens, pools[name])  # warm-up
        results: dict[str, list[tuple[float, int]]] = {name: [] for name in servers}
        for _ in range(rounds):
            for name, (_, url) in servers.items():
                results[name].append(one_round(url, clients, max_tokens, pools[name]))
        health = {name: httpx.get(url + "/health", timeout=10).json() for name, (_, url) in servers.items()}
    finally:
        for pool in pools.values():
            if pool is not None:
                pool.close()
        for proc, _ in servers.values():
            stop(proc)
    out = {}
    for name, runs in results.items():
        seconds = statistics.median(s for s, _ in runs)
        out[name] = (clients / seconds, runs[0][1] / seconds, health[name])
    return out


def make_adapter(preset: str, folder: Path) -> None:
    import torch

    from mobile_r1.models import LoraSettings, load_policy
    from mobile_r1.models.policy import apply_lora

    policy = apply_lora(load_policy(preset), LoraSettings(r=16, alpha=32, dropout=0.0))
    with torch.no_grad():
        for index, (name, p) in enumerate(policy.model.named_parameters()):
            if "lora_B" in name:
                p.normal_(0, 0.01, generator=torch.Generator().manual_seed(index))
    policy.save_pretrained(folder)


def adapter_load_times(preset: str, repeats: int) -> Iterator[tuple[str, float]]:
    with tempfile.TemporaryDirectory() as tmp:
        folders = [Path(tmp) / f"step{i}" for i in range(2)]
        for folder in folders:
            make_adapter(preset, folder)
        proc, url = start(f"hf:{preset}", "--lora-updates")
        try:
            def load(name: str, folder: Path) -> float:
                t = time.perf_counter()
                r = httpx.post(url + "/v1/load_lora_adapter", json={"lora_name": name, "lora_path": str(folder)},
                               timeout=120)
                r.raise_for_status()
                return time.perf_counter() - t

            fresh = [load(f"fresh{i}", folders[0]) for i in range(repeats)]
            replace = [load("policy", folders[i % 2]) for i in range(repeats + 1)][1:]
            files = sum(f.stat().st_size for f in folders[0].glob("adapter_model.*"))
        finally:
            stop(proc)
    yield f"{preset}: adapter {files / 1024:.0f} KiB, first load (median of {repeats})", statistics.median(fresh)
    yield f"{preset}: replacing a loaded adapter (median of {repeats})", statistics.median(replace)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default="hf:small-lm")
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--max-tokens", type=int, default=64)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--adapter-repeats", type=int, default=5)
    parser.add_argument("--window-ms", type=float, default=20.0, help="the servers' --batch-window-ms")
    parser.add_argument("--no-adapters", action="store_true", help="skip the adapter load times")
    parser.add_argument("--fresh-clients", action="store_true", help="a new httpx client for every request")
    args = parser.parse_args()

    print(f"{args.clients} concurrent chat requests to {args.model}, {args.max_tokens} tokens each, "
          f"{os.cpu_count()} CPU cores")
    figures = throughput(args.model, args.clients, args.max_tokens, args.rounds, args.window_ms, args.fresh_clients)
    for name, flag in (("batched", f"--max-batch {args.clients}"), ("one at a time", "--max-batch 1")):
        rps, tps, health = figures[name]
        print(f"  {name + ' (' + flag + ')':32s} {rps:6.2f} requests/s {tps:8.1f} tokens/s "
              f"({health['batches']} generate calls for {health['requests_done']} requests)")
    ratio = figures["batched"][0] / figures["one at a time"][0]
    print(f"  batching is {ratio:.1f}x the throughput of one at a time")
    if args.no_adapters:
        return
    print("POST /v1/load_lora_adapter, seconds as the client sees them:")
    for preset in ("tiny-lm", "small-lm"):
        for label, seconds in adapter_load_times(preset, args.adapter_repeats):
            print(f"  {label:60s} {seconds * 1000:7.1f} ms")


if __name__ == "__main__":
    main()
