"""Stages *fit_critical* and *fss*: a study's ``summary.nc`` → critical points and exponents.

Model-agnostic: the control (its summary coordinate, ordered side, exponent name and
symbol) comes from the model the summary names (``attrs["model"]`` →
:meth:`flocklab.models.Model.critical_control`), the observable from
``attrs["primary_observable"]`` (call it P). A summary
written by another simulator needs only per-replicate ``<P>_mean`` (and ``<P>_sem``) on
(control, ``replicate`` or ``seed``): without a ``model`` attribute the caller gives the
ordered side and the exponent's name, and the control is the coordinate's name; replicate
means and their errors are computed here when absent (:func:`with_replicate_means`).

``results/<study>/critical.nc`` (and ``critical.json``), one fit per curve, i.e. per value
of the swept dimensions other than the control's (for example one per N):

======================  ==============================================================
variable                meaning
======================  ==============================================================
<c>_c                   critical value (``<key>_c``, e.g. ``eta_c`` or ``rho_c``)
<c>_c_err               1σ from the fit covariance
<c>_c_ci_low/high       68 % bootstrap interval (resampling seeds)
<e>, <e>_err, <e>_ci_*  exponent (the control's declared name, e.g. ``beta``), likewise
amplitude               A in P = A s^e
chi2_per_dof            reduced χ² of the fit
n_points                points in the fitting window
window_low/high         control range of the window
window_settled          1 where the window rule settled, 0 where it cycled (the JSON's
                        ``status``/``note`` say between what)
used                    1 where a point entered the fit (control dimension)
<c>_c_scan, <e>_scan    results against the window width (dimension ``reduced_max``:
                        0.5 to 2 times the width used, see ``window_scan_rule``)
======================  ==============================================================

Curves that cannot be fitted are listed in the JSON (``failed``, with the reason); their
variables are NaN in the netCDF file and ``null`` in the JSON (strict JSON throughout,
written by :func:`flocklab.core.io.write_json`).

``results/<study>/fss.nc`` (and ``fss.json``): per size the susceptibility-peak estimate
``<c>_c_chi`` (with bootstrap interval), Binder-cumulant crossings of consecutive sizes,
``binder_minimum`` and ``bimodal`` flags; the extrapolation ``<c>_c_inf`` and ``inverse_nu``;
the data collapse ``collapse_<c>_c``, ``collapse_beta_over_nu``, ``collapse_inverse_nu`` with
bootstrap intervals; attribute ``discontinuity_suspected``. The size dimension is the
config's ``size``; χ = N var uses the model's size parameter N (a coordinate of the
summary or a fixed parameter; an error otherwise).
"""

from __future__ import annotations

import itertools
import json
import os
from collections.abc import Mapping
from typing import Any

import numpy as np
import xarray as xr

from flocklab.analysis import critical as crit
from flocklab.analysis.timeseries import replicate_average, susceptibility
from flocklab.core.io import open_dataset, write_json, write_netcdf
from flocklab.core.model import CriticalControl
from flocklab.core.parameters import ParameterError
from flocklab.core.provenance import netcdf_attrs, provenance_attrs
from flocklab.core.registry import get_model

#: Names of the replicate dimension: ``replicate`` (flocklab summaries), ``seed`` (older or
#: foreign summaries).
REPLICATE_DIMS = ("replicate", "seed")
WINDOW_RULE = ("points on the ordered side with reduced distance s = |x - x_c| / x_c in "
               "(reduced_min, reduced_max], iterated from the steepest descent of the "
               "observable until the set of points is stable (status 'converged') or "
               "alternates between sets (status 'cycle': the best-fitting set is kept)")
SCAN_RULE = ("reduced_max = (0.5, 0.707, 1, 1.414, 2) x the reduced_max used (half to twice "
             "it, geometric), dropping widths <= reduced_min")


# --------------------------------------------------------------------------- declarations


def _summary_model(summary: xr.Dataset):
    """The registered model the summary names, or None (no ``model`` attribute, or a model
    of another package that is not installed: the summary is then treated as foreign)."""
    name = summary.attrs.get("model")
    if not name or name == "none":
        return None
    try:
        return get_model(str(name))
    except ParameterError:
        return None


