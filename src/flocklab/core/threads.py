"""Thread count of the numba kernels."""

from __future__ import annotations

import numba

#: Below this many agents the kernels run serially: starting threads costs more than it saves.
PARALLEL_MIN_AGENTS = 4096


def parallel_chunks(n: int) -> int:
    """Number of agent ranges a kernel should split ``n`` agents into (<= 1: serial)."""
    threads = numba.get_num_threads()
    if n < PARALLEL_MIN_AGENTS or threads == 1:
        return 1
    return 8 * threads


def set_threads(threads: int | None) -> int:
    """Use ``threads`` numba threads (``None``: leave as is); returns the count in use.

    The kernels give identical results for any thread count.
    """
    if threads is not None:
        if threads < 1:
            raise ValueError(f"threads must be >= 1, got {threads}")
        numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))
    return numba.get_num_threads()
