"""Stage *summarize*: every run of a study → ``results/<study>/summary.nc``.

One process per study computes the per-run statistics of all its runs (vectorised over
runs where it matters, no process per run) from the model's declarations:

==============================  =========================================================
variable                        meaning
==============================  =========================================================
<P>_mean, <P>_sem, <P>_tau      mean of the primary observable P after burn-in, its
                                autocorrelation-corrected standard error, the integrated
                                autocorrelation time (records)
<P>_m2, <P>_m4                  moments <P^2>, <P^4>
susceptibility(_err)            chi = N (<P^2> - <P>^2), N the model's size parameter
                                (absent where the model declares none); block jackknife
binder_cumulant(_err)           G = 1 - <P^4> / (3 <P^2>^2); block jackknife
samples                         post-burn-in records
time_to_order                   first record time with P >= order_threshold (t_end + one
                                record interval: never reached)
<P>_histogram                   fraction of post-burn-in records per bin (dimension
                                ``bin``, 50 on the observable's declared range)
<O>_mean, <O>_sem               every other declared observable O
<metric>                        every metric the model adds (``run_metrics``)
replicate_<P>, _err             mean over replicates (error: jackknife over seeds)
replicate_susceptibility, ...   chi and G from pooled moments, jackknife errors
replicate_<X>, _err             every other per-run quantity: mean over replicates and
                                standard error across them (the run's own sem, or NaN,
                                with one replicate)
rng_seed                        seed of each run
==============================  =========================================================

Dimensions: the swept dimensions (a paired axis carries all its parameters as coordinates
on one dimension) or, for a sensitivity study, ``point`` (design labels); then
``replicate`` (index), with the run seeds in ``rng_seed``. Derived quantities (e.g.
``density``) are coordinates on the dimensions they vary along. Runs are matched to their
grid cell by the ``point`` and ``replicate`` attributes each run file carries, never by
the order of the inputs. A ``burn_in`` change reruns this stage only, no simulation.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import xarray as xr

from flocklab.analysis.timeseries import (
    ORDER_THRESHOLD,
    first_passage_time,
    primary_variables,
    replicate_average,
    run_variables,
    series_statistics,
)
from flocklab.core.io import open_dataset, write_netcdf
from flocklab.core.model import Model
from flocklab.core.provenance import netcdf_attrs, provenance_attrs
from flocklab.core.registry import get_model

#: Bins of the primary observable's histogram on its declared range.
HISTOGRAM_BINS = 50


def _bin_centres(low: float, high: float) -> np.ndarray:
    return low + (np.arange(HISTOGRAM_BINS) + 0.5) * (high - low) / HISTOGRAM_BINS


def run_statistics(run: xr.Dataset, model: Model, burn_in: float,
                   order_threshold: float = ORDER_THRESHOLD
                   ) -> tuple[dict[str, float], np.ndarray | None]:
    """Per-run metrics of one run file and the primary observable's histogram.

    Parameters
    ----------
    run : xarray.Dataset
        A run file's contents.
    model : Model
        Its model.
    burn_in : float
        Records at times ``<= burn_in`` are discarded (model time units).
    order_threshold : float
        Level of the primary observable whose first-passage time is ``time_to_order``.
    """
    primary = model.observable(model.primary_observable)
    times = run["time"].values
    keep = times > burn_in
    if keep.sum() < 2:
        raise ValueError(f"burn_in = {burn_in} leaves {int(keep.sum())} records of run "
                         f"{run.attrs.get('point', '')}; need at least 2")
    size = float(run.attrs[model.size_parameter]) if model.size_parameter else np.nan
    whole = run[primary.name].values
    stats = series_statistics(whole[keep], size).as_dict()
    stats["time_to_order"] = first_passage_time(whole, times, order_threshold)
    table = primary_variables(primary.name, primary.symbol, model.time_units,
                              model.size_parameter is not None)
    values = {name: float(stats[key]) for name, (key, _, _) in table.items()}
    for obs in model.observables:
        if obs.name != primary.name:
            series = run[obs.name].values[keep]
            other = series_statistics(series, np.nan)
            values[f"{obs.name}_mean"] = other.mean
            values[f"{obs.name}_sem"] = other.sem
    values.update({name: float(value) for name, value
                   in model.metrics(run, burn_in).items()})
    histogram = None
    if primary.bounded:
        counts, _ = np.histogram(whole[keep], bins=HISTOGRAM_BINS,
                                 range=(primary.low, primary.high))
        histogram = counts / keep.sum()
    return values, histogram


def _cell_index(labels: Sequence[str], replicates: int, runs: Sequence[xr.Dataset],
                paths: Sequence[Any]) -> list[int]:
    """Flat (point, replicate) cell of every run, from its ``point``/``replicate`` attrs."""
    position = {label: k for k, label in enumerate(labels)}
    cells = []
    for run, path in zip(runs, paths, strict=True):
        label, replicate = str(run.attrs.get("point")), int(run.attrs.get("replicate", -1))
        if label not in position or not 0 <= replicate < replicates:
            raise ValueError(f"{path}: point '{label}', replicate {replicate} is not a run "
                             f"of this study")
        cells.append(position[label] * replicates + replicate)
    if len(set(cells)) != len(cells) or len(cells) != len(labels) * replicates:
        raise ValueError(f"expected one run per point and replicate ({len(labels)} x "
                         f"{replicates}), got {len(cells)} files for "
                         f"{len(set(cells))} cells")
    return cells


def _replicate_variables(model: Model, columns: Mapping[str, np.ndarray],
                         size: np.ndarray, dims: list[str]) -> dict[str, Any]:
    """Replicate averages: pooled moments for the primary, mean and spread for the rest."""
    p = model.primary_observable
    averaged = replicate_average(columns[f"{p}_mean"], columns[f"{p}_m2"], columns[f"{p}_m4"],
                                 columns[f"{p}_sem"], columns.get("susceptibility_err",
                                                                  np.full_like(size, np.nan)),
                                 columns["binder_cumulant_err"], size[..., 0], observable=p)
    out = {}
    for name, values in averaged.items():
        if name.startswith("susceptibility") and model.size_parameter is None:
            continue
        long_name = f"{name.removesuffix('_err').replace('_', ' ')} averaged over replicates"
        if name.endswith("_err"):
            long_name = f"error of {long_name} (jackknife over seeds; run error if one seed)"
        out[f"replicate_{name}"] = (dims, values, {"units": "1", "long_name": long_name})
    k = size.shape[-1]
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


def _grid(study: Mapping[str, Any]) -> tuple[list[str], tuple[int, ...], dict[str, Any]]:
    """Dimensions, shape and coordinates of the study's points (without replicate)."""
    if study.get("design"):
        labels = study["labels"]
        return ["point"], (len(labels),), {"point": ("point", np.asarray(labels, dtype=str),
                                                     {"long_name": "design point label"})}
    dims = [axis["dim"] for axis in study["axes"]]
    shape = tuple(len(axis["coords"][axis["dim"]]) for axis in study["axes"])
    coords = {name: (axis["dim"], np.asarray(values), {"long_name": name})
              for axis in study["axes"] for name, values in axis["coords"].items()}
    return dims, shape, coords


