"""Seconds to sample one stage-2 step: a `generate` call per labelled step against all of them in one call.

    python benchmarks/stage2_sampling.py [--model small-lm] [--prompts 16] [--generations 4] [--length 64]
                                         [--rounds 3] [--device cpu|cuda] [--dtype float32|bfloat16]

Stage 2 samples G completions for each of a step's labelled steps (`mobile_r1.train.grpo.generate`). With
`grpo.prompts_per_generate: 1` (the default) each labelled step is one `generate` call of G rows; with
`prompts_per_generate: P` the P steps share one left-padded call of P x G rows. The prompts are the demo's view of
real expert steps (compact dialect, element list, whole history) from the simulated phone's nav-sim train split.
The script prints the seconds per step of each setting (median of `--rounds`, after a warm-up), the rows and new
tokens per second, and whether greedy decoding gives the same completions both ways.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import torch

from mobile_r1.core.formats import load_episodes
from mobile_r1.env.demos import generate as generate_demos
from mobile_r1.models import load_policy
from mobile_r1.train.data import PromptSettings, encode_prompt, step_examples
from mobile_r1.train.grpo import GRPOSettings, PromptInput, generate


def prompts_of(policy: object, count: int) -> list[PromptInput]:
    """`count` labelled steps of expert nav-sim episodes, encoded as stage 2 encodes them."""
    with tempfile.TemporaryDirectory() as folder:
        stats = generate_demos("nav-sim", "train", max(4, count // 3), Path(folder) / "nav", screenshots=False)
        episodes = load_episodes(stats["file"])
    examples = step_examples(episodes, PromptSettings(dialect="compact", observation_mode="text"))
    step = max(1, len(examples) // count)
    return [encode_prompt(policy, e.messages, e.images) for e in examples[::step][:count]]  # type: ignore[arg-type]


def seconds(policy: object, prompts: list[PromptInput], settings: GRPOSettings, rounds: int) -> tuple[float, int]:
    """(median seconds per step, new tokens sampled in the last round)."""
    generate(policy, prompts, settings)  # type: ignore[arg-type]  # warm-up
    times, tokens = [], 0
    for r in range(rounds):
        torch.manual_seed(r)
        start = time.perf_counter()
        out = generate(policy, prompts, settings)  # type: ignore[arg-type]
        if torch.cuda.is_available():
            torch.cuda.synchronize()
        times.append(time.perf_counter() - start)
        tokens = sum(len(c) for c in out)
    return statistics.median(times), tokens


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", default="small-lm")
    parser.add_argument("--prompts", type=int, default=16, help="labelled steps per stage-2 step (prompts_per_step)")
    parser.add_argument("--generations", type=int, default=4, help="G")
    parser.add_argument("--length", type=int, default=64, help="max_completion_length")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--device", default=None, help="cpu or cuda (default: where the model loads)")
    parser.add_argument("--dtype", default="float32", help="float32, bfloat16 (on a GPU)")
    args = parser.parse_args()

    policy = load_policy(args.model, dtype=args.dtype, device=args.device)
    prompts = prompts_of(policy, args.prompts)
    lengths = [len(p.ids) for p in prompts]
    print(f"{args.model} on {policy.device}, torch {torch.__version__}, {torch.get_num_threads()} threads; "
          f"{len(prompts)} prompts of {min(lengths)}-{max(lengths)} tokens, G = {args.generations}, "
          f"up to {args.length} new tokens")
    base = GRPOSettings(num_generations=args.generations, temperature=1.0, max_completion_length=args.length)
    rows = len(prompts) * args.generations
    results = {}
    for per_call in (1, len(prompts)):
        settings = replace(base, prompts_per_generate=per_call)
        took, tokens = seconds(policy, prompts, settings, args.rounds)
        results[per_call] = took
        print(f"prompts_per_generate {per_call:>3}: {took:7.2f} s per step, {rows / took:6.1f} rows/s, "
              f"{tokens / took:7.1f} new tokens/s")
    print(f"one call for the step: {results[1] / results[len(prompts)]:.2f}x a call per prompt")
    greedy = replace(base, temperature=0.0)
    same = generate(policy, prompts, greedy) == generate(policy, prompts, replace(greedy, prompts_per_generate=len(prompts)))  # type: ignore[arg-type]
    print(f"greedy completions the same both ways: {same}")


if __name__ == "__main__":
    main()
