r"""All-pairs NumPy reference of the force-based swarm's pair forces and inertial step.

The same equations as the compiled engine (:mod:`flocklab.models.forces.engine`) on the full
N x N distance matrix, with no neighbour search: O(N²) memory and time. Used by the tests
(the cell-list forces equal these) and by ``benchmarks/bench_forces.py`` (the speed of the
same step).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np


def pair_forces(pos: np.ndarray, p: Mapping[str, Any], alive: np.ndarray | None = None
                ) -> np.ndarray:
    r"""Cut pair forces :math:`F_i = \sum_{j \ne i, r_{ij} \le r_c} (w_r f_{rep}(r_{ij}) +
    w_a f_{att}(r_{ij}))\,\hat r_{ij}` on every agent, shape (N, 3) (minimum image in a
    periodic box); ``p`` resolved parameters (:func:`flocklab.models.forces.params.resolve`)."""
    pos = np.asarray(pos, dtype=float)
    alive = np.ones(pos.shape[0], bool) if alive is None else np.asarray(alive, bool)
    diff = pos[:, None, :] - pos[None, :, :]
    if p["box"] > 0:
        diff -= p["box"] * np.rint(diff / p["box"])
    r = np.sqrt(np.einsum("ijk,ijk->ij", diff, diff))
    inside = (r <= p["cutoff"]) & (r > 0) & alive[:, None] & alive[None, :]
    safe = np.where(inside, r, 1.0)
    if p["potential"] == "morse":
        f_rep = p["C_r"] / p["l_r"] * np.exp(-safe / p["l_r"])
        f_att = -p["C_a"] / p["l_a"] * np.exp(-safe / p["l_a"])
    else:
        f_rep = p["b"] * safe * np.exp(-safe * safe / p["c"])
        f_att = -p["a"] * safe
    radial = np.where(inside, (p["w_repulsion"] * f_rep + p["w_attraction"] * f_att) / safe,
                      0.0)
    return np.einsum("ij,ijk->ik", radial, diff)


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
    vel = vel + 0.5 * h / p["mass"] * pair_forces(pos, p)
    pos = pos + h * vel
    if p["box"] > 0:
        pos = np.mod(pos, p["box"])
    vel = vel + 0.5 * h / p["mass"] * pair_forces(pos, p)
    vel = propel(vel, p, 0.25 * h)
    vel = propel(vel, p, 0.25 * h)
    return pos, vel
