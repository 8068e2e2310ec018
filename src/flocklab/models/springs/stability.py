r"""Stability limits of the integrators: linear theory and measurement.

**Theory.** At the static equilibrium :math:`x^*`
(:func:`~flocklab.models.springs.statics.static_equilibrium`) the free coordinates obey, to first
order, :math:`M\ddot\xi = -K\xi - C\dot\xi` with
:math:`K = -\partial F/\partial x`, :math:`C = -\partial F/\partial v` (the analytic
Jacobians, dense here: :math:`n = D N_{free}` is small for the studied structures). Applying
an integrator's formulas to this linear system gives its one-step amplification matrix
:math:`G(h)` of shape :math:`(2n, 2n)` on :math:`(\xi, \dot\xi)`; the method is linearly
stable at step :math:`h` when the spectral radius :math:`\rho(G(h)) \le 1 + \epsilon`
(:data:`RHO_TOLERANCE`, which absorbs rounding of eigenvalues on the unit circle and of the
Jordan blocks of zero modes). Explicit Euler, RK4, implicit Euler and the implicit midpoint
rule are rational functions :math:`R` of :math:`hL`, :math:`L = [[0, I], [-M^{-1}K,
-M^{-1}C]]`, so :math:`\rho = \max |R(h\mu)|` over the eigenvalues :math:`\mu` of :math:`L`;
the partitioned methods (semi-implicit Euler, the Verlets) and the diagonal scheme get
:math:`G` explicitly. :func:`theory_dt_max` sweeps :math:`h` on a log grid from
:math:`0.01\cdot 2/\omega_{max}` to :math:`10^4 \cdot 2/\omega_{max}` and bisects the first
stable-to-unstable edge. For one undamped oscillator these give the closed forms
:math:`h\omega < 2` (semi-implicit Euler, Verlet), :math:`h\omega < 2\sqrt2` (RK4), none for
explicit Euler (:math:`\rho = \sqrt{1 + h^2\omega^2}`) and all :math:`h` for implicit Euler
and midpoint.

**Measurement.** :func:`measured_dt_max` runs the nonlinear integrator from the equilibrium
plus a seeded random displacement of every free point (``perturbation`` x mean rest length)
for ``max(run_time, min_steps * dt)`` and calls a run unstable when it blows up
(:func:`~flocklab.models.springs.run.integrate`: non-finite or strain beyond the bound) or its
disturbance energy :math:`E - E^*` exceeds ``growth`` times its initial value; the same
sweep-then-bisect search finds the edge.

Reference: E. Hairer, G. Wanner, *Solving Ordinary Differential Equations II*, 2nd ed.,
Springer 1996, ch. IV.2 (stability functions); Hairer, Lubich, Wanner (2006), ch. I.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from flocklab.models.springs.forces import force_jacobians, potential_energy
from flocklab.models.springs.run import integrate
from flocklab.models.springs.statics import static_equilibrium
from flocklab.models.springs.structure import SpringSystem

#: Spectral radii up to 1 + RHO_TOLERANCE count as stable.
RHO_TOLERANCE = 1e-6
#: Grid of the sweep, in units of 2/omega_max: (low, high, points).
SWEEP = (1e-2, 1e4, 37)
#: Bisections of the theory edge: the sweep's step ratio 10^(1/6) to the power 2^-22 leaves a
#: relative resolution of 9e-8 on dt, below what the rho tolerance itself decides (more
#: bisections only cost dense eigenvalue solves: 0.23 CPU-s each on the 10 x 10 cloth).
THEORY_REFINE = 22


@dataclass(frozen=True)
class LinearSystem:
    r""":math:`M\ddot\xi = -K\xi - C\dot\xi` on the free coordinates at an equilibrium.

    ``mass`` has shape (n,), ``stiffness`` and ``damping`` shape (n, n);
    ``spring_sum`` is :math:`\sum_{s\ni p} k_s` and ``damping_sum``
    :math:`\sum_{s\ni p} c_s + c` per coordinate (for the diagonal scheme).
    """

    mass: np.ndarray
    stiffness: np.ndarray
    damping: np.ndarray
    spring_sum: np.ndarray
    damping_sum: np.ndarray

    @property
    def omega_max(self) -> float:
        """Largest undamped angular frequency :math:`\\sqrt{\\lambda_{max}(M^{-1/2}KM^{-1/2})}`."""
        scale = 1.0 / np.sqrt(self.mass)
        values = np.linalg.eigvalsh(scale[:, None] * self.stiffness * scale[None, :])
        return float(math.sqrt(max(values[-1], 0.0)))

    def generator(self) -> np.ndarray:
        """:math:`L = [[0, I], [-M^{-1}K, -M^{-1}C]]`, shape (2n, 2n)."""
        n = self.mass.size
        return np.block([[np.zeros((n, n)), np.eye(n)],
                         [-self.stiffness / self.mass[:, None],
                          -self.damping / self.mass[:, None]]])


def linearise(system: SpringSystem, x_eq: np.ndarray | None = None) -> LinearSystem:
    """The linear system at ``x_eq`` (default: the static equilibrium)."""
    x_eq = static_equilibrium(system) if x_eq is None else x_eq
    jx, jv = force_jacobians(system, x_eq, np.zeros_like(x_eq))
    free = system.free_dofs
    per_point_k = np.zeros(system.n_points)
    per_point_c = np.full(system.n_points, system.absolute_damping)
    for ends in system.springs.T:
        np.add.at(per_point_k, ends, system.stiffness)
        np.add.at(per_point_c, ends, system.damping)
    dim = system.dim
    return LinearSystem(np.repeat(system.mass, dim)[free], -jx.toarray()[np.ix_(free, free)],
                        -jv.toarray()[np.ix_(free, free)], np.repeat(per_point_k, dim)[free],
                        np.repeat(per_point_c, dim)[free])


# --------------------------------------------------------------------------- amplification


def _partitioned(method: str, h: float, lin: LinearSystem, iterations: int) -> np.ndarray:
    """G(h) from the method's update formulas applied to X = [I 0], V = [0 I]."""
    n = lin.mass.size
    a_mat, b_mat = lin.stiffness / lin.mass[:, None], lin.damping / lin.mass[:, None]

    def acc(x: np.ndarray, v: np.ndarray) -> np.ndarray:
        return -(a_mat @ x) - (b_mat @ v)

    x, v = np.eye(n, 2 * n), np.eye(n, 2 * n, n)
    if method in ("semi_implicit_euler", "article_verlet"):
        v1 = v + h * acc(x, v)
        x1 = x + h * v1
    elif method == "velocity_verlet":
        a0 = acc(x, v)
        x1 = x + h * v + 0.5 * h * h * a0
        v1 = v + 0.5 * h * (a0 + acc(x1, v + h * a0))
    elif method == "position_verlet":
        # (M + h/2 C)(v' - v) = h F(x_1/2, v): the dampers at the half-step velocity
        x_half = x + 0.5 * h * v
        v1 = v + np.linalg.solve(np.eye(n) + 0.5 * h * b_mat, h * acc(x_half, v))
        x1 = x_half + 0.5 * h * v1
    elif method == "implicit_euler_diagonal":
        m = lin.mass[:, None]
        diagonal = (lin.mass / h**2 + lin.spring_sum + lin.damping_sum / h)[:, None]
        y = x.copy()
        for _ in range(iterations):
            vy = (y - x) / h
            residual = m * (vy - v) / h + lin.stiffness @ y + lin.damping @ vy
            y = y - residual / diagonal
        x1, v1 = y, (y - x) / h
    else:
        raise KeyError(method)
    return np.vstack([x1, v1])


