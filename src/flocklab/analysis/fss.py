r"""Finite-size scaling (FSS) of an order–disorder transition (pure functions).

Primitives on arrays, for sizes :math:`L` (rows) and control values :math:`x` (columns):

* :func:`susceptibility_peak` — the location :math:`x_c(L)` of the maximum of
  :math:`\chi = N(\langle P^2\rangle - \langle P\rangle^2)`;
* :func:`binder_crossings` — where the Binder cumulants
  :math:`G_L = 1 - \langle P^4\rangle / (3\langle P^2\rangle^2)` of two sizes cross;
* :func:`extrapolate` — :math:`x_c(L) = x_c(\infty) + a L^{-1/\nu}`;
* :func:`collapse` — minimise the collapse quality :math:`S` (Houdayer & Hartmann 2004) of
  :math:`P L^{\beta/\nu}` against :math:`(x - x_c) L^{1/\nu}` over
  :math:`(x_c, \beta/\nu, 1/\nu)`;
* :func:`binder_minimum`, :func:`is_bimodal` — signs of a discontinuous transition
  (Grégoire & Chaté 2004; Chaté et al., PRE 77, 046113, 2008);
* :func:`peak_bootstrap`, :func:`collapse_bootstrap` — 68 % intervals by resampling seeds.

* :func:`fits_against_peaks` — whether a study's rounded fits and its χ maxima locate the
  same :math:`x_c(L)` (:func:`fit_peak_z`), added by :func:`with_fit_comparison`.

:func:`finite_size_scaling` applies them to a study's summary (dataset in, dataset and
JSON-ready dict out). The result, written to ``results/<study>/fss.nc`` (and
``fss.json``) by :func:`flocklab.stages.critical.run_fss`: per size the
susceptibility-peak estimate ``<c>_c_chi`` (with bootstrap interval), Binder-cumulant
crossings of consecutive sizes, ``binder_minimum`` and ``bimodal`` flags, ``peak_at_edge``
(the largest χ at an end of the range: no maximum, left out of the extrapolation and of the
comparison with the fits); the extrapolation
``<c>_c_inf`` and ``inverse_nu``; the data collapse ``collapse_<c>_c``,
``collapse_beta_over_nu``, ``collapse_inverse_nu`` with bootstrap intervals; attribute
``discontinuity_suspected``. The size dimension is the config's ``size``; χ = N var uses the
model's size parameter N (a coordinate of the summary or a fixed parameter; an error
otherwise). The control and the observable are read from the summary as for the power-law
fits (:func:`flocklab.analysis.critical.control_declaration`,
:func:`flocklab.analysis.critical.observable_name`).

References
----------
K. Binder, Z. Phys. B 43, 119 (1981).
J. Houdayer, A. K. Hartmann, Phys. Rev. B 70, 014418 (2004).
G. Grégoire, H. Chaté, Phys. Rev. Lett. 92, 025702 (2004).
H. Chaté, F. Ginelli, G. Grégoire, F. Raynaud, Phys. Rev. E 77, 046113 (2008).
"""

from __future__ import annotations

import itertools
import json
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import xarray as xr
from scipy import optimize

from flocklab.analysis.critical import (
    ERROR_FLOOR,
    CriticalFitError,
    control_declaration,
    observable_name,
    observable_symbol,
    percentile_interval,
    replicate_dimension,
    resample_seeds,
    summary_model,
)
from flocklab.analysis.timeseries import susceptibility
from flocklab.core.model import CriticalControl
from flocklab.core.provenance import netcdf_attrs

# --------------------------------------------------------------------------- primitives


def _largest_susceptibility(chi: np.ndarray) -> tuple[int, bool]:
    """Index of the largest χ (NaN ignored) and whether it is the first or last point (then
    χ has no maximum inside the range)."""
    k = int(np.nanargmax(chi))
    return k, k in (0, len(chi) - 1)


def susceptibility_peak(x: np.ndarray, chi: np.ndarray) -> tuple[float, float]:
    r"""Location and height of the maximum of :math:`\chi(x)`.

    The vertex of the parabola through the largest value and its two neighbours,
    :math:`x^* = -b / (2a)` for :math:`\chi \approx a x^2 + b x + c` on those three points
    (clipped to them); the grid point itself at an edge of the range or where the three
    points are not concave.

    Parameters
    ----------
    x : ndarray, shape (n,)
        Control values, increasing.
    chi : ndarray, shape (n,)
        Susceptibility at each x (NaN ignored).

    Returns
    -------
    location, height : float
        :math:`x^*` (units of x) and :math:`\chi(x^*)` on the parabola.

    References
    ----------
    K. Binder, D. W. Heermann, *Monte Carlo Simulation in Statistical Physics*, Springer
    (2010), §2.3 (the χ maximum as a pseudo-critical point).
    """
    x = np.asarray(x, float)
    chi = np.asarray(chi, float)
    k, at_edge = _largest_susceptibility(chi)
    if at_edge:
        return float(x[k]), float(chi[k])
    coefficients = np.polyfit(x[k - 1:k + 2], chi[k - 1:k + 2], 2)
    if coefficients[0] >= 0:
        return float(x[k]), float(chi[k])
    vertex = -coefficients[1] / (2 * coefficients[0])
    vertex = float(np.clip(vertex, x[k - 1], x[k + 1]))
    return vertex, float(np.polyval(coefficients, vertex))


