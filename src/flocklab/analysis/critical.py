r"""Critical points and exponents of an order–disorder transition (pure functions).

Nothing here knows a model: the caller passes the control values :math:`x`, the
replicate-averaged order-like observable :math:`P` (the model's primary observable, e.g.
the Vicsek order parameter :math:`v_a`) and the ordered side of the transition, as the
model declares them (:class:`flocklab.models.CriticalControl`).

Power-law fits as in Vicsek et al. (1995):

.. math::

    P = A\,s^{e}, \qquad s = \frac{x_c - x}{x_c}\ (\text{ordered below } x_c), \quad
    s = \frac{x - x_c}{x_c}\ (\text{ordered above } x_c),

fitted jointly for :math:`(A, x_c, e)` by weighted nonlinear least squares (per-point
standard errors, :func:`scipy.optimize.curve_fit` with ``absolute_sigma``); for the Vicsek
model :math:`e = \beta` against the noise :math:`\eta` and :math:`e = \delta` against the
density :math:`\rho`.

**Window rule.** Only points on the ordered side with reduced distance
:math:`s_{\min} < s \le s_{\max}` enter (defaults 0.02 and 0.5): close to :math:`x_c` the
finite-size rounding breaks the power law, far from it corrections to scaling do. As
:math:`s` depends on the unknown :math:`x_c`, the rule is iterated from an initial
estimate (the steepest descent of :math:`P`) until the set of points no longer changes.
If the set alternates between point sets, the best-fitting of them is kept and the fit is
flagged (``status = "cycle"`` with a ``note``); if it neither settles nor cycles, or
the optimiser does not converge, :class:`CriticalFitError` is raised.
:func:`window_scan` repeats the fit for window widths bracketing the one used
(:data:`SCAN_FACTORS` × ``reduced_max``).

**Uncertainties.** (i) The fit's own covariance (68 % interval = value ± 1σ) and (ii) a
bootstrap over replicates: per point, seeds are resampled with replacement, the point's
mean and standard error recomputed, and the whole fit (window rule included) repeated;
the 68 % interval is the 16th–84th percentile.

Finite-size scaling (FSS):

* :func:`susceptibility_peak` — the location of the χ maximum, :math:`x_c(L)`;
* :func:`binder_crossings` — where :math:`G_L(x)` and :math:`G_{L'}(x)` cross;
* :func:`extrapolate` — :math:`x_c(L) = x_c(\infty) + a L^{-1/\nu}`;
* :func:`collapse` — minimise the collapse quality :math:`S` (Houdayer & Hartmann 2004) of
  :math:`P L^{\beta/\nu}` against :math:`(x - x_c) L^{1/\nu}` over
  :math:`(x_c, \beta/\nu, 1/\nu)`;
* :func:`binder_minimum`, :func:`is_bimodal` — signs of a discontinuous transition
  (Grégoire & Chaté 2004; Chaté et al., PRE 77, 046113, 2008).

References
----------
T. Vicsek et al., Phys. Rev. Lett. 75, 1226 (1995).
J. Houdayer, A. K. Hartmann, Phys. Rev. B 70, 014418 (2004).
K. Binder, Z. Phys. B 43, 119 (1981).
"""

from __future__ import annotations

import itertools
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
from scipy import optimize

#: Smallest per-point error used in weighted fits (a point with zero error would get infinite
#: weight, e.g. v_a = 1 exactly at eta = 0).
ERROR_FLOOR = 1e-6
MIN_WINDOW_POINTS = 4
#: Window widths of :func:`window_scan`, as multiples of the ``reduced_max`` actually used:
#: from half to twice it on a geometric grid, so the scan always brackets (and contains) it.
SCAN_FACTORS = (0.5, 2**-0.5, 1.0, 2**0.5, 2.0)
FIT_STATUSES = ("converged", "cycle")


class CriticalFitError(ValueError):
    """The data cannot support a fit (too few points, no transition in range)."""


