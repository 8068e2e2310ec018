r"""Critical points and exponents of an order–disorder transition (pure functions).

The array functions know no model: the caller passes the control values :math:`x`, the
replicate-averaged order-like observable :math:`P` (the model's primary observable, e.g.
the Vicsek order parameter :math:`v_a`) and the ordered side of the transition, as the
model declares them (:class:`flocklab.core.model.CriticalControl`).

The fit (:mod:`flocklab.analysis.rounded`): the paper's power law
:math:`P = A\,s^{e}` with :math:`s = (x_c - x)/x_c` (ordered below :math:`x_c`) or
:math:`s = (x - x_c)/x_c` (ordered above), averaged over a Gaussian spread of reduced width
:math:`w` of the critical point and floored in quadrature by :math:`f` (a finite system's
rounding), fitted on both sides within :math:`|s| \le s_{\max}`; for the Vicsek model
:math:`e = \beta` against the noise :math:`\eta` and :math:`e = \delta` against the density
:math:`\rho`. The 68 % interval is value :math:`\pm \max(t_{k-1}\sigma_J, \sigma_W)`
(jackknife over replicates, half range over windows), scaled where the fit's χ² rejects the
model; the same estimate on the two halves of the replicates checks it
(:func:`flocklab.analysis.rounded.split_half`). The paper's pure power law on the ordered
side (:func:`fit_power_law`, its window rule iterated to a fixed point, a bootstrap over
replicates) is kept in the JSON's ``power_law`` entry for comparison only.

**Reading a summary.** The control (its summary coordinate, ordered side, exponent name
and symbol) comes from the model the summary names (``attrs["model"]`` →
:meth:`flocklab.core.model.Model.critical_control`, :func:`control_declaration`), the
observable from ``attrs["primary_observable"]`` (:func:`observable_name`). A summary
written by another simulator needs only per-replicate ``<P>_mean`` (and ``<P>_sem``) on
(control, ``replicate`` or ``seed``): without a ``model`` attribute the caller gives the
ordered side and the exponent's name, and the control is the coordinate's name; replicate
means and their errors are computed when absent (:func:`with_replicate_means`).

**Fitting a summary.** :func:`fit_critical_summary` makes one fit per curve, i.e. per
value of the swept dimensions other than the control's (for example one per N); written
to ``results/<study>/critical.nc`` (and ``critical.json``) by
:func:`flocklab.stages.critical.run_fit_critical`:

======================  ==============================================================
variable                meaning
======================  ==============================================================
<c>_c                   critical value (``<key>_c``, e.g. ``eta_c`` or ``rho_c``)
<c>_c_ci_low/high       calibrated 68 % interval
<c>_c_statistical       its jackknife part :math:`t_{k-1}\sigma_J`
<c>_c_window            its window part :math:`\sigma_W`
<c>_c_half1/half2       the estimates from the two halves of the replicates
<c>_c_halves_agree      1 where the halves agree (z <= 2)
<e>, <e>_ci_*, ...      the exponent (the control's declared name, e.g. ``beta``), likewise
amplitude               A of the rounded law
rounding_width          reduced width w of the Gaussian rounding
floor                   finite-size floor f
chi2_per_dof            reduced χ² of the fit
n_points                points in the fitting window
window_low/high         control range of the window
used                    1 where a point entered the fit (control dimension)
short                   1 where the point's runs hold fewer than 50 independent samples
limit_<tag>             1 where that limit applies (:func:`limitations`: ``misfit``,
                        ``halves``, ``wide``, ``rounded``, ``bound``, ``refits``)
======================  ==============================================================

Curves that cannot be fitted are listed in the JSON (``failed``, with the reason); their
variables are NaN in the netCDF file and ``null`` in the JSON.

Finite-size scaling (χ peaks, Binder crossings, extrapolation, data collapse) is in
:mod:`flocklab.analysis.fss`.

References
----------
T. Vicsek et al., Phys. Rev. Lett. 75, 1226 (1995).
B. Efron, R. J. Tibshirani, *An Introduction to the Bootstrap*, Chapman & Hall (1993).
"""

from __future__ import annotations

import itertools
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import xarray as xr
from scipy import optimize, stats

