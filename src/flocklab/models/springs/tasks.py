r"""The springs model's named computations for the pipeline's ``tasks`` stage.

Three tasks (:data:`TASKS`), each a pure computation returning a JSON-ready document and
writing a CSV table beside it:

* ``stability`` — for every integrator, the largest stable step measured by a sweep and
  bisection on nonlinear runs against the linear-theory limit (spectral radius of the
  one-step amplification matrix at the static equilibrium ≤ 1), on the structure of the
  task's parameters at each ``mass`` x ``damping_kind`` of the options, plus optionally the
  project's ``cloth_size`` x ``cloth_size`` cloth; then the verdicts of the articles'
  stability claims decided by that table (:func:`flocklab.models.springs.claims.stability_verdicts`).
* ``cloth_cost`` — seed 004's cloth claim: wall time per simulated second of implicit Euler
  (3 iterations, 0.016 s) against explicit and semi-implicit Euler (0.001 s), and verdicts.
* ``accuracy`` — global error at :math:`t_{end}` against ``dt`` on the damped single spring
  with a known solution, and each method's fitted order (slope of :math:`\log e` against
  :math:`\log \Delta t`).

The model class exposes them with three members (see :func:`attach`)::

    tasks = TASKS
    def check_task(self, task, params, options): check_task(self, task, params, options)
    def run_task(self, task, params, options, out_dir):
        return run_task(self, task, params, options, out_dir)

References
----------
E. Hairer, G. Wanner, *Solving Ordinary Differential Equations II*, Springer 1996, ch. IV.2
(stability functions); seeds 002 and 004 for the claims.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

from flocklab.core.io import write_rows
from flocklab.core.parameters import ParameterError

if TYPE_CHECKING:  # pragma: no cover
    from flocklab.core.model import Model

TASKS: dict[str, str] = {
    "stability": "measured (bisection on runs) and linear-theory dt_max of every integrator, "
                 "and the verdicts of the articles' stability claims",
    "cloth_cost": "cost per simulated second: implicit Euler (3 iterations, 0.016 s) vs "
                  "explicit and semi-implicit Euler (0.001 s) on the cloth, with verdicts",
    "accuracy": "global error against dt on the damped single spring and each method's "
                "fitted order",
}

#: Methods the stability claims need (without them the verdicts are left out).
CLAIM_METHODS = ("explicit_euler", "semi_implicit_euler", "article_verlet", "rk4",
                 "implicit_euler", "implicit_euler_diagonal")
_DEFAULT_STEPS = (0.01, 0.005, 0.0025, 0.00125)


def _study_methods() -> tuple[str, ...]:
    from flocklab.models.springs.claims import STUDY_METHODS

    return STUDY_METHODS


# Option name -> (default, checker returning the cleaned value or raising ParameterError).
def _positive_number(name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not \
            (math.isfinite(value) and value > 0):
        raise ParameterError(name, f"option '{name}' = {value!r} must be a number > 0")
    return float(value)


def _count(low: int) -> Callable[[str, Any], int]:
    def check(name: str, value: Any) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or value < low:
            raise ParameterError(name, f"option '{name}' = {value!r} must be an integer "
                                       f">= {low}")
        return int(value)
    return check


def _list_of(check_item: Callable[[str, Any], Any]) -> Callable[[str, Any], list]:
    def check(name: str, value: Any) -> list:
        if not isinstance(value, list | tuple) or not value:
            raise ParameterError(name, f"option '{name}' must be a non-empty list")
        return [check_item(name, item) for item in value]
    return check


def _one_of(allowed: Callable[[], Sequence[str]]) -> Callable[[str, Any], str]:
    def check(name: str, value: Any) -> str:
        if value not in allowed():
            raise ParameterError(name, f"option '{name}' = {value!r} is not one of "
                                       f"{', '.join(allowed())}")
        return str(value)
    return check


def _integrators() -> Sequence[str]:
    from flocklab.models.springs.integrators import INTEGRATORS

    return tuple(INTEGRATORS)


OPTIONS: dict[str, dict[str, tuple[Any, Callable[[str, Any], Any]]]] = {
    "stability": {
        "masses": (None, _list_of(_positive_number)),
        "damping_kinds": (None, _list_of(_one_of(lambda: ("spring", "absolute")))),
        "methods": (None, _list_of(_one_of(_integrators))),
        "cloth_size": (0, _count(0)),
        "run_time": (5.0, _positive_number),
        "cloth_run_time": (None, _positive_number),
        "min_steps": (1000, _count(1)),
        "points": (13, _count(3)),
        "refine": (7, _count(0)),
        "span": ([0.01, 100.0], _list_of(_positive_number)),
    },
    "cloth_cost": {
        "cloth_size": (10, _count(2)),
        "t_end": (2.0, _positive_number),
    },
    "accuracy": {
        "methods": (None, _list_of(_one_of(_integrators))),
        "steps": (list(_DEFAULT_STEPS), _list_of(_positive_number)),
        "zeta": (0.1, _positive_number),
    },
}


def resolve_options(task: str, options: Mapping[str, Any]) -> dict[str, Any]:
    """Options of ``task`` with defaults filled and values checked.

    Raises
    ------
    ParameterError
        Naming the task (unknown task) or the option (unknown name, bad value).
    """
    if task not in OPTIONS:
        raise ParameterError("task", f"model 'springs' has no task '{task}'; allowed: "
                                     f"{', '.join(TASKS)}")
    specs = OPTIONS[task]
    unknown = sorted(set(options) - set(specs))
    if unknown:
        raise ParameterError(unknown[0], f"task '{task}' takes no option '{unknown[0]}'; "
                                         f"allowed: {', '.join(specs)}")
    resolved = {}
    for name, (default, check) in specs.items():
        resolved[name] = check(name, options[name]) if name in options else default
    if task == "stability" and not (len(resolved["span"]) == 2
                                    and resolved["span"][0] < resolved["span"][1]):
        raise ParameterError("span", "option 'span' must be [low, high] with low < high "
                                     "(units of 2/omega_max)")
    if task == "accuracy" and options.get("zeta", 0.1) >= 1.0:
        raise ParameterError("zeta", "option 'zeta' must be < 1 (an underdamped spring)")
    return resolved


def check_task(model: Model, task: str, params: Mapping[str, Any],
               options: Mapping[str, Any]) -> None:
    """Validate ``task``'s options before any job runs (raises ParameterError)."""
    resolve_options(task, options)