def control_declaration(summary: xr.Dataset, key: str, side: str | None = None,
                        exponent: str | None = None, *, need_side: bool = True
                        ) -> CriticalControl:
    """The critical control ``key`` of the summary's model.

    With a registered ``model`` attribute the model's declaration is used (``side`` and
    ``exponent``, if given, must agree with it). Without one (a summary from another
    simulator) the control is the coordinate ``key``, on the given ``side`` with exponent
    ``exponent`` (default ``"exponent"``).

    Raises
    ------
    ParameterError
        A control the model does not declare, a disagreeing side or exponent, or no
        registered model and no side (when ``need_side``).
    """
    if side is not None and side not in ("below", "above"):
        raise ParameterError("side", f"side must be 'below' or 'above', got {side!r}")
    model = _summary_model(summary)
    if model is not None:
        declared = model.critical_control(key)
        for option, given, value in (("side", side, declared.ordered_side),
                                     ("exponent", exponent, declared.exponent)):
            if given is not None and given != value:
                raise ParameterError(option, f"model '{model.name}' declares {option} "
                                             f"'{value}' for control '{key}', not '{given}'")
        return declared
    if side is None and need_side:
        named = summary.attrs.get("model")
        which = (f"names model '{named}', which is not registered" if named and named != "none"
                 else "names no model")
        raise ParameterError("side", f"the summary {which}: give the ordered side "
                                     f"(--side below|above) and the exponent's name "
                                     f"(--exponent NAME)")
    return CriticalControl(key, key, side or "below", exponent or "exponent", key)


def observable_name(summary: xr.Dataset, observable: str | None = None) -> str:
    """``observable``, else the summary's ``primary_observable``, else the one ``<P>`` with a
    per-replicate ``<P>_mean`` in the summary.

    Raises
    ------
    CriticalFitError
        If none is given or declared and the summary has no or several ``<P>_mean``.
    """
    if observable or summary.attrs.get("primary_observable"):
        return str(observable or summary.attrs["primary_observable"])
    candidates = sorted(str(name).removesuffix("_mean") for name in summary.data_vars
                        if str(name).endswith("_mean"))
    if len(candidates) != 1:
        raise crit.CriticalFitError(
            f"the summary names no primary_observable and has {len(candidates)} per-replicate "
            f"<P>_mean variables ({', '.join(candidates) or 'none'}): give the observable "
            f"(--observable NAME)")
    return candidates[0]


def observable_symbol(summary: xr.Dataset, observable: str) -> str:
    """LaTeX symbol of the observable from the model's declaration (its name otherwise)."""
    model = _summary_model(summary)
    try:
        symbol = model.observable(observable).symbol if model is not None else ""
    except (KeyError, ValueError):
        symbol = ""
    return symbol or rf"\mathrm{{{observable}}}".replace("_", r"\_")


def replicate_dimension(summary: xr.Dataset, variable: str) -> str:
    """The replicate dimension (``replicate`` or ``seed``) of a per-run variable."""
    if variable not in summary:
        raise crit.CriticalFitError(f"summary has no per-replicate variable '{variable}'; "
                                    f"variables: {', '.join(map(str, summary.data_vars))}")
    found = [dim for dim in REPLICATE_DIMS if dim in summary[variable].dims]
    if not found:
        raise crit.CriticalFitError(f"'{variable}' has no replicate dimension "
                                    f"({' or '.join(REPLICATE_DIMS)}); dimensions: "
                                    f"{', '.join(map(str, summary[variable].dims))}")
    return found[0]


def with_replicate_means(summary: xr.Dataset, observable: str) -> tuple[xr.Dataset, str]:
    """The summary with ``replicate_<P>`` and ``replicate_<P>_err``, and its replicate dim.

    Where they are absent they are computed from the per-replicate ``<P>_mean`` (and
    ``<P>_sem``, used with one replicate) by :func:`flocklab.analysis.timeseries.replicate_average`:
    mean over replicates, jackknife error over seeds (= standard error across seeds).
    """
    mean_name, sem_name = f"{observable}_mean", f"{observable}_sem"
    dim = replicate_dimension(summary, mean_name)
    targets = (f"replicate_{observable}", f"replicate_{observable}_err")
    if all(name in summary for name in targets):
        return summary, dim
    m1 = summary[mean_name]
    count = summary.sizes[dim]
    if sem_name not in summary and count < 2:
        raise crit.CriticalFitError(f"one replicate and no '{sem_name}': the points have no "
                                    f"standard error")
    sem = summary[sem_name].broadcast_like(m1) if sem_name in summary else xr.full_like(
        m1, np.nan, dtype=float)
    axis = m1.dims.index(dim)
    missing = np.full(m1.shape, np.nan)
    averaged = replicate_average(m1.values, missing, missing, sem.transpose(*m1.dims).values,
                                 missing, missing, np.nan, axis=axis, observable=observable)
    dims = [d for d in m1.dims if d != dim]
    summary = summary.copy()
    summary[targets[0]] = (dims, averaged[observable],
                           {"long_name": f"{observable} averaged over replicates"})
    summary[targets[1]] = (dims, averaged[f"{observable}_err"],
                           {"long_name": f"standard error of replicate_{observable} "
                                         f"(across seeds; the run's sem with one seed)"})
    return summary, dim


