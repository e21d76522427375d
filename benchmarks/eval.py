"""Online evaluation throughput: episodes per second of the `oracle` agent on inquire-sim with 1 and 2 workers.

    python benchmarks/eval.py [--episodes 24] [--suite inquire-sim]

Each run writes a full run directory (screenshots included) to a temporary folder, as `mobile-r1 eval --out` does.
The 2-worker figure includes starting the worker processes.
"""

from __future__ import annotations

import argparse
import os
import tempfile
from pathlib import Path

from mobile_r1.eval.runner import EvalConfig, run_eval


def episodes_per_second(workers: int, episodes: int, suite: str, agent: str = "oracle") -> tuple[float, float]:
    """(episodes per second, SR) of one fresh run."""
    with tempfile.TemporaryDirectory() as tmp:
        result = run_eval(EvalConfig(agent=agent, suite=suite, episodes=episodes, workers=workers, out=Path(tmp) / "run"))
    return len(result.verdicts) / result.seconds, result.report.overall.sr.value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=24)
    parser.add_argument("--suite", default="inquire-sim")
    args = parser.parse_args()
    print(f"oracle on {args.suite}/test, {args.episodes} episodes, {os.cpu_count()} CPU cores, screenshots saved")
    for workers in (1, 2):
        rate, sr = episodes_per_second(workers, args.episodes, args.suite)
        print(f"  workers={workers}: {rate:.2f} episodes/s  (SR {100 * sr:.0f}%)")


if __name__ == "__main__":
    main()
