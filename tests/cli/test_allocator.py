"""The allocator's thresholds for a command: freed blocks of a few MB reused, the user's own tuning kept."""

from __future__ import annotations

import ctypes
import platform
import resource
import sys

import numpy as np
import pytest

from chunkscope.cli.allocator import tune_allocator

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
