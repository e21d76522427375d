"""The run loop shared by every stage: run directory, metrics, checkpoints, resume, processes.

    result = train("configs/cpu-tiny.yaml", stage="sft")          # or "action-grpo", "task-grpo"; resume=True

The loop knows a stage only through the registry (`train.registry.STAGES`: a built-in name, a registered one, or a
third-party `package.module:Name`) and the `StageRunner` interface (`train.stage`): it builds the stage, gives it an
optimizer, calls `step(step)` and `evaluate()`, and does the rest itself. A run directory holds `config.yaml` (the
resolved config), `metrics.jsonl` (one record per logged step and per evaluation: `train.tracking`),
`tensorboard/`, `checkpoints/step-N/` (model, optimizer, scheduler, RNG and data position: `train.checkpoints`) and
`final/` (the model in `save_pretrained` form, loadable with `load_policy`) and `card.json` (the machine, threads and
library versions the run's numbers depend on: `train.processes.run_card`). Several processes (launch with
`torchrun --nproc_per_node N -m mobile_r1.cli.main train ...` or `accelerate launch --multi_gpu --num_processes N -m
mobile_r1.cli.main train ...`, on CPU too) each take their share of every batch; `run.distributed` picks DDP, FSDP or
DeepSpeed (`train.processes.make_accelerator`). The main process writes the logs, `state.pt` and `final/`; every
process writes its own RNG state (`rng-R.pt`) into each checkpoint and restores it on resume.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import torch
from accelerate.utils import set_seed
from torch.optim.lr_scheduler import LRScheduler
from transformers import get_scheduler

from mobile_r1.core.errors import ConfigError, DataError
from mobile_r1.core.files import make_dir
from mobile_r1.models.policy import Policy, check_model_spec
from mobile_r1.train.allocator import keep_freed_memory
from mobile_r1.train.checkpoints import list_checkpoints, load_checkpoint, save_checkpoint, save_final
from mobile_r1.train.config import MAX_SEED, TrainConfig, load_config
from mobile_r1.train.curves import draw_curves
from mobile_r1.train.data import model_view
from mobile_r1.train.processes import make_accelerator, run_card, write_run_card
from mobile_r1.train.progress import console, progress_bar
from mobile_r1.train.registry import stage_class
from mobile_r1.train.rollout import Sampler
from mobile_r1.train.tracking import MetricsLog, flat_config


@dataclass
class RunResult:
    """Where the run went and its last metrics."""

    run_dir: Path
    steps: int
    last_metrics: dict[str, float]
    last_eval: dict[str, float]
    main_process: bool = True
    stage: str = ""  # the stage's registered name


def make_optimizer(policy: Policy, config: TrainConfig, total_steps: int) -> tuple[torch.optim.Optimizer, LRScheduler]:
    """AdamW over the trainable weights and the `optim` section's schedule over `total_steps` optimizer steps."""
    params = [p for p in policy.model.parameters() if p.requires_grad]
    optimizer = torch.optim.AdamW(
        params,
        lr=config.optim.lr,
        betas=(config.optim.adam_beta1, config.optim.adam_beta2),
        weight_decay=config.optim.weight_decay,
    )
    scheduler = get_scheduler(
        config.optim.scheduler,
        optimizer,
        num_warmup_steps=int(config.optim.warmup_ratio * total_steps),
        num_training_steps=total_steps,
    )
    return optimizer, scheduler


