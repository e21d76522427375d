"""The run loop shared by every stage: run directory, metrics (JSONL + TensorBoard), checkpoints, resume, processes.

    result = train("configs/cpu-tiny.yaml", stage="sft")          # or stage="action-grpo", resume=True

A run directory holds `config.yaml` (the resolved config), `metrics.jsonl` (one record per logged step and
per evaluation), `tensorboard/`, `checkpoints/step-N/` (model, optimizer, scheduler, RNG and data position)
and `final/` (the model in `save_pretrained` form, loadable with `load_policy`). Several processes (DDP through
accelerate; launch with `torchrun --nproc_per_node 2 -m mobile_r1.cli.main train ...` or `accelerate launch`) each take their
share of every batch; only the main process writes.
"""

from __future__ import annotations

import json
import random
import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Literal, Protocol

import torch

from mobile_r1.core.errors import ConfigError, DataError
from mobile_r1.core.records import Episode
from mobile_r1.models.policy import LoraSettings, Policy, load_policy, unwrap
from mobile_r1.train.config import TrainConfig, load_config
from mobile_r1.train.data import PromptSettings, StepExample, check_policy_fits, step_examples

Stage = Literal["sft", "action-grpo"]
STAGES: tuple[str, ...] = ("sft", "action-grpo")


class StageRunner(Protocol):
    """What a stage gives the run loop: how many steps, one optimizer step, an evaluation."""

    total_steps: int

    def attach(self, optimizer: torch.optim.Optimizer, scheduler: Any) -> None: ...

    def step(self, step: int) -> dict[str, float]: ...

    def evaluate(self) -> dict[str, float]: ...


@dataclass
class RunResult:
    """Where the run went and its last metrics."""

    run_dir: Path
    steps: int
    last_metrics: dict[str, float]
    last_eval: dict[str, float]
    main_process: bool = True


# ----- data ---------------------------------------------------------------------------------------------------------


def load_episode_files(paths: list[str]) -> list[Episode]:
    from mobile_r1.core.formats import load_any

    episodes: list[Episode] = []
    for path in paths:
        if not Path(path).exists():
            raise DataError(f"data file {path} not found; check data.train / data.eval in the config")
        _, loaded = load_any(path)
        episodes.extend(loaded)
    return episodes


def split_data(config: TrainConfig) -> tuple[list[Episode], list[Episode]]:
    """Train and held-out episodes: `data.eval` when given, else a seeded `eval_fraction` of `data.train`."""
    if not config.data.train:
        raise ConfigError("data.train is empty; list episode files to train on")
    train = load_episode_files(config.data.train)
    if config.data.eval:
        return train, load_episode_files(config.data.eval)
    n_eval = int(round(len(train) * config.data.eval_fraction))
    if n_eval == 0:
        return train, []
    order = list(range(len(train)))
    random.Random(config.run.seed).shuffle(order)
    held = set(order[:n_eval])
    return [e for i, e in enumerate(train) if i not in held], [e for i, e in enumerate(train) if i in held]


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


def prompt_settings(config: TrainConfig, image_dir: str | None) -> PromptSettings:
    d = config.data
    return PromptSettings(
        dialect=d.dialect,
        observation_mode=d.observation_mode,
        history_window=d.history_window,
        prescale=d.prescale,
        min_pixels=d.min_pixels,
        max_pixels=d.max_pixels,
        image_dir=d.image_dir or image_dir,
    )


def batch_positions(step: int, batch_size: int, n: int, seed: int) -> list[int]:
    """Example indices of optimizer step `step`: a fresh seeded permutation every epoch, read in order.

    The data position is a pure function of the step, so a resumed run reads exactly what the killed one would.
    """
    out = []
    for pos in range(step * batch_size, (step + 1) * batch_size):
        epoch, offset = divmod(pos, n)
        g = torch.Generator().manual_seed(seed * 100_003 + epoch)
        out.append(int(torch.randperm(n, generator=g)[offset]))
    return out


# ----- logging --------------------------------------------------------------------------------------------------------


