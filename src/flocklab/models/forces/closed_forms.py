r"""Closed-form checks of the force-based swarm, each returning its measured error.

* :func:`logistic_speed` — an isolated agent: :math:`u = |v|^2` follows
  :math:`u(t) = u_0 e^{2\alpha t/m} / (1 + \beta u_0 (e^{2\alpha t/m} - 1)/\alpha)` and tends
  to :math:`\alpha/\beta`;
* :func:`equilibrium_distance` — two agents without self-propulsion and with linear friction
  (:math:`\alpha < 0, \beta = 0`) settle at :math:`r^*`, :math:`U'(r^*) = 0`;
* :func:`momentum_balance` — with :math:`\alpha = \beta = 0` and no external force the total
  momentum is conserved (pair forces are antisymmetric), and the energy of velocity Verlet
  stays close to its start;
* :func:`integrator_order` — global error at a fixed time against the step, against a run
  with a 64 times smaller step; the fitted slope is the order;
* :func:`cell_list_difference` — pair forces from the hashed cell list against all pairs
  (:func:`all_pairs_forces`, NumPy on the full N x N distance matrix).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from flocklab.models.forces.engine import ForcesSimulation

#: The swarm of the checks (fixed here, so that they do not follow the model's defaults).
SWARM = {"alpha": 1.0, "beta": 0.5, "mass": 1.0, "potential": "morse", "C_r": 2.0,
         "l_r": 0.5, "C_a": 1.0, "l_a": 1.0}


def _simulation(params: Mapping[str, Any], dt: float, seed: int = 0) -> ForcesSimulation:
    return ForcesSimulation.from_parameters({**SWARM, **params}, np.random.default_rng(seed), dt)


def logistic_speed(alpha: float = 1.0, beta: float = 0.5, mass: float = 2.0,
                   speed: float = 0.1, dt: float = 0.1, steps: int = 300) -> dict[str, float]:
    """Largest relative error of :math:`|v|^2` against the logistic law over the run, and
    the final speed against :math:`\\sqrt{\\alpha/\\beta}`."""
    sim = _simulation({"N": 1, "alpha": alpha, "beta": beta, "mass": mass,
                       "initial_speed": speed}, dt)
    u0, worst = speed * speed, 0.0
    for k in range(1, steps + 1):
        sim.advance(1)
        growth = math.exp(2.0 * alpha * k * dt / mass)
        exact = u0 * growth / (1.0 + beta * u0 * (growth - 1.0) / alpha)
        worst = max(worst, abs(float(np.sum(sim.vel ** 2)) / exact - 1.0))
    final = float(np.linalg.norm(sim.vel))
    return {"max_relative_error": worst, "final_speed": final,
            "cruise_speed": math.sqrt(alpha / beta), "time": steps * dt}


def equilibrium_distance(potential: str = "morse", start: float = 1.5, dt: float = 0.02,
                         steps: int = 5000, friction: float = 1.0) -> dict[str, float]:
    """Distance of two agents at rest, started ``start`` r* apart, after ``steps`` steps with
    linear friction ``friction`` (alpha = -friction, beta = 0), against r*."""
    params = {"N": 2, "alpha": -friction, "beta": 0.0, "potential": potential,
              "C_r": 2.0, "l_r": 0.5, "C_a": 1.0, "l_a": 1.0, "a": 0.1, "b": 2.0, "c": 1.0,
              "initial_speed": 0.0, "r_cut": 5.0}
    sim = _simulation(params, dt)
    r_star = sim.p["r_star"]
    sim.pos[:] = 0.0
    sim.pos[1, 0] = start * r_star
    sim.advance(steps)
    distance = float(np.linalg.norm(sim.pos[1] - sim.pos[0]))
    return {"r_star": r_star, "distance": distance, "error": distance - r_star,
            "time": steps * dt}


def momentum_balance(n: int = 60, dt: float = 0.01, steps: int = 1000, seed: int = 4
                     ) -> dict[str, float]:
    """Largest change of a component of the total momentum (per agent) and the relative
    change of the total energy over ``steps`` steps with alpha = beta = 0."""
    sim = _simulation({"N": n, "alpha": 0.0, "beta": 0.0, "start_radius": 3.0,
                       "initial_speed": 1.0}, dt, seed)
    momentum = sim.vel.sum(axis=0).copy()
    energy = 0.5 * float(np.sum(sim.vel ** 2)) + sim.potential_energy()
    sim.advance(steps)
    drift = float(np.abs(sim.vel.sum(axis=0) - momentum).max() / n)
    final = 0.5 * float(np.sum(sim.vel ** 2)) + sim.potential_energy()
    return {"momentum_drift": drift, "momentum_scale": float(np.abs(sim.vel).mean()),
            "energy_relative_change": (final - energy) / abs(energy), "time": steps * dt}


def _final_state(params: Mapping[str, Any], dt: float, t_end: float
                 ) -> tuple[np.ndarray, np.ndarray]:
    sim = _simulation(params, dt, seed=5)
    sim.advance(round(t_end / dt))
    return sim.pos.copy(), sim.vel.copy()


def integrator_order(extra: Mapping[str, Any] | None = None,
                     steps: Sequence[float] = (0.04, 0.02, 0.01), t_end: float = 2.0
                     ) -> dict[str, Any]:
    """Global error (max over positions and velocities) at ``t_end`` for each step, against
    a run with ``steps[0]/64``; 20 agents all within the cut-offs (no neighbour enters or
    leaves, so the right-hand side is smooth). Returns the errors, the successive ratios and
    the fitted order (slope of log error against log step)."""
    params = {"N": 20, "start_radius": 1.5, "r_cut": 20.0, "r_align": 20.0, **(extra or {})}
    ref_pos, ref_vel = _final_state(params, steps[0] / 64, t_end)
    errors = []
    for dt in steps:
        pos, vel = _final_state(params, dt, t_end)
        errors.append(float(max(np.abs(pos - ref_pos).max(), np.abs(vel - ref_vel).max())))
    slope = float(np.polyfit(np.log(steps), np.log(errors), 1)[0])
    return {"steps": list(steps), "errors": errors,
            "ratios": [errors[k] / errors[k + 1] for k in range(len(errors) - 1)],
            "order": slope}


def cell_list_difference(n: int = 400, dim: int = 2, box: float = 0.0, seed: int = 7
                         ) -> dict[str, float]:
    """Largest difference between cell-list and all-pairs pair forces at random positions
    (``box > 0``: periodic), relative to the largest force."""
    params = {"N": n, "dim": dim, "box": box, "start_radius": 0.5 * box if box else 8.0,
              "r_cut": 2.5, "r_align": 2.5}
    sim = _simulation(params, 0.05, seed)
    sim.ensure_forces()
    exact = all_pairs_forces(sim.pos, sim.p)
    return {"max_difference": float(np.abs(sim.force - exact).max()),
            "max_force": float(np.abs(exact).max()),
            "mean_neighbours": float(np.diff(sim.grid.start).mean())}


def all_pairs_forces(pos: np.ndarray, p: Mapping[str, Any], alive: np.ndarray | None = None
                ) -> np.ndarray:
    r"""Cut pair forces :math:`F_i = \sum_{j \ne i, r_{ij} \le r_c} (w_r f_{rep}(r_{ij}) +
    w_a f_{att}(r_{ij}))\,\hat r_{ij}` on every agent, shape (N, 3) (minimum image in a
    periodic box), on the full N x N distance matrix with no neighbour search (O(N²) time
    and memory): the cell list's forces must equal these.

    Parameters
    ----------
    pos : ndarray, shape (N, 3)
        Positions.
    p : mapping
        Resolved parameters (:func:`flocklab.models.forces.params.resolve`): ``box``,
        ``cutoff``, ``potential`` with ``C_r, l_r, C_a, l_a`` (Morse) or ``a, b, c``,
        ``w_repulsion``, ``w_attraction``.
    alive : ndarray of bool, shape (N,), optional
        Agents that feel and exert forces (default: all).

    References
    ----------
    M. R. D'Orsogna, Y. L. Chuang, A. L. Bertozzi and L. S. Chayes, "Self-propelled
    particles with soft-core interactions: patterns, stability, and collapse",
    Phys. Rev. Lett. 96, 104302 (2006).
    """
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