def train(
    config: TrainConfig | str | Path,
    stage: str,
    *,
    resume: bool = False,
    output_dir: str | None = None,
    on_step: Callable[[int, dict[str, float]], None] | None = None,
    progress: bool = True,
    sampler: Sampler | None = None,
) -> RunResult:
    """Run one training stage from a config: a registered stage's name ("sft" for stage 1, "action-grpo" for stage 2,
    "task-grpo" for stage 3, see `train.registry`) or a third-party stage as `package.module:Name`; `resume`
    continues from the run directory's last checkpoint.

    `on_step(step, metrics)` is called after every optimizer step (tests use it to stop a run midway); `sampler`
    replaces the policy's sampling where a stage plays episodes (tests script the model's outputs).
    """
    keep_freed_memory()
    stage_cls = stage_class(stage)
    stage = stage_cls.name
    config = config.model_copy(deep=True) if isinstance(config, TrainConfig) else load_config(config)
    if output_dir:
        config.run.output_dir = output_dir
    if stage in config.curriculum.stage_lr:  # a stage trained alone learns at its own rate, as in the curriculum
        config.optim.lr = config.curriculum.stage_lr[stage]
    run_dir = Path(config.run.output_dir)
    stage_cls.check(config)  # refuse what the stage cannot run (unknown tasks, server generation without LoRA, ...)
    if run_dir.exists() and (run_dir / "metrics.jsonl").exists() and not resume:
        raise ConfigError(f"run directory {run_dir} already holds a run; pass --resume to continue it or pick another run.output_dir")
    check_inputs(config, stage_cls.labelled_data)  # what can be checked without loading, before anything is written

    accelerator = make_accelerator(config)
    rank, world = accelerator.process_index, accelerator.num_processes
    set_seed((config.run.seed + rank) % (MAX_SEED + 1))
    main = accelerator.is_main_process
    if main:
        make_dir(run_dir)
        (run_dir / "config.yaml").write_text(config.to_yaml(), encoding="utf-8")
        write_run_card(run_dir, run_card(config, f"train {stage}", accelerator.num_processes))
    runner = stage_cls.build(config, accelerator, resume=resume, sampler=sampler)
    try:
        total = runner.total_steps
        optimizer, scheduler = make_optimizer(runner.policy, config, total * runner.updates_per_step)
        runner.policy.model, optimizer = accelerator.prepare(runner.policy.model, optimizer)
        runner.attach(optimizer, scheduler)
        policy = runner.policy

        log = MetricsLog(run_dir, main, config.run.trackers(), config.run.project, flat_config(config.model_dump(mode="json")))
        start = 0
        if resume:
            checkpoints = list_checkpoints(run_dir)
            if not checkpoints:
                raise ConfigError(f"--resume: no checkpoint in {run_dir}/checkpoints; start the run without --resume")
            start = load_checkpoint(checkpoints[-1][1], policy, optimizer, scheduler, accelerator)
            log.truncate_after(start)
            if main:
                runner.truncate(run_dir, start)
        last: dict[str, float] = {}
        last_eval: dict[str, float] = {}
        if start == 0 and runner.has_eval:
            if progress and main:
                console.print(f"{stage}: scoring the held-out set before the first step", markup=False)
            last_eval = runner.evaluate()
            log.log(stage, "eval", 0, last_eval)
        with progress_bar(progress and main) as bar:
            task = bar.add_task(stage, total=total, completed=start, info="")
            for step in range(start, total):
                t0 = time.perf_counter()
                if torch.cuda.is_available():
                    torch.cuda.reset_peak_memory_stats()
                metrics = runner.step(step)
                metrics["step_seconds"] = time.perf_counter() - t0
                if torch.cuda.is_available():  # this process's peak during the step: weights, optimizer, activations
                    metrics["gpu_peak_gib"] = torch.cuda.max_memory_allocated() / 2**30
                metrics["processes"] = float(world)
                done = step + 1
                last = metrics
                if done % config.run.log_every == 0 or done == total:
                    log.log(stage, "train", done, metrics)
                if main:
                    runner.record(run_dir, done)
                bar.update(task, completed=done, info=_summary(metrics))
                if runner.has_eval and ((config.run.eval_every and done % config.run.eval_every == 0) or done == total):
                    if progress and main:
                        console.print(f"{stage}: scoring the held-out set after step {done}", markup=False)
                    last_eval = runner.evaluate()
                    log.log(stage, "eval", done, last_eval)
                if done % config.run.save_every == 0 and done != total:
                    save_checkpoint(run_dir, done, policy, optimizer, scheduler, config.run.keep_checkpoints, accelerator)
                if on_step is not None:
                    on_step(done, metrics)
        accelerator.wait_for_everyone()
        save_final(policy, run_dir / "final", accelerator, model_view(config))
        log.close()
        if main:
            draw_curves(run_dir, title=f"{stage} ({run_dir.name})")
        return RunResult(run_dir, total, last, last_eval, main, stage)
    finally:
        runner.close()


def _summary(metrics: dict[str, float]) -> str:
    keys = ("loss", "reward_mean", "success_rate", "format_valid")
    return "  ".join(f"{k}={metrics[k]:.3f}" for k in keys if k in metrics)


def check_inputs(config: TrainConfig, labelled_data: bool) -> None:
    """Refuse a model that names a local path without a model, and (for a stage that reads labelled steps) data files
    that are not there, before a run folder is made."""
    check_model_spec(config.model.name)
    if labelled_data:
        for path in [*config.data.train, *config.data.eval]:
            if not Path(path).exists():
                raise DataError(f"data file {path} not found; check data.train / data.eval in the config")