# --------------------------------------------------------------------------- power-law fits


def curves(summary: xr.Dataset, coordinate: str, select: Mapping[str, Any],
           observable: str) -> list[tuple[dict[str, Any], xr.Dataset]]:
    """Split a summary into 1-D curves along ``coordinate``'s dimension.

    Returns ``(labels, dataset)`` pairs, one per combination of the other dimensions of
    ``replicate_<observable>``.
    """
    if coordinate not in summary.coords:
        raise crit.CriticalFitError(f"summary has no coordinate '{coordinate}'; available: "
                                    f"{', '.join(map(str, summary.coords))}")
    for name, value in select.items():
        if name not in summary.dims:
            raise crit.CriticalFitError(f"cannot select '{name}': not a dimension of the "
                                        f"summary ({', '.join(map(str, summary.dims))})")
        if value not in summary[name].values.tolist():
            raise crit.CriticalFitError(f"{name} = {value} is not in the summary "
                                        f"({summary[name].values.tolist()})")
    data = summary.sel(select) if select else summary
    if data[coordinate].ndim != 1:
        raise crit.CriticalFitError(f"coordinate '{coordinate}' varies along "
                                    f"{data[coordinate].dims}: select one value of the others")
    (control_dim,) = data[coordinate].dims
    others = [dim for dim in data[f"replicate_{observable}"].dims if dim != control_dim]
    result = []
    for values in itertools.product(*(data[dim].values.tolist() for dim in others)):
        labels = dict(zip(others, values, strict=True))
        result.append((labels, data.sel(labels) if labels else data))
    return result


def _curve_arrays(curve: xr.Dataset, coordinate: str, observable: str, replicate_dim: str):
    x = curve[coordinate].values.astype(float)
    v = curve[f"replicate_{observable}"].values
    err = curve[f"replicate_{observable}_err"].values
    samples = curve[f"{observable}_mean"].transpose(..., replicate_dim).values
    sem_name = f"{observable}_sem"
    fallback = err
    if samples.shape[1] == 1 and sem_name in curve:
        fallback = curve[sem_name].isel({replicate_dim: 0}).values
    return x, v, err, samples, fallback


def _interval_entry(value: float, fit_err: float, values: np.ndarray) -> dict[str, Any]:
    low, high = crit.percentile_interval(values)
    return {"value": value, "ci": [low, high], "fit_err": fit_err,
            "fit_ci": [value - fit_err, value + fit_err]}


def fit_curve(x, v, err, samples, fallback, side: str, reduced_min: float, reduced_max: float,
              resamples: int, rng: np.random.Generator) -> dict[str, Any]:
    """Power-law fit of one curve with window scan and bootstrap (see
    :mod:`flocklab.analysis.critical`)."""
    fit = crit.fit_power_law(x, v, err, side, reduced_min, reduced_max)
    boot = crit.bootstrap(
        samples,
        lambda mean, error: (lambda f: (f.critical, f.exponent))(
            crit.fit_power_law(x, mean, error, side, reduced_min, reduced_max)),
        fallback, resamples, rng)
    return {"fit": fit, "bootstrap": boot,
            "scan": crit.window_scan(x, v, err, side, reduced_min, reduced_max)}