def binder_crossings(x: np.ndarray, first: np.ndarray, second: np.ndarray,
                     plateau_margin: float = 0.02) -> list[float]:
    r"""Control values where two Binder-cumulant curves cross (linear interpolation).

    With :math:`d_k = G_L(x_k) - G_{L'}(x_k)` changing sign between :math:`x_k` and
    :math:`x_{k+1}`, the crossing is :math:`x_k - d_k (x_{k+1} - x_k) / (d_{k+1} - d_k)`
    (:math:`x_k` itself where :math:`d_k = 0`). Crossings on the ordered plateau (both
    curves within ``plateau_margin`` of 2/3, where they touch trivially, e.g. G = 2/3
    exactly at zero noise) are not reported.

    Parameters
    ----------
    x : ndarray, shape (n,)
        Control values, increasing.
    first, second : ndarray, shape (n,)
        Binder cumulants (dimensionless) of two sizes.
    plateau_margin : float
        Distance from 2/3 counted as the ordered plateau.

    Returns
    -------
    list of float
        Crossings in increasing order (units of x).

    References
    ----------
    K. Binder, Z. Phys. B 43, 119 (1981).
    """
    x = np.asarray(x, float)
    first = np.asarray(first, float)
    second = np.asarray(second, float)
    difference = first - second
    on_plateau = ((np.abs(first - 2 / 3) < plateau_margin)
                  & (np.abs(second - 2 / 3) < plateau_margin))
    crossings = []
    for k in range(x.size - 1):
        a, b = difference[k], difference[k + 1]
        if on_plateau[k] or on_plateau[k + 1]:
            continue
        if a == 0:
            crossings.append(float(x[k]))
        elif np.isfinite(a) and np.isfinite(b) and a * b < 0:
            crossings.append(float(x[k] - a * (x[k + 1] - x[k]) / (b - a)))
    return crossings


@dataclass(frozen=True)
class Extrapolation:
    """:math:`x_c(L) = x_c(\\infty) + a L^{-1/\\nu}`."""

    critical: float
    amplitude: float
    inverse_nu: float
    critical_err: float
    inverse_nu_err: float


def extrapolate(sizes: np.ndarray, critical: np.ndarray, err: np.ndarray,
                inverse_nu_guess: float = 1.0) -> Extrapolation:
    r"""Weighted fit of :math:`x_c(L) = x_c(\infty) + a L^{-1/\nu}`.

    Parameters
    ----------
    sizes : ndarray, shape (n,)
        Linear sizes L (at least 4 with finite ``critical`` and ``err``).
    critical, err : ndarray, shape (n,)
        Pseudo-critical points :math:`x_c(L)` and their standard errors (units of x).
    inverse_nu_guess : float
        Start of :math:`1/\nu` (bounded to [0.05, 5]).

    Returns
    -------
    Extrapolation
        :math:`x_c(\infty)`, :math:`a`, :math:`1/\nu` and the 1σ errors of the first and
        last from the fit covariance.

    Raises
    ------
    CriticalFitError
        Fewer than 4 sizes, no convergence, or :math:`1/\nu` at a bound.

    References
    ----------
    M. E. Fisher, M. N. Barber, Phys. Rev. Lett. 28, 1516 (1972).
    """
    sizes = np.asarray(sizes, float)
    critical = np.asarray(critical, float)
    err = np.maximum(np.asarray(err, float), ERROR_FLOOR)
    good = np.isfinite(critical) & np.isfinite(err)
    if good.sum() < 4:
        raise CriticalFitError(f"extrapolation needs x_c(L) at >= 4 sizes, got {int(good.sum())}")
    sizes, critical, err = sizes[good], critical[good], err[good]
    p0 = [critical[np.argmax(sizes)], (critical[np.argmin(sizes)] - critical[np.argmax(sizes)])
          * sizes.min() ** inverse_nu_guess, inverse_nu_guess]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", optimize.OptimizeWarning)
        try:
            params, covariance = optimize.curve_fit(
                lambda size, c, a, w: c + a * size ** (-w), sizes, critical, p0=p0, sigma=err,
                absolute_sigma=True, bounds=([-np.inf, -np.inf, 0.05], [np.inf, np.inf, 5.0]),
                max_nfev=20000)
        except RuntimeError as error:
            raise CriticalFitError(f"extrapolation did not converge: {error}") from None
    if not 0.05 * 1.001 < params[2] < 5.0 * 0.999:
        raise CriticalFitError(f"extrapolation ill-conditioned: 1/nu ran to the bound "
                               f"{params[2]:.3g} (x_c(L) too noisy or too few sizes)")
    sigma = np.sqrt(np.diag(covariance))
    return Extrapolation(float(params[0]), float(params[1]), float(params[2]), float(sigma[0]),
                         float(sigma[2]))


def collapse_quality(params: Sequence[float], x: np.ndarray, v: np.ndarray, err: np.ndarray,
                     sizes: np.ndarray, window: float) -> float:
    r"""Houdayer–Hartmann quality :math:`S` of a data collapse (1 for a perfect collapse).

    Scaled data :math:`X = (x - x_c) L^{1/\nu}`, :math:`Y = v L^{\beta/\nu}` per size
    (rows of ``v``). For every point, the other sizes whose X range covers it are linearly
    interpolated at its X; :math:`S` is the mean of
    :math:`(Y - \bar Y)^2 / (\delta Y^2 + \delta\bar Y^2)` with :math:`\bar Y` the
    weighted mean of the point and the interpolations. Only points with
    :math:`|x - x_c| \le` ``window`` · :math:`x_c` enter.

    Parameters
    ----------
    params : (x_c, beta/nu, 1/nu)
    x : ndarray, shape (n_x,)
    v, err : ndarray, shape (n_sizes, n_x)
    sizes : ndarray, shape (n_sizes,)
    window : float

    Returns
    -------
    float
        :math:`S` (dimensionless; ``inf`` when no scaled point is covered by another size).

    References
    ----------
    J. Houdayer, A. K. Hartmann, Phys. Rev. B 70, 014418 (2004).
    """
    critical, beta_over_nu, inverse_nu = params
    inside = np.abs(x - critical) <= window * abs(critical)
    if inside.sum() < 2:
        return np.inf
    scale_x = sizes[:, None] ** inverse_nu
    scale_y = sizes[:, None] ** beta_over_nu
    big_x = (x[None, inside] - critical) * scale_x
    big_y = v[:, inside] * scale_y
    big_err = err[:, inside] * scale_y
    total = 0.0
    count = 0
    for i in range(sizes.size):
        deviation, covered = _collapse_deviation(i, big_x, big_y, big_err)
        total += float(np.sum(deviation[covered]))
        count += int(covered.sum())
    return total / count if count else np.inf


