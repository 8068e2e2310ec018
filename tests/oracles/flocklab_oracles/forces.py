r"""All-pairs NumPy oracle of the force-based swarm's inertial step.

The same equations as the compiled engine (:mod:`flocklab.models.forces.engine`) with the
pair forces on the full N x N distance matrix
(:func:`flocklab.models.forces.closed_forms.all_pairs_forces`, no neighbour search: O(N²)
memory and time) and the exact self-propulsion flow written out again. Used by the tests
(the engine's step equals this one) and by ``benchmarks/bench_forces.py`` (the speed of the
same step).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from flocklab.models.forces.closed_forms import all_pairs_forces


def propel(vel: np.ndarray, p: Mapping[str, Any], t: float) -> np.ndarray:
    r"""Exact self-propulsion flow over ``t`` (the logistic law in :math:`|v|^2`)."""
    x = 2.0 * p["alpha"] * t / p["mass"]
    e = np.expm1(x)
    e_over_alpha = e / p["alpha"] if abs(x) > 1e-12 else 2.0 * t / p["mass"] * (1 + 0.5 * x)
    u0 = np.sum(vel * vel, axis=1, keepdims=True)
    return vel * np.sqrt((1.0 + e) / (1.0 + p["beta"] * u0 * e_over_alpha))


def inertial_step(pos: np.ndarray, vel: np.ndarray, p: Mapping[str, Any], h: float
                  ) -> tuple[np.ndarray, np.ndarray]:
    """One Strang step (self-propulsion half flows around velocity Verlet) with all-pairs
    forces and no steering terms; returns new ``(pos, vel)``."""
    vel = propel(vel, p, 0.25 * h)
    vel = propel(vel, p, 0.25 * h)
    vel = vel + 0.5 * h / p["mass"] * all_pairs_forces(pos, p)
    pos = pos + h * vel
    if p["box"] > 0:
        pos = np.mod(pos, p["box"])
    vel = vel + 0.5 * h / p["mass"] * all_pairs_forces(pos, p)
    vel = propel(vel, p, 0.25 * h)
    vel = propel(vel, p, 0.25 * h)
    return pos, vel