def fit_critical_summary(summary: xr.Dataset, control: str, select: Mapping[str, Any] | None,
                         reduced_min: float = 0.02, reduced_max: float = 0.5,
                         resamples: int = 200, seed: int = 0, *, observable: str | None = None,
                         side: str | None = None, exponent: str | None = None
                         ) -> tuple[xr.Dataset, dict[str, Any]]:
    """Fit every curve of a summary; returns (critical dataset, JSON-ready dict).

    Parameters
    ----------
    summary : xarray.Dataset
        A study's summary, or any dataset with per-replicate ``<P>_mean`` (and
        ``<P>_sem``) on (control, ``replicate`` or ``seed``).
    control : str
        The model's critical control key (without a ``model`` attribute: the coordinate).
    select : mapping
        Values of other dimensions to fix.
    reduced_min, reduced_max : float
        Fitting window in reduced distance.
    resamples, seed : int
        Bootstrap resamples over seeds and the bootstrap's seed.
    observable : str, optional
        P (default: :func:`observable_name`).
    side, exponent : str, optional
        Ordered side and exponent name, for a summary without a ``model`` attribute.

    Raises
    ------
    CriticalFitError
        No curve can be fitted (each curve's reason in the message), or missing variables.
    ParameterError
        Unknown control or missing side (see :func:`control_declaration`).
    """
    declared = control_declaration(summary, control, side, exponent)
    observable = observable_name(summary, observable)
    summary, replicate_dim = with_replicate_means(summary, observable)
    rng = np.random.default_rng(seed)
    entries, failures = [], []
    all_curves = curves(summary, declared.coordinate, select or {}, observable)
    for labels, curve in all_curves:
        arrays = _curve_arrays(curve, declared.coordinate, observable, replicate_dim)
        try:
            result = fit_curve(*arrays, declared.ordered_side, reduced_min, reduced_max,
                               resamples, rng)
        except crit.CriticalFitError as error:
            where = ", ".join(f"{k} = {val}" for k, val in labels.items())
            failures.append({**labels, "control": control,
                             "error": f"{where + ': ' if where else ''}{error}"})
            continue
        entries.append((labels, result))
    if not entries:
        # A single curve, or every curve, that cannot be fitted is an error, not a number.
        raise crit.CriticalFitError("; ".join(failure["error"] for failure in failures))
    records = [_record(labels, result, declared, observable, reduced_min, reduced_max,
                       resamples, seed) for labels, result in entries]
    if len(all_curves) == 1:
        document = dict(records[0])
    else:
        # Curves that cannot be fitted (e.g. a size too small to show the transition in the
        # range) are listed with the reason; their variables in the netCDF file are NaN.
        document = {"control": control, "observable": observable, "fits": records,
                    "failed": failures}
    if select:
        document["select"] = dict(select)
    dataset = _critical_dataset(entries, records, declared, observable, summary,
                                select or {})
    return dataset, document


def _record(labels: Mapping[str, Any], result: Mapping[str, Any], declared: CriticalControl,
            observable: str, reduced_min: float, reduced_max: float, resamples: int,
            seed: int) -> dict[str, Any]:
    """JSON entry of one fitted curve."""
    fit, boot = result["fit"], result["bootstrap"]
    critical_name, exponent = f"{declared.key}_c", declared.exponent
    return {
        **labels,
        "control": declared.key,
        "coordinate": declared.coordinate,
        "side": declared.ordered_side,
        "observable": observable,
        critical_name: _interval_entry(fit.critical, fit.critical_err,
                                       boot[:, 0] if boot.size else np.empty(0)),
        exponent: _interval_entry(fit.exponent, fit.exponent_err,
                                  boot[:, 1] if boot.size else np.empty(0)),
        "amplitude": fit.amplitude,
        "chi2_per_dof": fit.chi2_per_dof,
        "n_points": fit.n_points,
        "status": fit.status,
        "note": fit.note,
        "window": {"low": fit.window[0], "high": fit.window[1], "reduced_min": reduced_min,
                   "reduced_max": reduced_max, "rule": WINDOW_RULE},
        "bootstrap": {"resamples": resamples, "successful": int(boot.shape[0]),
                      "seed": seed, "level": 0.68},
        "window_scan_rule": SCAN_RULE,
        "window_scan": [{"reduced_max": row["reduced_max"], critical_name: row["critical"],
                         exponent: row["exponent"], "n_points": row["n_points"],
                         "status": row["status"], "note": row["note"]}
                        for row in result["scan"]],
    }


def _fit_values(fit: crit.PowerLawFit, record: Mapping[str, Any], critical_name: str,
                exponent: str) -> dict[str, float]:
    return {critical_name: fit.critical, f"{critical_name}_err": fit.critical_err,
            f"{critical_name}_ci_low": record[critical_name]["ci"][0],
            f"{critical_name}_ci_high": record[critical_name]["ci"][1],
            exponent: fit.exponent, f"{exponent}_err": fit.exponent_err,
            f"{exponent}_ci_low": record[exponent]["ci"][0],
            f"{exponent}_ci_high": record[exponent]["ci"][1],
            "amplitude": fit.amplitude, "chi2_per_dof": fit.chi2_per_dof,
            "n_points": fit.n_points, "window_low": fit.window[0],
            "window_high": fit.window[1],
            "window_settled": float(fit.status == "converged")}


def _long_name(name: str, long_names: Mapping[str, str]) -> str:
    base = name.split("_ci_")[0].removesuffix("_err")
    text = long_names.get(base, base)
    if name.endswith("_err"):
        return f"1-sigma fit error of {text}"
    if "_ci_" in name:
        return (f"{'lower' if name.endswith('low') else 'upper'} end of the 68 % bootstrap "
                f"interval of {text}")
    return text


