"""Keeps freed memory in the process for reuse, so that torch's large temporary tensors do not
page-fault afresh at every call.

glibc's malloc serves each block above its mmap threshold (at most 32 MiB) with a fresh mmap and
unmaps it on free, and returns the top of its heap to the system when more than the trim threshold
is free. A CPU forward pass of the DDPG critic over the search's candidates (talus.agents.ddpg_her)
makes tens of such temporaries, each touched page by page: every call page-faulted its whole
working set in again. On this project's 2-core virtual machines a page fault is expensive, and
the critic over 16 x 320 candidates took 3.7-4.1 s, against 0.19 s with the blocks kept (measured
2026-11-29, torch 1.13 on one thread; docs/envs.md). The arithmetic is the same, so results are
bit for bit the same.

This is a process-wide setting (the process keeps its peak heap instead of returning it), which
is what a training or evaluation process wants; the agents' train() and load_policy() call it.
glibc's own tunables (MALLOC_MMAP_MAX_=0, MALLOC_TRIM_THRESHOLD_) do the same from the
environment; mallopt does it from inside, for every way an agent is started.
"""

from __future__ import annotations

import ctypes
import ctypes.util

# glibc's malloc.h
_M_TRIM_THRESHOLD = -1
_M_MMAP_MAX = -4
# The largest trim threshold mallopt takes (an int): 2 GiB of free heap top before trimming.
_TRIM_THRESHOLD_BYTES = 2**31 - 1

_applied = False


def keep_freed_memory():
    """Serves every allocation from the heap (no mmap per large block) and keeps up to 2 GiB of
    freed heap for reuse. Returns True when the C library took both settings (glibc), False where
    it has no mallopt (then nothing changes). Calling it again changes nothing."""
    global _applied
    if _applied:
        return True
    name = ctypes.util.find_library("c")
    if name is None:
        return False
    libc = ctypes.CDLL(name)
    mallopt = getattr(libc, "mallopt", None)
    if mallopt is None:
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    mallopt.restype = ctypes.c_int
    _applied = (mallopt(_M_MMAP_MAX, 0) == 1 and
                mallopt(_M_TRIM_THRESHOLD, _TRIM_THRESHOLD_BYTES) == 1)
    return _applied
