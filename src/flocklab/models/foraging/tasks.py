r"""The foraging model's tasks: does grouping help foraging; the energy budget's closed forms.

``grouping`` runs the same ``replicates`` seeds twice — ``social: false`` (every agent
forages alone: no swarm, follow, cohesion or alignment; separation kept) and
``social: true`` — with every other parameter as given. The food layout and the start
depend only on the seed, not on ``social``, so the runs are *paired*: seed k gives the same
patches and the same schools in both conditions. Per seed it records survival, the
restricted mean lifetime and time to food. Two claims are tested on the paired differences
:math:`\Delta_k = y_k^{grouped} - y_k^{solitary}` with two-sided Wilcoxon signed-rank tests
(:func:`flocklab.analysis.verdicts.paired_difference`): "grouping helps foraging" on survival
(the contest papers' claim) and "larger shoals find food faster" on the restricted mean time
to food (Pitcher, Magurran and Winfield 1982): **holds** when the grouped do better with
:math:`p < \alpha`, **fails** when they do worse with :math:`p < \alpha`, **inconclusive**
otherwise.

``budget`` runs lone agents in an empty arena: without food at several speeds (death time
against :math:`E_0/(k v + b)`) and on uniform fields that are not depleted (energy against
:math:`\min(E_{max}, E_0 + (\gamma F - \mu) t)`), the pipeline's copy of the closed-form
tests. Declaring the tasks imports no numba; the runs import it.

References
----------
F. Wilcoxon, "Individual comparisons by ranking methods", Biometrics Bulletin 1, 80 (1945).
T. J. Pitcher, A. E. Magurran and I. J. Winfield, "Fish in larger shoals find food
faster", Behav. Ecol. Sociobiol. 10, 149 (1982).
C. W. Clark and M. Mangel, "The evolutionary advantages of group foraging", Theor. Popul.
Biol. 30, 45 (1986) (shared information against shared food).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from flocklab.core.parameters import ParameterError, ParameterSpec
from flocklab.core.tasks import Task, list_option

#: Items of a list of positive numbers.
_POSITIVE = {"type": "number", "exclusiveMinimum": 0}

if TYPE_CHECKING:  # pragma: no cover
    from flocklab.analysis.verdicts import Verdict
    from flocklab.core.model import Model

CONDITIONS = ("solitary", "grouped")


def paired_verdict(claim: str, grouped: Sequence[float], solitary: Sequence[float],
                   name: str = "survival", better: str = "higher", alpha: float = 0.05
                   ) -> Verdict:
    """Are the grouped better than the solitary on the same seeds?

    :func:`flocklab.analysis.verdicts.paired_difference` on the differences
    grouped - solitary, oriented by ``better`` (survival: higher; time to food: lower).
    """
    from flocklab.analysis.verdicts import paired_difference

    diff = np.asarray(grouped, float) - np.asarray(solitary, float)
    gain = diff if better == "higher" else -diff
    word = "gain" if better == "higher" else "shortening"
    return paired_difference(claim, gain, f"{name} {word} grouped - solitary", alpha)


#: The claims the task tests: (text, outcome, better).
CLAIMS = (("grouping helps foraging: grouped foragers survive more than solitary ones on the "
           "same food", "survival", "higher"),
          ("larger shoals find food faster: grouped foragers first stand on food sooner "
           "(restricted mean time to food)", "food_time", "lower"))


class Grouping(Task):
    """Solitary against grouped foraging on the same seeds, with a paired test."""

    name = "grouping"
    tests_claims = True
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
    outcome = {name: {c: [row[name] for row in rows if row["condition"] == c]
                      for c in CONDITIONS} for _, name, _ in CLAIMS}
    verdicts = [{**paired_verdict(text, outcome[name]["grouped"], outcome[name]["solitary"],
                                  name, better, options["alpha"]).as_dict(), "output": name}
                for text, name, better in CLAIMS]
    summary = {c: {name: float(np.mean([row[name] for row in rows if row["condition"] == c]))
                   for name in ("survival", "lifetime", "food_time", "found_food", "eaten")}
               for c in CONDITIONS}
    return {"verdicts": verdicts, "verdict": verdicts[0]["verdict"], "means": summary,
            "survival": outcome["survival"], "food_time": outcome["food_time"],
            "seeds": [options["seed"] + k for k in range(options["replicates"])],
            "time": time.tolist(), "alive_fraction": series}


class Budget(Task):
    """The energy budget against its closed forms, as the pipeline's check."""

    name = "budget"
    description = ("closed-form checks of the energy budget: death time E0/(k v + b) of an "
                   "isolated agent without food at several speeds, and the energy "
                   "E0 + (gamma F - mu) t up to E_max on uniform fields")
    options = (
        list_option("speeds", [0.25, 0.5, 1.0, 2.0, 4.0],
                    "cruising speeds of the starving agent", _POSITIVE, "s-1"),
        list_option("densities", [0.2, 0.4, 0.8, 1.6],
                    "uniform food densities (not depleted)", _POSITIVE, "1"),
        ParameterSpec("dt", "float", 0.2, "time step", "s", low=0.0, low_inclusive=False),
        ParameterSpec("t_end", "float", 100.0, "length of the feeding runs", "s", low=0.0,
                      low_inclusive=False),
    )
    figure = ("The energy budget against its closed forms. Left: time of death of an isolated "
              "agent without food against its speed (points: simulation; line: "
              "E0/(k v + b)). Right: energy on uniform fields that are not depleted (solid: "
              "simulation; dashed: min(E_max, E0 + (gamma F - k v - b) t)).")

    def run(self, model: Model, params: Mapping[str, Any], options: Mapping[str, Any],
            out_dir: Path) -> dict[str, Any]:
        return budget_task(model, params, options, Path(out_dir))

    def draw(self, fig: Any, document: Mapping[str, Any], options: Mapping[str, Any]
             ) -> None:
        from flocklab.models.foraging.figures import budget_figure

        budget_figure(fig, document["result"], document["parameters"])


