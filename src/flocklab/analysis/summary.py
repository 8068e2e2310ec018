r"""A study's summary (pure functions): run datasets in, summary dataset out.

Per-run statistics of every run (:func:`run_statistics`, from the model's declarations)
and their replicate averages, on the study's grid (:func:`summary_dataset`); the stage
:func:`flocklab.stages.metrics.summarize` reads the run files and writes the result to
``results/<study>/summary.nc``:

==============================  =========================================================
variable                        meaning
==============================  =========================================================
<P>_mean, <P>_sem, <P>_tau      mean of the primary observable P after burn-in, its
                                autocorrelation-corrected standard error, the integrated
                                autocorrelation time (records)
<P>_m2, <P>_m4                  moments <P^2>, <P^4>
susceptibility(_err)            chi = N (<P^2> - <P>^2), N the model's size parameter
                                (absent where the model declares none); block jackknife
samples                         post-burn-in records
binder_cumulant(_err) [*]       G = 1 - <P^4> / (3 <P^2>^2); block jackknife
time_to_order [*]               first record time with P >= order_threshold (t_end + one
                                record interval: never reached)
<P>_histogram [*]               fraction of post-burn-in records per bin (dimension
                                ``bin``, 50 on the observable's range [0, 1])
<O>_mean, <O>_sem               every other declared observable O
<metric>                        every metric the model adds (``run_metrics``)
replicate_<P>, _err             mean over replicates (error: jackknife over seeds)
replicate_susceptibility, ...   chi and G from pooled moments, jackknife errors
replicate_<X>, _err             every other per-run quantity: mean over replicates and
                                standard error across them (the run's own sem, or NaN,
                                with one replicate)
rng_seed                        seed of each run
==============================  =========================================================

[*] The order-parameter statistics: only for a model whose primary observable is an order
parameter (``Model.primary_is_order_parameter``); a spring's tip distance or a survival
fraction has no Binder cumulant or time to order.

Dimensions: the swept dimensions (a paired axis carries all its parameters as coordinates
on one dimension) or, for a sensitivity study, ``point`` (design labels); then
``replicate`` (index), with the run seeds in ``rng_seed``. Derived quantities (e.g.
``density``) are coordinates on the dimensions they vary along. Runs are matched to their
grid cell by the ``point`` and ``replicate`` attributes each run carries, never by the
order of the inputs.

The statistics themselves (moments, autocorrelation time, jackknife errors, replicate
averages) are in :mod:`flocklab.analysis.timeseries`.

References
----------
A. D. Sokal, "Monte Carlo methods in statistical mechanics: foundations and new
algorithms", in *Functional Integration*, Springer (1997), §3.
K. Binder, Z. Phys. B 43, 119 (1981).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import xarray as xr

from flocklab.analysis.rounded import SHORT_SAMPLES
from flocklab.analysis.timeseries import (
    DRIFT_Z,
    ORDER_THRESHOLD,
    burn_in_drift,
    first_passage_time,
    primary_variables,
    replicate_average,
    run_variables,
    series_statistics,
)
from flocklab.core.model import Model
from flocklab.core.provenance import netcdf_attrs
from flocklab.core.registry import get_model

#: Bins of the primary observable's histogram on its declared range.
HISTOGRAM_BINS = 50


def bin_centres(low: float, high: float) -> np.ndarray:
    """Centres of the :data:`HISTOGRAM_BINS` equal bins of ``[low, high]``,
    :math:`c_j = low + (j + 1/2)(high - low)/B`, shape (B,), units of the observable."""
    return low + (np.arange(HISTOGRAM_BINS) + 0.5) * (high - low) / HISTOGRAM_BINS


def run_size(run: xr.Dataset, model: Model) -> float:
    """The run's value of the model's size parameter N (NaN where it declares none)."""
    return float(run.attrs[model.size_parameter]) if model.size_parameter else np.nan


def run_statistics(run: xr.Dataset, model: Model, burn_in: float,
                   order_threshold: float = ORDER_THRESHOLD
                   ) -> tuple[dict[str, float], np.ndarray | None]:
    r"""Per-run metrics of one run and the primary observable's histogram.

    For the post-burn-in records of the primary observable P:
    :func:`flocklab.analysis.timeseries.series_statistics` (mean, autocorrelation-corrected
    standard error, moments, :math:`\chi = N(\langle P^2\rangle - \langle P\rangle^2)`
    with a size parameter); where P is an order parameter (the model's
    ``primary_is_order_parameter``) also
    :math:`G = 1 - \langle P^4\rangle / (3\langle P^2\rangle^2)`, the first-passage time to
    ``order_threshold`` over the whole run and the histogram; mean and standard error of
    every other observable; the model's own metrics.

    Parameters
    ----------
    run : xarray.Dataset
        A run file's contents (``time`` in model units, one variable per observable).
    model : Model
        Its model.
    burn_in : float
        Records at times ``<= burn_in`` are discarded (model time units).
    order_threshold : float
        Level of the primary observable whose first-passage time is ``time_to_order``.

    Returns
    -------
    values : dict of str to float
        Every variable of :func:`flocklab.analysis.timeseries.run_variables`.
    histogram : ndarray, shape (HISTOGRAM_BINS,), or None
        Fraction of post-burn-in records per bin of P's declared range (None where P is
        no order parameter).

    Raises
    ------
    ValueError
        Fewer than two records after ``burn_in``.

    References
    ----------
    A. D. Sokal, in *Functional Integration*, Springer (1997), §3.
    """
    primary = model.observable(model.primary_observable)
    times = run["time"].values
    keep = times > burn_in
    if keep.sum() < 2:
        label = run.attrs.get("point")
        which = f"run {label}" if label else "the run"
        raise ValueError(f"burn_in = {burn_in} leaves {int(keep.sum())} records of {which} "
                         f"(its last time is {times[-1]}); need at least 2")
    whole = run[primary.name].values
    statistics = series_statistics(whole[keep], run_size(run, model))
    stats = statistics.as_dict()
    stats["independent"] = statistics.samples / statistics.tau
    stats["drift"] = burn_in_drift(whole[keep])
    if model.primary_is_order_parameter:
        stats["time_to_order"] = first_passage_time(whole, times, order_threshold)
    table = primary_variables(primary.name, primary.symbol, model.time_units,
                              model.size_parameter is not None,
                              model.primary_is_order_parameter)
    values = {name: float(stats[key]) for name, (key, _, _) in table.items()}
    for obs in model.observables:
        if obs.name != primary.name:
            other = series_statistics(run[obs.name].values[keep], np.nan)
            values[f"{obs.name}_mean"] = other.mean
            values[f"{obs.name}_sem"] = other.sem
    params = model.run_parameters(run)  # the run's parameters, parsed and prepared once
    values.update({name: float(value) for name, value
                   in model.metrics(run, params, burn_in).items()})
    histogram = None
    if model.primary_is_order_parameter:
        counts, _ = np.histogram(whole[keep], bins=HISTOGRAM_BINS,
                                 range=(primary.low, primary.high))
        histogram = counts / keep.sum()
    return values, histogram


def run_metrics_dataset(run: xr.Dataset, burn_in: float,
                        order_threshold: float = ORDER_THRESHOLD) -> xr.Dataset:
    """:func:`run_statistics` of one run as a dataset of scalars (and the histogram on
    ``bin``), with the run's attributes plus ``burn_in`` and ``order_threshold``; the model
    is the one the run names."""
    model = get_model(str(run.attrs["model"]))
    values, histogram = run_statistics(run, model, burn_in, order_threshold)
    data = {name: ((), values[name], {"units": units, "long_name": long_name})
            for name, (units, long_name) in run_variables(model).items()}
    ds = xr.Dataset(data)
    primary = model.observable(model.primary_observable)
    if histogram is not None:
        ds[f"{primary.name}_histogram"] = ("bin", histogram, {
            "units": "1", "long_name": "fraction of post-burn-in records in each bin"})
        ds.coords["bin"] = ("bin", bin_centres(primary.low, primary.high))
    ds.attrs = dict(run.attrs)
    ds.attrs.update(netcdf_attrs({"burn_in": burn_in, "order_threshold": order_threshold}))
    return ds


def cell_index(labels: Sequence[str], replicates: int, runs: Sequence[xr.Dataset],
               names: Sequence[Any]) -> list[int]:
    """Flat (point, replicate) cell of every run, from its ``point``/``replicate`` attrs.

    Parameters
    ----------
    labels : sequence of str
        Point labels in grid order.
    replicates : int
    runs : sequence of xarray.Dataset
        In any order.
    names : sequence
        What to call each run in an error (its file).

    Returns
    -------
    list of int
        ``point index * replicates + replicate`` of each run.

    Raises
    ------
    ValueError
        A run of another study, or not exactly one run per point and replicate.
    """
    position = {label: k for k, label in enumerate(labels)}
    cells = []
    for run, name in zip(runs, names, strict=True):
        label, replicate = str(run.attrs.get("point")), int(run.attrs.get("replicate", -1))
        if label not in position or not 0 <= replicate < replicates:
            raise ValueError(f"{name}: point '{label}', replicate {replicate} is not a run "
                             f"of this study")
        cells.append(position[label] * replicates + replicate)
    if len(set(cells)) != len(cells) or len(cells) != len(labels) * replicates:
        raise ValueError(f"expected one run per point and replicate ({len(labels)} x "
                         f"{replicates}), got {len(cells)} files for "
                         f"{len(set(cells))} cells")
    return cells


def replicate_variables(model: Model, columns: Mapping[str, np.ndarray],
                        size: np.ndarray, dims: list[str], deterministic: bool = False
                        ) -> dict[str, Any]:
    r"""Replicate averages: pooled moments for the primary, mean and spread for the rest.

    The primary observable's mean, χ and G from pooled moments with jackknife errors over
    seeds (:func:`flocklab.analysis.timeseries.replicate_average`); every other per-run
    quantity :math:`X`: :math:`\bar X = \frac1k\sum_r X_r` with error :math:`s/\sqrt k`
    (the run's own ``_sem``, or NaN, with one replicate).

    Parameters
    ----------
    model : Model
    columns : mapping of str to ndarray, shape grid + (k,)
        Per-run variables on the grid with the replicate axis last.
    size : ndarray, shape grid + (k,)
        The size parameter N of each run (NaN without one).
    dims : list of str
        The grid's dimensions.
    deterministic : bool
        Whether no run depends on its seed: the run checks (independent samples, drift after
        burn-in, :func:`run_checks`) are statistics of a stationary random series and are
        left out.

    Returns
    -------
    dict
        ``replicate_<name>`` → ``(dims, values, attrs)``.
    """
    p = model.primary_observable
    averaged = replicate_average(columns[f"{p}_mean"], columns[f"{p}_m2"], columns[f"{p}_m4"],
                                 columns[f"{p}_sem"], columns.get("susceptibility_err"),
                                 columns.get("binder_cumulant_err"), size[..., 0],
                                 observable=p)
    out = {}
    for name, values in averaged.items():
        long_name = f"{name.removesuffix('_err').replace('_', ' ')} averaged over replicates"
        if name.endswith("_err"):
            long_name = f"error of {long_name} (jackknife over seeds; run error if one seed)"
        out[f"replicate_{name}"] = (dims, values, {"units": "1", "long_name": long_name})
    out.update(_mean_and_spread(columns, p, size.shape[-1], dims))
    if not deterministic:
        out.update(run_checks(columns, p, dims))
    return out


def run_checks(columns: Mapping[str, np.ndarray], p: str, dims: list[str]) -> dict[str, Any]:
    r"""Per point: the runs' median independent samples, how many runs hold fewer than
    :data:`~flocklab.analysis.rounded.SHORT_SAMPLES` (50) of them, and how many fail the
    burn-in check :math:`|z| > 3` (:func:`flocklab.analysis.timeseries.burn_in_drift`)."""
    independent, drift = columns[f"{p}_independent"], columns[f"{p}_drift"]
    return {
        f"replicate_{p}_independent": (dims, np.median(independent, axis=-1), {
            "long_name": f"median over replicates of the independent samples of {p}"}),
        "short_runs": (dims, np.sum(independent < SHORT_SAMPLES, axis=-1).astype(np.int16), {
            "long_name": f"runs with fewer than {SHORT_SAMPLES} independent samples "
                         f"(n / tau_int) after burn-in"}),
        "drifting_runs": (dims, np.sum(np.abs(drift) > DRIFT_Z, axis=-1).astype(np.int16), {
            "long_name": f"runs whose first and last thirds after burn-in differ by more "
                         f"than {DRIFT_Z:g} standard errors (burn-in too short)"}),
    }


#: The per-point flags of :func:`run_checks` (counts of runs).
RUN_FLAGS = ("short_runs", "drifting_runs")


def flagged_points(summary: xr.Dataset) -> xr.DataArray | None:
    """True at the points where a run is short of independent samples or fails the burn-in
    check (any of :data:`RUN_FLAGS` > 0); None for a summary without these flags."""
    present = [summary[name] > 0 for name in RUN_FLAGS if name in summary]
    if not present:
        return None
    flagged = present[0]
    for other in present[1:]:
        flagged = flagged | other
    return flagged


def _mean_and_spread(columns: Mapping[str, np.ndarray], p: str, k: int, dims: list[str]
                     ) -> dict[str, Any]:
    """Mean over replicates and its standard error of every per-run quantity but P's own."""
    out = {}
    for name, values in columns.items():
        if name.startswith(f"{p}_") or name.startswith(("susceptibility", "binder_cumulant")) \
                or name.endswith("_sem") or name == "samples":
            continue
        mean = values.mean(axis=-1)
        if k > 1:
            error = values.std(axis=-1, ddof=1) / np.sqrt(k)
        else:
            sem = columns.get(name.removesuffix("_mean") + "_sem")
            error = sem[..., 0] if sem is not None else np.full_like(mean, np.nan)
        out[f"replicate_{name}"] = (dims, mean, {"long_name": f"{name} averaged over "
                                                               f"replicates"})
        out[f"replicate_{name}_err"] = (dims, error, {"long_name": f"standard error of "
                                                                   f"replicate_{name}"})
    return out


def study_grid(study: Mapping[str, Any]) -> tuple[list[str], tuple[int, ...], dict[str, Any]]:
    """Dimensions, shape and coordinates of the study's points (without replicate).

    ``study["design"]``: one dimension ``point`` of the design labels; otherwise one
    dimension per axis of ``study["axes"]``, carrying all the axis's coordinates.
    """
    if study.get("design"):
        labels = study["labels"]
        return ["point"], (len(labels),), {"point": ("point", np.asarray(labels, dtype=str),
                                                     {"long_name": "design point label"})}
    dims = [axis["dim"] for axis in study["axes"]]
    shape = tuple(len(next(iter(axis["coords"].values()))) for axis in study["axes"])
    coords = {name: (axis["dim"], np.asarray(values), {"long_name": name})
              for axis in study["axes"] for name, values in axis["coords"].items()}
    return dims, shape, coords


def derived_coordinates(model: Model, runs: Sequence[xr.Dataset], cells: Sequence[int],
                        dims: list[str], shape: tuple[int, ...], replicates: int
                        ) -> dict[str, Any]:
    """Each derived quantity of the model (e.g. ``density``) from the runs' attributes, as a
    coordinate on the grid dimensions it varies along (first replicate's value). A derived
    factor swept as a dimension keeps its nominal values there, and the parameter it sets
    (N for the Vicsek density) becomes a coordinate instead."""
    coords: dict[str, Any] = {}
    swept_factors = [factor for factor in model.derived_factors if factor.name in dims]
    names = [(quantity.name, quantity.attrs()) for quantity in model.derived_quantities
             if quantity.name not in dims]
    for factor in swept_factors:
        spec = model.spec(factor.target)
        names.append((factor.target, {"long_name": spec.description, "units": spec.unit}))
    for name, attrs in names:
        flat = np.empty(len(cells))
        for run, cell in zip(runs, cells, strict=True):
            flat[cell] = _derived_value(model, run, name)
        grid = flat.reshape((*shape, replicates))[..., 0]
        varying = [a for a in range(len(shape))
                   if not np.allclose(grid, np.take(grid, [0], axis=a), equal_nan=True)]
        reduced = grid[tuple(slice(None) if a in varying else 0 for a in range(len(shape)))]
        coords[name] = ([dims[a] for a in varying], reduced, attrs)
    return coords


def _derived_value(model: Model, run: xr.Dataset, name: str) -> float:
    """A derived quantity of a run: its attribute, or (for a run file written before the
    model declared it) computed from the run's recorded parameters."""
    if name in run.attrs:
        return float(run.attrs[name])
    params = model.resolve(json.loads(run.attrs["parameters"]))
    return float(model.derived_value(params, name))


def _run_columns(model: Model, runs: Sequence[xr.Dataset], cells: Sequence[int],
                 study: Mapping[str, Any]) -> tuple[dict, np.ndarray, np.ndarray, Any]:
    """Per-run variables, seeds, sizes and histograms, each indexed by flat cell."""
    table = run_variables(model)
    columns = {name: np.full(len(cells), np.nan) for name in table}
    seeds = np.empty(len(cells), dtype=np.int64)
    sizes = np.full(len(cells), np.nan)
    histograms = (np.zeros((len(cells), HISTOGRAM_BINS)) if model.primary_is_order_parameter
                  else None)
    for run, cell in zip(runs, cells, strict=True):
        values, histogram = run_statistics(run, model, study["burn_in"],
                                           study["order_threshold"])
        for name in table:
            columns[name][cell] = values[name]
        seeds[cell] = int(run.attrs["seed"])
        sizes[cell] = run_size(run, model)
        if histograms is not None:
            histograms[cell] = histogram
    return columns, seeds, sizes, histograms


def summary_dataset(runs: Sequence[xr.Dataset], study: Mapping[str, Any],
                    names: Sequence[Any] | None = None) -> xr.Dataset:
    """Per-run statistics of every run of a study and their replicate averages.

    Parameters
    ----------
    runs : sequence of xarray.Dataset
        The study's runs, in any order (matched by their attributes).
    study : mapping
        ``name``, ``model``, ``labels`` (point labels in grid order), ``axes`` (list of
        ``{"dim", "coords"}``; empty for a design), ``design`` (bool), ``replicates``,
        ``burn_in``, ``order_threshold``, ``fixed``, ``description``, ``time`` (the run
        controls), as made by the workflow's ``study_record``.
    names : sequence, optional
        What to call each run in an error (default: its position).

    Returns
    -------
    xarray.Dataset
        See the module docstring (no provenance attributes: the stage adds them).
    """
    model = get_model(study["model"])
    replicates = int(study["replicates"])
    cells = cell_index(study["labels"], replicates, runs,
                       names if names is not None else [f"run {k}" for k in range(len(runs))])
    dims, shape, coords = study_grid(study)
    full = (*shape, replicates)
    columns, seeds, sizes, histograms = _run_columns(model, runs, cells, study)
    all_dims = [*dims, "replicate"]
    grid_columns = {name: values.reshape(full) for name, values in columns.items()}
    data = {name: (all_dims, grid_columns[name], {"units": units, "long_name": long_name})
            for name, (units, long_name) in run_variables(model).items()}
    primary = model.observable(model.primary_observable)
    if histograms is not None:
        data[f"{primary.name}_histogram"] = (
            [*all_dims, "bin"], histograms.reshape((*full, HISTOGRAM_BINS)),
            {"units": "1", "long_name": f"fraction of post-burn-in records of {primary.name} "
                                        f"in each bin"})
        coords["bin"] = ("bin", bin_centres(primary.low, primary.high),
                         {"long_name": f"centre of the {primary.name} bin",
                          "units": primary.units})
    data["rng_seed"] = (all_dims, seeds.reshape(full), {"long_name": "seed of the run's "
                                                                      "random stream"})
    deterministic = not any(model.uses_seed(json.loads(run.attrs.get("parameters", "{}")))
                            for run in runs)
    data.update(replicate_variables(model, grid_columns, sizes.reshape(full), dims,
                                    deterministic))
    coords["replicate"] = ("replicate", np.arange(replicates), {"long_name": "replicate index"})
    coords.update(derived_coordinates(model, runs, cells, dims, shape, replicates))
    summary = xr.Dataset(data, coords=coords)
    summary.attrs = _summary_attrs(study, model, runs[0])
    return summary


def _summary_attrs(study: Mapping[str, Any], model: Model, first: xr.Dataset
                   ) -> dict[str, Any]:
    return netcdf_attrs({
        "title": f"summary of study {study['name']}",
        "study": study["name"],
        "model": study["model"],
        "primary_observable": model.primary_observable,
        "size_parameter": model.size_parameter or "none",
        "time_units": model.time_units,
        "description": study.get("description", ""),
        "fixed_parameters": study.get("fixed", {}),
        "swept_parameters": [name for axis in study["axes"] for name in axis["coords"]],
        "axes": json.dumps(study["axes"]),
        "replicates": int(study["replicates"]),
        "time": study.get("time", {}),
        "burn_in": study["burn_in"],
        "order_threshold": study["order_threshold"],
        "base_parameters": json.loads(first.attrs.get("parameters", "{}")),
    })
