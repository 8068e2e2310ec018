"""Cluster resource requests of the pipeline's jobs, from their parameters.

Snakemake passes ``mem_mb`` and ``runtime`` (minutes) to the scheduler (SLURM's ``--mem``
and ``--time``). Requests grow with the attempt number, so a job that ran out of memory
or time is retried with more (``retries:`` in the profile). The estimates are deliberately
generous: measured peak RSS of a simulate job is about 220 MB for N ≤ 10⁴ (Python, numba,
xarray), and the kernel runs at 5–15 M particle-updates/s per thread (README, Performance);
the runtime request assumes 1 M/s.
"""

from __future__ import annotations

import math

#: Resident memory of a job process before any array (interpreter, numba, xarray), MB.
BASE_MEMORY_MB = 400
#: Particle-updates per second assumed for the runtime request (well below measured speed).
ASSUMED_UPDATES_PER_SECOND = 1.0e6
#: Minimum runtime request, minutes (start-up, numba cache load, netCDF write).
MIN_RUNTIME_MINUTES = 5


def simulation_resources(particles: int, steps: int, frames: int, attempt: int = 1
                         ) -> dict[str, int]:
    """``mem_mb`` and ``runtime`` (minutes) of one simulation job.

    Memory: the state and work arrays (13 float64/int64 per particle), the order-parameter
    series (8 bytes per step) and the snapshots (3 float64 per particle and frame), twice
    over for the copy made when the dataset is written, plus :data:`BASE_MEMORY_MB`.
    Runtime: ``N × steps`` updates at :data:`ASSUMED_UPDATES_PER_SECOND`, at least
    :data:`MIN_RUNTIME_MINUTES`. Both scale with ``attempt`` (1, 2, 3, ...).

    Examples
    --------
    >>> simulation_resources(1000, 10_000, 1)
    {'mem_mb': 401, 'runtime': 5}
    >>> simulation_resources(10**6, 10**5, 1, attempt=2)["runtime"]
    3334
    """
    array_bytes = 2 * (13 * 8 * particles + 8 * (steps + 1) + 24 * particles * frames)
    memory = BASE_MEMORY_MB + math.ceil(array_bytes / 2**20)
    minutes = max(MIN_RUNTIME_MINUTES,
                  math.ceil(particles * steps / ASSUMED_UPDATES_PER_SECOND / 60))
    return {"mem_mb": memory * attempt, "runtime": minutes * attempt}


def metrics_resources(steps: int, attempt: int = 1) -> dict[str, int]:
    """``mem_mb`` and ``runtime`` of a metrics job (FFT of the series, a few copies)."""
    memory = BASE_MEMORY_MB + math.ceil(64 * (steps + 1) / 2**20)
    return {"mem_mb": memory * attempt, "runtime": MIN_RUNTIME_MINUTES * attempt}
