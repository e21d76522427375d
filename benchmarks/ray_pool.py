"""Evaluation throughput on a Ray pool: episodes per second of the `oracle` on inquire-sim, in process vs Ray actors.

    python benchmarks/ray_pool.py [--episodes 40] [--ray-workers 2] [--address ADDRESS]

Every run writes a full run directory (screenshots included) to a temporary folder, as `mobile-r1 eval --out` does,
and every run's per-episode verdicts are checked against the first's. The Ray figures are for a pool already started
(a local cluster of the machine's CPUs unless --address names one); the time to start the cluster and the pool is
printed apart.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

from mobile_r1.env.pools import RayBackend
from mobile_r1.eval.runner import EvalConfig, EvalResult, run_eval


def one_run(episodes: int, workers: int, pool: RayBackend | None) -> EvalResult:
    with tempfile.TemporaryDirectory() as tmp:
        config = EvalConfig(agent="oracle", suite="inquire-sim", episodes=episodes, workers=workers,
                            out=Path(tmp) / "run")
        return run_eval(config, backend=pool)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=40)
    parser.add_argument("--ray-workers", type=int, default=2)
    parser.add_argument("--address", default=None, help="a Ray cluster's address (default: a new local cluster)")
    args = parser.parse_args()
    print(f"oracle on inquire-sim/test, {args.episodes} episodes, {os.cpu_count()} CPU cores, screenshots saved")
    reference = None

    def report(label: str, result: EvalResult) -> None:
        nonlocal reference
        verdicts = [v.to_dict() for v in result.verdicts]
        reference = reference or verdicts
        same = "same verdicts" if verdicts == reference else "VERDICTS DIFFER"
        print(f"  {label:<44} {len(result.verdicts) / result.seconds:6.2f} episodes/s  ({same})")

    report("in process, 1 worker", one_run(args.episodes, 1, None))
    report("in process, 2 worker processes", one_run(args.episodes, 2, None))
    started = time.perf_counter()
    pool = RayBackend("sim", address=args.address, workers=args.ray_workers, render=True, scale=0.3, xml=False).start()
    print(f"  (Ray cluster and {args.ray_workers} workers started in {time.perf_counter() - started:.1f}s)")
    try:
        for in_flight in (args.ray_workers, 2 * args.ray_workers, 8 * args.ray_workers):
            report(f"Ray, {args.ray_workers} workers, {in_flight} episodes in flight", one_run(args.episodes, in_flight, pool))
    finally:
        pool.close()


if __name__ == "__main__":
    main()