def _stability_function(method: str) -> Callable[[np.ndarray], np.ndarray] | None:
    return {
        "explicit_euler": lambda z: 1.0 + z,
        "rk4": lambda z: 1.0 + z + z**2 / 2.0 + z**3 / 6.0 + z**4 / 24.0,
        "implicit_euler": lambda z: 1.0 / (1.0 - z),
        "implicit_midpoint": lambda z: (1.0 + z / 2.0) / (1.0 - z / 2.0),
    }.get(method)


def amplification_matrix(method: str, h: float, lin: LinearSystem,
                         iterations: int = 3) -> np.ndarray:
    """One-step matrix :math:`G(h)` of ``method`` on the linear system, shape (2n, 2n).

    ``iterations`` is the sweep count of ``implicit_euler_diagonal``.
    """
    if method in ("explicit_euler", "rk4", "implicit_euler", "implicit_midpoint"):
        hl = h * lin.generator()
        identity = np.eye(hl.shape[0])
        if method == "explicit_euler":
            return identity + hl
        if method == "rk4":
            return identity + hl @ (identity + hl / 2 @ (identity + hl / 3 @ (identity + hl / 4)))
        if method == "implicit_euler":
            return np.linalg.solve(identity - hl, identity)
        return np.linalg.solve(identity - hl / 2, identity + hl / 2)
    return _partitioned(method, h, lin, iterations)


def spectral_radius(method: str, h: float, lin: LinearSystem, iterations: int = 3,
                    generator_eigenvalues: np.ndarray | None = None) -> float:
    """:math:`\\rho(G(h))`; from the eigenvalues of :math:`L` where the method is R(hL)."""
    function = _stability_function(method)
    if function is not None:
        mu = np.linalg.eigvals(lin.generator()) if generator_eigenvalues is None \
            else generator_eigenvalues
        with np.errstate(divide="ignore", invalid="ignore"):
            return float(np.max(np.abs(function(h * mu))))
    return float(np.max(np.abs(np.linalg.eigvals(amplification_matrix(method, h, lin,
                                                                      iterations)))))


