r"""The foraging model's task: does grouping help foraging? Solitary against grouped.

``grouping`` runs the same ``replicates`` seeds twice — ``social: false`` (every agent
forages alone: no swarm, follow, cohesion or alignment; separation kept) and
``social: true`` — with every other parameter as given. The food layout and the start
depend only on the seed, not on ``social``, so the runs are *paired*: seed k gives the same
patches and the same schools in both conditions. Per seed it records survival, the
restricted mean lifetime and time to food; the claim "grouping helps foraging" is tested on
the paired survival differences :math:`\Delta_k = s_k^{grouped} - s_k^{solitary}` with the
one-sided Wilcoxon signed-rank test: **holds** when the grouped survive more with
:math:`p < \alpha`, **fails** when the solitary survive more with :math:`p < \alpha`
(the opposite one-sided test), **inconclusive** otherwise. Declaring the task imports no
numba; the runs import it.

References
----------
F. Wilcoxon, "Individual comparisons by ranking methods", Biometrics Bulletin 1, 80 (1945).
T. J. Pitcher, A. E. Magurran and I. J. Winfield, "Fish in larger shoals find food
faster", Behav. Ecol. Sociobiol. 10, 149 (1982).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from flocklab.core.parameters import ParameterError, ParameterSpec
from flocklab.tasks import Task

if TYPE_CHECKING:  # pragma: no cover
    from flocklab.core.model import Model

CONDITIONS = ("solitary", "grouped")


def paired_verdict(grouped: Sequence[float], solitary: Sequence[float], alpha: float
                   ) -> tuple[str, str, float, float]:
    """Wilcoxon signed-rank verdict on paired outcomes (larger is better).

    Returns
    -------
    verdict : {"holds", "fails", "inconclusive"}
    evidence : str
    p_greater, p_less : float
        One-sided p-values for grouped > solitary and grouped < solitary (1 when every
        difference is zero).
    """
    from scipy import stats

    diff = np.asarray(grouped, float) - np.asarray(solitary, float)
    if not np.any(diff):
        return "inconclusive", f"all {diff.size} paired differences are zero", 1.0, 1.0
    p_greater = float(stats.wilcoxon(diff, alternative="greater").pvalue)
    p_less = float(stats.wilcoxon(diff, alternative="less").pvalue)
    evidence = (f"mean survival difference grouped - solitary {diff.mean():+.3f} "
                f"(s.e. {diff.std(ddof=1) / math.sqrt(diff.size) if diff.size > 1 else 0:.3f}, "
                f"{np.sum(diff > 0)} of {diff.size} seeds higher, {np.sum(diff < 0)} lower); "
                f"Wilcoxon signed-rank one-sided p = {p_greater:.2g} (grouped > solitary), "
                f"{p_less:.2g} (grouped < solitary)")
    if p_greater < alpha:
        return "holds", evidence, p_greater, p_less
    if p_less < alpha:
        return "fails", evidence, p_greater, p_less
    return "inconclusive", evidence, p_greater, p_less


class Grouping(Task):
    """Solitary against grouped foraging on the same seeds, with a paired test."""

    name = "grouping"
    description = ("survival of solitary and grouped foragers on the same food layouts and "
                   "starts; the claim 'grouping helps foraging' tested by a paired Wilcoxon "
                   "signed-rank test")
    options = (
        ParameterSpec("replicates", "int", 12, "seeds (each run solitary and grouped)", low=6),
        ParameterSpec("seed", "int", 1, "first seed; seed k is seed + k", low=0),
        ParameterSpec("t_end", "float", 200.0, "length of each run", "s", low=0.0,
                      low_inclusive=False),
        ParameterSpec("dt", "float", 0.2, "time step", "s", low=0.0, low_inclusive=False),
        ParameterSpec("record_every", "float", 2.0, "interval of the recorded series", "s",
                      low=0.0, low_inclusive=False),
        ParameterSpec("alpha", "float", 0.05, "significance level of the verdict", low=0.0,
                      high=0.5, low_inclusive=False),
    )
    figure = ("Solitary (social off) against grouped foragers on the same seeds: left, the "
              "share alive against time (mean over seeds, band: +- one standard error); "
              "right, each seed's final survival in both conditions joined by a line, with "
              "the paired test's verdict.")

    def check(self, params: Mapping[str, Any], options: dict[str, Any]) -> None:
        for key in ("record_every", "dt"):
            if options[key] > options["t_end"]:
                raise ParameterError(key, f"option '{key}' = {options[key]:g} must not exceed "
                                          f"t_end = {options['t_end']:g}")

    def run(self, model: Model, params: Mapping[str, Any], options: Mapping[str, Any],
            out_dir: Path) -> dict[str, Any]:
        return grouping_task(model, params, options, Path(out_dir))

    def draw(self, fig: Any, document: Mapping[str, Any], options: Mapping[str, Any]
             ) -> None:
        from flocklab.models.foraging.figures import grouping_figure

        grouping_figure(fig, document["result"])


def grouping_task(model: Model, params: Mapping[str, Any], options: Mapping[str, Any],
                  out_dir: Path) -> dict[str, Any]:
    """Run both conditions on every seed; the per-seed table ``grouping.csv``, the mean
    series and the verdict."""
    from flocklab.core.driver import run as run_model
    from flocklab.core.io import write_rows
    from flocklab.core.time import RunControl
    from flocklab.models.foraging.metrics import run_metrics

    rows, series = [], {}
    for condition in CONDITIONS:
        varied = model.resolve({**params, "social": condition == "grouped"})
        alive = []
        for k in range(options["replicates"]):
            control = RunControl(seed=options["seed"] + k, t_end=options["t_end"],
                                 dt=options["dt"], record_every=options["record_every"])
            run = run_model(model, varied, control).to_xarray()
            alive.append(run["alive_fraction"].values)
            rows.append({"condition": condition, "seed": options["seed"] + k,
                         **run_metrics(run)})
            time = run["time"].values
        values = np.asarray(alive)
        series[condition] = {"mean": values.mean(axis=0).tolist(),
                             "sem": (values.std(axis=0, ddof=1) / math.sqrt(len(values))
                                     ).tolist()}
    out_dir.mkdir(parents=True, exist_ok=True)
    write_rows(rows, out_dir / "grouping.csv")
    outcome = {c: [row["survival"] for row in rows if row["condition"] == c]
               for c in CONDITIONS}
    verdict, evidence, p_greater, p_less = paired_verdict(outcome["grouped"],
                                                          outcome["solitary"], options["alpha"])
    summary = {c: {name: float(np.mean([row[name] for row in rows if row["condition"] == c]))
                   for name in ("survival", "lifetime", "food_time", "found_food", "eaten")}
               for c in CONDITIONS}
    return {"claim": "grouping helps foraging (grouped foragers survive more than solitary "
                     "ones on the same food)",
            "verdict": verdict, "evidence": evidence, "p_greater": p_greater,
            "p_less": p_less, "means": summary, "survival": outcome,
            "seeds": [options["seed"] + k for k in range(options["replicates"])],
            "time": time.tolist(), "alive_fraction": series}


TASKS: tuple[Task, ...] = (Grouping(),)