def run_task(model: Model, task: str, params: Mapping[str, Any], options: Mapping[str, Any],
             out_dir: str) -> dict[str, Any]:
    """Run ``task`` on the structure of ``params``; tables go to ``out_dir``."""
    opts = resolve_options(task, options)
    runner = {"stability": stability_task, "cloth_cost": cloth_cost_task,
              "accuracy": accuracy_task}[task]
    return runner(model, params, opts, Path(out_dir))


def attach(cls: type[Model]) -> type[Model]:
    """Give a model class the three task members (``tasks``, ``check_task``,
    ``run_task``) unless it already declares tasks; returns the class (usable as a
    decorator)."""
    if cls.tasks:
        return cls
    cls.tasks = dict(TASKS)
    cls.check_task = check_task  # type: ignore[method-assign]
    cls.run_task = run_task  # type: ignore[method-assign]
    return cls


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

    A measured limit has relative resolution
    :math:`(\\Delta_{sweep})^{2^{-refine}} - 1` with :math:`\\Delta_{sweep}` the sweep's
    ratio of neighbouring steps; the sweep spans ``span`` x 2/omega_max (a limit below its
    low end is reported as 0: unstable at every step tried). Runs last
    ``max(run_time, min_steps * dt)``; the project's cloth (``cloth_size`` > 0) uses
    ``cloth_run_time`` instead of ``run_time`` when given (its 2/omega_max is 2.3 ms, so a
    quarter second is still > 100 x 2/omega_max and cuts its Newton runs at small steps).
    """
    from flocklab.models.springs.claims import stability_table, stability_verdicts
    from flocklab.models.springs.stability import linearise

    methods = opts["methods"] or list(_study_methods())
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
                                refine=opts["refine"],
                                dt_range=(low * 2.0 / omega, high * 2.0 / omega))
    table = [asdict(row) for row in rows]
    write_rows(table, out_dir / "stability.csv")
    decades = math.log10(high / low)
    resolution = 10.0 ** (decades / (opts["points"] - 1) / 2 ** opts["refine"]) - 1.0
    claims = set(CLAIM_METHODS) <= set(methods)
    verdicts = [asdict(v) for v in stability_verdicts(rows)] if claims else []
    return {"table": table, "resolution": resolution, "verdicts": verdicts,
            "verdicts_note": "" if claims else
            f"verdicts need the methods {', '.join(CLAIM_METHODS)}"}


def cloth_cost_task(model: Model, params: Mapping[str, Any], opts: Mapping[str, Any],
                    out_dir: Path) -> dict[str, Any]:
    """Seed 004's cost claim on the project's ``cloth_size`` x ``cloth_size`` cloth: median
    wall seconds per simulated second of each run (3 runs of ``t_end`` s after a
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
            "verdicts": [asdict(v) for v in verdicts]}


def accuracy_task(model: Model, params: Mapping[str, Any], opts: Mapping[str, Any],
                  out_dir: Path) -> dict[str, Any]:
    """Global error at t = 1 s against dt of every method on the damped single spring
    (:func:`flocklab.models.springs.accuracy.convergence_study`) and the fitted orders."""
    from flocklab.models.springs.accuracy import convergence_study

    methods = opts["methods"] or list(_study_methods())
    study = convergence_study(methods, opts["steps"], opts["zeta"])
    rows = [{"method": method, "dt": dt, "global_error": error}
            for method, data in study.items()
            for dt, error in zip(data["dt"], data["error"], strict=True)]
    write_rows(rows, out_dir / "accuracy.csv")
    return {"problem": "single damped spring, omega = 10 rad/s, u0 = 0.1 m, t_end = 1 s",
            "zeta": opts["zeta"], "methods": study,
            "orders": {method: data["order"] for method, data in study.items()}}
