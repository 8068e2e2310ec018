r"""Per-run metrics of the foraging model (pure functions of a run file's contents).

With :math:`T` the run's end, :math:`\tau_i` agent i's time of death (:math:`\infty` if it
lived) and :math:`\phi_i` its first time on food (:math:`\infty` if never):

* survival :math:`n(T)/N`; the shares starved and captured;
* restricted mean lifetime :math:`\frac1N\sum_i \min(\tau_i, T)` (the area under the
  Kaplan–Meier curve up to :math:`T`, which for a complete cohort is the plain mean of the
  censored times);
* restricted mean time to food :math:`\frac1N\sum_i \min(\phi_i, T)` and the share that
  ever stood on food;
* energy eaten per agent and the living's mean :math:`S = E/E_{max}` at the end.

References
----------
P. Royston and M. K. B. Parmar, "Restricted mean survival time: an alternative to the hazard
ratio for the design and analysis of randomized trials with a time-to-event outcome", BMC
Med. Res. Methodol. 13, 152 (2013).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    import xarray as xr


def restricted_mean(times: np.ndarray, end: float) -> float:
    """:math:`\\frac1N \\sum_i \\min(t_i, T)` with NaN (event not seen) counted as ``end``."""
    times = np.asarray(times, dtype=float)
    if times.size == 0:
        return math.nan
    return float(np.mean(np.minimum(np.where(np.isfinite(times), times, end), end)))


def run_metrics(run: xr.Dataset) -> dict[str, float]:
    """The declared run metrics of a foraging run (``Foraging.run_metrics``)."""
    end = float(run["time"].values[-1])
    cause = run["cause"].values
    n = cause.size
    energy = run["final_energy"].values
    alive = cause == 0
    return {
        "survival": float(np.mean(cause == 0)),
        "starved": float(np.mean(cause == 1)),
        "captured": float(np.mean(cause == 2)),
        "lifetime": restricted_mean(run["death_time"].values, end),
        "food_time": restricted_mean(run["first_food_time"].values, end),
        "found_food": float(np.mean(np.isfinite(run["first_food_time"].values))) if n else
        math.nan,
        "eaten": float(np.mean(run["eaten"].values)) if n else math.nan,
        "energy_final": float(np.mean(energy[alive])) if energy.size and alive.any()
        else math.nan,
    }
