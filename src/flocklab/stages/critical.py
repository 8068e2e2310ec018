"""Stages *fit_critical* and *fss*: a study's ``summary.nc`` → critical points and exponents.

``results/<study>/critical.nc`` (and ``critical.json``), one fit per curve, i.e. per value
of the swept dimensions other than the control's (for example one per N):

======================  ==============================================================
variable                meaning
======================  ==============================================================
<c>_c                   critical value (``eta_c`` or ``rho_c``)
<c>_c_err               1σ from the fit covariance
<c>_c_ci_low/high       68 % bootstrap interval (resampling seeds)
<e>, <e>_err, <e>_ci_*  exponent (``beta`` for noise, ``delta`` for density), likewise
amplitude               A in v_a = A s^e
chi2_per_dof            reduced χ² of the fit
n_points                points in the fitting window
window_low/high         control range of the window
used                    1 where a point entered the fit (control dimension)
<c>_c_scan, <e>_scan    results against the window width (dimension ``reduced_max``)
======================  ==============================================================

``results/<study>/fss.nc`` (and ``fss.json``): per size the susceptibility-peak estimate
``<c>_c_chi`` (with bootstrap error), Binder-cumulant crossings of consecutive sizes,
``binder_minimum`` and ``bimodal`` flags; the extrapolation ``<c>_c_inf`` and ``inverse_nu``;
the data collapse ``collapse_<c>_c``, ``collapse_beta_over_nu``, ``collapse_inverse_nu`` with
bootstrap intervals; attribute ``discontinuity_suspected``.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Mapping
from typing import Any

import numpy as np
import xarray as xr

from flocklab import critical as crit
from flocklab.io import open_dataset, write_json, write_netcdf
from flocklab.provenance import netcdf_attrs, provenance_attrs

#: Control name → (summary coordinate, ordered side, exponent name).
CONTROLS = {"eta": ("eta", "below", "beta"), "rho": ("density", "above", "delta")}
WINDOW_RULE = ("points on the ordered side with reduced distance s = |x - x_c| / x_c in "
               "(reduced_min, reduced_max], iterated from the steepest descent of v_a until "
               "the set of points is stable")


def _control(control: str) -> tuple[str, str, str]:
    if control in CONTROLS:
        return CONTROLS[control]
    raise crit.CriticalFitError(f"unknown control '{control}'; allowed: {', '.join(CONTROLS)}")


def curves(summary: xr.Dataset, coordinate: str, select: Mapping[str, Any]
           ) -> list[tuple[dict[str, Any], xr.Dataset]]:
    """Split a summary into 1-D curves along ``coordinate``'s dimension.

    Returns ``(labels, dataset)`` pairs, one per combination of the other swept dimensions.
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
    (control_dim,) = data[coordinate].dims
    others = [dim for dim in data["replicate_order_parameter"].dims if dim != control_dim]
    result = []
    for values in itertools.product(*(data[dim].values.tolist() for dim in others)):
        labels = dict(zip(others, values, strict=True))
        result.append((labels, data.sel(labels) if labels else data))
    return result


def _curve_arrays(curve: xr.Dataset, coordinate: str):
    x = curve[coordinate].values.astype(float)
    v = curve["replicate_order_parameter"].values
    err = curve["replicate_order_parameter_err"].values
    samples = curve["order_parameter_mean"].transpose(..., "seed").values
    fallback = curve["order_parameter_sem"].isel(seed=0).values if samples.shape[1] == 1 \
        else err
    return x, v, err, samples, fallback


def _interval_entry(value: float, fit_err: float, values: np.ndarray) -> dict[str, Any]:
    low, high = crit.percentile_interval(values)
    return {"value": value, "ci": [low, high], "fit_err": fit_err,
            "fit_ci": [value - fit_err, value + fit_err]}


def fit_curve(x, v, err, samples, fallback, side: str, reduced_min: float, reduced_max: float,
              resamples: int, rng: np.random.Generator) -> dict[str, Any]:
    """Power-law fit of one curve with window scan and bootstrap (see flocklab.critical)."""
    fit = crit.fit_power_law(x, v, err, side, reduced_min, reduced_max)
    boot = crit.bootstrap(
        samples,
        lambda mean, error: (lambda f: (f.critical, f.exponent))(
            crit.fit_power_law(x, mean, error, side, reduced_min, reduced_max)),
        fallback, resamples, rng)
    return {"fit": fit, "bootstrap": boot,
            "scan": crit.window_scan(x, v, err, side, reduced_min)}


