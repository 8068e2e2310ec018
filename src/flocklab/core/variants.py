"""Serial compilations of parallel numba kernels, from the same source.

A function compiled with ``parallel=True`` costs a noticeable start-up even when it runs on
one thread: loading it from numba's cache initialises the parallel machinery and its
threading layer (≈ 0.3 s per process on the development machine). A pipeline job runs one
thread, so each parallel kernel also has a serial twin, compiled from the same Python
function with ``parallel=False`` (``prange`` then runs as ``range``), under its own name so
the two never share a cache entry. Both give identical results: the loops have no
reductions across iterations.
"""

from __future__ import annotations

import types
from collections.abc import Mapping
from typing import Any

from numba import njit


def serial_variant(kernel: Any, callees: Mapping[str, Any] | None = None,
                   suffix: str = "_serial") -> Any:
    """A ``parallel=False`` compilation of the numba dispatcher ``kernel``.

    Parameters
    ----------
    kernel : numba dispatcher
        A function decorated with ``@njit(...)``.
    callees : mapping, optional
        Global names the serial twin resolves differently (its callees' serial twins).
    suffix : str
        Appended to the function's name and qualified name (distinct cache entries).

    Returns
    -------
    numba dispatcher
        Same signature and results; cached like the original.
    """
    source = kernel.py_func
    name = source.__name__ + suffix
    code = source.__code__.replace(co_name=name, co_qualname=source.__qualname__ + suffix)
    namespace = dict(source.__globals__)
    namespace.update(callees or {})
    twin = types.FunctionType(code, namespace, name, source.__defaults__, source.__closure__)
    twin.__qualname__ = source.__qualname__ + suffix
    twin.__module__ = source.__module__
    twin.__doc__ = source.__doc__
    options = {key: value for key, value in kernel.targetoptions.items()
               if key not in ("parallel", "cache", "nopython")}
    return njit(cache=True, parallel=False, **options)(twin)