def _derived_coordinates(model: Model, runs: Sequence[xr.Dataset], cells: Sequence[int],
                         dims: list[str], shape: tuple[int, ...], replicates: int
                         ) -> dict[str, Any]:
    coords: dict[str, Any] = {}
    for quantity in model.derived_quantities:
        name = quantity.name
        flat = np.empty(len(cells))
        for run, cell in zip(runs, cells, strict=True):
            flat[cell] = float(run.attrs[name])
        grid = flat.reshape((*shape, replicates))[..., 0]
        varying = [a for a in range(len(shape))
                   if not np.allclose(grid, np.take(grid, [0], axis=a))]
        reduced = grid[tuple(slice(None) if a in varying else 0 for a in range(len(shape)))]
        coords[name] = ([dims[a] for a in varying], reduced, quantity.attrs())
    return coords


def summarize(run_paths: Sequence[str | os.PathLike], study: Mapping[str, Any],
              out: str | os.PathLike) -> None:
    """Per-run statistics of every run of a study and their replicate averages.

    Parameters
    ----------
    run_paths : sequence of path
        The study's run files, in any order (matched by their attributes).
    study : mapping
        ``name``, ``model``, ``labels`` (point labels in grid order), ``axes`` (list of
        ``{"dim", "coords"}``; empty for a design), ``design`` (bool), ``replicates``,
        ``burn_in``, ``order_threshold``, ``fixed``, ``description``, ``time`` (the run
        controls), as made by the workflow's ``study_record``.
    out : path
        Output netCDF file.
    """
    model = get_model(study["model"])
    replicates = int(study["replicates"])
    runs = [open_dataset(path) for path in run_paths]
    cells = _cell_index(study["labels"], replicates, runs, run_paths)
    dims, shape, coords = _grid(study)
    full = (*shape, replicates)
    table = run_variables(model)
    columns = {name: np.full(len(cells), np.nan) for name in table}
    seeds = np.empty(len(cells), dtype=np.int64)
    sizes = np.full(len(cells), np.nan)
    primary = model.observable(model.primary_observable)
    histograms = np.zeros((len(cells), HISTOGRAM_BINS)) if primary.bounded else None
    for run, cell in zip(runs, cells, strict=True):
        values, histogram = run_statistics(run, model, study["burn_in"],
                                           study["order_threshold"])
        for name in table:
            columns[name][cell] = values[name]
        seeds[cell] = int(run.attrs["seed"])
        if model.size_parameter:
            sizes[cell] = float(run.attrs[model.size_parameter])
        if histograms is not None:
            histograms[cell] = histogram
    all_dims = [*dims, "replicate"]
    grid_columns = {name: values.reshape(full) for name, values in columns.items()}
    data = {name: (all_dims, grid_columns[name], {"units": units, "long_name": long_name})
            for name, (units, long_name) in table.items()}
    if histograms is not None:
        data[f"{primary.name}_histogram"] = (
            [*all_dims, "bin"], histograms.reshape((*full, HISTOGRAM_BINS)),
            {"units": "1", "long_name": f"fraction of post-burn-in records of {primary.name} "
                                        f"in each bin"})
        coords["bin"] = ("bin", _bin_centres(primary.low, primary.high),
                         {"long_name": f"centre of the {primary.name} bin",
                          "units": primary.units})
    data["rng_seed"] = (all_dims, seeds.reshape(full), {"long_name": "seed of the run's "
                                                                      "random stream"})
    data.update(_replicate_variables(model, grid_columns, sizes.reshape(full), dims))
    coords["replicate"] = ("replicate", np.arange(replicates), {"long_name": "replicate index"})
    coords.update(_derived_coordinates(model, runs, cells, dims, shape, replicates))
    summary = xr.Dataset(data, coords=coords)
    summary.attrs = netcdf_attrs({
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
        "replicates": replicates,
        "time": study.get("time", {}),
        "burn_in": study["burn_in"],
        "order_threshold": study["order_threshold"],
        "base_parameters": json.loads(runs[0].attrs.get("parameters", "{}")),
        **provenance_attrs(),
    })
    write_netcdf(summary, out)


def run_metrics(run_path: str | os.PathLike, burn_in: float, out: str | os.PathLike,
                order_threshold: float = ORDER_THRESHOLD) -> xr.Dataset:
    """Per-run metrics of a single run file (the ``flocklab metrics`` command)."""
    run = open_dataset(run_path)
    model = get_model(str(run.attrs["model"]))
    values, histogram = run_statistics(run, model, burn_in, order_threshold)
    data = {name: ((), values[name], {"units": units, "long_name": long_name})
            for name, (units, long_name) in run_variables(model).items()}
    ds = xr.Dataset(data)
    primary = model.observable(model.primary_observable)
    if histogram is not None:
        ds[f"{primary.name}_histogram"] = ("bin", histogram, {
            "units": "1", "long_name": "fraction of post-burn-in records in each bin"})
        ds.coords["bin"] = ("bin", _bin_centres(primary.low, primary.high))
    ds.attrs = dict(run.attrs)
    ds.attrs.update(netcdf_attrs({"burn_in": burn_in, "order_threshold": order_threshold,
                                  **provenance_attrs()}))
    write_netcdf(ds, out)
    return ds
