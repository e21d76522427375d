"""Several processes: per-process RNG in checkpoints and resume, FSDP checkpoints with full weights, strategy errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from types import SimpleNamespace

import pytest
import torch

from mobile_r1.cli.main import main
from mobile_r1.core.formats import save_episodes
from mobile_r1.core.records import Episode
from mobile_r1.models import load_policy

GRPO_CONFIG = """\
model: {{name: tiny-lm}}
data: {{train: [data], eval_fraction: 0.0, history_window: 1}}
optim: {{lr: 1.0e-3, scheduler: constant}}
grpo: {{prompts_per_step: 2, num_generations: 2, max_completion_length: 6, micro_batch_size: 2, beta: 0.0}}
run: {{output_dir: {out}, save_every: 1, keep_checkpoints: 10, max_steps: {steps}, tensorboard: false}}
"""


def _torchrun(config: Path, cwd: Path, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node", "2", "-m", "mobile_r1.cli.main",
         "train", "--config", str(config), "--stage", "action-grpo", *extra],
        cwd=cwd, capture_output=True, text=True, timeout=400, env={**os.environ, "OMP_NUM_THREADS": "1"},
    )


def _records(run_dir: Path) -> list[dict]:
    return [r for r in map(json.loads, (run_dir / "metrics.jsonl").read_text().splitlines()) if r["kind"] == "train"]


def _rng(run_dir: Path, step: int, rank: int) -> dict:
    return torch.load(run_dir / "checkpoints" / f"step-{step}" / f"rng-{rank}.pt", weights_only=False)


def _same_rng(a: dict, b: dict) -> bool:
    import numpy as np

    return (torch.equal(a["torch"], b["torch"]) and a["python"] == b["python"]
            and all(np.array_equal(x, y) for x, y in zip(a["numpy"], b["numpy"])))


@pytest.mark.slow
def test_two_processes_stopped_after_a_checkpoint_and_resumed_match_a_straight_run(
    tmp_path: Path, episodes: list[Episode]
) -> None:
    """Stage 2 samples with each process's own RNG; a resumed run restores every process's RNG from its own file.
    With `grpo.skip_solved` the processes split the prediction of the steps, and the resumed run's processes all take
    the kept steps the main one reads back."""
    load_policy("tiny-lm")  # build the preset once, before two processes read it
    save_episodes(tmp_path / "data", episodes)
    config_text = GRPO_CONFIG.replace("beta: 0.0}", "beta: 0.0, skip_solved: true}")
    straight = tmp_path / "straight.yaml"
    straight.write_text(config_text.format(out=tmp_path / "straight", steps=3))
    first = tmp_path / "first.yaml"  # stops after 2 of the 3 steps; its last checkpoint is step 1
    first.write_text(config_text.format(out=tmp_path / "resumed", steps=2))
    rest = tmp_path / "rest.yaml"
    rest.write_text(config_text.format(out=tmp_path / "resumed", steps=3))

    for config, extra in ((straight, ()), (first, ()), (rest, ("--resume",))):
        proc = _torchrun(config, tmp_path, *extra)
        assert proc.returncode == 0, proc.stderr[-3000:]
        assert proc.stderr.count("final (format_valid") == 1  # only the main process reports the result
        predicted = proc.stderr.count("grpo.skip_solved: it solves 0; training on the other")
        assert predicted == (0 if extra else 1), proc.stderr[-3000:]
    assert "solved_steps.json (read back)" in proc.stderr  # the resumed run read its steps back
    assert (json.loads((tmp_path / "resumed" / "solved_steps.json").read_text())
            == json.loads((tmp_path / "straight" / "solved_steps.json").read_text()))

    a, b = tmp_path / "straight", tmp_path / "resumed"
    ckpt = b / "checkpoints" / "step-1"
    assert sorted(p.name for p in ckpt.iterdir()) == ["rng-0.pt", "rng-1.pt", "state.pt"]
    assert torch.load(ckpt / "state.pt", weights_only=False)["processes"] == 2
    # the ranks sample from different streams, and each stream continues after the resume as if never stopped
    assert not _same_rng(_rng(a, 1, 0), _rng(a, 1, 1))
    for rank in (0, 1):
        assert _same_rng(_rng(a, 1, rank), _rng(b, 1, rank))
        assert _same_rng(_rng(a, 2, rank), _rng(b, 2, rank)), f"rank {rank} RNG after the resumed step differs"
    ours, ref = _records(b), _records(a)
    assert [r["step"] for r in ours] == [1, 2, 3] and [r["processes"] for r in ours] == [2.0] * 3
    for x, y in zip(ours, ref):
        for key in ("loss", "reward_mean", "completion_length", "format_valid"):
            assert x[key] == pytest.approx(y[key], abs=1e-4), (x["step"], key)


def _tiny() -> tuple[SimpleNamespace, torch.optim.Optimizer, torch.optim.lr_scheduler.LambdaLR]:
    torch.manual_seed(0)
    policy = SimpleNamespace(model=torch.nn.Linear(3, 2))
    optimizer = torch.optim.AdamW(policy.model.parameters(), lr=0.1)
    return policy, optimizer, torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: 1.0)


def test_a_checkpoint_saved_from_the_main_process_only_keeps_the_one_file_layout(tmp_path: Path) -> None:
    """Without an accelerator (one process, or stage 3 saving from the main process) only state.pt is written, and
    loading it restores the weights, the optimizer and the main process's RNG."""
    from mobile_r1.train.checkpoints import list_checkpoints, load_checkpoint, save_checkpoint

    policy, optimizer, scheduler = _tiny()
    policy.model(torch.ones(1, 3)).sum().backward()
    optimizer.step()
    torch.manual_seed(7)
    folder = save_checkpoint(tmp_path, 3, policy, optimizer, scheduler, keep=1)
    after = torch.rand(2)
    assert [p.name for p in folder.iterdir()] == ["state.pt"] and list_checkpoints(tmp_path) == [(3, folder)]
    fresh, fresh_optimizer, fresh_scheduler = _tiny()
    assert load_checkpoint(folder, fresh, fresh_optimizer, fresh_scheduler) == 3
    assert torch.equal(torch.rand(2), after)
    assert torch.equal(fresh.model.weight, policy.model.weight)
    assert torch.equal(fresh_optimizer.state_dict()["state"][0]["exp_avg"], optimizer.state_dict()["state"][0]["exp_avg"])