def _critical_dataset(entries, records, declared: CriticalControl, observable: str,
                      summary: xr.Dataset, select: Mapping[str, Any]) -> xr.Dataset:
    critical_name, exponent, coordinate = (f"{declared.key}_c", declared.exponent,
                                           declared.coordinate)
    label_dims = list(entries[0][0])
    shape = tuple(summary.sizes[d] for d in label_dims)
    grid = {d: summary[d].values for d in label_dims}

    def index(labels):
        return tuple(int(np.flatnonzero(grid[d] == labels[d])[0]) for d in label_dims)

    first = _fit_values(entries[0][1]["fit"], records[0], critical_name, exponent)
    arrays = {name: np.full(shape, np.nan) for name in first}
    control_dim = summary[coordinate].dims[0]
    used = np.zeros((*shape, summary.sizes[control_dim]), dtype=np.int8)
    widths = [row["reduced_max"] for row in records[0]["window_scan"]]
    scans = {name: np.full((*shape, len(widths)), np.nan) for name in
             (f"{critical_name}_scan", f"{exponent}_scan")}
    for (labels, result), record in zip(entries, records, strict=True):
        k = index(labels)
        for name, value in _fit_values(result["fit"], record, critical_name,
                                       exponent).items():
            arrays[name][k] = value
        used[k] = result["fit"].used
        for j, row in enumerate(result["scan"]):
            for name, key in ((f"{critical_name}_scan", "critical"),
                              (f"{exponent}_scan", "exponent")):
                scans[name][(*k, j)] = np.nan if row[key] is None else row[key]
    long_names = {
        critical_name: f"critical {declared.key}", exponent: f"critical exponent {exponent}",
        "amplitude": f"amplitude A of {observable} = A s^{exponent}",
        "chi2_per_dof": "reduced chi-square", "n_points": "points in the fitting window",
        "window_low": "smallest control value used", "window_high": "largest control value used",
        "window_settled": "1 where the window rule settled, 0 where it cycled (see JSON note)"}
    data_vars = {name: (label_dims, values, {"long_name": _long_name(name, long_names)})
                 for name, values in arrays.items()}
    data_vars["used"] = ([*label_dims, control_dim], used,
                         {"long_name": "1 where the point entered the fit"})
    for name, values in scans.items():
        data_vars[name] = ([*label_dims, "reduced_max"], values,
                           {"long_name": f"{name.removesuffix('_scan')} against window width"})
    coords = {d: summary[d] for d in label_dims}
    coords[control_dim] = summary[control_dim]
    if coordinate != control_dim:
        coords[coordinate] = summary[coordinate]
    coords["reduced_max"] = ("reduced_max", np.array(widths),
                             {"long_name": "upper end of the fitting window in reduced distance"})
    ds = xr.Dataset(data_vars, coords=coords)
    ds.attrs = netcdf_attrs({
        "title": f"critical-point fit ({declared.key})", "control": declared.key,
        "coordinate": coordinate, "exponent": exponent, "side": declared.ordered_side,
        "symbol": declared.symbol, "observable": observable,
        "observable_symbol": observable_symbol(summary, observable), "select": dict(select),
        "window_rule": WINDOW_RULE, "window_scan_rule": SCAN_RULE,
        "model": summary.attrs.get("model", "none"), "study": summary.attrs.get("study", ""),
        **provenance_attrs()})
    return ds


def run_fit_critical(summary_path: str | os.PathLike, settings: Mapping[str, Any],
                     out_nc: str | os.PathLike, out_json: str | os.PathLike, seed: int) -> None:
    """Stage entry: fit the study's summary with the config's ``critical`` settings."""
    ds, document = fit_critical_summary(
        open_dataset(summary_path), settings["control"], settings.get("select") or {},
        settings["reduced_min"], settings["reduced_max"], settings["bootstrap"], seed)
    write_netcdf(ds, out_nc)
    write_json(document, out_json)


# --------------------------------------------------------------------------- finite size


