r"""The source articles' stability claims, measured: stability tables and verdicts.

Claims of the tongue-model article and of the integrator article
(:data:`flocklab.references.TONGUE_ARTICLE`, :data:`flocklab.references.INTEGRATOR_ARTICLE`):

* ``sqrt_m_k`` (tongue article): "stable when :math:`\Delta t < \sqrt{m/k}`", for its
  explicit Euler (prose) and for the update its code actually runs (semi-implicit Euler,
  which is also what its "Verlet" is);
* ``two_sqrt_m_k`` (integrator article): "explicit methods are stable for
  :math:`\Delta t < 2\sqrt{m/k}`", for explicit Euler, semi-implicit Euler and RK4;
* ``unconditional`` (integrator article): "implicit Euler is unconditionally stable",
  separately for full Newton (``implicit_euler``) and the diagonal approximation with 3 sweeps;
* ``semi_vs_explicit`` (integrator article): "semi-implicit is markedly more stable than explicit";
* ``cloth_cost`` (integrator article): "on the 100-particle cloth, implicit at 0.016 s with
  3 iterations is faster than explicit at 0.001 s", as measured cost per simulated second.

Decision rules (stated once, applied to every configuration; :math:`m` the smallest mass,
:math:`k` the largest stiffness): a bound claim "stable for every :math:`\Delta t < X`"
*holds* in a configuration when the measured limit :math:`\Delta t_{max} \ge X(1 - r)`,
*fails* when :math:`\Delta t_{max} < X(1 - r)`, with :math:`r` = :data:`RESOLUTION` (the
bisection's relative resolution); a claim holds overall when it holds in every
configuration and fails when it fails in any. "Unconditionally stable" holds when every run
up to 100 :math:`\cdot 2/\omega_{max}` is stable and the theory limit is infinite. "Markedly
more stable" holds when the ratio of measured limits is at least :data:`MARKEDLY` (2) in
every configuration, fails when it is below 1.25 in any, inconclusive otherwise. The cost
claim holds when both runs are stable and the implicit cost per simulated second is lower,
fails when it is higher or the implicit run is unstable, and is inconclusive when the
explicit run is unstable (the comparison's premise).
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from flocklab.analysis.verdicts import Verdict
from flocklab.core.progress import Progress
from flocklab.core.threads import blas_threads
from flocklab.models.springs.integrators import INTEGRATORS, STUDY_METHODS, method_label
from flocklab.models.springs.run import integrate
from flocklab.models.springs.stability import (
    GROWTH,
    RATE_THEORY_REFINE,
    RATE_THRESHOLD,
    RHO_TOLERANCE,
    linearise,
    measured_dt_max,
    spectral_radius,
    theory_dt_max,
)
from flocklab.models.springs.statics import static_equilibrium
from flocklab.models.springs.structure import SpringSystem, chain, cloth

#: Relative resolution of a measured limit (13-point sweep over 4 decades, 7 bisections).
RESOLUTION = 0.02
#: Progress of the stability table, one INFO line per measured limit.
logger = logging.getLogger("flocklab.springs.stability")
#: Ratio of stability limits that counts as "markedly" more stable.
MARKEDLY = 2.0
TONGUE_MASSES = (0.01, 0.1, 1.0)



@dataclass
class StabilityRow:
    """Theory and measured stability limit of one method on one configuration (s).

    The first seven fields are the table's original columns; the others say how the measured
    limit was decided (:func:`stability_table`).
    """

    configuration: str
    method: str
    dt_theory: float
    dt_measured: float
    sqrt_m_over_k: float
    omega_max: float
    note: str  # why the smallest unstable step tried was unstable
    #: Linear theory at the measurement's threshold: largest step with rho <= e^rate (s),
    #: the limit the runs estimate (above dt_theory by rate / (d rho / dh) where rho crosses 1).
    dt_theory_rate: float = math.nan
    #: Slowest undamped angular frequency of the configuration (rad/s).
    omega_min: float = math.nan
    #: Smallest step measured unstable (s; inf: stable at every step tried).
    dt_unstable: float = math.inf
    #: Why that run was unstable: growth_rate, energy_growth, blow_up, newton_failure,
    #: newton_jump ('' if none was; see stability.Probe).
    reason: str = ""
    #: Fitted growth rate per step of the disturbance amplitude in that run.
    growth_rate: float = math.nan
    #: The same in the run at dt_measured (NaN when dt_measured is 0; at the largest step
    #: tried when it is inf), with that run's steps and the largest disturbance energy it
    #: reached over the initial one.
    growth_rate_stable: float = math.nan
    steps_stable: int = 0
    energy_ratio_stable: float = math.nan
    #: Threshold on the rate above which a run is unstable.
    rate_threshold: float = math.nan
    #: Steps of the run at dt_unstable, and how many of them hit the Newton cap.
    steps: int = 0
    newton_unconverged: int = 0
    #: Linear-theory spectral radius at dt_unstable and at dt_measured (largest step tried
    #: when it is inf); NaN where there is no such step or no theory.
    rho_theory_unstable: float = math.nan
    rho_theory_stable: float = math.nan
    #: agree, nonlinear, saturated or missed_growth (:func:`agreement`); '' without a theory.
    agreement: str = ""


def configurations(cloth_size: int = 10) -> list[tuple[str, SpringSystem]]:
    """The studied structures: the tongue with both damping readings at masses 0.01, 0.1,
    1 kg (article values otherwise), and the default ``cloth_size`` x ``cloth_size`` cloth."""
    tongues = [(f"tongue {kind} m={mass:g}", chain(mass=mass, damping_kind=kind))
               for kind in ("spring", "absolute") for mass in TONGUE_MASSES]
    return [*tongues, (f"cloth {cloth_size}x{cloth_size}", cloth(cloth_size, cloth_size))]


def _radius(cache: dict[str, dict[float, float]], method: str, dt: float, lin: Any,
            mu: np.ndarray) -> float:
    """Spectral radius of ``method``'s G(dt), cached; NaN for no finite step or no theory."""
    if not math.isfinite(dt) or dt <= 0.0 or not INTEGRATORS[method].linear_theory:
        return math.nan
    radii = cache.setdefault(method, {})
    if dt not in radii:
        with blas_threads(1):
            radii[dt] = spectral_radius(method, dt, lin, generator_eigenvalues=mu)
    return radii[dt]


