"""Seconds to score a model on a suite's test episodes: one padded batch per turn vs batches of similar length.

    python benchmarks/generate_groups.py [--model runs/demo/task-grpo/final] [--suite inquire-sim] [--episodes 96]

Both runs are `mobile-r1 eval` through the package API (`run_eval`) with the `hf:` agent, greedy, every episode of the
suite advanced together, the demo's view of the phone (compact dialect, element list, whole history) and its budget
(14 steps, 120 new tokens). They differ only in the agent's `group_by_length`: off, each turn is one `generate` call
over every live episode, left-padded to the turn's longest prompt; on, prompts of similar length share a call
(`mobile_r1.models.batching`). Per turn the script prints the prompts' mean and longest length in tokens and both
runs' seconds, then the totals and whether the two runs played the same episodes the same way.

With `--side-by-side` it also scores inquire-sim and nav-sim in two single-threaded processes at once against one
after the other in this process, as the curriculum does on a CPU (`train.scoring.score_suites`).
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path
from typing import Any

import mobile_r1.agents.hf_agent as hf_agent
from mobile_r1.eval.runner import EvalConfig, load_run, run_eval


def score(model: str, suite: str, episodes: int, out: Path, grouped: bool) -> tuple[float, list[dict[str, Any]]]:
    """(seconds, per-turn records of prompt lengths and seconds) of one evaluation run."""
    turns: list[dict[str, Any]] = []
    real = hf_agent.generate

    def timed(policy: Any, prompts: Any, **kwargs: Any) -> list[str]:
        texts = [policy.tokenizer.apply_chat_template(m, tokenize=False, add_generation_prompt=True) for m, _ in prompts]
        lengths = [len(ids) for ids in policy.tokenizer(texts, add_special_tokens=False).input_ids]
        started = time.perf_counter()
        replies = real(policy, prompts, **kwargs)
        turns.append({"prompts": len(prompts), "mean": sum(lengths) / len(lengths), "longest": max(lengths),
                      "seconds": time.perf_counter() - started})
        return replies

    hf_agent.generate = timed
    try:
        started = time.perf_counter()
        run_eval(eval_config(model, suite, episodes, out, {"group_by_length": grouped}))
        return time.perf_counter() - started, turns
    finally:
        hf_agent.generate = real


def eval_config(model: str, suite: str, episodes: int, out: Path, options: dict[str, Any]) -> EvalConfig:
    return EvalConfig(agent=f"hf:{model}", suite=suite, split="test", episodes=episodes, workers=episodes,
                      dialect="compact", observation="text", max_steps=14, out=out,
                      agent_options={"max_new_tokens": 120, "batch_size": episodes, "history_window": None, **options})


def played(out: Path) -> list[Any]:
    records = load_run(out)[1]
    return [(r["id"], r["verdict"]["success"], [s["model_text"] for s in r["steps"]]) for r in records]


def side_by_side(model: str, episodes: int, folder: Path) -> None:
    from mobile_r1.train.scoring import score_suites

    suites = ("inquire-sim", "nav-sim")
    seconds = {}
    for together in (False, True):
        configs = {s: eval_config(model, s, episodes, folder / f"{together}-{s}", {}) for s in suites}
        started = time.perf_counter()
        score_suites(configs, side_by_side=together)
        seconds[together] = time.perf_counter() - started
    same = all(played(folder / f"False-{s}") == played(folder / f"True-{s}") for s in suites)
    print(f"both suites one after the other: {seconds[False]:6.1f} s; side by side in two processes: "
          f"{seconds[True]:6.1f} s ({seconds[False] / seconds[True]:.2f}x; the same episodes played the same way: {same})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="runs/demo/task-grpo/final", help="a model directory or preset")
    parser.add_argument("--suite", default="inquire-sim")
    parser.add_argument("--episodes", type=int, default=96)
    parser.add_argument("--side-by-side", action="store_true", help="also time the two suites in two processes")
    args = parser.parse_args()
    if "/" in args.model and not Path(args.model).is_dir():
        parser.error(f"{args.model} is not a model directory (run `make demo` first, or pass --model small-lm)")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        one_sec, one_turns = score(args.model, args.suite, args.episodes, folder / "one", grouped=False)
        grp_sec, grp_turns = score(args.model, args.suite, args.episodes, folder / "grouped", grouped=True)
        print(f"{args.model} on {args.suite}/test, {args.episodes} episodes advanced together, "
              f"{os.cpu_count()} CPU cores")
        print("turn  episodes  mean prompt  longest   one batch   grouped")
        for i, (a, b) in enumerate(zip(one_turns, grp_turns), 1):
            print(f"{i:4d}  {a['prompts']:8d}  {a['mean']:11.0f}  {a['longest']:7d}  {a['seconds']:8.2f} s  "
                  f"{b['seconds']:6.2f} s")
        same = played(folder / "one") == played(folder / "grouped")
        print(f"whole run: one batch per turn {one_sec:.1f} s, batches of similar length {grp_sec:.1f} s "
              f"({one_sec / grp_sec:.2f}x); the same episodes played the same way: {same}")
        if args.side_by_side:
            side_by_side(args.model, args.episodes, folder)


if __name__ == "__main__":
    main()