def size_parameter_values(summary: xr.Dataset, like: xr.DataArray) -> np.ndarray:
    """The model's size parameter N (of χ = N var), broadcast like ``like``.

    From the summary's coordinate of that name, or from its fixed parameters when N is not
    swept.

    Raises
    ------
    CriticalFitError
        The model declares no size parameter, or N is neither a coordinate nor fixed.
    """
    model = _summary_model(summary)
    name = model.size_parameter if model is not None else summary.attrs.get("size_parameter")
    if not name or name == "none":
        raise crit.CriticalFitError("finite-size scaling needs chi = N var, but the summary's "
                                    "model declares no size parameter")
    if name in summary.coords:
        return summary[name].broadcast_like(like).transpose(*like.dims).values.astype(float)
    fixed = summary.attrs.get("fixed_parameters", "{}")
    fixed = json.loads(fixed) if isinstance(fixed, str) else dict(fixed)
    if name in fixed:
        return np.full(like.shape, float(fixed[name]))
    raise crit.CriticalFitError(f"finite-size scaling needs the size parameter '{name}' "
                                f"(chi = {name} var): it is neither a coordinate nor a fixed "
                                f"parameter of the summary")


def _fss_data(summary: xr.Dataset, coordinate: str, size: str, observable: str
              ) -> dict[str, Any]:
    """Arrays of the FSS analysis on (size, control[, replicate[, bin]])."""
    if size not in summary.coords:
        raise crit.CriticalFitError(f"summary has no size coordinate '{size}'")
    if coordinate not in summary.coords:
        raise crit.CriticalFitError(f"summary has no coordinate '{coordinate}'")
    (size_dim,) = summary[size].dims
    (control_dim,) = summary[coordinate].dims
    if size_dim == control_dim:
        raise crit.CriticalFitError("size and control must lie on different dimensions")
    p = observable
    needed = [f"replicate_{p}", f"replicate_{p}_err", "replicate_susceptibility",
              "replicate_binder_cumulant", "replicate_binder_cumulant_err", f"{p}_mean",
              f"{p}_m2"]
    missing = [name for name in needed if name not in summary]
    if missing:
        raise crit.CriticalFitError(f"finite-size scaling needs {', '.join(missing)} in the "
                                    f"summary")
    replicate_dim = replicate_dimension(summary, f"{p}_mean")
    data = summary.transpose(size_dim, control_dim, ...)
    mean = data[f"replicate_{p}"]
    per_run = (size_dim, control_dim, replicate_dim)
    histogram = None
    if f"{p}_histogram" in data:
        histogram = data[f"{p}_histogram"].transpose(*per_run, "bin").values.mean(axis=2)
    return {
        "size_dim": size_dim, "data": data, "lengths": data[size].values.astype(float),
        "x": data[coordinate].values.astype(float), "v": mean.values,
        "err": data[f"replicate_{p}_err"].values,
        "chi": data["replicate_susceptibility"].values,
        "binder": data["replicate_binder_cumulant"].values,
        "binder_err": data["replicate_binder_cumulant_err"].values,
        "m1": data[f"{p}_mean"].transpose(*per_run).values,
        "m2": data[f"{p}_m2"].transpose(*per_run).values,
        # N enters only the bootstrap of chi, which needs two replicates or more
        "n_particles": (size_parameter_values(data, mean)
                        if data.sizes[replicate_dim] >= 2 else None),
        "histogram": histogram,
    }


def _peak_bootstrap(x, m1, m2, n_particles, resamples, rng) -> np.ndarray:
    """68 % interval of the χ-peak location per size, resampling seeds (NaN with one)."""
    n_sizes, _, n_seeds = m1.shape
    intervals = np.full((n_sizes, 2), np.nan)
    if n_seeds < 2:
        return intervals
    for i in range(n_sizes):
        values = []
        for _ in range(resamples):
            a, b = (drawn.mean(axis=1) for drawn in crit.resample_seeds(rng, m1[i], m2[i]))
            values.append(crit.susceptibility_peak(x, susceptibility(a, b, n_particles[i]))[0])
        intervals[i] = crit.percentile_interval(np.array(values))
    return intervals


def _extrapolation(lengths, peaks, peak_err, x) -> tuple[dict, dict, list[float]]:
    """Extrapolation of x_c(L) (scalars, JSON entry) and a start for the collapse."""
    fallback = [float(peaks[-1, 0]), 0.5, 1.0]
    try:
        result = crit.extrapolate(lengths, peaks[:, 0], peak_err)
    except crit.CriticalFitError as error:
        return {}, {"error": str(error)}, fallback
    scalars = {"inf": result.critical, "inf_err": result.critical_err,
               "inverse_nu": result.inverse_nu, "inverse_nu_err": result.inverse_nu_err,
               "extrapolation_amplitude": result.amplitude}
    guess = [result.critical, 0.5, result.inverse_nu]
    if not x.min() < result.critical < x.max():
        guess = fallback   # an unusable extrapolation: start the collapse nearby
    return scalars, dict(scalars), guess


