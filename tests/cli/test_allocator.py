"""The allocator's thresholds for a command (freed blocks of a few MB reused, the user's own tuning kept), and
freed heap memory given back."""

from __future__ import annotations

import ctypes
import platform
import resource
import sys
import threading
from pathlib import Path

import numpy as np
import pytest

from chunkscope.allocator import release_free_memory, tune_allocator

GLIBC = sys.platform.startswith("linux") and platform.libc_ver()[0] == "glibc"


def faults_of_five_arrays(size: int) -> int:
    """Minor page faults while five arrays of ``size`` bytes are written whole and freed, one after the other."""
    np.ones(size, dtype=np.uint8)  # the heap grows once, if it is to serve them
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(5):
        np.ones(size, dtype=np.uint8)
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before


@pytest.mark.skipif(not GLIBC, reason="mallopt's thresholds are glibc's")
def test_freed_blocks_of_a_few_mb_are_reused_without_page_faults() -> None:
    # 2 MiB arrays: 512 pages of 4 KiB, under the 4 MiB from which numpy asks for huge pages (a fault per 2 MiB).
    size, pages = 2 << 20, 512
    mallopt = ctypes.CDLL(None).mallopt
    mallopt.argtypes = (ctypes.c_int, ctypes.c_int)
    assert mallopt(-3, 128 << 10)  # glibc's initial mmap threshold, fixed (no adapting to what is freed)
    untuned = faults_of_five_arrays(size)
    if untuned < 5 * pages // 4:
        pytest.skip(f"fresh mappings took only {untuned} faults here (huge pages?): faults cannot show reuse")
    assert tune_allocator({}) is True
    assert faults_of_five_arrays(size) < 5 * pages // 10  # the heap's pages, reused


def test_a_users_own_tuning_is_left_alone() -> None:
    for name in ("GLIBC_TUNABLES", "MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_"):
        assert tune_allocator({name: "1"}) is False


@pytest.mark.skipif(sys.platform.startswith("linux"), reason="off Linux only")
def test_nothing_is_tuned_off_linux() -> None:
    assert tune_allocator({}) is False


def resident_bytes() -> int:
    """This process's resident memory now (``VmRSS``)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) << 10
    raise AssertionError("no VmRSS in /proc/self/status")


@pytest.mark.skipif(not GLIBC, reason="malloc_trim is glibc's")
def test_freed_heap_memory_goes_back_to_the_system() -> None:
    # A thread's heap, as the inspector's worker uses: 80 MB of small blocks freed but the last, which keeps the
    # heap from shrinking at its top. Only a trim gives the free pages below it back.
    kept: list[bytearray] = []

    def fill_and_free() -> None:
        blocks = [bytearray(4000) for _ in range(20_000)]
        kept.append(blocks[-1])
        del blocks

    thread = threading.Thread(target=fill_and_free)
    thread.start()
    thread.join()
    before = resident_bytes()
    assert release_free_memory() is True
    assert resident_bytes() < before - (40 << 20)
