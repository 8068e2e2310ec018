r"""Tasks of the force-based swarm: the closed-form checks, and the sub-leader study.

* ``closed_forms`` — the measured errors of the closed forms
  (:mod:`flocklab.models.forces.closed_forms`): the logistic speed law of an isolated agent,
  the equilibrium distance of two damped agents (both potentials), momentum and energy with
  alpha = beta = 0, the order of the integrator (with and without steering terms), and the
  cell-list against the all-pairs forces (2-D, 3-D, open, periodic); its figure is the
  error of the integrator against the step.
* ``hierarchy`` — turn time of the group against the number of sub-leaders and the
  prediction step, and the verdicts of the A/R paper's claim
  (:mod:`flocklab.models.forces.hierarchy`); its figure is the turn time against the number
  of sub-leaders, one line per prediction step.

Kernels are imported inside :meth:`run`, so declaring the tasks costs no numba.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from flocklab.core.io import write_rows
from flocklab.core.parameters import ParameterError, ParameterSpec
from flocklab.core.tasks import Task, list_option

if TYPE_CHECKING:  # pragma: no cover
    from flocklab.core.model import Model


class ClosedForms(Task):
    """Measured errors of the model's closed forms."""

    name = "closed_forms"
    description = ("logistic speed law, equilibrium distance, momentum and energy, integrator "
                   "order, cell list against all pairs: the measured errors")
    options = (list_option("steps", [0.04, 0.02, 0.01], "time steps of the order measurement",
                           {"type": "number", "exclusiveMinimum": 0}, "1"),)
    figure = ("Global error at t = 2 of the Strang-split integrator (20 agents, positions and "
              "velocities, against a 64 times smaller step) against the step, with and "
              "without the steering terms; dotted: slope 2. The non-inertial form is the "
              "papers' discrete map (the step is part of the model) and has no order.")

    def run(self, model: Model, params: Mapping[str, Any], options: Mapping[str, Any],
            out_dir: Path) -> dict[str, Any]:
        from flocklab.models.forces import closed_forms as cf

        steps = tuple(options["steps"])
        orders = {"potential and self-propulsion": cf.integrator_order({}, steps),
                  "with alignment, leaders and sub-leaders": cf.integrator_order(
                      {"w_alignment": 0.8, "leaders": 3, "subleaders": 3}, steps)}
        cells = [{"dim": dim, "box": box, **cf.cell_list_difference(dim=dim, box=box)}
                 for dim in (2, 3) for box in (0.0, 12.0)]
        rows = [{"case": case, "dt": dt, "error": err} for case, result in orders.items()
                for dt, err in zip(result["steps"], result["errors"], strict=True)]
        write_rows(rows, Path(out_dir) / "order.csv")
        write_rows(cells, Path(out_dir) / "cell_list.csv")
        return {"logistic_speed": cf.logistic_speed(),
                "equilibrium_distance": {pot: cf.equilibrium_distance(pot)
                                         for pot in ("morse", "generic")},
                "momentum_balance": cf.momentum_balance(),
                "integrator_order": orders, "cell_list": cells}

    def draw(self, fig: Any, document: Mapping[str, Any], options: Mapping[str, Any]
             ) -> None:
        import numpy as np

        from flocklab.figures import style

        ax = fig.add_subplot()
        for marker, (case, result) in zip("os", document["result"]["integrator_order"].items(),
                                          strict=False):
            ax.loglog(result["steps"], result["errors"], marker=marker,
                      label=f"{case} (order {result['order']:.2f})")
        steps = np.array(next(iter(document["result"]["integrator_order"].values()))["steps"])
        first = next(iter(document["result"]["integrator_order"].values()))["errors"][0]
        ax.loglog(steps, first * (steps / steps[0]) ** 2, ":", color="0.5", label="slope 2")
        ax.set_xlabel(r"time step $\Delta t$")
        ax.set_ylabel("global error at $t = 2$")
        style.legend(fig, ax)