def fit_critical_summary(summary: xr.Dataset, control: str, select: Mapping[str, Any] | None,
                         reduced_min: float = 0.02, reduced_max: float = 0.5,
                         resamples: int = 200, seed: int = 0
                         ) -> tuple[xr.Dataset, dict[str, Any]]:
    """Fit every curve of a summary; returns (critical dataset, JSON-ready dict)."""
    coordinate, side, exponent = _control(control)
    critical_name = f"{control}_c"
    rng = np.random.default_rng(seed)
    entries = []
    failures = []
    all_curves = curves(summary, coordinate, select or {})
    for labels, curve in all_curves:
        x, v, err, samples, fallback = _curve_arrays(curve, coordinate)
        try:
            result = fit_curve(x, v, err, samples, fallback, side, reduced_min, reduced_max,
                               resamples, rng)
        except crit.CriticalFitError as error:
            where = ", ".join(f"{k} = {val}" for k, val in labels.items())
            failures.append({**labels, "control": control,
                             "error": f"{where + ': ' if where else ''}{error}"})
            continue
        entries.append((labels, curve, result))
    if not entries:
        # A single curve, or every curve, that cannot be fitted is an error, not a number.
        raise crit.CriticalFitError("; ".join(failure["error"] for failure in failures))

    records = []
    for labels, _, result in entries:
        fit, boot = result["fit"], result["bootstrap"]
        records.append({
            **labels,
            "control": control,
            critical_name: _interval_entry(fit.critical, fit.critical_err,
                                           boot[:, 0] if boot.size else np.empty(0)),
            exponent: _interval_entry(fit.exponent, fit.exponent_err,
                                      boot[:, 1] if boot.size else np.empty(0)),
            "amplitude": fit.amplitude,
            "chi2_per_dof": fit.chi2_per_dof,
            "n_points": fit.n_points,
            "window": {"low": fit.window[0], "high": fit.window[1], "reduced_min": reduced_min,
                       "reduced_max": reduced_max, "rule": WINDOW_RULE},
            "bootstrap": {"resamples": resamples, "successful": int(boot.shape[0]),
                          "seed": seed, "level": 0.68},
            "window_scan": [{"reduced_max": row["reduced_max"], critical_name: row["critical"],
                             exponent: row["exponent"], "n_points": row["n_points"]}
                            for row in result["scan"]],
        })
    if len(all_curves) == 1:
        document = dict(records[0])
    else:
        # Curves that cannot be fitted (e.g. a size too small to show the transition in the
        # range) are listed with the reason; their variables in the netCDF file are NaN.
        document = {"control": control, "fits": records, "failed": failures}
    if select:
        document["select"] = dict(select)
    return _critical_dataset(entries, records, control, critical_name, exponent, coordinate,
                             summary, select or {}), document