def _collapse_deviation(i: int, big_x: np.ndarray, big_y: np.ndarray, big_err: np.ndarray
                        ) -> tuple[np.ndarray, np.ndarray]:
    """Normalised squared deviations of size ``i``'s scaled points from the weighted mean of
    them and the other sizes' interpolations, and which points another size covers."""
    weight_sum = 1.0 / big_err[i] ** 2
    weighted = big_y[i] * weight_sum
    covered = np.zeros(big_x.shape[1], bool)
    for k in range(big_x.shape[0]):
        if k == i:
            continue
        xs = big_x[k]
        in_range = (big_x[i] >= xs[0]) & (big_x[i] <= xs[-1])
        m = np.clip(np.searchsorted(xs, big_x[i]) - 1, 0, xs.size - 2)
        t = (big_x[i] - xs[m]) / (xs[m + 1] - xs[m])
        value = (1 - t) * big_y[k, m] + t * big_y[k, m + 1]
        variance = ((1 - t) * big_err[k, m]) ** 2 + (t * big_err[k, m + 1]) ** 2
        covered |= in_range
        weight = np.where(in_range, 1.0 / np.maximum(variance, ERROR_FLOOR**2), 0.0)
        weight_sum = weight_sum + weight
        weighted = weighted + weight * np.where(in_range, value, 0.0)
    mean = weighted / weight_sum
    return (big_y[i] - mean) ** 2 / (big_err[i] ** 2 + 1.0 / weight_sum), covered


@dataclass(frozen=True)
class Collapse:
    """Result of :func:`collapse`: :math:`x_c`, :math:`\\beta/\\nu`, :math:`1/\\nu` and
    the quality :math:`S` at the optimum."""

    critical: float
    beta_over_nu: float
    inverse_nu: float
    quality: float


#: Start grid of :func:`collapse`: beta/nu values and multiples of the guessed 1/nu.
COLLAPSE_BETA_OVER_NU = (0.05, 0.1, 0.2, 0.35, 0.5, 0.75, 1.0)
COLLAPSE_INVERSE_NU_FACTORS = (0.5, 0.7, 1.0, 1.4, 2.0)
COLLAPSE_STARTS = 3


def collapse(x: np.ndarray, v: np.ndarray, err: np.ndarray, sizes: np.ndarray,
             guess: Sequence[float], window: float = 0.3, grid_starts: bool = True
             ) -> Collapse:
    r"""Minimise :func:`collapse_quality` over :math:`(x_c, \beta/\nu, 1/\nu)`.

    :math:`S` is piecewise smooth with local minima (points enter and leave the window),
    so the quality is first evaluated on a grid at :math:`x_c` = ``guess[0]``
    (:data:`COLLAPSE_BETA_OVER_NU` and ``guess[1]`` × :data:`COLLAPSE_INVERSE_NU_FACTORS`
    × ``guess[2]``), and Nelder–Mead runs from the :data:`COLLAPSE_STARTS` best grid
    points; the best end point is returned. With ``grid_starts=False`` Nelder–Mead runs
    from ``guess`` alone (for bootstrap resamples started at the original optimum).

    Parameters
    ----------
    x : ndarray, shape (n_x,)
        Control values, increasing.
    v, err : ndarray, shape (n_sizes, n_x)
        Observable P per size and its standard error.
    sizes : ndarray, shape (n_sizes,)
        Linear sizes L, increasing.
    guess : (x_c, beta/nu, 1/nu)
        Start of the search.
    window : float
        Points with :math:`|x - x_c| \le` ``window`` · :math:`x_c` enter.
    grid_starts : bool
        Start from the grid (True) or from ``guess`` alone.

    Raises
    ------
    CriticalFitError
        Fewer than two sizes, or no overlapping scaled points.

    References
    ----------
    J. Houdayer, A. K. Hartmann, Phys. Rev. B 70, 014418 (2004).
    """
    x = np.asarray(x, float)
    sizes = np.asarray(sizes, float)
    v = np.asarray(v, float)
    err = np.maximum(np.asarray(err, float), ERROR_FLOOR)
    if sizes.size < 2:
        raise CriticalFitError("a data collapse needs at least two sizes")

    def objective(params):
        if params[2] <= 0.01:
            return np.inf
        return collapse_quality(params, x, v, err, sizes, window)

    starts = [np.asarray(guess, float)]
    if grid_starts:
        grid = [np.array([guess[0], b, guess[2] * f], float)
                for b in sorted({float(guess[1]), *COLLAPSE_BETA_OVER_NU})
                for f in COLLAPSE_INVERSE_NU_FACTORS]
        values = np.array([objective(start) for start in grid])
        starts = [grid[k] for k in np.argsort(values, kind="stable")[:COLLAPSE_STARTS]]
    best = None
    for start in starts:
        result = optimize.minimize(objective, start, method="Nelder-Mead",
                                   options={"xatol": 1e-4, "fatol": 1e-6, "maxiter": 4000})
        if best is None or result.fun < best.fun:
            best = result
    if not np.isfinite(best.fun):
        raise CriticalFitError("data collapse found no overlapping scaled points")
    return Collapse(float(best.x[0]), float(best.x[1]), float(best.x[2]), float(best.fun))


def binder_minimum(x: np.ndarray, binder: np.ndarray, err: np.ndarray) -> bool:
    r"""True if :math:`G(x)` dips significantly below both 1/3 and its disordered end.

    With :math:`k` the minimum of G (not the last point),
    :math:`G_k < \min(1/3, G_{\mathrm{last}}) - 3\,\delta G_k`: a sign of phase
    coexistence (discontinuous transition).

    Parameters
    ----------
    x : ndarray, shape (n,)
        Control values, ordered towards the disordered end (unused but for the shape).
    binder, err : ndarray, shape (n,)
        Binder cumulant (dimensionless) and its standard error.

    References
    ----------
    H. Chaté, F. Ginelli, G. Grégoire, F. Raynaud, Phys. Rev. E 77, 046113 (2008).
    """
    binder = np.asarray(binder, float)
    err = np.asarray(err, float)
    k = int(np.nanargmin(binder))
    if k == binder.size - 1:
        return False
    threshold = min(1 / 3, binder[-1]) - 3 * np.nan_to_num(err[k], nan=0.0)
    return bool(binder[k] < threshold)


