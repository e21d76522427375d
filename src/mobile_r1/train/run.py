"""The run loop shared by every stage: run directory, metrics (JSONL + TensorBoard), checkpoints, resume, processes.

    result = train("configs/cpu-tiny.yaml", stage="sft")          # or "action-grpo", "task-grpo"; resume=True

A run directory holds `config.yaml` (the resolved config), `metrics.jsonl` (one record per logged step and
per evaluation), `tensorboard/`, `checkpoints/step-N/` (model, optimizer, scheduler, RNG and data position)
and `final/` (the model in `save_pretrained` form, loadable with `load_policy`). Several processes (launch with
`torchrun --nproc_per_node N -m mobile_r1.cli.main train ...` or `accelerate launch --multi_gpu --num_processes N -m
mobile_r1.cli.main train ...`, on CPU too) each take their share of every batch; `run.distributed` picks DDP, FSDP or
DeepSpeed (`make_accelerator`). The main process writes the logs, `state.pt` and `final/`; every process writes its
own RNG state (`rng-R.pt`) into each checkpoint and restores it on resume.
"""

from __future__ import annotations

import importlib.util
import json
import logging
import random
import re
import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Literal

import torch
from rich.console import Console

from mobile_r1.agents.base import ModelView
from mobile_r1.core.errors import ConfigError, DataError
from mobile_r1.core.files import make_dir
from mobile_r1.models.policy import LoraSettings, Policy, check_model_spec, load_policy, unwrap
from mobile_r1.train.config import MAX_SEED, TrainConfig, load_config
from mobile_r1.train.data import (PromptSettings, check_policy_fits, drop_instruction_words, model_view,
                                  prompt_settings, split_data, step_examples)
from mobile_r1.train.stage import StageRunner

log = logging.getLogger(__name__)
Stage = Literal["sft", "action-grpo", "task-grpo"]
STAGES: tuple[str, ...] = ("sft", "action-grpo", "task-grpo")
console = Console(stderr=True, soft_wrap=True)  # progress bars and notes go to standard error, a note to a line


@dataclass
class RunResult:
    """Where the run went and its last metrics."""

    run_dir: Path
    steps: int
    last_metrics: dict[str, float]
    last_eval: dict[str, float]
    main_process: bool = True


def load_config_policy(config: TrainConfig, device: str) -> Policy:
    """The policy a training config names: model, dtype, LoRA and gradient checkpointing."""
    lora = config.model.lora
    return load_policy(
        config.model.name,
        dtype=config.model.dtype,
        lora=LoraSettings(lora.r, lora.alpha, lora.dropout, lora.target_modules) if lora else None,
        gradient_checkpointing=config.model.gradient_checkpointing,
        device=device,
    )


# ----- logging --------------------------------------------------------------------------------------------------------


class MetricsLog:
    """Appends metric records to `metrics.jsonl` and to the run's experiment trackers (main process only).

    The trackers are accelerate's (`accelerate.tracking`): TensorBoard writes to run_dir/tensorboard, Weights & Biases
    under run_dir (its mode from WANDB_MODE: `offline` needs no account), MLflow to MLFLOW_TRACKING_URI or else
    run_dir/mlruns; nothing is written outside the run folder unless those variables say so. Metrics are logged as
    `train/<key>` and `eval/<key>` against the step. `metrics.jsonl` stays the record the run resumes from.
    """

    def __init__(self, run_dir: Path, enabled: bool, trackers: list[str] | None = None, project: str = "mobile-r1",
                 config: dict[str, Any] | None = None) -> None:
        self.enabled = enabled
        self.path = run_dir / "metrics.jsonl"
        self.trackers: list[Any] = []
        if enabled:
            for name in trackers or []:
                tracker = _tracker(name, run_dir, project)
                tracker.start()
                if config:
                    tracker.store_init_configuration(config)
                self.trackers.append(tracker)

    def log(self, stage: str, kind: str, step: int, metrics: dict[str, float]) -> None:
        if not self.enabled:
            return
        record = {"stage": stage, "kind": kind, "step": step, **metrics}
        with open(self.path, "a", encoding="utf-8") as f:
            f.write(json.dumps(record) + "\n")
        values = {f"{kind}/{key}": value for key, value in metrics.items()}
        for tracker in self.trackers:
            tracker.log(values, step=step)

    def truncate_after(self, step: int) -> None:
        """Drop records past `step` (a resumed run rewrites what the killed run logged after its checkpoint)."""
        if not self.enabled or not self.path.is_file():
            return
        lines = [ln for ln in self.path.read_text(encoding="utf-8").splitlines() if ln.strip()]
        keep = [ln for ln in lines if json.loads(ln)["step"] <= step]
        self.path.write_text("".join(ln + "\n" for ln in keep), encoding="utf-8")

    def close(self) -> None:
        for tracker in self.trackers:
            tracker.finish()
        self.trackers = []


