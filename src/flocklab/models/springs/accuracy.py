r"""Accuracy data for the report: energy against time, global error against dt, fitted orders.

* :func:`energy_traces` — total energy of each integrator at one common step on the undamped
  tongue started from its equilibrium plus a fixed displacement (growth, bounded
  oscillation or decay).
* :func:`convergence_study` — global error at :math:`t_{end}` of the axial displacement of a
  single damped spring (one free point of mass :math:`m` on a spring of stiffness
  :math:`k` to a fixed point, released from :math:`u_0` at rest) against the exact
  :math:`u(t) = u_0 e^{-\zeta\omega t}[\cos\omega_d t + (\zeta\omega/\omega_d)\sin\omega_d t]`,
  :math:`\omega = \sqrt{k/m}`, :math:`\omega_d = \omega\sqrt{1-\zeta^2}`, and the order as
  the least-squares slope of :math:`\log e` against :math:`\log \Delta t`.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Sequence

import numpy as np

from flocklab.models.springs.run import integrate
from flocklab.models.springs.statics import static_equilibrium
from flocklab.models.springs.structure import chain

#: Progress of the convergence study, one INFO line per method.
logger = logging.getLogger("flocklab.springs.accuracy")


def damped_oscillator(t: np.ndarray, u0: float, omega: float, zeta: float) -> np.ndarray:
    """Exact displacement of :math:`\\ddot u = -\\omega^2 u - 2\\zeta\\omega\\dot u`,
    :math:`u(0) = u_0`, :math:`\\dot u(0) = 0`, for :math:`0 \\le \\zeta < 1`."""
    omega_d = omega * math.sqrt(1.0 - zeta**2)
    return u0 * np.exp(-zeta * omega * t) * (np.cos(omega_d * t)
                                             + zeta * omega / omega_d * np.sin(omega_d * t))


def global_error(method: str, dt: float, zeta: float = 0.1, omega: float = 10.0,
                 u0: float = 0.1, t_end: float = 1.0) -> float:
    """|u_numerical - u_exact| (m) at ``t_end`` for one free point (1 kg, rest length 1 m)."""
    system = chain(n_points=2, stiffness=omega**2, damping=2.0 * zeta * omega,
                   rest_length=1.0, mass=1.0, tip_force=(0.0, 0.0))
    x0 = system.positions.copy()
    x0[1, 0] += u0
    result = integrate(system, method, dt, t_end, record_every=t_end, x0=x0)
    exact = damped_oscillator(np.array([result.time[-1]]), u0, omega, zeta)[0]
    return abs(result.x[1, 0] - 1.0 - exact)


def convergence_study(methods: Sequence[str], steps: Sequence[float] = (0.01, 0.005, 0.0025,
                                                                         0.00125),
                      zeta: float = 0.1) -> dict[str, dict[str, list[float] | float]]:
    """``method -> {"dt": [...], "error": [...], "order": slope}``."""
    out: dict[str, dict[str, list[float] | float]] = {}
    for method in methods:
        errors = [global_error(method, dt, zeta) for dt in steps]
        slope = float(np.polyfit(np.log(steps), np.log(errors), 1)[0])
        out[method] = {"dt": list(steps), "error": errors, "order": slope}
        logger.info("%s: order %.3f", method, slope)
    return out


def energy_traces(methods: Sequence[str], dt: float = 0.01, t_end: float = 20.0,
                  mass: float = 0.1, record_every: float = 0.05
                  ) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """``method -> (time, total energy - equilibrium energy)`` on the undamped tongue
    displaced by 1 cm sideways at every free point; a blown-up run ends at its blow-up time."""
    from flocklab.models.springs.forces import potential_energy

    system = chain(damping=0.0, mass=mass)
    x_eq = static_equilibrium(system)
    x0 = x_eq.copy()
    x0[1:, 0] += 0.01
    reference = potential_energy(system, x_eq)
    traces = {}
    for method in methods:
        result = integrate(system, method, dt, t_end, record_every=record_every, x0=x0)
        traces[method] = (result.time, result.observables["total"] - reference)
    return traces
