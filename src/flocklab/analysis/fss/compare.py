r"""Single-size effective fits against the susceptibility maxima of the same study.

A study with both a ``critical`` section (one rounded power-law fit per size, whose
:math:`x_c` is an *effective*, size-dependent shape parameter) and an ``fss`` section is
checked once more: per size, does the fit's :math:`x_c(L)` lie where χ has its maximum?

.. math:: z_L = \frac{|\hat x_{\mathrm{fit}} - \hat x^*|}{\sqrt{h_{\mathrm{fit}}^2 + h_\chi^2}},

with :math:`h` the half-widths of the two 68 % intervals. Nothing else enters the
denominator: the fit's own rounding width describes the curve's shape, not an uncertainty
of where its centre lies, and adding it would let any gap pass. The verdict is *agree* when
every size compared has :math:`z_L \le 2`, *disagree* otherwise, *not compared* when the
fits are not one per size or no size has both numbers.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import xarray as xr

#: Largest z of an agreeing size.
AGREEMENT_Z = 2.0


def fit_peak_z(fitted: np.ndarray, fit_half: np.ndarray, peaks: np.ndarray,
               peak_half: np.ndarray) -> np.ndarray:
    """:math:`z_L` of the module docstring, shape (S,); NaN where either is missing."""
    fitted, peaks = np.asarray(fitted, float), np.asarray(peaks, float)
    scale = np.hypot(np.asarray(fit_half, float), np.asarray(peak_half, float))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.abs(fitted - peaks) / scale


def _nan_none(values: np.ndarray) -> list[float | None]:
    return [None if not np.isfinite(v) else float(v) for v in values]


def fits_against_peaks(fss: xr.Dataset, critical: xr.Dataset, limit: float = AGREEMENT_Z
                       ) -> tuple[dict[str, Any], dict[str, Any]]:
    """Compare ``critical.nc``'s per-size fits with ``fss.nc``'s χ maxima.

    Parameters
    ----------
    fss : xarray.Dataset
        :func:`flocklab.analysis.fss.finite_size_scaling`'s dataset (``peak_location`` and
        its interval on ``size``).
    critical : xarray.Dataset
        :func:`flocklab.analysis.critical.fit_critical_summary`'s dataset of the same study
        (``<c>_c`` and its interval per curve, one curve per size).
    limit : float
        Largest z of an agreeing size.

    Returns
    -------
    variables : dict
        ``name -> (dims, values, attrs)`` on ``size`` for the FSS dataset
        (``effective_x_c`` with its interval, ``fit_peak_z``; empty when not compared).
    entry : dict
        ``verdict``, ``text``, ``limit`` and per size ``sizes``, ``fitted``, ``peaks``, ``z``.
    """
    name = f"{fss.attrs.get('control', '')}_c"
    if "refused" in critical.attrs:
        return {}, {"verdict": "not compared", "limit": limit,
                    "text": f"not compared: no size could be fitted ({critical.attrs['refused']})"}
    size = str(fss.attrs.get("size", "size"))
    dims = critical[name].dims if name in critical else ()
    if len(dims) != 1 or size not in critical.coords or critical[size].dims != dims:
        return {}, {"verdict": "not compared", "limit": limit,
                    "text": f"not compared: the effective fits are not one per {size}"}
    fit = critical.swap_dims({dims[0]: size}) if dims[0] != size else critical
    fit = fit[[name, f"{name}_ci_low", f"{name}_ci_high"]].reindex(
        {size: fss["size"].values})
    fitted = fit[name].values
    fit_half = (fit[f"{name}_ci_high"].values - fit[f"{name}_ci_low"].values) / 2
    peaks = fss["peak_location"].values
    peak_half = (fss["peak_location_ci_high"].values - fss["peak_location_ci_low"].values) / 2
    z = fit_peak_z(fitted, fit_half, peaks, peak_half)
    sizes = fss["size"].values
    entry = {"limit": limit, "sizes": sizes.tolist(), "fitted": _nan_none(fitted),
             "peaks": _nan_none(peaks), "z": _nan_none(z),
             **_verdict(fss.attrs.get("control", ""), size, sizes, fitted, peaks, z, limit)}
    units = {"units": fss["peak_location"].attrs.get("units", "1")}
    variables = {
        "effective_x_c": ("size", fitted, {**units, "long_name": "critical value of the "
                                           "single-size effective fit"}),
        "effective_x_c_ci_low": ("size", fit[f"{name}_ci_low"].values, {
            **units, "long_name": "lower end of the effective fit's 68 % interval"}),
        "effective_x_c_ci_high": ("size", fit[f"{name}_ci_high"].values, {
            **units, "long_name": "upper end of the effective fit's 68 % interval"}),
        "fit_peak_z": ("size", z, {"units": "1", "long_name": "distance between the "
                                   "effective fit's and the susceptibility maximum's "
                                   "critical value in combined half-widths"}),
    }
    return variables, entry


def _verdict(control: str, size: str, sizes: np.ndarray, fitted: np.ndarray,
             peaks: np.ndarray, z: np.ndarray, limit: float) -> dict[str, str]:
    both = np.isfinite(z)
    if not both.any():
        return {"verdict": "not compared",
                "text": "not compared: no size has both an effective fit and a χ maximum"}
    listed = ", ".join(f"{size} = {s:g}: fit {f:.3g}, χ maximum {p:.3g} (z = {v:.1f})"
                       for s, f, p, v in zip(sizes[both], fitted[both], peaks[both], z[both],
                                             strict=True))
    if np.all(z[both] <= limit):
        return {"verdict": "agree", "text": f"the effective fits and the susceptibility "
                f"maxima locate the same {control}_c(L) within z <= {limit:g} ({listed})"}
    return {"verdict": "disagree", "text": f"the effective fits and the susceptibility "
            f"maxima locate different {control}_c(L) ({listed}): the fitted value describes "
            f"the curve's shape at that size, not a critical point"}


def with_fit_comparison(fss: xr.Dataset, document: Mapping[str, Any], critical: xr.Dataset
                        ) -> tuple[xr.Dataset, dict[str, Any]]:
    """The FSS results with :func:`fits_against_peaks` added: its variables, the attribute
    ``fit_peak_verdict`` and the JSON entry ``effective_fits_against_peaks``."""
    variables, entry = fits_against_peaks(fss, critical)
    out = fss.assign(variables)
    out.attrs = {**fss.attrs, "fit_peak_verdict": entry["verdict"]}
    return out, {**document, "effective_fits_against_peaks": entry}