def is_bimodal(histogram: np.ndarray, prominence: float = 0.2) -> bool:
    """True if a histogram has two peaks each at least ``prominence`` × its maximum above
    the lowest point between them (after a 3-bin moving average).

    Parameters
    ----------
    histogram : ndarray, shape (bins,)
        Counts or fractions per bin.
    prominence : float
        Required depth of the valley, as a fraction of the (smoothed) maximum.

    References
    ----------
    G. Grégoire, H. Chaté, Phys. Rev. Lett. 92, 025702 (2004) (bimodal order-parameter
    distributions at a discontinuous flocking transition).
    """
    counts = np.convolve(np.asarray(histogram, float), np.ones(3) / 3, mode="same")
    if counts.max() <= 0:
        return False
    peaks = [k for k in range(1, counts.size - 1)
             if counts[k] >= counts[k - 1] and counts[k] > counts[k + 1]]
    if counts[0] > counts[1]:
        peaks.insert(0, 0)
    if counts[-1] > counts[-2]:
        peaks.append(counts.size - 1)
    height = prominence * counts.max()
    for a, b in itertools.pairwise(peaks):
        valley = counts[a:b + 1].min()
        if counts[a] - valley >= height and counts[b] - valley >= height:
            return True
    return False


# --------------------------------------------------------------------------- bootstraps


def peak_bootstrap(x: np.ndarray, m1: np.ndarray, m2: np.ndarray,
                   n_particles: np.ndarray | None, resamples: int, rng: np.random.Generator
                   ) -> np.ndarray:
    r"""68 % interval of the χ-peak location per size, resampling seeds.

    Per resample the seeds are drawn with replacement at every point
    (:func:`flocklab.analysis.critical.resample_seeds`), the moments averaged,
    :math:`\chi = N(\langle P^2\rangle - \langle P\rangle^2)` recomputed and its peak
    located (:func:`susceptibility_peak`); the interval is the 16th–84th percentile.

    Parameters
    ----------
    x : ndarray, shape (n_x,)
        Control values.
    m1, m2 : ndarray, shape (n_sizes, n_x, n_seeds)
        Per-run moments :math:`\langle P\rangle`, :math:`\langle P^2\rangle`.
    n_particles : ndarray, shape (n_sizes, n_x)
        N of χ (unused with one seed, may then be None).
    resamples : int
    rng : numpy Generator

    Returns
    -------
    ndarray, shape (n_sizes, 2)
        Lower and upper end (units of x); NaN with fewer than two seeds.

    References
    ----------
    B. Efron, R. J. Tibshirani, *An Introduction to the Bootstrap*, Chapman & Hall (1993).
    """
    n_sizes, _, n_seeds = m1.shape
    intervals = np.full((n_sizes, 2), np.nan)
    if n_seeds < 2:
        return intervals
    for i in range(n_sizes):
        values = []
        for _ in range(resamples):
            a, b = (drawn.mean(axis=1) for drawn in resample_seeds(rng, m1[i], m2[i]))
            values.append(susceptibility_peak(x, susceptibility(a, b, n_particles[i]))[0])
        intervals[i] = percentile_interval(np.array(values))
    return intervals


def collapse_bootstrap(x: np.ndarray, m1: np.ndarray, lengths: np.ndarray, best: Collapse,
                       window: float, resamples: int, rng: np.random.Generator,
                       err: np.ndarray) -> np.ndarray:
    r"""The data collapse repeated on seed resamples, started at the optimum ``best``.

    Per resample the seeds are drawn with replacement at every point, P averaged and its
    standard error recomputed (``err`` where the resample has no spread), and
    :func:`collapse` run from ``best`` without the start grid; failed resamples are
    dropped.

    Parameters
    ----------
    x : ndarray, shape (n_x,)
    m1 : ndarray, shape (n_sizes, n_x, n_seeds)
        Per-run means of P.
    lengths : ndarray, shape (n_sizes,)
    best : Collapse
    window : float
    resamples : int
    rng : numpy Generator
    err : ndarray, shape (n_sizes, n_x)
        Fallback standard errors.

    Returns
    -------
    ndarray, shape (successful resamples, 3)
        :math:`(x_c, \beta/\nu, 1/\nu)` per resample; empty with fewer than two seeds.

    References
    ----------
    B. Efron, R. J. Tibshirani, *An Introduction to the Bootstrap*, Chapman & Hall (1993).
    """
    n_seeds = m1.shape[-1]
    if n_seeds < 2:
        return np.empty((0, 3))
    values = []
    for _ in range(resamples):
        (drawn,) = resample_seeds(rng, m1)
        mean = drawn.mean(axis=2)
        spread = drawn.std(axis=2, ddof=1) / np.sqrt(n_seeds)
        try:
            result = collapse(x, mean, np.where(spread > 0, spread, err), lengths,
                              [best.critical, best.beta_over_nu, best.inverse_nu], window,
                              grid_starts=False)
        except CriticalFitError:
            continue
        values.append([result.critical, result.beta_over_nu, result.inverse_nu])
    return np.array(values).reshape(-1, 3)


# --------------------------------------------------------------------------- from a summary


def size_parameter_values(summary: xr.Dataset, like: xr.DataArray) -> np.ndarray:
    """The model's size parameter N (of χ = N var), broadcast like ``like``.

    From the summary's coordinate of that name, or from its fixed parameters when N is not
    swept.

    Returns
    -------
    ndarray, shape of ``like``
        N as floats.

    Raises
    ------
    CriticalFitError
        The model declares no size parameter, or N is neither a coordinate nor fixed.
    """
    model = summary_model(summary)
    name = model.size_parameter if model is not None else summary.attrs.get("size_parameter")
    if not name or name == "none":
        raise CriticalFitError("finite-size scaling needs chi = N var, but the summary's "
                               "model declares no size parameter")
    if name in summary.coords:
        return summary[name].broadcast_like(like).transpose(*like.dims).values.astype(float)
    fixed = summary.attrs.get("fixed_parameters", "{}")
    fixed = json.loads(fixed) if isinstance(fixed, str) else dict(fixed)
    if name in fixed:
        return np.full(like.shape, float(fixed[name]))
    raise CriticalFitError(f"finite-size scaling needs the size parameter '{name}' "
                           f"(chi = {name} var): it is neither a coordinate nor a fixed "
                           f"parameter of the summary")


