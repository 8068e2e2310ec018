r"""The finite-size scaling of a summary as a JSON document and a dataset.

:func:`finite_size_scaling` is the analysis the pipeline's ``fss`` stage and the
``flocklab fss`` command run. Its JSON document holds, each as ``{"value", "ci"}`` (68 %)
or ``{"value": null, "refused": reason}``:

=========================  ===============================================================
key                        meaning
=========================  ===============================================================
x_c                        critical value, Binder crossings extrapolated in L
nu, inverse_nu             correlation-length exponent from the Binder slope at x_c
beta_over_nu               from P(x_c, L) ∝ L^(-β/ν)
gamma_over_nu              from χ_max(L) ∝ L^(γ/ν)
hyperscaling               2β/ν + γ/ν − d (0 where hyperscaling holds)
binder_crossings           per size pair: sizes, x, U there, counted
peaks                      per size: χ-maximum location and height, at_edge
binder_slopes,             per size: the Binder slope magnitude and P at x_c
order_at_critical
peak_shift                 x*(L) = x_c + a L^(-1/ν): x_c, inverse_nu, at_bound
collapse                   x_c, beta_over_nu, inverse_nu, quality S, overlaps, window
drift_without_smallest     each headline estimate without the smallest size, its shift,
                           the shift's interval and z
discontinuity              per size binder_dip and bimodal, suspected
bootstrap                  resamples, replicates, level, factor, failed per quantity
warnings, verdict          what limits the numbers; one paragraph with them
=========================  ===============================================================

The dataset (``fss.nc``) carries the same numbers and the data's curves per size (on
``size`` × ``point``), so that its figures need no other file.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import xarray as xr

from flocklab.analysis.fss.analysis import (
    HEADLINE,
    RESAMPLES,
    Resampled,
    bootstrap_record,
    entry,
    finite_size_analysis,
    flagged_intervals,
    options_from,
)
from flocklab.analysis.fss.data import FssData, fss_data, jackknife_errors, sample_curves
from flocklab.analysis.fss.dataset import build_dataset, largest_chi
from flocklab.analysis.fss.estimate import Options, size_pairs
from flocklab.analysis.fss.flags import binder_dip, is_bimodal
from flocklab.analysis.reading import observable_symbol

SYMBOLS = {"x_c": "x_c", "nu": "ν", "inverse_nu": "1/ν", "beta_over_nu": "β/ν",
           "gamma_over_nu": "γ/ν", "hyperscaling": "2β/ν + γ/ν − d"}

METHOD = ("finite-size scaling: x_c from Binder-cumulant crossings of size pairs (counted "
          "where the curves differ by 2 sigma on both sides) extrapolated in L; 1/nu from the "
          "Binder slope at x_c; beta/nu from P(x_c, L); gamma/nu from the chi maxima; local "
          "quadratic fits on each size's grid; 68 % bootstrap intervals over replicates "
          "rerunning every estimator")


def finite_size_scaling(summary: xr.Dataset, control: str, size: str,
                        settings: Mapping[str, Any] | None = None, *, seed: int = 0
                        ) -> tuple[xr.Dataset, dict[str, Any]]:
    """Finite-size scaling of a summary (the module docstring lists the results).

    Parameters
    ----------
    summary : xarray.Dataset
        Per-run moments ``<P>_mean``, ``<P>_m2``, ``<P>_m4`` on control, size and
        replicate (see :func:`~.data.fss_data`).
    control, size : str
        The critical control and the size coordinate.
    settings : mapping, optional
        ``observable``, ``side``, ``dimension`` (2), ``select``, ``starts``,
        ``resamples`` (200),
        ``correction_exponent`` (1), ``collapse_window`` (1), ``points`` (5),
        ``collapse`` (true).
    seed : int
        Seed of the bootstrap draws.

    Returns
    -------
    dataset : xarray.Dataset
        Curves and estimates (no provenance attributes: the stage adds them).
    document : dict
        JSON-ready results.

    Raises
    ------
    CriticalFitError
        The summary cannot be analysed at all (fewer than two sizes or replicates, missing
        moments or coordinates).

    Examples
    --------
    >>> import flocklab
    >>> from flocklab.analysis.fss import finite_size_scaling
    >>> summary = flocklab.sweep("vicsek", [{"L": [3.0, 4.0], "N": [36, 64]},
    ...                                     {"eta": [1.0, 3.0, 5.0]}], replicates=2,
    ...                          steps=200, seed=1, params={"init": "aligned"})
    >>> _, document = finite_size_scaling(summary, "eta", "L", {"resamples": 10})
    >>> sorted(k for k in ("x_c", "nu", "beta_over_nu", "gamma_over_nu") if k in document)
    ['beta_over_nu', 'gamma_over_nu', 'nu', 'x_c']
    """
    settings = dict(settings or {})
    data = fss_data(summary, control, size, observable=settings.get("observable"),
                    side=settings.get("side"), dimension=float(settings.get("dimension", 2)),
                    select=settings.get("select"), starts=settings.get("starts"))
    options = options_from(settings, data.declared.ordered_side)
    resamples = int(settings.get("resamples", RESAMPLES))
    result, drift = finite_size_analysis(data, options, resamples, seed)
    document = fss_document(data, options, result, drift, resamples)
    dataset = build_dataset(data, result, document)
    dataset.attrs.update({"observable_symbol": observable_symbol(summary, data.observable),
                          "model": summary.attrs.get("model", "none"),
                          "study": summary.attrs.get("study", "")})
    return dataset, document


def _per_size(data: FssData, result: Resampled, name: str) -> list[dict[str, Any]]:
    return [{"size": float(data.sizes[s]), "length": float(data.lengths[s]),
             **entry(result, name, s)} for s in range(data.sizes.size)]


def _crossings(data: FssData, result: Resampled) -> list[dict[str, Any]]:
    out = []
    for j, (s, t) in enumerate(size_pairs(data.sizes.size)):
        value = result.full.values["crossing_value"][j]
        out.append({"sizes": [float(data.sizes[s]), float(data.sizes[t])],
                    "counted": bool(np.isfinite(result.full.values["crossing"][j])),
                    "x": entry(result, "crossing", j),
                    "binder": float(value) if np.isfinite(value) else None})
    return out


def _peaks(data: FssData, result: Resampled) -> list[dict[str, Any]]:
    edge = result.full.values["peak_at_edge"]
    return [{"size": float(data.sizes[s]), "length": float(data.lengths[s]),
             "x": entry(result, "peak_location", s), "height": entry(result, "peak_height", s),
             "at_edge": bool(edge[s])} for s in range(data.sizes.size)]


#: Family-wise significance of the hysteresis test over all points (Bonferroni).
HYSTERESIS_LEVEL = 0.01


def hysteresis_record(data: FssData) -> dict[str, Any] | None:
    """Per size the largest z between the two starts, the threshold (two-sided
    :data:`HYSTERESIS_LEVEL` over all points, Bonferroni) and the points beyond it."""
    if data.hysteresis is None:
        return None
    from scipy import stats

    count = int(np.isfinite(data.hysteresis).sum())
    threshold = float(stats.norm.isf(HYSTERESIS_LEVEL / (2 * max(count, 1))))
    largest = [float(np.nanmax(row)) if np.isfinite(row).any() else None
               for row in data.hysteresis]
    beyond = np.nan_to_num(data.hysteresis, nan=0.0) > threshold
    return {"max_z": largest, "threshold": threshold, "points": count,
            "apart": beyond.sum(axis=1).tolist(), "found": bool(beyond.any())}


def discontinuity(data: FssData) -> dict[str, Any]:
    """Per size: a Binder dip (:func:`~.flags.binder_dip`), a bimodal histogram at the
    point of the largest χ (:func:`~.flags.is_bimodal`, None without histograms) and, with
    two starts, hysteresis (:func:`hysteresis_record`).

    A discontinuity is ``suspected`` where some size's Binder cumulant dips, where the
    largest size's histogram is bimodal (a small system of a scalar order parameter, Ising
    at L = 8, has a bimodal ``|m|`` near its χ maximum without any coexistence), or where
    the two starts stay apart at the largest size: coexistence grows with the system, while
    a small system's slow escape from a disordered start is no sign of it.
    """
    errors = jackknife_errors(data)
    curves = sample_curves(data, errors)
    side = data.declared.ordered_side
    dips = [binder_dip(curves.binder[s], curves.binder_err[s], side)
            for s in range(data.sizes.size)]
    bimodal: list[bool] | None = None
    if data.histogram is not None:
        bimodal = [is_bimodal(data.histogram[s, k]) for s, k in enumerate(largest_chi(data))]
    hysteresis = hysteresis_record(data)
    suspected = (any(dips) or (bimodal is not None and bimodal[-1])
                 or (hysteresis is not None and hysteresis["apart"][-1] > 0))
    return {"binder_dip": dips, "bimodal": bimodal, "hysteresis": hysteresis,
            "suspected": bool(suspected)}


def fss_document(data: FssData, options: Options, result: Resampled, drift: dict[str, Any],
                 resamples: int) -> dict[str, Any]:
    """The JSON document of the module docstring."""
    values = result.full.values
    document: dict[str, Any] = {
        "method": METHOD, "control": data.declared.key, "coordinate": data.declared.coordinate,
        "observable": data.observable, "size": data.size, "size_is_count": data.size_is_count,
        "dimension": data.dimension, "side": options.side, "sizes": data.sizes.tolist(),
        "lengths": data.lengths.tolist(),
        "points_per_size": np.sum(np.isfinite(data.x), axis=1).tolist(),
        "replicates": data.replicates,
        **{name: entry(result, name) for name in (*HEADLINE, "inverse_nu", "hyperscaling")},
        "correction_exponent": options.correction_exponent,
        "binder_crossings": _crossings(data, result), "peaks": _peaks(data, result),
        "binder_slopes": _per_size(data, result, "binder_slope"),
        "order_at_critical": _per_size(data, result, "order_at_critical"),
        "peak_shift": {"x_c": entry(result, "peak_shift_x_c"),
                       "inverse_nu": entry(result, "peak_shift_inverse_nu"),
                       "at_bound": bool(values["peak_shift_at_bound"])},
        "drift_without_smallest": drift, "discontinuity": discontinuity(data),
        "bootstrap": bootstrap_record(result, resamples),
    }
    if options.collapse:
        document["collapse"] = {
            **{k: entry(result, f"collapse_{k}")
               for k in ("x_c", "beta_over_nu", "inverse_nu", "quality")},
            "overlaps": int(values["collapse_overlaps"]), "window": options.collapse_window,
            "at_bound": bool(values["collapse_at_bound"])}
    document["short_points"] = _short_points(data)
    document["warnings"] = warnings_of(document, flagged_intervals(result, resamples))
    document["verdict"] = verdict(document)
    return document


def _short_points(data: FssData) -> list[int] | None:
    """Per size, the points whose runs hold fewer than 100 independent samples (median)."""
    if data.independent is None:
        return None
    return np.sum(np.isfinite(data.independent) & (data.independent < 100), axis=1).tolist()


def warnings_of(document: Mapping[str, Any], unreliable: list[str]) -> list[str]:
    """Sentences on what limits the numbers: refusals, drift, failed resamples, bounds,
    discontinuity, short runs, hyperscaling."""
    names = {**SYMBOLS, "x_c": f"{document['control']}_c"}
    out = [f"{names[name]} refused: {document[name]['refused']}" for name in HEADLINE
           if document[name].get("refused")]
    drift = document["drift_without_smallest"]
    moved = [names[name] for name in HEADLINE
             if isinstance(drift.get(name), dict) and drift[name].get("significant")]
    if moved:
        out.append(f"corrections to scaling: {', '.join(moved)} move by more than "
                   f"{2:g} half-widths when the smallest size is dropped")
    out += [f"{names[name]}: {document['bootstrap']['failed'][name]} of "
            f"{document['bootstrap']['resamples']} resamples failed; its interval is "
            f"unreliable" for name in unreliable]
    if document["peak_shift"]["at_bound"]:
        out.append("the peak-shift fit's 1/ν ran to a bound")
    if document.get("collapse", {}).get("at_bound"):
        out.append("the collapse's 1/ν ran to a bound")
    if document["discontinuity"]["suspected"]:
        out.append("discontinuity suspected (Binder dip, bimodal distribution or hysteresis): "
                   "the continuous-transition scaling forms may not apply")
    short = document.get("short_points") or []
    if any(short):
        out.append(f"points with fewer than 100 independent samples per run: {sum(short)}")
    gamma = document["gamma_over_nu"]
    if gamma.get("ci") and gamma["ci"][0] > document["dimension"]:
        out.append(f"γ/ν exceeds d = {document['dimension']:g}: the fluctuations grow faster "
                   f"than the volume, which no continuous transition allows (hyperscaling, "
                   f"β/ν ≥ 0); at these sizes χ_max is not in its scaling regime")
    hyper = document["hyperscaling"]
    if hyper.get("ci") and not hyper["ci"][0] <= 0 <= hyper["ci"][1]:
        out.append("hyperscaling 2β/ν + γ/ν = d is violated outside the 68 % interval")
    return out


def _text(value: Mapping[str, Any], digits: int = 4) -> str:
    if value.get("value") is None:
        return "refused"
    ci = value.get("ci")
    interval = f" [{ci[0]:.{digits}g}, {ci[1]:.{digits}g}]" if ci else " (no interval)"
    return f"{value['value']:.{digits}g}{interval}"


def verdict(document: Mapping[str, Any]) -> str:
    """One paragraph: the headline estimates with their intervals, then the warnings."""
    sizes = ", ".join(f"{s:g}" for s in document["sizes"])
    head = (f"{document['size']} = {sizes}, {document['replicates']} replicates: "
            + "; ".join(f"{SYMBOLS[n] if n != 'x_c' else document['control'] + '_c'} = "
                        f"{_text(document[n])}" for n in (*HEADLINE, "hyperscaling")))
    if document["x_c"].get("refused"):
        shift = document["peak_shift"]["x_c"]
        head += (". The Binder curves do not cross significantly at these sizes; " + (
            f"the χ maxima give {document['control']}_c = {_text(shift)} by the peak shift"
            if shift.get("value") is not None else f"the peak shift is refused too "
            f"({shift.get('refused')})"))
    warnings = document["warnings"]
    return head + (". " + "; ".join(warnings) + "." if warnings else ".")