from flocklab.analysis.reading import (
    CriticalFitError,
    control_declaration,
    observable_name,
    observable_symbol,
    with_replicate_means,
)
from flocklab.analysis.resampling import bootstrap, percentile_interval
from flocklab.analysis.rounded import (
    AGREEMENT_Z,
    MISFIT_LEVEL,
    SHORT_SAMPLES,
    RoundedFitError,
    calibrated_fit,
    split_half,
)
from flocklab.core.model import CriticalControl
from flocklab.core.provenance import netcdf_attrs

#: Smallest per-point error used in weighted fits (a point with zero error would get infinite
#: weight, e.g. v_a = 1 exactly at eta = 0).
ERROR_FLOOR = 1e-6
MIN_WINDOW_POINTS = 4
#: Window widths of :func:`window_scan`, as multiples of the ``reduced_max`` actually used:
#: from half to twice it on a geometric grid, so the scan always brackets (and contains) it.
SCAN_FACTORS = (0.5, 2**-0.5, 1.0, 2**0.5, 2.0)
FIT_STATUSES = ("converged", "cycle")




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
    used, params, covariance, status, note = _settle_window(x, v, err, side, reduced_min,
                                                            reduced_max, max_iterations)
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


def _settle_window(x: np.ndarray, v: np.ndarray, err: np.ndarray, side: str,
                   reduced_min: float, reduced_max: float, max_iterations: int
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray, str, str]:
    """The window rule on sorted, finite points: iterate from the steepest descent until
    the set of points is stable (``converged``) or repeats an earlier set (``cycle``: the
    best-fitting set seen is kept).

    Returns ``(used, params, covariance, status, note)``, ``params = (A, x_c, exponent)``.
    """
    critical = _steepest_descent(x, v, side)
    used = np.zeros(x.size, bool)
    tried: list[tuple[float, np.ndarray, np.ndarray, np.ndarray]] = []
    for _ in range(max_iterations):
        s = reduced_distance(x, critical, side)
        new_used = (s > reduced_min) & (s <= reduced_max)
        if new_used.sum() < MIN_WINDOW_POINTS:
            raise CriticalFitError(
                f"only {int(new_used.sum())} points on the ordered side within reduced distance "
                f"({reduced_min:g}, {reduced_max:g}] of the critical value {critical:.4g}; "
                f"need {MIN_WINDOW_POINTS}")
        if np.array_equal(new_used, used):   # the last fit's own window: settled
            _, used, params, covariance = tried[-1]
            return used, params, covariance, "converged", ""
        if any(np.array_equal(new_used, previous[1]) for previous in tried):
            # The window cycles between point sets: keep the best-fitting of those seen, and
            # say so.
            seen = ", ".join(f"{item[2][1]:.4g}" for item in tried)
            _, used, params, covariance = min(tried, key=lambda item: item[0])
            note = (f"the window alternated between point sets (critical values {seen}); "
                    f"kept the set with the smallest chi2/dof (x_c = {params[1]:.4g})")
            return used, params, covariance, "cycle", note
        used = new_used
        params, covariance = _fit_window(x[used], v[used], err[used], side, critical, x)
        tried.append((_chi2_per_dof(x[used], v[used], err[used], params, side), used, params,
                      covariance))
        critical = params[1]
    raise CriticalFitError(f"the fitting window did not settle within {max_iterations} "
                           f"iterations (last critical value {critical:.4g})")


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


# --------------------------------------------------------------------------- fitting a summary

WINDOW_RULE = ("points on the ordered side with reduced distance s = |x - x_c| / x_c in "
               "(reduced_min, reduced_max], iterated from the steepest descent of the "
               "observable until the set of points is stable (status 'converged') or "
               "alternates between sets (status 'cycle': the best-fitting set is kept)")
SCAN_RULE = ("reduced_max = (0.5, 0.707, 1, 1.414, 2) x the reduced_max used (half to twice "
             "it, geometric), dropping widths <= reduced_min")