@dataclass
class Limit:
    """A stability limit: ``dt_max`` (s; 0 if unstable at the smallest step tried, inf if
    stable at the largest), the grid bounds, and the evaluations made ``(dt, stable, note)``."""

    method: str
    dt_max: float
    dt_low: float
    dt_high: float
    evaluations: list[tuple[float, bool, str]] = field(default_factory=list)


def _edge_search(is_stable: Callable[[float], tuple[bool, str]], method: str, dt_low: float,
                 dt_high: float, points: int, refine: int) -> Limit:
    """Sweep a log grid upward; bisect (geometrically) the first stable -> unstable edge."""
    limit = Limit(method, math.inf, dt_low, dt_high)

    def check(dt: float) -> bool:
        stable, note = is_stable(dt)
        limit.evaluations.append((dt, stable, note))
        return stable

    grid = np.geomspace(dt_low, dt_high, points)
    last_stable = None
    for dt in grid:
        if check(float(dt)):
            last_stable = float(dt)
            continue
        if last_stable is None:
            limit.dt_max = 0.0
            return limit
        low, high = last_stable, float(dt)
        for _ in range(refine):
            middle = math.sqrt(low * high)
            low, high = (middle, high) if check(middle) else (low, middle)
        limit.dt_max = low
        return limit
    return limit


def theory_dt_max(method: str, lin: LinearSystem, iterations: int = 3,
                  tolerance: float = RHO_TOLERANCE, refine: int = THEORY_REFINE) -> Limit:
    """Largest :math:`h` with :math:`\\rho(G(h)) \\le 1 + \\epsilon` (see module docstring).

    ``scipy_*`` methods have no fixed-step amplification matrix: ``dt_max`` is NaN.
    """
    scale = 2.0 / lin.omega_max
    low, high, points = SWEEP
    if method.startswith("scipy_"):
        return Limit(method, math.nan, low * scale, high * scale)
    mu = np.linalg.eigvals(lin.generator()) if _stability_function(method) else None

    def is_stable(dt: float) -> tuple[bool, str]:
        rho = spectral_radius(method, dt, lin, iterations, mu)
        return rho <= 1.0 + tolerance, f"rho = {rho:.9g}"

    return _edge_search(is_stable, method, low * scale, high * scale, points, refine)


def measured_dt_max(system: SpringSystem, method: str, x_eq: np.ndarray | None = None,
                    run_time: float = 5.0, min_steps: int = 1000, perturbation: float = 1e-2,
                    growth: float = 100.0, seed: int = 0, points: int = 13, refine: int = 7,
                    dt_range: tuple[float, float] | None = None, **options: Any) -> Limit:
    """Largest step at which runs of ``method`` stay stable (see module docstring).

    Parameters
    ----------
    run_time, min_steps : float, int
        Each run lasts ``max(run_time, min_steps * dt)`` seconds.
    perturbation : float
        Random displacement of each free coordinate, uniform in ±perturbation x mean rest
        length (``numpy.random.default_rng(seed)``).
    growth : float
        A run whose disturbance energy exceeds ``growth`` times its initial value is unstable.
    dt_range : (float, float), optional
        Sweep bounds (s); default 0.01 and 100 times 2/omega_max.
    """
    x_eq = static_equilibrium(system) if x_eq is None else x_eq
    rng = np.random.default_rng(seed)
    x0 = x_eq.copy()
    scale = perturbation * float(np.mean(system.rest_length))
    free = ~system.fixed
    x0[free] += rng.uniform(-scale, scale, size=x0[free].shape)
    e_eq = potential_energy(system, x_eq)
    e_start = potential_energy(system, x0) - e_eq
    if dt_range is None:
        omega = linearise(system, x_eq).omega_max
        dt_range = (0.01 * 2.0 / omega, 100.0 * 2.0 / omega)

    def is_stable(dt: float) -> tuple[bool, str]:
        t_end = max(run_time, min_steps * dt)
        result = integrate(system, method, dt, t_end, record_every=t_end / 100, x0=x0,
                           **options)
        unconverged = result.stats.get("unconverged_steps", 0)
        solver = f"; {unconverged} steps hit the Newton cap" if unconverged else ""
        if not result.stable:
            return False, f"blow-up at t = {result.t_blowup:.4g} s ({result.reason}{solver})"
        disturbance = float(np.max(result.observables["total"])) - e_eq
        if disturbance > growth * e_start:
            return False, f"disturbance energy grew x{disturbance / e_start:.3g}"
        return True, f"disturbance energy x{disturbance / e_start:.3g} of initial"

    return _edge_search(is_stable, method, dt_range[0], dt_range[1], points, refine)