def _critical_dataset(entries, records, control, critical_name, exponent, coordinate, summary,
                      select) -> xr.Dataset:
    label_dims = list(entries[0][0])
    shape = tuple(summary.sizes[d] for d in label_dims)
    grid = {d: summary[d].values for d in label_dims}

    def index(labels):
        return tuple(int(np.flatnonzero(grid[d] == labels[d])[0]) for d in label_dims)

    scalar_names = [critical_name, f"{critical_name}_err", f"{critical_name}_ci_low",
                    f"{critical_name}_ci_high", exponent, f"{exponent}_err",
                    f"{exponent}_ci_low", f"{exponent}_ci_high", "amplitude", "chi2_per_dof",
                    "n_points", "window_low", "window_high"]
    arrays = {name: np.full(shape, np.nan) for name in scalar_names}
    control_dim = summary[coordinate].dims[0]
    used = np.zeros((*shape, summary.sizes[control_dim]), dtype=np.int8)
    widths = [row["reduced_max"] for row in records[0]["window_scan"]]
    scans = {name: np.full((*shape, len(widths)), np.nan) for name in
             (f"{critical_name}_scan", f"{exponent}_scan")}
    for (labels, _, result), record in zip(entries, records, strict=True):
        k = index(labels)
        fit = result["fit"]
        for name, value in [
                (critical_name, fit.critical), (f"{critical_name}_err", fit.critical_err),
                (f"{critical_name}_ci_low", record[critical_name]["ci"][0]),
                (f"{critical_name}_ci_high", record[critical_name]["ci"][1]),
                (exponent, fit.exponent), (f"{exponent}_err", fit.exponent_err),
                (f"{exponent}_ci_low", record[exponent]["ci"][0]),
                (f"{exponent}_ci_high", record[exponent]["ci"][1]),
                ("amplitude", fit.amplitude), ("chi2_per_dof", fit.chi2_per_dof),
                ("n_points", fit.n_points), ("window_low", fit.window[0]),
                ("window_high", fit.window[1])]:
            arrays[name][k] = value
        used[k] = fit.used
        for j, row in enumerate(result["scan"]):
            scans[f"{critical_name}_scan"][(*k, j)] = np.nan if row["critical"] is None \
                else row["critical"]
            scans[f"{exponent}_scan"][(*k, j)] = np.nan if row["exponent"] is None \
                else row["exponent"]
    long_names = {
        critical_name: f"critical {control}", exponent: f"critical exponent {exponent}",
        "amplitude": "amplitude A of v_a = A s^exponent", "chi2_per_dof": "reduced chi-square",
        "n_points": "points in the fitting window", "window_low": "smallest control value used",
        "window_high": "largest control value used"}
    data_vars = {}
    for name, values in arrays.items():
        base = name.split("_ci_")[0].removesuffix("_err")
        text = long_names.get(base, base)
        if name.endswith("_err"):
            text = f"1-sigma fit error of {text}"
        elif "_ci_" in name:
            text = f"{'lower' if name.endswith('low') else 'upper'} end of the 68 % bootstrap " \
                   f"interval of {text}"
        data_vars[name] = (label_dims, values, {"long_name": text})
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
    ds.attrs = netcdf_attrs({"title": f"critical-point fit ({control})", "control": control,
                             "coordinate": coordinate, "exponent": exponent, "select": select,
                             "window_rule": WINDOW_RULE, "study": summary.attrs.get("study", ""),
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


def finite_size_scaling(summary: xr.Dataset, control: str = "eta", size: str = "L",
                        collapse_window: float = 0.3, resamples: int = 30, seed: int = 0
                        ) -> tuple[xr.Dataset, dict[str, Any]]:
    """Finite-size analysis of a summary with several sizes (see module docstring)."""
    coordinate, _, _ = _control(control)
    if size not in summary.coords:
        raise crit.CriticalFitError(f"summary has no size coordinate '{size}'")
    (size_dim,) = summary[size].dims
    (control_dim,) = summary[coordinate].dims
    if size_dim == control_dim:
        raise crit.CriticalFitError("size and control must lie on different dimensions")
    data = summary.transpose(size_dim, control_dim, ...)
    lengths = data[size].values.astype(float)
    x = data[coordinate].values.astype(float)
    v = data["replicate_order_parameter"].values
    err = data["replicate_order_parameter_err"].values
    chi = data["replicate_susceptibility"].values
    binder = data["replicate_binder_cumulant"].values
    binder_err = data["replicate_binder_cumulant_err"].values
    m1 = data["order_parameter_mean"].transpose(size_dim, control_dim, "seed").values
    m2 = data["order_parameter_m2"].transpose(size_dim, control_dim, "seed").values
    n_particles = (data["N"].values if "N" in data.coords else np.ones(len(lengths)))
    n_particles = np.broadcast_to(np.asarray(n_particles, float), lengths.shape)
    rng = np.random.default_rng(seed)
    critical_name = f"{control}_c"
    n_sizes, n_seeds = len(lengths), m1.shape[-1]

    peaks = np.array([crit.susceptibility_peak(x, chi[i]) for i in range(n_sizes)])
    peak_boot = np.full((n_sizes, 2), np.nan)
    for i in range(n_sizes):
        if n_seeds < 2:
            break
        values = []
        for _ in range(resamples):
            a, b = (drawn.mean(axis=1) for drawn in crit.resample_seeds(rng, m1[i], m2[i]))
            values.append(crit.susceptibility_peak(x, n_particles[i] * (b - a * a))[0])
        peak_boot[i] = crit.percentile_interval(np.array(values))
    peak_err = np.where(np.isfinite(peak_boot[:, 1]), 0.5 * (peak_boot[:, 1] - peak_boot[:, 0]),
                        np.diff(x).mean() / 2)
    peak_err = np.maximum(peak_err, np.diff(x).min() / 10)

    crossings = [crit.binder_crossings(x, binder[i], binder[i + 1]) for i in range(n_sizes - 1)]
    flags_binder = [crit.binder_minimum(x, binder[i], binder_err[i]) for i in range(n_sizes)]
    histogram = data["order_parameter_histogram"].transpose(size_dim, control_dim, "seed",
                                                            "bin").values.mean(axis=2)
    nearest = [int(np.argmin(np.abs(x - peaks[i, 0]))) for i in range(n_sizes)]
    flags_bimodal = [crit.is_bimodal(histogram[i, nearest[i]]) for i in range(n_sizes)]

    document: dict[str, Any] = {
        "control": control, "size": size, "sizes": lengths.tolist(),
        f"{critical_name}_chi": [{"value": float(peaks[i, 0]), "ci": peak_boot[i].tolist()}
                                 for i in range(n_sizes)],
        "binder_crossings": [{"sizes": [float(lengths[i]), float(lengths[i + 1])],
                              control: crossings[i]} for i in range(n_sizes - 1)],
        "binder_minimum": [bool(f) for f in flags_binder],
        "bimodal": [bool(f) for f in flags_bimodal],
    }
    document["discontinuity_suspected"] = bool(any(flags_binder) or any(flags_bimodal))
    scalars: dict[str, float] = {}
    try:
        extrapolation = crit.extrapolate(lengths, peaks[:, 0], peak_err)
        scalars.update({f"{critical_name}_inf": extrapolation.critical,
                        f"{critical_name}_inf_err": extrapolation.critical_err,
                        "inverse_nu": extrapolation.inverse_nu,
                        "inverse_nu_err": extrapolation.inverse_nu_err,
                        "extrapolation_amplitude": extrapolation.amplitude})
        document["extrapolation"] = dict(scalars)
        guess = [extrapolation.critical, 0.5, extrapolation.inverse_nu]
        if not x.min() < extrapolation.critical < x.max():
            guess = [float(peaks[-1, 0]), 0.5, 1.0]  # an unusable extrapolation: start nearby
    except crit.CriticalFitError as error:
        document["extrapolation"] = {"error": str(error)}
        guess = [float(peaks[-1, 0]), 0.5, 1.0]
    try:
        best = crit.collapse(x, v, err, lengths, guess, collapse_window)
        boot = _collapse_bootstrap(x, m1, lengths, best, collapse_window, resamples, rng, err)
        intervals = [crit.percentile_interval(boot[:, j]) if boot.size else (np.nan, np.nan)
                     for j in range(3)]
        scalars.update({f"collapse_{critical_name}": best.critical,
                        "collapse_beta_over_nu": best.beta_over_nu,
                        "collapse_inverse_nu": best.inverse_nu,
                        "collapse_quality": best.quality})
        document["collapse"] = {
            critical_name: {"value": best.critical, "ci": list(intervals[0])},
            "beta_over_nu": {"value": best.beta_over_nu, "ci": list(intervals[1])},
            "inverse_nu": {"value": best.inverse_nu, "ci": list(intervals[2])},
            "quality": best.quality, "window": collapse_window,
            "bootstrap": {"resamples": resamples, "successful": int(boot.shape[0])}}
        for j, name in enumerate([f"collapse_{critical_name}", "collapse_beta_over_nu",
                                  "collapse_inverse_nu"]):
            scalars[f"{name}_ci_low"], scalars[f"{name}_ci_high"] = intervals[j]
    except crit.CriticalFitError as error:
        document["collapse"] = {"error": str(error)}

    pairs = max(n_sizes - 1, 0)
    first_crossing = [c[0] if c else np.nan for c in crossings]
    ds = xr.Dataset(
        {
            f"{critical_name}_chi": (size_dim, peaks[:, 0], {
                "long_name": f"{control} at the susceptibility maximum"}),
            f"{critical_name}_chi_ci_low": (size_dim, peak_boot[:, 0], {
                "long_name": "lower end of the 68 % bootstrap interval"}),
            f"{critical_name}_chi_ci_high": (size_dim, peak_boot[:, 1], {
                "long_name": "upper end of the 68 % bootstrap interval"}),
            "susceptibility_peak": (size_dim, peaks[:, 1], {
                "long_name": "maximum of the susceptibility"}),
            "binder_minimum": (size_dim, np.array(flags_binder, np.int8), {
                "long_name": "1 where the Binder cumulant dips below 1/3 (3 sigma)"}),
            "bimodal": (size_dim, np.array(flags_bimodal, np.int8), {
                "long_name": "1 where the v_a histogram near the chi peak is bimodal"}),
            "binder_crossing": ("size_pair", np.array(first_crossing[:pairs], float), {
                "long_name": f"{control} where G of consecutive sizes cross (first crossing)"}),
            "order_parameter_histogram_near_peak": (
                [size_dim, "bin"], np.array([histogram[i, nearest[i]] for i in range(n_sizes)]),
                {"long_name": "seed-averaged v_a histogram at the point nearest the chi peak"}),
            **{name: ((), value) for name, value in scalars.items()},
        },
        coords={size_dim: data[size_dim], size: data[size], "bin": data["bin"],
                "size_pair": ("size_pair", np.arange(pairs))},
    )
    ds.attrs = netcdf_attrs({"title": "finite-size scaling", "control": control, "size": size,
                             "collapse_window": collapse_window,
                             "discontinuity_suspected": document["discontinuity_suspected"],
                             "study": summary.attrs.get("study", ""), **provenance_attrs()})
    return ds, document


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
                                   [best.critical, best.beta_over_nu, best.inverse_nu], window)
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
