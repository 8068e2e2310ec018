r"""Fixed-step runs with blow-up detection, and the observables of a run.

A run stops early, without raising, when the state blows up: a non-finite position or
velocity, or a spring strain :math:`|l/L - 1|` above ``strain_bound`` (default
:data:`STRAIN_BOUND` = 2, a spring three times its rest length). The result then has
``stable = False`` and the time of blow-up, so a study can record "unstable" and go on.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from flocklab.core.parameters import ParameterError
from flocklab.models.springs.forces import energies, strains
from flocklab.models.springs.integrators import get_integrator
from flocklab.models.springs.kernels import max_abs_strain
from flocklab.models.springs.structure import SpringSystem

#: Largest |strain| of a spring before a run is declared blown up.
STRAIN_BOUND = 2.0
#: Settling band: fraction of the initial tip distance from its static equilibrium.
SETTLING_FRACTION = 0.02
OBSERVABLES = ("kinetic", "elastic", "gravitational", "external", "total", "max_strain")


@dataclass
class RunResult:
    """Outcome of :func:`integrate`.

    Attributes
    ----------
    time : ndarray, shape (R,)
        Record times (s); the last one is the blow-up time of an unstable run.
    observables : dict of ndarray, shape (R,)
        ``kinetic``, ``elastic``, ``gravitational``, ``external``, ``total`` (J), ``max_strain``.
    tip : ndarray, shape (R, D)
        Position of ``system.tip`` (m).
    snapshots : ndarray, shape (F, N, D) or None
        Positions every ``snapshot_every`` records.
    x, v : ndarray, shape (N, D)
        Final state.
    stable : bool
        False when the run blew up; then ``t_blowup`` (s) and ``reason`` say when and why.
    steps, wall_time, stats
        Steps taken, seconds in the time loop, the integrator's solver statistics.
    """

    integrator: str
    dt: float
    time: np.ndarray
    observables: dict[str, np.ndarray]
    tip: np.ndarray
    x: np.ndarray
    v: np.ndarray
    stable: bool = True
    t_blowup: float = math.nan
    reason: str = ""
    steps: int = 0
    wall_time: float = 0.0
    snapshots: np.ndarray | None = None
    stats: dict[str, Any] = field(default_factory=dict)


def _record(system: SpringSystem, x: np.ndarray, v: np.ndarray) -> list[float]:
    e = energies(system, x, v)
    return [e["kinetic"], e["elastic"], e["gravitational"], e["external"], e["total"],
            float(np.max(np.abs(strains(system, x))))]


def integrate(system: SpringSystem, integrator: str = "rk4", dt: float = 0.01,
              t_end: float = 1.0, record_every: float | None = None,
              snapshot_every: int = 0, x0: np.ndarray | None = None,
              v0: np.ndarray | None = None, strain_bound: float = STRAIN_BOUND,
              **options: Any) -> RunResult:
    """Integrate ``system`` from ``(x0, v0)`` (default: its initial state) to ``t_end``.

    Parameters
    ----------
    integrator : str
        A name of :data:`~flocklab.models.springs.integrators.INTEGRATORS`; ``options`` go to it.
    dt, t_end : float
        Step and duration (s); the run takes ``ceil(t_end/dt - 1e-9)`` steps.
    record_every : float, optional
        Record interval (s), rounded to a whole number of steps (default: every step).
    snapshot_every : int
        Keep positions every this many records (0: none).
    strain_bound : float
        Blow-up threshold on :math:`\\max_s |l_s/L_s - 1|`, checked after every step.
    """
    stepper = get_integrator(integrator, system, dt, **options)
    if not (isinstance(t_end, int | float) and t_end > 0.0 and math.isfinite(t_end)):
        raise ParameterError("t_end", f"parameter 't_end' = {t_end!r} must be a number > 0 (s)")
    steps = max(1, math.ceil(t_end / dt - 1e-9))
    every = 1 if record_every is None else max(1, round(record_every / dt))
    x = np.array(system.positions if x0 is None else x0, dtype=np.float64)
    v = np.array(system.velocities if v0 is None else v0, dtype=np.float64)
    v[system.fixed] = 0.0
    times, rows, tips, frames = [0.0], [_record(system, x, v)], [x[system.tip].copy()], [x.copy()]
    result = RunResult(integrator, float(dt), np.empty(0), {}, np.empty(0), x, v)
    start = time.perf_counter()
    for n in range(1, steps + 1):
        stepper.step(x, v)
        strain = max_abs_strain(x, v, system.springs, system.rest_length)
        if not strain <= strain_bound:
            result.stable, result.t_blowup = False, n * stepper.dt
            result.reason = ("non-finite state" if math.isinf(strain) else
                             f"strain {strain:.3g} > {strain_bound:g}")
            break
        if n % every == 0 or n == steps:
            times.append(n * stepper.dt)
            rows.append(_record(system, x, v))
            tips.append(x[system.tip].copy())
            if snapshot_every and (len(times) - 1) % snapshot_every == 0:
                frames.append(x.copy())
    result.wall_time = time.perf_counter() - start
    result.steps = n
    result.time = np.asarray(times)
    table = np.asarray(rows)
    result.observables = {name: table[:, k] for k, name in enumerate(OBSERVABLES)}
    result.tip = np.asarray(tips)
    result.snapshots = np.asarray(frames) if snapshot_every else None
    result.stats = stepper.stats
    return result


def energy_drift(result: RunResult, reference: float | None = None) -> float:
    """Relative energy drift :math:`(E(t_{end}) - E(0)) / (E(0) - E_{ref})`.

    ``reference`` is the energy of the static equilibrium (then the denominator is the
    disturbance energy the run started with); without it the denominator is :math:`|E(0)|`.
    """
    total = result.observables["total"]
    scale = total[0] - reference if reference is not None else abs(total[0])
    return float((total[-1] - total[0]) / scale) if scale > 0 else math.nan


def settling_time(result: RunResult, tip_equilibrium: np.ndarray,
                  fraction: float = SETTLING_FRACTION, hold: float = 0.1) -> float:
    """First record time after which the tip stays within the settling band to the end.

    The band is ``fraction`` (default 2 %) of the initial distance of the tip from its static
    equilibrium ``tip_equilibrium`` (shape (D,)). NaN (not settled) when the run blew up or the
    tip has not stayed in the band for at least the last ``hold`` (10 %) of the run.
    """
    distance = np.linalg.norm(result.tip - tip_equilibrium, axis=1)
    band = fraction * distance[0]
    outside = np.flatnonzero(distance > band)
    if not result.stable or (outside.size and outside[-1] == distance.size - 1):
        return math.nan
    settled = float(result.time[outside[-1] + 1]) if outside.size else 0.0
    return math.nan if settled > (1.0 - hold) * float(result.time[-1]) else settled