@dataclass(frozen=True)
class PowerLawFit:
    """Result of :func:`fit_power_law`.

    Attributes
    ----------
    critical, exponent, amplitude : float
        :math:`x_c`, the exponent (β or δ) and :math:`A`.
    critical_err, exponent_err : float
        1σ from the fit covariance.
    window : tuple of float
        Smallest and largest control value used.
    used : ndarray of bool
        Which input points entered the fit.
    chi2_per_dof : float
        Reduced χ² of the fit.
    status : {"converged", "cycle"}
        ``converged``: the window rule reached a stable set of points. ``cycle``: the set
        alternated between point sets; the best-fitting one (smallest χ²/dof) is returned,
        and its own critical value would select a different set (see ``note``).
    note : str
        Why the status is not ``converged`` (empty otherwise).
    """

    side: str
    critical: float
    exponent: float
    amplitude: float
    critical_err: float
    exponent_err: float
    window: tuple[float, float]
    used: np.ndarray = field(repr=False)
    chi2_per_dof: float
    reduced_min: float
    reduced_max: float
    status: str = "converged"
    note: str = ""

    @property
    def n_points(self) -> int:
        return int(self.used.sum())


def reduced_distance(x: np.ndarray, critical: float, side: str) -> np.ndarray:
    """:math:`(x_c - x)/x_c` for ``side="below"`` (order below x_c), else :math:`(x - x_c)/x_c`."""
    return (critical - x) / critical if side == "below" else (x - critical) / critical


def _steepest_descent(x: np.ndarray, v: np.ndarray, side: str) -> float:
    slope = np.diff(v) / np.diff(x)
    k = int(np.argmin(slope) if side == "below" else np.argmax(slope))
    return 0.5 * (x[k] + x[k + 1])


def _check_transition(x: np.ndarray, v: np.ndarray, err: np.ndarray, side: str) -> None:
    """The observable must fall from its ordered end to below half of it, by more than
    3 standard errors (a scale-free test: no assumption on the observable's range)."""
    if x.size < MIN_WINDOW_POINTS + 1:
        raise CriticalFitError(f"need at least {MIN_WINDOW_POINTS + 1} points, got {x.size}")
    ends = (0, -1) if side == "below" else (-1, 0)
    ordered, disordered = v[ends[0]], v[ends[1]]
    drop_err = np.hypot(err[ends[0]], err[ends[1]])
    if not (disordered < 0.5 * ordered and ordered - disordered > 3 * drop_err):
        raise CriticalFitError(
            f"no transition in the range: the observable goes from {v[0]:.3g} to "
            f"{v[-1]:.3g} over [{x[0]:g}, {x[-1]:g}] (needs to fall below half its ordered "
            f"value, by more than 3 standard errors)")