def _lone(model: Model, params: Mapping[str, Any], **changes: Any) -> dict[str, Any]:
    """One agent in an empty arena (no patches, obstacles or predators) with ``changes``."""
    return model.resolve({**params, "N": 1, "patches": 0, "food": [], "obstacles": [],
                          "predators": [], "food_background": 0.0, **changes})


def budget_task(model: Model, params: Mapping[str, Any], options: Mapping[str, Any],
                out_dir: Path) -> dict[str, Any]:
    """Death times against E0/(k v + b), energy paths against the line; ``budget.csv``."""
    from flocklab.core.driver import run as run_model
    from flocklab.core.io import write_rows
    from flocklab.core.time import RunControl

    dt, rows = options["dt"], []
    for speed in options["speeds"]:
        lone = _lone(model, params, speed=speed, flee_speed=max(speed, params["flee_speed"]))
        expected = lone["E0"] / (lone["k_metabolic"] * speed + lone["b_metabolic"])
        control = RunControl(seed=1, t_end=dt * (math.floor(expected / dt) + 2), dt=dt,
                             record_every=dt)
        death = float(run_model(model, lone, control).to_xarray()["death_time"].values[0])
        rows.append({"check": "death time", "value": speed, "measured": death,
                     "closed_form": expected, "error": death - expected})
    paths = {}
    for density in options["densities"]:
        lone = _lone(model, params, food_background=density, depletion=False)
        mu = lone["k_metabolic"] * lone["speed"] + lone["b_metabolic"]
        control = RunControl(seed=1, t_end=options["t_end"], dt=dt, record_every=dt)
        run = run_model(model, lone, control).to_xarray()
        time = run["time"].values
        energy = run["energy_mean"].values * lone["E_max"]
        line = np.minimum(lone["E_max"], lone["E0"] + (lone["feeding_rate"] * density - mu) * time)
        alive = np.isfinite(energy)
        rows.append({"check": "energy on a uniform field", "value": density,
                     "measured": float(energy[alive][-1]), "closed_form": float(line[alive][-1]),
                     "error": float(np.max(np.abs(energy[alive] - line[alive])))})
        paths[f"{density:g}"] = {"time": time[alive].tolist(), "energy": energy[alive].tolist()}
    out_dir.mkdir(parents=True, exist_ok=True)
    write_rows(rows, out_dir / "budget.csv")
    return {"rows": rows, "paths": paths,
            "largest_error": float(max(abs(row["error"]) for row in rows))}


TASKS: tuple[Task, ...] = (Grouping(), Budget())
