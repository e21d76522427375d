"""SFT steps per minute alone and beside a busy neighbour, with OpenMP's threads spinning while they wait (libgomp's
default, as before `train.threads.share_cores`) and sleeping (`OMP_WAIT_POLICY=PASSIVE`, what `mobile-r1` sets).

    python benchmarks/shared_cores.py [--seconds 90] [--neighbour burn|sft] [--rounds 1] [--work DIR]

Each measurement is the real `mobile-r1 train --config configs/demo.yaml --stage sft` on expert data of 100 episodes
per suite, its steps timed from `metrics.jsonl` (`step_seconds`) over `--seconds` after 5 warm-up steps, then
stopped. The neighbour starts before it and stops after it: `burn` is one CPU-burning process per core (as
`stress --cpu N`), `sft` a second copy of the same training with the same setting. "spinning" sets `GOMP_SPINCOUNT`
to libgomp's default (300000), which `share_cores` leaves as the user's choice, so both settings run the same code.
Prints steps per minute, CPU seconds per step (spinning shows as CPU time that does no work) and the ratios.
Other work on the machine moves every figure: run the rounds back to back and read the ratios.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SETTINGS = {"spinning": {"GOMP_SPINCOUNT": "300000"}, "sleeping": {}}
WARM_UP = 5


def train_command(data: list[Path], out: Path) -> list[str]:
    return [sys.executable, "-m", "mobile_r1.cli.main", "train", "--config", str(REPO / "configs" / "demo.yaml"),
            "--stage", "sft", "-o", str(out), "--set", f"data.train={json.dumps([str(d) for d in data])}",
            "--set", "run.log_every=1", "--set", "run.save_every=100000", "--set", "run.max_steps=100000"]


def start(command: list[str], env: dict[str, str]) -> subprocess.Popen[bytes]:
    return subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)


def stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def steps(run: Path) -> list[dict[str, float]]:
    path = run / "metrics.jsonl"
    if not path.exists():
        return []
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        if record.get("kind") == "train":
            out.append(record)
    return out


def measure(setting: str, neighbour: str | None, data: list[Path], work: Path, seconds: float) -> dict[str, float]:
    env = {**os.environ, "PYTHONPATH": str(REPO / "src"), **SETTINGS[setting]}
    for name in ("OMP_WAIT_POLICY",):
        env.pop(name, None)
    runs = [work / "run", work / "neighbour"]
    for run in runs:
        shutil.rmtree(run, ignore_errors=True)
    others: list[subprocess.Popen[bytes]] = []
    if neighbour == "burn":
        others = [start([sys.executable, "-c", "while True: pass"], env) for _ in range(os.cpu_count() or 1)]
    elif neighbour == "sft":
        others = [start(train_command(data, runs[1]), env)]
    main = start(train_command(data, runs[0]), env)
    try:
        while len(steps(runs[0])) < WARM_UP:
            if main.poll() is not None:
                raise SystemExit(f"the training run stopped early ({main.returncode})")
            time.sleep(1)
        cpu0, t0 = _cpu_seconds(main.pid), time.perf_counter()
        first = len(steps(runs[0]))
        time.sleep(seconds)
        cpu1, t1 = _cpu_seconds(main.pid), time.perf_counter()
        done = steps(runs[0])[first:]
    finally:
        stop(main)
        for other in others:
            stop(other)
    n = len(done)
    return {"steps_per_min": 60 * n / (t1 - t0), "cpu_per_step": (cpu1 - cpu0) / n if n else float("nan"),
            "steps": n}


def _cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a process (all its threads) from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seconds", type=float, default=90.0, help="measured window of each run, after 5 warm-up steps")
    ap.add_argument("--neighbour", choices=("burn", "sft"), default="burn")
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--work", default="/tmp/mobile-r1-shared-cores")
    a = ap.parse_args()
    work = Path(a.work)
    sys.path.insert(0, str(REPO / "src"))
    from mobile_r1.env.demos import generate

    data = []
    for suite in ("inquire-sim", "nav-sim"):
        folder = work / "data" / suite
        if not (folder / "episodes.jsonl").exists():
            generate(suite, "train", 100, folder, seed=0, screenshots=False)
        data.append(folder)
    print(f"SFT of configs/demo.yaml, {a.seconds:g} s windows, neighbour: {a.neighbour}, {os.cpu_count()} cores, "
          f"load {os.getloadavg()[0]:.1f} at the start", flush=True)
    print("| round | threads waiting | alone: steps/min | CPU s/step | beside the neighbour: steps/min | CPU s/step "
          "| alone / beside |", flush=True)
    print("|---|---|---|---|---|---|---|", flush=True)
    for round_ in range(1, a.rounds + 1):
        for setting in SETTINGS:
            alone = measure(setting, None, data, work, a.seconds)
            beside = measure(setting, a.neighbour, data, work, a.seconds)
            ratio = alone["steps_per_min"] / beside["steps_per_min"] if beside["steps_per_min"] else float("inf")
            print(f"| {round_} | {setting} | {alone['steps_per_min']:.1f} | {alone['cpu_per_step']:.2f} | "
                  f"{beside['steps_per_min']:.1f} | {beside['cpu_per_step']:.2f} | {ratio:.1f}x |", flush=True)
    print(f"load {os.getloadavg()[0]:.1f} at the end", flush=True)


if __name__ == "__main__":
    main()
