r"""Coverage of the critical-fit intervals on synthetic data with a known truth (pure).

A synthetic *case* imitates a replicate-averaged finite-size curve: a power law
:math:`A\,s^{e}` whose critical point is smeared over a reduced width :math:`w` (the
rounding of a finite system),

.. math::

    m(x) = \sqrt{\Bigl(A\,\mathbb{E}_\xi\bigl[(s + w\xi)_+^{\,e}\bigr]\Bigr)^2 + f^2},

with :math:`\xi` of unit variance, Gaussian in half the cases and logistic (heavier tails,
a shape neither of the fit's two rounding shapes has) in the other half,

and each of :math:`k` replicate runs is an AR(1) series around :math:`m(x)`,
:math:`v_t = m + \sigma\,u_t`, :math:`u_t = \phi u_{t-1} + \sqrt{1-\phi^2}\,\epsilon_t`,
with larger fluctuations near :math:`x_c`. Its run means, τ-corrected standard errors and
independent samples are computed by :func:`flocklab.analysis.timeseries.series_statistics`
exactly as for a simulated run. :func:`measure_coverage` fits many cases with
:func:`flocklab.analysis.rounded.calibrated_fit` and counts how often the 68 % interval
contains the truth.

References
----------
B. Efron, R. J. Tibshirani, *An Introduction to the Bootstrap*, Chapman & Hall (1993)
(coverage of interval estimates).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy import signal

from flocklab.analysis.rounded import RoundedFitError, calibrated_fit
from flocklab.core.autocorrelation import integrated_autocorrelation_time

#: Gauss–Hermite nodes for the Gaussian smearing of the critical point; equal-weight
#: quantiles of the unit-variance logistic distribution for the logistic one.
_NODES, _WEIGHTS = np.polynomial.hermite_e.hermegauss(48)
_QUANTILES = (np.arange(400) + 0.5) / 400
_LOGISTIC = np.sqrt(3) / np.pi * np.log(_QUANTILES / (1 - _QUANTILES))
#: Control grids: those of the default noise (ordered below) and density (ordered above)
#: studies.
GRIDS = {"below": np.round(np.arange(0.25, 5.01, 0.25), 6),
         "above": np.array([0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.6, 0.8, 1.0, 1.25, 1.5,
                            2.0, 2.5])}


def smeared_power_law(s: np.ndarray, amplitude: float, exponent: float, width: float,
                      floor: float, shape: str = "gauss") -> np.ndarray:
    r""":math:`m(s)` of the module docstring (Gauss–Hermite quadrature over a Gaussian
    :math:`\xi`, or 400 equal-weight quantiles of a logistic one)."""
    nodes, weights = ((_NODES, _WEIGHTS) if shape == "gauss"
                      else (_LOGISTIC, np.ones(_LOGISTIC.size)))
    shifted = np.clip(np.asarray(s, float)[:, None] + width * nodes[None, :], 0.0, None)
    smooth = (shifted**exponent) @ weights / weights.sum()
    return np.sqrt((amplitude * smooth) ** 2 + floor**2)


def draw_truth(rng: np.random.Generator, side: str) -> dict[str, Any]:
    """Random true parameters of one case: x_c, exponent, amplitude, rounding width and
    shape, floor, replicates (3, 4 or 6), AR(1) coefficient and fluctuation size."""
    critical = rng.uniform(2.5, 3.5) if side == "below" else rng.uniform(0.4, 1.0)
    return {"critical": critical, "exponent": rng.uniform(0.25, 0.6),
            "amplitude": rng.uniform(0.8, 1.1), "width": rng.uniform(0.01, 0.15),
            "floor": rng.uniform(0.03, 0.15), "replicates": int(rng.choice([3, 4, 6])),
            "phi": rng.uniform(0.8, 0.98), "sigma": rng.uniform(0.03, 0.08),
            "shape": str(rng.choice(["gauss", "logistic"]))}


def synthetic_case(rng: np.random.Generator, side: str, truth: dict[str, Any],
                   samples_per_run: int = 1000) -> dict[str, np.ndarray]:
    """Per-run means, standard errors and independent samples of one synthetic study.

    Returns
    -------
    dict
        ``x`` (n,), ``samples``, ``sems``, ``independent`` (n, k).
    """
    x = GRIDS[side]
    c = truth["critical"]
    s = (c - x) / c if side == "below" else (x - c) / c
    mean = smeared_power_law(s, truth["amplitude"], truth["exponent"], truth["width"],
                             truth["floor"], truth["shape"])
    sigma = truth["sigma"] * (1 + 2 * np.exp(-0.5 * (s / 0.1) ** 2))
    k, phi = truth["replicates"], truth["phi"]
    shocks = rng.normal(size=(x.size, k, samples_per_run + 200)) * np.sqrt(1 - phi**2)
    noise = signal.lfilter([1.0], [1.0, -phi], shocks, axis=-1)[..., 200:]
    series = mean[:, None, None] + sigma[:, None, None] * noise
    tau = np.array([[integrated_autocorrelation_time(run) for run in point]
                    for point in series])
    runs_mean = series.mean(axis=-1)
    sems = np.sqrt(tau * series.var(axis=-1, ddof=1) / samples_per_run)
    return {"x": x, "samples": runs_mean, "sems": sems, "independent": samples_per_run / tau}


def measure_coverage(cases: int, side: str, seed: int, reduced_max: float | None = None
                     ) -> dict[str, Any]:
    """Fit ``cases`` synthetic cases and count how often the 68 % intervals hold the truth.

    Parameters
    ----------
    cases : int
    side : {"below", "above"}
    seed : int
    reduced_max : float, optional
        Window (default 0.8 below, 2.0 above: the default studies' settings).

    Returns
    -------
    dict
        ``fitted``, ``refused`` (counts), and for ``critical`` and ``exponent``:
        ``coverage`` (fraction of fitted cases), ``binomial_error`` (its standard error
        at the nominal 0.68), ``median_half_width`` and ``median_relative_half_width``.
    """
    rng = np.random.default_rng(seed)
    window = reduced_max if reduced_max is not None else (0.8 if side == "below" else 2.0)
    hits = {"critical": [], "exponent": []}
    widths = {"critical": [], "exponent": []}
    refused = 0
    for _ in range(cases):
        truth = draw_truth(rng, side)
        case = synthetic_case(rng, side, truth)
        try:
            result = calibrated_fit(case["x"], case["samples"], case["sems"], side, window,
                                    case["independent"])
        except RoundedFitError:
            refused += 1
            continue
        for name in hits:
            low, high = result[name]["ci"]
            hits[name].append(low <= truth[name] <= high)
            widths[name].append((result[name]["half_width"], result[name]["half_width"]
                                 / truth[name]))
    fitted = cases - refused
    out: dict[str, Any] = {"cases": cases, "fitted": fitted, "refused": refused, "side": side}
    for name in hits:
        w = np.array(widths[name]).reshape(-1, 2)
        out[name] = {"coverage": float(np.mean(hits[name])) if fitted else float("nan"),
                     "binomial_error": float(np.sqrt(0.68 * 0.32 / max(fitted, 1))),
                     "median_half_width": float(np.median(w[:, 0])) if fitted else None,
                     "median_relative_half_width": float(np.median(w[:, 1])) if fitted
                     else None}
    return out
