"""The C allocator of a process, where it is glibc's: a command's thresholds, and freed memory given back.

Thresholds (where the user left them alone): numpy takes every array above glibc's mmap threshold (128 KiB
at start) from fresh pages that the system maps and zeroes, and gives them back when the array is freed: an
evaluation's scratch arrays of a few MB (score blocks, gathered postings, bootstrap blocks) then cost a page
fault every 4 KiB, each time. Raising the threshold keeps blocks up to MMAP_THRESHOLD in the heap, reused
from one batch to the next, and the trim threshold keeps that much free heap instead of returning it at
once. glibc raises both thresholds by itself after a large block is freed; fixing them at the start makes a
run's cost independent of which arrays happened to be freed first (a ``--jobs 2`` sweep's workers took
110,000 to 210,000 page faults without it, 50,000 with it, and 0.1 s less CPU)."""

from __future__ import annotations

import ctypes
import os
import sys

MMAP_THRESHOLD = 16 << 20
"""Bytes: blocks up to this size come from the heap (glibc's own dynamic limit is 32 MiB on 64-bit)."""
TRIM_THRESHOLD = 32 << 20
"""Bytes of free memory at the top of the heap kept for the next blocks rather than returned to the system."""

_M_TRIM_THRESHOLD = -1
_M_MMAP_THRESHOLD = -3
"""``mallopt`` parameter numbers, from glibc's ``malloc.h``."""

_USER_SETTINGS = ("GLIBC_TUNABLES", "MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_")
"""Environment variables with which a user tunes glibc's allocator: when one is set, their choice stands."""


def tune_allocator(environ: dict[str, str] | None = None) -> bool:
    """Set glibc's mmap and trim thresholds for this process and the workers it forks; True when set.

    Nothing is done off Linux, when the C library has no ``mallopt`` (musl's does nothing either), or when
    the user tunes the allocator through the environment.
    """
    settings = os.environ if environ is None else environ
    if not sys.platform.startswith("linux") or any(name in settings for name in _USER_SETTINGS):
        return False
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    mallopt.restype = ctypes.c_int
    return bool(mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD)) and bool(mallopt(_M_TRIM_THRESHOLD, TRIM_THRESHOLD))


def release_free_memory() -> bool:
    """Give the C heap's free memory back to the system (glibc's ``malloc_trim``); True when some was.

    An evaluation in a worker thread allocates from that thread's own heap, and what it frees there stays
    mapped (trimming happens only at the top of the main heap). The inspector calls this when a
    configuration's results arrive: its memory after a few configurations is then what it holds.
    """
    if not sys.platform.startswith("linux"):
        return False
    try:
        malloc_trim = ctypes.CDLL(None).malloc_trim
    except (OSError, AttributeError):
        return False
    malloc_trim.argtypes = (ctypes.c_size_t,)
    malloc_trim.restype = ctypes.c_int
    return bool(malloc_trim(0))
