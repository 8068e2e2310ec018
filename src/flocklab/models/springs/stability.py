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
Jordan blocks of zero modes). Each integrator declares its linear facts in the registry
(:class:`~flocklab.models.springs.integrators.Integrator`): explicit Euler, RK4, implicit
Euler and the implicit midpoint rule are rational functions :math:`R = P/Q` of :math:`hL`,
:math:`L = [[0, I], [-M^{-1}K, -M^{-1}C]]` (their ``stability_polynomials``), so
:math:`\rho = \max |R(h\mu)|` over the eigenvalues :math:`\mu` of :math:`L`; the
partitioned methods (semi-implicit Euler, the Verlets) and the diagonal scheme give
:math:`G` explicitly (their ``amplification``); this module names no method.
:func:`theory_dt_max` sweeps :math:`h` on a log grid from
:math:`0.01\cdot 2/\omega_{max}` to :math:`10^4 \cdot 2/\omega_{max}` and bisects the first
stable-to-unstable edge. For one undamped oscillator these give the closed forms
:math:`h\omega < 2` (semi-implicit Euler, Verlet), :math:`h\omega < 2\sqrt2` (RK4), none for
explicit Euler (:math:`\rho = \sqrt{1 + h^2\omega^2}`) and all :math:`h` for implicit Euler
and midpoint; with damping :math:`b = c/m`, :math:`h \le 2\zeta/\omega` (explicit Euler),
:math:`(-b + \sqrt{b^2 + 4\omega^2})/\omega^2` (semi-implicit Euler) and still
:math:`h\omega \le 2` (position Verlet, whose kick takes the dampers at the half-step
velocity).

