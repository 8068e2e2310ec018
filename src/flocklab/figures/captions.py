"""Report captions of figures (reStructuredText), from the figure spec and its study.

Kept apart from :mod:`flocklab.stages.figures` so that the Snakefile, which needs the captions
at parse time, does not import matplotlib (every cluster job parses the Snakefile).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from flocklab.config import Study
from flocklab.core.registry import get_model

ANALYSIS_CAPTIONS = {
    "critical_loglog": "ln P (P the model's primary observable) against the log reduced "
                       "distance from the fitted critical value; filled points entered the "
                       "weighted power-law fit, lines are the fits, legend: exponent with its "
                       "68 % bootstrap interval over seeds (results/<study>/critical.json).",
    "collapse": "Finite-size data collapse P L^(beta/nu) against (x - x_c) L^(1/nu) at "
                "the parameters minimising the Houdayer-Hartmann quality S.",
    "fss_critical": "x_c(L) from the susceptibility maximum (68 % bootstrap bars) and the "
                    "Binder-cumulant crossings of consecutive sizes, against L^(-1/nu), with "
                    "the extrapolation x_c(L) = x_c(inf) + a L^(-1/nu).",
    "distribution": "Distribution of P (pooled over seeds) at the control value nearest each "
                    "size's susceptibility maximum; two peaks would signal a discontinuous "
                    "transition.",
    "oat": "One factor at a time around the baseline: each output against each factor "
           "(grey dots: single runs; markers: replicate means with standard errors). Under "
           "the panels, each claim of the study with its verdict (trend: Spearman rank "
           "correlation, p < 0.05; bound: mean ± 2 s.e. inside the bound); numbers in "
           "results/<study>/sensitivity.json.",
    "morris": "Morris screening: sigma against mu* (mean absolute elementary effect per full "
              "factor range) with mu*'s bootstrap interval; above the dashed line sigma = mu* "
              "effects are mostly non-linear or interacting.",
    "sobol": "First-order (S1) and total (ST) Sobol' indices from a Saltelli design, with "
             "bootstrap confidence intervals; ST - S1 is the share of the output variance "
             "due to interactions.",
    "sensitivity_convergence": "The indices recomputed from the first N base samples "
                               "(Sobol) or trajectories (Morris): curves that have levelled "
                               "off within their bands show the sample size suffices.",
}


def _values_text(values: Mapping[str, Any]) -> str:
    return ", ".join(f"{name} = {value}" for name, value in values.items())


def _sweeps_text(study: Study) -> str:
    """``Swept: k ∈ {...} paired with ...; ...`` of a grid study."""
    sweeps = "; ".join(
        " paired with ".join(f"{k} ∈ {{{', '.join(map(str, v))}}}" for k, v in
                             axis.coords.items()) for axis in study.axes)
    return f"Swept: {sweeps}."


def caption(name: str, spec: Mapping[str, Any], study: Study) -> str:
    """Report caption (reStructuredText): what is drawn, parameters, replicates and steps."""
    fixed = study.params(next(study.points()))
    for swept in [*study.swept, *(next(study.points()).values if study.sensitivity else [])]:
        fixed.pop(swept, None)
    lines = [f"**{spec.get('title') or name}** — {study.description or study.name}", ""]
    if spec["kind"] == "curve":
        y = spec["y"].replace("_", " ")
        lines.append(f"Replicate-averaged {y} against {spec['x']}"
                     + (f", one line per {spec['hue']}" if spec.get("hue") else "")
                     + f". Error bars: jackknife over the {study.replicates} seeds per point "
                     "(with one seed, the run's autocorrelation-corrected standard error).")
        lines.append(_sweeps_text(study))
    elif spec["kind"] == "heatmap":
        lines.append(f"{spec['z'].replace('_', ' ')} averaged over the {study.replicates} "
                     f"seed(s) per point, as colour{' (log scale)' if spec.get('logz') else ''}"
                     f" over {spec['x']} (horizontal) and {spec['y']} (vertical): one cell per "
                     "point, centred on its swept values, with the value printed in it. "
                     f"Hatched cells ({spec.get('mark_missing', 'no value')}): no finite value.")
        lines.append(_sweeps_text(study))
    elif spec["kind"] == "series":
        runs = "; ".join(f"{run.get('label', '')} {_values_text(run['point'])}".strip()
                         for run in spec["runs"])
        against = (f"{spec['x']} (markers coloured by time)" if spec.get("x") else "time")
        lines.append(f"{', '.join(spec['y'])} against {against} for the runs {runs}.")
    elif spec["kind"] in ANALYSIS_CAPTIONS:
        lines.append(ANALYSIS_CAPTIONS[spec["kind"]])
        if study.sensitivity is not None:
            design = study.design
            ranges = "; ".join(
                f"{f.name} ∈ {{{', '.join(f'{v:g}' for v in f.values)}}}" if f.values else
                f"{f.name} ∈ [{f.low:g}, {f.high:g}]" + (f" (truncated normal, mean "
                                                         f"{f.mean:g}, sd {f.sd:g})"
                                                         if f.dist == "truncnorm" else "")
                for f in design.factors)
            lines.append(f"Method {design.method}: {design.values.shape[0]} design rows, "
                         f"{len(list(study.points()))} distinct points. Factors: {ranges}.")
    else:
        panels = spec.get("panels") or [spec]
        shown = "; ".join(f"{panel.get('label', '')} {_values_text(panel['point'])}, "
                          f"{panel.get('frame', 'all')} frame".strip() for panel in panels)
        lines.append(f"Snapshots of the {study.model} model ({shown}), drawn by the model: "
                     f"{drawing_summary(get_model(study.model))} "
                     f"Trails: up to {spec.get('trail', 0)} preceding frames.")
    lines.append(f"Fixed parameters: {_values_text(fixed)}.")
    model = get_model(study.model)
    lines.append(f"Model {study.model} ({model.reference}); {study.replicates} replicate(s) "
                 f"per point, {study.time_text()}, records up to t = {study.burn_in:g} "
                 f"{model.time_units} discarded as burn-in; base seed {study.base_seed}.")
    return "\n".join(lines)


def task_caption(name: str, spec: Mapping[str, Any], entry: Mapping[str, Any]) -> str:
    """Report caption (reStructuredText) of a ``task`` figure: what the model draws, the task
    it reads (``entry``, its config entry) with its parameters and options."""
    model = get_model(entry["model"])
    lines = [f"**{spec.get('title') or name}** — {entry.get('description') or spec['task']}",
             "", f"{model.task(entry['task']).figure}",
             f"Task '{spec['task']}' ({entry['task']}: "
             f"{model.task(entry['task']).description}) of the "
             f"{model.name} model ({model.reference}); numbers in "
             f"results/tasks/{spec['task']}/result.json."]
    if entry.get("params"):
        lines.append(f"Parameters: {_values_text(entry['params'])}.")
    if entry.get("options"):
        lines.append(f"Task options: {_values_text(entry['options'])}.")
    if spec.get("options"):
        lines.append(f"Figure options: {_values_text(spec['options'])}.")
    return "\n".join(lines)


def drawing_summary(model: Any) -> str:
    """First line of the docstring of the model's drawing (what a snapshot shows)."""
    from flocklab.figures.drawing import drawing_of

    doc = type(drawing_of(model)).__doc__ or ""
    return doc.strip().split("\n")[0].strip()
