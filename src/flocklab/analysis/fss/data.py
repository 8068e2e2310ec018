r"""The input of finite-size scaling: per-run moments per size and control value.

A summary (flocklab's ``summary.nc`` or another simulator's) holds, per run, the moments
of the order parameter's magnitude, ``<P>_mean`` :math:`=\langle|P|\rangle`, ``<P>_m2``
:math:`=\langle P^2\rangle` and ``<P>_m4`` :math:`=\langle P^4\rangle`, on the control,
the size and a ``replicate`` (or ``seed``) dimension. Control and size may span a grid
(two dimensions) or one dimension of (size, control) points, so that each size may have
its own grid refined around its pseudo-critical point. :func:`fss_data` gathers them per
size, each size's points in increasing control; :func:`sample_curves` turns (resampled)
moments into the curves the estimators read,

.. math:: \chi = N(\overline{\langle P^2\rangle} - \overline{\langle|P|\rangle}^2),
          \qquad U = 1 - \frac{\overline{\langle P^4\rangle}}
                              {3\,\overline{\langle P^2\rangle}^2},

the bars averages over replicates (pooled moments: the run-to-run scatter of a run's mean
enters χ as it should), :math:`N` the number of elements (particles, spins).

The size coordinate is a linear size :math:`L`, or the element count :math:`N` (when it is
the summary's size parameter), then :math:`L = N^{1/d}`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import xarray as xr

from flocklab.analysis.fss.estimate import Curves
from flocklab.analysis.reading import (
    CriticalFitError,
    control_declaration,
    observable_name,
    replicate_dimension,
    summary_model,
)
from flocklab.core.model import CriticalControl


@dataclass(frozen=True)
class FssData:
    """Per-size arrays of a finite-size analysis, padded with NaN to M points per size.

    Attributes
    ----------
    declared : CriticalControl
        The control (its coordinate, ordered side, symbol).
    observable, size : str
        P and the summary's size coordinate.
    size_is_count : bool
        Whether the size coordinate is the element count N (then L = N^(1/d)).
    dimension : float
        Space dimension d.
    sizes : ndarray, shape (S,)
        The size coordinate's values, increasing.
    lengths : ndarray, shape (S,)
        Linear sizes L.
    x, counts : ndarray, shape (S, M)
        Control values (increasing per size) and element counts N of χ.
    m1, m2, m4 : ndarray, shape (S, M, K)
        Per-run moments of P (NaN: no run).
    histogram : ndarray, shape (S, M, B), or None
        Replicate-averaged histogram of P, where the summary has one; ``bins`` its centres.
    independent : ndarray, shape (S, M), or None
        Median number of independent samples (n / tau_int) of the runs at each point.
    control_units : str
        UDUNITS unit of the control.
    hysteresis : ndarray, shape (S, M), or None
        Where runs from two starts were pooled (``starts``): per point, how many standard
        errors apart the two starts' mean order parameters lie (:func:`~.flags.hysteresis_z`).
    """

    declared: CriticalControl
    observable: str
    size: str
    size_is_count: bool
    dimension: float
    sizes: np.ndarray
    lengths: np.ndarray
    x: np.ndarray
    counts: np.ndarray
    m1: np.ndarray
    m2: np.ndarray
    m4: np.ndarray
    histogram: np.ndarray | None = None
    bins: np.ndarray | None = None
    independent: np.ndarray | None = None
    control_units: str = "1"
    hysteresis: np.ndarray | None = None

    @property
    def replicates(self) -> int:
        """Replicates per point (the most any point has)."""
        return int(np.max(np.sum(np.isfinite(self.m1), axis=-1)))


def size_parameter_name(summary: xr.Dataset) -> str | None:
    """The summary's element-count parameter N (its model's ``size_parameter``)."""
    model = summary_model(summary)
    name = model.size_parameter if model is not None else summary.attrs.get("size_parameter")
    return None if not name or name == "none" else str(name)


def _counts(summary: xr.Dataset, size: str, like: xr.DataArray) -> tuple[xr.DataArray, bool]:
    """N broadcast like ``like`` and whether the size coordinate is N itself."""
    name = size_parameter_name(summary)
    if name == size:
        return summary[size].broadcast_like(like), True
    if name is not None and name in summary.coords:
        return summary[name].broadcast_like(like), False
    fixed = summary.attrs.get("fixed_parameters", "{}")
    fixed = json.loads(fixed) if isinstance(fixed, str) else dict(fixed)
    if name is not None and name in fixed:
        return xr.full_like(like, float(fixed[name]), dtype=float), False
    raise CriticalFitError(f"chi = N var needs the element count N: the summary names no size "
                           f"parameter with values ({name or 'none'}); give the count as "
                           f"the size coordinate or add it as a coordinate")


def _checked(summary: xr.Dataset, coordinate: str, size: str, observable: str
             ) -> tuple[str, list[str]]:
    """The replicate dimension and the point dimensions, after checking that the summary
    holds what finite-size scaling needs."""
    for name in (coordinate, size):
        if name not in summary.coords:
            raise CriticalFitError(f"summary has no coordinate '{name}'; coordinates: "
                                   f"{', '.join(map(str, summary.coords))}")
    replicate = replicate_dimension(summary, f"{observable}_mean")
    missing = [f"{observable}_{m}" for m in ("mean", "m2", "m4")
               if f"{observable}_{m}" not in summary]
    if missing:
        raise CriticalFitError(f"finite-size scaling needs the run moments "
                               f"{', '.join(missing)} in the summary")
    dims = [d for d in summary[f"{observable}_mean"].dims if d != replicate]
    spanned = set(summary[coordinate].dims) | set(summary[size].dims)
    extra = [d for d in dims if d not in spanned]
    if extra:
        raise CriticalFitError(f"the summary also varies along {', '.join(extra)}: select one "
                               f"value of it (--select {extra[0]}=VALUE, or the config's "
                               f"fss.select)")
    return replicate, dims


def _padded(groups: list[np.ndarray], values: np.ndarray) -> np.ndarray:
    """Rows ``values[group]`` of each group, padded with NaN to the longest group."""
    width = max(g.size for g in groups)
    out = np.full((len(groups), width, *values.shape[1:]), np.nan)
    for i, group in enumerate(groups):
        out[i, :group.size] = values[group]
    return out


def _selected(summary: xr.Dataset, select: Mapping[str, Any]) -> xr.Dataset:
    """The summary at one value of each named dimension.

    Raises
    ------
    CriticalFitError
        A name that is not a dimension, or a value the dimension does not hold.
    """
    for name, value in select.items():
        if name not in summary.dims:
            raise CriticalFitError(f"cannot select '{name}': not a dimension of the summary "
                                   f"({', '.join(map(str, summary.dims))})")
        if name not in summary.coords or value not in summary[name].values.tolist():
            held = summary[name].values.tolist() if name in summary.coords else "no values"
            raise CriticalFitError(f"{name} = {value} is not in the summary ({held})")
    return summary.sel(dict(select))


def pooled_starts(summary: xr.Dataset, starts: str, observable: str
                  ) -> tuple[xr.Dataset, xr.Dataset]:
    """The per-run moments (and histograms) with the runs of every start pooled into one
    ``replicate`` dimension, and the per-start runs of ``<P>_mean`` (and ``<P>_sem``) for
    the hysteresis test.

    Raises
    ------
    CriticalFitError
        ``starts`` is not a dimension of the summary with two values.
    """
    if starts not in summary.dims or summary.sizes[starts] != 2:
        raise CriticalFitError(f"starts: '{starts}' must be a dimension of the summary with "
                               f"two values (e.g. init: aligned, random)")
    replicate = replicate_dimension(summary, f"{observable}_mean")
    names = [f"{observable}_{m}" for m in ("mean", "m2", "m4", "histogram")
             if f"{observable}_{m}" in summary]
    runs = summary[names].stack(pooled=(starts, replicate))
    runs = runs.drop_vars([c for c in ("pooled", starts, replicate) if c in runs.coords])
    runs = runs.rename(pooled="replicate").assign_coords(
        replicate=np.arange(runs.sizes["pooled"] if "pooled" in runs.sizes
                            else runs.sizes["replicate"]))
    independent = f"replicate_{observable}_independent"
    if independent in summary and starts in summary[independent].dims:
        runs[independent] = summary[independent].min(starts)  # the shorter start counts
    runs.attrs = dict(summary.attrs)
    sem = f"{observable}_sem"
    by_start = summary[[f"{observable}_mean", *([sem] if sem in summary else [])]]
    return runs, by_start


def _hysteresis(by_start: xr.Dataset, starts: str, observable: str, dims: list[str],
                groups: list[np.ndarray]) -> np.ndarray:
    """Per point, :func:`~.flags.hysteresis_z` of the two starts' runs (with the runs'
    standard errors where the summary has them), padded per size."""
    from flocklab.analysis.fss.flags import hysteresis_z

    means = by_start[f"{observable}_mean"]
    replicate = next(d for d in means.dims if d not in (*dims, starts))

    def per_start(name: str) -> list[np.ndarray]:
        values = by_start[name].transpose(starts, *dims, replicate).values
        return [v.reshape(-1, by_start.sizes[replicate]) for v in values]

    sems = per_start(f"{observable}_sem") if f"{observable}_sem" in by_start else [None, None]
    first, second = per_start(f"{observable}_mean")
    return _padded(groups, hysteresis_z(first, second, sems[0], sems[1]))


def fss_data(summary: xr.Dataset, control: str, size: str, *, observable: str | None = None,
             side: str | None = None, dimension: float = 2.0,
             select: Mapping[str, Any] | None = None, starts: str | None = None) -> FssData:
    """Gather a summary's run moments per size (see the module docstring).

    Parameters
    ----------
    summary : xarray.Dataset
        Per-run ``<P>_mean``, ``<P>_m2``, ``<P>_m4`` on the control, the size and the
        replicate dimension.
    control : str
        The model's critical control (or, for a summary of no registered model, the
        control coordinate; ``side`` is then required).
    size : str
        Coordinate of the linear size L, or of the element count N (the summary's size
        parameter; then :math:`L = N^{1/d}`).
    observable : str, optional
        P (default: the summary's primary observable).
    side : {"below", "above"}, optional
        Ordered side (default: the model's declaration).
    dimension : float
        Space dimension d.
    select : mapping, optional
        One value of every further dimension of the summary (e.g. a density).
    starts : str, optional
        A dimension of two initial conditions (e.g. ``init``: aligned, random): their runs
        are pooled as replicates, and the two starts compared point by point (hysteresis).

    Raises
    ------
    CriticalFitError
        Missing coordinates or moments, an unselected extra dimension, fewer than two sizes
        or no element count.
    """
    declared = control_declaration(summary, control, side, need_side=True)
    observable = observable_name(summary, observable)
    if select:
        summary = _selected(summary, select)
    by_start = None
    if starts:
        summary, by_start = pooled_starts(summary, starts, observable)
    replicate, dims = _checked(summary, declared.coordinate, size, observable)
    moments = [f"{observable}_{m}" for m in ("mean", "m2", "m4")]
    point = summary[moments[0]].isel({replicate: 0}, drop=True)
    counts, size_is_count = _counts(summary, size, point)
    flat = {name: summary[name].transpose(*dims, replicate).values.reshape(-1, summary.sizes[
        replicate]) for name in moments}
    x = summary[declared.coordinate].broadcast_like(point).transpose(*dims).values.ravel()
    size_values = summary[size].broadcast_like(point).transpose(*dims).values.ravel()
    n = counts.transpose(*dims).values.ravel().astype(float)
    present = np.isfinite(flat[moments[0]]).any(axis=1) & np.isfinite(x)
    sizes = np.unique(size_values[present])
    if sizes.size < 2:
        raise CriticalFitError(f"finite-size scaling needs at least two sizes, the summary "
                               f"has {sizes.size} ({size} = {sizes.tolist()})")
    groups = [np.flatnonzero(present & (size_values == s)) for s in sizes]
    groups = [g[np.argsort(x[g], kind="stable")] for g in groups]
    lengths = sizes.astype(float) ** (1.0 / dimension) if size_is_count else sizes.astype(float)
    extra = _histogram_and_samples(summary, observable, dims, replicate, groups)
    hysteresis = (None if by_start is None
                  else _hysteresis(by_start, starts, observable, dims, groups))
    return FssData(declared, observable, size, size_is_count, float(dimension), sizes, lengths,
                   _padded(groups, x.astype(float)), _padded(groups, n),
                   *(_padded(groups, flat[m]) for m in moments), *extra,
                   str(summary[declared.coordinate].attrs.get("units", "1")), hysteresis)


def _histogram_and_samples(summary: xr.Dataset, observable: str, dims: list[str],
                           replicate: str, groups: list[np.ndarray]) -> tuple[Any, ...]:
    """Replicate-averaged histograms (and their bin centres) and median independent
    samples per point, where the summary has them."""
    histogram = bins = independent = None
    name = f"{observable}_histogram"
    if name in summary and "bin" in summary[name].dims:
        values = summary[name].mean(replicate).transpose(*dims, "bin").values
        histogram = _padded(groups, values.reshape(-1, summary.sizes["bin"]))
        bins = summary["bin"].values.astype(float)
    name = f"replicate_{observable}_independent"
    if name in summary and set(summary[name].dims) <= set(dims):
        values = summary[name].broadcast_like(summary[f"{observable}_mean"].isel(
            {replicate: 0}, drop=True)).transpose(*dims).values.ravel()
        independent = _padded(groups, values.astype(float))
    return histogram, bins, independent


def pooled_curves(m1: np.ndarray, m2: np.ndarray, m4: np.ndarray, counts: np.ndarray
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:math:`\\langle|P|\\rangle`, χ and U from per-run moments, averaging the last axis
    (any leading shape; NaN runs ignored)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        a1 = np.nanmean(m1, axis=-1)
        a2 = np.nanmean(m2, axis=-1)
        a4 = np.nanmean(m4, axis=-1)
        return a1, counts * (a2 - a1**2), 1.0 - a4 / (3.0 * a2**2)


def jackknife_errors(data: FssData) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r"""Standard errors of :math:`\langle|P|\rangle`, χ and U per point, delete-one
    jackknife over the replicates, :math:`\sigma^2 = \frac{k-1}{k}\sum_r(\theta_{(r)} -
    \bar\theta_{(\cdot)})^2` (NaN with fewer than two replicates)."""
    k = np.sum(np.isfinite(data.m1), axis=-1)
    sums = [np.nansum(m, axis=-1, keepdims=True) for m in (data.m1, data.m2, data.m4)]
    with np.errstate(invalid="ignore", divide="ignore"):
        kk = (k - 1)[..., None]
        left = [(total - m) / kk for total, m in zip(sums, (data.m1, data.m2, data.m4),
                                                      strict=True)]
        a1, a2, a4 = left
        values = (a1, data.counts[..., None] * (a2 - a1**2), 1.0 - a4 / (3.0 * a2**2))
        out = []
        for theta in values:
            theta = np.where(np.isfinite(data.m1), theta, np.nan)
            spread = np.nansum((theta - np.nanmean(theta, axis=-1, keepdims=True)) ** 2,
                               axis=-1)
            out.append(np.where(k >= 2, np.sqrt((k - 1) / k * spread), np.nan))
    return out[0], out[1], out[2]


def sample_curves(data: FssData, errors: tuple[np.ndarray, ...],
                  picks: np.ndarray | None = None) -> Curves:
    """The :class:`Curves` of the data (``picks`` None) or of a resample: ``picks`` of
    shape (S, M, K) are replicate indices drawn at every point."""
    moments = (data.m1, data.m2, data.m4)
    if picks is not None:
        moments = tuple(np.take_along_axis(m, picks, axis=-1) for m in moments)
    order, chi, binder = pooled_curves(*moments, data.counts)
    return Curves(data.lengths, data.x, order, chi, binder, *errors)


def draw_picks(data: FssData, rng: np.random.Generator) -> np.ndarray:
    """Replicate indices drawn with replacement at every point, among its present runs."""
    present = np.sum(np.isfinite(data.m1), axis=-1, keepdims=True)
    u = rng.random(data.m1.shape)
    order = np.argsort(~np.isfinite(data.m1), axis=-1, kind="stable")  # present runs first
    chosen = np.minimum((u * np.maximum(present, 1)).astype(int), data.m1.shape[-1] - 1)
    return np.take_along_axis(order, chosen, axis=-1)
