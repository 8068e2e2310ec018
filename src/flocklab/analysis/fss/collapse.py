r"""Data collapse of the order parameter and its quality.

With :math:`t = (x - x_c)/|x_c|`, the scaling form :math:`P = L^{-\beta/\nu}
\tilde P(t L^{1/\nu})` puts every size on one curve in the scaled variables
:math:`X = t L^{1/\nu}`, :math:`Y = P L^{\beta/\nu}`. The quality of Houdayer and Hartmann
measures how well: for each point of each size inside the window :math:`|X| \le W`, the
other sizes' curves are interpolated linearly at its :math:`X` (where their grid covers
it), and

.. math:: S = \frac{1}{\mathcal N}\sum \frac{(Y - \bar Y)^2}
                                       {\sigma_Y^2 + \sigma_{\bar Y}^2},

:math:`\bar Y` the weighted mean of the point and the interpolations, :math:`\mathcal N`
the number of points some other size covers (the *overlaps*). :math:`S \approx 1` for a
collapse within the errors. :func:`estimate_collapse` minimises :math:`S` over
:math:`(x_c, \beta/\nu, 1/\nu)` by Nelder–Mead from the crossing estimates.

References
----------
J. Houdayer and A. K. Hartmann, Phys. Rev. B 70, 014418 (2004), appendix.
S. M. Bhattacharjee and F. Seno, "A measure of data collapse for scaling", J. Phys. A 34,
6375 (2001).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from scipy import optimize

from flocklab.analysis.fss.estimate import INVERSE_NU_BOUNDS

if TYPE_CHECKING:  # pragma: no cover
    from flocklab.analysis.fss.estimate import Curves, Estimates, Options

#: Smallest standard error used in the quality (a zero error would get infinite weight).
ERROR_FLOOR = 1e-9

#: Fewest overlapping points for a collapse to be reported.
MIN_OVERLAPS = 4


def scaled(curves: Curves, critical: float, beta_over_nu: float, inverse_nu: float
           ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:math:`X`, :math:`Y` and :math:`\\sigma_Y`, shape (S, M), for the given exponents."""
    lengths = curves.lengths[:, None]
    big_x = (curves.x - critical) / abs(critical) * lengths ** inverse_nu
    factor = lengths ** beta_over_nu
    return big_x, curves.order * factor, np.maximum(curves.order_err * factor, ERROR_FLOOR)


def collapse_quality(curves: Curves, params: np.ndarray, window: float
                     ) -> tuple[float, int]:
    r"""Houdayer–Hartmann :math:`S` and the overlap count at
    ``params`` = :math:`(x_c, \beta/\nu, 1/\nu)` within :math:`|X| \le` ``window``
    (:math:`S = \infty` with fewer than :data:`MIN_OVERLAPS` overlaps)."""
    critical, beta_over_nu, inverse_nu = params
    if not (INVERSE_NU_BOUNDS[0] <= inverse_nu <= INVERSE_NU_BOUNDS[1]) or critical == 0:
        return np.inf, 0
    big_x, big_y, big_err = scaled(curves, critical, beta_over_nu, inverse_nu)
    total, count = 0.0, 0
    for i in range(big_x.shape[0]):
        inside = np.isfinite(big_x[i]) & np.isfinite(big_y[i]) & (np.abs(big_x[i]) <= window)
        if not inside.any():
            continue
        deviation, covered = _deviation(i, big_x, big_y, big_err, inside)
        total += float(np.sum(deviation[covered]))
        count += int(covered.sum())
    return (total / count if count >= MIN_OVERLAPS else np.inf), count


def _deviation(i: int, big_x: np.ndarray, big_y: np.ndarray, big_err: np.ndarray,
               inside: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Normalised squared deviations of size ``i``'s points inside the window from the
    weighted mean of them and the other sizes' interpolations, and which are covered."""
    xi, yi, ei = big_x[i, inside], big_y[i, inside], big_err[i, inside]
    weight_sum, weighted = 1.0 / ei**2, yi / ei**2
    covered = np.zeros(xi.size, bool)
    for k in range(big_x.shape[0]):
        finite = np.isfinite(big_x[k]) & np.isfinite(big_y[k])
        if k == i or finite.sum() < 2:
            continue
        xs, ys, es = big_x[k, finite], big_y[k, finite], big_err[k, finite]
        in_range = (xi >= xs[0]) & (xi <= xs[-1])
        m = np.clip(np.searchsorted(xs, xi) - 1, 0, xs.size - 2)
        u = (xi - xs[m]) / (xs[m + 1] - xs[m])
        value = (1 - u) * ys[m] + u * ys[m + 1]
        variance = ((1 - u) * es[m]) ** 2 + (u * es[m + 1]) ** 2
        weight = np.where(in_range, 1.0 / np.maximum(variance, ERROR_FLOOR**2), 0.0)
        covered |= in_range
        weight_sum = weight_sum + weight
        weighted = weighted + weight * np.where(in_range, value, 0.0)
    mean = weighted / weight_sum
    return (yi - mean) ** 2 / (ei**2 + 1.0 / weight_sum), covered


def collapse_start(out: Estimates, curves: Curves) -> np.ndarray:
    """Start of the minimisation: the crossing estimates where they exist, else the largest
    size's χ maximum (or the grid's middle), β/ν = 0.5 and 1/ν = 1."""
    critical = float(out["x_c"])
    if not np.isfinite(critical):
        peaks = out["peak_location"][np.isfinite(out["peak_location"])]
        critical = float(peaks[-1]) if peaks.size else float(np.nanmedian(curves.x))
    beta_over_nu = float(out["beta_over_nu"])
    inverse_nu = float(out["inverse_nu"])
    return np.array([critical, beta_over_nu if np.isfinite(beta_over_nu) else 0.5,
                     inverse_nu if np.isfinite(inverse_nu) else 1.0])


def estimate_collapse(curves: Curves, options: Options, out: Estimates) -> None:
    """Minimise :func:`collapse_quality`; sets ``collapse_x_c``, ``collapse_beta_over_nu``,
    ``collapse_inverse_nu``, ``collapse_quality``, ``collapse_overlaps`` and
    ``collapse_at_bound`` (1/ν at a bound of the search)."""
    names = ("collapse_x_c", "collapse_beta_over_nu", "collapse_inverse_nu",
             "collapse_quality")
    window = options.collapse_window
    start = collapse_start(out, curves)
    if curves.lengths.size < 2 or not np.isfinite(collapse_quality(curves, start, window)[0]):
        for name in names:
            out.set(name, np.nan, f"fewer than {MIN_OVERLAPS} overlapping scaled points in "
                                  f"the window |t| L^(1/nu) <= {window:g}")
        out.set("collapse_overlaps", 0.0)
        out.set("collapse_at_bound", 0.0)
        return
    result = optimize.minimize(lambda p: collapse_quality(curves, p, window)[0], start,
                               method="Nelder-Mead",
                               options={"xatol": 1e-5, "fatol": 1e-6, "maxiter": 2000})
    quality, overlaps = collapse_quality(curves, result.x, window)
    for name, value in zip(names, [*result.x, quality], strict=True):
        out.set(name, float(value), "the collapse did not converge")
    low, high = INVERSE_NU_BOUNDS
    out.set("collapse_overlaps", float(overlaps))
    out.set("collapse_at_bound", float(min(result.x[2] - low, high - result.x[2])
                                       < 1e-3 * (high - low)))