@dataclass(frozen=True)
class FssInputs:
    """Arrays of the FSS analysis, sizes first, then control values.

    Attributes
    ----------
    size_dim : str
        The summary's dimension of the sizes.
    data : xarray.Dataset
        The summary transposed to (size, control, ...).
    lengths : ndarray, shape (n_sizes,)
    x : ndarray, shape (n_x,)
    v, err : ndarray, shape (n_sizes, n_x)
        Replicate mean of P and its error.
    chi, binder, binder_err : ndarray, shape (n_sizes, n_x)
        Replicate χ, G and the error of G.
    m1, m2 : ndarray, shape (n_sizes, n_x, n_seeds)
        Per-run moments of P.
    n_particles : ndarray, shape (n_sizes, n_x), or None
        N of χ (None with one replicate: only the bootstrap needs it).
    histogram : ndarray, shape (n_sizes, n_x, bins), or None
        Seed-averaged histogram of P, where the summary has one.
    """

    size_dim: str
    data: xr.Dataset
    lengths: np.ndarray
    x: np.ndarray
    v: np.ndarray
    err: np.ndarray
    chi: np.ndarray
    binder: np.ndarray
    binder_err: np.ndarray
    m1: np.ndarray
    m2: np.ndarray
    n_particles: np.ndarray | None
    histogram: np.ndarray | None


def _check_fss_summary(summary: xr.Dataset, coordinate: str, size: str, observable: str
                       ) -> tuple[str, str]:
    """The size and control dimensions, after checking the summary has what FSS needs."""
    if size not in summary.coords:
        raise CriticalFitError(f"summary has no size coordinate '{size}'")
    if coordinate not in summary.coords:
        raise CriticalFitError(f"summary has no coordinate '{coordinate}'")
    (size_dim,) = summary[size].dims
    (control_dim,) = summary[coordinate].dims
    if size_dim == control_dim:
        raise CriticalFitError("size and control must lie on different dimensions")
    p = observable
    needed = [f"replicate_{p}", f"replicate_{p}_err", "replicate_susceptibility",
              "replicate_binder_cumulant", "replicate_binder_cumulant_err", f"{p}_mean",
              f"{p}_m2"]
    missing = [name for name in needed if name not in summary]
    if missing:
        raise CriticalFitError(f"finite-size scaling needs {', '.join(missing)} in the "
                               f"summary")
    return size_dim, control_dim


def fss_inputs(summary: xr.Dataset, coordinate: str, size: str, observable: str
               ) -> FssInputs:
    """The arrays of the FSS analysis of P = ``observable`` (see :class:`FssInputs`).

    Raises
    ------
    CriticalFitError
        Missing coordinates or variables, size and control on one dimension.
    """
    size_dim, control_dim = _check_fss_summary(summary, coordinate, size, observable)
    p = observable
    replicate_dim = replicate_dimension(summary, f"{p}_mean")
    data = summary.transpose(size_dim, control_dim, ...)
    mean = data[f"replicate_{p}"]
    per_run = (size_dim, control_dim, replicate_dim)
    histogram = None
    if f"{p}_histogram" in data:
        histogram = data[f"{p}_histogram"].transpose(*per_run, "bin").values.mean(axis=2)
    return FssInputs(
        size_dim=size_dim, data=data, lengths=data[size].values.astype(float),
        x=data[coordinate].values.astype(float), v=mean.values,
        err=data[f"replicate_{p}_err"].values,
        chi=data["replicate_susceptibility"].values,
        binder=data["replicate_binder_cumulant"].values,
        binder_err=data["replicate_binder_cumulant_err"].values,
        m1=data[f"{p}_mean"].transpose(*per_run).values,
        m2=data[f"{p}_m2"].transpose(*per_run).values,
        # N enters only the bootstrap of chi, which needs two replicates or more
        n_particles=(size_parameter_values(data, mean)
                     if data.sizes[replicate_dim] >= 2 else None),
        histogram=histogram)


@dataclass(frozen=True)
class PeakEstimates:
    """Per-size results of :func:`finite_size_scaling` before extrapolation and collapse.

    Attributes
    ----------
    peaks : ndarray, shape (n_sizes, 2)
        Location and height of the χ maximum.
    interval : ndarray, shape (n_sizes, 2)
        Its 68 % bootstrap interval (NaN with one seed).
    err : ndarray, shape (n_sizes,)
        Error of the location used by the extrapolation: half the interval (half the mean
        grid step without one), at least a tenth of the smallest grid step.
    crossings : list of list of float, length n_sizes - 1
        Binder crossings of consecutive sizes.
    binder_minimum, bimodal : list, length n_sizes
        Discontinuity flags (``bimodal`` None without a histogram).
    nearest : list of int, length n_sizes
        Index of the grid point nearest each peak.
    at_edge : ndarray of bool, shape (n_sizes,)
        Where the largest χ lies at the first or last control value: no maximum inside the
        range, so no pseudo-critical point (left out of the extrapolation and of the
        comparison with the fits).
    """

    peaks: np.ndarray
    interval: np.ndarray
    err: np.ndarray
    crossings: list[list[float]]
    binder_minimum: list[bool]
    bimodal: list[bool | None]
    nearest: list[int]
    at_edge: np.ndarray

    def interior_locations(self) -> np.ndarray:
        """The χ-maximum locations with NaN where the maximum is at an edge of the range."""
        return np.where(self.at_edge, np.nan, self.peaks[:, 0])


