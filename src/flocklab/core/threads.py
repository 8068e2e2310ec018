"""Thread counts: of the numba kernels, and of NumPy's BLAS for small dense problems."""

from __future__ import annotations

import contextlib
import ctypes
import functools
from collections.abc import Iterator
from pathlib import Path
from typing import Any

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


#: Entry points of OpenBLAS's thread count, by build (NumPy's wheels: ``scipy_openblas``).
_OPENBLAS_SETTERS = ("scipy_openblas_set_num_threads64_", "scipy_openblas_set_num_threads",
                     "openblas_set_num_threads64_", "openblas_set_num_threads")
_OPENBLAS_GETTERS = ("scipy_openblas_get_num_threads64_", "scipy_openblas_get_num_threads",
                     "openblas_get_num_threads64_", "openblas_get_num_threads")


@functools.cache
def _numpy_openblas() -> tuple[Any, Any] | None:
    """``(get, set)`` of the thread count of the OpenBLAS NumPy's linear algebra runs on
    (the library its wheels bundle), or None where there is none to be found."""
    import numpy as np

    folder = Path(np.__file__).resolve().parent.parent / "numpy.libs"
    for path in sorted(folder.glob("libscipy_openblas*")) + sorted(folder.glob("libopenblas*")):
        try:
            library = ctypes.CDLL(str(path))
        except OSError:
            continue
        setter = next((getattr(library, n) for n in _OPENBLAS_SETTERS if hasattr(library, n)),
                      None)
        getter = next((getattr(library, n) for n in _OPENBLAS_GETTERS if hasattr(library, n)),
                      None)
        if setter is not None and getter is not None:
            return getter, setter
    return None


@contextlib.contextmanager
def blas_threads(threads: int) -> Iterator[int | None]:
    """Run the block with NumPy's OpenBLAS on at most ``threads`` threads; yields the count
    it had before (None where the library cannot be reached: then nothing changes).

    Dense problems of a few hundred unknowns (the springs' linear stability theory: 600 x 600
    eigenvalue problems) gain little from BLAS threads and lose much when the cores are busy:
    on two shared cores one took 0.26 s on one thread and 0.9 to 1.3 s on two. Eigenvalues
    differ in their last bits between thread counts.
    """
    found = _numpy_openblas()
    if found is None:
        yield None
        return
    getter, setter = found
    before = int(getter())
    setter(min(threads, before))
    try:
        yield before
    finally:
        setter(before)
