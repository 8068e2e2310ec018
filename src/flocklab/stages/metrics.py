"""Stages *metrics* (per run) and *summarize* (per study).

Per-run file ``results/<study>/metrics/<point>/rep<k>.nc`` — scalar variables:

=========================  =====  =======================================================
variable                   units  meaning
=========================  =====  =======================================================
order_parameter_mean       1      <v_a> after burn-in
order_parameter_sem        1      its standard error, sqrt(tau_int var / n)
order_parameter_tau        step   integrated autocorrelation time of v_a
order_parameter_m2         1      <v_a^2>
order_parameter_m4         1      <v_a^4>
susceptibility             1      chi = N (<v_a^2> - <v_a>^2)
susceptibility_err         1      block-jackknife error of chi
binder_cumulant            1      G = 1 - <v_a^4> / (3 <v_a^2>^2)
binder_cumulant_err        1      block-jackknife error of G
samples                    1      number of post-burn-in samples
time_to_order              step   first step with v_a >= order_threshold, from t = 0
                                  (steps + 1 when never reached: right-censored)
order_parameter_histogram  1      fraction of samples per v_a bin (dimension ``bin``, 50 on [0, 1])
=========================  =====  =======================================================

Study file ``results/<study>/summary.nc``: the same variables on the swept dimensions
plus ``seed`` (replicate index; the run seeds are in ``rng_seed``), and the
replicate-averaged ``replicate_order_parameter``, ``replicate_susceptibility``,
``replicate_binder_cumulant`` with ``*_err`` (see :func:`flocklab.metrics.replicate_average`).
A paired axis carries all its parameters as coordinates on one dimension; derived
quantities (e.g. ``density``) are coordinates on the dimensions they vary along.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import xarray as xr

from flocklab.io import open_dataset, write_netcdf
from flocklab.metrics import (
    ORDER_THRESHOLD,
    RUN_VARIABLES,
    first_passage_time,
    replicate_average,
    series_statistics,
)
from flocklab.models import get_model
from flocklab.provenance import netcdf_attrs, provenance_attrs

#: Bins of the v_a histogram on [0, 1] (for bimodality near the transition).
HISTOGRAM_BINS = 50


def _bin_centres() -> np.ndarray:
    return (np.arange(HISTOGRAM_BINS) + 0.5) / HISTOGRAM_BINS


def run_metrics(run_path: str | os.PathLike, burn_in: int, out: str | os.PathLike,
                order_threshold: float = ORDER_THRESHOLD) -> None:
    """Compute the per-run statistics after ``burn_in`` steps and write them.

    ``time_to_order`` is the first passage of v_a to ``order_threshold`` over the whole run.
    """
    run = open_dataset(run_path)
    whole = run["order_parameter"].values
    series = whole[burn_in + 1:]
    if series.size < 2:
        raise ValueError(f"{run_path}: burn_in = {burn_in} leaves {series.size} samples; "
                         f"need at least 2")
    stats = series_statistics(series, int(run.attrs["N"])).as_dict()
    stats["time_to_order"] = first_passage_time(whole, order_threshold)
    data = {name: ((), stats[key], {"units": units, "long_name": long_name})
            for name, (key, units, long_name) in RUN_VARIABLES.items()}
    counts, _ = np.histogram(series, bins=HISTOGRAM_BINS, range=(0.0, 1.0))
    data["order_parameter_histogram"] = ("bin", counts / series.size, {
        "units": "1", "long_name": "fraction of post-burn-in samples of v_a in each bin"})
    ds = xr.Dataset(data, coords={"bin": ("bin", _bin_centres(), {
        "long_name": "centre of the v_a bin", "units": "1"})})
    ds.attrs = dict(run.attrs)
    ds.attrs.update(netcdf_attrs({"burn_in": burn_in, "order_threshold": order_threshold,
                                  **provenance_attrs()}))
    write_netcdf(ds, out)


def _coordinate(name: str, values: Sequence[Any], dim: str, units: str = "") -> xr.Variable:
    attrs = {"long_name": name}
    if units:
        attrs["units"] = units
    return xr.Variable(dim, np.asarray(values), attrs)


def summarize(metric_paths: Sequence[str | os.PathLike], study: Mapping[str, Any],
              out: str | os.PathLike) -> None:
    """Combine per-run metrics into the study summary.

    Parameters
    ----------
    metric_paths : sequence of path
        Per-run metric files ordered point-major (the Cartesian product of the axes in
        order, last axis fastest), then replicate.
    study : mapping
        ``name``, ``model``, ``axes`` (list of ``{"dim", "coords"}``), ``replicates``,
        ``steps``, ``burn_in``, ``fixed``, ``description`` (see ``Study`` in flocklab.config).
    out : path
        Output netCDF file.
    """
    axes = study["axes"]
    shape = tuple(len(axis["coords"][axis["dim"]]) for axis in axes)
    replicates = int(study["replicates"])
    expected = int(np.prod(shape, dtype=int)) * replicates
    if len(metric_paths) != expected:
        raise ValueError(f"expected {expected} metric files for study {study['name']}, "
                         f"got {len(metric_paths)}")
    dims = [axis["dim"] for axis in axes] + ["seed"]
    full_shape = (*shape, replicates)
    columns: dict[str, np.ndarray] = {name: np.empty(len(metric_paths)) for name in RUN_VARIABLES}
    rng_seed = np.empty(len(metric_paths), dtype=np.int64)
    histograms = np.empty((len(metric_paths), HISTOGRAM_BINS))
    n_particles = np.empty(len(metric_paths))
    derived: dict[str, np.ndarray] = {}
    derived_attrs: dict[str, dict[str, str]] = {}
    first_attrs: dict[str, Any] = {}
    for k, path in enumerate(metric_paths):
        ds = open_dataset(path)
        if k == 0:
            first_attrs = dict(ds.attrs)
            # The model says which derived quantities (e.g. density) its runs carry.
            derived_attrs = {name: attrs for name, (_, attrs) in get_model(study["model"]).derived(
                json.loads(first_attrs["parameters"])).items()}
        for name in RUN_VARIABLES:
            columns[name][k] = float(ds[name])
        rng_seed[k] = int(ds.attrs["seed"])
        histograms[k] = ds["order_parameter_histogram"].values
        n_particles[k] = float(ds.attrs["N"])
        for name in derived_attrs:
            derived.setdefault(name, np.empty(len(metric_paths)))[k] = ds.attrs[name]

    data_vars = {}
    for name, (_, units, long_name) in RUN_VARIABLES.items():
        data_vars[name] = (dims, columns[name].reshape(full_shape),
                           {"units": units, "long_name": long_name})
    data_vars["order_parameter_histogram"] = (
        [*dims, "bin"], histograms.reshape((*full_shape, HISTOGRAM_BINS)),
        {"units": "1", "long_name": "fraction of post-burn-in samples of v_a in each bin"})
    data_vars["rng_seed"] = (dims, rng_seed.reshape(full_shape),
                             {"long_name": "seed of the run's random stream"})
    grid_particles = n_particles.reshape(full_shape)[..., 0]
    averaged = replicate_average(
        columns["order_parameter_mean"].reshape(full_shape),
        columns["order_parameter_m2"].reshape(full_shape),
        columns["order_parameter_m4"].reshape(full_shape),
        columns["order_parameter_sem"].reshape(full_shape),
        columns["susceptibility_err"].reshape(full_shape),
        columns["binder_cumulant_err"].reshape(full_shape),
        grid_particles,
    )
    for name, values in averaged.items():
        base = name.removesuffix("_err")
        long_name = f"{base.replace('_', ' ')} averaged over replicates"
        if name.endswith("_err"):
            long_name = f"error of {long_name} (jackknife over seeds; run error if one seed)"
        data_vars[f"replicate_{name}"] = (dims[:-1], values, {"units": "1",
                                                              "long_name": long_name})

    coords: dict[str, Any] = {"seed": _coordinate("replicate index", range(replicates), "seed"),
                              "bin": _coordinate("centre of the v_a bin", _bin_centres(), "bin")}
    for axis in axes:
        for name, values in axis["coords"].items():
            coords[name] = _coordinate(name, values, axis["dim"])
    for name, values in derived.items():
        grid = values.reshape(full_shape)[..., 0]
        varying = [axis_number for axis_number in range(len(shape))
                   if not np.allclose(grid, np.take(grid, [0], axis=axis_number))]
        reduced = grid[tuple(slice(None) if a in varying else 0 for a in range(len(shape)))]
        coords[name] = ([dims[a] for a in varying], reduced, derived_attrs[name])

    summary = xr.Dataset(data_vars, coords=coords)
    summary.attrs = netcdf_attrs({
        "title": f"summary of study {study['name']}",
        "study": study["name"],
        "model": study["model"],
        "description": study.get("description", ""),
        "fixed_parameters": study.get("fixed", {}),
        "swept_parameters": [name for axis in axes for name in axis["coords"]],
        "axes": json.dumps(axes),
        "replicates": replicates,
        "steps": study["steps"],
        "burn_in": study["burn_in"],
        "base_parameters": json.loads(first_attrs.get("parameters", "{}")),
        **provenance_attrs(),
    })
    write_netcdf(summary, out)