def _tracker(name: str, run_dir: Path, project: str) -> Any:
    """One of accelerate's trackers, writing under the run folder."""
    import os

    from accelerate import tracking

    try:
        if name == "tensorboard":
            return tracking.TensorBoardTracker("tensorboard", str(run_dir))
        if name == "wandb":
            return tracking.WandBTracker(project, dir=str(run_dir), name=run_dir.name)
        if name == "mlflow":
            import mlflow

            if not os.environ.get("MLFLOW_TRACKING_URI"):  # a local file store in the run folder (mlflow-skinny has
                os.environ.setdefault("MLFLOW_ALLOW_FILE_STORE", "true")  # no database store; the file store still works)
                mlflow.set_tracking_uri((run_dir / "mlruns").resolve().as_uri())
            return tracking.MLflowTracker(experiment_name=project, run_name=run_dir.name)
    except ImportError as exc:
        raise ConfigError(f"run.report_to: {name} needs its package ({exc.name}): pip install {exc.name}") from None
    raise ConfigError(f"run.report_to: unknown tracker {name!r}; choose tensorboard, wandb or mlflow")


# ----- processes ---------------------------------------------------------------------------------------------------------


def make_accelerator(config: TrainConfig) -> Any:
    """The run's `accelerate.Accelerator`: DDP, FSDP or DeepSpeed as `run.distributed` says; CPU when no GPU is visible.

    Raises ConfigError when the strategy cannot run here: FSDP and DeepSpeed need CUDA GPUs (accelerate 1.x shards only
    on GPUs and would quietly fall back to DDP on CPU), DeepSpeed needs its package, FSDP needs a multi-process launch.
    """
    from accelerate import Accelerator
    from accelerate.utils import DistributedType

    strategy = config.run.distributed
    gpu = torch.cuda.is_available()
    plugins: dict[str, Any] = {}
    if strategy == "deepspeed" and importlib.util.find_spec("deepspeed") is None:
        raise ConfigError("run.distributed: deepspeed needs the deepspeed package; pip install deepspeed "
                          "(on CUDA GPUs), or set run.distributed: ddp")
    if strategy in ("fsdp", "deepspeed") and not gpu:
        raise ConfigError(f"run.distributed: {strategy} needs CUDA GPUs (accelerate shards only on GPUs and would "
                          "train with plain DDP on CPU); set run.distributed: ddp to train on CPU")
    if strategy == "fsdp":
        from accelerate.utils import FullyShardedDataParallelPlugin

        plugins["fsdp_plugin"] = FullyShardedDataParallelPlugin(
            fsdp_version=2, auto_wrap_policy="transformer_based_wrap", state_dict_type="FULL_STATE_DICT",
            reshard_after_forward=True, activation_checkpointing=False)
    elif strategy == "deepspeed":
        from accelerate.utils import DeepSpeedPlugin

        plugin = DeepSpeedPlugin(zero_stage=2, gradient_accumulation_steps=1,
                                 gradient_clipping=config.optim.max_grad_norm or 0.0)
        plugin.deepspeed_config["train_micro_batch_size_per_gpu"] = config.sft.micro_batch_size
        plugins["deepspeed_plugin"] = plugin
    accelerator = Accelerator(cpu=not gpu, mixed_precision=config.run.mixed_precision, **plugins)
    if strategy == "fsdp" and accelerator.distributed_type != DistributedType.FSDP:
        raise ConfigError("run.distributed: fsdp needs several processes; launch with torchrun --nproc_per_node N "
                          "-m mobile_r1.cli.main train ... or accelerate launch --num_processes N ...")
    return accelerator


