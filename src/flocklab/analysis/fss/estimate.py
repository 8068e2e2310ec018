r"""The finite-size scaling estimators, applied to one set of curves.

For sizes :math:`L_1 < \dots < L_S`, each with its curves of the order parameter
:math:`P`, the susceptibility :math:`\chi = N(\langle P^2\rangle - \langle P\rangle^2)` and
the Binder cumulant :math:`U = 1 - \langle P^4\rangle / (3\langle P^2\rangle^2)` against
the control :math:`x`, :func:`estimate` computes, in this order:

1. **χ maxima** :math:`x^*(L)`, :math:`\chi_{\max}(L)` (:func:`~.local.curve_peak`).
2. **Binder crossings** :math:`x_\times(L_s, L_t)` of every size pair where the curves
   differ significantly on both sides (:func:`~.local.significant_crossings`), oriented
   (the larger size more ordered on the ordered side).
3. **Critical point** from the crossings, extrapolated in :math:`L`: the scaling form
   :math:`U = f(t L^{1/\nu}) + L^{-\omega} g(t L^{1/\nu})` moves the crossing of
   :math:`L_s, L_t` to

   .. math:: x_\times = x_c + b\,h_{st}, \qquad
             h_{st} = \frac{L_s^{-\omega} - L_t^{-\omega}}{L_t^{1/\nu} - L_s^{1/\nu}},

   fitted for :math:`(x_c, b)` by least squares over the counted crossings
   (:math:`\omega` the ``correction_exponent``, default 1; with one counted crossing it is
   :math:`x_c`).
4. :math:`1/\nu` from the **slope of U at** :math:`x_c`,
   :math:`\partial_x U|_{x_c} = f'(0) L^{1/\nu}` (the maximal slope scales the same way,
   but the maximum of a noisy derivative is biased upwards); :math:`\nu = 1/(1/\nu)`.
5. :math:`\beta/\nu` from :math:`P(x_c, L) \propto L^{-\beta/\nu}` and :math:`\gamma/\nu`
   from :math:`\chi_{\max} \propto L^{\gamma/\nu}`, both least-squares lines in
   :math:`\ln L`; the **hyperscaling residual** :math:`2\beta/\nu + \gamma/\nu - d`.
6. The **peak shift** :math:`x^*(L) = x_c + a L^{-1/\nu}` (at least four sizes), a second
   estimate of :math:`x_c` and :math:`1/\nu`.
7. The **data collapse** of :math:`P L^{\beta/\nu}` against :math:`t L^{1/\nu}`,
   :math:`t = (x - x_c)/|x_c|`, within :math:`|t| L^{1/\nu} \le` ``collapse_window``:
   the quality :math:`S` of Houdayer and Hartmann minimised over
   :math:`(x_c, \beta/\nu, 1/\nu)` from the estimates above.

Every estimator either gives a number or NaN with its reason;
:mod:`flocklab.analysis.fss.analysis` reruns :func:`estimate` on each bootstrap resample.

References
----------
K. Binder, "Finite size scaling analysis of Ising model block distribution functions",
Z. Phys. B 43, 119 (1981).
A. M. Ferrenberg and D. P. Landau, "Critical behavior of the three-dimensional Ising model:
a high-resolution Monte Carlo study", Phys. Rev. B 44, 5081 (1991).
M. E. J. Newman and G. T. Barkema, *Monte Carlo Methods in Statistical Physics*, Oxford
University Press (1999), ch. 8.
J. Houdayer and A. K. Hartmann, "Low-temperature behavior of two-dimensional Gaussian
Ising spin glasses", Phys. Rev. B 70, 014418 (2004), appendix (collapse quality).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import numpy as np
from scipy import optimize

from flocklab.analysis.fss.local import (
    LOCAL_POINTS,
    Crossing,
    curve_peak,
    fit_at,
    significant_crossings,
)

#: Range searched for 1/nu by the peak-shift fit and allowed in the collapse.
INVERSE_NU_BOUNDS = (0.1, 5.0)

#: Fewest resolved χ maxima for the peak-shift fit (three parameters and one degree of
#: freedom: with three sizes the fit passes through every point and its 1/ν is noise).
PEAK_SHIFT_SIZES = 4


@dataclass(frozen=True)
class Curves:
    """Per-size curves of one sample, arrays of shape (S, M) padded with NaN.

    Attributes
    ----------
    lengths : ndarray, shape (S,)
        Linear sizes, increasing.
    x : ndarray, shape (S, M)
        Control values of each size's grid, increasing (NaN padding).
    order, chi, binder : ndarray, shape (S, M)
        :math:`\\langle P\\rangle`, :math:`\\chi`, :math:`U`.
    order_err, chi_err, binder_err : ndarray, shape (S, M)
        Their standard errors (the full data's): they decide which crossings count and
        weight the collapse.
    """

    lengths: np.ndarray
    x: np.ndarray
    order: np.ndarray
    chi: np.ndarray
    binder: np.ndarray
    order_err: np.ndarray
    chi_err: np.ndarray
    binder_err: np.ndarray

    def curve(self, name: str, s: int) -> tuple[np.ndarray, np.ndarray]:
        """``(x, y)`` of variable ``name`` (order, chi, binder) of size index ``s``."""
        return self.x[s], getattr(self, name)[s]

    def with_errors(self, name: str, s: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(x, y, err)`` of variable ``name`` of size index ``s``."""
        return self.x[s], getattr(self, name)[s], getattr(self, f"{name}_err")[s]

    def subset(self, sizes: slice) -> Curves:
        """The curves of the sizes ``sizes`` only."""
        return Curves(*(getattr(self, name)[sizes] for name in (
            "lengths", "x", "order", "chi", "binder", "order_err", "chi_err", "binder_err")))


@dataclass(frozen=True)
class Options:
    """Settings of :func:`estimate`.

    Attributes
    ----------
    side : {"below", "above"}
        Ordered side of the control.
    dimension : float
        Space dimension d (hyperscaling).
    correction_exponent : float
        :math:`\\omega` of the crossing extrapolation.
    collapse_window : float
        Largest :math:`|t| L^{1/\\nu}` in the collapse.
    points : int
        Grid points of each local fit.
    collapse : bool
        Run the collapse (the slowest estimator).
    """

    side: str = "below"
    dimension: float = 2.0
    correction_exponent: float = 1.0
    collapse_window: float = 1.0
    points: int = LOCAL_POINTS
    collapse: bool = True


@dataclass
class Estimates:
    """What :func:`estimate` found: ``values`` (name → float or per-size/per-pair array,
    NaN where an estimator failed) and ``reasons`` (name → why it failed)."""

    values: dict[str, np.ndarray] = field(default_factory=dict)
    reasons: dict[str, str] = field(default_factory=dict)

    def set(self, name: str, value: float | np.ndarray, reason: str = "") -> None:
        self.values[name] = np.asarray(value, float)
        if reason and not np.all(np.isfinite(self.values[name])):
            self.reasons.setdefault(name, reason)

    def __getitem__(self, name: str) -> np.ndarray:
        return self.values[name]


def size_pairs(count: int) -> list[tuple[int, int]]:
    """Index pairs ``(s, t)``, ``s < t``, of ``count`` sizes in a fixed order."""
    return list(itertools.combinations(range(count), 2))


def straight_line(u: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """Intercept and slope of the least-squares line :math:`y = a + b u` over the finite
    points (NaN with fewer than two distinct u)."""
    good = np.isfinite(u) & np.isfinite(y)
    if np.unique(u[good]).size < 2:
        return (np.nan, np.nan)
    slope, intercept = np.polyfit(u[good], y[good], 1)
    return float(intercept), float(slope)


def log_slope(lengths: np.ndarray, values: np.ndarray) -> float:
    r"""Exponent :math:`b` of :math:`y \propto L^b`: the least-squares line of
    :math:`\ln y` against :math:`\ln L` (positive values only)."""
    positive = np.isfinite(values) & (values > 0)
    logs = np.where(positive, np.log(np.where(positive, values, 1.0)), np.nan)
    return straight_line(np.log(lengths), logs)[1]


def estimate_peaks(curves: Curves, options: Options, out: Estimates) -> None:
    """Per size: χ-maximum location, height and whether it lies at an edge."""
    peaks = [curve_peak(*curves.curve("chi", s), options.points)
             for s in range(curves.lengths.size)]
    out.set("peak_location", [p.location for p in peaks], "no interior chi maximum")
    out.set("peak_height", [p.height for p in peaks])
    out.set("peak_at_edge", [float(p.at_edge) for p in peaks])


def chosen_crossing(found: list[Crossing], side: str) -> Crossing | None:
    """The oriented crossing nearest the ordered side (the critical one where the Binder
    cumulant dips and the curves cross twice)."""
    oriented = [c for c in found if c.oriented]
    if not oriented:
        return None
    return oriented[0] if side == "below" else oriented[-1]


def estimate_crossings(curves: Curves, options: Options, out: Estimates) -> None:
    """Per size pair: the Binder crossing (NaN where none counts) and the value there."""
    chosen = []
    for s, t in size_pairs(curves.lengths.size):
        found = significant_crossings(curves.with_errors("binder", s),
                                      curves.with_errors("binder", t),
                                      options.side, points=options.points)
        chosen.append(chosen_crossing(found, options.side))
    out.set("crossing", [np.nan if c is None else c.location for c in chosen])
    out.set("crossing_value", [np.nan if c is None else c.value for c in chosen])


def crossing_offsets(lengths: np.ndarray, inverse_nu: float, omega: float) -> np.ndarray:
    r""":math:`h_{st}` of every size pair (:func:`size_pairs` order)."""
    return np.array([(lengths[s] ** -omega - lengths[t] ** -omega)
                     / (lengths[t] ** inverse_nu - lengths[s] ** inverse_nu)
                     for s, t in size_pairs(lengths.size)])


def critical_from_crossings(lengths: np.ndarray, crossing: np.ndarray, inverse_nu: float,
                            omega: float) -> tuple[float, float]:
    r""":math:`(x_c, b)` of :math:`x_\times = x_c + b h_{st}` over the counted crossings;
    with one crossing (or one distinct :math:`h`), the largest pair's crossing and
    :math:`b = 0`."""
    good = np.isfinite(crossing)
    if not good.any():
        return (np.nan, np.nan)
    offsets = crossing_offsets(lengths, inverse_nu if np.isfinite(inverse_nu) else 1.0, omega)
    intercept, slope = straight_line(offsets[good], crossing[good])
    if np.isfinite(intercept):
        return intercept, slope
    return float(crossing[np.flatnonzero(good)[-1]]), 0.0


def binder_slopes(curves: Curves, at: float, points: int) -> np.ndarray:
    """:math:`|dU/dx|` at ``at`` per size (NaN where it cannot be fitted)."""
    fits = [fit_at(*curves.curve("binder", s), at, points) for s in range(curves.lengths.size)]
    return np.array([np.nan if fit is None else abs(fit.coefficients[1]) for fit in fits])


def estimate_critical(curves: Curves, options: Options, out: Estimates) -> None:
    """x_c from the crossings and 1/nu from the Binder slopes at x_c, iterated once."""
    crossing = out["crossing"]
    if not np.isfinite(crossing).any():
        reason = "the Binder cumulants of no size pair cross significantly in the range"
        for name in ("x_c", "crossing_slope", "inverse_nu", "nu"):
            out.set(name, np.nan, reason)
        out.set("binder_slope", np.full(curves.lengths.size, np.nan), reason)
        return
    start = float(crossing[np.flatnonzero(np.isfinite(crossing))[-1]])
    inverse_nu = log_slope(curves.lengths, binder_slopes(curves, start, options.points))
    critical, amplitude = critical_from_crossings(curves.lengths, crossing, inverse_nu,
                                                  options.correction_exponent)
    slopes = binder_slopes(curves, critical, options.points)
    inverse_nu = log_slope(curves.lengths, slopes)
    out.set("x_c", critical, "no crossing could be extrapolated")
    out.set("crossing_slope", amplitude)
    out.set("binder_slope", slopes, "x_c outside this size's grid")
    out.set("inverse_nu", inverse_nu, "the Binder slope at x_c is known at fewer than two "
                                      "sizes")
    out.set("nu", 1.0 / inverse_nu if np.isfinite(inverse_nu) and inverse_nu > 0 else np.nan,
            "1/nu is not a positive number")


def estimate_amplitudes(curves: Curves, options: Options, out: Estimates) -> None:
    """beta/nu from P(x_c, L), gamma/nu from the chi maxima, the hyperscaling residual."""
    critical = float(out["x_c"])
    fits = [fit_at(*curves.curve("order", s), critical, options.points)
            for s in range(curves.lengths.size)]
    order = np.array([np.nan if f is None else f.coefficients[0] for f in fits])
    missing = ("needs the critical value, which the crossings do not give"
               if not np.isfinite(critical) else "P(x_c, L) is known at fewer than two sizes")
    out.set("order_at_critical", order, "x_c outside this size's grid")
    out.set("beta_over_nu", -log_slope(curves.lengths, order), missing)
    out.set("gamma_over_nu", log_slope(curves.lengths, out["peak_height"]),
            "the chi maximum is resolved at fewer than two sizes")
    out.set("hyperscaling", 2 * out["beta_over_nu"] + out["gamma_over_nu"]
            - options.dimension, "beta/nu or gamma/nu is missing")


def peak_shift(lengths: np.ndarray, location: np.ndarray) -> tuple[float, float, float, bool]:
    r"""Fit of :math:`x^*(L) = x_c + a L^{-1/\nu}`: :math:`(x_c, a, 1/\nu)` and whether
    :math:`1/\nu` ended at a bound of :data:`INVERSE_NU_BOUNDS` (NaN with fewer than
    :data:`PEAK_SHIFT_SIZES` finite locations)."""
    good = np.isfinite(location)
    if good.sum() < PEAK_SHIFT_SIZES:
        return (np.nan, np.nan, np.nan, False)
    size, value = lengths[good], location[good]

    def misfit(inverse_nu: float) -> float:
        a, b = straight_line(size ** -inverse_nu, value)
        return float(np.sum((value - a - b * size ** -inverse_nu) ** 2))

    low, high = INVERSE_NU_BOUNDS
    best = optimize.minimize_scalar(misfit, bounds=(low, high), method="bounded",
                                    options={"xatol": 1e-5})
    inverse_nu = float(best.x)
    critical, amplitude = straight_line(size ** -inverse_nu, value)
    at_bound = min(inverse_nu - low, high - inverse_nu) < 1e-3 * (high - low)
    return critical, amplitude, inverse_nu, at_bound


def estimate_peak_shift(curves: Curves, out: Estimates) -> None:
    """The peak-shift fit's x_c, 1/nu and bound flag."""
    critical, _, inverse_nu, at_bound = peak_shift(curves.lengths, out["peak_location"])
    reason = f"the chi maximum is resolved at fewer than {PEAK_SHIFT_SIZES} sizes"
    out.set("peak_shift_x_c", critical, reason)
    out.set("peak_shift_inverse_nu", inverse_nu, reason)
    out.set("peak_shift_at_bound", float(at_bound))


def estimate(curves: Curves, options: Options) -> Estimates:
    """All estimators of the module docstring on one set of curves.

    Parameters
    ----------
    curves : Curves
        One sample (the data, or a bootstrap resample of it).
    options : Options

    Returns
    -------
    Estimates
        Scalars ``x_c``, ``inverse_nu``, ``nu``, ``beta_over_nu``, ``gamma_over_nu``,
        ``hyperscaling``, ``crossing_slope``, ``peak_shift_x_c``,
        ``peak_shift_inverse_nu``, ``peak_shift_at_bound`` and the ``collapse_*`` values;
        per size ``peak_location``, ``peak_height``, ``peak_at_edge``, ``binder_slope``,
        ``order_at_critical``; per size pair (:func:`size_pairs`) ``crossing``,
        ``crossing_value``.
    """
    from flocklab.analysis.fss.collapse import estimate_collapse

    out = Estimates()
    estimate_peaks(curves, options, out)
    estimate_crossings(curves, options, out)
    estimate_critical(curves, options, out)
    estimate_amplitudes(curves, options, out)
    estimate_peak_shift(curves, out)
    if options.collapse:
        estimate_collapse(curves, options, out)
    return out