def _theory_limits(label: str, method: str, lin: Any, mu: np.ndarray, rate: float,
                   cache: dict[float, float]) -> tuple[Any, Any]:
    """The linear theory's limits of ``method`` at the tolerance and at the rate threshold
    (one cache of spectral radii), on one BLAS thread, with a progress line."""
    start = time.perf_counter()
    with blas_threads(1):
        limits = (theory_dt_max(method, lin, generator_eigenvalues=mu, radii=cache),
                  theory_dt_max(method, lin, tolerance=math.expm1(rate),
                                refine=RATE_THEORY_REFINE, generator_eigenvalues=mu,
                                radii=cache))
    logger.info("%s, %s: dt_max %.4g s in theory (%d spectral radii, %.1f s)", label, method,
                limits[0].dt_max, len(cache), time.perf_counter() - start)
    return limits


def agreement(row: StabilityRow, growth: float = GROWTH) -> str:
    """How the measured limit of ``row`` relates to linear theory.

    * ``nonlinear``: a run failed at a step that is linearly stable, i.e.
      :math:`\\rho(G) \\le 1 +` :data:`~flocklab.models.springs.stability.RHO_TOLERANCE` at
      ``dt_unstable`` and ``dt_unstable`` is below the theory limit (by more than its
      relative resolution, 1e-6; at the limit itself a double eigenvalue on the unit circle
      grows linearly in the step count); ``reason`` and ``note`` say how it failed;
    * at the largest stable step the linear amplitude grows faster than twice the rate
      threshold, :math:`\\rho > e^{2\\epsilon}`: ``saturated`` when the linear theory
      predicts the run's disturbance energy to grow more than ``growth`` times
      (:math:`\\rho^{2n} >` ``growth``, which would have ended the run) but it did not: the
      growth stopped at a finite amplitude (``energy_ratio_stable``), a nonlinear effect;
      ``missed_growth`` otherwise (the run was too short to see a linear instability);
    * ``agree`` otherwise (a missing step, NaN, counts as agreeing); ``''`` for ``scipy_*``
      (no theory).
    """
    if math.isnan(row.dt_theory):
        return ""
    if row.rho_theory_unstable <= 1.0 + RHO_TOLERANCE \
            and row.dt_unstable < row.dt_theory * (1.0 - 1e-6):
        return "nonlinear"
    if row.rho_theory_stable > math.exp(2.0 * row.rate_threshold):
        predicted = 2.0 * row.steps_stable * math.log(row.rho_theory_stable)
        return "saturated" if predicted > math.log(growth) else "missed_growth"
    return "agree"