class MetricsLog:
    """Appends metric records to `metrics.jsonl` and TensorBoard (main process only)."""

    def __init__(self, run_dir: Path, enabled: bool, tensorboard: bool) -> None:
        self.enabled = enabled
        self.path = run_dir / "metrics.jsonl"
        self.writer = None
        if enabled and tensorboard:
            try:
                from torch.utils.tensorboard import SummaryWriter

                self.writer = SummaryWriter(str(run_dir / "tensorboard"))
            except ImportError:  # tensorboard is optional
                self.writer = None

    def log(self, stage: str, kind: str, step: int, metrics: dict[str, float]) -> None:
        if not self.enabled:
            return
        record = {"stage": stage, "kind": kind, "step": step, **metrics}
        with open(self.path, "a", encoding="utf-8") as f:
            f.write(json.dumps(record) + "\n")
        if self.writer is not None:
            for key, value in metrics.items():
                self.writer.add_scalar(f"{kind}/{key}", value, step)
            self.writer.flush()

    def truncate_after(self, step: int) -> None:
        """Drop records past `step` (a resumed run rewrites what the killed run logged after its checkpoint)."""
        if not self.enabled or not self.path.is_file():
            return
        lines = [ln for ln in self.path.read_text(encoding="utf-8").splitlines() if ln.strip()]
        keep = [ln for ln in lines if json.loads(ln)["step"] <= step]
        self.path.write_text("".join(ln + "\n" for ln in keep), encoding="utf-8")

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()


# ----- checkpoints ------------------------------------------------------------------------------------------------------


def _rng_state() -> dict[str, Any]:
    import numpy as np

    return {"torch": torch.get_rng_state(), "python": random.getstate(), "numpy": np.random.get_state()}


def _set_rng_state(state: dict[str, Any]) -> None:
    import numpy as np

    torch.set_rng_state(state["torch"])
    random.setstate(state["python"])
    np.random.set_state(state["numpy"])


def save_checkpoint(run_dir: Path, step: int, policy: Policy, optimizer: Any, scheduler: Any, keep: int) -> Path:
    """Write checkpoints/step-N/state.pt (trainable weights, optimizer, scheduler, RNG, step); keep the newest `keep`."""
    folder = run_dir / "checkpoints" / f"step-{step}"
    tmp = folder.with_name(folder.name + ".tmp")
    tmp.mkdir(parents=True, exist_ok=True)
    model = unwrap(policy.model)
    trainable = {n for n, p in model.named_parameters() if p.requires_grad}
    weights = {k: v.detach().cpu() for k, v in model.state_dict().items() if k in trainable}
    torch.save(
        {"step": step, "model": weights, "optimizer": optimizer.state_dict(), "scheduler": scheduler.state_dict(),
         "rng": _rng_state()},
        tmp / "state.pt",
    )
    if folder.exists():
        shutil.rmtree(folder)
    tmp.rename(folder)
    checkpoints = sorted(list_checkpoints(run_dir))
    for old_step, old in checkpoints[:-keep]:
        shutil.rmtree(old, ignore_errors=True)
    return folder


def list_checkpoints(run_dir: Path) -> list[tuple[int, Path]]:
    root = run_dir / "checkpoints"
    if not root.is_dir():
        return []
    out = []
    for p in root.iterdir():
        if p.is_dir() and p.name.startswith("step-") and (p / "state.pt").is_file():
            out.append((int(p.name.split("-")[1]), p))
    return sorted(out)


def load_checkpoint(folder: Path, policy: Policy, optimizer: Any, scheduler: Any) -> int:
    """Restore a checkpoint written by `save_checkpoint`; returns the number of steps already done."""
    state = torch.load(folder / "state.pt", weights_only=False)
    missing = unwrap(policy.model).load_state_dict(state["model"], strict=False)
    if missing.unexpected_keys:
        raise ConfigError(f"checkpoint {folder} does not fit this model (unexpected {missing.unexpected_keys[:3]})")
    optimizer.load_state_dict(state["optimizer"])
    scheduler.load_state_dict(state["scheduler"])
    _set_rng_state(state["rng"])
    return int(state["step"])


# ----- the loop ----------------------------------------------------------------------------------------------------------


def _make_optimizer(policy: Policy, config: TrainConfig, total_steps: int) -> tuple[Any, Any]:
    from transformers import get_scheduler

    params = [p for p in policy.model.parameters() if p.requires_grad]
    optimizer = torch.optim.AdamW(params, lr=config.optim.lr, weight_decay=config.optim.weight_decay)
    scheduler = get_scheduler(
        config.optim.scheduler,
        optimizer,
        num_warmup_steps=int(config.optim.warmup_ratio * total_steps),
        num_training_steps=total_steps,
    )
    return optimizer, scheduler


