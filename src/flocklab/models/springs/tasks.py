r"""The springs model's tasks: integrator stability, the cloth's cost, and accuracy.

Three :class:`flocklab.core.tasks.Task` objects (:data:`TASKS`), each a pure computation
returning a JSON-ready document and writing a CSV table beside it:

* ``stability`` — for every integrator, the largest stable step measured by a sweep and
  bisection on nonlinear runs (a run is unstable when the fitted growth rate per step of its
  disturbance exceeds ``rate``, or it blows up; :mod:`flocklab.models.springs.stability`)
  against the linear-theory limit (spectral radius of the one-step amplification matrix at
  the static equilibrium ≤ 1, and ≤ e^rate), with the reason each edge run was unstable and
  whether measurement and theory agree; on the structure of the task's parameters at each
  ``mass`` x ``damping_kind`` of the options, plus optionally a ``cloth_size`` x
  ``cloth_size`` cloth; then the verdicts of the articles' stability claims decided by that
  table (:func:`flocklab.models.springs.claims.stability_verdicts`).
* ``cloth_cost`` — the cloth claim of the mass–spring article: wall time per simulated
  second of implicit Euler (3 iterations, 0.016 s) against explicit and semi-implicit Euler
  (0.001 s), and verdicts.
* ``accuracy`` — global error at :math:`t_{end}` against ``dt`` on the damped single spring
  with a known solution, and each method's fitted order (slope of :math:`\log e` against
  :math:`\log \Delta t`).

References
----------
E. Hairer, G. Wanner, *Solving Ordinary Differential Equations II*, Springer 1996, ch. IV.2
(stability functions).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

from flocklab.core.io import write_rows
from flocklab.core.parameters import ParameterError, ParameterSpec
from flocklab.core.tasks import Task, list_option
from flocklab.models.springs.integrators import INTEGRATORS, STUDY_METHODS

if TYPE_CHECKING:  # pragma: no cover
    from flocklab.core.model import Model

#: Methods the stability claims need (without them the verdicts are left out).
CLAIM_METHODS = ("explicit_euler", "semi_implicit_euler", "article_verlet", "rk4",
                 "implicit_euler", "implicit_euler_diagonal")
_DEFAULT_STEPS = (0.01, 0.005, 0.0025, 0.00125)
_POSITIVE = {"type": "number", "exclusiveMinimum": 0}
_METHOD = {"enum": list(INTEGRATORS)}


def _count(name: str, default: int, description: str, low: int) -> ParameterSpec:
    return ParameterSpec(name, "int", default, description, low=low)


def _positive(name: str, default: float, description: str, unit: str) -> ParameterSpec:
    return ParameterSpec(name, "float", default, description, unit, low=0.0,
                         low_inclusive=False)


class Stability(Task):
    """Measured and linear-theory largest stable step of every integrator."""

    name = "stability"
    tests_claims = True
    description = ("measured (bisection on runs) and linear-theory dt_max of every integrator, "
                   "and the verdicts of the articles' stability claims")
    options = (
        list_option("masses", None, "point masses to compare (default: the parameter's)",
                    _POSITIVE, "kg", nullable=True),
        list_option("damping_kinds", None, "damper readings to compare (default: the "
                    "parameter's)", {"enum": ["spring", "absolute"]}, nullable=True),
        list_option("methods", None, "integrators (default: the nine of the study)", _METHOD,
                    nullable=True),
        _count("cloth_size", 0, "also a cloth_size x cloth_size cloth (0: none)", 0),
        _positive("run_time", 5.0, "length of each stability run", "s"),
        ParameterSpec("cloth_run_time", "json", None, "run length on the cloth (default: "
                      "run_time)", "s", schema={"description": "a number > 0 or null",
                                                "type": ["number", "null"],
                                                "exclusiveMinimum": 0}),
        _count("min_steps", 1000, "runs last at least this many steps", 1),
        _count("points", 13, "steps of the logarithmic sweep", 3),
        _count("refine", 7, "bisection halvings of the bracket", 0),
        list_option("span", [0.01, 100.0], "sweep range [low, high] in units of "
                    "2/omega_max", _POSITIVE),
        ParameterSpec("rate", "float", 1e-3, "threshold on the fitted growth rate per step "
                      "of the disturbance amplitude (above it a run is unstable)", low=0.0,
                      high=1.0, low_inclusive=False),
        ParameterSpec("periods", "float", 0.0, "runs also last this many periods of the "
                      "slowest mode, 2 pi/omega_min", low=0.0),
    )
    figure = ("Largest stable time step of each integrator (log axis): filled circles "
              "measured (sweep and bisection on nonlinear runs; unstable: the disturbance "
              "grows faster than 1e-3 per step, or blows up), open diamonds linear theory "
              "(spectral radius of the one-step matrix <= 1), one colour per configuration, "
              "dotted: its sqrt(m/k). Top band: stable at every step (theory) or up to the "
              "sweep's largest step (measured); bottom band: unstable at every step (theory) "
              "or at the sweep's smallest (measured). Letters mark what theory does not "
              "predict: n, a Newton failure (implicit midpoint); s, a saturating growth (RK4 "
              "on the cloth); b, a limit below the sweep (explicit Euler, absolute damping, "
              "0.1 and 1 kg: theory 0.0027 s).")
    figure_options = (
        list_option("configurations", None, "configurations to draw (default: all)",
                    {"type": "string", "minLength": 1}, nullable=True),
        list_option("methods", None, "integrators to draw (default: all)", _METHOD, nullable=True),
    )

    def check(self, params: Mapping[str, Any], options: dict[str, Any]) -> None:
        span = options["span"]
        if not (len(span) == 2 and span[0] < span[1]):
            raise ParameterError("span", "option 'span' must be [low, high] with low < high "
                                         "(units of 2/omega_max)")

    def run(self, model: Model, params: Mapping[str, Any], options: Mapping[str, Any],
            out_dir: Path) -> dict[str, Any]:
        return stability_task(model, params, options, Path(out_dir))

    def draw(self, fig: Any, document: Mapping[str, Any], options: Mapping[str, Any]
             ) -> None:
        from flocklab.models.springs.figures import stability_figure

        stability_figure(fig, document["result"], options)


class ClothCost(Task):
    """Wall time per simulated second of the cloth's integrators, and the claim's verdicts."""

    name = "cloth_cost"
    tests_claims = True
    description = ("cost per simulated second: implicit Euler (3 iterations, 0.016 s) vs "
                   "explicit and semi-implicit Euler (0.001 s) on the cloth, with verdicts")
    options = (_count("cloth_size", 10, "cloth points per side", 2),
               _positive("t_end", 2.0, "simulated time of each timed run", "s"))

    def run(self, model: Model, params: Mapping[str, Any], options: Mapping[str, Any],
            out_dir: Path) -> dict[str, Any]:
        return cloth_cost_task(model, params, options, Path(out_dir))


class Accuracy(Task):
    """Global error against the step on the damped single spring, and fitted orders."""

    name = "accuracy"
    description = ("global error against dt on the damped single spring and each method's "
                   "fitted order")
    options = (
        list_option("methods", None, "integrators (default: the nine of the study)", _METHOD,
                    nullable=True),
        list_option("steps", list(_DEFAULT_STEPS), "time steps", _POSITIVE, "s"),
        ParameterSpec("zeta", "float", 0.1, "damping ratio of the spring (underdamped)",
                      low=0.0, high=1.0, low_inclusive=False, high_inclusive=False),
    )
    figure = ("Global error at t_end of each integrator against the time step on the damped "
              "single spring with a known solution (log-log axes); the legend gives the "
              "fitted order (least-squares slope of log error against log dt).")
    figure_options = (list_option("methods", None, "integrators to draw (default: all)",
                                  _METHOD, nullable=True),)

    def run(self, model: Model, params: Mapping[str, Any], options: Mapping[str, Any],
            out_dir: Path) -> dict[str, Any]:
        return accuracy_task(model, params, options, Path(out_dir))

    def draw(self, fig: Any, document: Mapping[str, Any], options: Mapping[str, Any]
             ) -> None:
        from flocklab.models.springs.figures import accuracy_figure

        accuracy_figure(fig, document["result"], options)


TASKS: tuple[Task, ...] = (Stability(), ClothCost(), Accuracy())


# --------------------------------------------------------------------------- the tasks


def _configurations(model: Model, params: Mapping[str, Any], opts: Mapping[str, Any]
                    ) -> list[tuple[str, Any]]:
    """(label, system) for every damping reading x mass of the options on the structure of
    ``params`` (chains are labelled ``tongue``), plus the project's cloth if asked."""
    from flocklab.models.springs.structure import cloth

    structure = params["structure"]
    prefix = {"chain": "tongue", "cloth": f"cloth {params['nx']}x{params['ny']}"}.get(
        structure, structure)
    configs = []
    for kind in opts["damping_kinds"] or [params["damping_kind"]]:
        for mass in opts["masses"] or [params["mass"]]:
            varied = model.resolve({**params, "damping_kind": kind, "mass": mass})
            configs.append((f"{prefix} {kind} m={mass:g}", model.build(varied)))
    size = opts["cloth_size"]
    if size:
        configs.append((f"cloth {size}x{size}", cloth(size, size)))
    return configs