def stability_table(configs: Sequence[tuple[str, SpringSystem]],
                    methods: Sequence[str] = STUDY_METHODS, **measure: Any
                    ) -> list[StabilityRow]:
    """Theory and measured limits for every configuration and method (``measure`` goes to
    :func:`~flocklab.models.springs.stability.measured_dt_max`), with how each measured limit
    was decided: the reason and fitted rate of the run at the smallest unstable step, the
    rate at the largest stable one, the linear theory's spectral radius at both steps, and
    :func:`agreement`."""
    rate = float(measure.get("rate", RATE_THRESHOLD))
    rows = []
    for label, system in configs:
        x_eq = static_equilibrium(system)
        lin = linearise(system, x_eq)
        with blas_threads(1):  # small dense problems: threads cost more than they save
            mu = np.linalg.eigvals(lin.generator())
        sqrt_mk = math.sqrt(float(np.min(system.mass[~system.fixed]))
                            / float(np.max(system.stiffness)))
        theories: dict[str, Any] = {}
        radii: dict[str, dict[float, float]] = {}
        for method in methods:
            # a method with another's update (the article's "Verlet") shares its G(h)
            same_update = INTEGRATORS[method].same_update_as or method
            if same_update not in theories:
                theories[same_update] = _theory_limits(label, same_update, lin, mu, rate,
                                                       radii.setdefault(same_update, {}))
            theory, theory_rate = theories[same_update]
            start = time.perf_counter()
            points = int(measure.get("points", 13)) + int(measure.get("refine", 7))
            bar = Progress(points, f"{label}, {method}: runs")
            measured = measured_dt_max(system, method, x_eq, **measure,
                                       on_probe=lambda _, n, update=bar.update: update(n))
            bar.close()
            logger.info("%s, %s: dt_max %.4g s measured, %.4g s in theory (%.1f s)", label,
                        method, measured.dt_max, theory.dt_max, time.perf_counter() - start)
            dt_unstable = measured.dt_unstable
            unstable = measured.probe(dt_unstable)
            largest = measured.dt_max if math.isfinite(measured.dt_max) else max(
                dt for dt, _, _ in measured.evaluations)
            stable = measured.probe(largest) if measured.dt_max > 0 else None
            note = (f"at dt = {dt_unstable:.4g} s: {unstable.note}" if unstable
                    else "stable at every dt tried")
            row = StabilityRow(
                label, method, theory.dt_max, measured.dt_max, sqrt_mk, lin.omega_max, note,
                dt_theory_rate=theory_rate.dt_max, omega_min=lin.omega_min,
                dt_unstable=dt_unstable,
                reason=unstable.reason if unstable else "",
                growth_rate=unstable.rate if unstable else math.nan,
                growth_rate_stable=stable.rate if stable else math.nan,
                steps_stable=stable.steps if stable else 0,
                energy_ratio_stable=stable.energy_ratio if stable else math.nan,
                rate_threshold=rate, steps=unstable.steps if unstable else 0,
                newton_unconverged=unstable.newton_unconverged if unstable else 0,
                rho_theory_unstable=_radius(radii, same_update, dt_unstable, lin, mu),
                rho_theory_stable=_radius(radii, same_update, largest, lin, mu)
                if stable else math.nan)
            row.agreement = agreement(row, float(measure.get("growth", GROWTH)))
            rows.append(row)
    return rows


