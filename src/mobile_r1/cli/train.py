"""`mobile-r1 train`: run one training stage (stage 1 SFT, stage 2 action-level GRPO, stage 3 task-level GRPO, or any
registered or third-party stage) or the whole curriculum from a YAML config."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import typer

from mobile_r1.cli.app import app, console, output
from mobile_r1.train.registry import BUILTIN_STAGES


@app.command()
def train(
    config: Path = typer.Option(..., "--config", "-c", help="YAML training config (see configs/)."),
    stage: Optional[str] = typer.Option(
        None, "--stage", "-s", help=f"{', '.join(BUILTIN_STAGES)}, another registered stage, or a third-party one as "
        "package.module:Name; leave out to run the whole curriculum."),
    resume: bool = typer.Option(False, "--resume", help="Continue the run in run.output_dir from its last checkpoint."),
    output_dir: Optional[str] = typer.Option(None, "--output-dir", "-o", help="Override run.output_dir."),
    set_: list[str] = typer.Option([], "--set", help="Override one config value, SECTION.KEY=VALUE (YAML value; "
                                   "repeatable), e.g. --set run.max_steps=20 --set optim.lr=1e-4."),
) -> None:
    """Train a policy (without --stage: SFT -> action GRPO -> task GRPO, scored after each); the run directory gets config.yaml, metrics.jsonl, tensorboard/, checkpoints/ and final/.

    Several processes (DDP): `torchrun --nproc_per_node N -m mobile_r1.cli.main train ...` (gloo on CPU, NCCL on
    GPUs), or `accelerate launch --multi_gpu --num_processes N -m mobile_r1.cli.main train ...`.
    """
    from mobile_r1.train.config import load_config
    from mobile_r1.train.run import train as run_training

    loaded = load_config(config, overrides(set_))
    if stage is None:
        from mobile_r1.train.curriculum import run_curriculum

        outcome = run_curriculum(loaded, resume=resume, output_dir=output_dir, log=console.print)
        output.print(outcome.comparison_md.read_text(encoding="utf-8"), markup=False)
        console.print(f"comparison: {outcome.comparison_md}" + (f"; report: {outcome.report}" if outcome.report else ""), markup=False)
        return
    result = run_training(loaded, stage, resume=resume, output_dir=output_dir)
    if not result.main_process:
        return
    shown = {**result.last_metrics, **result.last_eval}
    summary = ", ".join(f"{k}={v:.4g}" for k, v in shown.items() if k in _SHOWN)
    console.print(f"{result.stage}: {result.steps} steps -> {result.run_dir / 'final'}" + (f" ({summary})" if summary else ""))


_SHOWN = ("loss", "reward_mean", "eval_loss", "format_valid", "eval_reward", "eval_format_valid", "success_rate",
          "eval_success_rate")


def overrides(pairs: list[str]) -> dict[str, object]:
    """`--set SECTION.KEY=VALUE` pairs as load_config's overrides (each value read as YAML: 20, 1e-4, [a, b], null),
    under the rules every config file is read by (depth, aliases, finite numbers)."""
    from mobile_r1.core.errors import ConfigError
    from mobile_r1.core.reading import Where, loads_yaml

    out: dict[str, object] = {}
    for item in pairs:
        key, sep, value = item.partition("=")
        if not sep or "." not in key or not all(key.split(".")):
            shown = item if len(item) <= 80 else f"{item[:60]}... ({len(item):,} characters)"
            raise ConfigError(f"--set takes SECTION.KEY=VALUE (e.g. run.max_steps=20), got {shown!r}")
        key = key.strip()
        out[key] = loads_yaml(value, Where(Path(f"--set {key}"), None, ConfigError)) if value.strip() else None
    return out