def stability_task(model: Model, params: Mapping[str, Any], opts: Mapping[str, Any],
                   out_dir: Path) -> dict[str, Any]:
    """Stability table (measured vs theory dt_max, s) and the stability claims' verdicts.

    Each row (:class:`flocklab.models.springs.claims.StabilityRow`) also gives the theory limit
    at the rate threshold, the smallest unstable step with the reason and fitted rate of its
    run, the linear theory's spectral radius around the edge and the agreement; the document
    adds ``rate_threshold``, ``max_steps`` (longest extended run) and the agreement counts.
    Each row of the document also names the state of its two limits, ``dt_measured_state``
    and ``dt_theory_state`` (:data:`LIMIT_STATES`: strict JSON writes inf and NaN alike as
    ``null``).
    A measured limit has relative resolution
    :math:`(\\Delta_{sweep})^{2^{-refine}} - 1` with :math:`\\Delta_{sweep}` the sweep's
    ratio of neighbouring steps; the sweep spans ``span`` x 2/omega_max (a limit below its
    low end is reported as 0: unstable at every step tried). Runs last at least
    ``max(run_time, min_steps * dt)`` and ``periods`` periods of the slowest mode, doubled
    while the fitted rate is within its error bound of ``rate`` (at most 4/rate steps); the
    project's cloth (``cloth_size`` > 0) uses
    ``cloth_run_time`` instead of ``run_time`` when given (its 2/omega_max is 2.3 ms, so a
    quarter second is still > 100 x 2/omega_max and cuts its Newton runs at small steps).
    """
    from flocklab.models.springs.claims import stability_table, stability_verdicts
    from flocklab.models.springs.stability import RATE_EFOLDS, linearise

    methods = opts["methods"] or list(STUDY_METHODS)
    low, high = opts["span"]
    rows = []
    size = opts["cloth_size"]
    for label, system in _configurations(model, params, opts):
        omega = linearise(system).omega_max
        run_time = opts["run_time"]
        if size and label == f"cloth {size}x{size}" and opts["cloth_run_time"] is not None:
            run_time = opts["cloth_run_time"]
        rows += stability_table([(label, system)], methods, run_time=run_time,
                                min_steps=opts["min_steps"], points=opts["points"],
                                refine=opts["refine"], rate=opts["rate"],
                                periods=opts["periods"],
                                dt_range=(low * 2.0 / omega, high * 2.0 / omega))
    table = [asdict(row) for row in rows]
    write_rows(table, out_dir / "stability.csv")
    for row in table:  # JSON writes inf and NaN as null: the states tell them apart
        row["dt_measured_state"] = limit_state(row["dt_measured"], measured=True)
        row["dt_theory_state"] = limit_state(row["dt_theory"], measured=False)
    decades = math.log10(high / low)
    resolution = 10.0 ** (decades / (opts["points"] - 1) / 2 ** opts["refine"]) - 1.0
    claims = set(CLAIM_METHODS) <= set(methods)
    verdicts = [v.as_dict() for v in stability_verdicts(rows)] if claims else []
    return {"table": table, "resolution": resolution, "verdicts": verdicts,
            "verdicts_note": "" if claims else
            f"verdicts need the methods {', '.join(CLAIM_METHODS)}",
            "rate_threshold": opts["rate"],
            "max_steps": math.ceil(RATE_EFOLDS / opts["rate"]),
            "agreement": {kind: sum(row.agreement == kind for row in rows)
                          for kind in ("agree", "nonlinear", "saturated", "missed_growth")}}