def fit_power_law(x: Sequence[float], v: Sequence[float], err: Sequence[float],
                  side: str = "below", reduced_min: float = 0.02, reduced_max: float = 0.5,
                  max_iterations: int = 30) -> PowerLawFit:
    """Joint weighted fit of :math:`(A, x_c, \\text{exponent})` (see module docstring).

    Parameters
    ----------
    x : array, shape (n,)
        Control values, any order.
    v, err : array, shape (n,)
        Order-like observable and its standard error at each x.
    side : {"below", "above"}
        Ordered side: ``below`` x_c (e.g. Vicsek noise), ``above`` (e.g. Vicsek density).
    reduced_min, reduced_max : float
        Window in reduced distance, ``reduced_min < s <= reduced_max``.
    max_iterations : int
        Iterations of the window rule before giving up.

    Returns
    -------
    PowerLawFit
        With ``status = "cycle"`` and a ``note`` when the window alternated between point
        sets (the best-fitting one is returned).

    Raises
    ------
    CriticalFitError
        No transition in the range, fewer than 4 points in the window, no point beyond
        the critical value, an optimiser that does not converge, a singular covariance, or
        a window that neither settles nor cycles within ``max_iterations``.

    Examples
    --------
    >>> x = np.linspace(1.0, 3.9, 30)
    >>> v = np.where(x < 3.0, 0.9 * (np.abs(3.0 - x) / 3.0) ** 0.4, 0.02)
    >>> fit = fit_power_law(x, v, np.full(30, 0.01))
    >>> round(fit.critical, 2), round(fit.exponent, 2)
    (3.0, 0.4)
    """
    if side not in ("below", "above"):
        raise ValueError("side must be 'below' or 'above'")
    if not 0 <= reduced_min < reduced_max:
        raise ValueError("need 0 <= reduced_min < reduced_max")
    x = np.asarray(x, float)
    v = np.asarray(v, float)
    err = np.maximum(np.asarray(err, float), ERROR_FLOOR)
    finite = np.isfinite(x) & np.isfinite(v) & np.isfinite(err)
    order = np.flatnonzero(finite)[np.argsort(x[finite])]
    x, v, err = x[order], v[order], err[order]
    _check_transition(x, v, err, side)

    critical = _steepest_descent(x, v, side)
    used = np.zeros(x.size, bool)
    status, note = "converged", ""
    tried: list[tuple[float, np.ndarray, np.ndarray, np.ndarray]] = []
    for _ in range(max_iterations):
        s = reduced_distance(x, critical, side)
        new_used = (s > reduced_min) & (s <= reduced_max)
        if new_used.sum() < MIN_WINDOW_POINTS:
            raise CriticalFitError(
                f"only {int(new_used.sum())} points on the ordered side within reduced distance "
                f"({reduced_min:g}, {reduced_max:g}] of the critical value {critical:.4g}; "
                f"need {MIN_WINDOW_POINTS}")
        if np.array_equal(new_used, used):
            break
        if any(np.array_equal(new_used, previous[1]) for previous in tried):
            # The window cycles between point sets: keep the best-fitting of those seen, and
            # say so.
            seen = ", ".join(f"{item[2][1]:.4g}" for item in tried)
            _, used, params, covariance = min(tried, key=lambda item: item[0])
            status = "cycle"
            note = (f"the window alternated between point sets (critical values {seen}); "
                    f"kept the set with the smallest chi2/dof (x_c = {params[1]:.4g})")
            break
        used = new_used
        params, covariance = _fit_window(x[used], v[used], err[used], side, critical, x)
        tried.append((_chi2_per_dof(x[used], v[used], err[used], params, side), used, params,
                      covariance))
        critical = params[1]
    else:
        raise CriticalFitError(f"the fitting window did not settle within {max_iterations} "
                               f"iterations (last critical value {critical:.4g})")
    amplitude, critical, exponent = (float(p) for p in params)
    beyond = (x > critical) if side == "below" else (x < critical)
    if not beyond.any():
        raise CriticalFitError(f"no point beyond the critical value {critical:.4g}: extend the "
                               f"range to show the disordered side")
    sigma = np.sqrt(np.diag(covariance))
    if not np.all(np.isfinite(sigma)):
        raise CriticalFitError("the fit covariance is singular: the window does not "
                               "constrain (A, x_c, exponent)")
    return PowerLawFit(side=side, critical=critical, exponent=exponent, amplitude=amplitude,
                       critical_err=float(sigma[1]), exponent_err=float(sigma[2]),
                       window=(float(x[used].min()), float(x[used].max())),
                       used=_unsort(used, order, finite.size),
                       chi2_per_dof=_chi2_per_dof(x[used], v[used], err[used], params, side),
                       reduced_min=reduced_min, reduced_max=reduced_max, status=status,
                       note=note)


def _chi2_per_dof(x: np.ndarray, v: np.ndarray, err: np.ndarray, params: np.ndarray,
                  side: str) -> float:
    residual = (v - _power_law(x, *params, side=side)) / err
    return float(np.sum(residual**2) / max(x.size - 3, 1))


def _unsort(used_sorted: np.ndarray, order: np.ndarray, size: int) -> np.ndarray:
    """Map a mask over the sorted, finite points back to the caller's point order."""
    used = np.zeros(size, bool)
    used[order] = used_sorted
    return used


def _power_law(x, amplitude, critical, exponent, side="below"):
    s = reduced_distance(x, critical, side)
    return amplitude * np.clip(s, 1e-300, None) ** exponent