def _collapse(x, inputs, guess, window, resamples, rng, critical_name
              ) -> tuple[dict[str, float], dict[str, Any]]:
    """Data collapse with its bootstrap: (netCDF scalars, JSON entry)."""
    try:
        best = crit.collapse(x, inputs["v"], inputs["err"], inputs["lengths"], guess, window)
    except crit.CriticalFitError as error:
        return {}, {"error": str(error)}
    boot = _collapse_bootstrap(x, inputs["m1"], inputs["lengths"], best, window, resamples,
                               rng, inputs["err"])
    intervals = [crit.percentile_interval(boot[:, j]) if boot.size else (np.nan, np.nan)
                 for j in range(3)]
    scalars = {f"collapse_{critical_name}": best.critical,
               "collapse_beta_over_nu": best.beta_over_nu,
               "collapse_inverse_nu": best.inverse_nu, "collapse_quality": best.quality}
    for j, name in enumerate([f"collapse_{critical_name}", "collapse_beta_over_nu",
                              "collapse_inverse_nu"]):
        scalars[f"{name}_ci_low"], scalars[f"{name}_ci_high"] = intervals[j]
    entry = {critical_name: {"value": best.critical, "ci": list(intervals[0])},
             "beta_over_nu": {"value": best.beta_over_nu, "ci": list(intervals[1])},
             "inverse_nu": {"value": best.inverse_nu, "ci": list(intervals[2])},
             "quality": best.quality, "window": window,
             "bootstrap": {"resamples": resamples, "successful": int(boot.shape[0])}}
    return scalars, entry


def finite_size_scaling(summary: xr.Dataset, control: str, size: str,
                        collapse_window: float = 0.3, resamples: int = 30, seed: int = 0,
                        observable: str | None = None) -> tuple[xr.Dataset, dict[str, Any]]:
    """Finite-size analysis of a summary with several sizes (see module docstring).

    Parameters
    ----------
    summary : xarray.Dataset
        Summary with ``size`` and the control's coordinate on different dimensions.
    control : str
        The model's critical control key.
    size : str
        Coordinate giving the linear size L (the config's ``fss.size``).
    collapse_window : float
        Points with ``|x - x_c| <= collapse_window * x_c`` enter the collapse.
    resamples, seed : int
        Bootstrap over seeds.
    observable : str, optional
        P (default: the summary's primary observable).
    """
    declared = control_declaration(summary, control, need_side=False)
    observable = observable_name(summary, observable)
    inputs = _fss_data(summary, declared.coordinate, size, observable)
    x, lengths = inputs["x"], inputs["lengths"]
    rng = np.random.default_rng(seed)
    critical_name = f"{declared.key}_c"
    n_sizes = len(lengths)

    peaks = np.array([crit.susceptibility_peak(x, inputs["chi"][i]) for i in range(n_sizes)])
    peak_ci = _peak_bootstrap(x, inputs["m1"], inputs["m2"], inputs["n_particles"],
                              resamples, rng)
    peak_err = np.where(np.isfinite(peak_ci[:, 1]), 0.5 * (peak_ci[:, 1] - peak_ci[:, 0]),
                        np.diff(x).mean() / 2)
    peak_err = np.maximum(peak_err, np.diff(x).min() / 10)
    crossings = [crit.binder_crossings(x, inputs["binder"][i], inputs["binder"][i + 1])
                 for i in range(n_sizes - 1)]
    flags_binder = [crit.binder_minimum(x, inputs["binder"][i], inputs["binder_err"][i])
                    for i in range(n_sizes)]
    nearest = [int(np.argmin(np.abs(x - peaks[i, 0]))) for i in range(n_sizes)]
    histogram = inputs["histogram"]
    flags_bimodal = [None] * n_sizes if histogram is None else [
        crit.is_bimodal(histogram[i, nearest[i]]) for i in range(n_sizes)]

    document: dict[str, Any] = {
        "control": declared.key, "coordinate": declared.coordinate, "observable": observable,
        "size": size, "sizes": lengths.tolist(),
        f"{critical_name}_chi": [{"value": float(peaks[i, 0]), "ci": peak_ci[i].tolist()}
                                 for i in range(n_sizes)],
        "binder_crossings": [{"sizes": [float(lengths[i]), float(lengths[i + 1])],
                              declared.key: crossings[i]} for i in range(n_sizes - 1)],
        "binder_minimum": [bool(f) for f in flags_binder],
        "bimodal": [None if f is None else bool(f) for f in flags_bimodal],
    }
    document["discontinuity_suspected"] = bool(any(flags_binder) or any(flags_bimodal))
    extrapolated, document["extrapolation"], guess = _extrapolation(lengths, peaks, peak_err, x)
    scalars = {(f"{critical_name}_{k}" if k.startswith("inf") else k): value
               for k, value in extrapolated.items()}
    if extrapolated:
        document["extrapolation"] = dict(scalars)
    collapsed, document["collapse"] = _collapse(x, inputs, guess, collapse_window, resamples,
                                                rng, critical_name)
    scalars.update(collapsed)
    ds = _fss_dataset(inputs, declared, observable, size, peaks, peak_ci, crossings,
                      flags_binder, flags_bimodal, nearest, scalars)
    ds.attrs = netcdf_attrs({
        "title": "finite-size scaling", "control": declared.key,
        "coordinate": declared.coordinate, "symbol": declared.symbol, "size": size,
        "observable": observable, "observable_symbol": observable_symbol(summary, observable),
        "collapse_window": collapse_window,
        "discontinuity_suspected": document["discontinuity_suspected"],
        "model": summary.attrs.get("model", "none"), "study": summary.attrs.get("study", ""),
        **provenance_attrs()})
    return ds, document


