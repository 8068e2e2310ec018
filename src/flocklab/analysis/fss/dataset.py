"""The netCDF form of a finite-size scaling (``fss.nc``): curves per size and estimates.

Dimensions ``size`` (S), ``point`` (the longest size's grid, NaN-padded) and ``pair``
(S(S−1)/2 size pairs). Every estimate ``<q>`` comes with ``<q>_ci_low`` and
``<q>_ci_high`` (68 %); NaN where refused (the JSON document says why).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import xarray as xr

from flocklab.analysis.fss.data import FssData, jackknife_errors, sample_curves
from flocklab.analysis.fss.estimate import size_pairs

#: Long names and units ("x": the control's unit) of the scalar estimates.
SCALARS = {
    "x_c": ("critical value from the extrapolated Binder crossings", "x"),
    "nu": ("correlation-length exponent nu", "1"),
    "inverse_nu": ("1/nu from the Binder slope at the critical value", "1"),
    "beta_over_nu": ("beta/nu from the order parameter at the critical value", "1"),
    "gamma_over_nu": ("gamma/nu from the susceptibility maxima", "1"),
    "hyperscaling": ("hyperscaling residual 2 beta/nu + gamma/nu - d", "1"),
    "peak_shift_x_c": ("critical value from the shift of the susceptibility maxima", "x"),
    "peak_shift_inverse_nu": ("1/nu from the shift of the susceptibility maxima", "1"),
    "collapse_x_c": ("critical value of the best data collapse", "x"),
    "collapse_beta_over_nu": ("beta/nu of the best data collapse", "1"),
    "collapse_inverse_nu": ("1/nu of the best data collapse", "1"),
    "collapse_quality": ("Houdayer-Hartmann quality S of the best collapse", "1"),
}

#: Per-size estimates.
PER_SIZE = {
    "peak_location": ("control value of the susceptibility maximum", "x"),
    "peak_height": ("height of the susceptibility maximum", "1"),
    "binder_slope": ("magnitude of the Binder cumulant's slope at the critical value", "x-1"),
    "order_at_critical": ("order parameter at the critical value", "1"),
}


def _units(unit: str, control_unit: str) -> str:
    if unit == "x":
        return control_unit
    if unit == "x-1":
        return "1" if control_unit in ("1", "") else f"{control_unit}-1"
    return unit


def _with_interval(result: Any, name: str, dims: tuple[str, ...], long_name: str,
                   units: str) -> dict[str, Any]:
    value = result.full.values[name]
    low, high = result.interval(name)
    return {name: (dims, value, {"long_name": long_name, "units": units}),
            f"{name}_ci_low": (dims, low, {"long_name": f"lower end of the 68 % interval of "
                                                        f"{name}", "units": units}),
            f"{name}_ci_high": (dims, high, {"long_name": f"upper end of the 68 % interval "
                                                          f"of {name}", "units": units})}


def _curves(data: FssData, control_unit: str) -> dict[str, Any]:
    curves = sample_curves(data, jackknife_errors(data))
    dims = ("size", "point")
    named = {"order": f"replicate-averaged {data.observable}",
             "chi": "susceptibility N (<P^2> - <|P|>^2)",
             "binder": "Binder cumulant 1 - <P^4> / (3 <P^2>^2)"}
    out: dict[str, Any] = {"control": (dims, curves.x, {"long_name": data.declared.coordinate,
                                                          "units": control_unit})}
    for name, long_name in named.items():
        out[name] = (dims, getattr(curves, name), {"long_name": long_name, "units": "1"})
        out[f"{name}_err"] = (dims, getattr(curves, f"{name}_err"), {
            "long_name": f"standard error of {name} (jackknife over replicates)", "units": "1"})
    return out


def largest_chi(data: FssData) -> np.ndarray:
    """Per size, the grid index of the largest susceptibility of the data."""
    chi = sample_curves(data, jackknife_errors(data)).chi
    return np.array([int(np.argmax(np.where(np.isfinite(row), row, -np.inf))) for row in chi])


def _histograms(data: FssData) -> dict[str, Any]:
    """Each size's replicate-averaged histogram at its largest χ, and that control value."""
    if data.histogram is None:
        return {}
    k = largest_chi(data)
    rows = np.arange(data.sizes.size)
    return {"histogram_at_peak": (("size", "bin"), data.histogram[rows, k], {
                "long_name": f"fraction of records of {data.observable} per bin at the "
                             f"largest susceptibility", "units": "1"}),
            "histogram_control": ("size", data.x[rows, k], {
                "long_name": "control value of the histogram", "units": data.control_units})}


def build_dataset(data: FssData, result: Any, document: Mapping[str, Any]) -> xr.Dataset:
    """``fss.nc`` of one analysis (no provenance attributes)."""
    unit = data.control_units
    variables = _curves(data, unit)
    for name, (long_name, units) in SCALARS.items():
        if name in result.full.values:
            variables.update(_with_interval(result, name, (), long_name, _units(units, unit)))
    for name, (long_name, units) in PER_SIZE.items():
        variables.update(_with_interval(result, name, ("size",), long_name,
                                        _units(units, unit)))
    variables.update(_with_interval(result, "crossing", ("pair",),
                                    "control value where the Binder cumulants of the pair "
                                    "cross", unit))
    pairs = np.array(size_pairs(data.sizes.size), int).reshape(-1, 2)
    flags = document["discontinuity"]
    variables.update({
        "crossing_binder": ("pair", result.full.values["crossing_value"], {
            "long_name": "Binder cumulant at the crossing", "units": "1"}),
        "peak_at_edge": ("size", result.full.values["peak_at_edge"].astype(np.int8), {
            "long_name": "1 where the largest susceptibility is at an end of the grid"}),
        "binder_dip": ("size", np.array(flags["binder_dip"], np.int8), {
            "long_name": "1 where the Binder cumulant dips below its disordered end"}),
    })
    if flags["bimodal"] is not None:
        variables["bimodal"] = ("size", np.array(flags["bimodal"], np.int8), {
            "long_name": f"1 where the {data.observable} histogram at the chi maximum is "
                         f"bimodal"})
    variables.update(_histograms(data))
    coords = {"size": ("size", data.sizes, {"long_name": data.size}),
              "length": ("size", data.lengths, {"long_name": "linear size L", "units": "1"}),
              "pair_small": ("pair", data.sizes[pairs[:, 0]] if pairs.size else [], {
                  "long_name": "smaller size of the pair"}),
              "pair_large": ("pair", data.sizes[pairs[:, 1]] if pairs.size else [], {
                  "long_name": "larger size of the pair"}),
              "pair_length": ("pair", np.sqrt(data.lengths[pairs[:, 0]]
                                              * data.lengths[pairs[:, 1]]) if pairs.size else [],
                              {"long_name": "geometric mean of the pair's linear sizes",
                               "units": "1"})}
    if data.bins is not None:
        coords["bin"] = ("bin", data.bins, {"long_name": f"centre of the {data.observable} "
                                                         f"bin"})
    dataset = xr.Dataset(variables, coords=coords)
    dataset.attrs = {
        "title": "finite-size scaling", "control": data.declared.key,
        "coordinate": data.declared.coordinate, "symbol": data.declared.symbol,
        "size": data.size, "observable": data.observable, "side": data.declared.ordered_side,
        "dimension": data.dimension, "replicates": data.replicates,
        "discontinuity_suspected": int(flags["suspected"]), "verdict": document["verdict"]}
    return dataset
