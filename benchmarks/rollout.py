"""Agent steps per second of multi-turn phone rollouts: all episodes batched per turn vs one episode at a time.

    python benchmarks/rollout.py [--model tiny-lm] [--episodes 16] [--turns 4] [--tokens 32] [--suite inquire-sim]

Both play the same task episodes (the first of the `--suite` train split) on the simulated phone with the
same model, accessibility-text observations, sampling at temperature 1.0 and the same step budget. The batched
loop makes one `generate` call per turn over every live episode (what stage 3 does); the other loop plays each
episode alone, one `generate` call per step. A step's time covers prompt building, tokenising, generation,
parsing and the phone step. A short warm-up runs first and is not counted.
"""

from __future__ import annotations

import argparse
import time

import torch

from mobile_r1.models import load_policy
from mobile_r1.env import Backend, EpisodeRef, make_backend
from mobile_r1.train.config import TrainConfig
from mobile_r1.train.data import model_view
from mobile_r1.train.rollout import RolloutSettings, Trajectory, close_all, rollout, start_groups


def play(policy: object, view: object, backend: Backend, episodes: list[EpisodeRef], settings: RolloutSettings,
         batched: bool) -> tuple[int, int, float]:
    """(agent steps, generated tokens, seconds) for playing every episode once."""
    trajectories = start_groups(backend, episodes, 1, settings)
    start = time.perf_counter()
    if batched:
        rollout(policy, view, trajectories, settings)
    else:
        for t in trajectories:
            rollout(policy, view, [t], settings)
    seconds = time.perf_counter() - start
    close_all(trajectories)
    return _count(trajectories) + (seconds,)


def _count(trajectories: list[Trajectory]) -> tuple[int, int]:
    steps = sum(t.length for t in trajectories)
    tokens = sum(len(turn.completion_ids) for t in trajectories for turn in t.turns)
    return steps, tokens


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="tiny-lm", help="preset or model directory")
    parser.add_argument("--episodes", type=int, default=16)
    parser.add_argument("--turns", type=int, default=4, help="step budget per episode")
    parser.add_argument("--tokens", type=int, default=32, help="max new tokens per step")
    parser.add_argument("--dialect", default="inquire")
    parser.add_argument("--suite", default="inquire-sim", help="inquire-sim or nav-sim")
    parser.add_argument("--history", type=int, default=2, help="history window")
    parser.add_argument("--threads", type=int, default=0, help="torch threads (0: torch's default)")
    args = parser.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    device = "cuda" if torch.cuda.is_available() else "cpu"
    policy = load_policy(args.model, device=device)
    config = TrainConfig.model_validate({"data": {"dialect": args.dialect, "observation_mode": "text",
                                                  "history_window": args.history}})
    view = model_view(config)
    settings = RolloutSettings(max_turns=args.turns, temperature=1.0, max_new_tokens=args.tokens)
    backend = make_backend("sim", render=False)
    episodes = backend.episodes(args.suite, "train", args.episodes, 0)
    play(policy, view, backend, episodes[:2], RolloutSettings(max_turns=1, max_new_tokens=4), batched=True)  # warm-up

    b_steps, b_tokens, b_sec = play(policy, view, backend, episodes, settings, batched=True)
    s_steps, s_tokens, s_sec = play(policy, view, backend, episodes, settings, batched=False)
    print(f"model {args.model} on {device} ({torch.get_num_threads()} threads), {args.episodes} episodes, "
          f"budget {args.turns} steps, {args.tokens} new tokens per step, {args.suite}, dialect {args.dialect}, text")
    print(f"batched (one generate per turn):   {b_steps:4d} steps, {b_tokens:6d} tokens in {b_sec:7.2f} s -> "
          f"{b_steps / b_sec:7.2f} steps/s")
    print(f"one episode at a time:             {s_steps:4d} steps, {s_tokens:6d} tokens in {s_sec:7.2f} s -> "
          f"{s_steps / s_sec:7.2f} steps/s")
    print(f"speed-up (steps/s batched / one at a time): {(b_steps / b_sec) / (s_steps / s_sec):.2f}x")


if __name__ == "__main__":
    main()