def _check_selection(summary: xr.Dataset, coordinate: str, select: Mapping[str, Any]) -> None:
    if coordinate not in summary.coords:
        raise CriticalFitError(f"summary has no coordinate '{coordinate}'; available: "
                               f"{', '.join(map(str, summary.coords))}")
    for name, value in select.items():
        if name not in summary.dims:
            raise CriticalFitError(f"cannot select '{name}': not a dimension of the "
                                   f"summary ({', '.join(map(str, summary.dims))})")
        if value not in summary[name].values.tolist():
            raise CriticalFitError(f"{name} = {value} is not in the summary "
                                   f"({summary[name].values.tolist()})")


def curves(summary: xr.Dataset, coordinate: str, select: Mapping[str, Any],
           observable: str) -> list[tuple[dict[str, Any], xr.Dataset]]:
    """Split a summary into 1-D curves along ``coordinate``'s dimension.

    Parameters
    ----------
    summary : xarray.Dataset
        With ``replicate_<observable>``.
    coordinate : str
        The control's coordinate (one-dimensional after ``select``).
    select : mapping
        Values of other dimensions to fix first.
    observable : str
        P.

    Returns
    -------
    list of (labels, dataset)
        One per combination of the other dimensions of ``replicate_<observable>``
        (``labels``: dimension → value; a single pair with empty labels for a 1-D summary).

    Raises
    ------
    CriticalFitError
        Unknown coordinate or selection, or a coordinate that varies along several
        dimensions.
    """
    _check_selection(summary, coordinate, select)
    data = summary.sel(select) if select else summary
    if data[coordinate].ndim != 1:
        raise CriticalFitError(f"coordinate '{coordinate}' varies along "
                               f"{data[coordinate].dims}: select one value of the others")
    (control_dim,) = data[coordinate].dims
    others = [dim for dim in data[f"replicate_{observable}"].dims if dim != control_dim]
    result = []
    for values in itertools.product(*(data[dim].values.tolist() for dim in others)):
        labels = dict(zip(others, values, strict=True))
        result.append((labels, data.sel(labels) if labels else data))
    return result


@dataclass(frozen=True)
class CurveArrays:
    """What :func:`fit_curve` takes from one curve of :func:`curves`.

    Attributes
    ----------
    x, v, err : ndarray, shape (n,)
        Control values, replicate mean of P and its error.
    samples, sems : ndarray, shape (n, k)
        Per-replicate ``<P>_mean`` and ``<P>_sem`` (NaN where the summary has none).
    independent : ndarray, shape (n, k), or None
        Per-replicate independent samples ``<P>_independent`` (n / τ_int after burn-in).
    fallback : ndarray, shape (n,)
        Error of the parametric bootstrap with one seed (the run's sem).
    """

    x: np.ndarray
    v: np.ndarray
    err: np.ndarray
    samples: np.ndarray
    sems: np.ndarray
    independent: np.ndarray | None
    fallback: np.ndarray


def curve_arrays(curve: xr.Dataset, coordinate: str, observable: str, replicate_dim: str
                 ) -> CurveArrays:
    """The arrays of one curve (see :class:`CurveArrays`)."""
    x = curve[coordinate].values.astype(float)
    samples = curve[f"{observable}_mean"].transpose(..., replicate_dim).values

    def per_run(name: str) -> np.ndarray | None:
        return (curve[name].transpose(..., replicate_dim).values.astype(float)
                if name in curve else None)

    sems = per_run(f"{observable}_sem")
    err = curve[f"replicate_{observable}_err"].values
    fallback = sems[:, 0] if samples.shape[1] == 1 and sems is not None else err
    return CurveArrays(x, curve[f"replicate_{observable}"].values, err, samples,
                       sems if sems is not None else np.full(samples.shape, np.nan),
                       per_run(f"{observable}_independent"), fallback)


METHOD = ("rounded power law P = sqrt((A E[(s + w xi)_+^e])^2 + f^2), xi ~ N(0, 1), on "
          "|s| <= reduced_max; 68 % interval = value +- max(t_(k-1) sigma_jackknife, "
          "half range over reduced_max x (0.707, 1, 1.414)), jackknife over replicates")