def peak_estimates(inputs: FssInputs, resamples: int, rng: np.random.Generator,
                   side: str = "below") -> PeakEstimates:
    """χ peaks with their bootstrap, Binder crossings and discontinuity flags per size
    (``side``: the ordered side, so that the Binder minimum is sought towards disorder)."""
    x, n_sizes = inputs.x, len(inputs.lengths)
    peaks = np.array([susceptibility_peak(x, inputs.chi[i]) for i in range(n_sizes)])
    interval = peak_bootstrap(x, inputs.m1, inputs.m2, inputs.n_particles, resamples, rng)
    err = np.where(np.isfinite(interval[:, 1]), 0.5 * (interval[:, 1] - interval[:, 0]),
                   np.diff(x).mean() / 2)
    err = np.maximum(err, np.diff(x).min() / 10)
    crossings = [binder_crossings(x, inputs.binder[i], inputs.binder[i + 1])
                 for i in range(n_sizes - 1)]
    order = slice(None) if side == "below" else slice(None, None, -1)
    flags_binder = [binder_minimum(x[order], inputs.binder[i][order],
                                   inputs.binder_err[i][order]) for i in range(n_sizes)]
    nearest = [int(np.argmin(np.abs(x - peaks[i, 0]))) for i in range(n_sizes)]
    histogram = inputs.histogram
    flags_bimodal = [None] * n_sizes if histogram is None else [
        is_bimodal(histogram[i, nearest[i]]) for i in range(n_sizes)]
    at_edge = np.array([_largest_susceptibility(inputs.chi[i])[1] for i in range(n_sizes)])
    return PeakEstimates(peaks, interval, err, crossings, flags_binder, flags_bimodal, nearest,
                         at_edge)


def extrapolation_entry(lengths: np.ndarray, peaks: np.ndarray, peak_err: np.ndarray,
                        x: np.ndarray) -> tuple[dict[str, float], dict[str, Any], list[float]]:
    r""":func:`extrapolate` of the χ-peak locations, and a start for the collapse.

    Parameters
    ----------
    lengths : ndarray, shape (n_sizes,)
    peaks : ndarray, shape (n_sizes, 2)
        Location and height of each χ maximum.
    peak_err : ndarray, shape (n_sizes,)
    x : ndarray, shape (n_x,)
        Control values (the collapse start must lie inside them).

    Returns
    -------
    scalars : dict
        ``inf``, ``inf_err``, ``inverse_nu``, ``inverse_nu_err``,
        ``extrapolation_amplitude`` (empty where the extrapolation failed).
    entry : dict
        The same, or ``{"error": reason}``.
    guess : list of float
        :math:`(x_c, \beta/\nu, 1/\nu)` to start the collapse from: the extrapolation
        with :math:`\beta/\nu = 0.5`, or the largest size's peak and (0.5, 1) where the
        extrapolation failed or left the range of x.
    """
    finite = peaks[np.isfinite(peaks[:, 0]), 0]
    fallback = [float(finite[-1]) if finite.size else float(np.median(x)), 0.5, 1.0]
    try:
        result = extrapolate(lengths, peaks[:, 0], peak_err)
    except CriticalFitError as error:
        return {}, {"error": str(error)}, fallback
    scalars = {"inf": result.critical, "inf_err": result.critical_err,
               "inverse_nu": result.inverse_nu, "inverse_nu_err": result.inverse_nu_err,
               "extrapolation_amplitude": result.amplitude}
    guess = [result.critical, 0.5, result.inverse_nu]
    if not x.min() < result.critical < x.max():
        guess = fallback   # an unusable extrapolation: start the collapse nearby
    return scalars, dict(scalars), guess