FSDP_WORKER = """
import sys
from pathlib import Path

import torch
from accelerate import Accelerator
from torch.distributed.checkpoint.state_dict import StateDictOptions, get_model_state_dict, get_optimizer_state_dict
from torch.distributed.fsdp import fully_shard

from mobile_r1.models import load_policy
from mobile_r1.train.checkpoints import load_checkpoint, save_checkpoint, save_final
from mobile_r1.train.processes import is_sharded

out = Path(sys.argv[1])
acc = Accelerator(cpu=True)
full = StateDictOptions(full_state_dict=True, cpu_offload=True)


def sharded():
    policy = load_policy("tiny-lm")
    for layer in policy.model.model.layers:
        fully_shard(layer)
    fully_shard(policy.model)
    optimizer = torch.optim.AdamW(policy.model.parameters(), lr=1e-2)
    return policy, optimizer, torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: 1.0)


policy, optimizer, scheduler = sharded()
assert is_sharded(policy.model)
torch.manual_seed(1)
ids = torch.randint(3, 100, (2, 8))
policy.model(input_ids=ids, labels=ids).loss.backward()
optimizer.step()
scheduler.step()
if acc.is_main_process:
    torch.save(get_model_state_dict(policy.model, options=full), out / "reference.pt")
else:
    get_model_state_dict(policy.model, options=full)
torch.manual_seed(100 + acc.process_index)
folder = save_checkpoint(out, 1, policy, optimizer, scheduler, keep=2, accelerator=acc)
after_save = torch.rand(3)
save_final(policy, out / "final", acc)

fresh, fresh_optimizer, fresh_scheduler = sharded()
torch.manual_seed(999)
assert load_checkpoint(folder, fresh, fresh_optimizer, fresh_scheduler, acc) == 1
assert torch.equal(torch.rand(3), after_save), "this process's RNG was not restored"
for a, b in zip(policy.model.parameters(), fresh.model.parameters()):
    assert torch.equal(a.to_local(), b.to_local()), "weights shard differs after loading"
for a, b in zip(optimizer.state.values(), fresh_optimizer.state.values()):
    assert torch.equal(a["exp_avg"].to_local(), b["exp_avg"].to_local()), "optimizer shard differs after loading"
print("worker ok", acc.process_index, flush=True)
torch.distributed.barrier()
torch.distributed.destroy_process_group()  # a clean teardown: gloo's threads stopped before the interpreter exits
"""