def fit_curve(arrays: CurveArrays, side: str, reduced_min: float, reduced_max: float,
              resamples: int, rng: np.random.Generator) -> dict[str, Any]:
    r"""The calibrated rounded fit of one curve, its split halves and the paper's fit.

    Parameters
    ----------
    arrays : CurveArrays
    side : {"below", "above"}
    reduced_min, reduced_max : float
        ``reduced_max``: the rounded fit's window :math:`|s| \le s_{\max}`; both set the
        window of the pure power law (:func:`fit_power_law`) reported for comparison.
    resamples : int
        Bootstrap resamples of the pure power-law fit (0: no comparison fit).
    rng : numpy Generator

    Returns
    -------
    dict
        ``calibrated`` (:func:`flocklab.analysis.rounded.calibrated_fit`), ``split_half``
        (:func:`flocklab.analysis.rounded.split_half`, or ``{"error"}``), ``power_law``
        (``fit``, ``bootstrap`` and ``scan``, or ``{"error"}``) and ``short`` (points
        whose runs' median n / τ_int is below 50).

    Raises
    ------
    CriticalFitError
        The curve cannot be fitted (no transition, too few points, at an edge).

    References
    ----------
    T. Vicsek et al., Phys. Rev. Lett. 75, 1226 (1995).
    """
    a = arrays
    try:
        calibrated = calibrated_fit(a.x, a.samples, a.sems, side, reduced_max, a.independent)
    except RoundedFitError as error:
        raise CriticalFitError(str(error)) from None
    try:
        halves: dict[str, Any] = split_half(a.x, a.samples, a.sems, side, reduced_max,
                                            a.independent)
    except RoundedFitError as error:
        halves = {"error": str(error)}
    short = (np.nanmedian(a.independent, axis=1) < SHORT_SAMPLES if a.independent is not None
             else np.zeros(a.x.size, bool))
    return {"calibrated": calibrated, "split_half": halves, "short": short,
            "power_law": _power_law_comparison(a, side, reduced_min, reduced_max, resamples,
                                               rng)}


def _power_law_comparison(a: CurveArrays, side: str, reduced_min: float, reduced_max: float,
                          resamples: int, rng: np.random.Generator) -> dict[str, Any]:
    """The pure power law with its seed bootstrap (the paper's method), or ``{"error"}``."""
    if resamples <= 0:
        return {"error": "not asked for (bootstrap: 0)"}
    try:
        fit = fit_power_law(a.x, a.v, a.err, side, reduced_min, reduced_max)
    except CriticalFitError as error:
        return {"error": str(error)}
    boot = bootstrap(
        a.samples,
        lambda mean, error: (lambda f: (f.critical, f.exponent))(
            fit_power_law(a.x, mean, error, side, reduced_min, reduced_max)),
        a.fallback, resamples, rng)
    return {"fit": fit, "bootstrap": boot}


def fit_critical_summary(summary: xr.Dataset, control: str, select: Mapping[str, Any] | None,
                         reduced_min: float = 0.02, reduced_max: float = 0.8,
                         resamples: int = 200, seed: int = 0, *, observable: str | None = None,
                         side: str | None = None, exponent: str | None = None,
                         refusals: bool = False) -> tuple[xr.Dataset, dict[str, Any]]:
    r"""Fit every curve of a summary (see the module docstring).

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
        ``reduced_max``: window of the rounded fit, :math:`|s| \le s_{\max}`; with
        ``reduced_min`` also the window of the pure power law given for comparison.
    resamples, seed : int
        Bootstrap resamples of the comparison fit and the bootstrap's seed.
    observable : str, optional
        P (default: :func:`observable_name`).
    side, exponent : str, optional
        Ordered side and exponent name, for a summary without a ``model`` attribute.
    refusals : bool
        Where no curve can be fitted, return the refusal (NaN variables, the reasons in the
        JSON's ``failed`` and ``refused`` and the dataset's ``refused`` attribute) instead
        of raising: what the pipeline writes, so that a study whose data hold no fittable
        transition says so in its report.

    Returns
    -------
    dataset : xarray.Dataset
        The fit variables on the curves' label dimensions (no provenance attributes: the
        stage adds them).
    document : dict
        JSON-ready: the single fit's record, or ``fits`` and ``failed`` for several curves.

    Raises
    ------
    CriticalFitError
        No curve can be fitted (each curve's reason in the message; unless ``refusals``),
        or missing variables.
    ParameterError
        Unknown control or missing side (see :func:`control_declaration`).

    References
    ----------
    T. Vicsek et al., Phys. Rev. Lett. 75, 1226 (1995).
    """
    declared = control_declaration(summary, control, side, exponent)
    observable = observable_name(summary, observable)
    summary, replicate_dim = with_replicate_means(summary, observable)
    rng = np.random.default_rng(seed)
    all_curves = curves(summary, declared.coordinate, select or {}, observable)
    entries, failures = [], []
    for labels, curve in all_curves:
        arrays = curve_arrays(curve, declared.coordinate, observable, replicate_dim)
        try:
            result = fit_curve(arrays, declared.ordered_side, reduced_min, reduced_max,
                               resamples, rng)
        except CriticalFitError as error:
            where = ", ".join(f"{k} = {val}" for k, val in labels.items())
            failures.append({**labels, "control": control,
                             "error": f"{where + ': ' if where else ''}{error}"})
            continue
        entries.append((labels, {**result, "x": arrays.x}))
    if not entries:
        # A single curve, or every curve, that cannot be fitted is an error, not a number
        # (or, for the pipeline, a refusal with its reasons).
        reasons = "; ".join(failure["error"] for failure in failures)
        if not refusals:
            raise CriticalFitError(reasons)
        return _refused_dataset(all_curves, declared, observable, summary, reasons), {
            "control": control, "observable": observable, "fits": [], "failed": failures,
            "refused": reasons, **({"select": dict(select)} if select else {})}
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
    return _critical_dataset(entries, records, declared, observable, summary,
                             select or {}), document


