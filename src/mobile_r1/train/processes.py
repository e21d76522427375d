"""The processes of a run: the `accelerate.Accelerator` that `run.distributed` asks for (DDP, FSDP or DeepSpeed; CPU
when no GPU is visible) with the autocast `run.mixed_precision` resolves to here, what each process is (rank, world
size, main), and the run's card (`card.json`: the machine, threads and library versions its numbers depend on)."""

from __future__ import annotations

import atexit
import hashlib
import importlib.util
import os
from pathlib import Path
from typing import Any

import torch
import torch.distributed as dist
from accelerate import Accelerator
from accelerate.state import AcceleratorState
from accelerate.utils import DeepSpeedPlugin, DistributedType, FullyShardedDataParallelPlugin
from torch.distributed.checkpoint.state_dict import StateDictOptions
from torch.distributed.fsdp import FullyShardedDataParallel
from torch.distributed.tensor import DTensor

from mobile_r1.core.errors import ConfigError
from mobile_r1.core.files import write_json
from mobile_r1.core.reading import read_json
from mobile_r1.eval.card import CARD_FILE, environment
from mobile_r1.train.config import TrainConfig
from mobile_r1.train.progress import console
from mobile_r1.train.threads import THREAD_VARIABLES


def _end_processes() -> None:
    """Tear the process group down before the interpreter exits: a process that exits with gloo's or NCCL's threads
    still running can abort ("terminate called without an active exception") after its work is done."""
    if dist.is_available() and dist.is_initialized():
        dist.destroy_process_group()


def make_accelerator(config: TrainConfig) -> Accelerator:
    """The run's `accelerate.Accelerator`: DDP, FSDP or DeepSpeed as `run.distributed` says; CPU when no GPU is visible.

    Raises ConfigError when the strategy cannot run here: FSDP and DeepSpeed need CUDA GPUs (accelerate 1.x shards only
    on GPUs and would quietly fall back to DDP on CPU), DeepSpeed needs its package, FSDP needs a multi-process launch.
    """
    strategy = config.run.distributed
    gpu = torch.cuda.is_available()
    plugins: dict[str, FullyShardedDataParallelPlugin | DeepSpeedPlugin] = {}
    if strategy == "deepspeed" and importlib.util.find_spec("deepspeed") is None:
        raise ConfigError("run.distributed: deepspeed needs the deepspeed package; pip install deepspeed "
                          "(on CUDA GPUs), or set run.distributed: ddp")
    if strategy in ("fsdp", "deepspeed") and not gpu:
        raise ConfigError(f"run.distributed: {strategy} needs CUDA GPUs (accelerate shards only on GPUs and would "
                          "train with plain DDP on CPU); set run.distributed: ddp to train on CPU")
    if strategy == "fsdp":
        plugins["fsdp_plugin"] = FullyShardedDataParallelPlugin(
            fsdp_version=2, auto_wrap_policy="transformer_based_wrap", state_dict_type="FULL_STATE_DICT",
            reshard_after_forward=True, activation_checkpointing=False)
    elif strategy == "deepspeed":
        plugin = DeepSpeedPlugin(zero_stage=2, gradient_accumulation_steps=1,
                                 gradient_clipping=config.optim.max_grad_norm or 0.0)
        plugin.deepspeed_config["train_micro_batch_size_per_gpu"] = config.sft.micro_batch_size
        plugins["deepspeed_plugin"] = plugin
    precision = mixed_precision(config.run.mixed_precision, gpu)
    if precision == "bf16" and not bf16_is_fast(gpu):
        console.print("run.mixed_precision: bf16 on a GPU without bfloat16 support (torch.cuda.is_bf16_supported() is "
                      "False); set run.mixed_precision: auto or fp16" if gpu else
                      "run.mixed_precision: bf16 on a CPU whose bfloat16 matrix products torch cannot hand to oneDNN "
                      "(no AVX-512): they run on a scalar kernel, about 15x slower than float32 "
                      "(benchmarks/sft_step.py); set run.mixed_precision: auto to train in float32 here", markup=False)
    _forget_other_precision(precision)
    accelerator = Accelerator(cpu=not gpu, mixed_precision=precision, **plugins)
    if strategy == "fsdp" and accelerator.distributed_type != DistributedType.FSDP:
        raise ConfigError("run.distributed: fsdp needs several processes; launch with torchrun --nproc_per_node N "
                          "-m mobile_r1.cli.main train ... or accelerate launch --num_processes N ...")
    if dist.is_initialized():
        atexit.register(_end_processes)  # a second registration finds nothing left to tear down
    return accelerator


