"""How a run shares the CPU's cores with other jobs: OpenMP's waiting threads sleep instead of spinning.

PyTorch's CPU kernels (and MKL's and oneDNN's under them) split each operation over `torch.get_num_threads()`
OpenMP threads and wait at a barrier for the last one. GNU OpenMP (libgomp, which the PyTorch wheels for Linux ship)
lets a waiting thread spin, burning its core, for up to 300,000 turns before it sleeps. On a machine of its own that
saves the cost of waking a thread; on a shared one, when another job holds one of the cores, the thread that finished
first spins while the one it waits for is not running, and the spinning thread takes time the other jobs (and this
run's own other thread) need. On the 2-core demo machine beside other jobs, SFT ran 3 to 8 times slower than the cores
it got explain, and used 2 to 8 times the CPU time per step (docs/training.md, "Sharing the machine").

`share_cores()` sets `OMP_WAIT_POLICY=PASSIVE` (a waiting thread sleeps at once) unless the user set the wait policy
or the spin count themselves. OpenMP reads these once, when PyTorch loads, so the command line calls it first thing,
and worker processes inherit it; a program that imported torch already keeps its setting (`share_cores` says so).
"""

from __future__ import annotations

import os
import sys

# The environment variables that decide how many threads a run uses and how they wait (recorded in each run's card).
THREAD_VARIABLES = ("OMP_NUM_THREADS", "OMP_WAIT_POLICY", "GOMP_SPINCOUNT", "KMP_BLOCKTIME", "MKL_NUM_THREADS",
                    "TOKENIZERS_PARALLELISM")
WAIT_SETTINGS = ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT", "KMP_BLOCKTIME")  # the user's choice of waiting, kept as is


def share_cores() -> bool:
    """Let OpenMP's waiting threads sleep (`OMP_WAIT_POLICY=PASSIVE`) unless the environment already says how they
    wait; returns whether this process runs with it (False when torch was imported before: OpenMP read the variables
    then; processes started later still get them)."""
    if not any(name in os.environ for name in WAIT_SETTINGS):
        os.environ["OMP_WAIT_POLICY"] = "PASSIVE"
    return os.environ.get("OMP_WAIT_POLICY", "").upper() == "PASSIVE" and "torch" not in sys.modules


__all__ = ["THREAD_VARIABLES", "WAIT_SETTINGS", "share_cores"]