def _refused_dataset(all_curves: Sequence[tuple[dict[str, Any], xr.Dataset]],
                     declared: CriticalControl, observable: str, summary: xr.Dataset,
                     reasons: str) -> xr.Dataset:
    """NaN critical value, exponent and intervals on the curves' label dimensions, with the
    reasons in the ``refused`` attribute."""
    critical_name, exponent = f"{declared.key}_c", declared.exponent
    label_dims = list(all_curves[0][0]) if all_curves else []
    shape = tuple(summary.sizes[d] for d in label_dims)
    names = [f"{base}{suffix}" for base in (critical_name, exponent)
             for suffix in ("", "_ci_low", "_ci_high")]
    ds = xr.Dataset({name: (label_dims, np.full(shape, np.nan)) for name in names},
                    coords={d: summary[d] for d in label_dims})
    ds.attrs = netcdf_attrs({
        "title": f"critical-point fit ({declared.key}): refused", "control": declared.key,
        "coordinate": declared.coordinate, "exponent": exponent,
        "side": declared.ordered_side, "symbol": declared.symbol, "observable": observable,
        "observable_symbol": observable_symbol(summary, observable), "method": METHOD,
        "refused": reasons, "model": summary.attrs.get("model", "none"),
        "study": summary.attrs.get("study", "")})
    return ds


def _split_record(halves: Mapping[str, Any], names: Mapping[str, str]) -> dict[str, Any]:
    """The split-half entry of a record, with the quantities under their own names."""
    if "error" in halves:
        return {"error": halves["error"]}
    out: dict[str, Any] = {"replicates": halves["replicates"], "agreement_z": AGREEMENT_Z}
    for key, name in names.items():
        entry = halves[key]
        out[name] = {"halves": [{k: v for k, v in half.items() if k != "statistical"}
                                for half in entry["halves"]],
                     "z": entry["z"], "agree": entry["agree"]}
    return out


def _power_law_record(power: Mapping[str, Any], names: Mapping[str, str]) -> dict[str, Any]:
    if "error" in power:
        return {"error": power["error"]}
    fit, boot = power["fit"], power["bootstrap"]
    out: dict[str, Any] = {"chi2_per_dof": fit.chi2_per_dof, "n_points": fit.n_points,
                           "status": fit.status, "note": fit.note,
                           "bootstrap_successful": int(boot.shape[0])}
    for j, (key, name) in enumerate(names.items()):
        value = fit.critical if key == "critical" else fit.exponent
        low, high = percentile_interval(boot[:, j] if boot.size else np.empty(0))
        out[name] = {"value": value, "ci": [low, high]}
    return out