def _bound_verdict(claim: str, rows: list[StabilityRow], methods: Sequence[str],
                   factor: float, structure: str = "") -> Verdict:
    results, evidence = [], []
    for row in rows:
        if row.method not in methods or not row.configuration.startswith(structure):
            continue
        bound = factor * row.sqrt_m_over_k
        holds = row.dt_measured >= bound * (1.0 - RESOLUTION)
        results.append(holds)
        evidence.append(f"{row.configuration}, {method_label(row.method)}: largest stable Δt "
                        f"{row.dt_measured:.4g} s (theory {row.dt_theory:.4g} s) against "
                        f"{bound:.4g} s")
    verdict = "holds" if results and all(results) else "fails" if results else "inconclusive"
    return Verdict(claim, verdict, f"{sum(results)}/{len(results)} hold; " + "; ".join(evidence))


def _unconditional_verdict(claim: str, rows: list[StabilityRow], method: str) -> Verdict:
    chosen = [row for row in rows if row.method == method]
    stable = [math.isinf(row.dt_measured) and math.isinf(row.dt_theory) for row in chosen]
    evidence = "; ".join(f"{row.configuration}: measured {row.dt_measured:.4g} s, theory "
                         f"{row.dt_theory:.4g} s (runs up to {100 * 2 / row.omega_max:.3g} s)"
                         for row in chosen)
    return Verdict(claim, "holds" if all(stable) else "fails", evidence)


def _ratio_verdict(rows: list[StabilityRow]) -> Verdict:
    by = {(row.configuration, row.method): row.dt_measured for row in rows}
    ratios = {config: by[(config, "semi_implicit_euler")] / by[(config, "explicit_euler")]
              if by[(config, "explicit_euler")] > 0 else math.inf
              for config, method in by if method == "explicit_euler"}
    values = list(ratios.values())
    verdict = ("holds" if min(values) >= MARKEDLY else "fails" if min(values) < 1.25
               else "inconclusive")
    evidence = "; ".join(f"{config}: ×{ratio:.3g}" for config, ratio in ratios.items())
    return Verdict("integrator article: semi-implicit Euler is markedly (≥ ×2) more stable "
                   "than explicit Euler",
                   verdict, evidence)


def stability_verdicts(rows: list[StabilityRow]) -> list[Verdict]:
    """Verdicts of the stability claims from a :func:`stability_table`."""
    return [
        _bound_verdict("tongue article: explicit Euler stable when Δt < √(m/k)", rows,
                       ("explicit_euler",), 1.0, "tongue"),
        _bound_verdict("tongue article: the update its code runs (semi-implicit Euler, its "
                       "'Verlet') stable when Δt < √(m/k)", rows,
                       ("semi_implicit_euler", "article_verlet"), 1.0, "tongue"),
        _bound_verdict("integrator article: explicit methods stable when Δt < 2√(m/k)", rows,
                       ("explicit_euler", "semi_implicit_euler", "rk4"), 2.0),
        _unconditional_verdict("integrator article: implicit Euler (full Newton) is "
                               "unconditionally stable",
                               rows, "implicit_euler"),
        _unconditional_verdict("integrator article: implicit Euler, diagonal Jacobian, 3 "
                               "iterations, is unconditionally stable", rows,
                               "implicit_euler_diagonal"),
        _ratio_verdict(rows),
    ]


