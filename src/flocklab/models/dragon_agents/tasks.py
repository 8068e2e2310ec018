r"""The dragon_agents model's named computations for the pipeline's ``tasks`` stage.

* ``solvers`` — the article's stiffness warning measured: every integrator at every
  penalty stiffness (:func:`flocklab.models.dragon_agents.solvers.compare_solvers`), CPU time,
  ``solve_ivp`` work and error against a tight-tolerance reference, the growth exponents of
  steps, work and time in :math:`k_\mathrm{pen}`, and verdicts on the article's two
  statements: a larger :math:`k_\mathrm{pen}` forces a smaller explicit step, and an
  implicit method (Radau, BDF) copes better than the explicit RK45.

Options (:data:`OPTIONS`) are checked before any job runs; the document is JSON-ready and
a CSV table ``solvers.csv`` is written beside it;
:func:`flocklab.models.dragon_agents.figures.draw_solvers` draws the figure.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from flocklab.core.parameters import ParameterSpec
from flocklab.core.tasks import Task
from flocklab.models.dragon_agents.solve import IMPLICIT, METHODS

if TYPE_CHECKING:  # pragma: no cover
    from flocklab.core.model import Model

OPTIONS: tuple[ParameterSpec, ...] = (
    ParameterSpec("k_penalty", "json", [1e2, 1e3, 1e4, 1e5, 1e6], "penalty stiffnesses",
                  "N m-1", schema={"type": "array", "minItems": 2, "uniqueItems": True,
                                 "items": {"type": "number", "exclusiveMinimum": 0}}),
    ParameterSpec("methods", "json", list(METHODS), "solve_ivp methods compared",
                  schema={"type": "array", "minItems": 1, "uniqueItems": True,
                          "items": {"enum": list(METHODS)}}),
    ParameterSpec("rtol", "float", 1e-6, "relative tolerance of the compared solves", "1",
                  low=0.0, low_inclusive=False),
    ParameterSpec("atol", "float", 1e-9, "absolute tolerance of the compared solves", "1",
                  low=0.0, low_inclusive=False),
    ParameterSpec("t_end", "float", 2.0, "span of each solve", "s", low=0.0,
                  low_inclusive=False),
    ParameterSpec("records", "int", 51, "records the error is measured at", "1", low=3),
)
#: Timing ratios closer to 1 than this are "inconclusive" (single runs on a shared machine).
TIMING_MARGIN = 1.25


class Solvers(Task):
    """Every integrator at every penalty stiffness: cost, work, error and verdicts."""

    name = "solvers"
    tests_claims = True
    description = ("CPU time, work and error against a tight-tolerance reference of every "
                   "integrator as k_penalty grows, with the article's stiffness verdicts")
    options = OPTIONS
    figure = ("Integrators as the penalty stiffness grows (log-log): CPU time of one solve, "
              "right-hand-side evaluations and the largest position error against a DOP853 "
              "reference at rtol 1e-12, one line per method.")

    def run(self, model: Model, params: Mapping[str, Any], options: Mapping[str, Any],
            out_dir: Path) -> dict[str, Any]:
        """The task on the motion of resolved ``params``; writes ``solvers.csv``."""
        from flocklab.core.io import write_rows
        from flocklab.models.dragon_agents.solvers import (
            REFERENCE,
            compare_solvers,
            growth_exponents,
        )

        rows = compare_solvers(params, options["k_penalty"], options["methods"],
                               options["rtol"], options["atol"], options["t_end"],
                               options["records"])
        write_rows(rows, Path(out_dir) / "solvers.csv")
        exponents = {key: growth_exponents(rows, key) for key in ("steps", "nfev", "cpu_s")}
        return {"problem": f"N = {params['N']}, {options['t_end']:g} s, path "
                           f"{params['path']['kind']}, rtol {options['rtol']:g}, atol "
                           f"{options['atol']:g}; reference {REFERENCE[0]} rtol "
                           f"{REFERENCE[1]:g}, atol {REFERENCE[2]:g}",
                "rows": rows, "exponents": exponents,
                "verdicts": stiffness_verdicts(rows, exponents["steps"])}

    def draw(self, fig: Any, document: Mapping[str, Any], options: Mapping[str, Any]
             ) -> None:
        from flocklab.models.dragon_agents.figures import draw_solvers

        draw_solvers(fig, document)


TASKS: tuple[Task, ...] = (Solvers(),)


def stiffness_verdicts(rows: Sequence[Mapping[str, Any]], step_exponents: Mapping[str, float]
                       ) -> list[dict[str, str]]:
    """The article's two statements decided by the table.

    * Explicit methods: "a larger k_penalty forces a smaller step" holds when the accepted
      steps rise strictly from level to level, fails otherwise.
    * Each implicit method against RK45 at the largest k_penalty: "copes better" holds when
      its CPU time is below RK45's by more than :data:`TIMING_MARGIN`, fails when above by
      more than that, inconclusive in between (single timed runs).
    """
    table = {(row["method"], row["k_penalty"]): row for row in rows}
    levels = sorted({row["k_penalty"] for row in rows})
    methods = list(dict.fromkeys(row["method"] for row in rows))
    verdicts = []
    for method in (m for m in methods if m not in IMPLICIT):
        steps = [table[method, k]["steps"] for k in levels]
        rising = all(b > a for a, b in itertools.pairwise(steps))
        verdicts.append({
            "claim": f"a larger k_penalty forces a smaller explicit step ({method})",
            "verdict": "holds" if rising else "fails",
            "evidence": f"accepted steps {', '.join(map(str, steps))} for k_penalty "
                        f"{levels[0]:g} ... {levels[-1]:g}; steps ~ k_penalty^"
                        f"{step_exponents[method]:.2f}"})
    if "RK45" in methods:
        top = levels[-1]
        explicit = table["RK45", top]
        for method in (m for m in methods if m in IMPLICIT):
            verdicts.append(_copes(table[method, top], explicit, top))
    return verdicts


def _copes(implicit: Mapping[str, Any], explicit: Mapping[str, Any], k_pen: float
           ) -> dict[str, str]:
    ratio = implicit["cpu_s"] / explicit["cpu_s"]
    verdict = ("holds" if ratio < 1 / TIMING_MARGIN else
               "fails" if ratio > TIMING_MARGIN else "inconclusive")
    return {"claim": f"{implicit['method']} copes with the stiffness better than RK45 "
                     f"(k_penalty = {k_pen:g})",
            "verdict": verdict,
            "evidence": f"CPU {implicit['cpu_s']:.3g} s against {explicit['cpu_s']:.3g} s "
                        f"(ratio {ratio:.2f}); steps {implicit['steps']} against "
                        f"{explicit['steps']}; error {implicit['error_m']:.1e} m against "
                        f"{explicit['error_m']:.1e} m"}