def _record(labels: Mapping[str, Any], result: Mapping[str, Any], declared: CriticalControl,
            observable: str, reduced_min: float, reduced_max: float, resamples: int,
            seed: int) -> dict[str, Any]:
    """JSON entry of one fitted curve."""
    calibrated, x = result["calibrated"], result["x"]
    fit = calibrated["fit"]
    names = {"critical": f"{declared.key}_c", "exponent": declared.exponent}
    short = x[result["short"]].tolist()
    note = (f"{len(short)} point(s) with fewer than {SHORT_SAMPLES} independent samples per "
            f"run after burn-in (median over seeds), down-weighted in the fit: "
            f"{declared.key} = {', '.join(f'{value:g}' for value in short)}" if short else "")
    window = x[fit.used]
    split = _split_record(result["split_half"], names)
    return {
        **labels,
        "control": declared.key, "coordinate": declared.coordinate,
        "side": declared.ordered_side, "observable": observable,
        **{name: dict(calibrated[key]) for key, name in names.items()},
        "amplitude": float(fit.params[0]), "rounding_width": float(fit.params[3]),
        "floor": float(fit.params[4]), "chi2_per_dof": fit.chi2_per_dof,
        "n_points": fit.n_points, "replicates": calibrated["replicates"],
        "status": "converged", "note": note, "short_points": short, "method": METHOD,
        "window": {"low": float(window.min()), "high": float(window.max()),
                   "reduced_max": reduced_max},
        "jackknife": {names["critical"]: calibrated["jackknife"][:, 0].tolist(),
                      names["exponent"]: calibrated["jackknife"][:, 1].tolist()},
        "windows": [{"reduced_max": float(row[0]), names["critical"]: float(row[1]),
                     names["exponent"]: float(row[2])} for row in calibrated["windows"]],
        "split_half": split,
        "power_law": {**_power_law_record(result["power_law"], names),
                      "reduced_min": reduced_min, "reduced_max": reduced_max,
                      "resamples": resamples, "seed": seed, "rule": WINDOW_RULE},
        "failed_refits": calibrated["failed_refits"], "at_bounds": calibrated["at_bounds"],
    } | limitations(fit.chi2_per_dof, fit.n_points - 5,
                    {name: calibrated[key] for key, name in names.items()}, split,
                    _beyond_rounding(x[fit.used], fit.critical, float(fit.params[3]),
                                     declared.ordered_side),
                    calibrated["at_bounds"], calibrated["failed_refits"])


def _beyond_rounding(x: np.ndarray, critical: float, width: float, side: str) -> int:
    """Window points on the ordered side beyond the rounding: s > :data:`UNROUNDED_WIDTHS` w."""
    return int(np.sum(reduced_distance(x, critical, side) > UNROUNDED_WIDTHS * width))


#: What limits a single-size fit (:func:`limitations`), as netCDF flags ``limit_<tag>``.
LIMITS = {"misfit": "the rounded law misfits (chi-square rejects it at 1 %)",
          "halves": "the two halves of the replicates disagree or cannot be fitted",
          "wide": "an interval is wider than half its value",
          "rounded": "too few points beyond the rounding to measure the exponent",
          "bound": "a parameter ended at a bound of the fit",
          "refits": "jackknife or window refits failed (the interval rests on fewer)"}
#: The power law is measured by window points beyond this many rounding widths on the
#: ordered side (s > 2 w: outside the Gaussian spread of pseudo-critical points) ...
UNROUNDED_WIDTHS = 2.0
#: ... of which there must be at least this many.
UNROUNDED_POINTS = 3
#: An interval whose half-width exceeds this fraction of the value's magnitude does not fix
#: the value.
WIDE_INTERVAL = 0.5

#: How every single-size fit is introduced: its numbers are effective values at that size.
EFFECTIVE = ("effective values at this size (the fitted x_c is a shape parameter of the "
             "finite-size curve, not the critical point; finite-size scaling measures that)")