def cost_per_simulated_second(system: SpringSystem, method: str, dt: float,
                              t_end: float = 2.0, repeats: int = 3, **options: Any
                              ) -> tuple[float, bool, dict[str, Any]]:
    """Median wall seconds per simulated second of ``method`` at ``dt`` (after a warm-up
    run), whether the run stayed stable, and the solver statistics."""
    integrate(system, method, dt, 10 * dt, **options)  # compile / warm caches
    times, result = [], None
    for _ in range(repeats):
        result = integrate(system, method, dt, t_end, record_every=t_end, **options)
        times.append(result.wall_time / t_end)
    return float(np.median(times)), result.stable, result.stats


#: What the claims and evidence call the cloth cost runs.
COST_RUN_NAMES = {
    "explicit_euler@0.001": "explicit Euler at Δt = 0.001 s",
    "semi_implicit_euler@0.001": "semi-implicit Euler at Δt = 0.001 s",
    "implicit_euler_diagonal(3)@0.016": "implicit Euler (diagonal Jacobian, 3 sweeps) at "
                                        "Δt = 0.016 s",
    "implicit_euler(newton<=3)@0.016": "implicit Euler (at most 3 Newton steps) at "
                                       "Δt = 0.016 s",
}


def cloth_cost_verdicts(system: SpringSystem | None = None, t_end: float = 2.0
                        ) -> tuple[list[Verdict], dict[str, Any]]:
    """The integrator article's cloth claim: implicit (3 iterations, 0.016 s) vs explicit
    (0.001 s), measured."""
    system = cloth(10, 10) if system is None else system
    runs = {
        "explicit_euler@0.001": ("explicit_euler", 0.001, {}),
        "semi_implicit_euler@0.001": ("semi_implicit_euler", 0.001, {}),
        "implicit_euler_diagonal(3)@0.016": ("implicit_euler_diagonal", 0.016,
                                             {"iterations": 3}),
        "implicit_euler(newton<=3)@0.016": ("implicit_euler", 0.016, {"max_iter": 3}),
    }
    data = {}
    for label, (method, dt, options) in runs.items():
        cost, stable, _stats = cost_per_simulated_second(system, method, dt, t_end, **options)
        data[label] = {"cost_s_per_s": cost, "stable": stable}
    verdicts = []
    for implicit in ("implicit_euler_diagonal(3)@0.016", "implicit_euler(newton<=3)@0.016"):
        for explicit in ("explicit_euler@0.001", "semi_implicit_euler@0.001"):
            imp, exp = data[implicit], data[explicit]
            if not imp["stable"]:
                verdict = "fails"
            elif not exp["stable"]:
                verdict = "inconclusive"
            else:
                verdict = "holds" if imp["cost_s_per_s"] < exp["cost_s_per_s"] else "fails"
            evidence = (f"{COST_RUN_NAMES[implicit]}: {imp['cost_s_per_s']:.3g} s per "
                        f"simulated s ({'stable' if imp['stable'] else 'unstable'}); "
                        f"{COST_RUN_NAMES[explicit]}: {exp['cost_s_per_s']:.3g} s per "
                        f"simulated s ({'stable' if exp['stable'] else 'unstable'})")
            verdicts.append(Verdict(f"integrator article: {COST_RUN_NAMES[implicit]} faster "
                                    f"than {COST_RUN_NAMES[explicit]} on the 10x10 cloth",
                                    verdict, evidence))
    return verdicts, data


def article_claims(cloth_size: int = 10, **measure: Any) -> dict[str, Any]:
    """Everything the claims need, as JSON-ready data: the stability table, the verdicts,
    and the cloth cost measurements."""
    start = time.perf_counter()
    rows = stability_table(configurations(cloth_size), **measure)
    verdicts = stability_verdicts(rows)
    cost_verdicts, cost = cloth_cost_verdicts(cloth(cloth_size, cloth_size))
    return {"table": [asdict(row) for row in rows],
            "verdicts": [v.as_dict() for v in [*verdicts, *cost_verdicts]],
            "cloth_cost": cost, "seconds": time.perf_counter() - start}
