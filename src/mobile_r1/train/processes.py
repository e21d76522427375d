"""The processes of a run: the `accelerate.Accelerator` that `run.distributed` asks for (DDP, FSDP or DeepSpeed; CPU
when no GPU is visible), and what each process is (rank, world size, main)."""

from __future__ import annotations

import importlib.util

import torch
import torch.distributed as dist
from accelerate import Accelerator
from accelerate.state import AcceleratorState
from accelerate.utils import DeepSpeedPlugin, DistributedType, FullyShardedDataParallelPlugin
from torch.distributed.checkpoint.state_dict import StateDictOptions
from torch.distributed.fsdp import FullyShardedDataParallel
from torch.distributed.tensor import DTensor

from mobile_r1.core.errors import ConfigError
from mobile_r1.train.config import TrainConfig


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
    _forget_other_precision(config.run.mixed_precision)
    accelerator = Accelerator(cpu=not gpu, mixed_precision=config.run.mixed_precision, **plugins)
    if strategy == "fsdp" and accelerator.distributed_type != DistributedType.FSDP:
        raise ConfigError("run.distributed: fsdp needs several processes; launch with torchrun --nproc_per_node N "
                          "-m mobile_r1.cli.main train ... or accelerate launch --num_processes N ...")
    return accelerator


def _forget_other_precision(mixed_precision: str) -> None:
    """accelerate keeps one process-wide state and refuses a second `Accelerator` with another mixed precision: in a
    single process that already trained with other settings (a notebook, TRL's trainer, a test), start afresh."""
    state = AcceleratorState._shared_state
    if not state or (dist.is_available() and dist.is_initialized()):
        return
    if str(state.get("_mixed_precision", mixed_precision)) != mixed_precision:
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


__all__ = ["Accelerator", "barrier", "full_state_options", "is_sharded", "make_accelerator", "process_of"]
