"""Seconds per step and peak GPU memory of every stage of `configs/qwen2.5vl-3b-gpu.yaml` with LoRA, on one GPU.

No weights can be downloaded, so the model is a randomly initialised Qwen2.5-VL of the 3B architecture (the layer
sizes, vision tower and 151,936-row embedding of Qwen/Qwen2.5-VL-3B-Instruct's config.json) with the presets'
tokenizer: the compute and memory of each step are the real model's; what it writes is noise, so every sample runs to
the token budget (the worst case for generation). Each stage runs through `mobile-r1 train` as a user runs it, on
expert data with screenshots written by `mobile-r1 data generate`; the figures come from each run's metrics.jsonl
(`step_seconds`, `gpu_peak_gib`). `--fsdp` also runs stage 1 under `run.distributed: fsdp` (torchrun, one process).

    python benchmarks/gpu_stages.py --out /tmp/gpu-stages                      # on a CUDA GPU: the 3B architecture
    python benchmarks/gpu_stages.py --arch tiny --steps 1 --out /tmp/gpu-dry   # the same path, small, on a CPU
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CONFIG = REPO / "configs" / "qwen2.5vl-3b-gpu.yaml"

# Qwen/Qwen2.5-VL-3B-Instruct's config.json
ARCH_3B = dict(
    text=dict(vocab_size=151936, hidden_size=2048, intermediate_size=11008, num_hidden_layers=36, num_attention_heads=16,
              num_key_value_heads=2, max_position_embeddings=128000, rope_theta=1000000.0,
              rope_scaling={"type": "mrope", "mrope_section": [16, 24, 24]}),
    vision=dict(depth=32, hidden_size=1280, intermediate_size=3420, num_heads=16, out_hidden_size=2048,
                fullatt_block_indexes=[7, 15, 23, 31], window_size=112),
)
ARCH_TINY = dict(
    text=dict(vocab_size=None, hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4,
              num_key_value_heads=2, max_position_embeddings=8192, rope_scaling={"type": "mrope", "mrope_section": [2, 3, 3]}),
    vision=dict(depth=2, hidden_size=32, intermediate_size=64, num_heads=2, out_hidden_size=64, fullatt_block_indexes=[1],
                window_size=56),
)


def build_model(arch: dict, out: Path) -> float:
    """A randomly initialised Qwen2.5-VL of `arch` saved in bfloat16 with the presets' tokenizer; its parameters (B)."""
    import torch
    from transformers import Qwen2_5_VLConfig, Qwen2_5_VLForConditionalGeneration, Qwen2VLImageProcessorPil

    from mobile_r1.models.policy import local_tokenizer
    from mobile_r1.models.vision import ImageTextProcessor

    tokenizer = local_tokenizer()
    ids = {t: tokenizer.convert_tokens_to_ids(t) for t in ("<|image_pad|>", "<|video_pad|>", "<|vision_start|>", "<|vision_end|>")}
    text = dict(arch["text"], vocab_size=arch["text"]["vocab_size"] or len(tokenizer), bos_token_id=None,
                eos_token_id=tokenizer.eos_token_id, pad_token_id=tokenizer.pad_token_id)
    config = Qwen2_5_VLConfig(
        text_config=text,
        vision_config=dict(arch["vision"], patch_size=14, spatial_merge_size=2, temporal_patch_size=2),
        image_token_id=ids["<|image_pad|>"], video_token_id=ids["<|video_pad|>"],
        vision_start_token_id=ids["<|vision_start|>"], vision_end_token_id=ids["<|vision_end|>"], tie_word_embeddings=True,
    )
    torch.manual_seed(0)
    device = "cuda" if torch.cuda.is_available() else "cpu"
    with torch.device(device):
        model = Qwen2_5_VLForConditionalGeneration(config).to(torch.bfloat16)
    model.generation_config.eos_token_id = tokenizer.eos_token_id
    model.generation_config.pad_token_id = tokenizer.pad_token_id
    model.save_pretrained(out)
    # the config's pixel bound (1280 * 28 * 28) applies through data.max_pixels; the processor's own is the same
    ImageTextProcessor(Qwen2VLImageProcessorPil(min_pixels=4 * 28 * 28, max_pixels=1280 * 28 * 28), tokenizer).save_pretrained(out)
    return sum(p.numel() for p in model.parameters()) / 1e9


def cli(*args: str, launcher: list[str] | None = None) -> float:
    """Run `mobile-r1 ARGS` (under `launcher`, e.g. torchrun) and return its wall seconds; fail loudly."""
    cmd = [*(launcher or [sys.executable]), "-m", "mobile_r1.cli.main", *args]
    print("$", " ".join(cmd[len(launcher or [sys.executable]):]), flush=True)
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, cwd=REPO, text=True, capture_output=True)
    if proc.returncode != 0:
        print(proc.stdout[-3000:], proc.stderr[-6000:], sep="\n", flush=True)
        raise SystemExit(f"failed ({proc.returncode}): {' '.join(args[:4])}")
    return time.perf_counter() - t0