def _process(accelerator: Any) -> tuple[int, int, bool]:
    """(rank, world size, is main) of this process; without an accelerator, torch.distributed's or a single process."""
    if accelerator is not None:
        return accelerator.process_index, accelerator.num_processes, accelerator.is_main_process
    import torch.distributed as dist

    if dist.is_available() and dist.is_initialized():
        return dist.get_rank(), dist.get_world_size(), dist.get_rank() == 0
    return 0, 1, True


def _barrier(accelerator: Any) -> None:
    if accelerator is not None:
        accelerator.wait_for_everyone()


def is_sharded(model: Any) -> bool:
    """Whether `model`'s weights are split over processes (FSDP1, or FSDP2 / DTensor parameters)."""
    from torch.distributed.fsdp import FullyShardedDataParallel
    from torch.distributed.tensor import DTensor

    return isinstance(model, FullyShardedDataParallel) or any(isinstance(p, DTensor) for p in model.parameters())


def _full_options() -> Any:
    from torch.distributed.checkpoint.state_dict import StateDictOptions

    return StateDictOptions(full_state_dict=True, cpu_offload=True, ignore_frozen_params=True)


# ----- checkpoints ------------------------------------------------------------------------------------------------------


def _rng_state() -> dict[str, Any]:
    import numpy as np

    state = {"torch": torch.get_rng_state(), "python": random.getstate(), "numpy": np.random.get_state()}
    if torch.cuda.is_available():
        state["cuda"] = torch.cuda.get_rng_state()
    return state


def _set_rng_state(state: dict[str, Any]) -> None:
    import numpy as np

    torch.set_rng_state(state["torch"])
    random.setstate(state["python"])
    np.random.set_state(state["numpy"])
    if "cuda" in state and torch.cuda.is_available():
        torch.cuda.set_rng_state(state["cuda"])


def rng_file(folder: Path, rank: int) -> Path:
    """Process `rank`'s RNG state in a checkpoint folder."""
    return folder / f"rng-{rank}.pt"


def save_checkpoint(
    run_dir: Path, step: int, policy: Policy, optimizer: Any, scheduler: Any, keep: int, accelerator: Any = None
) -> Path:
    """Write checkpoints/step-N/ and keep the newest `keep`; returns the folder.

    `state.pt` (main process): trainable weights (gathered in full when sharded), optimizer, scheduler, the main
    process's RNG, step and process count. With `accelerator`, every process must call this: each also writes its
    own RNG state to `rng-R.pt`, and the folder is renamed into place only once all have written. Without it (one
    process, or a caller that saves from the main process only) only `state.pt` is written.
    """
    rank, world, main = _process(accelerator)
    folder = run_dir / "checkpoints" / f"step-{step}"
    tmp = folder.with_name(folder.name + ".tmp")
    if main:
        if tmp.exists():  # left by a process killed while saving
            shutil.rmtree(tmp)
        tmp.mkdir(parents=True)
    _barrier(accelerator)
    if accelerator is not None and is_sharded(policy.model):  # collective: every process takes part
        from torch.distributed.checkpoint.state_dict import get_model_state_dict, get_optimizer_state_dict

        weights = get_model_state_dict(policy.model, options=_full_options())
        optim_state = get_optimizer_state_dict(policy.model, getattr(optimizer, "optimizer", optimizer), options=_full_options())
    elif main:
        model = unwrap(policy.model)
        trainable = {n for n, p in model.named_parameters() if p.requires_grad}
        weights = {k: v.detach().cpu() for k, v in model.state_dict().items() if k in trainable}
        optim_state = optimizer.state_dict()
    if accelerator is not None:
        torch.save(_rng_state(), rng_file(tmp, rank))
    if main:
        torch.save(
            {"step": step, "model": weights, "optimizer": optim_state, "scheduler": scheduler.state_dict(),
             "rng": _rng_state(), "processes": world, "sharded": accelerator is not None and is_sharded(policy.model)},
            tmp / "state.pt",
        )
    _barrier(accelerator)
    if main:
        if folder.exists():  # the same step saved again (a resumed run): move the old one aside, never half-delete it
            old = folder.with_name(folder.name + ".old")
            if old.exists():
                shutil.rmtree(old)
            folder.rename(old)
            tmp.rename(folder)
            shutil.rmtree(old, ignore_errors=True)
        else:
            tmp.rename(folder)
        checkpoints = sorted(list_checkpoints(run_dir))
        for old_step, old in checkpoints[:-keep]:
            shutil.rmtree(old, ignore_errors=True)
    _barrier(accelerator)
    return folder


