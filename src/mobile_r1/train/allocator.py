"""Keep freed memory in the process between training steps (glibc only).

A CPU training step allocates and frees the same large buffers every step: the logits of a batch alone are tens of
megabytes. glibc's malloc serves blocks above its mmap threshold (at most 32 MB by default) with a fresh `mmap` and
hands them back with `munmap` when freed, and it returns the free top of its heap to the kernel above the trim
threshold; so the next step touches brand-new pages, one minor page fault per 4 KB. On the 2-core CPU demo this was
40,000-60,000 faults and 0.1-0.2 s of kernel time per SFT step (`benchmarks/sft_step.py`). Raising the thresholds,
as `MALLOC_MMAP_THRESHOLD_`, `MALLOC_TRIM_THRESHOLD_` and `MALLOC_TOP_PAD_` would at start-up, lets later steps reuse
the pages. PyTorch has no such setting for its CPU allocator, which calls `posix_memalign`; hence these few lines.

The price is a resident set that stays at its high-water mark instead of shrinking between steps.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import functools
import sys

_M_TRIM_THRESHOLD = -1
_M_TOP_PAD = -2
_M_MMAP_THRESHOLD = -3

MMAP_THRESHOLD = 256 << 20  # blocks up to 256 MB come from the heap and are reused
TRIM_THRESHOLD = 1 << 30  # keep up to 1 GB of free heap top instead of returning it
TOP_PAD = 256 << 20  # grow the heap in steps of 256 MB

@functools.cache
def keep_freed_memory() -> bool:
    """Raise glibc's mmap and trim thresholds for this process; True when they are set (Linux with glibc).

    Elsewhere (macOS, musl, Windows) it does nothing and returns False. Calling it again is free.
    """
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):  # not glibc
        return False
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    mallopt.restype = ctypes.c_int
    settings = ((_M_MMAP_THRESHOLD, MMAP_THRESHOLD), (_M_TRIM_THRESHOLD, TRIM_THRESHOLD), (_M_TOP_PAD, TOP_PAD))
    return all(mallopt(param, value) == 1 for param, value in settings)
