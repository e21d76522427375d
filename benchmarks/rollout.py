"""Agent steps per second of multi-turn phone rollouts: all episodes batched per turn vs one episode at a time.

    python benchmarks/rollout.py [--config configs/demo.yaml] [--episodes 16] [--suite inquire-sim]
                                 [--model M] [--turns N] [--tokens N] [--dialect D] [--history N]

With `--config`, the rollouts are stage 3's of that training config: its model, its dialect and history window, its
step budget (`task_grpo.max_turns`) and generation length (`grpo.max_completion_length`); the flags override them.
Without it, the first settings this benchmark had: tiny-lm, the inquire dialect with two steps of history (prompts of
about 1,100 tokens), 4 steps and 32 new tokens, where a prompt's prefill is most of a step.

Both play the same task episodes (the first of the `--suite` train split) on the simulated phone with the
same model, accessibility-text observations, sampling at temperature 1.0 and the same step budget. The batched
loop makes one `generate` call per turn over every live episode (what stage 3 does); the other loop plays each
episode alone, one `generate` call per step. A step's time covers prompt building, tokenising, generation,
parsing and the phone step; each loop's latency ledger (`train.rollout.Ledger`, what stage 3 logs) says where its
time went. A short warm-up runs first and is not counted.

Then both loops' prompts are prefilled again alone (each turn's prompts in one batch, or each prompt by itself, one new
token): on a CPU a prefill is compute-bound, so a batch prefills about as fast per token as one prompt does, and the
speed-up can be no more than the one-at-a-time time over the batched loop's prefill (printed as the bound).
"""

from __future__ import annotations

import argparse
import time

import torch

from mobile_r1.models import load_policy
from mobile_r1.models.generation import Sampling, left_padded, sample
from mobile_r1.env import Backend, EpisodeRef, make_backend
from mobile_r1.train.config import TrainConfig, load_config
from mobile_r1.train.data import model_view
from mobile_r1.train.rollout import Ledger, RolloutSettings, Trajectory, close_all, rollout, start_groups
from mobile_r1.train.task_stage import rollout_settings


def play(policy: object, view: object, backend: Backend, episodes: list[EpisodeRef], settings: RolloutSettings,
         batched: bool) -> tuple[int, int, float, Ledger, list[Trajectory]]:
    """(agent steps, generated tokens, seconds, where the time went, the trajectories played) for playing every
    episode once."""
    trajectories = start_groups(backend, episodes, 1, settings)
    ledger = Ledger()
    start = time.perf_counter()
    if batched:
        rollout(policy, view, trajectories, settings, ledger=ledger)
    else:
        for t in trajectories:
            rollout(policy, view, [t], settings, ledger=ledger)
    seconds = time.perf_counter() - start
    close_all(trajectories)
    return _count(trajectories) + (seconds, ledger, trajectories)


def prefill_seconds(policy: object, trajectories: list[Trajectory], batched: bool) -> float:
    """Seconds to prefill every prompt the loop generated from (and sample one token): each turn's prompts together
    (the batched loop's calls), or each prompt alone."""
    turns = max(t.length for t in trajectories)
    calls = ([[t.turns[k].prompt for t in trajectories if k < t.length] for k in range(turns)] if batched
             else [[turn.prompt] for t in trajectories for turn in t.turns])
    start = time.perf_counter()
    for prompts in calls:
        sample(policy, left_padded(prompts, policy), Sampling(temperature=1.0, max_new_tokens=1))
    return time.perf_counter() - start


def spent(ledger: Ledger) -> str:
    return (f"prompts {ledger.prompt:6.2f} s, model {ledger.model:6.2f} s, phone {ledger.env:5.2f} s, "
            f"{ledger.turns} generate calls")


def _count(trajectories: list[Trajectory]) -> tuple[int, int]:
    steps = sum(t.length for t in trajectories)
    tokens = sum(len(turn.completion_ids) for t in trajectories for turn in t.turns)
    return steps, tokens


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default=None, help="a training config: play its stage 3's rollouts")
    parser.add_argument("--model", default=None, help="preset or model directory (default tiny-lm)")
    parser.add_argument("--episodes", type=int, default=16)
    parser.add_argument("--turns", type=int, default=None, help="step budget per episode (default 4)")
    parser.add_argument("--tokens", type=int, default=None, help="max new tokens per step (default 32)")
    parser.add_argument("--dialect", default=None, help="default inquire")
    parser.add_argument("--suite", default="inquire-sim", help="inquire-sim or nav-sim")
    parser.add_argument("--history", type=int, default=None, help="history window (default 2)")
    parser.add_argument("--threads", type=int, default=0, help="torch threads (0: torch's default)")
    args = parser.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    torch.manual_seed(0)
    device = "cuda" if torch.cuda.is_available() else "cpu"
    if args.config:
        config = load_config(args.config)
        data = {"dialect": args.dialect or config.data.dialect, "observation_mode": "text",
                "history_window": args.history if args.history is not None else config.data.history_window}
        config = config.model_copy(update={"data": config.data.model_copy(update=data)})
        own = rollout_settings(config)
        model = args.model or config.model.name
        turns, tokens = args.turns or own.max_turns, args.tokens or own.max_new_tokens
    else:
        config = TrainConfig.model_validate({"data": {"dialect": args.dialect or "inquire", "observation_mode": "text",
                                                      "history_window": 2 if args.history is None else args.history}})
        model, turns, tokens = args.model or "tiny-lm", args.turns or 4, args.tokens or 32
    policy = load_policy(model, device=device)
    view = model_view(config)
    settings = RolloutSettings(max_turns=turns, temperature=1.0, max_new_tokens=tokens)
    backend = make_backend("sim", render=False)
    episodes = backend.episodes(args.suite, "train", args.episodes, 0)
    play(policy, view, backend, episodes[:2], RolloutSettings(max_turns=1, max_new_tokens=4), batched=True)  # warm-up

    b_steps, b_tokens, b_sec, b_ledger, b_played = play(policy, view, backend, episodes, settings, batched=True)
    s_steps, s_tokens, s_sec, s_ledger, s_played = play(policy, view, backend, episodes, settings, batched=False)
    b_prefill, s_prefill = prefill_seconds(policy, b_played, True), prefill_seconds(policy, s_played, False)
    print(f"model {model} on {device} ({torch.get_num_threads()} threads), {args.episodes} episodes, "
          f"budget {turns} steps, {tokens} new tokens per step, {args.suite}, dialect {config.data.dialect} "
          f"(history {config.data.history_window}), text" + (f"; stage 3 of {args.config}" if args.config else ""))
    print(f"batched (one generate per turn):   {b_steps:4d} steps, {b_tokens:6d} tokens in {b_sec:7.2f} s -> "
          f"{b_steps / b_sec:7.2f} steps/s")
    print(f"one episode at a time:             {s_steps:4d} steps, {s_tokens:6d} tokens in {s_sec:7.2f} s -> "
          f"{s_steps / s_sec:7.2f} steps/s")
    print(f"  batched:    {spent(b_ledger)}")
    print(f"  one by one: {spent(s_ledger)}")
    print(f"  prefill alone: batched loop's prompts {b_prefill:6.2f} s, one-at-a-time loop's {s_prefill:6.2f} s "
          f"(bound on the speed-up: {s_sec / b_prefill * b_steps / s_steps:.1f}x)")
    print(f"speed-up (steps/s batched / one at a time): {(b_steps / b_sec) / (s_steps / s_sec):.2f}x")


if __name__ == "__main__":
    main()