def collapse_entry(inputs: FssInputs, guess: Sequence[float], window: float, resamples: int,
                   rng: np.random.Generator, critical_name: str
                   ) -> tuple[dict[str, float], dict[str, Any]]:
    """:func:`collapse` of the replicate means with :func:`collapse_bootstrap` intervals.

    Returns
    -------
    scalars : dict
        ``collapse_<critical_name>``, ``collapse_beta_over_nu``, ``collapse_inverse_nu``
        with ``_ci_low``/``_ci_high`` each, and ``collapse_quality`` (empty on failure).
    entry : dict
        JSON entry: values with intervals, quality, window, bootstrap counts (or
        ``{"error": reason}``).
    """
    try:
        best = collapse(inputs.x, inputs.v, inputs.err, inputs.lengths, guess, window)
    except CriticalFitError as error:
        return {}, {"error": str(error)}
    boot = collapse_bootstrap(inputs.x, inputs.m1, inputs.lengths, best, window, resamples,
                              rng, inputs.err)
    intervals = [percentile_interval(boot[:, j]) if boot.size else (np.nan, np.nan)
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
    r"""Finite-size analysis of a summary with several sizes (see the module docstring).

    χ peaks :math:`x_c(L)` with bootstrap intervals, Binder crossings, discontinuity
    flags, the extrapolation :math:`x_c(L) = x_c(\infty) + a L^{-1/\nu}` and the data
    collapse of :math:`P L^{\beta/\nu}` against :math:`(x - x_c) L^{1/\nu}`.

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

    Returns
    -------
    dataset : xarray.Dataset
        Per-size variables on the size dimension, crossings on ``size_pair``, scalars
        (no provenance attributes: the stage adds them).
    document : dict
        JSON-ready digest.

    References
    ----------
    K. Binder, Z. Phys. B 43, 119 (1981); J. Houdayer, A. K. Hartmann, Phys. Rev. B 70,
    014418 (2004).
    """
    declared = control_declaration(summary, control, need_side=False)
    observable = observable_name(summary, observable)
    inputs = fss_inputs(summary, declared.coordinate, size, observable)
    rng = np.random.default_rng(seed)
    critical_name = f"{declared.key}_c"
    estimates = peak_estimates(inputs, resamples, rng, declared.ordered_side)
    document = _fss_document(declared, observable, size, inputs.lengths, estimates)
    interior = np.column_stack([estimates.interior_locations(), estimates.peaks[:, 1]])
    extrapolated, document["extrapolation"], guess = extrapolation_entry(
        inputs.lengths, interior, estimates.err, inputs.x)
    scalars = {(f"{critical_name}_{k}" if k.startswith("inf") else k): value
               for k, value in extrapolated.items()}
    if extrapolated:
        document["extrapolation"] = dict(scalars)
    collapsed, document["collapse"] = collapse_entry(inputs, guess, collapse_window,
                                                     resamples, rng, critical_name)
    scalars.update(collapsed)
    ds = _fss_dataset(inputs, declared, observable, size, estimates, scalars)
    ds.attrs = netcdf_attrs({
        "title": "finite-size scaling", "control": declared.key,
        "coordinate": declared.coordinate, "symbol": declared.symbol, "size": size,
        "observable": observable, "observable_symbol": observable_symbol(summary, observable),
        "collapse_window": collapse_window,
        "discontinuity_suspected": document["discontinuity_suspected"],
        "model": summary.attrs.get("model", "none"), "study": summary.attrs.get("study", "")})
    return ds, document


def _fss_document(declared: CriticalControl, observable: str, size: str, lengths: np.ndarray,
                  estimates: PeakEstimates) -> dict[str, Any]:
    """JSON entries of the per-size results (extrapolation and collapse are added after)."""
    n_sizes = len(lengths)
    document: dict[str, Any] = {
        "control": declared.key, "coordinate": declared.coordinate, "observable": observable,
        "size": size, "sizes": lengths.tolist(),
        f"{declared.key}_c_chi": [{"value": float(estimates.peaks[i, 0]),
                                   "ci": estimates.interval[i].tolist()}
                                  for i in range(n_sizes)],
        "binder_crossings": [{"sizes": [float(lengths[i]), float(lengths[i + 1])],
                              declared.key: estimates.crossings[i]}
                             for i in range(n_sizes - 1)],
        "peak_at_edge": [bool(f) for f in estimates.at_edge],
        "binder_minimum": [bool(f) for f in estimates.binder_minimum],
        "bimodal": [None if f is None else bool(f) for f in estimates.bimodal],
    }
    document["discontinuity_suspected"] = bool(any(estimates.binder_minimum)
                                               or any(estimates.bimodal))
    return document


def _fss_dataset(inputs: FssInputs, declared: CriticalControl, observable: str, size: str,
                 estimates: PeakEstimates, scalars: dict[str, float]) -> xr.Dataset:
    size_dim, data = inputs.size_dim, inputs.data
    critical_name, n_sizes = f"{declared.key}_c", len(inputs.lengths)
    pairs = max(n_sizes - 1, 0)
    first_crossing = [c[0] if c else np.nan for c in estimates.crossings]
    variables = {
        f"{critical_name}_chi": (size_dim, estimates.peaks[:, 0], {
            "long_name": f"{declared.key} at the susceptibility maximum"}),
        f"{critical_name}_chi_ci_low": (size_dim, estimates.interval[:, 0], {
            "long_name": "lower end of the 68 % bootstrap interval"}),
        f"{critical_name}_chi_ci_high": (size_dim, estimates.interval[:, 1], {
            "long_name": "upper end of the 68 % bootstrap interval"}),
        "susceptibility_peak": (size_dim, estimates.peaks[:, 1], {
            "long_name": "maximum of the susceptibility"}),
        "peak_at_edge": (size_dim, estimates.at_edge.astype(np.int8), {
            "long_name": "1 where the largest susceptibility lies at an end of the range "
                         "(no maximum inside it)"}),
        "binder_minimum": (size_dim, np.array(estimates.binder_minimum, np.int8), {
            "long_name": "1 where the Binder cumulant dips below 1/3 (3 sigma)"}),
        "binder_crossing": ("size_pair", np.array(first_crossing[:pairs], float), {
            "long_name": f"{declared.key} where G of consecutive sizes cross (first "
                         f"crossing)"}),
        **{name: ((), value) for name, value in scalars.items()},
    }
    coords = {size_dim: data[size_dim], size: data[size],
              "size_pair": ("size_pair", np.arange(pairs))}
    if inputs.histogram is not None:
        variables["bimodal"] = (size_dim, np.array(estimates.bimodal, np.int8), {
            "long_name": f"1 where the {observable} histogram near the chi peak is bimodal"})
        variables["histogram_near_peak"] = (
            [size_dim, "bin"], np.array([inputs.histogram[i, estimates.nearest[i]]
                                         for i in range(n_sizes)]),
            {"long_name": f"seed-averaged {observable} histogram at the point nearest the "
                          f"chi peak"})
        coords["bin"] = data["bin"]
    return xr.Dataset(variables, coords=coords)


# --------------------------------------------------------------------------- fits against peaks


def fit_peak_z(fitted: np.ndarray, fit_half: np.ndarray, width: np.ndarray, peaks: np.ndarray,
               peak_half: np.ndarray) -> np.ndarray:
    r"""How far apart the rounded fit's and the susceptibility maximum's :math:`x_c(L)` are.

    .. math::

        z_L = \frac{|\hat x_{c,\mathrm{fit}} - \hat x_{c,\chi}|}
                   {\sqrt{h_\mathrm{fit}^2 + h_\chi^2 + (w\,\hat x_{c,\mathrm{fit}})^2}}

    with the half-widths :math:`h` of the two 68 % intervals and the fit's reduced rounding
    width :math:`w`: a finite system's pseudo-critical points (the χ maximum among them)
    spread over :math:`w x_c` around the fitted centre (the rounded law's Gaussian spread,
    Fisher and Barber 1972), so a χ maximum inside that spread agrees with the fit.

    Parameters
    ----------
    fitted, fit_half, width : ndarray, shape (S,)
        Per size: the fitted critical value, its interval's half-width and the reduced
        rounding width w (control units, control units, 1).
    peaks, peak_half : ndarray, shape (S,)
        The χ-maximum location and its interval's half-width (control units).

    Returns
    -------
    ndarray, shape (S,)
        :math:`z_L`; NaN where either estimate is missing.

    References
    ----------
    M. E. Fisher and M. N. Barber, Phys. Rev. Lett. 28, 1516 (1972).
    """
    spread = np.asarray(width, float) * np.abs(np.asarray(fitted, float))
    scale = np.sqrt(np.asarray(fit_half, float) ** 2 + np.asarray(peak_half, float) ** 2
                    + spread ** 2)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.abs(np.asarray(fitted, float) - np.asarray(peaks, float)) / scale


def fits_against_peaks(fss: xr.Dataset, critical: xr.Dataset, limit: float = 2.0
                       ) -> tuple[dict[str, Any], dict[str, Any]]:
    r"""Whether the per-size rounded fits (``critical.nc``) and the χ maxima (``fss.nc``)
    locate the same critical point.

    A size agrees when :func:`fit_peak_z` :math:`\le` ``limit``; the verdict is *agree*
    when every size fitted in both agrees, *disagree* otherwise (then the fitted critical
    value and exponent describe the curve's shape, not one critical point, and are not to be
    quoted), *not compared* when the fits are not one per size or no size has both.

    Parameters
    ----------
    fss : xarray.Dataset
        :func:`finite_size_scaling`'s dataset (``<c>_c_chi`` and its interval on the size
        dimension).
    critical : xarray.Dataset
        :func:`flocklab.analysis.critical.fit_critical_summary`'s dataset of the same
        study (``<c>_c``, its interval and ``rounding_width`` per curve).
    limit : float
        Largest z of an agreeing size.

    Returns
    -------
    variables : dict
        ``name -> (dims, values, attrs)`` on the size dimension for the FSS dataset: the
        fitted value and interval (``<c>_c_fit``, ``_ci_low``, ``_ci_high``) and
        ``fit_peak_z`` (empty when not compared).
    entry : dict
        JSON-ready: ``verdict``, ``text`` (one sentence with the numbers), ``limit`` and
        per size ``sizes``, ``fitted``, ``peaks``, ``z``.
    """
    name = f"{fss.attrs.get('control', '')}_c"
    size_dim = fss[f"{name}_chi"].dims[0]
    if "refused" in critical.attrs:
        return {}, {"verdict": "not compared", "limit": limit, "text": "not compared: no "
                    f"size could be fitted ({critical.attrs['refused']})"}
    if name not in critical or critical[name].dims != (size_dim,):
        return {}, {"verdict": "not compared", "limit": limit,
                    "text": f"not compared: the critical fits are not one per {size_dim}"}
    fit = critical[[name, f"{name}_ci_low", f"{name}_ci_high", "rounding_width"]].reindex(
        {size_dim: fss[size_dim].values})
    fitted = fit[name].values
    fit_half = (fit[f"{name}_ci_high"].values - fit[f"{name}_ci_low"].values) / 2
    peaks = fss[f"{name}_chi"].values
    if "peak_at_edge" in fss:  # no maximum inside the range: nothing to compare
        peaks = np.where(fss["peak_at_edge"].values.astype(bool), np.nan, peaks)
    peak_half = (fss[f"{name}_chi_ci_high"].values - fss[f"{name}_chi_ci_low"].values) / 2
    z = fit_peak_z(fitted, fit_half, fit["rounding_width"].values, peaks, peak_half)
    lengths = fss[fss.attrs.get("size", size_dim)].values
    entry = {"limit": limit, "sizes": lengths.tolist(), "fitted": _nan_none(fitted),
             "peaks": _nan_none(peaks), "z": _nan_none(z)}
    entry.update(_fit_peak_verdict(fss.attrs.get("control", ""), fss.attrs.get("size", "L"),
                                   lengths, fitted, peaks, z, limit))
    units = {"units": fss[f"{name}_chi"].attrs.get("units", "1")}
    variables = {
        f"{name}_fit": (size_dim, fitted, {**units, "long_name": f"critical {name[:-2]} of "
                                           f"the rounded fit at this size"}),
        f"{name}_fit_ci_low": (size_dim, fit[f"{name}_ci_low"].values, {
            **units, "long_name": "lower end of the fit's calibrated 68 % interval"}),
        f"{name}_fit_ci_high": (size_dim, fit[f"{name}_ci_high"].values, {
            **units, "long_name": "upper end of the fit's calibrated 68 % interval"}),
        "fit_peak_z": (size_dim, z, {"units": "1", "long_name": "distance between the fitted "
                                     "and the susceptibility-maximum critical value in "
                                     "combined half-widths and rounding spread"}),
    }
    return variables, entry


def _nan_none(values: np.ndarray) -> list[float | None]:
    return [None if not np.isfinite(v) else float(v) for v in values]


def _fit_peak_verdict(control: str, size: str, lengths: np.ndarray, fitted: np.ndarray,
                      peaks: np.ndarray, z: np.ndarray, limit: float) -> dict[str, str]:
    """``verdict`` and ``text`` of :func:`fits_against_peaks`."""
    both = np.isfinite(z)
    if not both.any():
        return {"verdict": "not compared",
                "text": "not compared: no size has both a rounded fit and a χ maximum"}
    listed = ", ".join(f"{size} = {length:g}: fit {f:.3g}, χ maximum {p:.3g} (z = {v:.1f})"
                       for length, f, p, v in zip(lengths[both], fitted[both], peaks[both],
                                                  z[both], strict=True))
    if np.all(z[both] <= limit):
        return {"verdict": "agree", "text": f"the rounded fits and the susceptibility maxima "
                f"locate the same critical {control} within z <= {limit:g} ({listed})"}
    return {"verdict": "disagree", "text": f"the rounded fits and the susceptibility maxima "
            f"locate different critical {control} values ({listed}): no single critical "
            f"point in these data, so the fitted {control}_c and exponent describe the "
            f"curves' shape and are not to be quoted"}


def with_fit_comparison(fss: xr.Dataset, document: dict[str, Any], critical: xr.Dataset
                        ) -> tuple[xr.Dataset, dict[str, Any]]:
    """:func:`finite_size_scaling`'s results with :func:`fits_against_peaks` added: its
    variables, the attribute ``fit_peak_verdict`` and the JSON entry
    ``fits_against_peaks``."""
    variables, entry = fits_against_peaks(fss, critical)
    out = fss.assign(variables)
    out.attrs = {**fss.attrs, "fit_peak_verdict": entry["verdict"]}
    return out, {**document, "fits_against_peaks": entry}