def _fit_window(x, v, err, side, critical_guess, x_all):
    # The critical value must lie inside the data, with the last point beyond it.
    if side == "below":
        low, high = x.max() * (1 + 1e-9), x_all.max() * (1 - 1e-3)
    else:
        low, high = max(x_all.min(), 1e-12) * (1 + 1e-3), x.min() * (1 - 1e-9)
    if not low < high:
        raise CriticalFitError("no point beyond the window to bound the critical value")
    guess_critical = float(np.clip(critical_guess, low * (1 + 1e-6), high * (1 - 1e-6)))
    s = reduced_distance(x, guess_critical, side)
    slope, intercept = np.polyfit(np.log(s), np.log(np.maximum(v, 1e-12)), 1)
    p0 = [float(np.exp(intercept)), guess_critical, float(np.clip(slope, 0.05, 3.0))]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", optimize.OptimizeWarning)
        try:
            params, covariance = optimize.curve_fit(
                lambda xx, a, c, e: _power_law(xx, a, c, e, side), x, v, p0=p0, sigma=err,
                absolute_sigma=True, bounds=([0.0, low, 0.01], [np.inf, high, 5.0]),
                max_nfev=20000)
        except RuntimeError as error:
            raise CriticalFitError(f"power-law fit did not converge: {error}") from None
    edge = high if side == "below" else low
    if abs(params[1] - edge) <= 1e-6 * abs(edge):
        raise CriticalFitError(f"the fit puts the critical value at the edge of the data "
                               f"({edge:.4g}): extend the range to show the disordered side")
    return params, covariance


def scan_widths(reduced_min: float, reduced_max: float,
                factors: Sequence[float] = SCAN_FACTORS) -> list[float]:
    """Window widths of :func:`window_scan`: ``factors`` × ``reduced_max`` (half to twice the
    width used, by default), keeping those above ``reduced_min``; always contains
    ``reduced_max`` itself."""
    widths = sorted({float(reduced_max * factor) for factor in factors} | {float(reduced_max)})
    return [width for width in widths if width > reduced_min]


def window_scan(x, v, err, side: str = "below", reduced_min: float = 0.02,
                reduced_max: float = 0.5, factors: Sequence[float] = SCAN_FACTORS
                ) -> list[dict]:
    """Refit with window widths bracketing the one used (:func:`scan_widths`).

    Returns one dict per width: ``reduced_max``, ``critical``, ``exponent``, ``n_points``,
    ``status`` and ``note`` (``critical``/``exponent`` ``None`` and ``status = "failed"``
    with the reason in ``note`` where the fit failed).
    """
    rows = []
    for width in scan_widths(reduced_min, reduced_max, factors):
        try:
            fit = fit_power_law(x, v, err, side, reduced_min, width)
            rows.append({"reduced_max": width, "critical": fit.critical,
                         "exponent": fit.exponent, "n_points": fit.n_points,
                         "status": fit.status, "note": fit.note})
        except CriticalFitError as error:
            rows.append({"reduced_max": width, "critical": None, "exponent": None,
                         "n_points": 0, "status": "failed", "note": str(error)})
    return rows


def resample_seeds(rng: np.random.Generator, *arrays: np.ndarray) -> list[np.ndarray]:
    """Resample the last (seed) axis with replacement, independently at every point.

    One draw of seed indices is applied to all ``arrays`` (same shape), so moments of the
    same runs stay together.
    """
    picks = rng.integers(0, arrays[0].shape[-1], size=arrays[0].shape)
    return [np.take_along_axis(array, picks, axis=-1) for array in arrays]


def bootstrap(samples: np.ndarray, statistic: Callable[[np.ndarray, np.ndarray], np.ndarray],
              fallback_err: np.ndarray, resamples: int, rng: np.random.Generator
              ) -> np.ndarray:
    """Bootstrap over replicates.

    Parameters
    ----------
    samples : ndarray, shape (n_points, n_seeds)
        Per-replicate values (e.g. run means of v_a) at each point.
    statistic : callable
        ``statistic(mean, err) -> ndarray`` of estimates (raises CriticalFitError to skip).
    fallback_err : ndarray, shape (n_points,)
        Used with one seed: then the bootstrap is parametric, ``mean + N(0, err)``.
    resamples : int
    rng : numpy Generator

    Returns
    -------
    ndarray, shape (successful resamples, n_estimates)
    """
    n_points, n_seeds = samples.shape
    results = []
    for _ in range(resamples):
        if n_seeds >= 2:
            (drawn,) = resample_seeds(rng, samples)
            mean = drawn.mean(axis=1)
            err = drawn.std(axis=1, ddof=1) / np.sqrt(n_seeds)
            # a resample of identical seeds has zero spread: keep the original error there
            err = np.where(err > 0, err, fallback_err)
        else:
            mean = samples[:, 0] + rng.normal(size=n_points) * fallback_err
            err = fallback_err
        try:
            results.append(np.asarray(statistic(mean, err), float))
        except CriticalFitError:
            continue
    if not results:
        return np.empty((0, 0))
    return np.array(results).reshape(len(results), -1)