_CHECKPOINT_NAME = re.compile(r"step-(\d+)")
_reported: set[Path] = set()


def list_checkpoints(run_dir: Path) -> list[tuple[int, Path]]:
    """The complete checkpoints of a run, oldest first: folders named exactly `step-N` that hold `state.pt`.

    A checkpoint is written as `step-N.tmp/` and renamed only once complete, so anything else under `checkpoints/`
    (a `.tmp` or `.old` folder left by a kill, a `step-N` without its state) is incomplete: it is ignored, and
    reported once on standard error, never parsed as a step.
    """
    root = Path(run_dir) / "checkpoints"
    if not root.is_dir():
        return []
    out = []
    for p in sorted(root.iterdir()):
        match = _CHECKPOINT_NAME.fullmatch(p.name)
        if match and p.is_dir() and (p / "state.pt").is_file():
            out.append((int(match.group(1)), p))
        elif p not in _reported:
            _reported.add(p)
            log.warning("ignoring %s: an incomplete checkpoint (a run stopped while writing it)", p)
    return sorted(out)


def load_checkpoint(folder: Path, policy: Policy, optimizer: Any, scheduler: Any, accelerator: Any = None) -> int:
    """Restore a checkpoint written by `save_checkpoint` in every process; returns the number of steps already done.

    Each process restores its own `rng-R.pt`; a checkpoint without one (written by one process, or from the main
    process only) gives the main process's RNG to rank 0 and leaves the other ranks' freshly seeded RNG alone.
    """
    from accelerate.utils import DistributedType

    rank, _, _ = _process(accelerator)
    if accelerator is not None and accelerator.distributed_type == DistributedType.DEEPSPEED:
        raise ConfigError("--resume is not supported with run.distributed: deepspeed yet (a checkpoint holds only the "
                          "main process's optimizer partition); start the run again or use fsdp")
    state = torch.load(folder / "state.pt", weights_only=False)
    if is_sharded(policy.model):  # every process loads the full state; each keeps its own shard
        from torch.distributed.checkpoint.state_dict import StateDictOptions, set_model_state_dict, set_optimizer_state_dict

        if not state.get("sharded"):
            raise ConfigError(f"checkpoint {folder} was written without FSDP; resume it with the run.distributed it was trained with")
        options = StateDictOptions(full_state_dict=True, strict=False)
        set_model_state_dict(policy.model, state["model"], options=options)
        set_optimizer_state_dict(policy.model, getattr(optimizer, "optimizer", optimizer), state["optimizer"], options=options)
    else:
        if state.get("sharded"):
            raise ConfigError(f"checkpoint {folder} was written under FSDP; resume it with run.distributed: fsdp")
        missing = unwrap(policy.model).load_state_dict(state["model"], strict=False)
        if missing.unexpected_keys:
            raise ConfigError(f"checkpoint {folder} does not fit this model (unexpected {missing.unexpected_keys[:3]})")
        optimizer.load_state_dict(state["optimizer"])
    scheduler.load_state_dict(state["scheduler"])
    own = rng_file(folder, rank)
    if own.is_file():
        _set_rng_state(torch.load(own, weights_only=False))
    elif rank == 0:
        _set_rng_state(state["rng"])
    return int(state["step"])