def _progress(enabled: bool) -> Any:
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

    from mobile_r1.cli.app import console

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
) -> RunResult:
    """Run one training stage from a config; `resume` continues from the run directory's last checkpoint.

    `on_step(step, metrics)` is called after every optimizer step (tests use it to stop a run midway).
    """
    from accelerate import Accelerator
    from accelerate.utils import set_seed

    if stage not in STAGES:
        raise ConfigError(f"stage must be one of {', '.join(STAGES)}; got {stage!r}")
    config_path = None if isinstance(config, TrainConfig) else Path(config)
    if config_path is not None:
        config = load_config(config_path)
    assert isinstance(config, TrainConfig)
    if output_dir:
        config.run.output_dir = output_dir
    run_dir = Path(config.run.output_dir)
    if run_dir.exists() and (run_dir / "metrics.jsonl").exists() and not resume:
        raise ConfigError(f"run directory {run_dir} already holds a run; pass --resume to continue it or pick another run.output_dir")

    accelerator = Accelerator(cpu=not torch.cuda.is_available(), mixed_precision=config.run.mixed_precision)
    rank, world = accelerator.process_index, accelerator.num_processes
    set_seed(config.run.seed + rank)
    main = accelerator.is_main_process
    if main:
        run_dir.mkdir(parents=True, exist_ok=True)
        (run_dir / "config.yaml").write_text(config.to_yaml(), encoding="utf-8")

    train_eps, eval_eps = split_data(config)
    from mobile_r1.core.formats import images_dir

    image_dir = str(images_dir(config.data.train[0]))
    settings = prompt_settings(config, image_dir)
    policy = load_config_policy(config, str(accelerator.device))
    check_policy_fits(policy, settings)
    train_examples = step_examples(train_eps, settings)
    eval_examples = step_examples(eval_eps, settings)[: config.data.eval_max_steps]
    if not train_examples:
        raise DataError("the training episodes hold no steps")

    runner: StageRunner
    if stage == "sft":
        from mobile_r1.train.sft import SFTRunner

        runner = SFTRunner(config, policy, accelerator, train_examples, eval_examples)
    else:
        from mobile_r1.train.action_grpo import ActionGRPORunner

        runner = ActionGRPORunner(config, policy, accelerator, train_examples, eval_examples)
    total = runner.total_steps
    updates_per_step = config.grpo.num_iterations if stage == "action-grpo" else 1
    optimizer, scheduler = _make_optimizer(policy, config, total * updates_per_step)
    policy.model, optimizer = accelerator.prepare(policy.model, optimizer)
    runner.attach(optimizer, scheduler)

    log = MetricsLog(run_dir, main, config.run.tensorboard)
    start = 0
    if resume:
        checkpoints = list_checkpoints(run_dir)
        if not checkpoints:
            raise ConfigError(f"--resume: no checkpoint in {run_dir}/checkpoints; start the run without --resume")
        start = load_checkpoint(checkpoints[-1][1], policy, optimizer, scheduler)
        log.truncate_after(start)
    last: dict[str, float] = {}
    last_eval: dict[str, float] = {}
    if start == 0 and eval_examples:
        last_eval = runner.evaluate()
        log.log(stage, "eval", 0, last_eval)
    with _progress(progress and main) as bar:
        task = bar.add_task(stage, total=total, completed=start, info="")
        for step in range(start, total):
            t0 = time.perf_counter()
            metrics = runner.step(step)
            metrics["step_seconds"] = time.perf_counter() - t0
            metrics["processes"] = float(world)
            done = step + 1
            last = metrics
            if done % config.run.log_every == 0 or done == total:
                log.log(stage, "train", done, metrics)
            bar.update(task, completed=done, info=_summary(metrics))
            evaluate_now = eval_examples and (
                (config.run.eval_every and done % config.run.eval_every == 0) or done == total
            )
            if evaluate_now:
                last_eval = runner.evaluate()
                log.log(stage, "eval", done, last_eval)
            if done % config.run.save_every == 0 and done != total:
                accelerator.wait_for_everyone()
                if main:
                    save_checkpoint(run_dir, done, policy, optimizer, scheduler, config.run.keep_checkpoints)
            if on_step is not None:
                on_step(done, metrics)
    accelerator.wait_for_everyone()
    if main:
        policy.model = accelerator.unwrap_model(policy.model)
        policy.save_pretrained(run_dir / "final")
    log.close()
    return RunResult(run_dir, total, last, last_eval, main)


def _summary(metrics: dict[str, float]) -> str:
    keys = ("loss", "reward_mean", "format_valid")
    return "  ".join(f"{k}={metrics[k]:.3f}" for k in keys if k in metrics)


def examples_for_rank(examples: list[StepExample], positions: list[int], rank: int, world: int) -> list[StepExample]:
    """This process's share of a batch."""
    return [examples[i] for i in positions[rank::world]]