def percentile_interval(values: np.ndarray, level: float = 0.68) -> tuple[float, float]:
    """Central ``level`` interval of bootstrap values (16th–84th percentile for 68 %)."""
    if values.size == 0:
        return (float("nan"), float("nan"))
    tail = 50 * (1 - level)
    low, high = np.percentile(values, [tail, 100 - tail])
    return float(low), float(high)


# --------------------------------------------------------------------------- finite size


def susceptibility_peak(x: np.ndarray, chi: np.ndarray) -> tuple[float, float]:
    """Location and height of the χ maximum: vertex of the parabola through the largest
    value and its two neighbours (the grid point itself at an edge of the range)."""
    x = np.asarray(x, float)
    chi = np.asarray(chi, float)
    k = int(np.nanargmax(chi))
    if k == 0 or k == x.size - 1:
        return float(x[k]), float(chi[k])
    coefficients = np.polyfit(x[k - 1:k + 2], chi[k - 1:k + 2], 2)
    if coefficients[0] >= 0:
        return float(x[k]), float(chi[k])
    vertex = -coefficients[1] / (2 * coefficients[0])
    vertex = float(np.clip(vertex, x[k - 1], x[k + 1]))
    return vertex, float(np.polyval(coefficients, vertex))


def binder_crossings(x: np.ndarray, first: np.ndarray, second: np.ndarray,
                     plateau_margin: float = 0.02) -> list[float]:
    """Control values where two Binder-cumulant curves cross (linear interpolation).

    Crossings on the ordered plateau (both curves within ``plateau_margin`` of 2/3, where
    they touch trivially, e.g. G = 2/3 exactly at zero noise) are not reported.
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
    """Weighted fit of :math:`x_c(L) = x_c(\\infty) + a L^{-1/\\nu}` (needs >= 4 sizes)."""
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
        weight_sum = 1.0 / big_err[i] ** 2
        weighted = big_y[i] * weight_sum
        covered = np.zeros(big_x.shape[1], bool)
        for k in range(sizes.size):
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
        deviation = (big_y[i] - mean) ** 2 / (big_err[i] ** 2 + 1.0 / weight_sum)
        total += float(np.sum(deviation[covered]))
        count += int(covered.sum())
    return total / count if count else np.inf


@dataclass(frozen=True)
class Collapse:
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
    """Minimise :func:`collapse_quality` over (x_c, β/ν, 1/ν).

    :math:`S` is piecewise smooth with local minima (points enter and leave the window),
    so the quality is first evaluated on a grid at :math:`x_c` = ``guess[0]``
    (:data:`COLLAPSE_BETA_OVER_NU` and ``guess[1]`` × :data:`COLLAPSE_INVERSE_NU_FACTORS`
    × ``guess[2]``), and Nelder–Mead runs from the :data:`COLLAPSE_STARTS` best grid
    points; the best end point is returned. With ``grid_starts=False`` Nelder–Mead runs
    from ``guess`` alone (for bootstrap resamples started at the original optimum).
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
    """True if G(x) dips significantly (3σ) below both the Gaussian value 1/3 and its
    value at the disordered end — a sign of phase coexistence (discontinuous transition)."""
    binder = np.asarray(binder, float)
    err = np.asarray(err, float)
    k = int(np.nanargmin(binder))
    if k == binder.size - 1:
        return False
    threshold = min(1 / 3, binder[-1]) - 3 * np.nan_to_num(err[k], nan=0.0)
    return bool(binder[k] < threshold)


def is_bimodal(histogram: np.ndarray, prominence: float = 0.2) -> bool:
    """True if a histogram has two peaks each at least ``prominence`` × its maximum above
    the lowest point between them (after a 3-bin moving average)."""
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