def _fss_dataset(inputs, declared, observable, size, peaks, peak_ci, crossings, flags_binder,
                 flags_bimodal, nearest, scalars) -> xr.Dataset:
    size_dim, data = inputs["size_dim"], inputs["data"]
    critical_name, n_sizes = f"{declared.key}_c", len(inputs["lengths"])
    pairs = max(n_sizes - 1, 0)
    first_crossing = [c[0] if c else np.nan for c in crossings]
    variables = {
        f"{critical_name}_chi": (size_dim, peaks[:, 0], {
            "long_name": f"{declared.key} at the susceptibility maximum"}),
        f"{critical_name}_chi_ci_low": (size_dim, peak_ci[:, 0], {
            "long_name": "lower end of the 68 % bootstrap interval"}),
        f"{critical_name}_chi_ci_high": (size_dim, peak_ci[:, 1], {
            "long_name": "upper end of the 68 % bootstrap interval"}),
        "susceptibility_peak": (size_dim, peaks[:, 1], {
            "long_name": "maximum of the susceptibility"}),
        "binder_minimum": (size_dim, np.array(flags_binder, np.int8), {
            "long_name": "1 where the Binder cumulant dips below 1/3 (3 sigma)"}),
        "binder_crossing": ("size_pair", np.array(first_crossing[:pairs], float), {
            "long_name": f"{declared.key} where G of consecutive sizes cross (first "
                         f"crossing)"}),
        **{name: ((), value) for name, value in scalars.items()},
    }
    coords = {size_dim: data[size_dim], size: data[size],
              "size_pair": ("size_pair", np.arange(pairs))}
    if inputs["histogram"] is not None:
        variables["bimodal"] = (size_dim, np.array(flags_bimodal, np.int8), {
            "long_name": f"1 where the {observable} histogram near the chi peak is bimodal"})
        variables["histogram_near_peak"] = (
            [size_dim, "bin"], np.array([inputs["histogram"][i, nearest[i]]
                                         for i in range(n_sizes)]),
            {"long_name": f"seed-averaged {observable} histogram at the point nearest the "
                          f"chi peak"})
        coords["bin"] = data["bin"]
    return xr.Dataset(variables, coords=coords)


def _collapse_bootstrap(x, m1, lengths, best, window, resamples, rng, err) -> np.ndarray:
    n_seeds = m1.shape[-1]
    if n_seeds < 2:
        return np.empty((0, 3))
    values = []
    for _ in range(resamples):
        (drawn,) = crit.resample_seeds(rng, m1)
        mean = drawn.mean(axis=2)
        spread = drawn.std(axis=2, ddof=1) / np.sqrt(n_seeds)
        try:
            result = crit.collapse(x, mean, np.where(spread > 0, spread, err), lengths,
                                   [best.critical, best.beta_over_nu, best.inverse_nu], window,
                                   grid_starts=False)
        except crit.CriticalFitError:
            continue
        values.append([result.critical, result.beta_over_nu, result.inverse_nu])
    return np.array(values).reshape(-1, 3)


def run_fss(summary_path: str | os.PathLike, settings: Mapping[str, Any],
            out_nc: str | os.PathLike, out_json: str | os.PathLike, seed: int) -> None:
    """Stage entry: finite-size scaling with the config's ``fss`` settings."""
    ds, document = finite_size_scaling(open_dataset(summary_path), settings["control"],
                                       settings["size"], settings["collapse_window"],
                                       settings["bootstrap"], seed)
    write_netcdf(ds, out_nc)
    write_json(document, out_json)