def limitations(chi2_per_dof: float, dof: int, estimates: Mapping[str, Mapping[str, Any]],
                split: Mapping[str, Any], beyond_rounding: int = UNROUNDED_POINTS,
                at_bounds: Sequence[str] = (), failed_refits: Mapping[str, int] | None = None
                ) -> dict[str, Any]:
    r"""What limits a single-size fit's effective values, as tags and one sentence.

    (i) ``misfit``: its χ² rejects the rounded law at the 1 % level
    (:data:`flocklab.analysis.rounded.MISFIT_LEVEL`; the interval, scaled by
    :math:`S = \sqrt{\chi^2/\nu}`, then measures the misfit); (ii) ``halves``: a half of the
    replicates cannot be fitted or the halves disagree (z > 2); (iii) ``wide``: a half-width
    exceeds :data:`WIDE_INTERVAL` of its value; (iv) ``rounded``: fewer than
    :data:`UNROUNDED_POINTS` window points lie on the ordered side beyond :math:`s > 2w`,
    so the exponent is set by the rounding; (v) ``bound``: a parameter ended at a bound;
    (vi) ``refits``: jackknife or window refits failed.

    Returns
    -------
    dict
        ``limits`` (tags), ``verdict`` (one sentence: :data:`EFFECTIVE`, then the limits).

    Examples
    --------
    >>> q = limitations(1.1, 12, {"beta": {"value": 0.4, "ci": [0.35, 0.45]}},
    ...                 {"beta": {"z": 0.5, "agree": True}})
    >>> q["limits"]
    []
    """
    problems: dict[str, str] = {}
    dof = max(int(dof), 1)
    p_value = float(stats.chi2.sf(chi2_per_dof * dof, dof))
    if p_value < MISFIT_LEVEL:
        problems["misfit"] = (f"the rounded law misfits (chi2/dof = {chi2_per_dof:.2f} on "
                              f"{dof} degrees of freedom, p = {p_value:.1g})")
    halves = _halves_problem(estimates, split)
    if halves:
        problems["halves"] = halves
    wide = [name for name, entry in estimates.items()
            if (entry["ci"][1] - entry["ci"][0]) / 2 > WIDE_INTERVAL * abs(entry["value"])]
    if wide:
        problems["wide"] = (f"the interval of {', '.join(wide)} is wider than "
                            f"{WIDE_INTERVAL:.0%} of the value")
    if beyond_rounding < UNROUNDED_POINTS:
        problems["rounded"] = (f"{beyond_rounding} window point(s) on the ordered side beyond "
                               f"twice the rounding width (need {UNROUNDED_POINTS}): the "
                               f"exponent is set by the rounding, not measured")
    if at_bounds:
        problems["bound"] = f"{', '.join(at_bounds)} ended at a bound of the fit"
    failed = {k: v for k, v in (failed_refits or {}).items() if v}
    if failed:
        problems["refits"] = ("failed refits: " + ", ".join(f"{v} {k}" for k, v in
                                                            failed.items()))
    verdict = EFFECTIVE + ("; limits: " + "; ".join(problems.values()) if problems else "")
    return {"limits": list(problems), "verdict": verdict}


def _halves_problem(estimates: Mapping[str, Any], split: Mapping[str, Any]) -> str:
    """Why the split halves limit a fit ('' where they agree)."""
    if "error" in split:
        return f"a half of the replicates cannot be fitted ({split['error']})"
    unfitted = [name for name in estimates if name in split and split[name]["z"] is None]
    apart = [f"{name} (z = {split[name]['z']:.1f})" for name in estimates
             if name in split and split[name]["z"] is not None and not split[name]["agree"]]
    texts = ([f"a half of the replicates gives no {', '.join(unfitted)}"] if unfitted
             else []) + ([f"the two halves of the replicates disagree on "
                          f"{', '.join(apart)}"] if apart else [])
    return "; ".join(texts)


def _fit_values(record: Mapping[str, Any], critical_name: str, exponent: str
                ) -> dict[str, float]:
    """The netCDF scalars of one curve's record."""
    values: dict[str, float] = {}
    for name in (critical_name, exponent):
        entry = record[name]
        values.update({name: entry["value"], f"{name}_ci_low": entry["ci"][0],
                       f"{name}_ci_high": entry["ci"][1],
                       f"{name}_statistical": entry["statistical"],
                       f"{name}_window": entry["window"]})
        split = record["split_half"]
        for half in (0, 1):
            values[f"{name}_half{half + 1}"] = (
                split[name]["halves"][half].get("value", np.nan) if name in split else np.nan)
        agree = split.get(name, {}).get("agree")
        values[f"{name}_halves_agree"] = np.nan if agree is None else float(agree)
    values.update({key: record[key] for key in ("amplitude", "rounding_width", "floor",
                                               "chi2_per_dof", "n_points")})
    values.update({f"limit_{tag}": float(tag in record["limits"]) for tag in LIMITS})
    values.update(window_low=record["window"]["low"], window_high=record["window"]["high"])
    return values