def bf16_is_fast(gpu: bool) -> bool:
    """Whether bfloat16 matrix products run at full speed here: on a GPU that supports bf16, or on a CPU where torch
    hands them to oneDNN (CPUs with AVX-512; natively with AVX-512 BF16 or AMX). Elsewhere (an AVX2 CPU) torch computes
    them with a scalar kernel, and bf16 autocast trains about 15x slower than float32."""
    if gpu:
        return bool(torch.cuda.is_bf16_supported())
    supported = getattr(torch.ops.mkldnn, "_is_mkldnn_bf16_supported", None)
    return bool(supported is not None and torch.backends.mkldnn.is_available() and supported())


def mixed_precision(asked: str, gpu: bool | None = None) -> str:
    """The autocast a run uses for `run.mixed_precision` = `asked`: itself, or for `auto` bf16 where `bf16_is_fast`
    and none ("no") elsewhere. `gpu`: whether the run trains on a GPU (default: whether one is visible)."""
    if asked != "auto":
        return asked
    return "bf16" if bf16_is_fast(torch.cuda.is_available() if gpu is None else gpu) else "no"


def _forget_other_precision(precision: str) -> None:
    """accelerate keeps one process-wide state and refuses a second `Accelerator` with another mixed precision: in a
    single process that already trained with other settings (a notebook, TRL's trainer, a test), start afresh."""
    state = AcceleratorState._shared_state
    if not state or (dist.is_available() and dist.is_initialized()):
        return
    if str(state.get("_mixed_precision", precision)) != precision:
        AcceleratorState._reset_state(reset_partial_state=True)


def process_of(accelerator: Accelerator | None) -> tuple[int, int, bool]:
    """(rank, world size, is main) of this process; without an accelerator, torch.distributed's or a single process."""
    if accelerator is not None:
        return accelerator.process_index, accelerator.num_processes, accelerator.is_main_process
    if dist.is_available() and dist.is_initialized():
        return dist.get_rank(), dist.get_world_size(), dist.get_rank() == 0
    return 0, 1, True


def barrier(accelerator: Accelerator | None) -> None:
    """Wait for every process (nothing to wait for without an accelerator)."""
    if accelerator is not None:
        accelerator.wait_for_everyone()


def is_sharded(model: torch.nn.Module) -> bool:
    """Whether `model`'s weights are split over processes (FSDP1, or FSDP2 / DTensor parameters)."""
    return isinstance(model, FullyShardedDataParallel) or any(isinstance(p, DTensor) for p in model.parameters())


def full_state_options() -> StateDictOptions:
    """Gather sharded weights whole, on the CPU (what a checkpoint or a final model holds)."""
    return StateDictOptions(full_state_dict=True, cpu_offload=True, ignore_frozen_params=True)


def run_card(config: TrainConfig, kind: str, processes: int = 1) -> dict[str, Any]:
    """What a training run's (or a curriculum's) numbers depend on besides its config: the processor's model, cores,
    torch's threads, the thread settings of the environment, the CPU kernels' instruction set and the library versions
    (`eval.card.environment`). A run is repeatable on the same machine with the same libraries and threads; another
    processor runs other kernels (other rounding), so its losses, and then its scores, can differ."""
    env = environment()
    env["machine"]["torch_interop_threads"] = torch.get_num_interop_threads()
    env["machine"]["processes"] = processes
    env["threads"] = {name: os.environ.get(name) for name in THREAD_VARIABLES}
    return {"kind": kind, "config_sha256": hashlib.sha256(config.to_yaml().encode("utf-8")).hexdigest(),
            "seed": config.run.seed, "mixed_precision": mixed_precision(config.run.mixed_precision),
            "mixed_precision_asked": config.run.mixed_precision, "dtype": config.model.dtype,
            "repeatable_on": "the same machine (processor model, threads) with the same library versions", **env}


def write_run_card(run_dir: Path, card: dict[str, Any]) -> Path:
    """Write `run_dir/card.json`; when a resumed run finds an earlier card whose machine, threads or libraries differ,
    the earlier ones are kept under `earlier` (the run's numbers then mix them)."""
    path = Path(run_dir) / CARD_FILE
    if path.is_file():
        old = read_json(path)
        if isinstance(old, dict):
            earlier = list(old.get("earlier") or [])
            seen = {k: old.get(k) for k in ("packages", "machine", "threads")}
            if seen != {k: card.get(k) for k in seen} and seen not in earlier:
                earlier.append(seen)
            if earlier:
                card = {**card, "earlier": earlier}
    write_json(path, card)
    return path


__all__ = ["Accelerator", "barrier", "bf16_is_fast", "full_state_options", "is_sharded", "make_accelerator",
           "mixed_precision", "process_of", "run_card", "write_run_card"]
