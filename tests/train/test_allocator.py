"""keep_freed_memory: big freed buffers are reused by the next allocation instead of faulted in again."""

from __future__ import annotations

import subprocess
import sys

import pytest

from mobile_r1.train.allocator import keep_freed_memory

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc malloc settings")

# Allocate, fill and free a 64 MB tensor (a batch's logits are that size) sixteen times after eight warm-up rounds;
# print the minor page faults of the sixteen. With the heap kept, a round now and then still lands on pages not
# touched before; by default every round faults in all of its pages.
SCRIPT = """
import resource, sys, torch
from mobile_r1.train.allocator import keep_freed_memory
if sys.argv[1] == "keep":
    assert keep_freed_memory()
for _ in range(8):
    torch.empty(64 << 20, dtype=torch.uint8).fill_(1)
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for _ in range(16):
    torch.empty(64 << 20, dtype=torch.uint8).fill_(1)
print(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
"""


def faults(mode: str) -> int:
    out = subprocess.run([sys.executable, "-c", SCRIPT, mode], check=True, capture_output=True, text=True).stdout
    return int(out.strip().splitlines()[-1])


@pytest.mark.slow
def test_keep_freed_memory_stops_refaulting_freed_buffers():
    pages = (64 << 20) // 4096
    default, kept = faults("default"), faults("keep")
    assert default > 12 * pages  # glibc hands each 64 MB block back to the kernel: its pages fault in again
    assert kept < 3 * pages  # the heap keeps it: the next block reuses the same pages


def test_keep_freed_memory_is_idempotent():
    assert keep_freed_memory() is True
    assert keep_freed_memory() is True
