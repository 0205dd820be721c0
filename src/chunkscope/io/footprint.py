"""The memory a command will need, estimated from the corpus's size before anything is read, and the refusal
when that is more than the machine has.

Peak memory grows with the corpus: its text, each configuration's chunks, the token streams and the index,
the normalised text that quotes are located in. The factors below are the peaks of the whole process tree
(PSS summed, workers included) measured on a corpus of one huge document, the worst case
(``benchmarks/bench_huge_document.py``, 20 and 50 MB), rounded up. Rather than being killed by the system
half-way (or ending in a ``MemoryError``), a command whose estimate exceeds the limit refuses in one line
before it reads the corpus.

The limit is ``CHUNKSCOPE_MEMORY_LIMIT`` (``8G``, ``512M``, ``2000000000``; ``none`` turns the check off), or,
without it, the memory the system reports available (``MemAvailable`` in ``/proc/meminfo``); with neither
(not Linux) nothing is checked.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path

from chunkscope.errors import ChunkscopeError
from chunkscope.io.corpus import CORPUS_SUFFIXES

MEMORY_LIMIT_VARIABLE = "CHUNKSCOPE_MEMORY_LIMIT"
PEAK_PER_CORPUS_BYTE = {"eval": 28.0, "gold": 20.0}
"""Peak memory per byte of corpus of a command run in one process (eval: the three default configurations
with ``--jobs 1``, which also holds every result: 25x measured; gold: ``gold check``, 12 to 17x); commands
not listed evaluate like ``eval``."""
PARENT_PER_CORPUS_BYTE = 6.0
WORKER_PER_CORPUS_BYTE = 11.0
"""With ``--jobs N`` workers: the main process (the dataset, every result as it comes in) and each worker (the
configuration it evaluates; parts no later one needs are dropped), per byte of corpus. Measured with two
workers: 26x for the tree (``6 + 2 * 11 = 28`` rounded up)."""
BASELINE_BYTES = 100 * 2**20
"""Per process: the interpreter, numpy, numba and chunkscope's own code, before any data."""
_UNITS = {"": 1, "K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}
_SIZE = re.compile(r"\s*(\d+(?:\.\d+)?)\s*([KMGT]?)(?:I?B)?\s*", re.IGNORECASE)


def parse_size(text: str) -> int | None:
    """Bytes of a size like ``8G``, ``512M``, ``1.5GiB`` or ``2000000000``; None for ``none`` (no limit)."""
    if text.strip().lower() in ("none", "off", "0"):
        return None
    match = _SIZE.fullmatch(text)
    if match is None:
        raise ChunkscopeError(f"{MEMORY_LIMIT_VARIABLE}: not a size: {text!r} (e.g. 8G, 512M, or none)")
    return int(float(match.group(1)) * _UNITS[match.group(2).upper()])


def available_memory() -> int | None:
    """Bytes of memory the system can give without swapping (Linux), None where unknown."""
    try:
        with open("/proc/meminfo", encoding="ascii") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def corpus_bytes(path: str | Path) -> int:
    """Size on disk of a corpus: the JSONL file, or the ``.md``/``.txt`` files of a directory (0 if unreadable)."""
    root = Path(path)
    try:
        if not root.is_dir():
            return root.stat().st_size
        total = 0
        for directory, _, names in os.walk(root):
            for name in names:
                if Path(name).suffix.lower() in CORPUS_SUFFIXES:
                    try:
                        total += (Path(directory) / name).stat().st_size
                    except OSError:
                        continue
        return total
    except OSError:
        return 0  # the loader names what is wrong with the path


def check_memory(command: str, size: int, processes: int = 1, environ: Mapping[str, str] | None = None) -> None:
    """Refuse (ChunkscopeError, one line) when ``command`` on a corpus of ``size`` bytes, evaluated by
    ``processes`` processes at once (``--jobs`` workers), would need more memory than the limit (see the module
    docstring)."""
    settings = os.environ if environ is None else environ
    given = settings.get(MEMORY_LIMIT_VARIABLE)
    limit = parse_size(given) if given is not None else available_memory()
    if limit is None:
        return
    factor, processes = peak_factor(command, processes)
    needed = BASELINE_BYTES * processes + factor * size
    if needed <= limit:
        return
    source = f"{MEMORY_LIMIT_VARIABLE}={given}" if given is not None else "the memory available"
    raise ChunkscopeError(
        f"corpus of {_shown(size)} would need about {_shown(needed)} of memory ({factor:g}x its size) for "
        f"chunkscope {command}, more than the limit of {_shown(limit)} ({source}); set {MEMORY_LIMIT_VARIABLE} higher "
        f"(e.g. {MEMORY_LIMIT_VARIABLE}={_suggested(needed)}) or none to run anyway, or split the corpus"
    )


def peak_factor(command: str, processes: int) -> tuple[float, int]:
    """Peak memory per byte of corpus of ``command`` evaluated by ``processes`` processes at once, and how many
    processes hold the baseline: one alone (``gold check``, ``--jobs 1``), else the main one and its workers."""
    if command == "gold" or processes <= 1:
        return PEAK_PER_CORPUS_BYTE.get(command, PEAK_PER_CORPUS_BYTE["eval"]), 1
    return PARENT_PER_CORPUS_BYTE + WORKER_PER_CORPUS_BYTE * processes, 1 + processes


def _shown(size: float) -> str:
    """A byte count for a message: ``1.5 GB``, ``200 MB``."""
    for unit, scale in (("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if size >= scale:
            return f"{size / scale:.1f} {unit}"
    return f"{size:.0f} B"


def _suggested(needed: float) -> str:
    """The estimate rounded up to a whole number of GiB, as a value for the variable."""
    return f"{int(-(-needed // 2**30))}G"