**Measurement.** :func:`measured_dt_max` runs the nonlinear integrator
(:func:`stability_run`) from the equilibrium plus a seeded random displacement of every free
coordinate (uniform in ± ``perturbation`` x mean rest length, at rest) and records the
disturbance energy :math:`D_k = E(x_k, v_k) - E(x^*, 0)` after every step
(:func:`~flocklab.models.springs.kernels.disturbance_energy`). For the linearised system
:math:`D` is a sum of modal energies, each multiplied per step by :math:`|\lambda|^2` of its
eigenvalue of :math:`G(h)` (up to a bounded oscillation of the physical energy about the
method's modified one); once the damped modes have decayed the largest factor,
:math:`\rho^2`, dominates, so the slope of :math:`\ln D_k` against :math:`k` is
:math:`2\ln\rho`. The run's *growth rate* :math:`\hat r` is half the least-squares slope of
:math:`\ln D_k` over the second half of the run (:func:`fitted_growth_rate`), and the run is
unstable when :math:`\hat r > \varepsilon` (``rate``, :data:`RATE_THRESHOLD` = 1e-3 per step,
theory's :math:`\rho > e^{\varepsilon}`). The same sweep-then-bisect search finds the edge.

*Horizon.* A run first lasts :math:`n_0 = \max(` ``min_steps``,
:math:`\lceil` ``run_time`` :math:`/h\rceil`, :math:`\lceil P\,2\pi/(\omega_{min} h)\rceil)`
steps (:func:`run_horizon`; :math:`P` = ``periods``, default 0). With :math:`a` the largest
deviation of :math:`\ln D` from the fitted line over the :math:`W = n/2` steps of the window,
any deviation bounded by :math:`a` moves the slope by at most :math:`3a/W`, so :math:`\hat r`
is known to :math:`\pm 1.5a/W`. A run is unstable once :math:`\hat r - 1.5a/W > \varepsilon`;
it is stable once :math:`\hat r + 1.5a/W \le \varepsilon` and the rate fitted over the last
quarter, with its own bound, is below :math:`\varepsilon` too (:math:`\ln D` of decaying
modes plus a growing one is convex, so the average rate over the second half underestimates
the final one while the damped modes still decay); otherwise the run is continued to twice
its length, up to
:math:`n_{max} = \lceil 4/\varepsilon \rceil` = 4 000 steps (:data:`RATE_EFOLDS`), where
growth at exactly the threshold would multiply :math:`D` by
:math:`e^{2\varepsilon n_{max}/2} = e^4 = 55` across the window and the estimate decides
alone. Growth at :math:`\varepsilon` lifts :math:`\ln D` by :math:`2\varepsilon W` = 0.2 over
the window of the default 200-step horizon, against fit errors below 2e-4 measured on the
tongue (explicit Euler with absolute damping at :math:`1.02\,h_c`: 1.38e-3 fitted,
:math:`\ln\rho` = 1.39e-3).

*The threshold.* Where :math:`\rho` crosses 1 linearly, :math:`\rho - 1 \approx s(h - h_c)`,
the runs find :math:`h_c + \varepsilon/s`, the theory limit at the threshold
(:math:`\rho \le e^\varepsilon`, ``dt_theory_rate`` in the stability table). At the symplectic
methods' and RK4's limits :math:`\rho` rises steeply (like :math:`\sqrt{h - h_c}` without
damping) and the two limits agree to 1e-4. The slow crossings are explicit Euler's:
with absolute damping :math:`s = c/2m` per unit step (25, 2.5, 0.25 per s at 0.01, 0.1,
1 kg), so 0.002755 s instead of 0.002716 s at 0.01 kg (+1.5 %, inside the default 1.8 %
bisection resolution) but 0.00307 and 0.00492 s at 0.1 and 1 kg; without damping (the
tongue's transverse modes) :math:`\rho - 1 = (h\omega)^2/2`, below 1e-3 per step for
:math:`h < \sqrt{2\varepsilon}/\omega` (0.00195 s at 0.1 kg instead of 0). These lie below the
default sweep (0.1 x 2/omega_max), where the runs see explicit Euler unstable at every step
tried, as theory says; a sweep reaching lower finds the threshold's limit (tested). No finite
run can tell growth of :math:`(h\omega)^2/2 \to 0` per step from none.

*Why the slowest mode does not set the horizon* (:math:`P = 0`). The fit needs many
oscillations of :math:`\ln D`, not of the slowest mode: a mode of frequency :math:`\omega_j`
makes the energy oscillate with relative amplitude :math:`O((h\omega_j)^p)` (:math:`p` the
order) at :math:`2\omega_j`, so a slow mode moves the fitted slope by about its amplitude
times its phase advance per step, :math:`O((h\omega_{min})^{p+1})`, tiny where a period of it
takes many steps; and a period of the cloth's slowest mode (3.75 rad/s) takes
:math:`2\pi\omega_{max}/(0.2\,\omega_{min})` = 7 400 steps at the sweep's low end. Checked
on the tongue: with :math:`P = 2` (runs of up to 11.7 s at 1 kg) all 54 of its measured
limits in the default task are unchanged. A growing mode with a small share :math:`p` of
:math:`D` among neutral ones is seen late (the fitted rate is scaled by
:math:`pe^{2\varepsilon n}/(1 - p + pe^{2\varepsilon n})`); the slow crossings studied occur
only in methods that damp the other modes (explicit Euler, RK4), the neutral symplectic
methods cross steeply.

*Early ends and reasons* (:class:`Probe`). A blow-up (non-finite state or strain beyond
:data:`~flocklab.models.springs.run.STRAIN_BOUND`: ``blow_up``) or :math:`D` above
``growth`` (:data:`GROWTH` = 100) times its initial value (``energy_growth``) ends a run as
unstable at once, :math:`D` below :data:`DECAYED` (1e-10) of its initial value as stable
(``decayed``); otherwise the rate decides (``growth_rate`` / ``rate``). An unstable run of a
Newton method is a ``newton_failure`` when a step hit the iteration cap, a ``newton_jump``
when every step converged but one multiplied :math:`D` by more than :data:`JUMP` (1e3): the
linearised implicit steps never increase the energy norm, so the step went to another,
distant solution of its nonlinear equations.
:func:`~flocklab.models.springs.claims.stability_table` adds the theory's :math:`\rho` at the
two steps around each measured edge and ``dt_theory_rate``, and classifies the agreement
(:func:`~flocklab.models.springs.claims.agreement`). Where measurement and theory differ the
cause is nonlinear: the implicit midpoint rule's Newton jumps at large steps on the tongue
and its Newton failure on the cloth, and RK4 on the cloth just above its linear limit, whose
growing top modes saturate at a finite amplitude.

Reference: E. Hairer, G. Wanner, *Solving Ordinary Differential Equations II*, 2nd ed.,
Springer 1996, ch. IV.2 (stability functions); Hairer, Lubich, Wanner (2006), ch. I.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from flocklab.models.springs.forces import force_jacobians
from flocklab.models.springs.integrators import INTEGRATORS, get_integrator
from flocklab.models.springs.kernels import disturbance_energy, max_abs_strain
from flocklab.models.springs.run import STRAIN_BOUND
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
#: Threshold on the measured growth rate per step of the disturbance amplitude (a run whose
#: rate exceeds it is unstable); see the module docstring for its choice.
RATE_THRESHOLD = 1e-3
#: Bisections of the theory limit at the rate threshold (rho <= e^rate): the sweep's step
#: ratio 10^(1/6) to the power 2^-12 leaves 9e-5, far below a measured limit's resolution.
RATE_THEORY_REFINE = 12
#: Longest extended run, in units of 1/rate: growth at the threshold would multiply the
#: disturbance energy by e^(RATE_EFOLDS) = 55 across the fitted second half.
RATE_EFOLDS = 4.0
#: A disturbance energy above GROWTH x its initial value ends a run as unstable at once.
GROWTH = 100.0
#: A disturbance energy below DECAYED x its initial value has decayed (into rounding).
DECAYED = 1e-10
#: A Newton step that converges and multiplies the disturbance energy by more than JUMP
#: went to a distant solution of its equations (reason ``newton_jump``).
JUMP = 1e3
#: Fewest steps of a stability run (the rate is fitted over its second half).
MIN_RUN_STEPS = 8


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

    @property
    def omega_min(self) -> float:
        """Smallest undamped angular frequency (0 if there is a zero or unstable mode)."""
        scale = 1.0 / np.sqrt(self.mass)
        values = np.linalg.eigvalsh(scale[:, None] * self.stiffness * scale[None, :])
        return math.sqrt(values[0]) if values[0] > 0.0 else 0.0

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


def amplification_matrix(method: str, h: float, lin: LinearSystem,
                         iterations: int = 3) -> np.ndarray:
    """One-step matrix :math:`G(h)` of ``method`` on the linear system, shape (2n, 2n): the
    integrator's own declaration (:meth:`~flocklab.models.springs.integrators.Integrator.
    amplification`). ``iterations`` is the sweep count of a method with that option."""
    integrator = INTEGRATORS[method]
    options = {"iterations": iterations} if "iterations" in integrator.options else {}
    return integrator.amplification(h, lin, **options)


def spectral_radius(method: str, h: float, lin: LinearSystem, iterations: int = 3,
                    generator_eigenvalues: np.ndarray | None = None) -> float:
    r""":math:`\rho(G(h))`; :math:`\max |R(h\mu)|` over the eigenvalues :math:`\mu` of
    :math:`L` where the method declares its stability function :math:`R`."""
    integrator = INTEGRATORS[method]
    if integrator.stability_polynomials is not None:
        mu = np.linalg.eigvals(lin.generator()) if generator_eigenvalues is None \
            else generator_eigenvalues
        return float(np.max(np.abs(integrator.stability_function(h * mu))))
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
    #: Measured limits: the :class:`Probe` of every run, in the order run.
    probes: list[Probe] = field(default_factory=list)

    def probe(self, dt: float) -> Probe | None:
        """The run at step ``dt`` (None if there was none, or for a theory limit)."""
        return next((probe for probe in self.probes if probe.dt == dt), None)

    @property
    def dt_unstable(self) -> float:
        """Smallest step evaluated unstable (inf if none)."""
        return min((dt for dt, stable, _ in self.evaluations if not stable), default=math.inf)


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
                  tolerance: float = RHO_TOLERANCE, refine: int = THEORY_REFINE,
                  generator_eigenvalues: np.ndarray | None = None,
                  radii: dict[float, float] | None = None) -> Limit:
    """Largest :math:`h` with :math:`\\rho(G(h)) \\le 1 + \\epsilon` (see module docstring).

    Methods without a fixed-step amplification matrix (``linear_theory`` false: the
    ``scipy_*`` references) have no limit: ``dt_max`` is NaN.
    ``generator_eigenvalues`` (of :meth:`LinearSystem.generator`) saves their computation;
    ``radii`` (step -> spectral radius) is a cache read and filled, so that a second search
    with another ``tolerance`` repeats no evaluation.
    """
    scale = 2.0 / lin.omega_max
    low, high, points = SWEEP
    if not INTEGRATORS[method].linear_theory:
        return Limit(method, math.nan, low * scale, high * scale)
    mu = None
    if INTEGRATORS[method].stability_polynomials is not None:
        mu = np.linalg.eigvals(lin.generator()) if generator_eigenvalues is None \
            else generator_eigenvalues

    cache: dict[float, float] = {} if radii is None else radii

    def is_stable(dt: float) -> tuple[bool, str]:
        if dt not in cache:
            cache[dt] = spectral_radius(method, dt, lin, iterations, mu)
        rho = cache[dt]
        return rho <= 1.0 + tolerance, f"rho = {rho:.9g}"

    return _edge_search(is_stable, method, low * scale, high * scale, points, refine)


@dataclass
class Probe:
    """One stability run at step ``dt`` (see the module docstring, *Measurement*).

    ``reason``: why the run was called unstable (``growth_rate``, ``energy_growth``,
    ``blow_up``, ``newton_failure``, ``newton_jump``) or stable (``rate``, ``decayed``).
    ``rate`` is the fitted growth rate per step of the disturbance amplitude over the second
    half of the run and ``rate_bound`` the bound on its error (NaN where no fit was made);
    ``steps`` the steps run; ``energy_ratio`` the largest disturbance energy over the initial
    one; ``jump`` the largest growth of the disturbance energy in one step;
    ``newton_unconverged`` the steps whose Newton iteration hit its cap and ``newton_max`` the
    most Newton iterations of a step (0 for methods without Newton).
    """

    dt: float
    stable: bool
    reason: str
    steps: int
    rate: float
    rate_bound: float
    energy_ratio: float
    jump: float
    newton_unconverged: int
    newton_max: int
    note: str


def fitted_growth_rate(disturbance: np.ndarray) -> tuple[float, float]:
    r"""Growth rate per step of the amplitude :math:`\sqrt{D}` and a bound on its error.

    Least-squares slope :math:`s` of :math:`\ln D_k` against the step :math:`k` over the
    samples given (one per step, a window of :math:`W` steps), halved; with :math:`a` the
    largest deviation of :math:`\ln D` from the fitted line, any deviation bounded by
    :math:`a` moves the slope by at most :math:`3a/W` (the slope of :math:`a\,\mathrm{sign}
    (k - \bar k)`), so the rate is known to :math:`\pm 1.5a/W`.
    """
    y = np.log(disturbance)
    steps = np.arange(y.size, dtype=float)
    steps -= steps.mean()
    slope = float(steps @ (y - y.mean()) / (steps @ steps))
    deviation = float(np.max(np.abs(y - y.mean() - slope * steps)))
    return 0.5 * slope, 1.5 * deviation / (y.size - 1)


def stability_run(system: SpringSystem, method: str, dt: float, x0: np.ndarray,
                  x_eq: np.ndarray, steps: int, max_steps: int, rate: float = RATE_THRESHOLD,
                  growth: float = GROWTH, **options: Any) -> Probe:
    """Run ``method`` at ``dt`` from ``x0`` (at rest) and decide stability (module docstring).

    The run lasts ``steps`` steps, doubled while the fitted rate is within its error bound of
    ``rate`` (for a stable call, also the rate fitted over the last quarter), up to
    ``max_steps``; it stops early on blow-up (non-finite state or strain beyond
    :data:`~flocklab.models.springs.run.STRAIN_BOUND`), when the disturbance energy exceeds
    ``growth`` times its initial value (unstable) and when it falls below :data:`DECAYED`
    times it (stable).
    """
    s = system
    stepper = get_integrator(method, s, dt, **options)
    length_eq = np.linalg.norm(x_eq[s.springs[:, 1]] - x_eq[s.springs[:, 0]], axis=1)
    args = (x_eq, s.springs, s.rest_length, s.stiffness, s.mass, s.gravity, s.external_force,
            s.fixed, length_eq)
    x, v = np.array(x0, dtype=np.float64), np.zeros_like(x0, dtype=np.float64)
    steps = max(steps, MIN_RUN_STEPS)
    max_steps = max(steps, max_steps)
    disturbance = np.empty(max_steps + 1)
    disturbance[0] = d0 = disturbance_energy(x, v, *args)
    target, n, stop = steps, 0, ""
    while True:
        while n < target and not stop:
            stepper.step(x, v)
            strain = max_abs_strain(x, v, s.springs, s.rest_length)
            if not strain <= STRAIN_BOUND:
                stop = ("non-finite state" if math.isinf(strain) else
                        f"strain {strain:.3g} > {STRAIN_BOUND:g}")
                break
            n += 1
            disturbance[n] = disturbance_energy(x, v, *args)
            if disturbance[n] > growth * d0:
                stop = "energy"
            elif disturbance[n] <= DECAYED * d0:
                break
        decayed = bool(disturbance[n] <= DECAYED * d0)
        fitted = bound = late = late_bound = math.nan
        if n >= 4 and not decayed:
            floor = DECAYED * d0
            fitted, bound = fitted_growth_rate(np.maximum(disturbance[n // 2:n + 1], floor))
            late, late_bound = fitted_growth_rate(
                np.maximum(disturbance[n - n // 4:n + 1], floor))
        # ln D of decaying modes plus a growing one is convex: the rate over the second half
        # underestimates the final one, so a stable call needs the last quarter's rate too
        grows = fitted - bound > rate
        holds = fitted + bound <= rate and late + late_bound <= rate
        if stop or decayed or n >= max_steps or grows or holds:
            break
        target = min(2 * target, max_steps)
    run = disturbance[:n + 1]
    with np.errstate(divide="ignore", invalid="ignore"):
        jump = float(np.nanmax(run[1:] / run[:-1])) if n else math.nan
    ratio = float(np.max(run) / d0)
    newton = stepper.stats.get("newton_iterations", [])
    unconverged = int(stepper.stats.get("unconverged_steps", 0))
    detail = (f"; rate {fitted:.3g} ± {bound:.2g} per step (threshold {rate:g}), {n} steps"
              if math.isfinite(fitted) else "")
    if stop and stop != "energy":
        stable, reason = False, "blow_up"
        note = f"blow-up at t = {(n + 1) * dt:.4g} s ({stop})"
    elif stop:
        stable, reason = False, "energy_growth"
        note = f"disturbance energy grew x{ratio:.3g} in {n} steps"
    elif decayed:
        stable, reason = True, "decayed"
        note = f"disturbance energy decayed below {DECAYED:g} of initial in {n} steps"
    else:
        stable = fitted <= rate
        reason = "rate" if stable else "growth_rate"
        note = f"disturbance energy x{run[-1] / d0:.3g} of initial"
    note += detail
    if jump > 10.0:
        note += f"; largest one-step growth x{jump:.3g}"
    if newton:
        note += f"; Newton at most {max(newton)} iterations"
    if unconverged:
        note += f", {unconverged} step{'s' if unconverged > 1 else ''} hit its cap"
        if not stable:
            reason = "newton_failure"
    elif newton and not stable and jump > JUMP:
        reason = "newton_jump"
        note += " (converged: the step went to a distant solution of its equations)"
    return Probe(float(dt), stable, reason, n, fitted, bound, ratio, jump, unconverged,
                 max(newton, default=0), note)


def run_horizon(dt: float, run_time: float, min_steps: int, periods: float = 0.0,
                omega_min: float = 0.0) -> int:
    """Steps of a stability run at ``dt`` before any extension: at least ``min_steps``,
    ``run_time`` seconds and ``periods`` periods :math:`2\\pi/\\omega_{min}`."""
    steps = max(int(min_steps), math.ceil(run_time / dt - 1e-9))
    if periods > 0.0 and omega_min > 0.0:
        steps = max(steps, math.ceil(periods * 2.0 * math.pi / (omega_min * dt) - 1e-9))
    return steps


def measured_dt_max(system: SpringSystem, method: str, x_eq: np.ndarray | None = None,
                    run_time: float = 5.0, min_steps: int = 1000, perturbation: float = 1e-2,
                    growth: float = GROWTH, seed: int = 0, points: int = 13, refine: int = 7,
                    dt_range: tuple[float, float] | None = None, rate: float = RATE_THRESHOLD,
                    periods: float = 0.0, max_steps: int | None = None,
                    on_probe: Callable[[Probe, int], None] | None = None,
                    **options: Any) -> Limit:
    """Largest step at which runs of ``method`` stay stable (see module docstring).

    Parameters
    ----------
    run_time, min_steps, periods : float, int, float
        Each run lasts at least ``min_steps`` steps, ``run_time`` seconds and ``periods``
        periods of the slowest mode (:func:`run_horizon`) before it may be extended.
    perturbation : float
        Random displacement of each free coordinate, uniform in ±perturbation x mean rest
        length (``numpy.random.default_rng(seed)``).
    growth : float
        A run whose disturbance energy exceeds ``growth`` times its initial value is unstable
        at once.
    rate : float
        Threshold on the fitted growth rate per step of the disturbance amplitude.
    max_steps : int, optional
        Longest extended run; default :math:`\\lceil 4/\\text{rate} \\rceil`.
    dt_range : (float, float), optional
        Sweep bounds (s); default 0.01 and 100 times 2/omega_max.
    on_probe : callable, optional
        ``on_probe(probe, runs)`` after each run (progress), ``runs`` the runs so far.
    """
    x_eq = static_equilibrium(system) if x_eq is None else x_eq
    rng = np.random.default_rng(seed)
    x0 = x_eq.copy()
    scale = perturbation * float(np.mean(system.rest_length))
    free = ~system.fixed
    x0[free] += rng.uniform(-scale, scale, size=x0[free].shape)
    lin = linearise(system, x_eq) if dt_range is None or periods > 0.0 else None
    if dt_range is None:
        dt_range = (0.01 * 2.0 / lin.omega_max, 100.0 * 2.0 / lin.omega_max)
    cap = math.ceil(RATE_EFOLDS / rate) if max_steps is None else int(max_steps)
    omega_min = lin.omega_min if periods > 0.0 else 0.0
    probes: list[Probe] = []

    def is_stable(dt: float) -> tuple[bool, str]:
        steps = run_horizon(dt, run_time, min_steps, periods, omega_min)
        probe = stability_run(system, method, dt, x0, x_eq, steps, cap, rate, growth,
                              **options)
        probes.append(probe)
        if on_probe is not None:
            on_probe(probe, len(probes))
        return probe.stable, probe.note

    limit = _edge_search(is_stable, method, dt_range[0], dt_range[1], points, refine)
    limit.probes = probes
    return limit