def save_final(policy: Policy, path: Path, accelerator: Any, view: ModelView | None = None) -> None:
    """Write the trained model in `save_pretrained` form (every process calls this; full weights when sharded), and
    the `view` its prompts were built with (`agents.base.VIEW_FILE`)."""
    if is_sharded(policy.model):
        from torch.distributed.checkpoint.state_dict import StateDictOptions, get_model_state_dict

        full = get_model_state_dict(policy.model, options=StateDictOptions(full_state_dict=True, cpu_offload=True))
        if accelerator.is_main_process:
            path.mkdir(parents=True, exist_ok=True)
            unwrap(policy.model).save_pretrained(path, state_dict=full)
            (policy.processor or policy.tokenizer).save_pretrained(path)
    elif accelerator.is_main_process:
        policy.model = accelerator.unwrap_model(policy.model)
        policy.save_pretrained(path)
    if view is not None and accelerator.is_main_process:
        view.save(path)
    accelerator.wait_for_everyone()


# ----- the loop ----------------------------------------------------------------------------------------------------------


def make_optimizer(policy: Policy, config: TrainConfig, total_steps: int) -> tuple[Any, Any]:
    from transformers import get_scheduler

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


class LineProgress:
    """Progress as a line every `every` seconds (and at the end), for a console that is not a terminal (a log, CI),
    where a live bar shows nothing until it is done; the subset of rich's Progress the loop uses."""

    def __init__(self, every: float = 30.0, enabled: bool = True) -> None:
        self.every, self.enabled = every, enabled
        self.tasks: dict[int, dict[str, Any]] = {}

    def __enter__(self) -> LineProgress:
        return self

    def __exit__(self, *exc: object) -> None:
        for task in self.tasks.values():
            self._print(task)

    def add_task(self, description: str, total: float | None = None, completed: float = 0, **fields: Any) -> int:
        key = len(self.tasks)
        self.tasks[key] = {"description": description, "total": total, "completed": completed, "fields": fields,
                           "start": time.perf_counter(), "shown": time.perf_counter()}
        return key

    def update(self, key: int, completed: float | None = None, total: float | None = None, **fields: Any) -> None:
        task = self.tasks[key]
        if completed is not None:
            task["completed"] = completed
        if total is not None:
            task["total"] = total
        task["fields"].update(fields)
        if time.perf_counter() - task["shown"] >= self.every:
            self._print(task)

    def _print(self, task: dict[str, Any]) -> None:
        if not self.enabled:
            return
        task["shown"] = now = time.perf_counter()
        elapsed = now - task["start"]
        done, total = task["completed"], task["total"]
        info = task["fields"].get("info", "")
        console.print(f"{task['description']}: {done:g}/{total:g} ({elapsed / 60:.1f} min) {info}".rstrip(), markup=False,
                      highlight=False)


