"""Checkpoints of a run and its final model: `checkpoints/step-N/` (trainable weights, optimizer, scheduler, every
process's RNG, the step) written whole or not at all, read back on resume; `final/` in `save_pretrained` form."""

from __future__ import annotations

import logging
import random
import re
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import torch
from accelerate import Accelerator
from accelerate.utils import DistributedType
from torch.distributed.checkpoint.state_dict import (StateDictOptions, get_model_state_dict, get_optimizer_state_dict,
                                                     set_model_state_dict, set_optimizer_state_dict)
from torch.optim import Optimizer
from torch.optim.lr_scheduler import LRScheduler

from mobile_r1.agents.base import ModelView
from mobile_r1.core.errors import ConfigError
from mobile_r1.models.policy import Policy, unwrap
from mobile_r1.train.processes import barrier, full_state_options, is_sharded, process_of

log = logging.getLogger(__name__)


def _rng_state() -> dict[str, Any]:
    state = {"torch": torch.get_rng_state(), "python": random.getstate(), "numpy": np.random.get_state()}
    if torch.cuda.is_available():
        state["cuda"] = torch.cuda.get_rng_state()
    return state


def _set_rng_state(state: dict[str, Any]) -> None:
    torch.set_rng_state(state["torch"])
    random.setstate(state["python"])
    np.random.set_state(state["numpy"])
    if "cuda" in state and torch.cuda.is_available():
        torch.cuda.set_rng_state(state["cuda"])


def rng_file(folder: Path, rank: int) -> Path:
    """Process `rank`'s RNG state in a checkpoint folder."""
    return folder / f"rng-{rank}.pt"


def save_checkpoint(
    run_dir: Path, step: int, policy: Policy, optimizer: Optimizer, scheduler: LRScheduler, keep: int,
    accelerator: Accelerator | None = None,
) -> Path:
    """Write checkpoints/step-N/ and keep the newest `keep`; returns the folder.

    `state.pt` (main process): trainable weights (gathered in full when sharded), optimizer, scheduler, the main
    process's RNG, step and process count. With `accelerator`, every process must call this: each also writes its
    own RNG state to `rng-R.pt`, and the folder is renamed into place only once all have written. Without it (one
    process, or a caller that saves from the main process only) only `state.pt` is written.
    """
    rank, world, main = process_of(accelerator)
    folder = run_dir / "checkpoints" / f"step-{step}"
    tmp = folder.with_name(folder.name + ".tmp")
    if main:
        if tmp.exists():  # left by a process killed while saving
            shutil.rmtree(tmp)
        tmp.mkdir(parents=True)
    barrier(accelerator)
    if accelerator is not None and is_sharded(policy.model):  # collective: every process takes part
        weights = get_model_state_dict(policy.model, options=full_state_options())
        optim_state = get_optimizer_state_dict(policy.model, getattr(optimizer, "optimizer", optimizer), options=full_state_options())
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
    barrier(accelerator)
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
    barrier(accelerator)
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


def load_checkpoint(folder: Path, policy: Policy, optimizer: Optimizer, scheduler: LRScheduler,
                    accelerator: Accelerator | None = None) -> int:
    """Restore a checkpoint written by `save_checkpoint` in every process; returns the number of steps already done.

    Each process restores its own `rng-R.pt`; a checkpoint without one (written by one process, or from the main
    process only) gives the main process's RNG to rank 0 and leaves the other ranks' freshly seeded RNG alone.
    """
    rank, _, _ = process_of(accelerator)
    if accelerator is not None and accelerator.distributed_type == DistributedType.DEEPSPEED:
        raise ConfigError("--resume is not supported with run.distributed: deepspeed yet (a checkpoint holds only the "
                          "main process's optimizer partition); start the run again or use fsdp")
    state = torch.load(folder / "state.pt", weights_only=False)
    if is_sharded(policy.model):  # every process loads the full state; each keeps its own shard
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


def save_final(policy: Policy, path: Path, accelerator: Accelerator, view: ModelView | None = None) -> None:
    """Write the trained model in `save_pretrained` form (every process calls this; full weights when sharded), and
    the `view` its prompts were built with (`agents.base.VIEW_FILE`)."""
    if is_sharded(policy.model):
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


__all__ = ["list_checkpoints", "load_checkpoint", "rng_file", "save_checkpoint", "save_final"]