class Hierarchy(Task):
    """Turn time against sub-leaders and prediction step, with the claim's verdicts."""

    name = "hierarchy"
    tests_claims = True
    description = ("time for the group to turn to a new goal against the number of "
                   "sub-leaders and the prediction step; verdicts of the A/R paper's claim")
    options = (
        list_option("subleaders", [0, 2, 4, 8, 16], "numbers of sub-leaders",
                    {"type": "integer", "minimum": 0}),
        list_option("prediction_steps", [0.0, 1.0, 3.0], "prediction steps tau",
                    {"type": "number", "minimum": 0}, "1"),
        ParameterSpec("leaders", "int", 3, "leaders (they know the goal)", low=1),
        ParameterSpec("turn_time", "float", 5.0, "time at which the goal turns", "1",
                      low=0.0),
        ParameterSpec("turn_angle", "float", 90.0, "angle the goal turns by", "degree",
                      low=-180.0, high=180.0),
        ParameterSpec("seeds", "int", 10, "runs per grid point (10 resolve a stratified "
                      "prediction-step effect of about 0.05 above chance)", low=2),
        ParameterSpec("seed", "int", 2024, "base seed of the runs", low=0),
        ParameterSpec("dt", "float", 0.05, "time step", "1", low=0.0,
                      low_inclusive=False),
        ParameterSpec("t_max", "float", 40.0, "runs end here at the latest (turn times are "
                      "censored at t_max - turn_time)", "1", low=0.0, low_inclusive=False),
    )
    figure = ("Time for the group to turn to the new goal (cos of the angle between the mean "
              "velocity and the goal >= 0.9) against the number of sub-leaders, one line per "
              "prediction step tau; median and quartiles over the seeds (runs that never "
              "turned are censored at the dotted line; open triangles: median beyond it).")

    def check(self, params: Mapping[str, Any], options: dict[str, Any]) -> None:
        if not options["turn_angle"]:
            raise ParameterError("turn_angle", "option 'turn_angle' must not be 0")
        if max(options["subleaders"]) + options["leaders"] > params["N"]:
            raise ParameterError("subleaders", "option 'subleaders': leaders plus the largest "
                                               f"number exceed N = {params['N']}")
        if options["t_max"] <= options["turn_time"]:
            raise ParameterError("t_max", "option 't_max' must exceed the option "
                                          f"turn_time = {options['turn_time']}")

    def run(self, model: Model, params: Mapping[str, Any], options: Mapping[str, Any],
            out_dir: Path) -> dict[str, Any]:
        from flocklab.models.forces import hierarchy

        protocol = {name: options[name] for name in ("leaders", "turn_time", "turn_angle")}
        rows = hierarchy.turn_times({**params, **protocol}, options["subleaders"],
                                    options["prediction_steps"], options["seeds"],
                                    options["seed"], options["dt"], options["t_max"])
        table = hierarchy.summary_table(rows)
        write_rows(rows, Path(out_dir) / "turn_times.csv")
        write_rows(table, Path(out_dir) / "turn_time_summary.csv")
        return {"table": table, "verdicts": hierarchy.verdicts(rows),
                "censored_at": options["t_max"] - options["turn_time"]}

    def draw(self, fig: Any, document: Mapping[str, Any], options: Mapping[str, Any]
             ) -> None:
        import numpy as np

        from flocklab.figures import style

        table = document["result"]["table"]
        censored_at = document["result"]["censored_at"]
        ax = fig.add_subplot()
        taus = sorted({row["prediction_step"] for row in table})
        for k, (marker, tau) in enumerate(zip("osD^v<>", taus, strict=False)):
            rows = sorted((row for row in table if row["prediction_step"] == tau),
                          key=lambda row: row["subleaders"])
            count = np.array([row["subleaders"] for row in rows], dtype=float)
            median, low, high = (np.array([row[key] for row in rows], dtype=float) for key in
                                 ("turn_time_median", "turn_time_q25", "turn_time_q75"))
            # the upper quartile beyond the run: the bar reaches the censoring time
            high = np.where(np.isnan(high), censored_at, high)
            line = ax.errorbar(count, median, yerr=[median - low, high - median],
                               marker=marker, capsize=2, label=rf"$\tau$ = {tau:g}")
            beyond = np.isnan(median)
            if beyond.any():
                ax.scatter(count[beyond], np.full(beyond.sum(), censored_at), marker="^",
                           facecolors="none", edgecolors=line.lines[0].get_color(),
                           zorder=3, label="median beyond the run" if k == 0 else None)
        ax.axhline(censored_at, color="0.6", lw=0.8, ls=":")
        ax.set_xscale("symlog", linthresh=1.0)
        ax.set_xlabel("number of sub-leaders")
        ax.set_ylabel("time to turn to the new goal (median, quartiles)")
        style.legend(fig, ax, title="prediction step")


TASKS: tuple[Task, ...] = (ClosedForms(), Hierarchy())
