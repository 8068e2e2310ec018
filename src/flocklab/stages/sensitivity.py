"""Stages *sample* and *analyse_sensitivity* of a sensitivity study.

``sample`` → ``results/<study>/design.nc``:

================  ===================  =======================================================
variable          dimensions           meaning
================  ===================  =======================================================
value             row, parameter       factor value of each design row (model evaluation)
point             row                  label of the run directory of the row's parameter point
<model param>     row                  the model parameter a factor sets (e.g. N for density)
oat_parameter     row                  oat: index of the factor varied in the row (-1 otherwise)
oat_level         row                  oat: its level index (-1 otherwise)
level_value       parameter, level     oat: the levels of each factor (NaN-padded)
low, high         parameter            range of each factor (morris, sobol)
mean, sd          parameter            truncated-normal location and scale (NaN if uniform)
dist              parameter            sampling distribution (uniform or truncnorm)
================  ===================  =======================================================

``analyse_sensitivity`` → ``results/<study>/sensitivity.nc`` (and a JSON digest):

=======================  =================================  =================================
variable                 dimensions                         meaning
=======================  =================================  =================================
S1, S1_conf, ST, ST_conf output, parameter                  sobol: indices, interval half-widths
mu, mu_star, sigma       output, parameter                  morris: elementary-effect statistics
mu_star_conf             output, parameter                  morris: half-width of mu_star's CI
<index>_convergence      output, sample_size, parameter     the index from the first designs
swing                    output, parameter                  oat: max - min of the level means
response_mean, _sem      output, parameter, level           oat: mean output and standard error
response                 output, parameter, level, replicate  oat: every run's output
level_value              parameter, level                   oat: factor value of each level
row_mean                 output, row                        replicate mean at every design row
claim_*                  claim                              oat: text, verdict and evidence
=======================  =================================  =================================

Attributes: method, settings (JSON), design and bootstrap seeds, study, model, fixed
parameters, version and commit; ``notes`` (JSON) says where an index is undefined.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import xarray as xr

from flocklab.analysis.sensitivity import (
    METHODS,
    Design,
    Factor,
    Indices,
    Verdict,
    bound_verdict,
    oat_response,
    trend_verdict,
)
from flocklab.config import design_points, sensitivity_design
from flocklab.core.io import open_dataset, write_json, write_netcdf
from flocklab.core.provenance import netcdf_attrs, provenance_attrs
from flocklab.core.registry import get_model

INDEX_LONG_NAMES = {
    "S1": "first-order Sobol' index",
    "S1_conf": "half-width of the confidence interval of S1",
    "ST": "total-order Sobol' index",
    "ST_conf": "half-width of the confidence interval of ST",
    "mu": "mean elementary effect (per full factor range)",
    "mu_star": "mean absolute elementary effect mu* (per full factor range)",
    "mu_star_conf": "half-width of the bootstrap confidence interval of mu*",
    "sigma": "standard deviation of the elementary effects",
    "swing": "max - min over the factor's levels of the mean output (one at a time)",
}


# --------------------------------------------------------------------------- design


def design_dataset(model_name: str, design: Design, labels: Sequence[str],
                   targets: Mapping[str, Sequence[Any]]) -> xr.Dataset:
    """The design as a dataset (no attributes beyond long names and units).

    Parameters
    ----------
    model_name : str
        Model whose parameter specs give units.
    design : Design
        The design.
    labels : sequence of str, length rows
        Point label of every row.
    targets : mapping of str to sequence, each of length rows
        Model-parameter values set by the factors at every row.
    """
    model = get_model(model_name)
    factors = design.factors
    levels = max((len(f.values) for f in factors), default=0)
    level_value = np.full((len(factors), max(levels, 1)), np.nan)
    for i, factor in enumerate(factors):
        level_value[i, :len(factor.values)] = factor.values
    data = {
        "value": (("row", "parameter"), design.values, {"long_name": "factor value"}),
        "point": ("row", np.asarray(labels, dtype=str),
                  {"long_name": "parameter-point label (run directory)"}),
        "oat_parameter": ("row", design.oat_factor,
                          {"long_name": "index of the factor varied (oat; -1 otherwise)"}),
        "oat_level": ("row", design.oat_level,
                      {"long_name": "level index of the varied factor (oat; -1 otherwise)"}),
        "level_value": (("parameter", "level"), level_value,
                        {"long_name": "factor value of each oat level"}),
        "low": ("parameter", [f.low for f in factors], {"long_name": "lower end of the range"}),
        "high": ("parameter", [f.high for f in factors], {"long_name": "upper end of the range"}),
        "mean": ("parameter", [f.mean for f in factors], {"long_name": "truncnorm mean"}),
        "sd": ("parameter", [f.sd for f in factors], {"long_name": "truncnorm sd"}),
        "dist": ("parameter", np.asarray([f.dist for f in factors], dtype=str),
                 {"long_name": "sampling distribution"}),
    }
    for name, values in targets.items():
        spec = model.spec(name)
        data[name] = ("row", np.asarray(values),
                      {"long_name": f"model parameter {name}: {spec.description}",
                       "units": spec.unit})
    coords = {"parameter": ("parameter", design.names, {"long_name": "input factor"}),
              "row": ("row", np.arange(design.values.shape[0]), {"long_name": "design row"}),
              "level": ("level", np.arange(level_value.shape[1]),
                        {"long_name": "oat level index"})}
    return xr.Dataset(data, coords=coords)


def read_design(ds: xr.Dataset) -> Design:
    """Inverse of :func:`design_dataset` (the design's arrays and factors)."""
    factors = []
    for i, name in enumerate(ds["parameter"].values.tolist()):
        levels = ds["level_value"].values[i]
        factors.append(Factor(str(name), float(ds["low"][i]), float(ds["high"][i]),
                              str(ds["dist"].values[i]), float(ds["mean"][i]),
                              float(ds["sd"][i]),
                              tuple(float(v) for v in levels[np.isfinite(levels)])))
    return Design(ds.attrs["method"], tuple(factors), ds["value"].values.astype(np.float64),
                  ds["oat_parameter"].values.astype(np.int64),
                  ds["oat_level"].values.astype(np.int64))


def write_design(record: Mapping[str, Any], out: str | os.PathLike) -> None:
    """Generate a study's design (as the config validation did) and write it.

    ``record``: ``name``, ``model``, ``fixed``, ``sensitivity`` (``method``, ``factors``,
    ``samples``, ``levels`` of the section: what the design depends on), ``seed``
    (:func:`flocklab.config.design_seed`).
    """
    design = sensitivity_design(record["model"], record["fixed"], record["sensitivity"],
                                record["seed"], f"studies.{record['name']}.sensitivity")
    points = design_points(record["model"], record["fixed"], design,
                           f"studies.{record['name']}.sensitivity.factors")
    targets = {name: [point.values[name] for point in points] for name in points[0].values}
    ds = design_dataset(record["model"], design, [point.label for point in points], targets)
    ds.attrs = netcdf_attrs({
        "title": f"sensitivity design of study {record['name']}",
        "study": record["name"], "model": record["model"], "method": design.method,
        "fixed_parameters": record["fixed"], "settings": record["sensitivity"],
        "seed": record["seed"], "rows": int(design.values.shape[0]),
        "distinct_points": len({point.label for point in points}),
        **provenance_attrs(),
    })
    write_netcdf(ds, out)


# --------------------------------------------------------------------------- analysis


def run_outputs(summary: xr.Dataset, labels: Sequence[str], outputs: Sequence[str]
                ) -> np.ndarray:
    """Per-run outputs at every design row, shape (outputs, rows, replicates).

    ``summary`` is the study's ``summary.nc`` (dimensions ``point`` and ``replicate``);
    rows are matched to its points by label.
    """
    known = summary["point"].values.astype(str).tolist()
    missing = sorted(set(labels) - set(known))
    if missing:
        raise ValueError(f"no runs for design point(s) {missing[:3]} ({len(missing)} "
                         f"missing)")
    for output in outputs:
        if output not in summary:
            raise ValueError(f"output '{output}' is not in the summary; per-run metrics: "
                             f"{', '.join(name for name in summary.data_vars)}")
    rows = [known.index(label) for label in labels]
    runs = np.stack([summary[o].transpose("point", "replicate").values[rows]
                     for o in outputs])
    if not np.all(np.isfinite(runs)):
        raise ValueError("a design point has a non-finite output")
    return runs


def evaluate_claims(claims: Sequence[Mapping[str, Any]], design: Design, outputs: Sequence[str],
                    runs: np.ndarray) -> list[Verdict]:
    """Test each claim of an ``oat`` study against its runs (see
    :mod:`flocklab.analysis.sensitivity`)."""
    verdicts = []
    names = design.names
    for claim in claims:
        factor = names.index(claim["parameter"])
        rows = np.flatnonzero(design.oat_factor == factor)
        levels = np.asarray(design.factors[factor].values)[design.oat_level[rows]]
        values = runs[outputs.index(claim["output"])][rows]
        if "trend" in claim:
            verdict, evidence = trend_verdict(levels, values, claim["trend"])
            evidence = f"{claim['output']} along {claim['parameter']}: {evidence}"
        else:
            at = int(np.argmin(np.abs(levels - claim["at"])))
            verdict, evidence = bound_verdict(values[at], claim.get("below"),
                                              claim.get("above"))
            wanted = " and ".join(f"{sign} {claim[side]}" for side, sign in
                                  (("above", ">"), ("below", "<")) if side in claim)
            evidence = (f"{claim['output']} at {claim['parameter']} = {levels[at]:g}: "
                        f"{evidence}; claimed {wanted}")
        verdicts.append(Verdict(claim["claim"], verdict, evidence))
    return verdicts


def _index_variables(results: Mapping[str, Indices], outputs: Sequence[str],
                     index_names: Sequence[str]) -> dict[str, Any]:
    data = {}
    for name in index_names:
        data[name] = (("output", "parameter"), np.stack([results[o].values[name]
                                                         for o in outputs]),
                      {"long_name": INDEX_LONG_NAMES[name], "units": "1"})
        if results[outputs[0]].convergence:
            data[f"{name}_convergence"] = (
                ("output", "sample_size", "parameter"),
                np.stack([results[o].convergence[name] for o in outputs]),
                {"long_name": f"{INDEX_LONG_NAMES[name]}, from the first sample_size "
                              f"base samples or trajectories", "units": "1"})
    return data


def analyse_sensitivity(design_path: str | os.PathLike, summary_path: str | os.PathLike,
                        settings: Mapping[str, Any], replicates: int
                        ) -> tuple[xr.Dataset, dict[str, Any]]:
    """Indices of every output from a design and the per-run metrics of its runs.

    Parameters
    ----------
    design_path : path
        The study's ``design.nc``.
    summary_path : path
        The study's ``summary.nc`` (per-run metrics on ``point`` and ``replicate``).
    settings : mapping
        ``outputs``, ``resamples``, ``confidence``, ``levels``, ``claims`` of the
        study's ``sensitivity`` section.
    replicates : int
        Replicates per point.

    Returns
    -------
    dataset : xarray.Dataset
        See the module docstring.
    document : dict
        JSON digest: per output and factor the indices; claims with verdicts.
    """
    design_ds = open_dataset(design_path)
    design = read_design(design_ds)
    outputs = list(settings["outputs"])
    labels = design_ds["point"].values.astype(str).tolist()
    summary = open_dataset(summary_path)
    runs = run_outputs(summary, labels, outputs)
    row_mean = runs.mean(axis=2)
    method = METHODS[design.method]
    seed = int(design_ds.attrs["seed"]) + 1
    coords: dict[str, Any] = {
        "output": ("output", outputs, {"long_name": "model output explained"}),
        "parameter": ("parameter", design.names, {"long_name": "input factor"}),
        "row": ("row", np.arange(len(labels)), {"long_name": "design row"}),
    }
    data: dict[str, Any] = {
        "row_mean": (("output", "row"), row_mean,
                     {"long_name": "output averaged over replicates at each design row"}),
    }
    document: dict[str, Any] = {"method": design.method, "outputs": {}, "rows": len(labels),
                                "distinct_points": len(set(labels)), "replicates": replicates}
    notes: dict[str, str] = {}
    if design.method == "oat":
        results = _oat_analysis(design, design_ds, runs, outputs, settings, replicates,
                                coords, data, document)
    else:
        results = _sampling_analysis(design, row_mean, outputs, settings, seed, coords,
                                     document, notes)
    data.update(_index_variables(results, outputs, method.indices))
    ds = xr.Dataset(data, coords=coords)
    ds["output"].attrs["units"] = json.dumps({o: summary[o].attrs.get("units", "1")
                                              for o in outputs})
    ds.attrs = netcdf_attrs({
        "title": f"sensitivity analysis ({design.method}) of study "
                 f"{design_ds.attrs['study']}",
        "study": design_ds.attrs["study"], "model": design_ds.attrs["model"],
        "method": design.method, "settings": dict(settings),
        "design": json.loads(design_ds.attrs["settings"]), "design_seed": design_ds.attrs["seed"],
        "bootstrap_seed": seed, "replicates": replicates,
        "fixed_parameters": json.loads(design_ds.attrs["fixed_parameters"]),
        "notes": notes, **provenance_attrs(),
    })
    document["notes"] = notes
    return ds, document


def _oat_analysis(design: Any, design_ds: xr.Dataset, runs: np.ndarray, outputs: list[str],
                  settings: Mapping[str, Any], replicates: int, coords: dict[str, Any],
                  data: dict[str, Any], document: dict[str, Any]) -> dict[str, Any]:
    """One-at-a-time responses, per-run values and claim verdicts (fills ``coords``,
    ``data`` and ``document`` in place); the per-output index results."""
    method = METHODS["oat"]
    d = len(design.factors)
    responses = {o: oat_response(design, runs[k]) for k, o in enumerate(outputs)}
    results = {o: method.analyse(design, runs[k]) for k, o in enumerate(outputs)}
    levels = design_ds["level_value"].values
    per_run = np.full((len(outputs), d, levels.shape[1], replicates), np.nan)
    per_run[:, design.oat_factor, design.oat_level, :] = runs
    coords["level"] = ("level", np.arange(levels.shape[1]), {"long_name": "level index"})
    coords["replicate"] = ("replicate", np.arange(replicates), {"long_name": "replicate index"})
    data["level_value"] = (("parameter", "level"), levels,
                           {"long_name": "factor value of each level"})
    data["response_mean"] = (("output", "parameter", "level"),
                             np.stack([responses[o].mean for o in outputs]),
                             {"long_name": "mean output over replicates"})
    data["response_sem"] = (("output", "parameter", "level"),
                            np.stack([responses[o].sem for o in outputs]),
                            {"long_name": "standard error of the mean output"})
    data["response"] = (("output", "parameter", "level", "replicate"), per_run,
                        {"long_name": "output of every run"})
    verdicts = evaluate_claims(settings.get("claims", []), design, outputs, runs)
    if verdicts:
        coords["claim"] = ("claim", np.arange(len(verdicts)), {"long_name": "claim index"})
        for field in ("claim", "verdict", "evidence"):
            data[f"claim_{field if field != 'claim' else 'text'}"] = (
                "claim", np.asarray([getattr(v, field) for v in verdicts], dtype=str),
                {"long_name": f"claim {field}"})
    document["claims"] = [vars(v) for v in verdicts]
    for output in outputs:
        document["outputs"][output] = {
            factor.name: {"levels": list(factor.values),
                          "mean": _finite(responses[output].mean[i, :len(factor.values)]),
                          "sem": _finite(responses[output].sem[i, :len(factor.values)]),
                          "swing": float(responses[output].swing[i])}
            for i, factor in enumerate(design.factors)}
    return results


def _sampling_analysis(design: Any, row_mean: np.ndarray, outputs: list[str],
                       settings: Mapping[str, Any], seed: int, coords: dict[str, Any],
                       document: dict[str, Any], notes: dict[str, str]) -> dict[str, Any]:
    """Sobol' or Morris indices with their convergence in the sample size (fills
    ``coords``, ``document`` and ``notes`` in place); the per-output index results."""
    method = METHODS[design.method]
    d = len(design.factors)
    options = {"seed": seed, "resamples": settings["resamples"],
               "confidence": settings["confidence"]}
    if design.method == "morris":
        options["levels"] = settings["levels"]
    results = {o: method.analyse(design, row_mean[k], **options) for k, o in enumerate(outputs)}
    sizes = results[outputs[0]].sizes
    per_size = d + 2 if design.method == "sobol" else d + 1
    coords["sample_size"] = ("sample_size", sizes, {
        "long_name": "base samples (sobol) or trajectories (morris) used"})
    coords["evaluations"] = ("sample_size", sizes * per_size,
                             {"long_name": "model evaluations (design rows) used"})
    for output in outputs:
        document["outputs"][output] = {
            factor.name: {name: _finite(results[output].values[name][i])
                          for name in method.indices}
            for i, factor in enumerate(design.factors)}
        if results[output].note:
            notes[output] = results[output].note
    return results


def _finite(values: Any) -> Any:
    array = np.asarray(values, dtype=np.float64)
    if array.ndim == 0:
        return float(array) if math.isfinite(array) else None
    return [float(v) if math.isfinite(v) else None for v in array]


def run_analysis(design_path: str | os.PathLike, summary_path: str | os.PathLike,
                 settings: Mapping[str, Any], replicates: int, out_nc: str | os.PathLike,
                 out_json: str | os.PathLike) -> None:
    """:func:`analyse_sensitivity` and write both outputs."""
    ds, document = analyse_sensitivity(design_path, summary_path, settings, replicates)
    write_json(document, out_json)
    write_netcdf(ds, out_nc)