LONG_NAMES = {
    "ci_low": "lower end of the calibrated 68 % interval of",
    "ci_high": "upper end of the calibrated 68 % interval of",
    "statistical": "jackknife part (t_(k-1) sigma_J) of the half-width of",
    "window": "window part (half range over windows) of the half-width of",
    "half1": "estimate from the first half of the replicates of",
    "half2": "estimate from the second half of the replicates of",
    "halves_agree": "1 where the two halves agree (z <= 2) of",
}


def _long_name(name: str, base_names: Mapping[str, str]) -> str:
    for suffix, text in LONG_NAMES.items():
        for base, long_name in base_names.items():
            if name == f"{base}_{suffix}":
                return f"{text} {long_name}"
    return base_names.get(name, name.replace("_", " "))


def _critical_dataset(entries: Sequence[tuple[dict[str, Any], dict[str, Any]]],
                      records: Sequence[Mapping[str, Any]], declared: CriticalControl,
                      observable: str, summary: xr.Dataset, select: Mapping[str, Any]
                      ) -> xr.Dataset:
    critical_name, exponent, coordinate = (f"{declared.key}_c", declared.exponent,
                                           declared.coordinate)
    label_dims = list(entries[0][0])
    shape = tuple(summary.sizes[d] for d in label_dims)
    control_dim = summary[coordinate].dims[0]
    first = _fit_values(records[0], critical_name, exponent)
    arrays = {name: np.full(shape, np.nan) for name in first}
    masks = {name: np.zeros((*shape, summary.sizes[control_dim]), np.int8)
             for name in ("used", "short")}
    for (labels, result), record in zip(entries, records, strict=True):
        k = tuple(int(np.flatnonzero(summary[d].values == labels[d])[0]) for d in label_dims)
        for name, value in _fit_values(record, critical_name, exponent).items():
            arrays[name][k] = value
        masks["used"][k] = result["calibrated"]["fit"].used
        masks["short"][k] = result["short"]
    base = {critical_name: f"critical {declared.key}", exponent: f"critical exponent {exponent}",
            "amplitude": f"amplitude A of {observable}", "rounding_width":
            "reduced width w of the Gaussian rounding", "floor": "finite-size floor f",
            "chi2_per_dof": "reduced chi-square", "n_points": "points in the window",
            "window_low": "smallest control value used", "window_high":
            "largest control value used",
            **{f"limit_{tag}": f"1 where {text}" for tag, text in LIMITS.items()}}
    data_vars = {name: (label_dims, values, {"long_name": _long_name(name, base)})
                 for name, values in arrays.items()}
    data_vars["used"] = ([*label_dims, control_dim], masks["used"],
                         {"long_name": "1 where the point entered the fit"})
    data_vars["short"] = ([*label_dims, control_dim], masks["short"],
                          {"long_name": f"1 where the runs hold fewer than {SHORT_SAMPLES} "
                                        f"independent samples (median over seeds)"})
    coords = {d: summary[d] for d in label_dims}
    coords[control_dim] = summary[control_dim]
    if coordinate != control_dim:
        coords[coordinate] = summary[coordinate]
    ds = xr.Dataset(data_vars, coords=coords)
    ds.attrs = netcdf_attrs({
        "title": f"critical-point fit ({declared.key})", "control": declared.key,
        "coordinate": coordinate, "exponent": exponent, "side": declared.ordered_side,
        "symbol": declared.symbol, "observable": observable,
        "observable_symbol": observable_symbol(summary, observable), "select": dict(select),
        "method": METHOD, "model": summary.attrs.get("model", "none"),
        "study": summary.attrs.get("study", "")})
    return ds