def figures(run_dir: Path) -> dict[str, float]:
    rows = [json.loads(line) for line in (run_dir / "metrics.jsonl").read_text().splitlines()]
    train = [r for r in rows if r.get("kind") == "train"]
    later = train[1:] or train  # the first step also builds kernels and caches
    out = {"steps": len(train), "first_step_s": train[0]["step_seconds"],
           "step_s": sum(r["step_seconds"] for r in later) / len(later)}
    if "gpu_peak_gib" in train[0]:
        out["peak_gib"] = max(r["gpu_peak_gib"] for r in train)
    for key in ("loss", "reward_mean", "completion_length", "success_rate", "episode_length"):
        if key in train[-1]:
            out[key] = train[-1][key]
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--arch", choices=("3b", "tiny"), default="3b")
    parser.add_argument("--steps", type=int, default=3, help="optimizer steps per stage")
    parser.add_argument("--episodes", type=int, default=24, help="expert episodes of inquire-sim for the labelled steps")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--fsdp", action="store_true", help="also run stage 1 under FSDP (torchrun, one process)")
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument("--set", dest="sets", action="append", default=[], metavar="SECTION.KEY=VALUE",
                        help="another config override for every stage (repeatable), e.g. sft.batch_size=16")
    args = parser.parse_args()
    import torch

    out = args.out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    gpu = torch.cuda.get_device_name(0) if torch.cuda.is_available() else "no GPU (CPU)"
    print(f"device: {gpu}; torch {torch.__version__}", flush=True)
    t0 = time.perf_counter()
    params = build_model(ARCH_3B if args.arch == "3b" else ARCH_TINY, out / "model")
    print(f"model: random Qwen2.5-VL, {args.arch} architecture, {params:.2f} B parameters ({time.perf_counter() - t0:.0f} s)", flush=True)
    cli("data", "generate", "--suite", "inquire-sim", "--split", "train", "--episodes", str(args.episodes),
        "--out", str(out / "data"))
    common = ["--config", str(CONFIG), "--set", f"data.train=[{out / 'data'}]", "--set", "data.eval_fraction=0.0",
              "--set", f"run.max_steps={args.steps}", "--set", f"run.save_every={10 * args.steps}",
              "--set", "run.report_to=[]", *(x for pair in args.sets for x in ("--set", pair))]
    if args.arch == "tiny":  # bf16 autocast and a 8192-token budget are for the GPU; keep the CPU dry run quick
        common += ["--set", "run.mixed_precision='no'", "--set", "sft.batch_size=4", "--set", "grpo.prompts_per_step=2",
                   "--set", "grpo.max_completion_length=16"]
    results: dict[str, dict[str, float]] = {}
    runs = [
        ("sft", ["--stage", "sft", "--set", f"model.name={out / 'model'}", "-o", str(out / "sft")]),
        ("action-grpo", ["--stage", "action-grpo", "--set", f"model.name={out / 'sft' / 'final'}", "-o", str(out / "grpo")]),
        ("task-grpo", ["--stage", "task-grpo", "--set", f"model.name={out / 'grpo' / 'final'}", "-o", str(out / "task"),
                       "--set", "task_grpo.suite=inquire-sim", "--set", "task_grpo.tasks_per_step=1",
                       "--set", "task_grpo.max_turns=3", "--set", "task_grpo.eval_episodes=0",
                       "--set", f"task_grpo.steps={args.steps}"]),
    ]
    for name, extra in runs:
        wall = cli("train", *common, *extra)
        results[name] = {**figures(Path(extra[extra.index("-o") + 1])), "wall_s": wall}
        print(name, json.dumps(results[name]), flush=True)
    if args.fsdp:
        launcher = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node", "1"]
        wall = cli("train", *common, "--stage", "sft", "--set", f"model.name={out / 'model'}", "--set",
                   "run.distributed=fsdp", "-o", str(out / "sft-fsdp"), launcher=launcher)
        results["sft-fsdp"] = {**figures(out / "sft-fsdp"), "wall_s": wall}
        print("sft-fsdp", json.dumps(results["sft-fsdp"]), flush=True)
    print(f"\n| stage ({gpu}) | steps | s/step (after the first) | first step s | peak GiB | wall s |")
    print("|---|---|---|---|---|---|")
    for name, r in results.items():
        peak = f"{r['peak_gib']:.1f}" if "peak_gib" in r else "-"
        print(f"| {name} | {r['steps']:.0f} | {r['step_s']:.2f} | {r['first_step_s']:.2f} | {peak} | {r['wall_s']:.0f} |")
    if args.json:
        args.json.write_text(json.dumps({"device": gpu, "params_b": params, "stages": results}, indent=2))


if __name__ == "__main__":
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    main()