#: What a stability limit of the table means, by its value (JSON has no inf or NaN).
LIMIT_STATES = {
    "measured": "a finite step: the largest stable step found (theory: computed)",
    "stable_at_every_dt_tried": "measured stable up to the sweep's largest step (inf)",
    "unconditionally_stable": "theory: stable at every step (inf)",
    "unstable_at_every_dt_tried": "unstable already at the sweep's smallest step (0)",
    "unstable_at_every_dt": "theory: unstable at every step (0)",
    "not_measured": "no value: no run decided it, or no linear theory for the method (NaN)",
}


def limit_state(value: float, measured: bool) -> str:
    """The :data:`LIMIT_STATES` key of a measured or theory ``dt_max`` (s)."""
    if math.isnan(value):
        return "not_measured"
    if math.isinf(value):
        return "stable_at_every_dt_tried" if measured else "unconditionally_stable"
    if value <= 0.0:
        return "unstable_at_every_dt_tried" if measured else "unstable_at_every_dt"
    return "measured"


def cloth_cost_task(model: Model, params: Mapping[str, Any], opts: Mapping[str, Any],
                    out_dir: Path) -> dict[str, Any]:
    """The integrator article's cost claim on the project's ``cloth_size`` x ``cloth_size``
    cloth: median wall seconds per simulated second of each run (3 runs of ``t_end`` s after a
    warm-up) and the verdicts (:func:`flocklab.models.springs.claims.cloth_cost_verdicts`)."""
    from flocklab.models.springs.claims import cloth_cost_verdicts
    from flocklab.models.springs.structure import cloth

    size = opts["cloth_size"]
    system = cloth(size, size)
    verdicts, data = cloth_cost_verdicts(system, opts["t_end"])
    rows = [{"run": label, **values} for label, values in data.items()]
    write_rows(rows, out_dir / "cloth_cost.csv")
    return {"cloth": f"{size}x{size}", "points": int(system.positions.shape[0]),
            "springs": int(system.springs.shape[0]), "runs": data,
            "verdicts": [v.as_dict() for v in verdicts]}


def accuracy_task(model: Model, params: Mapping[str, Any], opts: Mapping[str, Any],
                  out_dir: Path) -> dict[str, Any]:
    """Global error at t = 1 s against dt of every method on the damped single spring
    (:func:`flocklab.models.springs.accuracy.convergence_study`) and the fitted orders."""
    from flocklab.models.springs.accuracy import convergence_study

    methods = opts["methods"] or list(STUDY_METHODS)
    study = convergence_study(methods, opts["steps"], opts["zeta"])
    rows = [{"method": method, "dt": dt, "global_error": error}
            for method, data in study.items()
            for dt, error in zip(data["dt"], data["error"], strict=True)]
    write_rows(rows, out_dir / "accuracy.csv")
    return {"problem": "single damped spring, omega = 10 rad/s, u0 = 0.1 m, t_end = 1 s",
            "zeta": opts["zeta"], "methods": study,
            "orders": {method: data["order"] for method, data in study.items()}}
