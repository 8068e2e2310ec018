r"""Critical fits with explicit finite-size rounding and calibrated intervals (pure functions).

**Model.** On either side of the critical value :math:`x_c` the order-like observable of a
finite system is fitted by

.. math::

    P(x) = \sqrt{\Bigl(A\,\mathbb{E}_\xi\bigl[(s + w\xi)_+^{\,e}\bigr]\Bigr)^2 + f^2},
    \qquad \xi \sim \mathcal N(0, 1),

with :math:`s` the reduced distance, positive on the ordered side
(:func:`reduced`). For :math:`w \to 0`, :math:`f \to 0` this is the power law
:math:`A s^e` of Vicsek et al. (1995); the Gaussian average rounds the singularity as a
spread of pseudo-critical points of reduced width :math:`w` does (finite-size rounding,
Fisher & Barber 1972), and :math:`f` is the finite-size floor of the disordered side
(:math:`\sqrt{\pi/4N}` for N random unit vectors), added in quadrature as the fluctuations
of an order parameter of fixed modulus are. Five parameters :math:`(A, x_c, e, w, f)`,
weighted least squares, on the points with :math:`|s| \le s_{\max}` (both sides: the
disordered side fixes :math:`f` and the rounding); as :math:`s` depends on :math:`x_c` the
window is iterated to a fixed point. (A softplus rounding,
:math:`(w\ln(1 + e^{s/w}))^e`, is available as ``rounding="softplus"``; on Gaussian- or
logistic-smeared synthetic curves it puts :math:`x_c` too far on the ordered side by about
:math:`0.8\,w\,x_c`, so it is not the default.)

**Intervals.** The reported 68 % interval of :math:`x_c` and :math:`e` is
:math:`\hat\theta \pm h`, :math:`h = \max(t_{k-1}\,\sigma_J,\ \sigma_W)`:

* :math:`\sigma_J`, the delete-one jackknife over the :math:`k` replicates (leave seed
  :math:`r` out at every point, refit from every start of the full fit and from its
  optimum, :func:`refit`; Efron & Tibshirani 1993, ch. 11; refits that fail are
  counted in ``failed_refits``, never dropped silently),
  :math:`\sigma_J^2 = \frac{k-1}{k}\sum_r (\hat\theta_{(r)} - \bar\theta)^2`.
  Replicates are independent runs, so correlated noise within a run enters only through
  the replicate means: no autocorrelation model is needed;
* :math:`t_{k-1}` = the 84th percentile of Student's t with :math:`k - 1` degrees of
  freedom, for the few replicates a study has (1.32 for 3, 1.11 for 6);
* :math:`\sigma_W`, half the range of :math:`\hat\theta` over the admissible windows
  :math:`s_{\max} \times (1/\sqrt2, 1, \sqrt2)` (those that can be fitted): the choice of
  window as a systematic error. The larger of the two parts is taken, not their sum in
  quadrature: the windows are fitted to the same runs, so the noise the jackknife measures
  also moves the estimate from window to window, and :math:`\sigma_W` below
  :math:`t\sigma_J` is mostly that noise again (adding it in quadrature made the exponents'
  68 % intervals cover the truth in 75–81 % of synthetic cases); where the window matters
  more than the noise, :math:`\sigma_W` is the interval;
* where the fit's :math:`\chi^2` rejects the model at the 1 % level, :math:`h` is
  multiplied by :math:`S = \sqrt{\chi^2/\nu}` (:math:`\nu` = points − 5), the Particle Data
  Group's scale factor: a misfit the jackknife over seeds cannot see.

The calibration of these intervals (coverage of the truth by the 68 % interval on
synthetic data with known :math:`x_c` and exponent, rounded transitions and AR(1) noise) is
tested in ``tests/analysis/test_coverage.py`` and measured by
``benchmarks/critical_coverage.py``.

**Short runs.** A point whose runs hold fewer than :data:`SHORT_SAMPLES` independent samples
(n / τ_int after burn-in) is flagged; its weight is reduced by the factor
:math:`n_{\mathrm{eff}}/50` (its error scaled by :math:`\sqrt{50/n_{\mathrm{eff}}}`), so
the fit leans on the points whose errors can be trusted, and the note names them.

**Split halves.** :func:`split_half` repeats the whole estimate on the first and the second
half of the replicates (disjoint seed sets) and reports
:math:`z = |\hat\theta_1 - \hat\theta_2| / \sqrt{h_1^2 + h_2^2}`; the halves agree when
:math:`z \le 2`.

References
----------
T. Vicsek, A. Czirók, E. Ben-Jacob, I. Cohen, O. Shochet, "Novel type of phase transition
in a system of self-driven particles", Phys. Rev. Lett. 75, 1226 (1995).
M. E. Fisher, M. N. Barber, "Scaling theory for finite-size effects in the critical
region", Phys. Rev. Lett. 28, 1516 (1972).
B. Efron, R. J. Tibshirani, *An Introduction to the Bootstrap*, Chapman & Hall (1993).
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy import optimize, stats

#: Fewest independent samples (n / tau_int) per run for a point to count as well measured.
SHORT_SAMPLES = 50
#: Admissible windows: these multiples of the configured ``reduced_max``.
WINDOW_FACTORS = (2**-0.5, 1.0, 2**0.5)
#: Fewest points in the window (five parameters).
MIN_POINTS = 7
#: Smallest per-point error in a weighted fit.
ERROR_FLOOR = 1e-6
#: Agreement of two split halves: |difference| within this many combined half-widths.
AGREEMENT_Z = 2.0
LEVEL = 0.68
#: Bounds of the exponent e and the reduced rounding width w in the fit.
EXPONENT_BOUNDS = (0.02, 3.0)
WIDTH_BOUNDS = (1e-3, 1.0)


class RoundedFitError(ValueError):
    """The data cannot support a rounded fit (no transition, too few points, at an edge)."""


@dataclass(frozen=True)
class RoundedFit:
    """Result of :func:`fit_rounded`; ``params`` = (A, x_c, e, w, f)."""

    side: str
    params: np.ndarray
    used: np.ndarray = field(repr=False)
    chi2_per_dof: float
    reduced_max: float
    iterations: int
    rounding: str = "gauss"

    @property
    def critical(self) -> float:
        return float(self.params[1])

    @property
    def exponent(self) -> float:
        return float(self.params[2])

    @property
    def n_points(self) -> int:
        return int(self.used.sum())

    @property
    def at_bounds(self) -> list[str]:
        """Names of the parameters that ended at a bound of the fit (:data:`EXPONENT_BOUNDS`,
        :data:`WIDTH_BOUNDS`): an estimate stuck there is the bound, not a measurement."""
        names = []
        for name, value, (low, high) in (("exponent", self.params[2], EXPONENT_BOUNDS),
                                         ("rounding_width", self.params[3], WIDTH_BOUNDS)):
            if min(value - low, high - value) <= 1e-3 * (high - low):
                names.append(name)
        return names


def reduced(x: np.ndarray, critical: float, side: str) -> np.ndarray:
    """Reduced distance from ``critical``, positive on the ordered side."""
    return (critical - x) / critical if side == "below" else (x - critical) / critical


#: Nodes and weights of the Gaussian rounding: the trapezoid rule on [-6, 6] with 241
#: points. (Gauss–Hermite nodes are exact for smooth integrands, but (s + w xi)_+^e has a
#: kink, and with a few nodes the average jumps as s crosses them: a bumpy model that traps
#: the optimiser; the even grid keeps the error below 1e-3 and smooth in s.)
_NODES = np.linspace(-6.0, 6.0, 241)
_WEIGHTS = np.exp(-0.5 * _NODES**2)
_WEIGHTS = _WEIGHTS / _WEIGHTS.sum()
#: The rounding shapes of :func:`rounded_power_law` (the fits use ``gauss``).
ROUNDINGS = ("gauss", "softplus")


def rounded_power_law(x: np.ndarray, amplitude: float, critical: float, exponent: float,
                      width: float, floor: float, side: str = "below",
                      rounding: str = "gauss") -> np.ndarray:
    r""":math:`\sqrt{(A\,r_w(s))^2 + f^2}` (module docstring): ``softplus``,
    :math:`r_w = g_w(s)^e` with :math:`g_w = w\,\mathrm{logaddexp}(0, s/w)`; ``gauss``,
    :math:`r_w = \mathbb{E}_\xi[(s + w\xi)_+^e]` (trapezoid rule, 241 points)."""
    s = reduced(np.asarray(x, float), critical, side)
    if rounding == "softplus":
        rounded = (width * np.logaddexp(0.0, s / width)) ** exponent
    else:
        shifted = np.clip(s[:, None] + width * _NODES[None, :], 0.0, None)
        rounded = (shifted**exponent) @ _WEIGHTS
    return np.sqrt((amplitude * rounded) ** 2 + floor**2)


def _start(x: np.ndarray, v: np.ndarray, side: str) -> np.ndarray:
    """Start values: x_c at the steepest descent, e = 0.4, w = 0.05, f = the disordered end."""
    slope = np.diff(v) / np.diff(x)
    k = int(np.argmin(slope) if side == "below" else np.argmax(slope))
    critical = 0.5 * (x[k] + x[k + 1])
    ordered, disordered = (v[0], v[-1]) if side == "below" else (v[-1], v[0])
    s_end = abs(reduced(x[0] if side == "below" else x[-1], critical, side))
    amplitude = max(ordered, 1e-3) / max(s_end, 1e-3) ** 0.4
    return np.array([amplitude, critical, 0.4, 0.05, max(disordered, 1e-4)])


#: Fractions of the fall from the ordered value to the floor at which further starts of x_c
#: are placed (besides the steepest descent).
START_LEVELS = (0.5, 0.25)


def _starts(x: np.ndarray, v: np.ndarray, side: str) -> list[np.ndarray]:
    """:func:`_start`, and the same with x_c where the curve has fallen to each of
    :data:`START_LEVELS` of its height above the floor (a noisy steepest descent can sit
    well away from x_c, and the rounded law's χ² has several basins)."""
    first = _start(x, v, side)
    starts = [first]
    ordered, floor = (v[0], v[-1]) if side == "below" else (v[-1], v[0])
    for level in START_LEVELS:
        target = floor + level * (ordered - floor)
        k = np.flatnonzero(np.diff(np.sign(v - target)) != 0)
        if k.size:
            i = int(k[0] if side == "below" else k[-1])
            weight = (v[i] - target) / (v[i] - v[i + 1]) if v[i] != v[i + 1] else 0.5
            critical = float(x[i] + weight * (x[i + 1] - x[i]))
            if all(abs(critical - s[1]) > 1e-9 for s in starts):
                starts.append(np.array([first[0], critical, *first[2:]]))
    return starts


def _check_transition(v: np.ndarray, err: np.ndarray, side: str) -> None:
    ordered, disordered = (v[0], v[-1]) if side == "below" else (v[-1], v[0])
    if not (disordered < 0.5 * ordered and ordered - disordered > 3 * np.hypot(err[0],
                                                                              err[-1])):
        raise RoundedFitError(
            f"no transition in the range: the observable goes from {v[0]:.3g} to {v[-1]:.3g} "
            f"(needs to fall below half its ordered value, by more than 3 standard errors)")


def _fit_once(x: np.ndarray, v: np.ndarray, err: np.ndarray, side: str, start: np.ndarray,
              bounds: tuple[list[float], list[float]], rounding: str) -> np.ndarray:
    start = np.clip(start, np.array(bounds[0]) + 1e-9, np.array(bounds[1]) - 1e-9)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            params, _ = optimize.curve_fit(
                lambda xx, a, c, e, w, f: rounded_power_law(xx, a, c, e, w, f, side, rounding),
                x, v, p0=start, sigma=err, absolute_sigma=True, bounds=bounds, max_nfev=4000)
        except (RuntimeError, ValueError) as error:
            raise RoundedFitError(f"rounded fit did not converge: {error}") from None
    return params


def fit_rounded(x: Sequence[float], v: Sequence[float], err: Sequence[float],
                side: str = "below", reduced_max: float = 0.8,
                start: Sequence[float] | None = None, max_iterations: int = 8,
                rounding: str = "gauss") -> RoundedFit:
    r"""Fit :math:`P = \sqrt{(A g_w(s)^e)^2 + f^2}` on :math:`|s| \le` ``reduced_max``.

    Parameters
    ----------
    x, v, err : array, shape (n,)
        Control values (any order), observable and its standard error.
    side : {"below", "above"}
        Ordered side of :math:`x_c`.
    reduced_max : float
        Window half-width in reduced distance (both sides of :math:`x_c`).
    start : sequence of 5 floats, optional
        Start (A, x_c, e, w, f); default from the data (steepest descent).
    max_iterations : int
        Window iterations; the last window is kept if it has not settled.

    Returns
    -------
    RoundedFit

    Raises
    ------
    RoundedFitError
        No transition, fewer than :data:`MIN_POINTS` points in the window, fewer than 3
        on the ordered side, or :math:`x_c` at the edge of the data.

    Examples
    --------
    >>> x = np.linspace(0.5, 4.5, 17)
    >>> v = rounded_power_law(x, 0.9, 3.0, 0.4, 0.02, 0.05)
    >>> fit = fit_rounded(x, v, np.full(17, 0.005))
    >>> round(fit.critical, 2), round(fit.exponent, 2)
    (3.0, 0.4)
    """
    x, v, err = (np.asarray(a, float) for a in (x, v, err))
    good = np.isfinite(x) & np.isfinite(v) & np.isfinite(err)
    order = np.flatnonzero(good)[np.argsort(x[good])]
    xs, vs, es = x[order], v[order], np.maximum(err[order], ERROR_FLOOR)
    _check_transition(vs, es, side)
    if start is None:
        return _best_of_starts(x, v, err, side, reduced_max, max_iterations, rounding,
                               _starts(xs, vs, side))
    params = np.asarray(start, float)
    bounds = ([0.0, xs[0], EXPONENT_BOUNDS[0], WIDTH_BOUNDS[0], 0.0],
              [np.inf, xs[-1], EXPONENT_BOUNDS[1], WIDTH_BOUNDS[1], max(vs.max(), 1e-3)])
    used = np.zeros(xs.size, bool)
    for iteration in range(1, max_iterations + 1):  # noqa: B007 (reported after the loop)
        window = np.abs(reduced(xs, params[1], side)) <= reduced_max
        if np.array_equal(window, used):
            break
        used = window
        ordered = used & (reduced(xs, params[1], side) > 0)
        if used.sum() < MIN_POINTS or ordered.sum() < 3:
            raise RoundedFitError(f"{int(used.sum())} points within reduced distance "
                                  f"{reduced_max:g} of {params[1]:.4g} ({int(ordered.sum())} "
                                  f"ordered); need {MIN_POINTS} (3 ordered)")
        params = _fit_once(xs[used], vs[used], es[used], side, params, bounds, rounding)
    span = xs[-1] - xs[0]
    if min(params[1] - xs[0], xs[-1] - params[1]) < 1e-4 * span:
        raise RoundedFitError(f"the critical value {params[1]:.4g} is at the edge of the data "
                              f"[{xs[0]:g}, {xs[-1]:g}]")
    residual = (vs[used] - rounded_power_law(xs[used], *params, side, rounding)) / es[used]
    mask = np.zeros(x.size, bool)
    mask[order] = used
    return RoundedFit(side, params, mask, float(residual @ residual / max(used.sum() - 5, 1)),
                      reduced_max, iteration, rounding)


#: Start widths of :func:`fit_rounded` without a given start: weak and strong rounding.
START_WIDTHS = (0.05, 0.25)


def _best_of_starts(x: np.ndarray, v: np.ndarray, err: np.ndarray, side: str,
                    reduced_max: float, max_iterations: int, rounding: str,
                    starts: list[np.ndarray]) -> RoundedFit:
    """:func:`fit_rounded` from each of the data's starts (:func:`_starts`) with each of
    :data:`START_WIDTHS` (a strongly rounded small system and a sharp one have different
    basins); the fit with the smallest χ²/dof, or the first error if none succeeds."""
    fits, errors = [], []
    for start in starts:
        for width in START_WIDTHS:
            try:
                fits.append(fit_rounded(x, v, err, side, reduced_max,
                                        [*start[:3], width, start[4]], max_iterations,
                                        rounding))
            except RoundedFitError as error:
                errors.append(error)
    if not fits:
        raise errors[0]
    return min(fits, key=lambda fit: fit.chi2_per_dof)


# --------------------------------------------------------------------------- replicates


def point_errors(samples: np.ndarray, sems: np.ndarray,
                 independent: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    r"""Replicate means and their fit weights' errors.

    :math:`\bar P` over the k replicates, error
    :math:`\max(s/\sqrt k, \sqrt{\sum_r \mathrm{sem}_r^2}/k)` (the spread across seeds,
    floored by the runs' own τ-corrected errors; the run's sem with one seed), scaled by
    :math:`\sqrt{50/n_{\mathrm{eff}}}` where the runs' median :math:`n/\tau_{\mathrm{int}}`
    is below :data:`SHORT_SAMPLES`.

    Parameters
    ----------
    samples, sems : ndarray, shape (n, k)
        Per-run means and standard errors.
    independent : ndarray, shape (n, k), optional
        Per-run independent samples n / τ_int.
    """
    k = samples.shape[1]
    mean = samples.mean(axis=1)
    own = np.sqrt(np.nansum(sems**2, axis=1)) / k
    spread = samples.std(axis=1, ddof=1) / np.sqrt(k) if k > 1 else own
    err = np.fmax(spread, own)
    if independent is not None:
        n_eff = np.nanmedian(independent, axis=1)
        err = err * np.sqrt(np.maximum(1.0, SHORT_SAMPLES / np.maximum(n_eff, 1e-9)))
    return mean, np.maximum(err, ERROR_FLOOR)


def student_factor(replicates: int, level: float = LEVEL) -> float:
    """The central-``level`` quantile of Student's t with ``replicates - 1`` degrees of
    freedom (1 with one replicate: the fit covariance is then used instead)."""
    if replicates < 2:
        return 1.0
    return float(stats.t.ppf(0.5 + level / 2, replicates - 1))


def calibrated_fit(x: np.ndarray, samples: np.ndarray, sems: np.ndarray, side: str,
                   reduced_max: float, independent: np.ndarray | None = None
                   ) -> dict[str, Any]:
    r"""The rounded fit with its calibrated 68 % interval (module docstring).

    Parameters
    ----------
    x : ndarray, shape (n,)
        Control values.
    samples, sems : ndarray, shape (n, k)
        Per-run means of P and their standard errors, k replicates.
    side : {"below", "above"}
    reduced_max : float
    independent : ndarray, shape (n, k), optional
        Per-run n / τ_int (short points are down-weighted).

    Returns
    -------
    dict
        ``fit`` (:class:`RoundedFit`), ``critical`` and ``exponent`` (each an
        :func:`interval_entry`), ``jackknife`` (array (k', 2)), ``windows`` (rows of
        reduced_max, x_c, e), ``replicates``, ``mean`` and ``err`` of the points.

    Raises
    ------
    RoundedFitError
        The full data cannot be fitted.
    """
    mean, err = point_errors(samples, sems, independent)
    fit = fit_rounded(x, mean, err, side, reduced_max)
    k = samples.shape[1]
    jack, failed = [], {"jackknife": 0, "windows": 0}
    for r in range(k if k > 1 else 0):
        keep = np.arange(k) != r
        sub = independent[:, keep] if independent is not None else None
        m, e = point_errors(samples[:, keep], sems[:, keep], sub)
        try:
            jack.append(refit(x, m, e, side, reduced_max, fit).params[1:3])
        except RoundedFitError:
            failed["jackknife"] += 1
    windows = [(reduced_max, fit.critical, fit.exponent)]
    for factor in WINDOW_FACTORS:
        if factor != 1.0:
            try:
                other = refit(x, mean, err, side, reduced_max * factor, fit)
                windows.append((reduced_max * factor, other.critical, other.exponent))
            except RoundedFitError:
                failed["windows"] += 1
    jack_arr, win_arr = np.array(jack).reshape(-1, 2), np.array(sorted(windows))
    result = {"fit": fit, "jackknife": jack_arr, "windows": win_arr, "replicates": k,
              "mean": mean, "err": err, "failed_refits": failed, "at_bounds": fit.at_bounds}
    scale = misfit_scale(fit.chi2_per_dof, fit.n_points - 5)
    for j, name in ((0, "critical"), (1, "exponent")):
        result[name] = interval_entry(fit.params[1 + j], jack_arr[:, j], win_arr[:, 1 + j], k,
                                      _covariance_error(fit, x, mean, err, 1 + j), scale)
    return result


def refit(x: np.ndarray, mean: np.ndarray, err: np.ndarray, side: str, reduced_max: float,
          previous: RoundedFit) -> RoundedFit:
    """A jackknife or window refit, from every start the full fit had (the data's starts and
    both widths) and from the full fit's optimum; the smallest χ²/dof wins. Starting only at
    the full optimum would keep every refit in its basin and understate the spread.

    Raises
    ------
    RoundedFitError
        No start converges.
    """
    fits = []
    for start in (None, previous.params):
        try:
            fits.append(fit_rounded(x, mean, err, side, reduced_max, start=start))
        except RoundedFitError as error:
            last = error
    if not fits:
        raise last
    return min(fits, key=lambda fit: fit.chi2_per_dof)


def _covariance_error(fit: RoundedFit, x: np.ndarray, mean: np.ndarray, err: np.ndarray,
                      index: int) -> float:
    """1σ of parameter ``index`` from the Jacobian at the optimum (one replicate only)."""
    used = fit.used
    step = 1e-6 * np.maximum(np.abs(fit.params), 1e-6)
    base = rounded_power_law(x[used], *fit.params, fit.side, fit.rounding)
    jac = np.empty((used.sum(), 5))
    for j in range(5):
        shifted = fit.params.copy()
        shifted[j] += step[j]
        jac[:, j] = (rounded_power_law(x[used], *shifted, fit.side, fit.rounding)
                     - base) / step[j]
    weighted = jac / err[used, None]
    covariance = np.linalg.pinv(weighted.T @ weighted)
    return float(np.sqrt(max(covariance[index, index], 0.0)))


#: Significance level at which a fit's χ² rejects the model and its interval is scaled.
MISFIT_LEVEL = 0.01


def misfit_scale(chi2_per_dof: float, dof: int, level: float = MISFIT_LEVEL) -> float:
    r"""The scale factor :math:`S = \sqrt{\chi^2/\nu}` where :math:`\chi^2` exceeds the
    :math:`1 - ` ``level`` quantile of the χ² distribution with :math:`\nu` degrees of
    freedom (the model is rejected at that level), else 1.

    Examples
    --------
    >>> misfit_scale(1.2, 10), round(misfit_scale(9.0, 10), 2)
    (1.0, 3.0)
    """
    dof = max(int(dof), 1)
    if chi2_per_dof * dof <= stats.chi2.ppf(1 - level, dof):
        return 1.0
    return float(np.sqrt(chi2_per_dof))


def interval_entry(value: float, jack: np.ndarray, windows: np.ndarray, k: int,
                   covariance_err: float, scale: float = 1.0) -> dict[str, Any]:
    r"""``value ± h``, :math:`h = S\max(t_{k-1}\sigma_J, \sigma_W)`: the larger of the
    jackknife over replicates (the fit covariance with one replicate) and half the range over
    the admissible windows (module docstring), times the scale factor ``scale``
    (:func:`misfit_scale`) of a fit whose χ² rejects the model (the Particle Data Group's
    rule for inconsistent data; R. L. Workman et al., Prog. Theor. Exp. Phys. 2022, 083C01,
    Introduction §5.2)."""
    if k >= 2 and jack.size >= 2:
        m = jack.size
        statistical = student_factor(k) * float(np.sqrt((m - 1) / m * np.sum(
            (jack - jack.mean()) ** 2)))
    else:
        statistical = covariance_err
    window = 0.5 * float(np.ptp(windows)) if windows.size > 1 else 0.0
    half = scale * max(statistical, window)
    return {"value": float(value), "ci": [float(value - half), float(value + half)],
            "statistical": statistical, "window": window, "scale": scale,
            "half_width": half}


def split_half(x: np.ndarray, samples: np.ndarray, sems: np.ndarray, side: str,
               reduced_max: float, independent: np.ndarray | None = None
               ) -> dict[str, Any]:
    r"""The estimate repeated on the two disjoint halves of the replicates.

    Replicates :math:`0..\lfloor k/2\rfloor-1` and the rest; each half gets
    :func:`calibrated_fit`. Per quantity, ``halves`` (the two entries or an ``error``),
    :math:`z = |\hat\theta_1 - \hat\theta_2|/\sqrt{h_1^2 + h_2^2}` and ``agree``
    (:math:`z \le 2`; None where a half cannot be fitted).

    Raises
    ------
    RoundedFitError
        Fewer than two replicates per half (four in all).
    """
    k = samples.shape[1]
    if k < 4:
        raise RoundedFitError(f"split halves need at least 4 replicates, got {k}")
    halves = (np.arange(k // 2), np.arange(k // 2, k))
    fits: list[dict[str, Any] | None] = []
    errors = []
    for index in halves:
        sub = independent[:, index] if independent is not None else None
        try:
            fits.append(calibrated_fit(x, samples[:, index], sems[:, index], side,
                                       reduced_max, sub))
            errors.append("")
        except RoundedFitError as error:
            fits.append(None)
            errors.append(str(error))
    result: dict[str, Any] = {"replicates": [index.tolist() for index in halves]}
    for name in ("critical", "exponent"):
        entries = [fit[name] if fit is not None else {"error": message}
                   for fit, message in zip(fits, errors, strict=True)]
        z = agree = None
        if all(fit is not None for fit in fits):
            a, b = entries
            z = abs(a["value"] - b["value"]) / max(np.hypot(a["half_width"], b["half_width"]),
                                                   1e-12)
            agree = bool(z <= AGREEMENT_Z)
        result[name] = {"halves": entries, "z": None if z is None else float(z),
                        "agree": agree}
    return result