def progress_bar(enabled: bool) -> Any:
    """A live bar on a terminal; a line every 30 s elsewhere (so a long stage shows its progress in a log too)."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

    if not console.is_terminal:
        return LineProgress(enabled=enabled)
    return Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        TextColumn("{task.fields[info]}"),
        console=console,
        disable=not enabled,
        transient=False,
    )


def train(
    config: TrainConfig | str | Path,
    stage: str,
    *,
    resume: bool = False,
    output_dir: str | None = None,
    on_step: Callable[[int, dict[str, float]], None] | None = None,
    progress: bool = True,
    sampler: Any = None,
) -> RunResult:
    """Run one training stage from a config: "sft" (stage 1), "action-grpo" (stage 2) or "task-grpo" (stage 3);
    `resume` continues from the run directory's last checkpoint.

    `on_step(step, metrics)` is called after every optimizer step (tests use it to stop a run midway); `sampler`
    replaces the policy's sampling in stage 3's rollouts (tests script the model's outputs).
    """
    from accelerate.utils import set_seed

    from mobile_r1.train.allocator import keep_freed_memory

    keep_freed_memory()
    if stage not in STAGES:
        raise ConfigError(f"stage must be one of {', '.join(STAGES)}; got {stage!r}")
    config = config.model_copy(deep=True) if isinstance(config, TrainConfig) else load_config(config)
    if output_dir:
        config.run.output_dir = output_dir
    if stage in config.curriculum.stage_lr:  # a stage trained alone learns at its own rate, as in the curriculum
        config.optim.lr = config.curriculum.stage_lr[stage]
    run_dir = Path(config.run.output_dir)
    if stage != "sft":
        from mobile_r1.train.server_generation import check_generation

        check_generation(config)  # refuse server generation without LoRA before loading a model
    if stage == "task-grpo":
        from mobile_r1.train.task_grpo import check_tasks

        check_tasks(config)  # fail on unknown tasks before loading a model
    if run_dir.exists() and (run_dir / "metrics.jsonl").exists() and not resume:
        raise ConfigError(f"run directory {run_dir} already holds a run; pass --resume to continue it or pick another run.output_dir")
    check_inputs(config, stage)  # what can be checked without loading is checked before anything is written

    accelerator = make_accelerator(config)
    rank, world = accelerator.process_index, accelerator.num_processes
    set_seed((config.run.seed + rank) % (MAX_SEED + 1))
    main = accelerator.is_main_process
    if main:
        make_dir(run_dir)
        (run_dir / "config.yaml").write_text(config.to_yaml(), encoding="utf-8")
    runner = _stage_runner(config, stage, accelerator, sampler, resume)
    try:
        total = runner.total_steps
        optimizer, scheduler = make_optimizer(runner.policy, config, total * runner.updates_per_step)
        runner.policy.model, optimizer = accelerator.prepare(runner.policy.model, optimizer)
        runner.attach(optimizer, scheduler)
        policy = runner.policy

        log = MetricsLog(run_dir, main, config.run.trackers(), config.run.project, _flat(config.model_dump(mode="json")))
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
            from mobile_r1.train.curves import draw_curves

            draw_curves(run_dir, title=f"{stage} ({run_dir.name})")
        return RunResult(run_dir, total, last, last_eval, main)
    finally:
        runner.close()


def _flat(tree: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """A config as flat `section.key` hyperparameters (lists as text), what trackers store."""
    out: dict[str, Any] = {}
    for key, value in tree.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict):
            out.update(_flat(value, name + "."))
        else:
            out[name] = value if isinstance(value, (int, float, str, bool)) else str(value)
    return out


def check_inputs(config: TrainConfig, stage: str) -> None:
    """Refuse a model that names a local path without a model, and labelled data files that are not there, before
    a run folder is made."""
    check_model_spec(config.model.name)
    if stage != "task-grpo":
        for path in [*config.data.train, *config.data.eval]:
            if not Path(path).exists():
                raise DataError(f"data file {path} not found; check data.train / data.eval in the config")


def _stage_runner(config: TrainConfig, stage: str, accelerator: Any, sampler: Any, resume: bool) -> StageRunner:
    """The stage's runner with its policy loaded: stages 1-2 read labelled steps from episode files, stage 3 plays
    task episodes on a phone backend."""
    if stage == "task-grpo":
        from mobile_r1.train.task_grpo import TaskGRPORunner

        policy = load_config_policy(config, str(accelerator.device))
        check_policy_fits(policy, PromptSettings(observation_mode=config.data.observation_mode))
        if config.grpo.beta:
            policy.freeze_reference()  # the KL anchor is the policy this stage starts from (also on resume)
        return TaskGRPORunner(config, policy, accelerator, sampler, resume)
    train_eps, eval_eps = split_data(config)
    train_eps = drop_instruction_words(train_eps, config.data.instruction_dropout, config.run.seed)
    from mobile_r1.core.formats import images_dir

    settings = prompt_settings(config, str(images_dir(config.data.train[0])))
    policy = load_config_policy(config, str(accelerator.device))
    check_policy_fits(policy, settings)
    if stage == "action-grpo" and config.grpo.beta:
        policy.freeze_reference()  # the KL anchor is the policy this stage starts from (also on resume)
    train_examples = step_examples(train_eps, settings)
    eval_examples = step_examples(eval_eps, settings)[: config.data.eval_max_steps]
    if not train_examples:
        raise DataError("the training episodes hold no steps")
    if stage == "sft":
        from mobile_r1.train.sft import SFTRunner

        return SFTRunner(config, policy, accelerator, train_examples, eval_examples)
    from mobile_r1.train.action_grpo import ActionGRPORunner

    return ActionGRPORunner(config, policy, accelerator, train_examples, eval_examples, resume)


def _summary(metrics: dict[str, float]) -> str:
    keys = ("loss", "reward_mean", "success_rate", "format_valid")
    return "  ".join(f"{k}={metrics[k]:.3f}" for k in keys if k in metrics)