@pytest.mark.slow
def test_fsdp_checkpoint_holds_full_weights_and_restores_every_shard(tmp_path: Path) -> None:
    """A tiny-lm sharded with FSDP2 over two gloo processes: state.pt and final/ hold the full model."""
    load_policy("tiny-lm")  # build the preset once, before two processes read it
    worker = tmp_path / "worker.py"
    worker.write_text(textwrap.dedent(FSDP_WORKER))
    proc = subprocess.run(
        [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node", "2", str(worker), str(tmp_path)],
        cwd=tmp_path, capture_output=True, text=True, timeout=300, env={**os.environ, "OMP_NUM_THREADS": "1"},
    )
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-3000:]
    assert proc.stdout.count("worker ok") == 2
    reference = torch.load(tmp_path / "reference.pt")
    state = torch.load(tmp_path / "checkpoints" / "step-1" / "state.pt", weights_only=False)
    assert state["sharded"] and state["processes"] == 2
    assert set(state["model"]) == set(load_policy("tiny-lm").model.state_dict())  # lm_head.weight is tied
    for name, value in state["model"].items():
        assert torch.equal(value, reference[name]), name  # whole tensors, not one process's shard
    final = load_policy(str(tmp_path / "final")).model.state_dict()
    for name, value in reference.items():
        assert torch.equal(final[name], value), name


def _strategy_config(tmp_path: Path, episodes: list[Episode], strategy: str) -> Path:
    save_episodes(tmp_path / "data", episodes)
    path = tmp_path / f"{strategy}.yaml"
    path.write_text(f"model: {{name: tiny-lm}}\ndata: {{train: [data]}}\n"
                    f"run: {{output_dir: {tmp_path / 'run'}, distributed: {strategy}}}\n")
    return path


@pytest.mark.skipif(torch.cuda.is_available(), reason="the CPU refusals")
def test_fsdp_on_cpu_is_refused_with_what_to_do(
    tmp_path: Path, episodes: list[Episode], capsys: pytest.CaptureFixture
) -> None:
    assert main(["train", "--config", str(_strategy_config(tmp_path, episodes, "fsdp")), "--stage", "sft"]) == 2
    err = capsys.readouterr().err
    assert "run.distributed: fsdp needs CUDA GPUs" in err and "run.distributed: ddp" in err and "Traceback" not in err
    assert not (tmp_path / "run" / "metrics.jsonl").exists()


def test_deepspeed_without_its_package_names_the_install(
    tmp_path: Path, episodes: list[Episode], capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "deepspeed" else real(name, *a))
    assert main(["train", "--config", str(_strategy_config(tmp_path, episodes, "deepspeed")), "--stage", "sft"]) == 2
    err = capsys.readouterr().err
    assert "pip install deepspeed" in err and "Traceback" not in err


def test_an_unknown_strategy_is_a_config_error(
    tmp_path: Path, episodes: list[Episode], capsys: pytest.CaptureFixture
) -> None:
    assert main(["train", "--config", str(_strategy_config(tmp_path, episodes, "zero3")), "--stage", "sft"]) == 2
    err = capsys.readouterr().err
    assert "run.distributed" in err and "'ddp', 'fsdp' or 'deepspeed'" in err and "Traceback" not in err
