"""What an SFT step of the CPU demo costs, with and without its four settings for long CPU runs.

    python benchmarks/sft_step.py [--episodes 100] [--steps 300] [--threads 2] [--work DIR] [--modes a,b]

The settings: `train.allocator.keep_freed_memory` (glibc keeps freed blocks instead of faulting them in anew),
`sft.pad_to_multiple_of: 32` (`collate_sft(..., multiple=32)`: a few dozen batch shapes instead of hundreds for the
kernels to build and cache) and `sft.share_prompt_prefix` (`collate_sft(..., share_prefix=True)`: the system message
every prompt starts with is run once per batch, not once per example), and `sft.attention: eager` (the attention
kernel of the training passes: transformers' eager matmul-softmax instead of its default, torch's fused SDPA, whose
CPU backward in bfloat16 is slow at small-lm's head size of 32). Each setting runs in its own process (the
malloc thresholds cannot be unset): the small-lm preset with the demo's prompt settings, batches of 8 expert steps
grouped by length, and the prompt-loss weight of configs/demo.yaml, under bfloat16 autocast (what its
`run.mixed_precision: auto` gives on a CPU with AVX-512) or, in the `-fp32` modes, in float32 (what it gives on an
AVX2 CPU, where torch computes bfloat16 matrix products with a scalar kernel). It prints seconds per step, minor page
faults per step and the peak resident set, after 10 warm-up steps, and whether this CPU hands bfloat16 products to
oneDNN (`train.processes.bf16_is_fast`).
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path


DEMO_CONFIG = Path(__file__).resolve().parents[1] / "configs" / "demo.yaml"


def worker(work: Path, steps: int, threads: int, keep: bool, multiple: int, share: bool,
           attention: str | None, bf16: bool) -> dict[str, float]:
    import torch
    import yaml
    import transformers

    from mobile_r1.core.formats import load_episodes
    from mobile_r1.models import load_policy
    from mobile_r1.train.allocator import keep_freed_memory
    from mobile_r1.train.data import PromptSettings, step_examples
    from mobile_r1.train.data import batch_positions
    from mobile_r1.train.sft import collate_sft, encode_example, token_loss_sum

    transformers.logging.disable_progress_bar()
    if keep and not keep_freed_memory():
        raise SystemExit("keep_freed_memory() is a no-op here (not Linux with glibc)")
    torch.manual_seed(0)
    torch.set_num_threads(threads)
    settings = PromptSettings(dialect="compact", observation_mode="text", history_window=None, thought="brief")
    examples = [e for f in sorted(work.glob("*/episodes.jsonl")) for e in step_examples(load_episodes(f), settings)]
    policy = load_policy("small-lm")
    items = [encode_example(policy, e, 1536) for e in examples]
    lengths = [len(i.input_ids) for i in items]
    prompt_weight = yaml.safe_load(DEMO_CONFIG.read_text())["sft"]["prompt_loss_weight"]
    model = policy.model
    model.train()
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3, betas=(0.9, 0.98))

    def step(k: int) -> None:
        batch = collate_sft([items[i] for i in batch_positions(k, 8, len(items), 0, lengths)],
                            policy.tokenizer.pad_token_id, policy.device, multiple, share_prefix=share)
        with policy.attention(attention), torch.autocast("cpu", dtype=torch.bfloat16, enabled=bf16):
            loss_sum, count = token_loss_sum(model, batch, prompt_weight)
            (loss_sum / count).backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)

    for k in range(10):
        step(k)
    faults, start = resource.getrusage(resource.RUSAGE_SELF).ru_minflt, time.perf_counter()
    for k in range(10, 10 + steps):
        step(k)
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return {"seconds": (time.perf_counter() - start) / steps, "faults": (usage.ru_minflt - faults) / steps,
            "rss_gb": usage.ru_maxrss / 2**20}


# mode: (call keep_freed_memory(), pad multiple, share the prompts' common prefix, attention kernel, bf16 autocast,
# label)
MODES = {"default": (False, 1, False, None, True, "glibc defaults, no padding"),
         "keep": (True, 1, False, None, True, "keep_freed_memory()"),
         "keep-pad": (True, 32, False, None, True, "keep_freed_memory() + pad_to_multiple_of 32"),
         "keep-pad-share": (True, 32, True, None, True,
                            "keep_freed_memory() + pad_to_multiple_of 32 + share_prompt_prefix"),
         "keep-pad-share-eager": (True, 32, True, "eager", True, "the same + attention eager (sdpa before)"),
         "keep-pad-share-fp32": (True, 32, True, None, False, "keep-pad-share in float32 (no autocast)"),
         "keep-pad-share-eager-fp32": (True, 32, True, "eager", False, "keep-pad-share-eager in float32 (no autocast)")}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--episodes", type=int, default=100, help="expert train episodes per suite")
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--work", default="/tmp/mobile-r1-sft-step")
    ap.add_argument("--modes", default=",".join(MODES), help="comma-separated, of: " + ", ".join(MODES))
    ap.add_argument("--worker", choices=list(MODES), help=argparse.SUPPRESS)
    a = ap.parse_args()
    work = Path(a.work)
    if a.worker:
        keep, multiple, share, attention, bf16, _ = MODES[a.worker]
        print(json.dumps(worker(work, a.steps, a.threads, keep, multiple, share, attention, bf16)))
        return
    from mobile_r1.env.demos import generate
    from mobile_r1.train.processes import bf16_is_fast

    for suite in ("inquire-sim", "nav-sim"):
        folder = work / f"{suite}-{a.episodes}"
        if not (folder / "episodes.jsonl").exists():
            generate(suite, "train", a.episodes, folder, seed=0, screenshots=False)
    print(f"small-lm SFT, batches of 8, {a.steps} steps after 10 warm-up steps, {a.threads} threads; bfloat16 "
          f"products on oneDNN here: {bf16_is_fast(False)}")
    print("| setting | s / step | minor page faults / step | peak RSS |")
    print("|---|---|---|---|")
    modes = a.modes.split(",")
    if unknown := [m for m in modes if m not in MODES]:
        raise SystemExit(f"unknown mode(s) {', '.join(unknown)}; modes: {', '.join(MODES)}")
    for mode in modes:
        label = MODES[mode][-1]
        out = subprocess.run([sys.executable, __file__, "--worker", mode, "--work", str(work), "--steps", str(a.steps),
                              "--threads", str(a.threads)], check=True, capture_output=True, text=True).stdout
        r = json.loads(out.strip().splitlines()[-1])
        print(f"| {label} | {r['seconds']:.3f} | {r['faults']:,.0f} | {r['rss_gb']:.1f} GB |", flush=True)


if __name__ == "__main__":
    main()
