"""Cluster resource requests of the pipeline's jobs, from the model's resource hook.

Snakemake passes ``mem_mb`` and ``runtime`` (minutes) to the scheduler (SLURM's ``--mem``
and ``--time``). Requests grow with the attempt number, so a job that ran out of memory
or time is retried with more (``retries:`` in the profile). The estimates are deliberately
generous: a model's :meth:`~flocklab.core.model.Model.resources` gives its arrays' memory and
a run-time estimate; this module adds the process's own footprint and a floor.
"""

from __future__ import annotations

import math

from flocklab.core.model import Resources

#: Resident memory of a job process before any array (interpreter, numba, netCDF), MB.
BASE_MEMORY_MB = 400
#: Minimum runtime request, minutes (start-up, compilation cache, netCDF write).
MIN_RUNTIME_MINUTES = 5
#: Safety factor on the model's run-time estimate.
RUNTIME_FACTOR = 3.0


def job_resources(need: Resources, attempt: int = 1) -> dict[str, int]:
    """``mem_mb`` and ``runtime`` (minutes) of a job that needs ``need``.

    Memory: :data:`BASE_MEMORY_MB` plus the model's estimate; runtime: the model's
    estimate times :data:`RUNTIME_FACTOR`, at least :data:`MIN_RUNTIME_MINUTES`. Both
    scale with ``attempt`` (1, 2, 3, ...).

    Examples
    --------
    >>> job_resources(Resources(memory_bytes=2**20, seconds=10.0))
    {'mem_mb': 401, 'runtime': 5}
    >>> job_resources(Resources(memory_bytes=0, seconds=6000.0), attempt=2)["runtime"]
    600
    """
    memory = BASE_MEMORY_MB + math.ceil(need.memory_bytes / 2**20)
    minutes = max(MIN_RUNTIME_MINUTES, math.ceil(RUNTIME_FACTOR * need.seconds / 60))
    return {"mem_mb": memory * attempt, "runtime": minutes * attempt}
